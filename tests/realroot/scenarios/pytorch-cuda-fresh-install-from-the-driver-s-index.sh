# `install pytorch` on a fresh NVIDIA root (the WSL driver stubs in
# /usr/lib/wsl/lib; nvidia-smi prints a recorded Windows driver 591.86, CUDA
# 13.1), so the pytorch-cuda profile is chosen, with torch_cuda = "auto":
# the cu130 index of a fake download.pytorch.org (a PEP 503 index of fake
# wheels, tests/support/fake_wheels.py, over the root's loopback HTTPS).
#   - plan names the cu130 index, chosen from the driver, and cuda-driver's
#     steps, and no CUDA toolkit or NVIDIA apt source (the wheels bring
#     their CUDA runtime);
#   - the install commits; the venv and every file in it belong to the user;
#     torch is the index's +cu130 build of the row's version, its
#     dependencies came from the same index;
#   - /usr/lib/wsl/lib (a Windows mount) is not touched, and a login shell
#     has it on the linker search path (libcuda.so for torch.compile);
#   - as the user, through a login shell, the smoke test launches a kernel;
#   - a rerun is converged with no network, without starting Python or apt;
#   - the rollback leaves an empty snapshot diff.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root cuda_from_the_driver_s_index_installs_converges_and_rolls_back
}

cuda_from_the_driver_s_index_installs_converges_and_rolls_back() {
  local tmp=$REALROOT_SCENARIO_TMP sets site wsl_lib_before
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  mapfile -t sets < <(pytorch_cuda_args)
  wsl_lib_before=$(cd "$ROOT/usr/lib/wsl/lib" && ls -la --time-style=+%s . && sha256sum ./*)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch"
  assert_contains "$TOOL_OUT" 'pytorch-cuda' "plan pytorch: the profile chosen for an NVIDIA root"
  assert_contains "$TOOL_OUT" "$PYTORCH_CUDA_INDEX" "plan pytorch: the index chosen from the driver"
  assert_contains "$TOOL_OUT" "$HTTPS_URL/whl/$PYTORCH_CUDA_INDEX" "plan pytorch: the index's address"
  assert_contains "$TOOL_OUT" 'libcuda +verify' "plan pytorch: cuda-driver's steps"
  assert_not_contains "$TOOL_OUT" ' (toolkit|cuda-repo) ' "plan pytorch: no CUDA toolkit and no NVIDIA apt source (the wheels bring CUDA)"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|^warning: .*smoke' "install pytorch (the smoke test)"
  assert_not_installed "$ROOT" cuda cuda-drivers nvidia-driver-550 cuda-toolkit-13-1 cuda-nvcc-13-1
  [[ ! -e $ROOT/etc/apt/sources.list.d/cuda-wsl-ubuntu.sources ]] || fail "install pytorch added NVIDIA's CUDA repository"

  assert_owned_by_user "$PYTORCH_VENV"
  assert_owned_by_user "${PYTORCH_VENV%/*}"
  site=$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages
  [[ -f $ROOT$site/torch-$PYTORCH_CUDA_TORCH+$PYTORCH_CUDA_INDEX.dist-info/METADATA ]] || fail "torch $PYTORCH_CUDA_TORCH+$PYTORCH_CUDA_INDEX is not installed in the venv: $(ls "$ROOT$site")"
  [[ -f $ROOT$site/torchvision-0.29.1+$PYTORCH_CUDA_INDEX.dist-info/METADATA ]] || fail "the index's torchvision is not installed in the venv: $(ls "$ROOT$site")"
  [[ -f $ROOT$site/numpy-2.1.0.dist-info/METADATA ]] || fail "torchvision's numpy (from the index) is not installed: $(ls "$ROOT$site")"

  # The Windows mount is as it was; the linker finds libcuda.so there.
  assert_eq "$(cd "$ROOT/usr/lib/wsl/lib" && ls -la --time-style=+%s . && sha256sum ./*)" "$wsl_lib_before" "/usr/lib/wsl/lib after the install"
  as_user_login 'echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH LIBRARY_PATH=$LIBRARY_PATH"' || fail "a login shell of the user failed"
  assert_contains "$LAST_OUTPUT" '(^|[ :=])/usr/lib/wsl/lib(:| |$)' "a login shell's linker search path"

  torch_smoke || fail "the smoke test failed for the user after install pytorch"
  assert_eq "$LAST_OUTPUT" $'True\nNVIDIA GeForce RTX 4090\nsmoke ok 16777216.0' "the smoke test's output"
  as_user_login "$PYTORCH_VENV/bin/python -c 'import torch; print(torch.version.cuda)'" || fail "import torch failed"
  assert_eq "$LAST_OUTPUT" 13.0 "torch.version.cuda"

  pytorch_converged_offline "${sets[@]}"
  pytorch_rollback_to "$tmp/before"
}
