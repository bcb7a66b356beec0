#!/usr/bin/env bash
# tests/realroot/run.sh: the real-root tier. Runs each scenario against
# disposable Debian 12 roots with their own apt, dpkg and shadow tools.
#
#   run.sh WSLGPU_SETUP_BINARY [SCENARIO_FILE...]
#   run.sh --prepare [SCENARIO_FILE...]
#
# Without scenario files it runs every tests/realroot/scenarios/*.sh. Each
# scenario file defines a function `scenario`, run in its own process with a
# timeout, several at once. One line per scenario (PASS/FAIL and its time; a failure is
# followed by its log; SKIP and the reason for one that needs what this
# machine lacks, e.g. the corpus), then "N passed, N failed". Exit 1 if any failed.
#
# --prepare builds only what a run takes from the test cache and lacks: the
# base tarball, then what the scenarios' `prepare_cache` functions build
# (the package scenario's Debian 12 and 13 roots). It needs no binary, so CI
# starts it in the background while it compiles (mostly a wait on the
# mirror); a run that starts meanwhile waits for a tarball still being built
# (each has its own lock) and builds what is missing itself.
#
# Environment:
#   WSLGPU_SKIP_REALROOT=1   skip the whole tier, loudly (a developer's choice; CI never sets it)
#   WSLGPU_KEEP_FAILED=1     keep a failed root's changes (see docs/testing.md)
#   WSLGPU_KEEP_DIR          where to keep them (default /var/tmp/wslgpu-realroot-kept)
#   WSLGPU_TEST_CACHE        where the base tarball is cached (default /var/cache/wslgpu-setup-tests)
#   WSLGPU_REALROOT_TIMEOUT  seconds per scenario (default 300, or what a
#                            scenario's "# realroot-timeout: SECONDS" line says)
#   WSLGPU_REALROOT_VERBOSE=1  print every scenario's log, passed ones too
#   WSLGPU_REALROOT_JOBS     scenarios run at once (default: the number of cores)
#   WSLGPU_CORPUS_DIR        the corpus of real files (default: shared/corpus beside the source
#                            folder; ctest sets it from CMake's WSLGPU_CORPUS_DIR)
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

mode=""
if [[ ${1:-} == --prepare ]]; then
  mode=--prepare
  shift
  WSLGPU_BIN=""
else
  [[ $# -ge 1 ]] || fail "usage: run.sh WSLGPU_SETUP_BINARY [SCENARIO_FILE...] | run.sh --prepare [SCENARIO_FILE...]"
  WSLGPU_BIN=$(realpath "$1")
  shift
  [[ -x $WSLGPU_BIN ]] || fail "$WSLGPU_BIN is not an executable wslgpu-setup"
  export WSLGPU_BIN
fi

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
  if [[ $mode == --prepare ]]; then set -- --prepare; else set -- "$WSLGPU_BIN"; fi
  exec unshare --mount --propagation private -- env REALROOT_IN_NAMESPACE=1 "$0" "$@" "${scenarios[@]}"
fi
REALROOT_RUN=$(mktemp -d "${TMPDIR:-/tmp}/wslgpu-realroot.XXXXXX")
mount -t tmpfs -o mode=0755 wslgpu-realroot "$REALROOT_RUN" || fail "cannot mount a tmpfs for the run at $REALROOT_RUN"
trap 'umount -l "$REALROOT_RUN"; rmdir "$REALROOT_RUN"' EXIT

if [[ $mode == --prepare ]]; then
  # The tarballs only, in the cache; each scenario's prepare_cache in a
  # process of its own, as its scenario would run.
  base_tarball_cached
  for file in "${scenarios[@]}"; do
    grep -q '^prepare_cache()' "$file" || continue
    name=$(basename "$file" .sh)
    mkdir -p "$REALROOT_RUN/s-$name"
    REALROOT_SCENARIO=$name REALROOT_SCENARIO_TMP=$REALROOT_RUN/s-$name \
      bash -Eeuo pipefail -c 'source "$1"; source "$2"; prepare_cache' realroot "$here/lib.sh" "$file"
    rm -rf "${REALROOT_RUN:?}/s-$name"
  done
  say "prepared the test cache ${REALROOT_CACHE} in $(elapsed_since "$run_start") s"
  exit 0
fi
realroot_setup
say "setup: $(elapsed_since "$run_start") s"

if tool_has_command install; then
  say "wslgpu-setup install: present"
else
  say "wslgpu-setup install: not implemented yet (scenarios that need it fail)"
fi

# Scenarios run side by side, WSLGPU_REALROOT_JOBS at a time (default: the
# number of cores). Each has its own temporary folder and every root its own
# mount, network and pid namespaces, so they cannot see each other; many of
# them spend their time waiting (a postinst that sleeps, a crash loop's
# dpkg), which is why two at a time gain even on a busy 2-core machine.
jobs=${WSLGPU_REALROOT_JOBS:-$(nproc)}
((jobs >= 1)) || jobs=1

# run_one FILE: one scenario, in the background; leaves NAME.status and
# NAME.took next to its log.
run_one() {
  local file=$1 name log tmp start status=0 limit
  name=$(basename "$file" .sh)
  log=$REALROOT_RUN/$name.log
  tmp=$REALROOT_RUN/s-$name
  mkdir -p "$tmp"
  start=$EPOCHREALTIME
  limit=${WSLGPU_REALROOT_TIMEOUT:-$(sed -n 's/^# realroot-timeout: \([0-9][0-9]*\)$/\1/p' "$file" | head -n 1)}
  limit=${limit:-300}
  REALROOT_SCENARIO=$name REALROOT_SCENARIO_TMP=$tmp \
    timeout --kill-after=10 "$limit" \
    bash -Eeuo pipefail -c 'source "$1"; source "$2"; declare -F scenario >/dev/null || fail "$2 defines no function scenario"; scenario' \
    realroot "$here/lib.sh" "$file" >"$log" 2>&1 || status=$?
  elapsed_since "$start" >"$REALROOT_RUN/$name.took"
  echo "$limit" >"$REALROOT_RUN/$name.limit"
  echo "$status" >"$REALROOT_RUN/$name.status"
  rm -rf "$tmp"
}

passed=0 failed=0 skipped=0
# report NAME: its line (and its log when it failed, or always when verbose).
report() {
  local name=$1 status took limit why=""
  status=$(<"$REALROOT_RUN/$name.status")
  took=$(<"$REALROOT_RUN/$name.took")
  limit=$(<"$REALROOT_RUN/$name.limit")
  if ((status == 77)); then
    # skip (lib.sh): what the machine lacks, said loudly, with the reason.
    skipped=$((skipped + 1))
    printf 'SKIP  %-40s %6s s  %s\n' "$name" "$took" "$(sed -n 's/^SKIPPED: //p' "$REALROOT_RUN/$name.log" | tail -n 1)"
  elif ((status == 0)); then
    passed=$((passed + 1))
    printf 'PASS  %-40s %6s s\n' "$name" "$took"
    if [[ ${WSLGPU_REALROOT_VERBOSE:-0} == 1 ]]; then sed 's/^/      | /' "$REALROOT_RUN/$name.log"; fi
  else
    failed=$((failed + 1))
    ((status != 124 && status != 137)) || why=" (timed out after $limit s)"
    printf 'FAIL  %-40s %6s s%s\n' "$name" "$took" "$why"
    sed 's/^/      | /' "$REALROOT_RUN/$name.log"
  fi
}

# The longest first (by the times of the last run on this machine, kept in
# the test cache; else by scenario-times beside this script, measured on a
# 2-core machine, for a machine whose cache is new, as in a cold CI run; a
# scenario in neither counts as long): with the short ones last, the cores
# stay busy to the end instead of one long scenario running alone.
times_file=$REALROOT_CACHE/realroot-times
known_times=(/dev/null)
for f in "$here/scenario-times" "$times_file"; do [[ ! -f $f ]] || known_times+=("$f"); done
mapfile -t ordered < <(
  for file in "${scenarios[@]}"; do
    name=$(basename "$file" .sh)
    took=$(awk -v n="$name" '$1 == n { t = $2 } END { print (t == "" ? 999999 : t) }' "${known_times[@]}")
    printf '%s\t%s\n' "$took" "$file"
  done | LC_ALL=C sort -t$'\t' -k1,1gr -k2,2 | cut -f2-)
((${#ordered[@]} == ${#scenarios[@]})) || fail "could not order the ${#scenarios[@]} scenarios by their times"
scenarios=("${ordered[@]}")

say "scenarios: ${#scenarios[@]}, $jobs at a time"
declare -A running=()
for file in "${scenarios[@]}"; do
  while ((${#running[@]} >= jobs)); do
    wait -n -p finished || true
    report "${running[$finished]}"
    unset 'running[$finished]'
  done
  run_one "$file" &
  running[$!]=$(basename "$file" .sh)
done
while ((${#running[@]} > 0)); do
  wait -n -p finished || true
  report "${running[$finished]}"
  unset 'running[$finished]'
done
# This run's times of the scenarios that passed (a failure can end early),
# for the next run's order, merged into what the last runs measured, so
# that a run of a few scenarios keeps the others' times.
{
  [[ ! -f $times_file ]] || cat "$times_file"
  for file in "${scenarios[@]}"; do
    name=$(basename "$file" .sh)
    [[ $(<"$REALROOT_RUN/$name.status") == 0 ]] || continue
    printf '%s %s\n' "$name" "$(<"$REALROOT_RUN/$name.took")"
  done
} | awk '{ t[$1] = $2 } END { for (n in t) print n, t[n] }' | LC_ALL=C sort >"$times_file.new" && mv "$times_file.new" "$times_file"
say "total: $(elapsed_since "$run_start") s"
if ((skipped > 0)); then echo "$passed passed, $failed failed, $skipped SKIPPED (each SKIP line says why)"; else echo "$passed passed, $failed failed"; fi
((failed == 0))
