# The failing-postinst trap is faithful: real apt and dpkg fail on it and
# leave the package half-configured, which is what install must roll back.

scenario() {
  with_root install_broken_package
}

install_broken_package() {
  root_use_testrepo trusted
  expect_status 100 in_root apt-get install -y -q broken-postinst
  assert_contains "$LAST_OUTPUT" 'broken-postinst: configuration fails on purpose' "apt-get install broken-postinst"
  assert_contains "$LAST_OUTPUT" 'Sub-process /usr/bin/dpkg returned an error code \(1\)' "apt-get install broken-postinst"
  local status
  status=$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${db:Status-Abbrev}' broken-postinst)
  assert_eq "$status" "iF " "broken-postinst's dpkg status (half-configured)"
  [[ -f $ROOT/usr/share/broken-postinst/marker ]] || fail "the package's files were not unpacked"
}
