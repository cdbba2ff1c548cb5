//! Build script: the source revision for `interstice_build_info{revision}`.
//!
//! `INTERSTICE_REVISION` at build time wins (a package built from a tarball
//! sets it); else `git rev-parse --short=12 HEAD`; else `unknown` (no git, or
//! not a checkout). Cargo re-runs this when HEAD or the branch it names moves.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=INTERSTICE_REVISION");
    let from_env = std::env::var("INTERSTICE_REVISION")
        .ok()
        .filter(|value| !value.trim().is_empty());
    let revision = from_env
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    // Re-run when HEAD moves: HEAD itself (a checkout), the branch it names
    // (a commit) and packed-refs. Only existing files: a missing one would
    // make Cargo re-run the script at every build.
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &reference]));
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    for path in watched.into_iter().flatten() {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=INTERSTICE_REVISION={revision}");
}
