# tests/realroot/wheels.sh: fake PyTorch wheels for the pytorch-* scenarios
# (sourced by lib.sh). The wheels are built at test time by
# tests/support/fake_wheels.py (docs/testing.md, "Fake PyTorch wheels"),
# never downloaded, and served over the root's loopback HTTPS server the way
# the vendors serve the real ones:
#   $HTTPS_URL/manylinux/rocm-rel-<X>/   AMD's find-links listings (torch_wheel_repo)
#   $HTTPS_URL/whl/cu130/, whl/cu126/    PEP 503 indexes like download.pytorch.org's (torch_index_base)
#   $HTTPS_URL/pypi/                     a PEP 503 index for the dependencies (numpy; pypi_index)
#   $HTTPS_URL/v1.2.2/                   librocdxg's .deb (rocdxg_release_url), as rocm7_profile_args expects
#   $HTTPS_URL/rocm/whl-next/            a PEP 503 index like AMD's whl-next (rocm_whl_index): the ROCm
#                                        Core SDK's wheels (pytorch_core_www)

REALROOT_FAKE_WHEELS=$REALROOT_LIB_DIR/../support/fake_wheels.py
# The profiles' default venv (${host.user_home}/.venvs/pytorch) for the
# test user, and Debian 12's Python.
PYTORCH_VENV=/home/$REALROOT_USER/.venvs/pytorch
PYTORCH_CP=cp311
PYTORCH_PYTHON=3.11
# The smoke test of issue 23: a kernel launch, not only is_available().
PYTORCH_SMOKE='import torch; print(torch.cuda.is_available()); print(torch.cuda.get_device_name(0)); a = torch.ones(256, 256, device="cuda"); b = a @ a; torch.cuda.synchronize(); print("smoke ok", float(b.sum()))'

# fake_wheels ARGS...: tests/support/fake_wheels.py, with the host's python3.
fake_wheels() { python3 "$REALROOT_FAKE_WHEELS" "$@"; }

# pytorch_rocm_wheels RELEASE: the wheels that manifests/pytorch-rocm.toml
# names in its [matrix.rocm_version."RELEASE"] row (torch_wheel,
# torchvision_wheel, torchaudio_wheel, triton_wheel: "torch-2.9.1%2Brocm..."),
# "NAME VERSION" per line, read with the host's python3 (tomllib), so that
# the fakes are exactly what the profile installs. A release without a row
# fails, saying so.
pytorch_rocm_wheels() {
  local manifest=${PYTORCH_ROCM_MANIFEST:-$REALROOT_LIB_DIR/../../manifests/pytorch-rocm.toml}
  [[ -f $manifest ]] || fail "pytorch_rocm_wheels: $manifest does not exist"
  python3 - "$manifest" "$1" <<'PY' || fail "pytorch_rocm_wheels: manifests/pytorch-rocm.toml has no wheel row for ROCm $1"
import sys, tomllib, urllib.parse
with open(sys.argv[1], "rb") as f:
    row = tomllib.load(f).get("matrix", {}).get("rocm_version", {}).get(sys.argv[2], {})
names = [row.get(k, "") for k in ("torch_wheel", "torchvision_wheel", "torchaudio_wheel", "triton_wheel")]
if not all(names):
    sys.exit(1)
for n in names:
    name, version = urllib.parse.unquote(n).split("-", 1)
    print(name, version)
PY
}

# The download.pytorch.org cu130 set the NVIDIA scenarios serve: the
# pytorch-cuda matrix's cu130 row pins torch (2.14.1); torchvision and
# torchaudio are the index's builds that pin that torch exactly, and the
# index holds the dependencies too (triton, NumPy), as download.pytorch.org's
# does: pip is given that one index.
PYTORCH_CUDA_INDEX=cu130
PYTORCH_CUDA_TORCH=2.14.1
PYTORCH_CUDA_WHEELS='torch 2.14.1+cu130
torchvision 0.29.1+cu130
torchaudio 2.14.1+cu130
triton 3.7.0
numpy 2.1.0'

# _wheel_specs CP: "NAME VERSION" lines on stdin -> NAME VERSION CP words.
_wheel_specs() { awk -v cp="$1" 'NF == 2 { print $1; print $2; print cp }'; }

# pytorch_www [--legacy-bundled-hsa=yes|no] [--no-kernels]: builds the fake
# wheels and the indexes above in $REALROOT_SCENARIO_TMP/www, serves it
# (serve_https: $HTTPS_URL) and records every wheel's SHA-256 in
# $REALROOT_SCENARIO_TMP/wheels.sha256 ("NAME VERSION FILE SHA256" lines).
# The 7.2 (legacy) torch ships torch/lib/libhsa-runtime64.so* as AMD's legacy
# wheels do, unless --legacy-bundled-hsa=no; --no-kernels builds every torch
# without this GPU's architecture (is_available() True, kernels fail).
pytorch_www() {
  local www=$REALROOT_SCENARIO_TMP/www sums=$REALROOT_SCENARIO_TMP/wheels.sha256 bundled=(--bundled-hsa) extra=() a
  for a in "$@"; do
    case $a in
      --legacy-bundled-hsa=yes) bundled=(--bundled-hsa) ;;
      --legacy-bundled-hsa=no) bundled=() ;;
      --no-kernels) extra+=(--no-kernels) ;;
      *) fail "pytorch_www: unknown option $a" ;;
    esac
  done
  mkdir -p "$www"
  : >"$sums"
  ln -sfn "$TESTREPO_ROCDXG_DIR/v$TESTREPO_ROCDXG_VERSION" "$www/v$TESTREPO_ROCDXG_VERSION"
  local specs rows_722 rows_72
  rows_722=$(pytorch_rocm_wheels 7.2.2)
  rows_72=$(pytorch_rocm_wheels 7.2)
  mapfile -t specs < <(_wheel_specs "$PYTORCH_CP" <<<"$rows_722")
  fake_wheels --folder manylinux/rocm-rel-7.2.2 --index manylinux/simple-7.2.2 "${extra[@]}" "$www" "${specs[@]}" >>"$sums"
  mapfile -t specs < <(_wheel_specs "$PYTORCH_CP" <<<"$rows_72")
  fake_wheels --folder manylinux/rocm-rel-7.2 --index manylinux/simple-7.2 "${bundled[@]}" "${extra[@]}" "$www" "${specs[@]}" >>"$sums"
  local cuda_manifest=${PYTORCH_CUDA_MANIFEST:-$REALROOT_LIB_DIR/../../manifests/pytorch-cuda.toml}
  [[ -f $cuda_manifest ]] && grep -qF "$PYTORCH_CUDA_TORCH" "$cuda_manifest" ||
    fail "pytorch_www: manifests/pytorch-cuda.toml does not name torch $PYTORCH_CUDA_TORCH for $PYTORCH_CUDA_INDEX: update PYTORCH_CUDA_WHEELS in tests/realroot/wheels.sh"
  mapfile -t specs < <(_wheel_specs "$PYTORCH_CP" <<<"$PYTORCH_CUDA_WHEELS")
  fake_wheels --folder "whl/$PYTORCH_CUDA_INDEX" --index "whl/$PYTORCH_CUDA_INDEX" "${extra[@]}" "$www" "${specs[@]}" >>"$sums"
  # cu126, the row doctor names for Pascal and Volta: the same torch release
  # built for CUDA 12.6, its torchvision and torchaudio pinning that build.
  mapfile -t specs < <(_wheel_specs "$PYTORCH_CP" <<<"${PYTORCH_CUDA_WHEELS//+$PYTORCH_CUDA_INDEX/+cu126}")
  fake_wheels --folder whl/cu126 --index whl/cu126 "${extra[@]}" "$www" "${specs[@]}" >>"$sums"
  # PyPI: NumPy 1.26.4 (what AMD's 6.x wheels need) and a NumPy 2.
  fake_wheels --folder pypi/files --index pypi "$www" numpy 1.26.4 "$PYTORCH_CP" numpy 2.1.0 "$PYTORCH_CP" >>"$sums"
  chmod -R a+rX "$www"
  serve_https "$www"
}

# wheel_sha256 FILE-PREFIX: the SHA-256 of the one served wheel whose file
# name starts with FILE-PREFIX (such as "torch-2.9.1+rocm7.2.2").
wheel_sha256() {
  local hits
  hits=$(awk -v p="$1" 'index($3, p) == 1 { print $4 }' "$REALROOT_SCENARIO_TMP/wheels.sha256")
  [[ -n $hits && $(wc -l <<<"$hits") == 1 ]] || fail "wheel_sha256: not one wheel named $1*: $hits"
  printf '%s\n' "$hits"
}

# pytorch_rocm_args RELEASE [ARG...]: the options that point `install
# pytorch` on an AMD root at the test repository's ROCm RELEASE (7.2.2 or
# 7.2) and at the fake wheels (call pytorch_www first), one per line, then ARG...
pytorch_rocm_args() {
  local release=$1
  shift
  case $release in
    7.2.2) rocm7_profile_args ;;
    7.2) rocm72_profile_args ;;
    *) fail "pytorch_rocm_args: the test repository has no ROCm $release" ;;
  esac
  printf '%s\n' --set "torch_wheel_repo=$HTTPS_URL/manylinux" --set "torch_cp=$PYTORCH_CP" \
    --set "torch_python=$PYTORCH_PYTHON" --set "pypi_index=$HTTPS_URL/pypi" "$@"
}

# pytorch_core_wheels RELEASE: the wheels that manifests/pytorch-rocm.toml's
# torch-core step asks AMD's whl-next index for on the ROCm Core SDK
# RELEASE (10.0.0), "NAME VERSION" per line: rocm at RELEASE, and torch,
# torchvision and torchaudio at the [matrix.rocm_version."RELEASE"] row's
# torch_core_version, torchvision_core_version and torchaudio_core_version
# (read with the host's python3, tomllib), torch with the local version
# +rocmRELEASE as AMD's are. A release without a torch_core_version fails;
# one whose torchvision or torchaudio the row leaves open is not served.
pytorch_core_wheels() {
  local manifest=${PYTORCH_ROCM_MANIFEST:-$REALROOT_LIB_DIR/../../manifests/pytorch-rocm.toml}
  [[ -f $manifest ]] || fail "pytorch_core_wheels: $manifest does not exist"
  python3 - "$manifest" "$1" <<'PY' || fail "pytorch_core_wheels: manifests/pytorch-rocm.toml has no torch_core_version for ROCm $1"
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    row = tomllib.load(f).get("matrix", {}).get("rocm_version", {}).get(sys.argv[2], {})
if not row.get("torch_core_version"):
    sys.exit(1)
print("rocm", sys.argv[2])
print("torch", row["torch_core_version"] + "+rocm" + sys.argv[2])
for name in ("torchvision", "torchaudio"):
    if row.get(name + "_core_version"):
        print(name, row[name + "_core_version"])
PY
}

# pytorch_core_www [--without NAME]...: builds a stand-in for AMD's whl-next
# index in $REALROOT_SCENARIO_TMP/www/rocm/whl-next/ (PEP 503; the wheels in
# rocm/whl-files/), serves it with librocdxg's .deb under v1.2.2/
# (serve_https: $HTTPS_URL, which core_profile_args needs too) and records
# every wheel's SHA-256 in $REALROOT_SCENARIO_TMP/wheels.sha256. The Core
# SDK 10.0.0 set of pytorch_core_wheels, built with --rocm-sdk
# (tests/support/fake_wheels.py): rocm 10.0.0 (Provides-Extra libraries,
# device-gfx1100, device-all) needing rocm-sdk-core (the runtime, librocdxg
# in it) and, by extra, rocm-sdk-libraries and rocm-sdk-device-gfx1100 or
# rocm-sdk-device-all; a torch that needs rocm[libraries] and, by its
# device-TARGET extra, rocm[device-TARGET], and runs kernels only with that
# target's device wheel in the venv; torchvision and torchaudio pinning it;
# NumPy for torchvision (the index serves the dependencies, as whl-next
# does). --without NAME leaves NAME out of the index.
pytorch_core_www() {
  local www=$REALROOT_SCENARIO_TMP/www sums=$REALROOT_SCENARIO_TMP/wheels.sha256 without=() specs release=10.0.0
  while (($#)); do
    case $1 in
      --without) without+=("$2"); shift 2 ;;
      *) fail "pytorch_core_www: unknown option $1" ;;
    esac
  done
  mkdir -p "$www"
  ln -sfn "$TESTREPO_ROCDXG_DIR/v$TESTREPO_ROCDXG_VERSION" "$www/v$TESTREPO_ROCDXG_VERSION"
  mapfile -t specs < <({
    pytorch_core_wheels "$release"
    printf '%s\n' "rocm-sdk-core $release" "rocm-sdk-libraries $release" "rocm-sdk-device-$TESTREPO_CORE_GFX $release" \
      "rocm-sdk-device-all $release" "numpy 2.1.0"
  } | awk -v skip=" ${without[*]} " -v cp="$PYTORCH_CP" 'NF == 2 && index(skip, " " $1 " ") == 0 { print $1; print $2; print cp }')
  fake_wheels --rocm-sdk --folder rocm/whl-files --index rocm/whl-next "$www" "${specs[@]}" >"$sums"
  chmod -R a+rX "$www"
  serve_https "$www"
}

# pytorch_core_args [ARG...]: the options that point `install pytorch` on an
# AMD root at the test repository's ROCm Core SDK 10.0.0 (core_profile_args:
# rocm_gfx=gfx1100) and at the stand-in whl-next index (call
# pytorch_core_www first), one per line, then ARG... The roots are Debian
# 12, whose Python (3.11) no [matrix.torch_cp] row names: torch_cp=cp311,
# torch_python=3.11.
pytorch_core_args() {
  core_profile_args --set "rocm_whl_index=$HTTPS_URL/rocm/whl-next/" --set "torch_cp=$PYTORCH_CP" \
    --set "torch_python=$PYTORCH_PYTHON" "$@"
}

# pytorch_cuda_args [ARG...]: the same for an NVIDIA root (cuda_driver_args
# and the fake download.pytorch.org index; pytorch-cuda has no torch_cp or
# pypi_index: the index serves the dependencies too).
pytorch_cuda_args() {
  cuda_driver_args
  printf '%s\n' --set "torch_index_base=$HTTPS_URL/whl" --set "torch_python=$PYTORCH_PYTHON" "$@"
}

# as_user_login CMD: CMD as the test user through a login shell (what a
# user's terminal runs: /etc/profile.d included); its output in LAST_OUTPUT
# and the log, its status returned.
as_user_login() {
  local status=0
  LAST_OUTPUT=$(in_root runuser -l "$REALROOT_USER" -c "$1" 2>&1) || status=$?
  sed 's/^/  | /' <<<"$LAST_OUTPUT" >&2
  return "$status"
}

# torch_smoke [VENV]: the smoke test in the venv, as the user through a
# login shell. Status and output as as_user_login.
torch_smoke() {
  as_user_login "${1:-$PYTORCH_VENV}/bin/python -c '$PYTORCH_SMOKE'"
}

# assert_owned_by_user DIR: every file of DIR (DIR too) belongs to the test user.
assert_owned_by_user() {
  [[ -d $ROOT$1 ]] || fail "$1 does not exist"
  local others
  others=$(find "$ROOT$1" ! -user 1000 -printf '%u:%g %p\n' | head -20)
  [[ -z $others ]] || fail "files in $1 not owned by $REALROOT_USER:"$'\n'"$others"
}

# trace_python: every start of the root's Python from now on is logged
# (trace_commands over the interpreter itself, which /usr/bin/python3 and
# every venv's bin/python lead to); traced_calls python3.11 lists them.
trace_python() {
  local real
  real=$(readlink -f "$ROOT/usr/bin/python3")
  trace_commands "${real##*/}"
  # The interpreter may run as the user: the log must take their lines too.
  chmod 0666 "$ROOT/run/wslgpu-trace/calls"
  PYTHON_TRACED=${real##*/}
}

# untrace_python: the root's interpreter itself again. Started through the
# wrapper, Python takes /run/wslgpu-trace/NAME.real for its executable and
# no longer sees the venv it was started from (pip's undo would then find
# no pip), so nothing after the traced run may keep it.
untrace_python() { untrace_commands "$PYTHON_TRACED"; }

# root_as_amd_machine: the root's driver mount becomes an AMD machine's
# (AMD's driver store, no NVIDIA stubs), so that `install pytorch` picks
# pytorch-rocm as `install` picks rocm.
root_as_amd_machine() {
  chmod 0755 "$ROOT/usr/lib/wsl/lib"
  rm -f "$ROOT"/usr/lib/wsl/lib/libcuda.so* "$ROOT/usr/lib/wsl/lib/nvidia-smi" "$ROOT"/usr/lib/wsl/lib/libnvidia-ml.so*
  rm -rf "$ROOT"/usr/lib/wsl/drivers/nv_dispi.inf_*
  mkdir -p "$ROOT/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b"
  printf 'fake amdxc64.so: AMD user-mode driver, recorded for tests\n' \
    >"$ROOT/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b/amdxc64.so"
  chmod 0555 "$ROOT/usr/lib/wsl/lib"
}

# wheel_url_re NAME VERSION: an extended regular expression for the wheel's
# file name as a plan may print it (the "+" as is or as %2B).
wheel_url_re() {
  local v=${2//./\\.}
  printf '%s-%s-%s-%s-' "$1" "${v//+/(\\+|%2B)}" "$PYTORCH_CP" "$PYTORCH_CP"
}

# pytorch_converged_offline PROFILE-ARGS...: with no network (network_off)
# and every start of the root's Python and apt recorded, `plan pytorch
# --detailed-exitcode` exits 0: converged, read from the venv's files
# without starting Python, and without apt.
pytorch_converged_offline() { profile_converged_offline pytorch "$@"; }

# profile_converged_offline PROFILE PROFILE-ARGS...: the same for any
# profile with a Python layer (pytorch, tensorflow, jax, onnxruntime).
profile_converged_offline() {
  local profile=$1 calls
  shift
  network_off
  trace_python
  trace_commands apt-get apt-cache
  tool --root "$ROOT" "$@" plan "$profile" --detailed-exitcode
  assert_status 0 "plan $profile --detailed-exitcode after the install, with no network (converged)"
  calls=$(traced_calls "$PYTHON_TRACED")
  [[ -z $calls ]] || fail "the converged plan started Python:"$'\n'"$calls"
  calls=$(traced_calls apt-get; traced_calls apt-cache)
  [[ -z $calls ]] || fail "the converged plan called apt:"$'\n'"$calls"
  untrace_python
  untrace_commands apt-get apt-cache
}

# newest_transaction: the id of the newest transaction in the root's history.
newest_transaction() {
  tool --root "$ROOT" history --output json >/dev/null
  jq -r 'map(.id) | max' <<<"$TOOL_OUT"
}

# pytorch_rollback_to SNAPSHOT: rolls back the one transaction of history and
# compares the root with SNAPSHOT (the tool's state folder left out).
pytorch_rollback_to() {
  local id
  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 1 "the number of transactions in history"
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after-rollback" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$1" "$REALROOT_SCENARIO_TMP/after-rollback" "rollback left the root different from before the install"
  [[ ! -e $ROOT$PYTORCH_VENV ]] || fail "rollback left the venv $PYTORCH_VENV"
}

# await_growing_download PID PART OUT ERR: waits (at most 150 s) until the
# partial file PART of the tool running as PID exists and has grown once,
# then sets GROWN_TO to its size. Fails, with the tool's output files OUT
# and ERR, when the tool ends first or the file never grows.
await_growing_download() {
  local pid=$1 part=$2 out=$3 err=$4 i seen= now=
  for ((i = 0; i < 1500; i++)); do
    kill -0 "$pid" 2>/dev/null ||
      fail "the install ended before the download of $part was seen growing:"$'\n'"$(cat "$out" "$err")"
    now=$(stat -c %s -- "$part" 2>/dev/null || true)
    if [[ -n $now && $now -gt 0 ]]; then
      if [[ -z $seen ]]; then
        seen=$now
      elif ((now > seen)); then
        GROWN_TO=$now
        say "the partial file grew from $seen to $now bytes"
        return 0
      fi
    fi
    sleep 0.1
  done
  kill -KILL "$pid" || true
  fail "the partial file $part was not seen growing within 150 s (sizes: ${seen:-none}):"$'\n'"$(cat "$out" "$err")"
}
