//! The documentation's commands run as written. Every shell block of the
//! Markdown pages (README.md, docs/, the crates' and packaging's READMEs)
//! carries a marker on the line above its opening fence:
//!
//! * `<!-- doc-test: run -->`: run verbatim with `bash -e`, from the root of
//!   a copy of the working tree with `../shared` beside it, `interstice` and
//!   `intersticed` on `PATH` (this build's release programs: what the
//!   README's install step puts there) and a `HOME` of its own; each page's
//!   blocks run in order in one copy, so a block may read what an earlier one
//!   wrote. `cargo run --release [--bin intersticed] --` is read as the
//!   program it runs.
//! * `<!-- doc-test: background -->`: a server later blocks of the page talk
//!   to: started in the background and stopped at the end of the page; the
//!   `run` blocks after it are retried for up to a minute until they succeed.
//! * `<!-- doc-test: skip REASON -->`: not run, REASON says why (root, a
//!   Slurm cluster, placeholders, a long run whose short variant is marked
//!   `run`).
//! * `<!-- test-command -->`: the test command `.ci/run` reads (not run here).

use interstice_tests::{assert_success, repo_root, scratch_dir, shared_dir};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How a block is treated.
#[derive(Clone, Debug, PartialEq)]
enum Marker {
    Run,
    Background,
    Skip(String),
    TestCommand,
}

/// One shell block of a page.
#[derive(Clone, Debug)]
struct Block {
    /// The page, relative to the repository.
    page: String,
    /// The line of its opening fence (1-based).
    line: usize,
    /// Its marker, or what stands above it instead.
    marker: Result<Marker, String>,
    /// Its text, dedented to its fence.
    text: String,
}

/// The languages of the blocks that are shell commands.
const SHELL: [&str; 4] = ["sh", "bash", "shell", "console"];

/// Every Markdown page of the repository (not in `target/`, `.git/` or `.batsim/`).
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !["target", ".git", ".batsim"].contains(&name.as_str()) {
                    walk(&path, found);
                }
            } else if name.ends_with(".md") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&repo_root(), &mut found);
    found.sort();
    found
}

/// Read the marker comment `line` (trimmed).
fn marker(line: &str) -> Result<Marker, String> {
    if line == "<!-- test-command -->" {
        return Ok(Marker::TestCommand);
    }
    let Some(body) = line
        .strip_prefix("<!-- doc-test:")
        .and_then(|rest| rest.strip_suffix("-->"))
    else {
        return Err(format!("no doc-test marker above the block (found {line:?})"));
    };
    match body.trim() {
        "run" => Ok(Marker::Run),
        "background" => Ok(Marker::Background),
        other => match other.strip_prefix("skip") {
            Some(reason) if !reason.trim().is_empty() => Ok(Marker::Skip(reason.trim().to_string())),
            Some(_) => Err("`skip` needs a reason".to_string()),
            None => Err(format!("unknown doc-test marker {other:?}")),
        },
    }
}

/// The shell blocks of `page`.
fn blocks(page: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page
        .strip_prefix(repo_root())
        .unwrap_or(page)
        .display()
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let Some(language) = trimmed.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let indent = lines[i].len() - trimmed.len();
        let close = (i + 1..lines.len())
            .find(|&j| lines[j].trim_start().starts_with("```"))
            .unwrap_or(lines.len());
        if SHELL.contains(&language.trim()) {
            let above = lines[..i].iter().rev().find(|l| !l.trim().is_empty());
            let body: Vec<&str> = lines[i + 1..close]
                .iter()
                .map(|l| {
                    l.get(indent..)
                        .filter(|_| l.len() >= indent)
                        .unwrap_or(l.trim_start())
                })
                .collect();
            found.push(Block {
                page: name.clone(),
                line: i + 1,
                marker: marker(above.map_or("", |l| l.trim())),
                text: body.join("\n"),
            });
        }
        i = close + 1;
    }
    found
}

#[test]
fn every_shell_block_says_whether_it_runs() {
    let all: Vec<Block> = pages().iter().flat_map(|page| blocks(page)).collect();
    assert!(all.len() > 20, "only {} shell blocks found", all.len());
    let bad: Vec<String> = all
        .iter()
        .filter_map(|b| {
            b.marker
                .as_ref()
                .err()
                .map(|e| format!("{}:{}: {e}", b.page, b.line))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "blocks without a valid marker:\n{}",
        bad.join("\n")
    );
    let run = all.iter().filter(|b| b.marker == Ok(Marker::Run)).count();
    assert!(run >= 10, "only {run} blocks run");
}

/// The release programs the README's install step installs, built once
/// with the package selection of `packaging/build-deb.sh` (so either build
/// finds the other's done).
fn release_programs() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(repo_root())
        .args(["build", "--quiet", "--release", "--locked"])
        .args([
            "-p",
            "interstice",
            "-p",
            "interstice-daemon",
            "-p",
            "interstice-ffi",
        ])
        .args(["-p", "job_submit_interstice", "-p", "spank_interstice"])
        .status()
        .expect("run cargo build --release");
    assert!(status.success(), "cargo build --release failed");
    interstice_tests::target_dir().join("release")
}

/// A copy of the working tree (tracked and untracked files git does not
/// ignore) in `dir/repo`, `../shared` beside it, the programs in `dir/bin`
/// and a home of its own.
fn fresh_clone(dir: &Path, programs: &Path) -> PathBuf {
    let files = Command::new("git")
        .current_dir(repo_root())
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .output()
        .expect("run git ls-files");
    assert_success(&files);
    let repo = dir.join("repo");
    for file in files.stdout.split(|&b| b == 0).filter(|f| !f.is_empty()) {
        let file = String::from_utf8_lossy(file).to_string();
        let from = repo_root().join(&file);
        if !from.is_file() {
            continue;
        }
        let to = repo.join(&file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {file}: {e}"));
    }
    let symlink = |from: &Path, to: &Path| std::os::unix::fs::symlink(from, to).unwrap();
    symlink(
        &std::fs::canonicalize(shared_dir()).expect("../shared"),
        &dir.join("shared"),
    );
    let batsim = repo_root().join(".batsim");
    if batsim.is_dir() {
        symlink(&batsim, &repo.join(".batsim"));
    }
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    for program in ["interstice", "intersticed"] {
        symlink(&programs.join(program), &dir.join("bin").join(program));
    }
    repo
}

/// The longest one block may run.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(300);
/// How long the blocks after a background server are retried.
const RETRY_FOR: Duration = Duration::from_secs(60);

/// `bash -e` running `text` in `repo`, in a process group of its own.
fn shell(text: &str, repo: &Path, dir: &Path) -> Command {
    let text = text
        .replace("cargo run --release --bin intersticed --", "intersticed")
        .replace("cargo run --release --", "interstice");
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-e", "-c", &text])
        .current_dir(repo)
        .env("PATH", path)
        .env("HOME", dir.join("home"));
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

/// Kill `child`'s process group (what a block left running) and reap it.
fn kill_group(child: &mut Child, signal: &str) {
    let _ = Command::new("kill")
        .args([signal, "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
}

/// Run one block to its end (or its timeout): `Err` with what it said when it failed.
fn run_block(block: &Block, repo: &Path, dir: &Path) -> Result<Duration, String> {
    let started = Instant::now();
    let log = dir.join("block.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut child = shell(&block.text, repo, dir)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .expect("run bash");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > BLOCK_TIMEOUT {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    kill_group(&mut child, "-KILL");
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    let tail: String = said
        .lines()
        .rev()
        .take(30)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    match status {
        Some(status) if status.success() => Ok(started.elapsed()),
        Some(status) => Err(format!("{status}\n{tail}")),
        None => Err(format!("still running after {BLOCK_TIMEOUT:?}\n{tail}")),
    }
}

/// Run the page's blocks in order in a fresh copy: the failures, and each
/// block's time on stderr.
fn run_page(page: &Path, programs: &Path) -> Vec<String> {
    let blocks: Vec<Block> = blocks(page)
        .into_iter()
        .filter(|b| matches!(b.marker, Ok(Marker::Run | Marker::Background)))
        .collect();
    if blocks.is_empty() {
        return Vec::new();
    }
    let slug = blocks[0].page.replace(['/', '.'], "-");
    let dir = scratch_dir("doc_blocks", &slug);
    let repo = fresh_clone(&dir, programs);
    let mut servers: Vec<Child> = Vec::new();
    let mut failures = Vec::new();
    for block in &blocks {
        let at = format!("{}:{}", block.page, block.line);
        if block.marker == Ok(Marker::Background) {
            let log = std::fs::File::create(dir.join(format!("server-{}.log", block.line))).unwrap();
            let server = shell(&block.text, &repo, &dir)
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("run bash");
            servers.push(server);
            continue;
        }
        let retry_until = Instant::now()
            + if servers.is_empty() {
                Duration::ZERO
            } else {
                RETRY_FOR
            };
        let result = loop {
            let result = run_block(block, &repo, &dir);
            if result.is_ok() || Instant::now() > retry_until {
                break result;
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        match result {
            Ok(took) => eprintln!("{at}: ran in {:.1} s", took.as_secs_f64()),
            Err(why) => failures.push(format!("{at}: {why}")),
        }
    }
    for mut server in servers {
        kill_group(&mut server, "-TERM");
    }
    // Under a root daemon a job's working directory is its own tmpfs, and
    // a job still running keeps it past its daemon.
    interstice_daemon::exec::unmount_all_under(&dir);
    failures
}

#[test]
fn documented_commands_run_verbatim() {
    let programs = release_programs();
    let failures: Vec<String> = pages()
        .iter()
        .flat_map(|page| run_page(page, &programs))
        .collect();
    assert!(
        failures.is_empty(),
        "documented commands that fail:\n\n{}",
        failures.join("\n\n")
    );
}
