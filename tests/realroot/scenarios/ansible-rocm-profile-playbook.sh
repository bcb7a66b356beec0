# The wslgpu.setup Ansible collection (integrations/ansible), run by
# Debian's ansible-playbook against a disposable root over the
# community.general.chroot connection, with the bundled rocm profile pointed
# at the local signed repository. The module runs inside the root, and so
# does the tool it drives (tests/realroot/fleet.sh installs the one under
# test there). Check mode reports changed and changes nothing; --diff shows
# the /etc/profile.d file and the packages; the first run is changed, the
# second ok; state: absent rolls back to the root as it was; a DKMS package
# in the chain fails the task with rc 3 and the guard's message; after a
# killed run the task fails with rc 5 and the recover commands, and the
# recovery docs/fleet.md gives (ansible.builtin.command) gets it going again.

# shellcheck source=../fleet.sh
source "$REALROOT_LIB_DIR/fleet.sh"

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  command -v ansible-playbook >/dev/null || fail "ansible-playbook is missing: install Debian's ansible (tests/deps.txt)"
  with_root playbook_check_install_converge_absent
  with_root playbook_dkms_refused
  with_root playbook_interrupted_run_needs_recovery
}

# The play: one task, the module, with the state and vars of the extra-vars file.
fleet_playbook() {
  cat <<'EOF'
- hosts: fleet
  gather_facts: false
  tasks:
    - name: the rocm profile through wslgpu-setup
      wslgpu.setup.wslgpu_setup:
        profile: rocm
        state: "{{ wslgpu_state }}"
        vars: "{{ rocm_vars }}"
        # The test roots are Debian 12, which AMD does not publish ROCm for.
        unsupported_distro: true
EOF
}

# fleet_extra_vars STATE [NAME=VALUE...]: the playbook's extra vars, as JSON.
# The profile's variables point at the repository as the root sees it: the
# tool runs inside the root, so the key is fetched from the in-root path too.
# add_gpu_groups is a YAML boolean (the module passes it as "true"), and
# makes the profile add alice to video and render, with the notice that
# says to log in again.
fleet_extra_vars() {
  local state=$1
  shift
  jq -n --arg state "$state" --arg rocm_repo "$TESTREPO_ROCM_REPO" --arg amdgpu_repo "$TESTREPO_AMDGPU_REPO" \
    --arg key_url "file://$TESTREPO_KEY_IN_ROOT" --arg key_fingerprint "$TESTREPO_KEY_FINGERPRINT" --arg origin "$TESTREPO_ORIGIN" \
    --arg rocm_version "$TESTREPO_ROCM_VERSION" \
    --args '{wslgpu_state: $state,
      rocm_vars: ({rocm_repo: $rocm_repo, amdgpu_repo: $amdgpu_repo, rocm_key_url: $key_url,
                   rocm_key_fingerprint: $key_fingerprint, rocm_pin_origin: $origin, add_gpu_groups: true,
                   rocm_version: $rocm_version}
                  + ($ARGS.positional | map(split("=") | {(.[0]): (.[1:] | join("="))}) | add // {}))}' "$@"
}

# assert_plan_only_cached [NAME...]: the state folder holds nothing but the
# download cache (and NAME..., such as the lock file a refused install
# took): no journal, no transaction.
assert_plan_only_cached() {
  local extra name d=$REALROOT_STATE_DIR
  local -a allowed=(! -path ".$d/cache" ! -path ".$d/cache/*")
  for name in "$@"; do allowed+=(! -path ".$d/$name"); done
  extra=$(cd "$ROOT" && find ".$d" -mindepth 1 "${allowed[@]}" 2>/dev/null || true)
  assert_eq "$extra" "" "what a plan left in $REALROOT_STATE_DIR besides its cache"
}

id_groups_in_root() { in_root id -nG "$1"; }

playbook_check_install_converge_absent() {
  local tmp=$REALROOT_SCENARIO_TMP result stats
  root_install_tool
  fleet_playbook >"$tmp/rocm.yml"
  fleet_extra_vars present >"$tmp/present.json"
  fleet_extra_vars absent >"$tmp/absent.json"
  # plan fetches the signing key into the tool's download cache,
  # /var/lib/wslgpu-setup/cache (docs/steps.md, key_url); the snapshots of
  # check mode leave the state folder out, and assert_plan_only_cached
  # checks that the cache is all it holds.
  snapshot "$ROOT" "$tmp/fresh" --exclude "$REALROOT_STATE_DIR"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  say "=== --check on the fresh root: changed, and nothing changes"
  ansible_run check "$tmp/rocm.yml" -e "@$tmp/present.json" --check
  assert_eq "$ANSIBLE_STATUS" 0 "ansible-playbook --check's exit status"
  result=$(ansible_task_result) stats=$(ansible_stats)
  assert_eq "$(jq -r .changed <<<"$result")" true "the task's changed in check mode"
  assert_eq "$(jq -r .changed <<<"$stats")" 1 "the recap's changed in check mode"
  assert_eq "$(jq -r .plan.changes_pending <<<"$result")" true "the returned plan's changes_pending"
  assert_eq "$(jq -r '.plan.steps[] | select(.id == "rocm") | .action' <<<"$result")" change "the rocm step's action in the plan"
  assert_eq "$(jq -r '.cmd | index("plan") != null' <<<"$result")" true "check mode ran plan ($(jq -c .cmd <<<"$result"))"
  snapshot "$ROOT" "$tmp/after-check" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/fresh" "$tmp/after-check" "ansible-playbook --check changed the root"
  assert_plan_only_cached

  say "=== --check --diff: the /etc/profile.d file and the packages, as Ansible's before and after"
  ANSIBLE_HUMAN=1 ansible_run check-diff "$tmp/rocm.yml" -e "@$tmp/present.json" --check --diff
  assert_eq "$ANSIBLE_STATUS" 0 "ansible-playbook --check --diff's exit status"
  assert_contains "$ANSIBLE_OUT" '^\+\+\+ after: /etc/profile\.d/wslgpu-rocm\.sh$' "the --diff output"
  assert_contains "$ANSIBLE_OUT" '^\+.*/opt/rocm/bin' "the --diff output (the PATH line of the profile.d file)"
  assert_contains "$ANSIBLE_OUT" '^\+\+\+ after: packages \(after install\)$' "the --diff output"
  assert_contains "$ANSIBLE_OUT" '^\+hsa-runtime-rocr4wsl-amdgpu(:[a-z0-9]+)? 6\.4\.2\.1-1$' "the --diff output (the packages)"
  assert_contains "$ANSIBLE_OUT" '^\+\+\+ after: /etc/apt/sources\.list\.d/rocm\.sources$' "the --diff output"
  assert_contains "$ANSIBLE_OUT" '^\+group (render|video)' "the --diff output (the groups)"
  assert_contains "$ANSIBLE_OUT" '^changed: \[wsl\]$' "the --diff output"
  assert_contains "$ANSIBLE_OUT" 'wsl +: ok=1 +changed=1 +unreachable=0 +failed=0' "the --check --diff recap"
  snapshot "$ROOT" "$tmp/after-diff" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/fresh" "$tmp/after-diff" "ansible-playbook --check --diff changed the root"
  assert_plan_only_cached

  say "=== the first run, with --diff: changed, one transaction, exactly the plan it showed"
  ansible_run first "$tmp/rocm.yml" -e "@$tmp/present.json" --diff
  assert_eq "$ANSIBLE_STATUS" 0 "the first ansible-playbook's exit status"
  result=$(ansible_task_result) stats=$(ansible_stats)
  assert_eq "$(jq -r .changed <<<"$result")" true "the first run's changed"
  assert_eq "$(jq -r .changed <<<"$stats")" 1 "the first run's recap changed"
  assert_eq "$(jq -r .rc <<<"$result")" 0 "the first run's rc"
  local id
  id=$(jq -r .transaction_id <<<"$result")
  [[ -n $id && $id != null ]] || fail "the module returned no transaction_id"
  assert_eq "$(jq -r '[.steps[] | select(.changed)] | length > 0' <<<"$result")" true "the returned steps have changed ones"
  assert_eq "$(jq -r '.cmd | index("install") != null and index("--yes") != null and index("--plan") != null' <<<"$result")" true \
    "the first run (--diff) ran install --plan FILE --yes ($(jq -c .cmd <<<"$result"))"
  # The diff is of the root before the install: the new file, once, against nothing.
  assert_eq "$(jq -c '[.diff[] | select(.after_header == "/etc/profile.d/wslgpu-rocm.sh") | {before, after}]' <<<"$result")" \
    "$(jq -nc --rawfile after "$ROOT/etc/profile.d/wslgpu-rocm.sh" '[{before: "", after: $after}]')" \
    "the first run's diff of /etc/profile.d/wslgpu-rocm.sh"
  assert_installed "$ROOT" rocm rocm-dev rocm-core rocminfo hsa-runtime-rocr4wsl-amdgpu
  assert_not_installed "$ROOT" amdgpu-dkms rocm-dkms rocm-extras
  assert_contains "$(cat "$ROOT/etc/profile.d/wslgpu-rocm.sh")" '/opt/rocm/bin' "/etc/profile.d/wslgpu-rocm.sh"
  assert_contains "$(id_groups_in_root alice)" '\bvideo\b' "alice's groups"
  assert_contains "$(id_groups_in_root alice)" '\brender\b' "alice's groups"
  assert_contains "$(jq -r '.notices[]' <<<"$result")" "^alice's new groups \\(.*\\) take effect at the next login" "the returned notices"
  assert_contains "$(jq -r '.warnings[]' <<<"$result")" "^wslgpu-setup: alice's new groups" "the task's warnings"
  expect_status 0 in_root wslgpu-setup history --output json
  assert_eq "$(jq -r '[.[] | select(.status == "committed")] | map(.id) | join(" ")' <<<"$LAST_OUTPUT")" "$id" \
    "the committed transactions in history"

  say "=== the second run: ok, changed=0, in check mode too"
  snapshot "$ROOT" "$tmp/installed"
  ansible_run second "$tmp/rocm.yml" -e "@$tmp/present.json"
  assert_eq "$ANSIBLE_STATUS" 0 "the second ansible-playbook's exit status"
  result=$(ansible_task_result) stats=$(ansible_stats)
  assert_eq "$(jq -r .changed <<<"$result")" false "the second run's changed"
  assert_eq "$(jq -c '{ok, changed, failures}' <<<"$stats")" '{"ok":1,"changed":0,"failures":0}' "the second run's recap"
  assert_eq "$(jq -r '.transaction_id' <<<"$result")" "" "the second run's transaction_id"
  assert_eq "$(jq -r '.steps[] | select(.id == "rocminfo-gfx") | .failed' <<<"$result")" false "the second run's rocminfo check"
  ansible_run converged-check "$tmp/rocm.yml" -e "@$tmp/present.json" --check
  assert_eq "$ANSIBLE_STATUS" 0 "ansible-playbook --check on the converged root"
  assert_eq "$(ansible_stats | jq -c '{ok, changed}')" '{"ok":1,"changed":0}' "the recap of --check on the converged root"
  snapshot "$ROOT" "$tmp/again"
  assert_same_snapshot "$tmp/installed" "$tmp/again" "the converged runs changed the root"

  say "=== state: absent rolls the transaction back"
  ansible_run absent "$tmp/rocm.yml" -e "@$tmp/absent.json"
  assert_eq "$ANSIBLE_STATUS" 0 "ansible-playbook with state: absent"
  result=$(ansible_task_result)
  assert_eq "$(jq -r .changed <<<"$result")" true "state: absent's changed"
  assert_eq "$(jq -r '.rolled_back | join(" ")' <<<"$result")" "$id" "the transactions rolled back"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "state: absent left the root different from before the first run"
  assert_not_installed "$ROOT" rocm rocm-dev rocm-core rocminfo hsa-runtime-rocr4wsl-amdgpu
  ansible_run absent-again "$tmp/rocm.yml" -e "@$tmp/absent.json"
  assert_eq "$ANSIBLE_STATUS" 0 "ansible-playbook with state: absent, again"
  assert_eq "$(ansible_stats | jq -c '{ok, changed}')" '{"ok":1,"changed":0}' "the recap of a second state: absent"
}

playbook_dkms_refused() {
  local tmp=$REALROOT_SCENARIO_TMP result run
  root_install_tool
  fleet_playbook >"$tmp/rocm.yml"
  fleet_extra_vars present rocm_package=rocm-extras >"$tmp/dkms.json"
  snapshot "$ROOT" "$tmp/dkms-before" --exclude "$REALROOT_STATE_DIR"
  for run in check install; do
    say "=== rocm_package=rocm-extras (pulls amdgpu-dkms in), $run"
    local -a mode=()
    [[ $run == check ]] && mode=(--check)
    ansible_run "dkms-$run" "$tmp/rocm.yml" -e "@$tmp/dkms.json" "${mode[@]}"
    assert_eq "$ANSIBLE_STATUS" 2 "ansible-playbook's exit status when the task fails ($run)"
    result=$(ansible_task_result)
    assert_eq "$(jq -r .failed <<<"$result")" true "the refused task's failed ($run)"
    assert_eq "$(jq -r .rc <<<"$result")" 3 "the refused task's rc ($run)"
    assert_eq "$(ansible_stats | jq -r .failures)" 1 "the recap's failures ($run)"
    assert_contains "$(jq -r .msg <<<"$result")" \
      '^step [0-9]+ "rocm": would install amdgpu-dkms .*, which is a kernel-module package$' "the task's msg ($run)"
    assert_contains "$(jq -r .msg <<<"$result")" 'amdgpu-dkms .* is pulled in by rocm-extras → amdgpu-dkms' "the task's msg ($run)"
    assert_contains "$(jq -r .msg <<<"$result")" '^Nothing was changed \(exit 3\)\.$' "the task's msg ($run)"
    assert_not_contains "$(jq -r .msg <<<"$result")" 'Traceback' "the task's msg ($run)"
    snapshot "$ROOT" "$tmp/dkms-after" --exclude "$REALROOT_STATE_DIR"
    assert_same_snapshot "$tmp/dkms-before" "$tmp/dkms-after" "the refused task ($run) changed the root"
    if [[ $run == check ]]; then assert_plan_only_cached; else assert_plan_only_cached lock; fi
  done
  assert_not_installed "$ROOT" amdgpu-dkms rocm-extras rocm-core
}

playbook_interrupted_run_needs_recovery() {
  local tmp=$REALROOT_SCENARIO_TMP result state
  root_install_tool
  fleet_playbook >"$tmp/rocm.yml"
  fleet_extra_vars present >"$tmp/present.json"
  fleet_extra_vars absent >"$tmp/absent.json"
  cat >"$tmp/recover.yml" <<'EOF'
- hosts: fleet
  gather_facts: false
  tasks:
    - name: roll back the interrupted run
      ansible.builtin.command: wslgpu-setup recover --rollback --yes
EOF
  snapshot "$ROOT" "$tmp/crash-before" --exclude "$REALROOT_STATE_DIR"

  say "=== a run killed before the rocm step (WSLGPU_SETUP_CRASH_AT, passed on by the chroot connection)"
  ANSIBLE_ENV=WSLGPU_SETUP_CRASH_AT=rocm:before ansible_run crash "$tmp/rocm.yml" -e "@$tmp/present.json"
  assert_eq "$ANSIBLE_STATUS" 2 "ansible-playbook's exit status when the tool is killed"
  result=$(ansible_task_result)
  assert_eq "$(jq -r .rc <<<"$result")" -9 "the killed run's rc"
  assert_contains "$(jq -r .msg <<<"$result")" '^wslgpu-setup was killed by signal 9 before it finished\.' "the killed run's msg"

  say "=== the next run: rc 5, with the tool's advice"
  for state in present absent; do
    ansible_run "after-crash-$state" "$tmp/rocm.yml" -e "@$tmp/$state.json"
    assert_eq "$ANSIBLE_STATUS" 2 "ansible-playbook after the killed run (state $state)"
    result=$(ansible_task_result)
    assert_eq "$(jq -r .rc <<<"$result")" 5 "the task's rc after the killed run (state $state)"
    assert_contains "$(jq -r .msg <<<"$result")" '^transaction [0-9a-f-]+ \(rocm\) was interrupted' "the task's msg (state $state)"
    assert_contains "$(jq -r .msg <<<"$result")" 'Roll it back: +sudo wslgpu-setup recover --rollback$' "the task's msg (state $state)"
    assert_contains "$(jq -r .msg <<<"$result")" 'Or finish it: +sudo wslgpu-setup recover --resume$' "the task's msg (state $state)"
  done

  say "=== recover --rollback through ansible.builtin.command, then the playbook again"
  ansible_run recover "$tmp/recover.yml"
  assert_eq "$ANSIBLE_STATUS" 0 "the recover playbook"
  snapshot "$ROOT" "$tmp/crash-recovered" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/crash-before" "$tmp/crash-recovered" "recover --rollback left the root different from before the killed run"
  ansible_run after-recovery "$tmp/rocm.yml" -e "@$tmp/present.json"
  assert_eq "$ANSIBLE_STATUS" 0 "the playbook after the recovery"
  assert_eq "$(ansible_task_result | jq -r .changed)" true "the playbook after the recovery: changed"
  assert_installed "$ROOT" rocm rocm-dev hsa-runtime-rocr4wsl-amdgpu
}
