#!/usr/bin/env bash
# Gathers the seed inputs of every fuzz target into OUTDIR/TARGET/ (one
# folder per target, named as the target without "fuzz_"): the repository's
# own fixtures (tests/), the hand-written seeds of tests/fuzz/seeds/, a .deb
# and OpenPGP keys made here, and the real-world files of CORPUS (default:
# WSLGPU_CORPUS_DIR, else ../shared/corpus next to the source folder; see
# its SOURCES.md). CORPUS is
# read where it is: its files are copied into OUTDIR, never into the
# repository. A missing folder is skipped with a message.
#
#   tests/fuzz/seeds.sh OUTDIR [CORPUS]
#
# Nothing outside OUTDIR and one temporary folder is written: the keys are
# made by gpg in a throwaway GnuPG home, the .deb by dpkg-deb from files in
# that folder.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [CORPUS]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
corpus=${2:-${WSLGPU_CORPUS_DIR:-$src/../shared/corpus}}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# add TARGET PATH...: copies each regular file found under PATH (a file or
# a folder) into OUTDIR/TARGET, named after where it came from so that two
# files of the same name do not collide.
add() {
  local target=$1 path
  shift
  mkdir -p "$out/$target"
  for path in "$@"; do
    if [ ! -e "$path" ]; then
      echo "seeds: skipping $path (not there)" >&2
      continue
    fi
    while IFS= read -r -d '' f; do
      local rel=${f#"$src/"}
      rel=${rel#"$corpus/"}
      cp "$f" "$out/$target/$(printf '%s' "$rel" | tr '/ ' '__')"
    done < <(find "$path" -type f ! -name '*.md' -print0)
  done
}

seeds=$src/tests/fuzz/seeds
for dir in "$seeds"/*/; do add "$(basename "$dir")" "$dir"; done

add manifest "$src/manifests" "$src/tests/broken" "$src/tests/blackbox/manifests" \
  "$corpus/toml-invalid" "$corpus/toml-invalid-1.0.0-only"
# apt's sqv policy is TOML too: the TOML suite's invalid documents.
add sequoia_policy "$corpus/toml-invalid"
add ini "$corpus/wslconfig" "$corpus/wslconf" "$corpus/ini-peer-tests"
add apt_simulation "$corpus/apt-sim" "$src/tests/unit/formats/data/status-fd/apt-print-uris.txt"
add apt_status "$src/tests/unit/formats/data/status-fd"
add nvidia_smi "$corpus/nvidia-smi"
# The CDI spec the unit tests read (NVIDIA's WSL spec); not CDI's schema files, whose
# mutations are large JSON documents that yaml-cpp takes minutes over.
add cdi_spec "$src/tests/unit/formats/data/cdi/nvidia-wsl.yaml"
# deb822 is also the format of the .sources files and of dpkg's status.
add deb822 "$seeds/apt_sources" "$seeds/dpkg_status"
add dpkg_status "$seeds/deb822"
add apt_sources "$seeds/deb822"

scratch=$(mktemp -d)
trap 'gpgconf --homedir "$scratch/gnupg" --kill all >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT

# A small .deb, twice: compressed as dpkg-deb does by default, and with
# uncompressed members, which the fuzzer can change byte by byte.
mkdir -p "$out/deb_archive"
if command -v dpkg-deb >/dev/null; then
  pkg=$scratch/pkg
  mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/etc/modprobe.d"
  printf 'Package: fuzz-seed\nVersion: 1.0-1\nArchitecture: all\nMaintainer: nobody <nobody@example.invalid>\nDepends: libc6 (>= 2.34), amdgpu-dkms | rocm-core\nDescription: a seed\n' \
    >"$pkg/DEBIAN/control"
  printf '#!/bin/sh\necho hi\n' >"$pkg/usr/bin/fuzz-seed"
  printf 'options x y=1\n' >"$pkg/etc/modprobe.d/x.conf"
  dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/deb_archive/seed-xz.deb" >/dev/null
  dpkg-deb --root-owner-group -Znone --build "$pkg" "$out/deb_archive/seed-none.deb" >/dev/null
else
  echo "seeds: skipping the .deb seeds (no dpkg-deb)" >&2
fi

# OpenPGP keys: an ed25519 key with an encryption subkey and an expiry, an
# RSA one, and one whose signing subkey has expired, armoured and binary.
mkdir -p "$out/openpgp"
if command -v gpg >/dev/null; then
  export GNUPGHOME=$scratch/gnupg
  mkdir -m 700 "$GNUPGHOME"
  g() { gpg --batch --quiet --pinentry-mode loopback --passphrase '' "$@" 2>/dev/null; }
  g --quick-gen-key 'Fuzz Seed <seed@example.invalid>' ed25519 sign 2y
  fp=$(gpg --batch --with-colons --list-keys seed@example.invalid 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
  g --quick-add-key "$fp" cv25519 encr never
  g --quick-gen-key 'RSA Seed <rsa@example.invalid>' rsa1024 sign never
  g --export --armor seed@example.invalid >"$out/openpgp/ed25519.asc"
  g --export seed@example.invalid >"$out/openpgp/ed25519.gpg"
  g --export rsa@example.invalid >"$out/openpgp/rsa1024.gpg"
  # NVIDIA's container-toolkit key's shape: a primary key that never
  # expires with a signing subkey bound in 2021 that expired a day later.
  g --faked-system-time 1577836800 --quick-gen-key 'Expired Subkey <sub@example.invalid>' ed25519 sign never
  fp=$(gpg --batch --with-colons --list-keys sub@example.invalid 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
  g --faked-system-time 1623715200 --quick-add-key "$fp" ed25519 sign 1d
  g --export sub@example.invalid >"$out/openpgp/expired-subkey.gpg"
  g --export --armor >"$out/openpgp/both.asc"
else
  echo "seeds: skipping the OpenPGP seeds (no gpg)" >&2
fi

# The passwd, group and os-release readers get each other's seeds too:
# the same "a:b:c" shapes.
add passwd "$seeds/group"
add group "$seeds/passwd"
for dir in "$out"/*/; do
  echo "seeds: $(basename "$dir"): $(find "$dir" -type f | wc -l) files"
done
