//! The one blocking HTTP/1.1 client of `intersticed`'s Unix socket, used by
//! the `interstice` CLI, the tests, the C ABI and the Slurm plugins.
//!
//! Why not hyper: the client runs inside `slurmctld` (job_submit plugin) and
//! `slurmstepd` (SPANK), where spawning a runtime or threads is unwelcome.
//! One request = one connection (`Connection: close`). Every call has one
//! deadline for the whole exchange: every write and every read gets the time
//! that remains, so a daemon that accepts and then stays silent costs at most
//! the client's timeout. Answers are bounded ([`MAX_HEADER_BYTES`],
//! [`MAX_RESPONSE_BYTES`]); bodies come with `Content-Length`, chunked, or run
//! to the end of the connection.

use crate::peer::PeerRule;
use crate::tls::Pin;
use crate::wire::{
    AreaRequest, AreaResponse, ErrorBody, EvictedRequest, HealthResponse, HpcEventRequest, HpcEventResponse,
    JobList, JobOutput, JobView, MemberList, PredictRequest, PredictResponse, SlotsResponse, SubmitRequest,
    SubmitResponse, TupleRequest, TupleResponse,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where a daemon listens: its Unix socket, or a TCP listener written
/// `http://ADDR:PORT` (the daemon's optional `api.listen`), or
/// `https://ADDR:PORT` when it serves TLS there (`api.tls`). Daemons of a
/// data center name each other this way (`datacenter.broker`,
/// `datacenter.address`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A Unix socket path.
    Unix(PathBuf),
    /// `ADDR:PORT` of a TCP listener.
    Tcp(String),
    /// `ADDR:PORT` of a TCP listener serving TLS, whose certificate the
    /// client pins ([`Client::with_pins`]).
    Tls(String),
}

/// Text that names no [`Endpoint`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is neither an absolute socket path nor http://ADDR:PORT nor https://ADDR:PORT")]
pub struct BadEndpoint {
    /// What was given.
    pub text: String,
}

impl std::str::FromStr for Endpoint {
    type Err = BadEndpoint;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadEndpoint {
            text: text.to_string(),
        };
        let tcp = [
            ("http://", Endpoint::Tcp as fn(String) -> Endpoint),
            ("https://", Endpoint::Tls),
        ];
        for (scheme, endpoint) in tcp {
            let Some(rest) = text.strip_prefix(scheme) else {
                continue;
            };
            let authority = rest.strip_suffix('/').unwrap_or(rest);
            let valid = authority
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0))
                && !authority.contains('/');
            return if valid {
                Ok(endpoint(authority.to_string()))
            } else {
                Err(bad())
            };
        }
        if text.starts_with('/') && !text.contains('\0') {
            Ok(Endpoint::Unix(PathBuf::from(text)))
        } else {
            Err(bad())
        }
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Unix(path) => write!(f, "{}", path.display()),
            Endpoint::Tcp(addr) => write!(f, "http://{addr}"),
            Endpoint::Tls(addr) => write!(f, "https://{addr}"),
        }
    }
}

/// An open connection to a daemon.
enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
    #[cfg(feature = "tls")]
    Tls(Box<crate::tls::TlsStream>),
}

impl Stream {
    fn set_write_timeout(&self, timeout: Duration) -> std::io::Result<()> {
        match self {
            Stream::Unix(stream) => stream.set_write_timeout(Some(timeout)),
            Stream::Tcp(stream) => stream.set_write_timeout(Some(timeout)),
            #[cfg(feature = "tls")]
            Stream::Tls(stream) => stream.sock.set_write_timeout(Some(timeout)),
        }
    }

    fn set_read_timeout(&self, timeout: Duration) -> std::io::Result<()> {
        match self {
            Stream::Unix(stream) => stream.set_read_timeout(Some(timeout)),
            Stream::Tcp(stream) => stream.set_read_timeout(Some(timeout)),
            #[cfg(feature = "tls")]
            Stream::Tls(stream) => stream.sock.set_read_timeout(Some(timeout)),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(stream) => stream.write(bytes),
            Stream::Tcp(stream) => stream.write(bytes),
            #[cfg(feature = "tls")]
            Stream::Tls(stream) => stream.write(bytes),
        }
    }

    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(stream) => stream.read(buffer),
            Stream::Tcp(stream) => stream.read(buffer),
            #[cfg(feature = "tls")]
            Stream::Tls(stream) => stream.read(buffer),
        }
    }
}

/// The timeout of interactive clients (the CLI, tests); the plugins set their own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest status line and headers accepted.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Longest whole answer accepted (headers, body and chunk framing).
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// The most jobs [`Client::jobs`] gathers (the newest): what `GET /v1/jobs`
/// answered on one page before it paged.
pub const LISTED_JOBS: usize = 10_000;

/// `text` with every byte but RFC 3986's unreserved ones percent-encoded,
/// for a query string.
fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// What went wrong talking to the daemon.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The socket could not be reached (missing, refused, permission).
    #[error("cannot connect to intersticed at {}: {source} (is it running, and is this its socket?)", path.display())]
    Connect {
        /// The socket path (for a TCP endpoint, `http://ADDR:PORT`).
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The deadline passed before the daemon answered.
    #[error("intersticed did not answer within {0:?}")]
    Timeout(Duration),
    /// Reading or writing the socket failed.
    #[error("i/o error talking to intersticed: {0}")]
    Io(std::io::Error),
    /// The daemon answered with a non-2xx status.
    #[error("intersticed answered {status}: {message}")]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The `error` field of the JSON body, or the raw body.
        message: String,
    },
    /// The listener did not prove to be a daemon's (another user's socket or
    /// port, a host that cannot prove itself): nothing was sent.
    #[error("refusing to send anything to {endpoint}: {why}")]
    Unproven {
        /// The endpoint.
        endpoint: String,
        /// What the proof found.
        why: String,
    },
    /// The answer was not HTTP as expected.
    #[error("unexpected answer from intersticed: {0}")]
    Protocol(String),
    /// The answer was larger than the client accepts.
    #[error("intersticed's answer is larger than {limit} bytes ({what})")]
    TooLarge {
        /// Headers or the whole answer.
        what: &'static str,
        /// The bound that was passed.
        limit: usize,
    },
    /// A request could not be encoded or an answer's JSON was not the expected type.
    #[error("{what}: {source}")]
    Json {
        /// Which request or answer, with the body when it is an answer.
        what: String,
        /// The serde error.
        source: serde_json::Error,
    },
}

impl ClientError {
    fn from_io(error: std::io::Error, timeout: Duration) -> Self {
        match error.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => ClientError::Timeout(timeout),
            _ => ClientError::Io(error),
        }
    }
}

/// An HTTP answer of any status.
#[derive(Clone, Debug)]
pub struct RawResponse {
    /// Status code.
    pub status: u16,
    /// Body bytes (chunked framing removed).
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body of a 2xx answer; any other status becomes [`ClientError::Http`]
    /// with the `error` field of its JSON body, or the body's text.
    pub fn success(self) -> Result<Vec<u8>, ClientError> {
        if (200..300).contains(&self.status) {
            return Ok(self.body);
        }
        let message = serde_json::from_slice::<ErrorBody>(&self.body)
            .map(|error| error.error)
            .unwrap_or_else(|_| self.text().trim().to_string());
        Err(ClientError::Http {
            status: self.status,
            message,
        })
    }
}

/// A connection recipe for one daemon: its endpoint and per-call deadline.
#[derive(Clone, Debug)]
pub struct Client {
    endpoint: Endpoint,
    timeout: Duration,
    /// Sent as `Authorization: Bearer` to TCP endpoints (a daemon's `api.token_file`).
    token: Option<String>,
    /// Who must be listening before anything is sent (see [`Client::with_peer_rule`]).
    peer: Option<PeerRule>,
    /// The certificates an `https://` endpoint may present (see [`Client::with_pins`]).
    pins: Vec<Pin>,
}

impl Client {
    /// A client for the daemon at `socket`; every call completes or fails within `timeout`.
    pub fn new(socket: impl Into<PathBuf>, timeout: Duration) -> Client {
        Client::at(Endpoint::Unix(socket.into()), timeout)
    }

    /// A client for the daemon at `endpoint` (a socket or a TCP listener);
    /// every call completes or fails within `timeout`.
    pub fn at(endpoint: Endpoint, timeout: Duration) -> Client {
        Client {
            endpoint,
            timeout,
            token: None,
            peer: None,
            pins: Vec::new(),
        }
    }

    /// The same client sending `token` as `Authorization: Bearer` to a TCP
    /// endpoint (a daemon whose `api.token_file` opens its API there); never
    /// sent on a Unix socket, where the peer's uid speaks instead. The token
    /// goes only to a listener that proves to be a daemon's: without a rule
    /// of [`Client::with_peer_rule`], [`PeerRule::daemons`] (root or this
    /// process's uid, on this host).
    pub fn with_token(mut self, token: Option<String>) -> Client {
        self.token = token;
        self
    }

    /// The same client sending nothing (no request, no token) to a
    /// listener that does not satisfy `rule`: a data center's daemons send
    /// each other jobs and tokens only once the peer is proven.
    pub fn with_peer_rule(mut self, rule: PeerRule) -> Client {
        self.peer = Some(rule);
        self
    }

    /// The same client accepting at an `https://` endpoint only a listener
    /// whose certificate's SHA-256 fingerprint is one of `pins`, and which
    /// proves in the handshake that it holds its key; nothing (no request,
    /// no token) is sent before. Without pins, an `https://` endpoint gets nothing.
    pub fn with_pins(mut self, pins: Vec<Pin>) -> Client {
        self.pins = pins;
        self
    }

    /// The rule this client's peer must satisfy: the configured one, else
    /// the daemons' when a token is to be sent over TCP, else none.
    fn peer_rule(&self) -> Option<PeerRule> {
        match (&self.peer, &self.token, &self.endpoint) {
            (Some(rule), _, _) => Some(rule.clone()),
            (None, Some(_), Endpoint::Tcp(_)) => Some(PeerRule::daemons(None)),
            _ => None,
        }
    }

    /// Refuse a connected peer the rule does not prove.
    fn prove(&self, stream: &Stream) -> Result<(), ClientError> {
        let Some(rule) = self.peer_rule() else {
            return Ok(());
        };
        let proven = match stream {
            Stream::Unix(stream) => rule.check_unix(stream),
            Stream::Tcp(stream) => match (stream.local_addr(), stream.peer_addr()) {
                (Ok(local), Ok(peer)) => rule.check_tcp(local, peer),
                (Err(err), _) | (_, Err(err)) => Err(format!("its addresses cannot be read ({err})")),
            },
            // Proven by the handshake: its certificate is pinned.
            #[cfg(feature = "tls")]
            Stream::Tls(_) => Ok(()),
        };
        proven.map_err(|why| ClientError::Unproven {
            endpoint: self.endpoint.to_string(),
            why,
        })
    }

    fn connect(&self, deadline: Instant) -> Result<Stream, ClientError> {
        let failed = |source| ClientError::Connect {
            path: PathBuf::from(self.endpoint.to_string()),
            source,
        };
        match &self.endpoint {
            Endpoint::Unix(path) => {
                let left = deadline
                    .checked_duration_since(Instant::now())
                    .filter(|left| !left.is_zero())
                    .ok_or(ClientError::Timeout(self.timeout))?;
                match connect_unix(path, left) {
                    Ok(stream) => Ok(Stream::Unix(stream)),
                    Err(err) if is_timeout(&err) => Err(ClientError::Timeout(self.timeout)),
                    Err(err) => Err(failed(err)),
                }
            }
            Endpoint::Tcp(addr) => Ok(Stream::Tcp(self.connect_tcp(addr, deadline)?)),
            Endpoint::Tls(addr) => self.connect_tls(addr, deadline),
        }
    }

    /// A TCP connection to `addr`, then the TLS handshake with a pinned listener.
    #[cfg(feature = "tls")]
    fn connect_tls(&self, addr: &str, deadline: Instant) -> Result<Stream, ClientError> {
        let unproven = |why: String| ClientError::Unproven {
            endpoint: self.endpoint.to_string(),
            why,
        };
        if self.pins.is_empty() {
            return Err(unproven(
                "no certificate is pinned for it (datacenter.tls_pins)".to_string(),
            ));
        }
        let tcp = self.connect_tcp(addr, deadline)?;
        let left = deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or(ClientError::Timeout(self.timeout))?;
        tcp.set_read_timeout(Some(left)).map_err(ClientError::Io)?;
        tcp.set_write_timeout(Some(left)).map_err(ClientError::Io)?;
        let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        match crate::tls::handshake(tcp, host, &self.pins) {
            Ok(stream) => Ok(Stream::Tls(Box::new(stream))),
            Err(err) if is_timeout(&err) => Err(ClientError::Timeout(self.timeout)),
            Err(err) => Err(unproven(format!("the TLS handshake failed: {err}"))),
        }
    }

    /// Without the `tls` feature, an `https://` endpoint gets nothing.
    #[cfg(not(feature = "tls"))]
    fn connect_tls(&self, _addr: &str, _deadline: Instant) -> Result<Stream, ClientError> {
        Err(ClientError::Unproven {
            endpoint: self.endpoint.to_string(),
            why: "this build has no TLS (interstice-api's `tls` feature, which intersticed has)".to_string(),
        })
    }

    /// A TCP connection to `addr` (each of its addresses in turn) within the deadline.
    fn connect_tcp(&self, addr: &str, deadline: Instant) -> Result<TcpStream, ClientError> {
        let failed = |source| ClientError::Connect {
            path: PathBuf::from(self.endpoint.to_string()),
            source,
        };
        let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
        for candidate in addr.to_socket_addrs().map_err(failed)? {
            let left = deadline
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero())
                .ok_or(ClientError::Timeout(self.timeout))?;
            match TcpStream::connect_timeout(&candidate, left) {
                Ok(stream) => return Ok(stream),
                Err(err) => last = err,
            }
        }
        Err(failed(last))
    }
}

/// Connect to a Unix socket within `timeout`. A daemon whose listen backlog
/// is full (stopped, saturated) leaves a plain `connect` blocked forever; on
/// Linux a Unix stream connect waits for room at most the socket's send
/// timeout (`SO_SNDTIMEO`), so the socket gets one before it connects and
/// fails with `EAGAIN` once it passes.
fn connect_unix(path: &Path, timeout: Duration) -> std::io::Result<UnixStream> {
    let address = socket2::SockAddr::unix(path)?;
    let socket = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::STREAM.cloexec(), None)?;
    socket.set_write_timeout(Some(timeout))?;
    socket.connect(&address)?;
    Ok(UnixStream::from(socket))
}

/// Whether a connect failed because its time was up (full backlog).
fn is_timeout(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

impl Client {
    /// One HTTP exchange with an optional JSON body; answers of every status are returned.
    pub fn raw(&self, method: &str, path: &str, body: Option<&[u8]>) -> Result<RawResponse, ClientError> {
        let deadline = Instant::now() + self.timeout;
        let remaining = || {
            deadline
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero())
                .ok_or(ClientError::Timeout(self.timeout))
        };
        let mut stream = self.connect(deadline)?;
        self.prove(&stream)?;
        let body = body.unwrap_or_default();
        let auth = match (&self.endpoint, &self.token) {
            (Endpoint::Tcp(_) | Endpoint::Tls(_), Some(token)) => {
                format!("Authorization: Bearer {token}\r\n")
            }
            _ => String::new(),
        };
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAccept: application/json\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n{auth}\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        let mut written = 0;
        while written < request.len() {
            stream.set_write_timeout(remaining()?).map_err(ClientError::Io)?;
            match stream.write(&request[written..]) {
                Ok(0) => return Err(ClientError::Protocol("daemon closed the connection".into())),
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ClientError::from_io(e, self.timeout)),
            }
        }
        let mut answer = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            stream.set_read_timeout(remaining()?).map_err(ClientError::Io)?;
            match stream.read(&mut buffer) {
                Ok(0) => {
                    if answer.is_empty() {
                        return Err(ClientError::Protocol(
                            "daemon closed the connection without answering".into(),
                        ));
                    }
                    return parse_final(&answer);
                }
                Ok(n) => {
                    answer.extend_from_slice(&buffer[..n]);
                    if let Parsed::Complete(response) = parse_response(&answer, false)? {
                        return Ok(response);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ClientError::from_io(e, self.timeout)),
            }
        }
    }

    /// Sends a JSON request and decodes a JSON answer; non-2xx answers become [`ClientError::Http`].
    pub fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, ClientError> {
        let body = body
            .map(serde_json::to_vec)
            .transpose()
            .map_err(|source| ClientError::Json {
                what: format!("encoding the request to {method} {path}"),
                source,
            })?;
        let answer = self.raw(method, path, body.as_deref())?.success()?;
        serde_json::from_slice(&answer).map_err(|source| ClientError::Json {
            what: format!(
                "bad answer from intersticed to {method} {path} ({:?})",
                String::from_utf8_lossy(&answer)
            ),
            source,
        })
    }

    /// `POST /v1/jobs`.
    pub fn submit(&self, request: &SubmitRequest) -> Result<SubmitResponse, ClientError> {
        self.call("POST", "/v1/jobs", Some(request))
    }

    /// `POST /v1/predict`.
    pub fn predict(&self, request: &PredictRequest) -> Result<PredictResponse, ClientError> {
        self.call("POST", "/v1/predict", Some(request))
    }

    /// `GET /v1/slots`.
    pub fn slots(&self) -> Result<SlotsResponse, ClientError> {
        self.call::<(), _>("GET", "/v1/slots", None)
    }

    /// Every job the caller may see, as one list by id: `GET /v1/jobs` page
    /// after page (following `next_cursor`) up to the newest [`LISTED_JOBS`],
    /// the list a daemon answered on one page before it paged.
    pub fn jobs(&self) -> Result<JobList, ClientError> {
        let mut pages: Vec<Vec<JobView>> = Vec::new();
        let mut listed = 0;
        let mut cursor: Option<String> = None;
        loop {
            let page = self.jobs_page(None, cursor.as_deref())?;
            listed += page.jobs.len();
            pages.push(page.jobs);
            cursor = page.next_cursor;
            if cursor.is_none() || listed >= LISTED_JOBS {
                break;
            }
        }
        // Pages come newest first, each oldest first within.
        let mut jobs: Vec<JobView> = pages.into_iter().rev().flatten().collect();
        let extra = jobs.len().saturating_sub(LISTED_JOBS);
        jobs.drain(..extra);
        Ok(JobList {
            jobs,
            next_cursor: None,
        })
    }

    /// One page of `GET /v1/jobs`: at most `limit` jobs (None: the daemon's
    /// default) older than `cursor` (None: the newest).
    pub fn jobs_page(&self, limit: Option<u32>, cursor: Option<&str>) -> Result<JobList, ClientError> {
        let mut query = Vec::new();
        if let Some(limit) = limit {
            query.push(format!("limit={limit}"));
        }
        if let Some(cursor) = cursor {
            query.push(format!("cursor={}", percent_encode(cursor)));
        }
        let path = if query.is_empty() {
            "/v1/jobs".to_string()
        } else {
            format!("/v1/jobs?{}", query.join("&"))
        };
        self.call::<(), _>("GET", &path, None)
    }

    /// `GET /v1/jobs/{id}`.
    pub fn job(&self, id: u64) -> Result<JobView, ClientError> {
        self.call::<(), _>("GET", &format!("/v1/jobs/{id}"), None)
    }

    /// `GET /v1/jobs/{id}/output`: the last `tail` bytes of the job's
    /// `stream` (`stdout` or `stderr`).
    pub fn job_output(&self, id: u64, stream: &str, tail: u64) -> Result<JobOutput, ClientError> {
        self.call::<(), _>(
            "GET",
            &format!("/v1/jobs/{id}/output?stream={stream}&tail={tail}"),
            None,
        )
    }

    /// `DELETE /v1/jobs/{id}`.
    pub fn cancel(&self, id: u64) -> Result<JobView, ClientError> {
        self.call::<(), _>("DELETE", &format!("/v1/jobs/{id}"), None)
    }

    /// `POST /v1/hpc/events`.
    pub fn hpc_event(&self, request: &HpcEventRequest) -> Result<HpcEventResponse, ClientError> {
        self.call("POST", "/v1/hpc/events", Some(request))
    }

    /// `GET /v1/area`: the convergence area now.
    pub fn area(&self) -> Result<AreaResponse, ClientError> {
        self.call::<(), _>("GET", "/v1/area", None)
    }

    /// `POST /v1/area`: resize the convergence area (root or the batch system).
    pub fn resize_area(&self, procs: u32) -> Result<AreaResponse, ClientError> {
        self.call("POST", "/v1/area", Some(&AreaRequest { procs }))
    }

    /// `GET /healthz`.
    pub fn health(&self) -> Result<HealthResponse, ClientError> {
        self.call::<(), _>("GET", "/healthz", None)
    }

    /// `POST /v1/datacenter/tuples` (a member publishing to its broker).
    pub fn publish_tuple(&self, request: &TupleRequest) -> Result<TupleResponse, ClientError> {
        self.call("POST", "/v1/datacenter/tuples", Some(request))
    }

    /// `GET /v1/datacenter/members` (a broker's fresh members).
    pub fn members(&self) -> Result<MemberList, ClientError> {
        self.call::<(), _>("GET", "/v1/datacenter/members", None)
    }

    /// `POST /v1/datacenter/evicted` (a member handing an evicted job to its broker).
    pub fn hand_over(&self, request: &EvictedRequest) -> Result<SubmitResponse, ClientError> {
        self.call("POST", "/v1/datacenter/evicted", Some(request))
    }

    /// `GET /metrics` (Prometheus text).
    pub fn metrics(&self) -> Result<String, ClientError> {
        let body = self.raw("GET", "/metrics", None)?.success()?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }
}

/// What the bytes read so far hold.
#[derive(Debug)]
enum Parsed {
    /// More is needed.
    Incomplete,
    /// A whole answer.
    Complete(RawResponse),
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// Parses an HTTP/1.1 answer read so far; `at_eof` = the peer closed, so a
/// body without a length runs to the end.
fn parse_response(raw: &[u8], at_eof: bool) -> Result<Parsed, ClientError> {
    if raw.len() > MAX_RESPONSE_BYTES {
        return Err(ClientError::TooLarge {
            what: "answer",
            limit: MAX_RESPONSE_BYTES,
        });
    }
    let Some(header_end) = find(raw, b"\r\n\r\n") else {
        if raw.len() > MAX_HEADER_BYTES {
            return Err(ClientError::TooLarge {
                what: "headers",
                limit: MAX_HEADER_BYTES,
            });
        }
        return Ok(Parsed::Incomplete);
    };
    if header_end > MAX_HEADER_BYTES {
        return Err(ClientError::TooLarge {
            what: "headers",
            limit: MAX_HEADER_BYTES,
        });
    }
    let head = std::str::from_utf8(&raw[..header_end])
        .map_err(|_| ClientError::Protocol("response headers are not UTF-8".into()))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status: u16 = parts
        .next()
        .and_then(|code| code.parse().ok())
        .filter(|_| version.starts_with("HTTP/1."))
        .ok_or_else(|| ClientError::Protocol(format!("bad status line {status_line:?}")))?;
    let mut content_length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = Some(
                value
                    .parse::<usize>()
                    .map_err(|_| ClientError::Protocol(format!("bad Content-Length {value:?}")))?,
            );
        } else if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
    }
    let rest = &raw[header_end + 4..];
    let body = if chunked {
        match decode_chunked(rest)? {
            Some(body) => body,
            None => return Ok(Parsed::Incomplete),
        }
    } else if let Some(length) = content_length {
        if length > MAX_RESPONSE_BYTES {
            return Err(ClientError::TooLarge {
                what: "answer",
                limit: MAX_RESPONSE_BYTES,
            });
        }
        if rest.len() < length {
            return Ok(Parsed::Incomplete);
        }
        rest[..length].to_vec()
    } else if at_eof {
        rest.to_vec()
    } else {
        return Ok(Parsed::Incomplete);
    };
    Ok(Parsed::Complete(RawResponse { status, body }))
}

/// Parses the whole answer once the peer closed: an incomplete one is an error.
fn parse_final(raw: &[u8]) -> Result<RawResponse, ClientError> {
    match parse_response(raw, true)? {
        Parsed::Complete(response) => Ok(response),
        Parsed::Incomplete => Err(ClientError::Protocol(format!(
            "answer cut short after {} bytes",
            raw.len()
        ))),
    }
}

/// Decodes a chunked body; `None` while incomplete.
fn decode_chunked(mut rest: &[u8]) -> Result<Option<Vec<u8>>, ClientError> {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = find(rest, b"\r\n") else {
            return Ok(None);
        };
        let size_line = String::from_utf8_lossy(&rest[..line_end]);
        let size_text = size_line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ClientError::Protocol(format!("bad chunk size {size_text:?}")))?;
        if size > MAX_RESPONSE_BYTES - body.len() {
            return Err(ClientError::TooLarge {
                what: "answer",
                limit: MAX_RESPONSE_BYTES,
            });
        }
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(Some(body));
        }
        if rest.len() < size + 2 {
            return Ok(None);
        }
        if &rest[size..size + 2] != b"\r\n" {
            return Err(ClientError::Protocol("chunk not followed by CRLF".into()));
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests;
