//! What a broker measures of each member's link, and the `F^r` inputs it
//! decides with (`core::datacenter::latency`, §4.6.3).
//!
//! The broker times every forward to a member (`POST /v1/jobs`, on a
//! monotonic [`crate::clock::Stopwatch`]) from the request's first byte to
//! the member's answer: the member admits the job into its engine before it
//! answers, so the round trip is the delay until a job sent there is in the
//! member's plan. The samples are smoothed as TCP smooths its round-trip
//! time (RFC 6298's `SRTT ← SRTT + (sample − SRTT)/8`, the first sample
//! taken as is), and the smoothed value replaces `engine.latency` as the
//! link of that member's `F^r`; a member never answered keeps
//! `engine.latency`. Forwards that failed (a timeout, a refused
//! connection) are not samples: they measure the failure, not the link.
//! The rest of `F^r` is configured: `datacenter.bandwidth_bytes_per_second`
//! (the job's `bytes` over it) and `datacenter.monitoring_seconds`.

use interstice_core::datacenter::Latency;
use interstice_core::Time;
use std::collections::HashMap;
use std::sync::Mutex;

/// The smoothing of RFC 6298: each sample moves the estimate by 1/8 of its
/// difference.
const GAIN_DIVISOR: i64 = 8;

/// The members' measured round trips, by address.
#[derive(Debug, Default)]
pub struct Links {
    /// Address → the smoothed round-trip time.
    smoothed: Mutex<HashMap<String, Time>>,
}

impl Links {
    /// Count one answered forward to `member` that took `rtt`; the new
    /// smoothed round-trip time.
    pub fn observe(&self, member: &str, rtt: Time) -> Time {
        let mut smoothed = self.smoothed.lock().unwrap_or_else(|e| e.into_inner());
        let estimate = match smoothed.get(member) {
            None => rtt,
            Some(&srtt) => Time::from_ticks(srtt.ticks() + (rtt.ticks() - srtt.ticks()) / GAIN_DIVISOR),
        };
        smoothed.insert(member.to_string(), estimate);
        estimate
    }

    /// `member`'s smoothed round-trip time, if one of its forwards was answered.
    pub fn rtt(&self, member: &str) -> Option<Time> {
        let smoothed = self.smoothed.lock().unwrap_or_else(|e| e.into_inner());
        smoothed.get(member).copied()
    }

    /// `member`'s `F^r` inputs: `configured` with its link replaced by the
    /// measured round trip when there is one.
    pub fn latency(&self, member: &str, configured: Latency) -> Latency {
        match self.rtt(member) {
            Some(rtt) => Latency {
                link: rtt,
                ..configured
            },
            None => configured,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: i64) -> Time {
        Time::from_ticks(ms * 1_000)
    }

    #[test]
    fn the_round_trip_is_smoothed_as_tcp_smooths_it() {
        let links = Links::default();
        assert_eq!(links.rtt("a"), None);
        // The first sample as is; then SRTT + (sample - SRTT) / 8.
        assert_eq!(links.observe("a", ms(800)), ms(800));
        assert_eq!(links.observe("a", ms(0)), ms(700));
        assert_eq!(links.observe("a", ms(1_600)), Time::from_ticks(812_500));
        // Another member's samples are its own.
        assert_eq!(links.observe("b", ms(4)), ms(4));
        assert_eq!(links.rtt("a"), Some(Time::from_ticks(812_500)));
    }

    #[test]
    fn a_measured_member_s_link_replaces_the_configured_one() {
        let links = Links::default();
        let configured = Latency {
            link: Time::from_secs(2),
            bandwidth: Some(1e6),
            monitoring: Time::from_secs(1),
        };
        // Unmeasured: 2 + 1 s; 3 MB add 3 s.
        assert_eq!(links.latency("a", configured).of(0), Time::from_secs(3));
        assert_eq!(links.latency("a", configured).of(3_000_000), Time::from_secs(6));
        links.observe("a", ms(500));
        // Measured: 0.5 + 1 s; the bandwidth and monitoring stay configured.
        assert_eq!(links.latency("a", configured).of(0), ms(1_500));
        assert_eq!(links.latency("a", configured).of(3_000_000), ms(4_500));
    }
}
