//! One meaning per flag name across subcommands: `--procs` is the machine's
//! processors everywhere, `--cloud-procs` a cloud job's width everywhere. A
//! flag whose name changed meaning is refused with the new name, never
//! reinterpreted: `swf inject --machine-procs` (now `--procs`), `swf inject
//! --procs H` for the cloud jobs' width (now `--cloud-procs`), `submit` and
//! `predict --procs` (now `--cloud-procs`/`-n`).

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
}
