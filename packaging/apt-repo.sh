#!/usr/bin/env bash
# packaging/apt-repo.sh --out DIR [--url URL] [--key KEY] DEB...
#
# Adds the wslgpu-setup .debs DEB... to the apt repository in DIR (made
# when missing) and writes its indexes, signed: DIR is then ready to upload
# as it is, to the URL users' apt reads (docs/packaging.md, "Releases").
#
#   DIR/pool/main/w/wslgpu-setup/*.deb     every version ever added: the
#                                          .debs already there are kept, so a
#                                          new release adds to the old ones
#   DIR/dists/stable/main/binary-amd64/Packages, Packages.gz
#   DIR/dists/stable/Release               with the indexes' MD5 and SHA-256
#   DIR/dists/stable/InRelease             Release, clear-signed
#   DIR/dists/stable/Release.gpg           Release's detached signature (armored)
#   DIR/wslgpu-setup.gpg, wslgpu-setup.asc the signing key's public half
#                                          (binary, for apt's Signed-By; armored)
#   DIR/wslgpu-setup.sources               the users' apt source (deb822)
#
# URL: --url, or WSLGPU_PUBLISH_URL in packaging/release.conf (the project's
# one setting of where it publishes); refused when neither is set.
# KEY: --key, or $WSLGPU_SIGNING_KEY: a key id or fingerprint of a secret key
# in the caller's gpg keyring ($GNUPGHOME is honoured). There is no key in
# this repository and the script never makes one.
# The Release's Date is $SOURCE_DATE_EPOCH when set (else now).
#
# Exit status: 0 written and verified; 2 bad arguments or settings (nothing
# written); 1 a step failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
conf=$here/release.conf
suite=stable
component=main
arch=amd64
package=wslgpu-setup

usage() {
  echo "usage: $0 --out DIR [--url URL] [--key KEY] DEB..." >&2
  echo "  KEY defaults to \$WSLGPU_SIGNING_KEY, URL to WSLGPU_PUBLISH_URL in $conf" >&2
}
refuse() {
  echo "apt-repo.sh: $*" >&2
  exit 2
}
die() {
  echo "apt-repo.sh: $*" >&2
  exit 1
}

# shellcheck source=release-setting.sh
source "$here/release-setting.sh"

out="" url="" key=${WSLGPU_SIGNING_KEY:-} url_from_conf=0
debs=()
while (($#)); do
  case $1 in
    --out) out=${2:-}; [[ -n $out ]] || { usage; refuse "--out needs a folder"; }; shift 2 ;;
    --url) url=${2:-}; [[ -n $url ]] || { usage; refuse "--url needs a URL"; }; shift 2 ;;
    --key) key=${2:-}; [[ -n $key ]] || { usage; refuse "--key needs a key id or fingerprint"; }; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; debs+=("$@"); break ;;
    -*) usage; refuse "unknown option $1" ;;
    *) debs+=("$1"); shift ;;
  esac
done
[[ -n $out ]] || { usage; refuse "no --out folder given"; }
((${#debs[@]} > 0)) || { usage; refuse "no .deb given (the repository is built from the .debs of a release; \`cmake --build build --target package\` makes one)"; }

if [[ -z $url ]]; then
  url=$(release_setting WSLGPU_PUBLISH_URL)
  url_from_conf=1
fi
[[ -n $url ]] || refuse "no URL to publish at: WSLGPU_PUBLISH_URL in $conf is empty (the project has not chosen where it publishes yet). Set it there for a release, or give --url URL"
url=${url%/}
[[ $url =~ ^(https?|file):[^[:space:]]+$ ]] || refuse "the URL \"$url\" is not an https:, http: or file: URL"

[[ -n $key ]] || refuse "no signing key: give --key KEY or set WSLGPU_SIGNING_KEY to the id or fingerprint of a secret key in your gpg keyring (\$GNUPGHOME: ${GNUPGHOME:-~/.gnupg}); the release key is never in the repository"
command -v gpg >/dev/null || die "gpg is not installed (package gnupg)"
command -v gpgv >/dev/null || die "gpgv is not installed (package gpgv)"
command -v dpkg-scanpackages >/dev/null || die "dpkg-scanpackages is not installed (package dpkg-dev)"
# The key: exactly one secret key, named by its fingerprint from here on.
listing=$(gpg --batch --with-colons --list-secret-keys -- "$key" 2>/dev/null) ||
  refuse "no secret key \"$key\" in the gpg keyring (\$GNUPGHOME: ${GNUPGHOME:-~/.gnupg})"
(($(grep -c '^sec:' <<<"$listing") == 1)) || refuse "\"$key\" names more than one secret key; give its full fingerprint"
fingerprint=$(awk -F: '/^fpr:/ { print $10; exit }' <<<"$listing")
[[ $fingerprint =~ ^[0-9A-F]{40,64}$ ]] || die "cannot read the fingerprint of \"$key\""
release_fpr=$(release_setting WSLGPU_SIGNING_FINGERPRINT)
if ((url_from_conf)) && [[ -n $release_fpr && ${release_fpr^^} != "$fingerprint" ]]; then
  refuse "the key $fingerprint is not the release key WSLGPU_SIGNING_FINGERPRINT=$release_fpr of $conf, which README tells users to check: sign with that key"
fi

# Every .deb must be a wslgpu-setup package of this architecture.
for deb in "${debs[@]}"; do
  [[ -f $deb ]] || refuse "$deb is not a file"
  name=$(dpkg-deb -f "$deb" Package 2>/dev/null) || refuse "$deb is not a .deb"
  [[ $name == "$package" ]] || refuse "$deb is the package \"$name\", not $package: this repository holds $package only"
  deb_arch=$(dpkg-deb -f "$deb" Architecture)
  [[ $deb_arch == "$arch" ]] || refuse "$deb is for $deb_arch; the repository is $arch only"
done

pool=pool/$component/${package:0:1}/$package
for deb in "${debs[@]}"; do
  target=$out/$pool/${package}_$(dpkg-deb -f "$deb" Version)_${arch}.deb
  # A published version never changes: apt and every cache on the way hold
  # its hash.
  [[ ! -e $target ]] || cmp -s "$deb" "$target" ||
    refuse "$target already holds a different $package $(dpkg-deb -f "$deb" Version) than $deb: a published version never changes; bump the version (docs/packaging.md, Releases)"
done

mkdir -p "$out/$pool"
out=$(cd "$out" && pwd)
added=()
for deb in "${debs[@]}"; do
  version=$(dpkg-deb -f "$deb" Version)
  target=$out/$pool/${package}_${version}_${arch}.deb
  [[ ! -e $target ]] || continue
  cp "$deb" "$target.tmp"
  chmod 0644 "$target.tmp"
  mv "$target.tmp" "$target"
  added+=("$version")
done

# The indexes: every version in the pool (--multiversion), so that users can
# still install or downgrade to an older one.
dists=$out/dists/$suite
index=$component/binary-$arch
mkdir -p "$dists/$index"
(cd "$out" && dpkg-scanpackages --multiversion --arch "$arch" "$pool" /dev/null 2>"$dists/scan.log") >"$dists/$index/Packages.tmp" ||
  die "dpkg-scanpackages failed on $out/$pool: $(cat "$dists/scan.log")"
rm -f "$dists/scan.log"
mv "$dists/$index/Packages.tmp" "$dists/$index/Packages"
gzip -9n <"$dists/$index/Packages" >"$dists/$index/Packages.gz"

epoch=${SOURCE_DATE_EPOCH:-$(date +%s)}
date=$(LC_ALL=C date -u -d "@$epoch" '+%a, %d %b %Y %H:%M:%S UTC')
{
  printf 'Origin: %s\nLabel: %s\nSuite: %s\nCodename: %s\nDate: %s\n' "$package" "$package" "$suite" "$suite" "$date"
  printf 'Architectures: %s\nComponents: %s\n' "$arch" "$component"
  printf 'Description: wslgpu-setup, GPU compute (ROCm, CUDA) for WSL2\n'
  for sum in MD5Sum:md5sum SHA256:sha256sum; do
    printf '%s:\n' "${sum%%:*}"
    for f in "$index/Packages" "$index/Packages.gz"; do
      printf ' %s %16d %s\n' "$(cd "$dists" && ${sum#*:} "$f" | cut -d' ' -f1)" "$(stat -c %s "$dists/$f")" "$f"
    done
  done
} >"$dists/Release"

gpg=(gpg --batch --yes --quiet --local-user "$fingerprint" --digest-algo SHA512)
"${gpg[@]}" --clearsign --output "$dists/InRelease.tmp" "$dists/Release" || die "gpg could not sign with $fingerprint"
"${gpg[@]}" --armor --detach-sign --output "$dists/Release.gpg.tmp" "$dists/Release" || die "gpg could not sign with $fingerprint"
mv "$dists/InRelease.tmp" "$dists/InRelease"
mv "$dists/Release.gpg.tmp" "$dists/Release.gpg"
gpg --batch --yes --export-options export-minimal --export "$fingerprint" >"$out/$package.gpg.tmp"
gpg --batch --yes --export-options export-minimal --armor --export "$fingerprint" >"$out/$package.asc.tmp"
mv "$out/$package.gpg.tmp" "$out/$package.gpg"
mv "$out/$package.asc.tmp" "$out/$package.asc"

cat >"$out/$package.sources" <<EOF
Types: deb
URIs: $url
Suites: $suite
Components: $component
Architectures: $arch
Signed-By: /etc/apt/keyrings/$package.gpg
EOF

# As apt will check it: the signatures against the exported key alone.
gpgv --quiet --keyring "$out/$package.gpg" "$dists/InRelease" 2>/dev/null ||
  die "InRelease does not verify against $out/$package.gpg"
gpgv --quiet --keyring "$out/$package.gpg" "$dists/Release.gpg" "$dists/Release" 2>/dev/null ||
  die "Release.gpg does not verify against $out/$package.gpg"

versions=$(sed -n 's/^Version: //p' "$dists/$index/Packages" | tr '\n' ' ')
echo "apt repository $out, for $url"
echo "  added:     ${added[*]:-nothing new (every .deb given was already there)}"
echo "  versions:  ${versions% }"
echo "  signed by: $fingerprint (InRelease and Release.gpg verified with gpgv)"
echo "  wrote:     dists/$suite/{Release,InRelease,Release.gpg}, dists/$suite/$index/Packages{,.gz},"
echo "             $package.gpg, $package.asc, $package.sources"
echo "Upload the whole folder to $url."
