//! The generator's default parameters: a stand-in for Google's 2011 trace,
//! not a fit of it (the trace is out of our reach). What each number
//! follows is in `docs/qos.md`, "Request traces"; in short:
//!
//! - requests normalised to the largest machine, most tasks small (medians
//!   of 1–6 % of a machine's CPU and memory) with a long tail (Reiss et al.,
//!   "Heterogeneity and dynamicity of clouds at scale", SoCC 2012, §4);
//! - durations heavy-tailed: most tasks minutes long, a few long services
//!   running to the end (ibid. §5);
//! - most tasks at free and low priorities, a few percent at production
//!   ones (ibid. §3; `ClusterData2011_2.md`: 0–1 free, 9–11 production);
//! - machine types and their counts at the trace's start (ibid. Table 1).

use super::{Bounds, ClassMix, GeneratorParams, MachineType, Spread, UserGroup};

/// One default group (a row of the table in [`Default for GeneratorParams`]).
#[allow(clippy::too_many_arguments)]
fn group(
    name: &str,
    users: u32,
    jobs: (f64, f64),
    tasks: (f64, f64),
    cpu: (f64, f64),
    memory: (f64, f64),
    duration: (f64, f64),
    service_share: f64,
    classes: (f64, f64, f64),
) -> UserGroup {
    UserGroup {
        name: name.to_string(),
        users,
        jobs_per_user: Bounds {
            min: jobs.0,
            max: jobs.1,
        },
        tasks_per_job: Bounds {
            min: tasks.0,
            max: tasks.1,
        },
        cpu: Spread {
            median: cpu.0,
            sigma: cpu.1,
        },
        memory: Spread {
            median: memory.0,
            sigma: memory.1,
        },
        duration: Spread {
            median: duration.0,
            sigma: duration.1,
        },
        service_share,
        classes: ClassMix {
            gold: classes.0,
            silver: classes.1,
            bronze: classes.2,
        },
        jobs_per_session: 10.0,
        job_gap: 120.0,
    }
}

impl Default for GeneratorParams {
    /// Six groups, sized so that a 7-day sample of 10 % of the users holds
    /// some 10,000 to 20,000 instances (requests, 001 §4.2) in 3,000 to
    /// 7,000 rows, depending on which heavy users it takes.
    fn default() -> GeneratorParams {
        // name, users, jobs/user, tasks/job, cpu (median, σ), memory (median, σ),
        // duration s (median, σ), service share, classes (gold, silver, bronze)
        let groups = vec![
            group(
                "occasional",
                400,
                (1.0, 20.0),
                (1.0, 2.0),
                (0.02, 0.5),
                (0.01, 0.5),
                (600.0, 1.0),
                0.02,
                (0.02, 0.28, 0.70),
            ),
            group(
                "batch",
                200,
                (25.0, 250.0),
                (1.0, 6.0),
                (0.03, 0.8),
                (0.02, 0.8),
                (900.0, 1.5),
                0.01,
                (0.01, 0.29, 0.70),
            ),
            group(
                "heavy-batch",
                30,
                (250.0, 1500.0),
                (1.0, 6.0),
                (0.02, 1.2),
                (0.015, 1.2),
                (300.0, 2.0),
                0.0,
                (0.0, 0.3, 0.7),
            ),
            group(
                "production",
                40,
                (5.0, 50.0),
                (1.0, 20.0),
                (0.06, 0.6),
                (0.05, 0.6),
                (7200.0, 1.5),
                0.4,
                (0.7, 0.3, 0.0),
            ),
            group(
                "monitoring",
                20,
                (20.0, 200.0),
                (1.0, 4.0),
                (0.01, 0.4),
                (0.005, 0.4),
                (60.0, 1.0),
                0.05,
                (0.5, 0.5, 0.0),
            ),
            group(
                "mixed",
                150,
                (10.0, 100.0),
                (1.0, 5.0),
                (0.04, 1.0),
                (0.03, 1.0),
                (1800.0, 1.2),
                0.05,
                (0.05, 0.45, 0.5),
            ),
        ];
        // Reiss et al. 2012, Table 1: (CPU, memory) and number of machines.
        let machines = [
            (0.5, 0.5, 6732.0),
            (0.5, 0.25, 3863.0),
            (0.5, 0.75, 1001.0),
            (1.0, 1.0, 795.0),
            (0.25, 0.25, 126.0),
            (0.5, 0.12, 52.0),
            (0.5, 0.03, 5.0),
            (0.5, 0.97, 5.0),
            (1.0, 0.5, 3.0),
            (0.5, 0.06, 1.0),
        ]
        .iter()
        .map(|&(cpu, memory, weight)| MachineType { cpu, memory, weight })
        .collect();
        GeneratorParams {
            horizon_days: 7.0,
            user_share: 0.1,
            population_seed: 2011,
            diurnal_amplitude: 0.3,
            min_request: 1e-4,
            groups,
            machines,
            pool_hosts: 200,
        }
    }
}
