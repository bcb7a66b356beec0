# tests/realroot/testrepo.sh: the local apt repository of test packages,
# built at test time (sourced by lib.sh).
#
# Over 700 lines on purpose: the repository is one thing built once per run
# (one Packages index, one signed Release), and each test package's
# definition stands beside the trap it is named for in the list below.
#
# Packages are named like the vendors' real ones, so that profiles and guards
# meet the names they will meet on a real machine, but hold only small files
# and scripts. The traps are what the guards exist for:
#   rocm-dkms -> amdgpu-dkms         the package the source document warns about
#   rocm-extras -> amdgpu-dkms       a harmless-looking name that pulls a DKMS package in
#   cuda -> cuda-drivers -> nvidia-driver-550   NVIDIA's "never install these under WSL"
#   broken-postinst                   its postinst exits 1, so dpkg fails mid-install
# And two for what a real ROCm install is like:
#   slow-postinst                     its postinst waits (up to 60 s) until /run/slow-postinst.release
#                                     exists, after touching /run/slow-postinst.started: a signal
#                                     can be sent while dpkg is busy
#   huge-package                      a few bytes that say Installed-Size 2 GB, for the disk-space guard
#   zeros-package                     says Installed-Size 1 KiB but unpacks a 150 MB file of zeros
#                                     (a few hundred bytes in the pool): the disk-space guard lets
#                                     it through, and dpkg fills a small root while unpacking it
#   slow-postrm                       its postrm waits (up to 60 s) until /run/slow-postrm.release
#                                     exists, after touching /run/slow-postrm.started: a rollback
#                                     that is busy for as long as a scenario needs
#
# The repository is signed with a key generated for the run (an InRelease
# and a Release.gpg), so that Signed-By and key checks run for real. Layout:
#   dists/bookworm/{Release,InRelease,Release.gpg}, dists/bookworm/main/binary-ARCH/Packages{,.gz}
#   pool/*.deb, key.asc (ASCII-armoured public key), key.gpg (binary),
#   other-key.asc (a key that signed nothing: for wrong-key tests);
#   $TESTREPO_KEY_FINGERPRINT and $TESTREPO_OTHER_KEY_FINGERPRINT hold their
#   fingerprints, which the profiles' *_key_fingerprint variables take
# Inside a test root it is mounted read-only at /srv/testrepo.
#
# The same signed packages are also published in AMD's layout, which the
# bundled rocm profile's URIs assume (a test points the profile here with
# --set rocm_repo=$TESTREPO_ROCM_REPO --set amdgpu_repo=$TESTREPO_AMDGPU_REPO):
#   rocm/apt/6.4.2.1/dists/bookworm/...        ${rocm_repo}/${rocm_version}, suite = codename, component main
#   amdgpu/6.4.2.1/ubuntu/dists/bookworm/...   ${amdgpu_repo}/${rocm_version}/ubuntu
# split as AMD splits them: the amdgpu repository holds the driver side (the
# WSL runtime, amdgpu-dkms, amdgpu-install), the rocm one the ROCm packages.
# Each has its own signed Release (same key, Origin and suite); its pool/ is
# a relative symlink to the repository's.
# And a second ROCm release in AMD's 7.x layout, the one the bundled rocm
# profile's default row (7.2.2, librocdxg) points at: the amdgpu repository
# is versioned separately and there is a graphics repository, as
# amdgpu-install writes them for 7.2.2 (rocm.toml's 7.2.2 row):
#   rocm/apt/7.2.2/dists/bookworm/...          ${rocm_repo}/${rocm_version}
#   amdgpu/30.30.2/ubuntu/dists/bookworm/...   ${amdgpu_repo}/${amdgpu_dir}/ubuntu
#   graphics/7.2.1/ubuntu/dists/bookworm/...   ${graphics_repo}/${graphics_dir}/ubuntu
# Its packages are in pool/amd7/ and in none of the 6.4.2.1 indexes (nor the
# main one), with AMD's 7.x version strings (rocm 7.2.2.70202-1): rocm and
# rocm-dev upgrade from 6.4.2.1 to 7.2.2, the standard runtime hsa-rocr
# instead of the WSL one, a rocminfo that, like the real 7.2.x one, finds no
# GPU without librocdxg and HSA_ENABLE_DXG_DETECTION=1, and
# libdrm-amdgpu-amdgpu1 (amdgpu repository) needing libdrm-amdgpu-common
# (graphics repository), so that an install reads all three sources.
# librocdxg itself is no apt package (ROCm/librocdxg publishes a GitHub
# release .deb): rocdxg-roct_1.2.2_amd64.deb is built outside every index,
# at librocdxg/releases/download/v1.2.2/ ($TESTREPO_ROCDXG_DIR, the layout of
# the profile's rocdxg_url), with its SHA-256 in $TESTREPO_ROCDXG_SHA256; a
# scenario serves it over HTTPS on the root's loopback (serve_https, lib.sh)
# with the certificate in tls/ (a CA made for the run, $TESTREPO_TLS_DIR).
# And ROCm 7.2.4, the last release in AMD's legacy packaging (rocm.toml's
# 7.2.4 row: librocdxg 1.2.2 and HSA_ENABLE_DXG_DETECTION=1 as 7.2.2), the
# 7.2.2 set again at 7.2.4.70204-1 in pool/amd724/, but laid out as AMD's
# legacy packaging lays out a release (/opt/rocm-7.2.4, and /opt/rocm an
# alternatives link to it made by rocm-core), in its own three indexes:
#   rocm/apt/7.2.4, amdgpu/30.30.4/ubuntu, graphics/7.2.3/ubuntu (there is no
#   graphics/7.2.4; the profile reuses 7.2.3)
# so that a switch from it to the Core SDK has a release of its own to leave
# (and to hide for an offline rollback) without touching 7.2.2's.
# And AMD's ROCm Core SDK (10.x, built by TheRock; AMD's 10.0 install page,
# os=wsl, and AMD's transition guide), in its deb822 layout:
#   amdrocm/core/packages/<os>/dists/stable/{Release,InRelease,Release.gpg},
#   .../dists/stable/main/binary-ARCH/Packages{,.gz}
# one folder per distribution the scenarios run on (host.distro_folder:
# debian12 for the bookworm roots, ubuntu2604 for forky dressed as 26.04),
# all indexing the same pool/core/, each Release saying Origin "AMD ROCm",
# Suite stable, as AMD's does (so the profile's default pin, o=AMD ROCm, is
# the one exercised), and signed by a key of its own made for the run (AMD
# signs it with D0F004A0…D5E02107, not repo.radeon.com's key;
# $TESTREPO_CORE_KEY_FINGERPRINT, the binary key alone in core-key.gpg,
# $TESTREPO_CORE_KEY_BINARY). That key is published at
# amdrocm/gpg/packages.gpg in AMD's shape: the binary key block FOLLOWED BY
# an ASCII-armoured copy of the same key ($TESTREPO_CORE_KEY). gpgv reads the
# binary packets, then stops at the armour's "-----" ("invalid packet
# (ctb=2d)"), so apt refuses the file as Signed-By as it is (sqv too, "Malformed
# certificate"): only its binary packets may be written to /etc/apt/keyrings.
# The packages (_define_core_packages), for 10.0 and 10.1:
#   amdrocm10.X-gfx1100 -> amdrocm-core10.X-gfx1100   one GPU target
#   amdrocm10.X -> amdrocm-core10.X                   every target, far larger
#                                                     (Installed-Size), conflicting
#                                                     with the one-target core
# files under /opt/rocm/core-10.X (bin/, lib/), and /opt/rocm/bin and
# /opt/rocm/lib made alternatives links to them by the core package's
# postinst (a stand-in: AMD does not publish the link names). 10.1 ships
# librocdxg.so in /opt/rocm/core-10.1/lib; 10.0 needs the rocdxg-roct .deb.
# Their rocminfo never reads HSA_ENABLE_DXG_DETECTION.
# And Ubuntu 26.04's own ROCm 7.1 (universe: libamdhip64-7 7.1.0 needing
# libhsa-runtime64-1), in an index of its own shaped like Ubuntu's archive
# (ubuntu/dists/resolute/universe, Origin Ubuntu; pool/ubuntu/), so that no
# other index offers a second libhsa-runtime64-1.
# And in NVIDIA's flat layout (`deb URI /`, Packages and a signed Release side
# by side) at cuda/repos/wsl-ubuntu/x86_64/, holding the CUDA traps and the
# toolkit releases of _define_cuda_packages, several versions of a name side
# by side as NVIDIA's repository keeps them.

TESTREPO_SUITE=bookworm
TESTREPO_COMPONENT=main
TESTREPO_ORIGIN=wslgpu-test
TESTREPO_URI=file:/srv/testrepo
TESTREPO_ROCM_VERSION=6.4.2.1
TESTREPO_ROCM_REPO=file:/srv/testrepo/rocm/apt
TESTREPO_AMDGPU_REPO=file:/srv/testrepo/amdgpu
TESTREPO_AMDGPU_PACKAGES=(hsa-runtime-rocr4wsl-amdgpu amdgpu-dkms amdgpu-install)
TESTREPO_ROCM_PACKAGES=(rocm-core rocminfo rocm-dev rocm rocm-dkms rocm-extras)
# The 7.x release (rocm.toml's 7.2.2 row: amdgpu/30.30.2, graphics/7.2.1),
# its packages, and the librocdxg .deb it pairs with.
TESTREPO_ROCM7_VERSION=7.2.2
TESTREPO_ROCM7_AMDGPU_DIR=30.30.2
TESTREPO_ROCM7_GRAPHICS_DIR=7.2.1
TESTREPO_GRAPHICS_REPO=file:/srv/testrepo/graphics
TESTREPO_ROCM7_ROCM_PACKAGES=(rocm-core hsa-rocr rocminfo rocm-dev rocm)
TESTREPO_ROCM7_AMDGPU_PACKAGES=(libdrm-amdgpu-amdgpu1 amdgpu-install)
TESTREPO_ROCM7_GRAPHICS_PACKAGES=(libdrm-amdgpu-common)
TESTREPO_ROCDXG_VERSION=1.2.2
# The last legacy release (rocm.toml's 7.2 row: amdgpu/30.30, graphics/7.2):
# the WSL runtime again, at 7.x versions, for the PyTorch scenarios' legacy
# wheels (rocm-rel-7.2).
TESTREPO_ROCM72_VERSION=7.2
TESTREPO_ROCM72_AMDGPU_DIR=30.30
TESTREPO_ROCM72_GRAPHICS_DIR=7.2
TESTREPO_ROCM72_ROCM_PACKAGES=(rocm-core rocminfo rocm-dev rocm)
TESTREPO_ROCM72_AMDGPU_PACKAGES=(hsa-runtime-rocr4wsl-amdgpu amdgpu-install)
TESTREPO_ROCM72_GRAPHICS_PACKAGES=(libdrm-amdgpu-common)
# The last release in AMD's legacy packaging (rocm.toml's 7.2.4 row:
# amdgpu/30.30.4, graphics/7.2.3), the 7.2.2 set at its versions, in
# /opt/rocm-7.2.4 with /opt/rocm an alternatives link to it.
TESTREPO_ROCM724_VERSION=7.2.4
TESTREPO_ROCM724_AMDGPU_DIR=30.30.4
TESTREPO_ROCM724_GRAPHICS_DIR=7.2.3
# AMD's ROCm Core SDK: the repository's base (the profile's rocm_core_repo
# is $TESTREPO_CORE_REPO_BASE/<folder>/), its folders, Suite and Origin,
# the releases (X.Y:VERSION; 10.0.0-4 as a third-party report shows it) and
# the GPU target of the one-target packages.
TESTREPO_CORE_BASE=amdrocm/core/packages
TESTREPO_CORE_REPO_BASE=file:/srv/testrepo/$TESTREPO_CORE_BASE
TESTREPO_CORE_FOLDERS=(debian12 ubuntu2604)
TESTREPO_CORE_SUITE=stable
TESTREPO_CORE_ORIGIN="AMD ROCm"
TESTREPO_CORE_RELEASES=(10.0:10.0.0-4 10.1:10.1.0-2)
TESTREPO_CORE_GFX=gfx1100
# AMD's key file, where AMD publishes it (under the repository's folder).
TESTREPO_CORE_KEY_PATH=amdrocm/gpg/packages.gpg
# Ubuntu 26.04's ROCm 7.1 (universe), for the 26.04 stand-in.
TESTREPO_UBUNTU_BASE=ubuntu
TESTREPO_UBUNTU_REPO=file:/srv/testrepo/$TESTREPO_UBUNTU_BASE
TESTREPO_UBUNTU_SUITE=resolute
TESTREPO_UBUNTU_PACKAGES=(libamdhip64-7 libhsa-runtime64-1)
# NVIDIA's flat wsl-ubuntu layout, for the bundled cuda profile
# (--set cuda_repo=$TESTREPO_CUDA_REPO).
TESTREPO_CUDA_BASE=cuda/repos/wsl-ubuntu/x86_64
TESTREPO_CUDA_REPO=file:/srv/testrepo/$TESTREPO_CUDA_BASE/
# The traps; _define_cuda_packages adds the toolkit releases.
TESTREPO_CUDA_PACKAGES=(cuda cuda-drivers nvidia-driver-550)
# Docker's repository (download.docker.com/linux/ubuntu: suite the codename,
# component stable), signed with the main key, and NVIDIA's container
# toolkit repository (nvidia.github.io/libnvidia-container: a flat
# stable/deb/ARCH, its key at gpgkey), signed with a key of its own shaped
# like NVIDIA's: a primary of 2017 that does not expire and can sign, and an
# old signing subkey that expired on 2021-06-16 ($TESTREPO_NVCT_KEY_FINGERPRINT,
# the key at $TESTREPO_NVCT_KEY). apt verifies with the primary.
TESTREPO_DOCKER_BASE=docker/linux/ubuntu
TESTREPO_DOCKER_REPO=file:/srv/testrepo/$TESTREPO_DOCKER_BASE
TESTREPO_DOCKER_PACKAGES=(containerd.io docker-ce-cli docker-ce docker-buildx-plugin docker-compose-plugin)
TESTREPO_NVCT_BASE=libnvidia-container
TESTREPO_NVCT_REPO=file:/srv/testrepo/$TESTREPO_NVCT_BASE
TESTREPO_NVCT_PACKAGES=(libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit-base nvidia-container-toolkit)

# _deb NAME VERSION DEPENDS DESCRIPTION: starts a package in $_stage/NAME
# (Architecture: $_arch when set, else all).
_deb() {
  local name=$1 version=$2 depends=$3 description=$4 dir=$_stage/$1
  mkdir -p "$dir/DEBIAN"
  {
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\n' "$name" "$version" "${_arch:-all}"
    printf 'Maintainer: wslgpu-setup tests <tests@wslgpu-setup.invalid>\nSection: misc\nPriority: optional\n'
    [[ -z $depends ]] || printf 'Depends: %s\n' "$depends"
    printf 'Description: %s\n Test package built by tests/realroot/testrepo.sh; it only looks like the real %s.\n' \
      "$description" "$name"
  } >"$dir/DEBIAN/control"
}
# _file NAME PATH MODE: a file of package NAME, its content from standard input.
_file() {
  local path=$_stage/$1$2
  mkdir -p "$(dirname "$path")"
  cat >"$path"
  chmod "$3" "$path"
}
# _script NAME postinst|prerm|...: a maintainer script from standard input.
_script() {
  cat >"$_stage/$1/DEBIAN/$2"
  chmod 0755 "$_stage/$1/DEBIAN/$2"
}

# _slow_package NAME SCRIPT DESCRIPTION: a package whose maintainer script
# SCRIPT (postinst, postrm) touches /run/NAME.started, then waits up to 60 s
# for /run/NAME.release: dpkg stays busy for as long as a scenario needs.
_slow_package() {
  local name=$1 script=$2
  _deb "$name" 1.0-1 "" "$3"
  printf 'installed by %s\n' "$name" | _file "$name" "/usr/share/$name/marker" 0644
  _script "$name" "$script" <<EOF
#!/bin/sh
touch /run/$name.started
i=0
while [ ! -e /run/$name.release ] && [ "\$i" -lt 600 ]; do
  sleep 0.1
  i=\$((i + 1))
done
EOF
}

# _seal NAME: files the staged package NAME under its version, so that the
# same name can be staged again at another version (test_repo builds every
# folder in the stage).
_seal() {
  local version
  version=$(awk '$1 == "Version:" { print $2 }' "$_stage/$1/DEBIAN/control")
  mv "$_stage/$1" "$_stage/$1_$version"
}

# NVIDIA's shape of one CUDA toolkit release X.Y (as in its wsl-ubuntu
# repository, much reduced): the meta package cuda-toolkit-X-Y needs the
# compiler and the release's config package, which owns the /usr/local/cuda
# alternative (the newest installed release wins) and needs the config
# packages all X.* and all releases share. Dependencies are exact (=), as
# AMD's meta packages have them, so that a version switch must move the set.
# _cuda_release X.Y VERSION
_cuda_release() {
  local release=$1 version=$2
  local major=${release%%.*} dash=${release/./-}
  local priority=$((major * 10 + ${release#*.}))
  _deb "cuda-toolkit-$dash-config-common" "$version" "cuda-toolkit-$major-config-common, cuda-toolkit-config-common" \
    "Common config package for CUDA Toolkit $release"
  _script "cuda-toolkit-$dash-config-common" postinst <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
  update-alternatives --install /usr/local/cuda cuda /usr/local/cuda-$release $priority
fi
EOF
  _script "cuda-toolkit-$dash-config-common" prerm <<EOF
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = deconfigure ]; then
  update-alternatives --remove cuda /usr/local/cuda-$release
fi
EOF
  _seal "cuda-toolkit-$dash-config-common"
  _deb "cuda-nvcc-$dash" "$version" "cuda-toolkit-$dash-config-common (= $version)" "CUDA nvcc $release"
  _file "cuda-nvcc-$dash" "/usr/local/cuda-$release/bin/nvcc" 0755 <<EOF
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release $release, V${version%-*}"
EOF
  _seal "cuda-nvcc-$dash"
  _deb "cuda-toolkit-$dash" "$version" "cuda-nvcc-$dash (= $version), cuda-toolkit-$dash-config-common (= $version)" \
    "CUDA Toolkit $release meta package"
  _seal "cuda-toolkit-$dash"
}

# The toolkit releases the cuda scenarios need: what `cuda_version = auto`
# picks for the recorded nvidia-smi outputs (CUDA 12.2, 12.7 and 13.1 ->
# 12.2, 12.6, 13.1), a 13.0 to ask for, and two builds of 12.6 for a
# version pinned with `versions`. They join the flat repository's index.
_define_cuda_packages() {
  _deb cuda-toolkit-config-common 13.1.80-1 "" "Common config package for CUDA Toolkit"
  _deb cuda-toolkit-12-config-common 12.9.79-1 "" "Common config package for CUDA Toolkit 12"
  _deb cuda-toolkit-13-config-common 13.1.80-1 "" "Common config package for CUDA Toolkit 13"
  local r
  for r in 12.2:12.2.2-1 12.6:12.6.2-1 12.6:12.6.3-1 13.0:13.0.2-1 13.1:13.1.1-1; do
    _cuda_release "${r%%:*}" "${r#*:}"
  done
  TESTREPO_CUDA_PACKAGES+=(cuda-toolkit-config-common cuda-toolkit-12-config-common cuda-toolkit-13-config-common
    cuda-toolkit-{12-2,12-6,13-0,13-1}{,-config-common} cuda-nvcc-{12-2,12-6,13-0,13-1})
}

# ROCm 7.2.2 in AMD's shape (much reduced), staged into $_stage like the
# rest and sealed under their versions; test_repo builds them into
# pool/amd7/. The same set at another 7.2.x release (7.2.4, into
# pool/amd724/) with RELEASE (7.2.4), its build number (70204) and the
# graphics repository's (70203: graphics/7.2.3), and PREFIX: where AMD's
# legacy packaging puts a release, /opt/rocm-7.2.4, /opt/rocm being an
# alternatives link to it that rocm-core's postinst makes (group rocm, as
# `update-alternatives --display rocm` shows on such a machine; the lead's
# rocm.toml and AMD's 10.0 install page rest on it: the Core SDK needs
# /opt/rocm as a folder). What installs into /opt/rocm afterwards (the
# rocdxg-roct .deb) lands in the release's folder through the link. 7.2.2
# keeps its files in /opt/rocm itself, as its scenarios were written for.
# _define_rocm7_packages [RELEASE BUILD GRAPHICS_BUILD PREFIX]
_define_rocm7_packages() {
  local release=${1:-7.2.2} b=${2:-70202} gb=${3:-70201} prefix=${4:-/opt/rocm} p
  local v=$release.$b-1
  _deb rocm-core "$v" "" "ROCm core: release information"
  printf '%s\n' "$release" | _file rocm-core "$prefix/.info/version" 0644
  if [[ $prefix != /opt/rocm ]]; then
    _script rocm-core postinst <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
  update-alternatives --install /opt/rocm rocm $prefix $b
fi
EOF
    _script rocm-core prerm <<EOF
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = deconfigure ]; then
  update-alternatives --remove rocm $prefix
fi
EOF
  fi
  _deb libdrm-amdgpu-common "1.0.0.$gb-1" "" "List of AMD/ATI cards' device IDs, revision IDs and marketing names"
  printf 'fake amdgpu.ids\n' | _file libdrm-amdgpu-common /opt/amdgpu/share/libdrm/amdgpu.ids 0644
  _deb libdrm-amdgpu-amdgpu1 "1:2.4.125.$b-1" "libdrm-amdgpu-common" "Userspace interface to amdgpu-specific kernel DRM services"
  printf 'fake libdrm_amdgpu\n' | _file libdrm-amdgpu-amdgpu1 /opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1 0644
  # The standard runtime: not the WSL build, and a file name of its own.
  _deb hsa-rocr "1.18.0.$b-1" "rocm-core, libdrm-amdgpu-amdgpu1" "AMD Heterogeneous System Architecture HSA runtime"
  printf 'fake libhsa-runtime64 (standard build, loads librocdxg)\n' |
    _file hsa-rocr "$prefix/lib/libhsa-runtime64.so.1.18.$b" 0644
  _deb rocminfo "1.0.0.$b-1" "rocm-core, hsa-rocr" "ROCm agent enumerator"
  # Without the dxg bridge (librocdxg) or HSA_ENABLE_DXG_DETECTION=1, 7.2.x
  # finds no GPU on WSL (../shared/SEED-NOTES.md: "No WDDM adapters found").
  {
    cat <<'EOS'
#!/bin/sh
if [ ! -e /dev/dxg ] || [ ! -f /opt/rocm/lib/librocdxg.so ] || [ "$HSA_ENABLE_DXG_DETECTION" != 1 ]; then
  echo "No WDDM adapters found."
  echo "hsa api call failure at: ./sources/rocminfo.cc:1306"
  echo "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
  exit 1
fi
cat <<'OUT'
=====================
HSA System Attributes
=====================
Runtime Version:         1.18
Runtime Ext Version:     1.11
EOS
    _rocminfo_agents
    printf 'OUT\n'
  } | _file rocminfo "$prefix/bin/rocminfo" 0755
  _deb rocm-dev "$v" "rocm-core (= $v), hsa-rocr (= 1.18.0.$b-1), rocminfo (= 1.0.0.$b-1)" "ROCm development meta package"
  # A library of the full userspace that AMD's lightweight (.lw) torch
  # wheels load from /opt/rocm (the fake torch fails to import without it).
  printf 'fake libroctx64\n' | _file rocm-dev "$prefix/lib/libroctx64.so.4" 0644
  _deb rocm "$v" "rocm-dev (= $v)" "ROCm meta package"
  _deb amdgpu-install "$v" "" "AMD GPU installer script"
  _file amdgpu-install /usr/bin/amdgpu-install 0755 <<EOS
#!/bin/sh
echo "amdgpu-install $release (test package): would install use cases: \$*"
EOS
  for p in rocm-core libdrm-amdgpu-common libdrm-amdgpu-amdgpu1 hsa-rocr rocminfo rocm-dev rocm amdgpu-install; do
    _seal "$p"
  done
}

# ROCm 7.2, the last legacy release, in AMD's shape (much reduced): the WSL
# runtime hsa-runtime-rocr4wsl-amdgpu (25.30.x, in the amdgpu repository),
# whose library says "(WSL build)" as the 6.4.2.1 one does, and ROCm 7.2.0
# packages; test_repo builds them into pool/amd72/, in no other index.
_define_rocm72_packages() {
  local v=7.2.0.70200-1 wsl=25.30.0.70200-1 p
  _deb rocm-core "$v" "" "ROCm core: release information"
  printf '7.2.0\n' | _file rocm-core /opt/rocm/.info/version 0644
  _deb hsa-runtime-rocr4wsl-amdgpu "$wsl" "rocm-core" "HSA runtime for ROCm on WSL"
  printf 'fake libhsa-runtime64 (WSL build) 25.30\n' | _file hsa-runtime-rocr4wsl-amdgpu /opt/rocm/lib/libhsa-runtime64.so.1 0644
  _deb rocminfo 1.0.0.70200-1 "rocm-core, hsa-runtime-rocr4wsl-amdgpu" "ROCm agent enumerator"
  _file rocminfo /opt/rocm/bin/rocminfo 0755 <<'EOS'
#!/bin/sh
if [ ! -e /dev/dxg ]; then
  echo "WSL environment detected."
  echo "hsa api call failure at: ./sources/rocminfo.cc:1306"
  exit 1
fi
printf 'WSL environment detected.\n  Name:                    gfx1100\n  Marketing Name:          AMD Radeon RX 7900 XTX\n  Device Type:             GPU\n'
EOS
  _deb rocm-dev "$v" "rocm-core (= $v), hsa-runtime-rocr4wsl-amdgpu (= $wsl), rocminfo (= 1.0.0.70200-1)" \
    "ROCm development meta package"
  printf 'fake libroctx64\n' | _file rocm-dev /opt/rocm/lib/libroctx64.so.4 0644
  _deb rocm "$v" "rocm-dev (= $v)" "ROCm meta package"
  _deb amdgpu-install "$v" "" "AMD GPU installer script"
  _deb libdrm-amdgpu-common 1.0.0.70200-1 "" "List of AMD/ATI cards' device IDs, revision IDs and marketing names"
  printf 'fake amdgpu.ids\n' | _file libdrm-amdgpu-common /opt/amdgpu/share/libdrm/amdgpu.ids 0644
  for p in rocm-core hsa-runtime-rocr4wsl-amdgpu rocminfo rocm-dev rocm amdgpu-install libdrm-amdgpu-common; do
    _seal "$p"
  done
}

# librocdxg's release .deb, named as ROCm/librocdxg names it
# (rocdxg-roct_<ver>_amd64.deb), installing what the profile checks:
# /opt/rocm/lib/librocdxg.so, where the runtime loads it from.
# No Depends: the real .deb's are not published, and the same .deb goes
# with ROCm 7.2.x (runtime hsa-rocr) and with the Core SDK 10.0 (AMD's 10.0
# install page, os=wsl), which has no package named hsa-rocr: a Depends on
# it would make dpkg refuse the .deb there. (Until the Core SDK it said
# hsa-rocr; no scenario leaned on it, the profile removes rocdxg-roct by
# name where a release does not want it.)
_define_rocdxg_package() {
  _deb rocdxg-roct "$TESTREPO_ROCDXG_VERSION" "" "ROCm DXG bridge for WSL (librocdxg)"
  sed -i 's/^Architecture: all$/Architecture: amd64/' "$_stage/rocdxg-roct/DEBIAN/control"
  printf 'fake librocdxg %s\n' "$TESTREPO_ROCDXG_VERSION" | _file rocdxg-roct /opt/rocm/lib/librocdxg.so 0644
}

# _rocminfo_agents: the agents a 7.x rocminfo stand-in lists when it finds
# the GPU (a Radeon RX 7900 XTX, gfx1100, beside the CPU), on standard
# output, for the legacy 7.2.x and the Core SDK stand-ins alike.
_rocminfo_agents() {
  cat <<'AGENTS'
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD Ryzen 9 7950X 16-Core Processor
  Device Type:             CPU
*******
Agent 2
*******
  Name:                    gfx1100
  Marketing Name:          AMD Radeon RX 7900 XTX
  Vendor Name:             AMD
  Device Type:             GPU
*** Done ***
AGENTS
}

# _core_rocminfo RELEASE LIBDIR...: the Core SDK's rocminfo (stand-in), on
# standard output: like 7.2.x's, no GPU without /dev/dxg or without
# librocdxg.so in one of the folders LIBDIR... where RELEASE's runtime
# looks; unlike it, HSA_ENABLE_DXG_DETECTION is never read (AMD's 10.0
# install page, os=wsl, sets no variable; from 10.1 the runtime detects
# /dev/dxg by default).
_core_rocminfo() {
  local release=$1
  shift
  cat <<EOS
#!/bin/sh
# rocminfo of the ROCm Core SDK $release (test stand-in): finds the GPU
# through librocdxg.so in: $*
found=""
for dir in $*; do
  if [ -f "\$dir/librocdxg.so" ]; then found=\$dir/librocdxg.so; break; fi
done
if [ ! -e /dev/dxg ] || [ -z "\$found" ]; then
  echo "No WDDM adapters found."
  echo "hsa api call failure at: rocminfo.cc:1306"
  echo "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
  exit 1
fi
cat <<OUT
ROCm Core SDK $release (dxg bridge: \$found)
=====================
HSA System Attributes
=====================
Runtime Version:         1.18
EOS
  _rocminfo_agents
  printf 'OUT\n'
}

# _core_runtime NAME RELEASE VERSION TARGETS DESCRIPTION: a core package of
# the Core SDK RELEASE (10.0): its files under /opt/rocm/core-RELEASE, and
# alternatives links under /opt/rocm (group amdrocm, a stand-in: AMD does
# not publish the names its meta package's update-alternatives uses):
# /opt/rocm/bin to its bin/, and /opt/rocm/lib/libamdhip64.so.7 to its
# library. /opt/rocm/lib stays a folder (the package ships it): a link
# there would alias the folder the rocdxg-roct .deb puts librocdxg.so in,
# and dpkg, removing that package, would delete the link and the file of
# whichever release it points to. A legacy /opt/rocm/bin folder left in
# place keeps the link from being made (update-alternatives does not
# replace a folder): AMD asks to remove ROCm 7.2.4 or older first.
_core_runtime() {
  local name=$1 release=$2 version=$3 targets=$4 prefix=/opt/rocm/core-$2 t
  local priority=${2/./} d=$_stage/$1/opt/rocm/core-$2
  _arch=amd64 _deb "$name" "$version" "" "$5"
  # Written with the shell's own redirections, not _file: the test
  # repository is built once per run, and these are many small files.
  mkdir -p "$_stage/$name/opt/rocm/lib" "$d/.info" "$d/bin" "$d/lib/rocblas/library"
  printf 'ROCm Core SDK %s (%s)\n' "$version" "$targets" >"$d/.info/version"
  printf 'fake libamdhip64.so.7 (ROCm Core SDK %s)\n' "$release" >"$d/lib/libamdhip64.so.7"
  printf 'fake libhsa-runtime64.so.1 (ROCm Core SDK %s)\n' "$release" >"$d/lib/libhsa-runtime64.so.1"
  for t in $targets; do
    printf 'fake code objects for %s\n' "$t" >"$d/lib/rocblas/library/TensileLibrary_$t.co"
  done
  case $release in
    # 10.1 ships librocdxg inside ROCm (AMD's transition guide); 10.0's
    # runtime also looks in /opt/rocm/lib, where the rocdxg-roct .deb puts it.
    10.0) _core_rocminfo "$release" /opt/rocm/lib "$prefix/lib" >"$d/bin/rocminfo" ;;
    *)
      _core_rocminfo "$release" "$prefix/lib" >"$d/bin/rocminfo"
      printf 'fake librocdxg (bundled with the ROCm Core SDK %s)\n' "$release" >"$d/lib/librocdxg.so"
      ;;
  esac
  chmod 0755 "$d/bin/rocminfo"
  _script "$name" postinst <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
  update-alternatives --install /opt/rocm/bin amdrocm $prefix/bin $priority \\
    --slave /opt/rocm/lib/libamdhip64.so.7 amdrocm-libamdhip64 $prefix/lib/libamdhip64.so.7
fi
EOF
  _script "$name" prerm <<EOF
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = deconfigure ]; then
  update-alternatives --remove amdrocm $prefix/bin
fi
EOF
}

# AMD's ROCm Core SDK releases (TESTREPO_CORE_RELEASES), much reduced:
# for each, the one-target packages for $TESTREPO_CORE_GFX and the
# all-target ones (far larger: its Installed-Size says 40 GB, a stand-in
# for "all GPU targets"); the two cores conflict, as both fill
# /opt/rocm/core-X.Y. test_repo builds them into pool/core/.
_define_core_packages() {
  local r release version gfx=$TESTREPO_CORE_GFX all="gfx90a gfx942 gfx1030 gfx1100 gfx1101 gfx1151 gfx1200 gfx1201"
  for r in "${TESTREPO_CORE_RELEASES[@]}"; do
    release=${r%%:*} version=${r#*:}
    _core_runtime "amdrocm-core$release-$gfx" "$release" "$version" "$gfx" "ROCm Core SDK $release runtime and libraries ($gfx)"
    printf 'Conflicts: amdrocm-core%s\nReplaces: amdrocm-core%s\n' "$release" "$release" >>"$_stage/amdrocm-core$release-$gfx/DEBIAN/control"
    _core_runtime "amdrocm-core$release" "$release" "$version" "$all" "ROCm Core SDK $release runtime and libraries (all GPU targets)"
    printf 'Conflicts: amdrocm-core%s-%s\nReplaces: amdrocm-core%s-%s\nInstalled-Size: 40000000\n' \
      "$release" "$gfx" "$release" "$gfx" >>"$_stage/amdrocm-core$release/DEBIAN/control"
    _arch=amd64 _deb "amdrocm$release-$gfx" "$version" "amdrocm-core$release-$gfx (= $version)" "ROCm Core SDK $release for $gfx"
    _arch=amd64 _deb "amdrocm$release" "$version" "amdrocm-core$release (= $version)" "ROCm Core SDK $release (all GPU targets)"
  done
}

# Ubuntu 26.04's own ROCm 7.1 (universe; packages.ubuntu.com, resolute):
# libamdhip64-7 needing libhsa-runtime64-1. libamdhip64.so.7 is the
# Core SDK's soname too. The versions' Debian revisions are not verified.
# test_repo builds them into pool/ubuntu/.
_define_ubuntu2604_packages() {
  _arch=amd64 _deb libhsa-runtime64-1 7.1.0-0ubuntu1 "" "HSA Runtime API and runtime for ROCm (Ubuntu's ROCm 7.1)"
  printf 'fake libhsa-runtime64 7.1.0 (Ubuntu)\n' |
    _file libhsa-runtime64-1 /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.15.0 0644
  ln -s libhsa-runtime64.so.1.15.0 "$_stage/libhsa-runtime64-1/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"
  _arch=amd64 _deb libamdhip64-7 7.1.0-0ubuntu1 "libhsa-runtime64-1 (>= 7.1.0)" "HIP runtime for AMD GPUs (Ubuntu's ROCm 7.1)"
  printf 'fake libamdhip64 7.1.0 (Ubuntu)\n' | _file libamdhip64-7 /usr/lib/x86_64-linux-gnu/libamdhip64.so.7.1.0 0644
  ln -s libamdhip64.so.7.1.0 "$_stage/libamdhip64-7/usr/lib/x86_64-linux-gnu/libamdhip64.so.7"
}

# The container engines and NVIDIA's container toolkit, in pool/ctr/ and in
# none of the other indexes: Docker's packages only in Docker's repository
# (docker/linux/ubuntu, component stable, as download.docker.com has them),
# NVIDIA's only in its flat libnvidia-container/stable/deb/ARCH repository,
# at three releases (1.20.1 and 1.20.0, so that the profile's floor of
# 1.20.0 is seen to take the newest; and 1.17.8, older than the 1.19.1 WSL
# needs),
# the four packages of a release depending on each other exactly, as
# NVIDIA's packaging/debian/control has them. The programs are the
# stand-ins in tests/realroot/standins/ (what each does is at its top).
_define_container_packages() {
  local standins=$REALROOT_LIB_DIR/standins v p
  for v in 1.20.1-1 1.20.0-1 1.17.8-1; do
    _deb libnvidia-container1 "$v" "" "NVIDIA container runtime library"
    printf 'fake libnvidia-container %s\n' "$v" | _file libnvidia-container1 /usr/lib/x86_64-linux-gnu/libnvidia-container.so.1 0644
    _deb libnvidia-container-tools "$v" "libnvidia-container1 (= $v)" "NVIDIA container runtime library (command-line tools)"
    printf '#!/bin/sh\necho "nvidia-container-cli: test stand-in" >&2\nexit 1\n' |
      _file libnvidia-container-tools /usr/bin/nvidia-container-cli 0755
    _deb nvidia-container-toolkit-base "$v" "" "NVIDIA Container Toolkit Base"
    _file nvidia-container-toolkit-base /usr/bin/nvidia-ctk 0755 <"$standins/nvidia-ctk"
    printf '#!/bin/sh\nexit 0\n' | _file nvidia-container-toolkit-base /usr/bin/nvidia-container-runtime 0755
    printf '#!/bin/sh\nexit 0\n' | _file nvidia-container-toolkit-base /usr/bin/nvidia-cdi-hook 0755
    # What the real postinst writes with `nvidia-ctk config --in-place`,
    # shipped as a conffile here so that a purge leaves nothing behind.
    printf '#accept-nvidia-visible-devices-as-volume-mounts = false\n[nvidia-container-runtime]\nmode = "auto"\n' |
      _file nvidia-container-toolkit-base /etc/nvidia-container-runtime/config.toml 0644
    printf '/etc/nvidia-container-runtime/config.toml\n' >"$_stage/nvidia-container-toolkit-base/DEBIAN/conffiles"
    _deb nvidia-container-toolkit "$v" "nvidia-container-toolkit-base (= $v), libnvidia-container-tools (= $v)" \
      "NVIDIA Container toolkit"
    printf '#!/bin/sh\nexit 0\n' | _file nvidia-container-toolkit /usr/bin/nvidia-container-runtime-hook 0755
    for p in libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit-base nvidia-container-toolkit; do
      _seal "$p"
    done
  done
  local d=5:28.5.1-1~debian.12~bookworm
  _deb containerd.io 1.7.28-1 "" "An open and reliable container runtime"
  printf '#!/bin/sh\nexit 0\n' | _file containerd.io /usr/bin/containerd 0755
  _deb docker-ce-cli "$d" "" "Docker CLI: the open-source application container engine"
  _file docker-ce-cli /usr/bin/docker 0755 <"$standins/docker"
  _deb docker-ce "$d" "containerd.io (>= 1.7.27), docker-ce-cli" "Docker: the open-source application container engine"
  printf '#!/bin/sh\nexit 0\n' | _file docker-ce /usr/bin/dockerd 0755
  _deb docker-buildx-plugin 0.29.1-1~debian.12~bookworm "" "Docker Buildx cli plugin."
  printf 'fake buildx\n' | _file docker-buildx-plugin /usr/libexec/docker/cli-plugins/docker-buildx 0755
  _deb docker-compose-plugin 2.40.3-1~debian.12~bookworm "" "Docker Compose (V2) plugin for the Docker CLI."
  printf 'fake compose\n' | _file docker-compose-plugin /usr/libexec/docker/cli-plugins/docker-compose 0755
}

_define_test_packages() {
  local rocm=6.4.2.1-1
  _deb rocm-core "$rocm" "" "ROCm core: release information"
  printf '6.4.2.1\n' | _file rocm-core /opt/rocm/.info/version 0644

  # The distribution's Podman (Ubuntu 24.04 has 4.9.3): CDI needs 4.1.0.
  _deb podman 4.9.3+ds1-1 "" "tool to manage containers and pods"
  _file podman /usr/bin/podman 0755 <"$REALROOT_LIB_DIR/standins/podman"

  _deb hsa-runtime-rocr4wsl-amdgpu "$rocm" "rocm-core" "HSA runtime for ROCm on WSL"
  printf 'fake libhsa-runtime64 (WSL build)\n' | _file hsa-runtime-rocr4wsl-amdgpu /opt/rocm/lib/libhsa-runtime64.so.1 0644

  _deb rocminfo "$rocm" "rocm-core" "ROCm agent enumerator"
  # Prints what rocminfo prints on WSL with a Radeon RX 7900 XTX; without
  # /dev/dxg it fails the way the real one does.
  _file rocminfo /opt/rocm/bin/rocminfo 0755 <<'EOF'
#!/bin/sh
if [ ! -e /dev/dxg ]; then
  echo "WSL environment detected."
  echo "hsa api call failure at: ./sources/rocminfo.cc:1306"
  echo "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
  exit 1
fi
cat <<'OUT'
WSL environment detected.
ROCk module is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.1
Runtime Ext Version:     1.6
System Timestamp Freq.:  1000.000000MHz
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD Ryzen 9 7950X 16-Core Processor
  Vendor Name:             CPU
  Device Type:             CPU
*******
Agent 2
*******
  Name:                    gfx1100
  Marketing Name:          AMD Radeon RX 7900 XTX
  Vendor Name:             AMD
  Device Type:             GPU
  Compute Unit:            96
*** Done ***
OUT
EOF

  _deb rocm-dev "$rocm" "rocm-core (= $rocm), hsa-runtime-rocr4wsl-amdgpu (= $rocm), rocminfo (= $rocm)" \
    "ROCm development meta package"
  _deb rocm "$rocm" "rocm-dev (= $rocm)" "ROCm meta package"

  _deb amdgpu-install 6.4.60402-1 "" "AMD GPU installer script"
  _file amdgpu-install /usr/bin/amdgpu-install 0755 <<'EOF'
#!/bin/sh
echo "amdgpu-install (test package): would install use cases: $*"
EOF

  _deb cuda-keyring 1.1-1 "" "NVIDIA CUDA archive keyring"
  printf 'fake cuda-archive-keyring\n' | _file cuda-keyring /usr/share/keyrings/cuda-archive-keyring.gpg 0644

  _define_cuda_packages

  # The traps.
  _deb amdgpu-dkms 1:6.12.12.60402-2164967.22.04 "" "amdgpu kernel driver (DKMS)"
  printf 'PACKAGE_NAME="amdgpu"\nPACKAGE_VERSION="6.12.12"\n' | _file amdgpu-dkms /usr/src/amdgpu-6.12.12/dkms.conf 0644
  _deb rocm-dkms "$rocm" "rocm-dev (= $rocm), amdgpu-dkms" "ROCm with the amdgpu kernel driver"
  _deb rocm-extras "$rocm" "rocm-core, amdgpu-dkms" "Extra ROCm tools and samples"
  printf 'ROCm extras (test package)\n' | _file rocm-extras /opt/rocm/share/doc/rocm-extras/README 0644
  _deb nvidia-driver-550 550.127.05-0ubuntu1 "" "NVIDIA driver metapackage"
  printf 'fake libnvidia-ml\n' | _file nvidia-driver-550 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.127.05 0644
  _deb cuda-drivers 560.35.05-1 "nvidia-driver-550" "CUDA driver meta package"
  _deb cuda 12.6.3-1 "cuda-toolkit-12-6, cuda-drivers" "CUDA meta package (toolkit and drivers)"

  _slow_package slow-postinst postinst "A package whose configuration takes its time"
  _slow_package slow-postrm postrm "A package whose removal takes its time"

  _deb zeros-package 1.0-1 "" "A package that lies about its size"
  printf 'Installed-Size: 1\n' >>"$_stage/zeros-package/DEBIAN/control"
  mkdir -p "$_stage/zeros-package/opt/zeros-package"
  head -c 150M /dev/zero >"$_stage/zeros-package/opt/zeros-package/zeros"

  # dpkg-deb keeps an Installed-Size the control file gives (in KiB).
  _deb huge-package 1.0-1 "" "A package that says it needs 2 GB"
  printf 'Installed-Size: 2000000\n' >>"$_stage/huge-package/DEBIAN/control"
  printf 'installed by huge-package\n' | _file huge-package /opt/huge-package/README 0644

  _deb broken-postinst 1.0-1 "" "A package whose configuration fails"
  printf 'installed by broken-postinst\n' | _file broken-postinst /usr/share/broken-postinst/marker 0644
  _script broken-postinst postinst <<'EOF'
#!/bin/sh
echo "broken-postinst: configuration fails on purpose (test package)" >&2
exit 1
EOF

  # The distribution's ROCm 5.7 runtime (Ubuntu 24.04's universe has
  # libhsa-runtime64-1 5.7.1 and libhsakmt1 5.7.0), which the rocm profile's
  # apt_remove step takes out, and libamdhip64-5 beside it. A conffile, a
  # symbolic link and maintainer scripts, so that a copy rebuilt from the
  # installed files (installer/undo/deb_repack.hpp) has something to get right.
  _deb libhsakmt1 5.7.0-1 "" "Thunk library for AMD KFD (distribution's ROCm 5.7)"
  printf 'fake libhsakmt 5.7.0\n' | _file libhsakmt1 /usr/lib/x86_64-linux-gnu/libhsakmt.so.1.0.6 0644
  ln -s libhsakmt.so.1.0.6 "$_stage/libhsakmt1/usr/lib/x86_64-linux-gnu/libhsakmt.so.1"
  printf '# libhsakmt settings\nverbose = 0\n' | _file libhsakmt1 /etc/libhsakmt1.conf 0644
  printf '/etc/libhsakmt1.conf\n' >"$_stage/libhsakmt1/DEBIAN/conffiles"
  _deb libhsa-runtime64-1 5.7.1-2 "libhsakmt1 (>= 5.7.0)" "HSA runtime (distribution's ROCm 5.7)"
  printf 'fake libhsa-runtime64 5.7.1\n' | _file libhsa-runtime64-1 /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.12.0 0755
  _script libhsa-runtime64-1 postinst <<'EOF'
#!/bin/sh
set -e
echo "libhsa-runtime64-1 configured"
EOF
  _script libhsa-runtime64-1 postrm <<'EOF'
#!/bin/sh
set -e
EOF
  _deb libamdhip64-5 5.7.1-3 "" "HIP runtime (distribution's ROCm 5.7)"
  printf 'fake libamdhip64 5.7.1\n' | _file libamdhip64-5 /usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921 0644
}

# _testrepo_release DIST ARCH [COMPONENT]: writes DIST/Release for the one
# component's Packages and Packages.gz (signed later, by test_repo). Its
# Origin is $_origin when set (the Core SDK's "AMD ROCm"), its suite
# $_suite (the Core SDK's "stable").
_testrepo_release() {
  local dist=$1 arch=$2 component=${3:-$TESTREPO_COMPONENT} f
  local origin=${_origin:-$TESTREPO_ORIGIN} suite=${_suite:-$TESTREPO_SUITE}
  {
    printf 'Origin: %s\nLabel: %s\nSuite: %s\nCodename: %s\n' "$origin" "$origin" "$suite" "$suite"
    printf 'Date: %s\nArchitectures: %s\nComponents: %s\n' "$(LC_ALL=C date -Ru)" "$arch" "$component"
    printf 'Description: wslgpu-setup test repository\nSHA256:\n'
    for f in "$component/binary-$arch/Packages" "$component/binary-$arch/Packages.gz"; do
      printf ' %s %16d %s\n' "$(sha256sum <"$dist/$f" | cut -d' ' -f1)" "$(stat -c %s "$dist/$f")" "$f"
    done
  } >"$dist/Release"
}

# _testrepo_subrepo REPO BASE ARCH INDEX PACKAGE...: a repository of its own
# at REPO/BASE (AMD's layout, see the top) indexing only PACKAGE..., taken
# from the index INDEX (the main one, or pool/amd7's); its pool/ is a
# relative symlink to REPO/pool. Its component is $_component when set
# (Docker's "stable"), else the main one's; its suite $_suite when set, and
# its Origin $_origin (_testrepo_release).
_testrepo_subrepo() {
  local repo=$1 base=$2 arch=$3 index=$4
  shift 4
  local dir=$repo/$base component=${_component:-$TESTREPO_COMPONENT}
  local dist=$dir/dists/${_suite:-$TESTREPO_SUITE}
  local packages=$dist/$component/binary-$arch/Packages
  mkdir -p "$(dirname "$packages")"
  ln -s "$(realpath --relative-to="$dir" "$repo/pool")" "$dir/pool"
  awk -v want="$*" '
    BEGIN { RS = ""; ORS = "\n\n"; n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
    { name = $0; sub(/^Package: /, "", name); sub(/\n.*/, "", name); if (name in keep) print }' \
    "$index" >"$packages"
  local found
  found=$(grep -c '^Package: ' "$packages" || true)
  ((found == $#)) || fail "the test repository's $base index has $found of the $# packages $*"
  gzip -9kn "$packages"
  _testrepo_release "$dist" "$arch" "$component"
}

# _testrepo_flat REPO BASE ARCH PACKAGE...: a flat repository ("deb URI /",
# NVIDIA's wsl-ubuntu layout) at REPO/BASE indexing only PACKAGE...; its
# pool/ is a relative symlink to REPO/pool. The packages come from the
# index $_index when set, else the main one.
_testrepo_flat() {
  local repo=$1 base=$2 arch=$3
  shift 3
  local dir=$repo/$base f index=${_index:-$repo/dists/$TESTREPO_SUITE/$TESTREPO_COMPONENT/binary-$arch/Packages}
  mkdir -p "$dir"
  ln -s "$(realpath --relative-to="$dir" "$repo/pool")" "$dir/pool"
  awk -v want="$*" '
    BEGIN { RS = ""; ORS = "\n\n"; n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
    { name = $0; sub(/^Package: /, "", name); sub(/\n.*/, "", name); if (name in keep) print }' \
    "$index" >"$dir/Packages"
  # Every version of a name is indexed, as NVIDIA's repository keeps them.
  local found
  found=$(awk '$1 == "Package:" { print $2 }' "$dir/Packages" | sort -u | wc -l)
  ((found == $#)) || fail "the test repository's $base index has $found of the $# packages $*"
  gzip -9kn "$dir/Packages"
  {
    printf 'Origin: %s\nLabel: %s\nArchitectures: %s\nDate: %s\nSHA256:\n' "$TESTREPO_ORIGIN" "$TESTREPO_ORIGIN" "$arch" "$(LC_ALL=C date -Ru)"
    for f in Packages Packages.gz; do
      printf ' %s %16d %s\n' "$(sha256sum <"$dir/$f" | cut -d' ' -f1)" "$(stat -c %s "$dir/$f")" "$f"
    done
  } >"$dir/Release"
}

# _pool_index POOL_INDEX FOLDER: the entries of the whole pool's index
# POOL_INDEX whose file is in pool/FOLDER/, as dpkg-scanpackages run on
# that folder alone prints them.
_pool_index() {
  awk -v want="pool/$2/" 'BEGIN { RS = ""; ORS = "\n\n" }
    { f = $0; sub(/^(.*\n)?Filename: /, "", f); sub(/\n.*/, "", f)
      if (index(f, want) == 1 && index(substr(f, length(want) + 1), "/") == 0) print }' "$1"
}

# _testrepo_build_stage DEST: builds every package staged in $_stage into
# DEST, then removes the stage. One dpkg-deb per core at a time: each
# package is tiny, and the time is dpkg-deb's start, not its work.
_testrepo_build_stage() {
  (cd "$_stage" && printf '%s\0' *) |
    xargs -0 -P "$(nproc)" -I{} dpkg-deb --root-owner-group -Zgzip --build "$_stage/{}" "$1" >/dev/null ||
    fail "dpkg-deb could not build a test package of $(ls "$_stage" | tr '\n' ' ')(its message is above)"
  rm -rf "$_stage"
}

# _testrepo_tls DIR: a CA made for the run (ca.pem) and a certificate for
# 127.0.0.1 that it signed (server.pem, server.key), for serve_https.
_testrepo_tls() {
  local dir=$1
  mkdir -p "$dir"
  (
    cd "$dir" &&
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj '/CN=wslgpu-setup test CA' -keyout ca.key -out ca.pem \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign &&
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj '/CN=127.0.0.1' \
        -keyout server.key -out server.csr &&
      printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >server.ext &&
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
        -out server.pem &&
      rm -f ca.key ca.srl server.csr server.ext
  ) >"$dir.log" 2>&1 || {
    cat "$dir.log" >&2
    fail "openssl could not make the test HTTPS certificate"
  }
  rm -f "$dir.log"
  TESTREPO_TLS_DIR=$dir
}

# test_repo DIR: builds, indexes and signs the repository in DIR and sets the
# TESTREPO_* variables (lib.sh exports them).
test_repo() {
  local repo=$1 arch gnupg dist pkg
  arch=$(dpkg --print-architecture)
  rm -rf "$repo"
  TESTREPO_ROCDXG_DIR=$repo/librocdxg/releases/download
  mkdir -p "$repo/pool/amd7" "$repo/pool/amd72" "$repo/pool/amd724" "$repo/pool/core" "$repo/pool/ubuntu" "$repo/pool/ctr" \
    "$TESTREPO_ROCDXG_DIR/v$TESTREPO_ROCDXG_VERSION"
  local _stage
  _stage=$(mktemp -d)
  _define_rocm7_packages
  _testrepo_build_stage "$repo/pool/amd7/"
  _stage=$(mktemp -d)
  _define_rocm7_packages "$TESTREPO_ROCM724_VERSION" 70204 70203 "/opt/rocm-$TESTREPO_ROCM724_VERSION"
  _testrepo_build_stage "$repo/pool/amd724/"
  _stage=$(mktemp -d)
  _define_core_packages
  _testrepo_build_stage "$repo/pool/core/"
  _stage=$(mktemp -d)
  _define_ubuntu2604_packages
  _testrepo_build_stage "$repo/pool/ubuntu/"
  _stage=$(mktemp -d)
  _define_rocm72_packages
  _testrepo_build_stage "$repo/pool/amd72/"
  _stage=$(mktemp -d)
  _define_rocdxg_package
  _testrepo_build_stage "$TESTREPO_ROCDXG_DIR/v$TESTREPO_ROCDXG_VERSION/"
  _stage=$(mktemp -d)
  _define_container_packages
  _testrepo_build_stage "$repo/pool/ctr/"
  _stage=$(mktemp -d)
  _define_test_packages
  _testrepo_build_stage "$repo/pool/"
  local rocdxg_deb=$TESTREPO_ROCDXG_DIR/v$TESTREPO_ROCDXG_VERSION/rocdxg-roct_${TESTREPO_ROCDXG_VERSION}_amd64.deb
  [[ -f $rocdxg_deb ]] || fail "the test librocdxg package is not $rocdxg_deb"
  TESTREPO_ROCDXG_SHA256=$(sha256sum <"$rocdxg_deb" | cut -d' ' -f1)

  # The main index holds every package but those of pool's subfolders (the
  # 7.x releases', the Core SDK's, Ubuntu's, the containers').
  dist=$repo/dists/$TESTREPO_SUITE
  local main_index=$dist/$TESTREPO_COMPONENT/binary-$arch/Packages amd7_index
  mkdir -p "$(dirname "$main_index")"
  # One scan of the whole pool (dpkg-scanpackages is slow to start), from
  # which each index takes its folder's packages (_pool_index).
  local pool_index
  pool_index=$(mktemp)
  (cd "$repo" && dpkg-scanpackages --multiversion pool /dev/null 2>/dev/null) >"$pool_index"
  awk 'BEGIN { RS = ""; ORS = "\n\n" } $0 !~ /\nFilename: pool\/[^\/\n]+\// { print }' "$pool_index" >"$main_index"
  gzip -9kn "$main_index"
  _testrepo_release "$dist" "$arch"
  amd7_index=$(mktemp)
  _pool_index "$pool_index" amd7 >"$amd7_index"
  _testrepo_subrepo "$repo" "rocm/apt/$TESTREPO_ROCM_VERSION" "$arch" "$main_index" "${TESTREPO_ROCM_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "amdgpu/$TESTREPO_ROCM_VERSION/ubuntu" "$arch" "$main_index" "${TESTREPO_AMDGPU_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "rocm/apt/$TESTREPO_ROCM7_VERSION" "$arch" "$amd7_index" "${TESTREPO_ROCM7_ROCM_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "amdgpu/$TESTREPO_ROCM7_AMDGPU_DIR/ubuntu" "$arch" "$amd7_index" \
    "${TESTREPO_ROCM7_AMDGPU_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "graphics/$TESTREPO_ROCM7_GRAPHICS_DIR/ubuntu" "$arch" "$amd7_index" \
    "${TESTREPO_ROCM7_GRAPHICS_PACKAGES[@]}"
  rm -f "$amd7_index"
  local amd72_index
  amd72_index=$(mktemp)
  _pool_index "$pool_index" amd72 >"$amd72_index"
  _testrepo_subrepo "$repo" "rocm/apt/$TESTREPO_ROCM72_VERSION" "$arch" "$amd72_index" "${TESTREPO_ROCM72_ROCM_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "amdgpu/$TESTREPO_ROCM72_AMDGPU_DIR/ubuntu" "$arch" "$amd72_index" \
    "${TESTREPO_ROCM72_AMDGPU_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "graphics/$TESTREPO_ROCM72_GRAPHICS_DIR/ubuntu" "$arch" "$amd72_index" \
    "${TESTREPO_ROCM72_GRAPHICS_PACKAGES[@]}"
  rm -f "$amd72_index"
  local amd724_index
  amd724_index=$(mktemp)
  _pool_index "$pool_index" amd724 >"$amd724_index"
  _testrepo_subrepo "$repo" "rocm/apt/$TESTREPO_ROCM724_VERSION" "$arch" "$amd724_index" "${TESTREPO_ROCM7_ROCM_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "amdgpu/$TESTREPO_ROCM724_AMDGPU_DIR/ubuntu" "$arch" "$amd724_index" \
    "${TESTREPO_ROCM7_AMDGPU_PACKAGES[@]}"
  _testrepo_subrepo "$repo" "graphics/$TESTREPO_ROCM724_GRAPHICS_DIR/ubuntu" "$arch" "$amd724_index" \
    "${TESTREPO_ROCM7_GRAPHICS_PACKAGES[@]}"
  rm -f "$amd724_index"
  # The Core SDK: one folder per distribution, the same packages in each.
  local core_index core_packages folder signed_dirs=() core_dirs=()
  core_index=$(mktemp)
  _pool_index "$pool_index" core >"$core_index"
  mapfile -t core_packages < <(awk '$1 == "Package:" { print $2 }' "$core_index" | sort -u)
  for folder in "${TESTREPO_CORE_FOLDERS[@]}"; do
    _suite=$TESTREPO_CORE_SUITE _origin=$TESTREPO_CORE_ORIGIN \
      _testrepo_subrepo "$repo" "$TESTREPO_CORE_BASE/$folder" "$arch" "$core_index" "${core_packages[@]}"
    core_dirs+=("$repo/$TESTREPO_CORE_BASE/$folder/dists/$TESTREPO_CORE_SUITE")
  done
  rm -f "$core_index"
  local ubuntu_index
  ubuntu_index=$(mktemp)
  _pool_index "$pool_index" ubuntu >"$ubuntu_index"
  _component=universe _suite=$TESTREPO_UBUNTU_SUITE _origin=Ubuntu \
    _testrepo_subrepo "$repo" "$TESTREPO_UBUNTU_BASE" "$arch" "$ubuntu_index" "${TESTREPO_UBUNTU_PACKAGES[@]}"
  signed_dirs+=("$repo/$TESTREPO_UBUNTU_BASE/dists/$TESTREPO_UBUNTU_SUITE")
  rm -f "$ubuntu_index"
  _testrepo_flat "$repo" "$TESTREPO_CUDA_BASE" "$arch" "${TESTREPO_CUDA_PACKAGES[@]}"
  local ctr_index
  ctr_index=$(mktemp)
  _pool_index "$pool_index" ctr >"$ctr_index"
  _component=stable _testrepo_subrepo "$repo" "$TESTREPO_DOCKER_BASE" "$arch" "$ctr_index" "${TESTREPO_DOCKER_PACKAGES[@]}"
  _index=$ctr_index _testrepo_flat "$repo" "$TESTREPO_NVCT_BASE/stable/deb/$arch" "$arch" "${TESTREPO_NVCT_PACKAGES[@]}"
  rm -f "$ctr_index" "$pool_index"
  _testrepo_tls "$repo/tls"

  gnupg=$(mktemp -d)
  (
    export GNUPGHOME=$gnupg
    gpg --batch --quiet --passphrase '' --quick-gen-key 'wslgpu-setup test repository <repo@wslgpu-setup.invalid>' ed25519 sign never
    gpg --batch --quiet --armor --export >"$repo/key.asc"
    gpg --batch --quiet --export >"$repo/key.gpg"
    gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { print $10; exit }' >"$gnupg/fingerprint"
    for d in "$dist" "$repo/rocm/apt/$TESTREPO_ROCM_VERSION/dists/$TESTREPO_SUITE" \
      "$repo/amdgpu/$TESTREPO_ROCM_VERSION/ubuntu/dists/$TESTREPO_SUITE" "$repo/$TESTREPO_CUDA_BASE" \
      "$repo/rocm/apt/$TESTREPO_ROCM7_VERSION/dists/$TESTREPO_SUITE" \
      "$repo/amdgpu/$TESTREPO_ROCM7_AMDGPU_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "$repo/graphics/$TESTREPO_ROCM7_GRAPHICS_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "$repo/rocm/apt/$TESTREPO_ROCM72_VERSION/dists/$TESTREPO_SUITE" \
      "$repo/amdgpu/$TESTREPO_ROCM72_AMDGPU_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "$repo/graphics/$TESTREPO_ROCM72_GRAPHICS_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "$repo/rocm/apt/$TESTREPO_ROCM724_VERSION/dists/$TESTREPO_SUITE" \
      "$repo/amdgpu/$TESTREPO_ROCM724_AMDGPU_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "$repo/graphics/$TESTREPO_ROCM724_GRAPHICS_DIR/ubuntu/dists/$TESTREPO_SUITE" \
      "${signed_dirs[@]}" \
      "$repo/$TESTREPO_DOCKER_BASE/dists/$TESTREPO_SUITE"; do
      gpg --batch --quiet --clearsign -o "$d/InRelease" "$d/Release"
      gpg --batch --quiet --armor --detach-sign -o "$d/Release.gpg" "$d/Release"
    done
    gpgconf --kill all
    # The Core SDK's own key, as AMD signs it with another key than
    # repo.radeon.com's (D0F004A0… against CA8BB472…), so that a switch of
    # stream meets a key of its own. AMD's shape of its key file: the
    # binary key, then the same key ASCII-armoured. core-key.gpg, outside
    # AMD's layout, is the binary key alone, for comparisons.
    export GNUPGHOME=$gnupg/core
    mkdir -m 0700 "$GNUPGHOME"
    gpg --batch --quiet --passphrase '' --quick-gen-key 'wslgpu-setup test AMD ROCm signing key <core@wslgpu-setup.invalid>' ed25519 sign never
    gpg --batch --quiet --export >"$repo/core-key.gpg"
    mkdir -p "$(dirname "$repo/$TESTREPO_CORE_KEY_PATH")"
    { cat "$repo/core-key.gpg"; gpg --batch --quiet --armor --export; } >"$repo/$TESTREPO_CORE_KEY_PATH"
    gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { print $10; exit }' >"$gnupg/core-fingerprint"
    for d in "${core_dirs[@]}"; do
      gpg --batch --quiet --clearsign -o "$d/InRelease" "$d/Release"
      gpg --batch --quiet --armor --detach-sign -o "$d/Release.gpg" "$d/Release"
    done
    gpgconf --kill all
    export GNUPGHOME=$gnupg/other
    mkdir -m 0700 "$GNUPGHOME"
    gpg --batch --quiet --passphrase '' --quick-gen-key 'not the test repository <other@wslgpu-setup.invalid>' ed25519 sign never
    gpg --batch --quiet --armor --export >"$repo/other-key.asc"
    gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { print $10; exit }' >"$gnupg/other-fingerprint"
    gpgconf --kill all
    export GNUPGHOME=$gnupg/nvct
    mkdir -m 0700 "$GNUPGHOME"
    gpg --batch --quiet --passphrase '' --faked-system-time 20170928T000000 \
      --quick-gen-key 'wslgpu-setup test NVIDIA container toolkit <nvct@wslgpu-setup.invalid>' ed25519 sign,cert never
    local nvct_fpr nvct_dir=$repo/$TESTREPO_NVCT_BASE/stable/deb/$arch
    nvct_fpr=$(gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { print $10; exit }')
    gpg --batch --quiet --passphrase '' --faked-system-time 20190918T000000 --quick-add-key "$nvct_fpr" ed25519 sign 2021-06-16
    gpg --batch --with-colons --list-options show-unusable-subkeys --list-keys | grep -q '^sub:e:' ||
      { echo "gpg made no expired subkey" >&2; exit 1; }
    gpg --batch --quiet --armor --export >"$repo/$TESTREPO_NVCT_BASE/gpgkey"
    # "!": the primary itself signs, as NVIDIA's does since its subkey expired.
    gpg --batch --quiet -u "$nvct_fpr!" --clearsign -o "$nvct_dir/InRelease" "$nvct_dir/Release"
    gpg --batch --quiet -u "$nvct_fpr!" --armor --detach-sign -o "$nvct_dir/Release.gpg" "$nvct_dir/Release"
    printf '%s\n' "$nvct_fpr" >"$gnupg/nvct-fingerprint"
    gpgconf --kill all
  ) 2>"$gnupg.log" || {
    cat "$gnupg.log" >&2
    fail "gpg could not generate or use the test repository's key"
  }
  TESTREPO_KEY_FINGERPRINT=$(<"$gnupg/fingerprint")
  TESTREPO_OTHER_KEY_FINGERPRINT=$(<"$gnupg/other-fingerprint")
  TESTREPO_NVCT_KEY_FINGERPRINT=$(<"$gnupg/nvct-fingerprint")
  TESTREPO_CORE_KEY_FINGERPRINT=$(<"$gnupg/core-fingerprint")
  [[ ${#TESTREPO_KEY_FINGERPRINT} == 40 && ${#TESTREPO_OTHER_KEY_FINGERPRINT} == 40 ]] ||
    fail "gpg did not print the test keys' fingerprints"
  rm -rf "$gnupg" "$gnupg.log"
  chmod -R a+rX "$repo"

  TESTREPO_DIR=$repo
  TESTREPO_KEY=$repo/key.asc
  TESTREPO_KEY_SHA256=$(sha256sum <"$repo/key.asc" | cut -d' ' -f1)
  TESTREPO_KEY_IN_ROOT=/srv/testrepo/key.asc
  TESTREPO_CORE_KEY=$repo/$TESTREPO_CORE_KEY_PATH
  TESTREPO_CORE_KEY_BINARY=$repo/core-key.gpg
  TESTREPO_OTHER_KEY=$repo/other-key.asc
  TESTREPO_NVCT_KEY=$repo/$TESTREPO_NVCT_BASE/gpgkey
  TESTREPO_OTHER_KEY_SHA256=$(sha256sum <"$repo/other-key.asc" | cut -d' ' -f1)
}
