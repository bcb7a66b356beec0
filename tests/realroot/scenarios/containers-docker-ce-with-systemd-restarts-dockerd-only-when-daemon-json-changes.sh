# `install containers --set container_engine=docker` on an NVIDIA root that
# systemd runs (WSL's [boot] systemd=true), with an administrator's
# /etc/docker/daemon.json. dockerd reads daemon.json only when it starts
# (the systemctl and docker stand-ins model that), so:
#   - the install restarts docker once, after daemon.json has the nvidia
#     runtime, and Docker lists it;
#   - a rerun (converged) restarts nothing and records no transaction;
#   - the rollback restarts docker once more, after daemon.json is back, so
#     that dockerd runs with the administrator's file again; the root is as
#     it was before the install.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds cdi_spec json_file
  with_root docker_restarts_only_when_daemon_json_changes
}

docker_restarts_only_when_daemon_json_changes() {
  local tmp=$REALROOT_SCENARIO_TMP sets id loaded=$ROOT/run/docker-standin/daemon.json
  root_use_testrepo
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  root_with_systemd
  mkdir -p "$ROOT/etc/docker"
  printf '{\n  "log-driver": "json-file"\n}\n' >"$ROOT/etc/docker/daemon.json"
  cp "$ROOT/etc/docker/daemon.json" "$tmp/daemon.json.before"
  mapfile -t sets < <(containers_cuda_args --set container_engine=docker)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers"
  assert_contains "$TOOL_OUT" 'docker-nvidia-runtime +change' "plan: the runtime in daemon.json"
  assert_contains "$TOOL_OUT" 'then restart docker \(`systemctl restart docker`\)' "plan: says docker is restarted"
  assert_eq "$(root_systemctl_calls)" "" "systemctl calls of the plan"

  root_local_image docker ubuntu
  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers"
  assert_eq "$(root_systemctl_calls)" "restart docker" "systemctl calls of the install"
  cmp -s "$ROOT/etc/docker/daemon.json" "$loaded" || fail "dockerd did not read daemon.json as the install left it"
  assert_contains "$(cat "$loaded")" '"nvidia-container-runtime"' "the daemon.json dockerd read"
  assert_contains "$TOOL_OUT" 'docker-runtime +ok' "install: Docker lists the nvidia runtime"
  assert_contains "$TOOL_OUT" 'docker-smoke +ok' "install: nvidia-smi -L in the local image"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq length <<<"$TOOL_OUT")" 1 "transactions after the install"
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")

  # Converged: nothing to write, so nothing to restart and nothing to record.
  tool --root "$ROOT" "${sets[@]}" plan containers --detailed-exitcode
  assert_status 0 "plan containers --detailed-exitcode after the install (converged)"
  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers again"
  assert_eq "$(root_systemctl_calls)" "restart docker" "systemctl calls after the rerun"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq length <<<"$TOOL_OUT")" 1 "transactions after the rerun"

  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  assert_eq "$(root_systemctl_calls)" "$(printf 'restart docker\ntry-restart docker')" "systemctl calls of the rollback"
  cmp -s "$tmp/daemon.json.before" "$loaded" ||
    fail "after the rollback dockerd runs with $(cat "$loaded"), not the administrator's daemon.json"
  rm -f "$ROOT/var/lib/docker-standin/images/ubuntu"
  rmdir "$ROOT/var/lib/docker-standin/images" "$ROOT/var/lib/docker-standin"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
}
