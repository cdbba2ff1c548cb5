//! What the actor of a data center member keeps about its broker
//! ([`MemberLink`]): its address and features, the broker's client, the
//! publishing thread and the channel of hand-overs answered. The actor
//! publishes and hands over in `member`.

use super::setup::ActorError;
use crate::config::{MemberConfig, OnBehalfOf};
use crate::datacenter::publisher::{HandedOver, Publisher};
use interstice_api::{Client, Endpoint};
use interstice_core::Time;
use std::sync::mpsc;
use std::time::Duration;

/// What the actor of a member keeps about its broker.
#[derive(Debug)]
pub(super) struct MemberLink {
    pub(super) address: String,
    pub(super) features: Vec<String>,
    /// Whom the broker may name in `on_behalf_of`.
    pub(super) on_behalf_of: OnBehalfOf,
    pub(super) publish_every: Time,
    pub(super) broker: Client,
    pub(super) publisher: Publisher,
    pub(super) last_publish: Option<Time>,
    pub(super) done_tx: mpsc::Sender<HandedOver>,
    pub(super) done_rx: mpsc::Receiver<HandedOver>,
}

impl MemberLink {
    /// Start publishing to the broker `config` names (with the data
    /// center's `token`, the daemons' common `api.token_file`, over TCP), to
    /// a broker that proves to be a daemon (`datacenter.peer_uid`): nothing
    /// goes to another user's socket or port.
    pub(super) fn start(config: &MemberConfig, token: Option<String>) -> Result<MemberLink, ActorError> {
        let endpoint: Endpoint = config
            .broker
            .parse()
            .map_err(|err| ActorError::Datacenter(format!("datacenter.broker: {err}")))?;
        if config.allow_unproven_remote {
            tracing::warn!(
                "datacenter.allow_unproven_remote: a broker on another host over http:// gets tuples, evicted \
                 jobs and the token without proving who it is"
            );
        }
        let broker = Client::at(endpoint, Duration::from_secs_f64(config.timeout_seconds))
            .with_token(token)
            .with_peer_rule(config.peer_rule())
            .with_pins(config.pins());
        let publisher = Publisher::start(broker.clone())
            .map_err(|err| ActorError::Datacenter(format!("cannot start the publishing thread: {err}")))?;
        let (done_tx, done_rx) = mpsc::channel();
        Ok(MemberLink {
            address: config.address.clone(),
            features: config.features.clone(),
            on_behalf_of: config.on_behalf_of.clone(),
            publish_every: Time::from_secs_f64(config.publish_every_seconds),
            broker,
            publisher,
            last_publish: None,
            done_tx,
            done_rx,
        })
    }
}
