# `install pytorch --set torch_sha256=...` with a hash that is not the
# wheel's (the SHA-256 of another of the served wheels: well-formed, and
# wrong) on a fresh AMD root: the install fails, says which wheel and both
# hashes, and leaves the root as it was (an empty snapshot diff: no venv, no
# ROCm, no download kept); the served torch wheel was never installed.

scenario() {
  require_tool_command install
  require_step_kinds python_venv python_packages
  with_root wrong_torch_hash_refused_with_nothing_changed
}

wrong_torch_hash_refused_with_nothing_changed() {
  local tmp=$REALROOT_SCENARIO_TMP sets right wrong
  root_as_amd_machine
  pytorch_www
  right=$(wheel_sha256 "torch-2.9.1+rocm7.2.2")
  wrong=$(wheel_sha256 "torchvision-0.24.0+rocm7.2.2")
  [[ $right != "$wrong" ]] || fail "the two wheels have the same SHA-256"
  mapfile -t sets < <(pytorch_rocm_args 7.2.2 --set "torch_sha256=$wrong")
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 1 "install pytorch with a wrong torch_sha256"
  assert_contains "$TOOL_OUT$TOOL_ERR" "$wrong" "the failure names the hash that was asked for"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'torch' "the failure names the wheel"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'rolled back' "the failure says what happened to the run"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a wrong wheel hash changed the root"
  [[ ! -e $ROOT$PYTORCH_VENV ]] || fail "the refused install left the venv $PYTORCH_VENV"
  assert_not_installed "$ROOT" rocm rocdxg-roct
}
