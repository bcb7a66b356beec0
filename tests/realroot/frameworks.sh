# tests/realroot/frameworks.sh: fake TensorFlow, JAX and ONNX Runtime wheels
# for the frameworks-* scenarios (sourced by lib.sh, after wheels.sh, whose
# as_user_login, assert_owned_by_user, trace_python and newest_transaction
# they use). The wheels are built at test time by
# tests/support/fake_framework_wheels.py (docs/testing.md, "Fake framework
# wheels"), never downloaded, and served over the root's loopback HTTPS
# server as one PEP 503 index like PyPI's:
#   $HTTPS_URL/pypi/   every framework, the nvidia-* wheels, onnx and NumPy (pypi_index)

REALROOT_FAKE_FRAMEWORK_WHEELS=$REALROOT_LIB_DIR/../support/fake_framework_wheels.py
REALROOT_FRAMEWORK_MANIFESTS=$REALROOT_LIB_DIR/../../manifests
# The profiles' venvs (${host.user_home}/.venvs/NAME) for the test user.
TF_VENV=/home/$REALROOT_USER/.venvs/tensorflow
JAX_VENV=/home/$REALROOT_USER/.venvs/jax
ORT_VENV=/home/$REALROOT_USER/.venvs/onnxruntime

# The nvidia-* wheels, one version each, that satisfy both tensorflow
# [and-cuda]'s ranges and jax-cuda12-plugin[with-cuda]'s floors (the
# versions of the CUDA 12.5 / cuDNN 9 wheels on PyPI; cuDNN 9.8 for JAX),
# and the CUDA 13 ones of jax-cuda13-plugin[with-cuda].
FRAMEWORKS_NVIDIA_CU12='nvidia-cublas-cu12 12.5.3.2
nvidia-cuda-cupti-cu12 12.5.82
nvidia-cuda-nvcc-cu12 12.6.85
nvidia-cuda-nvrtc-cu12 12.5.82
nvidia-cuda-runtime-cu12 12.5.82
nvidia-cudnn-cu12 9.8.0.87
nvidia-cufft-cu12 11.2.3.61
nvidia-curand-cu12 10.3.6.82
nvidia-cusolver-cu12 11.6.3.83
nvidia-cusparse-cu12 12.5.1.3
nvidia-nccl-cu12 2.25.1
nvidia-nvjitlink-cu12 12.5.82'
FRAMEWORKS_NVIDIA_CU13='nvidia-cublas 13.0.0.19
nvidia-cuda-runtime 13.0.48
nvidia-cudnn-cu13 9.12.0.46
nvidia-cufft 12.0.0.15
nvidia-cusolver 12.0.3.29
nvidia-cusparse 12.6.2.49
nvidia-nccl-cu13 2.27.7
nvidia-nvjitlink 13.0.39'

# fake_framework_wheels ARGS...: tests/support/fake_framework_wheels.py, with the host's python3.
fake_framework_wheels() { python3 "$REALROOT_FAKE_FRAMEWORK_WHEELS" "$@"; }

# framework_manifest_value PROFILE KEY [SELECTOR ROW]: KEY of
# manifests/PROFILE.toml's [vars], or of its [matrix.SELECTOR."ROW"] row,
# read with the host's python3 (tomllib), so that the fakes carry the
# versions the profile asks for. A key that is not there fails, saying so.
framework_manifest_value() {
  local manifest=$REALROOT_FRAMEWORK_MANIFESTS/$1.toml
  [[ -f $manifest ]] || fail "framework_manifest_value: $manifest does not exist"
  python3 - "$manifest" "$2" "${3:-}" "${4:-}" <<'PY' || fail "framework_manifest_value: manifests/$1.toml has no $2${3:+ in [matrix.$3.\"$4\"]}"
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    m = tomllib.load(f)
table = m.get("matrix", {}).get(sys.argv[3], {}).get(sys.argv[4], {}) if sys.argv[3] else m.get("vars", {})
value = table.get(sys.argv[2], "")
if value == "":
    sys.exit(1)
print(value)
PY
}

# framework_wheel_list: "NAME VERSION" lines of every fake the index serves:
# tensorflow at tensorflow-cuda's tf_version, onnxruntime-gpu at
# onnxruntime-cuda's 3.12 row, jax, jaxlib and the plugin with its pjrt of
# each jax-cuda row that `auto` takes on these roots (0.11.2-cuda13 from
# driver 580, 0.11.0-cuda12 below it), onnx, NumPy and the nvidia-* wheels.
framework_wheel_list() {
  local tf ort row jax cuda
  tf=$(framework_manifest_value tensorflow-cuda tf_version)
  ort=$(framework_manifest_value onnxruntime-cuda ort_version ort_python 3.12)
  printf '%s\n' "tensorflow $tf" "onnxruntime-gpu $ort" "onnx 1.18.0" "numpy 2.1.0"
  for row in 0.11.2-cuda13 0.11.0-cuda12; do
    jax=$(framework_manifest_value jax-cuda jax_version jax_build "$row")
    cuda=$(framework_manifest_value jax-cuda jax_cuda jax_build "$row")
    printf '%s\n' "jax $jax" "jaxlib $jax" "jax-$cuda-plugin $jax" "jax-$cuda-pjrt $jax"
  done | sort -u
  printf '%s\n' "$FRAMEWORKS_NVIDIA_CU12" "$FRAMEWORKS_NVIDIA_CU13"
}

# frameworks_www [--hollow NAME]... [--without NAME]...: builds the fakes of
# framework_wheel_list as $REALROOT_SCENARIO_TMP/www/pypi (a PEP 503 index,
# files in pypi/files), serves it (serve_https: $HTTPS_URL) and records every
# wheel's SHA-256 in $REALROOT_SCENARIO_TMP/wheels.sha256. --hollow NAME
# builds NAME's wheel without its library (nvidia-cudnn-cu12 without
# libcudnn.so.9); --without NAME leaves the wheel out of the index.
frameworks_www() {
  local www=$REALROOT_SCENARIO_TMP/www sums=$REALROOT_SCENARIO_TMP/wheels.sha256 opts=() without=() specs
  while (($#)); do
    case $1 in
      --hollow) opts+=(--hollow "$2"); shift 2 ;;
      --without) without+=("$2"); shift 2 ;;
      *) fail "frameworks_www: unknown option $1" ;;
    esac
  done
  mkdir -p "$www"
  mapfile -t specs < <(framework_wheel_list | awk -v skip=" ${without[*]} " -v cp="$PYTORCH_CP" \
    'NF == 2 && index(skip, " " $1 " ") == 0 { print $1; print $2; print cp }')
  fake_framework_wheels --folder pypi/files --index pypi "${opts[@]}" "$www" "${specs[@]}" >"$sums"
  chmod -R a+rX "$www"
  serve_https "$www"
}

# framework_args PROFILE [ARG...]: the options that point `install PROFILE`
# (tensorflow, jax or onnxruntime) on an NVIDIA root at the test
# cuda-driver layer (cuda_driver_args) and at the fake index, with
# Debian 12's Python 3.11 for the profile's Python columns, one per line,
# then ARG...: tf_python; ort_python with the 3.12 row's ort_version (the
# 1.26 line has 3.11 wheels too); jax_python, and jax_ubuntu_min and
# jax_ubuntu_max (Debian's "12"), which --set keeps over the rows' columns,
# so that jax_build=auto still chooses the plugin from the driver.
framework_args() {
  local profile=$1
  shift
  [[ -n ${HTTPS_URL:-} ]] || fail "framework_args: call frameworks_www first"
  cuda_driver_args
  printf '%s\n' --set "pypi_index=$HTTPS_URL/pypi"
  case $profile in
    tensorflow) printf '%s\n' --set "tf_python=$PYTORCH_PYTHON" ;;
    onnxruntime) printf '%s\n' --set "ort_python=$PYTORCH_PYTHON" \
      --set "ort_version=$(framework_manifest_value onnxruntime-cuda ort_version ort_python 3.12)" ;;
    jax) printf '%s\n' --set "jax_python=$PYTORCH_PYTHON" --set "jax_ubuntu_min=12" --set "jax_ubuntu_max=12" ;;
    *) fail "framework_args: no framework profile $profile" ;;
  esac
  (($# == 0)) || printf '%s\n' "$@"
}

# framework_smoke PROFILE [VENV]: the smoke check of manifests/PROFILE-cuda.toml,
# its Python code exactly, run in VENV (default: the profile's) as the user
# through a login shell, from a file in the root's /tmp. Status and output
# as as_user_login.
framework_smoke() {
  local profile=$1 venv=${2:-}
  case $profile in
    tensorflow) venv=${venv:-$TF_VENV} ;;
    jax) venv=${venv:-$JAX_VENV} ;;
    onnxruntime) venv=${venv:-$ORT_VENV} ;;
    *) fail "framework_smoke: no framework profile $profile" ;;
  esac
  python3 - "$REALROOT_FRAMEWORK_MANIFESTS/$profile-cuda.toml" >"$ROOT/tmp/$profile-smoke.py" <<'PY' || fail "framework_smoke: no smoke check in manifests/$profile-cuda.toml"
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    steps = tomllib.load(f)["step"]
# The shell command of the check: the argument after "-c" (the venv
# follows it, as the login shell's $0).
command = [s for s in steps if s["kind"] == "check"][0]["command"]
check = command[command.index("-c") + 1]
code = check.split('python" -c "', 1)[1].rsplit('"', 1)[0]
print(code.replace('\\"', '"'))
PY
  chmod 0644 "$ROOT/tmp/$profile-smoke.py"
  as_user_login "$venv/bin/python /tmp/$profile-smoke.py"
}


# framework_rollback_to SNAPSHOT VENV: rolls back the one transaction of
# history (the network as it is: the scenarios call it after
# profile_converged_offline, with the server down) and compares the root
# with SNAPSHOT (the tool's state folder left out); VENV is gone whole.
framework_rollback_to() {
  local id
  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 1 "the number of transactions in history"
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after-rollback" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$1" "$REALROOT_SCENARIO_TMP/after-rollback" "rollback left the root different from before the install"
  [[ ! -e $ROOT$2 ]] || fail "rollback left the venv $2"
}

# framework_site VENV: the venv's site-packages (Debian 12's Python 3.11).
framework_site() { printf '%s/lib/python%s/site-packages\n' "$1" "$PYTORCH_PYTHON"; }
