//! The plugin's arguments, from its `plugstack.conf` line:
//! `required /usr/lib/slurm/spank_interstice.so socket=/run/interstice/interstice.sock timeout_ms=200 cloud_partition=cloud`,
//! and what the prolog reads of `scontrol -o -d show job`: this node's share of the job.
//!
//! `socket=` may contain `%n`, replaced by the node's name (`SLURMD_NODENAME`)
//! when the prolog/epilog reports, so one `plugstack.conf` shared by several
//! nodes (or several slurmd on one machine) reaches each node's own daemon:
//! `socket=/run/interstice/%n.sock`.

use interstice_api::slurm::{hostlist_contains, parse_duration, HostlistError};
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
    /// `socket=`: the node daemon's Unix socket, as written (`%n` not yet
    /// replaced: see [`Args::socket_on`]).
    pub socket: PathBuf,
    /// `timeout_ms=`: latency bound of one event report from prolog/epilog.
    pub timeout: Duration,
    /// `cloud_partition=`: jobs in this partition (or these, comma-separated:
    /// one per service class) are cloud work, not reported as HPC.
    pub cloud_partition: String,
    /// `report=no` turns the prolog/epilog reports off (options still work).
    pub report: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            socket: PathBuf::from(interstice_api::paths::DEFAULT_SOCKET),
            timeout: Duration::from_millis(500),
            cloud_partition: interstice_api::slurm::DEFAULT_CLOUD_PARTITION.into(),
            report: true,
        }
    }
}

impl Args {
    /// Is `partition` one of the cloud partitions?
    pub fn is_cloud_partition(&self, partition: &str) -> bool {
        interstice_api::slurm::partition_list(&self.cloud_partition).any(|cloud| cloud == partition)
    }

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

    /// The daemon socket of node `node`: `socket=` with every `%n` replaced
    /// by the node's name (`socket=/run/interstice/%n.sock` on node `n2` is
    /// `/run/interstice/n2.sock`); unchanged without `%n`. `None` when the
    /// path needs the node's name and it is unknown.
    pub fn socket_on(&self, node: Option<&str>) -> Option<PathBuf> {
        let text = self.socket.to_string_lossy();
        if !text.contains("%n") {
            return Some(self.socket.clone());
        }
        node.map(|node| PathBuf::from(text.replace("%n", node)))
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

/// Number of processors in an interval set such as `"0-3 6"` (at least 1:
/// the daemon refuses an event of 0 processors).
pub fn count_procs(set: &str) -> u32 {
    set.split_whitespace()
        .map(|part| match part.split_once('-') {
            Some((low, high)) => match (low.parse::<u32>(), high.parse::<u32>()) {
                (Ok(low), Ok(high)) if high >= low => high - low + 1,
                _ => 0,
            },
            None => u32::from(part.parse::<u32>().is_ok()),
        })
        .sum::<u32>()
        .max(1)
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
        let classes = Args::parse(["cloud_partition=cloud,cloud_gold"]).unwrap();
        assert!(classes.is_cloud_partition("cloud") && classes.is_cloud_partition("cloud_gold"));
        assert!(!classes.is_cloud_partition("hpc") && !classes.is_cloud_partition(""));
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

    /// `packaging/slurm/plugstack.conf`, the line the package ships: the
    /// plugin where the package installs it, every argument this parser
    /// knows, each at its default.
    #[test]
    fn packaged_plugstack_line_gives_every_argument_its_default() {
        let text = include_str!("../../../packaging/slurm/plugstack.conf");
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
            .collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let mut words = lines[0].split_whitespace();
        assert_eq!(words.next(), Some("required"));
        assert_eq!(
            words.next(),
            Some("/usr/lib/interstice/slurm/spank_interstice.so")
        );
        let words: Vec<&str> = words.collect();
        assert_eq!(Args::parse(words.iter().copied()).unwrap(), Args::default());
        let unknown = Args::parse(["no_such_key=1"]).unwrap_err().to_string();
        let known: Vec<&str> = unknown
            .split("(known: ")
            .nth(1)
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{unknown}"))
            .split(", ")
            .collect();
        let given: Vec<&str> = words.iter().map(|word| word.split('=').next().unwrap()).collect();
        assert_eq!(given, known, "arguments in packaging/slurm/plugstack.conf");
    }

    #[test]
    fn percent_n_in_the_socket_names_the_node() {
        let shared = Args::parse(["socket=/run/interstice/intersticed.%n.sock"]).unwrap();
        assert_eq!(
            shared.socket_on(Some("n2")),
            Some(PathBuf::from("/run/interstice/intersticed.n2.sock"))
        );
        assert_eq!(
            shared.socket_on(None),
            None,
            "a per-node socket needs the node's name"
        );
        let twice = Args::parse(["socket=/run/%n/%n.sock"]).unwrap();
        assert_eq!(
            twice.socket_on(Some("a1")),
            Some(PathBuf::from("/run/a1/a1.sock"))
        );
        let plain = Args::parse(["socket=/run/i.sock"]).unwrap();
        assert_eq!(plain.socket_on(None), Some(PathBuf::from("/run/i.sock")));
        assert_eq!(plain.socket_on(Some("n1")), Some(PathBuf::from("/run/i.sock")));
    }

    #[test]
    fn procs_are_counted_from_interval_sets() {
        assert_eq!(count_procs("0-3 6"), 5);
        assert_eq!(count_procs("7"), 1);
        assert_eq!(count_procs(""), 1);
    }

    #[test]
    fn cpu_lists_become_interval_sets() {
        assert_eq!(cpus_to_interval_set("0-3,6"), "0-3 6");
        assert_eq!(cpus_to_interval_set("5"), "5");
    }
}

/// What `scontrol -o -d show job ID` says about the job.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobDetails {
    /// `NumCPUs=`: the whole job's CPUs, over all its nodes.
    pub num_cpus: Option<u32>,
    /// `NumNodes=`.
    pub num_nodes: Option<u32>,
    /// `TimeLimit=` in seconds (None: UNLIMITED or absent).
    pub time_limit_seconds: Option<u64>,
    /// Each `Nodes=<hostlist> CPU_IDs=<list>` group of the detailed record,
    /// in order: the nodes (a Slurm hostlist, `n[2-3]`) that have those CPU
    /// ids (Slurm list form `"0-2,5"`). Nodes with the same ids share a group.
    pub node_cpus: Vec<(String, String)>,
}

/// Parses the one-line detailed job record of `scontrol -o -d show job`.
pub fn parse_job_details(text: &str) -> JobDetails {
    let mut details = JobDetails::default();
    let mut nodes: Option<&str> = None;
    for word in text.split_whitespace() {
        if let Some(value) = word.strip_prefix("NumCPUs=") {
            details.num_cpus = value.parse().ok();
        } else if let Some(value) = word.strip_prefix("NumNodes=") {
            details.num_nodes = value.parse().ok();
        } else if let Some(value) = word.strip_prefix("TimeLimit=") {
            details.time_limit_seconds = parse_duration(value);
        } else if let Some(value) = word.strip_prefix("Nodes=") {
            nodes = Some(value);
        } else if let Some(value) = word.strip_prefix("CPU_IDs=") {
            if let Some(nodes) = nodes.take() {
                details.node_cpus.push((nodes.to_string(), value.to_string()));
            }
        }
    }
    details
}

/// Why the prolog cannot tell which of a job's CPUs are on this node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    /// A `Nodes=` group is not a hostlist.
    #[error(transparent)]
    Hostlist(#[from] HostlistError),
    /// This node is in none of the job's `Nodes=` groups.
    #[error("node {node:?} is not among the job's nodes {groups:?}")]
    NotInJob {
        /// This node's name.
        node: String,
        /// The job's `Nodes=` hostlists.
        groups: Vec<String>,
    },
    /// A job on several nodes without `Nodes= CPU_IDs=` groups: its
    /// `NumCPUs` is every node's, not this one's.
    #[error("the job runs on {nodes} nodes and scontrol gave no CPU_IDs per node")]
    NoCpuIds {
        /// `NumNodes=`.
        nodes: u32,
    },
    /// The node's name is unknown (no `SLURMD_NODENAME`) and the job spans several nodes.
    #[error("this node's name is unknown (no SLURMD_NODENAME) and the job has {groups} node groups")]
    UnknownNode {
        /// How many `Nodes=` groups the job has.
        groups: usize,
    },
}

/// A job's processors on one node, as the daemon takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeShare {
    /// This node's CPUs as an interval set (`"0-3"`), when Slurm said.
    pub cpus: Option<String>,
    /// How many processors the job has on this node.
    pub procs: u32,
}

impl JobDetails {
    /// The CPU ids (Slurm list form) of the first `Nodes=` group whose
    /// hostlist contains `node`; `None` when no group does.
    pub fn cpu_ids_on(&self, node: &str) -> Result<Option<&str>, HostlistError> {
        for (nodes, cpu_ids) in &self.node_cpus {
            if hostlist_contains(nodes, node)? {
                return Ok(Some(cpu_ids));
            }
        }
        Ok(None)
    }

    /// The job's share of node `node` (`None`: name unknown): the CPU ids of
    /// the group naming this node and their count. Without a node name,
    /// only a job on one node group has an answer (that group's CPUs). A
    /// record without any group (scontrol failed or was late) gives
    /// `NumCPUs` (or 1) and no CPU ids for a job on one node, an error for
    /// a job on several.
    pub fn share_on(&self, node: Option<&str>) -> Result<NodeShare, ShareError> {
        let share = |ids: &str| {
            let cpus = cpus_to_interval_set(ids);
            NodeShare {
                procs: count_procs(&cpus),
                cpus: Some(cpus),
            }
        };
        if self.node_cpus.is_empty() {
            return match self.num_nodes {
                Some(nodes) if nodes > 1 => Err(ShareError::NoCpuIds { nodes }),
                _ => Ok(NodeShare {
                    cpus: None,
                    procs: self.num_cpus.unwrap_or(1).max(1),
                }),
            };
        }
        match node {
            Some(node) => match self.cpu_ids_on(node)? {
                Some(ids) => Ok(share(ids)),
                None => Err(ShareError::NotInJob {
                    node: node.to_string(),
                    groups: self.node_cpus.iter().map(|(nodes, _)| nodes.clone()).collect(),
                }),
            },
            None if self.node_cpus.len() == 1 && self.num_nodes.unwrap_or(1) == 1 => {
                Ok(share(&self.node_cpus[0].1))
            }
            None => Err(ShareError::UnknownNode {
                groups: self.node_cpus.len(),
            }),
        }
    }
}

#[cfg(test)]
mod job_detail_tests {
    use super::*;

    #[test]
    fn detailed_job_line_is_parsed() {
        let line = "JobId=5 JobName=wrap UserId=root(0) Partition=hpc TimeLimit=00:02:00 NodeList=vm \
                    NumNodes=1 NumCPUs=3 NumTasks=3 CPUs/Task=1 Nodes=vm CPU_IDs=0-2 Mem=0 GRES= Command=(null)";
        let details = parse_job_details(line);
        assert_eq!(
            details,
            JobDetails {
                num_cpus: Some(3),
                num_nodes: Some(1),
                time_limit_seconds: Some(120),
                node_cpus: vec![("vm".into(), "0-2".into())],
            }
        );
        let expected = NodeShare {
            cpus: Some("0-2".into()),
            procs: 3,
        };
        assert_eq!(details.share_on(Some("vm")), Ok(expected.clone()));
        assert_eq!(details.share_on(None), Ok(expected), "one node: no name needed");
    }

    /// A job over n1 (2 CPUs), n2 and n3 (4 each): each node gets its own
    /// group's CPUs, never the first group's nor the job's 10.
    #[test]
    fn each_node_of_a_multi_node_job_gets_its_own_cpus() {
        let line = "JobId=9 Partition=hpc TimeLimit=00:01:00 NodeList=n[1-3] BatchHost=n1 NumNodes=3 \
                    NumCPUs=10 NumTasks=10 ReqNodeList=n[1-3] Nodes=n1 CPU_IDs=2-3 Mem=0 GRES= \
                    Nodes=n[2-3] CPU_IDs=0-3 Mem=0 GRES= MinCPUsNode=1";
        let details = parse_job_details(line);
        assert_eq!(details.num_cpus, Some(10));
        assert_eq!(
            details.share_on(Some("n1")),
            Ok(NodeShare {
                cpus: Some("2-3".into()),
                procs: 2
            })
        );
        for node in ["n2", "n3"] {
            assert_eq!(
                details.share_on(Some(node)),
                Ok(NodeShare {
                    cpus: Some("0-3".into()),
                    procs: 4
                }),
                "{node}"
            );
        }
        assert!(matches!(
            details.share_on(Some("n4")),
            Err(ShareError::NotInJob { node, .. }) if node == "n4"
        ));
        assert_eq!(details.share_on(None), Err(ShareError::UnknownNode { groups: 2 }));
    }

    #[test]
    fn a_malformed_group_is_an_error_not_a_panic() {
        let details = parse_job_details("NumNodes=2 NumCPUs=8 Nodes=n[2-3 CPU_IDs=0-3");
        assert!(matches!(
            details.share_on(Some("n2")),
            Err(ShareError::Hostlist(_))
        ));
    }

    #[test]
    fn without_groups_the_whole_job_counts() {
        let details = parse_job_details("JobId=5 NumCPUs=6 TimeLimit=UNLIMITED");
        assert_eq!(details.time_limit_seconds, None);
        assert_eq!(
            details.share_on(Some("n1")),
            Ok(NodeShare { cpus: None, procs: 6 })
        );
        assert_eq!(
            JobDetails::default().share_on(None),
            Ok(NodeShare { cpus: None, procs: 1 })
        );
        assert_eq!(
            parse_job_details("NumNodes=2 NumCPUs=8").share_on(Some("n2")),
            Err(ShareError::NoCpuIds { nodes: 2 }),
            "8 is both nodes' count, not this one's"
        );
    }
}
