# The harness proves itself: real apt installs from the signed local
# repository, the snapshot diff sees it, real usermod changes membership,
# and the next root sees none of it.

scenario() {
  with_root install_and_change_groups
  with_root sees_a_pristine_root
  with_root snapshot_shortcut_is_exact
  with_root --bare is_not_wsl
}

install_and_change_groups() {
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before"
  root_use_testrepo signed
  expect_status 0 in_root apt-get install -y -q rocm-dev
  assert_installed "$ROOT" rocm-dev rocm-core hsa-runtime-rocr4wsl-amdgpu rocminfo
  expect_status 0 in_root /opt/rocm/bin/rocminfo
  assert_contains "$LAST_OUTPUT" 'Name: +gfx1100' "rocminfo's output"

  expect_status 0 in_root usermod -aG video alice
  expect_status 0 in_root id alice
  assert_contains "$LAST_OUTPUT" '\(video\)' "id alice"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after"
  local report status=0
  report=$(snapshot_diff "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after") || status=$?
  printf '%s\n' "$report" >&2
  assert_eq "$status" 1 "snapshot_diff's status after a change"
  local p
  for p in rocm-dev rocm-core hsa-runtime-rocr4wsl-amdgpu rocminfo; do
    assert_contains "$report" "package \+ $p:all 6\.4\.2\.1-1" "the diff"
  done
  assert_contains "$report" '\+ /opt/rocm/bin/rocminfo  \(file, mode 755, owner 0:0' "the diff"
  assert_contains "$report" '^ +\+video:x:44:alice$' "the diff of /etc/group"
  assert_contains "$report" '/etc/apt/sources.list.d/wslgpu-test.sources' "the diff"
  # A root compared with itself is equal.
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/after" "$REALROOT_SCENARIO_TMP/after"
}

sees_a_pristine_root() {
  assert_not_installed "$ROOT" rocm-dev rocm-core
  [[ ! -e $ROOT/opt/rocm ]] || fail "/opt/rocm survived from the previous root"
  expect_status 0 in_root id alice
  assert_not_contains "$LAST_OUTPUT" 'video' "id alice in a fresh root"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/fresh"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/fresh" \
    "a fresh root differs from the first root before its changes"
  # The fake WSL layer is in place, and nothing reaches the network.
  [[ -c $ROOT/dev/dxg ]] || fail "/dev/dxg is not a character device"
  assert_eq "$(cat "$ROOT/proc/sys/kernel/osrelease")" "$REALROOT_WSL_KERNEL" "the root's kernel release"
  assert_eq "$(in_root id -u alice)" 1000 "alice's uid"
  [[ -d $ROOT/mnt/c/Users/alice && -f $ROOT/usr/lib/wsl/lib/libcuda.so.1 && -f $ROOT/etc/wsl.conf ]] ||
    fail "the fake WSL layer is incomplete"
  # /proc/net/dev lists the interfaces of the reader's network namespace.
  local interfaces
  interfaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev | tr '\n' ' ')
  assert_eq "$interfaces" "lo " "the network interfaces inside the namespace"
}

# snapshot() hashes only the files in the root's upper layer and takes the
# others' hashes from the lower layers' list: its result must be the one
# hashing every file gives, after a change of a lower file in place (same
# size, same mtime), and with a filesystem mounted over part of the root.
snapshot_shortcut_is_exact() {
  local tmp=$REALROOT_SCENARIO_TMP
  snapshot "$ROOT" "$tmp/fast-before"
  REALROOT_ROOT_LOWER_HASHES="" snapshot "$ROOT" "$tmp/full-before"
  assert_same_snapshot "$tmp/full-before" "$tmp/fast-before" "the snapshot's shortcut on a fresh root"

  local file=$ROOT/etc/debian_version stamp
  stamp=$(stat -c %y "$file")
  printf 'X' | dd of="$file" bs=1 seek=0 conv=notrunc status=none
  touch -d "$stamp" "$file"
  snapshot "$ROOT" "$tmp/fast-after"
  REALROOT_ROOT_LOWER_HASHES="" snapshot "$ROOT" "$tmp/full-after"
  assert_same_snapshot "$tmp/full-after" "$tmp/fast-after" "the snapshot's shortcut after an in-place change"
  local report status=0
  report=$(snapshot_diff "$tmp/fast-before" "$tmp/fast-after") || status=$?
  assert_eq "$status" 1 "snapshot_diff's status after an in-place change of a lower file"
  assert_contains "$report" '/etc/debian_version' "the diff"

  # A tmpfs over a folder of the base, holding a file at a lower file's
  # path with other content: only hashing it shows the difference.
  local dir=$ROOT/usr/share/doc/dpkg
  [[ -f $dir/copyright ]] || fail "the base has no $dir/copyright"
  mount -t tmpfs docfs "$dir"
  printf 'not the lower layer\n' >"$dir/copyright"
  snapshot "$ROOT" "$tmp/fast-mounted"
  REALROOT_ROOT_LOWER_HASHES="" snapshot "$ROOT" "$tmp/full-mounted"
  umount "$dir"
  assert_same_snapshot "$tmp/full-mounted" "$tmp/fast-mounted" "the snapshot with a filesystem mounted over a folder of the base"
}

# A --bare root is plain Debian: no /dev/dxg, no driver mount, no alice,
# the machine's own kernel release.
is_not_wsl() {
  [[ ! -e $ROOT/dev/dxg && ! -e $ROOT/usr/lib/wsl && ! -e $ROOT/etc/wsl.conf ]] || fail "a --bare root has WSL files"
  expect_status 1 in_root id alice
  assert_contains "$LAST_OUTPUT" "no such user" "id alice in a --bare root"
  [[ $(cat "$ROOT/proc/sys/kernel/osrelease") != "$REALROOT_WSL_KERNEL" ]] || fail "a --bare root has the WSL kernel release"
}
