# Undo acts on what the journal recorded, never on the manifest loaded
# again with today's user (issue 35, item 4; the review found a rollback run
# for bob deleting alice's venv, or the reverse):
#   - bob, a second user, has a venv of his own at the profile's default
#     path in his home;
#   - install pytorch for alice (the default user): T1, her venv;
#   - rollback of T1 run with --user bob: alice's venv goes, bob's venv is
#     exactly as it was, the root is as before T1.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root rollback_acts_on_the_recorded_user
}

rollback_acts_on_the_recorded_user() {
  local tmp=$REALROOT_SCENARIO_TMP sets t1 bob_venv=/home/bob/.venvs/pytorch bob_before
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  mapfile -t sets < <(pytorch_cuda_args)
  in_root useradd --create-home --uid 1001 --user-group --shell /bin/bash bob
  in_root runuser -u bob -- python3 -m venv --without-pip "$bob_venv" || fail "bob's own venv could not be made"
  printf 'print("bob")\n' >"$ROOT$bob_venv/bob.py"
  in_root chown bob:bob "$bob_venv/bob.py"
  bob_before=$(cd "$ROOT$bob_venv" && find . -printf '%p %m %u %s %T@\n' | sort)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch for alice (T1)"
  assert_owned_by_user "$PYTORCH_VENV"
  t1=$(newest_transaction)

  tool --root "$ROOT" --user bob rollback "$t1" --yes
  assert_status 0 "rollback of alice's T1 run with --user bob"
  [[ ! -e $ROOT$PYTORCH_VENV ]] || fail "the rollback left alice's venv $PYTORCH_VENV"
  assert_eq "$(cd "$ROOT$bob_venv" && find . -printf '%p %m %u %s %T@\n' | sort)" "$bob_before" "bob's venv after the rollback"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "the rollback left the root different from before T1"
}
