# realroot-timeout: 600
# Ctrl-C while the tool itself downloads a wheel named by https:// URL
# (issue 35, item 3; docs/steps.md, python_packages, "Apply"):
#   - `install pytorch` on ROCm 7.2.2, torch's wheel pinned by SHA-256 and
#     served slowly (serve_https's REALROOT_HTTPS_SLOW, a server that
#     answers Range requests as repo.radeon.com does): once the partial file
#     STATE/cache/wheels/HASH16-torch-....whl.part exists and grows, SIGINT
#     (what Ctrl-C sends) reaches the tool;
#   - it exits 130, says it was interrupted and rolled back, and the root is
#     as before (the tool's state folder aside); history says rolled_back;
#   - the partial file is kept (the wheel is pinned): fewer bytes than the
#     wheel, and they are its first bytes;
#   - a second `install` commits, resuming: the server is asked for torch
#     once more, with `Range: bytes=KEPT-`, and sends only the rest; torch
#     is in the venv, and the cache let go of the wheel and its partial
#     file once pip installed it (issue 54, item 3: it keeps only what a
#     later run can use).

scenario() {
  require_tool_command install
  require_tool_command history
  require_step_kinds python_venv python_packages
  with_root wheel_download_interrupted_then_resumed
}

# file_size FILE: its size in bytes, or nothing when it does not exist.
file_size() { stat -c %s -- "$1" 2>/dev/null || true; }
# count_lines TEXT: how many lines of TEXT are not empty.
count_lines() { awk 'NF { n++ } END { print n + 0 }' <<<"$1"; }

wheel_download_interrupted_then_resumed() {
  local tmp=$REALROOT_SCENARIO_TMP out=$REALROOT_SCENARIO_TMP/out err=$REALROOT_SCENARIO_TMP/err
  root_as_amd_machine
  # torch's wheel at 400 bytes a second: the fake one (about 5 KB) takes
  # some 13 s, time to see its partial file grow and interrupt it.
  REALROOT_HTTPS_SLOW='torch-2.9.1+rocm7.2.2*' REALROOT_HTTPS_RATE=400 pytorch_www
  local sha file served size
  sha=$(wheel_sha256 torch-2.9.1+rocm7.2.2)
  file=$(awk -v s="$sha" '$4 == s { print $3 }' "$tmp/wheels.sha256")
  served=$tmp/www/manylinux/rocm-rel-7.2.2/$file
  [[ -f $served ]] || fail "the served torch wheel $served does not exist"
  size=$(file_size "$served")
  local sets
  mapfile -t sets < <(pytorch_rocm_args 7.2.2 --set "torch_sha256=$sha")
  local cache=$ROOT$REALROOT_STATE_DIR/cache/wheels
  local cached=$cache/${sha:0:16}-$file
  local part=$cached.part
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  # The first install, interrupted once the partial file exists and grows.
  local pid status=0 i now
  NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" "${sets[@]}" install pytorch --yes >"$out" 2>"$err" &
  pid=$!
  await_growing_download "$pid" "$part" "$out" "$err"
  now=$GROWN_TO
  ((now < size)) || fail "torch's download was already whole ($now of $size bytes) when it was to be interrupted"
  say "torch's partial file has $now of $size bytes: SIGINT to the tool (pid $pid)"
  kill -INT "$pid"
  for ((i = 0; i < 1800; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" || true
    fail "the tool did not exit within 180 s of SIGINT:"$'\n'"$(cat "$out" "$err")"
  fi
  wait "$pid" || status=$?
  say "the interrupted install:"$'\n'"$(sed 's/^/  out| /' "$out")"$'\n'"$(sed 's/^/  err| /' "$err")"
  assert_eq "$status" 130 "the exit status of an install stopped by SIGINT while it downloaded torch's wheel"
  assert_contains "$(cat "$out")" 'was interrupted \(SIGINT\): .* undone .*; the machine is as it was \(exit 130\)' \
    "the interrupted install's last words"
  assert_contains "$(cat "$out")" "torch +failed: interrupted \\(SIGINT\\) while downloading $HTTPS_URL/manylinux/rocm-rel-7\\.2\\.2/torch-2\\.9\\.1(\\+|%2B)rocm7\\.2\\.2.* \\(what was fetched is kept for the next run\\)" \
    "the interrupted install's step line: what it was doing"
  assert_contains "$(cat "$err")" 'error: interrupted by SIGINT during step [0-9]+ "torch"' "the interrupted install's error"

  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "an install stopped by SIGINT during torch's download left the root changed"
  tool --root "$ROOT" history --output json
  assert_status 0 "history after the interrupted install"
  assert_eq "$(jq -r 'length' <<<"$TOOL_OUT")" 1 "the number of transactions after the interrupted install"
  assert_eq "$(jq -r '.[0].status' <<<"$TOOL_OUT")" rolled_back "the interrupted transaction's status"

  # The partial file is kept, for the pinned wheel: the wheel's first bytes.
  local kept
  kept=$(file_size "$part")
  [[ -n $kept ]] || fail "the interrupted install did not keep torch's partial file $part: $(ls -la "$cache" 2>&1)"
  ((kept > 0 && kept < size)) || fail "torch's kept partial file holds $kept bytes, expected 1 to $((size - 1)) of $size"
  [[ ! -e $cached ]] || fail "the interrupted install left a whole torch wheel $cached"
  cmp -s -n "$kept" "$part" "$served" || fail "torch's kept partial file is not the first $kept bytes of the wheel"
  # The server logs the path as asked, "+" as %2B.
  local log=$tmp/https.log first path=/manylinux/rocm-rel-7.2.2/${file//+/%2B}
  first=$(grep -F "served $path " "$log" || true)
  assert_eq "$(count_lines "$first")" 1 "GETs of torch's wheel during the interrupted install (https.log: $first)"
  assert_contains "$first" 'range=none status=200 sent=[0-9]+ cut$' "the interrupted install's GET of torch (from its first byte, cut)"
  local logged
  logged=$(wc -l <"$log")

  # The second install resumes from the kept bytes and commits.
  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "the install after the interrupted one"
  assert_contains "$TOOL_OUT" 'committed' "the install after the interrupted one"
  assert_contains "$TOOL_OUT" "downloading ${file//+/\\+} .* \\(resumed after [0-9.]+ [kMG]?B\\)" \
    "the second install's progress lines (they say the download went on from the kept bytes)"
  local again
  again=$(tail -n +"$((logged + 1))" "$log" | grep -F "served $path " || true)
  assert_eq "$(count_lines "$again")" 1 "GETs of torch's wheel during the second install (https.log: $again)"
  assert_contains "$again" "range=bytes=$kept- status=206 sent=$((size - kept))\$" \
    "the second install's GET of torch: the bytes after the $kept kept"
  say "the server's log of torch's wheel:"$'\n'"$first"$'\n'"$again"
  [[ ! -e $part ]] || fail "the committed install left torch's partial file $part"
  [[ ! -e $cached ]] || fail "the committed install left the torch wheel it installed in the cache: $(ls -la "$cache")"
  [[ -z $(ls -A "$cache" 2>/dev/null) ]] || fail "the committed install left wheels in the cache: $(ls -la "$cache")"
  local site=$ROOT$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages
  compgen -G "$site/torch-2.9.1+rocm7.2.2*.dist-info" >/dev/null ||
    fail "torch 2.9.1+rocm7.2.2 is not in the venv after the committed install: $(ls "$site" 2>&1)"
}
