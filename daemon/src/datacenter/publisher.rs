//! A member's link to its broker, kept off the actor thread: the actor
//! [`Publisher::offer`]s its latest tuple and moves on; a thread sends the
//! newest one with a bounded timeout (older ones it has not sent yet are
//! replaced, never queued). A broker that is down costs one warning, then
//! one a minute while it stays down.
//!
//! Evicted cloud jobs are handed over on their own short-lived thread
//! ([`hand_over`]), whose answer comes back to the actor on a channel.

use interstice_api::wire::{EvictedRequest, SubmitResponse, TupleRequest};
use interstice_api::{Client, ClientError};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a broker that stays unreachable is warned about again.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The tuple waiting to be sent, and whether to stop.
#[derive(Debug, Default)]
struct Mailbox {
    latest: Option<TupleRequest>,
    stop: bool,
}

/// Sends a member's tuples to its broker from its own thread.
#[derive(Debug)]
pub struct Publisher {
    mailbox: Arc<(Mutex<Mailbox>, Condvar)>,
}

impl Publisher {
    /// Start the publishing thread, talking to the broker through `client`.
    pub fn start(client: Client) -> std::io::Result<Publisher> {
        let mailbox = Arc::new((Mutex::new(Mailbox::default()), Condvar::new()));
        let shared = Arc::clone(&mailbox);
        std::thread::Builder::new()
            .name("publisher".to_string())
            .spawn(move || publish_loop(&client, &shared))?;
        Ok(Publisher { mailbox })
    }

    /// Publish `tuple` as soon as the thread is free (replacing any tuple not sent yet).
    pub fn offer(&self, tuple: TupleRequest) {
        let (lock, wake) = &*self.mailbox;
        if let Ok(mut mailbox) = lock.lock() {
            mailbox.latest = Some(tuple);
            wake.notify_one();
        }
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let (lock, wake) = &*self.mailbox;
        if let Ok(mut mailbox) = lock.lock() {
            mailbox.stop = true;
            wake.notify_one();
        }
    }
}

/// Whether the broker answered last time, and when it was last warned about.
#[derive(Debug, Default)]
struct Reachability {
    down_since: Option<Instant>,
    last_warning: Option<Instant>,
}

impl Reachability {
    fn failed(&mut self, err: &ClientError) {
        let now = Instant::now();
        self.down_since.get_or_insert(now);
        if self.last_warning.map_or(true, |at| now - at >= WARN_EVERY) {
            self.last_warning = Some(now);
            tracing::warn!("cannot publish to the broker (warned again at most every {WARN_EVERY:?}): {err}");
        } else {
            tracing::debug!("cannot publish to the broker: {err}");
        }
    }

    fn succeeded(&mut self) {
        if let Some(since) = self.down_since.take() {
            tracing::info!("publishing to the broker again after {:?}", since.elapsed());
        }
        self.last_warning = None;
    }
}

fn publish_loop(client: &Client, mailbox: &(Mutex<Mailbox>, Condvar)) {
    let (lock, wake) = mailbox;
    let mut reachability = Reachability::default();
    loop {
        let tuple = {
            let Ok(mut guard) = lock.lock() else { return };
            loop {
                if guard.stop {
                    return;
                }
                if let Some(tuple) = guard.latest.take() {
                    break tuple;
                }
                guard = match wake.wait(guard) {
                    Ok(guard) => guard,
                    Err(_) => return,
                };
            }
        };
        match client.publish_tuple(&tuple) {
            Ok(_) => reachability.succeeded(),
            Err(err) => reachability.failed(&err),
        }
    }
}

/// The broker's answer to one hand-over.
#[derive(Debug)]
pub struct HandedOver {
    /// The job's id on this member.
    pub id: u64,
    /// The broker's answer (accepted: placed on `member`), or why it could not be asked.
    pub answer: Result<SubmitResponse, ClientError>,
}

/// Ask the broker, on a thread of its own, to place an evicted job
/// (`POST /v1/datacenter/evicted`); the answer comes back on `done`.
pub fn hand_over(
    client: Client,
    request: EvictedRequest,
    done: mpsc::Sender<HandedOver>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("hand-over".to_string())
        .spawn(move || {
            let answer = client.hand_over(&request);
            let _ = done.send(HandedOver {
                id: request.job_id,
                answer,
            });
        })
        .map(|_| ())
}
