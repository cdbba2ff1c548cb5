//! A sweep's finished simulations on disk, so that a sweep resumes where it
//! stopped and a Slurm array's tasks can each run one cell.
//!
//! `DIR/cells/settings.json` says which sweep the directory holds (its
//! settings and grid, as in `sweep.json`, and the command line that made
//! it); each finished simulation `i` (baselines first, then the runs, in
//! the grid's order) is `DIR/cells/i.json`: its task and its [`Outcome`],
//! written to a temporary file and renamed, so a cell is whole or absent.
//! `DIR/cells/runs.log` gets one line per simulation carried out (not per
//! cell read back): how a test shows that every cell ran exactly once.

use anyhow::Context;
use interstice_batsim::sweep::{Outcome, Task};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The cells' directory inside a sweep's output directory.
pub const CELLS_DIR: &str = "cells";
/// What sweep the cells belong to.
const SETTINGS_JSON: &str = "settings.json";
/// One line per simulation carried out.
const RUNS_LOG: &str = "runs.log";

/// Which sweep a directory's cells belong to.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// The sweep's settings and grid (every value that changes a result).
    pub settings: serde_json::Value,
    /// The command line that made it (a Slurm array's tasks and `sweep
    /// collect` run it again)…
    pub argv: Vec<String>,
    /// …from this directory.
    pub cwd: PathBuf,
}

impl Settings {
    /// The settings of a sweep asked for by `argv` in the current directory.
    pub fn new(settings: serde_json::Value, argv: Vec<String>) -> anyhow::Result<Settings> {
        let cwd = std::env::current_dir().context("cannot tell the current directory")?;
        Ok(Settings { settings, argv, cwd })
    }
}

/// One finished simulation.
#[derive(Serialize, Deserialize)]
struct Cell {
    /// The task, as `Task`'s display: a cell read back must be of the same task.
    task: String,
    outcome: Outcome,
}

/// The cells of one sweep.
pub struct Cells {
    dir: PathBuf,
}

/// A directory holding the cells of a sweep with other settings.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} holds the cells of another sweep ({difference}): resuming would mix two sweeps; give another \
     --out, or --force to discard them and start over (paths count as typed: run from the directory \
     the sweep was started in)",
    dir.display()
)]
pub struct OtherSweep {
    pub dir: PathBuf,
    pub difference: String,
}

/// Refuse to mix the cells of `stored` with a sweep of `settings`.
pub fn check_same(out: &Path, stored: &Settings, settings: &Settings) -> Result<(), OtherSweep> {
    if stored.settings == settings.settings {
        return Ok(());
    }
    Err(OtherSweep {
        dir: out.to_path_buf(),
        difference: difference(&stored.settings, &settings.settings),
    })
}

/// The first key whose value differs between two settings objects.
fn difference(old: &serde_json::Value, new: &serde_json::Value) -> String {
    if let (Some(old), Some(new)) = (old.as_object(), new.as_object()) {
        for (key, value) in new {
            if old.get(key) != Some(value) {
                return format!(
                    "{key} was {} and is now {value}",
                    old.get(key).unwrap_or(&serde_json::Value::Null)
                );
            }
        }
    }
    "the settings differ".to_string()
}

/// Write `path` whole or not at all: a temporary file of this process, renamed.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&temporary, bytes).with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| format!("cannot write {}", path.display()))
}

impl Cells {
    /// The cells of `out` for a sweep of `settings`: those of an earlier
    /// sweep of the same settings are kept (resumed), other settings are an
    /// error; `force` discards any cells and starts over. A non-empty `out`
    /// that holds no cells needs `force`, as any `--out`.
    pub fn open(out: &Path, settings: &Settings, force: bool) -> anyhow::Result<Cells> {
        let dir = out.join(CELLS_DIR);
        let settings_path = dir.join(SETTINGS_JSON);
        match interstice_swf::input_file::read_text(
            &settings_path,
            interstice_swf::input_file::MAX_TEXT_BYTES,
        ) {
            Ok(text) => {
                let old: Settings = serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a sweep's settings", settings_path.display()))?;
                if !force {
                    // Resume, keeping the command line that started the sweep.
                    check_same(out, &old, settings)?;
                    return Ok(Cells { dir });
                }
                // --force starts over.
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                crate::cli::flags::check_out_dir(out, force)?;
            }
            Err(err) => return Err(err).with_context(|| format!("cannot read {}", settings_path.display())),
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut text = serde_json::to_string_pretty(settings).context("cannot serialize the settings")?;
        text.push('\n');
        write_atomically(&settings_path, text.as_bytes())?;
        Ok(Cells { dir })
    }

    /// The cells of an existing sweep directory, and its settings (`sweep collect`).
    pub fn existing(out: &Path) -> anyhow::Result<(Cells, Settings)> {
        let dir = out.join(CELLS_DIR);
        let path = dir.join(SETTINGS_JSON);
        let text = interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES)
            .with_context(|| {
            crate::cli::exit::Unreadable(format!(
                "cannot read {} (is {} a sweep's --out directory?)",
                path.display(),
                out.display()
            ))
        })?;
        let settings = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a sweep's settings", path.display()))?;
        Ok((Cells { dir }, settings))
    }

    fn path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("{index:05}.json"))
    }

    /// The stored outcome of simulation `index`, if it finished (and is of `task`).
    pub fn load(&self, index: usize, task: &Task) -> anyhow::Result<Option<Outcome>> {
        let path = self.path(index);
        let text =
            match interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES) {
                Ok(text) => text,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
            };
        let cell: Cell = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a sweep cell: remove it to run that cell again",
                path.display()
            )
        })?;
        if cell.task != task.to_string() {
            anyhow::bail!(
                "{} is the cell of {:?}, not of {:?}: remove it to run that cell again",
                path.display(),
                cell.task,
                task.to_string()
            );
        }
        Ok(Some(cell.outcome))
    }

    /// Store simulation `index`'s outcome, and log that it ran.
    pub fn save(&self, index: usize, task: &Task, outcome: &Outcome) -> anyhow::Result<()> {
        let cell = Cell {
            task: task.to_string(),
            outcome: outcome.clone(),
        };
        let text = serde_json::to_string(&cell).context("cannot serialize a sweep cell")?;
        write_atomically(&self.path(index), text.as_bytes())?;
        let log = self.dir.join(RUNS_LOG);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .with_context(|| format!("cannot open {}", log.display()))?;
        // One short write per line: appends from concurrent cells do not interleave.
        file.write_all(format!("{index}\t{task}\n").as_bytes())
            .with_context(|| format!("cannot write {}", log.display()))
    }
}
