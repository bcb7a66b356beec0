# The bundled rocm profile's default release path, 7.2.x with librocdxg,
# installed fresh from the test repository's 7.x layout (rocm/apt/7.2.2,
# amdgpu/30.30.2, graphics/7.2.1): the standard runtime, librocdxg's .deb
# downloaded over HTTPS from the root's loopback, its SHA-256 checked, then
# installed by dpkg; HSA_ENABLE_DXG_DETECTION=1 in /etc/profile.d, seen by a
# login shell, and for systemd's services and user sessions (system.conf.d,
# environment.d); rocminfo (which, like 7.2.x's, finds no GPU without both)
# lists the agent. A second plan is converged (--detailed-exitcode 0), and
# the rollback leaves the root as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds check apt_repository apt_update apt_install download deb_install profile_env file
  with_root fresh_install_of_the_default_release
}

ROCM7_PACKAGES=(rocm rocm-dev rocm-core rocminfo hsa-rocr libdrm-amdgpu-amdgpu1 libdrm-amdgpu-common)

fresh_install_of_the_default_release() {
  local sets tmp=$REALROOT_SCENARIO_TMP id
  local deb=/var/lib/wslgpu-setup/cache/rocdxg-roct_${TESTREPO_ROCDXG_VERSION}_amd64.deb
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t sets < <(rocm7_profile_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm"
  assert_contains "$TOOL_OUT" 'amdgpu-repo +change +add /etc/apt/sources.list.d/amdgpu.sources' "plan rocm"
  assert_contains "$TOOL_OUT" 'graphics-repo +change +add /etc/apt/sources.list.d/rocm-graphics.sources' "plan rocm"
  assert_contains "$TOOL_OUT" 'rocm +skipped' "plan rocm: the legacy step"
  assert_contains "$TOOL_OUT" 'rocm7 +change +install [0-9]+ packages: .*rocm' "plan rocm"
  assert_contains "$TOOL_OUT" "rocdxg-download +change +download $HTTPS_URL/v$TESTREPO_ROCDXG_VERSION/rocdxg-roct_${TESTREPO_ROCDXG_VERSION}_amd64.deb to $deb" "plan rocm"
  assert_contains "$TOOL_OUT" "sha256 $TESTREPO_ROCDXG_SHA256" "plan rocm: the pinned hash"
  assert_not_contains "$TOOL_OUT" 'hsa-runtime-rocr4wsl-amdgpu' "plan rocm: the legacy runtime"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"
  assert_contains "$TOOL_OUT" 'committed' "install rocm"
  # Both checks ran after the steps before them: the library where the
  # runtime looks, and rocminfo through a login shell.
  assert_contains "$TOOL_OUT" 'rocdxg-lib +ok: `test -f /opt/rocm/lib/librocdxg.so` succeeds' "install rocm (the librocdxg check)"
  assert_contains "$TOOL_OUT" 'rocminfo-gfx +ok: ' "install rocm (the rocminfo check)"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'rocminfo sees no GPU|check failed' "install rocm (the rocminfo check)"
  assert_installed "$ROOT" "${ROCM7_PACKAGES[@]}" rocdxg-roct
  assert_not_installed "$ROOT" hsa-runtime-rocr4wsl-amdgpu amdgpu-dkms
  assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' rocm)" 7.2.2.70202-1 "rocm's version"
  assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' rocdxg-roct)" "$TESTREPO_ROCDXG_VERSION" "rocdxg-roct's version"
  # The .deb is the one the server holds, byte for byte, and dpkg put its
  # library where the runtime looks.
  assert_eq "$(sha256sum <"$ROOT$deb" | cut -d' ' -f1)" "$TESTREPO_ROCDXG_SHA256" "the downloaded .deb's SHA-256"
  [[ -f $ROOT/opt/rocm/lib/librocdxg.so ]] || fail "/opt/rocm/lib/librocdxg.so is not there"
  assert_contains "$(in_root dpkg -L rocdxg-roct)" '^/opt/rocm/lib/librocdxg\.so$' "dpkg -L rocdxg-roct"
  # AMD's three sources, in AMD's 7.x layout.
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/amdgpu.sources")" \
    "^URIs: $TESTREPO_AMDGPU_REPO/$TESTREPO_ROCM7_AMDGPU_DIR/ubuntu\$" "amdgpu.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" \
    "^URIs: $TESTREPO_ROCM_REPO/$TESTREPO_ROCM7_VERSION\$" "rocm.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm-graphics.sources")" \
    "^URIs: $TESTREPO_GRAPHICS_REPO/$TESTREPO_ROCM7_GRAPHICS_DIR/ubuntu\$" "rocm-graphics.sources"
  # System-wide: a login shell sees it, and rocminfo then finds the agent.
  assert_contains "$(cat "$ROOT/etc/profile.d/wslgpu-rocm.sh")" 'HSA_ENABLE_DXG_DETECTION' "/etc/profile.d/wslgpu-rocm.sh"
  expect_status 0 in_root bash -lc 'echo $HSA_ENABLE_DXG_DETECTION'
  assert_eq "$LAST_OUTPUT" 1 "HSA_ENABLE_DXG_DETECTION in a login shell"
  # Services never read /etc/profile.d (ollama/ollama issue 16551): systemd
  # hands the variable to its services, user services and sessions.
  assert_eq "$(grep -v "^#" "$ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf")" $'[Manager]\nDefaultEnvironment=HSA_ENABLE_DXG_DETECTION=1' "/etc/systemd/system.conf.d/wslgpu-rocm.conf"
  assert_eq "$(grep -v '^#' "$ROOT/etc/environment.d/90-wslgpu-rocm.conf")" HSA_ENABLE_DXG_DETECTION=1 "/etc/environment.d/90-wslgpu-rocm.conf"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo in a login shell"
  expect_status 1 in_root /opt/rocm/bin/rocminfo
  assert_contains "$LAST_OUTPUT" 'No WDDM adapters found' "rocminfo without the login shell's environment"

  # Converged: plan says so with its exit status, and installs nothing.
  tool --root "$ROOT" "${sets[@]}" plan rocm --detailed-exitcode
  assert_status 0 "the second plan rocm --detailed-exitcode"
  assert_contains "$TOOL_OUT" 'rocdxg-download +no-op' "the second plan's download"
  assert_contains "$TOOL_OUT" 'rocdxg +no-op' "the second plan's deb_install"

  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 1 "the number of transactions in history"
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
  assert_not_installed "$ROOT" "${ROCM7_PACKAGES[@]}" rocdxg-roct
  [[ ! -e $ROOT$deb ]] || fail "rollback left the downloaded $deb"
}
