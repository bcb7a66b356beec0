# The bundled cuda profile with cuda_version = "auto" on roots whose Windows
# driver is a recorded one (root_fake_nvidia_smi): a driver whose nvidia-smi
# says CUDA 12.2 gets cuda-toolkit-12-2, one that says CUDA 13.1 gets
# cuda-toolkit-13-1, each with the plan saying why; /usr/local/cuda is that
# release's and nvcc runs. One that prints "CUDA Version: ERR!" falls back to
# 12.6, saying so. A rollback leaves the root as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root auto_installs ok-q-rtx4090-wddm-xwayland.txt "driver 537.13, CUDA 12.2" 12.2
  with_root auto_installs ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt "driver 591.86, CUDA 13.1" 13.1
  with_root auto_falls_back
}

# auto_installs CORPUS SAID RELEASE
auto_installs() {
  local corpus=$1 said=$2 release=$3 tmp=$REALROOT_SCENARIO_TMP sets id
  local dash=${release/./-}
  root_fake_nvidia_smi "$corpus"
  mapfile -t sets < <(cuda_profile_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan cuda
  assert_status 0 "plan cuda"
  assert_contains "$TOOL_OUT" " · nvidia-smi: $said · " "plan's machine line"
  assert_contains "$TOOL_OUT" "^Chose cuda_version=$release \\(auto\\): the newest toolkit that NVIDIA.s Windows driver supports \\(nvidia-smi: $said\\)\$" "plan's choice"
  assert_contains "$TOOL_OUT" "toolkit +change +install [0-9]+ packages: .*cuda-toolkit-$dash" "plan cuda"
  assert_not_contains "$TOOL_OUT" '^warning: ' "plan cuda"

  tool --root "$ROOT" "${sets[@]}" install cuda --yes --output json
  assert_status 0 "install cuda"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_installed "$ROOT" "cuda-toolkit-$dash" "cuda-nvcc-$dash"
  assert_not_installed "$ROOT" cuda cuda-drivers nvidia-driver-550
  assert_eq "$(in_root readlink -f /usr/local/cuda)" "/usr/local/cuda-$release" "/usr/local/cuda"
  expect_status 0 in_root /usr/local/cuda/bin/nvcc --version
  assert_contains "$LAST_OUTPUT" "release $release," "nvcc --version"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/cuda-wsl-ubuntu.pref")" '^Pin-Priority: 600$' "the pin"

  tool --root "$ROOT" "${sets[@]}" rollback "$id" --yes
  assert_status 0 "rollback"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root changed"
}

auto_falls_back() {
  local sets
  root_fake_nvidia_smi partial-table-cuda-version-err-truncated.txt
  mapfile -t sets < <(cuda_profile_args)
  tool --root "$ROOT" "${sets[@]}" plan cuda
  assert_status 0 "plan cuda with CUDA Version: ERR!"
  assert_contains "$TOOL_OUT" '^Chose cuda_version=12.6 \(fallback\): nvidia-smi names no CUDA release of this table that the driver supports \(driver 546.80, CUDA Version: ERR!\); 12.6 runs on every driver from 525$' "plan's choice"
  assert_contains "$TOOL_OUT" 'toolkit +change +install [0-9]+ packages: .*cuda-toolkit-12-6' "plan cuda"
  # No nvidia-smi at all: the same fallback, saying so.
  rm -f "$ROOT/usr/lib/wsl/lib/nvidia-smi"
  tool --root "$ROOT" "${sets[@]}" plan cuda
  assert_status 0 "plan cuda without nvidia-smi"
  assert_contains "$TOOL_OUT" '^Chose cuda_version=12.6 \(fallback\): .*\(/usr/lib/wsl/lib/nvidia-smi is missing\)' "plan's choice"
}
