#!/usr/bin/env bash
# Builds the Debian package target/debian/interstice_<version>_amd64.deb (in
# $CARGO_TARGET_DIR/debian when that is set): the release binaries and
# plugins, the man pages and shell completions rendered from the clap
# definitions (`interstice __generate`), then `cargo deb --no-build`, which
# takes the file list from [package.metadata.deb] in Cargo.toml.
# packaging/deb/README.md says what is installed where.
#
# Needs cargo-deb, patchelf, binutils and dpkg-dev (scripts/prerequisites.sh
# installs them) and the Slurm
# headers (libslurm-dev) for plugins Slurm will load. Extra arguments go to
# `cargo build` (e.g. -j 1). Prints the .deb's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in cargo-deb patchelf strip gzip dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || {
        echo "build-deb: $tool is missing: run scripts/prerequisites.sh" >&2
        exit 1
    }
done
# Cargo.toml installs libinterstice_ffi.so in amd64's multiarch directory.
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || {
    echo "build-deb: the package's library path is amd64's (usr/lib/x86_64-linux-gnu in Cargo.toml), this machine is $arch" >&2
    exit 1
}

target=${CARGO_TARGET_DIR:-target}
cargo build --release --locked "$@" \
    -p interstice -p interstice-daemon -p interstice-ffi -p job_submit_interstice -p spank_interstice >&2
generated="$target/release/generated"
rm -rf "$generated"
"$target/release/interstice" __generate "$generated" >&2
# cargo-deb compresses only the man pages it does not count as built output.
gzip -9n "$generated"/man/*
# The C library gets a SONAME (the Rust build makes it without one), so
# programs linked with -linterstice_ffi need libinterstice_ffi.so.0.
lib="$generated/libinterstice_ffi.so.0"
strip --strip-unneeded -o "$lib" "$target/release/libinterstice_ffi.so"
patchelf --set-soname libinterstice_ffi.so.0 "$lib"
deb=$(cargo deb --no-build --strip --locked -p interstice | tail -n 1)

# cargo-deb writes no shlibs control file: add it, so that packages linking
# libinterstice_ffi.so.0 get their dependency on this one from
# dpkg-shlibdeps. Unpacked and packed again with dpkg-deb (root-owned files,
# the conffiles and maintainer scripts kept).
version=$(dpkg-deb -f "$deb" Version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/pkg"
echo "libinterstice_ffi 0 interstice (>= ${version%-*})" >"$work/pkg/DEBIAN/shlibs"
chmod 644 "$work/pkg/DEBIAN/shlibs"
dpkg-deb --root-owner-group -Zxz -b "$work/pkg" "$deb" >/dev/null
echo "$deb"
