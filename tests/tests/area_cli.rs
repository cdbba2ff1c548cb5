//! `interstice replay --area-schedule`: the convergence area resized during
//! a replay of a real trace (KTH SP2's first day), against the same replay
//! with a fixed area.

use interstice_tests::{assert_failure_mentions, assert_success, csv_split, kth_trace, scratch_dir};
use std::path::Path;
use std::process::{Command, Output};

/// KTH's first day starts near t = 599,850 s: the area shrinks to 0..20 at
/// 620,000 s and grows back to the machine at 650,000 s.
const SHRINK: f64 = 620_000.0;
const GROW: f64 = 650_000.0;
const NARROW: u32 = 20;

fn replay(out: &Path, schedule: Option<&Path>) -> Output {
    let kth = kth_trace();
    let mut args = vec![
        "replay".to_string(),
        kth.to_str().unwrap().into(),
        "--until".into(),
        "86400".into(),
        "--policy".into(),
        "easy".into(),
        "--cloud-interval".into(),
        "60".into(),
        "--cloud-procs".into(),
        "4".into(),
        "--max-resubmissions".into(),
        "3".into(),
        "--out".into(),
        out.to_str().unwrap().into(),
        "--force".into(),
    ];
    if let Some(path) = schedule {
        args.extend(["--area-schedule".into(), path.to_str().unwrap().into()]);
    }
    Command::new(interstice_tests::interstice_bin())
        .args(&args)
        .output()
        .expect("run interstice")
}

/// One run of a job: kind, start, end, processors.
struct Run {
    id: String,
    cloud: bool,
    start: f64,
    end: f64,
    procs: Vec<u32>,
}

fn procs(text: &str) -> Vec<u32> {
    text.split(' ')
        .flat_map(|item| match item.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().unwrap()..=b.parse().unwrap()).collect::<Vec<_>>(),
            None => vec![item.parse().unwrap()],
        })
        .collect()
}

/// Every run of every job in `jobs.csv`, the evicted runs included.
fn runs(dir: &Path) -> Vec<Run> {
    let text = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    let mut lines = text.lines();
    let header = csv_split(lines.next().unwrap());
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let mut out = Vec::new();
    for line in lines {
        let row = csv_split(line);
        let id = row[col("job_id")].clone();
        let cloud = row[col("kind")] == "cloud";
        if let Ok(start) = row[col("starting_time")].parse::<f64>() {
            if start >= 0.0 {
                out.push(Run {
                    id: id.clone(),
                    cloud,
                    start,
                    end: row[col("finish_time")].parse().unwrap(),
                    procs: procs(&row[col("allocated_resources")]),
                });
            }
        }
        for run in row[col("evicted_runs")].split(';').filter(|r| !r.is_empty()) {
            let (times, on) = run.split_once('@').unwrap();
            let (s, e) = times.split_once('-').unwrap();
            out.push(Run {
                id: id.clone(),
                cloud,
                start: s.parse().unwrap(),
                end: e.parse().unwrap(),
                procs: procs(on),
            });
        }
    }
    out
}

#[test]
fn a_resized_area_evicts_what_leaves_it_and_leaves_hpc_work_alone() {
    let dir = scratch_dir("area-cli", "resize");
    let schedule = dir.join("area.txt");
    std::fs::write(
        &schedule,
        format!("# time procs\n{SHRINK} {NARROW}\n{GROW} 100  # back\n"),
    )
    .unwrap();
    let (fixed, resized) = (dir.join("fixed"), dir.join("resized"));
    assert_success(&replay(&fixed, None));
    let output = replay(&resized, Some(&schedule));
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("(area 100, resized 2 times by the area schedule)"),
        "{stdout}"
    );

    let summary = interstice_tests::read_summary(&resized);
    assert_eq!(
        summary["config"]["area_schedule"],
        serde_json::json!([{"time": SHRINK, "procs": NARROW}, {"time": GROW, "procs": 100}])
    );
    let evictions = |dir: &Path| {
        interstice_tests::read_summary(dir)["cloud"]["evictions"]
            .as_u64()
            .unwrap()
    };
    assert!(
        evictions(&resized) > evictions(&fixed),
        "the shrink evicts: {} vs {}",
        evictions(&resized),
        evictions(&fixed)
    );

    // HPC jobs start at the same times, with or without the resizes.
    let hpc_starts = |dir: &Path| {
        let mut starts: Vec<(String, u64)> = runs(dir)
            .into_iter()
            .filter(|r| !r.cloud)
            .map(|r| (r.id, (r.start * 1000.0) as u64))
            .collect();
        starts.sort();
        starts
    };
    assert_eq!(hpc_starts(&fixed), hpc_starts(&resized));

    // While the area is 0..20, no cloud job runs outside it; some ran there
    // before the shrink and were evicted at it.
    let cloud: Vec<Run> = runs(&resized).into_iter().filter(|r| r.cloud).collect();
    for run in cloud.iter().filter(|r| r.start < GROW && r.end > SHRINK) {
        assert!(
            run.procs.iter().all(|&p| p < NARROW),
            "cloud job {} ran over [{}, {}) on {:?}, outside the area 0..{NARROW}",
            run.id,
            run.start,
            run.end,
            run.procs
        );
    }
    assert!(
        cloud
            .iter()
            .any(|r| r.end == SHRINK && r.procs.iter().any(|&p| p >= NARROW)),
        "a cloud job outside 0..{NARROW} was evicted at the shrink"
    );
}

#[test]
fn a_bad_area_schedule_is_named_with_its_line_and_fix() {
    let dir = scratch_dir("area-cli", "bad");
    let schedule = dir.join("area.txt");
    std::fs::write(&schedule, "620000 20\n610000 50\n").unwrap();
    assert_failure_mentions(
        &replay(&dir.join("out"), Some(&schedule)),
        &[
            "--area-schedule",
            &format!("{}:2", schedule.display()),
            "list the changes by increasing time",
        ],
    );
    std::fs::write(&schedule, "620000 20\n\n630000 101\n").unwrap();
    assert_failure_mentions(
        &replay(&dir.join("out"), Some(&schedule)),
        &[&format!("{}:3", schedule.display()), "give at most 100"],
    );
}
