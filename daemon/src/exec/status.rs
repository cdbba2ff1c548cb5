//! A job's status file, `jobs/<id>.status`: how the job ended, written
//! where a restarted daemon finds it. The daemon creates it with
//! [`STATUS_BYTES`] reserved (spaces, synced), and every record overwrites
//! them from the start, so an end is recorded even on a full disk: the
//! wrapper's (`exit CODE END` or `signal NUMBER END`), or, when the store
//! could not take an end the daemon saw and the wrapper wrote none, the
//! daemon's (`ended STATE CODE|- END`). END is in seconds since the epoch.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Bytes reserved in each status file: more than any record takes.
pub const STATUS_BYTES: usize = 96;

/// The final states the daemon may keep in a status file (the store's).
const STATES: [&str; 6] = ["completed", "failed", "cancelled", "timeout", "evicted", "lost"];

/// Reserve [`STATUS_BYTES`] in a new status file and go back to its start
/// (the wrapper writes from there). Fails, and the job does not start,
/// when even these bytes cannot be had.
pub(super) fn reserve(mut file: File) -> std::io::Result<File> {
    let mut blank = vec![b' '; STATUS_BYTES];
    blank[STATUS_BYTES - 1] = b'\n';
    file.write_all(&blank)?;
    file.sync_all()?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// An end the daemon saw but could not store.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservedEnd {
    /// The job's final state (`completed`, `failed`, `cancelled`, `timeout`, `evicted`, `lost`).
    pub state: String,
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// When it ended (seconds since the epoch).
    pub ended_at: f64,
}

/// Write `end` over the status file at `path`, unless the wrapper's record
/// is there already (it says more: the exit status as the job left).
pub(super) fn keep_observed(path: &Path, end: &ObservedEnd) -> std::io::Result<()> {
    let text = std::fs::read_to_string(path)?;
    if RecordedEnd::parse(&text).is_some() {
        return Ok(());
    }
    let code = end.code.map_or_else(|| "-".to_string(), |code| code.to_string());
    let record = format!("ended {} {code} {:.6}\n", end.state, end.ended_at);
    if record.len() > text.len() {
        return Err(std::io::Error::other(
            "the status file's reserved bytes are too few",
        ));
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(record.as_bytes())?;
    file.sync_data()
}

/// How a job ended, as its status file records it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordedEnd {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal, when one killed it.
    pub signal: Option<i32>,
    /// The final state the daemon kept (its own record), if it was the daemon's.
    pub state: Option<&'static str>,
    /// When it ended (seconds since the epoch).
    pub ended_at: f64,
}

impl RecordedEnd {
    /// The record at the start of `text` (reserved blanks after it).
    pub(super) fn parse(text: &str) -> Option<RecordedEnd> {
        let mut words = text.split_whitespace();
        let (kind, value, ended_at) = (words.next()?, words.next()?, words.next()?);
        if kind == "ended" {
            let state = STATES.into_iter().find(|state| *state == value)?;
            let code = match ended_at {
                "-" => None,
                code => Some(code.parse().ok()?),
            };
            let ended_at: f64 = words.next()?.parse().ok().filter(|t: &f64| t.is_finite())?;
            return Some(RecordedEnd {
                code,
                signal: None,
                state: Some(state),
                ended_at,
            });
        }
        let value: i32 = value.parse().ok()?;
        let ended_at: f64 = ended_at.parse().ok().filter(|t: &f64| t.is_finite())?;
        let (code, signal) = match kind {
            "exit" => (Some(value), None),
            "signal" => (None, Some(value)),
            _ => return None,
        };
        Some(RecordedEnd {
            code,
            signal,
            state: None,
            ended_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_before_the_reserved_blanks() {
        let blank = " ".repeat(STATUS_BYTES - 1) + "\n";
        assert_eq!(RecordedEnd::parse(&blank), None);
        let wrapper = format!("exit 3 12.5\n{}", &blank[12..]);
        let end = RecordedEnd::parse(&wrapper).unwrap();
        assert_eq!(
            (end.code, end.signal, end.state, end.ended_at),
            (Some(3), None, None, 12.5)
        );
        let daemon = RecordedEnd::parse("ended timeout - 7.000000\n      ").unwrap();
        assert_eq!((daemon.code, daemon.state), (None, Some("timeout")));
        assert_eq!(RecordedEnd::parse("ended running - 7.0"), None);
    }

    #[test]
    fn the_daemons_record_fits_the_reserve_and_never_hides_the_wrappers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.status");
        let file = reserve(File::create(&path).unwrap()).unwrap();
        drop(file);
        let end = ObservedEnd {
            state: "cancelled".to_string(),
            code: Some(-1_000_000_000),
            ended_at: 1.0e10,
        };
        keep_observed(&path, &end).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), STATUS_BYTES as u64);
        let kept = RecordedEnd::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!((kept.state, kept.code), (Some("cancelled"), Some(-1_000_000_000)));
        std::fs::write(&path, format!("signal 9 2.0\n{}", " ".repeat(STATUS_BYTES))).unwrap();
        keep_observed(&path, &end).unwrap();
        let kept = RecordedEnd::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!((kept.state, kept.signal), (None, Some(9)));
    }
}
