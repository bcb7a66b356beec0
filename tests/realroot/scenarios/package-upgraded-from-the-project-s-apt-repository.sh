# The project's apt repository (issue 26, docs/packaging.md "Releases"):
# built with packaging/apt-repo.sh for wslgpu-setup 0.1.0, then again adding
# 0.2.0, signed with a key made here, and used in fresh Debian 12 (bookworm)
# and Debian 13 (trixie) roots with exactly the commands README's Install
# section tells users (rendered by packaging/render-install.sh with the test
# repository's file: URL and the test key's fingerprint, `sudo` dropped:
# the commands run as root). The root installs 0.1.0 from it, provisions
# with it (a manifest that adds the tier's test repository and installs
# rocm-core from it), is upgraded to 0.2.0 by README's `apt update && apt
# upgrade`, and then:
#   - `history` still lists the transaction, and `rollback` of it leaves the
#     root as it was before it (an empty snapshot diff, but for the one
#     intended change: wslgpu-setup is 0.2.0 now);
#   - given a state folder that a newer wslgpu-setup wrote (the stamp
#     state-format one format ahead, tool_version 9.0.0), `history` and
#     `install` refuse with exit 2, naming 9.0.0 and the running version and
#     saying to upgrade, and change nothing.
#
# Both .debs are made by CPack from the build of WSLGPU_BIN and carry that
# build under test; they differ only in their version (CPACK_PACKAGE_VERSION).
# What the scenario proves is the repository, the upgrade path through it,
# and that the state survives the upgrade, not a difference between two
# releases' code.
#
# The roots are the package scenario's (tests/realroot/package.sh: minbase
# with the package's Recommends, and curl and gpg for README's commands),
# one extraction each; the first run on a machine builds them.
# realroot-timeout: 900

# shellcheck source=../package.sh
source "$REALROOT_LIB_DIR/package.sh"

# Where the repository is in the root, and the URL README is rendered with
# (exported: with_root passes functions, not plain variables).
export APTREPO_IN_ROOT=/srv/wslgpu-repo
export APTREPO_URL=file:$APTREPO_IN_ROOT

scenario() {
  require_tool_command install
  require_tool_command history
  require_tool_command rollback
  local t=$REALROOT_SCENARIO_TMP src start fpr suite
  src=$(cd "$REALROOT_LIB_DIR/../.." && pwd)

  # The test key, in a GNUPGHOME of its own.
  start=$EPOCHREALTIME
  export GNUPGHOME=$t/gnupg
  mkdir -m 0700 "$GNUPGHOME"
  gpg --batch --quiet --passphrase '' --quick-gen-key 'wslgpu-setup repository test' \
    ed25519 sign never 2>/dev/null || fail "gpg could not make the test key"
  fpr=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '/^fpr:/ { print $10; exit }')
  say "test key $fpr made in $(elapsed_since "$start") s"

  # The two .debs, and the repository built for 0.1.0, then again (a copy,
  # so that both states can be published in turn) adding 0.2.0. The
  # Release dates are an hour apart and in the past, as two releases' are.
  # Both .debs at once: cpack spends its time in xz, on one core each.
  local deb1 deb2 now p1 p2
  package_cpack "$t/deb-0.1.0" -D CPACK_PACKAGE_VERSION=0.1.0 >"$t/deb1" &
  p1=$!
  package_cpack "$t/deb-0.2.0" -D CPACK_PACKAGE_VERSION=0.2.0 >"$t/deb2" &
  p2=$!
  wait "$p1" || fail "cpack of 0.1.0 failed"
  wait "$p2" || fail "cpack of 0.2.0 failed"
  deb1=$(<"$t/deb1") deb2=$(<"$t/deb2")
  assert_eq "$(dpkg-deb -f "$deb2" Version)" 0.2.0 "the second .deb's version"
  now=$(date +%s)
  expect_status 0 env SOURCE_DATE_EPOCH=$((now - 7200)) "$src/packaging/apt-repo.sh" --out "$t/repo-0.1.0" \
    --url "$APTREPO_URL" --key "$fpr" "$deb1"
  cp -a "$t/repo-0.1.0" "$t/repo-0.2.0"
  expect_status 0 env SOURCE_DATE_EPOCH=$((now - 3600)) "$src/packaging/apt-repo.sh" --out "$t/repo-0.2.0" \
    --url "$APTREPO_URL" --key "$fpr" "$deb2"
  assert_contains "$LAST_OUTPUT" "versions: +0\.1\.0 0\.2\.0$" "the second build of the repository (it keeps 0.1.0)"
  assert_eq "$(cat "$t/repo-0.2.0/wslgpu-setup.sources")" "$(printf 'Types: deb\nURIs: %s\nSuites: stable\nComponents: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/wslgpu-setup.gpg' "$APTREPO_URL")" \
    "wslgpu-setup.sources"

  # README's commands, rendered for this repository and key: the first
  # shell block of the repository way installs, the second upgrades.
  cp "$src/README.md" "$t/README.md"
  expect_status 0 "$src/packaging/render-install.sh" --url "$APTREPO_URL" --fingerprint "$fpr" "$t/README.md"
  aptrepo_readme_block 1 "$t/README.md" >"$t/install.sh"
  aptrepo_readme_block 2 "$t/README.md" >"$t/upgrade.sh"
  say "README's commands, as run (as root, without sudo):"
  sed 's/^/  install| /' "$t/install.sh" >&2
  sed 's/^/  upgrade| /' "$t/upgrade.sh" >&2
  grep -q "apt install wslgpu-setup" "$t/install.sh" || fail "README's first block does not install wslgpu-setup"
  grep -q "apt upgrade" "$t/upgrade.sh" || fail "README's second block does not upgrade"

  for suite in "${PACKAGE_SUITES[@]}"; do
    package_release_layers "$suite" "$t/$suite"
    (REALROOT_RUN=$t/$suite with_root aptrepo_in_root "$suite" "$fpr" "$t")
    rm -rf "${t:?}/$suite"
  done
}

# What `run.sh --prepare` builds ahead of the run: both releases' roots.
prepare_cache() { package_prepare_cache; }

# aptrepo_readme_block N README: the Nth sh block of README's "From the apt
# repository" part, as root runs it (sudo dropped).
aptrepo_readme_block() {
  awk -v n="$1" '
    /^### / { part = ($0 ~ /^### From the apt repository/) }
    part && /^```sh$/ { block++; if (block == n) { on = 1; next } }
    on && /^```$/ { exit }
    on { print }' "$2" | sed -E 's/(^|[|&;] *)sudo /\1/g'
}

# aptrepo_publish DIR: the repository the root's apt reads is now DIR.
aptrepo_publish() {
  rm -rf "${ROOT:?}$APTREPO_IN_ROOT"
  cp -a "$1" "$ROOT$APTREPO_IN_ROOT"
}

# aptrepo_installed_version VERSION
aptrepo_installed_version() {
  expect_status 0 in_root dpkg-query -W -f '${Version}' wslgpu-setup
  assert_eq "$LAST_OUTPUT" "$1" "the installed wslgpu-setup's version"
}

aptrepo_in_root() {
  local suite=$1 fpr=$2 t=$3 s=$REALROOT_SCENARIO_TMP/$1-snap
  mkdir -p "$s"
  say "=== $suite: $(. "$ROOT/etc/os-release" && echo "$PRETTY_NAME")"
  # apt asks before it changes anything; a user answers yes.
  printf 'APT::Get::Assume-Yes "true";\n' >"$ROOT/etc/apt/apt.conf.d/90wslgpu-test-yes"

  say "--- README's commands: add the repository, install 0.1.0"
  aptrepo_publish "$t/repo-0.1.0"
  expect_status 0 in_root bash -euo pipefail -c "$(cat "$t/install.sh")"
  # gpg --show-keys prints the fingerprint on a line of its own.
  assert_contains "$LAST_OUTPUT" "^ +$fpr\$" "gpg --show-keys of the key README fetches"
  [[ -f $ROOT/etc/apt/keyrings/wslgpu-setup.gpg && -f $ROOT/etc/apt/sources.list.d/wslgpu-setup.sources ]] ||
    fail "README's commands did not write the key and the .sources file"
  aptrepo_installed_version 0.1.0
  expect_status 0 in_root wslgpu-setup --version
  local running
  running=$(sed -n 's/^wslgpu-setup \([^ ]*\) (git .*)$/\1/p' <<<"$LAST_OUTPUT")
  [[ -n $running ]] || fail "cannot read the running version from wslgpu-setup --version"

  say "--- a transaction with 0.1.0: the test repository, rocm-core"
  { manifest_header aptrepo-upgrade; manifest_testrepo_steps; manifest_apt_install core rocm-core; } >"$ROOT/tmp/provision.toml"
  # Left out: the state folder (the history is meant to stay), the
  # repository (republished below), and dpkg's status file, which records
  # wslgpu-setup's own version (the snapshot's package list holds the rest
  # of what it says).
  local skip=(--exclude "$REALROOT_STATE_DIR" --exclude "$APTREPO_IN_ROOT" --exclude /var/lib/dpkg/status)
  package_snapshot "$s/before" "${skip[@]}"
  expect_status 0 in_root wslgpu-setup install /tmp/provision.toml --yes
  assert_installed "$ROOT" rocm-core
  expect_status 0 in_root wslgpu-setup history --output json
  local id
  id=$(jq -r '.[0].id' <<<"$LAST_OUTPUT")
  [[ -n $id && $id != null ]] || fail "history lists no transaction"

  say "--- 0.2.0 published; README's upgrade"
  aptrepo_publish "$t/repo-0.2.0"
  expect_status 0 in_root bash -euo pipefail -c "$(cat "$t/upgrade.sh")"
  aptrepo_installed_version 0.2.0
  assert_installed "$ROOT" rocm-core

  say "--- the history survived the upgrade: rollback $id"
  expect_status 0 in_root wslgpu-setup history --output json
  jq -e --arg id "$id" 'any(.[]; .id == $id)' <<<"$LAST_OUTPUT" >/dev/null || fail "history after the upgrade does not list $id"
  expect_status 0 in_root wslgpu-setup rollback "$id" --yes
  assert_not_installed "$ROOT" rocm-core
  package_snapshot "$s/after" "${skip[@]}"
  # The one intended difference: the upgrade.
  sed $'s/^wslgpu-setup:amd64\t0\\.1\\.0\t/wslgpu-setup:amd64\t0.2.0\t/' "$s/before" >"$s/expected"
  assert_same_snapshot "$s/expected" "$s/after" "rollback after the upgrade left the root different from before the transaction (bar wslgpu-setup 0.2.0)"

  say "--- a state folder of a newer wslgpu-setup: refused, nothing changed"
  local stamp=$ROOT$REALROOT_STATE_DIR/state-format format
  format=$(jq -e '.state_format' "$stamp") || fail "no state_format in $stamp: $(cat "$stamp")"
  printf '{"state_format":%d,"tool_version":"9.0.0"}\n' $((format + 1)) >"$stamp"
  package_snapshot "$s/newer"
  local command
  for command in "history" "install /tmp/provision.toml --yes"; do
    # shellcheck disable=SC2086 # the command's words
    expect_status 2 in_root wslgpu-setup $command
    assert_contains "$LAST_OUTPUT" "9\.0\.0" "wslgpu-setup $command with a newer state"
    assert_contains "$LAST_OUTPUT" "wslgpu-setup ${running//./\\.}[^0-9.]" "wslgpu-setup $command with a newer state (the running version)"
    assert_contains "$LAST_OUTPUT" "[Uu]pgrade wslgpu-setup" "wslgpu-setup $command with a newer state (what to do)"
  done
  package_snapshot "$s/refused"
  assert_same_snapshot "$s/newer" "$s/refused" "a refused run changed the root"
}
