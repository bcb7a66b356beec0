# `install pytorch` as a user who ran `wsl --install` last week meets it:
# Ubuntu 26.04 (the stand-in: Debian forky dressed as it,
# tests/realroot/forky.sh) with Python 3.14 and NVIDIA's Windows driver
# (the WSL layer's stubs; nvidia-smi says driver 591.86, CUDA 13.1). No
# --unsupported-distro and no torch_python: the profile must take the
# machine as it is.
#   - plan pytorch takes pytorch-cuda on cuda-driver, Python 3.14 as
#     "the Python of Ubuntu 26.04", makes the venv with /usr/bin/python3.14
#     and names no CUDA toolkit and no NVIDIA apt source;
#   - install commits with the cp314 fake wheels of the cu130 index
#     (tests/support/fake_wheels.py), into lib/python3.14/site-packages; the
#     smoke test, as the user through a login shell, runs its kernel;
#   - rollback, offline, leaves the root as it was;
#   - plan and install tensorflow on the same machine are refused (exit 3)
#     before any change: TensorFlow 2.21 has no Python 3.14 wheel, and the
#     refusal names what works (install pytorch; Ubuntu 24.04 beside);
#     with --set tf_python=3.13 the venv would be made with python3.13,
#     which the machine lacks: apt's plan refuses python3.13-venv.
# The first run builds the forky root (about 4 minutes on 2 busy cores).
# realroot-timeout: 900

# shellcheck source=../forky.sh
source "$REALROOT_LIB_DIR/forky.sh"

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  forky_release_layers "$REALROOT_SCENARIO_TMP/forky"
  (
    export REALROOT_RUN=$REALROOT_SCENARIO_TMP/forky
    with_root pytorch_on_python_3_14_installs_and_rolls_back
    with_root tensorflow_refused_for_python_3_14
  )
}

# What `run.sh --prepare` builds ahead of the run: the forky root.
prepare_cache() { forky_prepare_cache; }

pytorch_on_python_3_14_installs_and_rolls_back() {
  local tmp=$REALROOT_SCENARIO_TMP sets site
  # The fake wheels for the root's Python (wheels.sh reads these).
  local PYTORCH_CP=cp314 PYTORCH_PYTHON=3.14
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  sets=(--set "torch_index_base=$HTTPS_URL/whl")
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch on the Ubuntu 26.04 stand-in"
  assert_contains "$TOOL_OUT" '^Profile pytorch-cuda, chosen because' "plan pytorch: the profile"
  assert_contains "$TOOL_OUT" ' · ubuntu 26\.04 \(resolute\) · ' "plan pytorch: the machine line"
  assert_contains "$TOOL_OUT" '^Chose torch_python=3\.14 \(auto\): the Python of Ubuntu 26\.04' "plan pytorch: the Python"
  assert_contains "$TOOL_OUT" 'create the virtual environment .* with `/usr/bin/python3\.14 -m venv`' "plan pytorch: the interpreter"
  assert_contains "$TOOL_OUT" "$HTTPS_URL/whl/$PYTORCH_CUDA_INDEX" "plan pytorch: the index chosen from the driver"
  assert_contains "$TOOL_OUT" "torch $PYTORCH_CUDA_TORCH\\+$PYTORCH_CUDA_INDEX [0-9.]+ [kMG]?B" "plan pytorch: the cp314 torch wheel, sized"
  assert_not_contains "$TOOL_OUT" ' (toolkit|cuda-repo) ' "plan pytorch: no CUDA toolkit and no NVIDIA apt source"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch on the Ubuntu 26.04 stand-in"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|^warning: .*smoke' "install pytorch (the smoke test)"
  site=$PYTORCH_VENV/lib/python3.14/site-packages
  [[ -f $ROOT$site/torch-$PYTORCH_CUDA_TORCH+$PYTORCH_CUDA_INDEX.dist-info/METADATA ]] ||
    fail "torch $PYTORCH_CUDA_TORCH+$PYTORCH_CUDA_INDEX is not in $site: $(ls "$ROOT$PYTORCH_VENV/lib" 2>&1)"
  assert_contains "$(cat "$ROOT$PYTORCH_VENV/pyvenv.cfg")" '^version(_info)? = 3\.14\.' "the venv's pyvenv.cfg"
  assert_not_installed "$ROOT" cuda-toolkit-13-1 cuda-nvcc-13-1 cuda cuda-drivers
  assert_owned_by_user "$PYTORCH_VENV"

  torch_smoke || fail "the smoke test failed for the user after install pytorch"
  assert_eq "$LAST_OUTPUT" $'True\nNVIDIA GeForce RTX 4090\nsmoke ok 16777216.0' "the smoke test's output"

  network_off
  pytorch_rollback_to "$tmp/before"
}

tensorflow_refused_for_python_3_14() {
  local tmp=$REALROOT_SCENARIO_TMP
  snapshot "$ROOT" "$tmp/tf-before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" plan tensorflow
  assert_status 3 "plan tensorflow on Python 3.14"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'TensorFlow 2\.21\.0 publishes wheels for Python 3\.10 to 3\.13 .*this venv.s Python would be 3\.14, the Python of ubuntu 26\.04' "plan tensorflow: the refusal"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'sudo wslgpu-setup install pytorch' "plan tensorflow: what works"
  tool --root "$ROOT" install tensorflow --yes
  assert_status 3 "install tensorflow on Python 3.14"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'Nothing was changed \(exit 3\)' "install tensorflow: refused"
  # A Python chosen by hand is the venv's interpreter too, not only its
  # wheels' tags: without Python 3.13 on the machine, apt's plan refuses
  # its venv module, before any change.
  tool --root "$ROOT" --set tf_python=3.13 install tensorflow --yes
  assert_status 3 "install tensorflow --set tf_python=3.13 without Python 3.13"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'apt cannot install python3\.13-venv' "install tensorflow --set tf_python=3.13: the refusal"
  snapshot "$ROOT" "$tmp/tf-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/tf-before" "$tmp/tf-after" "a refused install tensorflow changed the root"
}
