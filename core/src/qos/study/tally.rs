//! What a study accumulates over its runs: per infrastructure size, the
//! penalties of both policies, the paired availabilities per class, and the
//! fairness metrics of every window per contention level and class.

use super::contention::{classify, Contention};
use super::paired::HeatMap;
use super::stats::{mean_ci, MeanCi};
use crate::qos::config::ServiceClass;
use crate::qos::outcome::Outcome;
use crate::qos::report::WindowStat;
use std::collections::HashMap;

/// The two policies compared, in the order of every `[_; 2]` here.
pub const POLICIES: [&str; 2] = ["priority", "qos-driven"];

/// One request's final availabilities: `(id, class, priority, qos-driven)`.
pub type Pair = (u64, usize, Option<f64>, Option<f64>);

/// The requests of two runs of the same workload, paired by id, in the
/// priority run's order.
pub fn pairs(priority: &Outcome, qos: &Outcome) -> Vec<Pair> {
    let by_id: HashMap<u64, Option<f64>> = qos.records.iter().map(|r| (r.id, r.availability)).collect();
    priority
        .records
        .iter()
        .map(|r| (r.id, r.class, r.availability, by_id.get(&r.id).copied().flatten()))
        .collect()
}

/// A fairness metric's values in the windows of one level and class, per policy.
#[derive(Clone, Debug, Default)]
struct Values {
    gini: [Vec<f64>; 2],
    min_availability: [Vec<f64>; 2],
    fulfilment: [Vec<f64>; 2],
}

#[derive(Clone, Debug, Default)]
struct SizeTally {
    penalty: [f64; 2],
    class_penalty: Vec<[f64; 2]>,
    samples: usize,
    heat: Vec<HeatMap>,
    unpaired: u64,
    windows: [u64; 4],
    levels: HashMap<(Contention, usize), Values>,
}

/// A study in progress: [`Study::add`] each sample's two runs at each size.
#[derive(Clone, Debug)]
pub struct Study {
    slos: Vec<f64>,
    least: Vec<bool>,
    sizes: Vec<SizeTally>,
}

/// One metric of one level and class: each policy's mean and interval.
pub type Metric = [Option<MeanCi>; 2];

/// One contention level and class at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelReport {
    /// The level (from the priority run).
    pub level: Contention,
    /// The class (index into the config's).
    pub class: usize,
    /// Windows of this level where the class was active.
    pub windows: usize,
    /// Gini of the class's availabilities (windows with two or more active requests).
    pub gini: Metric,
    /// The smallest availability of an active request.
    pub min_availability: Metric,
    /// The share of active requests at or above the SLO.
    pub fulfilment: Metric,
}

/// One infrastructure size, over every sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeReport {
    /// Samples added.
    pub samples: usize,
    /// Total penalty of each policy (slot-hours).
    pub penalty: [f64; 2],
    /// Each class's penalty under each policy (slot-hours).
    pub class_penalty: Vec<[f64; 2]>,
    /// `(P_priority − P_qos) / P_qos`, seed 001 Fig. 8 (`None` when QoS-driven paid nothing).
    pub penalty_increase: Option<f64>,
    /// Paired availabilities per class.
    pub heat: Vec<HeatMap>,
    /// Requests without an availability under one of the policies (nothing received yet).
    pub unpaired: u64,
    /// Windows per level (none, low, medium, high).
    pub windows: [u64; 4],
    /// Per level (low, medium, high) and class.
    pub levels: Vec<LevelReport>,
}

impl Study {
    /// A study of `sizes` infrastructure sizes over these classes (the
    /// least important ones are the seeds' bronze).
    pub fn new(classes: &[ServiceClass], sizes: usize) -> Study {
        let lowest = classes.iter().map(|c| c.importance).min().unwrap_or(0);
        Study {
            slos: classes.iter().map(|c| c.slo).collect(),
            least: classes.iter().map(|c| c.importance == lowest).collect(),
            sizes: (0..sizes)
                .map(|_| SizeTally {
                    heat: vec![HeatMap::new(); classes.len()],
                    class_penalty: vec![[0.0; 2]; classes.len()],
                    ..SizeTally::default()
                })
                .collect(),
        }
    }

    /// One sample's runs at size `size` under priority and QoS-driven, and
    /// their requests paired ([`pairs`]).
    pub fn add(&mut self, size: usize, priority: &Outcome, qos: &Outcome, paired: &[Pair]) {
        let slos = &self.slos;
        let least = &self.least;
        let t = &mut self.sizes[size];
        t.samples += 1;
        t.penalty[0] += priority.penalty();
        t.penalty[1] += qos.penalty();
        for (i, run) in [priority, qos].into_iter().enumerate() {
            for (total, class) in t.class_penalty.iter_mut().zip(&run.classes) {
                total[i] += class.penalty;
            }
        }
        for &(_, class, x, y) in paired {
            match (x, y) {
                (Some(x), Some(y)) => t.heat[class].add(x, y, slos[class]),
                _ => t.unpaired += 1,
            }
        }
        let by_start: HashMap<_, &WindowStat> = qos.windows.iter().map(|w| (w.start, w)).collect();
        for w in &priority.windows {
            let Some(level) = classify(w, least) else {
                continue;
            };
            t.windows[level as usize] += 1;
            if level == Contention::None {
                continue;
            }
            let Some(other) = by_start.get(&w.start) else {
                continue;
            };
            for (class, pair) in w.classes.iter().zip(&other.classes).enumerate() {
                let (Some(a), Some(b)) = pair else {
                    continue;
                };
                let v = t.levels.entry((level, class)).or_default();
                for (i, cw) in [a, b].into_iter().enumerate() {
                    if cw.active >= 2 {
                        v.gini[i].push(cw.gini);
                    }
                    v.min_availability[i].push(cw.min_availability);
                    v.fulfilment[i].push(cw.fulfilment);
                }
            }
        }
    }

    /// Every size's totals, means and intervals.
    pub fn report(&self) -> Vec<SizeReport> {
        self.sizes
            .iter()
            .map(|t| {
                let mut keys: Vec<&(Contention, usize)> = t.levels.keys().collect();
                keys.sort();
                let ci = |v: &[Vec<f64>; 2]| [mean_ci(&v[0]), mean_ci(&v[1])];
                SizeReport {
                    samples: t.samples,
                    penalty: t.penalty,
                    class_penalty: t.class_penalty.clone(),
                    penalty_increase: (t.penalty[1] > 0.0)
                        .then(|| (t.penalty[0] - t.penalty[1]) / t.penalty[1]),
                    heat: t.heat.clone(),
                    unpaired: t.unpaired,
                    windows: t.windows,
                    levels: keys
                        .into_iter()
                        .map(|&(level, class)| {
                            let v = &t.levels[&(level, class)];
                            LevelReport {
                                level,
                                class,
                                windows: v.min_availability[0].len(),
                                gini: ci(&v.gini),
                                min_availability: ci(&v.min_availability),
                                fulfilment: ci(&v.fulfilment),
                            }
                        })
                        .collect(),
                }
            })
            .collect()
    }
}
