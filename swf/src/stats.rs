//! Workload statistics: what was kept and skipped, the span, machine size,
//! offered load, and summaries of job sizes and run times.
//!
//! Offered load ("utilisation") = Σ runtime × processors / (machine processors
//! × span), where the span runs from the first to the last submit time and the
//! machine size is the header's (or `nb_res`), else the widest job seen.

use crate::extract::ExtractStats;
use interstice_core::Job;
use serde::Serialize;

/// Min, median, 90th percentile and max (nearest-rank), or all `None` when empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// Smallest value.
    pub min: Option<f64>,
    /// Median (nearest rank).
    pub median: Option<f64>,
    /// 90th percentile (nearest rank).
    pub p90: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

impl Distribution {
    /// Summarise `values` (sorted in place).
    pub fn of(values: &mut [f64]) -> Distribution {
        if values.is_empty() {
            return Distribution::default();
        }
        values.sort_by(f64::total_cmp);
        let rank = |q: f64| {
            let n = values.len();
            let r = ((q * n as f64).ceil() as usize).clamp(1, n);
            values[r - 1]
        };
        Distribution {
            min: Some(values[0]),
            median: Some(rank(0.5)),
            p90: Some(rank(0.9)),
            max: Some(values[values.len() - 1]),
        }
    }
}

/// Statistics of a workload, flat so it prints as one JSON object.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WorkloadStats {
    /// What extraction kept, skipped and changed (flattened: one JSON object).
    #[serde(flatten)]
    pub extraction: ExtractStats,
    /// Records and lines not turned into jobs, all reasons.
    pub skipped: u64,
    /// Machine size used: the header's (or `nb_res`), else the widest job.
    pub max_procs: Option<u64>,
    /// Machine size announced by the header (or `nb_res`).
    pub header_max_procs: Option<u64>,
    /// Widest job seen.
    pub observed_max_procs: Option<u64>,
    /// First submit time, seconds.
    pub first_submit: Option<f64>,
    /// Last submit time, seconds.
    pub last_submit: Option<f64>,
    /// `last_submit − first_submit`, seconds.
    pub span: f64,
    /// Offered load: Σ runtime × procs / (max_procs × span); `None` when the span is 0.
    pub utilization: Option<f64>,
    /// Processors per job.
    pub procs: Distribution,
    /// Run time per job, seconds.
    pub runtime: Distribution,
}

/// Accumulates jobs one at a time (the values for the distributions are kept).
#[derive(Clone, Debug, Default)]
pub struct StatsBuilder {
    procs: Vec<f64>,
    runtimes: Vec<f64>,
    area: f64,
    first: Option<f64>,
    last: Option<f64>,
}

impl StatsBuilder {
    /// An empty accumulator.
    pub fn new() -> StatsBuilder {
        StatsBuilder::default()
    }

    /// Count one job.
    pub fn add(&mut self, job: &Job) {
        let runtime = job.runtime.unwrap_or(job.walltime).as_secs_f64();
        let submit = job.submit.as_secs_f64();
        self.procs.push(f64::from(job.procs));
        self.runtimes.push(runtime);
        self.area += runtime * f64::from(job.procs);
        self.first = Some(self.first.map_or(submit, |f| f.min(submit)));
        self.last = Some(self.last.map_or(submit, |l| l.max(submit)));
    }

    /// The statistics, given the extraction counts and the announced machine size.
    pub fn finish(mut self, extract: &ExtractStats, header_max_procs: Option<u64>) -> WorkloadStats {
        let procs = Distribution::of(&mut self.procs);
        let runtime = Distribution::of(&mut self.runtimes);
        let observed = procs.max.map(|m| m as u64);
        let max_procs = header_max_procs.or(observed);
        let span = match (self.first, self.last) {
            (Some(f), Some(l)) => l - f,
            _ => 0.0,
        };
        let utilization = match max_procs {
            Some(m) if m > 0 && span > 0.0 => Some(self.area / (m as f64 * span)),
            _ => None,
        };
        WorkloadStats {
            extraction: extract.clone(),
            skipped: extract.skipped(),
            max_procs,
            header_max_procs,
            observed_max_procs: observed,
            first_submit: self.first,
            last_submit: self.last,
            span,
            utilization,
            procs,
            runtime,
        }
    }
}

/// Statistics of jobs already in memory.
pub fn workload_stats(jobs: &[Job], extract: &ExtractStats, header_max_procs: Option<u64>) -> WorkloadStats {
    let mut b = StatsBuilder::new();
    for j in jobs {
        b.add(j);
    }
    b.finish(extract, header_max_procs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use interstice_core::{JobId, JobKind, Time};

    #[test]
    fn distribution_nearest_rank() {
        let mut v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let d = Distribution::of(&mut v);
        assert_eq!(
            (d.min, d.median, d.p90, d.max),
            (Some(1.0), Some(5.0), Some(9.0), Some(10.0))
        );
        assert_eq!(Distribution::of(&mut []), Distribution::default());
    }

    #[test]
    fn utilisation_is_area_over_capacity() {
        let job = |id, submit, procs, run| Job {
            id: JobId(id),
            submit: Time::from_secs(submit),
            walltime: Time::from_secs(run),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(run)),
            procs,
            kind: JobKind::Hpc,
            slo: None,
        };
        let jobs = [job(1, 0, 2, 50), job(2, 100, 4, 25)];
        let s = workload_stats(
            &jobs,
            &ExtractStats {
                jobs: 2,
                records: 2,
                ..Default::default()
            },
            Some(10),
        );
        // (2·50 + 4·25) / (10 · 100)
        assert_eq!(s.utilization, Some(0.2));
        assert_eq!(s.observed_max_procs, Some(4));
        assert_eq!(s.span, 100.0);
    }
}
