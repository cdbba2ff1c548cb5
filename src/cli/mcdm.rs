//! `interstice mcdm …`: seed 003's multi-criteria decision making. Composition
//! only: the rules are `core::mcdm`, the judgements file
//! `interstice_swf::judgements`.

use interstice_core::mcdm::ahp::MAX_CONSISTENCY_RATIO;
use interstice_core::placement::{Criterion as AreaCriterion, Weights};
use interstice_swf::judgements::Judgements;
use std::path::PathBuf;

/// `interstice mcdm …`.
#[derive(clap::Subcommand, Debug)]
pub enum McdmCommand {
    /// AHP weights and consistency ratio of pairwise judgements: a YAML file `{criteria:
    /// [names], matrix: [[judgements]]}` (entries numbers or fractions like 1/3). Exits 4
    /// naming the ratio when it is above 0.1.
    Weights(WeightsArgs),
    /// A k-ary fat-tree as a topology file (k pods, (k/2)² core switches, k³/4 hosts).
    FatTree(super::mcdm_run::FatTreeArgs),
    /// A seeded request set of seed 003's experiments as a request file.
    Requests(super::mcdm_run::RequestsArgs),
    /// Seed 003's container scheduler on a topology and requests: summary.json, summary.txt.
    Run(Box<super::mcdm_run::RunArgs>),
}

/// `interstice mcdm weights`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example: interstice mcdm weights --judgements examples/judgements-network.yaml")]
pub struct WeightsArgs {
    /// The judgements file (YAML).
    #[arg(long, value_name = "FILE")]
    pub judgements: PathBuf,
    /// One JSON object on stdout: criteria, weights (by name), lambda_max, consistency_ratio.
    #[arg(long)]
    pub json: bool,
}

/// Run `interstice mcdm …`.
pub fn run(cmd: McdmCommand) -> anyhow::Result<()> {
    match cmd {
        McdmCommand::Weights(args) => weights(args),
        McdmCommand::FatTree(args) => super::mcdm_run::fat_tree_command(args),
        McdmCommand::Requests(args) => super::mcdm_run::requests_command(args),
        McdmCommand::Run(args) => super::mcdm_run::run_command(*args),
    }
}

fn weights(args: WeightsArgs) -> anyhow::Result<()> {
    let place = args.judgements.display().to_string();
    let judgements = Judgements::read(&args.judgements)?;
    let derived = judgements.weights(&place)?;
    if args.json {
        let weights: serde_json::Map<String, serde_json::Value> = judgements
            .criteria
            .iter()
            .zip(&derived.weights)
            .map(|(name, w)| (name.clone(), serde_json::json!(w)))
            .collect();
        let value = serde_json::json!({
            "criteria": judgements.criteria,
            "weights": weights,
            "lambda_max": derived.lambda_max,
            "consistency_ratio": derived.ratio,
            "max_consistency_ratio": MAX_CONSISTENCY_RATIO,
        });
        return outln!("{}", serde_json::to_string_pretty(&value)?);
    }
    let width = judgements
        .criteria
        .iter()
        .map(|c| c.len())
        .max()
        .unwrap_or(0)
        .max(9);
    outln!("{:<width$}  weight", "criterion")?;
    for (name, w) in judgements.criteria.iter().zip(&derived.weights) {
        outln!("{name:<width$}  {w:.4}")?;
    }
    outln!(
        "lambda_max {:.4}, consistency ratio {:.4} (consistent: at most {MAX_CONSISTENCY_RATIO})",
        derived.lambda_max,
        derived.ratio
    )?;
    if let Some(area) = as_area_weights(&judgements.criteria, &derived.weights) {
        outln!("as --placement-weights: {area}")?;
    }
    Ok(())
}

/// The weights in `--placement-weights`' form when the criteria are exactly
/// the convergence area's (completion, slack, margin, fragmentation, any order).
fn as_area_weights(criteria: &[String], weights: &[f64]) -> Option<Weights> {
    if criteria.len() != AreaCriterion::ALL.len() {
        return None;
    }
    let mut values = [0.0; 4];
    for (name, w) in criteria.iter().zip(weights) {
        let c: AreaCriterion = name.parse().ok()?;
        let i = AreaCriterion::ALL.iter().position(|x| *x == c)?;
        values[i] = *w;
    }
    Weights::new(values).ok()
}
