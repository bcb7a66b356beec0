#!/usr/bin/env bash
# bench/run.sh: wslgpu-setup's benchmarks (issue 9). One command, as root:
#
#   sudo bench/run.sh [WSLGPU_SETUP_BINARY]      (default: build/wslgpu-setup; build it as Release)
#
# It reuses the real-root tier's harness (tests/realroot/lib.sh): a
# disposable Debian 12 root with the fake WSL layer and the signed local apt
# repository, inside private namespaces, on a tmpfs that vanishes with the
# run. The base root is built like the tier's, from the mirror this
# machine's apt uses (read at run time), with python3 and python3-apt added
# so that Ansible can run inside it; it is cached apart from the tier's.
#
# What it measures (docs/performance.md explains each method):
#   a  plan and install of the ROCm profile on a converged root, against an
#      Ansible playbook doing the same work (chroot connection) and against
#      `apt-get install` of the same, already installed, packages; and plan
#      and install of the wslconfig profile, converged, with a stand-in for
#      Windows' cmd.exe that takes 100 ms as interop does
#   b  peak resident memory of each command on the bundled profiles
#   c  plan time of generated manifests of 10, 100 and 1000 file/check steps
#   d  the runner's overhead on a real install: wall time minus the time
#      spent inside apt and dpkg
#   e  the download step against curl, from a local HTTP server on 127.0.0.1
#   p  the converged plan of the pytorch-rocm layer against that of rocm
#
# It prints a table of medians and ratios and writes bench/results.json. It
# never fails on a number: only a broken setup (no root, a tool that cannot
# install the profile) stops it.
#
# Environment:
#   BENCH_RUNS=11          timed rounds per comparison (after BENCH_WARMUP=2 untimed ones)
#   BENCH_INSTALL_RUNS=3   real installs, each in a fresh root
#   BENCH_DOWNLOAD_MIB=1024  size of the download file;  BENCH_DOWNLOAD_RUNS=5
#   BENCH_OUT=bench/results.json
#   BENCH_PARTS=abcdep     which parts to run (a, b and c always run together)
#   WSLGPU_BENCH_CACHE=/var/cache/wslgpu-setup-bench   where the bench's base root is cached
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

die() {
  printf 'bench: %s\n' "$*" >&2
  exit 1
}

[[ $(id -u) == 0 ]] || die "needs root (it mounts overlays and chroots into a disposable root): sudo bench/run.sh"
BIN=$(realpath -m "${1:-$repo/build/wslgpu-setup}")
[[ -x $BIN ]] || die "$BIN is not an executable; build it first: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build wslgpu-setup"
export BENCH_OUT=${BENCH_OUT:-$here/results.json}
export BENCH_RUNS=${BENCH_RUNS:-11} BENCH_WARMUP=${BENCH_WARMUP:-2} BENCH_INSTALL_RUNS=${BENCH_INSTALL_RUNS:-3}
export BENCH_DOWNLOAD_MIB=${BENCH_DOWNLOAD_MIB:-1024} BENCH_DOWNLOAD_RUNS=${BENCH_DOWNLOAD_RUNS:-5}
export BENCH_PARTS=${BENCH_PARTS:-abcdep}
# The system's python3 (a user's pyenv shim would add its own start-up to nothing, but may lack modules).
export PY=/usr/bin/python3

# ---------------------------------------------------------------- host tools
if [[ -z ${BENCH_IN_NAMESPACE:-} ]]; then
  want=()
  command -v ansible-playbook >/dev/null || want+=(ansible) # Debian's ansible brings community.general (chroot, ini_file)
  [[ -x /usr/bin/time ]] || want+=(time)
  [[ -x $PY ]] || want+=(python3)
  command -v curl >/dev/null || want+=(curl)
  command -v cc >/dev/null || want+=(gcc libc6-dev) # bench/timed-exec.c
  for cmd in unshare mount mmdebstrap dpkg-deb dpkg-scanpackages gpg zstd jq diff; do
    command -v "$cmd" >/dev/null || { want+=($(grep -v '^#' "$repo/tests/realroot/HOST-PACKAGES")); break; }
  done
  if ((${#want[@]})); then
    printf 'bench: installing the host packages it needs: %s\n' "${want[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${want[@]}" >&2 || die "apt-get install ${want[*]} failed"
  fi
  # Everything below lives in a private mount namespace, on a tmpfs.
  exec unshare --mount --propagation private -- env BENCH_IN_NAMESPACE=1 "$0" "$BIN"
fi

BENCH_RUN=$(mktemp -d "${TMPDIR:-/tmp}/wslgpu-bench.XXXXXX")
mount -t tmpfs -o mode=0755 wslgpu-bench "$BENCH_RUN" || die "cannot mount a tmpfs at $BENCH_RUN"
BENCH_SERVER_PID=
cleanup() {
  [[ -z $BENCH_SERVER_PID ]] || kill "$BENCH_SERVER_PID" 2>/dev/null || true
  umount -l "$BENCH_RUN"
  rmdir "$BENCH_RUN"
}
trap cleanup EXIT

# ---------------------------------------------------------------- the harness
REALROOT_RUN=$BENCH_RUN
# shellcheck source=../tests/realroot/lib.sh
source "$repo/tests/realroot/lib.sh"
# The bench's own base: the tier's, plus what Ansible needs inside the root
# (its modules are Python; the apt module uses python3-apt). Cached apart,
# so that neither deletes the other's tarball.
REALROOT_CACHE=${WSLGPU_BENCH_CACHE:-/var/cache/wslgpu-setup-bench}/gpg-python3-apt-venv
REALROOT_BASE_PACKAGES=(gpg python3 python3-apt python3-venv)
realroot_preflight
realroot_setup
# The profile's repositories in AMD's layout, when this harness has them.
export TESTREPO_ROCM_REPO TESTREPO_AMDGPU_REPO TESTREPO_ROCM_VERSION 2>/dev/null || true
export WSLGPU_BIN=$BIN REALROOT_SCENARIO=bench REALROOT_SCENARIO_TMP=$BENCH_RUN/s BENCH_RESULTS=$BENCH_RUN/results BENCH_DIR=$here
mkdir -p "$REALROOT_SCENARIO_TMP" "$BENCH_RESULTS"

# ---------------------------------------------------------------- the profile

# bench_profile: sets PROFILE (a bundled name or a manifest path), SETS (its
# --set options), PKGS and GRPS (what apt and Ansible get), PROFILE_LABEL.
# The bundled rocm profile is used when the test repository publishes AMD's
# layout; otherwise the harness's realroot-rocm manifest (same step kinds).
bench_profile() {
  if [[ -n ${TESTREPO_ROCM_REPO:-} && -d $TESTREPO_DIR/rocm ]]; then
    PROFILE=rocm PROFILE_LABEL="bundled rocm profile (manifests/rocm.toml)"
    # add_gpu_groups=true: the user_groups step runs, like Ansible's user task.
    mapfile -t SETS < <(rocm_profile_args --set add_gpu_groups=true)
    PKGS=(hsa-runtime-rocr4wsl-amdgpu rocm)
  else
    PROFILE=$REALROOT_SCENARIO_TMP/realroot-rocm.toml PROFILE_LABEL="realroot-rocm (tests/realroot/manifests.sh; the test repository has no AMD layout)"
    manifest_rocm_from_testrepo >"$PROFILE"
    SETS=()
    PKGS=(rocm-dev)
  fi
  GRPS=(video render)
}

# tool_argv CMD...: the tool's command line for this root and profile.
tool_argv() { printf '%s\n' "$WSLGPU_BIN" --root "$ROOT" --no-color "${SETS[@]}" "$@"; }

# json_cmd NAME ARGV...: one command of a measure.py spec.
json_cmd() {
  local name=$1
  shift
  "$PY" -c 'import json, sys; print(json.dumps({"name": sys.argv[1], "argv": sys.argv[2:]}))' "$name" "$@"
}
# json_spec WARMUP RUNS CMD_JSON...: a measure.py spec.
json_spec() {
  local warmup=$1 runs=$2
  shift 2
  printf '%s\n' "$@" | jq -s --argjson w "$warmup" --argjson r "$runs" '{warmup: $w, runs: $r, commands: .}'
}

# peak_rss NAME TSV ARGV...: runs ARGV under /usr/bin/time -v (its output
# in TSV.out) and appends "NAME<TAB>peak KiB<TAB>exit status" to TSV.
peak_rss() {
  local name=$1 tsv=$2 status=0 kib
  shift 2
  /usr/bin/time -v -o "$tsv.time" "$@" >"$tsv.out" 2>&1 || status=$?
  kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tsv.time")
  printf '%s\t%s\t%s\n' "$name" "$kib" "$status" >>"$tsv"
  say "  $name: $kib KiB (exit $status)"
  return "$status"
}

# rss_json TSV: what peak_rss wrote, as the list report.py reads.
rss_json() {
  jq -Rn '[inputs | split("\t") | {name: .[0], maxrss_kib: (.[1] | tonumber), status: (.[2] | tonumber)}]' <"$1"
}

# ---------------------------------------------------------------- a, b, c: one converged root

bench_converged() {
  local tmp=$REALROOT_SCENARIO_TMP out=$BENCH_RESULTS
  bench_profile
  local -a tool_plan tool_install
  mapfile -t tool_plan < <(tool_argv plan "$PROFILE")
  mapfile -t tool_install < <(tool_argv install "$PROFILE" --yes)

  say "converging the root: install $PROFILE_LABEL"
  "${tool_install[@]}" >"$tmp/first-install.log" 2>&1 || {
    cat "$tmp/first-install.log" >&2
    fail "the first install of the profile failed; the benchmark needs a converged root"
  }
  "${tool_install[@]}" >"$tmp/second-install.log" 2>&1 || true
  grep -q 'Nothing to do' "$tmp/second-install.log" || say "note: the second install did not say 'Nothing to do':"$'\n'"$(cat "$tmp/second-install.log")"

  # Ansible: the same packages, the groups, a profile.d block and an INI
  # key, against this root over the chroot connection. Its profile.d file is
  # its own (the tool's would differ by Ansible's markers, and the two would
  # rewrite each other's); the INI key is wsl.conf's default user, already set.
  local a=$tmp/ansible profile_file
  mkdir -p "$a/home" "$a/tmp"
  profile_file=$(ls "$ROOT"/etc/profile.d/wslgpu-*.sh | head -n 1)
  : >"$a/ansible.cfg"
  printf '[bench]\n%s ansible_connection=community.general.chroot ansible_python_interpreter=/usr/bin/python3\n' "$ROOT" >"$a/inventory.ini"
  {
    printf -- '- hosts: bench\n  gather_facts: false\n  tasks:\n'
    printf '    - name: the packages\n      ansible.builtin.apt:\n        name: [%s]\n        state: present\n' "$(IFS=,; echo "${PKGS[*]}")"
    printf '    - name: the groups\n      ansible.builtin.user:\n        name: %s\n        groups: [%s]\n        append: true\n' "$REALROOT_USER" "$(IFS=,; echo "${GRPS[*]}")"
    printf '    - name: the profile.d file\n      ansible.builtin.blockinfile:\n        path: /etc/profile.d/wslgpu-bench-ansible.sh\n        create: true\n        block: |\n'
    grep -v '^#' "$profile_file" | sed 's/^/          /'
    printf '    - name: the INI key\n      community.general.ini_file:\n        path: /etc/wsl.conf\n        section: user\n        option: default\n        value: %s\n' "$REALROOT_USER"
  } >"$a/playbook.yml"
  local -a ansible=(env ANSIBLE_CONFIG="$a/ansible.cfg" ANSIBLE_HOME="$a/home" ANSIBLE_LOCAL_TEMP="$a/tmp"
    ANSIBLE_REMOTE_TMP=/tmp/.ansible-bench ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
    ansible-playbook -i "$a/inventory.ini" "$a/playbook.yml")
  "${ansible[@]}" >"$tmp/ansible-first.log" 2>&1 || { cat "$tmp/ansible-first.log" >&2; fail "the Ansible playbook failed against the root"; }
  "${ansible[@]}" >"$tmp/ansible-second.log" 2>&1 || true
  grep -q 'changed=0 .*failed=0' "$tmp/ansible-second.log" || say "note: Ansible's second run is not converged:"$'\n'"$(cat "$tmp/ansible-second.log")"
  "${tool_install[@]}" >"$tmp/third-install.log" 2>&1 || true
  grep -q 'Nothing to do' "$tmp/third-install.log" || say "note: after Ansible, install is not converged:"$'\n'"$(cat "$tmp/third-install.log")"

  local -a apt=(chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${PKGS[@]}")

  # The wslconfig profile finds the Windows profile folder through interop:
  # cmd.exe /c echo %USERPROFILE% and wslpath. Stand-ins that answer as
  # Windows does, cmd.exe after the 100 ms a real one takes to start, show
  # what a converged plan of it costs (nothing of interop, once an install
  # has remembered the folder).
  bench_fake_interop
  local -a wsl_plan wsl_install
  mapfile -t wsl_plan < <(printf '%s\n' "$WSLGPU_BIN" --root "$ROOT" --no-color plan wslconfig)
  mapfile -t wsl_install < <(printf '%s\n' "$WSLGPU_BIN" --root "$ROOT" --no-color install wslconfig --yes)
  "${wsl_install[@]}" >"$tmp/wslconfig-first.log" 2>&1 || {
    cat "$tmp/wslconfig-first.log" >&2
    fail "the first install of the wslconfig profile failed"
  }
  "${wsl_install[@]}" >"$tmp/wslconfig-second.log" 2>&1 || true
  grep -q 'Nothing to do' "$tmp/wslconfig-second.log" || say "note: the second wslconfig install did not say 'Nothing to do':"$'\n'"$(cat "$tmp/wslconfig-second.log")"

  say "a: converged plan and install vs Ansible vs apt-get ($BENCH_WARMUP warm-up, $BENCH_RUNS rounds)"
  json_spec "$BENCH_WARMUP" "$BENCH_RUNS" \
    "$(json_cmd plan "${tool_plan[@]}")" \
    "$(json_cmd install "${tool_install[@]}")" \
    "$(json_cmd ansible "${ansible[@]}")" \
    "$(json_cmd apt-get "${apt[@]}")" \
    "$(json_cmd "plan wslconfig" "${wsl_plan[@]}")" \
    "$(json_cmd "install wslconfig" "${wsl_install[@]}")" \
    "$(json_cmd spawn-floor /bin/true)" >"$tmp/a.spec"
  "$PY" "$BENCH_DIR/measure.py" "$tmp/a.spec" "$out/converged.json"
  "$PY" -c 'import json, sys; print(json.dumps({"label": sys.argv[1], "profile": sys.argv[2], "sets": sys.argv[3:]}))' \
    "$PROFILE_LABEL" "$PROFILE" "${SETS[@]}" >"$out/profile.json"

  # The test repository holds 17 packages, so apt-get above loads a tiny
  # cache. A real distribution's lists are what apt-get meets on a user's
  # machine: this machine's own (Debian 12) lists and sources are bound,
  # read-only, under neutral names in the root's /run, and apt-get is
  # pointed at them with -o (nothing is written but apt's binary cache, in
  # the root's /run). Measured apart, after the alternating rounds above.
  bench_apt_full_lists "$tmp" "$out"

  say "b: peak resident memory (/usr/bin/time -v)"
  local -a rss_cmds=(
    "validate rocm cuda|validate rocm cuda"
    "plan rocm (converged)|${tool_plan[*]:4}"
    "plan rocm --output json|${tool_plan[*]:4} --output json"
    "install rocm (converged)|${tool_install[*]:4}"
    "plan cuda|plan cuda"
    "history|history"
    "doctor|doctor"
  )
  local entry
  : >"$tmp/rss.tsv"
  for entry in "${rss_cmds[@]}"; do
    # shellcheck disable=SC2086 # the arguments are words without spaces
    peak_rss "${entry%%|*}" "$tmp/rss.tsv" "$WSLGPU_BIN" --root "$ROOT" --no-color ${entry#*|} || true
  done
  rss_json "$tmp/rss.tsv" >"$out/rss.json"

  say "c: plan time of 10, 100 and 1000 file/check steps"
  local n i specs=()
  for n in 10 100 1000; do
    {
      manifest_header "steps-$n"
      for ((i = 0; i < n; i += 2)); do
        printf '\n[[step]]\nid = "f%d"\nkind = "file"\npath = "/opt/bench-%d/f%d"\ncontent = "step %d\\n"\n' "$i" "$n" "$i" "$i"
        printf '\n[[step]]\nid = "c%d"\nkind = "check"\npath = "/opt/bench-%d/f%d"\ntype = "file"\n' "$((i + 1))" "$n" "$i"
      done
    } >"$tmp/steps-$n.toml"
    "$WSLGPU_BIN" --root "$ROOT" --not-wsl install "$tmp/steps-$n.toml" --yes >"$tmp/steps-$n.log" 2>&1 || {
      cat "$tmp/steps-$n.log" >&2
      fail "installing the generated manifest of $n steps failed"
    }
    specs+=("$(json_cmd "plan $n steps" "$WSLGPU_BIN" --root "$ROOT" --not-wsl --no-color plan "$tmp/steps-$n.toml")")
  done
  json_spec "$BENCH_WARMUP" "$BENCH_RUNS" "${specs[@]}" >"$tmp/c.spec"
  "$PY" "$BENCH_DIR/measure.py" "$tmp/c.spec" "$out/steps.json"
  # Their memory from /usr/bin/time, like b: measure.py's figure has Python's
  # own resident set as a floor (see measure.py).
  : >"$tmp/rss-steps.tsv"
  for n in 10 100 1000; do
    peak_rss "plan $n steps" "$tmp/rss-steps.tsv" "$WSLGPU_BIN" --root "$ROOT" --not-wsl --no-color plan "$tmp/steps-$n.toml" || true
  done
  rss_json "$tmp/rss-steps.tsv" >"$out/rss-steps.json"
}

# bench_fake_interop: cmd.exe and wslpath in the root, as WSL's interop
# answers for the user alice on a 16-CPU Windows machine; cmd.exe sleeps the
# 100 ms a real one takes to start.
bench_fake_interop() {
  mkdir -p "$ROOT/mnt/c/Windows/System32" "$ROOT/usr/local/bin"
  cat >"$ROOT/mnt/c/Windows/System32/cmd.exe" <<'EOF'
#!/bin/sh
# The bench's stand-in for Windows' cmd.exe through interop (cmd.exe /c echo TEXT).
sleep 0.1
case "$3" in
  %USERPROFILE%) printf 'C:\\Users\\alice\r\n' ;;
  %NUMBER_OF_PROCESSORS%) printf '16\r\n' ;;
  *) printf '%s\r\n' "$3" ;;
esac
EOF
  cat >"$ROOT/usr/local/bin/wslpath" <<'EOF'
#!/bin/sh
# The bench's stand-in for WSL's wslpath -u.
[ "$2" = 'C:\Users\alice' ] && echo /mnt/c/Users/alice
EOF
  chmod 0755 "$ROOT/mnt/c/Windows/System32/cmd.exe" "$ROOT/usr/local/bin/wslpath"
}

# bench_apt_full_lists TMP OUT: apt-get install of the installed packages
# with this machine's full package lists (see bench_converged).
bench_apt_full_lists() {
  local tmp=$1 out=$2 etc=${REALROOT_APT_ETC:-/etc/apt} f n=0
  [[ -d /var/lib/apt/lists ]] && compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || {
    say "  (this machine has no apt lists: the full-lists apt-get run is left out)"
    return 0
  }
  local r=$ROOT/run/bench-apt
  mkdir -p "$r/lists" "$r/sources.d" "$r/cache/archives/partial"
  mount --bind -o ro /var/lib/apt/lists "$r/lists"
  for f in "$etc"/sources.list "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    n=$((n + 1))
    local ext=${f##*.}
    [[ $ext == sources ]] || ext=list
    : >"$r/sources.d/host-$n.$ext"
    mount --bind -o ro "$f" "$r/sources.d/host-$n.$ext"
  done
  local -a apt=(chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive
    apt-get -o Dir::State::Lists=/run/bench-apt/lists -o Dir::Etc::SourceParts=/run/bench-apt/sources.d
    -o Dir::Etc::SourceList=/dev/null -o Dir::Cache=/run/bench-apt/cache -o Debug::NoLocking=1
    install -y -q "${PKGS[@]}")
  local entries
  # apt-helper reads the lists however apt stored them (plain, .lz4, .gz, ...).
  entries=$(/usr/lib/apt/apt-helper cat-file /var/lib/apt/lists/*_Packages* 2>/dev/null | grep -c '^Package: ' || true)
  say "a': apt-get with this machine's full package lists (${entries:-?} package entries)"
  printf '{"entries": %s}\n' "${entries:-0}" >"$out/apt-full-entries.json"
  json_spec "$BENCH_WARMUP" "$BENCH_RUNS" "$(json_cmd "apt-get, full lists" "${apt[@]}")" >"$tmp/a2.spec"
  "$PY" "$BENCH_DIR/measure.py" "$tmp/a2.spec" "$out/apt-full.json"
}

# ---------------------------------------------------------------- d: a real install

# Every call of apt's and dpkg's programs, and of the other tools a profile
# runs, goes through a wrapper (bench/timed-exec.c, compiled statically once
# per program) that logs when it started and ended. The runner's overhead is
# the install's wall time minus the union of those intervals (nested calls,
# such as apt-get running dpkg, count once). Starting the wrapper itself
# (well under a millisecond) counts as the runner's time, the real program's
# start-up as the program's.
bench_time_tools() {
  local dir=$ROOT/run/bench-trace entry class path name wrapper
  mkdir -p "$dir"
  : >"$dir/calls"
  for entry in apt:/usr/bin/apt-get apt:/usr/bin/apt-cache apt:/usr/bin/apt-config apt:/usr/bin/apt-mark apt:/usr/bin/apt \
    apt:/usr/bin/dpkg apt:/usr/bin/dpkg-query apt:/usr/bin/dpkg-deb apt:/usr/bin/dpkg-divert apt:/usr/bin/dpkg-trigger \
    other:/usr/sbin/usermod other:/usr/sbin/gpasswd other:/usr/sbin/groupadd other:/usr/sbin/useradd \
    other:/usr/bin/gpg other:/usr/bin/getent; do
    class=${entry%%:*} path=${entry#*:}
    [[ -f $ROOT$path ]] || continue
    name=$(basename "$path")
    : >"$dir/$name.real"
    mount --bind "$ROOT$path" "$dir/$name.real"
    wrapper=$REALROOT_SCENARIO_TMP/timed-exec/$name # compiled once per bench run
    if [[ ! -x $wrapper ]]; then
      mkdir -p "$REALROOT_SCENARIO_TMP/timed-exec"
      cc -O2 -static -o "$wrapper" "$BENCH_DIR/timed-exec.c" \
        -DREAL="\"/run/bench-trace/$name.real\"" -DCLASS="\"$class\"" -DNAME="\"$name\"" ||
        fail "cannot compile bench/timed-exec.c (needs gcc and libc6-dev)"
    fi
    cp "$wrapper" "$dir/$name.wrapper"
    mount --bind "$dir/$name.wrapper" "$ROOT$path"
  done
}

# union_seconds CLASS_REGEX < calls: the length of the union of the intervals.
union_seconds() {
  awk -v re="$1" '$3 ~ re { print $1, $2 }' | sort -n | awk '
    NR == 1 { s = $1; e = $2; next }
    $1 > e { total += e - s; s = $1; e = $2; next }
    $2 > e { e = $2 }
    END { if (NR > 0) total += e - s; printf "%.6f\n", total }'
}

bench_real_install() {
  local run=$1 tmp=$REALROOT_SCENARIO_TMP
  bench_profile
  local -a tool_install
  mapfile -t tool_install < <(tool_argv install "$PROFILE" --yes)
  bench_time_tools
  local start end status=0
  start=$EPOCHREALTIME
  /usr/bin/time -v -o "$tmp/real-time-$run.txt" "${tool_install[@]}" --log-file "$tmp/real-install-$run.log" \
    >"$tmp/real-install-$run.out" 2>&1 || status=$?
  end=$EPOCHREALTIME
  ((status == 0)) || { cat "$tmp/real-install-$run.out" >&2; fail "the real install failed (exit $status)"; }
  local calls=$ROOT/run/bench-trace/calls total apt all
  total=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
  apt=$(union_seconds '^apt$' <"$calls")
  all=$(union_seconds '.' <"$calls")
  jq -n --argjson total "$total" --argjson apt "$apt" --argjson all "$all" \
    --argjson rss "$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/real-time-$run.txt")" \
    --argjson apt_calls "$(awk '$3 == "apt"' "$calls" | wc -l)" --argjson other_calls "$(awk '$3 == "other"' "$calls" | wc -l)" \
    --arg calls "$(awk '{ print $4 }' "$calls" | sort | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')" \
    '{total_s: $total, apt_dpkg_s: $apt, all_tools_s: $all, maxrss_kib: $rss, apt_calls: $apt_calls, other_calls: $other_calls, calls: $calls}' \
    >"$BENCH_RESULTS/install-$run.json"
  say "  install $run: $(jq -c . "$BENCH_RESULTS/install-$run.json")"
}

# bench_own_usage RUN: one more real install in a fresh root, under
# `perf stat --no-inherit` (the tool's own CPU time, none of its children's),
# while the tool's own VmHWM (peak resident set, its children left out) is
# read from /proc every 10 ms. Apart from the timed installs, since both
# observers cost a little.
bench_own_usage() {
  local tmp=$REALROOT_SCENARIO_TMP
  bench_profile
  local -a tool_install
  mapfile -t tool_install < <(tool_argv install "$PROFILE" --yes)
  local start end pid child="" hwm=0 line status=0
  start=$EPOCHREALTIME
  perf stat --no-inherit -x, -e task-clock -o "$tmp/own-perf.txt" "${tool_install[@]}" >"$tmp/own.out" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [[ -n $child ]] || read -r child _ <"/proc/$pid/task/$pid/children" 2>/dev/null || true
    if [[ -n $child && -r /proc/$child/status ]]; then
      while read -r line; do
        [[ $line == VmHWM:* ]] || continue
        line=${line#VmHWM:}
        line=${line%kB}
        ((line > hwm)) && hwm=$line
      done <"/proc/$child/status" 2>/dev/null || true
    fi
    sleep 0.01
  done
  wait "$pid" || status=$?
  end=$EPOCHREALTIME
  ((status == 0)) || { cat "$tmp/own.out" >&2; fail "the install under perf stat failed (exit $status)"; }
  local cpu
  cpu=$(awk -F, '$3 == "task-clock" || $3 ~ /task-clock/ { print $1; exit }' "$tmp/own-perf.txt")
  jq -n --argjson total "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')" \
    --argjson cpu_ms "${cpu:-0}" --argjson hwm "$hwm" '{total_s: $total, own_cpu_ms: $cpu_ms, own_vmhwm_kib: $hwm}' \
    >"$BENCH_RESULTS/own-usage.json"
  say "  own usage: $(jq -c . "$BENCH_RESULTS/own-usage.json")"
}

# ---------------------------------------------------------------- e: download

# start_server DIR [CERT KEY]: serves DIR on a free port of 127.0.0.1 with
# bench/http_server.py (over TLS with CERT and KEY), sets BENCH_SERVER_PID
# and BENCH_SERVER_PORT, and returns once it answers.
start_server() {
  local dir=$1 scheme=http i
  (($# < 3)) || scheme=https
  BENCH_SERVER_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$PY" "$BENCH_DIR/http_server.py" "$dir" "$BENCH_SERVER_PORT" "${@:2}" >"$dir.server.log" 2>&1 &
  BENCH_SERVER_PID=$!
  for i in $(seq 50); do
    curl -ksS -o /dev/null "$scheme://127.0.0.1:$BENCH_SERVER_PORT/" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "the bench's HTTP server did not start (see $dir.server.log)"
}

stop_server() {
  kill "$BENCH_SERVER_PID" 2>/dev/null || true
  wait "$BENCH_SERVER_PID" 2>/dev/null || true
  BENCH_SERVER_PID=
}

bench_download() {
  local d=$BENCH_RUN/dl out=$BENCH_RESULTS sha
  mkdir -p "$d/srv"
  say "e: download of $BENCH_DOWNLOAD_MIB MiB from a local HTTP server on 127.0.0.1"
  head -c "$((BENCH_DOWNLOAD_MIB * 1024 * 1024))" /dev/urandom >"$d/srv/big.bin"
  sha=$(sha256sum "$d/srv/big.bin" | cut -d' ' -f1)
  start_server "$d/srv"
  local url=http://127.0.0.1:$BENCH_SERVER_PORT/big.bin
  {
    manifest_header download
    printf '\n[[step]]\nid = "big"\nkind = "download"\nurl = "%s"\nsha256 = "%s"\ndest = "/var/tmp/big.bin"\ninsecure_http = true\n' "$url" "$sha"
  } >"$d/download.toml"
  jq -n --argjson w 1 --argjson r "$BENCH_DOWNLOAD_RUNS" \
    --argjson tool "$("$PY" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$BIN" --root "$d/root" --not-wsl --no-color install "$d/download.toml" --yes)" \
    --arg d "$d" --arg url "$url" '{warmup: $w, runs: $r, commands: [
      {name: "download step", argv: $tool, reset: ["sh", "-c", ("rm -rf " + $d + "/root && mkdir " + $d + "/root")]},
      {name: "curl -o", argv: ["curl", "-fsS", "-o", ($d + "/curl.bin"), $url], reset: ["rm", "-f", ($d + "/curl.bin")]},
      {name: "curl | tee | sha256sum", argv: ["sh", "-c", ("curl -fsS " + $url + " | tee " + $d + "/pipe.bin | sha256sum >/dev/null")],
       reset: ["rm", "-f", ($d + "/pipe.bin")]},
      {name: "curl -o, then sha256sum", argv: ["sh", "-c", ("curl -fsS -o " + $d + "/then.bin " + $url + " && sha256sum " + $d + "/then.bin >/dev/null")],
       reset: ["rm", "-f", ($d + "/then.bin")]}]}' >"$d/e.spec"
  "$PY" "$BENCH_DIR/measure.py" "$d/e.spec" "$out/download.json"
  [[ $(sha256sum <"$d/root/var/tmp/big.bin" | cut -d' ' -f1) == "$sha" ]] || say "note: the download step's file does not match"
  jq -n --argjson bytes "$((BENCH_DOWNLOAD_MIB * 1024 * 1024))" '{bytes: $bytes}' >"$out/download-size.json"
  stop_server
  bench_https_memory "$d"
  rm -rf "$d"
}

# bench_https_memory DIR: peak memory of a download over HTTPS, the heaviest
# thing a bundled profile does (libcurl, its libraries and OpenSSL are loaded
# only for network URLs; the profiles fetch their keys and the CUDA keyring
# over HTTPS). A throw-away certificate for 127.0.0.1 is made trusted by
# binding a CA bundle that includes it over the system's, in this run's
# private mount namespace only.
bench_https_memory() {
  local d=$1 out=$BENCH_RESULTS bundle=/etc/ssl/certs/ca-certificates.crt
  [[ -f $bundle ]] && command -v openssl >/dev/null || {
    say "no $bundle or openssl: the HTTPS download's memory is left out"
    return 0
  }
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/tls.key" -out "$d/tls.crt" -days 1 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null || fail "openssl could not make a test certificate"
  cat "$bundle" "$d/tls.crt" >"$d/bundle.crt"
  mount --bind "$d/bundle.crt" "$bundle"
  head -c $((1024 * 1024)) /dev/urandom >"$d/srv/small.bin"
  start_server "$d/srv" "$d/tls.crt" "$d/tls.key"
  local url=https://127.0.0.1:$BENCH_SERVER_PORT/small.bin
  {
    manifest_header download-https
    printf '\n[[step]]\nid = "small"\nkind = "download"\nurl = "%s"\nsha256 = "%s"\ndest = "/var/tmp/small.bin"\n' \
      "$url" "$(sha256sum "$d/srv/small.bin" | cut -d' ' -f1)"
  } >"$d/https.toml"
  rm -rf "$d/root" && mkdir "$d/root"
  : >"$d/rss-https.tsv"
  peak_rss "download over HTTPS (libcurl and OpenSSL loaded)" "$d/rss-https.tsv" \
    "$BIN" --root "$d/root" --not-wsl --no-color install "$d/https.toml" --yes ||
    { cat "$d/rss-https.tsv.out" >&2; say "the HTTPS download failed"; }
  rss_json "$d/rss-https.tsv" >"$out/rss-https.json"
  stop_server
  umount "$bundle"
}

# ---------------------------------------------------------------- p: the PyTorch layer, converged

# p: on a root converged by `install pytorch-rocm` (the default ROCm
# release from the test repository, PyTorch from the fake wheels of
# tests/support/fake_wheels.py), the converged `plan pytorch-rocm` against
# the converged `plan rocm` of the same root (issue 23's target: within 2x).
# The layer reads the venv's dist-info folders and starts no Python.
bench_pytorch() {
  local tmp=$REALROOT_SCENARIO_TMP out=$BENCH_RESULTS
  local -a rocm_sets torch_sets plan_rocm plan_torch
  root_as_amd_machine
  pytorch_www
  mapfile -t rocm_sets < <(rocm7_profile_args)
  mapfile -t torch_sets < <(pytorch_rocm_args 7.2.2)
  say "p: converging the root: install pytorch-rocm"
  "$WSLGPU_BIN" --root "$ROOT" --no-color "${torch_sets[@]}" install pytorch-rocm --yes >"$tmp/pytorch-install.log" 2>&1 || {
    cat "$tmp/pytorch-install.log" >&2
    fail "install pytorch-rocm failed; the benchmark needs a converged root"
  }
  mapfile -t plan_rocm < <(printf '%s\n' "$WSLGPU_BIN" --root "$ROOT" --no-color "${rocm_sets[@]}" plan rocm)
  mapfile -t plan_torch < <(printf '%s\n' "$WSLGPU_BIN" --root "$ROOT" --no-color "${torch_sets[@]}" plan pytorch-rocm)
  local status=0
  "${plan_torch[@]}" --detailed-exitcode >"$tmp/pytorch-plan.log" 2>&1 || status=$?
  ((status == 0)) || say "note: plan pytorch-rocm is not converged (exit $status):"$'\n'"$(cat "$tmp/pytorch-plan.log")"
  say "p: converged plan pytorch-rocm vs plan rocm ($BENCH_WARMUP warm-up, $BENCH_RUNS rounds)"
  json_spec "$BENCH_WARMUP" "$BENCH_RUNS" \
    "$(json_cmd "plan rocm" "${plan_rocm[@]}")" \
    "$(json_cmd "plan pytorch-rocm" "${plan_torch[@]}")" >"$tmp/p.spec"
  "$PY" "$BENCH_DIR/measure.py" "$tmp/p.spec" "$out/pytorch.json"
}

# ---------------------------------------------------------------- the run

start=$EPOCHREALTIME
cp /proc/loadavg "$BENCH_RESULTS/loadavg-start"
# a, b and c share one converged root, so they run together.
if [[ $BENCH_PARTS == *[abc]* ]]; then
  with_root bench_converged || die "the converged-root benchmarks could not run (see above)"
fi
if [[ $BENCH_PARTS == *d* ]]; then
  say "d: $BENCH_INSTALL_RUNS real installs, each in a fresh root"
  for i in $(seq "$BENCH_INSTALL_RUNS"); do
    with_root bench_real_install "$i" || die "the real install could not run (see above)"
  done
  if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
    with_root bench_own_usage || say "the own-usage install could not run (see above)"
  else
    say "perf is missing or not allowed here: the tool's own CPU time is left out (apt-get install linux-perf)"
  fi
fi
[[ $BENCH_PARTS != *e* ]] || bench_download
if [[ $BENCH_PARTS == *p* ]]; then
  with_root bench_pytorch || die "the PyTorch benchmark could not run (see above)"
fi
"$PY" "$here/report.py" "$BENCH_RESULTS" "$BIN" "$BENCH_OUT"
say "bench: $(elapsed_since "$start") s; results in $BENCH_OUT"
