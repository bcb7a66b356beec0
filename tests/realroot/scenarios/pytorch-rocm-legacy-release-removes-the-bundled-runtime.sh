# `install pytorch --set rocm_version=7.2` on an AMD root: ROCm 7.2, the last
# legacy release (the WSL runtime hsa-runtime-rocr4wsl-amdgpu, from the test
# repository's amdgpu/30.30), and the rocm-rel-7.2 wheels, whose torch ships
# torch/lib/libhsa-runtime64.so and .so.1 as AMD's legacy wheels do. The
# fake torch (tests/support/fake_wheels.py) sees no GPU while they shadow the
# WSL runtime, so:
#   - the install removes them (and only them: torch/lib keeps its other
#     libraries), and the user's smoke test then passes: is_available() True;
#   - putting one back makes it False again (the check can fail);
#   - a rerun is converged with no network and no Python started;
#   - the rollback leaves an empty snapshot diff.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root legacy_release_removes_the_bundled_runtime
}

legacy_release_removes_the_bundled_runtime() {
  local tmp=$REALROOT_SCENARIO_TMP sets row lib name version
  root_as_amd_machine
  pytorch_www --legacy-bundled-hsa=yes
  row=$(pytorch_rocm_wheels 7.2)
  mapfile -t sets < <(pytorch_rocm_args 7.2)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch --set rocm_version=7.2"
  assert_contains "$TOOL_OUT" 'rocm +change +install [0-9]+ packages: .*hsa-runtime-rocr4wsl-amdgpu' "plan: the legacy runtime"
  while read -r name version; do
    assert_contains "$TOOL_OUT" "$HTTPS_URL/manylinux/rocm-rel-7\\.2/$(wheel_url_re "$name" "$version")linux_x86_64\\.whl" \
      "plan pytorch: the $name wheel of the 7.2 row"
  done <<<"$row"
  assert_contains "$TOOL_OUT" 'libhsa-runtime64' "plan pytorch: the removal of torch's bundled runtime"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch --set rocm_version=7.2"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch"
  assert_installed "$ROOT" rocm hsa-runtime-rocr4wsl-amdgpu
  assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' rocm)" 7.2.0.70200-1 "rocm's version"
  assert_not_installed "$ROOT" rocdxg-roct

  lib=$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages/torch/lib
  [[ -d $ROOT$lib ]] || fail "$lib is not there"
  local left
  left=$(cd "$ROOT$lib" && ls -d libhsa-runtime64.so* 2>/dev/null || true)
  [[ -z $left ]] || fail "the bundled runtime is still in torch/lib: $left"
  [[ -f $ROOT$lib/libtorch_hip.so ]] || fail "torch/lib lost more than the bundled runtime: $(ls -A "$ROOT$lib")"
  assert_owned_by_user "$PYTORCH_VENV"

  torch_smoke || fail "the smoke test failed for the user after install pytorch on the legacy release"
  assert_eq "$LAST_OUTPUT" $'True\nAMD Radeon RX 7900 XTX\nsmoke ok 16777216.0' "the smoke test's output"
  # The other way round, so that the check above can fail: one bundled file back.
  printf 'fake bundled libhsa-runtime64\n' >"$ROOT$lib/libhsa-runtime64.so.1"
  as_user_login "$PYTORCH_VENV/bin/python -c 'import torch; print(torch.cuda.is_available())'" || fail "import torch failed"
  assert_eq "$LAST_OUTPUT" False "is_available() with a bundled libhsa-runtime64.so.1 back in torch/lib"
  rm "$ROOT$lib/libhsa-runtime64.so.1"

  pytorch_converged_offline "${sets[@]}"
  pytorch_rollback_to "$tmp/before"
  assert_not_installed "$ROOT" rocm hsa-runtime-rocr4wsl-amdgpu
}
