# On Ubuntu 26.04 apt verifies with Sequoia's sqv, whose policy no longer
# trusts a key bound to its user ID by a SHA-1 self-signature, as NVIDIA's
# wsl-ubuntu key 3BF863CC is (NVIDIA/cuda-repo-management issue 44): every
# `apt-get update` then fails on that source. Shown on the stand-in for
# Ubuntu 26.04 (Debian forky dressed as it, tests/realroot/forky.sh) with
# the flat CUDA index of the test repository signed by a key of that shape
# (RSA 4096, made as of 2022, binding hashed with SHA-1; the data signature
# SHA-256), generated for the run:
#   - the root's own apt refuses it, with sqv's "SHA1 is not considered
#     secure", and accepts the same index signed by the test key (an ed25519
#     key with a SHA-256 binding): the binding is what it refuses;
#   - `wslgpu-setup plan cuda` pointed at it exits 3 naming the key and its
#     SHA-1 binding, and so does `install cuda --yes`; the root is unchanged;
#   - `install cuda --yes` pointed at the test repository and its key
#     commits, nvcc's stand-in runs, and the root's apt updates the source
#     the tool wrote.
# The first run builds the forky root (about 4 minutes on 2 busy cores),
# hence the limit.
# realroot-timeout: 900

# shellcheck source=../forky.sh
source "$REALROOT_LIB_DIR/forky.sh"

# Where the SHA-1-bound key and the index it signed are made, and where a
# root sees that index (exported: the roots' functions read them).
export SHA1_DIR=${REALROOT_SCENARIO_TMP:?}/sha1 SHA1_REPO_IN_ROOT=/srv/wslgpu-sha1-cuda

scenario() {
  require_tool_command install
  sha1_signed_cuda_index "$SHA1_DIR"
  forky_release_layers "$REALROOT_SCENARIO_TMP/forky"
  # with_root stacks a root on $REALROOT_RUN/wsl and $REALROOT_RUN/base:
  # here, the forky root's.
  (
    export REALROOT_RUN=$REALROOT_SCENARIO_TMP/forky
    with_root apt_refuses_the_sha1_binding
    with_root the_tool_refuses_the_sha1_binding
    with_root install_with_the_sha256_binding
  )
}

# What `run.sh --prepare` builds ahead of the run: the forky root.
prepare_cache() { forky_prepare_cache; }

# binding_digest KEY GNUPGHOME: the hash algorithm (OpenPGP's number: 2
# SHA-1, 8 SHA-256) of KEY's first user ID self-signature (class 0x10 to
# 0x13), as gpg --list-packets prints it.
binding_digest() {
  GNUPGHOME=$2 gpg --batch --list-packets "$1" 2>/dev/null |
    awk '/sigclass 0x1[0-3]/ { cert = 1 } cert && /digest algo/ { sub(/,.*/, ""); print $3; exit }'
}

# sha1_signed_cuda_index DIR: a key bound with SHA-1 (DIR/key.asc, its
# fingerprint in DIR/fingerprint) and the test repository's flat CUDA index
# signed by it (DIR/repo: Packages, Release, InRelease, Release.gpg). The
# index only, no pool: apt refuses at the signature, before any package.
sha1_signed_cuda_index() {
  local dir=$1 gnupg
  mkdir -p "$dir/repo"
  # Not under DIR: gpg-agent's socket path must fit in 108 bytes, and the
  # scenario's folder is long.
  gnupg=$(mktemp -d)
  cp "$TESTREPO_DIR/$TESTREPO_CUDA_BASE"/{Packages,Packages.gz,Release} "$dir/repo/"
  # --faked-system-time: the binding dates from before sqv's cutoff
  # (2026-02-01), as NVIDIA's (2022) does; the cutoff applies all the same.
  (
    export GNUPGHOME=$gnupg
    gpg --batch --quiet --passphrase '' --faked-system-time 20220414T000000 --cert-digest-algo SHA1 \
      --quick-gen-key 'wslgpu-setup test key bound with SHA-1 <sha1@wslgpu-setup.invalid>' rsa4096 sign never
    gpg --batch --quiet --armor --export >"$dir/key.asc"
    gpg --batch --with-colons --list-keys | awk -F: '$1 == "fpr" { print $10; exit }' >"$dir/fingerprint"
    gpg --batch --quiet --digest-algo SHA256 --clearsign -o "$dir/repo/InRelease" "$dir/repo/Release"
    gpg --batch --quiet --digest-algo SHA256 --armor --detach-sign -o "$dir/repo/Release.gpg" "$dir/repo/Release"
    gpgconf --kill all
  ) >"$dir/gpg.log" 2>&1 || {
    cat "$dir/gpg.log" >&2
    GNUPGHOME=$gnupg gpgconf --kill all
    fail "gpg could not make or use the SHA-1-bound key"
  }
  # What the scenario rests on: the bindings' hashes, and the data
  # signature's, are what they are said to be.
  assert_eq "$(binding_digest "$dir/key.asc" "$gnupg")" 2 "the SHA-1-bound key's binding digest algo (2: SHA-1)"
  assert_eq "$(binding_digest "$TESTREPO_KEY" "$gnupg")" 8 "the test key's binding digest algo (8: SHA-256)"
  rm -rf "$gnupg"
  [[ $(wc -c <"$dir/fingerprint") == 41 ]] || fail "gpg did not print the SHA-1-bound key's fingerprint"
  assert_eq "$(sed -n 2p "$dir/repo/InRelease")" "Hash: SHA256" "the InRelease signature's hash"
  chmod -R a+rX "$dir"
}

# root_sha1_repository: the SHA-1-signed index in the root.
root_sha1_repository() {
  mkdir -p "$ROOT$SHA1_REPO_IN_ROOT"
  cp "$SHA1_DIR"/repo/* "$ROOT$SHA1_REPO_IN_ROOT/"
}

# root_flat_source URI KEY: the root's apt has one source, the flat
# repository URI, Signed-By the key file KEY.
root_flat_source() {
  rm -f "$ROOT"/etc/apt/sources.list.d/wslgpu-*.sources
  mkdir -p "$ROOT/etc/apt/keyrings"
  cp "$2" "$ROOT/etc/apt/keyrings/wslgpu-flat.asc"
  printf 'Types: deb\nURIs: %s\nSuites: /\nSigned-By: /etc/apt/keyrings/wslgpu-flat.asc\n' "$1" \
    >"$ROOT/etc/apt/sources.list.d/wslgpu-flat.sources"
}

apt_refuses_the_sha1_binding() {
  [[ -x $ROOT/usr/bin/sqv ]] || fail "the forky root has no /usr/bin/sqv: its apt would verify with gpgv"
  expect_status 0 in_root apt-get --version
  assert_contains "$LAST_OUTPUT" '^apt 3\.' "the root's apt-get --version"
  root_sha1_repository
  root_flat_source "file:$SHA1_REPO_IN_ROOT/" "$SHA1_DIR/key.asc"
  expect_status 100 in_root apt-get update --error-on=any
  assert_contains "$LAST_OUTPUT" "SHA1 is not considered secure" "apt-get update with the SHA-1-bound key"
  assert_contains "$LAST_OUTPUT" "$(<"$SHA1_DIR/fingerprint")" "apt-get update with the SHA-1-bound key"
  # The same index (the same Release) signed by the test key: accepted.
  cmp -s "$SHA1_DIR/repo/Release" "$TESTREPO_DIR/$TESTREPO_CUDA_BASE/Release" ||
    fail "the SHA-1-signed index is not the test repository's"
  root_flat_source "$TESTREPO_CUDA_REPO" "$TESTREPO_KEY"
  expect_status 0 in_root apt-get update --error-on=any
  expect_status 0 in_root apt-cache policy cuda-toolkit-12-6
  assert_contains "$LAST_OUTPUT" "Candidate: 12\\.6\\." "apt-cache policy after the update with the test key"
}

the_tool_refuses_the_sha1_binding() {
  local tmp=$REALROOT_SCENARIO_TMP fpr sets
  fpr=$(<"$SHA1_DIR/fingerprint")
  root_sha1_repository
  sets=(--set "cuda_repo=file:$SHA1_REPO_IN_ROOT/" --set "cuda_key_url=file://$SHA1_DIR/key.asc"
    --set "cuda_key_fingerprint=$fpr" --set "cuda_pin_origin=$TESTREPO_ORIGIN")
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan cuda
  assert_status 3 "plan cuda with the SHA-1-bound key"
  refused_for_the_binding "$fpr" "$TOOL_OUT$TOOL_ERR" "plan cuda"

  tool --root "$ROOT" "${sets[@]}" install cuda --yes
  assert_status 3 "install cuda --yes with the SHA-1-bound key"
  refused_for_the_binding "$fpr" "$TOOL_ERR" "install cuda --yes"
  assert_contains "$TOOL_ERR" 'Nothing was changed \(exit 3\)' "install cuda --yes"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused plan and install changed the root"
}

# refused_for_the_binding FINGERPRINT TEXT WHAT: TEXT refuses the CUDA
# repository for the key's SHA-1 binding, under the root's sqv policy.
refused_for_the_binding() {
  # As gpg prints a fingerprint: groups of four, two blanks in the middle.
  local f=$1 grouped
  grouped="${f:0:4} ${f:4:4} ${f:8:4} ${f:12:4} ${f:16:4}  ${f:20:4} ${f:24:4} ${f:28:4} ${f:32:4} ${f:36:4}"
  assert_contains "$2" "apt on this machine would refuse repository \"cuda-wsl-ubuntu\": the key $grouped is bound to its user ID by a SHA1 self-signature" "$3"
  assert_contains "$2" "sqv's policy \\(/usr/share/apt/default-sequoia\\.config: sha1\\.second_preimage_resistance = [0-9-]+\\) no longer trusts" "$3"
  assert_contains "$2" 'the CUDA frameworks need no toolkit \(`sudo wslgpu-setup install pytorch`' "$3: what works without the repository"
}

install_with_the_sha256_binding() {
  local sets id
  # shellcheck disable=SC2119 # no ARG: the profile's defaults
  mapfile -t sets < <(forky_cuda_args)
  tool --root "$ROOT" "${sets[@]}" install cuda --yes --output json
  assert_status 0 "install cuda --yes with the test key"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "install cuda --output json named no transaction"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq -r --arg id "$id" '.[] | select(.id == $id) | .status' <<<"$TOOL_OUT")" committed "the install's status"
  assert_installed "$ROOT" cuda-toolkit-12-6 cuda-nvcc-12-6
  assert_not_installed "$ROOT" cuda cuda-drivers nvidia-driver-550
  expect_status 0 in_root /usr/local/cuda/bin/nvcc --version
  assert_contains "$LAST_OUTPUT" "release 12\\.6," "nvcc --version"
  # The source and key the tool wrote pass the root's own apt (sqv).
  expect_status 0 in_root apt-get update --error-on=any
}
