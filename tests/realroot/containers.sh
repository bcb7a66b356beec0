# tests/realroot/containers.sh: what the containers scenarios share (sourced
# by lib.sh): the options that point the bundled containers profiles at the
# test repository, and the machine states they start from (a Windows driver
# store, Docker Desktop's integration, a docker-ce already installed, an
# image already pulled, systemd running the distribution).

# containers_cuda_args [ARG...]: cuda_driver_args, and the toolkit's and
# Docker's repositories and keys of the test repository (NVIDIA's key shaped
# like the real one, with its expired subkey). Then ARG...
containers_cuda_args() {
  cuda_driver_args --set "nvct_repo=$TESTREPO_NVCT_REPO" --set "nvct_key_url=file://$TESTREPO_NVCT_KEY" \
    --set "nvct_key_fingerprint=$TESTREPO_NVCT_KEY_FINGERPRINT" "$(_containers_docker_args)" "$@"
}

# containers_rocm_args [ARG...]: rocm_profile_args and Docker's repository.
containers_rocm_args() {
  rocm_profile_args "$(_containers_docker_args)" "$@"
}

_containers_docker_args() {
  printf '%s\n' --set "docker_repo=$TESTREPO_DOCKER_REPO" --set "docker_key_url=file://$TESTREPO_KEY" \
    --set "docker_key_fingerprint=$TESTREPO_KEY_FINGERPRINT"
}
# (Its lines are printed as one argument of the printf above: the profile
# args are read one per line, so they come out as three options.)

# root_fake_driver_store FOLDER: NVIDIA's Windows driver store, as WSL mounts
# it, at /usr/lib/wsl/drivers/FOLDER (e.g. nv_dispi.inf_amd64_1111111111111111)
# with the files nvidia-ctk's WSL spec names; any other NVIDIA store folder
# goes, as after a Windows driver update. Prints the folder's path.
root_fake_driver_store() {
  local drivers=$ROOT/usr/lib/wsl/drivers f
  rm -rf "$drivers"/nv*.inf_amd64_*
  mkdir -p "$drivers/$1"
  for f in libcuda.so.1.1 libcuda_loader.so libnvidia-ptxjitcompiler.so.1 libnvidia-ml.so.1 libnvidia-ml_loader.so \
    libnvdxgdmal.so.1 nvcubins.bin; do
    printf 'fake %s of the Windows driver store %s\n' "$f" "$1" >"$drivers/$1/$f"
  done
  cp "$ROOT/usr/lib/wsl/lib/nvidia-smi" "$drivers/$1/nvidia-smi"
  printf '/usr/lib/wsl/drivers/%s\n' "$1"
}

# root_with_docker_desktop: Docker Desktop's WSL integration on for this
# distribution: its CLI mounted under /mnt/wsl/docker-desktop and
# /usr/bin/docker a link to it (docker/for-win issues 6441 and 14850). The
# CLI answers `docker info` as Desktop's engine does, and runs nothing.
root_with_docker_desktop() {
  local cli=$ROOT/mnt/wsl/docker-desktop/cli-tools/usr/bin
  mkdir -p "$cli"
  cat >"$cli/docker" <<'EOS'
#!/bin/sh
# Docker Desktop's CLI, as its WSL integration mounts it (test stand-in).
case "$1" in
info) echo "Docker Desktop"; exit 0 ;;
image) echo "Error response from daemon: No such image: $3" >&2; exit 1 ;;
*) echo "Docker Desktop stand-in: only info and image inspect" >&2; exit 1 ;;
esac
EOS
  chmod 0755 "$cli/docker"
  ln -s /mnt/wsl/docker-desktop/cli-tools/usr/bin/docker "$ROOT/usr/bin/docker"
}

# root_with_docker_ce: docker-ce installed in the distribution before the
# tool runs (from the test repository's Docker packages, with dpkg).
root_with_docker_ce() {
  local debs=() p
  for p in containerd.io docker-ce-cli docker-ce; do
    debs+=("$(cd "$TESTREPO_DIR" && ls pool/ctr/"${p}"_*.deb)")
  done
  local out
  out=$(in_root dpkg -i "${debs[@]/#//srv/testrepo/}" 2>&1) || fail "dpkg could not install docker-ce in the root: $out"
}

# root_local_image podman|docker IMAGE: IMAGE is already on the machine for
# that engine's stand-in (as after a `podman pull`); the tool never pulls.
root_local_image() {
  mkdir -p "$ROOT/var/lib/$1-standin/images"
  : >"$ROOT/var/lib/$1-standin/images/$(printf '%s' "$2" | tr '/:' '__')"
}

# root_with_systemd: systemd runs this distribution, as WSL's [boot]
# systemd=true makes it (/run/systemd/system, which the tool reads as
# host.systemd), with the systemctl stand-in (tests/realroot/standins/
# systemctl) at /usr/local/sbin/systemctl. Docker is not running: the
# first restart starts it. root_systemctl_calls prints what was asked of
# systemctl, one "VERB UNIT" a line; dockerd's loaded daemon.json is
# $ROOT/run/docker-standin/daemon.json.
root_with_systemd() {
  mkdir -p "$ROOT/run/systemd/system" "$ROOT/usr/local/sbin"
  install -m 0755 "$REALROOT_LIB_DIR/standins/systemctl" "$ROOT/usr/local/sbin/systemctl"
}

root_systemctl_calls() {
  cat "$ROOT/run/docker-standin/systemctl.log" 2>/dev/null || true
}
