# `install containers --set container_engine=docker` on an NVIDIA root with
# no engine and an administrator's /etc/docker/daemon.json (two keys, two
# spaces of indentation):
#   - Docker's repository as Docker documents it (docker.sources, the key
#     /etc/apt/keyrings/docker.asc), its five packages; NVIDIA's toolkit, the
#     four packages at one release;
#   - daemon.json gains runtimes.nvidia, and every byte the administrator
#     wrote stays (keys, order, indentation);
#   - Docker lists the nvidia runtime; the smoke test runs nvidia-smi -L in
#     the image already on the machine;
#   - a rerun is converged; the rollback leaves an empty snapshot diff
#     (daemon.json byte for byte as it was).

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds cdi_spec json_file
  with_root docker_ce_gets_nvidia_s_runtime_and_rolls_back
}

docker_ce_gets_nvidia_s_runtime_and_rolls_back() {
  local tmp=$REALROOT_SCENARIO_TMP sets p id
  root_use_testrepo
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  mkdir -p "$ROOT/etc/docker"
  printf '{\n  "log-driver": "json-file",\n  "log-opts": {\n    "max-size": "10m"\n  }\n}\n' >"$ROOT/etc/docker/daemon.json"
  mapfile -t sets < <(containers_cuda_args --set container_engine=docker)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers"
  assert_contains "$TOOL_OUT" 'docker-repo +change +add /etc/apt/sources.list.d/docker.sources' "plan: Docker's source"
  assert_contains "$TOOL_OUT" '/etc/apt/keyrings/docker.asc' "plan: Docker's key, kept armoured"
  assert_contains "$TOOL_OUT" 'docker-engine +change +install .*docker-ce' "plan: Docker's packages"
  assert_contains "$TOOL_OUT" 'docker-nvidia-runtime +change' "plan: the runtime in daemon.json"

  root_local_image docker ubuntu
  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers"
  assert_contains "$TOOL_OUT" 'committed' "install containers"
  assert_installed "$ROOT" docker-ce docker-ce-cli containerd.io docker-buildx-plugin docker-compose-plugin \
    nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools libnvidia-container1
  assert_not_installed "$ROOT" podman
  for p in nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools libnvidia-container1; do
    assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' "$p")" 1.20.1-1 "$p's version (the newest from the profile's floor, 1.20.0)"
  done
  assert_eq "$(cat "$ROOT/etc/apt/sources.list.d/docker.sources")" "$(printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: stable\nArchitectures: %s\nSigned-By: /etc/apt/keyrings/docker.asc' \
    "$TESTREPO_DOCKER_REPO" "$TESTREPO_SUITE" "$(dpkg --print-architecture)")" "docker.sources"
  cmp -s "$ROOT/etc/apt/keyrings/docker.asc" "$TESTREPO_KEY" || fail "/etc/apt/keyrings/docker.asc is not the key, byte for byte"
  assert_eq "$(cat "$ROOT/etc/docker/daemon.json")" '{
  "log-driver": "json-file",
  "log-opts": {
    "max-size": "10m"
  },
  "runtimes": {
    "nvidia": {
      "args": [],
      "path": "nvidia-container-runtime"
    }
  }
}' "daemon.json after the install"
  assert_contains "$TOOL_OUT" 'docker-runtime +ok' "install: Docker lists the nvidia runtime"
  assert_contains "$TOOL_OUT" 'docker-smoke +ok' "install: nvidia-smi -L in the local image"
  expect_status 0 in_root docker run --rm --gpus all ubuntu nvidia-smi -L
  assert_contains "$LAST_OUTPUT" 'GPU 0: NVIDIA' "docker run --gpus all after the install"
  [[ -f $ROOT/etc/cdi/nvidia.yaml ]] || fail "no /etc/cdi/nvidia.yaml for docker's --device nvidia.com/gpu=all"

  tool --root "$ROOT" "${sets[@]}" plan containers --detailed-exitcode
  assert_status 0 "plan containers --detailed-exitcode after the install (converged)"

  tool --root "$ROOT" history --output json
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  rm -f "$ROOT/var/lib/docker-standin/images/ubuntu"
  rmdir "$ROOT/var/lib/docker-standin/images" "$ROOT/var/lib/docker-standin"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
}
