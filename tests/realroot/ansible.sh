# tests/realroot/ansible.sh: running the wslgpu.setup Ansible collection
# (integrations/ansible) against a test root. Sourced by the ansible-*
# scenarios, after lib.sh; its functions reach with_root like theirs.
#
# Over the community.general.chroot connection a module runs INSIDE the
# root, so the tool it drives must be installed there:
#   root_install_tool       copies the wslgpu-setup under test, and its helper
#                           wslgpu-setup-fetch, into the root as
#                           `cmake --install --prefix /usr/local` lays them out
#                           (/usr/local/bin, /usr/local/libexec/wslgpu-setup),
#                           with the shared libraries the root lacks (the
#                           package's dependencies) in /usr/local/lib. Call it
#                           before the first snapshot: it is the machine's
#                           state before the playbook, as an installed
#                           package would be.
#   ansible_run NAME PLAYBOOK [ARGS...]   runs ansible-playbook against $ROOT;
#                           sets ANSIBLE_STATUS and ANSIBLE_OUT (its output;
#                           JSON from the ansible.posix.json callback unless
#                           ANSIBLE_HUMAN=1, then the default callback's text)
#   ansible_task_result     the first task's result on the root, as JSON (from ANSIBLE_OUT)
#   ansible_stats           the root's play recap, as JSON: {ok, changed, failures, ...}
# The base root has python3 (lib.sh), which Ansible's modules need.

ansible_collections_dir() { printf '%s\n' "$(cd "$REALROOT_LIB_DIR/../../integrations/ansible" && pwd)"; }

# Whether the root's linker cache (ldconfig -p) has SONAME.
_root_has_library() {
  in_root /sbin/ldconfig -p | awk -v so="$1" '$1 == so { found = 1 } END { exit !found }'
}

root_install_tool() {
  local bin=${WSLGPU_BIN:?} dir helper
  dir=$(dirname "$bin")
  for helper in "$dir/wslgpu-setup-fetch" "$dir/../libexec/wslgpu-setup/wslgpu-setup-fetch" ""; do
    [[ -z $helper || -x $helper ]] && break
  done
  [[ -n $helper ]] || fail "no wslgpu-setup-fetch next to $bin or in $dir/../libexec/wslgpu-setup/"
  install -D -m 0755 "$bin" "$ROOT/usr/local/bin/wslgpu-setup"
  install -D -m 0755 "$helper" "$ROOT/usr/local/libexec/wslgpu-setup/wslgpu-setup-fetch"
  # The shared libraries the binaries need and the root lacks: the host is
  # Debian 12 like the root, so its copies are the ones the package's
  # dependencies would install.
  local so path copied=()
  while read -r so path; do
    _root_has_library "$so" && continue
    install -D -m 0644 "$path" "$ROOT/usr/local/lib/$so"
    copied+=("$so")
  done < <(ldd "$bin" "$helper" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u)
  # (The fake WSL driver stubs are not ELF files; ldconfig says so, harmlessly.)
  in_root /sbin/ldconfig 2>&1 | { grep -v 'is not an ELF file' || true; } >&2
  say "installed wslgpu-setup into the root (/usr/local); libraries added: ${copied[*]:-none}"
  local version
  version=$(in_root /usr/local/bin/wslgpu-setup --version 2>&1) ||
    fail "wslgpu-setup does not run inside the root: $version"
  say "in the root: $version"
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
    ANSIBLE_COLLECTIONS_PATH="$(ansible_collections_dir)" ANSIBLE_STDOUT_CALLBACK="$callback" \
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
