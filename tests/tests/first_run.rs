//! A newcomer's first run: the README's `cargo run` commands pick a binary,
//! and the Slurm plugins notice Slurm's headers installed after a first
//! build.

use interstice_tests::{assert_success, repo_root, scratch_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(repo_root());
    cmd
}

/// The paths of README.md's `cargo install … --path P` commands.
fn readme_install_paths() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("read README.md");
    readme
        .lines()
        .filter(|line| line.trim_start().starts_with("cargo install"))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "--path")?;
            words.get(at + 1).map(|path| path.to_string())
        })
        .collect()
}

/// The binaries of the workspace package whose manifest is in `dir`.
fn binaries_of(metadata: &serde_json::Value, dir: &Path) -> Vec<String> {
    let manifest = dir.join("Cargo.toml");
    metadata["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .iter()
        .filter(|package| package["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .flat_map(|package| package["targets"].as_array().cloned().unwrap_or_default())
        .filter(|target| {
            target["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"))
        })
        .filter_map(|target| target["name"].as_str().map(str::to_string))
        .collect()
}

/// The README's install step installs both programs every page calls by
/// name (`interstice`, `intersticed`), and `cargo run --release --`, which
/// the README says stands for `interstice` in a clone, runs `interstice`.
#[test]
fn the_readme_installs_the_programs_the_docs_call() {
    let paths = readme_install_paths();
    assert!(!paths.is_empty(), "README.md has no cargo install step");
    let metadata = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .expect("run cargo metadata");
    assert_success(&metadata);
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).expect("JSON");
    let root = std::fs::canonicalize(repo_root()).unwrap();
    let installed: Vec<String> = paths
        .iter()
        .flat_map(|path| binaries_of(&metadata, &root.join(path)))
        .collect();
    for program in ["interstice", "intersticed"] {
        assert!(
            installed.iter().any(|bin| bin == program),
            "README.md's cargo install --path {paths:?} installs {installed:?}, not {program}"
        );
    }
    let out = cargo()
        .args(["run", "-q", "--", "--help"])
        .output()
        .expect("run cargo");
    assert_success(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: interstice"));
}

/// `INTERSTICE_SLURM_VERSION_NUMBER` as the plugin's build script last set it
/// in `target` (`None` if it has not run).
fn probed_version(target: &Path, package: &str) -> Option<u32> {
    let build = target.join("debug").join("build");
    let mut latest: Option<(std::time::SystemTime, u32)> = None;
    for entry in std::fs::read_dir(&build).ok()?.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with(&format!("{package}-"))
        {
            continue;
        }
        let output = entry.path().join("output");
        let (Ok(text), Ok(meta)) = (std::fs::read_to_string(&output), std::fs::metadata(&output)) else {
            continue;
        };
        let Some(version) = text
            .lines()
            .find_map(|l| l.strip_prefix("cargo:rustc-env=INTERSTICE_SLURM_VERSION_NUMBER="))
        else {
            continue;
        };
        let modified = meta.modified().expect("mtime");
        if latest.map_or(true, |(t, _)| modified > t) {
            latest = Some((modified, version.parse().expect("a number")));
        }
    }
    latest.map(|(_, v)| v)
}

fn build_plugins(include: &Path, target: &Path) -> Output {
    cargo()
        .args([
            "build",
            "-q",
            "-p",
            "spank_interstice",
            "-p",
            "job_submit_interstice",
        ])
        .env("SLURM_INCLUDE_DIR", include)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("run cargo build")
}

/// Slurm's headers installed after a first build (as `apt-get install
/// libslurm-dev` does: files keeping the packager's old modification times,
/// in a directory created now) are found by the next build; before, the
/// plugins stayed built without them and Slurm refused to load them
/// ("version 0.00.0").
#[test]
fn plugins_probe_slurm_headers_installed_after_a_first_build() {
    let system = PathBuf::from("/usr/include/slurm");
    assert!(
        system.join("slurm_version.h").exists(),
        "this test needs Slurm's headers: apt-get install libslurm-dev (bash scripts/prerequisites.sh installs them)"
    );
    let dir = scratch_dir("first_run", "headers");
    let include = dir.join("include");
    let target = dir.join("target");
    std::fs::create_dir_all(&include).expect("create include dir");

    assert_success(&build_plugins(&include, &target));
    for package in ["spank_interstice", "job_submit_interstice"] {
        assert_eq!(
            probed_version(&target, package),
            Some(0),
            "{package} without headers"
        );
    }

    // "Install" the headers: a new directory, files with their old times.
    let installed = include.join("slurm");
    std::fs::create_dir(&installed).expect("create slurm/");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("cp -p {}/*.h {}/", system.display(), installed.display()))
        .status()
        .expect("run cp");
    assert!(status.success(), "copy Slurm's headers");
    let header = std::fs::read_to_string(system.join("slurm_version.h")).expect("read slurm_version.h");
    let expected = header
        .lines()
        .find_map(|l| l.strip_prefix("#define SLURM_VERSION_NUMBER"))
        .map(|v| u32::from_str_radix(v.trim().trim_start_matches("0x"), 16).expect("hex version"))
        .expect("SLURM_VERSION_NUMBER");

    assert_success(&build_plugins(&include, &target));
    for package in ["spank_interstice", "job_submit_interstice"] {
        assert_eq!(
            probed_version(&target, package),
            Some(expected),
            "{package} after installing the headers"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
