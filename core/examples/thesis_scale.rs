//! Replays a synthetic thesis-size scenario through the engine and prints how
//! long it took (a sanity check of speed; the real benchmark is
//! `interstice bench replay`).
//!
//! `cargo run --release -p interstice-core --example thesis_scale -- [days] [m_conv] [policy] [cloud_runtime_s] [slack]`
//! defaults: 30 days, 2560, conservative, 60 s, 2.0 — 2,560 processors,
//! ~11,000 HPC jobs a month (38 % utilisation), a 1/2/4-processor, 180 s cloud
//! job every 10 s.

use interstice_core::{
    Decision, Driver, EndReason, Engine, EngineConfig, Job, JobId, JobKind, Policy, Shown, Summary, Time,
};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// A 64-bit linear congruential generator: the same scenario at every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.next() * (hi.ln() - lo.ln())).exp()
    }
}

/// The platform's processors.
const M: u32 = 2560;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let days: f64 = arg(1, "30").parse().expect("days");
    let conv: u32 = arg(2, "2560").parse().expect("m_conv");
    let policy: Policy = arg(3, "conservative").parse().expect("policy");
    let cloud_rt: i64 = arg(4, "60").parse().expect("cloud runtime");
    let slack: f64 = arg(5, "2.0").parse().expect("slack");
    let m = M;
    let horizon = (days * 86400.0) as i64;
    let mut rng = Lcg(42);
    let mut jobs = hpc_jobs(&mut rng, horizon);
    let n_hpc = jobs.len();
    jobs.extend(cloud_jobs(&mut rng, horizon, n_hpc as u64, conv, cloud_rt, slack));
    jobs.sort_by_key(|j| (j.submit, j.id));
    println!(
        "{} HPC + {} cloud jobs, m = {m}, m_conv = {conv}, {policy}",
        n_hpc,
        jobs.len() - n_hpc
    );
    let mut cfg = EngineConfig::new(m, policy);
    cfg.conv_procs = conv;
    let mut eng = Driver::new(Engine::new(cfg).expect("config"));
    let started = Instant::now();
    let passes = replay(&mut eng, &jobs);
    let elapsed = started.elapsed();
    let s = Summary::compute(eng.engine().records(), m);
    println!(
        "replayed in {:.2} s ({passes} passes); violations {} ({:.4} %), evictions {}, hpc makespan {:.0} s, utilisation {:.3}, thesis accuracy {:.3}, thesis precision {:.3}",
        elapsed.as_secs_f64(),
        s.violations,
        Shown(s.violation_percent),
        s.evictions,
        s.hpc_makespan,
        Shown(s.utilization),
        Shown(s.prediction.thesis_accuracy),
        Shown(s.prediction.thesis_precision)
    );
}

/// The HPC jobs up to `horizon` seconds, ids from 1: ~11,000 a month
/// (Poisson arrivals), 95 % on 1 to 16 processors and the rest on 16 to
/// 1,024, running a log-uniform minute to day, half their walltime.
fn hpc_jobs(rng: &mut Lcg, horizon: i64) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut id = 0u64;
    let mut t = 0.0;
    let gap = 30.0 * 86400.0 / 11000.0;
    while (t as i64) < horizon {
        id += 1;
        let procs = if rng.next() < 0.95 {
            rng.log_uniform(1.0, 17.0)
        } else {
            rng.log_uniform(16.0, 1025.0)
        } as u32;
        let run = rng.log_uniform(60.0, 86400.0);
        jobs.push(Job {
            id: JobId(id),
            submit: Time::from_secs(t as i64),
            walltime: Time::from_secs((run * 2.0) as i64),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(run as i64)),
            procs: procs.clamp(1, M),
            kind: JobKind::Hpc,
            slo: None,
        });
        t += -gap * (1.0 - rng.next()).ln();
    }
    jobs
}

/// The cloud jobs up to `horizon` seconds, ids after `last_id`: one every
/// 10 s on 1, 2 or 4 processors (at most the area's `conv`), a 180 s
/// walltime, running `cloud_rt` seconds, with an SLO of `slack` walltimes.
fn cloud_jobs(rng: &mut Lcg, horizon: i64, last_id: u64, conv: u32, cloud_rt: i64, slack: f64) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut id = last_id;
    let mut c = 0;
    while c < horizon {
        id += 1;
        let procs = [1, 2, 4][(rng.next() * 3.0) as usize % 3];
        jobs.push(Job {
            id: JobId(id),
            submit: Time::from_secs(c),
            walltime: Time::from_secs(180),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(cloud_rt)),
            procs: procs.min(conv.max(1)),
            kind: JobKind::Cloud,
            slo: Some(Time::from_secs(180).mul_f64(slack)),
        });
        c += 10;
    }
    jobs
}

/// Replays `jobs` (by submit time) through `eng` as a shell does: at each
/// instant the ends, then the arrivals, then a pass, each job running its
/// run time (at most its walltime) unless evicted. Returns the passes.
fn replay(eng: &mut Driver, jobs: &[Job]) -> u64 {
    let by_id: BTreeMap<JobId, Job> = jobs.iter().map(|j| (j.id, j.clone())).collect();
    let mut ends: BTreeSet<(Time, JobId)> = BTreeSet::new();
    let mut end_of: BTreeMap<JobId, Time> = BTreeMap::new();
    let mut next = 0;
    let mut passes = 0u64;
    loop {
        let cand = [
            ends.first().map(|e| e.0),
            jobs.get(next).map(|j| j.submit),
            eng.next_pass(),
        ];
        let Some(now) = cand.into_iter().flatten().min() else {
            break;
        };
        while let Some(&(te, jid)) = ends.first() {
            if te > now {
                break;
            }
            ends.remove(&(te, jid));
            end_of.remove(&jid);
            eng.job_ended(jid, te, EndReason::Completed).expect("end");
        }
        while next < jobs.len() && jobs[next].submit == now {
            eng.submit(jobs[next].clone()).expect("submit");
            next += 1;
        }
        passes += 1;
        for d in eng.pass(now).expect("no livelock") {
            match d {
                Decision::Start { id, .. } => {
                    let j = &by_id[&id];
                    let te = now + j.runtime.unwrap_or(j.walltime).min(j.walltime);
                    ends.insert((te, id));
                    end_of.insert(id, te);
                }
                Decision::Evict { id } => {
                    if let Some(te) = end_of.remove(&id) {
                        ends.remove(&(te, id));
                    }
                    eng.job_ended(id, now, EndReason::Evicted).expect("evict");
                }
                Decision::Reject { .. } => {}
            }
        }
    }
    passes
}
