#!/usr/bin/env bash
# The core's folders are layers (docs/ARCHITECTURE.md): a file may include
# its own folder and the folders below it, never one above. Prints every
# include that breaks this, every folder that is in no layer, every include
# that climbs ("../", in the core, the tests or the benchmarks: a path from
# the source root says where the file is), and every file of steps/ outside
# a domain sub-folder (only step.hpp and registry.cpp lie at its top), and
# exits 1 if there is any. Usage: check.sh [SOURCE_DIR]
set -uo pipefail
cd "${1:-$(dirname "$0")/../..}"

# Lowest first, as CMakeLists.txt lists them (one list, so the build and
# this check cannot disagree).
read -r -a layers < <(sed -n 's/^set(WSLGPU_LAYERS \(.*\))$/\1/p' CMakeLists.txt)
if (( ${#layers[@]} < 6 )); then echo "CMakeLists.txt: no set(WSLGPU_LAYERS ...) with six or more folders"; exit 1; fi

rank_of() {  # folder name -> its index in layers, or nothing
  local i
  for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && { echo "$i"; return 0; }; done
  return 0
}
folder_of() {  # path -> its layer's name: installer/<x>/... -> x, steps/... -> steps
  case $1 in
    installer/*/*) local rest=${1#installer/}; echo "${rest%%/*}" ;;
    steps/*) echo steps ;;
    *) echo "" ;;
  esac
}

bad=0
for f in installer/* ; do
  if [[ -f $f && $(basename "$f") != main.cpp ]]; then
    echo "$f: lies directly in installer/; put it in the folder of its concept"; bad=1
  fi
done
for d in installer/*/; do
  d=${d%/}; name=${d#installer/}
  if [[ -z $(rank_of "$name") ]]; then echo "$d: a folder in no layer (add it to WSLGPU_LAYERS in CMakeLists.txt)"; bad=1; fi
done

# steps/ is in sub-folders by domain; at its top only the interface and the registry.
for f in steps/*; do
  [[ -f $f ]] || continue
  case ${f#steps/} in
    step.hpp | registry.cpp) ;;
    *) echo "$f: lies directly in steps/; put it in the sub-folder of its domain (apt/, files/, ...)"; bad=1 ;;
  esac
done
[[ -f steps/step.hpp && -f steps/registry.cpp ]] || { echo "steps/step.hpp or steps/registry.cpp is missing: is this the source tree?"; exit 1; }

# No include climbs: "../x.hpp" depends on where the including file lies.
while IFS= read -r hit; do
  echo "$hit: an include that climbs; name the file from the source root (\"installer/...\", \"steps/...\")"
  bad=1
done < <(find installer steps tests bench -name '*.[ch]pp' -o -name '*.h' 2>/dev/null | sort |
  xargs grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^">]*\.\./' /dev/null)

checked=0
while IFS= read -r f; do
  own=$(folder_of "$f"); own_rank=$(rank_of "$own")
  while IFS=: read -r line inc; do
    target=$(folder_of "$inc"); [[ -n $target ]] || continue
    target_rank=$(rank_of "$target")
    checked=$((checked + 1))
    if [[ -z $target_rank ]]; then
      echo "$f:$line: includes $inc, in no layer"; bad=1
    elif (( target_rank > own_rank )); then
      echo "$f:$line: $own (layer $own_rank) includes $inc from $target (layer $target_rank), a higher layer"; bad=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1:\2/')
done < <(find installer steps -name '*.[ch]pp' | sort)

if (( checked == 0 )); then echo "no includes found: is this the source tree?"; exit 1; fi
if (( bad )); then exit 1; fi
echo "layering: $checked includes checked, none goes up (${layers[*]}); none climbs; steps/ in sub-folders"
