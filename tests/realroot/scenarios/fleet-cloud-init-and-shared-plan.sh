# docs/fleet.md's two other ways to provision many machines, run for real:
#  - the cloud-init user-data (integrations/cloud-init/wslgpu-setup.user-data):
#    its write_files and runcmd applied to a fresh root, with the package
#    copied where the admin puts it (C:\ProgramData\wslgpu-setup, /mnt/c/...
#    inside WSL); the script installs the package, runs install, and leaves
#    the JSON, the messages and the exit status in /var/log/wslgpu-setup; a
#    second run changes nothing;
#  - one plan for many machines: `plan --out` on one root, `install --plan`
#    on another fresh root applies it, and on a root that differs it is
#    refused (exit 3) with what differs, changing nothing.
# cloud-init's schema check of the same file is the ctest "fleet".

# shellcheck source=../fleet.sh
source "$REALROOT_LIB_DIR/fleet.sh"

scenario() {
  require_tool_command install
  [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import yaml' 2>/dev/null ||
    fail "the host's python3 has no yaml module: install python3-yaml (Debian's ansible brings it)"
  with_root cloud_init_first_start
  with_root shared_plan_made_here
  with_root shared_plan_applied_elsewhere
  with_root shared_plan_refused_where_the_machine_differs
}

# The rocm profile's --set values, pointed at the repository as the root
# sees it (the tool runs inside the root), and --unsupported-distro: the
# test roots are Debian 12, which AMD does not publish ROCm for. (manifests.sh's
# rocm_profile_args is the same, with the key's host path.)
rocm_in_root_options() {
  printf '%s\n' --unsupported-distro --set "rocm_repo=$TESTREPO_ROCM_REPO" --set "amdgpu_repo=$TESTREPO_AMDGPU_REPO" \
    --set "rocm_key_url=file://$TESTREPO_KEY_IN_ROOT" --set "rocm_key_fingerprint=$TESTREPO_KEY_FINGERPRINT" \
    --set "rocm_pin_origin=$TESTREPO_ORIGIN" --set "rocm_version=$TESTREPO_ROCM_VERSION"
}

cloud_init_first_start() {
  local user_data env out=/var/log/wslgpu-setup options
  user_data=$(cloud_init_example)
  # What the package's dependencies bring; the package itself is the script's to install.
  root_install_libraries
  # The admin's Copy-Item to C:\ProgramData\wslgpu-setup\wslgpu-setup.deb.
  mkdir -p "$ROOT/mnt/c/ProgramData/wslgpu-setup"
  tool_standin_deb "$ROOT/mnt/c/ProgramData/wslgpu-setup/wslgpu-setup.deb"

  cloud_init_write_files "$user_data"
  env=$ROOT/etc/wslgpu-setup/first-start.env
  # The two lines the admin fills in (here the profile and its test values).
  assert_contains "$(cat "$env")" '^WSLGPU_PROFILE=$' "first-start.env"
  assert_contains "$(cat "$env")" '^WSLGPU_OPTIONS=$' "first-start.env"
  assert_contains "$(cat "$env")" '^WSLGPU_DEB=/mnt/c/ProgramData/wslgpu-setup/wslgpu-setup\.deb$' "first-start.env"
  options=$(rocm_in_root_options | paste -sd ' ')
  sed -i -e 's/^WSLGPU_PROFILE=$/WSLGPU_PROFILE=rocm/' -e "s|^WSLGPU_OPTIONS=\$|WSLGPU_OPTIONS=\"$options\"|" "$env"

  say "=== the first start: cloud-init's runcmd"
  cloud_init_runcmd "$user_data"
  assert_eq "$CLOUD_INIT_STATUS" 0 "the runcmd script's exit status"
  say "install.err: $(cat "$ROOT$out/install.err")"
  assert_eq "$(cat "$ROOT$out/install.status")" 0 "$out/install.status"
  assert_contains "$(cat "$ROOT$out/package.log")" 'Setting up wslgpu-setup ' "$out/package.log"
  assert_installed "$ROOT" wslgpu-setup rocm rocm-dev hsa-runtime-rocr4wsl-amdgpu
  local result id
  result=$(cat "$ROOT$out/install.json")
  assert_eq "$(jq -r '.changed' <<<"$result")" true "install.json's changed"
  assert_eq "$(jq -r '.rc' <<<"$result")" 0 "install.json's rc"
  id=$(jq -r '.transaction_id' <<<"$result")
  [[ -n $id ]] || fail "install.json has no transaction_id"
  expect_status 0 in_root wslgpu-setup history --output json
  assert_eq "$(jq -r '.[0].id' <<<"$LAST_OUTPUT")" "$id" "the transaction in history"

  say "=== the script run again by hand: nothing to do"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/first-start" --exclude "$out"
  expect_status 0 in_root /usr/local/sbin/wslgpu-setup-first-start
  assert_eq "$(jq -c '{changed, rc, transaction_id}' "$ROOT$out/install.json")" '{"changed":false,"rc":0,"transaction_id":""}' \
    "install.json after the second run"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/second-start" --exclude "$out"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/first-start" "$REALROOT_SCENARIO_TMP/second-start" "the second run changed the root"
}

shared_plan_made_here() {
  local options
  root_install_tool
  mapfile -t options < <(rocm_in_root_options)
  expect_status 0 in_root wslgpu-setup "${options[@]}" plan rocm --out /tmp/rocm.plan
  assert_contains "$LAST_OUTPUT" 'Saved to /tmp/rocm\.plan' "plan --out"
  cp "$ROOT/tmp/rocm.plan" "$REALROOT_SCENARIO_TMP/rocm.plan"
}

shared_plan_applied_elsewhere() {
  local tmp=$REALROOT_SCENARIO_TMP
  root_install_tool
  cp "$tmp/rocm.plan" "$ROOT/tmp/rocm.plan"
  expect_status 0 in_root wslgpu-setup install --plan /tmp/rocm.plan --yes --output json
  assert_eq "$(jq -r '.changed' <<<"$LAST_OUTPUT")" true "install --plan on another machine: changed"
  assert_installed "$ROOT" rocm rocm-dev hsa-runtime-rocr4wsl-amdgpu
}

shared_plan_refused_where_the_machine_differs() {
  local tmp=$REALROOT_SCENARIO_TMP
  root_install_tool
  cp "$tmp/rocm.plan" "$ROOT/tmp/rocm.plan"
  # This machine already has a ROCm PATH file of its own.
  printf 'export PATH="$PATH:/opt/rocm-6.1/bin"\n' >"$ROOT/etc/profile.d/wslgpu-rocm.sh"
  snapshot "$ROOT" "$tmp/differs-before" --exclude "$REALROOT_STATE_DIR"
  expect_status 3 in_root wslgpu-setup install --plan /tmp/rocm.plan --yes --output json
  assert_contains "$LAST_OUTPUT" '^error: the machine no longer matches the saved plan /tmp/rocm\.plan:$' "install --plan on a machine that differs"
  assert_contains "$LAST_OUTPUT" 'file:/etc/profile\.d/wslgpu-rocm\.sh was "absent", now "sha256:' "the difference"
  assert_contains "$LAST_OUTPUT" 'Nothing was changed\. Make a new plan with `plan --out`\.' "install --plan on a machine that differs"
  snapshot "$ROOT" "$tmp/differs-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/differs-before" "$tmp/differs-after" "the refused install --plan changed the root"
  assert_not_installed "$ROOT" rocm rocm-core
}
