# A run SIGKILLed before and after each step that changes something
# (WSLGPU_SETUP_CRASH_AT, docs/testing.md): the next install refuses with
# exit 5; `recover --rollback` leaves the root as before the run, and
# `recover --resume` reaches the state of an uninterrupted run. Every step
# of realroot-rocm (tests/realroot/manifests.sh), user_groups included, each
# in a fresh root (crash_every_step_then_recover in lib.sh).

scenario() {
  require_tool_command install
  require_tool_command recover
  require_step_kinds apt_repository apt_update apt_install user_groups profile_env check
  crash_every_step_then_recover testrepo lists rocm gpu-groups rocm-path
}

crash_prepare() { manifest_rocm_from_testrepo >"$REALROOT_SCENARIO_TMP/rocm.toml"; }
crash_install_args() { printf '%s\n' --not-wsl install "$REALROOT_SCENARIO_TMP/rocm.toml"; }
crash_recover_args() { printf '%s\n' --not-wsl; }
