//! Finds Slurm's headers, takes `plugin_version` from `SLURM_VERSION_NUMBER`
//! and compiles the C shim (`csrc/shim.c`) that reads and writes the few
//! `job_desc_msg_t` fields the plugin needs.
//!
//! Without headers the build still succeeds (so `cargo build --workspace` works
//! on a machine without Slurm), prints a cargo warning, and produces a plugin
//! whose `init()` refuses to load with a message saying how to fix it.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-env-changed=SLURM_INCLUDE_DIR");
    println!("cargo:rustc-check-cfg=cfg(interstice_slurm)");
    let include_dir = std::env::var_os("SLURM_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/include".into());
    let version_header = include_dir.join("slurm").join("slurm_version.h");
    println!("cargo:rerun-if-changed={}", version_header.display());
    let version = std::fs::read_to_string(&version_header)
        .ok()
        .and_then(|text| parse_version(&text));
    let Some(version) = version else {
        println!(
            "cargo:warning=job_submit_interstice: no Slurm headers at {} (SLURM_VERSION_NUMBER not found); \
             building a plugin that refuses to load. Install libslurm-dev (Debian/Ubuntu) or slurm-devel \
             (RHEL), or set SLURM_INCLUDE_DIR to the directory holding slurm/slurm.h, then rebuild",
            version_header.display()
        );
        println!("cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER=0");
        println!(
            "cargo:rustc-env=INTERSTICE_SLURM_HEADERS={}",
            include_dir.display()
        );
        return;
    };
    println!("cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER={version}");
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_HEADERS={}",
        include_dir.display()
    );
    println!("cargo:rustc-cfg=interstice_slurm");
    cc::Build::new()
        .file("csrc/shim.c")
        .include(&include_dir)
        .warnings(true)
        .compile("interstice_job_submit_shim");
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
