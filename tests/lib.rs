//! Helpers shared by the end-to-end tests in `tests/tests/`: where the
//! repository and `../shared` are, and the workspace's binaries, built on demand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
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

/// Path of a workspace binary or library built with the dev profile
/// (`"interstice"`, `"intersticed"`, `"libinterstice_ffi.so"`…).
///
/// The first call in a test process runs `cargo build --workspace
/// --all-targets`: the same package and feature selection as `cargo test
/// --workspace`, so under the test command it only links what is missing
/// instead of rebuilding the dependency graph with other features.
pub fn artifact(artifact: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<bool>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap_or_else(|poison| poison.into_inner());
    if !*built {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(repo_root())
            .args(["build", "--quiet", "--workspace", "--all-targets"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build --workspace --all-targets failed");
        *built = true;
    }
    let path = target_dir().join("debug").join(artifact);
    assert!(path.exists(), "{} was not built by the workspace", path.display());
    path
}

/// The `interstice` CLI binary.
pub fn interstice_bin() -> PathBuf {
    artifact("interstice")
}

/// The KTH SP2 trace of `../shared/data` (100 processors, 28,476 jobs).
pub fn kth_trace() -> PathBuf {
    shared_dir().join("data/KTH-SP2-1996-2.1-cln.swf.gz")
}

/// A fresh, empty directory under `target/test-scratch/` for one test
/// (`suite` names the test file, `name` the test).
pub fn scratch_dir(suite: &str, name: &str) -> PathBuf {
    let dir = target_dir()
        .join("test-scratch")
        .join(format!("{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// The value of one Prometheus sample in a scrape (`name{labels}` exactly
/// as rendered), `None` if the scrape has no such sample.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|value| value.trim().parse().ok())
}

/// `DIR/summary.json` of a run, parsed (panics with the text if it is not JSON).
pub fn read_summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("summary.json is not JSON ({e}):\n{text}"))
}

/// Assert a command succeeded, showing its stdout and stderr otherwise.
pub fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "command failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Assert a command failed with an error message (not a panic) that
/// mentions every needle.
pub fn assert_failure_mentions(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "expected a failure, got success; stderr:\n{stderr}"
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "stderr does not mention {needle:?}:\n{stderr}"
        );
    }
    assert!(
        !stderr.contains("panicked"),
        "a panic is not an error message:\n{stderr}"
    );
}

/// The real Batsim 4.2.1 the conformance suite runs against:
/// `$INTERSTICE_BATSIM`, else `.batsim/bin/batsim` in the repository (git
/// ignored), which `.ci/run` builds from `../shared/batsim/real/`. Panics with
/// the command that builds it when it is missing.
pub fn real_batsim() -> PathBuf {
    let path = std::env::var_os("INTERSTICE_BATSIM")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".batsim/bin/batsim"));
    assert!(
        path.exists(),
        "the real Batsim is not at {}: build it with `../shared/batsim/real/build.sh .batsim` \
         in the repository (about a minute; `bash .ci/run` does it), or point INTERSTICE_BATSIM at one",
        path.display()
    );
    path
}

/// The NASA iPSC trace of `../shared/data` (128 processors, no requested times).
pub fn nasa_trace() -> PathBuf {
    shared_dir().join("data/NASA-iPSC-1993-3.1-cln.swf.gz")
}

/// Runs `command` with its stdout a pipe closed before it writes (`… |
/// head -0`), then with stdout on `/dev/full`, and checks what a command line
/// tool owes its user: a closed pipe ends it quietly with success; a full
/// device is an error naming stdout, with a non-zero exit; never a panic.
pub fn assert_output_errors_handled(mut command: impl FnMut() -> Command, what: &str) {
    let mut child = command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the command");
    drop(child.stdout.take());
    let closed = child.wait_with_output().expect("wait for the command");
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert!(
        closed.status.success() && !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{what} | (closed pipe): {}, stderr:\n{stderr}",
        closed.status
    );

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let output = command().stdout(full).output().expect("run the command");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(5),
        "{what} > /dev/full must fail with exit 5 (an output error), stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("stdout")
            && stderr.contains("No space left on device")
            && !stderr.contains("panicked"),
        "{what} > /dev/full: {stderr}"
    );
}

/// Split one CSV line, honouring double quotes.
pub fn csv_split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// (header, rows) of `sweep.csv`.
pub fn sweep_csv(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = text.lines();
    let header = csv_split(lines.next().expect("a header"));
    let rows: Vec<Vec<String>> = lines.map(csv_split).collect();
    for row in &rows {
        assert_eq!(row.len(), header.len(), "{row:?}");
    }
    (header, rows)
}

/// The index of column `name` in a CSV header.
pub fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|column| column == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// `sweep.csv` without its `wall_seconds` column (the one value that differs
/// between two sweeps of the same grid).
pub fn results_without_wall_time(dir: &Path) -> Vec<Vec<String>> {
    let (header, rows) = sweep_csv(dir);
    let wall = column(&header, "wall_seconds");
    rows.into_iter()
        .map(|mut row| {
            row.remove(wall);
            row
        })
        .collect()
}

/// How many times each simulation ran, from `cells/runs.log`.
pub fn runs_per_cell(dir: &Path) -> std::collections::BTreeMap<usize, usize> {
    let log = std::fs::read_to_string(dir.join("cells/runs.log")).unwrap_or_default();
    let mut runs = std::collections::BTreeMap::new();
    for line in log.lines() {
        let index: usize = line.split('\t').next().unwrap().parse().unwrap();
        *runs.entry(index).or_insert(0) += 1;
    }
    runs
}
