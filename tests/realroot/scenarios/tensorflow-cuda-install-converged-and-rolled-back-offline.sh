# `install tensorflow` on an NVIDIA root (the WSL driver stubs, nvidia-smi's
# driver 566.36), so tensorflow-cuda is chosen, layered on the cuda
# profile, with the fake wheels of tests/support/fake_framework_wheels.py
# from a PyPI-like index over the root's loopback HTTPS (docs/testing.md,
# "Fake framework wheels"). The fake tensorflow lists a GPU only with
# /usr/lib/wsl/lib/libcuda.so.1, /dev/dxg and the and-cuda wheels'
# libraries in the venv; otherwise it says TensorFlow's "Cannot dlopen some
# GPU libraries ... Skipping registering GPU devices" and places the matmul
# on the CPU without a word (soft placement).
#   - plan names the profile, cuda-driver's steps (no CUDA toolkit), tensorflow[and-cuda]
#     at the profile's tf_version and the nvidia-*-cu12 wheels its extra
#     pulls in, read from the index's metadata files (PEP 658, as PyPI's);
#   - the install commits and its smoke check passes without a warning;
#     the venv and every file in it belong to the user;
#   - as the user, the profile's own smoke code lists the GPU and says the
#     matmul was placed on GPU:0;
#   - a rerun is converged with no network, without starting Python or apt;
#   - the rollback, with the server still down, leaves an empty snapshot
#     diff: the venv removed whole.
# Without WSL's libcuda.so.1, on a second root: cuda-driver's libcuda
# check stops the install before anything changes (exit 1, an empty
# snapshot diff). With it back, the install commits; then the driver's
# libcuda.so.1 goes (a Windows driver removed under a provisioned
# distribution): the smoke code lists no GPU, with TensorFlow's own lines,
# and `doctor --python` on the venv reports the empty list (tensorflow.gpu,
# blaming the driver that cuInit could not start, not the wheels)
# and the missing stub (nvidia.stubs) with its fix.
# On a third root whose cuDNN wheel lost its library (nvidia-cudnn-cu12
# without libcudnn.so.9): the install commits, the smoke check warns,
# naming `wslgpu-setup doctor --python` on the venv, and doctor says that
# TensorFlow lists no GPU because the recorded cuDNN wheel lacks its
# library, and that reinstalling that wheel (not tensorflow.org's symlink
# step, which would link nothing) is the fix.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command doctor
  require_step_kinds python_venv python_packages
  with_root tf_installs_converges_and_rolls_back_offline
  with_root tf_lists_no_gpu_without_wsl_s_libcuda
  with_root tf_smoke_warns_naming_doctor_without_the_cudnn_library
}

tf_installs_converges_and_rolls_back_offline() {
  local tmp=$REALROOT_SCENARIO_TMP sets site tf name version
  tf=$(framework_manifest_value tensorflow-cuda tf_version)
  frameworks_www
  mapfile -t sets < <(framework_args tensorflow)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan tensorflow
  assert_status 0 "plan tensorflow"
  assert_contains "$TOOL_OUT" 'tensorflow-cuda' "plan tensorflow: the profile chosen for an NVIDIA root"
  assert_contains "$TOOL_OUT" 'libcuda +verify' "plan tensorflow: cuda-driver's steps"
  assert_not_contains "$TOOL_OUT" ' (toolkit|cuda-repo) ' "plan tensorflow: no CUDA toolkit and no NVIDIA apt source (the wheels bring CUDA)"
  assert_contains "$TOOL_OUT" "install tensorflow\\[and-cuda\\] ${tf//./\\.} from the index $HTTPS_URL/pypi" "plan tensorflow: the profile's release with its CUDA extra, from the index"
  # Every wheel of the and-cuda extra, at the index's version (as the
  # wheel's file spells it): the plan walked the extra's Requires-Dist.
  while read -r name version; do
    assert_contains "$TOOL_OUT" "${name//-/[-_]} ${version//./\\.} \\(for tensorflow\\)" "plan tensorflow: $name, pulled in by tensorflow[and-cuda]"
  done <<<"$FRAMEWORKS_NVIDIA_CU12"

  tool --root "$ROOT" "${sets[@]}" install tensorflow --yes
  assert_status 0 "install tensorflow"
  assert_contains "$TOOL_OUT" 'committed' "install tensorflow"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|does not run on the GPU|^warning: .*smoke' "install tensorflow (the smoke check)"

  assert_owned_by_user "$TF_VENV"
  site=$(framework_site "$TF_VENV")
  [[ -f $ROOT$site/tensorflow-$tf.dist-info/METADATA ]] || fail "tensorflow $tf is not installed in the venv: $(ls "$ROOT$site")"
  [[ -f $ROOT$site/nvidia/cudnn/lib/libcudnn.so.9 && -f $ROOT$site/nvidia/cublas/lib/libcublas.so.12 ]] ||
    fail "the venv lacks the and-cuda wheels' libraries: $(ls "$ROOT$site/nvidia" 2>&1)"

  framework_smoke tensorflow || fail "the profile's smoke code failed for the user after install tensorflow"
  assert_contains "$LAST_OUTPUT" "^gpus \\[PhysicalDevice\\(name='/physical_device:GPU:0', device_type='GPU'\\)\\]$" "the GPUs TensorFlow lists"
  assert_contains "$LAST_OUTPUT" '^placed on /job:localhost/replica:0/task:0/device:GPU:0$' "where the matmul ran"
  assert_contains "$LAST_OUTPUT" '^smoke ok [0-9.]+$' "the smoke code's output"
  assert_not_contains "$LAST_OUTPUT" 'Cannot dlopen some GPU libraries' "the smoke code's output"

  profile_converged_offline tensorflow "${sets[@]}"
  framework_rollback_to "$tmp/before" "$TF_VENV"
}

tf_lists_no_gpu_without_wsl_s_libcuda() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  frameworks_www
  mapfile -t sets < <(framework_args tensorflow)
  hide_wsl_libcuda
  snapshot "$ROOT" "$tmp/no-libcuda" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install tensorflow --yes
  assert_status 1 "install tensorflow without /usr/lib/wsl/lib/libcuda.so.1 (cuda-driver's check)"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'libcuda.*/usr/lib/wsl/lib/libcuda\.so\.1 does not exist' "cuda-driver's libcuda check"
  snapshot "$ROOT" "$tmp/no-libcuda-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/no-libcuda" "$tmp/no-libcuda-after" "the refused install changed the root"

  show_wsl_libcuda
  tool --root "$ROOT" "${sets[@]}" install tensorflow --yes
  assert_status 0 "install tensorflow with the driver's libcuda.so.1 back"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'does not run on the GPU' "install tensorflow (the smoke check)"

  hide_wsl_libcuda
  if framework_smoke tensorflow; then fail "the smoke code passed without /usr/lib/wsl/lib/libcuda.so.1"; fi
  assert_contains "$LAST_OUTPUT" '^gpus \[\]$' "the GPUs TensorFlow lists without libcuda.so.1"
  assert_contains "$LAST_OUTPUT" 'failed call to cuInit' "TensorFlow's line without libcuda.so.1"
  assert_contains "$LAST_OUTPUT" 'Cannot dlopen some GPU libraries\.' "TensorFlow's line without libcuda.so.1"
  assert_contains "$LAST_OUTPUT" '^Skipping registering GPU devices\.\.\.$' "TensorFlow's line without libcuda.so.1"
  assert_contains "$LAST_OUTPUT" 'the matmul ran on /job:localhost/replica:0/task:0/device:CPU:0' "where the matmul ran (soft placement)"

  tool --root "$ROOT" doctor --python "$TF_VENV/bin/python" --output json
  assert_status 1 "doctor --python on the TensorFlow venv without libcuda.so.1 (a check fails)"
  assert_finding tensorflow.gpu fail seen "^TensorFlow $(tf_version_re) lists no GPU: tf\\.config\\.list_physical_devices\\('GPU'\\) is \\[\\]$"
  # The driver is the cause, not the wheels: no symlink step is advised.
  assert_finding tensorflow.gpu fail cause 'TensorFlow says ".*failed call to cuInit.*the CUDA driver did not start'
  assert_finding tensorflow.gpu fail fix '^Fix the NVIDIA findings above first.*the venv needs no change\.$'
  assert_finding nvidia.stubs fail seen '^/usr/lib/wsl/lib has no libcuda\.so\.1$'
  assert_finding nvidia.stubs fail fix "install NVIDIA's current driver"
}

tf_smoke_warns_naming_doctor_without_the_cudnn_library() {
  local sets site
  frameworks_www --hollow nvidia-cudnn-cu12
  mapfile -t sets < <(framework_args tensorflow)
  tool --root "$ROOT" "${sets[@]}" install tensorflow --yes
  assert_status 0 "install tensorflow with a cuDNN wheel without its library (the smoke check only warns)"
  assert_contains "$TOOL_OUT" 'committed' "install tensorflow"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'TensorFlow does not run on the GPU' "the smoke check's warning"
  assert_contains "$TOOL_OUT$TOOL_ERR" "wslgpu-setup doctor --python \"$TF_VENV/bin/python\"" "the smoke check's advice"
  site=$(framework_site "$TF_VENV")
  [[ -d $ROOT$site/nvidia/cudnn && ! -e $ROOT$site/nvidia/cudnn/lib/libcudnn.so.9 ]] || fail "the hollow cuDNN wheel is not what the venv holds"
  tool --root "$ROOT" doctor --python "$TF_VENV/bin/python" --output json
  assert_status 1 "doctor --python on the TensorFlow venv without libcudnn.so.9 (a check fails)"
  assert_finding tensorflow.gpu fail seen "^TensorFlow $(tf_version_re) lists no GPU: tf\\.config\\.list_physical_devices\\('GPU'\\) is \\[\\]$"
  assert_finding tensorflow.gpu fail cause 'TensorFlow says "Cannot dlopen some GPU libraries", and nvidia-cudnn-cu12 [0-9.]+ is recorded in the venv .* holds libcudnn\.so\.9'
  assert_finding tensorflow.gpu fail fix "^$TF_VENV/bin/python -m pip install --force-reinstall --no-deps \"nvidia-cudnn-cu12==[0-9.]+\" .*sudo wslgpu-setup install tensorflow-cuda"
  assert_not_contains "$(jq -r '.findings[] | select(.id == "tensorflow.gpu") | .fix' <<<"$TOOL_OUT")" 'ln -svf' \
    "doctor's tensorflow.gpu fix for a wheel without its library (the symlink step would link nothing)"
  assert_finding nvidia.stubs ok seen ''
}

# assert_finding ID STATUS FIELD ERE: doctor's JSON ($TOOL_OUT) has the
# finding ID, with STATUS, and its FIELD (seen, cause, fix) matches ERE.
assert_finding() {
  local finding
  finding=$(jq -c --arg id "$1" '.findings[] | select(.id == $id)' <<<"$TOOL_OUT")
  [[ -n $finding ]] || fail "doctor reported no $1: $(jq -c '[.findings[].id]' <<<"$TOOL_OUT")"
  assert_eq "$(jq -r .status <<<"$finding")" "$2" "doctor's $1 ($(jq -r .seen <<<"$finding"))"
  assert_contains "$(jq -r ".$3" <<<"$finding")" "$4" "doctor's $1, its $3"
}

# tf_version_re: the profile's tf_version as an ERE.
tf_version_re() {
  local tf
  tf=$(framework_manifest_value tensorflow-cuda tf_version)
  printf '%s\n' "${tf//./\\.}"
}

# hide_wsl_libcuda / show_wsl_libcuda: the driver mount's libcuda.so.1
# moved aside and back (the mount is read-only for everyone, as WSL's).
hide_wsl_libcuda() {
  chmod 0755 "$ROOT/usr/lib/wsl/lib"
  mv "$ROOT/usr/lib/wsl/lib/libcuda.so.1" "$REALROOT_SCENARIO_TMP/libcuda.so.1"
  chmod 0555 "$ROOT/usr/lib/wsl/lib"
}
show_wsl_libcuda() {
  chmod 0755 "$ROOT/usr/lib/wsl/lib"
  mv "$REALROOT_SCENARIO_TMP/libcuda.so.1" "$ROOT/usr/lib/wsl/lib/libcuda.so.1"
  chmod 0555 "$ROOT/usr/lib/wsl/lib"
}
