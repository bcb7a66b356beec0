# tests/realroot/package.sh: what the package scenarios share (sourced by
# them, after lib.sh; its functions reach with_root like theirs):
#   package_deb                  prints the .deb to test: $WSLGPU_DEB, or one
#                                CPack makes from the build of $WSLGPU_BIN
#                                (package_cpack makes one of another version)
#   package_release_layers SUITE DIR   DIR/base (SUITE's cached root) and DIR/wsl
#   package_tarball SUITE, package_prepare_cache   the cached roots, built if need be
#   package_snapshot OUT [OPTIONS]   a snapshot of $ROOT without what dpkg's triggers rewrite
#
# Each release's root (PACKAGE_SUITES: Debian 12 and 13) is its own base,
# built once with mmdebstrap from this machine's apt mirror (as the tier's
# base is) and cached as package-<suite>-<PACKAGE_BASE_VERSION>.tar.zst:
# minbase, man-db (for man -w), what the package recommends under that
# release's names, and curl and gpg, which README's commands for adding the
# project's apt repository use (as Ubuntu has them).

# Bump when package_base_packages or package_build_base's hooks change: the
# cached roots are keyed by it.
PACKAGE_BASE_VERSION=2
PACKAGE_SUITES=(bookworm trixie)

# ---------------------------------------------------------------- the .deb

# Prints the path of the .deb to test: $WSLGPU_DEB, or one CPack makes now
# from the build folder of $WSLGPU_BIN.
package_deb() {
  if [[ -n ${WSLGPU_DEB:-} ]]; then
    [[ -f $WSLGPU_DEB ]] || fail "WSLGPU_DEB=$WSLGPU_DEB is not a file"
    realpath "$WSLGPU_DEB"
    return 0
  fi
  package_cpack "$REALROOT_SCENARIO_TMP/deb"
}

# package_cpack OUT [CPACK_ARGS...]: the .deb CPack makes into OUT from the
# build folder of $WSLGPU_BIN (a few seconds: nothing is compiled), with
# CPACK_ARGS (such as -D CPACK_PACKAGE_VERSION=0.2.0); prints its path.
package_cpack() {
  local out=$1 build log start=$EPOCHREALTIME
  shift
  build=$(dirname "$WSLGPU_BIN")
  [[ -f $build/CPackConfig.cmake && -f $build/CMakeCache.txt ]] ||
    fail "$build, the folder of $WSLGPU_BIN, is not a CMake build folder with CPack (or set WSLGPU_DEB)"
  grep -qx 'WSLGPU_PORTABLE:BOOL=ON' "$build/CMakeCache.txt" ||
    fail "$build is not a portable build (WSLGPU_PORTABLE is off): its .deb would only run where it was built"
  ! grep -qx 'WSLGPU_FUZZ:BOOL=ON' "$build/CMakeCache.txt" ||
    fail "$build is a sanitizer build, which is never packaged"
  command -v cpack >/dev/null || fail "cpack (package cmake) is not installed"
  log=$out.cpack.log
  cpack --config "$build/CPackConfig.cmake" -B "$out" "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "cpack failed"; }
  local debs=("$out"/wslgpu-setup_*_amd64.deb)
  [[ -f ${debs[0]} && ${#debs[@]} == 1 ]] || { cat "$log" >&2; fail "cpack made no single wslgpu-setup_*_amd64.deb in $out"; }
  say "package: $(basename "${debs[0]}") made by cpack in $(elapsed_since "$start") s"
  printf '%s\n' "${debs[0]}"
}

# ---------------------------------------------------------------- the roots

# Packages beyond minbase in SUITE's root: man-db, what the package
# recommends under SUITE's names, and curl and gpg (README's commands).
package_base_packages() {
  case $1 in
    bookworm) echo man-db,libcurl4,libarchive13,ca-certificates,curl,gpg ;;
    trixie) echo man-db,libcurl4t64,libarchive13t64,ca-certificates,curl,gpg ;;
    *) fail "no package list for suite $1" ;;
  esac
}

# package_tarball SUITE: SUITE's base in the cache (built first if need be).
package_tarball() {
  local tarball=$REALROOT_CACHE/package-$1-$PACKAGE_BASE_VERSION.tar.zst
  cached_tarball "$tarball" "$1 root" package_build_base "$1"
}

# What `run.sh --prepare` builds ahead of the run (a scenario's
# prepare_cache calls it): both releases' bases.
package_prepare_cache() {
  local suite
  for suite in "${PACKAGE_SUITES[@]}"; do package_tarball "$suite"; done
}

# package_release_layers SUITE DIR: DIR/base (SUITE's cached base, built
# first if need be) and DIR/wsl (the fake WSL layer over it).
package_release_layers() {
  local suite=$1 dir=$2 tarball start
  tarball=$REALROOT_CACHE/package-$suite-$PACKAGE_BASE_VERSION.tar.zst
  mkdir -p "$dir/base"
  package_tarball "$suite"
  start=$EPOCHREALTIME
  # cat drains the padding tar leaves unread (else zstd may die of SIGPIPE; lib.sh's base_root).
  zstd -dcq "$tarball" | { tar -x --numeric-owner --xattrs --xattrs-include='*' -C "$dir/base" && cat >/dev/null; } ||
    fail "cannot extract $tarball; delete it to rebuild"
  (REALROOT_RUN=$dir wsl_layer)
  say "$suite root: restored with the WSL layer in $(elapsed_since "$start") s"
}

# The base of SUITE, with the same hooks as the tier's (lib.sh): apt with no
# sources, dpkg without fsync, the test repository's mount point, nothing of
# this machine.
package_build_base() {
  debian_root_tarball "$1" "$(package_base_packages "$1")" "$2" "$1 root"
  prune_older_tarballs "package-$1" "$PACKAGE_BASE_VERSION"
}

# ---------------------------------------------------------------- in a root

# What a snapshot also leaves out here: man-db's index, which its trigger
# rewrites whenever a package with manual pages comes or goes; debconf's
# cache, where trixie's apt leaves an empty scratch folder (tmp.ci) behind
# any package it installs; and apt's record of which packages were
# installed automatically. More of snapshot's options may follow OUT.
package_snapshot() {
  snapshot "$ROOT" "$1" --exclude /var/cache/man --exclude /var/cache/debconf --exclude /var/lib/apt/extended_states "${@:2}"
}
