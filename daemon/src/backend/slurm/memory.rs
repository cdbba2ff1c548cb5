//! Memory as Slurm counts it, when it does: whether Slurm treats memory as
//! a consumable resource ([`tracks_memory`], from `scontrol show config`),
//! each job's memory ([`parse_job_memory`], from `squeue -O`
//! [`MEMORY_FORMAT`]), a pending job's request per node or per CPU
//! ([`MemoryRequest`], from `scontrol -o show job`), and how a job's memory
//! is shared out over its nodes ([`share`]).
//!
//! Slurm schedules memory only with a `SelectTypeParameters` naming it
//! (`CR_Memory`, `CR_CPU_Memory`, `CR_Core_Memory`, `CR_Socket_Memory`):
//! then a job starts on a node only where its memory is free (`RealMemory`
//! less `AllocMem`), and a job's memory is its TRES `mem=` (`tres-alloc`:
//! what a running job holds, what a pending one asks for, over all its
//! nodes). Without it Slurm counts CPUs only and so does the backend: the
//! nodes carry no memory and no job's memory is read
//! ([`super::SlurmOutput::parse`], the one place that decides it).
//!
//! `squeue %m` is no source: it prints a per-CPU request without saying so
//! (`_print_pn_min_memory` drops the `MEM_PER_CPU` flag). Nor is a node's
//! `FreeMem`: that is what the operating system has free, not what Slurm
//! schedules against.

use super::cluster::field;
use super::squeue::ParseError;
use std::collections::HashMap;

/// The `squeue -O` fields read for each job's memory: its id as `%i`
/// prints it (`JobArrayID`: `123_4` for an array task, not the numeric
/// `JobID`) and its TRES (`cpu=2,mem=6G,node=1,billing=2`), each ended by `|`.
pub const MEMORY_FORMAT: &str = "JobArrayID:|,tres-alloc:|";

/// Whether Slurm treats memory as a consumable resource, from `scontrol
/// show config` (`SelectTypeParameters = CR_CORE_MEMORY`); `None` when the
/// output names no `SelectTypeParameters`.
pub fn tracks_memory(show_config: &str) -> Option<bool> {
    show_config.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "SelectTypeParameters").then(|| {
            value
                .split(',')
                .any(|word| word.trim().to_ascii_uppercase().ends_with("MEMORY"))
        })
    })
}

/// Megabytes from a Slurm memory size: `3000M`, `6G`, `1.50G`, `512K`,
/// `2T`, or a bare number of megabytes; `None` for anything else.
pub fn parse_megabytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, scale) = match text.chars().last()? {
        'K' | 'k' => (&text[..text.len() - 1], 1.0 / 1024.0),
        'M' | 'm' => (&text[..text.len() - 1], 1.0),
        'G' | 'g' => (&text[..text.len() - 1], 1024.0),
        'T' | 't' => (&text[..text.len() - 1], 1024.0 * 1024.0),
        _ => (text, 1.0),
    };
    let value = number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)?;
    Some((value * scale).ceil() as u64)
}

/// Each job's memory in megabytes, by id, from `squeue -h -O`
/// [`MEMORY_FORMAT`]: the TRES `mem=` over all its nodes. A job whose TRES
/// names no memory is left out (it holds none Slurm counts).
pub fn parse_job_memory(output: &str) -> Result<HashMap<String, u64>, ParseError> {
    let mut memory = HashMap::new();
    for (index, line) in output.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split('|');
        let (Some(id), Some(tres)) = (fields.next(), fields.next()) else {
            return Err(ParseError {
                command: "squeue -O tres-alloc",
                line: index + 1,
                message: "expected a job id and its TRES separated by |".to_string(),
                text: line.to_string(),
            });
        };
        let mem = tres
            .trim()
            .split(',')
            .find_map(|pair| pair.strip_prefix("mem="))
            .and_then(parse_megabytes);
        if let Some(mb) = mem {
            memory.insert(id.trim().to_string(), mb);
        }
    }
    Ok(memory)
}

/// What a pending job asks of each node's memory (`scontrol -o show job`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryRequest {
    /// `MinMemoryNode=`: megabytes on every node it uses.
    PerNode(u64),
    /// `MinMemoryCPU=`: megabytes for each of its CPUs on a node.
    PerCpu(u64),
    /// `MinMemoryNode=0`: all of each node's memory (`--mem=0`; Slurm
    /// 22.05 gives such a job the node's `RealMemory`). Slurm prints it so
    /// for every job when it does not count memory, where no node carries
    /// memory and no request counts.
    WholeNode,
}

impl MemoryRequest {
    /// The request among the fields of a `scontrol -o show job` line;
    /// `None` when it names none.
    pub fn from_show_job(fields: &str) -> Option<MemoryRequest> {
        let megabytes = |key| field(fields, key).and_then(parse_megabytes);
        match (megabytes("MinMemoryCPU"), megabytes("MinMemoryNode")) {
            (Some(mb), _) if mb > 0 => Some(MemoryRequest::PerCpu(mb)),
            (_, Some(0)) => Some(MemoryRequest::WholeNode),
            (_, Some(mb)) => Some(MemoryRequest::PerNode(mb)),
            _ => None,
        }
    }

    /// Megabytes it needs on a node of `total_mb` where it takes `cpus` CPUs.
    pub fn on_node(self, cpus: u32, total_mb: u64) -> u64 {
        match self {
            MemoryRequest::PerNode(mb) => mb,
            MemoryRequest::PerCpu(mb) => mb.saturating_mul(u64::from(cpus)),
            MemoryRequest::WholeNode => total_mb,
        }
    }

    /// The most of `cpus` CPUs it may take on a node of `total_mb` with
    /// `free_mb` free (all of them or none for a per-node request).
    pub fn cpus_within(self, free_mb: u64, total_mb: u64, cpus: u32) -> u32 {
        let all_or_none = |needed: u64| if needed <= free_mb { cpus } else { 0 };
        match self {
            MemoryRequest::PerNode(mb) => all_or_none(mb),
            MemoryRequest::WholeNode => all_or_none(total_mb),
            MemoryRequest::PerCpu(mb) => u32::try_from(free_mb / mb.max(1)).map_or(cpus, |fit| fit.min(cpus)),
        }
    }
}

/// A job's `total_mb` shared out over its nodes in proportion to its CPUs
/// there (`cpus`, as [`super::mirror::spread`] gives them; the first nodes
/// take the megabytes the division leaves): squeue gives a job's memory
/// over all its nodes, as it gives its CPUs.
pub fn share(total_mb: u64, cpus: &[u32]) -> Vec<u64> {
    let all: u64 = cpus.iter().map(|&c| u64::from(c)).sum();
    if all == 0 {
        return vec![0; cpus.len()];
    }
    let mut shares: Vec<u64> = cpus
        .iter()
        .map(|&c| (u128::from(total_mb) * u128::from(c) / u128::from(all)) as u64)
        .collect();
    let mut left = total_mb.saturating_sub(shares.iter().sum());
    for share in shares.iter_mut() {
        if left == 0 {
            break;
        }
        *share += 1;
        left -= 1;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_type_parameters_say_whether_memory_is_counted() {
        // As Slurm 22.05's `scontrol show config` prints it.
        let config = "SelectType              = select/cons_tres\nSelectTypeParameters    = CR_CORE_MEMORY\n";
        assert_eq!(tracks_memory(config), Some(true));
        assert_eq!(
            tracks_memory("SelectTypeParameters    = CR_CPU_Memory,CR_LLN\n"),
            Some(true)
        );
        assert_eq!(tracks_memory("SelectTypeParameters    = CR_CORE\n"), Some(false));
        assert_eq!(tracks_memory("SelectType = select/linear\n"), None);
    }

    #[test]
    fn sizes_are_megabytes() {
        assert_eq!(parse_megabytes("3000M"), Some(3000));
        assert_eq!(parse_megabytes("6G"), Some(6144));
        assert_eq!(parse_megabytes("1.5G"), Some(1536));
        assert_eq!(parse_megabytes("512K"), Some(1));
        assert_eq!(parse_megabytes("2T"), Some(2 << 20));
        assert_eq!(parse_megabytes("250"), Some(250));
        for bad in ["", "M", "x", "-1M", "NaNG"] {
            assert_eq!(parse_megabytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn job_memory_is_read_from_the_tres() {
        // Captured from Slurm 22.05.8 with CR_Core_Memory (`squeue -h -a -O JobArrayID:|,tres-alloc:|`).
        let output = "1|cpu=1,mem=3000M,node=1,billing=1|\n2|cpu=2,mem=500M,node=1,billing=2|\n\
                      7_3|cpu=8,mem=8G,node=2,billing=8|\n9|cpu=1,node=1|\n";
        let memory = parse_job_memory(output).unwrap();
        assert_eq!(memory["1"], 3000);
        assert_eq!(memory["2"], 500);
        assert_eq!(memory["7_3"], 8192);
        assert!(!memory.contains_key("9"), "no mem= in its TRES");
        let err = parse_job_memory("1 cpu=1\n").unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
    }

    #[test]
    fn requests_are_per_node_or_per_cpu() {
        let per_node = MemoryRequest::from_show_job("NumCPUs=4 MinMemoryNode=2000M MinTmpDiskNode=0");
        assert_eq!(per_node, Some(MemoryRequest::PerNode(2000)));
        let per_cpu = MemoryRequest::from_show_job("NumCPUs=4 MinMemoryCPU=1G");
        assert_eq!(per_cpu, Some(MemoryRequest::PerCpu(1024)));
        // `--mem=0`, captured with CR_Core_Memory: its TRES shows the node's 4000M.
        let whole = MemoryRequest::from_show_job("MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0");
        assert_eq!(whole, Some(MemoryRequest::WholeNode));
        assert_eq!(MemoryRequest::from_show_job("NumCPUs=4 Features=(null)"), None);
        let per_node = per_node.unwrap();
        assert_eq!(per_node.on_node(3, 8000), 2000);
        assert_eq!(per_node.cpus_within(1999, 8000, 4), 0);
        assert_eq!(per_node.cpus_within(2000, 8000, 4), 4);
        let per_cpu = MemoryRequest::PerCpu(1000);
        assert_eq!(per_cpu.on_node(3, 8000), 3000);
        assert_eq!(per_cpu.cpus_within(2500, 8000, 4), 2);
        let whole = whole.unwrap();
        assert_eq!(whole.on_node(1, 4000), 4000);
        assert_eq!(whole.cpus_within(3999, 4000, 4), 0);
        assert_eq!(whole.cpus_within(4000, 4000, 4), 4);
    }

    #[test]
    fn memory_is_shared_like_cpus() {
        assert_eq!(share(6000, &[2, 2, 2]), [2000, 2000, 2000]);
        assert_eq!(share(1000, &[3, 1]), [750, 250]);
        assert_eq!(share(10, &[1, 1, 1]), [4, 3, 3]);
        assert_eq!(share(10, &[]), Vec::<u64>::new());
    }
}
