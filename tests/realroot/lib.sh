# tests/realroot/lib.sh: the real-root test tier's harness. Sourced by
# run.sh and by every scenario; never run directly.
#
# What it gives a scenario:
#   with_root [--bare] FN ARGS...  runs FN in a fresh, disposable Debian 12
#       root: a copy-on-write overlay of the cached base (plus the fake WSL
#       layer unless --bare) inside private mount, network and pid namespaces.
#       FN sees the merged root's path in $ROOT. Nothing outlives the call
#       (but --save-changes DIR keeps the root's changes for a --from-changes
#       DIR root: two roots that start where one FN left off).
#   in_root CMD...                 runs CMD chrooted into $ROOT with a clean environment.
#   root_use_testrepo [signed|trusted]  points the root's apt at the local test repository.
#   root_fake_nvidia_smi NAME      the root's nvidia-smi prints a recorded output of the corpus.
#   trace_commands NAME...         logs every call of /usr/bin/NAME inside the root;
#                                  traced_calls NAME prints them.
#   snapshot ROOT OUT [--exclude /PATH]...  and  snapshot_diff A B: (snapshots.sh) record and compare a root.
#   crash_every_step_then_recover STEP...   (crash.sh) kill a run at each step, then recover.
#   tool ARGS...                   runs the wslgpu-setup under test; sets TOOL_STATUS, TOOL_OUT, TOOL_ERR.
#   serve_https DIR, network_off   (network.sh) a loopback HTTPS server ($HTTPS_URL); then no network at all.
#   serve_proxy                    (network.sh) a CONNECT proxy on the root's loopback ($PROXY_URL, $PROXY_LOG).
#   wheels.sh                      fake PyTorch wheels served to a root (pytorch_www, torch_smoke, ...).
#   frameworks.sh                  fake TensorFlow, JAX and ONNX Runtime wheels (frameworks_www, framework_smoke, ...).
#   fail, assert_*, expect_status  assertions that print what was expected and what was seen.
#
# What run.sh does once per run (realroot_setup): checks that the tier can
# run here, restores (or builds) the base root, builds the fake WSL layer and
# the signed local apt repository. Everything lives under $REALROOT_RUN, a
# temporary folder that run.sh removes at the end.
#
# Functions reach the namespaces through `declare -f`: a scenario's helper
# functions are available inside with_root, its plain shell variables are
# not (export them, or pass them as arguments).

# Bump when anything that goes into the base tarball changes (the package
# list, the customize hooks): the cache is keyed by it.
HARNESS_VERSION=4

REALROOT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REALROOT_CACHE=${WSLGPU_TEST_CACHE:-/var/cache/wslgpu-setup-tests}
REALROOT_SUITE=bookworm
# minbase already holds passwd (useradd, usermod, gpasswd, groupadd) and
# gpgv (apt verifies InRelease with it). gpg and python3 are added because
# the systems the tool targets have them: a step may reasonably call gpg, and
# Ansible's modules run on python3 (the ansible-* scenarios). python3-venv
# (with the pip and setuptools wheels that ensurepip installs into a new
# venv, and ca-certificates, which pip's wheel needs) because the pytorch
# profile's apt step installs it, and a test root's apt reaches only the
# test repository: baked into the base, that step is converged, and
# `python3 -m venv` works offline as on Ubuntu.
REALROOT_BASE_PACKAGES=(gpg python3 python3-venv)
REALROOT_WSL_KERNEL=5.15.153.1-microsoft-standard-WSL2
REALROOT_USER=alice
REALROOT_REPO_IN_ROOT=/srv/testrepo

# ---------------------------------------------------------------- messages

say() { printf '%s\n' "$*" >&2; }
# Ends the current test (or run) with a message that says why.
fail() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}
# Ends the current scenario as skipped (exit 77, which run.sh reports as
# SKIP with this reason): for what this machine lacks and the scenario
# cannot stand in for, never for a failure.
skip() {
  printf 'SKIPPED: %s\n' "$*" >&2
  exit 77
}
# The corpus: real files that people outside the project wrote, read where
# they lie (WSLGPU_CORPUS_DIR, which ctest sets from CMake's setting of the
# same name; by hand, shared/corpus beside the source folder).
REALROOT_CORPUS=${WSLGPU_CORPUS_DIR:-$REALROOT_LIB_DIR/../../../shared/corpus}
# corpus_file RELATIVE: the path of a corpus file; skips the scenario when
# there is no corpus folder at all, fails when the folder lacks the file.
corpus_file() {
  [[ -d $REALROOT_CORPUS ]] ||
    skip "needs the corpus file $1, and there is no corpus folder $REALROOT_CORPUS (set WSLGPU_CORPUS_DIR, or configure with -DWSLGPU_CORPUS_DIR=FOLDER; docs/testing.md, \"The corpus\")"
  [[ -f $REALROOT_CORPUS/$1 ]] || fail "no corpus file $REALROOT_CORPUS/$1"
  printf '%s\n' "$REALROOT_CORPUS/$1"
}
# Elapsed seconds since START (an $EPOCHREALTIME value), one decimal.
elapsed_since() {
  local start=$1 now=$EPOCHREALTIME
  awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# ---------------------------------------------------------------- preflight

# Checks that this machine can run the tier (root, the host commands,
# namespaces); fails with the reason if not.
realroot_preflight() {
  [[ $(id -u) == 0 ]] || fail "the real-root tier needs root (it mounts overlays and creates namespaces); run it with sudo, or set WSLGPU_SKIP_REALROOT=1 to skip it explicitly"
  local cmd missing=()
  for cmd in unshare mount mmdebstrap dpkg-deb dpkg-scanpackages dpkg-query gpg gpgconf zstd tar sha256sum find awk diff timeout jq openssl ip python3; do
    command -v "$cmd" >/dev/null || missing+=("$cmd")
  done
  ((${#missing[@]} == 0)) || fail "missing host commands: ${missing[*]}; install the packages listed in tests/realroot/HOST-PACKAGES"
  local err
  err=$(unshare --mount --net --pid --fork --mount-proc true 2>&1) ||
    fail "cannot create mount, network and pid namespaces (unshare --mount --net --pid --fork): $err"
}

# Checks that an overlay can be mounted with its layers in DIR.
realroot_probe_overlay() {
  local probe=$1/overlay-probe err
  mkdir -p "$probe"/{lower,upper,work,merged}
  err=$(unshare --mount -- mount -t overlay overlay \
    -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" 2>&1) || {
    rm -rf "$probe"
    fail "cannot mount an overlay filesystem with its layers in $1: $err"
  }
  rm -rf "$probe"
}

# ---------------------------------------------------------------- the mirror

# Prints the apt sources this machine uses, one "URI SUITE COMPONENTS" line
# per suite, read from deb822 .sources files and one-line sources.list files.
# REALROOT_APT_ETC (default /etc/apt) exists for the harness's own tests.
host_apt_sources() {
  local f etc=${REALROOT_APT_ETC:-/etc/apt}
  for f in "$etc"/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "")
          for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j], comps
        types = ""; uris = ""; comps = ""; enabled = ""; nu = 0; ns = 0
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = tolower($1); sub(/:$/, "", key)
        val = $0; sub(/^[^:]*:[ \t]*/, "", val)
        if (key == "types") types = val
        else if (key == "uris") { uris = val; nu = split(val, u, /[ \t]+/) }
        else if (key == "suites") ns = split(val, s, /[ \t]+/)
        else if (key == "components") comps = val
        else if (key == "enabled") enabled = tolower(val)
      }
      END { flush() }' "$f"
  done
  for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    # deb [options] URI SUITE COMPONENT...
    awk '$1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        uri = $i; suite = $(i + 1); comps = ""
        for (k = i + 2; k <= NF; k++) comps = comps (comps == "" ? "" : " ") $k
        print uri, suite, comps
      }' "$f"
  done
}

# Prints the mmdebstrap mirror lines for the Debian 12 base: the machine's
# own bookworm suites, or its main Debian archive with suite bookworm when
# the machine runs another release. Fails when there is none.
base_mirror_lines() {
  local sources lines
  sources=$(host_apt_sources)
  lines=$(awk -v suite="$REALROOT_SUITE" '$2 == suite || index($2, suite "-") == 1 { print "deb " $1 " " $2 " main" }' <<<"$sources")
  if [[ -z $lines ]]; then
    lines=$(awk -v suite="$REALROOT_SUITE" '$2 !~ /-security$/ && $1 ~ /^(https?|file|mirror\+[a-z]+):/ { print "deb " $1 " " suite " main"; exit }' <<<"$sources")
  fi
  [[ -n $lines ]] || fail "no apt mirror to build the Debian 12 base root from: /etc/apt/sources.list.d/*.sources and /etc/apt/sources.list name no Debian archive this machine can use"
  printf '%s\n' "$lines"
}

# ---------------------------------------------------------------- the base root

base_tarball() { printf '%s/base-%s.tar.zst\n' "$REALROOT_CACHE" "$HARNESS_VERSION"; }

# debian_root_tarball SUITE PACKAGES TARBALL WHAT [OPTION...]: a minbase
# root of SUITE with PACKAGES (comma-separated) from this machine's apt
# mirror, as a tar in TARBALL, named WHAT in messages; OPTION... are more
# mmdebstrap options, after the common ones (forky.sh: its snapshot's
# Valid-Until, the Ubuntu 26.04 dressing). The hooks: apt inside a test may use
# only the local repository (no sources from the mirror, no translations);
# dpkg skips fsync (the roots are thrown away); the repository's mount
# point exists; nothing of this machine (its host name, its resolver) ends
# up in the tarball. The chroot is assembled in the run's tmpfs: far faster
# than a disk.
debian_root_tarball() {
  local suite=$1 packages=$2 tarball=$3 what=$4 tmp log lines mirrors
  shift 4
  mkdir -p "$REALROOT_CACHE"
  tmp=$REALROOT_CACHE/.building-$$-$suite.tar.zst
  log=$REALROOT_CACHE/.building-$$-$suite.log
  lines=$(REALROOT_SUITE=$suite base_mirror_lines) || exit 1
  mapfile -t mirrors <<<"$lines"
  say "$what: building $suite minbase with $packages with mmdebstrap from this machine's apt mirror (${#mirrors[@]} suites)"
  if ! TMPDIR=${REALROOT_SCENARIO_TMP:-$REALROOT_RUN} mmdebstrap --variant=minbase --mode=root --format=tar \
    --include="$packages" \
    --aptopt='Acquire::Languages "none"' \
    --customize-hook='rm -f "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*' \
    --customize-hook='printf "%s\n" "Acquire::Languages \"none\";" > "$1"/etc/apt/apt.conf.d/99wslgpu-test' \
    --customize-hook='echo force-unsafe-io > "$1"/etc/dpkg/dpkg.cfg.d/99wslgpu-test' \
    --customize-hook="mkdir -p \"\$1\"$REALROOT_REPO_IN_ROOT" \
    --customize-hook='echo wslgpu-test > "$1"/etc/hostname; : > "$1"/etc/resolv.conf' \
    "$@" "$suite" "$tmp" "${mirrors[@]}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$tmp"
    fail "mmdebstrap could not build the $what from this machine's apt mirror (full log: $log)"
  fi
  mv -f "$tmp" "$tarball"
  rm -f "$log"
}

# prune_older_tarballs PREFIX VERSION: deletes the cache's PREFIX-N.tar.zst
# (and its lock) for every N below VERSION. A newer one stays, since another
# checkout sharing the cache (a branch not yet rebased) may still use it,
# and deleting it would have each rebuild the other's root on every run.
prune_older_tarballs() {
  local prefix=$1 current=$2 old version
  for old in "$REALROOT_CACHE/$prefix"-*.tar.zst "$REALROOT_CACHE/$prefix"-*.tar.zst.lock; do
    [[ -e $old ]] || continue
    version=${old##*/"$prefix"-}
    version=${version%%.*}
    if [[ $version =~ ^[0-9]+$ ]] && ((version < current)); then rm -f "$old"; fi
  done
}

# Builds the pristine base tarball into the cache (cached_tarball holds its
# lock, so that two runs do not build it twice).
_build_base_tarball() {
  debian_root_tarball "$REALROOT_SUITE" "$(IFS=,; echo "${REALROOT_BASE_PACKAGES[*]}")" "$1" "base root"
  prune_older_tarballs base "$HARNESS_VERSION"
}

# cached_tarball TARBALL WHAT BUILDER ARGS...: makes sure TARBALL is in the
# cache, building it with `BUILDER ARGS... TARBALL` when it is not. Each
# tarball has its own lock (TARBALL.lock), so that a run (or `run.sh
# --prepare`, which CI starts in the background while it compiles) waits for
# a tarball being built by another, but not for the others; builders write
# a temporary file and rename it into place, so a tarball in the cache is
# always whole.
cached_tarball() {
  local tarball=$1 what=$2 start lock_fd
  shift 2
  mkdir -p "$REALROOT_CACHE"
  exec {lock_fd}>"$tarball.lock"
  start=$EPOCHREALTIME
  flock "$lock_fd"
  if [[ -s $tarball ]]; then
    say "$what: cached $tarball ($(du -h "$tarball" | cut -f1); waited $(elapsed_since "$start") s for it)"
  else
    start=$EPOCHREALTIME
    "$@" "$tarball"
    say "$what: built in $(elapsed_since "$start") s -> $tarball ($(du -h "$tarball" | cut -f1))"
  fi
  flock -u "$lock_fd"
  exec {lock_fd}>&-
}

# Makes sure the base tarball for this HARNESS_VERSION is in the cache (built
# once, 10 to 30 s with a nearby mirror), then extracts it once per run into
# $REALROOT_RUN/base, the read-only lower layer of every test root. Prints
# how long each part took.
base_tarball_cached() { cached_tarball "$(base_tarball)" "base root" _build_base_tarball; }

base_root() {
  local tarball start
  tarball=$(base_tarball)
  base_tarball_cached
  start=$EPOCHREALTIME
  rm -rf "$REALROOT_RUN/base"
  mkdir -p "$REALROOT_RUN/base"
  # tar stops reading at the archive's end-of-archive blocks, while zstd may
  # still be writing the zero padding after them: zstd then dies of SIGPIPE
  # (status 141) and, under pipefail, a good tarball looked broken (about one
  # extraction in three of the base-4 tarball). cat drains the rest.
  zstd -dcq "$tarball" | { tar -x --numeric-owner --xattrs --xattrs-include='*' -C "$REALROOT_RUN/base" && cat >/dev/null; } ||
    fail "cannot extract $tarball; delete it to rebuild"
  say "base root: restored in $(elapsed_since "$start") s"
}

# ---------------------------------------------------------------- the WSL layer

# Builds $REALROOT_RUN/wsl, an overlay layer over the base that makes it look
# like a WSL2 distribution: the GPU driver mount /usr/lib/wsl/lib,
# /etc/wsl.conf, a Windows profile under /mnt/c/Users/alice and the user
# alice (uid 1000, made by the root's own useradd). /dev/dxg and the kernel
# release are added by with_root, because /dev and /proc are mounted per test.
wsl_layer() {
  local layer=$REALROOT_RUN/wsl work=$REALROOT_RUN/wsl.work merged=$REALROOT_RUN/wsl.merged
  mkdir -p "$layer" "$work" "$merged"
  unshare --mount -- bash -euo pipefail -c '
    layer=$1 work=$2 merged=$3 base=$4 user=$5
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$layer,workdir=$work" "$merged"
    lib=$merged/usr/lib/wsl/lib
    mkdir -p "$lib" "$merged/usr/lib/wsl/drivers/nv_dispi.inf_amd64_0000000000000000"
    for name in libcuda.so libcuda.so.1 libcuda.so.1.1 libdxcore.so libd3d12.so libd3d12core.so libnvidia-ml.so.1; do
      printf "fake %s: the WSL driver stub, recorded for tests\n" "$name" > "$lib/$name"
    done
    cat > "$lib/nvidia-smi" <<"EOF"
#!/bin/sh
# Fake nvidia-smi from the WSL driver mount: prints a recorded output.
if [ "$1" = "-L" ]; then
  echo "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-00000000-1111-2222-3333-444444444444)"
  exit 0
fi
cat <<"OUT"
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 565.77.01              Driver Version: 566.36         CUDA Version: 12.7     |
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0  On |                  Off |
+-----------------------------------------------------------------------------------------+
OUT
EOF
    chmod 0755 "$lib/nvidia-smi"
    chmod 0555 "$lib"
    printf "[boot]\nsystemd=false\n\n[user]\ndefault=%s\n" "$user" > "$merged/etc/wsl.conf"
    # WSL itself puts its driver folder on the linker path.
    printf "# This file was automatically generated by WSL. To stop automatic generation of this file, add the following entry to /etc/wsl.conf:\n# [automount]\n# ldconfig = false\n/usr/lib/wsl/lib\n" > "$merged/etc/ld.so.conf.d/ld.wsl.conf"
    chroot "$merged" useradd --create-home --uid 1000 --user-group --shell /bin/bash "$user"
    mkdir -p "$merged/mnt/c/Users/$user" "$merged/mnt/c/Users/Public" "$merged/mnt/c/Windows/System32"
    chown 1000:1000 "$merged/mnt/c/Users/$user"
  ' wsl_layer "$layer" "$work" "$merged" "$REALROOT_RUN/base" "$REALROOT_USER" ||
    fail "cannot build the fake WSL layer"
  rm -rf "$work" "$merged"
}

# ---------------------------------------------------------------- the test repository

source "$REALROOT_LIB_DIR/testrepo.sh"
source "$REALROOT_LIB_DIR/manifests.sh"
source "$REALROOT_LIB_DIR/wheels.sh"
source "$REALROOT_LIB_DIR/frameworks.sh"
source "$REALROOT_LIB_DIR/containers.sh"
source "$REALROOT_LIB_DIR/network.sh"
source "$REALROOT_LIB_DIR/snapshots.sh"
source "$REALROOT_LIB_DIR/crash.sh"

# ---------------------------------------------------------------- per run

# Everything a run needs before its first scenario, exported for the
# scenario processes. REALROOT_RUN must be set (run.sh makes it).
realroot_setup() {
  [[ -n ${REALROOT_RUN:-} && -d $REALROOT_RUN ]] || fail "realroot_setup: REALROOT_RUN is not a folder"
  realroot_probe_overlay "$REALROOT_RUN"
  base_root
  local start=$EPOCHREALTIME
  wsl_layer
  say "fake WSL layer: built in $(elapsed_since "$start") s"
  start=$EPOCHREALTIME
  test_repo "$REALROOT_RUN/repo"
  say "test repository: built and signed in $(elapsed_since "$start") s ($(ls "$REALROOT_RUN/repo/pool" | wc -l) packages)"
  start=$EPOCHREALTIME
  lower_hashes
  say "lower layers: hashed in $(elapsed_since "$start") s"
  export REALROOT_RUN REALROOT_CACHE TESTREPO_DIR TESTREPO_URI TESTREPO_SUITE TESTREPO_COMPONENT \
    TESTREPO_ORIGIN TESTREPO_KEY TESTREPO_KEY_SHA256 TESTREPO_KEY_FINGERPRINT TESTREPO_KEY_IN_ROOT TESTREPO_OTHER_KEY \
    TESTREPO_OTHER_KEY_SHA256 TESTREPO_OTHER_KEY_FINGERPRINT TESTREPO_ROCDXG_DIR TESTREPO_ROCDXG_SHA256 TESTREPO_TLS_DIR \
    TESTREPO_NVCT_KEY TESTREPO_NVCT_KEY_FINGERPRINT TESTREPO_CORE_KEY TESTREPO_CORE_KEY_BINARY TESTREPO_CORE_KEY_FINGERPRINT
}

# The sha256 of every file of the two read-only stacks a root is an overlay
# of (base, and the WSL layer over it), once per run, as sha256sum prints
# them: snapshot() hashes only what a root's upper layer holds and takes the
# rest from here. Nothing writes to a lower layer after setup, and overlayfs
# copies a file up before any change to it (content or metadata), so a file
# that is not in the upper layer is the lower layer's, byte for byte.
lower_hashes() {
  (cd "$REALROOT_RUN/base" && find . -type f -print0 | xargs -0r sha256sum) >"$REALROOT_RUN/lower-base.sha256"
  local view=$REALROOT_RUN/wsl.view
  mkdir -p "$view"
  unshare --mount -- bash -euo pipefail -c '
    mount -t overlay overlay -o "ro,lowerdir=$1/wsl:$1/base" "$2"
    cd "$2" && find . -type f -print0 | xargs -0r sha256sum' lower "$REALROOT_RUN" "$view" >"$REALROOT_RUN/lower-wsl.sha256"
  rmdir "$view"
}

# ---------------------------------------------------------------- with_root

_ROOT_SEQ=0

# with_root [--bare] [--fs-size SIZE] FN ARGS...: runs FN ARGS in a fresh
# root (see the top of this file). --fs-size puts the root's changes on a
# tmpfs of SIZE (mount's size=, such as 48M), so that the root's filesystem
# has only that much room: overlayfs reports its upper layer's free space.
# Returns FN's status. With WSLGPU_KEEP_FAILED=1, the changes a failing FN
# made (the overlay's upper layer) are kept for inspection.
# --save-changes DIR: when FN succeeds, the root's changes (its upper layer,
# whiteouts and all) are moved to DIR once the root is gone; --from-changes
# DIR starts the root with a copy of them, that is, as FN left its root (on
# the same lower layers: same --bare or not). No process survives a root,
# so nothing else of it is lost.
with_root() {
  local layers=$REALROOT_RUN/wsl:$REALROOT_RUN/base wsl=1 fs_size="" save="" from=""
  while [[ ${1:-} == --* ]]; do
    case $1 in
      --bare) layers=$REALROOT_RUN/base wsl=0; shift ;;
      --fs-size) fs_size=${2:?--fs-size needs a size}; shift 2 ;;
      --save-changes) save=${2:?--save-changes needs a folder}; shift 2 ;;
      --from-changes) from=${2:?--from-changes needs a folder}; shift 2 ;;
      *) fail "with_root: unknown option $1" ;;
    esac
  done
  local fn=${1:?with_root needs a function name}
  shift
  declare -F "$fn" >/dev/null || fail "with_root: no function named $fn"
  _ROOT_SEQ=$((_ROOT_SEQ + 1))
  local t=${REALROOT_SCENARIO_TMP:?}/root-$_ROOT_SEQ status=0
  mkdir -p "$t"
  if [[ -n $fs_size ]]; then mount -t tmpfs -o "size=$fs_size,mode=0755" wslgpu-small-root "$t"; fi
  mkdir -p "$t"/{upper,work,merged}
  if [[ -n $from ]]; then cp -a "$from/." "$t/upper/" || fail "with_root: cannot copy the changes in $from"; fi
  printf '%s\n' "$REALROOT_WSL_KERNEL" >"$t/osrelease"
  # --kill-child: if the scenario is killed (its timeout), the namespace's
  # first process gets SIGKILL, and with it every process in the namespace.
  # The inner shell sources lib.sh for its settings, then takes every
  # function of this shell (the scenario's too) through declare -f.
  unshare --mount --net --pid --fork --mount-proc --kill-child -- \
    bash -c 'source "$1"; shift; eval "$1"; shift; _root_inside "$@"' \
    with_root "$REALROOT_LIB_DIR/lib.sh" "$(declare -f)" "$t" "$layers" "$wsl" "$fn" "$@" || status=$?
  if ((status == 77)); then
    say "with_root $fn: skipped"
  elif ((status != 0)); then
    say "with_root $fn: failed (exit $status)"
    if [[ ${WSLGPU_KEEP_FAILED:-0} == 1 ]]; then _keep_failed_root "$t" "$fn" "$wsl"; fi
  elif [[ -n $save ]]; then
    rm -rf "$save"
    mv "$t/upper" "$save" || fail "with_root: cannot keep the root's changes in $save"
  fi
  if [[ -n $fs_size ]]; then umount "$t"; fi
  rm -rf "$t"
  return "$status"
}

# Inside the namespaces: mounts the root, then runs the scenario function.
_root_inside() {
  set -Eeuo pipefail
  local t=$1 layers=$2 wsl=$3 fn=$4
  shift 4
  trap '_report_error $? "$BASH_COMMAND"' ERR
  local m=$t/merged
  mount -t overlay overlay -o "lowerdir=$layers,upperdir=$t/upper,workdir=$t/work" "$m"
  mount -t proc -o nosuid,nodev,noexec proc "$m/proc"
  # A minimal /dev: the host's harmless character devices bound in, a private
  # devpts instance, and (in a WSL root) /dev/dxg as WSL2 makes it.
  mount -t tmpfs -o mode=0755,nosuid dev "$m/dev"
  local node
  for node in null zero full random urandom tty; do
    : >"$m/dev/$node"
    mount --bind "/dev/$node" "$m/dev/$node"
  done
  mkdir -p "$m/dev/pts" "$m/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$m/dev/pts"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$m/dev/shm"
  ln -s pts/ptmx "$m/dev/ptmx"
  ln -s /proc/self/fd "$m/dev/fd"
  ln -s /proc/self/fd/0 "$m/dev/stdin"
  ln -s /proc/self/fd/1 "$m/dev/stdout"
  ln -s /proc/self/fd/2 "$m/dev/stderr"
  if [[ $wsl == 1 ]]; then
    # 240 is a major number for local use: nothing answers it, which is
    # fine, since the tool only inspects the node.
    mknod -m 0666 "$m/dev/dxg" c 240 0
    mount --bind -o ro "$t/osrelease" "$m/proc/sys/kernel/osrelease"
  fi
  mount --bind "$TESTREPO_DIR" "$m$REALROOT_REPO_IN_ROOT"
  mount -o remount,bind,ro "$m$REALROOT_REPO_IN_ROOT"
  export ROOT=$m REALROOT_ROOT_UPPER=$t/upper
  if [[ $wsl == 1 ]]; then REALROOT_ROOT_LOWER_HASHES=$REALROOT_RUN/lower-wsl.sha256; else REALROOT_ROOT_LOWER_HASHES=$REALROOT_RUN/lower-base.sha256; fi
  export REALROOT_ROOT_LOWER_HASHES
  cd /
  "$fn" "$@"
}

_report_error() {
  local status=$1 command=$2
  say "error: exit $status from: $command (in ${FUNCNAME[2]:-?})"
}

_keep_failed_root() {
  local t=$1 fn=$2 wsl=$3 dest
  dest=${WSLGPU_KEEP_DIR:-/var/tmp/wslgpu-realroot-kept}/${REALROOT_SCENARIO:-scenario}-$fn-$(date +%H%M%S)
  mkdir -p "$dest"
  cp -a "$t/upper" "$dest/upper"
  if [[ $wsl == 1 ]]; then cp -a "$REALROOT_RUN/wsl" "$dest/wsl"; fi
  cp "$t/osrelease" "$dest/osrelease"
  printf '%s\n' "$(base_tarball)" >"$dest/base"
  cat >"$dest/README" <<EOF
The changes $fn made to its root before it failed (scenario ${REALROOT_SCENARIO:-?}).
upper/  the overlay's upper layer: every file the test added or changed (deleted files are 0:0 character devices)
wsl/    the fake WSL layer it ran on (absent for --bare roots)
base    the cached base tarball underneath
Open a shell in the whole root: tests/realroot/enter.sh $dest
EOF
  say "kept the failed root's changes in $dest (open it with tests/realroot/enter.sh $dest)"
}

# ---------------------------------------------------------------- inside a root

# Runs CMD chrooted into $ROOT, with the clean environment a root shell has.
in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# Points the root's apt at the local repository and refreshes its lists.
# signed (default): Signed-By the repository key, the way a profile does it;
# trusted: [trusted=yes], for tests about something else.
root_use_testrepo() {
  local how=${1:-signed}
  local sources=$ROOT/etc/apt/sources.list.d/wslgpu-test.sources
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\n' "$TESTREPO_URI" "$TESTREPO_SUITE" "$TESTREPO_COMPONENT"
    if [[ $how == trusted ]]; then
      printf 'Trusted: yes\n'
    else
      mkdir -p "$ROOT/etc/apt/keyrings"
      cp "$TESTREPO_KEY" "$ROOT/etc/apt/keyrings/wslgpu-test.asc"
      printf 'Signed-By: /etc/apt/keyrings/wslgpu-test.asc\n'
    fi
  } >"$sources"
  in_root apt-get update --error-on=any -q >/dev/null || fail "apt-get update against the local repository failed"
}

# root_fake_nvidia_smi NAME: the root's /usr/lib/wsl/lib/nvidia-smi prints
# the recorded output nvidia-smi/NAME of the corpus (what a Windows driver
# printed; corpus/SOURCES.md says whose), and one GPU for -L. Stands for the
# Windows driver being that one, or being updated to it.
root_fake_nvidia_smi() {
  local corpus smi=$ROOT/usr/lib/wsl/lib/nvidia-smi
  corpus=$(corpus_file "nvidia-smi/$1")
  {
    printf '#!/bin/sh\n# Fake nvidia-smi: the recorded output %s.\n' "$1"
    printf 'if [ "$1" = "-L" ]; then\n  echo "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-00000000-1111-2222-3333-444444444444)"\n  exit 0\nfi\n'
    printf "cat <<'OUT'\n"
    cat "$corpus"
    printf '\nOUT\n'
  } >"$smi"
  chmod 0755 "$smi"
}

# trace_commands NAME...: from now on, each call of /usr/bin/NAME inside the
# root appends "NAME ARGS" to a log (read it with traced_calls). The real
# program still runs. The wrapper is bound over the program and the log lives
# in /run, so neither shows in a snapshot diff.
trace_commands() {
  local name dir=$ROOT/run/wslgpu-trace
  mkdir -p "$dir"
  : >>"$dir/calls"
  for name in "$@"; do
    [[ -f $ROOT/usr/bin/$name ]] || fail "trace_commands: $ROOT/usr/bin/$name does not exist"
    : >"$dir/$name.real"
    mount --bind "$ROOT/usr/bin/$name" "$dir/$name.real"
    printf '#!/bin/sh\nprintf "%%s\\n" "%s $*" >> /run/wslgpu-trace/calls\nexec /run/wslgpu-trace/%s.real "$@"\n' \
      "$name" "$name" >"$dir/$name.wrapper"
    chmod 0755 "$dir/$name.wrapper"
    mount --bind "$dir/$name.wrapper" "$ROOT/usr/bin/$name"
  done
}

# untrace_commands NAME...: /usr/bin/NAME is the real program again (the
# wrapper's bind removed); the log stays.
untrace_commands() {
  local name
  for name in "$@"; do umount "$ROOT/usr/bin/$name" || fail "untrace_commands: /usr/bin/$name is not traced"; done
}

# traced_calls [NAME]: the traced calls so far (of NAME only, when given).
traced_calls() {
  local log=$ROOT/run/wslgpu-trace/calls
  [[ -f $log ]] || return 0
  if [[ -n ${1:-} ]]; then grep -E "^$1( |$)" "$log" || true; else cat "$log"; fi
}

# ---------------------------------------------------------------- the tool and assertions

# tool ARGS...: runs the wslgpu-setup under test ($WSLGPU_BIN) from outside
# the root, as a user would with --root. Sets TOOL_STATUS, TOOL_OUT and
# TOOL_ERR, echoes all three to the log, and never fails by itself.
tool() {
  local out err
  out=$(mktemp) err=$(mktemp)
  TOOL_STATUS=0
  NO_COLOR=1 "${WSLGPU_BIN:?WSLGPU_BIN is not set}" "$@" >"$out" 2>"$err" || TOOL_STATUS=$?
  TOOL_OUT=$(cat "$out") TOOL_ERR=$(cat "$err")
  rm -f "$out" "$err"
  say "\$ wslgpu-setup $* -> exit $TOOL_STATUS"
  [[ -z $TOOL_OUT ]] || sed 's/^/  out| /' <<<"$TOOL_OUT" >&2
  [[ -z $TOOL_ERR ]] || sed 's/^/  err| /' <<<"$TOOL_ERR" >&2
}

# tool_has_command NAME: whether the tool under test has a NAME command;
# require_tool_command NAME fails the test when it has not.
# CLI11 answers --help after any word with the main help and exit 0, so the
# help must also be the command's own ("Usage: wslgpu-setup NAME").
tool_has_command() {
  local help
  help=$("$WSLGPU_BIN" "$1" --help 2>&1) && grep -q "^Usage: .*wslgpu-setup $1\b" <<<"$help"
}
require_tool_command() {
  tool_has_command "$1" || fail "$1 not implemented: \`wslgpu-setup $1 --help\` does not describe a $1 command"
}

# require_step_kinds KIND...: fails the test when the tool under test does
# not list every KIND in `wslgpu-setup kinds`.
require_step_kinds() {
  local kinds kind missing=()
  kinds=$("$WSLGPU_BIN" kinds 2>/dev/null | awk '{ print $1 }')
  for kind in "$@"; do grep -qx -- "$kind" <<<"$kinds" || missing+=("$kind"); done
  ((${#missing[@]} == 0)) || fail "step kinds not implemented: ${missing[*]} (not listed by \`wslgpu-setup kinds\`)"
}

assert_status() {
  local want=$1 what=${2:-wslgpu-setup}
  [[ $TOOL_STATUS == "$want" ]] || fail "$what exited $TOOL_STATUS, expected $want"
}
# assert_contains TEXT PATTERN [WHAT]: PATTERN is an extended regular expression.
assert_contains() {
  local text=$1 pattern=$2 what=${3:-output}
  grep -Eq -- "$pattern" <<<"$text" || fail "$what does not match /$pattern/; it was:"$'\n'"$text"
}
assert_not_contains() {
  local text=$1 pattern=$2 what=${3:-output}
  if grep -Eq -- "$pattern" <<<"$text"; then
    fail "$what matches /$pattern/ but must not:"$'\n'"$(grep -E -- "$pattern" <<<"$text")"
  fi
}
assert_eq() {
  local got=$1 want=$2 what=${3:-value}
  [[ $got == "$want" ]] || fail "$what is \"$got\", expected \"$want\""
}
# expect_status N CMD...: runs CMD, which must exit N; its output goes to
# the log and into LAST_OUTPUT.
expect_status() {
  local want=$1 status=0
  shift
  LAST_OUTPUT=$("$@" 2>&1) || status=$?
  sed 's/^/  | /' <<<"$LAST_OUTPUT" >&2
  [[ $status == "$want" ]] || fail "\`$*\` exited $status, expected $want"
}
# assert_same_snapshot A B: the diff must be empty.
assert_same_snapshot() {
  local report
  report=$(snapshot_diff "$1" "$2") || fail "${3:-the root changed}:"$'\n'"$report"
}
# assert_installed ROOT PACKAGE... / assert_not_installed ROOT PACKAGE...
assert_installed() {
  local root=$1 p
  shift
  for p in "$@"; do
    [[ $(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null) == "ii " ]] ||
      fail "$p is not installed in the root"
  done
}
assert_not_installed() {
  local root=$1 p status
  shift
  for p in "$@"; do
    status=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [[ -z $status || $status == "un " || $status == "n  " ]] || fail "$p is present in the root (dpkg status \"$status\")"
  done
}
