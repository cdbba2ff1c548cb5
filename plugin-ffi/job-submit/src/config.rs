//! `interstice.conf`: the plugin's settings, `key = value` lines.
//!
//! Found at `$INTERSTICE_CONF`, else `interstice.conf` beside `$SLURM_CONF`,
//! else `/etc/slurm/interstice.conf`; a missing file means all defaults.
//! Every problem names `path:line` and the key.

use interstice_api::slurm::partition_list;
use interstice_core::slo::valid_slack;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to do when the daemon does not answer in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailMode {
    /// Accept the job unpredicted (marked in its comment so the daemon counts it).
    Open,
    /// Reject the job with a message.
    Closed,
}

/// The plugin's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Where the file was read from (`None`: defaults, no file).
    pub source: Option<PathBuf>,
    /// `socket`: the daemon's Unix socket.
    pub socket: PathBuf,
    /// `timeout_ms`: the latency bound of one admission call.
    pub timeout: Duration,
    /// `fail_mode`: `open` or `closed`.
    pub fail_mode: FailMode,
    /// `cloud_partition`: where accepted jobs are routed (empty: left as submitted).
    pub cloud_partition: String,
    /// `cloud_qos`: QOS given to accepted jobs (empty: left as submitted).
    pub cloud_qos: String,
    /// `class_partitions`: `CLASS:PARTITION` pairs: an accepted job of one of
    /// these classes (`--class`) goes to its class's partition instead of
    /// `cloud_partition` (per-class `PriorityTier`s make Slurm preempt the
    /// least important class first; docs/qos.md, "On Slurm").
    pub class_partitions: Vec<(String, String)>,
    /// `evictable_partitions`: jobs submitted to these are evictable without `--evictable`.
    pub evictable_partitions: Vec<String>,
    /// `evictable_qos`: jobs with these QOS are evictable without `--evictable`.
    pub evictable_qos: Vec<String>,
    /// `set_deadline`: set the job's deadline to submit + SLO.
    pub set_deadline: bool,
    /// `default_slack_factor`: SLO = factor × walltime for evictable jobs without
    /// `--slo` (`interstice_core::slo_for`, rounded up to whole seconds); by
    /// default the engine's `DEFAULT_SLACK`. Any factor
    /// `interstice_core::slo::valid_slack` takes (finite, > 0): below 1 the SLO is
    /// shorter than the walltime, which suits jobs that end early.
    pub default_slack_factor: f64,
    /// `default_walltime_seconds`: walltime for jobs submitted without `--time`.
    pub default_walltime_seconds: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            source: None,
            socket: PathBuf::from(interstice_api::paths::DEFAULT_SOCKET),
            timeout: Duration::from_millis(50),
            fail_mode: FailMode::Open,
            cloud_partition: interstice_api::slurm::DEFAULT_CLOUD_PARTITION.into(),
            cloud_qos: String::new(),
            class_partitions: Vec::new(),
            evictable_partitions: Vec::new(),
            evictable_qos: Vec::new(),
            set_deadline: true,
            default_slack_factor: interstice_core::DEFAULT_SLACK,
            default_walltime_seconds: 600,
        }
    }
}

/// A problem in the config file.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct ConfigError {
    /// The file.
    pub path: String,
    /// 1-based line (0: the file as a whole).
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Config {
    /// The partition an accepted job of `class` goes to: its class's, else
    /// `cloud_partition` (`None`: leave the job's own).
    pub fn partition_for(&self, class: Option<&str>) -> Option<String> {
        class
            .and_then(|class| self.class_partitions.iter().find(|(c, _)| c == class))
            .map(|(_, partition)| partition.clone())
            .or_else(|| (!self.cloud_partition.is_empty()).then(|| self.cloud_partition.clone()))
    }

    /// The file the plugin reads: `$INTERSTICE_CONF`, else beside `$SLURM_CONF`, else `/etc/slurm/`
    /// (`interstice_api::paths::plugin_config_path`).
    pub fn default_path() -> PathBuf {
        interstice_api::paths::plugin_config_path()
    }

    /// Reads `path`; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(error) => Err(ConfigError {
                path: path.display().to_string(),
                line: 0,
                message: format!("cannot read: {error}"),
            }),
        }
    }

    /// Parses the text of a config file read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut config = Config {
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        for (index, raw) in text.lines().enumerate() {
            let error = |message: String| ConfigError {
                path: path.display().to_string(),
                line: index + 1,
                message,
            };
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(error(format!("expected `key = value`, found {line:?}")));
            };
            let (key, value) = (key.trim(), value.trim());
            let list = || partition_list(value).map(String::from).collect();
            match key {
                "socket" if !value.is_empty() => config.socket = PathBuf::from(value),
                "timeout_ms" => match value.parse::<u64>() {
                    Ok(ms) if (1..=10_000).contains(&ms) => config.timeout = Duration::from_millis(ms),
                    _ => {
                        return Err(error(format!(
                            "timeout_ms must be 1..=10000 milliseconds, found {value:?}"
                        )))
                    }
                },
                "fail_mode" => {
                    config.fail_mode = match value {
                        "open" => FailMode::Open,
                        "closed" => FailMode::Closed,
                        _ => {
                            return Err(error(format!(
                                "fail_mode must be `open` or `closed`, found {value:?}"
                            )))
                        }
                    }
                }
                "cloud_partition" => config.cloud_partition = value.to_string(),
                "cloud_qos" => config.cloud_qos = value.to_string(),
                "class_partitions" => {
                    let mut pairs: Vec<(String, String)> = Vec::new();
                    for item in partition_list(value) {
                        let pair = item.split_once(':').and_then(|(class, partition)| {
                            let class = interstice_api::slurm::parse_class(class).ok()?;
                            let partition = partition.trim();
                            (!partition.is_empty() && !partition.contains(char::is_whitespace))
                                .then(|| (class, partition.to_string()))
                        });
                        match pair {
                            Some(pair) if !pairs.iter().any(|(class, _)| *class == pair.0) => pairs.push(pair),
                            _ => {
                                return Err(error(format!(
                                    "class_partitions: {item:?} is not CLASS:PARTITION (a class name, once), \
                                     e.g. `class_partitions = gold:cloud_gold, silver:cloud_silver`"
                                )))
                            }
                        }
                    }
                    config.class_partitions = pairs;
                }
                "evictable_partitions" => config.evictable_partitions = list(),
                "evictable_qos" => config.evictable_qos = list(),
                "set_deadline" => {
                    config.set_deadline = match value {
                        "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => {
                            return Err(error(format!(
                                "set_deadline must be `yes` or `no`, found {value:?}"
                            )))
                        }
                    }
                }
                "default_slack_factor" => match value.parse::<f64>() {
                    Ok(factor) if valid_slack(factor) => config.default_slack_factor = factor,
                    _ => {
                        return Err(error(format!(
                            "default_slack_factor must be a finite number > 0 (SLO = factor × walltime), \
                             found {value:?}"
                        )))
                    }
                },
                "default_walltime_seconds" => match value.parse::<u64>() {
                    Ok(seconds) if seconds > 0 => config.default_walltime_seconds = seconds,
                    _ => {
                        return Err(error(format!(
                            "default_walltime_seconds must be > 0, found {value:?}"
                        )))
                    }
                },
                _ => {
                    return Err(error(format!(
                    "unknown key {key:?} (known: socket, timeout_ms, fail_mode, cloud_partition, cloud_qos, \
                         class_partitions, evictable_partitions, evictable_qos, set_deadline, default_slack_factor, \
                         default_walltime_seconds)"
                )))
                }
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_file_is_parsed() {
        let text = "# comment\nsocket = /tmp/x.sock\ntimeout_ms = 80\nfail_mode = closed\n\
                    cloud_partition = spot\ncloud_qos = low\nevictable_partitions = spot, scavenger\n\
                    set_deadline = no\ndefault_slack_factor = 3\ndefault_walltime_seconds = 120\n";
        let config = Config::parse(text, Path::new("i.conf")).unwrap();
        assert_eq!(config.socket, PathBuf::from("/tmp/x.sock"));
        assert_eq!(config.timeout, Duration::from_millis(80));
        assert_eq!(config.fail_mode, FailMode::Closed);
        assert_eq!(config.cloud_partition, "spot");
        assert_eq!(config.cloud_qos, "low");
        assert_eq!(
            config.evictable_partitions,
            vec!["spot".to_string(), "scavenger".to_string()]
        );
        assert!(!config.set_deadline);
        assert_eq!(config.default_slack_factor, 3.0);
        assert_eq!(config.default_walltime_seconds, 120);
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let error = Config::parse(
            "socket = /a\nfail_mode = maybe\n",
            Path::new("/etc/slurm/interstice.conf"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "/etc/slurm/interstice.conf:2: fail_mode must be `open` or `closed`, found \"maybe\""
        );
        let error = Config::parse("colour = red", Path::new("c"))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("c:1: unknown key \"colour\""), "{error}");
    }

    #[test]
    fn class_partitions_route_each_class_and_bad_pairs_name_the_line() {
        let config = Config::parse(
            "cloud_partition = cloud\nclass_partitions = gold:cloud_gold, silver : cloud_silver\n",
            Path::new("i.conf"),
        )
        .unwrap();
        assert_eq!(config.partition_for(Some("gold")).as_deref(), Some("cloud_gold"));
        assert_eq!(
            config.partition_for(Some("silver")).as_deref(),
            Some("cloud_silver")
        );
        assert_eq!(config.partition_for(Some("bronze")).as_deref(), Some("cloud"));
        assert_eq!(config.partition_for(None).as_deref(), Some("cloud"));
        for bad in ["gold", "gold:", "g d:p", "gold:a b", "gold:a,gold:b"] {
            let error = Config::parse(&format!("\nclass_partitions = {bad}\n"), Path::new("i.conf"))
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("i.conf:2: class_partitions: "),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn slack_factor_is_the_engines_rule() {
        let slack = |value: &str| {
            Config::parse(&format!("default_slack_factor = {value}\n"), Path::new("i.conf"))
                .map(|config| config.default_slack_factor)
                .map_err(|error| error.to_string())
        };
        // An SLO shorter than the walltime is legitimate when jobs end early.
        assert_eq!(slack("0.5"), Ok(0.5));
        assert_eq!(slack("1"), Ok(1.0));
        for bad in ["0", "-1", "inf", "NaN", "fast"] {
            assert_eq!(
                slack(bad),
                Err(format!(
                    "i.conf:1: default_slack_factor must be a finite number > 0 (SLO = factor × walltime), \
                     found {bad:?}"
                ))
            );
        }
    }

    #[test]
    fn missing_file_gives_defaults() {
        let config = Config::load(Path::new("/nonexistent/interstice.conf")).unwrap();
        assert_eq!(config, Config::default());
    }

    /// `packaging/slurm/interstice.conf`, the file the package ships, is
    /// read by this parser, sets every key it knows, and sets each to its
    /// default (the file says so).
    #[test]
    fn packaged_file_sets_every_key_to_its_default() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../packaging/slurm/interstice.conf"
        ));
        let text = std::fs::read_to_string(path).unwrap();
        let config = Config::parse(&text, path).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            config,
            Config {
                source: Some(path.to_path_buf()),
                ..Config::default()
            }
        );
        assert_eq!(
            config.socket,
            Path::new(interstice_api::paths::DEFAULT_SOCKET),
            "the daemon's default api.socket"
        );
        let unknown = Config::parse("no_such_key = 1", path).unwrap_err().message;
        let known: std::collections::BTreeSet<&str> = unknown
            .split("(known: ")
            .nth(1)
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{unknown}"))
            .split(',')
            .map(str::trim)
            .collect();
        let in_file: std::collections::BTreeSet<&str> = text
            .lines()
            .filter(|line| !line.trim_start().starts_with('#') && line.contains('='))
            .map(|line| line.split('=').next().unwrap().trim())
            .collect();
        assert_eq!(known.len(), 11, "{known:?}");
        assert_eq!(in_file, known, "keys in packaging/slurm/interstice.conf");
    }
}
