#!/usr/bin/env bash
# tests/packaging/check-docs.sh PROGRAM SOURCE_DIR: the manual page and the
# bash completion against the program's own --help, so that neither can
# fall behind the command line (docs/packaging.md):
#   - every command, every option of the program and of each command, every
#     exit status and every bundled profile is in wslgpu-setup(1);
#   - every --option the page names exists (bar a few of other programs);
#   - the completion offers exactly the commands, and after "COMMAND -"
#     exactly that command's options and the global ones;
#   - every step kind `kinds` lists (the registry) has its entry in
#     wslgpu-setup.toml(5) and its section in docs/steps.md, and no other;
#   - README.md's exit-status table has every status wslgpu-setup(1) has;
#   - no shipped text (README.md, docs/, the pages, the manifests) cites the
#     workspace's notes, which neither the repository nor the package holds;
#   - the cuda profile's advice names the oldest driver its own matrix takes.
# Prints what is missing or extra; exits 1 if anything is.
set -uo pipefail
program=${1:?usage: check-docs.sh PROGRAM SOURCE_DIR}
src=${2:?usage: check-docs.sh PROGRAM SOURCE_DIR}
page=$src/packaging/man/wslgpu-setup.1.scd
completion=$src/packaging/bash-completion/wslgpu-setup
bad=0
problem() { echo "FAIL $*"; bad=1; }

# The option names of a --help text: "  -o,--output TEXT ..." -> -o --output
options_of() { awk '/^Options:/ { on = 1; next } /^[A-Z][a-z ]*:/ { on = 0 } on && /^  -/ { print $1 }' | tr ',' '\n' | sort -u; }
main_help=$("$program" --help) || { echo "cannot run $program --help"; exit 1; }
mapfile -t commands < <(awk '/^Subcommands:/ { on = 1; next } /^[A-Z][a-z ]*:/ { on = 0 } on && NF { print $1 }' <<<"$main_help")
mapfile -t global < <(options_of <<<"$main_help")
# "  130 interrupted by Ctrl-C (SIGINT); 143 by SIGTERM, 129 by SIGHUP: ..." names three.
mapfile -t statuses < <(awk '/^Exit status:/ { on = 1; next }
  on && /^  [0-9]+ / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) print $i }' <<<"$main_help")
mapfile -t profiles < <("$program" list | awk '{ print $1 }')
((${#commands[@]} >= 5 && ${#global[@]} >= 5 && ${#statuses[@]} >= 5)) ||
  { echo "cannot read the commands, options and exit statuses from $program --help:"; echo "$main_help"; exit 1; }

# A word in the page's source, as a whole word (scdoc marks it *bold*).
in_page() { grep -qE -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$page"; }

all_options=("${global[@]}")
for cmd in "${commands[@]}"; do
  grep -qE "^\*$cmd\*( |$)" "$page" || problem "wslgpu-setup(1) has no entry for the command $cmd"
  mapfile -t own < <("$program" "$cmd" --help | options_of)
  all_options+=("${own[@]}")
  for opt in "${own[@]}"; do in_page "$opt" || problem "wslgpu-setup(1) does not name $cmd's option $opt"; done
done
for opt in "${global[@]}"; do in_page "$opt" || problem "wslgpu-setup(1) does not name the global option $opt"; done
for status in "${statuses[@]}"; do
  grep -qE "^(\*[0-9]+\*, )*\*$status\*(, \*[0-9]+\*)*\$" "$page" || problem "wslgpu-setup(1) does not describe exit status $status"
done
for p in "${profiles[@]}"; do in_page "\*$p\*" || problem "wslgpu-setup(1) does not name the bundled profile $p"; done

# The step kinds: the registry (steps/registry.cpp, as `kinds` prints it) is
# the one list in the code; the two lists in the docs follow it, each kind
# with an entry in wslgpu-setup.toml(5) and a section in docs/steps.md, and
# neither naming a kind the registry lacks.
toml_page=$src/packaging/man/wslgpu-setup.toml.5.scd
mapfile -t kinds < <("$program" kinds | awk '{ print $1 }')
((${#kinds[@]} >= 10)) || { echo "cannot read the step kinds from $program kinds"; exit 1; }
page_kinds=$(awk '/^# STEP KINDS/ { on = 1; next } /^# / { on = 0 } on && /^\*/' "$toml_page" |
  grep -oE '\*[a-z\\_]+\*' | tr -d '*\\' | sort -u)
doc_kinds=$(grep -E '^## `' "$src/docs/steps.md" | grep -oE '`[a-z_]+`' | tr -d '`' | sort -u)
registry_kinds=$(printf '%s\n' "${kinds[@]}" | sort -u)
for where in "wslgpu-setup.toml(5)" "docs/steps.md"; do
  listed=$page_kinds
  [[ $where == docs/steps.md ]] && listed=$doc_kinds
  missing=$(comm -23 <(echo "$registry_kinds") <(echo "$listed") | paste -sd ' ')
  extra=$(comm -13 <(echo "$registry_kinds") <(echo "$listed") | paste -sd ' ')
  [[ -z $missing ]] || problem "$where describes no step kind $missing (\`wslgpu-setup kinds\` lists it)"
  [[ -z $extra ]] || problem "$where describes the step kind $extra, which \`wslgpu-setup kinds\` does not list"
done

# Options the page names that are other programs' (wsl.exe, sudo, apt-get, docker run).
others=" --update --shutdown --error-on -E --device --gpus "
known=" ${all_options[*]} "
while read -r opt; do
  [[ $known == *" $opt "* || $others == *" $opt "* ]] || problem "wslgpu-setup(1) names $opt, which no command has"
done < <(grep -oE -- '(^|[^A-Za-z0-9_-])--[a-z][a-z-]*' "$page" | sed 's/^[^-]*//' | sort -u)

# The completion, run as bash runs it.
complete_line() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _wslgpu_setup; printf "%s\n" "${COMPREPLY[@]}"' complete "$completion" "$@" | sort -u
}
same_set() {  # WHAT EXPECTED GOT: both newline lists
  local missing extra
  missing=$(comm -23 <(sort -u <<<"$2") <(sort -u <<<"$3") | tr '\n' ' ')
  extra=$(comm -13 <(sort -u <<<"$2") <(sort -u <<<"$3") | tr '\n' ' ')
  [[ -z $missing ]] || problem "$1: the completion lacks $missing"
  [[ -z $extra ]] || problem "$1: the completion offers $extra, which --help does not list"
}
same_set "commands" "$(printf '%s\n' "${commands[@]}")" "$(complete_line wslgpu-setup "")"
same_set "global options" "$(printf '%s\n' "${global[@]}")" "$(complete_line wslgpu-setup -)"
for cmd in "${commands[@]}"; do
  mapfile -t own < <("$program" "$cmd" --help | options_of)
  same_set "options of $cmd" "$(printf '%s\n' "${own[@]}" "${global[@]}")" "$(complete_line wslgpu-setup "$cmd" -)"
done

# README.md's table of exit statuses against the page's EXIT STATUS.
statuses_in() { tr -s ' ,|*' '\n' | grep -E '^[0-9]+$' | sort -u; }
page_statuses=$(awk '/^# EXIT STATUS/ { on = 1; next } /^# / { on = 0 }
  on && /^\*[0-9]+\*(, \*[0-9]+\*)*$/' "$page" | statuses_in)
readme_statuses=$(awk '/^## Exit statuses/ { on = 1; next } /^## / { on = 0 }
  on && /^\| [0-9]/ { split($0, cell, "|"); print cell[2] }' "$src/README.md" | statuses_in)
[[ -n $page_statuses ]] || problem "cannot read the exit statuses of wslgpu-setup(1)'s EXIT STATUS"
missing=$(comm -23 <(echo "$page_statuses") <(echo "$readme_statuses") | tr '\n' ' ')
[[ -z $missing ]] || problem "README.md's exit-status table lacks $missing(wslgpu-setup(1) has them)"

# The other tables of exit statuses (docs/manifest.md's, docs/fleet.md's)
# say the same of the statuses whose meaning grew: a script writer reads one
# of them only. Each row of 2 names state of a newer version, each row of 3
# a stale saved plan.
for doc in README.md docs/manifest.md docs/fleet.md; do
  row_of() { awk -v s="$1" '/^## Exit statuses/ { on = 1; next } /^## / { on = 0 }
    on && $0 ~ "^\\| " s " \\|"' "$src/$doc"; }
  row_of 2 | grep -q 'newer' || problem "$doc: its exit-status row 2 does not name state written by a newer version"
  row_of 3 | grep -q 'stale' || problem "$doc: its exit-status row 3 does not name a stale saved plan"
done

# Shipped text cites the vendors' pages, repositories and threads, never the
# workspace's notes beside the checkout (../shared/...) or the documents the
# project started from: /usr/share/doc/wslgpu-setup would point at nothing.
while IFS= read -r hit; do
  problem "$hit: cites a file that is not shipped; cite the vendor's page, repository or thread instead"
done < <(cd "$src" && grep -rnIiE '\.\./shared|seed documents?|VENDOR-FACTS|SEED-NOTES' README.md docs packaging/man manifests)

# The cuda profile's advice names the driver its matrix needs: the oldest
# cuda_min_driver of its rows (the fallback needs that one too), so that a
# user who follows the advice is not then refused by the profile itself.
# The driver checks are cuda-driver's, the profile cuda stands on: their
# advice counts, and must name the same driver.
cuda=$src/manifests/cuda.toml
lowest=$(awk -F'"' '/^cuda_min_driver = "[0-9]+"$/ { if (min == "" || $2 + 0 < min + 0) min = $2 } END { print min }' "$cuda")
if [[ -z $lowest ]]; then
  problem "cannot read a cuda_min_driver from the rows of $cuda"
else
  named=0
  while IFS=: read -r file line text; do
    while read -r version; do
      if [[ $version == "$lowest" ]]; then
        named=1
      else
        problem "$file:$line: the advice names driver $version, but the cuda profile's matrix needs $lowest or later (its oldest cuda_min_driver)"
      fi
    done < <(grep -oE '[0-9]+(\.[0-9]+)* or later' <<<"$text" | awk '{ print $1 }')
  done < <(cd "$src" && grep -nHE '^advice = .*driver' manifests/cuda.toml manifests/cuda-driver.toml)
  ((named)) || problem "manifests/cuda.toml, manifests/cuda-driver.toml: no advice names the driver the matrix needs ($lowest or later)"
fi

if ((bad)); then exit 1; fi
echo "docs check: ok (${#commands[@]} commands, ${#global[@]} global options, ${#statuses[@]} exit statuses, ${#profiles[@]} profiles in wslgpu-setup(1) and the completion; ${#kinds[@]} step kinds in wslgpu-setup.toml(5) and docs/steps.md; README.md has the page's $(wc -w <<<"$page_statuses") exit statuses; no citation outside the repository; the cuda advice names driver $lowest)"
