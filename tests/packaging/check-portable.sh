#!/usr/bin/env bash
# tests/packaging/check-portable.sh PROGRAM...: the portable build's promise
# (cmake/portable.cmake), read from each program's dynamic section and its
# dynamic symbols: it loads no library but libc, libm and the dynamic loader,
# and needs no symbol version newer than GLIBC_2.34 (so it runs on Ubuntu
# 22.04, which has 2.35, and everything newer), and none of libstdc++ or
# libgcc (GLIBCXX_, CXXABI_, GCC_). Prints, for each program, its libraries
# and the symbols of its newest glibc version; exits 1 if any breaks it.
#   WSLGPU_MAX_GLIBC  the newest glibc version allowed (default 2.34)
set -euo pipefail
max=${WSLGPU_MAX_GLIBC:-2.34}
allowed=(libc.so.6 libm.so.6 ld-linux-x86-64.so.2)
(($# > 0)) || { echo "usage: check-portable.sh PROGRAM..." >&2; exit 2; }
command -v readelf >/dev/null && command -v objdump >/dev/null ||
  { echo "check-portable.sh: needs readelf and objdump (binutils)" >&2; exit 2; }

bad=0
for program in "$@"; do
  name=$(basename "$program")
  readelf -l --wide "$program" | grep -q 'Requesting program interpreter' ||
    { echo "FAIL $name: not a dynamically linked program"; bad=1; continue; }
  mapfile -t needed < <(readelf -d --wide "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
  for lib in "${needed[@]}"; do
    [[ " ${allowed[*]} " == *" $lib "* ]] || { echo "FAIL $name: needs $lib (only ${allowed[*]} may be loaded)"; bad=1; }
  done
  # "0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.34) __libc_start_main"
  symbols=$(objdump -T "$program" | awk '$0 ~ /\*UND\*/ && match($0, /\(([A-Z]+_[0-9.]+)\)/) {
      v = substr($0, RSTART + 1, RLENGTH - 2); print v, $NF }')
  while read -r version symbol; do
    case $version in
      GLIBC_*) ;;
      *) echo "FAIL $name: needs $symbol@$version (libstdc++ and libgcc must be linked statically)"; bad=1; continue ;;
    esac
    newest=$(printf '%s\n%s\n' "${version#GLIBC_}" "$max" | sort -V | tail -n 1)
    [[ $newest == "$max" ]] || { echo "FAIL $name: needs $symbol@$version, newer than GLIBC_$max"; bad=1; }
  done <<<"$symbols"
  top=$(awk '{ print $1 }' <<<"$symbols" | grep '^GLIBC_' | sort -uV | tail -n 1)
  at_top=$(awk -v v="$top" '$1 == v { print $2 }' <<<"$symbols" | sort | tr '\n' ' ')
  echo "$name: loads ${needed[*]}; $(wc -l <<<"$symbols") versioned symbols, the newest $top (${at_top% })"
done
if ((bad)); then
  echo "portable check: FAILED"
  exit 1
fi
echo "portable check: ok (glibc <= $max, no library but ${allowed[*]})"
