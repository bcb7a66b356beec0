# The disk-space preflight of the Python layer (issue 35, item 2): the
# folder the venv goes in is a filesystem of its own with almost no room
# left (a tmpfs, full but for a few KB), as a user's small WSL virtual disk
# is half-way through a 4 GB torch.
#   - plan pytorch says how many bytes the wheels come to, asked of the
#     server, and exits 3 naming the need on the venv's filesystem (the
#     wheels staged there, since the state folder is on another filesystem,
#     and what pip unpacks) and what is free there;
#   - install pytorch is refused the same way before anything changes: the
#     root is as before and no transaction is recorded;
#   - with room made, the same install commits.

scenario() {
  require_tool_command install
  require_step_kinds python_venv python_packages
  with_root venv_refused_for_too_little_room
}

venv_refused_for_too_little_room() {
  local tmp=$REALROOT_SCENARIO_TMP sets venvs=${PYTORCH_VENV%/*}
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  mapfile -t sets < <(pytorch_cuda_args)
  # ~/.venvs: a 256 MB filesystem of the user's, as the profile's
  # python_venv step would make it, filled by a ballast but for 8 KB; once
  # the ballast goes, room for the venv and the guard's 100 MB margin.
  mkdir -p "$ROOT$venvs"
  mount -t tmpfs -o size=256m,mode=0755 wslgpu-small-venvs "$ROOT$venvs"
  in_root chown "$REALROOT_USER:$REALROOT_USER" "$venvs"
  head -c $((256 * 1024 * 1024 - 8 * 1024)) /dev/zero >"$ROOT$venvs/ballast" 2>/dev/null || true
  local free
  free=$(df -B1 --output=avail "$ROOT$venvs" | tail -n 1 | tr -d ' ')
  ((free < 16 * 1024)) || fail "the small filesystem has $free bytes free, meant to be almost full"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 3 "plan pytorch with the venv's filesystem full"
  assert_contains "$TOOL_OUT" 'downloads [0-9.]+ [kMG]?B \([0-9]+ wheels?, resolved from the servers' "plan: the bytes to download"
  assert_contains "$TOOL_OUT$TOOL_ERR" "not enough disk space: the tool's wheels \([0-9.]+ [kMG]?B\) copied into $PYTORCH_VENV/[^ ]+ while pip runs .* and pip unpacks about [0-9.]+ [kMG]?B into $PYTORCH_VENV .*, but the filesystem of $PYTORCH_VENV has [0-9.]+ [kMG]?B free" "plan: the refusal names the venv's need and what is free"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 3 "install pytorch with the venv's filesystem full"
  assert_contains "$TOOL_OUT$TOOL_ERR" "not enough disk space: .* pip unpacks about" "install: refused for the room"
  snapshot "$ROOT" "$tmp/refused" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/refused" "a refused install changed the root"
  [[ ! -e $ROOT$PYTORCH_VENV ]] || fail "a refused install made the venv"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 0 "transactions after the refused install"

  rm -f "$ROOT$venvs/ballast"
  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch once there is room"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch once there is room"
  umount "$ROOT$venvs"
}
