# The loop an unattended fleet meets, on real roots: install a bundled
# profile, roll it back, install it again. Then the root is converged: a
# plan exits 0 with --detailed-exitcode, another install changes nothing,
# and neither runs apt at all (the tier's call trace), also after another
# tool touched a file in sources.list.d. (apt keeps the old time of a list
# whose content did not change, so judging the lists by file times said
# "refresh" forever after the second install.)

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root install_rollback_install cuda
  with_root install_rollback_install rocm
}

# The bundled profiles pointed at the test repository (Debian 12 roots: --unsupported-distro).
profile_args() {
  if [[ $1 == cuda ]]; then
    printf '%s\n' --unsupported-distro --set "cuda_repo=$TESTREPO_CUDA_REPO" --set "cuda_key_url=file://$TESTREPO_KEY" \
      --set "cuda_key_fingerprint=$TESTREPO_KEY_FINGERPRINT"
  else
    rocm_profile_args
  fi
}

install_rollback_install() {
  local profile=$1 args id calls
  mapfile -t args < <(profile_args "$profile")
  # Someone else's source, there all along; a foreign tool touches it later.
  printf '# kept by the user, commented out\n# deb http://deb.invalid/debian bookworm main\n' \
    >"$ROOT/etc/apt/sources.list.d/local.list"

  tool --root "$ROOT" "${args[@]}" install "$profile" --yes --output json
  assert_status 0 "the first install of $profile"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "the first install reported no transaction"
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  tool --root "$ROOT" "${args[@]}" install "$profile" --yes
  assert_status 0 "the second install of $profile"
  assert_contains "$TOOL_OUT" 'committed' "the second install"

  trace_commands apt-get apt-cache apt
  tool --root "$ROOT" "${args[@]}" plan "$profile" --detailed-exitcode
  assert_status 0 "plan --detailed-exitcode after install, rollback, install"
  assert_contains "$TOOL_OUT" 'lists +no-op +package lists are' "the plan's apt_update step"
  tool --root "$ROOT" "${args[@]}" install "$profile" --yes --output json
  assert_status 0 "a third install of $profile"
  assert_eq "$(jq -r .changed <<<"$TOOL_OUT")" false "the third install's \"changed\""

  touch -d '+1 hour' "$ROOT/etc/apt/sources.list.d/local.list"
  tool --root "$ROOT" "${args[@]}" plan "$profile" --detailed-exitcode
  assert_status 0 "plan after another file in sources.list.d was touched"

  calls=$(traced_calls)
  [[ -z $calls ]] || fail "the converged plans and install of $profile called apt:"$'\n'"$calls"
}
