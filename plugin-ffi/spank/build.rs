//! Takes `plugin_version` from the installed `slurm/slurm_version.h`
//! (`SLURM_VERSION_NUMBER`). Without Slurm headers the build succeeds with a
//! cargo warning, and the plugin's `slurm_spank_init` refuses to run.
//! Installing the headers later makes the next build probe again.

#[path = "../build-support/slurm_headers.rs"]
mod slurm_headers;

fn main() {
    let headers = slurm_headers::probe();
    if headers.version.is_none() {
        println!(
            "cargo:warning=spank_interstice: no Slurm headers at {} (SLURM_VERSION_NUMBER not found); building a \
             plugin that refuses to run. Install libslurm-dev (or slurm-devel), or set SLURM_INCLUDE_DIR, then rebuild",
            headers.version_header().display()
        );
    }
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER={}",
        headers.version.unwrap_or(0)
    );
    println!(
        "cargo:rustc-env=INTERSTICE_SLURM_HEADERS={}",
        headers.include_dir.display()
    );
}
