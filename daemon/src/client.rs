//! A small blocking client for the daemon's API over its Unix socket (HTTP/1.1,
//! one connection per request), used by the `interstice` CLI and the tests.

use crate::wire::{
    ErrorBody, HealthResponse, HpcEventRequest, HpcEventResponse, JobList, JobView, PredictRequest,
    PredictResponse, SlotsResponse, SubmitRequest, SubmitResponse,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Errors of a client call.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The socket could not be reached.
    #[error("cannot reach the daemon at {socket}: {source} (is intersticed running? check --daemon)")]
    Connect {
        /// Socket path.
        socket: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing failed.
    #[error("talking to the daemon: {0}")]
    Io(#[from] std::io::Error),
    /// The answer is not HTTP/JSON as expected.
    #[error("bad answer from the daemon: {0}")]
    Protocol(String),
    /// The daemon answered with an error.
    #[error("daemon answered {status}: {message}")]
    Api {
        /// HTTP status.
        status: u16,
        /// The `error` field.
        message: String,
    },
}

/// A raw HTTP answer.
#[derive(Clone, Debug)]
pub struct RawResponse {
    /// Status code.
    pub status: u16,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A client of one daemon socket.
#[derive(Clone, Debug)]
pub struct Client {
    socket: PathBuf,
    timeout: Duration,
}

impl Client {
    /// A client for `socket` with a 30 s timeout.
    pub fn new(socket: impl AsRef<Path>) -> Client {
        Client {
            socket: socket.as_ref().to_path_buf(),
            timeout: Duration::from_secs(30),
        }
    }

    /// Send one request with an optional raw body.
    pub fn raw(&self, method: &str, path: &str, body: Option<&[u8]>) -> Result<RawResponse, ClientError> {
        let mut stream = UnixStream::connect(&self.socket).map_err(|source| ClientError::Connect {
            socket: self.socket.clone(),
            source,
        })?;
        stream.set_read_timeout(Some(self.timeout))?;
        stream.set_write_timeout(Some(self.timeout))?;
        let body = body.unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer)?;
        parse_response(&answer)
    }

    /// Send a JSON request and decode a JSON answer; non-2xx answers become [`ClientError::Api`].
    pub fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, ClientError> {
        let body = body
            .map(serde_json::to_vec)
            .transpose()
            .map_err(|err| ClientError::Protocol(err.to_string()))?;
        let response = self.raw(method, path, body.as_deref())?;
        if !(200..300).contains(&response.status) {
            let message = serde_json::from_slice::<ErrorBody>(&response.body)
                .map(|error| error.error)
                .unwrap_or_else(|_| response.text());
            return Err(ClientError::Api {
                status: response.status,
                message,
            });
        }
        serde_json::from_slice(&response.body)
            .map_err(|err| ClientError::Protocol(format!("{err} in {:?}", response.text())))
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

    /// `GET /v1/jobs`.
    pub fn jobs(&self) -> Result<JobList, ClientError> {
        self.call::<(), _>("GET", "/v1/jobs", None)
    }

    /// `GET /v1/jobs/{id}`.
    pub fn job(&self, id: u64) -> Result<JobView, ClientError> {
        self.call::<(), _>("GET", &format!("/v1/jobs/{id}"), None)
    }

    /// `DELETE /v1/jobs/{id}`.
    pub fn cancel(&self, id: u64) -> Result<JobView, ClientError> {
        self.call::<(), _>("DELETE", &format!("/v1/jobs/{id}"), None)
    }

    /// `POST /v1/hpc/events`.
    pub fn hpc_event(&self, request: &HpcEventRequest) -> Result<HpcEventResponse, ClientError> {
        self.call("POST", "/v1/hpc/events", Some(request))
    }

    /// `GET /healthz`.
    pub fn health(&self) -> Result<HealthResponse, ClientError> {
        self.call::<(), _>("GET", "/healthz", None)
    }

    /// `GET /metrics` (Prometheus text).
    pub fn metrics(&self) -> Result<String, ClientError> {
        let response = self.raw("GET", "/metrics", None)?;
        if response.status != 200 {
            return Err(ClientError::Api {
                status: response.status,
                message: response.text(),
            });
        }
        Ok(response.text())
    }
}

fn parse_response(answer: &[u8]) -> Result<RawResponse, ClientError> {
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| ClientError::Protocol("no HTTP header in the answer".to_string()))?;
    let head = String::from_utf8_lossy(&answer[..split]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| ClientError::Protocol(format!("bad status line {status_line:?}")))?;
    let chunked = lines.any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    let raw_body = &answer[split + 4..];
    let body = if chunked {
        dechunk(raw_body)?
    } else {
        raw_body.to_vec()
    };
    Ok(RawResponse { status, body })
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|window| window == b"\r\n")
            .ok_or_else(|| ClientError::Protocol("truncated chunked body".to_string()))?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| ClientError::Protocol(format!("bad chunk size {size_text:?}")))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if data.len() < size + 2 {
            return Err(ClientError::Protocol("truncated chunk".to_string()));
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_chunked_answers() {
        let plain = parse_response(b"HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}").unwrap();
        assert_eq!((plain.status, plain.text().as_str()), (404, "{}"));
        let chunked = parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(chunked.text(), "abcde");
        assert!(parse_response(b"garbage").is_err());
    }
}
