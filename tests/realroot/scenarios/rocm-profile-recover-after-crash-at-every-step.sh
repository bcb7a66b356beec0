# The bundled rocm profile (as rocm-profile-install-then-rollback.sh points it
# at the test repository in AMD's layout), on the fake WSL2 machine without
# --not-wsl. A run SIGKILLed before and after each step that changes
# something: the next install refuses with exit 5; `recover --rollback`
# leaves the root as before the run, and `recover --resume` reaches the state
# of an uninterrupted run (crash_every_step_then_recover in lib.sh).

scenario() {
  require_tool_command install
  require_tool_command recover
  require_step_kinds apt_remove apt_repository apt_update apt_install user_groups profile_env check
  # Every step of the profile that changes this machine (distro-hsa, rocm7,
  # rocm7-dxg and gpu-groups are skipped here by their conditions; the checks
  # change nothing).
  crash_every_step_then_recover amdgpu-repo rocm-repo lists rocm rocm-path
}

crash_install_args() { rocm_profile_args install rocm; }
crash_recover_args() { :; }
