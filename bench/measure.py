#!/usr/bin/env python3
"""bench/measure.py: times commands side by side, for bench/run.sh.

    measure.py SPEC.json OUT.json

SPEC is {"warmup": W, "runs": N, "commands": [{"name": ..., "argv": [...],
"env": {...} (optional), "reset": [...] (optional argv run before each run,
not timed)}, ...]}. Every command runs W times untimed, then N rounds in
which every command runs once; the order inside a round rotates, so that
each command goes first equally often and no command always follows the
same one (caches, CPU frequency). Each run's wall time is taken around
fork+exec+wait (perf_counter_ns) and its peak resident set from wait4's
rusage (ru_maxrss, what /usr/bin/time -v prints as "Maximum resident set
size") and its CPU time (user + system, of the command and the children it
waited for: on a busy machine wall time includes waiting for a core, CPU
time does not). Standard output and error go to /dev/null.

The peak resident set is not used for the memory target: Linux records a
child's peak at exec from the memory it had before, which for a child of
this Python process (fork or vfork alike) is Python's own, about 11 MiB.
run.sh takes memory from /usr/bin/time -v, whose own is about 2 MiB.

OUT gets, per command: runs_ms, median_ms, min_ms, max_ms, cpu_median_ms, maxrss_kib
(median), statuses. A command that exits non-zero is still measured: this
is a benchmark, not a test; the status is recorded so the report can say so.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(cmd):
    if cmd.get("reset"):
        subprocess.run(cmd["reset"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    env = None
    if cmd.get("env"):
        env = dict(os.environ)
        env.update(cmd["env"])
    start = time.perf_counter_ns()
    proc = subprocess.Popen(cmd["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, close_fds=True)
    _, status, usage = os.wait4(proc.pid, 0)
    took = (time.perf_counter_ns() - start) / 1e6
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return took, cpu, usage.ru_maxrss, proc.returncode


def main():
    spec_path, out_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = json.load(f)
    cmds = spec["commands"]
    for _ in range(spec.get("warmup", 1)):
        for cmd in cmds:
            run_once(cmd)
    results = {c["name"]: {"runs_ms": [], "cpu_ms": [], "rss_kib": [], "statuses": []} for c in cmds}
    for r in range(spec.get("runs", 5)):
        k = r % len(cmds)
        for cmd in cmds[k:] + cmds[:k]:
            took, cpu, rss, status = run_once(cmd)
            res = results[cmd["name"]]
            res["runs_ms"].append(round(took, 3))
            res["cpu_ms"].append(round(cpu, 3))
            res["rss_kib"].append(rss)
            res["statuses"].append(status)
    out = {}
    for name, res in results.items():
        out[name] = {
            "median_ms": round(statistics.median(res["runs_ms"]), 3),
            "min_ms": min(res["runs_ms"]),
            "max_ms": max(res["runs_ms"]),
            "cpu_median_ms": round(statistics.median(res["cpu_ms"]), 3),
            "maxrss_kib": int(statistics.median(res["rss_kib"])),
            "runs_ms": res["runs_ms"],
            "statuses": sorted(set(res["statuses"])),
        }
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
    for name, res in out.items():
        print(f"  {name:<34} median {res['median_ms']:10.2f} ms, cpu {res['cpu_median_ms']:.2f} ms  (min {res['min_ms']:.2f}, max {res['max_ms']:.2f}, "
              f"n={len(res['runs_ms'])}, exit {res['statuses']})", file=sys.stderr)


if __name__ == "__main__":
    main()
