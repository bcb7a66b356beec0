# Podman with NVIDIA's CDI spec, and a Windows driver update (NVIDIA roots,
# container_engine = auto on a root with no engine):
#   - the install writes /etc/cdi/nvidia.yaml naming the driver store
#     folder, and podman runs nvidia-smi -L in the local image;
#   - a rerun is converged;
#   - the driver store folder changes (a Windows driver update): the spec is
#     stale (podman fails on the file it names that is gone), the plan shows
#     the spec changing, and a rerun regenerates it, after which podman runs;
#   - rolling back the second install puts the stale spec back byte for
#     byte; with the old driver folder back, rolling back the first leaves an
#     empty snapshot diff.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds cdi_spec json_file
  with_root podman_spec_goes_stale_with_the_driver_and_is_regenerated
}

podman_spec_goes_stale_with_the_driver_and_is_regenerated() {
  local tmp=$REALROOT_SCENARIO_TMP sets old new first second
  root_use_testrepo
  old=$(root_fake_driver_store nv_dispi.inf_amd64_1111111111111111)
  mapfile -t sets < <(containers_cuda_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  root_local_image podman ubuntu
  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers"
  assert_installed "$ROOT" podman nvidia-container-toolkit nvidia-container-toolkit-base
  assert_not_installed "$ROOT" docker-ce
  assert_contains "$(cat "$ROOT/etc/cdi/nvidia.yaml")" "hostPath: $old/libcuda.so.1.1" "the spec names the driver store"
  assert_contains "$(cat "$ROOT/etc/cdi/nvidia.yaml")" 'path: /dev/dxg' "the spec's device node"
  assert_contains "$TOOL_OUT" 'podman-smoke +ok' "install: nvidia-smi -L in the local image"
  expect_status 0 in_root podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L
  assert_contains "$LAST_OUTPUT" 'GPU 0: NVIDIA' "podman after the install"
  cp "$ROOT/etc/cdi/nvidia.yaml" "$tmp/first-spec"

  tool --root "$ROOT" "${sets[@]}" plan containers --detailed-exitcode
  assert_status 0 "plan containers --detailed-exitcode after the install (converged)"

  # A Windows driver update: the store moves to a new folder.
  new=$(root_fake_driver_store nv_dispi.inf_amd64_2222222222222222)
  expect_status 126 in_root podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L
  assert_contains "$LAST_OUTPUT" "$old" "podman with the stale spec"
  tool --root "$ROOT" "${sets[@]}" plan containers --detailed-exitcode
  assert_status 10 "plan containers --detailed-exitcode after the driver update"
  assert_contains "$TOOL_OUT" 'nvidia-cdi +change' "the plan regenerates the spec"
  assert_contains "$TOOL_OUT" "$new" "the plan names the new driver store"

  tool --root "$ROOT" "${sets[@]}" install containers --yes
  assert_status 0 "install containers after the driver update"
  assert_contains "$(cat "$ROOT/etc/cdi/nvidia.yaml")" "hostPath: $new/libcuda.so.1.1" "the regenerated spec"
  assert_not_contains "$(cat "$ROOT/etc/cdi/nvidia.yaml")" "$old" "the regenerated spec"
  expect_status 0 in_root podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L
  assert_contains "$LAST_OUTPUT" 'GPU 0: NVIDIA' "podman after the regenerated spec"

  tool --root "$ROOT" history --output json
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 2 "the number of transactions"
  # Transaction ids sort by time.
  first=$(jq -r '[.[].id] | sort | .[0]' <<<"$TOOL_OUT")
  second=$(jq -r '[.[].id] | sort | .[1]' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$second" --yes
  assert_status 0 "rollback $second"
  cmp -s "$ROOT/etc/cdi/nvidia.yaml" "$tmp/first-spec" || fail "rollback of the second install did not put the first spec back"
  root_fake_driver_store nv_dispi.inf_amd64_1111111111111111 >/dev/null
  tool --root "$ROOT" rollback "$first" --yes
  assert_status 0 "rollback $first"
  rm -rf "$ROOT/var/lib/podman-standin"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
}
