# The CDI spec containers-rocm writes for ROCm on WSL, for each kind of
# release (AMD roots, container_engine = auto: Podman):
#   - legacy 6.4.2.1: /dev/dxg, libdxcore.so at /usr/lib/libdxcore.so and
#     the host's WSL runtime libhsa-runtime64.so.1 over the image's;
#   - librocdxg 7.2.2: /dev/dxg, libdxcore.so, librocdxg.so at
#     /usr/lib/librocdxg.so and HSA_ENABLE_DXG_DETECTION=1;
# each time podman runs rocminfo in the local image with
# --device amd.com/gpu=all, `containers flags` prints the same as docker run
# flags (which the docker stand-in accepts as AMD's), and a rerun is
# converged.

scenario() {
  require_tool_command install
  require_step_kinds cdi_spec json_file
  with_root amd_spec_for_a_legacy_release
  with_root amd_spec_for_a_librocdxg_release
}

# _amd_containers_install SPEC-REGEX... : installs containers on the AMD
# root with "${sets[@]}", then checks the spec, podman, the flags and the rerun.
_amd_containers_install() {
  local spec re flags
  tool --root "$ROOT" "${sets[@]}" plan containers
  assert_status 0 "plan containers"
  assert_contains "$TOOL_OUT" 'Profile containers-rocm, chosen because' "plan containers: the profile for an AMD root"
  assert_contains "$TOOL_OUT" 'container_engine=podman \(auto\)' "plan containers: the engine"
  root_local_image podman rocm/pytorch:latest
  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers"
  assert_contains "$TOOL_OUT" 'podman-smoke +ok' "install: rocminfo in the local image"
  spec=$(cat "$ROOT/etc/cdi/amd-wsl.yaml")
  assert_contains "$spec" 'kind: "?amd.com/gpu"?' "the spec's kind"
  assert_contains "$spec" 'path: "?/dev/dxg"?' "the spec's device node"
  for re in "$@"; do assert_contains "$spec" "$re" "the spec"; done
  expect_status 0 in_root podman run --rm --device amd.com/gpu=all rocm/pytorch:latest rocminfo
  assert_contains "$LAST_OUTPUT" gfx1100 "podman run --device amd.com/gpu=all"

  tool --root "$ROOT" containers flags
  assert_status 0 "containers flags"
  assert_contains "$TOOL_OUT" '--device=/dev/dxg' "containers flags"
  flags=$(grep -E '^  -' <<<"$TOOL_OUT" | sed 's/ *\\$//' | tr '\n' ' ')
  root_local_image docker rocm/pytorch:latest
  # The docker stand-in of the test repository, without its package: AMD's flags.
  install -m 0755 "$REALROOT_LIB_DIR/standins/docker" "$ROOT/usr/local/bin/docker"
  # shellcheck disable=SC2086 # the flags are words
  expect_status 0 in_root docker run --rm $flags rocm/pytorch:latest rocminfo
  assert_contains "$LAST_OUTPUT" gfx1100 "docker run with the flags of \`containers flags\`"
  rm -f "$ROOT/usr/local/bin/docker"

  tool --root "$ROOT" "${sets[@]}" plan containers --detailed-exitcode
  assert_status 0 "plan containers --detailed-exitcode after the install (converged)"
}

amd_spec_for_a_legacy_release() {
  local sets
  root_as_amd_machine
  root_use_testrepo
  mapfile -t sets < <(containers_rocm_args)
  _amd_containers_install 'hostPath: "?/opt/rocm/lib/libhsa-runtime64.so.1"?' 'containerPath: "?/usr/lib/libdxcore.so"?'
  assert_not_contains "$(cat "$ROOT/etc/cdi/amd-wsl.yaml")" 'librocdxg|HSA_ENABLE_DXG_DETECTION' "the legacy spec"
}

amd_spec_for_a_librocdxg_release() {
  local sets
  root_as_amd_machine
  root_use_testrepo
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t sets < <(rocm7_profile_args "$(_containers_docker_args)")
  _amd_containers_install 'hostPath: "?/opt/rocm/lib/librocdxg.so"?' 'containerPath: "?/usr/lib/librocdxg.so"?' \
    'HSA_ENABLE_DXG_DETECTION=1'
  assert_not_contains "$(cat "$ROOT/etc/cdi/amd-wsl.yaml")" 'libhsa-runtime64' "the librocdxg spec"
}
