#!/usr/bin/env bash
# How long the README's first command takes on a fresh Debian 12 machine,
# and whether it exits 0: a new Debian 12 minbase root (mmdebstrap, from
# this machine's apt mirror, as the real-root tier builds its roots), the
# committed source tree (git archive HEAD) in /src, and the command read
# from README.md (the line under "# 1."), run there as root, cold (no ccache,
# no apt cache). Prints the exit status, the seconds it took and the
# machine's cores; its output goes to a log beside the root. A figure, not a
# test (docs/testing.md, "The README's first command").
#
#   sudo bench/readme_first_command.sh [WORK_FOLDER]
#
# Needs root, mmdebstrap and the network to the machine's Debian mirror.
# WORK_FOLDER (default: a new folder under /var/tmp) keeps the root and the
# log; it is removed at the end unless KEEP=1.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/realroot/lib.sh
source "$src/tests/realroot/lib.sh"
((EUID == 0)) || fail "run it as root: it builds a Debian root and chroots into it"
work=${1:-$(mktemp -d /var/tmp/readme-first-command-XXXXXX)}
root=$work/root
log=$work/readme-first-command.log
mkdir -p "$work"

command=$(awk '/^# 1\./ { on = 1; next } on && NF { print; exit }' "$src/README.md")
[[ -n $command ]] || fail "README.md has no command under a line \"# 1. ...\""

mapfile -t mirrors < <(REALROOT_SUITE=bookworm base_mirror_lines)
say "building a fresh Debian 12 minbase root in $root (${#mirrors[@]} suites of this machine's mirror)"
mmdebstrap --variant=minbase --mode=root bookworm "$root" "${mirrors[@]}" >"$work/mmdebstrap.log" 2>&1 ||
  { tail -n 20 "$work/mmdebstrap.log" >&2; fail "mmdebstrap failed (log: $work/mmdebstrap.log)"; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/src"
git -C "$src" archive HEAD | tar -x -C "$root/src"

say "running the README's first command in it: $command"
start=$EPOCHSECONDS
status=0
unshare --mount --pid --fork bash -c '
  root=$1; shift
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb bash -c "cd /src && $1"
' bench "$root" "$command" >"$log" 2>&1 || status=$?
seconds=$((EPOCHSECONDS - start))

echo "README's first command on a fresh Debian 12 root: exit $status, $seconds s ($((seconds / 60)) min $((seconds % 60)) s) on $(nproc) cores"
echo "its last lines ($log):"
tail -n 4 "$log" | sed 's/^/  /'
if [[ ${KEEP:-0} != 1 ]]; then
  rm -rf "$work"
fi
exit "$status"
