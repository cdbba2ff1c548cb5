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

/// Write `out/slurm/sweep.sbatch` and `out/slurm/cells.tsv` for `tasks`.
pub fn write_array(out: &Path, settings: &Settings, tasks: &[Task], quiet: bool) -> anyhow::Result<()> {
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
        "# cell has finished does nothing, so resubmitting the array only runs the rest."
    );
    let _ = writeln!(script, "#SBATCH --job-name=interstice-sweep");
    let _ = writeln!(script, "#SBATCH --array=0-{}", tasks.len().saturating_sub(1));
    let _ = writeln!(script, "#SBATCH --ntasks=1");
    let _ = writeln!(script, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(script, "#SBATCH --chdir={}", settings.cwd.display());
    let _ = writeln!(
        script,
        "#SBATCH --output={}",
        out_dir.join(SLURM_DIR).join("cell-%a.out").display()
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
            "wrote {} ({} array tasks) and {}: submit it with sbatch, then run \
             `interstice sweep collect {}`",
            script_path.display(),
            tasks.len(),
            cells_path.display(),
            out.display()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
