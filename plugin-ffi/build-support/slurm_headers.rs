//! Slurm header probe shared by the plugins' build scripts (included with
//! `#[path]`): where the headers are, the `SLURM_VERSION_NUMBER` they
//! declare, and the `cargo:rerun-if-*` lines that make cargo probe again
//! when either changes.

use std::path::{Path, PathBuf};

/// What the probe found.
pub struct SlurmHeaders {
    /// `$SLURM_INCLUDE_DIR`, else `/usr/include`: the directory holding `slurm/`.
    pub include_dir: PathBuf,
    /// `SLURM_VERSION_NUMBER` of `slurm/slurm_version.h`, if it is there.
    pub version: Option<u32>,
}

impl SlurmHeaders {
    /// `<include_dir>/slurm/slurm_version.h`.
    pub fn version_header(&self) -> PathBuf {
        self.include_dir.join("slurm").join("slurm_version.h")
    }
}

/// Probe the headers and tell cargo when to probe again.
///
/// Cargo reruns a build script when a `rerun-if-changed` path is missing or
/// newer than the last run. A header installed later by a package manager
/// keeps the packager's (older) modification time, so watching the header
/// alone misses its arrival; the `slurm/` directory gets a fresh time when
/// files are added to it, so it is watched too (as a directory: cargo
/// watches its entries as well).
pub fn probe() -> SlurmHeaders {
    println!("cargo:rerun-if-env-changed=SLURM_INCLUDE_DIR");
    let include_dir = std::env::var_os("SLURM_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/include".into());
    let slurm_dir = include_dir.join("slurm");
    let version_header = slurm_dir.join("slurm_version.h");
    println!("cargo:rerun-if-changed={}", slurm_dir.display());
    println!("cargo:rerun-if-changed={}", version_header.display());
    let version = read_version(&version_header);
    SlurmHeaders { include_dir, version }
}

fn read_version(header: &Path) -> Option<u32> {
    parse_version(&std::fs::read_to_string(header).ok()?)
}

/// `#define SLURM_VERSION_NUMBER 0x160508` → 0x160508.
fn parse_version(header: &str) -> Option<u32> {
    header.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        if words.next()? != "#define" || words.next()? != "SLURM_VERSION_NUMBER" {
            return None;
        }
        let value = words.next()?;
        match value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        }
    })
}
