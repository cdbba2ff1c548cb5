//! `jobs.csv` and `summary.json`: Batsim's `_jobs.csv` format (checked against
//! a real Batsim 4.2.1 output), exact rows, determinism, and a simulator run
//! written through [`write_outputs`].

use interstice_batsim::output::{write_jobs_csv, write_outputs, Naming, JOBS_CSV_HEADER};
use interstice_batsim::sim::{simulate, SimOptions};
use interstice_core::{
    EndReason, EngineConfig, Job, JobId, JobKind, JobRecord, Policy, Prediction, ProcSet, Time,
};
use std::path::{Path, PathBuf};

fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(path)
}

/// A fresh, empty directory under the system temp dir.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("interstice-sim-output-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn job(id: u64, kind: JobKind, submit: f64, procs: u32, walltime: i64, runtime: i64) -> Job {
    Job {
        id: JobId(id),
        submit: Time::from_secs_f64(submit),
        walltime: Time::from_secs(walltime),
        walltime_enforced: true,
        runtime: Some(Time::from_secs(runtime)),
        procs,
        kind,
        slo: (kind == JobKind::Cloud).then(|| Time::from_secs(270)),
    }
}

fn record(job: Job) -> JobRecord {
    JobRecord::new(job)
}

fn prediction(completion: Option<f64>, predicts_violation: bool) -> Prediction {
    Prediction {
        start: None,
        completion: completion.map(Time::from_secs_f64),
        violation_seconds: None,
        predicts_violation,
        counter_offer_slo: None,
        probability: if predicts_violation { 1.0 } else { 0.0 },
    }
}

fn sample_records() -> Vec<JobRecord> {
    let killed = JobRecord {
        start: Some(Time::ZERO),
        end: Some(Time::from_secs(100)),
        procs: Some("0-3".parse().unwrap()),
        end_reason: Some(EndReason::WalltimeReached),
        ..record(job(1, JobKind::Hpc, 0.0, 4, 100, 150))
    };
    let cloud_ok = JobRecord {
        start: Some(Time::from_secs(12)),
        end: Some(Time::from_secs(72)),
        procs: Some(ProcSet::from_ids([6, 4])),
        end_reason: Some(EndReason::Completed),
        prediction: Some(prediction(Some(190.5), false)),
        ..record(job(2, JobKind::Cloud, 10.5, 2, 180, 60))
    };
    let rejected = JobRecord {
        rejected: true,
        prediction: Some(prediction(None, true)),
        counter_offer_slo: None,
        ..record(job(3, JobKind::Cloud, 20.0, 1, 180, 60))
    };
    let evicted = JobRecord {
        start: Some(Time::from_secs(30)),
        end: Some(Time::from_secs(40)),
        procs: Some(ProcSet::range(1, 1)),
        end_reason: Some(EndReason::Evicted),
        prediction: Some(prediction(Some(210.0), false)),
        evictions: 1,
        ..record(job(4, JobKind::Cloud, 30.0, 1, 180, 60))
    };
    vec![killed, cloud_ok, rejected, evicted]
}

#[test]
fn the_batsim_columns_match_a_real_batsim_output() {
    let real = std::fs::read_to_string(shared("batsim/easy-pybatsim-cluster16_jobs.csv")).unwrap();
    let real_header = real.lines().next().unwrap();
    assert!(
        JOBS_CSV_HEADER.starts_with(&format!("{real_header},")),
        "{JOBS_CSV_HEADER}\nvs\n{real_header}"
    );
    assert!(JOBS_CSV_HEADER
        .ends_with(",kind,slo,predicted_completion,predicted_violation,predicted_probability,violated,evictions,evicted_runs"));
}

#[test]
fn rows_are_batsim_formatted_and_in_completion_order() {
    let records = sample_records();
    let mut out = Vec::new();
    write_jobs_csv(&mut out, Naming::Workload("w0"), &records).unwrap();
    let text = String::from_utf8(out).unwrap();
    let violated = |idx: usize| u8::from(records[idx].violated());
    let expected = [
        JOBS_CSV_HEADER.to_string(),
        format!("3,w0,delay_60,20.000000,1,180.000000,0,REJECTED,,,,,,,,,\"\",cloud,270.000000,inf,1,1,{},0,", violated(2)),
        "4,w0,delay_60,30.000000,1,180.000000,0,COMPLETED_KILLED,30.000000,10.000000,40.000000,0.000000,\
         10.000000,1.000000,1,-1.000000,\"\",cloud,270.000000,210.000000,0,0,1,1,"
            .to_string(),
        "2,w0,delay_60,10.500000,2,180.000000,1,COMPLETED_SUCCESSFULLY,12.000000,60.000000,72.000000,1.500000,\
         61.500000,1.025000,4 6,-1.000000,\"\",cloud,270.000000,190.500000,0,0,0,0,"
            .to_string(),
        "1,w0,delay_150,0.000000,4,100.000000,0,COMPLETED_WALLTIME_REACHED,0.000000,100.000000,100.000000,\
         0.000000,100.000000,1.000000,0-3,-1.000000,\"\",hpc,,,,,0,0,"
            .to_string(),
    ];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, expected, "\nactual:\n{text}");
    assert!(text.ends_with('\n'));
}

#[test]
fn a_simulated_run_writes_consistent_deterministic_files() {
    let jobs = forty_hpc_and_sixty_cloud_jobs();
    let mut config = EngineConfig::new(8, Policy::Convergence);
    config.conv_procs = 4;
    let result = simulate(config.clone(), jobs.clone(), &SimOptions::default(), |_, _| {}).unwrap();

    let first = scratch_dir("first");
    let second = scratch_dir("second");
    let summary = write_outputs(&first, Naming::Workload("w0"), &result.records, &config).unwrap();
    write_outputs(&second, Naming::Workload("w0"), &result.records, &config).unwrap();
    for name in ["jobs.csv", "summary.json"] {
        let a = std::fs::read(first.join(name)).unwrap();
        let b = std::fs::read(second.join(name)).unwrap();
        assert!(a == b, "{name} differs between two writes");
    }

    let csv = std::fs::read_to_string(first.join("jobs.csv")).unwrap();
    let rows = checked_rows(&csv, &jobs);

    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("summary.json")).unwrap()).unwrap();
    assert_eq!(value["jobs"], 100);
    assert_eq!(value["hpc_jobs"], 40);
    assert_eq!(value["cloud_jobs"], 60);
    assert_eq!(value["jobs"].as_u64(), Some(summary.jobs));
    assert_eq!(value["violations"].as_u64(), Some(summary.violations));
    assert!(summary.violations <= 60);
    let violated_rows = rows
        .iter()
        .filter(|row| row[17] == "cloud" && row[22] == "1")
        .count() as u64;
    assert_eq!(violated_rows, summary.violations);
    assert_eq!(value["config"]["policy"], "convergence");
    assert_eq!(value["config"]["procs"], 8);
    assert_eq!(value["config"]["conv"], 4);
    assert_eq!(value["config"]["admission"], "admit-all");
    assert_eq!(value["config"]["scheduling"], "hpc-first");
    assert_eq!(value["config"]["predictor"], "exact");
    assert_eq!(value["config"]["latency"], 0.0);
    assert_eq!(value["config"]["beta"], 0.0);
    assert_eq!(value["config"]["maintenance"], serde_json::json!([]));
    assert_every_cloud_job_scored(&value, &rows);
    let _ = std::fs::remove_dir_all(first);
    let _ = std::fs::remove_dir_all(second);
}

/// 40 HPC jobs submitted over the first 500 s (1 to 7 processors, 300 s
/// walltimes) and 60 cloud jobs, one every 10 s.
fn forty_hpc_and_sixty_cloud_jobs() -> Vec<Job> {
    let mut jobs = Vec::new();
    for k in 0..40u64 {
        jobs.push(job(
            k + 1,
            JobKind::Hpc,
            (k * 37 % 500) as f64,
            1 + (k % 4) as u32 * 2,
            300,
            40 + (k * 13 % 400) as i64,
        ));
    }
    for k in 0..60u64 {
        jobs.push(job(
            1000 + k,
            JobKind::Cloud,
            (k * 10) as f64,
            [1, 2, 4][k as usize % 3],
            180,
            30,
        ));
    }
    jobs
}

/// The rows of `csv` (a `jobs.csv`), checked: the header, then one row of
/// 25 fields per job of `jobs`, in completion order.
fn checked_rows<'c>(csv: &'c str, jobs: &[Job]) -> Vec<Vec<&'c str>> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(JOBS_CSV_HEADER));
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    assert_eq!(rows.len(), jobs.len());
    assert!(rows.iter().all(|row| row.len() == 25), "every row has 25 fields");
    let mut ids: Vec<u64> = rows.iter().map(|row| row[0].parse().unwrap()).collect();
    ids.sort_unstable();
    let mut expected_ids: Vec<u64> = jobs.iter().map(|job| job.id.0).collect();
    expected_ids.sort_unstable();
    assert_eq!(ids, expected_ids);
    let finishes: Vec<f64> = rows.iter().filter_map(|row| row[10].parse().ok()).collect();
    assert!(
        finishes.windows(2).all(|pair| pair[0] <= pair[1]),
        "rows in completion order"
    );
    rows
}

/// `summary.json`'s `prediction` and `predictors` (of the run above): every
/// metric of every predictor, each scoring the 60 cloud jobs; the admitting
/// (exact) predictor's row is `prediction`, and each cloud row of `rows`
/// carries its verdict as its probability.
fn assert_every_cloud_job_scored(value: &serde_json::Value, rows: &[Vec<&str>]) {
    for key in [
        "tp",
        "fp",
        "fn",
        "tn",
        "precision",
        "recall",
        "accuracy",
        "f1",
        "thesis_accuracy",
        "thesis_precision",
        "brier",
    ] {
        assert!(value["prediction"].get(key).is_some(), "prediction.{key} missing");
        for predictor in ["exact", "thesis", "learned"] {
            assert!(
                value["predictors"][predictor].get(key).is_some(),
                "predictors.{predictor}.{key} missing"
            );
        }
    }
    let tp_fp_fn_tn = |quality: &serde_json::Value| -> u64 {
        ["tp", "fp", "fn", "tn"]
            .iter()
            .map(|key| quality[key].as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        tp_fp_fn_tn(&value["prediction"]),
        60,
        "every cloud job is in the confusion matrix"
    );
    for predictor in ["exact", "thesis", "learned"] {
        assert_eq!(
            tp_fp_fn_tn(&value["predictors"][predictor]),
            60,
            "{predictor} scores every cloud job"
        );
    }
    // The admitting predictor's row is its own among all of them.
    assert_eq!(value["prediction"], value["predictors"]["exact"]);
    // Each cloud row carries its probability: 0 or 1 for the exact predictor, as its verdict.
    for row in rows.iter().filter(|row| row[17] == "cloud") {
        assert_eq!(row[21], row[20], "exact's probability is its verdict: {row:?}");
    }
}

/// HPC jobs and a cloud job every `interval` seconds over `[0, span)`.
fn mixed_stream(span: u64, interval: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for k in 0..span / 400 {
        jobs.push(job(
            k + 1,
            JobKind::Hpc,
            (k * 400 + k * 37 % 300) as f64,
            1 + (k % 4) as u32 * 2,
            900,
            60 + (k * 131 % 600) as i64,
        ));
    }
    for k in 0..span / interval {
        jobs.push(job(
            1_000_000 + k,
            JobKind::Cloud,
            (k * interval) as f64,
            [1, 2, 4][k as usize % 3],
            180,
            20 + (k * 7 % 60) as i64,
        ));
    }
    jobs.sort_by_key(|job| job.submit);
    jobs
}

/// A streamed run (records written as jobs end) writes exactly the files of
/// a run that keeps every record and writes them at the end, with
/// evictions, rejections and walltime kills.
#[test]
fn a_streamed_run_writes_the_same_files_as_a_collected_one() {
    use interstice_batsim::output::ResultWriter;
    use interstice_batsim::sim::simulate_stream;
    use interstice_core::Admission;
    let jobs = mixed_stream(20_000, 30);
    for admission in [Admission::AdmitAll, Admission::RejectPredicted] {
        let mut config = EngineConfig::new(8, Policy::Conservative);
        config.conv_procs = 4;
        config.admission = admission;
        let collected = simulate(config.clone(), jobs.clone(), &SimOptions::default(), |_, _| {}).unwrap();
        let kept = scratch_dir(&format!("kept-{}", admission.name()));
        write_outputs(&kept, Naming::Workload("w0"), &collected.records, &config).unwrap();

        let streamed_dir = scratch_dir(&format!("streamed-{}", admission.name()));
        let mut writer = ResultWriter::create(&streamed_dir, Naming::Workload("w0")).unwrap();
        let run = simulate_stream(
            config.clone(),
            jobs.clone(),
            &SimOptions::default(),
            &mut writer,
            |_| {},
        )
        .unwrap();
        writer.finish(&config, None).unwrap();
        assert_eq!(run.stats, collected.stats);
        assert!(collected.summary.evictions > 0, "the workload evicts");
        if admission == Admission::RejectPredicted {
            assert!(collected.summary.rejected > 0);
        }
        for name in ["jobs.csv", "summary.json"] {
            let a = std::fs::read_to_string(kept.join(name)).unwrap();
            let b = std::fs::read_to_string(streamed_dir.join(name)).unwrap();
            if a != b {
                let diff: Vec<_> = a.lines().zip(b.lines()).filter(|(x, y)| x != y).take(3).collect();
                panic!("{name} differs between a streamed and a collected run ({admission:?}): {diff:#?}");
            }
        }
        let _ = std::fs::remove_dir_all(kept);
        let _ = std::fs::remove_dir_all(streamed_dir);
    }
}

/// The engine forgets finished jobs: ten times more injected cloud jobs do
/// not make it hold more jobs at once (before, it held every job until the
/// end: 460 bytes a job, 13 GB for KTH with a cloud job every second).
#[test]
fn a_streamed_run_holds_the_jobs_in_the_system_not_the_workload() {
    use interstice_batsim::output::ResultWriter;
    use interstice_batsim::sim::simulate_stream;
    let mut config = EngineConfig::new(8, Policy::Convergence);
    config.conv_procs = 4;
    let mut peaks = Vec::new();
    for span in [4_000, 40_000] {
        let jobs = mixed_stream(span, 60);
        let total = jobs.len() as u64;
        let dir = scratch_dir(&format!("held-{span}"));
        let mut writer = ResultWriter::create(&dir, Naming::Workload("w0")).unwrap();
        let run = simulate_stream(config.clone(), jobs, &SimOptions::default(), &mut writer, |_| {}).unwrap();
        let summary = writer.finish(&config, None).unwrap();
        assert_eq!(summary.jobs, total, "every job has its row");
        if span > 10_000 {
            assert!(
                run.stats.peak_held < total / 20,
                "held {} of {total} jobs at once",
                run.stats.peak_held
            );
        }
        peaks.push(run.stats.peak_held);
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(
        peaks[1] < 5 * peaks[0],
        "10x the jobs, peak held {} -> {}",
        peaks[0],
        peaks[1]
    );
}
