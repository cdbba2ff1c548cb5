//! Finds Slurm's headers, takes `plugin_version` from `SLURM_VERSION_NUMBER`
//! and compiles the C shim (`csrc/shim.c`) that reads and writes the few
//! `job_desc_msg_t` fields the plugin needs.
//!
//! Without headers the build still succeeds (so `cargo build --workspace` works
//! on a machine without Slurm), prints a cargo warning, and produces a plugin
//! whose `init()` refuses to load with a message saying how to fix it.
//! Installing the headers later makes the next build probe again.

#[path = "../build-support/slurm_headers.rs"]
mod slurm_headers;

fn main() {
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rustc-check-cfg=cfg(interstice_slurm)");
    let headers = slurm_headers::probe();
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_HEADERS={}",
        headers.include_dir.display()
    );
    let Some(version) = headers.version else {
        println!(
            "cargo:warning=job_submit_interstice: no Slurm headers at {} (SLURM_VERSION_NUMBER not found); \
             building a plugin that refuses to load. Install libslurm-dev (Debian/Ubuntu) or slurm-devel \
             (RHEL), or set SLURM_INCLUDE_DIR to the directory holding slurm/slurm.h, then rebuild",
            headers.version_header().display()
        );
        println!("cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER=0");
        return;
    };
    println!("cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER={version}");
    println!("cargo:rustc-cfg=interstice_slurm");
    cc::Build::new()
        .file("csrc/shim.c")
        .include(&headers.include_dir)
        .warnings(true)
        .compile("interstice_job_submit_shim");
}
