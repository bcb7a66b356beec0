# Switching CUDA releases on a provisioned root is one transaction that ends
# converged on the new release with the old one gone: the Windows driver is
# updated (CUDA 12.2 -> 13.1), and install with cuda_version = auto replaces
# cuda-toolkit-12-2 and what only it needed by cuda-toolkit-13-1; then
# cuda_version=12.2 by hand switches back. Converged runs run no apt at all.
# Rolling the three transactions back, newest first, passes through each
# earlier state and ends with the root as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root switch_and_back
}

# The old release's packages, which a switch to another must take away.
CUDA_12_2_PACKAGES=(cuda-toolkit-12-2 cuda-nvcc-12-2 cuda-toolkit-12-2-config-common cuda-toolkit-12-config-common)
CUDA_13_1_PACKAGES=(cuda-toolkit-13-1 cuda-nvcc-13-1 cuda-toolkit-13-1-config-common cuda-toolkit-13-config-common)

install_id() {
  tool --root "$ROOT" "$@" install cuda --yes --output json
  assert_status 0 "install cuda $*"
  jq -r .transaction_id <<<"$TOOL_OUT"
}

# cuda_now RELEASE: /usr/local/cuda is RELEASE's and its nvcc runs.
cuda_now() {
  assert_eq "$(in_root readlink -f /usr/local/cuda)" "/usr/local/cuda-$1" "/usr/local/cuda"
  expect_status 0 in_root /usr/local/cuda/bin/nvcc --version
  assert_contains "$LAST_OUTPUT" "release $1," "nvcc --version"
}

switch_and_back() {
  local tmp=$REALROOT_SCENARIO_TMP sets first second third
  mapfile -t sets < <(cuda_profile_args)
  root_fake_nvidia_smi ok-q-rtx4090-wddm-xwayland.txt
  # Traced from the start, so that every snapshot has the same wrappers.
  trace_commands apt-get apt-cache
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  first=$(install_id "${sets[@]}")
  assert_installed "$ROOT" "${CUDA_12_2_PACKAGES[@]}"
  cuda_now 12.2
  snapshot "$ROOT" "$tmp/on-12.2" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl

  # The driver is updated on Windows: auto now means 13.1.
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  tool --root "$ROOT" "${sets[@]}" plan cuda
  assert_status 0 "plan cuda after the driver update"
  assert_contains "$TOOL_OUT" '^Chose cuda_version=13.1 \(auto\)' "plan's choice"
  assert_contains "$TOOL_OUT" 'toolkit +change +install 4 packages: .*; REMOVE cuda-toolkit-12-2, ' "plan's toolkit step"
  assert_contains "$TOOL_OUT" 'cuda-toolkit-12-2 is replaced by this step.s packages: replaces = \[cuda-toolkit-\*\]' "plan's toolkit step"
  second=$(install_id "${sets[@]}")
  assert_installed "$ROOT" "${CUDA_13_1_PACKAGES[@]}"
  assert_not_installed "$ROOT" "${CUDA_12_2_PACKAGES[@]}"
  cuda_now 13.1
  [[ ! -e $ROOT/usr/local/cuda-12.2 ]] || fail "/usr/local/cuda-12.2 is still there"

  # Converged: no apt at all, and nothing written.
  : >"$ROOT/run/wslgpu-trace/calls"
  snapshot "$ROOT" "$tmp/on-13.1" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  tool --root "$ROOT" "${sets[@]}" install cuda --yes
  assert_status 0 "install cuda, converged"
  assert_contains "$TOOL_OUT" 'Nothing to do: the machine already matches cuda\.' "the converged install"
  assert_eq "$(traced_calls | wc -l)" 0 "apt runs of a converged install"
  snapshot "$ROOT" "$tmp/again" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  assert_same_snapshot "$tmp/on-13.1" "$tmp/again" "a converged install changed the root"

  # And back, by name: 12.2 on a driver that supports 13.1.
  third=$(install_id "${sets[@]}" --set cuda_version=12.2)
  assert_installed "$ROOT" "${CUDA_12_2_PACKAGES[@]}"
  assert_not_installed "$ROOT" "${CUDA_13_1_PACKAGES[@]}"
  cuda_now 12.2
  snapshot "$ROOT" "$tmp/back" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  assert_same_snapshot "$tmp/on-12.2" "$tmp/back" "switching back did not reach the first install's state"

  # Rolled back newest first, each transaction returns the root to the state before it.
  tool --root "$ROOT" rollback "$third" --yes
  assert_status 0 "rollback of the switch back"
  snapshot "$ROOT" "$tmp/undone-3" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  assert_same_snapshot "$tmp/on-13.1" "$tmp/undone-3" "rolling back the switch back"
  tool --root "$ROOT" rollback "$second" --yes
  assert_status 0 "rollback of the switch to 13.1"
  snapshot "$ROOT" "$tmp/undone-2" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  assert_same_snapshot "$tmp/on-12.2" "$tmp/undone-2" "rolling back the switch to 13.1"
  cuda_now 12.2
  tool --root "$ROOT" rollback "$first" --yes
  assert_status 0 "rollback of the first install"
  snapshot "$ROOT" "$tmp/undone-1" --exclude "$REALROOT_STATE_DIR" --exclude /usr/lib/wsl
  assert_same_snapshot "$tmp/before" "$tmp/undone-1" "rolling back the first install"
}
