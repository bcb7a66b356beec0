#!/usr/bin/env bash
# tests/realroot/run.sh: the real-root tier. Runs each scenario against
# disposable Debian 12 roots with their own apt, dpkg and shadow tools.
#
#   run.sh WSLGPU_SETUP_BINARY [SCENARIO_FILE...]
#
# Without scenario files it runs every tests/realroot/scenarios/*.sh. Each
# scenario file defines a function `scenario`, run in its own process with a
# timeout. One line per scenario (PASS/FAIL and its time; a failure is
# followed by its log), then "N passed, N failed". Exit 1 if any failed.
#
# Environment:
#   WSLGPU_SKIP_REALROOT=1   skip the whole tier, loudly (a developer's choice; CI never sets it)
#   WSLGPU_KEEP_FAILED=1     keep a failed root's changes (see docs/testing.md)
#   WSLGPU_KEEP_DIR          where to keep them (default /var/tmp/wslgpu-realroot-kept)
#   WSLGPU_TEST_CACHE        where the base tarball is cached (default /var/cache/wslgpu-setup-tests)
#   WSLGPU_REALROOT_TIMEOUT  seconds per scenario (default 300, or what a
#                            scenario's "# realroot-timeout: SECONDS" line says)
#   WSLGPU_REALROOT_VERBOSE=1  print every scenario's log, passed ones too
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${WSLGPU_SKIP_REALROOT:-0} == 1 ]]; then
  echo "************************************************************************"
  echo "SKIPPED: real-root tier NOT RUN because WSLGPU_SKIP_REALROOT=1 is set."
  echo "Nothing was tested against real apt, dpkg or shadow tools."
  echo "************************************************************************"
  exit 0
fi

# shellcheck source=lib.sh
source "$here/lib.sh"

[[ $# -ge 1 ]] || fail "usage: run.sh WSLGPU_SETUP_BINARY [SCENARIO_FILE...]"
WSLGPU_BIN=$(realpath "$1")
shift
[[ -x $WSLGPU_BIN ]] || fail "$WSLGPU_BIN is not an executable wslgpu-setup"
export WSLGPU_BIN

scenarios=("$@")
if ((${#scenarios[@]} == 0)); then
  scenarios=("$here"/scenarios/*.sh)
  [[ -e ${scenarios[0]} ]] || fail "no scenarios in $here/scenarios"
fi

run_start=$EPOCHREALTIME
realroot_preflight
# The whole run lives in a private mount namespace, on a tmpfs of its own:
# the base, the layers and every test root vanish with the run, even when it
# is killed, and no disk is slow enough to matter.
if [[ -z ${REALROOT_IN_NAMESPACE:-} ]]; then
  exec unshare --mount --propagation private -- env REALROOT_IN_NAMESPACE=1 "$0" "$WSLGPU_BIN" "${scenarios[@]}"
fi
REALROOT_RUN=$(mktemp -d "${TMPDIR:-/tmp}/wslgpu-realroot.XXXXXX")
mount -t tmpfs -o mode=0755 wslgpu-realroot "$REALROOT_RUN" || fail "cannot mount a tmpfs for the run at $REALROOT_RUN"
trap 'umount -l "$REALROOT_RUN"; rmdir "$REALROOT_RUN"' EXIT
realroot_setup
say "setup: $(elapsed_since "$run_start") s"

if tool_has_command install; then
  say "wslgpu-setup install: present"
else
  say "wslgpu-setup install: not implemented yet (scenarios that need it fail)"
fi

passed=0 failed=0
for file in "${scenarios[@]}"; do
  name=$(basename "$file" .sh)
  log=$REALROOT_RUN/$name.log
  tmp=$REALROOT_RUN/s-$name
  mkdir -p "$tmp"
  start=$EPOCHREALTIME
  status=0
  limit=${WSLGPU_REALROOT_TIMEOUT:-$(sed -n 's/^# realroot-timeout: \([0-9][0-9]*\)$/\1/p' "$file" | head -n 1)}
  limit=${limit:-300}
  REALROOT_SCENARIO=$name REALROOT_SCENARIO_TMP=$tmp \
    timeout --kill-after=10 "$limit" \
    bash -Eeuo pipefail -c 'source "$1"; source "$2"; declare -F scenario >/dev/null || fail "$2 defines no function scenario"; scenario' \
    realroot "$here/lib.sh" "$file" >"$log" 2>&1 || status=$?
  took=$(elapsed_since "$start")
  if ((status == 0)); then
    passed=$((passed + 1))
    printf 'PASS  %-40s %6s s\n' "$name" "$took"
    if [[ ${WSLGPU_REALROOT_VERBOSE:-0} == 1 ]]; then sed 's/^/      | /' "$log"; fi
  else
    failed=$((failed + 1))
    why=""
    ((status != 124 && status != 137)) || why=" (timed out after $limit s)"
    printf 'FAIL  %-40s %6s s%s\n' "$name" "$took" "$why"
    sed 's/^/      | /' "$log"
  fi
  rm -rf "$tmp"
done
say "total: $(elapsed_since "$run_start") s"
echo "$passed passed, $failed failed"
((failed == 0))
