//! The `api:` section: the Unix socket and TCP listeners, their connection
//! limits and the bearer token file.

use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

#[cfg(doc)]
use super::backend::BackendConfig;

/// `api:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApiConfig {
    /// Unix socket path (mode 0660).
    #[serde(default = "default_socket")]
    pub socket: PathBuf,
    /// Optional TCP listener, `ADDR:PORT`.
    #[serde(default)]
    pub listen: Option<String>,
    /// Allow `listen` on a non-loopback address (off by default).
    #[serde(default)]
    pub allow_remote: bool,
    /// A file holding the bearer token that opens the whole API on the TCP
    /// listener (without it, TCP serves `/metrics` and `/healthz` only). It
    /// must be owned by the daemon's user (root) and not readable by others
    /// (mode 0600 or stricter), else the daemon refuses to start.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// Serve the TCP listener over TLS with this certificate and key
    /// (`crate::tls`): a data center's daemons on other hosts pin the
    /// certificate (`datacenter.tls_pins`) and send the token only to it.
    #[serde(default)]
    pub tls: Option<TlsConfig>,
    /// Connections open at once per listener; the last eighth is kept for root.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// Connections open at once per non-root uid on the Unix socket.
    #[serde(default = "default_max_connections_per_uid")]
    pub max_connections_per_uid: usize,
    /// A connection that sends no complete request head for this long is closed, seconds.
    #[serde(default = "default_idle_timeout")]
    pub idle_timeout_seconds: f64,
}

/// `api.tls`: the TCP listener's certificate and private key (PEM files).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// The certificate chain, the listener's own certificate first.
    pub certificate: PathBuf,
    /// Its private key, owned by the daemon's uid and unreadable by others.
    pub key: PathBuf,
}

fn default_max_connections() -> usize {
    256
}

fn default_max_connections_per_uid() -> usize {
    64
}

fn default_idle_timeout() -> f64 {
    10.0
}

/// Connection limits of one listener, built from this section by
/// [`ApiConfig::limits`] and enforced by `crate::listen`'s gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once per non-root uid (Unix socket only).
    pub max_per_uid: usize,
    /// Besides root, the uid that shares root's reserve and has no per-uid
    /// limit: the batch system's (`backend.slurm_user` in Slurm mode, whose
    /// slurmctld asks `job_submit/interstice`'s admissions), so that users
    /// filling the listener never lock the batch system out.
    pub batch_uid: Option<u32>,
    /// A connection without a complete request head for this long is closed.
    pub idle_timeout: Duration,
}

impl ApiConfig {
    /// The connection limits of each listener.
    /// The listeners' limits, sharing root's reserve with `batch_uid`
    /// ([`BackendConfig::slurm_uid`]).
    pub fn limits(&self, batch_uid: Option<u32>) -> Limits {
        Limits {
            max_connections: self.max_connections,
            max_per_uid: self.max_connections_per_uid,
            batch_uid,
            idle_timeout: Duration::from_secs_f64(self.idle_timeout_seconds),
        }
    }

    /// Read `token_file`'s token (none configured: `None`), refusing a file
    /// another user owns or may read or write: the token opens the job API.
    pub fn token(&self) -> Result<Option<String>, String> {
        use std::os::unix::fs::MetadataExt;
        let Some(path) = &self.token_file else {
            return Ok(None);
        };
        let meta =
            std::fs::metadata(path).map_err(|err| format!("api.token_file: {}: {err}", path.display()))?;
        let me = nix::unistd::geteuid().as_raw();
        if meta.uid() != me {
            return Err(format!(
                "api.token_file: {} is owned by uid {}, not by the daemon's uid {me}; chown it",
                path.display(),
                meta.uid()
            ));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "api.token_file: {} has mode {:04o}; other users may read the token: chmod 600 it",
                path.display(),
                meta.mode() & 0o7777
            ));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("api.token_file: {}: {err}", path.display()))?;
        let token = text.trim();
        if token.len() < 16 || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "api.token_file: {} must hold one token of at least 16 characters without spaces \
                 (e.g. `openssl rand -hex 32`)",
                path.display()
            ));
        }
        Ok(Some(token.to_string()))
    }
}

fn default_socket() -> PathBuf {
    PathBuf::from(interstice_api::paths::DEFAULT_SOCKET)
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            socket: default_socket(),
            listen: None,
            allow_remote: false,
            token_file: None,
            tls: None,
            max_connections: default_max_connections(),
            max_connections_per_uid: default_max_connections_per_uid(),
            idle_timeout_seconds: default_idle_timeout(),
        }
    }
}
