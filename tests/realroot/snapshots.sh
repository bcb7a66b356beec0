# tests/realroot/snapshots.sh: what a root holds, recorded and compared
# (sourced by lib.sh): snapshot ROOT OUT, snapshot_diff A B and
# assert_same_snapshot, the proof that a rollback left the root as it was.

# What a snapshot leaves out, and why:
#   /proc /dev /sys /run /tmp   kernel views and volatile folders, mounted per test
#   /srv/testrepo               the local repository, bound in read-only
#   /var/cache/apt              apt's download and binary caches, rebuilt at will
#   /var/cache/ldconfig         ldconfig's auxiliary cache (/etc/ld.so.cache itself is compared)
#   /var/lib/apt/lists          indexes that apt-get update derives from the sources, which
#                               are compared; lists of a source that is gone are inert and
#                               the next update deletes them
#   /var/log                    history (dpkg.log, apt/history.log), not state
#   /var/lib/apt/extended_states  compared as the set of packages it marks automatically
#                               installed (its own section): apt rewrites it in the order
#                               of its cache, which is not state
#   lock files and *-old        dpkg and apt locks, dpkg's and debconf's previous copies
#   /etc/{passwd,group,shadow,gshadow}-   the shadow tools' copy of the previous version
REALROOT_SNAPSHOT_SKIP=(/proc /dev /sys /run /tmp /srv/testrepo /var/cache/apt /var/cache/ldconfig
  /var/lib/apt/lists /var/log /var/lib/apt/extended_states)
REALROOT_SNAPSHOT_SKIP_GLOBS=(/var/lib/dpkg/lock /var/lib/dpkg/lock-frontend /var/lib/dpkg/triggers/Lock
  '/var/lib/dpkg/*-old' '/var/cache/debconf/*-old' /etc/passwd- /etc/group- /etc/shadow- /etc/gshadow-)

# snapshot ROOT OUT [--exclude /PATH]... [--keep /PATH]...: writes to OUT
# every file's path, type, mode, owner (numeric), size and sha256 (a
# symlink's target instead, a device's numbers), the dpkg installed set, the
# packages apt marks as automatically installed, /etc/group and /etc/gshadow.
# --exclude leaves out more (for example the tool's own state folder); --keep
# puts back one of the paths left out by default (/var/log, /var/cache/apt,
# /var/lib/apt/lists), for a test that proves nothing was written there either.
snapshot() {
  local root=${1:?snapshot ROOT OUT} out=${2:?snapshot ROOT OUT}
  shift 2
  local -a skip=("${REALROOT_SNAPSHOT_SKIP[@]}") globs=("${REALROOT_SNAPSHOT_SKIP_GLOBS[@]}") expr=()
  local keep i
  while (($#)); do
    case $1 in
      --exclude) skip+=("${2:?--exclude needs a path}"); shift 2 ;;
      --keep)
        keep=${2:?--keep needs a path}
        for i in "${!skip[@]}"; do [[ ${skip[$i]} != "$keep" ]] || unset 'skip[i]'; done
        skip=("${skip[@]}")
        shift 2
        ;;
      *) fail "snapshot: unknown argument $1" ;;
    esac
  done
  local p
  for p in "${skip[@]}" "${globs[@]}"; do expr+=(-path "$root$p" -o); done
  unset 'expr[${#expr[@]}-1]'
  local hashes
  hashes=$(mktemp)
  if [[ $root == "${ROOT:-}" && -d ${REALROOT_ROOT_UPPER:-} && -f ${REALROOT_ROOT_LOWER_HASHES:-} ]] &&
    _only_the_overlay_under "$root" "${skip[@]}"; then
    # A root of with_root: hash the files its upper layer holds (and any the
    # lower layers' list lacks); the others are the lower layers' (lower_hashes).
    local listed uppers
    listed=$(mktemp) uppers=$(mktemp)
    (cd "$root" && find . \( "${expr[@]/#$root/.}" \) -prune -o -type f -print) >"$listed"
    (cd "$REALROOT_ROOT_UPPER" && find . -type f -print) >"$uppers"
    awk -v lower="$REALROOT_ROOT_LOWER_HASHES" -v uppers="$uppers" -v cached="$listed.cached" '
      BEGIN {
        while ((getline line < lower) > 0) sum[substr(line, 67)] = line
        while ((getline line < uppers) > 0) copied[line] = 1
      }
      { if (($0 in copied) || !($0 in sum)) printf "%s%c", $0, 0; else print sum[$0] > cached }
      END { close(cached) }' "$listed" |
      (cd "$root" && xargs -0r sha256sum) >"$hashes"
    [[ ! -f $listed.cached ]] || cat "$listed.cached" >>"$hashes"
    rm -f "$listed" "$listed.cached" "$uppers"
  else
    (cd "$root" && find . \( "${expr[@]/#$root/.}" \) -prune -o -type f -print0 | xargs -0r sha256sum) >"$hashes"
  fi
  {
    printf '## files\n'
    # path, type, mode, uid:gid, size, then sha256 (files), target (links), rdev (devices)
    find "$root" -mindepth 1 \( "${expr[@]}" \) -prune -o -printf '/%P\t%y\t%m\t%U:%G\t%s\t%l\n' |
      awk -F'\t' -v OFS='\t' -v hashes="$hashes" '
        BEGIN { while ((getline line < hashes) > 0) { sum[substr(line, 68)] = substr(line, 1, 64) } }
        {
          size = ($2 == "f" || $2 == "l") ? $5 : "-"
          extra = ($2 == "f") ? sum[$1] : ($2 == "l") ? $6 : "-"
          print $1, $2, $3, $4, size, extra
        }' | LC_ALL=C sort
    printf '## packages\n'
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Package}:${Architecture}\t${Version}\t${db:Status-Abbrev}\n' |
      LC_ALL=C sort
    printf '## apt auto-installed\n'
    if [[ -f $root/var/lib/apt/extended_states ]]; then
      awk 'BEGIN { RS = "" } /\nAuto-Installed: 1(\n|$)/ {
          name = $0; sub(/^Package: /, "", name); sub(/\n.*/, "", name)
          arch = $0; if (sub(/.*\nArchitecture: /, "", arch)) { sub(/\n.*/, "", arch); name = name ":" arch }
          print name
        }' "$root/var/lib/apt/extended_states" | LC_ALL=C sort
    fi
    printf '## /etc/group\n'
    cat "$root/etc/group"
    printf '## /etc/gshadow\n'
    cat "$root/etc/gshadow"
  } >"$out"
  rm -f "$hashes"
}

# _only_the_overlay_under ROOT SKIPPED...: whether every mount below ROOT,
# outside the SKIPPED paths, is ROOT's own overlay (a bind of a part of it,
# such as a read-only /etc): a filesystem mounted over a part of the root
# holds files the upper layer does not show, so snapshot() hashes them all.
_only_the_overlay_under() {
  local root=$1
  shift
  local point
  while IFS= read -r point; do
    local skipped=0 p
    for p in "$@"; do
      if [[ $point == "$root$p" || $point == "$root$p"/* ]]; then skipped=1; break; fi
    done
    ((skipped == 1)) && continue
    # mountinfo(5): ... MOUNT_POINT ... - FSTYPE SOURCE SUPER_OPTIONS
    awk -v m="$point" -v upper="upperdir=$REALROOT_ROOT_UPPER" '
      { for (i = 1; i <= NF; i++) if ($i == "-") break }
      $5 == m && $(i + 1) == "overlay" && index($(i + 3) ",", upper ",") > 0 { ok = 1 }
      END { exit !ok }' /proc/self/mountinfo || return 1
  done < <(awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo)
  return 0
}

# snapshot_diff A B: prints what differs between two snapshots, readably
# (+ added, - removed, ~ changed, then the changed lines of /etc/group and
# /etc/gshadow); returns 0 when they are equal and 1 otherwise.
snapshot_diff() {
  local a=${1:?snapshot_diff A B} b=${2:?snapshot_diff A B} report section
  report=$(awk -F'\t' '
    FNR == 1 { file++ }
    /^## / { section = substr($0, 4); next }
    section == "files" { if (file == 1) fa[$1] = $0; else fb[$1] = $0 }
    section == "packages" { if (file == 1) pa[$1] = $2 " (" $3 ")"; else pb[$1] = $2 " (" $3 ")" }
    section == "apt auto-installed" { if (file == 1) aa[$1] = 1; else ab[$1] = 1 }
    function describe(rec,   f, t) {
      split(rec, f, "\t")
      t = f[2] == "f" ? "file" : f[2] == "d" ? "directory" : f[2] == "l" ? "symlink to " f[6] : f[2] == "c" ? "character device" : "type " f[2]
      return t ", mode " f[3] ", owner " f[4] (f[2] == "f" ? ", " f[5] " bytes" : "")
    }
    function changes(ra, rb,   x, y, out) {
      split(ra, x, "\t"); split(rb, y, "\t"); out = ""
      if (x[2] != y[2]) out = out ", type " x[2] " -> " y[2]
      if (x[3] != y[3]) out = out ", mode " x[3] " -> " y[3]
      if (x[4] != y[4]) out = out ", owner " x[4] " -> " y[4]
      if (x[5] != y[5]) out = out ", size " x[5] " -> " y[5]
      if (x[6] != y[6]) out = out (x[2] == "l" ? ", target " x[6] " -> " y[6] : ", sha256 " substr(x[6], 1, 12) " -> " substr(y[6], 1, 12))
      return substr(out, 3)
    }
    END {
      for (p in fb) if (!(p in fa)) print "1\t  + " p "  (" describe(fb[p]) ")"
      for (p in fa) if (!(p in fb)) print "1\t  - " p "  (" describe(fa[p]) ")"
      for (p in fa) if ((p in fb) && fa[p] != fb[p]) print "1\t  ~ " p "  (" changes(fa[p], fb[p]) ")"
      for (p in pb) if (!(p in pa)) print "2\t  package + " p " " pb[p]
      for (p in pa) if (!(p in pb)) print "2\t  package - " p " " pa[p]
      for (p in pa) if ((p in pb) && pa[p] != pb[p]) print "2\t  package ~ " p " " pa[p] " -> " pb[p]
      for (p in ab) if (!(p in aa)) print "3\t  automatically installed + " p
      for (p in aa) if (!(p in ab)) print "3\t  automatically installed - " p
    }' "$a" "$b" | LC_ALL=C sort | cut -f2-)
  for section in /etc/group /etc/gshadow; do
    local before after
    before=$(sed -n "\\|^## $section\$|,/^## /{/^## /d;p}" "$a")
    after=$(sed -n "\\|^## $section\$|,/^## /{/^## /d;p}" "$b")
    if [[ $before != "$after" ]]; then
      report+=${report:+$'\n'}"  $section:"$'\n'
      report+=$(diff -U0 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | tail -n +3 | grep -v '^@@' | sed 's/^/    /')
    fi
  done
  if [[ -n $report ]]; then
    printf 'snapshots differ (%s -> %s):\n%s\n' "$a" "$b" "$report"
    return 1
  fi
  return 0
}
