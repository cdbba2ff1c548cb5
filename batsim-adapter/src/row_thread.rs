//! `jobs.csv` formatted and written by a thread of its own: a replay hands
//! each final record over and goes on simulating while the thread turns it
//! into a row and pays for the system calls (formatting and writing the
//! rows costs a replay of a large trace a fifth of its time).
//!
//! Records and "the run has reached time t" marks travel in batches
//! through a channel of a few batches, so the thread holds the rows of a
//! few thousand jobs at most. Emptied batches travel back and are filled
//! again: a record crosses by value, with no allocation of its own (memory
//! allocated on one thread and freed on the other is the slow path of
//! every allocator). What the thread does with the rows is its caller's
//! ([`crate::output`] writes them as `jobs.csv`). A failed write stops the
//! thread: the next batch finds it stopped and [`RowThread::finish`]
//! returns the error.

use interstice_core::{JobRecord, Time};
use std::io;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// Records (or marks) per batch.
const BATCH: usize = 1024;

/// Batches in flight between the run and the thread.
const IN_FLIGHT: usize = 4;

/// One message to the thread: a record travels as the engine's own box (a
/// pointer, not a copy), in reused batches.
pub(crate) enum Row {
    /// The final record of the job submitted `seq`-th.
    Record(u64, Box<JobRecord>),
    /// No record with an earlier row time will come.
    Reached(Time),
}

/// The rows of a run, handed to a thread (see the module docs) whose
/// consumer ends with an `R` (what it tallied on the way).
pub(crate) struct RowThread<R> {
    batch: Vec<Row>,
    sender: Option<SyncSender<Vec<Row>>>,
    /// Batches the thread emptied, to fill again.
    emptied: Receiver<Vec<Row>>,
    thread: Option<JoinHandle<io::Result<R>>>,
}

/// The thread's side: the rows, batch after batch, each batch sent back
/// once emptied.
pub(crate) struct Rows {
    batches: Receiver<Vec<Row>>,
    emptied: Sender<Vec<Row>>,
}

impl Rows {
    /// Call `f` on every row, in order, until the run finishes or `f` fails.
    ///
    /// Each batch goes back to the run's thread with its rows still in it:
    /// their records are freed where they were allocated (a free from
    /// another thread costs both threads more, and leaves the run's
    /// allocator nothing local to reuse).
    pub(crate) fn for_each(self, mut f: impl FnMut(&Row) -> io::Result<()>) -> io::Result<()> {
        for batch in self.batches {
            for row in &batch {
                f(row)?;
            }
            // The run may have finished sending: then the batch is dropped.
            let _ = self.emptied.send(batch);
        }
        Ok(())
    }
}

impl<R: Send + 'static> RowThread<R> {
    /// Start a thread that runs `consume` on the rows until the run finishes.
    pub(crate) fn spawn(
        consume: impl FnOnce(Rows) -> io::Result<R> + Send + 'static,
    ) -> io::Result<RowThread<R>> {
        let (sender, batches) = mpsc::sync_channel::<Vec<Row>>(IN_FLIGHT);
        let (emptied_sender, emptied) = mpsc::channel();
        let rows = Rows {
            batches,
            emptied: emptied_sender,
        };
        let thread = std::thread::Builder::new()
            .name("jobs-csv".into())
            .spawn(move || consume(rows))?;
        Ok(RowThread {
            batch: Vec::with_capacity(BATCH),
            sender: Some(sender),
            emptied,
            thread: Some(thread),
        })
    }
}

impl<R> RowThread<R> {
    /// Take the final record of the job submitted `seq`-th.
    pub(crate) fn add(&mut self, seq: u64, record: Box<JobRecord>) -> io::Result<()> {
        self.push(Row::Record(seq, record))
    }

    /// No record with a row time before `time` will come.
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
        let next = match self.emptied.try_recv() {
            Ok(mut done) => {
                done.clear();
                done
            }
            Err(_) => Vec::with_capacity(BATCH),
        };
        let batch = std::mem::replace(&mut self.batch, next);
        match self.sender.as_ref().map(|sender| sender.send(batch)) {
            Some(Ok(())) => Ok(()),
            // The thread stopped: its result says why.
            _ => self.join().and(Err(stopped())),
        }
    }

    /// Close the channel and wait for the thread's result (`None` if it
    /// was waited for already).
    fn join(&mut self) -> io::Result<Option<R>> {
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(None),
            Some(Ok(result)) => result.map(Some),
            Some(Err(_)) => Err(io::Error::other("the jobs.csv thread panicked")),
        }
    }

    /// Write the rows still held and close the file: the consumer's result,
    /// or the first error the thread met.
    pub(crate) fn finish(mut self) -> io::Result<R> {
        let sent = self.send();
        let joined = self.join();
        sent.and(joined)?.ok_or_else(stopped)
    }
}

/// The error of a run whose row thread stopped before the run did.
fn stopped() -> io::Error {
    io::Error::other("the jobs.csv thread stopped")
}

impl<R> Drop for RowThread<R> {
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

    fn record(id: u64) -> JobRecord {
        JobRecord::new(Job {
            id: JobId(id),
            submit: Time::ZERO,
            walltime: Time::from_secs(100),
            walltime_enforced: true,
            runtime: Some(Time::from_secs(1)),
            procs: 1,
            kind: JobKind::Hpc,
            slo: None,
        })
    }

    #[test]
    fn every_row_arrives_in_order_and_marks_coalesce() {
        let (seen, got) = mpsc::channel();
        let mut rows = RowThread::spawn(move |rows| {
            rows.for_each(|row| {
                let _ = seen.send(match row {
                    Row::Record(seq, record) => (*seq, Some(record.job.id.0)),
                    Row::Reached(time) => (time.ticks() as u64, None),
                });
                Ok(())
            })
        })
        .expect("thread");
        for id in 0..5000u64 {
            rows.add(id, Box::new(record(id))).expect("add");
            rows.reached(Time::from_ticks(id as i64)).expect("reached");
            rows.reached(Time::from_ticks(id as i64 + 1)).expect("reached");
        }
        rows.finish().expect("finish");
        let got: Vec<(u64, Option<u64>)> = got.into_iter().collect();
        let records: Vec<(u64, u64)> = got.iter().filter_map(|&(seq, id)| Some((seq, id?))).collect();
        assert_eq!(records, (0..5000).map(|id| (id, id)).collect::<Vec<_>>());
        // Two marks in a row are one (the later), but across a batch boundary.
        let marks: Vec<u64> = got
            .iter()
            .filter(|row| row.1.is_none())
            .map(|row| row.0)
            .collect();
        assert!(marks.windows(2).all(|w| w[0] <= w[1]) && marks.last() == Some(&5000));
        assert!(marks.len() < 5000 + 5000 / BATCH + 1, "{} marks", marks.len());
    }

    #[test]
    fn a_failed_consumer_is_reported() {
        let mut rows = RowThread::<()>::spawn(|_| Err(io::Error::other("disk full"))).expect("thread");
        let mut failed = false;
        for id in 0..(IN_FLIGHT as u64 + 2) * BATCH as u64 {
            if rows.add(id, Box::new(record(id))).is_err() {
                failed = true;
                break;
            }
        }
        assert!(
            failed || rows.finish().is_err(),
            "the consumer's error must reach the run"
        );
    }
}
