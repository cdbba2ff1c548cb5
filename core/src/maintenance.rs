//! Maintenance reservations `J_o` (thesis §5.3.2, stage 3): processors taken
//! out of service over a window, planned around by every policy.

use crate::procset::ProcSet;
use crate::time::Time;

/// Processors `procs` are out of service over `[start, start + duration)`.
///
/// The engine holds them busy in its plan from its construction, so no job
/// is planned on them over the window (a job running there is never
/// interrupted: the window only keeps new work off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Maintenance {
    /// When the window opens.
    pub start: Time,
    /// How long it lasts (positive).
    pub duration: Time,
    /// The processors it takes.
    pub procs: ProcSet,
}

impl Maintenance {
    /// When the window closes.
    pub fn end(&self) -> Time {
        self.start.saturating_add(self.duration)
    }

    /// Check the window against a platform of `procs` processors; the
    /// message names the field and the fix. ([`crate::EngineConfig::validate`]
    /// calls it for every window; a shell that reads windows calls it to
    /// name the line or key it read the window from.)
    pub fn validate(&self, procs: u32) -> Result<(), String> {
        if self.start < Time::ZERO || self.start.is_infinite() {
            return Err(format!("start is {}: give a time >= 0 in seconds", self.start));
        }
        if self.duration <= Time::ZERO || self.duration.is_infinite() {
            return Err(format!(
                "duration is {}: give a positive, finite number of seconds",
                self.duration
            ));
        }
        if self.procs.is_empty() {
            return Err("procs is empty: name the processors it takes (e.g. 0-3)".into());
        }
        if let Some(max) = self.procs.max().filter(|&max| max >= procs) {
            return Err(format!(
                "processor {max} does not exist: the platform has processors 0-{}",
                procs.saturating_sub(1)
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(start: i64, duration: i64, lo: u32, hi: u32) -> Maintenance {
        Maintenance {
            start: Time::from_secs(start),
            duration: Time::from_secs(duration),
            procs: ProcSet::range(lo, hi),
        }
    }

    #[test]
    fn a_window_inside_the_platform_is_valid() {
        assert_eq!(window(10, 5, 0, 3).validate(4), Ok(()));
        assert_eq!(window(10, 5, 0, 3).end(), Time::from_secs(15));
    }

    #[test]
    fn bad_windows_name_the_field() {
        assert!(window(10, 0, 0, 3)
            .validate(4)
            .unwrap_err()
            .starts_with("duration"));
        assert!(window(-1, 5, 0, 3).validate(4).unwrap_err().starts_with("start"));
        assert!(window(10, 5, 2, 4)
            .validate(4)
            .unwrap_err()
            .contains("processor 4"));
    }
}
