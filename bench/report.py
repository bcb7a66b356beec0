#!/usr/bin/env python3
"""bench/report.py: the table of medians and ratios, for bench/run.sh.

    report.py RESULTS_DIR WSLGPU_SETUP_BINARY OUT.json

Reads what run.sh measured (converged.json, rss.json, steps.json,
install-*.json, download.json), prints a table, says for each target of
issue 9 whether it is met, and writes everything to OUT.json. It never
exits non-zero on a number.
"""
import datetime
import glob
import json
import os
import platform
import statistics
import subprocess
import sys

MIB = 1024 * 1024


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    return {"nproc": os.cpu_count(), "cpu_model": model, "memory_gib": round(mem_kib / MIB, 1),
            "kernel": platform.release()}


def main():
    rdir, binary, out_path = sys.argv[1:4]
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": machine(), "targets": {}}
    try:
        res["tool_version"] = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        res["tool_version"] = "unknown"
    res["profile"] = load(os.path.join(rdir, "profile.json"), {})
    try:
        with open(os.path.join(rdir, "loadavg-start")) as f:
            res["machine"]["loadavg_start"] = f.read().split()[:3]
        with open("/proc/loadavg") as f:
            res["machine"]["loadavg_end"] = f.read().split()[:3]
    except OSError:
        pass
    targets = res["targets"]
    rows = []

    def row(what, value, note=""):
        rows.append((what, value, note))

    def target(name, met, detail):
        targets[name] = {"met": bool(met), "detail": detail}

    conv = load(os.path.join(rdir, "converged.json"))
    if conv:
        res["converged"] = conv
        plan, inst = conv["plan"]["median_ms"], conv["install"]["median_ms"]
        ans, apt = conv["ansible"]["median_ms"], conv["apt-get"]["median_ms"]
        worst = max(plan, inst)
        ratios = {"ansible_over_plan": ans / plan, "ansible_over_install": ans / inst,
                  "apt_over_plan": apt / plan, "apt_over_install": apt / inst}
        res["converged_ratios"] = {k: round(v, 1) for k, v in ratios.items()}
        def cpu(name):
            return f"cpu {conv[name]['cpu_median_ms']:.1f} ms, exit {conv[name]['statuses']}"
        row("a  plan, converged", f"{plan:.2f} ms", cpu("plan"))
        row("a  install, converged", f"{inst:.2f} ms", cpu("install"))
        row("a  ansible-playbook (chroot), converged", f"{ans:.1f} ms", cpu("ansible"))
        row("a  apt-get install (already installed)", f"{apt:.1f} ms", cpu("apt-get"))
        if "plan wslconfig" in conv:
            row("a  plan wslconfig, converged", f"{conv['plan wslconfig']['median_ms']:.2f} ms",
                cpu("plan wslconfig") + "; interop stand-in takes 100 ms")
            row("a  install wslconfig, converged", f"{conv['install wslconfig']['median_ms']:.2f} ms", cpu("install wslconfig"))
        row("a  spawn floor (/bin/true)", f"{conv['spawn-floor']['median_ms']:.2f} ms", "what starting any process costs here")
        row("a  Ansible / plan, Ansible / install", f"{ratios['ansible_over_plan']:.0f}x, {ratios['ansible_over_install']:.0f}x", "target >= 50x")
        row("a  apt-get / plan, apt-get / install", f"{ratios['apt_over_plan']:.0f}x, {ratios['apt_over_install']:.0f}x", "target >= 10x")
        full = load(os.path.join(rdir, "apt-full.json"))
        if full:
            f = full["apt-get, full lists"]
            entries = load(os.path.join(rdir, "apt-full-entries.json"), {}).get("entries", "?")
            res["apt_full_lists"] = dict(f, entries=entries)
            ratios["apt_full_over_plan"] = f["median_ms"] / plan
            ratios["apt_full_over_install"] = f["median_ms"] / inst
            res["converged_ratios"] = {k: round(v, 1) for k, v in ratios.items()}
            row("a' apt-get install, this machine's full lists", f"{f['median_ms']:.1f} ms",
                f"cpu {f['cpu_median_ms']:.1f} ms; {entries} package entries; measured after the rounds above")
            row("a' apt-get (full lists) / plan, / install",
                f"{ratios['apt_full_over_plan']:.0f}x, {ratios['apt_full_over_install']:.0f}x", "target >= 10x")
        target("converged plan and install under 20 ms", worst < 20, f"plan {plan:.2f} ms, install {inst:.2f} ms")
        if "plan wslconfig" in conv:
            wp, wi = conv["plan wslconfig"]["median_ms"], conv["install wslconfig"]["median_ms"]
            target("converged wslconfig plan and install under 20 ms (no interop)", max(wp, wi) < 20,
                   f"plan {wp:.2f} ms, install {wi:.2f} ms")
        target("at least 50x faster than Ansible", min(ratios["ansible_over_plan"], ratios["ansible_over_install"]) >= 50,
               f"{ratios['ansible_over_plan']:.0f}x (plan), {ratios['ansible_over_install']:.0f}x (install)")
        target("at least 10x faster than apt-get install (root with the small test repository)",
               min(ratios["apt_over_plan"], ratios["apt_over_install"]) >= 10,
               f"{ratios['apt_over_plan']:.0f}x (plan), {ratios['apt_over_install']:.0f}x (install)")
        if "apt_full_over_plan" in ratios:
            target("at least 10x faster than apt-get install (full distribution lists)",
                   min(ratios["apt_full_over_plan"], ratios["apt_full_over_install"]) >= 10,
                   f"{ratios['apt_full_over_plan']:.0f}x (plan), {ratios['apt_full_over_install']:.0f}x (install)")

    torch = load(os.path.join(rdir, "pytorch.json"))
    if torch:
        res["pytorch"] = torch
        rocm_ms, torch_ms = torch["plan rocm"]["median_ms"], torch["plan pytorch-rocm"]["median_ms"]
        row("p  plan rocm, converged", f"{rocm_ms:.2f} ms", f"exit {torch['plan rocm']['statuses']}")
        row("p  plan pytorch-rocm, converged", f"{torch_ms:.2f} ms",
            f"{torch_ms / rocm_ms:.2f}x plan rocm; exit {torch['plan pytorch-rocm']['statuses']}")
        target("pytorch plan within 2x of rocm plan", torch_ms <= 2 * rocm_ms,
               f"{torch_ms:.2f} ms vs {rocm_ms:.2f} ms ({torch_ms / rocm_ms:.2f}x)")

    rss = load(os.path.join(rdir, "rss.json"), [])
    installs = [load(p) for p in sorted(glob.glob(os.path.join(rdir, "install-*.json")))]
    installs = [i for i in installs if i]
    rss = rss + load(os.path.join(rdir, "rss-https.json"), [])
    if rss:
        res["rss"] = rss
        for r in rss:
            row(f"b  peak RSS: {r['name']}", f"{r['maxrss_kib'] / 1024:.1f} MiB", f"exit {r['status']}")
    if installs:
        peak_install = max(i["maxrss_kib"] for i in installs)
        own_usage = load(os.path.join(rdir, "own-usage.json"))
        row("b  peak RSS: install rocm (real install)", f"{peak_install / 1024:.1f} MiB",
            "/usr/bin/time -v: the largest of the tool and every process it waited for (apt, dpkg)")
        if own_usage and own_usage.get("own_vmhwm_kib"):
            rss = rss + [{"name": "install (real), the tool alone", "maxrss_kib": own_usage["own_vmhwm_kib"], "status": 0}]
        else:
            rss = rss + [{"name": "install (real)", "maxrss_kib": peak_install, "status": 0}]
    if conv:
        for name in ("ansible", "apt-get"):
            row(f"b  peak RSS: {name} (for reference)", f"{conv[name]['maxrss_kib'] / 1024:.1f} MiB",
                "largest single process" if name == "ansible" else "")
    steps = load(os.path.join(rdir, "steps.json"))
    rss_steps = {r["name"]: r for r in load(os.path.join(rdir, "rss-steps.json"), [])}
    rss = rss + list(rss_steps.values())
    if rss:
        worst = max(rss, key=lambda r: r["maxrss_kib"])
        target("peak RSS under 16 MiB", worst["maxrss_kib"] < 16 * 1024,
               f"largest: {worst['name']} {worst['maxrss_kib'] / 1024:.1f} MiB")

    if steps:
        res["steps"] = steps
        t = {n: steps[f"plan {n} steps"]["median_ms"] for n in (10, 100, 1000)}
        per_step = (t[1000] - t[100]) / 900
        per_step_small = (t[100] - t[10]) / 90
        for n in (10, 100, 1000):
            s = steps[f"plan {n} steps"]
            mem = rss_steps.get(f"plan {n} steps")
            row(f"c  plan, {n} file/check steps", f"{t[n]:.2f} ms",
                f"cpu {s['cpu_median_ms']:.1f} ms" + (f", {mem['maxrss_kib'] / 1024:.1f} MiB" if mem else ""))
        row("c  cost per step, 10->100 and 100->1000", f"{per_step_small * 1000:.0f} us, {per_step * 1000:.0f} us",
            "equal when the growth is linear")
        linear = per_step_small > 0 and per_step <= 1.5 * per_step_small
        res["steps_per_step_us"] = {"10_to_100": round(per_step_small * 1000, 1), "100_to_1000": round(per_step * 1000, 1)}
        target("1000 steps plan under 100 ms", t[1000] < 100, f"{t[1000]:.2f} ms")
        target("plan time grows linearly", linear,
               f"{per_step_small * 1000:.0f} us/step from 10 to 100, {per_step * 1000:.0f} us/step from 100 to 1000")

    if installs:
        res["real_install"] = installs
        overhead = [(i["total_s"] - i["apt_dpkg_s"]) / i["total_s"] * 100 for i in installs]
        own = [(i["total_s"] - i["all_tools_s"]) / i["total_s"] * 100 for i in installs]
        total = statistics.median(i["total_s"] for i in installs)
        aptt = statistics.median(i["apt_dpkg_s"] for i in installs)
        ov, ow = statistics.median(overhead), statistics.median(own)
        res["real_install_overhead_pct"] = {"total_minus_apt_dpkg": round(ov, 2), "total_minus_all_tools": round(ow, 2)}
        row("d  real install, wall", f"{total * 1000:.0f} ms", f"median of {len(installs)} fresh roots")
        row("d  ... inside apt and dpkg", f"{aptt * 1000:.0f} ms", installs[0]["calls"])
        row("d  runner overhead: total - apt/dpkg", f"{ov:.1f} %", f"{(total - aptt) * 1000:.0f} ms; target < 2 %")
        row("d  runner overhead: total - every tool run", f"{ow:.1f} %", "also leaving out usermod, gpasswd, gpg, ...")
        own = load(os.path.join(rdir, "own-usage.json"))
        if own:
            res["own_usage"] = own
            row("d  the tool's own CPU (perf stat --no-inherit)", f"{own['own_cpu_ms']:.0f} ms",
                f"{own['own_cpu_ms'] / 10 / own['total_s']:.1f} % of that install's {own['total_s'] * 1000:.0f} ms")
            row("b  peak RSS: install (real), the tool alone", f"{own['own_vmhwm_kib'] / 1024:.1f} MiB",
                "VmHWM read every 10 ms; the row above includes apt's and dpkg's")
        own_note = ""
        if own:
            own_note = f"; the tool's own CPU time is {own['own_cpu_ms'] / 10 / own['total_s']:.1f} % of the wall time"
        target("runner overhead under 2 %", ov < 2, f"{ov:.1f} % of the wall time outside apt and dpkg "
               f"({ow:.1f} % outside every program it runs){own_note}")

    dl = load(os.path.join(rdir, "download.json"))
    size = load(os.path.join(rdir, "download-size.json"), {}).get("bytes")
    if dl and size:
        res["download"] = dl
        thr = {k: size / MIB / (v["median_ms"] / 1000) for k, v in dl.items()}
        res["download_mib_s"] = {k: round(v, 1) for k, v in thr.items()}
        ratio = thr["download step"] / thr["curl -o"]
        res["download_ratio"] = round(ratio, 3)
        for k, v in thr.items():
            row(f"e  {k}, {size // MIB} MiB", f"{v:.0f} MiB/s", f"{dl[k]['median_ms']:.0f} ms, exit {dl[k]['statuses']}")
        row("e  download step / curl -o", f"{ratio:.2f}", "target >= 0.95")
        best = dl["curl -o"]["min_ms"] / dl["download step"]["min_ms"]
        res["download_ratio_fastest_runs"] = round(best, 3)
        row("e  the same, fastest run of each", f"{best:.2f}", "steadier when curl's own runs vary")
        for ref in ("curl | tee | sha256sum", "curl -o, then sha256sum"):
            if ref in thr:
                row(f"e  download step / {ref}", f"{thr['download step'] / thr[ref]:.2f}", "for reference")
        target("download at least 0.95 of curl", ratio >= 0.95, f"{ratio:.2f} of curl -o")

    m = res["machine"]
    print()
    print(f"wslgpu-setup benchmarks, {res['date']}, {res['tool_version']}")
    print(f"machine: {m['nproc']} x {m['cpu_model']}, {m['memory_gib']} GiB, Linux {m['kernel']}, "
          f"load average {' '.join(m.get('loadavg_start', ['?']))} at the start, {' '.join(m.get('loadavg_end', ['?']))} at the end")
    if res["profile"]:
        print(f"profile: {res['profile'].get('label')}")
    width = max(len(r[0]) for r in rows) if rows else 10
    for what, value, note in rows:
        print(f"{what:<{width}}  {value:>14}  {note}")
    print()
    for name, t in targets.items():
        print(f"{'met    ' if t['met'] else 'MISSED '} {name}: {t['detail']}")
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
