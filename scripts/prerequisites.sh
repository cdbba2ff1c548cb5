#!/usr/bin/env bash
# Installs what the tests need, idempotently, on Debian/Ubuntu: the system
# packages (ZeroMQ, SQLite, promtool, munge and Slurm with its headers;
# unshare and hostname, which put each test slurmd in its own UTS namespace)
# and the real Batsim 4.2.1, built from ../shared/batsim/real/ into the
# git-ignored .batsim/ (about two minutes the first time). Quick when all is
# there. The README's test command and .ci/run call it.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(pkg-config curl util-linux hostname libzmq3-dev libsqlite3-dev prometheus munge slurmctld slurmd slurm-client libslurm-dev gcc)
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

if [ -n "${INTERSTICE_BATSIM:-}" ]; then
  [ -x "$INTERSTICE_BATSIM" ] || { echo "prerequisites: INTERSTICE_BATSIM=$INTERSTICE_BATSIM is not an executable" >&2; exit 1; }
else
  builder=../shared/batsim/real/build.sh
  [ -f "$builder" ] || { echo "prerequisites: $builder not found: clone the repository with ../shared beside it, or set INTERSTICE_BATSIM to a Batsim 4.2.1" >&2; exit 1; }
  bash "$builder" .batsim >/dev/null
fi
