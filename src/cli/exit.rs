//! The exit status of `interstice`: one per class of error, decided once, at
//! the top of `main` ([`classify`]), from the typed errors in the cause chain.
//! The table is in README.md ("Exit status") and `interstice --help`.

use super::flags::{OutNotEmpty, Usage};
use interstice_api::client::ClientError;
use std::process::ExitCode;

/// The classes of failure and their exit statuses (0 is success).
///
/// Alike in shape to the C ABI's `interstice_result` (plugin-ffi/src/capi.rs),
/// but not the same table: these are a command's exit statuses, grouped for a
/// shell script; those are a library call's result codes, one per failure a C
/// caller handles differently (a NULL argument, a timeout…).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 1: anything not classified below (a bug, an unexpected state).
    Internal = 1,
    /// 2: the command line is wrong (clap's own errors exit 2 too), including
    /// a non-empty `--out` without `--force`.
    Usage = 2,
    /// 3: the daemon refused the request (`submit` rejected with a counter-offer, a 4xx answer).
    Refused = 3,
    /// 4: an input file is bad (a workload, maintenance or data-center file: file, line, field).
    Input = 4,
    /// 5: an output cannot be written (stdout, `-o FILE`, `--out DIR`).
    Output = 5,
    /// 6: the daemon cannot be reached or is unavailable (no socket, refused, timeout, 503).
    Unavailable = 6,
    /// 7: the work is not finished yet (`sweep collect` before every cell ran): an expected
    /// state, not an error of the command; run it again later.
    NotFinished = 7,
    /// 8: `submit --wait`: the job ran and failed (its own exit code is printed, and is in `--json`).
    JobFailed = 8,
    /// 9: `submit --wait`: the job ended without completing (killed at its walltime, evicted
    /// with no resubmission left, cancelled, lost).
    JobEnded = 9,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// `submit` rejected by the daemon's admission (its JSON answer is printed first).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// An input file that cannot be opened or read (missing, a directory, no
/// permission): the context of the I/O error, so that it exits 4 as a bad
/// input file does, whichever command reads it.
/// The text says what could not be read and, where it helps, what was expected.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(pub String);

/// Work that has not finished yet, e.g. a sweep's cells still running.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotFinished(pub String);

/// `submit --wait`: the job ended, but did not complete.
#[derive(Debug, thiserror::Error)]
#[error("job {id} ended {state}{}", .exit_code.map_or(String::new(), |code| format!(" with exit code {code}")))]
pub struct JobEnded {
    /// The job.
    pub id: u64,
    /// Its final state (`failed`, `timeout`, `evicted`, `cancelled`, `lost`).
    pub state: String,
    /// Its own exit code, when it ran and exited.
    pub exit_code: Option<i32>,
}

/// An output that cannot be written: the context of the I/O error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WriteFailed(pub String);

impl WriteFailed {
    /// Writing stdout failed.
    pub fn stdout() -> Self {
        WriteFailed("cannot write to stdout".to_string())
    }
}

/// The class of `err`: the outermost cause that has one.
pub fn classify(err: &anyhow::Error) -> Exit {
    if err.downcast_ref::<WriteFailed>().is_some() {
        return Exit::Output;
    }
    if err.downcast_ref::<Unreadable>().is_some() {
        return Exit::Input;
    }
    if let Some(job) = err.downcast_ref::<JobEnded>() {
        return match job.exit_code {
            Some(code) if code != 0 => Exit::JobFailed,
            _ => Exit::JobEnded,
        };
    }
    for cause in err.chain() {
        if cause.is::<Usage>()
            || cause.is::<OutNotEmpty>()
            || cause.is::<super::sweep::OtherSweep>()
            || matches!(
                cause.downcast_ref::<interstice_batsim::protocol::options::OptionsError>(),
                Some(interstice_batsim::protocol::options::OptionsError::Conflict(_))
            )
        {
            return Exit::Usage;
        }
        if cause.is::<Refused>() {
            return Exit::Refused;
        }
        if cause.is::<NotFinished>() {
            return Exit::NotFinished;
        }
        if let Some(client) = cause.downcast_ref::<ClientError>() {
            return match client {
                ClientError::Connect { .. } | ClientError::Timeout(_) => Exit::Unavailable,
                ClientError::Http { status: 503, .. } => Exit::Unavailable,
                ClientError::Http { status, .. } if (400..500).contains(status) => Exit::Refused,
                _ => Exit::Internal,
            };
        }
        if cause.is::<WriteFailed>() || cause.is::<interstice_batsim::output::OutputError>() {
            return Exit::Output;
        }
        if cause.is::<interstice_swf::SwfError>()
            || cause.is::<interstice_swf::WorkloadError>()
            || cause.is::<interstice_swf::JobFieldError>()
            || cause.is::<interstice_swf::datacenter::DatacenterFileError>()
            || cause.is::<interstice_swf::qos::QosFileError>()
            || cause.is::<interstice_swf::judgements::JudgementsFileError>()
            || cause.is::<interstice_swf::TopologyFileError>()
            || is_bad_datacenter(cause)
            || matches!(
                cause.downcast_ref::<interstice_batsim::sim::area_qos::AreaError>(),
                Some(
                    interstice_batsim::sim::area_qos::AreaError::Qos(_)
                        | interstice_batsim::sim::area_qos::AreaError::Label { .. }
                )
            )
        {
            return Exit::Input;
        }
    }
    Exit::Internal
}

/// A data center whose config (read from its file) cannot be built.
fn is_bad_datacenter(cause: &(dyn std::error::Error + 'static)) -> bool {
    use interstice_core::datacenter::DatacenterError;
    use interstice_core::EngineError;
    matches!(
        cause.downcast_ref::<DatacenterError>(),
        Some(
            DatacenterError::InvalidConfig(_)
                | DatacenterError::Engine {
                    source: EngineError::InvalidConfig(_),
                    ..
                }
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn each_class_is_found_through_contexts() {
        let usage = anyhow::Error::new(Usage("x".into())).context("outer");
        assert_eq!(classify(&usage), Exit::Usage);
        let not_empty = anyhow::Error::new(OutNotEmpty("out".into()));
        assert_eq!(classify(&not_empty), Exit::Usage);
        let io = std::io::Error::from(std::io::ErrorKind::StorageFull);
        let stdout = Err::<(), _>(io)
            .context(WriteFailed::stdout())
            .context("outer")
            .unwrap_err();
        assert_eq!(classify(&stdout), Exit::Output);
        let connect = ClientError::Connect {
            path: "/nonexistent.sock".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(classify(&anyhow::Error::new(connect)), Exit::Unavailable);
        let http = |status| {
            anyhow::Error::new(ClientError::Http {
                status,
                message: String::new(),
            })
        };
        assert_eq!(classify(&http(422)), Exit::Refused);
        assert_eq!(classify(&http(503)), Exit::Unavailable);
        assert_eq!(classify(&http(500)), Exit::Internal);
        assert_eq!(
            classify(&anyhow::Error::new(Refused("rejected".into()))),
            Exit::Refused
        );
        let input = interstice_swf::MaintenanceFile::read(std::path::Path::new("/nonexistent/m.txt"))
            .context("--maintenance")
            .unwrap_err();
        assert_eq!(classify(&input), Exit::Input);
        assert_eq!(classify(&anyhow::anyhow!("surprise")), Exit::Internal);
        assert_eq!(
            [
                Exit::Internal,
                Exit::Usage,
                Exit::Refused,
                Exit::Input,
                Exit::Output,
                Exit::Unavailable
            ]
            .map(|exit| exit as u8),
            [1, 2, 3, 4, 5, 6]
        );
    }
}
