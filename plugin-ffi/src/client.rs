//! A small blocking HTTP/1.1 client for `intersticed`'s Unix socket.
//!
//! Why not hyper: the client runs inside `slurmctld` (job_submit plugin) and
//! `slurmstepd` (SPANK), where spawning a runtime or threads is unwelcome. One
//! request = one connection (`Connection: close`), bodies with
//! `Content-Length` (chunked responses are decoded too), and one deadline for
//! the whole exchange: every socket operation gets the time that remains.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What went wrong talking to the daemon.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The socket could not be reached (missing, refused, permission).
    #[error("cannot connect to intersticed at {path}: {source}")]
    Connect {
        /// The socket path.
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
    /// The answer was not the HTTP/JSON expected.
    #[error("unexpected answer from intersticed: {0}")]
    Protocol(String),
    /// The caller passed an unusable argument.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl ClientError {
    fn from_io(error: std::io::Error, timeout: Duration) -> Self {
        match error.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => ClientError::Timeout(timeout),
            _ => ClientError::Io(error),
        }
    }
}

/// `POST /v1/predict` request.
#[derive(Debug, Clone, Serialize)]
pub struct PredictRequest {
    /// Processors the job needs.
    pub procs: u32,
    /// Requested walltime in seconds.
    pub walltime: f64,
    /// Agreed maximum response time in seconds.
    pub slo: f64,
    /// Count this as an admission decision in the daemon's metrics.
    pub admission: bool,
}

/// `POST /v1/predict` answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Prediction {
    /// `"accepted"` or `"rejected"`.
    pub decision: String,
    /// Predicted start, epoch seconds.
    pub predicted_start: Option<f64>,
    /// Predicted completion, epoch seconds.
    pub predicted_completion: Option<f64>,
    /// Predicted completion minus (arrival + SLO): negative is slack.
    pub violation_seconds: Option<f64>,
    /// The SLO (seconds) that can be met, when rejected.
    pub counter_offer_slo: Option<f64>,
}

impl Prediction {
    /// Whether the daemon accepted the job.
    pub fn accepted(&self) -> bool {
        self.decision == "accepted"
    }
}

/// The kind of an HPC job event (`POST /v1/hpc/events`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// The job entered the queue.
    Submitted,
    /// The job started on processors.
    Started,
    /// The job ended.
    Ended,
    /// The job was killed or cancelled.
    Killed,
}

/// `POST /v1/hpc/events` request.
#[derive(Debug, Clone, Serialize)]
pub struct HpcEvent {
    /// What happened.
    #[serde(rename = "type")]
    pub kind: EventKind,
    /// The batch system's job id.
    pub id: String,
    /// Processors the job takes.
    pub procs: u32,
    /// Requested walltime in seconds.
    pub walltime: f64,
    /// When it happened (epoch seconds); the daemon's clock when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Which processors (`"0-3"`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
}

#[derive(Deserialize)]
struct EventAnswer {
    #[serde(default)]
    evicted: Vec<Value>,
}

/// One processor idle now (`GET /v1/slots`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ImmediateSlot {
    /// Processor index.
    pub proc: u32,
    /// Idle until (epoch seconds); `None` = forever.
    pub idle_until: Option<f64>,
}

/// A future hole (`GET /v1/slots`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FutureSlot {
    /// Start, epoch seconds.
    pub start: f64,
    /// End, epoch seconds; `None` = open-ended.
    pub end: Option<f64>,
    /// Processors, interval-set text (`"0-3 6"`).
    pub procs: String,
}

/// `GET /v1/slots` answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Slots {
    /// The daemon's clock, epoch seconds.
    pub now: f64,
    /// Processors idle now.
    pub immediate: Vec<ImmediateSlot>,
    /// Holes later in the plan.
    pub future: Vec<FutureSlot>,
}

/// A connection recipe for one daemon: socket path and per-call deadline.
#[derive(Debug, Clone)]
pub struct Client {
    socket: PathBuf,
    timeout: Duration,
}

impl Client {
    /// A client for the daemon at `socket`; every call completes or fails within `timeout`.
    pub fn new(socket: impl Into<PathBuf>, timeout: Duration) -> Self {
        Client {
            socket: socket.into(),
            timeout,
        }
    }

    /// The socket path.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The per-call deadline.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `GET /healthz`.
    pub fn health(&self) -> Result<(), ClientError> {
        self.request("GET", "/healthz", None).map(|_| ())
    }

    /// `POST /v1/predict`.
    pub fn predict(&self, request: &PredictRequest) -> Result<Prediction, ClientError> {
        let body = serde_json::to_vec(request).map_err(|e| ClientError::Protocol(e.to_string()))?;
        let answer = self.request("POST", "/v1/predict", Some(&body))?;
        serde_json::from_slice(&answer).map_err(|e| ClientError::Protocol(format!("predict answer: {e}")))
    }

    /// `POST /v1/hpc/events`; returns the ids of the cloud jobs the daemon evicted.
    pub fn hpc_event(&self, event: &HpcEvent) -> Result<Vec<String>, ClientError> {
        let body = serde_json::to_vec(event).map_err(|e| ClientError::Protocol(e.to_string()))?;
        let answer = self.request("POST", "/v1/hpc/events", Some(&body))?;
        let answer: EventAnswer = serde_json::from_slice(&answer)
            .map_err(|e| ClientError::Protocol(format!("event answer: {e}")))?;
        Ok(answer
            .evicted
            .into_iter()
            .map(|id| match id {
                Value::String(text) => text,
                other => other.to_string(),
            })
            .collect())
    }

    /// `GET /v1/slots`.
    pub fn slots(&self) -> Result<Slots, ClientError> {
        let answer = self.request("GET", "/v1/slots", None)?;
        serde_json::from_slice(&answer).map_err(|e| ClientError::Protocol(format!("slots answer: {e}")))
    }

    /// One HTTP exchange; returns the body of a 2xx answer.
    pub fn request(&self, method: &str, path: &str, body: Option<&[u8]>) -> Result<Vec<u8>, ClientError> {
        let deadline = Instant::now() + self.timeout;
        let remaining = || {
            deadline
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero())
                .ok_or(ClientError::Timeout(self.timeout))
        };
        let mut stream = UnixStream::connect(&self.socket).map_err(|source| ClientError::Connect {
            path: self.socket.clone(),
            source,
        })?;
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAccept: application/json\r\n"
        );
        if let Some(body) = body {
            request.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        request.push_str("\r\n");
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body.unwrap_or_default());
        let mut written = 0;
        while written < bytes.len() {
            stream
                .set_write_timeout(Some(remaining()?))
                .map_err(ClientError::Io)?;
            match stream.write(&bytes[written..]) {
                Ok(0) => return Err(ClientError::Protocol("daemon closed the connection".into())),
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ClientError::from_io(e, self.timeout)),
            }
        }
        let mut answer = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            if let Some(done) = complete_response(&answer)? {
                return done;
            }
            stream
                .set_read_timeout(Some(remaining()?))
                .map_err(ClientError::Io)?;
            match stream.read(&mut buffer) {
                Ok(0) => {
                    return complete_response(&answer)?.unwrap_or_else(|| {
                        if answer.is_empty() {
                            Err(ClientError::Protocol(
                                "daemon closed the connection without answering".into(),
                            ))
                        } else {
                            parse_response(&answer, true)
                        }
                    })
                }
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ClientError::from_io(e, self.timeout)),
            }
        }
    }
}

type Response = Result<Vec<u8>, ClientError>;

/// `Some(result)` once `raw` holds a whole response (headers and full body).
fn complete_response(raw: &[u8]) -> Result<Option<Response>, ClientError> {
    if find(raw, b"\r\n\r\n").is_none() {
        return Ok(None);
    }
    match parse_response(raw, false) {
        Err(ClientError::Protocol(message)) if message == INCOMPLETE => Ok(None),
        other => Ok(Some(other)),
    }
}

const INCOMPLETE: &str = "incomplete response";

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// Parses an HTTP/1.1 response; `at_eof` = the peer closed, so a body without
/// a length runs to the end.
pub(crate) fn parse_response(raw: &[u8], at_eof: bool) -> Response {
    let incomplete = || ClientError::Protocol(INCOMPLETE.into());
    let header_end = find(raw, b"\r\n\r\n").ok_or_else(incomplete)?;
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
        decode_chunked(rest)?.ok_or_else(incomplete)?
    } else if let Some(length) = content_length {
        if rest.len() < length {
            return Err(incomplete());
        }
        rest[..length].to_vec()
    } else if at_eof {
        rest.to_vec()
    } else {
        return Err(incomplete());
    };
    if (200..300).contains(&status) {
        Ok(body)
    } else {
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|value| value.get("error").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).trim().to_string());
        Err(ClientError::Http { status, message })
    }
}

/// Decodes a chunked body; `None` while incomplete.
fn decode_chunked(mut rest: &[u8]) -> Result<Option<Vec<u8>>, ClientError> {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = find(rest, b"\r\n") else {
            return Ok(None);
        };
        let size_text = std::str::from_utf8(&rest[..line_end]).unwrap_or_default();
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ClientError::Protocol(format!("bad chunk size {size_text:?}")))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(Some(body));
        }
        if rest.len() < size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_length_body_is_returned() {
        let raw = b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{\"ok\":true}";
        assert_eq!(parse_response(raw, false).unwrap(), b"{\"ok\":true}");
    }

    #[test]
    fn short_body_is_incomplete_until_eof() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"ok\"";
        assert!(complete_response(raw).unwrap().is_none());
    }

    #[test]
    fn chunked_body_is_decoded() {
        let raw =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
        assert_eq!(parse_response(raw, false).unwrap(), b"{\"a\":1}");
    }

    #[test]
    fn error_status_carries_the_json_error_text() {
        let body = r#"{"error":"procs is 0"}"#;
        let raw = format!(
            "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        match parse_response(raw.as_bytes(), false) {
            Err(ClientError::Http { status, message }) => {
                assert_eq!(status, 400);
                assert_eq!(message, "procs is 0");
            }
            other => panic!("expected an HTTP error, got {other:?}"),
        }
    }

    #[test]
    fn garbage_is_a_protocol_error() {
        assert!(matches!(
            parse_response(b"SSH-2.0\r\n\r\n", true),
            Err(ClientError::Protocol(_))
        ));
    }

    #[test]
    fn missing_socket_is_a_connect_error() {
        let client = Client::new("/nonexistent/interstice.sock", Duration::from_millis(50));
        assert!(matches!(client.health(), Err(ClientError::Connect { .. })));
    }

    #[test]
    fn silent_server_times_out_within_the_bound() {
        let dir = std::env::temp_dir().join(format!("interstice-ffi-timeout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("silent.sock");
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let holder = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            std::thread::sleep(Duration::from_millis(400));
            drop(stream);
        });
        let client = Client::new(&path, Duration::from_millis(60));
        let started = Instant::now();
        let result = client.health();
        let took = started.elapsed();
        assert!(matches!(result, Err(ClientError::Timeout(_))), "{result:?}");
        assert!(took < Duration::from_millis(300), "took {took:?}");
        holder.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
