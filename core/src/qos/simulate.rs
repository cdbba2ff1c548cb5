//! A run of a platform through time: the events of each instant
//! (completions, then instances becoming ready, then arrivals), then the
//! scheduler, which also runs `watchdog` after its last run while requests
//! are pending; the fairness windows are closed at their boundaries.

use crate::qos::config::{QosConfig, QosError, Request, Resize};
use crate::qos::policy::Rules;
use crate::qos::report::{self, ClassReport, RequestRecord, WindowStat};
use crate::qos::scheduler::{At, Platform, PreemptedFor, Preemption, Wake};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// One per request, in admission order.
    pub records: Vec<RequestRecord>,
    /// One per class, in the config's order.
    pub classes: Vec<ClassReport>,
    /// The fairness windows.
    pub windows: Vec<WindowStat>,
    /// Every preemption, in order.
    pub preemptions: Vec<Preemption>,
    /// When the run ended.
    pub end: Time,
}

impl Outcome {
    /// The penalty of every class, slot-hours.
    pub fn penalty(&self) -> f64 {
        self.classes.iter().fold(0.0, |sum, c| sum + c.penalty)
    }

    /// Preemptions because HPC work (the hosts' owner) took slots back.
    pub fn preemptions_for_capacity(&self) -> usize {
        self.preemptions
            .iter()
            .filter(|p| p.by == PreemptedFor::Capacity)
            .count()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Complete,
    Ready,
}

/// Run `requests` on the platform `cfg`, its hosts resized by `resizes`
/// (each applied at its instant after the completions, before the arrivals).
pub fn simulate(cfg: &QosConfig, requests: Vec<Request>, resizes: Vec<Resize>) -> Result<Outcome, QosError> {
    run(cfg, requests, resizes, false)
}

/// [`simulate`] with the scheduler's run as the seeds write it (the whole
/// queue sorted and examined at every run).
#[cfg(test)]
pub(super) fn simulate_as_written(
    cfg: &QosConfig,
    requests: Vec<Request>,
    resizes: Vec<Resize>,
) -> Result<Outcome, QosError> {
    run(cfg, requests, resizes, true)
}

fn run(
    cfg: &QosConfig,
    mut requests: Vec<Request>,
    mut resizes: Vec<Resize>,
    as_written: bool,
) -> Result<Outcome, QosError> {
    cfg.validate(&requests)?;
    if let Some(r) = resizes
        .iter()
        .find(|r| r.host >= cfg.hosts.len() || r.slots > cfg.hosts[r.host])
    {
        return Err(QosError(format!(
            "resize of host {} to {} slots at {}: the host does not exist or has fewer slots",
            r.host, r.slots, r.at
        )));
    }
    requests.sort_by_key(|r| (r.submit, r.id));
    resizes.sort_by_key(|r| r.at);
    let mut resizes = resizes.into_iter().peekable();
    let mut platform = Platform::new(cfg);
    let mut wakes: BinaryHeap<Reverse<(Time, Kind, usize, u64)>> = BinaryHeap::new();
    let push = |wakes: &mut BinaryHeap<_>, kind, w: Wake| wakes.push(Reverse((w.at, kind, w.idx, w.attempt)));
    let first = requests.first().map_or(Time::ZERO, |r| r.submit);
    let mut windows = report::Windows::new(first, cfg.window, cfg.classes.iter().map(|c| c.slo).collect());
    let mut arrivals = requests.into_iter().peekable();
    let mut watchdog = Time::INFINITY;
    // When the policy's decisions do not change with time, after a run that
    // changed nothing only an event can make the next one do something (the
    // run as written keeps running, and decides the same).
    let time_invariant = !as_written && !Rules::new(cfg).changes_with_time();
    let mut now;
    loop {
        let next_event = [
            arrivals.peek().map(|r| r.submit),
            resizes.peek().map(|r| r.at),
            wakes.peek().map(|w| w.0 .0),
            // The watchdog only matters while something else can still
            // change: a later event, a run end, or instances that may be
            // preempted for the pending ones.
            (watchdog < Time::INFINITY
                && (cfg.until.is_some()
                    || arrivals.peek().is_some()
                    || resizes.peek().is_some()
                    || !wakes.is_empty()))
            .then_some(watchdog),
        ]
        .into_iter()
        .flatten()
        .min();
        let stop = match (next_event, cfg.until) {
            (None, until) => until.unwrap_or(platform_end(&platform)),
            (Some(t), Some(until)) if t > until => until,
            (Some(t), _) => {
                now = t;
                windows.close_until(now, &platform);
                let mut busy = false;
                while let Some(&Reverse((at, kind, idx, attempt))) = wakes.peek() {
                    if at > now {
                        break;
                    }
                    wakes.pop();
                    let w = Wake { at, idx, attempt };
                    match kind {
                        Kind::Complete => {
                            if platform.complete(w) {
                                let l = &platform.live[idx];
                                if let Some(end) = l.end {
                                    windows.ended(l.req.class, &l.ledger, end);
                                }
                                busy = true;
                            }
                        }
                        Kind::Ready => {
                            if let Some(done) = platform.ready(w) {
                                push(&mut wakes, Kind::Complete, done);
                            }
                        }
                    }
                }
                while let Some(r) = resizes.next_if(|r| r.at <= now) {
                    platform.resize(r.host, r.slots, now);
                    busy = true;
                }
                while arrivals.peek().is_some_and(|r| r.submit <= now) {
                    let r = arrivals.next().expect("peeked");
                    platform.admit(r, now);
                    busy = true;
                }
                let ran = (busy || watchdog <= now) && platform.has_pending();
                let changes = platform.changes;
                if ran {
                    #[cfg(test)]
                    let allocated = if as_written {
                        platform.pass_as_written(now)
                    } else {
                        platform.pass(now)
                    };
                    #[cfg(not(test))]
                    let allocated = platform.pass(now);
                    for w in allocated {
                        let kind = if matches!(platform.live[w.idx].at, At::Allocating { .. }) {
                            Kind::Ready
                        } else {
                            Kind::Complete
                        };
                        push(&mut wakes, kind, w);
                    }
                }
                // The watchdog runs the scheduler `watchdog` after its last
                // run while requests wait (see `time_invariant`).
                watchdog =
                    if !platform.has_pending() || (ran && time_invariant && platform.changes == changes) {
                        Time::INFINITY
                    } else if ran || watchdog == Time::INFINITY {
                        now + cfg.watchdog
                    } else {
                        watchdog
                    };
                continue;
            }
        };
        windows.close_until(stop, &platform);
        platform.finish(stop);
        windows.close_last(stop, &platform);
        let records: Vec<RequestRecord> = platform
            .live
            .iter()
            .map(|l| RequestRecord::of(cfg, l, stop))
            .collect();
        let classes = ClassReport::all(cfg, &records, &windows.stats);
        return Ok(Outcome {
            records,
            classes,
            windows: windows.stats,
            preemptions: platform.preemptions,
            end: stop,
        });
    }
}

/// The end of a run without `until`: the last completion.
fn platform_end(platform: &Platform) -> Time {
    platform
        .live
        .iter()
        .filter_map(|l| l.end)
        .max()
        .unwrap_or(Time::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::Eviction;

    fn secs(s: i64) -> Time {
        Time::from_secs(s)
    }

    /// A request ending exactly on a window's edge is active in the window
    /// it ends, not in the next one; the windows cover the run.
    #[test]
    fn a_completion_on_a_window_edge_counts_once() {
        let mut cfg = QosConfig::new(1, 2, Eviction::QosDriven);
        cfg.window = Some(secs(60));
        let requests = vec![
            Request {
                id: 0,
                submit: secs(0),
                procs: 1,
                duration: Some(secs(60)),
                class: 0,
                tenant: 0,
            },
            Request {
                id: 1,
                submit: secs(0),
                procs: 1,
                duration: Some(secs(150)),
                class: 0,
                tenant: 0,
            },
        ];
        let o = simulate(&cfg, requests, Vec::new()).expect("valid");
        let gold: Vec<usize> = o
            .windows
            .iter()
            .map(|w| w.classes[0].as_ref().map_or(0, |c| c.active))
            .collect();
        assert_eq!(gold, vec![2, 1, 1]);
        assert_eq!(o.windows.last().map(|w| w.end), Some(secs(150)));
    }

    /// Bad settings are refused, not run: a watchdog or window so short the
    /// run would never end.
    #[test]
    fn settings_that_would_not_end_are_refused() {
        let mut cfg = QosConfig::new(1, 2, Eviction::QosDriven);
        cfg.watchdog = Time::from_ticks(1);
        let e = simulate(&cfg, Vec::new(), Vec::new()).unwrap_err();
        assert!(e.0.contains("watchdog"), "{e}");
        cfg.watchdog = secs(10);
        cfg.window = Some(secs(1));
        assert!(simulate(&cfg, Vec::new(), Vec::new())
            .unwrap_err()
            .0
            .contains("window"));
    }
}
