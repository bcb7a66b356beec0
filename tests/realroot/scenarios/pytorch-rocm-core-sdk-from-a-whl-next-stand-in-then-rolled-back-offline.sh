# realroot-timeout: 600
# `install pytorch` on a fresh AMD root (AMD's driver store mounted, so the
# pytorch-rocm profile is chosen) on the ROCm Core SDK 10.0.0 (rocm_gfx=
# gfx1100, the test repository's Core SDK layout: core_profile_args), and
# PyTorch from a stand-in for AMD's whl-next index (pytorch_core_www: a PEP
# 503 index over the root's loopback HTTPS, fake wheels built by
# tests/support/fake_wheels.py --rocm-sdk), the torch-core step's one pip
# run (issue 53, item 7):
#   - one plan shows both layers: the Core SDK (amdrocm10.0-gfx1100,
#     librocdxg's .deb) and the four requirements of the torch-core step
#     with their extras, versions from the 10.0.0 row and the index:
#     rocm[libraries,device-gfx1100] 10.0.0, torch[device-gfx1100] 2.13.0,
#     torchvision 0.28.0, torchaudio 2.11.0.2; none of the legacy wheel
#     steps, no HSA_ENABLE_DXG_DETECTION check;
#   - the install commits; the venv (the user's) holds rocm 10.0.0 with
#     rocm-sdk-core, rocm-sdk-libraries and rocm-sdk-device-gfx1100 (not
#     the every-target rocm-sdk-device-all), torch 2.13.0+rocm10.0.0,
#     torchvision 0.28.0, torchaudio 2.11.0.2;
#   - the user's smoke test, through a login shell, runs its kernel: "smoke
#     ok" (the fake torch runs kernels only with the gfx1100 device wheel:
#     with its module moved away for a moment the matmul fails, "no kernel
#     image is available");
#   - a second plan is all no-ops (--detailed-exitcode 0) with no network,
#     without starting Python or apt;
#   - with the index server gone and the network down, the rollback leaves
#     an empty snapshot diff and no venv.
# The Debian 12 root's Python is 3.11: no [matrix.torch_cp] row names
# Debian 12, so torch_cp=cp311 and torch_python=3.11 are set, as for the
# other pytorch-rocm scenarios (the plan without them is refused, checked
# first).

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages apt_install deb_install
  with_root core_sdk_pytorch_from_whl_next_then_rolled_back_offline
}

core_sdk_pytorch_from_whl_next_then_rolled_back_offline() {
  local tmp=$REALROOT_SCENARIO_TMP sets site index name version
  root_as_amd_machine
  pytorch_core_www
  index=$HTTPS_URL/rocm/whl-next/
  mapfile -t sets < <(pytorch_core_args)
  site=$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  # Without torch_cp: Debian 12's Python has no row, and the plan says so.
  local no_cp
  mapfile -t no_cp < <(core_profile_args --set "rocm_whl_index=$index")
  tool --root "$ROOT" "${no_cp[@]}" plan pytorch
  say "plan pytorch without torch_cp on Debian 12: exit $TOOL_STATUS"
  [[ $TOOL_STATUS != 0 ]] || fail "plan pytorch on Debian 12 without torch_cp succeeded: $TOOL_OUT"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch on the Core SDK 10.0.0"
  assert_contains "$TOOL_OUT" 'pytorch-rocm' "plan pytorch: the profile chosen for an AMD root"
  assert_contains "$TOOL_OUT" 'core +change +install [0-9]+ packages: .*amdrocm10\.0-gfx1100' "plan pytorch: the Core SDK layer"
  assert_contains "$TOOL_OUT" "rocdxg-download +change +download $HTTPS_URL/v$TESTREPO_ROCDXG_VERSION/" "plan pytorch: librocdxg"
  assert_contains "$TOOL_OUT" 'torch-core +change +install 4 Python packages into ' "plan pytorch: the torch-core step"
  local idx_re=${index//./\\.}
  assert_contains "$TOOL_OUT" "install rocm\\[libraries,device-gfx1100\\] 10\\.0\\.0 from the index $idx_re\$" "plan pytorch: rocm"
  assert_contains "$TOOL_OUT" "install torch\\[device-gfx1100\\] 2\\.13\\.0 from the index $idx_re\$" "plan pytorch: torch"
  assert_contains "$TOOL_OUT" "install torchvision 0\\.28\\.0 from the index $idx_re\$" "plan pytorch: torchvision"
  assert_contains "$TOOL_OUT" "install torchaudio 2\\.11\\.0\\.2 from the index $idx_re\$" "plan pytorch: torchaudio"
  assert_not_contains "$TOOL_OUT" '(torch-legacy|torch|numpy|torch-env) +change' "plan pytorch: none of the legacy wheel steps"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch on the Core SDK 10.0.0"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|^warning: .*smoke' "install pytorch (the smoke test)"
  assert_installed "$ROOT" amdrocm10.0-gfx1100 rocdxg-roct

  # The venv: the user's, with the Core SDK's wheels for gfx1100 alone.
  assert_owned_by_user "$PYTORCH_VENV"
  while read -r name version; do
    [[ -f $ROOT$site/${name//-/_}-$version.dist-info/METADATA ]] ||
      fail "$name $version is not installed in the venv: $(ls "$ROOT$site")"
  done <<EOF
rocm 10.0.0
rocm-sdk-core 10.0.0
rocm-sdk-libraries 10.0.0
rocm-sdk-device-gfx1100 10.0.0
torch 2.13.0+rocm10.0.0
torchvision 0.28.0
torchaudio 2.11.0.2
EOF
  [[ -z $(compgen -G "$ROOT$site/rocm_sdk_device_all-*") ]] || fail "the every-target device wheel is in the venv: $(ls "$ROOT$site")"
  [[ -f $ROOT$site/_rocm_sdk_core/lib/librocdxg.so ]] || fail "the venv's rocm-sdk-core has no librocdxg.so"

  # The user's smoke test, as a terminal runs it.
  torch_smoke || fail "the smoke test failed for the user after install pytorch"
  assert_eq "$LAST_OUTPUT" $'True\nAMD Radeon RX 7900 XTX\nsmoke ok 16777216.0' "the smoke test's output"
  # The kernels come from the gfx1100 device wheel: without it, none run.
  mv "$ROOT$site/_rocm_sdk_device_gfx1100" "$ROOT/tmp/device-wheel-away"
  if torch_smoke; then fail "the smoke test passed without the gfx1100 device wheel"; fi
  assert_contains "$LAST_OUTPUT" 'no kernel image is available' "the smoke test without the gfx1100 device wheel"
  mv "$ROOT/tmp/device-wheel-away" "$ROOT$site/_rocm_sdk_device_gfx1100"
  torch_smoke || fail "the smoke test failed with the gfx1100 device wheel back"

  pytorch_converged_offline "${sets[@]}"
  pytorch_rollback_to "$tmp/before"
  assert_not_installed "$ROOT" amdrocm10.0-gfx1100 amdrocm-core10.0-gfx1100 rocdxg-roct
}
