#!/usr/bin/env bash
# Runs every fuzz target of a WSLGPU_FUZZ build for SECONDS each, one
# process per target and WSLGPU_FUZZ_JOBS of them at a time (default: the
# number of cores; libFuzzer's own -jobs would add a supervising process that
# logs to ./fuzz-0.log, in whatever folder this runs from), from the seeds of
# seeds.sh, and fails when any target finds a crash, a sanitizer report, a
# broken property, a leak or a hang. Prints one line per target:
#
#   target                 executions      exec/s  seconds  coverage  result
#   fuzz_ini                  1843412      184341       10      1234  ok
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET
#
# Environment: WSLGPU_FUZZ_JOBS=N targets at once; WSLGPU_FUZZ_RUNS=N stops a target after N executions when
# that comes first (the long run, docs/testing.md); WSLGPU_FUZZ_ONLY="ini
# deb822" runs only those targets. What a target finds is saved as
# BUILD_DIR/fuzz/artifacts/TARGET-crash-*, its log is BUILD_DIR/fuzz/logs/TARGET.log,
# and the inputs it learnt stay in BUILD_DIR/fuzz/corpus/TARGET for the next run.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET" >&2; exit 2; }
build=$(cd "$1" && pwd)
seconds=$2
info=$build/fuzz-targets.txt
[ -f "$info" ] || { echo "$build is not a WSLGPU_FUZZ build (no fuzz-targets.txt)" >&2; exit 2; }
corpus=$(sed -n 's/^corpus=//p' "$info")
source_dir=$(sed -n 's/^source=//p' "$info")
IFS=';' read -r -a targets <<<"$(sed -n 's/^targets=//p' "$info")"

work=$build/fuzz
rm -rf "$work/seeds"
mkdir -p "$work/logs" "$work/artifacts" "$work/corpus"
"$source_dir/tests/fuzz/seeds.sh" "$work/seeds" "$corpus" >"$work/logs/seeds.log" 2>&1 ||
  { cat "$work/logs/seeds.log" >&2; exit 1; }
grep '^seeds: skipping' "$work/logs/seeds.log" >&2 || true

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
runs=()
[ -n "${WSLGPU_FUZZ_RUNS:-}" ] && runs=(-runs="$WSLGPU_FUZZ_RUNS")

# Options of one target, beside the common ones.
#   fuzz_cdi_spec: inputs of at most 4 KB (-max_len=4096). yaml-cpp's time
#   grows with an input's size, and the target returns at once on more (no
#   spec is larger: NVIDIA's WSL spec, the largest seed, is 3.4 KB), so
#   libFuzzer spends no mutations on inputs it would throw away. Measured
#   (an optimised fuzz build, a busy machine): 661 executions a second.
#   fuzz_ini: inputs of at most 8 KB (-max_len=8192). Its seeds include
#   Ansible's ini_file test playbooks (up to 27 KB), and libFuzzer lets
#   inputs grow to the largest seed; the largest real .wslconfig or wsl.conf
#   in the corpus is 4.5 KB, and IniDocument reads one line at a time.
#   Measured (30,000 runs from the same corpus, a busy
#   machine): 1,250 executions a second uncapped, 3,000 at 8 KB.
#   fuzz_manifest: inputs of at most 4 KB (-max_len=4096). The bundled
#   profiles are its largest seeds (up to 19 KB), and libFuzzer lets inputs
#   grow to the largest seed, while 4 KB holds every TOML construct and
#   several steps of each kind. Measured (60 s from its long-run corpus of
#   1,367 inputs, the other core busy): 478 executions a second at 8 KB,
#   1,289 at 4 KB.
#   fuzz_apt_sources: inputs of at most 2 KB (-max_len=2048). Its seeds are
#   at most 331 bytes, and libFuzzer lets inputs grow to 4 KB; each
#   execution reads the input four times and edits it three, so its time
#   grows with the input's size. Measured: 933 executions a second
#   uncapped, in a long run stopped by hand after 312 s; 1,166 capped, over
#   the 8,569 s of a 10-million run from the same corpus.
target_options() {
  case $1 in
    fuzz_cdi_spec) echo "-max_len=4096" ;;
    fuzz_ini) echo "-max_len=8192" ;;
    fuzz_manifest) echo "-max_len=4096" ;;
    fuzz_apt_sources) echo "-max_len=2048" ;;
  esac
}

# ASan options of one target, beside the common ones.
#   fuzz_cdi_spec: ASan keeps no allocation stacks
#   (ASAN_OPTIONS=malloc_context_size=0). It records each allocation's
#   stack in a table that never shrinks, and this target's stacks hardly
#   repeat: 1,864,646 of them (109 MB) after 67,222 executions from its
#   corpus, 1,468,985 with 5 frames each, 813 with 2 (ASan's print_stats);
#   so a long run grew by hundreds of MB an hour (470 MB to 1,345 over 3.4
#   million executions) and slowed as it grew (2,108 executions a second at
#   0.4 million, 1,084 at 2.5 million). Without them it ran 546 a second
#   against 445 (100 s each, side by side), and a long run stayed at 535 MB
#   over 3.6 million executions (1,709 a second from 2.3 to 3.3 million). A
#   report still shows where the bug is; to see where its memory was
#   allocated and freed, run the artifact again without the option.
target_asan_options() {
  case $1 in
    fuzz_cdi_spec) echo ":malloc_context_size=0" ;;
  esac
}

jobs=${WSLGPU_FUZZ_JOBS:-$(nproc)}
((jobs >= 1)) || jobs=1

# fuzz_one TARGET: runs it; leaves its line of the table in logs/TARGET.line
# (and its findings after it) and its status in logs/TARGET.status.
fuzz_one() {
  local target=$1 name binary log start status=0 elapsed execs rate coverage result
  name=${target#fuzz_}
  binary=$build/tests/fuzz/$target
  log=$work/logs/$target.log
  mkdir -p "$work/corpus/$name" "$work/seeds/$name"
  start=$(date +%s)
  # shellcheck disable=SC2046 # (the options are words without blanks)
  ASAN_OPTIONS="$ASAN_OPTIONS$(target_asan_options "$target")" \
    "$binary" -max_total_time="$seconds" "${runs[@]}" $(target_options "$target") -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$target-" "$work/corpus/$name" "$work/seeds/$name" >"$log" 2>&1 || status=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # Coverage: the edges (libFuzzer's "cov:") of its last status line.
  coverage=$(grep -ao ' cov: [0-9]*' "$log" | tail -1 | tr -dc 0-9)  # -a: a log may hold an input's bytes
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $status; $(grep -o "$work/artifacts/[^ ]*" "$log" | tail -1 || true))"
  fi
  {
    printf '%-22s %12s %11s %8s %9s  %s\n' "$target" "${execs:-?}" "${rate:-?}" "$elapsed" "${coverage:-?}" "$result"
    if [ "$status" -ne 0 ]; then
      grep -E 'ERROR: |runtime error|property does not hold|SUMMARY' "$log" | head -5 | sed 's/^/      | /' || true
    fi
  } >"$work/logs/$target.line"
  echo "$status" >"$work/logs/$target.status"
}

chosen=()
for target in "${targets[@]}"; do
  name=${target#fuzz_}
  if [ -n "${WSLGPU_FUZZ_ONLY:-}" ] && [[ " $WSLGPU_FUZZ_ONLY " != *" $name "* ]]; then continue; fi
  chosen+=("$target")
  rm -f "$work/logs/$target.line" "$work/logs/$target.status"
done
running=0
for target in "${chosen[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

# The table in the targets' order, whatever order they finished in.
printf '%-22s %12s %11s %8s %9s  %s\n' target executions exec/s seconds coverage result
failed=0
for target in "${chosen[@]}"; do
  cat "$work/logs/$target.line"
  [ "$(cat "$work/logs/$target.status")" -eq 0 ] || failed=1
done
exit "$failed"
