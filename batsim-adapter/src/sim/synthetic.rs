//! A seeded synthetic HPC workload shaped like the thesis's PIK-IPLEX month
//! (for `interstice bench replay` when no real trace is given): sparse
//! arrivals over the period, 1–1,024 processors per job with most jobs at 16
//! or fewer, run times from minutes to days, walltimes one to three times the
//! run time, and run times scaled so the offered load matches a target
//! utilisation (the thesis's trace: 38 %).

use interstice_core::{Job, JobId, JobKind, Time};
use interstice_swf::SplitMix64;

/// Shape of the synthetic workload.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticOptions {
    /// Machine size (job widths are capped to it).
    pub procs: u32,
    /// Number of jobs.
    pub jobs: usize,
    /// Arrivals fall in `[0, duration)`.
    pub duration: Time,
    /// Offered load: Σ procs × run time / (procs × duration).
    pub utilization: f64,
    /// Seed of the generator.
    pub seed: u64,
    /// Id of the first job (ids are consecutive in arrival order).
    pub first_id: u64,
}

impl SyntheticOptions {
    /// The thesis-size month's processors (PIK-IPLEX, May 2011).
    pub const THESIS_PROCS: u32 = 2560;
    /// The thesis-size month's jobs.
    pub const THESIS_JOBS: usize = 11_000;
    /// The thesis-size month's length, days.
    pub const THESIS_DAYS: u32 = 30;
    /// The thesis-size month's offered load.
    pub const THESIS_UTILIZATION: f64 = 0.38;
    /// The seed the commands generate with unless told otherwise.
    pub const DEFAULT_SEED: u64 = 2017;
    /// The most jobs a synthetic workload (or a benchmark's generated
    /// trace) may have: ten times the archive's largest traces, a few GB
    /// in memory; more is refused before anything is allocated.
    pub const MAX_JOBS: usize = 20_000_000;
    /// The longest synthetic workload, days (ten years; its cloud stream
    /// is generated over all of it).
    pub const MAX_DAYS: u32 = 3_650;

    /// The thesis-size month: 2,560 processors, 11,000 jobs, 30 days, 38 %.
    pub fn thesis(seed: u64) -> SyntheticOptions {
        SyntheticOptions {
            procs: Self::THESIS_PROCS,
            jobs: Self::THESIS_JOBS,
            duration: Time::from_secs(i64::from(Self::THESIS_DAYS) * 86_400),
            utilization: Self::THESIS_UTILIZATION,
            seed,
            first_id: 1,
        }
    }
}

/// Job widths and their weights (per mille), PIK-IPLEX-like: mostly ≤ 16.
const WIDTHS: [(u32, u32); 11] = [
    (1, 350),
    (2, 80),
    (4, 100),
    (8, 150),
    (16, 170),
    (32, 60),
    (64, 40),
    (128, 25),
    (256, 13),
    (512, 8),
    (1024, 4),
];
const MIN_RUNTIME_SECS: f64 = 60.0;
const MAX_RUNTIME_SECS: f64 = 5.0 * 86_400.0;
const WALLTIME_STEP_SECS: f64 = 900.0;

fn draw_width(rng: &mut SplitMix64) -> u32 {
    let total: u32 = WIDTHS.iter().map(|&(_, weight)| weight).sum();
    let mut pick = rng.below(total as u64) as u32;
    for &(width, weight) in &WIDTHS {
        if pick < weight {
            return width;
        }
        pick -= weight;
    }
    1
}

/// Generate the HPC jobs, sorted by arrival.
pub fn hpc_workload(options: &SyntheticOptions) -> Vec<Job> {
    let mut rng = SplitMix64::new(options.seed);
    let duration_secs = options.duration.as_secs_f64().max(1.0);
    let mut arrivals: Vec<f64> = (0..options.jobs)
        .map(|_| rng.uniform(0.0, duration_secs).floor())
        .collect();
    arrivals.sort_by(f64::total_cmp);
    let widths: Vec<u32> = (0..options.jobs)
        .map(|_| draw_width(&mut rng).min(options.procs.max(1)))
        .collect();
    let mut runtimes: Vec<f64> = (0..options.jobs)
        .map(|_| rng.log_uniform(600.0, 4.0 * 86_400.0))
        .collect();

    let area: f64 = widths.iter().zip(&runtimes).map(|(&w, &r)| w as f64 * r).sum();
    let target = options.utilization * options.procs as f64 * duration_secs;
    let scale = if area > 0.0 { target / area } else { 1.0 };
    for runtime in &mut runtimes {
        *runtime = (*runtime * scale)
            .clamp(MIN_RUNTIME_SECS, MAX_RUNTIME_SECS)
            .round();
    }

    arrivals
        .into_iter()
        .zip(widths)
        .zip(runtimes)
        .enumerate()
        .map(|(job_idx, ((submit, procs), runtime))| {
            let factor = rng.uniform(1.0, 3.0);
            let walltime = ((runtime * factor) / WALLTIME_STEP_SECS).ceil().max(1.0) * WALLTIME_STEP_SECS;
            Job {
                id: JobId(options.first_id + job_idx as u64),
                submit: Time::from_secs_f64(submit),
                walltime: Time::from_secs_f64(walltime),
                walltime_enforced: true,
                runtime: Some(Time::from_secs_f64(runtime)),
                procs,
                kind: JobKind::Hpc,
                slo: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_shape_is_met_and_seeded() {
        let options = SyntheticOptions::thesis(42);
        let jobs = hpc_workload(&options);
        assert_eq!(jobs.len(), 11_000);
        assert_eq!(jobs, hpc_workload(&options));
        assert_ne!(jobs, hpc_workload(&SyntheticOptions::thesis(43)));
        assert!(jobs.windows(2).all(|pair| pair[0].submit <= pair[1].submit));
        assert!(jobs.iter().all(|job| (1..=1024).contains(&job.procs)));
        assert!(jobs.iter().all(|job| job.runtime.unwrap() <= job.walltime));
        let small = jobs.iter().filter(|job| job.procs <= 16).count();
        assert!(
            small as f64 > 0.75 * jobs.len() as f64,
            "{small} jobs <= 16 procs"
        );
        let area: f64 = jobs
            .iter()
            .map(|job| job.procs as f64 * job.runtime.unwrap().as_secs_f64())
            .sum();
        let utilization = area / (2560.0 * 30.0 * 86_400.0);
        assert!((0.30..0.45).contains(&utilization), "utilization {utilization}");
        assert!(jobs.last().unwrap().submit < Time::from_secs(30 * 86_400));
    }
}
