//! `interstice mcdm fat-tree`, `mcdm requests` and `mcdm run`: seed 003's
//! container scheduler (`core::mcdm`) on a topology file or a generated
//! fat-tree, over a request file or a generated set, one run per
//! combination of the listed ranks, profiles, queue orders and
//! resubmission settings (`docs/placement.md`).

use super::exit::WriteFailed;
use super::flags::Usage;
use anyhow::Context;
use interstice_core::mcdm::choose::{Chooser, Profile, CRITERIA};
use interstice_core::mcdm::fat_tree::{fat_tree, FatTreeSpec};
use interstice_core::mcdm::meter::Summary;
use interstice_core::mcdm::queue::QueueOrder;
use interstice_core::mcdm::request::Request;
use interstice_core::mcdm::simulate::{resource_scale, simulate, RunConfig};
use interstice_core::mcdm::topology::Topology;
use interstice_core::mcdm::Method;
use interstice_swf::container_requests::{generate, GenOptions, RequestSet};
use interstice_swf::judgements::{Judgements, JudgementsFileError};
use interstice_swf::topology::to_yaml;
use interstice_swf::McdmFile;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `interstice mcdm fat-tree` options.
#[derive(clap::Args, Debug)]
pub struct FatTreeArgs {
    /// k: even; k pods, (k/2)² core switches, k³/4 hosts.
    #[arg(long)]
    k: usize,
    #[command(flatten)]
    host: HostArgs,
    /// Write the file here instead of stdout.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

/// A generated fat-tree's hosts and links.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct HostArgs {
    /// CPU cores per host.
    #[arg(long, default_value_t = 24.0)]
    cpu: f64,
    /// RAM per host, GB.
    #[arg(long, default_value_t = 256.0)]
    ram: f64,
    /// GPUs per host (a resource checked, never an accelerator).
    #[arg(long, default_value_t = 0.0)]
    gpu: f64,
    /// Every link's bandwidth, Mbps.
    #[arg(long, default_value_t = 1000.0)]
    bandwidth: f64,
}

impl HostArgs {
    fn build(&self, k: usize) -> anyhow::Result<Topology> {
        let spec = FatTreeSpec {
            k,
            cpu: self.cpu,
            ram: self.ram,
            gpu: self.gpu,
            mbps: self.bandwidth,
        };
        fat_tree(&spec).map_err(|e| Usage(format!("--k, --cpu, --ram, --gpu, --bandwidth: {e}")).into())
    }
}

/// A generated request set.
#[derive(clap::Args, Debug, Clone)]
pub struct GenArgs {
    /// Requests.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Submissions uniform over 0..SPAN events.
    #[arg(long, default_value_t = 1000)]
    span: u64,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give requests deadlines (the temporal set's "maximum time" stage).
    #[arg(long)]
    deadlines: bool,
}

impl GenArgs {
    fn generate(&self, set: RequestSet) -> Vec<Request> {
        generate(
            set,
            &GenOptions {
                requests: self.count,
                span: self.span,
                seed: self.seed,
                deadlines: self.deadlines,
            },
        )
    }
}

/// `interstice mcdm requests` options.
#[derive(clap::Args, Debug)]
pub struct RequestsArgs {
    /// network (§4.2.2), temporal (chapter 5), quality1 or quality2 (§4.2.1's sets).
    #[arg(long)]
    set: RequestSet,
    #[command(flatten)]
    gen: GenArgs,
    /// Write the file here instead of stdout.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

/// `interstice mcdm run` options.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The topology file (YAML: hosts, switches, links, and maybe requests).
    #[arg(required_unless_present = "fat_tree", conflicts_with = "fat_tree")]
    file: Option<PathBuf>,
    /// Instead of FILE: a k-ary fat-tree (hosts and links as in `mcdm fat-tree`).
    #[arg(long, value_name = "K")]
    fat_tree: Option<usize>,
    #[command(flatten)]
    host: HostArgs,
    /// Requests from this file (added to FILE's).
    #[arg(long, value_name = "FILE")]
    requests: Option<PathBuf>,
    /// Requests generated: network, temporal, quality1, quality2.
    #[arg(long, value_name = "SET")]
    generate: Option<RequestSet>,
    #[command(flatten)]
    gen: GenArgs,
    /// Server ranking: ahp, topsis, or the baselines bf (best fit), wf (worst fit); a comma list runs each.
    #[arg(long, value_delimiter = ',', default_value = "topsis")]
    rank: Vec<String>,
    /// Table 7's weights: flat, clustering, network (a comma list runs each; ignored by bf, wf).
    #[arg(long, value_delimiter = ',', default_value = "flat")]
    profile: Vec<Profile>,
    /// AHP judgements (4×4: cpu, ram, fragmentation, bandwidth) whose weights replace --profile.
    #[arg(long, value_name = "FILE", conflicts_with = "profile")]
    judgements: Option<PathBuf>,
    /// Table 6's queue orders: fcfs, spf, sqf-min, sqf-max, saf-min, saf-max, sdaf (a comma list runs each).
    #[arg(long, value_delimiter = ',', default_value = "fcfs")]
    queue: Vec<QueueOrder>,
    /// Retry a request not placed after WAIT events (and not before a running request ends);
    /// `none` is the algorithm without resubmission; a comma list runs each.
    #[arg(long, value_delimiter = ',', default_value = "1", value_name = "WAIT")]
    resubmit: Vec<String>,
    /// Same as --resubmit none.
    #[arg(long, conflicts_with = "resubmit")]
    no_resubmit: bool,
    /// Output directory (summary.json, summary.txt): new or empty, or any with --force.
    #[arg(long)]
    out: PathBuf,
    /// Write into a non-empty --out.
    #[arg(long)]
    force: bool,
}

/// `mcdm fat-tree`.
pub fn fat_tree_command(args: FatTreeArgs) -> anyhow::Result<()> {
    let topology = args.host.build(args.k)?;
    emit(&to_yaml(Some(&topology), &[]), args.output.as_deref())
}

/// `mcdm requests`.
pub fn requests_command(args: RequestsArgs) -> anyhow::Result<()> {
    emit(
        &to_yaml(None, &args.gen.generate(args.set)),
        args.output.as_deref(),
    )
}

fn emit(text: &str, output: Option<&Path>) -> anyhow::Result<()> {
    match output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| WriteFailed(format!("cannot write {}", path.display()))),
        None => out!("{text}"),
    }
}

/// One run's settings.
struct Cell {
    chooser: Chooser,
    profile: Option<String>,
    config: RunConfig,
}

/// `mcdm run`.
pub fn run_command(args: RunArgs) -> anyhow::Result<()> {
    super::flags::with_out_dir(Some(&args.out), args.force, || run_checked(&args))
}

fn run_checked(args: &RunArgs) -> anyhow::Result<()> {
    let (topology, requests) = inputs(args)?;
    let cells = cells(args, &topology)?;
    let mut rows = Vec::new();
    let mut table = vec![TABLE_HEAD.to_string()];
    outln!("{TABLE_HEAD}")?;
    for cell in &cells {
        let t0 = Instant::now();
        let outcome = simulate(&topology, &requests, cell.config, &|v: &[_]| {
            cell.chooser.order(v)
        });
        let wall = t0.elapsed().as_secs_f64();
        let line = table_line(cell, &outcome.summary, wall);
        outln!("{line}")?;
        table.push(line);
        rows.push(json!({
            "rank": cell.chooser.name(),
            "profile": cell.profile,
            "queue": cell.config.order.name(),
            "resubmit": cell.config.resubmit,
            "metrics": summary_json(&outcome.summary),
            "wall_time_s": wall,
            "wall_time_per_request_s": (!requests.is_empty()).then(|| wall / requests.len() as f64),
        }));
    }
    let doc = json!({
        "hosts": topology.hosts().len(),
        "switches": topology.switches().len(),
        "links": topology.links().len(),
        "requests": requests.len(),
        "runs": rows,
    });
    std::fs::create_dir_all(&args.out)
        .with_context(|| WriteFailed(format!("cannot create {}", args.out.display())))?;
    let write = |name: &str, text: String| {
        let path = args.out.join(name);
        std::fs::write(&path, text).with_context(|| WriteFailed(format!("cannot write {}", path.display())))
    };
    write("summary.json", serde_json::to_string_pretty(&doc)? + "\n")?;
    write("summary.txt", table.join("\n") + "\n")
}

/// The topology and the requests the command line names.
fn inputs(args: &RunArgs) -> anyhow::Result<(Topology, Vec<Request>)> {
    let mut requests = Vec::new();
    let topology = match (&args.file, args.fat_tree) {
        (Some(path), _) => {
            let file = McdmFile::load(path)?;
            requests = file.requests;
            file.topology.ok_or_else(|| {
                interstice_swf::TopologyFileError::from_message(format!(
                    "{}: hosts: none: a topology file needs hosts, switches and links (or use --fat-tree K)",
                    path.display()
                ))
            })?
        }
        (None, Some(k)) => args.host.build(k)?,
        (None, None) => return Err(Usage("give a topology FILE or --fat-tree K".into()).into()),
    };
    if let Some(path) = &args.requests {
        let file = McdmFile::load(path)?;
        requests.extend(file.requests);
    }
    if let Some(set) = args.generate {
        requests.extend(args.gen.generate(set));
    }
    if requests.is_empty() {
        return Err(Usage("no request: FILE has none; add --requests FILE or --generate SET".into()).into());
    }
    let mut ids = std::collections::HashSet::new();
    if let Some(r) = requests.iter().find(|r| !ids.insert(r.id)) {
        return Err(Usage(format!(
            "request id {} is given twice (FILE, --requests and --generate number their own): keep one source or renumber",
            r.id
        ))
        .into());
    }
    Ok((topology, requests))
}

/// Every combination the lists ask for.
fn cells(args: &RunArgs, topology: &Topology) -> anyhow::Result<Vec<Cell>> {
    let scale = resource_scale(topology);
    let scale = [scale[0], scale[1]];
    let mut weights: Vec<(String, [f64; 4])> = args
        .profile
        .iter()
        .map(|p| (p.name().to_string(), p.weights()))
        .collect();
    if let Some(path) = &args.judgements {
        weights = vec![(format!("judgements:{}", path.display()), judged_weights(path)?)];
    }
    let resubmit: Vec<Option<u64>> = if args.no_resubmit {
        vec![None]
    } else {
        args.resubmit
            .iter()
            .map(|w| match w.as_str() {
                "none" => Ok(None),
                w => w
                    .parse::<u64>()
                    .ok()
                    .filter(|&w| w >= 1)
                    .map(Some)
                    .ok_or_else(|| Usage(format!("--resubmit {w:?}: give a wait in events >= 1, or none"))),
            })
            .collect::<Result<_, _>>()?
    };
    let mut cells = Vec::new();
    for rank in &args.rank {
        let choosers: Vec<(Chooser, Option<String>)> = match rank.as_str() {
            "bf" => vec![(Chooser::BestFit { scale }, None)],
            "wf" => vec![(Chooser::WorstFit { scale }, None)],
            name => {
                let method: Method = name
                    .parse()
                    .map_err(|e| Usage(format!("--rank: {e}, or bf, wf")))?;
                weights
                    .iter()
                    .map(|(p, w)| (Chooser::Mcdm { method, weights: *w }, Some(p.clone())))
                    .collect()
            }
        };
        for (chooser, profile) in choosers {
            for &order in &args.queue {
                for &resubmit in &resubmit {
                    cells.push(Cell {
                        chooser,
                        profile: profile.clone(),
                        config: RunConfig { order, resubmit },
                    });
                }
            }
        }
    }
    Ok(cells)
}

/// Weights from an AHP judgements file naming exactly [`CRITERIA`], in any order.
fn judged_weights(path: &Path) -> anyhow::Result<[f64; 4]> {
    let place = path.display().to_string();
    let judgements = Judgements::read(path)?;
    let derived = judgements.weights(&place)?;
    let mut weights = [f64::NAN; 4];
    for (name, w) in judgements.criteria.iter().zip(&derived.weights) {
        if let Some(i) = CRITERIA.iter().position(|c| c == name) {
            weights[i] = *w;
        }
    }
    if judgements.criteria.len() != CRITERIA.len() || weights.iter().any(|w| w.is_nan()) {
        return Err(JudgementsFileError(format!(
            "{place}: criteria: {:?} are not the scheduler's: judge exactly {}",
            judgements.criteria,
            CRITERIA.join(", ")
        ))
        .into());
    }
    Ok(weights)
}

const TABLE_HEAD: &str = "rank   profile     queue   resub | placed delayed unplaced | delay  slowdown | cpu_fp ram_fp bw_fp | srv_frag link_frag | U(ij)  U(i)   | events   wall_s";

fn table_line(cell: &Cell, s: &Summary, wall: f64) -> String {
    let f = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.3}"));
    let pct = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{:.1}%", 100.0 * v));
    format!(
        "{:<6} {:<11} {:<7} {:<5} | {:>6} {:>7} {:>8} | {:>6} {:>8} | {:>6} {:>6} {:>5} | {:>8} {:>9} | {:>6} {:>6} | {:>6} {:>8.2}",
        cell.chooser.name(),
        cell.profile.as_deref().unwrap_or("-").trim_start_matches("judgements:"),
        cell.config.order.name(),
        cell.config.resubmit.map_or("none".to_string(), |w| w.to_string()),
        s.placed,
        s.delayed,
        s.unplaced,
        f(s.mean_delay),
        f(s.mean_slowdown),
        pct(s.cpu_footprint),
        pct(s.ram_footprint),
        pct(s.bandwidth_footprint),
        pct(s.server_fragmentation),
        pct(s.link_fragmentation),
        pct(s.network_utility),
        pct(s.request_utility),
        s.events,
        wall,
    )
}

/// The summary as `summary.json` writes it (`null` where undefined).
fn summary_json(s: &Summary) -> Value {
    json!({
        "requests": s.requests,
        "placed": s.placed,
        "delayed": s.delayed,
        "unplaced": s.unplaced,
        "unplaced_deadline": s.unplaced_deadline,
        "attempts": s.attempts,
        "events": s.events,
        "span": s.span,
        "mean_delay": s.mean_delay,
        "total_delay": s.total_delay,
        "max_delay": s.max_delay,
        "mean_slowdown": s.mean_slowdown,
        "cpu_footprint": s.cpu_footprint,
        "cpu_footprint_peak": s.cpu_footprint_peak,
        "ram_footprint": s.ram_footprint,
        "bandwidth_footprint": s.bandwidth_footprint,
        "server_fragmentation": s.server_fragmentation,
        "server_fragmentation_peak": s.server_fragmentation_peak,
        "link_fragmentation": s.link_fragmentation,
        "link_fragmentation_peak": s.link_fragmentation_peak,
        "network_utility": s.network_utility,
        "request_utility": s.request_utility,
    })
}
