# doctor on real roots: after the bundled rocm profile is installed, it finds
# no failure; after a DKMS package and a Linux NVIDIA driver are installed
# with the root's own apt (what the guards prevent, done by hand), it reports
# both, with their fixes, and exits 1. doctor never changes the root.

scenario() {
  require_tool_command install
  require_tool_command doctor
  with_root doctor_provisioned_then_broken
}

doctor_provisioned_then_broken() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  mapfile -t sets < <(rocm_profile_args)
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"

  snapshot "$ROOT" "$tmp/before-doctor"
  tool --root "$ROOT" doctor --output json
  snapshot "$ROOT" "$tmp/after-doctor"
  assert_same_snapshot "$tmp/before-doctor" "$tmp/after-doctor" "doctor changed the root"
  assert_eq "$(jq '.failures' <<<"$TOOL_OUT")" 0 "doctor's failures on a freshly provisioned root ($(jq -c '[.findings[] | select(.status == "fail") | .id]' <<<"$TOOL_OUT"))"
  assert_status 0 "doctor on a freshly provisioned root"
  assert_eq "$(jq -r '[.findings[] | select(.id == "amd.dkms")][0].status' <<<"$TOOL_OUT")" ok "amd.dkms before the breakage"

  # Break it the way users do, with the root's own apt and the test packages.
  root_use_testrepo
  expect_status 0 in_root apt-get install -y -q amdgpu-dkms nvidia-driver-550
  tool --root "$ROOT" doctor --output json
  assert_status 1 "doctor on a root with a DKMS package and a Linux NVIDIA driver"
  assert_eq "$(jq -r '[.findings[] | select(.id == "amd.dkms")][0].status' <<<"$TOOL_OUT")" fail "amd.dkms"
  assert_contains "$(jq -r '[.findings[] | select(.id == "amd.dkms")][0].seen' <<<"$TOOL_OUT")" 'amdgpu-dkms' "amd.dkms names the package"
  assert_eq "$(jq -r '[.findings[] | select(.id == "nvidia.linux-driver")][0].status' <<<"$TOOL_OUT")" fail "nvidia.linux-driver"
  assert_contains "$(jq -r '[.findings[] | select(.id == "nvidia.linux-driver")][0].seen' <<<"$TOOL_OUT")" 'nvidia-driver-550' "nvidia.linux-driver names the package"

  tool --root "$ROOT" doctor
  assert_contains "$TOOL_OUT" 'Fix: ' "doctor's text output gives a fix"
}
