//! Engine times as epoch seconds, the way the wire and the store spell them.

use interstice_core::Time;

/// Epoch seconds of an engine time, as the wire and the store spell times.
pub(super) fn secs(time: Time) -> f64 {
    time.as_secs_f64()
}

/// Epoch seconds of a time that may be "never" (infinite or absent).
pub(super) fn finite_secs(time: Option<Time>) -> Option<f64> {
    time.filter(|t| !t.is_infinite()).map(secs)
}
