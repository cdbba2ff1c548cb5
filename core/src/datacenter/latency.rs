//! `F^r(E_e)`: the latency until a job sent to scheduler `E_e` can start
//! (§4.6.3, the paragraph after `F^J'`: `r_{j,e}` "é calculada por uma
//! função `F^r(E_e)` … que considera o tamanho em bytes de `J_{j,e}`, dados
//! sobre monitoramento de escalonadores e dados sobre os fluxos de rede T1,
//! T2 e T3 representados na Rede de Petri"; `r_{j,e} = 0` when the
//! destination is the scheduler analysing the job). The thesis names the
//! inputs and gives no formula; this module is the one place that combines
//! them:
//!
//! ```text
//! F^r(E_e, J) = link_e + bytes_J / bandwidth_e + monitoring_e
//! ```
//!
//! - `link_e`: the latency of the network flow that carries the job to
//!   `E_e` — T2 from the data-center scheduler to an HPC platform, T3 from a
//!   cloud platform migrating it there (T1, to the data center's own
//!   processors, never fires in Interstice; Interstice's cloud destinations
//!   are reached by T6 and T11 and are modelled the same way). One link per
//!   destination carries every flow into it.
//! - `bytes_J / bandwidth_e`: the job's size in bytes over the flow's
//!   bandwidth, the time to move the job there.
//! - `monitoring_e`: the scheduler-monitoring data, how long until `E_e`'s
//!   scheduler sees a job that has reached its queue (its scheduling or
//!   monitoring cycle).
//!
//! With no bandwidth limit, no monitoring delay or a job of 0 bytes, `F^r`
//! is `link_e`: the constant `r` of a scheduler configured before `F^r`
//! had its inputs, exactly.

use crate::time::Time;

/// The inputs of `F^r` for one destination (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    /// The flow's latency: how long a request takes to reach the destination.
    pub link: Time,
    /// The flow's bandwidth, bytes per second (`None`: unlimited, the
    /// transfer takes no time).
    pub bandwidth: Option<f64>,
    /// The destination's monitoring delay: how long until its scheduler
    /// sees a job in its queue.
    pub monitoring: Time,
}

impl Latency {
    /// No latency at all (the scheduler analysing its own queue).
    pub const ZERO: Latency = Latency::constant(Time::ZERO);

    /// `F^r = r` whatever the job: a link of `r`, unlimited bandwidth, no
    /// monitoring delay.
    pub const fn constant(r: Time) -> Latency {
        Latency {
            link: r,
            bandwidth: None,
            monitoring: Time::ZERO,
        }
    }

    /// The time to move `bytes` over the flow: `bytes / bandwidth` (zero for
    /// 0 bytes or an unlimited bandwidth).
    pub fn transfer(&self, bytes: u64) -> Time {
        match self.bandwidth {
            Some(bandwidth) if bytes > 0 => Time::from_secs_f64(bytes as f64 / bandwidth),
            _ => Time::ZERO,
        }
    }

    /// `F^r` for a job of `bytes`: `link + bytes / bandwidth + monitoring`.
    pub fn of(&self, bytes: u64) -> Time {
        self.link
            .saturating_add(self.transfer(bytes))
            .saturating_add(self.monitoring)
    }

    /// Why these inputs cannot be used, naming the field and what to give
    /// (`None`: they can): durations finite and ≥ 0, a bandwidth finite and > 0.
    pub fn problem(&self) -> Option<String> {
        let duration = |name: &str, t: Time| {
            (t < Time::ZERO || t.is_infinite())
                .then(|| format!("{name} must be a finite duration >= 0 (seconds)"))
        };
        duration("latency", self.link)
            .or_else(|| duration("monitoring", self.monitoring))
            .or_else(|| match self.bandwidth {
                Some(b) if !(b.is_finite() && b > 0.0) => Some(format!(
                    "bandwidth {b} must be a number of bytes per second > 0 (leave it out for unlimited)"
                )),
                _ => None,
            })
    }
}

impl Default for Latency {
    fn default() -> Latency {
        Latency::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    #[test]
    fn f_r_adds_the_link_the_transfer_and_the_monitoring_delay() {
        // 2 s link, 125 MB/s (1 Gbit/s), a 30 s monitoring cycle.
        let r = Latency {
            link: secs(2.0),
            bandwidth: Some(125e6),
            monitoring: secs(30.0),
        };
        // 10 GB: 10e9 / 125e6 = 80 s of transfer; 2 + 80 + 30 = 112 s.
        assert_eq!(r.transfer(10_000_000_000), secs(80.0));
        assert_eq!(r.of(10_000_000_000), secs(112.0));
        // 1 MB: 8 ms; 2 + 0.008 + 30.
        assert_eq!(r.of(1_000_000), secs(32.008));
        // A job of no bytes waits for the link and the monitoring only.
        assert_eq!(r.of(0), secs(32.0));
    }

    #[test]
    fn a_constant_latency_is_the_same_for_every_job() {
        let r = Latency::constant(secs(2.0));
        assert_eq!(r.of(0), secs(2.0));
        assert_eq!(r.of(u64::MAX), secs(2.0));
        assert_eq!(Latency::ZERO.of(1 << 40), Time::ZERO);
    }

    #[test]
    fn bad_inputs_name_their_field() {
        let ok = Latency::constant(secs(1.0));
        assert_eq!(ok.problem(), None);
        let bad = Latency {
            bandwidth: Some(0.0),
            ..ok
        };
        assert!(bad.problem().unwrap().starts_with("bandwidth 0 must be"));
        let bad = Latency {
            monitoring: Time::INFINITY,
            ..ok
        };
        assert!(bad.problem().unwrap().starts_with("monitoring must be"));
        let bad = Latency::constant(secs(-1.0));
        assert!(bad.problem().unwrap().starts_with("latency must be"));
    }
}
