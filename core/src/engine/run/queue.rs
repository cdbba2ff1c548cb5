//! The HPC layer's queue: its jobs in queue order, each with what a pass
//! reads of it before deciding anything.
//!
//! EASY reads the whole queue behind the head at every pass (which of the
//! waiting jobs fit now), so under a long queue that read is most of a
//! replay. Keeping each job's processors, walltime and mask beside its key
//! lets the read go down the queue alone, without a look-up per waiting job
//! in the job table.

use super::{mask_of_kind, QKey};
use crate::job::Job;
use crate::plan::Mask;
use crate::time::Time;
use std::collections::BTreeMap;

/// What a pass reads of a queued job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Processors.
    pub procs: u32,
    /// Walltime.
    pub walltime: Time,
    /// The processors it may use.
    pub mask: Mask,
}

impl Shape {
    /// `job`'s shape.
    pub fn of(job: &Job) -> Shape {
        Shape {
            procs: job.procs,
            walltime: job.walltime,
            mask: mask_of_kind(job.kind),
        }
    }
}

/// Queued jobs by (queue time, id, index), with their shapes.
#[derive(Clone, Debug, Default)]
pub(super) struct Queue {
    jobs: BTreeMap<QKey, Shape>,
}

impl Queue {
    /// Queue the job of `key`.
    pub fn insert(&mut self, key: QKey, shape: Shape) {
        self.jobs.insert(key, shape);
    }

    /// Take the job of `key` out; false if it was not queued.
    pub fn remove(&mut self, key: &QKey) -> bool {
        self.jobs.remove(key).is_some()
    }

    /// The head's key.
    pub fn first(&self) -> Option<&QKey> {
        self.jobs.keys().next()
    }

    /// The keys, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = &QKey> + '_ {
        self.jobs.keys()
    }

    /// Each job's index and shape, in queue order.
    pub fn shapes(&self) -> impl Iterator<Item = (usize, Shape)> + '_ {
        self.jobs.iter().map(|(key, shape)| (key.2, *shape))
    }

    /// Jobs queued.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Nothing queued?
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}
