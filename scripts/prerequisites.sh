#!/usr/bin/env bash
# Installs what the tests need, idempotently, on Debian/Ubuntu: the system
# packages (ZeroMQ, SQLite, promtool, munge and Slurm with its headers;
# unshare and hostname, which put each test slurmd in its own UTS namespace)
# and the real Batsim 4.2.1, built from ../shared/batsim/real/ into the
# git-ignored .batsim/ (about two minutes the first time); for the Debian
# package test (packaging/test-deb.sh): dpkg-dev, binutils, patchelf, lintian and
# cargo-deb (a pinned version, `cargo install --locked`, about three minutes
# the first time). Quick when all is there. The README's test command and
# .ci/run call it.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(pkg-config curl util-linux hostname libzmq3-dev libsqlite3-dev prometheus munge slurmctld slurmd slurm-client libslurm-dev gcc dpkg-dev binutils patchelf lintian)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
  elif sudo -n true 2>/dev/null; then
    SUDO=(sudo)
  else
    echo "prerequisites: missing packages: ${missing[*]}" >&2
    echo "install them as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "prerequisites: installing ${missing[*]}" >&2
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
command -v promtool >/dev/null || { echo "prerequisites: promtool missing after installing prometheus" >&2; exit 1; }

# cargo-deb builds the Debian package (packaging/build-deb.sh). Pinned: the
# package's metadata (systemd-units, sysusers) is read as this version does.
cargo_deb_version=3.8.0
if [ "$(cargo deb --version 2>/dev/null)" != "cargo-deb $cargo_deb_version" ]; then
  echo "prerequisites: installing cargo-deb $cargo_deb_version" >&2
  cargo install --locked --quiet cargo-deb --version "$cargo_deb_version" >&2
fi

if [ -n "${INTERSTICE_BATSIM:-}" ]; then
  [ -x "$INTERSTICE_BATSIM" ] || { echo "prerequisites: INTERSTICE_BATSIM=$INTERSTICE_BATSIM is not an executable" >&2; exit 1; }
else
  builder=../shared/batsim/real/build.sh
  [ -f "$builder" ] || { echo "prerequisites: $builder not found: clone the repository with ../shared beside it, or set INTERSTICE_BATSIM to a Batsim 4.2.1" >&2; exit 1; }
  bash "$builder" .batsim >/dev/null
fi
