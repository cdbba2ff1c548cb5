//! The inputs of seed 002's evaluation (chapter 5): its grid of 12
//! machines of three speeds owned by 4 users (§5.2), the users' demands
//! (§5.3) and its delay cases (§5.4), drawn by [`SplitMix64`] so a
//! repetition is the same for every algorithm and checkpoint mode.

use crate::rng::SplitMix64;
use interstice_core::qos::{Eviction, OnPreempt, OsepRule, QosConfig, Request, Tenant};
use interstice_core::Time;

/// The machines' MFLOPS (§5.2): Sandy Bridge i7, i5, i3, four of each.
pub const MFLOPS: [f64; 3] = [132_250.0, 54_760.0, 29_750.0];

/// Which machines each user owns, as (i7, i5, i3) counts (§5.2: user1
/// 45.76 %, user2 27.88 %, user3 16.06 %, user4 10.29 %). The seed lists
/// user4's as three i7s; its 10.29 % is three i3s (three i7s would make
/// 16 machines and 137 %), so three i3s it is.
pub const OWNED: [(&str, [u32; 3]); 4] = [
    ("user1", [3, 0, 0]),
    ("user2", [1, 2, 0]),
    ("user3", [0, 2, 1]),
    ("user4", [0, 0, 3]),
];

/// The delay of the delayed user's tasks (§5.4: 6 minutes).
pub const DELAY: Time = Time::from_secs(360);

/// Tasks each user submits (§5.3).
pub const TASKS: usize = 10;

/// A user's demand (§5.3): how many small, medium and large tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demand {
    /// 6 small, 3 medium, 1 large.
    Small,
    /// 3 small, 6 medium, 1 large.
    Medium,
    /// 1 small, 3 medium, 6 large.
    Large,
}

impl Demand {
    /// The three, in the seed's order.
    pub const ALL: [Demand; 3] = [Demand::Small, Demand::Medium, Demand::Large];

    /// Its name in the result files.
    pub fn name(self) -> &'static str {
        match self {
            Demand::Small => "small",
            Demand::Medium => "medium",
            Demand::Large => "large",
        }
    }

    /// (small, medium, large) task counts.
    pub fn counts(self) -> [usize; 3] {
        match self {
            Demand::Small => [6, 3, 1],
            Demand::Medium => [3, 6, 1],
            Demand::Large => [1, 3, 6],
        }
    }
}

/// Task sizes in minutes on the best machine (§5.3): small 5–30, medium
/// 30–80, large 80–420 (39,675,000 to 3,332,700,000 MFLOP at 132,250
/// MFLOPS).
pub const MINUTES: [(f64, f64); 3] = [(5.0, 30.0), (30.0, 80.0), (80.0, 420.0)];

/// The seed's grid under `eviction`'s OSEP `rule`, preempted work kept by
/// `mode`: hosts of one slot, speeds relative to the i7 (so a task's
/// duration is its time on the best machine), each user owning three
/// machines (`share` 3) and their speeds' sum (`power`).
pub fn platform(rule: OsepRule, mode: OnPreempt) -> QosConfig {
    let mut cfg = QosConfig::new(12, 1, Eviction::Osep);
    cfg.speeds = MFLOPS
        .iter()
        .flat_map(|m| std::iter::repeat(m / MFLOPS[0]).take(4))
        .collect();
    cfg.tenants = OWNED
        .iter()
        .map(|(name, _)| Tenant {
            name: (*name).into(),
            share: 3,
        })
        .collect();
    cfg.powers = OWNED
        .iter()
        .map(|(_, own)| Some((0..3).map(|k| f64::from(own[k]) * MFLOPS[k] / MFLOPS[0]).sum()))
        .collect();
    cfg.on_preempt = mode;
    cfg.osep.rule = rule;
    cfg.window = None;
    cfg
}

/// One repetition's tasks: every user's `demand`, sizes drawn uniformly
/// in their ranges (whole seconds), submitted at 0 except `delayed`'s, at
/// [`DELAY`]. Ids are user-major.
pub fn requests(demand: Demand, delayed: usize, rng: &mut SplitMix64) -> Vec<Request> {
    let mut out = Vec::with_capacity(OWNED.len() * TASKS);
    for user in 0..OWNED.len() {
        let submit = if user == delayed { DELAY } else { Time::ZERO };
        for (kind, &count) in demand.counts().iter().enumerate() {
            let (lo, hi) = MINUTES[kind];
            for _ in 0..count {
                let minutes = rng.uniform(lo, hi);
                out.push(Request {
                    id: out.len() as u64,
                    submit,
                    procs: 1,
                    duration: Some(Time::from_secs((minutes * 60.0).round() as i64)),
                    class: 0,
                    tenant: user,
                });
            }
        }
    }
    out
}

/// The generator of repetition `rep` of `demand` with `delayed` late,
/// from `seed`: the same for every algorithm and mode.
pub fn rng(seed: u64, demand: Demand, delayed: usize, rep: u64) -> SplitMix64 {
    let d = Demand::ALL.iter().position(|&x| x == demand).unwrap_or(0) as u64;
    SplitMix64::new(seed ^ (rep << 8) ^ (d << 4) ^ delayed as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_grid_and_shares() {
        let cfg = platform(OsepRule::Heterogeneous, OnPreempt::Checkpoint);
        let total = cfg.total_power();
        let pct: Vec<f64> = (0..4)
            .map(|t| (cfg.portion(t) / total * 10_000.0).round() / 100.0)
            .collect();
        assert_eq!(pct, vec![45.76, 27.88, 16.06, 10.29]);
        assert_eq!(cfg.hosts.len(), 12);
    }

    #[test]
    fn demands_sizes_and_delay() {
        let mut rng = rng(7, Demand::Large, 3, 0);
        let reqs = requests(Demand::Large, 3, &mut rng);
        assert_eq!(reqs.len(), 40);
        let large = reqs
            .iter()
            .filter(|r| r.duration.unwrap() >= Time::from_secs(80 * 60))
            .count();
        assert!(large >= 24, "6 large per user at least: {large}");
        assert!(reqs
            .iter()
            .all(|r| r.duration.unwrap() <= Time::from_secs(420 * 60)));
        assert!(reqs.iter().filter(|r| r.tenant == 3).all(|r| r.submit == DELAY));
        assert!(reqs
            .iter()
            .filter(|r| r.tenant != 3)
            .all(|r| r.submit == Time::ZERO));
    }
}
