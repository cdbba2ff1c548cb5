//! Helpers shared by the end-to-end tests in `tests/tests/`: where the
//! repository and `../shared` are, and the workspace's binaries, built on demand.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `../shared` beside the repository (traces, Batsim conversations, Slurm facts).
pub fn shared_dir() -> PathBuf {
    repo_root().join("..").join("shared")
}

/// The target directory cargo builds into.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Path of a workspace binary or library built with the dev profile; builds it
/// (once per test process) with `cargo build -p PACKAGE` first. `artifact` is
/// the file name inside `target/debug/` (`"interstice"`, `"libinterstice_ffi.so"`).
pub fn artifact(package: &str, artifact: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, ()>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap_or_else(|poison| poison.into_inner());
    if !built.contains_key(package) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(repo_root())
            .args(["build", "--quiet", "-p", package])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p {package} failed");
        built.insert(package.to_string(), ());
    }
    let path = target_dir().join("debug").join(artifact);
    assert!(
        path.exists(),
        "{} was not built by package {package}",
        path.display()
    );
    path
}

/// The `interstice` CLI binary.
pub fn interstice_bin() -> PathBuf {
    artifact("interstice", "interstice")
}
