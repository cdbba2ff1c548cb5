//! What the Slurm backend reads about the cluster itself: its nodes
//! (`scontrol -o show node`) and its reservations (`scontrol -o show
//! reservation`), with `SLURM_TIME_FORMAT=%s` so that times are epoch seconds.

use super::squeue::{parse_epoch, ParseError};
use interstice_api::slurm::expand_hostlist;

/// One node, from `scontrol -o show node`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// NodeName.
    pub name: String,
    /// CPUAlloc.
    pub allocated: u32,
    /// CPUs jobs may use: `CPUEfctv` (CPUTot less specialized cores) when
    /// Slurm prints it, else `CPUTot`.
    pub total: u32,
    /// State, as printed (`IDLE`, `MIXED+DRAIN`, `DOWN*`, …).
    pub state: String,
    /// The partitions the node is in.
    pub partitions: Vec<String>,
    /// Its memory, when Slurm counts memory (`None` otherwise, and for a
    /// line without `RealMemory=` and `AllocMem=`).
    pub memory: Option<NodeMemory>,
}

/// A node's memory as Slurm schedules it, in megabytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMemory {
    /// `RealMemory`: what jobs may be given.
    pub total_mb: u64,
    /// `AllocMem`: what running jobs hold.
    pub allocated_mb: u64,
}

impl NodeMemory {
    /// Megabytes no running job holds.
    pub fn free_mb(&self) -> u64 {
        self.total_mb.saturating_sub(self.allocated_mb)
    }
}

/// State words of a node that takes no new work. A node powered down by
/// power saving is not one of them: Slurm resumes it for the work it gets.
const UNAVAILABLE: [&str; 10] = [
    "DOWN",
    "DRAIN",
    "DRAINING",
    "DRAINED",
    "FAIL",
    "FAILING",
    "FUTURE",
    "NOT_RESPONDING",
    "INVAL",
    "UNKNOWN",
];

impl Node {
    /// Whether the node is in partition `name`.
    pub fn in_partition(&self, name: &str) -> bool {
        self.partitions.iter().any(|p| p == name)
    }

    /// Whether Slurm may start new work on the node: not down, drained or
    /// draining, failing, not responding (`*`), future or unknown (a node
    /// powered down to save power is available: Slurm resumes it).
    pub fn available(&self) -> bool {
        !self.state.ends_with('*')
            && !self
                .state
                .split('+')
                .any(|word| UNAVAILABLE.contains(&word.trim_end_matches('*')))
    }
}

/// The value of `key=` among the words of a `scontrol -o` line.
pub(super) fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')))
}

/// Parses `scontrol -o show node` (one node per line).
pub fn parse_nodes(output: &str) -> Result<Vec<Node>, ParseError> {
    let mut nodes = Vec::new();
    for (index, line) in output.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = |key: &str| field(line, key).and_then(|value| value.parse::<u32>().ok());
        let (Some(name), Some(allocated), Some(total)) =
            (field(line, "NodeName"), number("CPUAlloc"), number("CPUTot"))
        else {
            return Err(ParseError {
                command: "scontrol show node",
                line: index + 1,
                message: "expected NodeName=, CPUAlloc= and CPUTot=".to_string(),
                text: line.to_string(),
            });
        };
        nodes.push(Node {
            name: name.to_string(),
            allocated,
            total: number("CPUEfctv").unwrap_or(total).min(total),
            state: field(line, "State").unwrap_or("UNKNOWN").to_string(),
            partitions: field(line, "Partitions")
                .filter(|list| *list != "(null)")
                .map(|list| list.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            memory: field(line, "RealMemory")
                .and_then(|mb| mb.parse::<u64>().ok())
                .zip(field(line, "AllocMem").and_then(|mb| mb.parse::<u64>().ok()))
                .map(|(total_mb, allocated_mb)| NodeMemory {
                    total_mb,
                    allocated_mb,
                }),
        });
    }
    Ok(nodes)
}

/// An advance reservation (`scontrol -o show reservation`): its nodes are
/// held for its users over `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    /// ReservationName.
    pub name: String,
    /// StartTime, epoch seconds.
    pub start: i64,
    /// EndTime, epoch seconds.
    pub end: i64,
    /// The node names (`Nodes=ALL` is every node, given as `None`).
    pub nodes: Option<Vec<String>>,
}

/// Parses `scontrol -o show reservation` ("No reservations in the system"
/// when there are none).
pub fn parse_reservations(output: &str) -> Result<Vec<Reservation>, ParseError> {
    let mut reservations = Vec::new();
    for (index, line) in output.lines().enumerate() {
        let line_text = line.trim();
        if line_text.is_empty() || line_text.starts_with("No reservations") {
            continue;
        }
        let error = |message: String| ParseError {
            command: "scontrol show reservation",
            line: index + 1,
            message,
            text: line.to_string(),
        };
        let epoch = |key: &str| field(line, key).and_then(parse_epoch);
        let (Some(name), Some(start), Some(end), Some(nodes)) = (
            field(line, "ReservationName"),
            epoch("StartTime"),
            epoch("EndTime"),
            field(line, "Nodes"),
        ) else {
            return Err(error(
                "expected ReservationName=, StartTime= and EndTime= in epoch seconds (SLURM_TIME_FORMAT=%s), and Nodes="
                    .to_string(),
            ));
        };
        let nodes = if nodes == "ALL" {
            None
        } else if nodes.is_empty() || nodes == "(null)" {
            Some(Vec::new()) // licenses or burst buffers only: no node held
        } else {
            Some(expand_hostlist(nodes).map_err(|err| error(err.to_string()))?)
        };
        reservations.push(Reservation {
            name: name.to_string(),
            start,
            end,
            nodes,
        });
    }
    Ok(reservations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_parsed_with_state_and_partitions() {
        let output = "NodeName=n1 Arch=x86_64 CoresPerSocket=4 CPUAlloc=2 CPUEfctv=4 CPUTot=4 CPULoad=0.13 \
                      AvailableFeatures=(null) State=MIXED ThreadsPerCore=1 Partitions=hpc,cloud Reason=x\n\
                      NodeName=n2 CPUAlloc=0 CPUTot=8 State=IDLE+DRAIN Partitions=hpc\n\
                      NodeName=n3 CPUAlloc=0 CPUTot=8 State=IDLE* Partitions=(null)\n\
                      NodeName=n4 CPUAlloc=0 CPUTot=8 State=IDLE+POWERED_DOWN Partitions=hpc\n";
        let nodes = parse_nodes(output).unwrap();
        assert_eq!(
            nodes[0],
            Node {
                name: "n1".into(),
                allocated: 2,
                total: 4,
                state: "MIXED".into(),
                partitions: vec!["hpc".into(), "cloud".into()],
                memory: None,
            }
        );
        // Slurm 22.05.8 with CR_Core_Memory (most fields cut).
        let line = "NodeName=n1 CoresPerSocket=4  CPUAlloc=3 CPUEfctv=4 CPUTot=4 RealMemory=4000 AllocMem=3500 \
                    FreeMem=4986 Sockets=1 State=MIXED Partitions=hpc,cloud,cloud_gold  AllocTRES=cpu=3,mem=3500M\n";
        let memory = parse_nodes(line).unwrap()[0].memory.unwrap();
        assert_eq!(
            (memory.total_mb, memory.allocated_mb, memory.free_mb()),
            (4000, 3500, 500)
        );
        assert!(nodes[0].available());
        assert!(!nodes[1].available(), "draining");
        assert!(!nodes[2].available(), "not responding");
        assert!(
            nodes[3].available(),
            "powered down to save power: Slurm resumes it"
        );
        assert!(nodes[2].partitions.is_empty());
        assert!(parse_nodes("NodeName=x State=IDLE\n")
            .unwrap_err()
            .to_string()
            .contains("CPUTot"));
    }

    #[test]
    fn reservations_are_parsed() {
        let output = "ReservationName=maint StartTime=1800000000 EndTime=1800003600 Duration=01:00:00 \
                      Nodes=n[1-2] NodeCnt=2 CoreCnt=8 Features=(null) PartitionName=(null) Flags=MAINT,SPEC_NODES \
                      TRES=cpu=8 Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE\n\
                      ReservationName=all StartTime=1800000000 EndTime=1800000060 Nodes=ALL\n";
        let reservations = parse_reservations(output).unwrap();
        assert_eq!(
            reservations[0],
            Reservation {
                name: "maint".into(),
                start: 1_800_000_000,
                end: 1_800_003_600,
                nodes: Some(vec!["n1".into(), "n2".into()]),
            }
        );
        assert_eq!(reservations[1].nodes, None);
        assert!(parse_reservations("No reservations in the system\n")
            .unwrap()
            .is_empty());
        let err = parse_reservations("ReservationName=r StartTime=2026-11-25T10:00:00 EndTime=1 Nodes=n1\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 1") && err.contains("SLURM_TIME_FORMAT"),
            "{err}"
        );
        let err = parse_reservations("ReservationName=r StartTime=1 EndTime=2 Nodes=n[1-\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("hostlist \"n[1-\""), "{err}");
    }
}
