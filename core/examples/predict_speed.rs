//! Times `Engine::predict` on a plan of 10,000 jobs (2,560 processors,
//! conservative): p50/p99 latency and throughput.
//!
//! `cargo run --release -p interstice-core --example predict_speed -- [jobs] [m_conv]`

use interstice_core::{Engine, EngineConfig, Job, JobId, JobKind, Policy, Time};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let conv: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2560);
    let mut cfg = EngineConfig::new(2560, Policy::Conservative);
    cfg.conv_procs = conv;
    let mut eng = Engine::new(cfg).expect("config");
    let mut x = 7u64;
    let mut rnd = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let build = Instant::now();
    for i in 0..n {
        let procs = if i % 10 == 0 {
            64 + rnd(512) as u32
        } else {
            1 + rnd(32) as u32
        };
        let kind = if i % 3 == 0 { JobKind::Cloud } else { JobKind::Hpc };
        let procs = if kind == JobKind::Cloud {
            1 + rnd(4) as u32
        } else {
            procs
        };
        eng.submit(Job {
            id: JobId(i),
            submit: Time::ZERO,
            walltime: Time::from_secs(60 + rnd(36_000) as i64),
            walltime_enforced: true,
            runtime: None,
            procs,
            kind,
            slo: Some(Time::from_secs(600)),
        })
        .expect("submit");
    }
    eng.schedule(Time::ZERO);
    println!("plan of {n} jobs built in {:.2} s", build.elapsed().as_secs_f64());
    let mut lat = Vec::new();
    let total = Instant::now();
    for i in 0..20_000u32 {
        let t = Instant::now();
        let p = eng.predict(
            1 + i % 4,
            Time::from_secs(180),
            Some(Time::from_secs(360)),
            Time::ZERO,
        );
        lat.push(t.elapsed().as_secs_f64());
        std::hint::black_box(p);
    }
    let secs = total.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    println!(
        "{n} jobs ({} queued HPC, {} queued cloud): p50 {:.1} µs, p99 {:.1} µs, {:.0} predictions/s",
        eng.queued(JobKind::Hpc),
        eng.queued(JobKind::Cloud),
        lat[lat.len() / 2] * 1e6,
        lat[lat.len() * 99 / 100] * 1e6,
        lat.len() as f64 / secs
    );
}
