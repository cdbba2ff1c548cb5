//! `interstice qos study FILE --out DIR`: seed 001's study (docs/qos.md,
//! "The study"). Composition only: the file is `interstice_swf::qos_study`,
//! the samples `google_like` or request traces, the runs
//! `interstice_batsim::study`, the outputs `study_output`.

use anyhow::Context;
use interstice_batsim::study::{self, Sample, SampleSizing};
use interstice_batsim::study_output::{self, ClassInfo, PairsWriter};
use interstice_core::qos::study::sizing::RESOURCES;
use interstice_core::qos::study::{SizeReport, SIZES};
use interstice_core::Time;
use interstice_swf::google_like;
use interstice_swf::qos_study::{self as spec_file, SampleSource, StudySpec};
use interstice_swf::request_trace::{RequestTraceReader, TraceRequest};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// `interstice qos study`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example: interstice qos study examples/qos-study.yaml --out out/study && interstice report out/study"
)]
pub struct StudyArgs {
    /// The study file: classes and scheduler settings, `study:` and `sample:` (YAML).
    pub file: PathBuf,
    /// Output directory (study.json, requests.csv): new or empty, or any with --force.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a non-empty --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Runs at once (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Override the file's number of samples (generated samples only).
    #[arg(long, value_name = "K")]
    pub samples: Option<u32>,
    /// No table on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// Run `interstice qos study`.
pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    let out = args.out.clone();
    super::flags::with_out_dir(Some(&out), args.force, || run_checked(args))
}

/// Sample `k`'s rows (1-based), its seed and its end.
fn sample_rows(spec: &StudySpec, k: u32) -> anyhow::Result<(Vec<TraceRequest>, Option<Time>, String)> {
    let seed = spec.seed.wrapping_add(u64::from(k));
    Ok(match &spec.source {
        SampleSource::Generated(params) => (
            google_like::generate(params, seed),
            Some(Time::from_secs_f64(params.horizon())),
            format!("generated, seed {seed}"),
        ),
        SampleSource::Traces(paths) => {
            let path = &paths[k as usize - 1];
            let rows = RequestTraceReader::open(path)?
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("sample {k}"))?;
            (rows, None, path.display().to_string())
        }
    })
}

fn run_checked(args: StudyArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut spec = StudySpec::load(&args.file)?;
    if let Some(k) = args.samples {
        if matches!(spec.source, SampleSource::Traces(_)) {
            return Err(super::flags::Usage(
                "--samples: the study's samples are its traces; remove --samples or `traces:`".into(),
            )
            .into());
        }
        if k == 0 {
            return Err(super::flags::Usage("--samples: give at least one sample".into()).into());
        }
        spec.samples = k;
    }
    let base = spec.qos.config.clone();
    let mut samples = Vec::with_capacity(spec.samples as usize);
    let mut sources = Vec::with_capacity(spec.samples as usize);
    for k in 1..=spec.samples {
        let (rows, horizon, source) = sample_rows(&spec, k)?;
        let requests = spec_file::requests(&rows, &base.classes, spec.scale, &source)?;
        let seed = spec.seed.wrapping_add(u64::from(k));
        let until = study::default_until(&requests, horizon);
        samples.push(Sample {
            requests,
            pool: spec_file::pool(&google_like::hosts(&spec.params, seed), spec.scale),
            seed,
            until,
        });
        sources.push(source);
    }
    let classes: Vec<ClassInfo> = base
        .classes
        .iter()
        .map(|c| ClassInfo {
            name: c.name.clone(),
            slo: c.slo,
        })
        .collect();
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut pairs = PairsWriter::create(&args.out).context("cannot write the results")?;
    let mut write_error = None;
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (study, sizings) = study::run(&base, &samples, threads, |s, i, paired| {
        if write_error.is_none() {
            write_error = pairs.add(s + 1, i, paired, &classes).err();
        }
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if let Some(e) = write_error {
        return Err(e).context("cannot write the results");
    }
    pairs.finish().context("cannot write the results")?;
    let reports = study.report();
    let summary = json!({
        "design": {
            "file": args.file.display().to_string(),
            "samples": spec.samples,
            "seed": spec.seed,
            "scale": spec.scale,
            "sizes": SIZES,
            "policies": interstice_core::qos::study::POLICIES,
            "window_seconds": base.window.map(|w| w.as_secs_f64()),
            "generator": match &spec.source {
                SampleSource::Generated(params) => serde_json::to_value(params).ok(),
                SampleSource::Traces(_) => None,
            },
            "seconds": started.elapsed().as_secs_f64(),
        },
        "samples": sizings.iter().zip(&sources).map(|(z, source)| sample_json(z, source)).collect::<Vec<_>>(),
        "sizes": study_output::sizes_json(&reports, &classes),
    });
    study_output::write_json(&args.out, &summary).context("cannot write the results")?;
    if !args.quiet {
        print_table(&reports, &classes, started.elapsed().as_secs_f64())?;
    }
    Ok(())
}

fn sample_json(z: &SampleSizing, source: &str) -> serde_json::Value {
    json!({
        "source": source,
        "requests": z.requests,
        "peak": { RESOURCES[0]: z.peak[0], RESOURCES[1]: z.peak[1] },
        "dominant": RESOURCES[z.dominant],
        "hosts": { SIZES[0]: z.hosts[0], SIZES[1]: z.hosts[1], SIZES[2]: z.hosts[2] },
    })
}

fn print_table(reports: &[SizeReport], classes: &[ClassInfo], seconds: f64) -> anyhow::Result<()> {
    outln!("size   penalty priority  penalty qos-driven  increase  windows none/low/medium/high")?;
    for (r, size) in reports.iter().zip(SIZES) {
        outln!(
            "{size:<5}  {:>16.1}  {:>18.1}  {:>8}  {}/{}/{}/{}",
            r.penalty[0],
            r.penalty[1],
            r.penalty_increase
                .map_or("–".to_string(), |x| format!("{:+.1} %", 100.0 * x)),
            r.windows[0],
            r.windows[1],
            r.windows[2],
            r.windows[3]
        )?;
    }
    outln!("\nSLO met (% of the class's requests): priority / qos-driven")?;
    for (r, size) in reports.iter().zip(SIZES) {
        let cells: Vec<String> = r
            .heat
            .iter()
            .zip(classes)
            .map(|(h, c)| match h.fulfilment() {
                Some((p, q)) => format!("{} {:.1} / {:.1}", c.name, 100.0 * p, 100.0 * q),
                None => format!("{} –", c.name),
            })
            .collect();
        outln!("{size:<5}  {}", cells.join("   "))?;
    }
    outln!("({seconds:.1} s)")
}
