//! `interstice bench limit`: the "speed of light" of an HPC-only replay.
//!
//! The engine keeps every processor's identity, a plan, predictions and
//! records; the FCFS and EASY rules need none of that. With processors as
//! counts and only running jobs in the plan, FCFS and EASY start every job at
//! a time that does not depend on which processors it holds, so a small
//! count-based simulator (`read_jobs` and `simulate`: scripts/easy-reference.py's
//! rules in Rust, reading the file included) is both a floor for the replay's
//! time and a check of its starts: any start that differs is a bug in one of them.

use super::engine_args::parse_policy;
use super::exit::Unreadable;
use super::replay_bench::{replay_spec, time_replay, write_generated, Scratch};
use anyhow::{bail, Context};
use interstice_batsim::output::JOBS_CSV;
use interstice_batsim::sim::synthetic::SyntheticOptions;
use interstice_core::{Policy, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::BufRead;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `interstice bench limit`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Each policy's replay is `interstice replay TRACE --procs PROCS --policy P \
    --out DIR` in this process (parse, extract, simulate, write jobs.csv and summary.json), as in \
    `bench hpc`. FCFS and EASY are also run by a count-based reference written in the bench (read \
    the file, extract the jobs by `swf`'s rules, simulate), best of --repeat too; the ratio is the \
    replay's seconds over the reference's. Every job's start in jobs.csv is checked against the \
    reference's: a difference fails the bench. Other policies have no reference; their seconds are \
    compared with EASY's. --generate writes `bench hpc`'s synthetic trace (load 0.75, 30 days per \
    50,000 jobs) to a temporary file and benches that."
)]
pub struct LimitArgs {
    /// The SWF trace (plain or gzip), e.g. ../shared/data/KTH-SP2-1996-2.1-cln.swf.gz.
    #[arg(
        value_name = "TRACE",
        required_unless_present = "generate",
        conflicts_with = "generate"
    )]
    pub trace: Option<PathBuf>,
    /// Processors of the machine (`replay --procs`); a wider job is an error.
    #[arg(value_name = "PROCS", required_unless_present = "generate",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Option<u32>,
    /// Instead of TRACE: `bench hpc`'s synthetic trace with this many jobs, at its density.
    #[arg(long, value_name = "JOBS", value_parser = super::engine_args::parse_job_count)]
    pub generate: Option<usize>,
    /// Processors of the generated trace's machine [default: 2000].
    #[arg(long, value_name = "P", requires = "generate", conflicts_with = "trace",
          value_parser = super::engine_args::parse_generated_procs)]
    pub generate_procs: Option<u32>,
    /// Seed of the generated trace [default: bench hpc's].
    #[arg(long, value_name = "SEED", requires = "generate", conflicts_with = "trace")]
    pub seed: Option<u64>,
    /// Policies to time, comma-separated.
    #[arg(long, value_parser = parse_policy, value_delimiter = ',', default_value = "easy,fcfs,conservative")]
    pub policies: Vec<Policy>,
    /// Runs of each replay and each reference; the fastest is reported.
    #[arg(long, value_name = "N", default_value = "3")]
    pub repeat: NonZeroU32,
}

/// One job as the reference sees it, times in engine ticks (microseconds).
#[derive(Clone, Copy, Debug)]
struct RefJob {
    submit: i64,
    id: u64,
    width: u32,
    walltime: i64,
    /// What it runs: min(run time, walltime).
    run: i64,
}

/// Seconds of a trace as the engine's ticks, rounded as `swf::extract` does.
fn ticks(secs: f64) -> i64 {
    Time::from_secs_f64(secs).ticks()
}

/// The jobs of the SWF file `path` (plain or gzip) by `swf::extract`'s rules
/// (scripts/easy-reference.py's reading), sorted by (submit, id). A job wider
/// than `procs` is an error, as in `replay` without `--clip`.
fn read_jobs(path: &Path, procs: u32) -> anyhow::Result<Vec<RefJob>> {
    let shown = path.display();
    let file = interstice_swf::input_file::open_regular(path)
        .with_context(|| Unreadable(format!("cannot open {shown}")))?;
    let mut input = interstice_swf::input::decode(Box::new(file))
        .with_context(|| Unreadable(format!("cannot read {shown}")))?;
    let (mut jobs, mut line, mut number) = (Vec::new(), Vec::new(), 0u64);
    loop {
        line.clear();
        number += 1;
        let read = input.read_until(b'\n', &mut line);
        if read.with_context(|| Unreadable(format!("cannot read {shown}")))? == 0 {
            break;
        }
        let text = line.trim_ascii();
        if text.is_empty() || text[0] == b';' {
            continue;
        }
        let bad = |what: String| Unreadable(format!("{shown}:{number}: {what}"));
        let text = std::str::from_utf8(text).map_err(|_| bad("not text".into()))?;
        let mut fields = [""; 9];
        let mut count = 0;
        for (slot, field) in fields.iter_mut().zip(text.split_ascii_whitespace()) {
            *slot = field;
            count += 1;
        }
        if count < fields.len() {
            bail!(bad(format!("{count} fields, an SWF record has 18")));
        }
        let value = |index: usize| -> anyhow::Result<f64> {
            let field = fields[index];
            match field.parse::<f64>() {
                Ok(value) if value.is_finite() => Ok(value),
                _ => bail!(bad(format!("field {} {field:?} is not a number", index + 1))),
            }
        };
        let (submit, run, alloc, req, reqtime) = (value(1)?, value(3)?, value(4)?, value(7)?, value(8)?);
        if submit < 0.0 || run <= 0.0 {
            continue;
        }
        let width = if alloc > 0.0 { alloc } else { req };
        if width <= 0.0 {
            continue;
        }
        let id: u64 = fields[0]
            .parse()
            .map_err(|_| bad(format!("job number {:?} is not a number", fields[0])))?;
        if width > f64::from(procs) {
            bail!(bad(format!(
                "job {id} asks for {width} processors, the machine has {procs}"
            )));
        }
        let walltime = ticks(if reqtime > 0.0 { reqtime } else { run });
        jobs.push(RefJob {
            submit: ticks(submit),
            id,
            width: width as u32,
            walltime,
            run: ticks(run).min(walltime),
        });
    }
    jobs.sort_unstable_by_key(|job| (job.submit, job.id));
    Ok(jobs)
}

/// The processors and running jobs of the reference's machine.
struct Machine {
    free: u64,
    /// (planned end = start + walltime, job index) of the running jobs, sorted: the shadow time's input.
    running: Vec<(i64, usize)>,
    /// (actual end, job index) of the running jobs, earliest first.
    ends: BinaryHeap<Reverse<(i64, usize)>>,
    /// Start tick of every job started so far, by job index.
    starts: Vec<i64>,
}

impl Machine {
    fn start(&mut self, jobs: &[RefJob], index: usize, now: i64) {
        let job = &jobs[index];
        self.free -= u64::from(job.width);
        self.starts[index] = now;
        let planned = (now + job.walltime, index);
        let at = self.running.partition_point(|entry| *entry < planned);
        self.running.insert(at, planned);
        self.ends.push(Reverse((now + job.run, index)));
    }

    fn end(&mut self, jobs: &[RefJob], index: usize) {
        let job = &jobs[index];
        self.free += u64::from(job.width);
        if let Ok(at) = self
            .running
            .binary_search(&(self.starts[index] + job.walltime, index))
        {
            self.running.remove(at);
        }
    }

    /// EASY's pass after the head could not start at `now`: the head's shadow
    /// time (the earliest planned end at which enough processors are free,
    /// every job ending then counted), `extra` = processors free then minus
    /// the head's width; then each other queued job, in order, starts if it
    /// fits now and ends by the shadow time or needs at most `extra`.
    fn backfill(&mut self, jobs: &[RefJob], queue: &mut VecDeque<usize>, now: i64) {
        let head = u64::from(jobs[queue[0]].width);
        let (mut available, mut shadow) = (self.free, None);
        for &(end, index) in &self.running {
            if shadow.is_some_and(|shadow| end > shadow) {
                break;
            }
            available += u64::from(jobs[index].width);
            if shadow.is_none() && available >= head {
                shadow = Some(end);
            }
        }
        // Every job fits the machine, so the head fits once all running jobs end.
        let Some(shadow) = shadow else { return };
        let mut extra = available - head;
        let (mut kept, mut next) = (1, 1);
        while next < queue.len() && self.free > 0 {
            let index = queue[next];
            next += 1;
            let width = u64::from(jobs[index].width);
            let before = now + jobs[index].walltime <= shadow;
            if width <= self.free && (before || width <= extra) {
                self.start(jobs, index, now);
                if !before {
                    extra -= width;
                }
            } else {
                queue[kept] = index;
                kept += 1;
            }
        }
        queue.drain(kept..next);
    }
}

/// Start tick of each of `jobs` (sorted by submit, id) on `procs` processors:
/// FCFS starts jobs from the queue's head while they fit; EASY then backfills.
fn simulate(jobs: &[RefJob], procs: u32, easy: bool) -> Vec<i64> {
    let mut machine = Machine {
        free: u64::from(procs),
        running: Vec::new(),
        ends: BinaryHeap::new(),
        starts: vec![0; jobs.len()],
    };
    let mut queue = VecDeque::new();
    let mut arrived = 0;
    loop {
        let arrival = jobs.get(arrived).map_or(i64::MAX, |job| job.submit);
        let end = machine.ends.peek().map_or(i64::MAX, |Reverse((end, _))| *end);
        if arrived == jobs.len() && machine.ends.is_empty() {
            break;
        }
        let now = arrival.min(end);
        while let Some(&Reverse((end, index))) = machine.ends.peek() {
            if end != now {
                break;
            }
            machine.ends.pop();
            machine.end(jobs, index);
        }
        while arrived < jobs.len() && jobs[arrived].submit == now {
            queue.push_back(arrived);
            arrived += 1;
        }
        while let Some(&head) = queue.front() {
            if u64::from(jobs[head].width) > machine.free {
                break;
            }
            queue.pop_front();
            machine.start(jobs, head, now);
        }
        if easy && !queue.is_empty() && machine.free > 0 {
            machine.backfill(jobs, &mut queue, now);
        }
    }
    machine.starts
}

/// The reference's fastest of `repeat` runs (read, extract, simulate): its
/// seconds, and each job's (id, start tick), sorted by id.
fn time_reference(
    trace: &Path,
    procs: u32,
    easy: bool,
    repeat: NonZeroU32,
) -> anyhow::Result<(f64, Vec<(u64, i64)>)> {
    let mut best = f64::INFINITY;
    let mut starts = Vec::new();
    for _ in 0..repeat.get() {
        let started = Instant::now();
        let jobs = read_jobs(trace, procs)?;
        let ticks = simulate(&jobs, procs, easy);
        best = best.min(started.elapsed().as_secs_f64());
        starts = jobs.iter().map(|job| job.id).zip(ticks).collect();
    }
    starts.sort_unstable();
    Ok((best, starts))
}

/// Each job's (id, start tick) in the replay's `out/jobs.csv`, sorted by id;
/// `None` for a start that is not a time.
fn replay_starts(out: &Path) -> anyhow::Result<Vec<(u64, Option<i64>)>> {
    let path = out.join(JOBS_CSV);
    let mut reader =
        csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let header = reader.byte_headers()?.clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|field| field == name.as_bytes())
            .with_context(|| format!("{} has no {name} column", path.display()))
    };
    let (id_column, start_column) = (column("job_id")?, column("starting_time")?);
    let mut starts = Vec::new();
    for row in reader.byte_records() {
        let row = row.with_context(|| format!("cannot read {}", path.display()))?;
        let text =
            |column: usize| std::str::from_utf8(row.get(column).unwrap_or_default()).unwrap_or_default();
        let id = text(id_column)
            .parse()
            .with_context(|| format!("{}: job id {:?}", path.display(), text(id_column)))?;
        let start = text(start_column).parse::<f64>().ok().map(ticks);
        starts.push((id, start));
    }
    starts.sort_unstable();
    Ok(starts)
}

/// How many (id, start tick) pairs, taken in id order, differ between the
/// reference and the replay, and the first of them. Both should hold the same
/// jobs; a job missing from one side shifts the pairs after it, all counted.
fn differences(reference: &[(u64, i64)], replay: &[(u64, Option<i64>)]) -> (usize, Option<String>) {
    let shown = |start: Option<i64>| start.map_or("none".into(), |t| format!("{} s", Time::from_ticks(t)));
    let mut differ = reference
        .iter()
        .zip(replay)
        .filter(|((id, start), (other, got))| id != other || Some(*start) != *got);
    let first = differ.next().map(|(&(id, start), &(other, got))| {
        let got = if id == other { got } else { None };
        format!(
            "job {id}: reference {}, replay {}",
            shown(Some(start)),
            shown(got)
        )
    });
    let count = first.iter().count() + differ.count() + reference.len().abs_diff(replay.len());
    let first = first.or_else(|| {
        (reference.len() != replay.len()).then(|| {
            format!(
                "the reference started {} jobs, the replay {}",
                reference.len(),
                replay.len()
            )
        })
    });
    (count, first)
}

/// What one policy's runs measured.
struct Timed {
    policy: Policy,
    /// The replay's fastest seconds.
    replay: f64,
    /// The reference's fastest seconds and the starts that differ (FCFS and EASY only).
    reference: Option<(f64, usize)>,
}

/// The trace to bench and its machine: TRACE and PROCS, or a generated trace in `scratch`.
fn trace_of(args: &LimitArgs, scratch: &Path) -> anyhow::Result<(PathBuf, u32)> {
    match (&args.trace, args.procs, args.generate) {
        (Some(trace), Some(procs), None) => Ok((trace.clone(), procs)),
        (None, _, Some(jobs)) => {
            let trace = scratch.join("trace.swf");
            // `bench hpc`'s density: 50,000 jobs over 30 days.
            let seconds = i64::try_from(jobs)
                .unwrap_or(i64::MAX)
                .saturating_mul(30 * 86_400)
                / 50_000;
            let duration = Time::from_secs(seconds.max(1));
            let procs = args.generate_procs.unwrap_or(2000);
            let seed = args.seed.unwrap_or(SyntheticOptions::DEFAULT_SEED);
            write_generated(&trace, procs, jobs, duration, 0.75, seed)?;
            Ok((trace, procs))
        }
        _ => bail!(super::flags::Usage(
            "give TRACE and PROCS, or --generate JOBS".into()
        )),
    }
}

/// Run `interstice bench limit`.
pub fn bench(args: LimitArgs) -> anyhow::Result<()> {
    let scratch = Scratch::new("limit")?;
    let out = scratch.0.join("out");
    let (trace, procs) = trace_of(&args, &scratch.0)?;
    let spec = replay_spec(trace.clone(), Some(procs));
    let (mut timed, mut jobs, mut first_difference) = (Vec::new(), 0, None);
    for &policy in &args.policies {
        let reference = matches!(policy, Policy::Easy | Policy::Fcfs)
            .then(|| time_reference(&trace, procs, policy == Policy::Easy, args.repeat))
            .transpose()?;
        let (replay, done) = time_replay(&spec, policy, args.repeat, &out)?;
        jobs = done.jobs;
        let reference = match reference {
            Some((seconds, starts)) => {
                let (count, first) = differences(&starts, &replay_starts(&out)?);
                if let Some(first) = first {
                    first_difference.get_or_insert(format!(
                        "{policy}: {count} jobs start at other times, e.g. {first}"
                    ));
                }
                Some((seconds, count))
            }
            None => None,
        };
        timed.push(Timed {
            policy,
            replay,
            reference,
        });
    }
    let easy = timed.iter().find(|timed| timed.policy == Policy::Easy);
    let easy_replay = easy.map(|easy| easy.replay);
    let mut easy_reference = easy.and_then(|easy| easy.reference).map(|(seconds, _)| seconds);
    if easy_reference.is_none() && timed.iter().any(|timed| timed.reference.is_none()) {
        easy_reference = Some(time_reference(&trace, procs, true, args.repeat)?.0);
    }
    outln!("METRIC:limit_jobs:{jobs}:jobs")?;
    outln!("METRIC:limit_procs:{procs}:procs")?;
    for timed in &timed {
        let (name, replay) = (timed.policy.name(), timed.replay);
        outln!("METRIC:limit_replay_{name}_seconds:{replay:.4}:s")?;
        if let Some((reference, count)) = timed.reference {
            outln!("METRIC:limit_reference_{name}_seconds:{reference:.4}:s")?;
            outln!("METRIC:limit_ratio_{name}:{:.3}:x", replay / reference.max(1e-9))?;
            outln!("METRIC:limit_start_differences_{name}:{count}:jobs")?;
            continue;
        }
        let ratios = [("reference", easy_reference), ("replay", easy_replay)];
        for (what, easy) in ratios {
            if let Some(easy) = easy {
                outln!(
                    "METRIC:limit_ratio_{name}_to_easy_{what}:{:.3}:x",
                    replay / easy.max(1e-9)
                )?;
            }
        }
    }
    if let Some(first) = first_difference {
        bail!("the replay and the reference disagree: {first}");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
