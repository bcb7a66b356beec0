"""Tests of the wslgpu.setup.wslgpu_setup module's own logic, run by
tests/fleet/check.sh (ctest "fleet"):

  python3 tests/fleet/test_module.py MODULE_FILE WSLGPU_SETUP_BINARY

- the options DOCUMENTATION describes are exactly the argument_spec's, with
  the same types, defaults and choices (what ansible-test's validate-modules
  would check, without its third-party dependencies);
- the --diff before/after: the module applies the tool's own unified diffs,
  taken from `wslgpu-setup plan --output json` on a temporary root, and
  must get the manifest's content back;
- refusal messages, --set values.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

import yaml

MODULE_FILE, BINARY = sys.argv[1], sys.argv[2]
del sys.argv[1:3]

spec = importlib.util.spec_from_file_location("wslgpu_setup", MODULE_FILE)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)


class Captured(Exception):
    pass


def argument_spec():
    """The argument_spec main() gives AnsibleModule."""
    seen = {}

    def fake(**kwargs):
        seen.update(kwargs)
        raise Captured()

    real = mod.AnsibleModule
    mod.AnsibleModule = fake
    try:
        mod.main()
    except Captured:
        pass
    finally:
        mod.AnsibleModule = real
    return seen


class Documentation(unittest.TestCase):
    def test_options_match_the_argument_spec(self):
        doc = yaml.safe_load(mod.DOCUMENTATION)
        captured = argument_spec()
        self.assertTrue(captured.get("supports_check_mode"))
        spec = captured["argument_spec"]
        self.assertEqual(sorted(doc["options"]), sorted(spec))
        for name, option in doc["options"].items():
            with self.subTest(option=name):
                self.assertEqual(option.get("type", "str"), spec[name].get("type", "str"))
                self.assertEqual(option.get("default"), spec[name].get("default"))
                self.assertEqual(option.get("choices"), spec[name].get("choices"))
                self.assertEqual(bool(option.get("required")), bool(spec[name].get("required")))
                self.assertTrue(option.get("description"))

    def test_examples_and_return_parse(self):
        examples = yaml.safe_load(mod.EXAMPLES)
        self.assertTrue(all("wslgpu.setup.wslgpu_setup" in task or "ansible.builtin.debug" in task for task in examples))
        self.assertIn("rc", yaml.safe_load(mod.RETURN))


class Diffs(unittest.TestCase):
    """The module rebuilds the new file from the tool's diff and the file on the target."""

    CASES = {
        "create": (None, "line 1\nline 2\n"),
        "append": ("a\nb\nc\n", "a\nb\nc\nd\n"),
        "middle": ("".join("line %d\n" % i for i in range(40)),
                   "".join(("line %d\n" % i) if i not in (5, 30) else "changed %d\n" % i for i in range(40))),
        "drop the final newline": ("x\ny\n", "x\ny"),
        "add the final newline": ("x\ny", "x\ny\n"),
        "replace all": ("old\n", "new 1\nnew 2\n"),
        "remove lines": ("1\n2\n3\n4\n5\n", "1\n5\n"),
    }

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.TemporaryDirectory()
        root = os.path.join(cls.work.name, "root")
        for d in ("etc", "var/lib", "tmp"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        with open(os.path.join(root, "etc/passwd"), "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\n")
        with open(os.path.join(root, "etc/group"), "w") as f:
            f.write("root:x:0:\n")
        with open(os.path.join(root, "etc/os-release"), "w") as f:
            f.write("ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n")
        steps = []
        for i, (name, (old, new)) in enumerate(sorted(cls.CASES.items())):
            path = "/etc/case-%d" % i
            if old is not None:
                with open(root + path, "w") as f:
                    f.write(old)
            steps.append('[[step]]\nid = "case-%d"\nkind = "file"\npath = "%s"\ncontent = %s\n'
                         % (i, path, json.dumps(new)))
        manifest = os.path.join(cls.work.name, "diffs.toml")
        with open(manifest, "w") as f:
            f.write('[manifest]\nname = "diffs"\ndescription = "diff cases"\nschema_version = 1\n\n' + "\n".join(steps))
        run = subprocess.run([BINARY, "--root", root, "--not-wsl", "plan", manifest, "--output", "json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise AssertionError("plan failed (exit %d): %s" % (run.returncode, run.stderr))
        cls.plan = json.loads(run.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def test_each_diff_applies_to_the_old_content(self):
        steps = {s["id"]: s for s in self.plan["steps"]}
        for i, (name, (old, new)) in enumerate(sorted(self.CASES.items())):
            with self.subTest(case=name):
                change = steps["case-%d" % i]["changes"][0]
                self.assertEqual(mod.apply_unified_diff(old or "", change["diff"]), new)

    def test_a_file_that_changed_since_falls_back_to_the_prepared_diff(self):
        diff = "--- /etc/x\n+++ /etc/x\n@@ -1 +1 @@\n-a\n+b\n"
        with self.assertRaises(ValueError):
            mod.apply_unified_diff("something else\n", diff)

    def test_plan_diffs_lists_packages_before_and_after(self):
        plan = {"steps": [{"action": "change", "changes": [
            {"type": "package", "action": "install", "name": "rocm", "version": "6.4.2.1-1", "architecture": "all"},
            {"type": "package", "action": "upgrade", "name": "libfoo", "version": "2", "from": "1", "architecture": "amd64"},
            {"type": "package", "action": "remove", "name": "libhsa-runtime64-1", "version": "5.7.1-1"},
            {"type": "group", "action": "add_member", "name": "render", "user": "alice"}]},
            {"action": "no-op", "changes": [{"type": "package", "action": "install", "name": "ignored", "version": "1"}]}]}
        diffs = mod.plan_diffs(plan)
        packages = [d for d in diffs if d.get("after_header") == "packages (after install)"][0]
        self.assertEqual(packages["before"], "libfoo:amd64 1\nlibhsa-runtime64-1 5.7.1-1\n")
        self.assertEqual(packages["after"], "libfoo:amd64 2\nrocm 6.4.2.1-1\n")
        self.assertEqual([d for d in diffs if d.get("after_header") == "groups"][0]["after"], "group render: + alice\n")


class Messages(unittest.TestCase):
    def test_refusal_message_is_install_s_text(self):
        doc = {"refusals": ["the machine is Debian 12"], "steps": [
            {"index": 6, "id": "rocm", "action": "refused", "summary": "would install amdgpu-dkms 1:6.12",
             "details": ["amdgpu-dkms 1:6.12 is pulled in by rocm-extras → amdgpu-dkms"]},
            {"index": 7, "id": "path", "action": "change", "summary": "ignored", "details": []}]}
        self.assertEqual(mod.refusal_message(doc),
                         'the machine is Debian 12\nstep 6 "rocm": would install amdgpu-dkms 1:6.12\n'
                         "  amdgpu-dkms 1:6.12 is pulled in by rocm-extras → amdgpu-dkms\nNothing was changed (exit 3).")

    def test_error_prefix_is_dropped_from_each_line(self):
        self.assertEqual(mod.strip_error_prefix("error: one\n  advice\nerror: two\n"), "one\n  advice\ntwo")

    def test_set_values(self):
        self.assertEqual(mod.set_value(True), "true")
        self.assertEqual(mod.set_value(False), "false")
        self.assertEqual(mod.set_value(600), "600")
        self.assertEqual(mod.set_value("6.4.2.1"), "6.4.2.1")
        with self.assertRaises(ValueError):
            mod.set_value(["a"])

    def test_manifest_name_of_a_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write('# site profile\n[vars]\nname = "not this"\n\n[manifest]\nname = "site-gpu"\nschema_version = 1\n')
        try:
            self.assertEqual(mod.manifest_name_of_file(f.name), "site-gpu")
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main(verbosity=1)
