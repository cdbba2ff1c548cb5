//! `interstice sweep` with a grid file, interrupted and resumed, and
//! collected from its cells (the first day of KTH SP2, small grids for a
//! debug build): the same rows as the options on the command line and as an
//! uninterrupted sweep, each cell run once, and another sweep's cells refused.

use interstice_tests::{
    assert_failure_mentions, assert_success, column, kth_trace, results_without_wall_time, runs_per_cell,
    scratch_dir, sweep_csv,
};
use std::path::Path;
use std::process::{Command, Output};

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .args(args)
        .output()
        .expect("run interstice")
}

/// A grid file of the thesis's shape (m = m_conv), small enough for a debug build.
const GRID: &str = "policy: [convergence, easy]\nscheduling: shared-queue\nconv: machine\nprocs: [10, 20]\n\
cloud_interval: 30\ncloud_walltime: 180\ncloud_runtime: 0.1w\ncloud_procs: [1, 4]\nslack: [1.25, 2, 5]\n\
until: 86400\n";

/// The same grid as command-line options.
const GRID_FLAGS: [&str; 22] = [
    "--policy",
    "convergence,easy",
    "--scheduling",
    "shared-queue",
    "--machine",
    "10,20",
    "--cloud-interval",
    "30",
    "--cloud-walltime",
    "180",
    "--cloud-runtime",
    "0.1w",
    "--cloud-procs",
    "1;4",
    "--slack",
    "1.25,2,5",
    "--until",
    "86400",
    "--quiet",
    "--jobs",
    "2",
    "--force",
];

fn sweep_in(dir: &Path, out: &Path, extra: &[&str]) -> Output {
    let trace = kth_trace();
    let mut args = vec!["sweep", trace.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend(extra);
    Command::new(interstice_tests::interstice_bin())
        .args(&args)
        .current_dir(dir)
        .output()
        .expect("run interstice")
}

#[test]
fn a_grid_file_is_its_options_and_machine_makes_the_machine_the_area() {
    let dir = scratch_dir("sweep_cli", "grid-file");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("grid.yaml"), GRID).unwrap();
    assert_success(&sweep_in(
        &dir,
        &dir.join("file"),
        &["--grid", "grid.yaml", "--quiet"],
    ));
    assert_success(&sweep_in(&dir, &dir.join("flags"), &GRID_FLAGS));
    let from_file = results_without_wall_time(&dir.join("file"));
    assert_eq!(from_file.len(), 2 * 2 * 2 * 3, "policy × machine × width × slack");
    assert_eq!(from_file, results_without_wall_time(&dir.join("flags")));
    let (header, rows) = sweep_csv(&dir.join("file"));
    let (procs, conv) = (column(&header, "procs"), column(&header, "conv"));
    for row in &rows {
        assert_eq!(row[procs], row[conv], "the machine is the area: {row:?}");
    }
    // Each machine is a replay on --procs M --clip, M processors all area.
    let replay = dir.join("replay");
    let trace = kth_trace();
    assert_success(&interstice(&[
        "replay",
        trace.to_str().unwrap(),
        "--procs",
        "10",
        "--clip",
        "--policy",
        "easy",
        "--scheduling",
        "shared-queue",
        "--cloud-interval",
        "30",
        "--cloud-walltime",
        "180",
        "--cloud-runtime",
        "0.1w",
        "--cloud-procs",
        "4",
        "--slack",
        "2",
        "--until",
        "86400",
        "--quiet",
        "--force",
        "--out",
        replay.to_str().unwrap(),
    ]));
    let summary = interstice_tests::read_summary(&replay);
    let point = rows
        .iter()
        .find(|row| {
            row[column(&header, "policy")] == "easy"
                && row[procs] == "10"
                && row[column(&header, "cloud_procs")] == "4"
                && row[column(&header, "slack")] == "2"
        })
        .expect("the point in the sweep");
    assert_eq!(
        point[column(&header, "violations")],
        summary["violations"].to_string(),
        "the sweep's m = 10 is a 10-processor machine, clipped"
    );

    // An option also on the command line replaces the file's; a bad key is refused.
    assert_success(&sweep_in(
        &dir,
        &dir.join("both"),
        &["--grid", "grid.yaml", "--slack", "3", "--quiet"],
    ));
    let (header, rows) = sweep_csv(&dir.join("both"));
    assert_eq!(rows.len(), 2 * 2 * 2, "one slack: the command line's");
    assert!(rows.iter().all(|row| row[column(&header, "slack")] == "3"));
    std::fs::write(dir.join("bad.yaml"), "slak: [1]\n").unwrap();
    let bad = sweep_in(&dir, &dir.join("bad"), &["--grid", "bad.yaml"]);
    assert_eq!(bad.status.code(), Some(4), "a bad grid file is bad input");
    assert_failure_mentions(&bad, &["bad.yaml", "unknown key `slak`"]);
}

#[test]
fn an_interrupted_sweep_resumes_to_the_uninterrupted_result_running_each_cell_once() {
    let dir = scratch_dir("sweep_cli", "resume");
    std::fs::create_dir_all(&dir).unwrap();
    let flags: Vec<&str> = GRID_FLAGS
        .iter()
        .copied()
        .filter(|flag| *flag != "--force")
        .collect();
    assert_success(&sweep_in(&dir, &dir.join("whole"), &flags));

    // Interrupted: killed once some cells have finished.
    let out = dir.join("resumed");
    let trace = kth_trace();
    let mut args = vec!["sweep", trace.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend(
        flags
            .iter()
            .copied()
            .filter(|flag| *flag != "2" && *flag != "--jobs"),
    );
    args.extend(["--jobs", "1"]);
    let mut child = Command::new(interstice_tests::interstice_bin())
        .args(&args)
        .spawn()
        .expect("start the sweep");
    let started = std::time::Instant::now();
    while runs_per_cell(&out).len() < 5 {
        assert!(started.elapsed().as_secs() < 120, "no cell finished in 2 minutes");
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().ok();
    child.wait().unwrap();
    let before = runs_per_cell(&out).len();
    assert!(!out.join("sweep.csv").exists(), "killed before the tables");

    // Resumed: the same command line finishes the rest.
    let output = Command::new(interstice_tests::interstice_bin())
        .args(&args)
        .output()
        .unwrap();
    assert_success(&output);
    assert_eq!(
        results_without_wall_time(&out),
        results_without_wall_time(&dir.join("whole"))
    );
    let runs = runs_per_cell(&out);
    assert_eq!(
        runs.len(),
        2 * 2 + 24,
        "every baseline and run (had {before} before the kill)"
    );
    assert!(runs.values().all(|&n| n == 1), "each cell ran once: {runs:?}");

    // Other settings in the same directory are refused, naming what differs.
    let other: Vec<&str> = args
        .iter()
        .map(|arg| if *arg == "86400" { "43200" } else { arg })
        .collect();
    let refused = Command::new(interstice_tests::interstice_bin())
        .args(&other)
        .output()
        .unwrap();
    assert_failure_mentions(&refused, &["another sweep", "until", "--force"]);
    // A cell number outside the grid is an error naming the range.
    let mut cell = args.clone();
    cell.extend(["--cell", "99"]);
    let output = Command::new(interstice_tests::interstice_bin())
        .args(&cell)
        .output()
        .unwrap();
    assert_failure_mentions(&output, &["--cell 99", "0 to 27"]);
}

#[test]
fn collect_writes_where_the_cells_are_and_only_for_their_settings() {
    let dir = scratch_dir("sweep_cli", "collect");
    std::fs::create_dir_all(&dir).unwrap();
    let grid =
        "policy: easy\nmachine: [10]\ncloud_interval: 600\ncloud_procs: [1, 2]\nslack: 2\nuntil: 43200\n";
    std::fs::write(dir.join("grid.yaml"), grid).unwrap();
    let array = sweep_in(
        &dir,
        &dir.join("array"),
        &["--grid", "grid.yaml", "--slurm-array"],
    );
    assert_success(&array);
    for cell in 0..3 {
        let cell = cell.to_string();
        assert_success(&sweep_in(
            &dir,
            &dir.join("array"),
            &["--grid", "grid.yaml", "--cell", &cell],
        ));
    }
    // Moved elsewhere, the cells are collected where they are now.
    std::fs::rename(dir.join("array"), dir.join("moved")).unwrap();
    let collect = |target: &str| {
        Command::new(interstice_tests::interstice_bin())
            .args(["sweep", "collect", dir.join(target).to_str().unwrap()])
            .output()
            .unwrap()
    };
    assert_success(&collect("moved"));
    assert_eq!(sweep_csv(&dir.join("moved")).1.len(), 2);
    assert!(
        !dir.join("array").exists(),
        "nothing written where the cells were"
    );
    // The grid file changed since: collecting would mix settings.
    std::fs::write(dir.join("grid.yaml"), grid.replace("600", "300")).unwrap();
    let changed = collect("moved");
    assert_eq!(
        changed.status.code(),
        Some(2),
        "another sweep's cells are a usage error"
    );
    assert_failure_mentions(&changed, &["another sweep", "cloud_interval"]);
    // The same command resumes (every cell read back); --force starts over.
    std::fs::write(dir.join("grid.yaml"), grid).unwrap();
    let resumed = sweep_in(&dir, &dir.join("moved"), &["--grid", "grid.yaml"]);
    assert_success(&resumed);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(stdout.contains("3 finished cells read back"), "{stdout}");
    let forced = sweep_in(&dir, &dir.join("moved"), &["--grid", "grid.yaml", "--force"]);
    assert_success(&forced);
    let stdout = String::from_utf8_lossy(&forced.stdout);
    assert!(
        !stdout.contains("read back"),
        "--force runs every cell again: {stdout}"
    );
    // slurm_array and cell belong on the command line.
    std::fs::write(dir.join("bad.yaml"), format!("{grid}slurm_array: true\n")).unwrap();
    let bad = sweep_in(&dir, &dir.join("bad"), &["--grid", "bad.yaml"]);
    assert_failure_mentions(&bad, &["slurm_array", "command line"]);
}
