#!/usr/bin/env bash
# tests/fleet/check.sh: the fleet integrations, checked with the real engines
# (ctest "fleet"; the playbook itself runs in the real-root tier,
# tests/realroot/scenarios/ansible-*.sh).
#
#   check.sh SOURCE_DIR WSLGPU_SETUP_BINARY
#
# 1. The Ansible module compiles, and its own logic passes tests/fleet/test_module.py.
# 2. ansible-doc renders wslgpu.setup.wslgpu_setup from integrations/ansible.
# 3. ansible-galaxy builds the collection from its galaxy.yml.
# 4. cloud-init's own schema accepts the user-data example
#    (integrations/cloud-init/wslgpu-setup.user-data).
# 5. docs/fleet.md holds that example verbatim, so the file in the docs cannot rot.
# 6. ansible-playbook --syntax-check accepts docs/fleet.md's playbook and the
#    module's EXAMPLES (as the tasks of a play): keywords, and that every
#    module they name resolves.
# Needs Debian's ansible (ansible-core, ansible-doc, ansible-galaxy) and
# cloud-init (tests/deps.txt); fails, never skips, without them.
set -Eeuo pipefail

src=$(cd "${1:?usage: check.sh SOURCE_DIR WSLGPU_SETUP_BINARY}" && pwd)
bin=$(realpath "${2:?usage: check.sh SOURCE_DIR WSLGPU_SETUP_BINARY}")
collections=$src/integrations/ansible
module=$collections/ansible_collections/wslgpu/setup/plugins/modules/wslgpu_setup.py
user_data=$src/integrations/cloud-init/wslgpu-setup.user-data
# Debian's python3, which has the ansible modules (a pyenv shim may not).
py=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree

fail() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}
for cmd in "$py" ansible-doc ansible-galaxy cloud-init; do
  command -v "$cmd" >/dev/null || fail "$cmd is missing: install Debian's ansible and cloud-init (tests/deps.txt)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "1. the module compiles and its logic passes"
"$py" -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' "$module" "$tmp/module.pyc"
"$py" "$src/tests/fleet/test_module.py" "$module" "$bin"

echo "2. ansible-doc wslgpu.setup.wslgpu_setup"
export ANSIBLE_COLLECTIONS_PATH=$collections ANSIBLE_HOME=$tmp/ansible-home ANSIBLE_LOCAL_TEMP=$tmp/ansible-tmp ANSIBLE_NOCOLOR=1
doc=$(ansible-doc wslgpu.setup.wslgpu_setup 2>&1) || fail "ansible-doc exited $?:"$'\n'"$doc"
for want in '^> WSLGPU\.SETUP\.WSLGPU_SETUP ' '^OPTIONS' '^- profile$' '^- vars$' '^- state$' '^- windows_home$' \
  '^- lock_timeout$' '^- executable$' '^- unsupported_distro$' '^EXAMPLES:' '^RETURN VALUES:' '^- transaction_id$' '^- notices$'; do
  grep -Eq -- "$want" <<<"$doc" || fail "ansible-doc's output has no line matching /$want/:"$'\n'"$doc"
done
warnings=$(grep -E '^\[WARNING\]|ERROR' <<<"$doc" || true)
[[ -z $warnings ]] || fail "ansible-doc warned:"$'\n'"$warnings"
json=$(ansible-doc --json wslgpu.setup.wslgpu_setup) || fail "ansible-doc --json exited $?"
"$py" -c 'import json, sys; d = json.loads(sys.argv[1])["wslgpu.setup.wslgpu_setup"]; assert d["doc"]["module"] == "wslgpu_setup" and d["examples"] and d["return"], d' "$json" ||
  fail "ansible-doc --json lacks the module's doc, examples or return values"

echo "3. ansible-galaxy collection build"
ansible-galaxy collection build --output-path "$tmp" "$collections/ansible_collections/wslgpu/setup" >"$tmp/galaxy.log" 2>&1 ||
  fail "ansible-galaxy collection build failed:"$'\n'"$(cat "$tmp/galaxy.log")"
ls "$tmp"/wslgpu-setup-*.tar.gz >/dev/null || fail "ansible-galaxy made no wslgpu-setup-VERSION.tar.gz"

echo "4. cloud-init schema --config-file integrations/cloud-init/wslgpu-setup.user-data"
schema=$(cloud-init schema --config-file "$user_data" 2>&1) || fail "cloud-init schema rejected the example:"$'\n'"$schema"
grep -q '^Valid cloud-config' <<<"$schema" || fail "cloud-init schema did not say the example is valid:"$'\n'"$schema"
head -n 1 "$user_data" | grep -qx '#cloud-config' || fail "the user-data does not start with #cloud-config"

echo "5. docs/fleet.md holds the user-data verbatim"
# The block after the line "<!-- integrations/cloud-init/wslgpu-setup.user-data -->".
in_doc=$(awk '
  /^<!-- integrations\/cloud-init\/wslgpu-setup\.user-data -->$/ { marker = 1; next }
  marker && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }' "$src/docs/fleet.md")
[[ -n $in_doc ]] || fail "docs/fleet.md has no block after <!-- integrations/cloud-init/wslgpu-setup.user-data -->"
diff -u "$user_data" <(printf '%s\n' "$in_doc") >"$tmp/doc.diff" ||
  fail "docs/fleet.md's user-data differs from integrations/cloud-init/wslgpu-setup.user-data (copy the file into the doc):"$'\n'"$(cat "$tmp/doc.diff")"

echo "6. ansible-playbook --syntax-check: docs/fleet.md's playbook and the module's EXAMPLES"
awk '
  /^<!-- tests\/fleet: ansible-playbook --syntax-check -->$/ { marker = 1; next }
  marker && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }' "$src/docs/fleet.md" >"$tmp/doc-playbook.yml"
[[ -s $tmp/doc-playbook.yml ]] || fail "docs/fleet.md has no block after <!-- tests/fleet: ansible-playbook --syntax-check -->"
"$py" - "$module" >"$tmp/examples-playbook.yml" <<'PY'
import ast, sys
for node in ast.parse(open(sys.argv[1]).read()).body:
    if isinstance(node, ast.Assign) and node.targets[0].id == "EXAMPLES":
        examples = node.value.value
print("- hosts: all\n  gather_facts: false\n  tasks:")
print("\n".join(("    " + line) if line.strip() else "" for line in examples.strip("\n").splitlines()))
PY
for playbook in "$tmp/doc-playbook.yml" "$tmp/examples-playbook.yml"; do
  out=$(ansible-playbook --syntax-check -i localhost, "$playbook" 2>&1) ||
    fail "ansible-playbook --syntax-check rejected $(basename "$playbook"):"$'\n'"$out"$'\n'"$(cat "$playbook")"
done

echo "fleet integrations: all checks passed"
