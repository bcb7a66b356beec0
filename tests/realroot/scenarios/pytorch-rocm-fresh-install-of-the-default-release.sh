# `install pytorch` on a fresh AMD root (AMD's driver store mounted, so the
# pytorch-rocm profile is chosen), the default ROCm release (7.2.2,
# librocdxg) from the test repository, and PyTorch from fake wheels
# (tests/support/fake_wheels.py) served over the root's loopback HTTPS: the
# rocm-rel-7.2.2 find-links folder and a PyPI-like index for NumPy.
#   - one plan shows both layers: the ROCm steps and the wheels of the
#     matrix's 7.2.2 row (cp311 on this Debian 12 root), torch's pinned
#     SHA-256 and, for the others, that AMD publishes none;
#   - the install commits; the venv and every file in it belong to the user;
#     the installed distributions are the row's, read from the dist-info;
#   - as the user, through a login shell (HSA_ENABLE_DXG_DETECTION=1 from
#     /etc/profile.d), the smoke test launches a kernel: True, the device,
#     "smoke ok";
#   - a rerun is converged (plan --detailed-exitcode 0) with no network at
#     all, without starting Python or apt;
#   - the rollback leaves an empty snapshot diff.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root rocm_default_release_installs_converges_and_rolls_back
}

rocm_default_release_installs_converges_and_rolls_back() {
  local tmp=$REALROOT_SCENARIO_TMP sets row torch_sum site
  root_as_amd_machine
  pytorch_www
  row=$(pytorch_rocm_wheels 7.2.2)
  torch_sum=$(wheel_sha256 "torch-2.9.1+rocm7.2.2")
  mapfile -t sets < <(pytorch_rocm_args 7.2.2 --set "torch_sha256=$torch_sum")
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch"
  assert_contains "$TOOL_OUT" 'pytorch-rocm' "plan pytorch: the profile chosen for an AMD root"
  # Both layers in one plan: ROCm 7.2.2 and librocdxg, then the venv and the wheels.
  assert_contains "$TOOL_OUT" 'rocm7 +change +install [0-9]+ packages: .*rocm' "plan pytorch: the ROCm layer"
  assert_contains "$TOOL_OUT" "rocdxg-download +change +download $HTTPS_URL/v$TESTREPO_ROCDXG_VERSION/" "plan pytorch: librocdxg"
  local name version
  while read -r name version; do
    assert_contains "$TOOL_OUT" "$HTTPS_URL/manylinux/rocm-rel-7\\.2\\.2/$(wheel_url_re "$name" "$version")linux_x86_64\\.whl" \
      "plan pytorch: the $name wheel of the 7.2.2 row"
  done <<<"$row"
  assert_contains "$TOOL_OUT" "sha256 $torch_sum" "plan pytorch: torch's hash, as --set"
  assert_contains "$TOOL_OUT" 'not verified: AMD publishes no hash for this wheel; TLS only' "plan pytorch: the wheels without a hash"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|^warning: .*smoke' "install pytorch (the smoke test)"
  assert_installed "$ROOT" rocm rocdxg-roct
  assert_not_installed "$ROOT" hsa-runtime-rocr4wsl-amdgpu

  # The venv: the user's, made by the distribution's python3 -m venv.
  assert_owned_by_user "$PYTORCH_VENV"
  assert_owned_by_user "${PYTORCH_VENV%/*}"
  assert_contains "$(cat "$ROOT$PYTORCH_VENV/pyvenv.cfg")" '^home = /usr/bin$' "pyvenv.cfg"
  # What is installed, from the dist-info folders: exactly the row's builds.
  site=$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages
  while read -r name version; do
    [[ -f $ROOT$site/$name-$version.dist-info/METADATA ]] || fail "$name $version is not installed in the venv: $(ls "$ROOT$site")"
  done <<<"$row"
  [[ -f $ROOT$site/numpy-2.1.0.dist-info/METADATA ]] || fail "torchvision's numpy (from pypi_index) is not installed: $(ls "$ROOT$site")"

  # The user's smoke test, as a terminal runs it.
  torch_smoke || fail "the smoke test failed for the user after install pytorch"
  assert_eq "$LAST_OUTPUT" $'True\nAMD Radeon RX 7900 XTX\nsmoke ok 16777216.0' "the smoke test's output"

  pytorch_converged_offline "${sets[@]}"
  pytorch_rollback_to "$tmp/before"
  assert_not_installed "$ROOT" rocm rocdxg-roct
}
