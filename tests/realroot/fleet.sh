# tests/realroot/fleet.sh: the fleet engines against a test root (docs/fleet.md):
# the wslgpu.setup Ansible collection (integrations/ansible) and the
# cloud-init user-data (integrations/cloud-init). Sourced by the scenarios
# that use them, after lib.sh; its functions reach with_root like theirs.
#
# Over the community.general.chroot connection a module runs INSIDE the
# root, and so does cloud-init's script: the tool they drive must be
# installed there.
#   root_install_tool       copies the wslgpu-setup under test, and its helper
#                           wslgpu-setup-fetch, into the root as
#                           `cmake --install --prefix /usr/local` lays them out
#                           (/usr/local/bin, /usr/local/libexec/wslgpu-setup),
#                           with root_install_libraries. Call it before the
#                           first snapshot: it is the machine's state before
#                           the playbook, as an installed package would be.
#   root_install_libraries  the shared libraries the tool needs and the root
#                           lacks, into /usr/local/lib: what the package's
#                           dependencies would install
#   tool_standin_deb OUT    a wslgpu-setup .deb of the binaries under test
#                           (/usr/bin, /usr/libexec/wslgpu-setup), for what
#                           installs "the package"
#   ansible_run NAME PLAYBOOK [ARGS...]   runs ansible-playbook against $ROOT;
#                           sets ANSIBLE_STATUS and ANSIBLE_OUT (its output;
#                           JSON from the ansible.posix.json callback unless
#                           ANSIBLE_HUMAN=1, then the default callback's text).
#                           ANSIBLE_ENV="NAME=VALUE ..." adds to its clean
#                           environment, which the chroot connection passes on
#                           to the module and the tool
#   ansible_task_result     the first task's result on the root, as JSON (from ANSIBLE_OUT)
#   ansible_stats           the root's play recap, as JSON: {ok, changed, failures, ...}
#   cloud_init_write_files USER_DATA   writes the user-data's write_files into the root
#   cloud_init_runcmd USER_DATA        runs its runcmd entries in the root; sets CLOUD_INIT_STATUS
# The base root has python3 (lib.sh), which Ansible's modules need.

ansible_collections_dir() { printf '%s\n' "$(cd "$REALROOT_LIB_DIR/../../integrations/ansible" && pwd)"; }
cloud_init_example() { printf '%s\n' "$(cd "$REALROOT_LIB_DIR/../../integrations/cloud-init" && pwd)/wslgpu-setup.user-data"; }

# Whether the root's linker cache (ldconfig -p) has SONAME.
_root_has_library() {
  in_root /sbin/ldconfig -p | awk -v so="$1" '$1 == so { found = 1 } END { exit !found }'
}

# The helper the build made next to the binary under test (or an install's).
_tool_helper() {
  local dir helper
  dir=$(dirname "${WSLGPU_BIN:?}")
  for helper in "$dir/wslgpu-setup-fetch" "$dir/../libexec/wslgpu-setup/wslgpu-setup-fetch"; do
    if [[ -x $helper ]]; then
      printf '%s\n' "$helper"
      return 0
    fi
  done
  fail "no wslgpu-setup-fetch next to $WSLGPU_BIN or in $dir/../libexec/wslgpu-setup/"
}

root_install_libraries() {
  local helper so path copied=()
  helper=$(_tool_helper)
  # The host is Debian 12 like the root, so its copies are the ones the
  # package's dependencies would install.
  while read -r so path; do
    _root_has_library "$so" && continue
    install -D -m 0644 "$path" "$ROOT/usr/local/lib/$so"
    copied+=("$so")
  done < <(ldd "$WSLGPU_BIN" "$helper" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u)
  # (The fake WSL driver stubs are not ELF files; ldconfig says so, harmlessly.)
  in_root /sbin/ldconfig 2>&1 | { grep -v 'is not an ELF file' || true; } >&2
  say "libraries the root lacked, added to /usr/local/lib: ${copied[*]:-none}"
}

root_install_tool() {
  local helper version
  helper=$(_tool_helper)
  install -D -m 0755 "$WSLGPU_BIN" "$ROOT/usr/local/bin/wslgpu-setup"
  install -D -m 0755 "$helper" "$ROOT/usr/local/libexec/wslgpu-setup/wslgpu-setup-fetch"
  root_install_libraries
  version=$(in_root /usr/local/bin/wslgpu-setup --version 2>&1) ||
    fail "wslgpu-setup does not run inside the root: $version"
  say "installed into the root's /usr/local: $version"
}

tool_standin_deb() {
  local out=${1:?tool_standin_deb OUT} stage helper version
  helper=$(_tool_helper)
  version=$("$WSLGPU_BIN" --version | awk '{ print $2 }')
  stage=$(mktemp -d)
  install -D -m 0755 "$WSLGPU_BIN" "$stage/usr/bin/wslgpu-setup"
  install -D -m 0755 "$helper" "$stage/usr/libexec/wslgpu-setup/wslgpu-setup-fetch"
  mkdir -p "$stage/DEBIAN"
  {
    printf 'Package: wslgpu-setup\nVersion: %s-realroot\nArchitecture: %s\n' "$version" "$(dpkg --print-architecture)"
    printf 'Maintainer: wslgpu-setup tests <tests@wslgpu-setup.invalid>\nSection: admin\nPriority: optional\n'
    printf 'Description: wslgpu-setup under test (a stand-in for the real package)\n'
    printf ' Built by tests/realroot/fleet.sh from the binaries under test.\n'
  } >"$stage/DEBIAN/control"
  # Uncompressed: the binaries carry debug information, and the file is thrown away.
  dpkg-deb --root-owner-group -Znone --build "$stage" "$out" >/dev/null || fail "dpkg-deb could not build the stand-in package"
  rm -rf "$stage"
}

# ansible_run NAME PLAYBOOK [ARGS...]: NAME names its log files in the scenario's folder.
ansible_run() {
  local name=$1 playbook=$2
  shift 2
  local a=$REALROOT_SCENARIO_TMP/ansible callback=ansible.posix.json
  [[ ${ANSIBLE_HUMAN:-0} == 1 ]] && callback=default
  mkdir -p "$a/home" "$a/tmp"
  : >"$a/ansible.cfg"
  printf '[fleet]\nwsl ansible_host=%s ansible_connection=community.general.chroot ansible_python_interpreter=/usr/bin/python3\n' \
    "$ROOT" >"$a/inventory.ini"
  ANSIBLE_STATUS=0
  # A clean environment, as in_root gives the root: nothing of this shell
  # (SUDO_USER, say, which the tool reads) reaches the target.
  ANSIBLE_OUT=$(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$a/home" LANG=C.UTF-8 \
    ANSIBLE_CONFIG="$a/ansible.cfg" ANSIBLE_HOME="$a/home" ANSIBLE_LOCAL_TEMP="$a/tmp" \
    ANSIBLE_REMOTE_TMP=/tmp/.ansible-fleet ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
    ANSIBLE_COLLECTIONS_PATH="$(ansible_collections_dir)" ANSIBLE_STDOUT_CALLBACK="$callback" ${ANSIBLE_ENV:-} \
    ansible-playbook -i "$a/inventory.ini" "$playbook" "$@" 2>&1) || ANSIBLE_STATUS=$?
  printf '%s\n' "$ANSIBLE_OUT" >"$REALROOT_SCENARIO_TMP/ansible-$name.log"
  say "\$ ansible-playbook $(basename "$playbook") $* -> exit $ANSIBLE_STATUS"
  sed 's/^/  ansible| /' <<<"$ANSIBLE_OUT" >&2
}

# The JSON callback's document, without any warning lines printed before it.
_ansible_json() { sed -n '/^{/,$p' <<<"$ANSIBLE_OUT"; }
ansible_task_result() {
  _ansible_json | jq -e '.plays[0].tasks[0].hosts.wsl' || fail "no task result in the playbook's JSON output"
}
ansible_stats() {
  _ansible_json | jq -e '.stats.wsl' || fail "no play recap in the playbook's JSON output"
}

# cloud-init's write_files and runcmd, the two modules the example uses, as
# cloud-init applies them: each file with its content and permissions
# (owner root:root, the only one the example names), then each command, in
# order, as root inside the root.
cloud_init_write_files() {
  /usr/bin/python3 - "$1" "$ROOT" <<'PY' || fail "cannot apply the write_files of $1"
import os, sys, yaml
config, root = yaml.safe_load(open(sys.argv[1])), sys.argv[2]
for f in config.get("write_files", []):
    assert f.get("owner", "root:root") == "root:root", f
    path = root + f["path"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(f.get("content", ""))
    os.chmod(path, int(f.get("permissions", "0644"), 8))
    os.chown(path, 0, 0)
    print("write_files: " + f["path"], file=sys.stderr)
PY
}
cloud_init_runcmd() {
  local commands cmd
  commands=$(/usr/bin/python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1])).get("runcmd", [])))' "$1") ||
    fail "cannot read the runcmd of $1"
  CLOUD_INIT_STATUS=0
  # A list runs as it is; a string, as cloud-init does, with /bin/sh.
  while IFS= read -r cmd; do
    say "runcmd: $cmd"
    eval "in_root $cmd" || CLOUD_INIT_STATUS=$?
  done < <(jq -r '.[] | if type == "array" then map(@sh) | join(" ") else "/bin/sh -c " + @sh end' <<<"$commands")
}
