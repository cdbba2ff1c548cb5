//! The one time type of the engine: integer microsecond ticks.
//!
//! Instants and durations share [`Time`]; the engine never reads a clock, the
//! shells pass `now` in. Integer ticks keep plan arithmetic exact (no float
//! drift when a job ends exactly at another's reservation).

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Ticks per second.
pub const TICKS_PER_SECOND: i64 = 1_000_000;

/// An instant or a duration, in whole microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(i64);

impl Time {
    /// Time zero.
    pub const ZERO: Time = Time(0);
    /// "Never" / unbounded: the largest representable time. Arithmetic saturates at it.
    pub const INFINITY: Time = Time(i64::MAX);

    /// From whole seconds.
    pub const fn from_secs(secs: i64) -> Time {
        Time(secs.saturating_mul(TICKS_PER_SECOND))
    }

    /// The latest instant a workload or a peer may name, in seconds (about
    /// 31,700 years): far below the tick range, so an instant plus any
    /// walltime or SLO still fits.
    pub const MAX_INSTANT_SECS: f64 = 1e12;

    /// An instant read from outside (a trace, a peer): finite, not negative,
    /// at most [`Time::MAX_INSTANT_SECS`]; `None` otherwise.
    pub fn instant_from_secs_f64(secs: f64) -> Option<Time> {
        (secs.is_finite() && (0.0..=Time::MAX_INSTANT_SECS).contains(&secs))
            .then(|| Time::from_secs_f64(secs))
    }

    /// From fractional seconds, rounded to the nearest microsecond.
    /// NaN maps to zero, values beyond the range saturate.
    pub fn from_secs_f64(secs: f64) -> Time {
        let ticks = (secs * TICKS_PER_SECOND as f64).round();
        if ticks.is_nan() {
            Time::ZERO
        } else if ticks >= i64::MAX as f64 {
            Time::INFINITY
        } else if ticks <= i64::MIN as f64 {
            Time(i64::MIN)
        } else {
            Time(ticks as i64)
        }
    }

    /// From raw microsecond ticks.
    pub const fn from_ticks(ticks: i64) -> Time {
        Time(ticks)
    }

    /// Raw microsecond ticks.
    pub const fn ticks(self) -> i64 {
        self.0
    }

    /// Seconds as a float (for output and statistics only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / TICKS_PER_SECOND as f64
    }

    /// True for [`Time::INFINITY`].
    pub const fn is_infinite(self) -> bool {
        self.0 == i64::MAX
    }

    /// Saturating addition (anything plus infinity is infinity).
    pub const fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }

    /// Saturating subtraction.
    pub const fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// Multiply a duration by a non-negative factor, rounded to the microsecond.
    pub fn mul_f64(self, factor: f64) -> Time {
        if self.is_infinite() {
            return self;
        }
        Time::from_secs_f64(self.as_secs_f64() * factor)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        self.saturating_add(rhs)
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        *self = *self + rhs;
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        self.saturating_sub(rhs)
    }
}

impl SubAssign for Time {
    fn sub_assign(&mut self, rhs: Time) {
        *self = *self - rhs;
    }
}

/// Seconds with up to six decimals, trailing zeros trimmed (`12`, `0.5`, `inf`).
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_infinite() {
            return f.write_str("inf");
        }
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let secs = abs / TICKS_PER_SECOND as u64;
        let micros = abs % TICKS_PER_SECOND as u64;
        if micros == 0 {
            write!(f, "{sign}{secs}")
        } else {
            let frac = format!("{micros:06}");
            write!(f, "{sign}{secs}.{}", frac.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(Time::from_secs(3).ticks(), 3_000_000);
        assert_eq!(Time::from_secs_f64(0.000612).ticks(), 612);
        assert_eq!(Time::from_secs_f64(1.5).as_secs_f64(), 1.5);
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::ZERO);
        assert!(Time::from_secs_f64(1e300).is_infinite());
    }

    #[test]
    fn arithmetic_saturates_at_infinity() {
        assert!((Time::INFINITY + Time::from_secs(1)).is_infinite());
        assert_eq!(Time::from_secs(5) - Time::from_secs(2), Time::from_secs(3));
        assert_eq!(Time::from_secs(10).mul_f64(2.5), Time::from_secs(25));
    }

    #[test]
    fn display_trims_zeros() {
        assert_eq!(Time::from_secs(12).to_string(), "12");
        assert_eq!(Time::from_secs_f64(0.5).to_string(), "0.5");
        assert_eq!(Time::from_secs_f64(-1.25).to_string(), "-1.25");
        assert_eq!(Time::INFINITY.to_string(), "inf");
    }
}
