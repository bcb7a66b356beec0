# A venv whose path holds a space (`--set "venv=/home/alice/ML envs/pytorch"`,
# or a passwd home with one) works like any other (issue 54, finding 10):
#   - install pytorch on ROCm 7.2.2: the tool's own downloads reach pip as a
#     percent-encoded file URL (pip said "Invalid requirement: 'torch @
#     file:///home/alice/ML envs/...'" after the whole download before);
#   - the smoke checks of the profile run the venv's python (they ran
#     /home/alice/ML, exit 127, "PyTorch does not run on the GPU");
#   - the rollback leaves the root as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root venv_path_with_a_space
}

venv_path_with_a_space() {
  local tmp=$REALROOT_SCENARIO_TMP sets venv="/home/$REALROOT_USER/ML envs/pytorch"
  root_as_amd_machine
  pytorch_www
  mapfile -t sets < <(pytorch_rocm_args 7.2.2 --set "venv=$venv")
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch into \"$venv\""
  assert_contains "$TOOL_OUT" 'committed' "install pytorch into a path with a space"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|does not run on the GPU' "install pytorch: the smoke checks"
  ls "$ROOT$venv/lib/python$PYTORCH_PYTHON/site-packages/" | grep -q '^torch-2\.9\.1+rocm7\.2\.2.*\.dist-info$' ||
    fail "torch is not installed in \"$venv\": $(ls "$ROOT$venv/lib/python$PYTORCH_PYTHON/site-packages/" 2>&1)"

  tool --root "$ROOT" rollback "$(newest_transaction)" --yes
  assert_status 0 "rollback of the install into \"$venv\""
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "the rollback left the root different"
}
