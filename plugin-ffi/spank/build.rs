//! Takes `plugin_version` from the installed `slurm/slurm_version.h`
//! (`SLURM_VERSION_NUMBER`). Without Slurm headers the build succeeds with a
//! cargo warning, and the plugin's `slurm_spank_init` refuses to run.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=SLURM_INCLUDE_DIR");
    let include_dir = std::env::var_os("SLURM_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/include".into());
    let version_header = include_dir.join("slurm").join("slurm_version.h");
    println!("cargo:rerun-if-changed={}", version_header.display());
    let version = std::fs::read_to_string(&version_header).ok().and_then(|text| {
        text.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            if words.next()? != "#define" || words.next()? != "SLURM_VERSION_NUMBER" {
                return None;
            }
            let value = words.next()?;
            match value.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => value.parse().ok(),
            }
        })
    });
    if version.is_none() {
        println!(
            "cargo:warning=spank_interstice: no Slurm headers at {} (SLURM_VERSION_NUMBER not found); building a \
             plugin that refuses to run. Install libslurm-dev (or slurm-devel), or set SLURM_INCLUDE_DIR, then rebuild",
            version_header.display()
        );
    }
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER={}",
        version.unwrap_or(0)
    );
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_HEADERS={}",
        include_dir.display()
    );
}
