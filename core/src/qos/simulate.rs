//! A run of a platform through time: the events of each instant
//! (completions, then instances becoming ready, then arrivals), then the
//! scheduler, which also runs `watchdog` after its last run while requests
//! are pending; the fairness windows are closed at their boundaries.

use crate::qos::config::{Eviction, HostChange, HostEvent, Needs, QosConfig, QosError, Request, Resize};
use crate::qos::ledger::Ledger;
use crate::qos::outcome::Outcome;
use crate::qos::policy::Rules;
use crate::qos::report::{self, ClassReport, RequestRecord};
use crate::qos::scheduler::{At, Platform, Wake};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Complete,
    Ready,
}

/// Run `requests` (each one instance, no memory, no constraint) on the
/// platform `cfg`, its hosts resized by `resizes` (each applied at its
/// instant after the completions, before the arrivals).
pub fn simulate(cfg: &QosConfig, requests: Vec<Request>, resizes: Vec<Resize>) -> Result<Outcome, QosError> {
    simulate_with(cfg, with_no_needs(requests), resizes)
}

/// [`simulate`] with each request's [`Needs`] (memory, constraints,
/// instances). Under osep (seed 002's periodic decision on hosts of
/// different speeds) the run is [`crate::qos::osep::simulate_osep`]'s,
/// which takes no resizes and one-instance requests without memory or
/// constraints.
pub fn simulate_with(
    cfg: &QosConfig,
    requests: Vec<(Request, Needs)>,
    resizes: Vec<Resize>,
) -> Result<Outcome, QosError> {
    if cfg.eviction == Eviction::Osep {
        if !resizes.is_empty() {
            return Err(QosError(
                "osep runs a platform of fixed hosts: its hosts cannot be resized (no HPC area)".into(),
            ));
        }
        if let Some((r, _)) = requests.iter().find(|(_, n)| *n != Needs::default()) {
            return Err(QosError(format!(
                "request {}: osep runs one-instance requests without memory or constraints",
                r.id
            )));
        }
        return crate::qos::osep::simulate_osep(cfg, requests.into_iter().map(|(r, _)| r).collect());
    }
    run(cfg, requests, resizes, false)
}

fn with_no_needs(requests: Vec<Request>) -> Vec<(Request, Needs)> {
    requests.into_iter().map(|r| (r, Needs::default())).collect()
}

/// [`simulate`] with the scheduler's run as the seeds write it (the whole
/// queue sorted and examined at every run).
#[cfg(test)]
pub(super) fn simulate_as_written(
    cfg: &QosConfig,
    requests: Vec<(Request, Needs)>,
    resizes: Vec<Resize>,
) -> Result<Outcome, QosError> {
    run(cfg, requests, resizes, true)
}

/// Check the platform and the resizes, then run `requests` to the end: the
/// instants one after the other until none is left (or `until`), then the
/// outcome at the run's end.
fn run(
    cfg: &QosConfig,
    mut requests: Vec<(Request, Needs)>,
    mut resizes: Vec<Resize>,
    as_written: bool,
) -> Result<Outcome, QosError> {
    let plain: Vec<Request> = requests.iter().map(|(r, _)| r.clone()).collect();
    cfg.validate(&plain)?;
    for (r, needs) in &requests {
        cfg.validate_needs(r.id, needs)?;
    }
    check_events(cfg)?;
    if let Some(r) = resizes
        .iter()
        .find(|r| r.host >= cfg.hosts.len() || r.slots > cfg.hosts[r.host])
    {
        return Err(QosError(format!(
            "resize of host {} to {} slots at {}: the host does not exist or has fewer slots",
            r.host, r.slots, r.at
        )));
    }
    requests.sort_by_key(|(r, _)| (r.submit, r.id));
    resizes.sort_by_key(|r| r.at);
    let mut run = Run::new(cfg, requests, resizes, as_written);
    loop {
        let stop = match (run.next_event(), cfg.until) {
            (None, until) => until.unwrap_or(platform_end(&run.platform)),
            (Some(t), Some(until)) if t > until => until,
            (Some(t), _) => {
                run.instant(t);
                continue;
            }
        };
        return Ok(run.finish(stop));
    }
}

/// A run under way: the platform, what is still to come (arrivals, resizes,
/// instances becoming ready or completing, the watchdog) and the fairness
/// windows.
struct Run<'a> {
    cfg: &'a QosConfig,
    platform: Platform<'a>,
    /// Instances becoming ready or completing, earliest first.
    wakes: BinaryHeap<Reverse<(Time, Kind, usize, u64)>>,
    windows: report::Windows,
    /// The requests not admitted yet, by submit time then id.
    arrivals: std::iter::Peekable<std::vec::IntoIter<(Request, Needs)>>,
    /// The resizes not applied yet, by time.
    resizes: std::iter::Peekable<std::vec::IntoIter<Resize>>,
    /// The host events not applied yet, by time.
    events: std::iter::Peekable<std::vec::IntoIter<HostEvent>>,
    /// When the scheduler runs again with no event (`INFINITY`: not before one).
    watchdog: Time,
    /// When the policy's decisions do not change with time, after a run that
    /// changed nothing only an event can make the next one do something (the
    /// run as written keeps running, and decides the same).
    time_invariant: bool,
    /// The scheduler's run as the seeds write it (tests only).
    #[cfg(test)]
    as_written: bool,
}

impl<'a> Run<'a> {
    /// The platform `cfg` before its first instant, `requests` and `resizes` sorted.
    fn new(
        cfg: &'a QosConfig,
        requests: Vec<(Request, Needs)>,
        resizes: Vec<Resize>,
        as_written: bool,
    ) -> Run<'a> {
        let first = requests.first().map_or(Time::ZERO, |(r, _)| r.submit);
        let mut events = cfg.events.clone();
        events.sort_by_key(|e| e.at);
        Run {
            cfg,
            platform: Platform::new(cfg),
            wakes: BinaryHeap::new(),
            windows: report::Windows::new(first, cfg.window, cfg.classes.iter().map(|c| c.slo).collect()),
            arrivals: requests.into_iter().peekable(),
            resizes: resizes.into_iter().peekable(),
            events: events.into_iter().peekable(),
            watchdog: Time::INFINITY,
            time_invariant: !as_written && !Rules::new(cfg).changes_with_time(),
            #[cfg(test)]
            as_written,
        }
    }

    /// The next instant something happens (`None`: nothing will).
    fn next_event(&mut self) -> Option<Time> {
        [
            self.arrivals.peek().map(|(r, _)| r.submit),
            self.resizes.peek().map(|r| r.at),
            self.events.peek().map(|e| e.at),
            self.wakes.peek().map(|w| w.0 .0),
            // The watchdog only matters while something else can still
            // change: a later event, a run end, or instances that may be
            // preempted for the pending ones.
            (self.watchdog < Time::INFINITY
                && (self.cfg.until.is_some()
                    || self.arrivals.peek().is_some()
                    || self.resizes.peek().is_some()
                    || self.events.peek().is_some()
                    || !self.wakes.is_empty()))
            .then_some(self.watchdog),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// One instant: the windows closed up to `now`, its completions and
    /// ready instances, its resizes, its arrivals, then the scheduler if
    /// one of them changed something or the watchdog is due.
    fn instant(&mut self, now: Time) {
        self.windows.close_until(now, &self.platform);
        let mut busy = self.wake_up(now);
        while let Some(r) = self.resizes.next_if(|r| r.at <= now) {
            self.platform.resize(r.host, r.slots, now);
            busy = true;
        }
        while let Some(e) = self.events.next_if(|e| e.at <= now) {
            match e.change {
                HostChange::Fail(h) => self.platform.fail(h, now),
                HostChange::Recover(h) => self.platform.recover(h),
                HostChange::Add(slots, spec) => self.platform.add_host(slots, spec),
            }
            busy = true;
        }
        while self.arrivals.peek().is_some_and(|(r, _)| r.submit <= now) {
            let (r, needs) = self.arrivals.next().expect("peeked");
            self.platform.admit(r, needs, now);
            busy = true;
        }
        self.schedule(now, busy);
    }

    /// The instances that complete or become ready at `now`; true when one
    /// completed.
    fn wake_up(&mut self, now: Time) -> bool {
        let mut busy = false;
        while let Some(&Reverse((at, kind, idx, attempt))) = self.wakes.peek() {
            if at > now {
                break;
            }
            self.wakes.pop();
            let w = Wake { at, idx, attempt };
            match kind {
                Kind::Complete => {
                    if self.platform.complete(w) {
                        let l = &self.platform.live[idx];
                        if let Some(end) = l.end {
                            self.windows.ended(l.req.class, &l.ledger, end);
                        }
                        busy = true;
                    }
                }
                Kind::Ready => {
                    if let Some(done) = self.platform.ready(w) {
                        self.push(Kind::Complete, done);
                    }
                }
            }
        }
        busy
    }

    /// The scheduler at `now` when the instant was `busy` or the watchdog
    /// is due and requests wait; then the watchdog's next run.
    fn schedule(&mut self, now: Time, busy: bool) {
        let ran = (busy || self.watchdog <= now) && self.platform.has_pending();
        let changes = self.platform.changes;
        if ran {
            #[cfg(test)]
            let allocated = if self.as_written {
                self.platform.pass_as_written(now)
            } else {
                self.platform.pass(now)
            };
            #[cfg(not(test))]
            let allocated = self.platform.pass(now);
            for w in allocated {
                let kind = if matches!(self.platform.live[w.idx].at, At::Allocating { .. }) {
                    Kind::Ready
                } else {
                    Kind::Complete
                };
                self.push(kind, w);
            }
        }
        // The watchdog runs the scheduler `watchdog` after its last
        // run while requests wait (see `time_invariant`).
        self.watchdog = if !self.platform.has_pending()
            || (ran && self.time_invariant && self.platform.changes == changes)
        {
            Time::INFINITY
        } else if ran || self.watchdog == Time::INFINITY {
            now + self.cfg.watchdog
        } else {
            self.watchdog
        };
    }

    /// Wake the instance `w` up at its time, to become ready or complete (`kind`).
    fn push(&mut self, kind: Kind, w: Wake) {
        self.wakes.push(Reverse((w.at, kind, w.idx, w.attempt)));
    }

    /// The run ended at `stop`: the last windows closed, every request's
    /// record and every class's report.
    fn finish(mut self, stop: Time) -> Outcome {
        self.windows.close_until(stop, &self.platform);
        self.platform.finish(stop);
        self.windows.close_last(stop, &self.platform);
        let live = &self.platform.live;
        let records: Vec<RequestRecord> = self
            .platform
            .groups
            .iter()
            .map(|g| {
                let members = &live[g.members.clone()];
                if let [one] = members {
                    return RequestRecord::of(self.cfg, one, stop);
                }
                let ends: Option<Vec<Time>> = members.iter().map(|l| l.end).collect();
                let end = ends.and_then(|e| e.into_iter().max());
                let ledger = Ledger::combined(members.iter().map(|l| &l.ledger), stop);
                let preemptions = members.iter().map(|l| l.preemptions).sum();
                RequestRecord::new(self.cfg, &members[0].req, &ledger, end, stop, preemptions)
            })
            .collect();
        let classes = ClassReport::all(self.cfg, &records, &self.windows.stats);
        Outcome {
            records,
            classes,
            windows: self.windows.stats,
            preemptions: self.platform.preemptions,
            end: stop,
            satisfaction: None,
        }
    }
}

/// The host events name hosts that exist then (the platform's, and those
/// earlier events added), fail only hosts that are up and recover only
/// hosts that are down.
fn check_events(cfg: &QosConfig) -> Result<(), QosError> {
    let mut events: Vec<(usize, &HostEvent)> = cfg.events.iter().enumerate().collect();
    events.sort_by_key(|(_, e)| e.at);
    let mut up = vec![true; cfg.hosts.len()];
    for (i, e) in events {
        let bad = |what: String| Err(QosError(format!("events[{i}] (at {}): {what}", e.at)));
        match &e.change {
            HostChange::Fail(h) | HostChange::Recover(h) if *h >= up.len() => {
                return bad(format!("host {h} does not exist then ({} hosts)", up.len()))
            }
            HostChange::Fail(h) if !up[*h] => return bad(format!("host {h} is already down")),
            HostChange::Recover(h) if up[*h] => return bad(format!("host {h} is not down")),
            HostChange::Fail(h) | HostChange::Recover(h) => up[*h] = !up[*h],
            HostChange::Add(0, _) => return bad("an added host needs at least one slot".into()),
            HostChange::Add(..) => up.push(true),
        }
    }
    Ok(())
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
