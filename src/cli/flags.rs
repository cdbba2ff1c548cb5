//! One meaning per flag name across subcommands: `--procs` is the machine's
//! processors everywhere, `--cloud-procs` a cloud job's width everywhere. A
//! flag whose name changed meaning is refused with the new name, never
//! reinterpreted: `swf inject --machine-procs` (now `--procs`), `swf inject
//! --procs H` for the cloud jobs' width (now `--cloud-procs`), `submit` and
//! `predict --procs` (now `--cloud-procs`/`-n`). And `--out DIR`: refused when
//! not empty, unless `--force` ([`check_out_dir`]).

use std::path::{Path, PathBuf};

/// A command line that is wrong in a way clap cannot see: a usage error
/// (exit status 2, as clap's own).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// What `swf inject` says when `--cloud-procs` is missing.
pub const INJECT_NEEDS_CLOUD_PROCS: &str =
    "swf inject needs --cloud-procs H, the processors of each cloud job \
     (it was --procs before; --procs is now the machine's processors, as in every other command)";

/// `--procs` of a command where it is the machine: a processor count.
pub fn parse_machine_procs(text: &str) -> Result<u32, String> {
    text.trim().parse::<u32>().map_err(|_| {
        format!(
            "{text:?} is not a processor count: --procs is the machine's processors; the cloud jobs' width \
             (a count, a list or weights) is --cloud-procs"
        )
    })
}

/// `swf inject --machine-procs`, renamed.
pub fn renamed_machine_procs(_: &str) -> Result<u32, String> {
    Err(
        "--machine-procs is now --procs (the machine's processors); the cloud jobs' width is --cloud-procs"
            .into(),
    )
}

/// `submit`/`predict --procs`, renamed.
pub fn renamed_job_procs(_: &str) -> Result<u32, String> {
    Err("the job's processors are --cloud-procs N (or -n N); --procs is the machine's processors".into())
}

/// An `--out DIR` that is not empty, without `--force`.
#[derive(Debug, thiserror::Error)]
#[error(
    "--out {}: the directory is not empty; pass --force to write into it (files of the same names are overwritten)",
    .0.display()
)]
pub struct OutNotEmpty(pub PathBuf);

/// Refuse a non-empty `--out` directory unless `force`, before any work. A
/// missing `dir` (created by the writer) or one that is not a directory (the
/// writer names the problem) passes.
pub fn check_out_dir(dir: &Path, force: bool) -> Result<(), OutNotEmpty> {
    let non_empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if non_empty && !force {
        return Err(OutNotEmpty(dir.to_path_buf()));
    }
    Ok(())
}

/// Check the `--out` directory `out` (if the command has one) with
/// [`check_out_dir`], then run `work` [`writing_into`] it.
pub fn with_out_dir<T>(
    out: Option<&Path>,
    force: bool,
    work: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match out {
        Some(dir) => {
            check_out_dir(dir, force)?;
            writing_into(dir, work)
        }
        None => work(),
    }
}

/// Run `work`, which writes into the `--out` directory `dir`; when it fails
/// and `dir` did not exist before, remove what it created, so that a failed
/// run leaves no empty or half-written directory behind. A directory that
/// existed is left as it is (its files may be a user's).
fn writing_into<T>(dir: &Path, work: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let existed = dir.symlink_metadata().is_ok();
    let result = work();
    if result.is_err() && !existed {
        // Best effort: the run's own error is the one to report.
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_flags_name_their_new_names() {
        assert!(renamed_machine_procs("100").unwrap_err().contains("now --procs"));
        assert!(renamed_job_procs("2")
            .unwrap_err()
            .contains("--cloud-procs N (or -n N)"));
        assert_eq!(parse_machine_procs("64"), Ok(64));
        assert!(parse_machine_procs("1,2,4")
            .unwrap_err()
            .contains("--cloud-procs"));
    }

    #[test]
    fn a_failed_run_removes_the_out_directory_it_created() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let failed: anyhow::Result<()> = writing_into(&out, || {
            std::fs::create_dir(&out)?;
            std::fs::write(out.join("jobs.csv"), "half")?;
            anyhow::bail!("simulation failed")
        });
        assert!(failed.is_err());
        assert!(!out.exists(), "a failed run left {}", out.display());
        std::fs::create_dir(&out).unwrap();
        let failed: anyhow::Result<()> = writing_into(&out, || anyhow::bail!("simulation failed"));
        assert!(failed.is_err());
        assert!(out.is_dir(), "a directory that existed is the user's");
        writing_into(&dir.path().join("ok"), || {
            Ok(std::fs::create_dir(dir.path().join("ok"))?)
        })
        .unwrap();
        assert!(
            dir.path().join("ok").is_dir(),
            "a successful run keeps its directory"
        );
    }

    #[test]
    fn a_non_empty_out_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        check_out_dir(&out, false).expect("a new directory");
        std::fs::create_dir(&out).unwrap();
        check_out_dir(&out, false).expect("an empty directory");
        std::fs::write(out.join("summary.json"), "{}").unwrap();
        let err = check_out_dir(&out, false).unwrap_err().to_string();
        assert!(err.contains("not empty") && err.contains("--force"), "{err}");
        check_out_dir(&out, true).expect("--force");
    }
}
