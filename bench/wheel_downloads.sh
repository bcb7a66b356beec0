#!/usr/bin/env bash
# bench/wheel_downloads.sh: the wheel set download of a Python layer against
# `pip download`, and what resuming after Ctrl-C saves (issue 54, item 4;
# docs/performance.md, "Wheel set downloads"). Root is not needed:
#
#   bench/wheel_downloads.sh
#
# Why: NVIDIA's CUDA PyTorch is some 4 GB in sixteen wheels, and a CDN gives
# each connection a share of its bandwidth, not the link's. The tool fetches
# four wheels at once (steps/python/wheel_fetch.hpp, kWheelDownloadJobs);
# pip fetches one after the other. This measures what that is worth, and
# what a run stopped halfway keeps for the next one.
#
# What it does, in a work folder under /var/tmp (/tmp may be a small tmpfs),
# removed at the end:
#   1  makes a set of about BENCH_WHEELS_GB of wheels named and sized like
#      torch 2.9.1+cu130's (torch ~2.5 GB, cuDNN ~700 MB, cuBLAS ~500 MB and
#      thirteen smaller ones): valid zips with a real dist-info, so pip takes
#      them, around one big stored member of repeated random bytes (nothing
#      compresses on the wire, so random enough is random)
#   2  serves them on 127.0.0.1 with bench/throttled_server.py, at
#      BENCH_RATE_MBPS per connection, with a PEP 503 index for pip
#   3  times bench/wheel_set_download.cpp (the tool's download_set() and
#      helper, alone) on the set, 4 at a time
#   4  times `pip download` of the same wheels from a fresh venv of the
#      system's python3 (the venv's creation is not timed)
#   5  starts ours again on an empty folder, sends SIGINT once half the
#      set's bytes are on disk, times how long it takes to stop (the issue
#      asks for under a second) and checks that it exits 130, then times the
#      run that finishes the set
# Every file of each run is checked against its SHA-256. It prints figures
# and never fails on one: only a broken setup (a build or a download that
# fails, a wrong hash) stops it.
#
# Environment:
#   BENCH_WHEELS_GB=4       size of the set (GB, 10^9 bytes)
#   BENCH_RATE_MBPS=40      the server's limit per connection (MB/s, 10^6 bytes)
#   WHEEL_SET_DOWNLOAD, WSLGPU_FETCH   the two programs; when both are given
#                           nothing is built, else both are built in
#                           BENCH_BUILD=/var/tmp/wslgpu-bench-build (Release)
#   BENCH_WORK_PARENT=/var/tmp   where the work folder is made
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# The system's python3: the venv for pip comes from it, and a pyenv shim
# would add its own start-up and may lack venv.
PY=/usr/bin/python3

die() {
  printf 'wheel_downloads: %s\n' "$*" >&2
  exit 1
}
say() { printf 'wheel_downloads: %s\n' "$*" >&2; }
now() { date +%s.%N; }
# elapsed START [END]: seconds between two now()s, 2 decimals.
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.2f", b - a }'; }

GB=${BENCH_WHEELS_GB:-4}
RATE_MBPS=${BENCH_RATE_MBPS:-40}
[[ $GB =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_WHEELS_GB must be a number of GB, not $GB"
[[ $RATE_MBPS =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_RATE_MBPS must be a number of MB/s, not $RATE_MBPS"
[[ -x $PY ]] || die "$PY is missing (apt-get install python3 python3-venv)"
$PY -c 'import ensurepip, venv' 2>/dev/null || die "$PY has no venv module (apt-get install python3-venv)"

# ---------------------------------------------------------------- programs
if [[ -n ${WHEEL_SET_DOWNLOAD:-} && -n ${WSLGPU_FETCH:-} ]]; then
  say "using $WHEEL_SET_DOWNLOAD and $WSLGPU_FETCH as given"
else
  build=${BENCH_BUILD:-/var/tmp/wslgpu-bench-build}
  say "building wheel_set_download and wslgpu-setup-fetch in $build (Release)"
  [[ -f $build/build.ninja ]] || cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2 ||
    die "cmake cannot configure $build"
  cmake --build "$build" --target wheel_set_download wslgpu-setup-fetch >&2 || die "the build failed"
  WHEEL_SET_DOWNLOAD=$build/wheel_set_download WSLGPU_FETCH=$build/wslgpu-setup-fetch
fi
[[ -x $WHEEL_SET_DOWNLOAD ]] || die "$WHEEL_SET_DOWNLOAD is not an executable"
[[ -x $WSLGPU_FETCH ]] || die "$WSLGPU_FETCH is not an executable"
export WSLGPU_FETCH

# ---------------------------------------------------------------- work folder
work=$(mktemp -d "${BENCH_WORK_PARENT:-/var/tmp}/wslgpu-wheel-bench.XXXXXX")
server_pid='' ours_pid=''
cleanup() {
  [[ -z $ours_pid ]] || kill "$ours_pid" 2>/dev/null || true
  [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/wheels"

# A free port, asked of the kernel.
port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# ---------------------------------------------------------------- 1 the set
say "making about $GB GB of wheels in $work/wheels"
started=$(now)
$PY - "$work/wheels" "$GB" "http://127.0.0.1:$port" >"$work/list" <<'EOF'
# Writes the wheels, DIR/SHA256SUMS, DIR/REQUIREMENTS (NAME==VERSION, for
# pip) and, on standard output, the list wheel_set_download reads.
import base64, hashlib, os, sys, urllib.parse, zipfile

directory, gb, base = sys.argv[1], float(sys.argv[2]), sys.argv[3]
NV = "py3-none-manylinux_2_27_x86_64"
# (distribution, version, tags, MB at a 4 GB set, the big member's path):
# torch 2.9.1+cu130's set, sizes rounded so that they add up to 4,000 MB.
SET = [
    ("torch", "2.9.1+cu130", "cp311-cp311-manylinux_2_28_x86_64", 2500, "torch/lib/libtorch_cuda.so"),
    ("nvidia_cudnn_cu13", "9.13.0.50", NV, 700, "nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9"),
    ("nvidia_cublas_cu13", "13.0.0.19", NV, 500, "nvidia/cublas/lib/libcublasLt.so.13"),
    ("nvidia_nccl_cu13", "2.27.7", "py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64", 60,
     "nvidia/nccl/lib/libnccl.so.2"),
    ("nvidia_cusparse_cu13", "12.6.2.49", NV, 50, "nvidia/cusparse/lib/libcusparse.so.12"),
    ("nvidia_cufft_cu13", "12.0.0.15", NV, 40, "nvidia/cufft/lib/libcufft.so.12"),
    ("nvidia_cusolver_cu13", "12.0.3.29", NV, 35, "nvidia/cusolver/lib/libcusolver.so.12"),
    ("nvidia_cusparselt_cu13", "0.8.0", "py3-none-manylinux2014_x86_64", 30,
     "nvidia/cusparselt/lib/libcusparseLt.so.0"),
    ("triton", "3.5.1", "cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64", 25,
     "triton/backends/nvidia/lib/libtriton.so"),
    ("nvidia_curand_cu13", "10.4.0.35", NV, 20, "nvidia/curand/lib/libcurand.so.10"),
    ("nvidia_nvshmem_cu13", "3.3.24", "py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64", 15,
     "nvidia/nvshmem/lib/libnvshmem_host.so.3"),
    ("nvidia_cufile_cu13", "1.15.0.42", NV, 8, "nvidia/cufile/lib/libcufile.so.0"),
    ("nvidia_nvjitlink_cu13", "13.0.39", NV, 8, "nvidia/nvjitlink/lib/libnvJitLink.so.13"),
    ("nvidia_cuda_nvrtc_cu13", "13.0.48", NV, 5, "nvidia/cuda_nvrtc/lib/libnvrtc.so.13"),
    ("nvidia_cuda_cupti_cu13", "13.0.48", NV, 3, "nvidia/cuda_cupti/lib/libcupti.so.13"),
    ("nvidia_cuda_runtime_cu13", "13.0.48", NV, 1, "nvidia/cuda_runtime/lib/libcudart.so.13"),
]
CHUNK = 1 << 20


def record_hash(digest):
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(path, name, version, tags, size, member):
    """A wheel pip accepts: METADATA, WHEEL and RECORD around one stored
    member of SIZE bytes, written a MiB at a time."""
    block = os.urandom(CHUNK)  # one random MiB per wheel, repeated
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        info = zipfile.ZipInfo(member, date_time=(2025, 11, 12, 0, 0, 0))
        info.external_attr = 0o755 << 16
        h = hashlib.sha256()
        with z.open(info, "w", force_zip64=True) as out:
            left = size
            while left > 0:
                piece = block if left >= CHUNK else block[:left]
                out.write(piece)
                h.update(piece)
                left -= len(piece)
        record.append("%s,%s,%d" % (member, record_hash(h.digest()), size))
        dist_info = "%s-%s.dist-info" % (name, version)
        project = name.replace("_", "-")
        small = {
            "METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: a stand-in of the same size "
                        "for wslgpu-setup's download benchmark\nRequires-Python: >=3.9\n" % (project, version),
            "WHEEL": "Wheel-Version: 1.0\nGenerator: wslgpu-setup bench\nRoot-Is-Purelib: false\n"
                     + "".join("Tag: %s-%s-%s\n" % (tags.split("-")[0], tags.split("-")[1], p)
                               for p in tags.split("-")[2].split(".")),
        }
        for file_name, text in small.items():
            data = text.encode()
            z.writestr(dist_info + "/" + file_name, data)
            record.append("%s/%s,%s,%d" % (dist_info, file_name, record_hash(hashlib.sha256(data).digest()),
                                           len(data)))
        record.append(dist_info + "/RECORD,,")
        z.writestr(dist_info + "/RECORD", "\n".join(record) + "\n")


total_mb = sum(entry[3] for entry in SET)
sums, requirements = [], []
for name, version, tags, mb, member in SET:
    size = int(mb * gb * 1e9 / total_mb)
    file_name = "%s-%s-%s.whl" % (name, version, tags)
    path = os.path.join(directory, file_name)
    write_wheel(path, name, version, tags, size, member)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            h.update(chunk)
    sums.append("%s  %s\n" % (h.hexdigest(), file_name))
    requirements.append("%s==%s\n" % (name.replace("_", "-"), version))
    # Quoted as download.pytorch.org writes its URLs: torch-2.9.1%2Bcu130-….
    print("%s/files/%s %s %d" % (base, urllib.parse.quote(file_name), h.hexdigest(), os.path.getsize(path)))
with open(os.path.join(directory, "SHA256SUMS"), "w") as f:
    f.writelines(sums)
with open(os.path.join(directory, "REQUIREMENTS"), "w") as f:
    f.writelines(requirements)
EOF
# %.0f, not %d: Debian's mawk prints %d as a 32-bit integer (2147483647).
total=$(awk '{ s += $3 } END { printf "%.0f", s }' "$work/list")
files=$(wc -l <"$work/list")
say "made $files wheels, $total bytes, in $(elapsed "$started") s"

# check_set DIR WHAT: every wheel of the list is in DIR with its SHA-256.
check_set() {
  (cd "$1" && sha256sum --quiet --strict -c "$work/wheels/SHA256SUMS") >&2 ||
    die "$2: a file is missing or has the wrong SHA-256 (above)"
  local extra
  extra=$(find "$1" -maxdepth 1 -type f ! -name '*.whl' | head -3)
  [[ -z $extra ]] || die "$2 left files that are not wheels: $extra"
}

# ---------------------------------------------------------------- 2 the server
rate=$(awk -v r="$RATE_MBPS" 'BEGIN { printf "%.0f", r * 1e6 }')
$PY "$here/throttled_server.py" "$work/wheels" "$port" "$rate" &
server_pid=$!
for _ in $(seq 100); do
  $PY -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
    "http://127.0.0.1:$port/simple/" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || die "the server did not start"
  sleep 0.1
done

# ---------------------------------------------------------------- 3 ours
say "ours: wheel_set_download, 4 at a time, at $RATE_MBPS MB/s per connection"
started=$(now)
"$WHEEL_SET_DOWNLOAD" "$work/list" "$work/ours" 4 >&2 || die "wheel_set_download failed"
ours_s=$(elapsed "$started")
check_set "$work/ours" "wheel_set_download"
rm -rf "$work/ours"

# ---------------------------------------------------------------- 4 pip
say "pip: a venv of $PY ($($PY --version 2>&1)), then pip download"
$PY -m venv "$work/venv" >&2 || die "$PY -m venv failed"
pip_version=$("$work/venv/bin/pip" --version | awk '{ print $2 }')
say "pip: pip $pip_version"
mapfile -t requirements <"$work/wheels/REQUIREMENTS"
started=$(now)
# The platform options make pip take the cp311 manylinux wheels whatever
# python3 this machine has. Each manylinux tag of the set is named: pip
# 23.0.1 takes a --platform as it is, not the older manylinux ones under it
# (its `pip debug --verbose` lists them). PIP_CONFIG_FILE=/dev/null keeps a
# user's pip.conf (another index, a proxy) out of it.
PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" download --no-deps \
  --only-binary=:all: --no-cache-dir --progress-bar off -q \
  --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -i "http://127.0.0.1:$port/simple" --trusted-host 127.0.0.1 -d "$work/pip" "${requirements[@]}" >&2 ||
  die "pip download failed"
pip_s=$(elapsed "$started")
check_set "$work/pip" "pip download"
rm -rf "$work/pip" "$work/venv"

# ---------------------------------------------------------------- 5 resume
say "resume: ours again, stopped with SIGINT at half the set's bytes"
half=$((total / 2))
started=$(now)
"$WHEEL_SET_DOWNLOAD" "$work/list" "$work/resume" 4 >&2 &
ours_pid=$!
on_disk=0
while kill -0 "$ours_pid" 2>/dev/null; do
  on_disk=$(du -sb "$work/resume" 2>/dev/null | cut -f1) || on_disk=0
  ((on_disk < half)) || break
  sleep 0.1
done
signalled=$(now)
first_s=$(elapsed "$started" "$signalled")
kill -INT "$ours_pid" 2>/dev/null || die "wheel_set_download finished before half the set was on disk"
status=0
wait "$ours_pid" || status=$?
stop_s=$(elapsed "$signalled")
ours_pid=
((status == 130)) || die "after SIGINT, wheel_set_download exited $status, not 130"
kept=$(du -sb "$work/resume" | cut -f1)
parts=$(find "$work/resume" -name '*.part' | wc -l)
started=$(now)
"$WHEEL_SET_DOWNLOAD" "$work/list" "$work/resume" 4 >&2 || die "wheel_set_download failed to resume"
resume_s=$(elapsed "$started")
check_set "$work/resume" "the resumed wheel_set_download"

# ---------------------------------------------------------------- figures
mbps() { awk -v b="$total" -v s="$1" 'BEGIN { printf "%.1f", b / 1e6 / s }'; }
gb=$(awk -v b="$total" 'BEGIN { printf "%.2f", b / 1e9 }')
printf '\nWheel set: %d files, %s GB, served at %s MB/s per connection; %s, %d cores\n' \
  "$files" "$gb" "$RATE_MBPS" "$(date -u +%Y-%m-%d)" "$(nproc)"
printf '%-44s %9s %9s\n' "" "seconds" "MB/s"
printf '%-44s %9s %9s\n' "ours (wheel_set_download, 4 at a time)" "$ours_s" "$(mbps "$ours_s")"
printf '%-44s %9s %9s\n' "pip download (pip $pip_version, one at a time)" "$pip_s" "$(mbps "$pip_s")"
printf '%-44s %9s\n' "pip's time / ours" "$(awk -v p="$pip_s" -v o="$ours_s" 'BEGIN { printf "%.2fx", p / o }')"
printf '%-44s %9s\n' "SIGINT sent after ($(awk -v k="$on_disk" -v t="$total" \
  'BEGIN { printf "%.0f %%", 100 * k / t }') of the bytes on disk)" "$first_s"
printf '%-44s %9s\n' "time to stop after SIGINT (exit 130)" "$stop_s"
printf '%-44s %9s\n' "kept for the next run ($parts .part files)" \
  "$(awk -v k="$kept" 'BEGIN { printf "%.2f GB", k / 1e9 }')"
printf '%-44s %9s\n' "the run that resumed" "$resume_s"
printf '%-44s %9s\n' "saved against a run from nothing" \
  "$(awk -v o="$ours_s" -v r="$resume_s" 'BEGIN { printf "%.2f", o - r }')"
# What stopping cost in all: both runs and the stop against one whole run
# (near 0 when nothing fetched is fetched again; noise can make it negative).
printf '%-44s %9s\n' "lost to the stop (both runs - a whole run)" \
  "$(awk -v f="$first_s" -v x="$stop_s" -v r="$resume_s" -v o="$ours_s" 'BEGIN { printf "%.2f", f + x + r - o }')"
