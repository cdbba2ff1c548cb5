//! The accept loops of the API's listeners and what they let in.
//!
//! - The Unix socket serves the whole API; the peer's uid comes from
//!   `SO_PEERCRED` at accept ([`Peer`]).
//! - The TCP listener serves `/metrics` and `/healthz` only, unless an API
//!   token is configured (`api.token_file`): then requests carrying
//!   `Authorization: Bearer <token>` get the whole API too ([`TcpPolicy`]).
//! - Each listener admits at most `api.max_connections` connections at once,
//!   the last [`root_reserve`] of them kept for root (on the Unix socket), and
//!   each non-root uid at most `api.max_connections_per_uid` ([`Gate`]). A
//!   refused connection is closed at once; a rate-limited warning names the
//!   listener and the uid.
//! - With `api.tls`, the TCP listener speaks TLS only ([`crate::tls`]); a
//!   handshake not done within `api.idle_timeout_seconds` closes the
//!   connection (in its own task: the accept loop never waits for it).
//! - A connection that has not sent a complete request head within
//!   `api.idle_timeout_seconds` is closed (hyper's header read timeout, also
//!   between keep-alive requests); a connection is served for twice that,
//!   then ends once the request in flight is answered, within one more
//!   idle timeout ([`serve_connection`]).

use crate::actor::Owner;
use crate::api::{error_response, Peer};
use crate::backend::Shutdown;
pub use crate::config::Limits;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};
use tokio::task::JoinSet;

/// How often at most a listener warns about refused connections.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// The connections kept for root out of `max`: an eighth, at least one
/// (none when `max` is 1: then root competes like everybody).
pub fn root_reserve(max: usize) -> usize {
    (max / 8).max(1).min(max.saturating_sub(1))
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The listener is full (for this peer: non-root peers stop at the root reserve).
    Listener,
    /// This uid has its share.
    Uid,
}

/// The connection counts of one listener.
#[derive(Debug)]
pub struct Gate {
    name: &'static str,
    limits: Limits,
    state: Mutex<GateState>,
}

#[derive(Debug, Default)]
struct GateState {
    open: usize,
    per_uid: HashMap<u32, usize>,
    refused_since_warning: u64,
    last_warning: Option<Instant>,
}

/// One admitted connection; dropping it frees its place.
#[derive(Debug)]
pub struct Permit {
    gate: Arc<Gate>,
    uid: Option<u32>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut state = self
            .gate
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        state.open -= 1;
        if let Some(uid) = self.uid {
            if let Some(count) = state.per_uid.get_mut(&uid) {
                *count -= 1;
                if *count == 0 {
                    state.per_uid.remove(&uid);
                }
            }
        }
    }
}

impl Gate {
    /// The gate of the listener `name` ("unix socket", "tcp").
    pub fn new(name: &'static str, limits: Limits) -> Arc<Gate> {
        Arc::new(Gate {
            name,
            limits,
            state: Mutex::new(GateState::default()),
        })
    }

    /// Admit a connection from `uid` (`None`: unknown, e.g. TCP), or say why not
    /// (and warn, at most every [`WARN_EVERY`]).
    pub fn admit(self: &Arc<Gate>, uid: Option<u32>) -> Result<Permit, Refusal> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let root = uid == Some(0) || uid.is_some() && uid == self.limits.batch_uid;
        let max = self.limits.max_connections;
        let refusal = if root {
            (state.open >= max).then_some(Refusal::Listener)
        } else if state.open >= max - root_reserve(max) {
            Some(Refusal::Listener)
        } else if uid
            .is_some_and(|uid| state.per_uid.get(&uid).copied().unwrap_or(0) >= self.limits.max_per_uid)
        {
            Some(Refusal::Uid)
        } else {
            None
        };
        if let Some(refusal) = refusal {
            state.refused_since_warning += 1;
            if !state.last_warning.is_some_and(|at| at.elapsed() < WARN_EVERY) {
                let refused = std::mem::take(&mut state.refused_since_warning);
                state.last_warning = Some(Instant::now());
                let uid = uid.map_or("unknown".to_string(), |uid| uid.to_string());
                match refusal {
                    Refusal::Listener => tracing::warn!(
                        listener = self.name,
                        uid,
                        open = state.open,
                        refused,
                        "connection refused: the listener is full (api.max_connections = {max}, {} kept for root)",
                        root_reserve(max)
                    ),
                    Refusal::Uid => tracing::warn!(
                        listener = self.name,
                        uid,
                        refused,
                        "connection refused: this uid has api.max_connections_per_uid = {} open",
                        self.limits.max_per_uid
                    ),
                }
            }
            return Err(refusal);
        }
        state.open += 1;
        if let Some(uid) = uid {
            *state.per_uid.entry(uid).or_default() += 1;
        }
        Ok(Permit {
            gate: self.clone(),
            uid,
        })
    }
}

/// What the TCP listener serves besides `/metrics` and `/healthz`.
#[derive(Clone, Debug)]
pub struct TcpPolicy {
    /// The bearer token that opens the whole API (`api.token_file`); none: nothing else.
    pub token: Option<Arc<str>>,
}

/// The paths every TCP client may read.
const OPEN_PATHS: [&str; 2] = ["/metrics", "/healthz"];

/// Compare without an early exit on the first differing byte.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The TCP listener's gate on each request (see [`TcpPolicy`]).
async fn tcp_guard(State(policy): State<Arc<TcpPolicy>>, request: Request, next: Next) -> Response {
    if OPEN_PATHS.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    let Some(token) = &policy.token else {
        return error_response(
            StatusCode::FORBIDDEN,
            format!(
                "{} is served only on the daemon's Unix socket (api.socket); this TCP listener serves /metrics and \
                 /healthz (an admin may open the API here to bearer-token holders with api.token_file)",
                request.uri().path()
            ),
        );
    };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match given {
        Some(given) if same_secret(given.trim().as_bytes(), token.as_bytes()) => {
            // The token is root's (its file is root's, 0600): its holder
            // acts as root, as a broker forwarding over the Unix socket does.
            let mut request = request;
            request.extensions_mut().insert(ConnectInfo(Peer(Owner {
                uid: Some(0),
                gid: Some(0),
                pid: None,
            })));
            next.run(request).await
        }
        _ => error_response(
            StatusCode::UNAUTHORIZED,
            format!(
                "{} on this TCP listener needs Authorization: Bearer <the token of api.token_file>; local users \
                 use the Unix socket",
                request.uri().path()
            ),
        ),
    }
}

/// Serve one connection with `app` until it ends, the idle timeout closes
/// it, or `stop` asks for a graceful end.
async fn serve_connection<S>(stream: S, app: Router, idle: Duration, mut stop: Shutdown)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = TowerToHyperService::new(app);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(idle);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    // A connection is served for twice the idle timeout, then asked to end
    // (graceful: the request in flight is answered, keep-alive ends), and
    // given one more idle timeout for that: a client reading its answer
    // slowly or not at all does not keep its place, and a keep-alive client
    // never loses an answer to the bound.
    let bound = tokio::time::sleep(idle * 2);
    tokio::pin!(bound);
    tokio::select! {
        _ = connection.as_mut() => return,
        _ = stop.wait() => {}
        _ = &mut bound => {}
    }
    connection.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(idle, connection).await;
}

/// A listener the accept loop serves: each accepted connection with the
/// uid its limits count it under and the peer the API sees.
trait Listening {
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    async fn next(&self) -> std::io::Result<(Self::Stream, Option<u32>, Peer)>;
}

impl Listening for UnixListener {
    type Stream = tokio::net::UnixStream;

    /// The peer's credentials (`SO_PEERCRED`) count it and name it to the
    /// API; one whose uid cannot be read counts as an unknown non-root one.
    async fn next(&self) -> std::io::Result<(Self::Stream, Option<u32>, Peer)> {
        let (stream, _) = self.accept().await?;
        let peer = Peer::of_unix(&stream);
        Ok((stream, peer.0.uid, peer))
    }
}

impl Listening for TcpListener {
    type Stream = tokio::net::TcpStream;

    /// A loopback peer is a local process: its uid (the kernel's socket
    /// table) gets the same per-uid limit and root reserve as on the Unix
    /// socket, so one local user cannot fill the listener a broker and its
    /// members (root) need. It only counts connections: to the API a TCP
    /// peer is nobody (the bearer token opens the API).
    async fn next(&self) -> std::io::Result<(Self::Stream, Option<u32>, Peer)> {
        let (stream, peer) = self.accept().await?;
        let uid = stream
            .local_addr()
            .ok()
            .and_then(|local| loopback_peer_uid(local, peer));
        let _ = stream.set_nodelay(true);
        Ok((stream, uid, Peer::default()))
    }
}

/// Accept on the Unix socket until `stop`, then wait for open connections.
pub async fn serve_unix(
    listener: UnixListener,
    app: Router,
    gate: Arc<Gate>,
    stop: Shutdown,
) -> std::io::Result<()> {
    serve(listener, app, None, gate, stop).await
}

/// Accept on the TCP listener until `stop` (over TLS with `tls`), then
/// wait for open connections.
pub async fn serve_tcp(
    listener: TcpListener,
    app: Router,
    policy: TcpPolicy,
    tls: Option<tokio_rustls::TlsAcceptor>,
    gate: Arc<Gate>,
    stop: Shutdown,
) -> std::io::Result<()> {
    let app = app.layer(axum::middleware::from_fn_with_state(Arc::new(policy), tcp_guard));
    serve(listener, app, tls, gate, stop).await
}

/// The accept loop: each connection admitted by `gate` is served with
/// `app` until `stop`, then the open ones are waited for.
async fn serve(
    listener: impl Listening,
    app: Router,
    tls: Option<tokio_rustls::TlsAcceptor>,
    gate: Arc<Gate>,
    stop: Shutdown,
) -> std::io::Result<()> {
    let idle = gate.limits.idle_timeout;
    let mut connections = JoinSet::new();
    let mut accept_stop = stop.clone();
    loop {
        let (stream, uid, peer) = tokio::select! {
            accepted = listener.next() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    accept_failed(gate.name, &err).await;
                    continue;
                }
            },
            _ = accept_stop.wait() => break,
        };
        while connections.try_join_next().is_some() {}
        let Ok(permit) = gate.admit(uid) else {
            continue;
        };
        let app = app.clone().layer(axum::Extension(ConnectInfo(peer)));
        let stop = stop.clone();
        let tls = tls.clone();
        connections.spawn(async move {
            match tls {
                None => serve_connection(stream, app, idle, stop).await,
                Some(acceptor) => {
                    if let Ok(Ok(stream)) = tokio::time::timeout(idle, acceptor.accept(stream)).await {
                        serve_connection(stream, app, idle, stop).await;
                    }
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// The uid owning the peer end of a loopback TCP connection (`peer`
/// connected to our `local`), from the kernel's socket tables
/// ([`interstice_api::peer`]); `None` for other peers or when it cannot be read.
fn loopback_peer_uid(local: std::net::SocketAddr, peer: std::net::SocketAddr) -> Option<u32> {
    if !peer.ip().is_loopback() {
        return None;
    }
    interstice_api::peer::owner_of(peer, local)
}

/// An accept error (out of file descriptors, …): log it and pause briefly
/// rather than spin.
async fn accept_failed(listener: &'static str, err: &std::io::Error) {
    tracing::warn!(listener, "accept failed: {err}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_peer_is_named_by_its_uid() {
        // Our own connection: the kernel's tables say who we are.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_server, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        let me = nix::unistd::geteuid().as_raw();
        assert_eq!(loopback_peer_uid(listener.local_addr().unwrap(), peer), Some(me));
        assert_eq!(
            loopback_peer_uid(listener.local_addr().unwrap(), "192.0.2.1:4000".parse().unwrap()),
            None
        );
    }

    fn gate(max: usize, per_uid: usize) -> Arc<Gate> {
        Gate::new(
            "test",
            Limits {
                max_connections: max,
                max_per_uid: per_uid,
                batch_uid: Some(64030),
                idle_timeout: Duration::from_secs(1),
            },
        )
    }

    #[test]
    fn a_uid_gets_its_share_and_root_its_reserve() {
        let gate = gate(16, 4);
        let mine: Vec<_> = (0..4).map(|_| gate.admit(Some(1000)).unwrap()).collect();
        assert_eq!(gate.admit(Some(1000)).unwrap_err(), Refusal::Uid);
        let others: Vec<_> = (0..10).map(|i| gate.admit(Some(2000 + i)).unwrap()).collect();
        // 14 open, 2 kept for root.
        assert_eq!(gate.admit(Some(3000)).unwrap_err(), Refusal::Listener);
        assert_eq!(gate.admit(None).unwrap_err(), Refusal::Listener);
        let root = [gate.admit(Some(0)).unwrap(), gate.admit(Some(64030)).unwrap()];
        assert_eq!(gate.admit(Some(0)).unwrap_err(), Refusal::Listener);
        assert_eq!(gate.admit(Some(64030)).unwrap_err(), Refusal::Listener);
        drop(mine);
        assert!(gate.admit(Some(1000)).is_ok());
        drop((others, root));
        assert_eq!(gate.state.lock().unwrap().open, 0);
        assert!(gate.state.lock().unwrap().per_uid.is_empty());
    }

    /// The batch system's uid (slurmctld's, asking admissions) is not held
    /// to the per-uid limit: it speaks for every job submitted.
    #[test]
    fn the_batch_systems_uid_has_no_per_uid_limit() {
        let gate = gate(16, 4);
        let batch: Vec<_> = (0..6).map(|_| gate.admit(Some(64030)).unwrap()).collect();
        assert_eq!(batch.len(), 6);
        let _mine: Vec<_> = (0..4).map(|_| gate.admit(Some(1000)).unwrap()).collect();
        assert_eq!(gate.admit(Some(1000)).unwrap_err(), Refusal::Uid);
    }

    #[test]
    fn root_reserve_is_an_eighth_at_least_one() {
        assert_eq!(root_reserve(256), 32);
        assert_eq!(root_reserve(4), 1);
        assert_eq!(root_reserve(1), 0);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
    }

    /// The finding: keep-alive connections were cut at twice the idle
    /// timeout whatever was in flight (12 of 3,934 requests, 5 of them
    /// submits, never answered). A request in flight at the bound is
    /// answered, and the connection then ends.
    #[tokio::test]
    async fn a_request_in_flight_at_the_bound_is_answered_then_the_connection_ends() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let app = Router::new()
            .route("/fast", axum::routing::get(|| async { "fast" }))
            .route(
                "/slow",
                axum::routing::get(|| async {
                    tokio::time::sleep(Duration::from_millis(400)).await;
                    "slow"
                }),
            );
        let (server, mut client) = tokio::net::UnixStream::pair().unwrap();
        let (_keep, watched) = tokio::sync::watch::channel(false);
        let idle = Duration::from_millis(500);
        let served = tokio::spawn(serve_connection(server, app, idle, Shutdown::new(watched)));
        // Keep-alive requests within the idle timeout, then at 0.8 s of the
        // 1 s bound one answered at 1.2 s.
        let mut seen = String::new();
        for (path, body) in [("/fast", "fast"), ("/fast", "fast"), ("/slow", "slow")] {
            tokio::time::sleep(Duration::from_millis(260)).await;
            client
                .write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut buf = [0u8; 4096];
            while !seen.ends_with(body) {
                let n = tokio::time::timeout(Duration::from_secs(3), client.read(&mut buf))
                    .await
                    .expect("an answer")
                    .unwrap();
                assert!(n > 0, "the connection was cut before {path} was answered: {seen}");
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        // Then it ends.
        let mut rest = Vec::new();
        tokio::time::timeout(Duration::from_secs(3), client.read_to_end(&mut rest))
            .await
            .expect("the connection ends")
            .unwrap();
        served.await.unwrap();
    }
}
