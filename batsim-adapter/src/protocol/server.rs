//! The ZeroMQ server: Batsim (REQ) connects, sends a message, waits for
//! exactly one reply, and so on until `SIMULATION_ENDS`.
//!
//! Only one peer drives the simulation, and any local process may connect
//! to the endpoint, so the socket is a ROUTER (a REP that knows who sent
//! each request): the **driver** is the first peer whose message is a
//! Batsim message. On an `ipc://` endpoint only Batsim's user can connect at
//! all (the socket is theirs, 0600: `private_ipc`), so no other local user
//! can be that peer; a `tcp://` endpoint is open to every local user (and
//! binds loopback only, unless [`ServerOptions::allow_remote`]). Before it,
//! a message that is not one is answered with a plain-text error and
//! ignored (the sender is not Batsim); after it, on `ipc://` every other
//! peer's message (Batsim's user's own strays) is answered with a
//! plain-text error and ignored, so a stray peer can neither end nor steer
//! the run. On `tcp://` a second peer that speaks ends the run with
//! [`ServerError::SecondPeer`]: without credentials the scheduler cannot
//! tell which peer is Batsim, and the first one may have been another local
//! user's (a run driven by it must not write results). A connection that never
//! completes ZeroMQ's handshake (a plain TCP connect, garbage) is logged and
//! ignored, and so is a disconnection of a peer that is not the driver.
//! The driver's own malformed messages still end the run (its conversation
//! can no longer be trusted), as before.
//!
//! It never hangs forever: an optional receive timeout (`ZMQ_RCVTIMEO`, and
//! the same bound on `zmq::poll`) turns a silent peer into an error, and a socket monitor
//! reports a peer that disconnects while the scheduler waits for a request.
//! When a message cannot be handled, the server answers it with a plain-text
//! error (not JSON) before returning the error, so that Batsim stops with a
//! parse error instead of waiting forever for a valid answer.

use super::messages::{encode_reply, excerpt, parse_message, Message, MessageError};
use super::session::{Session, SessionError};
use interstice_core::Summary;
use std::time::{Duration, Instant};

/// Where to listen and how long to wait.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// ZeroMQ endpoint to bind (`tcp://127.0.0.1:28000`, `ipc:///tmp/sched`).
    pub endpoint: String,
    /// Give up when no message arrives for this long (`None`: wait forever).
    pub timeout: Option<Duration>,
    /// On an `ipc://` endpoint, the user whose Batsim may connect (the
    /// socket is made theirs, 0600; `None`: the adapter's own user). A
    /// `tcp://` endpoint carries no credentials: setting it there is an error.
    pub driver_uid: Option<u32>,
    /// Bind a `tcp://` endpoint on an address other than loopback (any
    /// host that can reach it may then drive the simulation).
    pub allow_remote: bool,
}

/// The largest message the socket accepts (`ZMQ_MAXMSGSIZE`): a Batsim
/// message is a few kilobytes to a few megabytes (`SIMULATION_BEGINS` with
/// a platform and forwarded profiles); a peer sending more is cut off by
/// ZeroMQ before it is read into memory.
pub const MAX_MESSAGE_BYTES: i64 = 256 << 20;

/// What a finished run measured.
#[derive(Clone, Debug, Default)]
pub struct ServeReport {
    /// Messages answered.
    pub messages: u64,
    /// Wall time spent parsing, deciding and encoding (not waiting), in total.
    pub busy: Duration,
    /// CPU time of the serving thread over the whole run (user + system),
    /// including ZeroMQ calls; `None` where the platform cannot tell.
    pub thread_cpu: Option<Duration>,
    /// The summary written at `SIMULATION_ENDS` (when an output directory was set).
    pub summary: Option<Summary>,
}

/// Why the server stopped before `SIMULATION_ENDS`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The endpoint could not be bound.
    #[error("cannot listen on {endpoint}: {error} (is another scheduler using it? is the address valid?)")]
    Bind {
        /// The endpoint.
        endpoint: String,
        /// ZeroMQ's error.
        error: zmq::Error,
    },
    /// A ZeroMQ call failed.
    #[error("ZeroMQ error while {action}: {error}")]
    Zmq {
        /// What the server was doing.
        action: &'static str,
        /// ZeroMQ's error.
        error: zmq::Error,
    },
    /// Nothing arrived in time.
    #[error(
        "no message from Batsim on {endpoint} for {seconds} s (after {received} messages): is Batsim running \
         with -s {endpoint}?"
    )]
    Timeout {
        /// The endpoint.
        endpoint: String,
        /// The timeout, seconds.
        seconds: f64,
        /// Messages received so far.
        received: u64,
    },
    /// The peer went away while the scheduler waited for its next message.
    #[error("Batsim closed the connection on {endpoint} before SIMULATION_ENDS (after {received} messages)")]
    PeerClosed {
        /// The endpoint.
        endpoint: String,
        /// Messages received so far.
        received: u64,
    },
    /// A message is not a valid Batsim message.
    #[error("message {seq} from Batsim is malformed: {problem} (message starts with: {excerpt})")]
    Malformed {
        /// 0-based position of the message in the conversation.
        seq: u64,
        /// Its first bytes.
        excerpt: String,
        /// What is wrong.
        problem: MessageError,
    },
    /// A second peer spoke on a `tcp://` endpoint (see the module docs).
    #[error(
        "a second peer spoke on {endpoint} while another drives the simulation: a tcp:// endpoint carries no \
         credentials, so the scheduler cannot tell Batsim from another local user, and stops; run Batsim and \
         the scheduler on an ipc:// endpoint (a Unix socket only Batsim's user may open)"
    )]
    SecondPeer {
        /// The endpoint.
        endpoint: String,
    },
    /// A `tcp://` endpoint on an address other than loopback, without `allow_remote`.
    #[error(
        "{endpoint} is not a loopback address: any host that reaches it could drive the simulation; bind \
         tcp://127.0.0.1:PORT (Batsim on this machine), an ipc:// endpoint, or pass --allow-remote"
    )]
    RemoteEndpoint {
        /// The endpoint.
        endpoint: String,
    },
    /// A driver's user was given for an endpoint that carries no credentials.
    #[error(
        "--driver-uid {uid}: {endpoint} carries no peer credentials (any local user may connect); use an \
         ipc:// endpoint (a Unix socket) to choose who may drive"
    )]
    DriverUidNeedsIpc {
        /// The endpoint.
        endpoint: String,
        /// The uid given.
        uid: u32,
    },
    /// An `ipc://` endpoint could not be made Batsim's user's alone.
    #[error("cannot listen on {endpoint} for Batsim's user only: {problem}")]
    PrivateSocket {
        /// The endpoint.
        endpoint: String,
        /// What failed.
        problem: String,
    },
    /// A message is valid JSON but makes no sense in this conversation.
    #[error("message {seq} from Batsim cannot be handled: {problem} (message starts with: {excerpt})")]
    Session {
        /// 0-based position of the message in the conversation.
        seq: u64,
        /// Its first bytes.
        excerpt: String,
        /// What is wrong.
        problem: SessionError,
    },
}

/// Bind `options.endpoint` and answer Batsim until `SIMULATION_ENDS`.
pub fn serve(options: &ServerOptions, session: &mut Session) -> Result<ServeReport, ServerError> {
    let context = zmq::Context::new();
    let socket = context.socket(zmq::ROUTER).map_err(|error| ServerError::Zmq {
        action: "creating the socket",
        error,
    })?;
    if let Some(timeout) = options.timeout {
        // The poll below enforces it; RCVTIMEO also bounds the receive itself.
        let millis = timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
        socket.set_rcvtimeo(millis).map_err(|error| ServerError::Zmq {
            action: "setting ZMQ_RCVTIMEO",
            error,
        })?;
    }
    if !options.allow_remote && !is_loopback_or_ipc(&options.endpoint) {
        return Err(ServerError::RemoteEndpoint {
            endpoint: options.endpoint.clone(),
        });
    }
    socket
        .set_maxmsgsize(MAX_MESSAGE_BYTES)
        .map_err(|error| ServerError::Zmq {
            action: "setting ZMQ_MAXMSGSIZE",
            error,
        })?;
    // Let the last reply reach Batsim on close, but never block exit for long.
    socket.set_linger(2000).map_err(|error| ServerError::Zmq {
        action: "setting ZMQ_LINGER",
        error,
    })?;
    let monitor_endpoint = format!("inproc://interstice-monitor-{:p}", &socket);
    socket
        .monitor(
            &monitor_endpoint,
            MONITORED.iter().fold(0, |mask, event| mask | event.to_raw()) as i32,
        )
        .map_err(|error| ServerError::Zmq {
            action: "monitoring the socket",
            error,
        })?;
    let monitor = context.socket(zmq::PAIR).map_err(|error| ServerError::Zmq {
        action: "creating the monitor",
        error,
    })?;
    monitor
        .connect(&monitor_endpoint)
        .map_err(|error| ServerError::Zmq {
            action: "connecting the monitor",
            error,
        })?;
    let _private = match options.endpoint.strip_prefix("ipc://") {
        Some(path) => Some(
            super::private_ipc::bind_private(&socket, std::path::Path::new(path), options.driver_uid)
                .map_err(|problem| ServerError::PrivateSocket {
                    endpoint: options.endpoint.clone(),
                    problem,
                })?,
        ),
        None => {
            if let Some(uid) = options.driver_uid {
                return Err(ServerError::DriverUidNeedsIpc {
                    endpoint: options.endpoint.clone(),
                    uid,
                });
            }
            socket
                .bind(&options.endpoint)
                .map_err(|error| ServerError::Bind {
                    endpoint: options.endpoint.clone(),
                    error,
                })?;
            None
        }
    };
    serve_on(&socket, &monitor, options, session)
}

/// Whether `endpoint` is an `ipc://` one, or a `tcp://` one on a loopback
/// address (`127.0.0.0/8`, `::1`, `localhost`).
fn is_loopback_or_ipc(endpoint: &str) -> bool {
    let Some(address) = endpoint.strip_prefix("tcp://") else {
        return endpoint.starts_with("ipc://") || endpoint.starts_with("inproc://");
    };
    let host = address.rsplit_once(':').map_or(address, |(host, _)| host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn thread_cpu_time() -> Option<Duration> {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_THREAD).ok()?;
    let to_duration = |tv: nix::sys::time::TimeVal| {
        Duration::from_secs(tv.tv_sec().max(0) as u64) + Duration::from_micros(tv.tv_usec().max(0) as u64)
    };
    Some(to_duration(usage.user_time()) + to_duration(usage.system_time()))
}

/// Who may drive the simulation: the open connections (by file
/// descriptor, as the socket monitor names them) and the driver once known.
#[derive(Debug, Default)]
struct Peers {
    open: std::collections::BTreeSet<u32>,
    /// A handshake just failed: the next disconnection is that connection's
    /// (libzmq reports the two in a row), one that never spoke ZeroMQ.
    handshake_failed: bool,
    /// The driver's ROUTER identity.
    driver: Option<Vec<u8>>,
    /// The driver's descriptor, when it was the only connection at its first message.
    driver_fd: Option<u32>,
    /// Warnings about strays so far.
    warnings: u64,
}

/// The monitor events [`Peers`] follows.
const MONITORED: [zmq::SocketEvent; 5] = [
    zmq::SocketEvent::ACCEPTED,
    zmq::SocketEvent::DISCONNECTED,
    zmq::SocketEvent::HANDSHAKE_FAILED_NO_DETAIL,
    zmq::SocketEvent::HANDSHAKE_FAILED_PROTOCOL,
    zmq::SocketEvent::HANDSHAKE_FAILED_AUTH,
];

impl Peers {
    /// A monitor event with its value (a descriptor for ACCEPTED and
    /// DISCONNECTED); `true` when it is the driver going away.
    fn event(&mut self, event: u16, value: u32) -> bool {
        if event == zmq::SocketEvent::ACCEPTED.to_raw() {
            self.open.insert(value);
            return false;
        }
        if event != zmq::SocketEvent::DISCONNECTED.to_raw() {
            self.handshake_failed = true;
            return false;
        }
        let fd = value;
        self.open.remove(&fd);
        if std::mem::take(&mut self.handshake_failed) {
            self.warn(&format!(
                "ignored a connection (fd {fd}) that closed without speaking ZeroMQ: not Batsim"
            ));
            return false;
        }
        let driver_left = match (&self.driver, self.driver_fd) {
            (None, _) => false,
            (Some(_), Some(driver_fd)) => driver_fd == fd,
            // Several connections when the driver began: only when none is left.
            (Some(_), None) => self.open.is_empty(),
        };
        if !driver_left {
            self.warn(&format!(
                "a peer (fd {fd}) that does not drive the simulation disconnected; ignored"
            ));
        }
        driver_left
    }

    /// Say on stderr what was ignored: the first 20 warnings, then every 1000th
    /// (a stray peer must not flood the log).
    fn warn(&mut self, what: &str) {
        self.warnings += 1;
        if self.warnings <= 20 || self.warnings % 1000 == 0 {
            eprintln!("interstice batsim: warning ({}): {what}", self.warnings);
        }
    }

    /// `identity` sent its first Batsim message: it drives from now on.
    fn adopt(&mut self, identity: &[u8]) {
        self.driver = Some(identity.to_vec());
        if self.open.len() == 1 {
            self.driver_fd = self.open.first().copied();
        }
    }
}

/// Send `text` to `identity` (a REQ peer: identity, empty delimiter, body).
fn reply_to(socket: &zmq::Socket, identity: &[u8], text: &[u8]) -> Result<(), zmq::Error> {
    socket.send_multipart([identity, &[][..], text], 0)
}

/// Answer the driving peer on `socket` until `SIMULATION_ENDS`, following
/// the connections through `monitor`: wait, then the monitor's events, then
/// a request, which is the driver's (answered by `session`) or ignored.
fn serve_on(
    socket: &zmq::Socket,
    monitor: &zmq::Socket,
    options: &ServerOptions,
    session: &mut Session,
) -> Result<ServeReport, ServerError> {
    let mut server = Server::new(socket, options);
    loop {
        let (request_ready, monitor_ready) = server.wait(monitor)?;
        if monitor_ready {
            server.watch_peers(monitor, request_ready)?;
        }
        if !request_ready {
            continue;
        }
        let frames = socket.recv_multipart(0).map_err(|error| ServerError::Zmq {
            action: "receiving a message",
            error,
        })?;
        let Some((identity, bytes)) = server.request(&frames)? else {
            continue;
        };
        let started = Instant::now();
        let parsed = parse_message(bytes);
        if !server.is_the_drivers(identity, &parsed) {
            continue;
        }
        server.last_activity = Instant::now();
        if let Some(report) = server.answer(session, identity, bytes, parsed, started)? {
            return Ok(report);
        }
    }
}

/// A peer's request: its ROUTER identity and the message.
type Request<'f> = (&'f [u8], &'f [u8]);

/// One run of the server: the socket it answers on, who drives, how many
/// messages were answered and when the driver last spoke.
struct Server<'s> {
    socket: &'s zmq::Socket,
    options: &'s ServerOptions,
    cpu_start: Option<Duration>,
    report: ServeReport,
    /// The timeout in milliseconds, for `zmq::poll` (`-1`: none).
    poll_timeout_ms: i64,
    /// Messages of the driver answered so far (the next one's number).
    seq: u64,
    peers: Peers,
    last_activity: Instant,
}

impl<'s> Server<'s> {
    /// A server that has answered nothing yet; the timeout counts from now.
    fn new(socket: &'s zmq::Socket, options: &'s ServerOptions) -> Server<'s> {
        Server {
            socket,
            options,
            cpu_start: thread_cpu_time(),
            report: ServeReport::default(),
            poll_timeout_ms: options
                .timeout
                .map_or(-1, |t| t.as_millis().clamp(1, i64::MAX as u128) as i64),
            seq: 0,
            peers: Peers::default(),
            last_activity: Instant::now(),
        }
    }

    /// Wait for a request, a disconnection, or the timeout (counted from
    /// the driver's last message, or the start: strays do not extend it);
    /// whether the socket and the monitor are readable.
    fn wait(&self, monitor: &zmq::Socket) -> Result<(bool, bool), ServerError> {
        let wait_ms = match self.options.timeout {
            None => -1,
            Some(timeout) => {
                let left = timeout.saturating_sub(self.last_activity.elapsed());
                left.as_millis().min(self.poll_timeout_ms as u128) as i64
            }
        };
        let mut items = [
            self.socket.as_poll_item(zmq::POLLIN),
            monitor.as_poll_item(zmq::POLLIN),
        ];
        let ready = if wait_ms == 0 {
            0
        } else {
            zmq::poll(&mut items, wait_ms).map_err(|error| ServerError::Zmq {
                action: "waiting for Batsim",
                error,
            })?
        };
        if ready == 0 {
            return Err(ServerError::Timeout {
                endpoint: self.options.endpoint.clone(),
                seconds: self.options.timeout.map_or(0.0, |t| t.as_secs_f64()),
                received: self.seq,
            });
        }
        Ok((items[0].is_readable(), items[1].is_readable()))
    }

    /// One monitor event for [`Peers`]; the driver going away is an error
    /// unless its request is already waiting.
    fn watch_peers(&mut self, monitor: &zmq::Socket, request_ready: bool) -> Result<(), ServerError> {
        let frames = monitor.recv_multipart(0).map_err(|error| ServerError::Zmq {
            action: "reading the socket monitor",
            error,
        })?;
        let driver_left = frames.first().is_some_and(|frame| {
            frame.len() >= 6
                && self.peers.event(
                    u16::from_le_bytes([frame[0], frame[1]]),
                    u32::from_le_bytes([frame[2], frame[3], frame[4], frame[5]]),
                )
        });
        if driver_left && !request_ready {
            return Err(ServerError::PeerClosed {
                endpoint: self.options.endpoint.clone(),
                received: self.seq,
            });
        }
        Ok(())
    }

    /// A REQ peer's request (its identity, an empty delimiter, the body) as
    /// identity and body, unless it is not a REQ request or comes from a
    /// peer other than the driver: then it is answered with an error and
    /// ignored (`None`), or on `tcp://` ends the run ([`ServerError::SecondPeer`]).
    fn request<'f>(&mut self, frames: &'f [Vec<u8>]) -> Result<Option<Request<'f>>, ServerError> {
        let (identity, bytes) = match frames {
            [identity, delimiter, body] if delimiter.is_empty() => (identity.as_slice(), body.as_slice()),
            [identity, ..] => {
                self.peers.warn(&format!(
                    "ignored a message that is not a REQ request ({} frames)",
                    frames.len()
                ));
                let _ = reply_to(
                    self.socket,
                    identity,
                    b"interstice error: send Batsim requests from a REQ socket",
                );
                return Ok(None);
            }
            [] => return Ok(None),
        };
        match &self.peers.driver {
            Some(driver) if driver.as_slice() != identity && self.options.endpoint.starts_with("tcp://") => {
                let _ = reply_to(
                    self.socket,
                    identity,
                    b"interstice error: another peer drives this scheduler on tcp://; the run stops",
                );
                Err(ServerError::SecondPeer {
                    endpoint: self.options.endpoint.clone(),
                })
            }
            Some(driver) if driver.as_slice() != identity => {
                self.peers.warn(&format!(
                    "ignored a message from a peer other than the Batsim driving the simulation: {}",
                    excerpt(bytes)
                ));
                let _ = reply_to(
                    self.socket,
                    identity,
                    b"interstice error: another Batsim drives this scheduler; message ignored",
                );
                Ok(None)
            }
            _ => Ok(Some((identity, bytes))),
        }
    }

    /// Whether the message is the driver's: before the driver is known, the
    /// first peer whose message parses as a Batsim message becomes the
    /// driver; any other first message is answered with an error and ignored.
    fn is_the_drivers(&mut self, identity: &[u8], parsed: &Result<Message, MessageError>) -> bool {
        if self.peers.driver.is_some() {
            return true;
        }
        match parsed {
            Ok(_) => {
                self.peers.adopt(identity);
                true
            }
            Err(problem) => {
                // Not Batsim: answer (a REQ peer would wait forever) and keep waiting.
                self.peers.warn(&format!(
                    "ignored a peer whose first message is not a Batsim message: {problem}"
                ));
                let text = format!("interstice error: not a Batsim message ({problem}); ignored");
                let _ = reply_to(self.socket, identity, text.as_bytes());
                false
            }
        }
    }

    /// Handle the driver's message (`bytes`, parsed; `started`: when its
    /// handling began) and send the reply: the report once the simulation
    /// ends, `None` to go on. A message that cannot be handled is answered
    /// with a plain-text error and ends the run.
    fn answer(
        &mut self,
        session: &mut Session,
        identity: &[u8],
        bytes: &[u8],
        parsed: Result<Message, MessageError>,
        started: Instant,
    ) -> Result<Option<ServeReport>, ServerError> {
        let seq = self.seq;
        let outcome = parsed
            .map_err(|problem| ServerError::Malformed {
                seq,
                excerpt: excerpt(bytes),
                problem,
            })
            .and_then(|message| {
                session
                    .handle(&message)
                    .map(|reply| (message.now, reply))
                    .map_err(|problem| ServerError::Session {
                        seq,
                        excerpt: excerpt(bytes),
                        problem,
                    })
            });
        let (now, reply) = match outcome {
            Ok(answer) => answer,
            Err(error) => {
                // Not JSON on purpose: Batsim aborts on it instead of waiting forever.
                let text = format!("interstice error: {error}");
                let _ = reply_to(self.socket, identity, text.as_bytes());
                return Err(error);
            }
        };
        let text = encode_reply(now, &reply.events);
        self.report.busy += started.elapsed();
        reply_to(self.socket, identity, text.as_bytes()).map_err(|error| ServerError::Zmq {
            action: "sending a reply",
            error,
        })?;
        self.report.messages += 1;
        self.seq += 1;
        if !reply.finished {
            return Ok(None);
        }
        let mut report = std::mem::take(&mut self.report);
        report.summary = session.summary().cloned();
        report.thread_cpu = match (self.cpu_start, thread_cpu_time()) {
            (Some(start), Some(end)) => Some(end.saturating_sub(start)),
            _ => None,
        };
        Ok(Some(report))
    }
}
