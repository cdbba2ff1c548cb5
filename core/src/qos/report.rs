//! What a run delivered, per request and per class: availability, QoS
//! deficit, SLO fulfilment, the penalty `P = C⁻·(1+b)` (seed 001 eqs.
//! 10–11), and the fairness of each class per window (seed 001 §5.3: the
//! Gini coefficient of the availabilities of the requests active in it).

use crate::qos::config::{QosConfig, Request, ServiceClass};
use crate::qos::ledger::{self, meets, Ledger};
use crate::qos::scheduler::{Live, Platform};
use crate::time::Time;

/// The final account of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestRecord {
    /// Its id.
    pub id: u64,
    /// Class index.
    pub class: usize,
    /// Tenant index.
    pub tenant: usize,
    /// Slots.
    pub procs: u32,
    /// Admission.
    pub submit: Time,
    /// Completion (`None`: still in the system when the run ended; in a
    /// data center also a job that failed, measured at its own end).
    pub end: Option<Time>,
    /// Run time that counted, run time discarded, time pending.
    pub e: Time,
    /// Discarded run time.
    pub d: Time,
    /// Pending (and allocation) time.
    pub p: Time,
    /// `A` at its completion or at the end of the run (`None`: no time in
    /// the system).
    pub availability: Option<f64>,
    /// Times it was preempted.
    pub preemptions: u32,
    /// `C_k` at the end.
    pub overhead: f64,
    /// `max(0, O − A)` (`None` when `A` is undefined).
    pub deficit: Option<f64>,
    /// `P = D·d·c·(1+b)` in slot-hours (0 when the SLO was met). `d` is
    /// the seed's duration, the run time the request completed with; a
    /// request still in the system at the end of the run (a service) was
    /// owed its whole time in the system, so `d = e + d + p` then (else a
    /// request starved from the start would cost nothing).
    pub penalty: f64,
}

/// What one request or job delivered against its class's SLO.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delivered {
    /// `A = e / (e + d + p)` (`None`: no time in the system).
    pub availability: Option<f64>,
    /// `max(0, O − A)` (`None` when `A` is undefined).
    pub deficit: Option<f64>,
    /// `P = C⁻·(1+b)`, slot-hours (0 when the SLO was met).
    pub penalty: f64,
}

impl Delivered {
    /// From the run time that counted `e`, the run time discarded `d` and
    /// the time pending `p` of a request of `procs` slots in `class`;
    /// `completed` says whether it ended (see [`RequestRecord::penalty`]
    /// for what a request still in the system is owed). The one rule for the
    /// simulated platforms and the daemon's jobs.
    pub fn of(class: &ServiceClass, procs: u32, (e, d, p): (Time, Time, Time), completed: bool) -> Delivered {
        let availability = ledger::availability(e, d, p);
        Delivered {
            availability,
            deficit: availability.map(|a| (class.slo - a).max(0.0)),
            penalty: penalty(class, availability, if completed { e } else { e + d + p }, procs),
        }
    }
}

impl RequestRecord {
    pub(super) fn of(cfg: &QosConfig, l: &Live, stop: Time) -> RequestRecord {
        RequestRecord::new(cfg, &l.req, &l.ledger, l.end, stop, l.preemptions)
    }

    /// What request `req` received: completed at `end`, else still in the
    /// system at `stop`, with these accounts and preemptions (a class run's
    /// requests, a data center's cloud jobs).
    pub(crate) fn new(
        cfg: &QosConfig,
        req: &Request,
        ledger: &Ledger,
        end: Option<Time>,
        stop: Time,
        preemptions: u32,
    ) -> RequestRecord {
        let at = end.unwrap_or(stop);
        let (e, d, p) = ledger.at(at);
        let delivered = Delivered::of(&cfg.classes[req.class], req.procs, (e, d, p), end.is_some());
        RequestRecord {
            id: req.id,
            class: req.class,
            tenant: req.tenant,
            procs: req.procs,
            submit: req.submit,
            end,
            e,
            d,
            p,
            availability: delivered.availability,
            preemptions,
            overhead: ledger.overhead_ratio(at),
            deficit: delivered.deficit,
            penalty: delivered.penalty,
        }
    }
}

/// Seed 001 eqs. 10–11: `C⁻ = D·d·c` slot-hours, times `1 + b`.
fn penalty(class: &ServiceClass, availability: Option<f64>, duration: Time, procs: u32) -> f64 {
    let Some(a) = availability.filter(|&a| !meets(a, class.slo)) else {
        return 0.0;
    };
    let deficit = (class.slo - a) * duration.as_secs_f64() / 3600.0 * f64::from(procs);
    deficit * (1.0 + class.credit.bonus(a, class.slo))
}

/// A distribution's summary (nearest-rank percentiles).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Distribution {
    /// Mean.
    pub mean: f64,
    /// Minimum.
    pub min: f64,
    /// 10th percentile.
    pub p10: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Maximum.
    pub max: f64,
}

impl Distribution {
    /// Of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Distribution {
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min: v[0],
            p10: rank(0.1),
            p50: rank(0.5),
            p90: rank(0.9),
            max: v[v.len() - 1],
        })
    }
}

/// The Gini coefficient of `values` (≥ 0): 0 when all are equal (or all
/// zero), towards 1 when one has everything.
pub fn gini(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let sum: f64 = v.iter().sum();
    if v.is_empty() || sum <= 0.0 {
        return 0.0;
    }
    let weighted: f64 = v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x).sum();
    (2.0 * weighted / (n * sum) - (n + 1.0) / n).max(0.0)
}

/// One class in one window.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassWindow {
    /// Requests of the class active in the window.
    pub active: usize,
    /// Gini of their availabilities.
    pub gini: f64,
    /// The smallest of them.
    pub min_availability: f64,
    /// Share of them at or above the SLO.
    pub fulfilment: f64,
}

/// One fairness window: `[start, end)`.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowStat {
    /// Start.
    pub start: Time,
    /// End.
    pub end: Time,
    /// Per class (`None`: no request of the class was active).
    pub classes: Vec<Option<ClassWindow>>,
}

/// What is in the system when a window closes: each request's class and
/// ledger (a platform's requests, a data center's cloud jobs).
pub(crate) trait InSystem {
    /// Is anything in the system?
    fn any(&self) -> bool;
    /// Call `f(class, ledger)` for each request in the system.
    fn each(&self, f: &mut dyn FnMut(usize, &Ledger));
}

impl InSystem for Platform<'_> {
    fn any(&self) -> bool {
        self.in_system().next().is_some()
    }

    fn each(&self, f: &mut dyn FnMut(usize, &Ledger)) {
        for l in self.in_system().map(|i| &self.live[i]) {
            f(l.req.class, &l.ledger);
        }
    }
}

/// The fairness windows being closed as a run goes.
pub(crate) struct Windows {
    start: Time,
    /// `None`: no windows.
    len: Option<Time>,
    /// (class, availability) of the requests completed in the open window.
    ended: Vec<(usize, f64)>,
    pub(crate) stats: Vec<WindowStat>,
    slos: Vec<f64>,
}

impl Windows {
    /// Windows of `len` from `start` over classes of these SLOs (`len`
    /// `None`: no windows).
    pub(crate) fn new(start: Time, len: Option<Time>, slos: Vec<f64>) -> Windows {
        Windows {
            start,
            len,
            ended: Vec::new(),
            stats: Vec::new(),
            slos,
        }
    }

    /// Close every window that ends by `t`.
    pub(crate) fn close_until(&mut self, t: Time, platform: &dyn InSystem) {
        let Some(len) = self.len else {
            return;
        };
        if self.start + len > t {
            return;
        }
        // Windows with nothing in them have nothing to report: jump them.
        if self.ended.is_empty() && !platform.any() {
            let skipped = (t - self.start).ticks() / len.ticks();
            self.start += Time::from_ticks(len.ticks().saturating_mul(skipped));
            return;
        }
        while self.start + len <= t {
            self.close(self.start + len, platform);
        }
    }

    /// Close the last, partial window at the end of the run.
    pub(crate) fn close_last(&mut self, stop: Time, platform: &dyn InSystem) {
        if self.len.is_some() && (self.start < stop || !self.ended.is_empty()) {
            self.close(stop.max(self.start), platform);
        }
    }

    /// A request of `class` whose accounts are `ledger` left the system at
    /// `end`, in the open window.
    pub(crate) fn ended(&mut self, class: usize, ledger: &Ledger, end: Time) {
        if self.len.is_none() {
            return;
        }
        // Ending exactly as the window opens, it was counted in the last one
        // (at its end) and was never active in this one.
        if end <= self.start {
            return;
        }
        if let Some(a) = ledger.availability(end) {
            self.ended.push((class, a));
        }
    }

    fn close(&mut self, end: Time, platform: &dyn InSystem) {
        let mut per_class: Vec<Vec<f64>> = vec![Vec::new(); self.slos.len()];
        for (class, a) in self.ended.drain(..) {
            per_class[class].push(a);
        }
        platform.each(&mut |class, ledger| {
            if let Some(a) = ledger.availability(end) {
                per_class[class].push(a);
            }
        });
        let classes = per_class
            .iter()
            .zip(&self.slos)
            .map(|(values, &slo)| {
                (!values.is_empty()).then(|| ClassWindow {
                    active: values.len(),
                    gini: gini(values),
                    min_availability: values.iter().copied().fold(f64::INFINITY, f64::min),
                    fulfilment: values.iter().filter(|&&a| meets(a, slo)).count() as f64
                        / values.len() as f64,
                })
            })
            .collect();
        self.stats.push(WindowStat {
            start: self.start,
            end,
            classes,
        });
        self.start = end;
    }
}

/// What one class received over a run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassReport {
    /// Its name.
    pub name: String,
    /// Its SLO.
    pub slo: f64,
    /// Requests of the class.
    pub requests: usize,
    /// Of them, completed.
    pub completed: usize,
    /// Their availabilities (`None`: no request).
    pub availability: Option<Distribution>,
    /// Share at or above the SLO (`None`: no request).
    pub fulfilment: Option<f64>,
    /// Mean QoS deficit `max(0, O − A)` (`None`: no request).
    pub mean_deficit: Option<f64>,
    /// Requests below the SLO.
    pub violations: usize,
    /// Total penalty, slot-hours.
    pub penalty: f64,
    /// Preemptions its requests suffered.
    pub preemptions: u64,
    /// Gini per window: mean and maximum over the windows where the class
    /// had at least two active requests (`None`: no such window).
    pub gini_mean: Option<f64>,
    /// The largest.
    pub gini_max: Option<f64>,
}

impl ClassReport {
    /// One report per class of `cfg` from the records of its requests and
    /// the fairness windows (a class run's, a data center's).
    pub(crate) fn all(
        cfg: &QosConfig,
        records: &[RequestRecord],
        windows: &[WindowStat],
    ) -> Vec<ClassReport> {
        cfg.classes
            .iter()
            .enumerate()
            .map(|(i, class)| {
                let mine: Vec<&RequestRecord> = records.iter().filter(|r| r.class == i).collect();
                let avail: Vec<f64> = mine.iter().filter_map(|r| r.availability).collect();
                let (gini_mean, gini_max) = window_gini(windows, i);
                let n = avail.len() as f64;
                ClassReport {
                    name: class.name.clone(),
                    slo: class.slo,
                    requests: mine.len(),
                    completed: mine.iter().filter(|r| r.end.is_some()).count(),
                    availability: Distribution::of(&avail),
                    fulfilment: (n > 0.0)
                        .then(|| avail.iter().filter(|&&a| meets(a, class.slo)).count() as f64 / n),
                    mean_deficit: (n > 0.0).then(|| mine.iter().filter_map(|r| r.deficit).sum::<f64>() / n),
                    violations: avail.iter().filter(|&&a| !meets(a, class.slo)).count(),
                    penalty: mine.iter().fold(0.0, |sum, r| sum + r.penalty),
                    preemptions: mine.iter().map(|r| u64::from(r.preemptions)).sum(),
                    gini_mean,
                    gini_max,
                }
            })
            .collect()
    }
}

/// Class `class`'s Gini over the windows where at least two of its
/// requests were active: the mean and the largest (`None`: no such window).
fn window_gini(windows: &[WindowStat], class: usize) -> (Option<f64>, Option<f64>) {
    let ginis: Vec<f64> = windows
        .iter()
        .filter_map(|w| w.classes[class].as_ref())
        .filter(|c| c.active >= 2)
        .map(|c| c.gini)
        .collect();
    let mean = (!ginis.is_empty()).then(|| ginis.iter().sum::<f64>() / ginis.len() as f64);
    (mean, ginis.iter().copied().reduce(f64::max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gini_of_equal_and_of_one_takes_all() {
        assert_eq!(gini(&[0.5, 0.5, 0.5]), 0.0);
        assert_eq!(gini(&[0.0, 0.0]), 0.0);
        assert!((gini(&[0.0, 0.0, 0.0, 1.0]) - 0.75).abs() < 1e-12);
        assert!((gini(&[1.0, 3.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn the_credit_table_of_the_seed() {
        let silver = ServiceClass::new("silver", 2, 0.9);
        assert_eq!(silver.credit.bonus(0.95, 0.9), 0.0);
        assert_eq!(silver.credit.bonus(0.895, 0.9), 0.10);
        assert_eq!(silver.credit.bonus(0.87, 0.9), 0.30);
        assert_eq!(silver.credit.bonus(0.5, 0.9), 1.0);
        // One slot for 1 h at 50 % against 90 %: 0.4 slot-hours, doubled.
        let p = penalty(&silver, Some(0.5), Time::from_secs(3600), 1);
        assert!((p - 0.8).abs() < 1e-12);
        assert_eq!(penalty(&silver, Some(0.9), Time::from_secs(3600), 1), 0.0);
    }

    #[test]
    fn distributions_use_nearest_ranks() {
        let d = Distribution::of(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]).unwrap();
        assert_eq!((d.min, d.p10, d.p50, d.p90, d.max), (0.1, 0.1, 0.5, 0.9, 1.0));
        assert!(Distribution::of(&[]).is_none());
    }
}
