# shellcheck shell=bash
# Sourced by packaging/apt-repo.sh, packaging/render-install.sh and
# tests/packaging/check-release.sh: the one reader of packaging/release.conf.
#
# release_setting NAME: NAME's value in release.conf beside this file (read,
# never executed: the file is data; the last assignment wins and one pair of
# surrounding quotes is removed). Empty when unset or when there is no file.
release_setting() {
  local conf
  conf=$(dirname "${BASH_SOURCE[0]}")/release.conf
  [[ -f $conf ]] || return 0
  sed -n "s/^$1=//p" "$conf" | tail -n 1 | sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'\$/\1/"
}
