# `container_engine = auto` on the three machines it tells apart (NVIDIA
# roots, the containers-cuda profile chosen from the driver):
#   - no engine: Podman from the distribution's archive, NVIDIA's toolkit
#     from its repository (its key's old subkey expired, the key accepted),
#     and NVIDIA's CDI spec;
#   - docker-ce already installed: that engine, NVIDIA's runtime added to
#     daemon.json, no Podman;
#   - Docker Desktop's integration on (/usr/bin/docker its link): nothing
#     installed for the engine, and the install then installs none of
#     Docker's, Podman's or NVIDIA's container packages and writes no spec;
#     asking for docker-ce there is refused (exit 3), saying why.

scenario() {
  require_tool_command install
  require_step_kinds cdi_spec json_file
  with_root auto_without_an_engine_is_podman
  with_root auto_with_docker_ce_installed_is_docker
  with_root auto_with_docker_desktop_installs_nothing_for_the_engine
}

auto_without_an_engine_is_podman() {
  local sets
  root_use_testrepo
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  mapfile -t sets < <(containers_cuda_args)
  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers (no engine)"
  assert_contains "$TOOL_OUT" 'Profile containers-cuda, chosen because' "plan containers: the profile for an NVIDIA root"
  assert_contains "$TOOL_OUT" 'container_engine=podman \(auto\)' "plan containers: the engine auto chose"
  assert_contains "$TOOL_OUT" 'podman +change +install' "plan containers: Podman"
  assert_contains "$TOOL_OUT" 'nvct +change +install .*nvidia-container-toolkit' "plan containers: NVIDIA's toolkit"
  assert_contains "$TOOL_OUT" 'nvct-repo +change +add /etc/apt/sources.list.d/nvidia-container-toolkit.sources' \
    "plan containers: NVIDIA's repository, its key accepted"
  assert_contains "$TOOL_OUT" 'nvidia-cdi +change' "plan containers: the CDI spec"
  assert_contains "$TOOL_OUT" 'docker-engine +skipped' "plan containers: no docker-ce"
  assert_contains "$TOOL_OUT" 'docker-nvidia-runtime +skipped' "plan containers: no daemon.json"
  assert_contains "$TOOL_OUT" 'only when `podman image exists ubuntu` succeeds then; otherwise: .*To test by hand: podman pull ubuntu && podman run --rm --device nvidia.com/gpu=all' \
    "plan containers: the smoke test says what to run by hand when there is no image"
}

auto_with_docker_ce_installed_is_docker() {
  local sets
  root_use_testrepo
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  root_with_docker_ce
  mapfile -t sets < <(containers_cuda_args)
  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers (docker-ce installed)"
  assert_contains "$TOOL_OUT" 'container_engine=docker \(auto\): Docker Engine \(docker-ce\) inside this distribution' "plan containers: the engine auto chose"
  assert_contains "$TOOL_OUT" 'docker-nvidia-runtime +change .*/etc/docker/daemon.json' "plan containers: the runtime in daemon.json"
  assert_contains "$TOOL_OUT" 'podman +skipped' "plan containers: no Podman"
}

auto_with_docker_desktop_installs_nothing_for_the_engine() {
  local sets
  root_use_testrepo
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  root_with_docker_desktop
  mapfile -t sets < <(containers_cuda_args)
  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers (Docker Desktop)"
  assert_contains "$TOOL_OUT" 'container_engine=desktop \(auto\): Docker Desktop' "plan containers: the engine auto chose"
  local id
  for id in docker-repo docker-engine podman nvct-repo nvct docker-nvidia-runtime nvidia-cdi; do
    assert_contains "$TOOL_OUT" "$id +skipped" "plan containers with Docker Desktop: $id"
  done

  tool --root "$ROOT" "${sets[@]}" --set container_engine=docker plan containers
  assert_status 3 "plan containers --set container_engine=docker with Docker Desktop's integration on"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'Running both can cause conflicts' "the refusal says why"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'container_engine=desktop' "the refusal says what to do"

  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers (Docker Desktop)"
  assert_contains "$TOOL_OUT" 'desktop-reached +ok' "install containers: docker reaches Docker Desktop"
  assert_contains "$TOOL_OUT" 'docker-smoke: not run: `docker image inspect ubuntu` failed\. ubuntu is not on this machine, and is not pulled unasked\. To test by hand: docker pull ubuntu' \
    "install containers: the smoke test without the image says what to run by hand"
  assert_not_installed "$ROOT" docker-ce docker-ce-cli containerd.io podman nvidia-container-toolkit \
    nvidia-container-toolkit-base libnvidia-container-tools libnvidia-container1
  [[ ! -e $ROOT/etc/cdi ]] || fail "install containers with Docker Desktop wrote $(ls "$ROOT/etc/cdi")"
  [[ ! -e $ROOT/etc/docker ]] || fail "install containers with Docker Desktop wrote /etc/docker"
  [[ -L $ROOT/usr/bin/docker ]] || fail "install containers replaced Docker Desktop's /usr/bin/docker link"
}
