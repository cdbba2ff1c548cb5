//! Google-like workload samples: a documented, parametric stand-in for the
//! samples 001 §4.2 drew from Google's 2011 trace, which our machines cannot
//! reach (`docs/qos.md`, "Request traces").
//!
//! The paper clustered Google's users with k-means (on each user's number
//! of requests and the variances of their CPU, memory and duration) into six
//! groups, and built each sample from 10 % of each group's users, all their
//! requests. Here each [`UserGroup`] describes such a group by distributions
//! instead of by its users: how many users, how many jobs each submits, how
//! many tasks (instances) per job, the CPU, memory and duration of its
//! requests (log-normal: the median and σ, the group's spread), the share of
//! services running to the end, the class mix, and how its users' jobs
//! arrive (in sessions, with a diurnal shape).
//!
//! A population is fixed by [`GeneratorParams::population_seed`]: user `u`
//! of group `g` always submits the same jobs. A sample's seed only chooses
//! which users it takes (10 % of each group, at least one), so, as in the
//! paper, different samples are different subsets of one population, and
//! every sample is reproducible from (parameters, seed).

use crate::request_trace::{Host, TraceRequest};
use crate::rng::SplitMix64;
use serde::{Deserialize, Serialize};

/// Seconds in a day.
const DAY: f64 = 86_400.0;

/// Mixed into a sample's seed to draw its hosts from the pool, so that the
/// hosts do not follow the users' draws.
const HOSTS_MIX: u64 = 0x6A09_E667_F3BC_C908;

/// The generator's parameters: the `sample:` section of a study file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GeneratorParams {
    /// Length of a sample, in days (submissions fall in `[0, horizon)`).
    pub horizon_days: f64,
    /// The share of each group's users a sample takes (001 §4.2: 10 %).
    pub user_share: f64,
    /// Fixes the population: every user's jobs. A sample's seed only picks users.
    pub population_seed: u64,
    /// Day/night swing of the session starts, 0 (flat) to 1 (none at night's trough).
    pub diurnal_amplitude: f64,
    /// Smallest CPU or memory request (the trace's normalised values have a floor).
    pub min_request: f64,
    /// The user groups.
    pub groups: Vec<UserGroup>,
    /// Machine types of the host pool, with their weights.
    pub machines: Vec<MachineType>,
    /// Hosts in a sample's `hosts.csv`, drawn from `machines` by weight.
    pub pool_hosts: u32,
}

/// One group of users, as 001 §4.2's k-means found six.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserGroup {
    /// A name for the group (users are named `NAME-NNN`).
    pub name: String,
    /// Users in the population.
    pub users: u32,
    /// Jobs a user submits over the horizon: log-uniform between the bounds.
    pub jobs_per_user: Bounds,
    /// Tasks (identical instances) per job: log-uniform between the bounds, rounded.
    pub tasks_per_job: Bounds,
    /// CPU per task, normalised to the largest machine (≤ 1).
    pub cpu: Spread,
    /// Memory per task, normalised to the largest machine (≤ 1).
    pub memory: Spread,
    /// Seconds a job runs (at most the horizon).
    pub duration: Spread,
    /// Share of jobs that are services, running to the end (no duration).
    pub service_share: f64,
    /// Shares of the classes among the group's jobs.
    pub classes: ClassMix,
    /// Mean jobs per session: a user's jobs come in bursts.
    pub jobs_per_session: f64,
    /// Mean seconds between two jobs of a session (exponential).
    pub job_gap: f64,
}

/// Bounds of a log-uniform draw.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Smallest value (> 0).
    pub min: f64,
    /// Largest value (≥ min).
    pub max: f64,
}

/// A log-normal draw: its median and the σ of its logarithm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spread {
    /// The median (> 0).
    pub median: f64,
    /// σ of the logarithm (≥ 0): the group's variance.
    pub sigma: f64,
}

/// Shares of gold, silver and bronze jobs (they need not add up to 1: they are weights).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassMix {
    /// Priorities 9–11 (production, monitoring).
    pub gold: f64,
    /// Priorities 2–8.
    pub silver: f64,
    /// Priorities 0–1 (free).
    pub bronze: f64,
}

/// A machine type of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineType {
    /// CPU capacity, normalised to the largest machine.
    pub cpu: f64,
    /// Memory capacity, normalised to the largest machine.
    pub memory: f64,
    /// Relative frequency (the trace's machine count of the type).
    pub weight: f64,
}

/// The study file's view: the `sample:` section, other keys ignored.
#[derive(Deserialize)]
struct Section {
    sample: Option<GeneratorParams>,
}

impl GeneratorParams {
    /// The `sample:` section of the YAML `text` (a study file, or the
    /// `params.yaml` a generation leaves), checked; `place` names the file.
    pub fn from_yaml(text: &str, place: &str) -> Result<GeneratorParams, String> {
        let section: Section = crate::error::from_yaml(text, place)?;
        let params = section.sample.ok_or_else(|| {
            format!("{place}: no `sample:` section: write the generator's parameters under `sample:` (see docs/qos.md)")
        })?;
        params.check().map_err(|e| format!("{place}: sample.{e}"))?;
        Ok(params)
    }

    /// Every value usable, or the first that is not: its path and the fix.
    pub fn check(&self) -> Result<(), String> {
        let positive = |v: f64, path: &str| {
            (v.is_finite() && v > 0.0)
                .then_some(())
                .ok_or_else(|| format!("{path}: {v} must be a number > 0"))
        };
        let share = |v: f64, path: &str| {
            (0.0..=1.0)
                .contains(&v)
                .then_some(())
                .ok_or_else(|| format!("{path}: {v} must be a share from 0 to 1"))
        };
        positive(self.horizon_days, "horizon_days")?;
        positive(self.user_share, "user_share")?;
        share(self.user_share, "user_share")?;
        share(self.diurnal_amplitude, "diurnal_amplitude")?;
        positive(self.min_request, "min_request")?;
        if self.groups.is_empty() {
            return Err("groups: empty: give at least one group of users".into());
        }
        for (i, g) in self.groups.iter().enumerate() {
            let at = |field: &str| format!("groups[{i}] ({}).{field}", g.name);
            if g.users == 0 {
                return Err(format!("{}: 0: a group has at least one user", at("users")));
            }
            for (b, field) in [
                (g.jobs_per_user, "jobs_per_user"),
                (g.tasks_per_job, "tasks_per_job"),
            ] {
                positive(b.min, &at(&format!("{field}.min")))?;
                if !(b.max >= b.min && b.max.is_finite()) {
                    return Err(format!(
                        "{}: {} must be ≥ min ({})",
                        at(&format!("{field}.max")),
                        b.max,
                        b.min
                    ));
                }
            }
            for (s, field) in [(g.cpu, "cpu"), (g.memory, "memory"), (g.duration, "duration")] {
                positive(s.median, &at(&format!("{field}.median")))?;
                if !(s.sigma.is_finite() && s.sigma >= 0.0) {
                    return Err(format!(
                        "{}: {} must be ≥ 0",
                        at(&format!("{field}.sigma")),
                        s.sigma
                    ));
                }
            }
            share(g.service_share, &at("service_share"))?;
            let c = g.classes;
            if ![c.gold, c.silver, c.bronze]
                .iter()
                .all(|w| w.is_finite() && *w >= 0.0)
                || c.gold + c.silver + c.bronze <= 0.0
            {
                return Err(format!("{}: weights must be ≥ 0, not all 0", at("classes")));
            }
            positive(g.jobs_per_session, &at("jobs_per_session"))?;
            positive(g.job_gap, &at("job_gap"))?;
        }
        if self.machines.is_empty() {
            return Err("machines: empty: give at least one machine type".into());
        }
        for (i, m) in self.machines.iter().enumerate() {
            positive(m.cpu, &format!("machines[{i}].cpu"))?;
            positive(m.memory, &format!("machines[{i}].memory"))?;
            positive(m.weight, &format!("machines[{i}].weight"))?;
        }
        Ok(())
    }

    /// The horizon in seconds.
    pub fn horizon(&self) -> f64 {
        self.horizon_days * DAY
    }

    /// How many of `users` a sample takes: the share, rounded, at least one.
    pub fn sampled_users(&self, users: u32) -> u32 {
        ((users as f64 * self.user_share).round() as u32).clamp(1, users)
    }
}

/// The users a sample of `seed` takes from each group, as `(group, user)` indices in order.
pub fn sampled_users(params: &GeneratorParams, seed: u64) -> Vec<(usize, u32)> {
    let mut rng = SplitMix64::new(seed);
    let mut chosen = Vec::new();
    for (g, group) in params.groups.iter().enumerate() {
        let take = params.sampled_users(group.users) as usize;
        // A partial Fisher–Yates shuffle: the first `take` of a random order.
        let mut ids: Vec<u32> = (0..group.users).collect();
        for i in 0..take {
            let j = i + rng.below((ids.len() - i) as u64) as usize;
            ids.swap(i, j);
        }
        let mut picked = ids[..take].to_vec();
        picked.sort_unstable();
        chosen.extend(picked.into_iter().map(|u| (g, u)));
    }
    chosen
}

/// The sample of `seed`: every job of the users it takes, sorted by submit
/// (ties in group, user and job order).
pub fn generate(params: &GeneratorParams, seed: u64) -> Vec<TraceRequest> {
    let mut rows: Vec<TraceRequest> = sampled_users(params, seed)
        .into_iter()
        .flat_map(|(g, u)| user_jobs(params, g, u))
        .collect();
    rows.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    rows
}

/// The generator of user `u` of group `g` in the population.
fn user_rng(params: &GeneratorParams, g: usize, u: u32) -> SplitMix64 {
    let mut mix = SplitMix64::new(params.population_seed ^ ((g as u64) << 40) ^ u as u64);
    SplitMix64::new(mix.next_u64())
}

/// Every job user `u` of group `g` submits within the horizon.
pub fn user_jobs(params: &GeneratorParams, g: usize, u: u32) -> Vec<TraceRequest> {
    let group = &params.groups[g];
    let horizon = params.horizon();
    let mut rng = user_rng(params, g, u);
    let jobs = rng
        .log_uniform(group.jobs_per_user.min, group.jobs_per_user.max + 1e-9)
        .round()
        .max(1.0) as u32;
    let user = format!("{}-{u:03}", group.name);
    let mut rows = Vec::with_capacity(jobs as usize);
    let mut in_session = 0.0;
    let mut at = 0.0;
    for _ in 0..jobs {
        if in_session <= 0.0 {
            in_session = rng.exponential(group.jobs_per_session).ceil().max(1.0);
            at = session_start(&mut rng, horizon, params.diurnal_amplitude);
        } else {
            at += rng.exponential(group.job_gap);
        }
        in_session -= 1.0;
        let row = job(&mut rng, params, group, &user, at);
        if row.submit < horizon {
            rows.push(row);
        }
    }
    rows
}

/// A session's start: uniform over the horizon, thinned by a day/night
/// cosine (the peak at 14:00, the trough at 02:00).
fn session_start(rng: &mut SplitMix64, horizon: f64, amplitude: f64) -> f64 {
    loop {
        let t = rng.uniform(0.0, horizon);
        let phase = std::f64::consts::TAU * (t / DAY - 14.0 / 24.0);
        let keep = (1.0 + amplitude * phase.cos()) / (1.0 + amplitude);
        if rng.next_f64() < keep {
            return t;
        }
    }
}

/// One job submitted at `at`.
fn job(
    rng: &mut SplitMix64,
    params: &GeneratorParams,
    group: &UserGroup,
    user: &str,
    at: f64,
) -> TraceRequest {
    let c = group.classes;
    let pick = rng.uniform(0.0, c.gold + c.silver + c.bronze);
    let class = if pick < c.gold {
        "gold"
    } else if pick < c.gold + c.silver {
        "silver"
    } else {
        "bronze"
    };
    let tasks = rng
        .log_uniform(group.tasks_per_job.min, group.tasks_per_job.max + 1e-9)
        .round()
        .max(1.0);
    let request = |rng: &mut SplitMix64, s: Spread| {
        let v = rng.log_normal(s.median, s.sigma).clamp(params.min_request, 1.0);
        ((v * 1e6).round() / 1e6).max(params.min_request)
    };
    let cpu = request(rng, group.cpu);
    let memory = request(rng, group.memory);
    let service = rng.next_f64() < group.service_share;
    let length = rng.log_normal(group.duration.median, group.duration.sigma);
    TraceRequest {
        submit: (at * 1e3).round() / 1e3,
        duration: (!service).then(|| length.round().clamp(1.0, params.horizon())),
        cpu,
        memory,
        instances: tasks as u32,
        class: class.to_string(),
        user: user.to_string(),
        constraints: Vec::new(),
    }
}

/// The host pool of a sample of `seed`: `pool_hosts` machines drawn from
/// `machines` by weight, in the order a study adds them (001 §4.3).
pub fn hosts(params: &GeneratorParams, seed: u64) -> Vec<Host> {
    let mut rng = SplitMix64::new(seed ^ HOSTS_MIX);
    let total: f64 = params.machines.iter().map(|m| m.weight).sum();
    (0..params.pool_hosts)
        .map(|_| {
            let mut pick = rng.uniform(0.0, total);
            let m = params
                .machines
                .iter()
                .find(|m| {
                    pick -= m.weight;
                    pick < 0.0
                })
                .unwrap_or(&params.machines[params.machines.len() - 1]);
            Host {
                cpu: m.cpu,
                memory: m.memory,
            }
        })
        .collect()
}

mod defaults;

#[cfg(test)]
mod tests;
