# tests/realroot/forky.sh: the stand-in for Ubuntu 26.04 (sourced by the
# ubuntu-2604-standin-* scenarios, after lib.sh; its functions reach
# with_root like theirs):
#   forky_tarball                the cached root, built if need be
#   forky_release_layers DIR     DIR/base (that root) and DIR/wsl (the fake WSL layer over it)
#   forky_prepare_cache          what `run.sh --prepare` builds ahead
#   forky_cuda_args, forky_core_args   the bundled profiles pointed at the test repository
#
# Ubuntu 26.04 cannot be built from this machine's mirror, which is
# Debian's. Debian forky (testing) has what the tool meets there and
# nowhere else in the tier: apt 3.x verifying with Sequoia's sqv (which
# judges a key's binding self-signatures by its policy, and no longer
# trusts SHA-1 ones), python3 3.14 and glibc 2.43. Its root is dressed as
# Ubuntu 26.04: /usr/lib/os-release (which /etc/os-release links to, as on
# Ubuntu) says ID=ubuntu, VERSION_ID="26.04", VERSION_CODENAME=resolute,
# which is all the tool reads to know the distribution (installer/host/
# host.cpp: ID, VERSION_ID, VERSION_CODENAME). PRETTY_NAME says what it
# really is, for whoever reads a log.
#
# Built once with mmdebstrap from this machine's apt mirror (the mirror's
# Debian archive, suite forky; lib.sh's debian_root_tarball, with the
# tier's hooks: apt without sources, dpkg without fsync) and cached as
# forky-<FORKY_BASE_VERSION>.tar.zst: minbase, gpg, python3 and
# python3-venv (as the tier's base), and what the tool's .deb recommends
# under forky's names (libcurl4t64, libarchive13t64, ca-certificates).

# Bump when forky_base_packages or forky_build_base's hooks change: the
# cached root is keyed by it.
FORKY_BASE_VERSION=1
FORKY_SUITE=forky

forky_base_packages() { echo gpg,python3,python3-venv,libcurl4t64,libarchive13t64,ca-certificates; }

# The os-release of the dressed root, one line per field.
forky_os_release() {
  cat <<'EOF'
PRETTY_NAME="Ubuntu 26.04.1 LTS (stand-in: Debian forky)"
NAME="Ubuntu"
VERSION_ID="26.04"
VERSION="26.04.1 LTS (Resolute Raccoon)"
VERSION_CODENAME=resolute
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=resolute
EOF
}

forky_tarball() {
  local tarball=$REALROOT_CACHE/forky-$FORKY_BASE_VERSION.tar.zst
  cached_tarball "$tarball" "forky root (Ubuntu 26.04 stand-in)" forky_build_base
}

# What `run.sh --prepare` builds ahead of the run (the scenarios'
# prepare_cache calls it).
forky_prepare_cache() { forky_tarball; }

# forky_build_base TARBALL. The mirror is a snapshot, and testing's
# InRelease is valid for a week only: its Valid-Until has passed, so apt
# must not check it while mmdebstrap builds (the signature is still
# checked). The option is dropped from the finished root's apt
# configuration (mmdebstrap keeps its --aptopt in 99mmdebstrap), whose apt
# has no sources anyway.
forky_build_base() {
  # The dressing: one single-quoted word per line of forky_os_release
  # (which holds no single quote), for the hook's sh.
  local dress="printf '%s\\n'" line
  while IFS= read -r line; do dress+=" '$line'"; done < <(forky_os_release)
  dress+=' > "$1"/usr/lib/os-release'
  debian_root_tarball "$FORKY_SUITE" "$(forky_base_packages)" "$1" "forky root (Ubuntu 26.04 stand-in)" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --customize-hook='sed -i "/Check-Valid-Until/d" "$1"/etc/apt/apt.conf.d/99mmdebstrap' \
    --customize-hook="$dress" \
    --customize-hook='test "$(readlink "$1"/etc/os-release)" = ../usr/lib/os-release'
  prune_older_tarballs forky "$FORKY_BASE_VERSION"
}

# forky_release_layers DIR: DIR/base (the cached root, built first if need
# be) and DIR/wsl (the fake WSL layer over it); with_root uses them with
# REALROOT_RUN=DIR, as package.sh's package_release_layers does.
forky_release_layers() {
  local dir=$1 tarball start
  tarball=$REALROOT_CACHE/forky-$FORKY_BASE_VERSION.tar.zst
  mkdir -p "$dir/base"
  forky_tarball
  start=$EPOCHREALTIME
  # cat drains the padding tar leaves unread (else zstd may die of SIGPIPE; lib.sh's base_root).
  zstd -dcq "$tarball" | { tar -x --numeric-owner --xattrs --xattrs-include='*' -C "$dir/base" && cat >/dev/null; } ||
    fail "cannot extract $tarball; delete it to rebuild"
  (REALROOT_RUN=$dir wsl_layer)
  say "forky root: restored with the WSL layer in $(elapsed_since "$start") s ($(. "$dir/base/etc/os-release" && echo "$PRETTY_NAME"))"
}

# forky_cuda_args [ARG...]: cuda_profile_args (manifests.sh: the bundled
# cuda profile pointed at the test repository and its key), one per line,
# then ARG..., without the Debian roots' --unsupported-distro: the profile
# supports Ubuntu 26.04 (cuda-driver's [guards.supported]), and the stand-in
# must be taken for it, never let through.
forky_cuda_args() {
  cuda_profile_args "$@" | grep -vx -- --unsupported-distro
}

# forky_core_args [ARG...]: core_profile_args (manifests.sh: the bundled
# rocm profile's Core SDK rows pointed at the test repository) for the
# stand-in: AMD's ubuntu2604 folder, and no --unsupported-distro, since AMD
# publishes the Core SDK for Ubuntu 26.04 and the stand-in must be taken
# for it. Call serve_https "$TESTREPO_ROCDXG_DIR" first.
forky_core_args() {
  CORE_FOLDER=ubuntu2604 core_profile_args "$@" | grep -vx -- --unsupported-distro
}
