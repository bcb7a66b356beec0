# `install onnxruntime` on an NVIDIA root (the WSL driver stubs, nvidia-smi's
# driver 566.36), so onnxruntime-cuda is chosen, layered on the cuda
# profile, with the fake wheels of tests/support/fake_framework_wheels.py
# from a PyPI-like index over the root's loopback HTTPS (docs/testing.md,
# "Fake framework wheels"). The fake onnxruntime runs a session on
# CUDAExecutionProvider only with libcuda.so.1 and the venv's
# nvidia/cudnn/lib/libcudnn.so.9; otherwise it says ONNX Runtime's
# "Failed to create CUDAExecutionProvider" and falls back to the CPU.
#   - plan names the profile, cuda-driver's steps (no CUDA toolkit), onnxruntime-gpu at
#     the row's release and the nvidia-*-cu12 wheels, from the index;
#   - the install commits and its smoke check passes without a warning:
#     the profile installs the cuDNN wheel that the CUDA provider loads;
#     the venv and every file in it belong to the user;
#   - as the user, the profile's own smoke code says the session's
#     providers begin with CUDAExecutionProvider;
#   - a rerun is converged with no network, without starting Python or apt;
#   - the rollback, with the server still down, leaves an empty snapshot
#     diff: the venv removed whole.
# And on a second root whose cuDNN wheel lost its library (the index's
# nvidia-cudnn-cu12 without libcudnn.so.9): the install commits, and the
# smoke check warns, naming `wslgpu-setup doctor --python` on the venv.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root ort_installs_converges_and_rolls_back_offline
  with_root ort_smoke_warns_naming_doctor_without_the_cudnn_library
}

ort_installs_converges_and_rolls_back_offline() {
  local tmp=$REALROOT_SCENARIO_TMP sets site ort
  ort=$(framework_manifest_value onnxruntime-cuda ort_version ort_python 3.12)
  frameworks_www
  mapfile -t sets < <(framework_args onnxruntime)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan onnxruntime
  assert_status 0 "plan onnxruntime"
  assert_contains "$TOOL_OUT" 'onnxruntime-cuda' "plan onnxruntime: the profile chosen for an NVIDIA root"
  assert_contains "$TOOL_OUT" 'libcuda +verify' "plan onnxruntime: cuda-driver's steps"
  assert_not_contains "$TOOL_OUT" ' (toolkit|cuda-repo) ' "plan onnxruntime: no CUDA toolkit and no NVIDIA apt source (the wheels bring CUDA)"
  assert_contains "$TOOL_OUT" "install onnxruntime-gpu ${ort//./\\.} from the index $HTTPS_URL/pypi" "plan onnxruntime: the row's release, from the index"
  assert_contains "$TOOL_OUT" 'nvidia-cudnn-cu12' "plan onnxruntime: the cuDNN wheel"

  tool --root "$ROOT" "${sets[@]}" install onnxruntime --yes
  assert_status 0 "install onnxruntime"
  assert_contains "$TOOL_OUT" 'committed' "install onnxruntime"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|does not run on the GPU|^warning: .*smoke' "install onnxruntime (the smoke check)"

  assert_owned_by_user "$ORT_VENV"
  site=$(framework_site "$ORT_VENV")
  [[ -f $ROOT$site/onnxruntime_gpu-$ort.dist-info/METADATA ]] || fail "onnxruntime-gpu $ort is not installed in the venv: $(ls "$ROOT$site")"
  [[ -f $ROOT$site/nvidia/cudnn/lib/libcudnn.so.9 ]] || fail "the venv has no nvidia/cudnn/lib/libcudnn.so.9: $(ls "$ROOT$site")"

  framework_smoke onnxruntime || fail "the profile's smoke code failed for the user after install onnxruntime"
  assert_contains "$LAST_OUTPUT" "^providers \\['CUDAExecutionProvider', 'CPUExecutionProvider'\\]$" "the session's providers"
  assert_contains "$LAST_OUTPUT" '^smoke ok 64\.0$' "the smoke code's output"
  assert_not_contains "$LAST_OUTPUT" 'Failed to create CUDAExecutionProvider' "the smoke code's output"

  profile_converged_offline onnxruntime "${sets[@]}"
  framework_rollback_to "$tmp/before" "$ORT_VENV"
}

ort_smoke_warns_naming_doctor_without_the_cudnn_library() {
  local sets site
  frameworks_www --hollow nvidia-cudnn-cu12
  mapfile -t sets < <(framework_args onnxruntime)
  tool --root "$ROOT" "${sets[@]}" install onnxruntime --yes
  assert_status 0 "install onnxruntime with a cuDNN wheel without its library (the smoke check only warns)"
  assert_contains "$TOOL_OUT" 'committed' "install onnxruntime"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'ONNX Runtime does not run on the GPU' "the smoke check's warning"
  assert_contains "$TOOL_OUT$TOOL_ERR" "wslgpu-setup doctor --python \"$ORT_VENV/bin/python\"" "the smoke check's advice"
  site=$(framework_site "$ORT_VENV")
  [[ -d $ROOT$site/nvidia/cudnn && ! -e $ROOT$site/nvidia/cudnn/lib/libcudnn.so.9 ]] || fail "the hollow cuDNN wheel is not what the venv holds"
  if framework_smoke onnxruntime; then fail "the smoke code passed without libcudnn.so.9"; fi
  assert_contains "$LAST_OUTPUT" 'Failed to load library libonnxruntime_providers_cuda\.so with error: libcudnn\.so\.9: cannot open shared object file' "the smoke code without libcudnn.so.9"
  assert_contains "$LAST_OUTPUT" 'the session runs on CPUExecutionProvider' "the smoke code without libcudnn.so.9"
}
