# `wslgpu-setup install` with no profile, on real roots: the fake WSL layer's
# NVIDIA driver stubs choose the cuda profile, which then installs from the
# test repository's flat wsl-ubuntu layout; a root where AMD's driver store is
# mounted instead chooses rocm. On these Debian 12 roots the vendor profiles
# are refused first, with nothing changed, unless --unsupported-distro.

scenario() {
  require_tool_command install
  with_root debian_root_refused
  with_root nvidia_root_installs_cuda
  with_root amd_root_installs_rocm
}

cuda_profile_args() {
  printf '%s\n' --set "cuda_repo=$TESTREPO_CUDA_REPO" --set "cuda_key_url=file://$TESTREPO_KEY" \
    --set "cuda_key_fingerprint=$TESTREPO_KEY_FINGERPRINT" "$@"
}

debian_root_refused() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  mapfile -t sets < <(cuda_profile_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install --yes
  assert_status 3 "install with no profile on Debian 12"
  assert_contains "$TOOL_OUT" '^Profile cuda, chosen because NVIDIA.s Windows driver is mounted \(/usr/lib/wsl/lib/libcuda.so\)' "install's first line"
  assert_contains "$TOOL_ERR" "this machine runs Debian 12 \(bookworm\), but NVIDIA's CUDA on WSL is documented \(CUDA release notes; Canonical's CUDA on WSL page\) only on Ubuntu 22.04, 24.04 and 26.04" "install's refusal"
  tool --root "$ROOT" plan rocm --detailed-exitcode
  assert_status 3 "plan rocm --detailed-exitcode on Debian 12"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused install changed the root"
}

nvidia_root_installs_cuda() {
  local tmp=$REALROOT_SCENARIO_TMP sets id
  mapfile -t sets < <(cuda_profile_args --unsupported-distro)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install --yes --output json
  assert_status 0 "install with no profile on the NVIDIA root"
  assert_eq "$(jq -r .profile_choice.profile <<<"$TOOL_OUT")" cuda "the JSON result's profile_choice"
  assert_eq "$(jq -r .changed <<<"$TOOL_OUT")" true "the JSON result's changed"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_installed "$ROOT" cuda-toolkit-12-6
  assert_not_installed "$ROOT" cuda cuda-drivers nvidia-driver-550
  expect_status 0 in_root apt-get update --error-on=any

  tool --root "$ROOT" "${sets[@]}" plan --detailed-exitcode
  assert_status 0 "plan with no profile after the install"
  assert_contains "$TOOL_OUT" '^Profile cuda, chosen because' "plan's first line"

  [[ -n $id && $id != null ]] || fail "install reported no transaction id"
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root changed"
}

amd_root_installs_rocm() {
  local sets
  # What an AMD machine mounts: AMD's driver store, no NVIDIA stubs.
  chmod 0755 "$ROOT/usr/lib/wsl/lib"
  rm -f "$ROOT"/usr/lib/wsl/lib/libcuda.so* "$ROOT/usr/lib/wsl/lib/nvidia-smi" "$ROOT"/usr/lib/wsl/lib/libnvidia-ml.so*
  rm -rf "$ROOT"/usr/lib/wsl/drivers/nv_dispi.inf_*
  mkdir -p "$ROOT/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b"
  printf 'fake amdxc64.so: AMD user-mode driver, recorded for tests\n' \
    >"$ROOT/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b/amdxc64.so"
  mapfile -t sets < <(rocm_profile_args)
  tool --root "$ROOT" "${sets[@]}" install --yes
  assert_status 0 "install with no profile on the AMD root"
  assert_contains "$TOOL_OUT" '^Profile rocm, chosen because AMD.s Windows driver is mounted \(/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b\)' "install's first line"
  assert_installed "$ROOT" rocm hsa-runtime-rocr4wsl-amdgpu
}
