//! The area schedule (`--area-schedule FILE`): resizes of the convergence
//! area planned ahead, for a replay, a sweep or a Batsim run
//! ([`interstice_core::EngineConfig::area_schedule`]).
//!
//! Plain text, one change per line, two fields separated by whitespace:
//!
//! ```text
//! # time   procs
//! 0        32
//! 72000    64      # 20:00 on the first day: the night area
//! 100800   32
//! ```
//!
//! - `time`: when the area changes, seconds on the engine's clock (the
//!   workload's, as maintenance windows), a float from 0, later than the
//!   line before;
//! - `procs`: the area from then on, processors `0..procs` (a whole number,
//!   0 closes the area, at most the platform's processors).
//!
//! `#` starts a comment; blank lines are ignored. What a resize does is the
//! engine's rule ([`interstice_core::Engine::resize_area`]).

use crate::error::{LineError, SwfError};
use interstice_core::{AreaChange, Time};
use std::io::BufRead;
use std::path::Path;

/// The changes of an area schedule file, with the line each came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaScheduleFile {
    name: String,
    changes: Vec<AreaChange>,
    lines: Vec<u64>,
}

impl AreaScheduleFile {
    /// Read the file at `path` (`-` is stdin, gzip is detected).
    pub fn read(path: &Path) -> Result<AreaScheduleFile, SwfError> {
        let input = crate::input::open(path)?;
        AreaScheduleFile::parse(input.reader, &input.name)
    }

    /// Parse an area schedule named `name` (for messages).
    pub fn parse(reader: impl BufRead, name: &str) -> Result<AreaScheduleFile, SwfError> {
        let mut file = AreaScheduleFile {
            name: name.to_string(),
            ..AreaScheduleFile::default()
        };
        for line in crate::input::content_lines(reader, name) {
            let (number, text) = line?;
            let change = parse_line(&text).map_err(|why| file.error(number, why))?;
            if let Some(last) = file.changes.last() {
                if change.at <= last.at {
                    let why = format!(
                        "time {} is not after the line before's ({}): list the changes by increasing time",
                        change.at, last.at
                    );
                    return Err(file.error(number, why));
                }
            }
            file.changes.push(change);
            file.lines.push(number);
        }
        Ok(file)
    }

    /// The changes, in file (and time) order, for
    /// [`interstice_core::EngineConfig::area_schedule`].
    pub fn changes(&self) -> &[AreaChange] {
        &self.changes
    }

    /// Check every change against a platform of `procs` processors; the
    /// error names the change's line.
    pub fn check(&self, procs: u32) -> Result<(), SwfError> {
        for (change, &line) in self.changes.iter().zip(&self.lines) {
            if change.procs > procs {
                let why = format!(
                    "procs {}: the platform has {procs} processors; give at most {procs}",
                    change.procs
                );
                return Err(self.error(line, why));
            }
        }
        Ok(())
    }

    fn error(&self, line: u64, why: String) -> SwfError {
        SwfError::Line {
            file: self.name.clone(),
            line,
            kind: LineError::AreaSchedule(why),
        }
    }
}

/// One non-blank line, comment removed.
fn parse_line(text: &str) -> Result<AreaChange, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [time, procs] = fields[..] else {
        return Err(format!(
            "expected the 2 fields `TIME PROCS` (seconds, processors), found {}",
            fields.len()
        ));
    };
    let at = time
        .parse::<f64>()
        .ok()
        .and_then(Time::instant_from_secs_f64)
        .ok_or_else(|| format!("time {time:?}: write seconds from 0 (e.g. 3600 or 86400.5)"))?;
    let procs = procs
        .parse::<u32>()
        .map_err(|_| format!("procs {procs:?}: write a whole number of processors from 0 (e.g. 32)"))?;
    Ok(AreaChange { at, procs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AreaScheduleFile, SwfError> {
        AreaScheduleFile::parse(text.as_bytes(), "area.txt")
    }

    #[test]
    fn changes_comments_and_blank_lines() {
        let file = parse("# time procs\n\n0 32\n  72000.5\t64  # night\n#\n100800 0\n").unwrap();
        let change = |t: f64, procs: u32| AreaChange {
            at: Time::from_secs_f64(t),
            procs,
        };
        assert_eq!(
            file.changes(),
            [change(0.0, 32), change(72000.5, 64), change(100800.0, 0)]
        );
        assert!(file.check(64).is_ok());
        assert_eq!(
            file.check(48).unwrap_err().to_string(),
            "area.txt:4: procs 64: the platform has 48 processors; give at most 48"
        );
    }

    #[test]
    fn bad_lines_are_named_with_the_fix() {
        let message = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(
            message("0 32\n10 8 4\n"),
            "area.txt:2: expected the 2 fields `TIME PROCS` (seconds, processors), found 3"
        );
        assert_eq!(
            message("-5 8\n"),
            "area.txt:1: time \"-5\": write seconds from 0 (e.g. 3600 or 86400.5)"
        );
        assert_eq!(
            message("0 8.5\n"),
            "area.txt:1: procs \"8.5\": write a whole number of processors from 0 (e.g. 32)"
        );
        assert!(
            message("10 8\n10 4\n").starts_with("area.txt:2: time 10 is not after the line before's (10)")
        );
    }
}
