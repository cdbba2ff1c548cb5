//! Enough file descriptors for the connection limits: with `RLIMIT_NOFILE`
//! below what `api.max_connections` admits, the kernel refused connections
//! (root's `/healthz` among them) before the daemon's own gates, which keep
//! the last eighth for root, ever saw them. At start the soft limit is
//! raised to what the limits need (never above the hard limit); a hard
//! limit too low for them is refused with the fix, by `--check-config` too.

use crate::config::Config;
use nix::sys::resource::{getrlimit, setrlimit, Resource};

/// Descriptors the daemon needs besides its connections: the database and
/// its journal, the listeners, the jobs' pipes, status files and cgroup
/// files, the socket monitor and logs.
pub const RESERVE: u64 = 512;

/// Descriptors the connection limits need: `api.max_connections` per
/// listener (the Unix socket, and `api.listen` when set), plus [`RESERVE`].
pub fn needed(config: &Config) -> u64 {
    let listeners = 1 + u64::from(config.api.listen.is_some());
    (config.api.max_connections as u64)
        .saturating_mul(listeners)
        .saturating_add(RESERVE)
}

/// Why the hard limit cannot serve the connection limits (`None`: it can).
pub fn problem(config: &Config) -> Option<String> {
    let need = needed(config);
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    (hard < need).then(|| {
        format!(
            "RLIMIT_NOFILE's hard limit is {hard}, below the {need} descriptors the connection limits need \
             (api.max_connections = {} per listener, plus {RESERVE} for the daemon): raise it (LimitNOFILE= in \
             the systemd unit, ulimit -Hn) or lower api.max_connections",
            config.api.max_connections
        )
    })
}

/// Raise the soft limit to what the connection limits need (at most the
/// hard limit; [`problem`] refuses a hard limit too low).
pub fn raise(config: &Config) -> Result<(), String> {
    let need = needed(config);
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|err| format!("RLIMIT_NOFILE: {err}"))?;
    if soft >= need {
        return Ok(());
    }
    setrlimit(Resource::RLIMIT_NOFILE, need.min(hard), hard)
        .map_err(|err| format!("raising RLIMIT_NOFILE: {err}"))
}
