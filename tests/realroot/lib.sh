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
#   snapshot ROOT OUT [--exclude /PATH]...  and  snapshot_diff A B: record and compare a root.
#   tool ARGS...                   runs the wslgpu-setup under test; sets TOOL_STATUS, TOOL_OUT, TOOL_ERR.
#   serve_https DIR, network_off   a loopback HTTPS server ($HTTPS_URL); then no network at all.
#   serve_proxy                    a CONNECT proxy on the root's loopback ($PROXY_URL, $PROXY_LOG).
#   wheels.sh                      fake PyTorch wheels served to a root (pytorch_www, torch_smoke, ...).
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

# debian_root_tarball SUITE PACKAGES TARBALL WHAT: a minbase root of SUITE
# with PACKAGES (comma-separated) from this machine's apt mirror, as a tar
# in TARBALL, named WHAT in messages. The hooks: apt inside a test may use
# only the local repository (no sources from the mirror, no translations);
# dpkg skips fsync (the roots are thrown away); the repository's mount
# point exists; nothing of this machine (its host name, its resolver) ends
# up in the tarball. The chroot is assembled in the run's tmpfs: far faster
# than a disk.
debian_root_tarball() {
  local suite=$1 packages=$2 tarball=$3 what=$4 tmp log lines mirrors
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
    "$suite" "$tmp" "${mirrors[@]}" >"$log" 2>&1; then
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
source "$REALROOT_LIB_DIR/containers.sh"

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
    TESTREPO_NVCT_KEY TESTREPO_NVCT_KEY_FINGERPRINT
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

# serve_https DIR: serves DIR over HTTPS on 127.0.0.1 inside this root's
# network namespace, and sets HTTPS_URL to its address (https://127.0.0.1:PORT,
# no trailing slash). For downloads a profile makes (the librocdxg .deb):
# the tool fetches them through libcurl, as from a vendor's server. The
# namespace's loopback is brought up (it has nothing else); the certificate
# is the run's (testrepo.sh, _testrepo_tls), whose CA is added to the CA
# bundle libcurl reads (/etc/ssl/certs/ca-certificates.crt, bound over in
# this mount namespace only, and written into the root's own when it has
# one, for pip inside the root). The server (python3's http.server) ends with the
# namespace. Call it from a with_root function, before the snapshot the
# test compares with (the root's bundle is part of every later snapshot).
# REALROOT_HTTPS_SLOW=GLOB (with REALROOT_HTTPS_RATE=BYTES_PER_SECOND,
# default 512) makes it a vendor's server seen over a slow line, for tests of
# an interrupted download: the files whose name matches GLOB (fnmatch) are
# sent at that rate, every file answers a Range request (206, or 416 past
# its end) as most web servers do, and each GET's Range header and bytes
# sent are logged ("served PATH range=... status=... sent=N [cut]") in
# $REALROOT_SCENARIO_TMP/https.log. Unset, the server is http.server's own.
# REALROOT_HTTPS_ONLY_FROM=ADDRESS answers 403 to a client from any other
# address (serve_proxy's tunnels come from 127.0.0.5).
serve_https() {
  local dir=${1:?serve_https needs a folder} port=8443 bundle=$REALROOT_SCENARIO_TMP/ca-bundle.crt i
  ip link set lo up || fail "serve_https: cannot bring up the loopback of the root's network namespace"
  { cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; cat "$TESTREPO_TLS_DIR/ca.pem"; } >"$bundle"
  [[ -e /etc/ssl/certs/ca-certificates.crt ]] || fail "serve_https: the host has no /etc/ssl/certs/ca-certificates.crt to add the test CA to (HOST-PACKAGES: ca-certificates)"
  mount --bind "$bundle" /etc/ssl/certs/ca-certificates.crt
  # And the root's own, which pip in a venv of the root reads (Debian's pip
  # uses the system bundle), when the root has one: written into the root
  # rather than bound over, so that snapshots keep hashing only the upper
  # layer (a bind would make them hash every file).
  if [[ -n ${ROOT:-} && -f $ROOT/etc/ssl/certs/ca-certificates.crt && ! -L $ROOT/etc/ssl/certs/ca-certificates.crt ]]; then
    cat "$TESTREPO_TLS_DIR/ca.pem" >>"$ROOT/etc/ssl/certs/ca-certificates.crt"
  fi
  /usr/bin/python3 - "$dir" "$port" "$TESTREPO_TLS_DIR" "${REALROOT_HTTPS_SLOW:-}" "${REALROOT_HTTPS_RATE:-512}" \
    "${REALROOT_HTTPS_ONLY_FROM:-}" >"$REALROOT_SCENARIO_TMP/https.log" 2>&1 <<'EOF' &
import fnmatch, functools, http.server, os, re, ssl, sys, time
folder, port, tls, slow, rate, only_from = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]


class Handler(http.server.SimpleHTTPRequestHandler):
    """With ONLY_FROM: a request from any other address gets 403 (serve_proxy)."""

    def parse_request(self):
        if not super().parse_request():
            return False
        if only_from and self.client_address[0] != only_from:
            self.send_error(403, "reached directly, not through the proxy")
            return False
        return True


class SlowRangeHandler(Handler):
    """Range requests (one range) for every file, and the SLOW files at RATE."""

    def do_GET(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return super().do_GET()
        size = os.path.getsize(path)
        want = self.headers.get("Range")
        start, end, status = 0, size - 1, 200
        if want:
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", want.strip())
            if not m:
                self.send_error(400, "unsupported Range")
                return
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.log_message("served %s range=%s status=416 sent=0", self.path, want)
                return
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        throttled = fnmatch.fnmatch(os.path.basename(path), slow)
        chunk = max(1, rate // 8) if throttled else 1 << 20
        sent, cut = 0, ""
        with open(path, "rb") as f:
            f.seek(start)
            try:
                while sent < end - start + 1:
                    data = f.read(min(chunk, end - start + 1 - sent))
                    if not data:
                        break
                    self.wfile.write(data)
                    self.wfile.flush()
                    sent += len(data)
                    if throttled:
                        time.sleep(len(data) / rate)
            except (OSError, ssl.SSLError):
                cut = " cut"
        self.log_message("served %s range=%s status=%d sent=%d%s", self.path, want or "none", status, sent, cut)


handler_class = SlowRangeHandler if slow else Handler
handler = functools.partial(handler_class, directory=folder)
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(tls + "/server.pem", tls + "/server.key")
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
EOF
  for ((i = 0; i < 100; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  ((i < 100)) || fail "serve_https: the server did not listen on 127.0.0.1:$port: $(cat "$REALROOT_SCENARIO_TMP/https.log")"
  HTTPS_URL=https://127.0.0.1:$port
}

# serve_proxy: an HTTP proxy on the root's loopback (CONNECT only, what a
# client sends for an https:// URL) at $PROXY_URL, which opens each tunnel
# from 127.0.0.5 and logs a "CONNECT HOST:PORT" line per tunnel to
# $PROXY_LOG. With REALROOT_HTTPS_ONLY_FROM=127.0.0.5 set for serve_https,
# the server answers 403 to whatever reaches it directly: a program that
# was not given the proxy variables fails instead of passing.
serve_proxy() {
  local port=3128 i
  PROXY_LOG=$REALROOT_SCENARIO_TMP/proxy.log
  ip link set lo up || fail "serve_proxy: cannot bring up the loopback of the root's network namespace"
  /usr/bin/python3 - "$port" >"$PROXY_LOG" 2>&1 <<'EOF' &
import select, socket, socketserver, sys


class Tunnel(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline(65536).decode("latin-1").strip()
        while self.rfile.readline(65536) not in (b"\r\n", b"\n", b""):
            pass
        words = line.split()
        if len(words) != 3 or words[0] != "CONNECT":
            self.wfile.write(b"HTTP/1.1 405 only CONNECT\r\nContent-Length: 0\r\n\r\n")
            print("refused", line, flush=True)
            return
        host, _, port = words[1].rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=30, source_address=("127.0.0.5", 0))
        except OSError as e:
            self.wfile.write(b"HTTP/1.1 502 cannot connect\r\nContent-Length: 0\r\n\r\n")
            print("failed", words[1], e, flush=True)
            return
        print("CONNECT", words[1], flush=True)
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        ends = [self.connection, upstream]
        while True:
            ready, _, _ = select.select(ends, [], [], 60)
            if not ready:
                break
            for s in ready:
                data = s.recv(1 << 16)
                if not data:
                    upstream.close()
                    return
                (upstream if s is self.connection else self.connection).sendall(data)


socketserver.ThreadingTCPServer.allow_reuse_address = True
socketserver.ThreadingTCPServer.daemon_threads = True
socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), Tunnel).serve_forever()
EOF
  for ((i = 0; i < 100; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  ((i < 100)) || fail "serve_proxy: the proxy did not listen on 127.0.0.1:$port: $(cat "$PROXY_LOG")"
  PROXY_URL=http://127.0.0.1:$port
}

# network_off: takes the root's network namespace down to nothing (its
# loopback down, so that not even serve_https answers), and checks that a
# connection now fails. For "converged, with no network".
network_off() {
  ip link set lo down || fail "network_off: cannot bring the loopback down"
  # With the loopback down a connect may hang until TCP gives up (about
  # 130 s), not fail at once: a connection within 2 s is the failure.
  if timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/8443' 2>/dev/null; then fail "network_off: 127.0.0.1:8443 still answers"; fi
  return 0
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

# ---------------------------------------------------------------- snapshots

# What a snapshot leaves out, and why:
#   /proc /dev /sys /run /tmp   kernel views and volatile folders, mounted per test
#   /srv/testrepo               the local repository, bound in read-only
#   /var/cache/apt              apt's download and binary caches, rebuilt at will
#   /var/cache/ldconfig         ldconfig's auxiliary cache (/etc/ld.so.cache itself is compared)
#   /var/lib/apt/lists          indexes that apt-get update derives from the sources, which
#                               are compared; lists of a source that is gone are inert and
#                               the next update deletes them
#   /var/log                    history (dpkg.log, apt/history.log), not state
#   /var/lib/apt/extended_states  compared as the set of packages it marks automatically
#                               installed (its own section): apt rewrites it in the order
#                               of its cache, which is not state
#   lock files and *-old        dpkg and apt locks, dpkg's and debconf's previous copies
#   /etc/{passwd,group,shadow,gshadow}-   the shadow tools' copy of the previous version
REALROOT_SNAPSHOT_SKIP=(/proc /dev /sys /run /tmp /srv/testrepo /var/cache/apt /var/cache/ldconfig
  /var/lib/apt/lists /var/log /var/lib/apt/extended_states)
REALROOT_SNAPSHOT_SKIP_GLOBS=(/var/lib/dpkg/lock /var/lib/dpkg/lock-frontend /var/lib/dpkg/triggers/Lock
  '/var/lib/dpkg/*-old' '/var/cache/debconf/*-old' /etc/passwd- /etc/group- /etc/shadow- /etc/gshadow-)

# snapshot ROOT OUT [--exclude /PATH]... [--keep /PATH]...: writes to OUT
# every file's path, type, mode, owner (numeric), size and sha256 (a
# symlink's target instead, a device's numbers), the dpkg installed set, the
# packages apt marks as automatically installed, /etc/group and /etc/gshadow.
# --exclude leaves out more (for example the tool's own state folder); --keep
# puts back one of the paths left out by default (/var/log, /var/cache/apt,
# /var/lib/apt/lists), for a test that proves nothing was written there either.
snapshot() {
  local root=${1:?snapshot ROOT OUT} out=${2:?snapshot ROOT OUT}
  shift 2
  local -a skip=("${REALROOT_SNAPSHOT_SKIP[@]}") globs=("${REALROOT_SNAPSHOT_SKIP_GLOBS[@]}") expr=()
  local keep i
  while (($#)); do
    case $1 in
      --exclude) skip+=("${2:?--exclude needs a path}"); shift 2 ;;
      --keep)
        keep=${2:?--keep needs a path}
        for i in "${!skip[@]}"; do [[ ${skip[$i]} != "$keep" ]] || unset 'skip[i]'; done
        skip=("${skip[@]}")
        shift 2
        ;;
      *) fail "snapshot: unknown argument $1" ;;
    esac
  done
  local p
  for p in "${skip[@]}" "${globs[@]}"; do expr+=(-path "$root$p" -o); done
  unset 'expr[${#expr[@]}-1]'
  local hashes
  hashes=$(mktemp)
  if [[ $root == "${ROOT:-}" && -d ${REALROOT_ROOT_UPPER:-} && -f ${REALROOT_ROOT_LOWER_HASHES:-} ]] &&
    _only_the_overlay_under "$root" "${skip[@]}"; then
    # A root of with_root: hash the files its upper layer holds (and any the
    # lower layers' list lacks); the others are the lower layers' (lower_hashes).
    local listed uppers
    listed=$(mktemp) uppers=$(mktemp)
    (cd "$root" && find . \( "${expr[@]/#$root/.}" \) -prune -o -type f -print) >"$listed"
    (cd "$REALROOT_ROOT_UPPER" && find . -type f -print) >"$uppers"
    awk -v lower="$REALROOT_ROOT_LOWER_HASHES" -v uppers="$uppers" -v cached="$listed.cached" '
      BEGIN {
        while ((getline line < lower) > 0) sum[substr(line, 67)] = line
        while ((getline line < uppers) > 0) copied[line] = 1
      }
      { if (($0 in copied) || !($0 in sum)) printf "%s%c", $0, 0; else print sum[$0] > cached }
      END { close(cached) }' "$listed" |
      (cd "$root" && xargs -0r sha256sum) >"$hashes"
    [[ ! -f $listed.cached ]] || cat "$listed.cached" >>"$hashes"
    rm -f "$listed" "$listed.cached" "$uppers"
  else
    (cd "$root" && find . \( "${expr[@]/#$root/.}" \) -prune -o -type f -print0 | xargs -0r sha256sum) >"$hashes"
  fi
  {
    printf '## files\n'
    # path, type, mode, uid:gid, size, then sha256 (files), target (links), rdev (devices)
    find "$root" -mindepth 1 \( "${expr[@]}" \) -prune -o -printf '/%P\t%y\t%m\t%U:%G\t%s\t%l\n' |
      awk -F'\t' -v OFS='\t' -v hashes="$hashes" '
        BEGIN { while ((getline line < hashes) > 0) { sum[substr(line, 68)] = substr(line, 1, 64) } }
        {
          size = ($2 == "f" || $2 == "l") ? $5 : "-"
          extra = ($2 == "f") ? sum[$1] : ($2 == "l") ? $6 : "-"
          print $1, $2, $3, $4, size, extra
        }' | LC_ALL=C sort
    printf '## packages\n'
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Package}:${Architecture}\t${Version}\t${db:Status-Abbrev}\n' |
      LC_ALL=C sort
    printf '## apt auto-installed\n'
    if [[ -f $root/var/lib/apt/extended_states ]]; then
      awk 'BEGIN { RS = "" } /\nAuto-Installed: 1(\n|$)/ {
          name = $0; sub(/^Package: /, "", name); sub(/\n.*/, "", name)
          arch = $0; if (sub(/.*\nArchitecture: /, "", arch)) { sub(/\n.*/, "", arch); name = name ":" arch }
          print name
        }' "$root/var/lib/apt/extended_states" | LC_ALL=C sort
    fi
    printf '## /etc/group\n'
    cat "$root/etc/group"
    printf '## /etc/gshadow\n'
    cat "$root/etc/gshadow"
  } >"$out"
  rm -f "$hashes"
}

# _only_the_overlay_under ROOT SKIPPED...: whether every mount below ROOT,
# outside the SKIPPED paths, is ROOT's own overlay (a bind of a part of it,
# such as a read-only /etc): a filesystem mounted over a part of the root
# holds files the upper layer does not show, so snapshot() hashes them all.
_only_the_overlay_under() {
  local root=$1
  shift
  local point
  while IFS= read -r point; do
    local skipped=0 p
    for p in "$@"; do
      if [[ $point == "$root$p" || $point == "$root$p"/* ]]; then skipped=1; break; fi
    done
    ((skipped == 1)) && continue
    # mountinfo(5): ... MOUNT_POINT ... - FSTYPE SOURCE SUPER_OPTIONS
    awk -v m="$point" -v upper="upperdir=$REALROOT_ROOT_UPPER" '
      { for (i = 1; i <= NF; i++) if ($i == "-") break }
      $5 == m && $(i + 1) == "overlay" && index($(i + 3) ",", upper ",") > 0 { ok = 1 }
      END { exit !ok }' /proc/self/mountinfo || return 1
  done < <(awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo)
  return 0
}

# snapshot_diff A B: prints what differs between two snapshots, readably
# (+ added, - removed, ~ changed, then the changed lines of /etc/group and
# /etc/gshadow); returns 0 when they are equal and 1 otherwise.
snapshot_diff() {
  local a=${1:?snapshot_diff A B} b=${2:?snapshot_diff A B} report section
  report=$(awk -F'\t' '
    FNR == 1 { file++ }
    /^## / { section = substr($0, 4); next }
    section == "files" { if (file == 1) fa[$1] = $0; else fb[$1] = $0 }
    section == "packages" { if (file == 1) pa[$1] = $2 " (" $3 ")"; else pb[$1] = $2 " (" $3 ")" }
    section == "apt auto-installed" { if (file == 1) aa[$1] = 1; else ab[$1] = 1 }
    function describe(rec,   f, t) {
      split(rec, f, "\t")
      t = f[2] == "f" ? "file" : f[2] == "d" ? "directory" : f[2] == "l" ? "symlink to " f[6] : f[2] == "c" ? "character device" : "type " f[2]
      return t ", mode " f[3] ", owner " f[4] (f[2] == "f" ? ", " f[5] " bytes" : "")
    }
    function changes(ra, rb,   x, y, out) {
      split(ra, x, "\t"); split(rb, y, "\t"); out = ""
      if (x[2] != y[2]) out = out ", type " x[2] " -> " y[2]
      if (x[3] != y[3]) out = out ", mode " x[3] " -> " y[3]
      if (x[4] != y[4]) out = out ", owner " x[4] " -> " y[4]
      if (x[5] != y[5]) out = out ", size " x[5] " -> " y[5]
      if (x[6] != y[6]) out = out (x[2] == "l" ? ", target " x[6] " -> " y[6] : ", sha256 " substr(x[6], 1, 12) " -> " substr(y[6], 1, 12))
      return substr(out, 3)
    }
    END {
      for (p in fb) if (!(p in fa)) print "1\t  + " p "  (" describe(fb[p]) ")"
      for (p in fa) if (!(p in fb)) print "1\t  - " p "  (" describe(fa[p]) ")"
      for (p in fa) if ((p in fb) && fa[p] != fb[p]) print "1\t  ~ " p "  (" changes(fa[p], fb[p]) ")"
      for (p in pb) if (!(p in pa)) print "2\t  package + " p " " pb[p]
      for (p in pa) if (!(p in pb)) print "2\t  package - " p " " pa[p]
      for (p in pa) if ((p in pb) && pa[p] != pb[p]) print "2\t  package ~ " p " " pa[p] " -> " pb[p]
      for (p in ab) if (!(p in aa)) print "3\t  automatically installed + " p
      for (p in aa) if (!(p in ab)) print "3\t  automatically installed - " p
    }' "$a" "$b" | LC_ALL=C sort | cut -f2-)
  for section in /etc/group /etc/gshadow; do
    local before after
    before=$(sed -n "\\|^## $section\$|,/^## /{/^## /d;p}" "$a")
    after=$(sed -n "\\|^## $section\$|,/^## /{/^## /d;p}" "$b")
    if [[ $before != "$after" ]]; then
      report+=${report:+$'\n'}"  $section:"$'\n'
      report+=$(diff -U0 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | tail -n +3 | grep -v '^@@' | sed 's/^/    /')
    fi
  done
  if [[ -n $report ]]; then
    printf 'snapshots differ (%s -> %s):\n%s\n' "$a" "$b" "$report"
    return 1
  fi
  return 0
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

# ---------------------------------------------------------------- crash points

# crash_every_step_then_recover STEP...: for each STEP, a run SIGKILLed before
# and after it (WSLGPU_SETUP_CRASH_AT), then `recover --rollback` (the root
# must be as before the run) and `recover --resume` (it must match an
# uninterrupted run, and be converged: a plan then exits 0 and runs no
# apt). Each crash point runs once, in a fresh root; each recovery then
# runs in a root of its own that starts as the killed run left its root
# (with_root --save-changes and --from-changes), so the two recoveries do
# not repeat the same crash. In each, the next install must refuse (exit
# 5) before recover runs: the root is the interrupted one.
# Every point runs, so that one failure does not hide the others. The
# scenario defines:
#   crash_install_args   prints the arguments after --root, one per line,
#                        up to the manifest (e.g. --not-wsl, install, FILE)
#   crash_recover_args   prints the global options recover needs, one per line
#   crash_prepare        optional: run in each fresh root first (e.g. write the manifest)
crash_every_step_then_recover() {
  with_root crash_reference
  local step when how total=0 failed=() point crashed=$REALROOT_SCENARIO_TMP/crashed
  for step in "$@"; do
    for when in before after; do
      point=$step:$when
      if ! with_root --save-changes "$crashed" crash_at "$point"; then
        total=$((total + 2))
        failed+=("crash at $point, recover --rollback (not run: the crash failed)" "crash at $point, recover --resume (not run: the crash failed)")
        continue
      fi
      for how in --rollback --resume; do
        total=$((total + 1))
        with_root --from-changes "$crashed" recover_after_crash "$point" "$how" ||
          failed+=("crash at $point, recover $how")
      done
      rm -rf "$crashed"
    done
  done
  ((${#failed[@]} == 0)) || fail "${#failed[@]} of $total crash points did not recover:$(printf '\n  %s' "${failed[@]}")"
}

# The state of a fresh root, for the --rollback comparisons (every root of
# crash_at starts the same: an empty upper layer over the same lower ones,
# and crash_prepare writes only into the scenario's folder), and the state
# an uninterrupted install reaches, for the --resume comparisons.
crash_reference() {
  local args
  declare -F crash_prepare >/dev/null && crash_prepare
  mapfile -t args < <(crash_install_args)
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${args[@]}" --yes
  assert_status 0 "the uninterrupted install"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/reference" --exclude "$REALROOT_STATE_DIR"
}

# crash_at STEP:WHEN: in a fresh root, the run killed at STEP:WHEN.
crash_at() {
  local point=$1 args
  declare -F crash_prepare >/dev/null && crash_prepare
  mapfile -t args < <(crash_install_args)
  say "=== crash at $point"
  WSLGPU_SETUP_CRASH_AT=$point tool --root "$ROOT" "${args[@]}" --yes
  assert_status 137 "install killed at $point"
}

# recover_after_crash STEP:WHEN --rollback|--resume: in a root as crash_at
# left it, the next install refuses, then recover.
recover_after_crash() {
  local point=$1 how=$2 args globals
  mapfile -t args < <(crash_install_args)
  mapfile -t globals < <(crash_recover_args)
  say "=== crash at $point, then recover $how"
  tool --root "$ROOT" "${args[@]}" --yes
  assert_status 5 "install after the interrupted run"

  tool --root "$ROOT" "${globals[@]}" recover "$how" --yes
  assert_status 0 "recover $how after a crash at $point"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  if [[ $how == --rollback ]]; then
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" \
      "recover --rollback after a crash at $point left the root different from before the run"
  else
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/reference" "$REALROOT_SCENARIO_TMP/after" \
      "recover --resume after a crash at $point did not reach the state of an uninterrupted run"
    crash_then_converged "$point"
  fi
}

# After a resumed run: the root is converged, so a plan of the same install
# exits 0 with --detailed-exitcode and runs no apt at all (an unattended
# fleet's next run must not refresh the lists or report a change).
crash_then_converged() {
  local point=$1 args=() plan_args=() a replaced=0
  mapfile -t args < <(crash_install_args)
  for a in "${args[@]}"; do
    if ((replaced == 0)) && [[ $a == install ]]; then
      plan_args+=(plan)
      replaced=1
    else
      plan_args+=("$a")
    fi
  done
  trace_commands apt-get apt-cache apt
  tool --root "$ROOT" "${plan_args[@]}" --detailed-exitcode
  assert_status 0 "plan --detailed-exitcode after recover --resume from a crash at $point (converged)"
  local calls
  calls=$(traced_calls)
  [[ -z $calls ]] || fail "the plan after recover --resume from a crash at $point called apt:"$'\n'"$calls"
}
