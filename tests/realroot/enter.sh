#!/usr/bin/env bash
# tests/realroot/enter.sh KEPT_DIR [COMMAND...]: opens a shell (or runs
# COMMAND) inside a root that a failed scenario left behind with
# WSLGPU_KEEP_FAILED=1. The kept changes are mounted over the cached base,
# as during the test, in private namespaces; what you change in there is
# thrown away when you leave, the kept folder stays as it was.
set -Eeuo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

kept=${1:?usage: enter.sh KEPT_DIR [COMMAND...]}
shift
kept=$(realpath "$kept")
[[ -d $kept/upper && -f $kept/base ]] || fail "$kept is not a folder kept by WSLGPU_KEEP_FAILED=1 (no upper/ or base)"
tarball=$(cat "$kept/base")
[[ -s $tarball ]] || fail "the base tarball $tarball is gone (the harness version changed?); only the changes in $kept/upper remain"
realroot_preflight
(($# > 0)) || set -- /bin/bash -l

if [[ -z ${REALROOT_IN_NAMESPACE:-} ]]; then
  exec unshare --mount --propagation private -- env REALROOT_IN_NAMESPACE=1 "$0" "$kept" "$@"
fi
REALROOT_RUN=$(mktemp -d "${TMPDIR:-/tmp}/wslgpu-realroot-enter.XXXXXX")
mount -t tmpfs -o mode=0755 wslgpu-realroot "$REALROOT_RUN"
trap 'umount -l "$REALROOT_RUN"; rmdir "$REALROOT_RUN"' EXIT
mkdir -p "$REALROOT_RUN/base"
# cat drains the padding tar leaves unread (else zstd may die of SIGPIPE; lib.sh's base_root).
zstd -dcq "$tarball" | { tar -x --numeric-owner --xattrs --xattrs-include='*' -C "$REALROOT_RUN/base" && cat >/dev/null; }
layers=$REALROOT_RUN/base wsl=0
if [[ -d $kept/wsl ]]; then
  cp -a "$kept/wsl" "$REALROOT_RUN/wsl"
  layers=$REALROOT_RUN/wsl:$layers wsl=1
fi
# The kept upper layer is copied, so that the kept folder stays as it was.
t=$REALROOT_RUN/root
mkdir -p "$t/work" "$t/merged"
cp -a "$kept/upper" "$t/upper"
cp "$kept/osrelease" "$t/osrelease"
test_repo "$REALROOT_RUN/repo" # a fresh repository (new key) for /srv/testrepo
export TESTREPO_DIR
say "entering the kept root of $kept (changes made here are discarded on exit)"
_enter_shell() { in_root "$@"; }
_root_inside "$t" "$layers" "$wsl" _enter_shell "$@"
