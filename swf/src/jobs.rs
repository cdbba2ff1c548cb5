//! [`JobStream`]: an SWF reader with the extraction rules applied, one job at
//! a time, counting what it skips.

use crate::error::{LineError, SwfError};
use crate::extract::{
    extract_job, walltime_from_runtime, ExtractOptions, ExtractStats, Extracted, SkipReason,
};
use crate::header::Header;
use crate::reader::SwfReader;
use interstice_core::Job;
use std::io::BufRead;

/// Jobs of an SWF trace, streamed. After the iteration, [`JobStream::stats`]
/// says what was kept and skipped.
#[derive(Debug)]
pub struct JobStream<R> {
    reader: SwfReader<R>,
    opts: ExtractOptions,
    machine: Option<u32>,
    stats: ExtractStats,
    failed: bool,
    /// Job number → line of its first use.
    seen: interstice_core::IdMap<u64, u64>,
}

impl<R: BufRead> JobStream<R> {
    /// Extract jobs from `reader` (already past its header). The machine size
    /// is `opts.machine_procs`, else the header's `MaxProcs`/`MaxNodes`.
    pub fn new(reader: SwfReader<R>, opts: &ExtractOptions) -> JobStream<R> {
        let header_procs = reader
            .header()
            .machine_procs()
            .map(|p| u32::try_from(p).unwrap_or(u32::MAX));
        let machine = opts.machine_procs.or(header_procs);
        let mut opts = opts.clone();
        if opts.clip_to_machine {
            opts.clip = opts.clip.or(machine);
        }
        JobStream {
            reader,
            opts,
            machine,
            stats: ExtractStats::default(),
            failed: false,
            seen: interstice_core::IdMap::default(),
        }
    }

    /// The trace's header.
    pub fn header(&self) -> &Header {
        self.reader.header()
    }

    /// The line of the record read last.
    pub fn line(&self) -> u64 {
        self.reader.line()
    }

    /// The machine size jobs are checked against, if known.
    pub fn machine_procs(&self) -> Option<u32> {
        self.machine
    }

    /// Counts so far (final once the iterator returned `None`).
    pub fn stats(&self) -> ExtractStats {
        let mut stats = self.stats.clone();
        let bad = self.reader.bad_lines();
        stats.bad_lines = bad.count - self.stats.extraction_problems();
        stats.problems = bad.first.iter().map(ToString::to_string).collect();
        stats
    }

    fn advance(&mut self) -> Result<Option<Job>, SwfError> {
        while let Some(rec) = self.reader.next() {
            let rec = rec?;
            self.stats.records += 1;
            let extracted = extract_job(&rec, &self.opts, self.machine).and_then(|extracted| {
                let Extracted::Job(job, _) = &extracted else {
                    return Ok(extracted);
                };
                match self.seen.entry(job.id.0) {
                    std::collections::hash_map::Entry::Occupied(first) => Err(LineError::DuplicateId {
                        job: job.id.0,
                        first_line: *first.get(),
                    }),
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(self.reader.line());
                        Ok(extracted)
                    }
                }
            });
            match extracted {
                Ok(Extracted::Job(job, clipped)) => {
                    self.stats.jobs += 1;
                    self.stats.clipped += u64::from(clipped);
                    self.stats.walltime_from_runtime += u64::from(walltime_from_runtime(&rec));
                    return Ok(Some(job));
                }
                Ok(Extracted::Skipped(reason)) => self.stats.skip(reason),
                Err(kind) => {
                    let reason = SkipReason::of(&kind);
                    self.reader.problem(kind)?;
                    self.stats.skip(reason);
                }
            }
        }
        Ok(None)
    }
}

impl<R: BufRead> Iterator for JobStream<R> {
    type Item = Result<Job, SwfError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.advance().transpose();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}
