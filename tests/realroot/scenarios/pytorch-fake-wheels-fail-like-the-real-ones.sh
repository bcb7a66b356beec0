# The fake PyTorch wheels (tests/support/fake_wheels.py) themselves, without
# the tool: the root's own `python3 -m venv` and pip, as the test user,
# install them over the loopback HTTPS server (a find-links folder like
# repo.radeon.com's, PEP 503 indexes like download.pytorch.org's and PyPI's)
# and from file: paths, and the fake torch then fails the way the real one
# does, deciding from the root it runs in. Each condition is shown both
# ways, so that none of the pytorch-* scenarios' checks can pass by accident:
#   ROCm, legacy WSL runtime: False while torch/lib/libhsa-runtime64.so* is
#     there (and kernels fail with "no kernel image"), True once removed;
#   ROCm, librocdxg: False without HSA_ENABLE_DXG_DETECTION=1, True with it;
#   ROCm, no runtime at all: False; no /dev/dxg: False, no device;
#   a lightweight (.lw) ROCm wheel without /opt/rocm/lib/libroctx64.so.4
#     (ROCm's full userspace): import torch fails with an ImportError;
#   CUDA: True with /usr/lib/wsl/lib/libcuda.so.1, False without, and False
#     while nvidia-smi's driver supports an older CUDA than the wheel's;
#   a wheel without the GPU's architecture: True, and kernels fail.

scenario() {
  with_root fakes_install_with_pip_and_fail_like_the_real_ones
}


# py VENV CODE [ENV...]: CODE in VENV's Python as the user (a login shell),
# with ENV (NAME=VALUE words) set; output in LAST_OUTPUT.
py() {
  local venv=$1 code=$2
  shift 2
  as_user_login "${*:+env $* }$venv/bin/python -c '$code'"
}

# available VENV WANT [ENV...]: torch.cuda.is_available() is WANT.
available() {
  local venv=$1 want=$2
  shift 2
  py "$venv" 'import torch; print(torch.cuda.is_available(), torch.cuda._why_not())' "$@" ||
    fail "import torch failed in $venv"
  assert_eq "${LAST_OUTPUT%% *}" "$want" "torch.cuda.is_available() (${*:-no extra environment}; why not: ${LAST_OUTPUT#* })"
}

fakes_install_with_pip_and_fail_like_the_real_ones() {
  local LEGACY_TORCH=2.9.1+rocm7.2.0.lw.git7e1940d4
  local www=$REALROOT_SCENARIO_TMP/www rocm=/home/alice/v-rocm cuda=/home/alice/v-cuda nok=/home/alice/v-nok
  mkdir -p "$www"
  fake_wheels --folder manylinux/rocm-rel-7.2 --bundled-hsa "$www" \
    torch "$LEGACY_TORCH" cp311 torchvision 0.24.0+rocm7.2.0.gitb919bd0c cp311 \
    torchaudio 2.9.0+rocm7.2.0.gite3c6ee2b cp311 triton 3.5.1+rocm7.2.0.gita272dfa8 cp311 >"$www/sums"
  fake_wheels --folder whl/cu130 --index whl/cu130 "$www" torch 2.9.1+cu130 cp311 torchvision 0.24.1+cu130 cp311 \
    triton 3.5.1 cp311 >>"$www/sums"
  fake_wheels --folder pypi/files --index pypi "$www" numpy 1.26.4 cp311 numpy 2.1.0 cp311 >>"$www/sums"
  fake_wheels --folder nok --no-kernels "$www" torch 2.9.1+cu130 cp311 >>"$www/sums"
  chmod -R a+rX "$www"
  # The wheels are what PEP 427 names them, with the "+" of the local version.
  assert_contains "$(cat "$www/sums")" 'torch-2\.9\.1\+rocm7\.2\.0\.lw\.git7e1940d4-cp311-cp311-linux_x86_64\.whl [0-9a-f]{64}$' "the wheels written"
  assert_contains "$(cat "$www/whl/cu130/torch/index.html")" \
    '<a href="\.\./torch-2\.9\.1%2Bcu130-cp311-cp311-manylinux_2_28_x86_64\.whl#sha256=[0-9a-f]{64}">' "the cu130 index"
  serve_https "$www"

  # ---- ROCm (legacy wheels, find-links over HTTPS, NumPy from the index)
  expect_status 0 in_root runuser -u alice -- python3 -m venv "$rocm"
  as_user_login "$rocm/bin/pip install --no-cache-dir --find-links $HTTPS_URL/manylinux/rocm-rel-7.2/ --index-url $HTTPS_URL/pypi/ torch torchvision torchaudio" ||
    fail "pip could not install the fake ROCm wheels over HTTPS"
  as_user_login "$rocm/bin/pip list --format=freeze"
  assert_contains "$LAST_OUTPUT" '^torch==2\.9\.1\+rocm7\.2\.0\.lw\.git7e1940d4$' "pip list"
  assert_contains "$LAST_OUTPUT" '^triton==3\.5\.1\+rocm7\.2\.0\.gita272dfa8$' "pip list (torch's triton)"
  assert_contains "$LAST_OUTPUT" '^numpy==2\.1\.0$' "pip list (torchvision's numpy, from the index)"
  local lib=$rocm/lib/python3.11/site-packages/torch/lib
  [[ -f $ROOT$lib/libhsa-runtime64.so && -f $ROOT$lib/libhsa-runtime64.so.1 ]] || fail "the legacy torch did not bring torch/lib/libhsa-runtime64.so*"
  # A lightweight (.lw) wheel needs ROCm's full userspace in /opt/rocm.
  if py "$rocm" 'import torch'; then fail "a .lw torch imported without ROCm's full userspace"; fi
  assert_contains "$LAST_OUTPUT" 'ImportError: libroctx64\.so\.4: cannot open shared object file' "import torch without libroctx64.so.4"
  mkdir -p "$ROOT/opt/rocm/lib"
  : >"$ROOT/opt/rocm/lib/libroctx64.so.4"
  py "$rocm" 'import torch; print(torch.__version__, torch.version.hip, torch.version.cuda)'
  assert_eq "$LAST_OUTPUT" "2.9.1+rocm7.2.0.git7e1940d4 7.2.0 None" "torch.__version__ (no .lw), version.hip, version.cuda"

  # No ROCm runtime at all.
  available "$rocm" False
  # The legacy WSL runtime, from the test repository's own packages.
  expect_status 0 in_root dpkg -i /srv/testrepo/pool/rocm-core_6.4.2.1-1_all.deb /srv/testrepo/pool/hsa-runtime-rocr4wsl-amdgpu_6.4.2.1-1_all.deb
  available "$rocm" False
  assert_contains "$LAST_OUTPUT" 'shadows the WSL runtime' "why not"
  if torch_smoke "$rocm"; then fail "the smoke test passed with the bundled runtime in torch/lib"; fi
  assert_contains "$LAST_OUTPUT" 'RuntimeError: HIP error: no kernel image is available for execution on the device' "the smoke test"
  rm "$ROOT$lib/libhsa-runtime64.so"
  available "$rocm" False
  rm "$ROOT$lib/libhsa-runtime64.so.1"
  available "$rocm" True
  torch_smoke "$rocm" || fail "the smoke test failed on the legacy runtime without the bundled one"
  assert_eq "$LAST_OUTPUT" $'True\nAMD Radeon RX 7900 XTX\nsmoke ok 16777216.0' "the smoke test's output"
  # librocdxg: the runtime loads it only when asked to.
  : >"$ROOT/opt/rocm/lib/librocdxg.so"
  available "$rocm" False
  assert_contains "$LAST_OUTPUT" 'HSA_ENABLE_DXG_DETECTION' "why not"
  available "$rocm" False HSA_ENABLE_DXG_DETECTION=0
  available "$rocm" True HSA_ENABLE_DXG_DETECTION=1

  # ---- CUDA (a PEP 503 index over file:, as a copy inside the root)
  cp -a "$www" "$ROOT/tmp/www"
  expect_status 0 in_root runuser -u alice -- python3 -m venv "$cuda"
  as_user_login "$cuda/bin/pip install --no-cache-dir --index-url file:///tmp/www/whl/cu130 --extra-index-url file:///tmp/www/pypi torch torchvision" ||
    fail "pip could not install the fake CUDA wheels from a file: index"
  as_user_login "$cuda/bin/pip list --format=freeze"
  assert_contains "$LAST_OUTPUT" '^torch==2\.9\.1\+cu130$' "pip list"
  assert_contains "$LAST_OUTPUT" '^triton==3\.5\.1$' "pip list"
  py "$cuda" 'import torch; print(torch.version.cuda, torch.version.hip)'
  assert_eq "$LAST_OUTPUT" "13.0 None" "torch.version.cuda, version.hip"
  # The WSL layer's nvidia-smi says CUDA 12.7: too old a driver for cu130.
  available "$cuda" False
  assert_contains "$LAST_OUTPUT" 'The NVIDIA driver on your system is too old \(found version 12070\)' "why not"
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  available "$cuda" True
  torch_smoke "$cuda" || fail "the CUDA smoke test failed with the WSL stubs"
  assert_contains "$LAST_OUTPUT" '^smoke ok 16777216\.0$' "the CUDA smoke test"
  # A wheel without this GPU's architecture: available, and kernels fail.
  expect_status 0 in_root runuser -u alice -- python3 -m venv "$nok"
  as_user_login "$nok/bin/pip install --no-cache-dir --no-deps --no-index --find-links /tmp/www/nok torch" || fail "pip could not install the --no-kernels torch"
  available "$nok" True
  if torch_smoke "$nok"; then fail "the smoke test passed with a wheel built without kernels"; fi
  assert_contains "$LAST_OUTPUT" 'RuntimeError: CUDA error: no kernel image is available for execution on the device' "the smoke test"
  mv "$ROOT/usr/lib/wsl/lib/libcuda.so.1" "$ROOT/usr/lib/wsl/lib/libcuda.so.1.moved"
  available "$cuda" False
  mv "$ROOT/usr/lib/wsl/lib/libcuda.so.1.moved" "$ROOT/usr/lib/wsl/lib/libcuda.so.1"

  # ---- No /dev/dxg: no GPU for either build.
  rm "$ROOT/dev/dxg"
  available "$cuda" False
  available "$rocm" False HSA_ENABLE_DXG_DETECTION=1
  if torch_smoke "$rocm"; then fail "the smoke test passed without /dev/dxg"; fi
  assert_contains "$LAST_OUTPUT" 'RuntimeError: No HIP GPUs are available' "the smoke test without /dev/dxg"
}
