# tests/realroot/manifests.sh: pieces of manifests that install from the
# local test repository (sourced by lib.sh). A scenario writes a manifest by
# concatenating them:
#   { manifest_header demo; manifest_testrepo_steps; manifest_apt_install rocm rocm-dev; } >"$file"
# Keeping the step keys here means one place to change when a kind's keys do.

# The tool's state folder under the root: the journal of every transaction.
# Rollback scenarios leave it out of their snapshots, since the history of
# what was done and undone is meant to stay.
REALROOT_STATE_DIR=/var/lib/wslgpu-setup

# manifest_header NAME
manifest_header() {
  printf '[manifest]\nname = "%s"\ndescription = "real-root scenario %s"\nschema_version = 1\n' "$1" "$1"
}

# The signed local repository (key checked by its fingerprint, pinned like AMD's)
# and a refresh of the lists, skipped on a rerun while they are fresh.
manifest_testrepo_steps() {
  manifest_signed_repository testrepo wslgpu-test "$TESTREPO_URI"
  cat <<EOT
pin_origin = "$TESTREPO_ORIGIN"
pin_priority = 600

[[step]]
id = "lists"
kind = "apt_update"
max_age = 3600
EOT
}

# manifest_signed_repository ID REPO_NAME URI: an apt_repository step for a
# copy of the test repository at URI, signed by its key (checked by its
# fingerprint); keys such as a pin may follow.
manifest_signed_repository() {
  cat <<EOT

[[step]]
id = "$1"
kind = "apt_repository"
repo_name = "$2"
uris = ["$3"]
suites = ["$TESTREPO_SUITE"]
components = ["$TESTREPO_COMPONENT"]
key_file = "$TESTREPO_KEY_IN_ROOT"
key_fingerprint = "$TESTREPO_KEY_FINGERPRINT"
EOT
}

# manifest_apt_install ID PACKAGE...
manifest_apt_install() {
  local id=$1 list
  shift
  list=$(printf '"%s", ' "$@")
  printf '\n[[step]]\nid = "%s"\nkind = "apt_install"\npackages = [%s]\n' "$id" "${list%, }"
}

# manifest_user_groups ID GROUP...
manifest_user_groups() {
  local id=$1 list
  shift
  list=$(printf '"%s", ' "$@")
  printf '\n[[step]]\nid = "%s"\nkind = "user_groups"\ngroups = [%s]\n' "$id" "${list%, }"
}

# ROCm's tools on PATH for login shells, in /etc/profile.d.
manifest_rocm_path() {
  printf '\n[[step]]\nid = "rocm-path"\nkind = "profile_env"\ntarget = "system"\npath_append = ["/opt/rocm/bin"]\n'
}

# The verification the ROCm profile ends with: rocminfo lists the gfx agent.
manifest_rocminfo_check() {
  printf '\n[[step]]\nid = "rocminfo-gfx"\nkind = "check"\ncommand = ["/opt/rocm/bin/rocminfo"]\noutput_matches = "gfx1100"\n'
}

# The profile the install scenarios use.
manifest_rocm_from_testrepo() {
  manifest_header "${1:-realroot-rocm}"
  manifest_testrepo_steps
  manifest_apt_install rocm rocm-dev
  manifest_user_groups gpu-groups video render
  manifest_rocm_path
  manifest_rocminfo_check
}

# rocm_profile_args [ARG...]: the global options that point the bundled rocm
# profile at the test repository, one per line, then ARG... The key is
# fetched by the tool on this side of the root (libcurl), so its URL is the
# host path; the sources inside the root name the in-root repository. The
# test roots are Debian 12, where AMD does not publish: --unsupported-distro.
# The release is the test repository's (the legacy 6.4.2.1 layout), not the
# profile's default (7.2.2, a librocdxg release the repository does not hold).
rocm_profile_args() {
  printf '%s\n' --unsupported-distro --set "rocm_version=$TESTREPO_ROCM_VERSION" \
    --set "rocm_repo=$TESTREPO_ROCM_REPO" --set "amdgpu_repo=$TESTREPO_AMDGPU_REPO" \
    --set "rocm_key_url=file://$TESTREPO_KEY" --set "rocm_key_fingerprint=$TESTREPO_KEY_FINGERPRINT" \
    --set "rocm_pin_origin=$TESTREPO_ORIGIN" "$@"
}

# cuda_driver_args [ARG...]: the global options of the layers on the bundled
# cuda-driver profile (the frameworks, containers-cuda), one per line, then
# ARG...: only --unsupported-distro for the Debian 12 roots, since cuda-driver
# adds no apt repository (no CUDA toolkit) to point at the test repository.
cuda_driver_args() {
  printf '%s\n' --unsupported-distro "$@"
}

# cuda_profile_args [ARG...]: the global options that point the bundled cuda
# profile at the test repository's flat wsl-ubuntu layout, one per line, then
# ARG... (Debian 12 roots: --unsupported-distro). The pin names the test
# repository's Origin instead of NVIDIA's.
cuda_profile_args() {
  printf '%s\n' --unsupported-distro --set "cuda_repo=$TESTREPO_CUDA_REPO" --set "cuda_key_url=file://$TESTREPO_KEY" \
    --set "cuda_key_fingerprint=$TESTREPO_KEY_FINGERPRINT" --set "cuda_pin_origin=$TESTREPO_ORIGIN" "$@"
}

# rocm7_profile_args [ARG...]: rocm_profile_args for the test repository's
# 7.x release (7.2.2, librocdxg): its graphics repository, and librocdxg's
# .deb from the loopback HTTPS server (call serve_https
# "$TESTREPO_ROCDXG_DIR" first: HTTPS_URL) with the test .deb's SHA-256 in
# place of the real one's. Then ARG...
rocm7_profile_args() {
  [[ -n ${HTTPS_URL:-} ]] || fail "rocm7_profile_args: call serve_https \"\$TESTREPO_ROCDXG_DIR\" first"
  rocm_profile_args --set "rocm_version=$TESTREPO_ROCM7_VERSION" --set "graphics_repo=$TESTREPO_GRAPHICS_REPO" \
    --set "rocdxg_release_url=$HTTPS_URL" --set "rocdxg_sha256=$TESTREPO_ROCDXG_SHA256" "$@"
}

# rocm_copy_args: the test repository's AMD layout through apt's copy:
# method instead of file:, as the last options of a profile run. apt then
# keeps a copy of every package it installs in /var/cache/apt/archives, as it
# does for a package fetched over https from AMD's server, and undo can put
# back a release whose source a switch took away (apt_install's undo, in
# docs/steps.md). With file: sources apt reads packages in place and keeps
# none.
rocm_copy_args() {
  printf '%s\n' --set "rocm_repo=${TESTREPO_ROCM_REPO/#file:/copy:}" --set "amdgpu_repo=${TESTREPO_AMDGPU_REPO/#file:/copy:}" \
    --set "graphics_repo=${TESTREPO_GRAPHICS_REPO/#file:/copy:}"
}

# rocm72_profile_args [ARG...]: rocm_profile_args for the test repository's
# 7.2, the last legacy release (the WSL runtime; amdgpu/30.30, graphics/7.2,
# ROCm 7.2.0 packages). Then ARG...
rocm72_profile_args() {
  rocm_profile_args --set "rocm_version=$TESTREPO_ROCM72_VERSION" --set "graphics_repo=$TESTREPO_GRAPHICS_REPO" "$@"
}

# rocm724_profile_args [ARG...]: rocm7_profile_args for the test
# repository's 7.2.4, the last release in AMD's legacy packaging
# (amdgpu/30.30.4, graphics/7.2.3 reused, librocdxg 1.2.2 and
# HSA_ENABLE_DXG_DETECTION=1 as 7.2.2). Call serve_https
# "$TESTREPO_ROCDXG_DIR" first. Then ARG...
rocm724_profile_args() {
  rocm7_profile_args --set "rocm_version=$TESTREPO_ROCM724_VERSION" "$@"
}

# hide_rocm724: the 7.2.4 repositories (indexes and the pool they point
# to) gone from the root's view of the test repository, as when AMD takes
# an old release off its server: what the offline rollbacks of a switch
# away from 7.2.4 run without.
hide_rocm724() {
  local d
  for d in "rocm/apt/$TESTREPO_ROCM724_VERSION" "amdgpu/$TESTREPO_ROCM724_AMDGPU_DIR" \
    "graphics/$TESTREPO_ROCM724_GRAPHICS_DIR" pool/amd724; do
    mount -t tmpfs -o size=1M,mode=0755 gone "$ROOT/srv/testrepo/$d" || fail "cannot hide $d"
  done
  [[ ! -e $ROOT/srv/testrepo/rocm/apt/$TESTREPO_ROCM724_VERSION/dists ]] || fail "7.2.4 is still there"
}

# ROCM724_PACKAGES: what the 7.2.4 install leaves installed.
ROCM724_PACKAGES=(rocm rocm-dev rocm-core rocminfo hsa-rocr)

# assert_rocm724_layout CORE_PACKAGE...: 7.2.4 installed in AMD's legacy
# layout (/opt/rocm a link to /opt/rocm-7.2.4, librocdxg's file gone there
# through it), and none of CORE_PACKAGE.
assert_rocm724_layout() {
  assert_installed "$ROOT" "${ROCM724_PACKAGES[@]}" rocdxg-roct
  assert_not_installed "$ROOT" "$@"
  assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' rocm)" 7.2.4.70204-1 "rocm's version"
  [[ -L $ROOT/opt/rocm ]] || fail "/opt/rocm is not a link on 7.2.4"
  expect_status 0 in_root readlink -f /opt/rocm
  assert_eq "$LAST_OUTPUT" "/opt/rocm-$TESTREPO_ROCM724_VERSION" "/opt/rocm on 7.2.4"
  [[ -f $ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION/lib/librocdxg.so ]] || fail "librocdxg.so is not in /opt/rocm-7.2.4/lib"
}

# legacy_rocm_packages_left: the installed packages of the legacy packaging
# (rocm-*, hsa-*), one "NAME VERSION" per line; empty after a switch to the
# Core SDK.
legacy_rocm_packages_left() {
  dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
    awk '$1 != "un" && $1 != "pn" && ($2 ~ /^rocm/ || $2 ~ /^hsa-/) { print $2, $3 }'
}

# core_profile_args [ARG...]: the global options that point the bundled
# rocm profile's ROCm Core SDK rows (AMD's 10.x; 10.0.0 here, an ARG
# --set rocm_version=10.1.0 after it wins) at the test repository, one per
# line, then ARG...: the deb822 repository's folder for the root's
# distribution (CORE_FOLDER, default debian12, the bookworm roots'
# host.distro_folder; ubuntu2604 for the forky root dressed as 26.04), the
# key file in AMD's shape (the Core SDK's test key, binary, then its armour: testrepo.sh) from
# the host path, that key's fingerprint, and the one-target packages
# (rocm_gfx=gfx1100). The pin's origin stays the profile's default, "AMD
# ROCm", which the test Release files say. 10.0 pairs with the librocdxg
# .deb: the loopback HTTPS server's URL and the test .deb's SHA-256 (call
# serve_https "$TESTREPO_ROCDXG_DIR" first). The legacy variables of
# rocm_profile_args come first, so that a switch from a legacy release
# meets the same ones. Debian 12 roots: --unsupported-distro
# (forky_core_args leaves it out).
core_profile_args() {
  [[ -n ${HTTPS_URL:-} ]] || fail "core_profile_args: call serve_https \"\$TESTREPO_ROCDXG_DIR\" first"
  rocm_profile_args --set "graphics_repo=$TESTREPO_GRAPHICS_REPO" --set rocm_version=10.0.0 \
    --set "rocm_core_repo=$TESTREPO_CORE_REPO_BASE/${CORE_FOLDER:-debian12}/" \
    --set "rocm_core_key_url=file://$TESTREPO_CORE_KEY" --set "rocm_core_key_fingerprint=$TESTREPO_CORE_KEY_FINGERPRINT" \
    --set "rocm_gfx=$TESTREPO_CORE_GFX" --set "rocdxg_release_url=$HTTPS_URL" --set "rocdxg_sha256=$TESTREPO_ROCDXG_SHA256" "$@"
}
