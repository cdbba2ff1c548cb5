//! Cloud-job injection (the thesis's validation, SPEC §7): one cloud job every
//! `interval` over a time span, with a processor count drawn from a fixed
//! value or a weighted list, a walltime, a run time, and an SLO of
//! `slack × walltime` ([`interstice_core::slo_for`]).
//!
//! The walltime given is the cloud user's request `wt^c`; the job gets the
//! thesis's reconciled walltime `wt = wt^c × α` (§4.4.1,
//! [`interstice_core::reconcile_walltime`], here and nowhere else), while
//! its SLO stays `slack × wt^c` (`SLO_j = SLO^c`) and its run time is drawn
//! from `wt^c` (α changes what the platform plans and enforces, not the
//! work).
//!
//! The one injector: `swf inject`, `interstice replay`/`sweep` and the Batsim
//! adapter (which pulls from [`CloudJobs`] as simulated time advances) all use
//! [`inject_cloud_jobs`]. Randomness comes only from [`SplitMix64`]: processor
//! counts from `SplitMix64(seed)` and run times from
//! `SplitMix64(seed ^ RUNTIME_SEED_MIX)`, one draw each per job in submission
//! order, so the same options give the same jobs on every platform.

use crate::error::SwfError;
pub use crate::rng::SplitMix64;
use interstice_core::{reconcile_walltime, Job, JobId, JobKind, Time};
use std::fmt;
use std::str::FromStr;

/// Mixed into [`InjectOptions::seed`] to seed the run-time draws, so they do
/// not follow the processor draws.
pub const RUNTIME_SEED_MIX: u64 = 0x5EED_C10D_0000_0001;

/// How many processors each cloud job asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum ProcsChoice {
    /// Always this many.
    Fixed(u32),
    /// Drawn with these weights (positive; normalised when drawing).
    Weighted(Vec<(u32, f64)>),
}

impl ProcsChoice {
    /// The largest count this can draw.
    pub fn max(&self) -> u32 {
        match self {
            ProcsChoice::Fixed(p) => *p,
            ProcsChoice::Weighted(choices) => choices.iter().map(|&(p, _)| p).max().unwrap_or(1),
        }
    }

    /// Draw a processor count.
    pub fn draw(&self, rng: &mut SplitMix64) -> u32 {
        match self {
            ProcsChoice::Fixed(p) => *p,
            ProcsChoice::Weighted(choices) => {
                let total: f64 = choices.iter().map(|(_, w)| w).sum();
                let mut x = rng.next_f64() * total;
                for (p, w) in choices {
                    if x < *w {
                        return *p;
                    }
                    x -= w;
                }
                choices.last().map(|(p, _)| *p).unwrap_or(1)
            }
        }
    }
}

/// Parses `4` (always 4), `1,2,4` (uniform) or `1:0.5,2:0.3,4:0.2` (weights).
impl FromStr for ProcsChoice {
    type Err = SwfError;

    fn from_str(s: &str) -> Result<Self, SwfError> {
        let bad = |why: String| {
            SwfError::Option(format!(
                "--procs {s:?}: {why} (expected a count like 4, a list like 1,2,4, or weights like 1:0.5,2:0.5)"
            ))
        };
        let mut choices = Vec::new();
        for part in s.split(',') {
            let part = part.trim();
            let (p, w) = match part.split_once(':') {
                Some((p, w)) => {
                    let w: f64 = w
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("weight {w:?} is not a number")))?;
                    if !(w.is_finite() && w > 0.0) {
                        return Err(bad(format!("weight {w} must be positive")));
                    }
                    (p.trim(), w)
                }
                None => (part, 1.0),
            };
            let p: u32 = p
                .parse()
                .map_err(|_| bad(format!("{p:?} is not a processor count")))?;
            if p == 0 {
                return Err(bad("a job needs at least one processor".to_string()));
            }
            choices.push((p, w));
        }
        Ok(match choices.as_slice() {
            [(p, _)] => ProcsChoice::Fixed(*p),
            _ => ProcsChoice::Weighted(choices),
        })
    }
}

/// A length in seconds, or a fraction of the job's walltime (`0.1w`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// Seconds.
    Seconds(f64),
    /// Fraction of the job's walltime.
    OfWalltime(f64),
}

impl Amount {
    /// Seconds for a job of this walltime.
    pub fn seconds(self, walltime: Time) -> f64 {
        match self {
            Amount::Seconds(secs) => secs,
            Amount::OfWalltime(fraction) => fraction * walltime.as_secs_f64(),
        }
    }

    fn value(self) -> f64 {
        match self {
            Amount::Seconds(value) | Amount::OfWalltime(value) => value,
        }
    }
}

/// Why a length ([`Amount`]) does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AmountError {
    /// Neither seconds nor a walltime fraction.
    #[error("{0:?} is not a length: expected seconds (`120`) or a walltime fraction (`0.1w`)")]
    NotALength(String),
    /// Negative, infinite or NaN.
    #[error("{0:?} must be a finite number >= 0")]
    OutOfRange(String),
}

/// Parses seconds (`120`, `120s`) or a fraction of the walltime (`0.1w`):
/// a finite number ≥ 0.
impl FromStr for Amount {
    type Err = AmountError;

    fn from_str(text: &str) -> Result<Self, AmountError> {
        let text = text.trim();
        let (number, of_walltime) = match text.strip_suffix(['w', 'W']) {
            Some(number) => (number, true),
            None => (text.strip_suffix('s').unwrap_or(text), false),
        };
        let value: f64 = number
            .trim()
            .parse()
            .map_err(|_| AmountError::NotALength(text.to_string()))?;
        if !value.is_finite() || value < 0.0 {
            return Err(AmountError::OutOfRange(text.to_string()));
        }
        Ok(if of_walltime {
            Amount::OfWalltime(value)
        } else {
            Amount::Seconds(value)
        })
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Seconds(secs) => write!(f, "{secs}"),
            Amount::OfWalltime(fraction) => write!(f, "{fraction}w"),
        }
    }
}

/// The actual run time of each cloud job, drawn from its walltime: a fixed
/// length, a fraction of the walltime, or a seeded distribution. The one
/// syntax of `swf inject --runtime`, `replay --cloud-runtime` and
/// `batsim --cloud-runtime`:
/// `walltime`, `120`, `0.1w`, `uniform:30:180`, `uniform:0.1w:0.5w`, `exp:60`, `exp:0.25w`.
///
/// Batsim kills a `delay` job whose delay is not below its walltime
/// (`COMPLETED_WALLTIME_REACHED`), so a run time ≥ the walltime (`walltime`,
/// `1w`) makes a job that ends killed at its walltime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuntimeSpec {
    /// Always this length (> 0).
    Fixed(Amount),
    /// Uniform between the two lengths (`0 <= LO <= HI`).
    Uniform(Amount, Amount),
    /// Exponential with this mean (> 0).
    Exponential(Amount),
}

impl RuntimeSpec {
    /// The run time = the walltime (`walltime`, `1w`), the default.
    pub const WALLTIME: RuntimeSpec = RuntimeSpec::Fixed(Amount::OfWalltime(1.0));

    /// Draw a run time for a job of this walltime (the generator is used only
    /// by the distributions, one draw per job).
    pub fn sample(&self, walltime: Time, rng: &mut SplitMix64) -> Time {
        let secs = match *self {
            RuntimeSpec::Fixed(amount) => amount.seconds(walltime),
            RuntimeSpec::Uniform(lo, hi) => rng.uniform(lo.seconds(walltime), hi.seconds(walltime)),
            RuntimeSpec::Exponential(mean) => rng.exponential(mean.seconds(walltime)),
        };
        Time::from_secs_f64(secs.max(0.0))
    }
}

/// Parses the forms listed on [`RuntimeSpec`].
impl FromStr for RuntimeSpec {
    type Err = SwfError;

    fn from_str(text: &str) -> Result<Self, SwfError> {
        let text = text.trim();
        let bad = |why: String| {
            SwfError::Option(format!(
                "bad run time {text:?}: {why} (expected `walltime`, seconds `120`, a walltime fraction \
                 `0.1w`, `uniform:LO:HI` or `exp:MEAN`)"
            ))
        };
        if text == "walltime" {
            return Ok(RuntimeSpec::WALLTIME);
        }
        let parts: Vec<&str> = text.split(':').collect();
        let spec = match parts.as_slice() {
            [single] => {
                let amount: Amount = single.parse().map_err(|e: AmountError| bad(e.to_string()))?;
                if amount.value() <= 0.0 {
                    return Err(bad("a run time must be positive".into()));
                }
                RuntimeSpec::Fixed(amount)
            }
            ["uniform", lo, hi] => {
                let (lo, hi): (Amount, Amount) = (
                    lo.parse().map_err(|e: AmountError| bad(e.to_string()))?,
                    hi.parse().map_err(|e: AmountError| bad(e.to_string()))?,
                );
                if std::mem::discriminant(&lo) == std::mem::discriminant(&hi) && lo.value() > hi.value() {
                    return Err(bad(format!("LO {lo} is above HI {hi}")));
                }
                RuntimeSpec::Uniform(lo, hi)
            }
            ["exp", mean] => {
                let mean: Amount = mean.parse().map_err(|e: AmountError| bad(e.to_string()))?;
                if mean.value() <= 0.0 {
                    return Err(bad("the mean must be positive".into()));
                }
                RuntimeSpec::Exponential(mean)
            }
            _ => return Err(bad("unknown form".into())),
        };
        Ok(spec)
    }
}

impl fmt::Display for RuntimeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeSpec::Fixed(amount) => write!(f, "{amount}"),
            RuntimeSpec::Uniform(lo, hi) => write!(f, "uniform:{lo}:{hi}"),
            RuntimeSpec::Exponential(mean) => write!(f, "exp:{mean}"),
        }
    }
}

/// Everything that shapes the injected cloud jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct InjectOptions {
    /// Time between two cloud jobs (> 0).
    pub interval: Time,
    /// Processors of each job.
    pub procs: ProcsChoice,
    /// Walltime each job asks for, `wt^c`.
    pub walltime: Time,
    /// Run time of each job (fractions are of `wt^c`).
    pub runtime: RuntimeSpec,
    /// SLO = `slack × wt^c` (≥ 1 makes sense; any positive value is accepted).
    pub slack: f64,
    /// Reconciliation factor α: each job's walltime is `wt^c × α`
    /// ([`crate::defaults::ALPHA`] = 1 leaves it unchanged).
    pub alpha: f64,
    /// Seed of every random draw.
    pub seed: u64,
}

impl InjectOptions {
    /// Check the options: positive interval, walltime, slack and α.
    pub fn validate(&self) -> Result<(), SwfError> {
        if self.interval <= Time::ZERO {
            return Err(SwfError::Option(
                "--interval must be positive seconds".to_string(),
            ));
        }
        if self.walltime <= Time::ZERO || self.walltime.is_infinite() {
            return Err(SwfError::Option(
                "--walltime must be positive seconds".to_string(),
            ));
        }
        if !interstice_core::slo::valid_slack(self.slack) {
            return Err(SwfError::Option(format!(
                "--slack {} must be a positive number",
                self.slack
            )));
        }
        if !interstice_core::valid_alpha(self.alpha) {
            return Err(SwfError::Option(format!(
                "--alpha {} must be a positive number (1 leaves the walltime unchanged)",
                self.alpha
            )));
        }
        Ok(())
    }

    /// The SLO of every injected job ([`interstice_core::slo_for`] of the
    /// requested walltime `wt^c`).
    pub fn slo(&self) -> Time {
        interstice_core::slo_for(self.walltime, self.slack)
    }

    /// The walltime of every injected job: `wt^c × α`.
    pub fn reconciled_walltime(&self) -> Time {
        reconcile_walltime(self.walltime, self.alpha)
    }
}

/// Cloud jobs submitted at `from`, `from + interval`, … up to and including
/// `to`, with ids `first_id`, `first_id + 1`, …, generated one at a time
/// (memory does not grow with their number). Nothing when `to < from` or
/// the interval is not positive.
pub fn inject_cloud_jobs(opts: &InjectOptions, from: Time, to: Time, first_id: u64) -> CloudJobs {
    CloudJobs {
        rng: SplitMix64::new(opts.seed),
        runtime_rng: SplitMix64::new(opts.seed ^ RUNTIME_SEED_MIX),
        slo: opts.slo(),
        walltime: opts.reconciled_walltime(),
        next: (opts.interval > Time::ZERO && to >= from).then_some(from),
        to,
        id: first_id,
        opts: opts.clone(),
    }
}

/// The iterator of [`inject_cloud_jobs`], in submission order.
#[derive(Clone, Debug)]
pub struct CloudJobs {
    opts: InjectOptions,
    rng: SplitMix64,
    runtime_rng: SplitMix64,
    slo: Time,
    walltime: Time,
    next: Option<Time>,
    to: Time,
    id: u64,
}

impl CloudJobs {
    /// The submit time of the next job, if any (without drawing it).
    pub fn next_submit(&self) -> Option<Time> {
        self.next.filter(|&submit| submit <= self.to)
    }

    /// The options the jobs are drawn with.
    pub fn options(&self) -> &InjectOptions {
        &self.opts
    }
}

impl Iterator for CloudJobs {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        let submit = self.next_submit()?;
        let job = Job {
            id: JobId(self.id),
            submit,
            walltime: self.walltime,
            walltime_enforced: true,
            runtime: Some(
                self.opts
                    .runtime
                    .sample(self.opts.walltime, &mut self.runtime_rng),
            ),
            procs: self.opts.procs.draw(&mut self.rng),
            kind: JobKind::Cloud,
            slo: Some(self.slo),
        };
        self.id += 1;
        let next = submit + self.opts.interval;
        self.next = (next != submit && !next.is_infinite()).then_some(next);
        Some(job)
    }

    /// Exact: the injection instants left up to `to`.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = match self.next {
            Some(next) if next <= self.to && self.opts.interval > Time::ZERO => {
                usize::try_from((self.to - next).ticks() / self.opts.interval.ticks())
                    .ok()
                    .and_then(|n| n.checked_add(1))
            }
            _ => Some(0),
        };
        (left.unwrap_or(usize::MAX), left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(procs: &str) -> InjectOptions {
        InjectOptions {
            interval: Time::from_secs(10),
            procs: procs.parse().unwrap(),
            walltime: Time::from_secs(180),
            runtime: "0.1w".parse().unwrap(),
            slack: 1.5,
            alpha: crate::defaults::ALPHA,
            seed: 42,
        }
    }

    #[test]
    fn alpha_reconciles_the_walltime_only() {
        let plain =
            inject_cloud_jobs(&opts("1,2,4"), Time::ZERO, Time::from_secs(100), 1).collect::<Vec<_>>();
        for alpha in [0.5, 2.5] {
            let o = InjectOptions {
                alpha,
                ..opts("1,2,4")
            };
            assert!(o.validate().is_ok());
            let jobs = inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(100), 1).collect::<Vec<_>>();
            assert_eq!(jobs.len(), plain.len());
            for (job, unchanged) in jobs.iter().zip(&plain) {
                assert_eq!(job.walltime, Time::from_secs_f64(180.0 * alpha), "wt = wt^c × α");
                assert_eq!(job.slo, Some(Time::from_secs(270)), "SLO = slack × wt^c");
                assert_eq!(job.runtime, Some(Time::from_secs(18)), "0.1w of wt^c");
                assert_eq!((job.submit, job.procs), (unchanged.submit, unchanged.procs));
            }
        }
        for alpha in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = InjectOptions { alpha, ..opts("1") }
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!("--alpha {alpha} must be a positive number")),
                "{err}"
            );
        }
    }

    /// Jobs are generated as they are asked for: a span of 1e12 s at one
    /// job per second (the old version built them all in a vector first and
    /// ran out of memory).
    #[test]
    fn injection_is_lazy() {
        let opts = InjectOptions {
            interval: Time::from_secs(1),
            ..opts("1,2,4")
        };
        let far = Time::from_secs_f64(Time::MAX_INSTANT_SECS);
        let first: Vec<Job> = inject_cloud_jobs(&opts, Time::ZERO, far, 1).take(3).collect();
        assert_eq!(first.iter().map(|j| j.id.0).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(first[2].submit, Time::from_secs(2));
    }

    #[test]
    fn regular_jobs_with_slo() {
        let jobs = inject_cloud_jobs(&opts("4"), Time::from_secs(100), Time::from_secs(150), 1000)
            .collect::<Vec<_>>();
        assert_eq!(jobs.len(), 6);
        assert_eq!(jobs[5].submit, Time::from_secs(150));
        assert_eq!(jobs[5].id, JobId(1005));
        assert!(jobs.iter().all(|j| j.procs == 4 && j.kind == JobKind::Cloud));
        assert_eq!(jobs[0].slo, Some(Time::from_secs(270)));
        assert_eq!(jobs[0].runtime, Some(Time::from_secs(18)));
    }

    #[test]
    fn weighted_choice_follows_weights_and_seed() {
        let o = opts("1:0.5,2:0.3,4:0.2");
        let jobs = inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(10 * 9999), 1).collect::<Vec<_>>();
        let count = |p| jobs.iter().filter(|j| j.procs == p).count() as f64 / jobs.len() as f64;
        assert!((count(1) - 0.5).abs() < 0.03, "{}", count(1));
        assert!((count(4) - 0.2).abs() < 0.03, "{}", count(4));
        assert_eq!(
            jobs,
            inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(10 * 9999), 1).collect::<Vec<_>>()
        );
        let other = InjectOptions {
            seed: 43,
            ..o.clone()
        };
        assert_ne!(
            jobs,
            inject_cloud_jobs(&other, Time::ZERO, Time::from_secs(10 * 9999), 1).collect::<Vec<_>>()
        );
    }

    #[test]
    fn option_parsing() {
        assert_eq!(
            "1,2,4".parse::<ProcsChoice>().unwrap(),
            ProcsChoice::Weighted(vec![(1, 1.0), (2, 1.0), (4, 1.0)])
        );
        assert!("0".parse::<ProcsChoice>().is_err());
        assert!("1:-2".parse::<ProcsChoice>().is_err());
        assert!("x"
            .parse::<ProcsChoice>()
            .unwrap_err()
            .to_string()
            .contains("--procs \"x\""));
        assert_eq!(
            "90".parse::<RuntimeSpec>().unwrap(),
            RuntimeSpec::Fixed(Amount::Seconds(90.0))
        );
        assert!("-3".parse::<RuntimeSpec>().is_err());
        assert!("0w".parse::<RuntimeSpec>().is_err());
    }

    #[test]
    fn runtime_spec_parses_every_form_and_round_trips() {
        for text in [
            "120",
            "0.1w",
            "uniform:30:180",
            "uniform:0.1w:0.5w",
            "uniform:0:60",
            "exp:60",
            "exp:0.25w",
        ] {
            let spec: RuntimeSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!("walltime".parse::<RuntimeSpec>().unwrap(), RuntimeSpec::WALLTIME);
        assert_eq!("1w".parse::<RuntimeSpec>().unwrap(), RuntimeSpec::WALLTIME);
        assert_eq!(
            "90s".parse::<RuntimeSpec>().unwrap(),
            RuntimeSpec::Fixed(Amount::Seconds(90.0))
        );
    }

    #[test]
    fn runtime_spec_rejects_garbage_with_the_syntax() {
        for text in [
            "",
            "abc",
            "-3",
            "0",
            "uniform:1",
            "uniform:60:30",
            "exp:x",
            "exp:0",
            "normal:1:2",
            "inf",
        ] {
            let err = text.parse::<RuntimeSpec>().unwrap_err().to_string();
            assert!(
                err.contains(&format!("bad run time {:?}", text.trim())) && err.contains("uniform:LO:HI"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn runtime_samples_follow_the_spec() {
        let walltime = Time::from_secs(180);
        let mut rng = SplitMix64::new(1);
        let parse = |text: &str| text.parse::<RuntimeSpec>().unwrap();
        assert_eq!(parse("0.1w").sample(walltime, &mut rng), Time::from_secs(18));
        assert_eq!(parse("42").sample(walltime, &mut rng), Time::from_secs(42));
        assert_eq!(parse("walltime").sample(walltime, &mut rng), walltime);
        let uniform = parse("uniform:30:60");
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let secs = uniform.sample(walltime, &mut rng).as_secs_f64();
            assert!((30.0..=60.0).contains(&secs));
            sum += secs;
        }
        assert!((sum / 10_000.0 - 45.0).abs() < 1.0);
        let exp = parse("exp:0.5w");
        let mean = (0..20_000)
            .map(|_| exp.sample(walltime, &mut rng).as_secs_f64())
            .sum::<f64>()
            / 20_000.0;
        assert!((mean - 90.0).abs() < 5.0, "mean {mean}");
    }

    #[test]
    fn injected_run_times_come_from_the_mixed_seed_one_draw_per_job() {
        let o = InjectOptions {
            runtime: "uniform:0.1w:0.9w".parse().unwrap(),
            ..opts("1,2,4")
        };
        let jobs = inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(990), 1).collect::<Vec<_>>();
        assert_eq!(jobs.len(), 100);
        let mut procs_rng = SplitMix64::new(o.seed);
        let mut runtime_rng = SplitMix64::new(o.seed ^ RUNTIME_SEED_MIX);
        for job in &jobs {
            assert_eq!(job.procs, o.procs.draw(&mut procs_rng));
            assert_eq!(job.runtime, Some(o.runtime.sample(o.walltime, &mut runtime_rng)));
        }
        let distinct: std::collections::BTreeSet<_> = jobs.iter().map(|j| j.runtime).collect();
        assert!(distinct.len() > 90, "run times are drawn per job");
        // A fixed run time does not depend on the seed.
        let fixed = inject_cloud_jobs(&opts("4"), Time::ZERO, Time::from_secs(50), 1).collect::<Vec<_>>();
        assert!(fixed.iter().all(|j| j.runtime == Some(Time::from_secs(18))));
    }
}
