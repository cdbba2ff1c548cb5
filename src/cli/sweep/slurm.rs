//! `interstice sweep … --slurm-array`: the grid as a Slurm job array, for
//! when one machine is not enough. Task `i` of the array runs the sweep's own
//! command line with `--cell i` (one simulation into `DIR/cells/`);
//! `interstice sweep collect DIR` then writes the same tables as a sweep run
//! in one go.

use super::cells::Settings;
use anyhow::Context;
use interstice_batsim::sweep::Task;
use std::fmt::Write as _;
use std::path::Path;

/// The array's directory inside the sweep's output directory.
pub const SLURM_DIR: &str = "slurm";
/// The job script.
pub const SBATCH: &str = "sweep.sbatch";
/// What each array task runs: `index<TAB>task`.
pub const CELLS_TSV: &str = "cells.tsv";

/// `text` as one word for bash.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The command line of every array task: the sweep's own, by this binary's
/// absolute path, without the options that made the array or discard cells.
fn cell_command(settings: &Settings) -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot tell where this interstice binary is")?;
    let mut words = vec![shell_word(&exe.display().to_string())];
    let mut skip_value = false;
    for arg in settings.argv.iter().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        match arg.as_str() {
            "--slurm-array" | "--force" | "--quiet" => continue,
            "--jobs" => {
                skip_value = true;
                continue;
            }
            arg if arg.starts_with("--jobs=") => continue,
            arg => words.push(shell_word(arg)),
        }
    }
    words.push("--quiet --jobs 1 --cell \"$SLURM_ARRAY_TASK_ID\"".to_string());
    Ok(words.join(" "))
}

/// Slurm's default `MaxArraySize`: array indices must stay below it.
const DEFAULT_MAX_ARRAY_SIZE: usize = 1001;

/// `0,3,5-9`: Slurm's `--array` list of `indices` (sorted).
fn array_list(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut at = 0;
    while at < indices.len() {
        let first = indices[at];
        let mut last = first;
        while at + 1 < indices.len() && indices[at + 1] == last + 1 {
            at += 1;
            last = indices[at];
        }
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
        at += 1;
    }
    parts.join(",")
}

/// A path for an `#SBATCH` line: no whitespace (the line would break), `%`
/// doubled (Slurm expands `%x`, `%j`… in file names).
fn sbatch_path(path: &Path, what: &str) -> anyhow::Result<String> {
    let text = path.display().to_string();
    if text.chars().any(char::is_whitespace) {
        anyhow::bail!(
            "{what} {text:?} has whitespace, which an #SBATCH line cannot carry: run the sweep from, \
             and into, directories without spaces"
        );
    }
    Ok(text.replace('%', "%%"))
}

/// Write `out/slurm/sweep.sbatch`, an array of the cells in `missing` (the
/// others have finished), and `out/slurm/cells.tsv` for `tasks`.
pub fn write_array(
    out: &Path,
    settings: &Settings,
    tasks: &[Task],
    missing: &[usize],
    quiet: bool,
) -> anyhow::Result<()> {
    if missing.is_empty() {
        anyhow::bail!(
            "every cell of {} has finished: run `interstice sweep collect {}`",
            out.display(),
            out.display()
        );
    }
    let dir = out.join(SLURM_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let out_dir = settings.cwd.join(out);
    let mut script = String::new();
    let _ = writeln!(script, "#!/bin/bash");
    let _ = writeln!(
        script,
        "# `interstice sweep` as a Slurm job array: task i runs simulation i (see {CELLS_TSV})."
    );
    let _ = writeln!(
        script,
        "# Submit with `sbatch [--partition=… --time=…] {}`; when every task has ended,",
        shell_word(&dir.join(SBATCH).display().to_string())
    );
    let _ = writeln!(
        script,
        "# `interstice sweep collect {}` writes sweep.csv and sweep.json. A task whose",
        shell_word(&out.display().to_string())
    );
    let _ = writeln!(
        script,
        "# cell has finished does nothing; `--slurm-array` again writes an array of the cells left."
    );
    let _ = writeln!(script, "#SBATCH --job-name=interstice-sweep");
    let _ = writeln!(script, "#SBATCH --array={}", array_list(missing));
    let _ = writeln!(script, "#SBATCH --ntasks=1");
    let _ = writeln!(script, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(
        script,
        "#SBATCH --chdir={}",
        sbatch_path(&settings.cwd, "the current directory")?
    );
    let _ = writeln!(
        script,
        "#SBATCH --output={}/cell-%a.out",
        sbatch_path(&out_dir.join(SLURM_DIR), "--out")?
    );
    let _ = writeln!(script, "exec {}", cell_command(settings)?);
    let script_path = dir.join(SBATCH);
    std::fs::write(&script_path, script)
        .with_context(|| format!("cannot write {}", script_path.display()))?;
    let mut cells = String::from("cell\ttask\n");
    for (index, task) in tasks.iter().enumerate() {
        let _ = writeln!(cells, "{index}\t{task}");
    }
    let cells_path = dir.join(CELLS_TSV);
    std::fs::write(&cells_path, cells).with_context(|| format!("cannot write {}", cells_path.display()))?;
    if !quiet {
        outln!(
            "wrote {} ({} array tasks of {} cells) and {}: submit it with sbatch, then run \
             `interstice sweep collect {}`",
            script_path.display(),
            missing.len(),
            tasks.len(),
            cells_path.display(),
            shell_word(&out.display().to_string())
        )?;
        if missing.last().is_some_and(|&last| last >= DEFAULT_MAX_ARRAY_SIZE) {
            outln!(
                "note: array indices reach {}; Slurm's default MaxArraySize ({DEFAULT_MAX_ARRAY_SIZE}) \
                 refuses indices from {DEFAULT_MAX_ARRAY_SIZE} on (see `scontrol show config | grep \
                 MaxArraySize`)",
                missing.last().copied().unwrap_or(0)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_lists_compress_runs_of_indices() {
        assert_eq!(array_list(&[0, 3, 5, 6, 7, 8, 9, 12]), "0,3,5-9,12");
        assert_eq!(array_list(&[4]), "4");
    }

    #[test]
    fn sbatch_paths_double_percent_and_refuse_whitespace() {
        assert_eq!(sbatch_path(Path::new("/a/b%x"), "x").unwrap(), "/a/b%%x");
        assert!(sbatch_path(Path::new("/a b"), "--out")
            .unwrap_err()
            .to_string()
            .contains("whitespace"));
    }

    #[test]
    fn words_with_shell_characters_are_quoted() {
        assert_eq!(shell_word("--slack"), "--slack");
        assert_eq!(shell_word("1;2;4"), "'1;2;4'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn the_array_task_runs_the_sweeps_command_line_with_its_cell() {
        let settings = Settings {
            settings: serde_json::Value::Null,
            argv: [
                "interstice",
                "sweep",
                "w.swf",
                "--cloud-procs",
                "1;2",
                "--slurm-array",
                "--jobs",
                "2",
                "--out",
                "o",
            ]
            .map(String::from)
            .to_vec(),
            cwd: "/tmp".into(),
        };
        let command = cell_command(&settings).unwrap();
        assert!(
            command.ends_with(
                " sweep w.swf --cloud-procs '1;2' --out o --quiet --jobs 1 --cell \"$SLURM_ARRAY_TASK_ID\""
            ),
            "{command}"
        );
    }
}
