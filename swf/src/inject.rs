//! Cloud-job injection (the thesis's validation, SPEC §7): one cloud job every
//! `interval` over a time span, with a processor count drawn from a fixed
//! value or a weighted list, a walltime, a run time, and an SLO of
//! `slack × walltime`.
//!
//! Randomness comes only from [`SplitMix64`] seeded with
//! [`InjectOptions::seed`], so the same options give the same jobs on every
//! platform.

use crate::error::SwfError;
use interstice_core::{Job, JobId, JobKind, Time};
use std::str::FromStr;

/// How many processors each cloud job asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum ProcsChoice {
    /// Always this many.
    Fixed(u32),
    /// Drawn with these weights (positive; normalised when drawing).
    Weighted(Vec<(u32, f64)>),
}

impl ProcsChoice {
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

/// The run time of each cloud job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuntimeSpec {
    /// Equal to the walltime (the default).
    Walltime,
    /// A fixed duration.
    Fixed(Time),
    /// This fraction of the walltime (`0.1w`).
    FractionOfWalltime(f64),
}

impl RuntimeSpec {
    /// The run time for a job of this walltime.
    pub fn resolve(self, walltime: Time) -> Time {
        match self {
            RuntimeSpec::Walltime => walltime,
            RuntimeSpec::Fixed(t) => t,
            RuntimeSpec::FractionOfWalltime(f) => walltime.mul_f64(f),
        }
    }
}

/// Parses seconds (`90`, `12.5`) or a fraction of the walltime (`0.1w`).
impl FromStr for RuntimeSpec {
    type Err = SwfError;

    fn from_str(s: &str) -> Result<Self, SwfError> {
        let bad = || {
            SwfError::Option(format!(
                "--runtime {s:?}: expected positive seconds (90) or a fraction of the walltime (0.1w)"
            ))
        };
        let t = s.trim();
        if let Some(frac) = t.strip_suffix(['w', 'W']) {
            let f: f64 = frac.trim().parse().map_err(|_| bad())?;
            return if f.is_finite() && f > 0.0 {
                Ok(RuntimeSpec::FractionOfWalltime(f))
            } else {
                Err(bad())
            };
        }
        Ok(RuntimeSpec::Fixed(parse_duration(t).ok_or_else(bad)?))
    }
}

/// Positive, finite seconds.
pub fn parse_duration(s: &str) -> Option<Time> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then(|| Time::from_secs_f64(v))
}

/// Everything that shapes the injected cloud jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct InjectOptions {
    /// Time between two cloud jobs (> 0).
    pub interval: Time,
    /// Processors of each job.
    pub procs: ProcsChoice,
    /// Walltime of each job.
    pub walltime: Time,
    /// Run time of each job.
    pub runtime: RuntimeSpec,
    /// SLO = `slack × walltime` (≥ 1 makes sense; any positive value is accepted).
    pub slack: f64,
    /// Seed of every random draw.
    pub seed: u64,
}

impl InjectOptions {
    /// Check the options: positive interval, walltime and slack.
    pub fn validate(&self) -> Result<(), SwfError> {
        if self.interval <= Time::ZERO {
            return Err(SwfError::Option(
                "--interval must be positive seconds".to_string(),
            ));
        }
        if self.walltime <= Time::ZERO {
            return Err(SwfError::Option(
                "--walltime must be positive seconds".to_string(),
            ));
        }
        if !(self.slack.is_finite() && self.slack > 0.0) {
            return Err(SwfError::Option(format!(
                "--slack {} must be a positive number",
                self.slack
            )));
        }
        Ok(())
    }

    /// The SLO of every injected job.
    pub fn slo(&self) -> Time {
        self.walltime.mul_f64(self.slack)
    }
}

/// Cloud jobs submitted at `from`, `from + interval`, … up to and including
/// `to`, with ids `first_id`, `first_id + 1`, …. Returns nothing when `to < from`
/// or the interval is not positive.
pub fn inject_cloud_jobs(opts: &InjectOptions, from: Time, to: Time, first_id: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    if opts.interval <= Time::ZERO || to < from {
        return jobs;
    }
    let mut rng = SplitMix64::new(opts.seed);
    let runtime = opts.runtime.resolve(opts.walltime);
    let slo = opts.slo();
    let mut submit = from;
    let mut id = first_id;
    while submit <= to {
        jobs.push(Job {
            id: JobId(id),
            submit,
            walltime: opts.walltime,
            runtime: Some(runtime),
            procs: opts.procs.draw(&mut rng),
            kind: JobKind::Cloud,
            slo: Some(slo),
        });
        id += 1;
        let next = submit + opts.interval;
        if next == submit || next.is_infinite() {
            break;
        }
        submit = next;
    }
    jobs
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, portable, seeded generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
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
            seed: 42,
        }
    }

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 0 from the reference implementation.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn regular_jobs_with_slo() {
        let jobs = inject_cloud_jobs(&opts("4"), Time::from_secs(100), Time::from_secs(150), 1000);
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
        let jobs = inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(10 * 9999), 1);
        let count = |p| jobs.iter().filter(|j| j.procs == p).count() as f64 / jobs.len() as f64;
        assert!((count(1) - 0.5).abs() < 0.03, "{}", count(1));
        assert!((count(4) - 0.2).abs() < 0.03, "{}", count(4));
        assert_eq!(
            jobs,
            inject_cloud_jobs(&o, Time::ZERO, Time::from_secs(10 * 9999), 1)
        );
        let other = InjectOptions {
            seed: 43,
            ..o.clone()
        };
        assert_ne!(
            jobs,
            inject_cloud_jobs(&other, Time::ZERO, Time::from_secs(10 * 9999), 1)
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
            RuntimeSpec::Fixed(Time::from_secs(90))
        );
        assert!("-3".parse::<RuntimeSpec>().is_err());
        assert!("0w".parse::<RuntimeSpec>().is_err());
    }
}
