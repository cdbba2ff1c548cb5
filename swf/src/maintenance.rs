//! Maintenance windows (the thesis's `J_o`): the file of `--maintenance
//! FILE` and the fields every shell reads a window from.
//!
//! The file is plain text, one window per line, three fields separated by
//! whitespace:
//!
//! ```text
//! # start  duration  procs
//! 3600     7200      0-3,8
//! 86400.5  600       10-11   # a comment runs to the end of the line
//! ```
//!
//! - `start`: when the window opens, seconds on the engine's clock (a float;
//!   0 to [`Time::MAX_INSTANT_SECS`]);
//! - `duration`: how long it lasts, seconds (a float, positive);
//! - `procs`: processor ids and inclusive ranges separated by commas, no
//!   spaces (`0-3,8,10-11`).
//!
//! `#` starts a comment; blank lines are ignored. What a valid window is
//! (start ≥ 0, positive duration, at least one processor, on the platform)
//! is the engine's rule, asked through [`Maintenance::validate`]: a file is
//! checked by it when read (against the largest platform) and again by
//! [`MaintenanceFile::check`] once the platform is known, and every error
//! names the file, the line, the field and the fix.

pub use crate::error::WindowError;

use crate::error::{LineError, SwfError};
use interstice_core::{EngineConfig, Maintenance, ProcSet, Time};
use std::io::BufRead;
use std::path::Path;

/// `procs`: ids and inclusive ranges separated by commas (`0-3,8,10-11`),
/// each item in the form of a Batsim interval (`N` or `A-B`, `A <= B`).
pub fn parse_procs(text: &str) -> Result<ProcSet, WindowError> {
    let bad = |problem: String| WindowError::Procs {
        value: text.to_string(),
        problem,
    };
    let mut set = ProcSet::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(bad("an item is empty".into()));
        }
        let part: ProcSet = item
            .parse()
            .ok()
            .filter(|_| !item.contains(char::is_whitespace))
            .ok_or_else(|| bad(format!("{item:?} is neither an id (8) nor a range (0-3)")))?;
        set = set.union(&part);
    }
    Ok(set)
}

/// A window from its three fields as numbers of seconds and a `procs`
/// list, checked by the engine against the largest platform (see
/// [`check_window`] for a given one).
pub fn window(start: f64, duration: f64, procs: &str) -> Result<Maintenance, WindowError> {
    let start = Time::instant_from_secs_f64(start).ok_or_else(|| WindowError::Start {
        value: start.to_string(),
    })?;
    if !duration.is_finite() {
        return Err(WindowError::Duration {
            value: duration.to_string(),
        });
    }
    let window = Maintenance {
        start,
        duration: Time::from_secs_f64(duration),
        procs: parse_procs(procs)?,
    };
    check_window(&window, EngineConfig::MAX_PROCS)?;
    Ok(window)
}

/// The engine's verdict on `window` for a platform of `procs` processors
/// ([`Maintenance::validate`], the one rule).
pub fn check_window(window: &Maintenance, procs: u32) -> Result<(), WindowError> {
    window.validate(procs).map_err(WindowError::Refused)
}

/// The windows of a maintenance file, with the line each came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaintenanceFile {
    name: String,
    windows: Vec<Maintenance>,
    lines: Vec<u64>,
}

impl MaintenanceFile {
    /// Read the file at `path` (`-` is stdin, gzip is detected).
    pub fn read(path: &Path) -> Result<MaintenanceFile, SwfError> {
        let input = crate::input::open(path)?;
        MaintenanceFile::parse(input.reader, &input.name)
    }

    /// Parse a maintenance file named `name` (for messages).
    pub fn parse(reader: impl BufRead, name: &str) -> Result<MaintenanceFile, SwfError> {
        let mut file = MaintenanceFile {
            name: name.to_string(),
            ..MaintenanceFile::default()
        };
        for line in crate::input::content_lines(reader, name) {
            let (number, text) = line?;
            let window = parse_line(&text).map_err(|error| file.error(number, error))?;
            file.windows.push(window);
            file.lines.push(number);
        }
        Ok(file)
    }

    /// The file's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The windows, in file order.
    pub fn windows(&self) -> &[Maintenance] {
        &self.windows
    }

    /// The windows, for [`EngineConfig::maintenance`].
    pub fn into_windows(self) -> Vec<Maintenance> {
        self.windows
    }

    /// Check every window against a platform of `procs` processors; the
    /// error names the window's line.
    pub fn check(&self, procs: u32) -> Result<(), SwfError> {
        for (window, &line) in self.windows.iter().zip(&self.lines) {
            check_window(window, procs).map_err(|error| self.error(line, error))?;
        }
        Ok(())
    }

    fn error(&self, line: u64, error: WindowError) -> SwfError {
        SwfError::Line {
            file: self.name.clone(),
            line,
            kind: LineError::Maintenance(error),
        }
    }
}

/// One non-blank line, comment removed.
fn parse_line(text: &str) -> Result<Maintenance, WindowError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [start, duration, procs] = fields[..] else {
        return Err(WindowError::FieldCount { found: fields.len() });
    };
    let seconds = |value: &str| value.parse::<f64>().ok();
    let start_secs = seconds(start)
        .filter(|secs| Time::instant_from_secs_f64(*secs).is_some())
        .ok_or_else(|| WindowError::Start {
            value: start.to_string(),
        })?;
    let duration_secs =
        seconds(duration)
            .filter(|secs| secs.is_finite())
            .ok_or_else(|| WindowError::Duration {
                value: duration.to_string(),
            })?;
    window(start_secs, duration_secs, procs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<MaintenanceFile, SwfError> {
        MaintenanceFile::parse(text.as_bytes(), "maint.txt")
    }

    fn message(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn windows_comments_and_blank_lines() {
        let file =
            parse("# start duration procs\n\n3600 7200 0-3,8\n  86400.5\t600   10-11,4  # after hours\n#\n")
                .unwrap();
        assert_eq!(file.name(), "maint.txt");
        assert_eq!(
            file.windows(),
            [
                Maintenance {
                    start: Time::from_secs(3600),
                    duration: Time::from_secs(7200),
                    procs: ProcSet::from_ranges([(0, 3), (8, 8)]),
                },
                Maintenance {
                    start: Time::from_secs_f64(86400.5),
                    duration: Time::from_secs(600),
                    procs: ProcSet::from_ranges([(4, 4), (10, 11)]),
                },
            ]
        );
        assert_eq!(file.lines, [3, 4]);
        assert!(file.check(12).is_ok());
        assert!(parse("").unwrap().windows().is_empty());
    }

    #[test]
    fn each_bad_field_names_the_line_the_field_and_the_fix() {
        assert_eq!(
            message("0 10 0\n5 10\n"),
            "maint.txt:2: expected the 3 fields `start duration procs`, found 2: write one window per line, \
             e.g. `3600 7200 0-3,8`"
        );
        assert_eq!(
            message("0 10 0 extra"),
            "maint.txt:1: expected the 3 fields `start duration procs`, found 4: write one window per line, \
             e.g. `3600 7200 0-3,8`"
        );
        for start in ["soon", "-5", "nan", "inf", "2e12"] {
            assert_eq!(
                message(&format!("{start} 10 0")),
                format!(
                    "maint.txt:1: start {start:?} is not a time in seconds from 0 to 1e12: write when the \
                     window opens, e.g. 3600"
                )
            );
        }
        for duration in ["long", "nan", "inf"] {
            assert_eq!(
                message(&format!("0 {duration} 0")),
                format!(
                    "maint.txt:1: duration {duration:?} is not a number of seconds: write how long the \
                     window lasts, e.g. 7200"
                )
            );
        }
        for (procs, problem) in [
            ("0-3,,8", "an item is empty"),
            ("0-3,", "an item is empty"),
            ("3-0", "\"3-0\" is neither an id (8) nor a range (0-3)"),
            ("a", "\"a\" is neither an id (8) nor a range (0-3)"),
            ("-1", "\"-1\" is neither an id (8) nor a range (0-3)"),
        ] {
            assert_eq!(
                message(&format!("0 10 {procs}")),
                format!(
                    "maint.txt:1: procs {procs:?}: {problem}: write processor ids and inclusive ranges \
                     separated by commas, e.g. 0-3,8,10-11"
                )
            );
        }
    }

    #[test]
    fn the_engine_judges_the_values() {
        assert_eq!(
            message("0 0 1"),
            "maint.txt:1: duration is 0: give a positive, finite number of seconds"
        );
        assert_eq!(
            message("# a\n0 -60 1"),
            "maint.txt:2: duration is -60: give a positive, finite number of seconds"
        );
        assert!(message("0 10 2000000").starts_with("maint.txt:1: processor 2000000 does not exist"));
        // On a known platform.
        let file = parse("0 10 0-3\n\n100 10 6-8\n").unwrap();
        assert_eq!(file.check(9).map_err(|e| e.to_string()), Ok(()));
        assert_eq!(
            file.check(8).unwrap_err().to_string(),
            "maint.txt:3: processor 8 does not exist: the platform has processors 0-7"
        );
    }

    #[test]
    fn fields_from_a_config() {
        assert_eq!(
            window(10.0, 5.0, "1, 3-4").unwrap().procs,
            ProcSet::from_ranges([(1, 1), (3, 4)])
        );
        assert!(matches!(window(-1.0, 5.0, "1"), Err(WindowError::Start { .. })));
        assert!(matches!(
            window(1.0, f64::NAN, "1"),
            Err(WindowError::Duration { .. })
        ));
        assert!(matches!(window(1.0, 5.0, ""), Err(WindowError::Procs { .. })));
        assert!(matches!(window(1.0, 5.0, "1 2"), Err(WindowError::Procs { .. })));
        let window = window(1.0, 5.0, "7").unwrap();
        assert_eq!(check_window(&window, 8), Ok(()));
        assert_eq!(
            check_window(&window, 7),
            Err(WindowError::Refused(
                "processor 7 does not exist: the platform has processors 0-6".into()
            ))
        );
    }

    #[test]
    fn a_missing_file_names_it() {
        let err = MaintenanceFile::read(Path::new("/nonexistent/maint.txt")).unwrap_err();
        assert_eq!(err.to_string(), "cannot open /nonexistent/maint.txt");
    }
}
