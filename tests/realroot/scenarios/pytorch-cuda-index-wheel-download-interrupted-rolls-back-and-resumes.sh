# realroot-timeout: 600
# Ctrl-C while the tool downloads a wheel pip would have fetched from the
# index (issue 54, item 4; docs/steps.md, python_packages, "Apply"): the
# CUDA PyTorch set comes from the driver's index of a fake
# download.pytorch.org, resolved by the tool from the index pages (each
# file's #sha256=) and fetched by installer/net, not by pip:
#   - torch's wheel is served slowly (REALROOT_HTTPS_SLOW); once its partial
#     file STATE/cache/wheels/HASH16-torch-....whl.part grows, SIGINT reaches
#     the tool; the partial file stops growing within a second (pip's own
#     download ran to its end first), the tool exits 130 and the root is as
#     before; the partial file is kept, the wheel's first bytes;
#   - a second `install` commits, resuming: the server is asked for torch
#     once more with `Range: bytes=KEPT-` and sends only the rest; pip ran
#     with --no-index (the log says so); the cache is empty afterwards.

scenario() {
  require_tool_command install
  require_tool_command history
  require_step_kinds python_venv python_packages
  with_root index_wheel_download_interrupted_then_resumed
}

# size_of FILE: its size in bytes, or nothing when it does not exist.
size_of() { stat -c %s -- "$1" 2>/dev/null || true; }

index_wheel_download_interrupted_then_resumed() {
  local tmp=$REALROOT_SCENARIO_TMP out=$REALROOT_SCENARIO_TMP/out err=$REALROOT_SCENARIO_TMP/err
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  local torch=torch-$PYTORCH_CUDA_TORCH+$PYTORCH_CUDA_INDEX
  REALROOT_HTTPS_SLOW="$torch*" REALROOT_HTTPS_RATE=400 pytorch_www
  local sha file served size sets
  sha=$(wheel_sha256 "$torch")
  file=$(awk -v s="$sha" '$4 == s { print $3 }' "$tmp/wheels.sha256")
  served=$tmp/www/whl/$PYTORCH_CUDA_INDEX/$file
  [[ -f $served ]] || fail "the served torch wheel $served does not exist"
  size=$(size_of "$served")
  mapfile -t sets < <(pytorch_cuda_args)
  local cache=$ROOT$REALROOT_STATE_DIR/cache/wheels
  local part=$cache/${sha:0:16}-$file.part
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  local pid status=0 i now
  NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" "${sets[@]}" install pytorch --yes >"$out" 2>"$err" &
  pid=$!
  await_growing_download "$pid" "$part" "$out" "$err"
  now=$GROWN_TO
  ((now < size)) || fail "torch's download was already whole ($now of $size bytes) when it was to be interrupted"
  kill -INT "$pid"
  # The download stops within a second: its partial file grows no more.
  sleep 1.2
  local at1 at2
  at1=$(size_of "$part")
  sleep 1.5
  at2=$(size_of "$part")
  [[ -n $at1 && $at1 == "$at2" ]] ||
    fail "torch's partial file still grew more than a second after SIGINT ($at1, then $at2 bytes)"
  for ((i = 0; i < 1800; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid" || true; fail "the tool did not exit within 180 s of SIGINT"; }
  wait "$pid" || status=$?
  say "the interrupted install:"$'\n'"$(sed 's/^/  out| /' "$out")"$'\n'"$(sed 's/^/  err| /' "$err")"
  assert_eq "$status" 130 "the exit status of an install stopped by SIGINT while the tool downloaded torch"
  assert_contains "$(cat "$out")" "torch +failed: interrupted \\(SIGINT\\) while downloading $HTTPS_URL/whl/$PYTORCH_CUDA_INDEX/torch-" \
    "the interrupted install's step line: the tool's own download of an index wheel"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "an install stopped by SIGINT during torch's download left the root changed"
  local kept
  kept=$(size_of "$part")
  [[ -n $kept ]] || fail "the interrupted install did not keep torch's partial file $part: $(ls -la "$cache" 2>&1)"
  ((kept > 0 && kept < size)) || fail "torch's kept partial file holds $kept bytes, expected 1 to $((size - 1)) of $size"
  cmp -s -n "$kept" "$part" "$served" || fail "torch's kept partial file is not the first $kept bytes of the wheel"
  local log=$tmp/https.log path=/whl/$PYTORCH_CUDA_INDEX/${file//+/%2B} logged
  logged=$(wc -l <"$log")

  tool --root "$ROOT" "${sets[@]}" --log-file "$tmp/second.log" install pytorch --yes
  assert_status 0 "the install after the interrupted one"
  assert_contains "$TOOL_OUT" 'committed' "the install after the interrupted one"
  local again
  again=$(tail -n +"$((logged + 1))" "$log" | grep -F "served $path " || true)
  assert_contains "$again" "range=bytes=$kept- status=206 sent=$((size - kept))\$" \
    "the second install's GET of torch: the bytes after the $kept kept"
  # pip installed from the tool's files alone.
  assert_contains "$(grep -F ' -m pip install ' "$tmp/second.log")" "--no-index --find-links file://$PYTORCH_VENV/\\.wslgpu-setup-wheels " \
    "the second install's pip command (its log)"
  assert_not_contains "$TOOL_ERR" "pip downloads what" "the second install's warnings (pip needed the index)"
  [[ -z $(ls -A "$cache" 2>/dev/null) ]] || fail "the committed install left wheels in the cache: $(ls -la "$cache")"
  local site=$ROOT$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages
  [[ -f $site/$torch.dist-info/METADATA ]] || fail "$torch is not in the venv: $(ls "$site" 2>&1)"
}
