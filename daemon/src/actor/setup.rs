//! What the actor starts from ([`ActorSetup`]: the config, the store, the
//! metrics, the launcher, the clock) and why it could not start
//! ([`ActorError`]). `Actor::start` (in the parent) builds the actor from it.

use crate::clock::Clock;
use crate::config::{Config, EngineSectionError};
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::store::{Store, StoreError};
use interstice_core::EngineError;

/// Everything the actor needs to start.
#[derive(Debug)]
pub struct ActorSetup {
    /// The validated config.
    pub config: Config,
    /// The opened store.
    pub store: Store,
    /// The metrics (shared with the HTTP layer for `/metrics`).
    pub metrics: Metrics,
    /// The process launcher.
    pub executor: Executor,
    /// Where "now" comes from: [`Clock::System`] in the daemon, a manual clock in tests.
    pub clock: Clock,
}

/// Why the actor could not start.
#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    /// The `engine:` section names a policy or admission mode core does not know.
    #[error("{0}")]
    Config(#[from] EngineSectionError),
    /// The engine refused the config.
    #[error("engine: {0}")]
    Engine(#[from] EngineError),
    /// The state database could not be read.
    #[error("state database: {0}")]
    Store(#[from] StoreError),
    /// Recovering the jobs of the last run failed.
    #[error("recovering jobs from the state database: {0}")]
    Recovery(StoreError),
    /// The link to the data center's broker could not be set up.
    #[error("datacenter: {0}")]
    Datacenter(String),
}
