//! `jobs.csv` formatted and written by a thread of its own: a replay hands
//! each final record over and goes on simulating while the thread turns it
//! into a row and pays for the system calls (formatting and writing the
//! rows costs a replay of a large trace a fifth of its time).
//!
//! Records and "the run has reached time t" marks travel in batches
//! through a channel of a few batches, so the thread holds the rows of a
//! few thousand jobs at most. A failed write stops the thread: the next
//! batch finds it stopped and [`RowThread::finish`] returns the error.

use crate::output::{JobsCsv, Naming};
use interstice_core::{JobRecord, Time};
use std::fs::File;
use std::io::{self, BufWriter};
use std::sync::mpsc::{self, SyncSender};
use std::thread::JoinHandle;

/// Records (or marks) per batch.
const BATCH: usize = 1024;

/// Batches in flight between the run and the thread.
const IN_FLIGHT: usize = 4;

/// One message to the thread.
enum Row {
    /// The final record of the job submitted `seq`-th.
    Record(u64, Box<JobRecord>),
    /// No record with an earlier row time will come ([`JobsCsv::write_before`]).
    Reached(Time),
}

/// A `jobs.csv` written by a thread (see the module docs).
pub(crate) struct RowThread {
    batch: Vec<Row>,
    sender: Option<SyncSender<Vec<Row>>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl RowThread {
    /// Start `file` as `jobs.csv` with jobs named by [`Naming::Workload`]
    /// `workload`, written by a thread of its own.
    pub(crate) fn spawn(file: File, workload: String) -> io::Result<RowThread> {
        let (sender, batches) = mpsc::sync_channel::<Vec<Row>>(IN_FLIGHT);
        let thread = std::thread::Builder::new()
            .name("jobs-csv".into())
            .spawn(move || {
                let out = BufWriter::with_capacity(1 << 20, file);
                let mut csv = JobsCsv::new(out, Naming::Workload(&workload))?;
                for batch in batches {
                    for row in batch {
                        match row {
                            Row::Record(seq, record) => csv.add(seq, &record),
                            Row::Reached(time) => csv.write_before(time)?,
                        }
                    }
                }
                csv.finish().map(drop)
            })?;
        Ok(RowThread {
            batch: Vec::with_capacity(BATCH),
            sender: Some(sender),
            thread: Some(thread),
        })
    }

    /// Take the final record of the job submitted `seq`-th.
    pub(crate) fn add(&mut self, seq: u64, record: JobRecord) -> io::Result<()> {
        self.push(Row::Record(seq, Box::new(record)))
    }

    /// See [`JobsCsv::write_before`].
    pub(crate) fn reached(&mut self, time: Time) -> io::Result<()> {
        if let Some(Row::Reached(last)) = self.batch.last_mut() {
            *last = time;
            return Ok(());
        }
        self.push(Row::Reached(time))
    }

    fn push(&mut self, row: Row) -> io::Result<()> {
        self.batch.push(row);
        if self.batch.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    /// Hand the batch to the thread; an error if it stopped.
    fn send(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        match self.sender.as_ref().map(|sender| sender.send(batch)) {
            Some(Ok(())) => Ok(()),
            // The thread stopped: its result says why.
            _ => self
                .join()
                .and(Err(io::Error::other("the jobs.csv thread stopped"))),
        }
    }

    /// Close the channel and wait for the thread's result.
    fn join(&mut self) -> io::Result<()> {
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the jobs.csv thread panicked")),
        }
    }

    /// Write the rows still held and close the file: the first error the
    /// thread met, if any.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        let sent = self.send();
        let joined = self.join();
        sent.and(joined)
    }
}

impl Drop for RowThread {
    /// A run that stopped early (an error) still leaves the rows it had.
    fn drop(&mut self) {
        let _ = self.send();
        let _ = self.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use interstice_core::{Job, JobId, JobKind};

    fn record(id: u64, end: i64) -> JobRecord {
        let job = Job {
            id: JobId(id),
            submit: Time::ZERO,
            walltime: Time::from_secs(100),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(end)),
            procs: 1,
            kind: JobKind::Hpc,
            slo: None,
        };
        let mut record = JobRecord::new(job);
        record.start = Some(Time::ZERO);
        record.end = Some(Time::from_secs(end));
        record
    }

    #[test]
    fn rows_arrive_in_batsims_order() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("jobs.csv");
        let mut rows = RowThread::spawn(File::create(&path).expect("create"), "w0".into()).expect("thread");
        // Each instant's ten jobs end together and are handed over in the
        // reverse of their submission order: rows come by end, then order.
        for t in 0..500u64 {
            for id in (t * 10..t * 10 + 10).rev() {
                rows.add(id, record(id, t as i64 + 1)).expect("add");
            }
            rows.reached(Time::from_secs(t as i64 + 1)).expect("reached");
        }
        rows.finish().expect("finish");
        let text = std::fs::read_to_string(&path).expect("read");
        let ids: Vec<u64> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids, (0..5000).collect::<Vec<_>>());
    }

    #[test]
    fn a_failed_write_is_reported() {
        // /dev/full refuses every write with ENOSPC.
        let Ok(file) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let mut rows = RowThread::spawn(file, "w0".into()).expect("thread");
        let mut failed = false;
        for id in 0..20_000u64 {
            if rows.add(id, record(id, 1)).is_err() {
                failed = true;
                break;
            }
        }
        assert!(
            failed || rows.finish().is_err(),
            "writing jobs.csv to /dev/full must fail"
        );
    }
}
