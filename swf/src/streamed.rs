//! A sorted SWF trace read on a thread of its own and handed to the run as
//! it is read, instead of loaded whole and sorted first.
//!
//! The archive's traces come in submission order, and an HPC-only replay
//! needs nothing but the jobs one after the other: reading, parsing and
//! extracting them on a second core, in batches, overlaps the load with the
//! simulation and never holds the whole trace. The jobs are those of
//! [`crate::load_trace`] on the same spec, in the same order, with the same
//! statistics and errors, as long as the trace is in (submission, job
//! number) order; the first job out of that order stops the stream
//! ([`Interrupted::Unsorted`]), and the caller loads the trace whole.

use crate::error::SwfError;
use crate::experiment::{check_sizes, extract_options, load_error, machine_and_area};
use crate::experiment::{TraceSpec, WorkloadError};
use crate::extract::ExtractStats;
use crate::input;
use crate::jobs::JobStream;
use crate::reader::SwfReader;
use interstice_core::{Job, JobId, Time};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Jobs per batch handed from the reading thread to the run.
const BATCH: usize = 2048;
/// Batches read ahead of the run at most.
const AHEAD: usize = 8;

/// A trace being read, with what its header says.
#[derive(Debug)]
pub struct StreamedTrace {
    /// Processors of the machine.
    pub procs: u32,
    /// Processors of the convergence area.
    pub conv: u32,
    /// Notes on the SWF header's values, each naming the file.
    pub notes: Vec<String>,
    /// The jobs, in submission order, as they are read.
    pub jobs: StreamedJobs,
}

/// Why a stream ended before its trace did.
#[derive(Debug, thiserror::Error)]
pub enum Interrupted {
    /// Job `job` (line `line`) comes before the job read before it: the
    /// trace must be loaded whole and sorted.
    #[error("job {job} (line {line}) is out of submission order")]
    Unsorted {
        /// The job out of order.
        job: u64,
        /// Its line.
        line: u64,
    },
    /// The trace is not usable (the error [`crate::load_trace`] gives).
    #[error(transparent)]
    Failed(#[from] WorkloadError),
}

/// What the reading thread sends: the header's facts once, then batches.
#[derive(Debug)]
enum Message {
    /// The machine size the extraction checks against, and the header.
    Header(Option<u32>, Box<crate::header::Header>),
    /// The workload is Batsim JSON, which is loaded whole.
    NotSwf,
    /// Jobs in order.
    Jobs(Vec<Job>),
}

/// Start reading `spec`'s trace on a thread of its own. `None` when it is
/// not a file that can be streamed (stdin, Batsim JSON, `--repeat`).
pub fn stream_trace(spec: &TraceSpec) -> Result<Option<StreamedTrace>, WorkloadError> {
    check_sizes(spec)?;
    if spec.workload == Path::new("-") || crate::load::named_json(&spec.workload) || spec.repeat.get() > 1 {
        return Ok(None);
    }
    let (sender, receiver) = sync_channel(AHEAD);
    let thread_spec = spec.clone();
    let thread = std::thread::Builder::new()
        .name("swf-reader".into())
        .spawn(move || read(&thread_spec, &sender))
        .map_err(|source| {
            WorkloadError::Load(SwfError::Io {
                action: "start reading",
                path: spec.workload.clone(),
                source,
            })
        })?;
    let jobs = StreamedJobs {
        receiver,
        thread: Some(thread),
        current: Vec::new().into_iter(),
        yielded: 0,
        path: spec.workload.clone(),
    };
    let Ok(Message::Header(machine_procs, header)) = jobs.receiver.recv() else {
        // JSON, or the thread ended early: its result says which.
        return match jobs.finish() {
            Ok(_) | Err(Interrupted::Unsorted { .. }) => Ok(None),
            Err(Interrupted::Failed(err)) => Err(err),
        };
    };
    let (procs, conv, notes) = machine_and_area(spec, machine_procs, Some(&header))?;
    Ok(Some(StreamedTrace {
        procs,
        conv,
        notes,
        jobs,
    }))
}

/// The reading thread: header, then the jobs in batches, checking their
/// order; `until` cuts as [`crate::load_trace`] does (the first job is the
/// earliest when the trace is sorted).
fn read(spec: &TraceSpec, sender: &SyncSender<Message>) -> Result<ExtractStats, Interrupted> {
    let failed = |err| Interrupted::Failed(load_error(err));
    let mut input = input::open(&spec.workload).map_err(failed)?;
    let json = input::looks_like_json(&mut input.reader).map_err(|source| {
        failed(SwfError::Io {
            action: "read",
            path: spec.workload.clone(),
            source,
        })
    })?;
    if json {
        let _ = sender.send(Message::NotSwf);
        return Ok(ExtractStats::default());
    }
    let extract = extract_options(spec);
    let reader = SwfReader::new(input.reader, &input.name, extract.mode).map_err(failed)?;
    let mut stream = JobStream::new(reader, &extract);
    let header = Box::new(stream.header().clone());
    if sender
        .send(Message::Header(stream.machine_procs(), header))
        .is_err()
    {
        return Ok(stream.stats());
    }
    let mut batch = Vec::with_capacity(BATCH);
    let mut last: Option<(Time, JobId)> = None;
    let mut window: Option<crate::experiment::Window> = None;
    while let Some(job) = stream.next() {
        let job = job.map_err(failed)?;
        let key = (job.submit, job.id);
        if last.is_some_and(|last| key <= last) {
            return Err(Interrupted::Unsorted {
                job: job.id.0,
                line: stream.line(),
            });
        }
        last = Some(key);
        // The first job's submission is the trace's first: the order is checked.
        let window = *window.get_or_insert_with(|| crate::experiment::Window::new(spec, job.submit));
        let Some(job) = window.place(job) else {
            continue;
        };
        batch.push(job);
        if batch.len() == BATCH
            && sender
                .send(Message::Jobs(std::mem::replace(
                    &mut batch,
                    Vec::with_capacity(BATCH),
                )))
                .is_err()
        {
            return Ok(stream.stats());
        }
    }
    if !batch.is_empty() {
        let _ = sender.send(Message::Jobs(batch));
    }
    Ok(stream.stats())
}

/// The jobs of a [`StreamedTrace`], as the reading thread hands them over.
/// When they end, [`StreamedJobs::finish`] says whether that was the
/// trace's end.
#[derive(Debug)]
pub struct StreamedJobs {
    receiver: Receiver<Message>,
    thread: Option<JoinHandle<Result<ExtractStats, Interrupted>>>,
    current: std::vec::IntoIter<Job>,
    yielded: u64,
    /// The trace, for a message should the thread fail.
    path: std::path::PathBuf,
}

impl StreamedJobs {
    /// Jobs handed over so far.
    pub fn yielded(&self) -> u64 {
        self.yielded
    }

    /// Wait for the reading thread: the extraction's statistics when the
    /// whole trace was read and handed over, else why it stopped.
    pub fn finish(mut self) -> Result<ExtractStats, Interrupted> {
        // A run that stops pulling early lets the thread end: it cannot send.
        drop(std::mem::replace(&mut self.receiver, sync_channel(0).1));
        let thread = self.thread.take().expect("finish is called once");
        thread.join().unwrap_or_else(|_| {
            Err(Interrupted::Failed(WorkloadError::Load(SwfError::Io {
                action: "read",
                path: self.path.clone(),
                source: std::io::Error::other("the reading thread stopped unexpectedly"),
            })))
        })
    }
}

impl Iterator for StreamedJobs {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        loop {
            if let Some(job) = self.current.next() {
                self.yielded += 1;
                return Some(job);
            }
            match self.receiver.recv() {
                Ok(Message::Jobs(batch)) => self.current = batch.into_iter(),
                Ok(_) | Err(_) => return None,
            }
        }
    }
}
