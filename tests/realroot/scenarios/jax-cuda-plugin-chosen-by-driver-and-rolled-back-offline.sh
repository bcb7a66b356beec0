# `install jax` on NVIDIA roots: jax-cuda, layered on the cuda-driver profile,
# whose jax_build=auto takes the CUDA plugin from nvidia-smi's driver
# (manifests/jax-cuda.toml's [matrix.jax_build]: CUDA 13 from driver 580,
# CUDA 12 from 525), with the fake wheels of
# tests/support/fake_framework_wheels.py from a PyPI-like index over the
# root's loopback HTTPS (docs/testing.md, "Fake framework wheels"). The fake
# jax lists a CudaDevice only when a jax_cudaNN_plugin with its pjrt is
# installed, the driver meets that plugin's floor and the plugin's nvidia-*
# libraries are in the venv; otherwise it says JAX's "CUDA backend failed to
# initialize: ..." and falls back to the CPU. Each root is Debian 12, so
# framework_args sets jax_ubuntu_min/max=12 and Python 3.11, which the rows
# keep.
#   - a recorded driver 591.86 (root_fake_nvidia_smi): plan chooses
#     0.11.2-cuda13 (the newest row) and names jax[cuda13] at the row's release, its plugin
#     and pjrt and the CUDA 13 nvidia-* wheels, from the index; the install
#     commits, its smoke check passes without a warning; the venv is the
#     user's; the smoke code, as the user, sees CudaDevice(id=0) and a
#     jitted dot; converged offline; the rollback offline restores the
#     snapshot exactly;
#   - the harness's driver 566.36: plan chooses 0.11.0-cuda12; forcing
#     --set jax_build=0.11.0-cuda13 is refused by plan and install (exit 3,
#     the 580 floor named) and changes nothing; the auto install commits
#     with the CUDA 12 plugin, its smoke check passes; converged offline;
#     rollback exact offline;
#   - 566.36 again, with a cuDNN wheel that lost its library (the index's
#     nvidia-cudnn-cu12 without libcudnn.so.9): the install commits, the
#     smoke check warns, naming `wslgpu-setup doctor --python` on the venv;
#     the plugin fails to initialize, and doctor's jax.cuda-backend names
#     the library it cannot load.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command doctor
  require_step_kinds python_venv python_packages
  with_root jax_cuda13_chosen_by_a_580_driver_installs_and_rolls_back_offline
  with_root jax_cuda12_chosen_by_a_566_driver_and_cuda13_refused
  with_root jax_smoke_warns_and_doctor_names_the_plugin_s_missing_library
}

jax_cuda13_chosen_by_a_580_driver_installs_and_rolls_back_offline() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  frameworks_www
  mapfile -t sets < <(framework_args jax)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  jax_installs_the_row_s_plugin_and_rolls_back_offline 0.11.2-cuda13 "$tmp/before" "${sets[@]}"
}

jax_cuda12_chosen_by_a_566_driver_and_cuda13_refused() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  frameworks_www
  mapfile -t sets < <(framework_args jax)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  # The CUDA 13 plugin on a driver below its floor: refused before anything.
  tool --root "$ROOT" "${sets[@]}" --set jax_build=0.11.0-cuda13 plan jax
  assert_status 3 "plan jax --set jax_build=0.11.0-cuda13 on driver 566.36"
  assert_contains "$TOOL_OUT$TOOL_ERR" "JAX's cuda13 plugin needs NVIDIA's driver 580 or later .*this one is 566\\.36" "the refusal"
  tool --root "$ROOT" "${sets[@]}" --set jax_build=0.11.0-cuda13 install jax --yes
  assert_status 3 "install jax --set jax_build=0.11.0-cuda13 on driver 566.36"
  assert_contains "$TOOL_OUT$TOOL_ERR" "JAX's cuda13 plugin needs NVIDIA's driver 580 or later" "the refusal"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'Nothing was changed \(exit 3\)' "the refusal"
  snapshot "$ROOT" "$tmp/after-refusal" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after-refusal" "the refused install changed the root"

  jax_installs_the_row_s_plugin_and_rolls_back_offline 0.11.0-cuda12 "$tmp/before" "${sets[@]}"
}

# jax_installs_the_row_s_plugin_and_rolls_back_offline ROW SNAPSHOT ARGS...:
# plan chooses ROW of [matrix.jax_build] with ARGS (auto), names its
# wheels; the install commits, its smoke check passes; the user's venv has
# the row's plugin only; the smoke code sees CUDA; converged offline; the
# rollback restores SNAPSHOT.
jax_installs_the_row_s_plugin_and_rolls_back_offline() {
  local row=$1 before=$2 jax cuda major wheels name version site other
  shift 2
  jax=$(framework_manifest_value jax-cuda jax_version jax_build "$row")
  cuda=$(framework_manifest_value jax-cuda jax_cuda jax_build "$row")
  major=${cuda#cuda}
  if [[ $major == 13 ]]; then wheels=$FRAMEWORKS_NVIDIA_CU13 other=12; else wheels=$FRAMEWORKS_NVIDIA_CU12 other=13; fi

  tool --root "$ROOT" "$@" plan jax
  assert_status 0 "plan jax"
  assert_contains "$TOOL_OUT" 'jax-cuda' "plan jax: the profile chosen for an NVIDIA root"
  assert_contains "$TOOL_OUT" "^Chose jax_build=${row//./\\.} \\(auto\\)" "plan jax: the row chosen from the driver"
  assert_contains "$TOOL_OUT" 'libcuda +verify' "plan jax: cuda-driver's steps"
  assert_not_contains "$TOOL_OUT" ' (toolkit|cuda-repo) ' "plan jax: no CUDA toolkit and no NVIDIA apt source (the wheels bring CUDA)"
  assert_contains "$TOOL_OUT" "install jax\\[$cuda\\] ${jax//./\\.} from the index $HTTPS_URL/pypi" "plan jax: the row's release and plugin, from the index"
  assert_contains "$TOOL_OUT" "jax_cuda${major}_plugin ${jax//./\\.} \\(for jax\\)" "plan jax: the row's plugin"
  assert_contains "$TOOL_OUT" "jax_cuda${major}_pjrt ${jax//./\\.} \\(for jax_cuda${major}_plugin\\)" "plan jax: the plugin's pjrt"
  assert_not_contains "$TOOL_OUT" "jax_cuda${other}_plugin" "plan jax: the other plugin"
  # The plugin's with-cuda wheels (the fake's Requires-Dist, modelled on
  # JAX's own list) at the index's versions, as the wheels' files spell them.
  while read -r name; do
    version=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$wheels")
    assert_contains "$TOOL_OUT" "${name//-/[-_]} ${version//./\\.} \\(for jax_cuda${major}_plugin\\)" "plan jax: $name, pulled in by jax-cuda${major}-plugin[with-cuda]"
  done < <(jax_with_cuda_wheels "$major")

  tool --root "$ROOT" "$@" install jax --yes
  assert_status 0 "install jax ($row)"
  assert_contains "$TOOL_OUT" 'committed' "install jax ($row)"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'check failed|does not run on the GPU|^warning: .*smoke' "install jax (the smoke check)"

  assert_owned_by_user "$JAX_VENV"
  site=$(framework_site "$JAX_VENV")
  [[ -f $ROOT$site/jax_cuda${major}_plugin-$jax.dist-info/METADATA && -d $ROOT$site/jax_plugins/xla_cuda$major ]] ||
    fail "jax-cuda${major}-plugin $jax and its pjrt are not installed in the venv: $(ls "$ROOT$site")"
  [[ ! -e $ROOT$site/jax_cuda${other}_plugin ]] || fail "the venv holds the CUDA $other plugin too: $(ls "$ROOT$site")"

  framework_smoke jax || fail "the profile's smoke code failed for the user after install jax ($row)"
  assert_contains "$LAST_OUTPUT" '^devices \[CudaDevice\(id=0\)\]$' "the devices JAX lists"
  assert_contains "$LAST_OUTPUT" '^smoke ok 1024\.0$' "the smoke code's jitted dot"
  assert_not_contains "$LAST_OUTPUT" 'CUDA backend failed to initialize|Falling back to cpu' "the smoke code's output"

  profile_converged_offline jax "$@"
  framework_rollback_to "$before" "$JAX_VENV"
}

jax_smoke_warns_and_doctor_names_the_plugin_s_missing_library() {
  local sets site finding
  frameworks_www --hollow nvidia-cudnn-cu12
  mapfile -t sets < <(framework_args jax)
  tool --root "$ROOT" "${sets[@]}" install jax --yes
  assert_status 0 "install jax with a cuDNN wheel without its library (the smoke check only warns)"
  assert_contains "$TOOL_OUT" 'committed' "install jax"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'JAX does not run on the GPU' "the smoke check's warning"
  assert_contains "$TOOL_OUT$TOOL_ERR" "wslgpu-setup doctor --python \"$JAX_VENV/bin/python\"" "the smoke check's advice"
  site=$(framework_site "$JAX_VENV")
  [[ -d $ROOT$site/nvidia/cudnn && ! -e $ROOT$site/nvidia/cudnn/lib/libcudnn.so.9 ]] || fail "the hollow cuDNN wheel is not what the venv holds"

  if framework_smoke jax; then fail "the smoke code passed without libcudnn.so.9"; fi
  assert_contains "$LAST_OUTPUT" 'CUDA backend failed to initialize: Unable to load libcudnn\.so\.9\. Is it installed\?' "the plugin without libcudnn.so.9"
  assert_contains "$LAST_OUTPUT" '^devices \[CpuDevice\(id=0\)\]$' "the devices JAX falls back to"

  tool --root "$ROOT" doctor --python "$JAX_VENV/bin/python" --output json
  assert_status 1 "doctor --python on the JAX venv without libcudnn.so.9 (a check fails)"
  finding=$(jq -c '.findings[] | select(.id == "jax.cuda-backend")' <<<"$TOOL_OUT")
  [[ -n $finding ]] || fail "doctor reported no jax.cuda-backend: $(jq -c '[.findings[].id]' <<<"$TOOL_OUT")"
  assert_eq "$(jq -r .status <<<"$finding")" fail "doctor's jax.cuda-backend"
  assert_contains "$(jq -r .seen <<<"$finding")" '^JAX [0-9.]+ runs on the CPU: jax\.devices\(\) is \[CpuDevice\(id=0\)\]; it cannot load libcudnn\.so\.9$' "doctor's jax.cuda-backend, its seen"
  assert_contains "$(jq -r .cause <<<"$finding")" 'JAX says "CUDA backend failed to initialize: Unable to load libcudnn\.so\.9\. Is it installed\?' "doctor's jax.cuda-backend, its cause"
  assert_contains "$(jq -r .fix <<<"$finding")" 'jax\[cuda12\].*sudo wslgpu-setup install jax-cuda' "doctor's jax.cuda-backend, its fix"
}

# jax_with_cuda_wheels MAJOR: the nvidia-* wheels jax-cudaMAJOR-plugin's
# with-cuda extra requires, one a line (the fake's JAX_WITH_CUDA).
jax_with_cuda_wheels() {
  python3 - "$REALROOT_FAKE_FRAMEWORK_WHEELS" "$1" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fake_framework_wheels", sys.argv[1])
fake = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fake)
print("\n".join(name for name, _ in fake.JAX_WITH_CUDA[sys.argv[2]]))
PY
}
