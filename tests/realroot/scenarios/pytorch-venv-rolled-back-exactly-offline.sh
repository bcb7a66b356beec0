# realroot-timeout: 600
# A rollback of a transaction with python_packages gives back the venv
# exactly, from the undo store, with the network down (issue 35):
#   - install pytorch on ROCm 7.2 (the legacy wheels; the venv is new): T1;
#   - install pytorch again on 7.2.2: T2, a release switch of every wheel,
#     downloaded by the tool itself (the plan and the progress say so);
#     the undo store holds the 7.2 venv, nothing of it is left in the venv;
#   - the user adds a distribution of their own (userpkg), then removes one
#     of T2's (torchaudio): the rollback of T2 says the venv changed since,
#     exits 3 and changes nothing; torchaudio back, it goes on;
#   - with no network at all, the rollback of T2 gives back the 7.2 venv:
#     the same `name==version` set (`pip list`), the same files with the
#     same bytes (bytecode caches aside), the user's userpkg kept;
#   - the user saves a file of their own in the venv (notes.txt): the
#     rollback of T1, which created the venv, names userpkg and notes.txt as
#     added since, exits 3 and changes nothing (issue 54: it deleted them);
#   - with --force (and --output json) it moves the venv aside to
#     VENV.kept-by-rollback, says so in its notices, and removes nothing of
#     the user's: userpkg and notes.txt are there; with that folder gone, the
#     root is as before.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root venv_rolled_back_exactly_offline
}

# venv_tree: every file of the venv but bytecode caches, with its SHA-256,
# and the folders, sorted.
venv_tree() {
  (cd "$ROOT$PYTORCH_VENV" && find . \( -name __pycache__ -prune \) -o \( -type f -print0 \) | sort -z |
    xargs -0 sha256sum && find . -name __pycache__ -prune -o -type d -print | sort)
}

# venv_freeze: `pip list --format=freeze` as the user, the network down or not.
venv_freeze() {
  as_user_login "$PYTORCH_VENV/bin/python -m pip list --disable-pip-version-check --format=freeze" >/dev/null ||
    fail "pip list failed in the venv"
  sort <<<"$LAST_OUTPUT"
}

venv_rolled_back_exactly_offline() {
  local tmp=$REALROOT_SCENARIO_TMP t1 t2 site
  root_as_amd_machine
  pytorch_www --legacy-bundled-hsa=yes
  local sets72 sets722
  mapfile -t sets72 < <(pytorch_rocm_args 7.2)
  mapfile -t sets722 < <(pytorch_rocm_args 7.2.2)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  site=$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages

  tool --root "$ROOT" "${sets72[@]}" install pytorch --yes
  assert_status 0 "install pytorch on ROCm 7.2 (T1)"
  t1=$(newest_transaction)
  local freeze1 tree1
  freeze1=$(venv_freeze)
  tree1=$(venv_tree)
  assert_contains "$freeze1" '^torch==2\.' "pip list after T1"

  tool --root "$ROOT" "${sets722[@]}" plan pytorch
  assert_status 0 "plan pytorch on 7.2.2 over the 7.2 venv"
  assert_contains "$TOOL_OUT" "keeps the venv's [0-9]+ files" "plan: what undo keeps of the venv"
  tool --root "$ROOT" "${sets722[@]}" install pytorch --yes
  assert_status 0 "install pytorch on ROCm 7.2.2 (T2)"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch on 7.2.2"
  t2=$(newest_transaction)
  [[ $t2 != "$t1" ]] || fail "T2 has T1's id: $t2"
  local freeze2
  freeze2=$(venv_freeze)
  [[ $freeze2 != "$freeze1" ]] || fail "the switch to 7.2.2 changed nothing in the venv: $freeze2"
  # The old venv is in the store, never in the venv.
  [[ ! -e $ROOT$PYTORCH_VENV/.wslgpu-setup-undo && ! -e $ROOT$PYTORCH_VENV/.wslgpu-setup-wheels ]] ||
    fail "apply left its folders in the venv: $(ls -A "$ROOT$PYTORCH_VENV")"
  ls -d "$ROOT$REALROOT_STATE_DIR/tx/$t2/undo/"venv-* >/dev/null 2>&1 || fail "T2 has no venv in its undo store"
  # The wheels were the tool's own downloads, and the cache let them go
  # once pip had installed them (the undo store holds the old venv).
  assert_contains "$TOOL_OUT" 'downloading .* \(4 wheels named by URL\)' "install pytorch on 7.2.2: the tool's own download of the wheels"
  [[ -z $(ls -A "$ROOT$REALROOT_STATE_DIR/cache/wheels/" 2>/dev/null) ]] ||
    fail "the installed wheels stayed in the tool's cache: $(ls -la "$ROOT$REALROOT_STATE_DIR/cache/wheels/")"

  # The user's own changes since: one distribution added, one of T2's removed.
  # userpkg: a distribution no row of the profile has, built here.
  python3 - "$ROOT/tmp" <<'PY' || fail "could not build the user's wheel"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1] + "/userpkg-1.0-py3-none-any.whl", "w") as z:
    z.writestr("userpkg/__init__.py", "")
    z.writestr("userpkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: userpkg\nVersion: 1.0\n")
    z.writestr("userpkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("userpkg-1.0.dist-info/RECORD", "userpkg/__init__.py,,\nuserpkg-1.0.dist-info/METADATA,,\n"
               "userpkg-1.0.dist-info/WHEEL,,\nuserpkg-1.0.dist-info/RECORD,,\n")
PY
  chmod 0644 "$ROOT/tmp/userpkg-1.0-py3-none-any.whl"
  as_user_login "$PYTORCH_VENV/bin/python -m pip install --no-index --no-deps --disable-pip-version-check /tmp/userpkg-1.0-py3-none-any.whl" ||
    fail "the user's pip install of userpkg failed"
  as_user_login "$PYTORCH_VENV/bin/python -m pip uninstall -y --disable-pip-version-check torchaudio" ||
    fail "the user's pip uninstall of torchaudio failed"
  snapshot "$ROOT" "$tmp/drifted" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" rollback "$t2" --yes
  assert_status 3 "rollback of T2 with torchaudio removed since"
  assert_contains "$TOOL_ERR" "$PYTORCH_VENV: torchaudio .*, removed since \\(changed since\\)" "rollback: the drift, named"
  snapshot "$ROOT" "$tmp/drifted-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/drifted" "$tmp/drifted-after" "a refused rollback changed the root"
  local audio
  audio=$(find "$tmp/www/manylinux/rocm-rel-7.2.2" -name 'torchaudio-*.whl' | head -n 1)
  cp "$audio" "$ROOT/tmp/" && chmod 0644 "$ROOT/tmp/${audio##*/}"
  as_user_login "$PYTORCH_VENV/bin/python -m pip install --no-index --no-deps --disable-pip-version-check /tmp/${audio##*/}" ||
    fail "the user's pip install of torchaudio back failed"
  rm -f "$ROOT/tmp/"*.whl

  # With no network at all: the 7.2 venv back, exactly, the user's userpkg kept.
  network_off
  tool --root "$ROOT" rollback "$t2" --yes
  assert_status 0 "rollback of T2 with the network down"
  assert_contains "$TOOL_OUT" "note: $PYTORCH_VENV: kept what was added since the transaction: userpkg 1\\.0" \
    "rollback of T2: what it kept, said"
  local freeze_back tree_back
  freeze_back=$(venv_freeze)
  assert_contains "$freeze_back" '^userpkg==1\.0$' "pip list after the rollback: the user's userpkg is kept"
  assert_eq "$(grep -v '^userpkg==' <<<"$freeze_back")" "$freeze1" "pip list after the rollback of T2 (the user's userpkg aside)"
  tree_back=$(venv_tree | grep -v -e '/userpkg')
  if [[ $tree_back != "$tree1" ]]; then
    diff <(printf '%s\n' "$tree1") <(printf '%s\n' "$tree_back") >&2 || true
    fail "the venv's files after the rollback of T2 are not those after T1 (bytecode caches and the user's userpkg aside)"
  fi
  [[ ! -e $ROOT$REALROOT_STATE_DIR/tx/$t2/undo ]] || fail "the rollback left T2's undo store"

  # The venv T1 made holds the user's userpkg and a file of theirs: never deleted.
  as_user_login "echo 'my results' > $PYTORCH_VENV/notes.txt" || fail "the user could not write notes.txt"
  snapshot "$ROOT" "$tmp/added" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" rollback "$t1" --yes
  assert_status 3 "rollback of T1 with the user's userpkg and notes.txt in the venv it created"
  assert_contains "$TOOL_ERR" "$PYTORCH_VENV: userpkg 1\.0 and 1 file \(notes\.txt\), added since this transaction created the venv" \
    "rollback of T1: what the user added, named"
  assert_contains "$TOOL_ERR" "moves the venv aside to $PYTORCH_VENV\.kept-by-rollback instead of removing it" \
    "rollback of T1: what --force would do"
  snapshot "$ROOT" "$tmp/added-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/added" "$tmp/added-after" "a refused rollback of T1 changed the root"

  tool --root "$ROOT" rollback "$t1" --yes --force --output json
  assert_status 0 "rollback of T1 with --force"
  local notices
  notices=$(jq -r '.notices[]' <<<"$TOOL_OUT") || fail "rollback --output json printed no JSON: $TOOL_OUT"
  assert_contains "$notices" "the venv $PYTORCH_VENV that this transaction created held what was added since \(userpkg 1\.0 and 1 file \(notes\.txt\)\): it was moved aside to $PYTORCH_VENV\.kept-by-rollback, not removed" \
    "rollback of T1: the note"
  [[ ! -e $ROOT$PYTORCH_VENV ]] || fail "the venv is still at $PYTORCH_VENV"
  local aside=$ROOT$PYTORCH_VENV.kept-by-rollback
  assert_eq "$(cat "$aside/notes.txt")" "my results" "the user's notes.txt, moved aside"
  ls -d "$aside/lib/python$PYTORCH_PYTHON/site-packages/userpkg-1.0.dist-info" >/dev/null ||
    fail "the user's userpkg is not in $aside"
  # The folder T1 made for the venv stays: it holds the moved-aside venv.
  rm -rf "$aside"
  rmdir "${aside%/*}" || fail "${aside%/*} holds more than the moved-aside venv: $(ls -A "${aside%/*}")"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "the rollbacks (and the moved-aside venv removed) left the root different from before T1"
}
