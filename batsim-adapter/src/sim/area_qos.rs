//! `interstice replay --eviction`: cloud jobs with service classes in the
//! convergence area, scheduled by the QoS platform of `core::qos`.
//!
//! Under hpc-first the HPC schedule never depends on cloud work, so it is
//! simulated first, on its own (the engine's decisions are exactly those of
//! a replay without cloud jobs). What the area offers cloud work is then the
//! area's processors HPC jobs are not using: one host whose size follows
//! that count. When an HPC job takes processors of the area, the platform
//! shrinks and the eviction policy chooses which cloud instances give way
//! (the largest `Q` first under qos-driven, the least important and most
//! recently admitted under priority, the least-run job of the tenant most
//! over its share under owner-share): the HPC job is given the processors
//! of the instances the policy chose, not whichever cloud jobs happened to
//! hold the processors the HPC plan named (processors of the area are
//! interchangeable for cloud work, so only the count matters to it). The
//! evicted instances wait in the pending queue and, under qos-driven, may
//! preempt others as the seeds allow.

use super::{run_length, simulate_stream, RecordSink, SimError, SimOptions, SimRun};
use interstice_core::qos::{simulate, OnPreempt, Outcome, QosConfig, QosError, Request, Resize};
use interstice_core::{EngineConfig, Job, JobKind, JobRecord, Time};
use interstice_swf::label::JobLabels;
use interstice_swf::qos::{QosSpec, UnknownName};

/// Both halves of an area run.
#[derive(Debug)]
pub struct AreaRun {
    /// The HPC simulation's counters.
    pub sim: SimRun,
    /// The QoS platform's config, as run.
    pub config: QosConfig,
    /// What it delivered.
    pub outcome: Outcome,
}

/// A sink in front of another that also notes when each HPC job held how
/// many processors of the area `0..area`.
struct AreaTap<'s, S> {
    inner: &'s mut S,
    area: u32,
    deltas: Vec<(Time, i64)>,
}

impl<S: RecordSink> RecordSink for AreaTap<'_, S> {
    fn record(&mut self, seq: u64, record: Box<JobRecord>) -> Result<(), SimError> {
        if record.job.kind == JobKind::Hpc {
            if let (Some(start), Some(procs)) = (record.start, &record.procs) {
                let inside: u32 = procs
                    .ranges()
                    .iter()
                    .filter(|&&(lo, _)| lo < self.area)
                    .map(|&(lo, hi)| hi.min(self.area - 1) - lo + 1)
                    .sum();
                if inside > 0 {
                    self.deltas.push((start, i64::from(inside)));
                    if let Some(end) = record.end {
                        self.deltas.push((end, -i64::from(inside)));
                    }
                }
            }
        }
        self.inner.record(seq, record)
    }

    fn reached(&mut self, now: Time) -> Result<(), SimError> {
        self.inner.reached(now)
    }
}

/// The area's size for cloud work over time: one resize per instant where
/// HPC work in the area changes.
fn resizes(mut deltas: Vec<(Time, i64)>, area: u32) -> Vec<Resize> {
    deltas.sort_unstable();
    let mut out: Vec<Resize> = Vec::new();
    let mut busy = 0i64;
    for (at, d) in deltas {
        busy += d;
        let slots = (i64::from(area) - busy).clamp(0, i64::from(area)) as u32;
        match out.last_mut() {
            Some(last) if last.at == at => last.slots = slots,
            _ => out.push(Resize { at, host: 0, slots }),
        }
    }
    out
}

/// The cloud jobs as requests: the work to do is how long each runs in
/// Batsim ([`super::run_length`]: its run time, cut at an enforced
/// walltime), their class and tenant what `labels` gives, else drawn by
/// `spec`'s weights ([`QosSpec::draw`], in arrival order).
pub fn requests(
    cloud: impl IntoIterator<Item = Job>,
    labels: &JobLabels,
    spec: &QosSpec,
) -> Result<Vec<Request>, AreaError> {
    let mut draw = spec.draw();
    cloud
        .into_iter()
        .map(|job| {
            let (class, tenant) = draw
                .next(labels.get(&job.id))
                .map_err(|error| AreaError::Label { job: job.id.0, error })?;
            let (length, _) = run_length(&job)?;
            Ok(Request {
                id: job.id.0,
                submit: job.submit,
                procs: job.procs,
                duration: Some(length.max(Time::from_ticks(1))),
                class,
                tenant,
            })
        })
        .collect()
}

/// The class scheduler's platform for an area of `area` processors: one
/// host that size (its capacity then follows HPC work), evicted jobs
/// restarting unless the file says `resume`, no end but the trace's.
pub fn area_config(spec: &QosSpec, area: u32) -> QosConfig {
    let mut qos = spec.config.clone();
    qos.hosts = vec![area];
    qos.on_preempt = spec.on_preempt.unwrap_or(OnPreempt::Restart);
    qos.until = None;
    qos
}

/// Simulate the HPC jobs `hpc` under `config` (records to `sink`), then the
/// `cloud` requests on the area's idle processors under `spec`'s classes
/// and eviction policy. Evicted jobs start again from scratch unless
/// `spec` says `resume`.
pub fn simulate_area(
    config: EngineConfig,
    hpc: impl IntoIterator<Item = Job>,
    cloud: Vec<Request>,
    spec: &QosSpec,
    sink: &mut impl RecordSink,
    progress: impl FnMut(u64),
) -> Result<AreaRun, AreaError> {
    let area = config.conv_procs;
    let mut tap = AreaTap {
        inner: sink,
        area,
        deltas: Vec::new(),
    };
    let sim = simulate_stream(config, hpc, &SimOptions::default(), &mut tap, progress)?;
    let qos = area_config(spec, area);
    let outcome = simulate(&qos, cloud, resizes(tap.deltas, area))?;
    Ok(AreaRun {
        sim,
        config: qos,
        outcome,
    })
}

/// A failed area run.
#[derive(Debug, thiserror::Error)]
pub enum AreaError {
    /// The HPC simulation failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The QoS platform refused its input.
    #[error(transparent)]
    Qos(#[from] QosError),
    /// A cloud job's label names a class or tenant the class file lacks.
    #[error("cloud job {job}: {error}")]
    Label {
        /// The job.
        job: u64,
        /// What it names.
        error: UnknownName,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_area_shrinks_and_grows_with_hpc_work() {
        let s = |x| Time::from_secs(x);
        let r = resizes(vec![(s(10), 3), (s(20), -3), (s(15), 2), (s(20), 1)], 4);
        let got: Vec<(i64, u32)> = r.iter().map(|r| (r.at.ticks() / 1_000_000, r.slots)).collect();
        assert_eq!(got, vec![(10, 1), (15, 0), (20, 1)]);
    }
}
