//! [`Config::validate`]: every problem of the config at once, each naming its
//! key path.

use super::backend::{BackendConfig, EmbeddedConfig, SlurmConfig};
use super::classes::needs_default_class;
use super::datacenter::{BrokerConfig, DatacenterConfig, MemberConfig};
use super::model::{log_level, Config};
use crate::classes::ClassTable;
use interstice_api::Endpoint;
use interstice_core::placement::Placement;
use std::net::SocketAddr;

/// The `engine:` keys a broker has no use for (it plans no jobs).
const BROKER_UNUSED_ENGINE_KEYS: &str =
    "a broker plans no jobs; remove it (a broker reads engine.admission, tau, \
     beta, latency, max_resubmissions and max_time_in_system_seconds)";

impl Config {
    /// Every problem of the config, each naming its key path and what is
    /// allowed, section by section in the file's order: api, classes,
    /// engine (and the data center role), backend, execution, node,
    /// metrics, log level.
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        self.validate_api(&mut problems);
        let classes = match self.class_table() {
            Ok(table) => table,
            Err(class_problems) => {
                problems.extend(class_problems);
                None
            }
        };
        self.validate_engine(classes.as_ref(), &mut problems);
        match &self.backend {
            BackendConfig::Embedded(embedded) => validate_embedded(embedded, &mut problems),
            BackendConfig::Plugin(_) => {}
            BackendConfig::Slurm(slurm) => self.validate_slurm(slurm, classes.as_ref(), &mut problems),
        }
        self.validate_execution(&mut problems);
        if !(self.node.busy_margin_cpus.is_finite() && self.node.busy_margin_cpus >= 0.0) {
            problems.push(format!(
                "node.busy_margin_cpus: {} must be >= 0",
                self.node.busy_margin_cpus
            ));
        }
        positive(
            &mut problems,
            "node.sample_interval_seconds",
            self.node.sample_interval_seconds,
        );
        positive(
            &mut problems,
            "metrics.future_window_seconds",
            self.metrics.future_window_seconds,
        );
        problems.extend(self.store.problems());
        problems.extend(self.quota.problems());
        if log_level(&self.log_level).is_none() {
            problems.push(format!(
                "log_level: {:?} is not one of error, warn, info, debug, trace",
                self.log_level
            ));
        }
        problems
    }

    /// The `api:` section: the socket path, the TCP address (loopback unless
    /// `allow_remote`), the connection limits and the idle timeout.
    fn validate_api(&self, problems: &mut Vec<String>) {
        if self.api.socket.as_os_str().is_empty() {
            problems.push("api.socket: must be a path".to_string());
        }
        if let Some(listen) = &self.api.listen {
            match listen.parse::<SocketAddr>() {
                Err(_) => problems.push(format!("api.listen: {listen:?} is not ADDR:PORT (e.g. 127.0.0.1:9477)")),
                Ok(addr) if !addr.ip().is_loopback() && !self.api.allow_remote => problems.push(format!(
                    "api.listen: {addr} is not a loopback address; use 127.0.0.1 or ::1, or set api.allow_remote: true"
                )),
                Ok(_) => {}
            }
        }
        if self.api.tls.is_some() && self.api.listen.is_none() {
            problems.push("api.tls: serves the TCP listener, but api.listen is not set".to_string());
        }
        if self.api.max_connections < 2 {
            problems.push("api.max_connections: must be at least 2 (one is kept for root)".to_string());
        }
        if self.api.max_connections_per_uid == 0 {
            problems.push("api.max_connections_per_uid: must be at least 1".to_string());
        }
        if !(self.api.idle_timeout_seconds.is_finite()
            && (0.1..=3600.0).contains(&self.api.idle_timeout_seconds))
        {
            problems.push(format!(
                "api.idle_timeout_seconds: {} must be between 0.1 and 3600",
                self.api.idle_timeout_seconds
            ));
        }
    }

    /// The `engine:` section (and the data center role, which decides
    /// whether `engine.procs` is needed): sizes, the resolved policy and
    /// admission, the positive parameters, the daemon's own eviction.
    fn validate_engine(&self, classes: Option<&ClassTable>, problems: &mut Vec<String>) {
        let engine = &self.engine;
        if let Some(DatacenterConfig::Broker(broker)) = &self.datacenter {
            self.validate_broker(broker, problems);
        } else if engine.procs == 0 {
            problems.push("engine.procs: must be at least 1".to_string());
        }
        if let Some(DatacenterConfig::Member(member)) = &self.datacenter {
            self.validate_member(member, problems);
        }
        if let Some(conv) = engine.conv_procs {
            if conv == 0 || conv > engine.procs {
                problems.push(format!(
                    "engine.conv_procs: {conv} must be between 1 and engine.procs ({})",
                    engine.procs
                ));
            }
        }
        if let Err(err) = engine.resolve() {
            problems.extend(err.problems);
        }
        if let Some(lambda) = engine.lambda {
            positive(problems, "engine.lambda", lambda);
        }
        if let Some(tau) = engine.tau {
            positive(problems, "engine.tau", tau);
        }
        if let Some(max) = engine.max_time_in_system_seconds {
            positive(problems, "engine.max_time_in_system_seconds", max);
        }
        if engine.eviction.is_some() {
            if matches!(self.backend, BackendConfig::Slurm(_)) {
                problems.push(
                    "engine.eviction: in Slurm mode Slurm's plan decides the HPC jobs' nodes; the daemon's own \
                     victim order is backend.eviction"
                        .to_string(),
                );
            }
            if let Some(problem) = needs_default_class("engine.eviction", classes) {
                problems.push(problem);
            }
        }
    }

    /// The Slurm backend's settings: the plan's interval and staleness, the
    /// partitions, no topsis placement, the daemon's own eviction, holds.
    fn validate_slurm(&self, slurm: &SlurmConfig, classes: Option<&ClassTable>, problems: &mut Vec<String>) {
        positive(problems, "backend.bf_interval_seconds", slurm.bf_interval_seconds);
        if let Some(stale) = slurm.plan_stale_seconds {
            if !(stale.is_finite() && stale >= slurm.bf_interval_seconds) {
                problems.push(format!(
                    "backend.plan_stale_seconds: {stale} must be at least backend.bf_interval_seconds ({})",
                    slurm.bf_interval_seconds
                ));
            }
        }
        if slurm.partition_hpc.is_empty() {
            problems.push("backend.partition_hpc: must not be empty".to_string());
        }
        let mut clouds = interstice_api::slurm::partition_list(&slurm.partition_cloud).peekable();
        if clouds.peek().is_none() || clouds.any(|cloud| cloud == slurm.partition_hpc) {
            problems.push(format!(
                "backend.partition_cloud: {:?} must name the cloud partition, or several separated by \
                 commas, none of them backend.partition_hpc",
                slurm.partition_cloud
            ));
        }
        if self.engine.placement.as_deref() == Some(Placement::Topsis.name()) {
            problems.push(
                "engine.placement: topsis chooses a local cloud job's processors, but in Slurm mode Slurm \
                 places the cloud jobs on its nodes: remove it (a broker's topsis orders its members)"
                    .to_string(),
            );
        }
        if let Err(eviction_problems) = self.slurm_eviction(classes) {
            problems.extend(eviction_problems);
        }
        if !(slurm.hold_seconds.is_finite() && slurm.hold_seconds >= 0.0) {
            problems.push(format!(
                "backend.hold_seconds: {} must be a number of seconds >= 0 (0: no admission holds)",
                slurm.hold_seconds
            ));
        }
    }

    /// The `execution:` section: the grace period, the jobs' user (an
    /// existing unprivileged one, checked when the daemon runs as root), the
    /// allow and deny lists, the output cap, the limits.
    fn validate_execution(&self, problems: &mut Vec<String>) {
        let execution = &self.execution;
        if !(execution.grace_seconds.is_finite() && execution.grace_seconds >= 0.0) {
            problems.push(format!(
                "execution.grace_seconds: {} must be >= 0",
                execution.grace_seconds
            ));
        }
        if execution.user.is_empty() {
            problems.push("execution.user: must name a user".to_string());
        } else if nix::unistd::geteuid().is_root() {
            match nix::unistd::User::from_name(&execution.user) {
                Ok(Some(user)) if user.uid.is_root() => {
                    problems.push("execution.user: must be an unprivileged user, not root".to_string())
                }
                Ok(Some(_)) => {}
                _ => problems.push(format!(
                    "execution.user: no user named {:?} on this node",
                    execution.user
                )),
            }
        }
        for (key, list) in [
            ("execution.allow_users", &execution.allow_users),
            ("execution.deny_users", &execution.deny_users),
        ] {
            for entry in list {
                if entry.is_empty() {
                    problems.push(format!("{key}: empty entry; name a user or a uid"));
                }
            }
        }
        if execution.max_output_bytes == Some(0) {
            problems.push(
                "execution.max_output_bytes: 0 would fail every job's output; use null for no cap"
                    .to_string(),
            );
        }
        problems.extend(execution.work_root_problem(&self.state_dir));
        if let Some(quota) = execution.work_dir_quota_mb {
            if quota == 0 || quota > super::execution::MAX_WORK_DIR_QUOTA_MB {
                problems.push(format!(
                    "execution.work_dir_quota_mb: {quota} is outside 1..={} (MiB per job); null lets jobs \
                     write to work_root's own file system",
                    super::execution::MAX_WORK_DIR_QUOTA_MB
                ));
            }
        }
        let limits = &execution.limits;
        for (key, value) in [
            ("execution.limits.memory_mb_per_proc", limits.memory_mb_per_proc),
            ("execution.limits.max_memory_mb", limits.max_memory_mb),
            ("execution.limits.pids", limits.pids),
        ] {
            if value == Some(0) {
                problems.push(format!(
                    "{key}: 0 would stop every job at once; use null for no limit"
                ));
            }
        }
    }

    fn validate_member(&self, member: &MemberConfig, problems: &mut Vec<String>) {
        match member.broker.parse::<Endpoint>() {
            Err(err) => problems.push(format!("datacenter.broker: {err}")),
            Ok(Endpoint::Tls(_)) if member.tls_pins.is_empty() => problems.push(
                "datacenter.broker: an https:// broker needs datacenter.tls_pins (its certificate's SHA-256)"
                    .to_string(),
            ),
            Ok(_) => {}
        }
        validate_pins(&member.tls_pins, problems);
        match member.address.parse::<Endpoint>() {
            Err(err) => problems.push(format!("datacenter.address: {err}")),
            Ok(Endpoint::Unix(path)) if path != self.api.socket => problems.push(format!(
                "datacenter.address: {} is not this daemon's api.socket ({}); the broker reaches a member at its own \
                 socket, or at http://ADDR:PORT of its api.listen",
                path.display(),
                self.api.socket.display()
            )),
            Ok(Endpoint::Tls(_)) if self.api.tls.is_none() => problems.push(
                "datacenter.address: https:// needs api.tls (this daemon's certificate and key)".to_string(),
            ),
            Ok(_) => {}
        }
        if member.broker == member.address {
            problems.push("datacenter.broker: is this daemon's own address; name the broker's".to_string());
        }
        for (index, feature) in member.features.iter().enumerate() {
            if feature.trim().is_empty() {
                problems.push(format!("datacenter.features[{index}]: must not be empty"));
            }
        }
        positive(
            problems,
            "datacenter.publish_every_seconds",
            member.publish_every_seconds,
        );
        positive(problems, "datacenter.timeout_seconds", member.timeout_seconds);
    }

    /// A broker reads only the engine's admission rules and has no backend.
    fn validate_broker(&self, broker: &BrokerConfig, problems: &mut Vec<String>) {
        validate_pins(&broker.tls_pins, problems);
        let engine = &self.engine;
        let unused = [
            ("procs", engine.procs != 0),
            ("conv_procs", engine.conv_procs.is_some()),
            ("policy", engine.policy.is_some()),
            ("lambda", engine.lambda.is_some()),
            ("scheduling", engine.scheduling.is_some()),
            ("reservation_depth", engine.reservation_depth.is_some()),
            ("predictor", engine.predictor.is_some()),
            ("reject_above", engine.reject_above.is_some()),
            ("maintenance", !engine.maintenance.is_empty()),
        ];
        for (key, set) in unused {
            if set {
                problems.push(format!("engine.{key}: {BROKER_UNUSED_ENGINE_KEYS}"));
            }
        }
        if self.backend != BackendConfig::default() {
            problems.push("backend: a broker has no HPC plan of its own; remove the section".to_string());
        }
        if !self.classes.is_empty() || self.default_class.is_some() {
            problems.push(
                "classes: a broker runs no jobs; give the classes to its members, which account their jobs"
                    .to_string(),
            );
        }
        positive(
            problems,
            "datacenter.member_max_age_seconds",
            broker.member_max_age_seconds,
        );
        positive(problems, "datacenter.timeout_seconds", broker.timeout_seconds);
        if let Some(bandwidth) = broker.bandwidth_bytes_per_second {
            positive(problems, "datacenter.bandwidth_bytes_per_second", bandwidth);
        }
        if !(broker.monitoring_seconds.is_finite() && broker.monitoring_seconds >= 0.0) {
            problems.push(format!(
                "datacenter.monitoring_seconds: {} must be a number of seconds >= 0",
                broker.monitoring_seconds
            ));
        }
    }
}

/// The embedded replay's settings: its speed, its skipped prefix, its trace.
fn validate_embedded(embedded: &EmbeddedConfig, problems: &mut Vec<String>) {
    positive(problems, "backend.speedup", embedded.speedup);
    if !(embedded.skip_seconds.is_finite() && embedded.skip_seconds >= 0.0) {
        problems.push(format!(
            "backend.skip_seconds: {} must be >= 0",
            embedded.skip_seconds
        ));
    }
    if let Some(trace) = embedded.trace.as_ref().filter(|trace| !trace.is_file()) {
        problems.push(format!(
            "backend.trace: {} does not exist (relative paths are tried from the working directory, then the config's directory)",
            trace.display()
        ));
    }
}

/// Each of `datacenter.tls_pins` is a SHA-256 fingerprint.
fn validate_pins(pins: &[String], problems: &mut Vec<String>) {
    for (index, pin) in pins.iter().enumerate() {
        if let Err(err) = interstice_api::tls::parse_pin(pin) {
            problems.push(format!("datacenter.tls_pins[{index}]: {err}"));
        }
    }
}

fn positive(problems: &mut Vec<String>, key: &str, value: f64) {
    if !(value.is_finite() && value > 0.0) {
        problems.push(format!("{key}: {value} must be a positive number"));
    }
}
