#!/usr/bin/python
# -*- coding: utf-8 -*-
# wslgpu.setup.wslgpu_setup: runs wslgpu-setup on the target (docs/fleet.md).
# The engine is the program; this module only builds its command line, reads
# its JSON and its exit status, and speaks Ansible (check mode, diff, changed).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: wslgpu_setup
short_description: Provision GPU compute (AMD ROCm, NVIDIA CUDA) in a WSL2 distribution with wslgpu-setup
version_added: "0.1.0"
description:
  - Runs C(wslgpu-setup) on the target, which must have it installed (the
    wslgpu-setup package, or a path given as I(executable)).
  - With I(state=present), runs C(wslgpu-setup install --yes --output json)
    for I(profile). The whole profile is one transaction. If a step fails,
    what the run had done is rolled back and the task fails with C(rc=1).
  - In check mode, runs C(wslgpu-setup plan --output json) instead, changes
    nothing, and reports C(changed) when the plan has changes pending. With
    C(--diff), each file the plan would write and the packages it would
    install, upgrade or remove are shown as before and after.
  - With I(state=absent), rolls back the profile's committed transactions,
    newest first (normally one, since a rerun that changes nothing records
    none), with C(wslgpu-setup rollback ID --yes --output json). With none,
    the task is C(ok).
  - Idempotent. A target that already matches the profile reports
    C(changed=false) and records no transaction, in check mode too. The
    profile's checks (for example C(rocminfo) lists a GPU agent) still run
    on every install.
  - Fails with the tool's own message in I(msg) and its exit status in
    I(rc). The statuses are stable. 1 means a step failed and was rolled
    back. 2 means bad input, such as an unknown variable or profile.
    3 means refused by a guard (for example a kernel-module package in the
    dependency chain), and nothing was changed. 4 means another run holds
    the lock (see I(lock_timeout)). 5 means an interrupted run must be
    recovered first. I(msg) then says how, with C(wslgpu-setup recover).
  - The tool's notices are returned in I(notices) and shown as warnings,
    for example that C(wsl --shutdown) must run on Windows, or that the user
    must log in again for a new group.
author:
  - wslgpu-setup maintainers
requirements:
  - wslgpu-setup on the target, and Python 3 there (as for any Ansible module).
  - Root on the target (C(become=true)) for I(state=present) outside check
    mode, and for I(state=absent).
notes:
  - Over a C(community.general.chroot) or C(wsl) style connection the module
    runs inside the distribution, so C(wslgpu-setup) acts on C(/) there.
  - Check mode also refuses what install would refuse (C(rc=3)). The plan
    is the same one C(install) would run.
  - With C(--diff) outside check mode, the module saves the plan
    (C(plan --out)) and installs exactly that plan (C(install --plan)). The
    diff shown is then the change made, and the install refuses (C(rc=3))
    if the target changed in between.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
options:
  profile:
    description:
      - A bundled profile name (C(rocm), C(cuda), C(wslconfig); C(wslgpu-setup list)
        shows them) or the path of a manifest file on the target.
      - Omitted, the profile is chosen from the mounted Windows driver (cuda
        or rocm), as C(wslgpu-setup install) does. That fails with C(rc=2)
        when both vendors or neither are present.
    type: str
  vars:
    description:
      - Manifest variables, each passed as C(--set NAME=VALUE). Booleans
        become C(true) or C(false), numbers their decimal text.
      - Which variables a profile takes is in docs/profiles.md. C(wslgpu-setup plan
        PROFILE -v) shows the values in effect.
    type: dict
    default: {}
  state:
    description:
      - C(present) installs the profile.
      - C(absent) rolls back the profile's committed transactions, newest first.
    type: str
    choices: [present, absent]
    default: present
  windows_home:
    description:
      - The Windows profile folder that holds C(.wslconfig), as a path on the
        target (for example C(/mnt/c/Users/alice)). Omitted, the tool finds it.
    type: path
  user:
    description:
      - The Linux user to provision (groups, the user's shell profile).
        Omitted, the tool takes C(SUDO_USER), then the default user in
        C(/etc/wsl.conf), then the first user with uid 1000 or more.
    type: str
  lock_timeout:
    description:
      - Seconds to wait for another run's lock. By default the task fails at
        once with C(rc=4) when another run holds it.
    type: float
  unsupported_distro:
    description:
      - Plan and install on a distribution or release the profile's vendor
        does not publish for (C(--unsupported-distro)), at your own risk.
        Without it, such a target is refused with C(rc=3), and the message
        names what the vendor supports.
    type: bool
    default: false
  force:
    description:
      - With I(state=absent), roll back even when files the transaction wrote
        have changed since (C(rollback --force)). Without it, that is
        refused with C(rc=3) and nothing is changed.
    type: bool
    default: false
  executable:
    description:
      - The C(wslgpu-setup) program on the target. Omitted, it is looked up
        in C(PATH), C(/usr/local/bin) and C(/usr/bin).
    type: path
"""

EXAMPLES = r"""
- name: ROCm on every AMD machine of the fleet
  become: true
  wslgpu.setup.wslgpu_setup:
    profile: rocm
    vars:
      rocm_version: "6.4.2.1"
  register: gpu

- name: Tell the owner what is left to do on Windows
  ansible.builtin.debug:
    msg: "{{ gpu.notices }}"
  when: gpu.notices | length > 0

- name: Whatever the mounted Windows driver asks for (cuda or rocm)
  become: true
  wslgpu.setup.wslgpu_setup:

- name: A manifest of your own, copied to the target first
  become: true
  wslgpu.setup.wslgpu_setup:
    profile: /etc/wslgpu-setup/site.toml
    lock_timeout: 120

- name: See what would change, changing nothing (run with --check --diff)
  become: true
  wslgpu.setup.wslgpu_setup:
    profile: rocm
  check_mode: true

- name: Undo the profile
  become: true
  wslgpu.setup.wslgpu_setup:
    profile: rocm
    state: absent
"""

RETURN = r"""
rc:
  description:
    - The exit status of the last C(wslgpu-setup) run (0 on success; on
      failure, the stable status described above).
    - Negative when the run was killed by a signal (C(-9) for SIGKILL). The
      next run then fails with C(5) until the interrupted run is recovered.
  returned: always
  type: int
  sample: 0
msg:
  description:
    - On failure, the tool's own message, with its advice (for example the
      C(recover) commands after an interrupted run, or the guard's reason
      and the dependency chain for a refused package).
    - On success, a one-line summary.
  returned: always
  type: str
  sample: 'step 6 "rocm": would install amdgpu-dkms 1:6.12.12.60402-2164967.22.04, which is a kernel-module package'
transaction_id:
  description:
    - The transaction C(install) recorded. It is empty when nothing changed,
      and in check mode. C(wslgpu-setup history ID) shows it, and
      C(wslgpu-setup rollback ID) undoes it.
  returned: when state is present and install ran
  type: str
  sample: 20261201-091500-1234
steps:
  description:
    - One entry per step that ran. Each has its C(id), C(kind), C(changed),
      C(failed), C(msg) and C(diff) (for files, a unified diff). After a
      refusal, the plan's steps instead, with their C(action) and
      C(details).
  returned: when state is present
  type: list
  elements: dict
  sample:
    - {id: rocm-path, kind: profile_env, changed: true, failed: false, msg: "", diff: "--- /dev/null\n+++ /etc/profile.d/wslgpu-rocm.sh\n"}
notices:
  description:
    - What the user or admin must still do, for example run C(wsl --shutdown)
      on Windows after a C(.wslconfig) change, or log in again after a group
      change. Each is also shown as a warning.
  returned: when state is present
  type: list
  elements: str
  sample: ["alice's new groups (video, render) take effect at the next login: in WSL, run `wsl --terminate <distro>` from Windows, or open a new login shell."]
undone:
  description:
    - The steps that were undone, by a rollback or after a failed step.
  returned: when something was undone
  type: list
  elements: str
refusals:
  description:
    - Why the machine itself was refused (for example an unsupported
      distribution, or no C(/dev/dxg)).
  returned: when the tool refused (rc 3)
  type: list
  elements: str
profile_choice:
  description:
    - The profile chosen when I(profile) was omitted, and why.
  returned: when I(profile) was omitted and state is present
  type: dict
  sample: {profile: cuda, why: "NVIDIA's Windows driver is mounted (/usr/lib/wsl/drivers/nv_dispi.inf_amd64_0000000000000000)"}
plan:
  description:
    - The plan, as C(wslgpu-setup plan --output json) prints it. It has the
      C(manifest), C(host) facts, C(vars), C(changes_pending), C(counts)
      and the C(steps) with their C(action) (change, no-op, verify,
      skipped, refused) and C(changes).
  returned: in check mode, and with --diff, when state is present
  type: dict
rolled_back:
  description:
    - With I(state=absent), the ids of the transactions rolled back. In check
      mode, the ones that would be.
  returned: when state is absent
  type: list
  elements: str
  sample: [20261201-091500-1234]
cmd:
  description: The last C(wslgpu-setup) command line run.
  returned: always
  type: list
  elements: str
stderr:
  description: The standard error of the last C(wslgpu-setup) run (warnings, errors).
  returned: always
  type: str
"""

import json
import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule

STATE_DIR_HINT = "/var/lib/wslgpu-setup"


def set_value(value):
    """A variable's value as --set takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        raise ValueError("must be a string, a number or a boolean, not a %s" % type(value).__name__)
    return str(value)


def strip_error_prefix(text):
    """The tool prints "error: " before each error; Ansible says FAILED already."""
    lines = [line[len("error: "):] if line.startswith("error: ") else line for line in text.strip().splitlines()]
    return "\n".join(lines)


def refusal_message(doc):
    """What `install` prints for a refused plan (its text mode), from the JSON."""
    lines = list(doc.get("refusals") or [])
    for step in doc.get("steps") or []:
        if step.get("action") != "refused":
            continue
        lines.append('step %s "%s": %s' % (step.get("index"), step.get("id"), step.get("summary", "")))
        lines.extend("  " + d for d in step.get("details") or [])
    lines.append("Nothing was changed (exit 3).")
    return "\n".join(lines)


def plan_refused(plan):
    return bool(plan.get("refusals")) or any(s.get("action") == "refused" for s in plan.get("steps") or [])


def split_lines(text):
    """Lines as the tool's diff counts them: a final newline ends a line, it does not start one."""
    if text == "":
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_unified_diff(old, diff):
    """Applies the tool's unified diff (installer/formats/diff.cpp) to OLD.
    Raises ValueError when it does not apply (the file changed meanwhile)."""
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or not lines[0].startswith("--- ") or not lines[1].startswith("+++ "):
        raise ValueError("not a unified diff")
    src = split_lines(old)
    out = []
    pos = 0
    trailing_newline = True
    in_hunk = False
    for line in lines[2:]:
        m = HUNK.match(line)
        if m:
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            first = start - 1 if count > 0 else start
            if first < pos or first > len(src):
                raise ValueError("hunk out of order")
            out.extend(src[pos:first])
            pos = first
            in_hunk = True
            continue
        if line.startswith("\\"):
            if "(before)" not in line:
                trailing_newline = False
            continue
        if not in_hunk:
            raise ValueError("diff line outside a hunk")
        op, text = line[:1], line[1:]
        if op == "+":
            out.append(text)
        elif op in (" ", "-"):
            if pos >= len(src) or src[pos] != text:
                raise ValueError("context does not match")
            if op == " ":
                out.append(text)
            pos += 1
        else:
            raise ValueError("unexpected diff line")
    out.extend(src[pos:])
    text = "\n".join(out)
    if out and trailing_newline:
        text += "\n"
    return text


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return None


def file_diff(change):
    """Ansible's before/after for one file the plan writes or removes."""
    path = change.get("path", "")
    action = change.get("action", "")
    current = read_text(path)
    entry = {"before_header": path, "after_header": path}
    if action == "remove":
        entry.update(before=current or "", after="")
        return entry
    diff = change.get("diff")
    if diff:
        try:
            entry.update(before=current or "", after=apply_unified_diff(current or "", diff))
            return entry
        except ValueError:
            return {"prepared": diff}
    # No text diff: a download (binary) or only the mode or owner changes.
    facts = []
    if change.get("sha256"):
        facts.append("sha256 " + change["sha256"])
    if change.get("mode"):
        facts.append("mode " + change["mode"])
    entry.update(before="" if current is None else "(%s)\n" % path,
                 after="(%s: %s, %s)\n" % (path, action or "write", ", ".join(facts) or "new content"))
    return entry


def plan_diffs(plan):
    """The plan's changes as a list of Ansible diffs: every file, then one
    entry for the packages, one for groups, one for anything else."""
    diffs = []
    pkg_before, pkg_after, grp_after, other_after = [], [], [], []
    settings = {}
    for step in plan.get("steps") or []:
        if step.get("action") != "change":
            continue
        for c in step.get("changes") or []:
            kind = c.get("type")
            if kind == "file":
                diffs.append(file_diff(c))
            elif kind == "package":
                name = c.get("name", "")
                if c.get("architecture") not in (None, "", "all"):
                    name += ":" + c["architecture"]
                action, version = c.get("action"), c.get("version", "")
                if action == "install":
                    pkg_after.append("%s %s" % (name, version))
                elif action == "upgrade":
                    pkg_before.append("%s %s" % (name, c.get("from", "")))
                    pkg_after.append("%s %s" % (name, version))
                elif action == "remove":
                    pkg_before.append("%s %s" % (name, version))
                else:
                    pkg_before.append("%s %s" % (name, version))
                    pkg_after.append("%s %s (%s)" % (name, version, action))
            elif kind == "group":
                if c.get("action") == "create":
                    grp_after.append("group %s (new%s)" % (c.get("name"), ", system" if c.get("system") else ""))
                else:
                    grp_after.append("group %s: + %s" % (c.get("name"), c.get("user")))
            elif kind == "setting":
                before, after = settings.setdefault(c.get("path", ""), ([], []))
                label = "[%s] %s" % (c.get("section"), c.get("key"))
                if c.get("from") is not None:
                    before.append("%s = %s" % (label, c["from"]))
                after.append("%s = %s" % (label, c.get("to")))
            elif kind == "command":
                other_after.append("run: " + " ".join(c.get("argv") or []))
            else:
                other_after.append(json.dumps(c, sort_keys=True))
    for path, (before, after) in sorted(settings.items()):
        diffs.append({"before_header": path + " (settings)", "after_header": path + " (settings)",
                      "before": "".join(l + "\n" for l in before), "after": "".join(l + "\n" for l in after)})
    if pkg_before or pkg_after:
        diffs.append({"before_header": "packages (installed now)", "after_header": "packages (after install)",
                      "before": "".join(l + "\n" for l in sorted(pkg_before, key=str.split)),
                      "after": "".join(l + "\n" for l in sorted(pkg_after, key=str.split))})
    if grp_after:
        diffs.append({"before_header": "groups", "after_header": "groups",
                      "before": "", "after": "".join(l + "\n" for l in grp_after)})
    if other_after:
        diffs.append({"before_header": "other changes", "after_header": "other changes",
                      "before": "", "after": "".join(l + "\n" for l in other_after)})
    return diffs


def manifest_name_of_file(path):
    """The [manifest] name of a manifest file on the target."""
    text = read_text(path)
    if text is None:
        return None
    try:
        import tomllib  # Python 3.11 and later

        return (tomllib.loads(text).get("manifest") or {}).get("name")
    except ImportError:
        pass
    except Exception:
        return None
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
            continue
        m = re.match(r"""^name\s*=\s*(?:"([^"]*)"|'([^']*)')""", stripped)
        if section == "[manifest]" and m:
            return m.group(1) if m.group(1) is not None else m.group(2)
    return None


class Tool(object):
    """The wslgpu-setup program on the target, and what its last run said."""

    def __init__(self, module):
        self.module = module
        p = module.params
        exe = p["executable"] or module.get_bin_path("wslgpu-setup", opt_dirs=["/usr/local/bin", "/usr/bin"])
        if not exe:
            module.fail_json(msg="wslgpu-setup is not installed on the target (not in PATH, /usr/local/bin or /usr/bin): "
                             "install the wslgpu-setup package, or give its path as executable", rc=127, cmd=[], stderr="")
        if not os.access(exe, os.X_OK):
            module.fail_json(msg="%s is not an executable wslgpu-setup" % exe, rc=127, cmd=[exe], stderr="")
        self.exe = exe
        self.globals = ["--no-color"]
        for name in sorted(p["vars"] or {}):
            try:
                self.globals += ["--set", "%s=%s" % (name, set_value(p["vars"][name]))]
            except ValueError as e:
                module.fail_json(msg="vars.%s %s" % (name, e), rc=2, cmd=[], stderr="")
        if p["windows_home"]:
            self.globals += ["--windows-home", p["windows_home"]]
        if p["user"]:
            self.globals += ["--user", p["user"]]
        if p["unsupported_distro"]:
            self.globals.append("--unsupported-distro")
        self.result = {"cmd": [], "rc": 0, "stderr": ""}

    def change_options(self):
        t = self.module.params["lock_timeout"]
        return ["--yes", "--output", "json"] + (["--lock-timeout", "%g" % t] if t is not None else [])

    def run(self, args, with_globals=True):
        """Runs the tool; returns (rc, parsed JSON or None, stdout, stderr)."""
        cmd = [self.exe] + (self.globals if with_globals else ["--no-color"]) + args
        rc, out, err = self.module.run_command(cmd, environ_update={"NO_COLOR": "1"})
        self.result.update(cmd=cmd, rc=rc, stderr=err)
        for line in err.splitlines():
            if line.startswith("warning: "):
                self.module.warn("wslgpu-setup: " + line[len("warning: "):])
        doc = None
        if out.strip():
            try:
                doc = json.loads(out)
            except ValueError:
                doc = None
        return rc, doc, out, err

    def fail(self, rc, err, out="", **extra):
        """Fails the task with the tool's own message and status."""
        msg = strip_error_prefix(err) or out.strip() or "wslgpu-setup exited %d without a message" % rc
        if rc < 0:
            # Killed: its journal says how far it got; the next run says how to recover (exit 5).
            msg = "wslgpu-setup was killed by signal %d before it finished. %s" % (
                -rc, msg if err.strip() else "Run the task again to see how to recover the interrupted run.")
        self.result.update(extra)
        self.result.update(rc=rc)
        self.module.fail_json(msg=msg, **self.result)


def present(module, tool):
    p = module.params
    profile = [p["profile"]] if p["profile"] else []
    plan = None
    plan_file = None
    diff = None
    if module.check_mode or module._diff:
        args = ["plan"] + profile + ["--output", "json", "--detailed-exitcode"]
        if not module.check_mode:
            fd, plan_file = tempfile.mkstemp(prefix="wslgpu-plan-", suffix=".json", dir=module.tmpdir)
            os.close(fd)
            args += ["--out", plan_file]
        rc, plan, out, err = tool.run(args)
        if rc not in (0, 3, 10) or not isinstance(plan, dict):
            tool.fail(rc if rc else 1, err, out)
        tool.result["plan"] = plan
        if "profile_choice" in plan:
            tool.result["profile_choice"] = plan["profile_choice"]
        if plan_refused(plan):
            tool.result["refusals"] = plan.get("refusals") or []
            tool.result["steps"] = plan.get("steps") or []
            tool.result["rc"] = 3
            module.fail_json(msg=refusal_message(plan), **tool.result)
        changed = bool(plan.get("changes_pending"))
        # Before anything is installed: the diff reads the files as they are now.
        diff = plan_diffs(plan) if module._diff and changed else None
        if module.check_mode:
            tool.result["rc"] = 0
            msg = "would change %d steps" % plan.get("counts", {}).get("change", 0) if changed else \
                "the target already matches %s" % plan.get("manifest", {}).get("name", "the profile")
            if diff is not None:
                module.exit_json(changed=changed, msg=msg, diff=diff, **tool.result)
            module.exit_json(changed=changed, msg=msg, **tool.result)
    if plan_file:
        # Exactly the plan the diff shows; refused (3) if the target changed since.
        rc, doc, out, err = tool.run(["install", "--plan", plan_file] + tool.change_options(), with_globals=False)
        os.unlink(plan_file)
    else:
        rc, doc, out, err = tool.run(["install"] + profile + tool.change_options())
    if not isinstance(doc, dict):
        tool.fail(rc if rc else 1, err, out)
    for key in ("transaction_id", "steps", "notices", "undone", "refusals", "profile_choice"):
        if key in doc:
            tool.result[key] = doc[key]
    tool.result.setdefault("notices", [])
    for notice in tool.result["notices"]:
        module.warn("wslgpu-setup: " + notice)
    if rc == 3:
        module.fail_json(msg=refusal_message(doc), **tool.result)
    if rc != 0 or doc.get("failed"):
        error = doc.get("error") or strip_error_prefix(err) or "wslgpu-setup exited %d" % rc
        if doc.get("transaction_id"):
            error += ". What the run had done was rolled back (exit %d); log and journal: %s/tx/%s/" % (
                rc, STATE_DIR_HINT, doc["transaction_id"])
        tool.result["rc"] = rc if rc else 1
        module.fail_json(msg=error, **tool.result)
    changed = bool(doc.get("changed"))
    msg = "transaction %s committed" % doc.get("transaction_id") if changed else "the target already matches the profile"
    if diff is not None and changed:
        module.exit_json(changed=True, msg=msg, diff=diff, **tool.result)
    module.exit_json(changed=changed, msg=msg, **tool.result)


def profile_name(module, tool):
    """The [manifest] name the history records for the profile."""
    profile = module.params["profile"]
    if profile and "/" not in profile and not profile.endswith(".toml"):
        return profile
    if profile:
        name = manifest_name_of_file(profile)
        if not name:
            module.fail_json(msg='cannot read the [manifest] name of "%s" on the target' % profile, rc=2, **tool.result)
        return name
    # No profile: the one install would choose, from the mounted Windows driver.
    rc, plan, out, err = tool.run(["plan", "--output", "json"])
    # 3: a refused plan still names its profile.
    if rc not in (0, 3) or not isinstance(plan, dict):
        tool.fail(rc if rc else 1, err, out)
    return plan.get("manifest", {}).get("name", "")


def absent(module, tool):
    name = profile_name(module, tool)
    rc, history, out, err = tool.run(["history", "--output", "json"], with_globals=False)
    if rc != 0 or not isinstance(history, list):
        tool.fail(rc if rc else 1, err, out)
    mine = [t for t in history if t.get("manifest") == name]
    mine.sort(key=lambda t: t.get("id", ""), reverse=True)
    if mine and mine[0].get("status") == "interrupted":
        tool.result["rc"] = 5
        module.fail_json(msg="transaction %s (%s) was interrupted; recover it first:\n"
                             "  Roll it back:   sudo wslgpu-setup recover --rollback\n"
                             "  Or finish it:   sudo wslgpu-setup recover --resume" % (mine[0].get("id"), name),
                         **tool.result)
    if mine and mine[0].get("status") == "half_undone":
        tool.result["rc"] = 5
        module.fail_json(msg="transaction %s (%s) is half undone: a rollback of it stopped before its end; "
                             "finish it first:\n  sudo wslgpu-setup recover --rollback" % (mine[0].get("id"), name),
                         **tool.result)
    todo = [t["id"] for t in mine if t.get("status") == "committed"]
    tool.result["rolled_back"] = todo if module.check_mode else []
    if not todo:
        module.exit_json(changed=False, msg="no committed transaction of %s to roll back" % name, **tool.result)
    if module.check_mode:
        module.exit_json(changed=True, msg="would roll back %s" % ", ".join(todo), **tool.result)
    undone = []
    for tid in todo:
        args = ["rollback", tid] + tool.change_options() + (["--force"] if module.params["force"] else [])
        rc, doc, out, err = tool.run(args, with_globals=False)
        if rc != 0:
            tool.fail(rc, err, out, undone=undone)
        tool.result["rolled_back"].append(tid)
        if isinstance(doc, dict):
            undone.extend(doc.get("undone") or [])
    tool.result["undone"] = undone
    module.exit_json(changed=True, msg="rolled back %s" % ", ".join(todo), **tool.result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            profile=dict(type="str"),
            vars=dict(type="dict", default={}),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            windows_home=dict(type="path"),
            user=dict(type="str"),
            lock_timeout=dict(type="float"),
            unsupported_distro=dict(type="bool", default=False),
            force=dict(type="bool", default=False),
            executable=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    tool = Tool(module)
    if module.params["state"] == "absent":
        absent(module, tool)
    else:
        present(module, tool)


if __name__ == "__main__":
    main()
