//! The convergence area resized on a running daemon: `GET`/`POST /v1/area`
//! (root or the batch system) and SIGHUP with a new `engine.conv_procs`.
//! What a resize does to the jobs is the engine's rule
//! ([`interstice_core::Engine::resize_area`]); here it is checked, logged,
//! counted and carried out (the evictions it decides, at once).

use super::command::{ApiError, ErrorKind, Owner};
use super::seconds::secs;
use super::state::Actor;
use interstice_api::wire::AreaResponse;
use interstice_core::{EngineError, JobId};

impl Actor {
    /// `GET /v1/area`.
    pub(super) fn area(&self) -> AreaResponse {
        let engine = self.driver.engine();
        AreaResponse {
            procs: engine.area_procs(),
            configured: engine.config().conv_procs,
            platform: engine.config().procs,
            from: None,
            evicted: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// `POST /v1/area` from `owner`, who must speak for the batch system.
    pub(super) fn resize_area_for(&mut self, procs: u32, owner: Owner) -> Result<AreaResponse, ApiError> {
        self.batch.check(owner, "POST /v1/area")?;
        self.resize_area(procs, "POST /v1/area")
    }

    /// Make `0..procs` the area now (`why`: who asked, for the log and the
    /// state's event table); the evictions are carried out before answering.
    pub(super) fn resize_area(&mut self, procs: u32, why: &str) -> Result<AreaResponse, ApiError> {
        if self.mirrors_plan {
            return Err(ApiError::new(
                ErrorKind::Unprocessable,
                "the area of a Slurm cluster is its cloud partitions' nodes: resize them in Slurm \
                 (scontrol update PartitionName=... Nodes=...) and set engine.conv_procs to match at the \
                 next restart",
            ));
        }
        let now = self.now();
        let resize = self.driver.resize_area(procs, now).map_err(|err| match err {
            EngineError::Resize(_) => ApiError::new(ErrorKind::Unprocessable, err.to_string()),
            other => ApiError::internal(other),
        })?;
        let ids = |jobs: &[JobId]| jobs.iter().map(|job| job.0).collect::<Vec<u64>>();
        let detail = format!(
            "area {} -> {} processors ({why}); evicted {:?}, waiting {:?}",
            resize.from,
            resize.to,
            ids(&resize.evicted),
            ids(&resize.waiting)
        );
        let _ = self.store.event(secs(now), None, "area_resized", &detail);
        tracing::info!("{detail}");
        self.metrics.area_processors.set(i64::from(resize.to));
        self.metrics.area_resizes.inc();
        self.dirty = true;
        self.schedule_now(now);
        Ok(AreaResponse {
            from: Some(resize.from),
            evicted: ids(&resize.evicted),
            waiting: ids(&resize.waiting),
            ..self.area()
        })
    }
}
