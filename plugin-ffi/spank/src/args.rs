//! The plugin's arguments, from its `plugstack.conf` line:
//! `required /usr/lib/slurm/spank_interstice.so socket=/run/interstice/interstice.sock timeout_ms=200 cloud_partition=cloud`.

use interstice_api::slurm::parse_duration;
use std::path::PathBuf;
use std::time::Duration;

/// A bad `plugstack.conf` argument; the message names it and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A word without `=`.
    #[error("plugstack.conf argument {word:?} is not key=value")]
    NotKeyValue {
        /// The word.
        word: String,
    },
    /// `timeout_ms=` out of range or not a number.
    #[error("timeout_ms must be 1..=60000, found {value:?}")]
    Timeout {
        /// The value given.
        value: String,
    },
    /// `report=` neither yes nor no.
    #[error("report must be yes or no, found {value:?}")]
    Report {
        /// The value given.
        value: String,
    },
    /// A key the plugin does not know (or `socket=` with no path).
    #[error("unknown plugstack.conf argument {key:?} (known: socket, timeout_ms, cloud_partition, report)")]
    UnknownKey {
        /// The key.
        key: String,
    },
}

/// Parsed `plugstack.conf` arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// `socket=`: the node daemon's Unix socket.
    pub socket: PathBuf,
    /// `timeout_ms=`: latency bound of one event report from prolog/epilog.
    pub timeout: Duration,
    /// `cloud_partition=`: jobs in this partition are cloud work, not reported as HPC.
    pub cloud_partition: String,
    /// `report=no` turns the prolog/epilog reports off (options still work).
    pub report: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            socket: PathBuf::from(interstice_api::paths::DEFAULT_SOCKET),
            timeout: Duration::from_millis(500),
            cloud_partition: "cloud".into(),
            report: true,
        }
    }
}

impl Args {
    /// Parses `key=value` words; an error names the word and the fix.
    pub fn parse<'a>(words: impl IntoIterator<Item = &'a str>) -> Result<Args, ArgsError> {
        let mut args = Args::default();
        for word in words {
            let Some((key, value)) = word.split_once('=') else {
                return Err(ArgsError::NotKeyValue {
                    word: word.to_string(),
                });
            };
            match key {
                "socket" if !value.is_empty() => args.socket = PathBuf::from(value),
                "timeout_ms" => match value.parse::<u64>() {
                    Ok(ms) if (1..=60_000).contains(&ms) => args.timeout = Duration::from_millis(ms),
                    _ => {
                        return Err(ArgsError::Timeout {
                            value: value.to_string(),
                        })
                    }
                },
                "cloud_partition" => args.cloud_partition = value.to_string(),
                "report" => {
                    args.report = match value {
                        "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => {
                            return Err(ArgsError::Report {
                                value: value.to_string(),
                            })
                        }
                    }
                }
                _ => return Err(ArgsError::UnknownKey { key: key.to_string() }),
            }
        }
        Ok(args)
    }
}

/// Slurm's CPU list (`"0-3,6"`) as the daemon's interval set (`"0-3 6"`).
pub fn cpus_to_interval_set(list: &str) -> String {
    list.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_parsed() {
        let args = Args::parse([
            "socket=/tmp/s.sock",
            "timeout_ms=80",
            "cloud_partition=spot",
            "report=no",
        ])
        .unwrap();
        assert_eq!(
            args,
            Args {
                socket: "/tmp/s.sock".into(),
                timeout: Duration::from_millis(80),
                cloud_partition: "spot".into(),
                report: false
            }
        );
        assert_eq!(Args::parse([]).unwrap(), Args::default());
    }

    #[test]
    fn bad_arguments_name_the_fix() {
        let message = |words: &[&str]| Args::parse(words.iter().copied()).unwrap_err().to_string();
        assert!(message(&["colour=red"]).contains("unknown plugstack.conf argument \"colour\""));
        assert!(message(&["timeout_ms=0"]).contains("1..=60000"));
        assert!(message(&["socket"]).contains("not key=value"));
        assert_eq!(
            Args::parse(["report=maybe"]),
            Err(ArgsError::Report {
                value: "maybe".into()
            })
        );
    }

    #[test]
    fn cpu_lists_become_interval_sets() {
        assert_eq!(cpus_to_interval_set("0-3,6"), "0-3 6");
        assert_eq!(cpus_to_interval_set("5"), "5");
    }
}

/// What `scontrol -o -d show job ID` says about the job on this node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobDetails {
    /// `NumCPUs=`.
    pub num_cpus: Option<u32>,
    /// `TimeLimit=` in seconds (None: UNLIMITED or absent).
    pub time_limit_seconds: Option<u64>,
    /// `CPU_IDs=` of the first node line (Slurm list form `"0-2,5"`).
    pub cpu_ids: Option<String>,
}

/// Parses the one-line detailed job record of `scontrol -o -d show job`.
pub fn parse_job_details(text: &str) -> JobDetails {
    let mut details = JobDetails::default();
    for word in text.split_whitespace() {
        if let Some(value) = word.strip_prefix("NumCPUs=") {
            details.num_cpus = value.parse().ok();
        } else if let Some(value) = word.strip_prefix("TimeLimit=") {
            details.time_limit_seconds = parse_duration(value);
        } else if let Some(value) = word.strip_prefix("CPU_IDs=") {
            details.cpu_ids.get_or_insert_with(|| value.to_string());
        }
    }
    details
}

#[cfg(test)]
mod job_detail_tests {
    use super::*;

    #[test]
    fn detailed_job_line_is_parsed() {
        let line = "JobId=5 JobName=wrap UserId=root(0) Partition=hpc TimeLimit=00:02:00 NodeList=vm \
                    NumNodes=1 NumCPUs=3 NumTasks=3 CPUs/Task=1 Nodes=vm CPU_IDs=0-2 Mem=0 GRES= Command=(null)";
        assert_eq!(
            parse_job_details(line),
            JobDetails {
                num_cpus: Some(3),
                time_limit_seconds: Some(120),
                cpu_ids: Some("0-2".into())
            }
        );
    }
}
