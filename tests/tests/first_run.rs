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

/// Every `cargo run` command of README.md's shell blocks (continuation lines
/// joined).
fn readme_cargo_runs() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("read README.md");
    let mut commands = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_shell = line == "```sh" || line == "```bash";
            continue;
        }
        if !in_shell {
            continue;
        }
        pending.push_str(line.trim_end_matches('\\').trim());
        pending.push(' ');
        if line.ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending).trim().to_string();
        if command.starts_with("cargo run") {
            commands.push(command);
        }
    }
    commands
}

/// The README's `cargo run` commands run the binary they mean: each one, with
/// its program arguments replaced by `--help` (the dev profile stands in for
/// `--release`: which binary cargo picks does not depend on the profile, and
/// the test build has already built it).
#[test]
fn readme_cargo_run_commands_pick_their_binary() {
    let commands = readme_cargo_runs();
    assert!(
        commands.len() >= 5,
        "README.md has too few cargo run commands: {commands:?}"
    );
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        let separator = words.iter().position(|w| *w == "--").unwrap_or(words.len());
        let cargo_args: Vec<&str> = words[1..separator]
            .iter()
            .copied()
            .filter(|w| *w != "--release")
            .collect();
        let wanted = cargo_args
            .iter()
            .position(|w| *w == "--bin")
            .map_or("interstice", |i| cargo_args[i + 1]);
        let out = cargo()
            .args(&cargo_args)
            .args(["-q", "--", "--help"])
            .output()
            .expect("run cargo");
        assert!(
            out.status.success(),
            "`{command}` does not run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains(&format!("Usage: {wanted}")),
            "`{command}` ran another program than {wanted}:\n{help}"
        );
    }
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
