//! Seed 002's evaluation (chapter 5) as one command (`interstice qos
//! osep-eval`): its 12 test cases (user1 or user4 delayed 6 minutes,
//! without or with checkpointing, small, medium or large demand), each
//! run by the heterogeneous ("Modificado") and the original OSEP, each
//! repeated (the seed: 1,000 times) on the same draws, and each user's
//! satisfaction `SU_i` averaged with its 95 % confidence interval.
//! Writes `osep-eval.csv` (one row per case, algorithm and user) and
//! `osep-eval.json` (the settings and the same rows).

use crate::output::OutputError;
use interstice_core::qos::{simulate, OnPreempt, OsepCondition, OsepRule, QosError};
use interstice_core::Time;
use interstice_swf::osep_eval::{self as inputs, Demand, OWNED};
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// The evaluation's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Repetitions of each case (the seed: 1,000).
    pub repetitions: u64,
    /// The draws' seed.
    pub seed: u64,
    /// OSEP's update period `t`.
    pub period: Time,
    /// OSEP's `maxt`.
    pub maxt: u32,
    /// The checkpoint block (the seed: 10 minutes).
    pub block: Time,
    /// The heterogeneous rule's reading of condition 4.
    pub condition: OsepCondition,
}

/// One row: a user's satisfaction over the repetitions of one case under
/// one algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The delayed user (index into [`OWNED`]).
    pub delayed: usize,
    /// With checkpointing (the seed's "CC"; else "SC", work restarts).
    pub checkpoint: bool,
    /// The demand.
    pub demand: Demand,
    /// Heterogeneous ("Modificado") or original.
    pub rule: OsepRule,
    /// The user.
    pub user: usize,
    /// Repetitions where the user had a satisfaction.
    pub n: u64,
    /// Mean `SU_i`, percent (`None`: no repetition had one).
    pub mean: Option<f64>,
    /// Half the 95 % confidence interval, `1.96·s/√n` (`None` below 2).
    pub ci95: Option<f64>,
    /// Mean preemptions per run (all users).
    pub preemptions: f64,
}

/// The seed's delayed users: user1 (the largest portion) and user4 (the smallest).
pub const DELAYED: [usize; 2] = [0, 3];

/// Run every case under both algorithms.
pub fn run(s: &Settings) -> Result<Vec<Row>, QosError> {
    let mut rows = Vec::new();
    for delayed in DELAYED {
        for checkpoint in [false, true] {
            for demand in Demand::ALL {
                for rule in [OsepRule::Heterogeneous, OsepRule::Original] {
                    rows.extend(case(s, delayed, checkpoint, demand, rule)?);
                }
            }
        }
    }
    Ok(rows)
}

/// One case under one algorithm: a row per user.
fn case(
    s: &Settings,
    delayed: usize,
    checkpoint: bool,
    demand: Demand,
    rule: OsepRule,
) -> Result<Vec<Row>, QosError> {
    let mode = if checkpoint {
        OnPreempt::Checkpoint
    } else {
        OnPreempt::Restart
    };
    let mut cfg = inputs::platform(rule, mode);
    cfg.osep.period = s.period;
    cfg.osep.maxt = s.maxt;
    cfg.osep.block = s.block;
    cfg.osep.condition = s.condition;
    let mut su: Vec<Vec<f64>> = vec![Vec::new(); OWNED.len()];
    let mut preemptions = 0usize;
    for rep in 0..s.repetitions {
        let mut rng = inputs::rng(s.seed, demand, delayed, rep);
        let outcome = simulate(&cfg, inputs::requests(demand, delayed, &mut rng), Vec::new())?;
        preemptions += outcome.preemptions.len();
        for (user, v) in outcome.satisfaction.unwrap_or_default().into_iter().enumerate() {
            su[user].extend(v);
        }
    }
    Ok(su
        .into_iter()
        .enumerate()
        .map(|(user, values)| {
            let (mean, ci95) = mean_ci95(&values);
            Row {
                delayed,
                checkpoint,
                demand,
                rule,
                user,
                n: values.len() as u64,
                mean,
                ci95,
                preemptions: preemptions as f64 / s.repetitions.max(1) as f64,
            }
        })
        .collect())
}

/// The mean and half the normal 95 % confidence interval of `values`.
pub fn mean_ci95(values: &[f64]) -> (Option<f64>, Option<f64>) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (None, None);
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (Some(mean), None);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (Some(mean), Some(1.96 * (var / n).sqrt()))
}

const CSV_HEADER: &str =
    "delayed,checkpoint,demand,algorithm,user,portion_pct,runs,su_mean,su_ci95,preemptions_mean";

/// Write `osep-eval.csv` and `osep-eval.json` into `dir`.
pub fn write(dir: &Path, s: &Settings, rows: &[Row]) -> Result<(), OutputError> {
    let cfg = inputs::platform(OsepRule::Heterogeneous, OnPreempt::Checkpoint);
    let pct = |u: usize| 100.0 * cfg.portion(u) / cfg.total_power();
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.4}"));
    let csv = dir.join("osep-eval.csv");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OutputError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut text = format!("{CSV_HEADER}\n");
    for r in rows {
        text.push_str(&format!(
            "{},{},{},{},{},{:.2},{},{},{},{:.3}\n",
            OWNED[r.delayed].0,
            if r.checkpoint { "CC" } else { "SC" },
            r.demand.name(),
            r.rule.name(),
            OWNED[r.user].0,
            pct(r.user),
            r.n,
            opt(r.mean),
            opt(r.ci95),
            r.preemptions
        ));
    }
    std::fs::write(&csv, text).map_err(io(&csv))?;
    let json_path = dir.join("osep-eval.json");
    let value = json!({
        "settings": {
            "repetitions": s.repetitions,
            "seed": s.seed,
            "period": s.period.as_secs_f64(),
            "maxt": s.maxt,
            "block": s.block.as_secs_f64(),
            "condition": s.condition.name(),
            "delay": inputs::DELAY.as_secs_f64(),
        },
        "rows": rows.iter().map(|r| json!({
            "delayed": OWNED[r.delayed].0,
            "checkpoint": r.checkpoint,
            "demand": r.demand.name(),
            "algorithm": r.rule.name(),
            "user": OWNED[r.user].0,
            "portion_pct": pct(r.user),
            "runs": r.n,
            "su_mean": r.mean,
            "su_ci95": r.ci95,
            "preemptions_mean": r.preemptions,
        })).collect::<Vec<_>>(),
    });
    let mut f = std::fs::File::create(&json_path).map_err(io(&json_path))?;
    serde_json::to_writer_pretty(&mut f, &value).map_err(|source| OutputError::Json {
        path: json_path.clone(),
        source,
    })?;
    writeln!(f).map_err(io(&json_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_interval() {
        assert_eq!(mean_ci95(&[]), (None, None));
        assert_eq!(mean_ci95(&[5.0]), (Some(5.0), None));
        // s = √2, n = 2: 1.96·√2/√2 = 1.96.
        let (m, ci) = mean_ci95(&[1.0, 3.0]);
        assert_eq!(m, Some(2.0));
        assert!((ci.unwrap() - 1.96).abs() < 1e-12);
    }
}
