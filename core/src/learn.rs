//! The learned predictor's memory: what finished jobs actually ran against
//! the walltime they asked for, and how often a predicted margin came true.
//!
//! The exact predictor plans every running and queued job at its whole
//! walltime, so it announces violations that early ends then avoid. The
//! learned predictor keeps that plan (the start it gives, `S`) and corrects
//! it with what the engine has seen end:
//!
//! ```text
//! start      = now + (S − now) · ρ_ahead
//! completion = start + walltime · ρ_self · λ
//! ρ_kind     = Σ procs·run / Σ procs·walltime over recently finished jobs of that kind
//! ρ_ahead    = c · ρ_cloud + (1 − c) · ρ_hpc   c: cloud share of the area's planned work over [now, S)
//!            = ρ over every job                 when the share is not known (shared-queue)
//! ρ_self     = ρ over cloud jobs of the job's width class (1, 2–3, 4–7, …), else over all cloud jobs
//! ```
//!
//! Every ratio is 1 until a job ends early, so with run time = walltime the
//! learned start and completion are the exact ones. The violation probability comes from a
//! calibration table: the outcomes of earlier cloud jobs whose learned
//! margin `(completion − deadline) / walltime` fell in the same bin, with
//! whether they could start at once. Everything is integer counts halved
//! when large: deterministic, bounded, no clock, no randomness, and every
//! answer a few array reads.

use crate::job::JobKind;
use crate::time::Time;

/// Recent weight kept by a ratio or a calibration bin: past this many
/// observations the counts are halved, so older history fades.
const HORIZON: u64 = 4096;

/// Σ procs·run and Σ procs·walltime over recently finished jobs.
#[derive(Clone, Copy, Debug, Default)]
struct RatioSums {
    run: u128,
    wall: u128,
    jobs: u64,
}

impl RatioSums {
    fn add(&mut self, procs: u32, run: Time, walltime: Time) {
        let wall = walltime.ticks().max(0) as u128 * procs as u128;
        let run = (run.ticks().max(0) as u128 * procs as u128).min(wall);
        self.run += run;
        self.wall += wall;
        self.jobs += 1;
        if self.jobs >= HORIZON {
            // Equal sums stay equal: a history of full runs keeps ratio 1.
            self.run >>= 1;
            self.wall >>= 1;
            self.jobs >>= 1;
        }
    }

    /// `Σ run / Σ walltime`, exactly 1 when nothing ended early (or nothing ended).
    fn ratio(&self) -> Option<f64> {
        match (self.run, self.wall) {
            (_, 0) => None,
            (run, wall) if run == wall => Some(1.0),
            (run, wall) => Some(run as f64 / wall as f64),
        }
    }
}

/// Width classes of cloud jobs: 1, 2–3, 4–7, … processors (log2, capped).
const WIDTH_CLASSES: usize = 8;

fn width_class(procs: u32) -> usize {
    (31 - procs.max(1).leading_zeros() as usize).min(WIDTH_CLASSES - 1)
}

/// Calibration bins over the learned margin in walltimes, `[-MARGIN_SPAN,
/// MARGIN_SPAN)` in steps of `1 / MARGIN_STEPS`, plus one below, one above
/// and one for "no start in sight"; each for a job that fits now and one that
/// must wait.
const MARGIN_SPAN: i64 = 2;
const MARGIN_STEPS: i64 = 16;
const MARGIN_BINS: usize = (2 * MARGIN_SPAN * MARGIN_STEPS) as usize + 3;

/// A calibration bin: cloud jobs seen and those that violated.
#[derive(Clone, Copy, Debug, Default)]
struct Bin {
    violated: u64,
    seen: u64,
}

/// Where a prediction falls in the calibration table (kept by the engine
/// with the job, so its outcome lands in the same bin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CalibrationBin(u16);

/// What the learned predictor has learned so far.
#[derive(Clone, Debug)]
pub(crate) struct Learner {
    /// Every finished job, then the HPC ones.
    all: RatioSums,
    hpc: RatioSums,
    /// Finished cloud jobs by width class, then all of them.
    cloud: [RatioSums; WIDTH_CLASSES],
    cloud_all: RatioSums,
    bins: Vec<Bin>,
}

impl Default for Learner {
    fn default() -> Self {
        Learner {
            all: RatioSums::default(),
            hpc: RatioSums::default(),
            cloud: [RatioSums::default(); WIDTH_CLASSES],
            cloud_all: RatioSums::default(),
            bins: vec![Bin::default(); 2 * MARGIN_BINS],
        }
    }
}

/// The learned predictor's answer before Algorithm 1's rules are applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LearnedStart {
    /// Predicted start (`None`: none in sight).
    pub start: Option<Time>,
    /// The job's own expected run time.
    pub run: Time,
}

impl Learner {
    /// A job ran `run` of its `walltime` on `procs` processors and ended on
    /// its own or at its walltime (evicted and killed runs teach nothing).
    pub fn job_ran(&mut self, kind: JobKind, procs: u32, run: Time, walltime: Time) {
        if walltime.is_infinite() || walltime <= Time::ZERO {
            return;
        }
        self.all.add(procs, run, walltime);
        match kind {
            JobKind::Hpc => self.hpc.add(procs, run, walltime),
            JobKind::Cloud => {
                self.cloud[width_class(procs)].add(procs, run, walltime);
                self.cloud_all.add(procs, run, walltime);
            }
        }
    }

    /// Whether the work ahead is a mix of kinds run at different ratios, so
    /// that [`Learner::estimate`] reads the cloud share (else it need not be
    /// computed).
    pub fn mixes_kinds(&self) -> bool {
        self.cloud_ratio() != self.hpc_ratio()
    }

    fn cloud_ratio(&self) -> f64 {
        self.cloud_all.ratio().unwrap_or(1.0)
    }

    fn hpc_ratio(&self) -> f64 {
        self.hpc.ratio().unwrap_or(1.0)
    }

    /// The learned start and run time of a cloud job of `procs` × `walltime`
    /// that the plan would start at `planned` (`None`: not in sight), asked
    /// at `now`, when cloud work is `cloud_share` of the area's planned work
    /// until then (`None`: not known).
    pub fn estimate(
        &self,
        procs: u32,
        walltime: Time,
        planned: Option<Time>,
        now: Time,
        cloud_share: Option<f64>,
    ) -> LearnedStart {
        let rho_ahead = match cloud_share {
            None => self.all.ratio().unwrap_or(1.0),
            // Equal ratios (1 and 1 before any early end) are the ratio
            // itself: a mix computed in floating point might not be.
            Some(_) if !self.mixes_kinds() => self.cloud_ratio(),
            Some(share) => {
                let share = share.clamp(0.0, 1.0);
                share * self.cloud_ratio() + (1.0 - share) * self.hpc_ratio()
            }
        };
        let start = planned.map(|s| {
            if rho_ahead != 1.0 && s > now {
                now + (s - now).mul_f64(rho_ahead)
            } else {
                s
            }
        });
        LearnedStart {
            start,
            run: self.expected_run(procs, walltime),
        }
    }

    /// A cloud job's expected run time: its walltime times the ratio of its
    /// width class (else of every cloud job), exactly the walltime until a
    /// cloud job ends early.
    pub fn expected_run(&self, procs: u32, walltime: Time) -> Time {
        let rho_self = self.cloud[width_class(procs)]
            .ratio()
            .or_else(|| self.cloud_all.ratio());
        match rho_self {
            Some(rho) if rho != 1.0 => walltime.mul_f64(rho),
            _ => walltime,
        }
    }

    /// The calibration bin of a prediction: its margin `violation_seconds`
    /// (`None`: no completion in sight) over a walltime of `walltime`, and
    /// whether the plan starts the job at once.
    pub fn bin_of(violation_seconds: Option<f64>, walltime: Time, immediate: bool) -> CalibrationBin {
        let margin_bin = match violation_seconds {
            None => MARGIN_BINS - 1,
            Some(v) => {
                let scaled = (v / walltime.as_secs_f64().max(1e-9) * MARGIN_STEPS as f64).floor();
                let lo = -(MARGIN_SPAN * MARGIN_STEPS) as f64;
                if scaled.is_nan() || scaled < lo {
                    0
                } else if scaled >= -lo {
                    MARGIN_BINS - 2
                } else {
                    (scaled - lo) as usize + 1
                }
            }
        };
        CalibrationBin((margin_bin + if immediate { MARGIN_BINS } else { 0 }) as u16)
    }

    /// The violation probability of a prediction in `bin` whose point
    /// estimate says `predicted`: the share of earlier jobs of that bin that
    /// violated, with the point estimate counted as one more observation (so
    /// an empty bin answers the point estimate).
    pub fn probability(&self, bin: CalibrationBin, predicted: bool) -> f64 {
        let b = self.bins[bin.0 as usize];
        (b.violated as f64 + if predicted { 1.0 } else { 0.0 }) / (b.seen as f64 + 1.0)
    }

    /// A cloud job predicted in `bin` ended: did it violate its SLO?
    pub fn outcome(&mut self, bin: CalibrationBin, violated: bool) {
        let b = &mut self.bins[bin.0 as usize];
        b.seen += 1;
        b.violated += violated as u64;
        if b.seen >= HORIZON {
            b.seen >>= 1;
            b.violated >>= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: i64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn full_runs_keep_the_plan() {
        let mut l = Learner::default();
        for i in 0..10_000 {
            l.job_ran(JobKind::Cloud, 1 + i % 5, secs(180), secs(180));
            l.job_ran(JobKind::Hpc, 64, secs(3600), secs(3600));
        }
        let e = l.estimate(2, secs(180), Some(secs(1000)), secs(100), Some(0.5));
        assert_eq!(
            e,
            LearnedStart {
                start: Some(secs(1000)),
                run: secs(180)
            }
        );
    }

    #[test]
    fn early_ends_shorten_the_wait_and_the_run() {
        let mut l = Learner::default();
        for _ in 0..100 {
            l.job_ran(JobKind::Cloud, 2, secs(90), secs(180));
        }
        let e = l.estimate(2, secs(180), Some(secs(1100)), secs(100), None);
        assert_eq!(e.start, Some(secs(600)));
        assert_eq!(e.run, secs(90));
        // No start in sight stays so; a start now stays now.
        assert_eq!(l.estimate(2, secs(180), None, secs(100), None).start, None);
        assert_eq!(
            l.estimate(2, secs(180), Some(secs(100)), secs(100), None).start,
            Some(secs(100))
        );
        // HPC jobs that ran their walltime: only the cloud share of the work ahead shrinks.
        for _ in 0..100 {
            l.job_ran(JobKind::Hpc, 2, secs(180), secs(180));
        }
        let shared = |share| {
            l.estimate(2, secs(180), Some(secs(1100)), secs(100), Some(share))
                .start
        };
        assert_eq!(shared(1.0), Some(secs(600)));
        assert_eq!(shared(0.0), Some(secs(1100)));
        assert_eq!(shared(0.5), Some(secs(850)));
    }

    #[test]
    fn the_run_time_is_learned_per_width() {
        let mut l = Learner::default();
        for _ in 0..50 {
            l.job_ran(JobKind::Cloud, 1, secs(180), secs(180));
            l.job_ran(JobKind::Cloud, 8, secs(45), secs(180));
        }
        assert_eq!(
            l.estimate(1, secs(180), Some(secs(0)), secs(0), None).run,
            secs(180)
        );
        assert_eq!(
            l.estimate(8, secs(180), Some(secs(0)), secs(0), None).run,
            secs(45)
        );
        // A width never seen falls back on every cloud job.
        let pooled = l.estimate(2, secs(180), Some(secs(0)), secs(0), None).run;
        assert!(pooled > secs(45) && pooled < secs(180), "{pooled}");
    }

    #[test]
    fn the_probability_follows_the_outcomes_of_its_bin() {
        let mut l = Learner::default();
        let bin = Learner::bin_of(Some(-10.0), secs(180), false);
        assert_eq!(l.probability(bin, false), 0.0);
        assert_eq!(l.probability(bin, true), 1.0);
        for i in 0..99 {
            l.outcome(bin, i % 3 == 0);
        }
        assert!((l.probability(bin, false) - 0.33).abs() < 1e-9);
        // Other bins are untouched.
        assert_eq!(
            l.probability(Learner::bin_of(Some(-10.0), secs(180), true), false),
            0.0
        );
        assert_eq!(l.probability(Learner::bin_of(None, secs(180), false), true), 1.0);
        // Counts stay bounded and keep their share.
        for i in 0..100_000 {
            l.outcome(bin, i % 4 == 0);
        }
        assert!(l.bins.iter().all(|b| b.seen < HORIZON));
        assert!((l.probability(bin, false) - 0.25).abs() < 0.01);
    }

    #[test]
    fn margins_fall_in_ordered_bins() {
        let wt = secs(100);
        let bins: Vec<u16> = [-1e9, -200.0, -199.0, -1.0, 0.0, 199.0, 200.0, 1e9]
            .iter()
            .map(|&v| Learner::bin_of(Some(v), wt, false).0)
            .collect();
        assert!(bins.windows(2).all(|w| w[0] <= w[1]), "{bins:?}");
        assert_eq!(bins[0], 0);
        assert_eq!(bins[1], 1);
        assert_eq!(*bins.last().unwrap() as usize, MARGIN_BINS - 2);
        assert_ne!(
            Learner::bin_of(Some(0.0), wt, true),
            Learner::bin_of(Some(0.0), wt, false)
        );
    }
}
