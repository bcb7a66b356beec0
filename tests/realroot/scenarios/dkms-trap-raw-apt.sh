# The traps in the test repository are faithful: raw apt, with nothing of
# ours in the way, would pull kernel-module and Linux driver packages in.
# The guards' scenarios rely on this.

scenario() {
  with_root simulate_traps
}

simulate_traps() {
  root_use_testrepo signed
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before"

  # A harmless-looking name that depends on a DKMS package.
  expect_status 0 in_root apt-get -s install rocm-extras
  assert_contains "$LAST_OUTPUT" '^Inst amdgpu-dkms \(1:6\.12\.12' "apt-get -s install rocm-extras"
  assert_contains "$LAST_OUTPUT" '^Inst rocm-extras ' "apt-get -s install rocm-extras"

  # The package the source document warns about, three levels of meta packages deep.
  expect_status 0 in_root apt-get -s install rocm-dkms
  assert_contains "$LAST_OUTPUT" '^Inst amdgpu-dkms ' "apt-get -s install rocm-dkms"
  assert_contains "$LAST_OUTPUT" '^Inst rocm-dev ' "apt-get -s install rocm-dkms"

  # NVIDIA's "never under WSL": cuda pulls a Linux driver in through cuda-drivers.
  expect_status 0 in_root apt-get -s install cuda
  assert_contains "$LAST_OUTPUT" '^Inst nvidia-driver-550 ' "apt-get -s install cuda"
  assert_contains "$LAST_OUTPUT" '^Inst cuda-drivers ' "apt-get -s install cuda"

  # And the safe choices pull none of them.
  expect_status 0 in_root apt-get -s install rocm-dev cuda-toolkit-12-6
  assert_not_contains "$LAST_OUTPUT" '^Inst (amdgpu-dkms|nvidia-driver|cuda-drivers) ' "apt-get -s install rocm-dev cuda-toolkit-12-6"

  # A simulation changes nothing.
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "apt-get -s changed the root"
}
