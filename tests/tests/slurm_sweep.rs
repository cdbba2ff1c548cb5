//! `interstice sweep --slurm-array` on the real Slurm of the harness
//! (`tests/slurm/harness.rs`; runs as root): the sweep written as a job
//! array, submitted with sbatch, each array task running its own cell on the
//! cluster's nodes, then `interstice sweep collect` writing the tables — the
//! same as the sweep run in one go, with every cell run exactly once.

#[path = "../slurm/harness.rs"]
mod harness;

use harness::{wait_for, Cluster, PluginSettings};
use interstice_tests::{assert_success, interstice_bin, kth_trace};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// A small thesis-shaped grid: 2 machines × 2 widths × 2 slacks, plus 2 baselines.
const GRID: [&str; 14] = [
    "--policy",
    "easy",
    "--machine",
    "10,20",
    "--cloud-interval",
    "60",
    "--cloud-procs",
    "1;4",
    "--cloud-runtime",
    "0.1w",
    "--slack",
    "1.25,5",
    "--until",
    "43200",
];
const CELLS: usize = 2 + 2 * 2 * 2;

fn sweep(cwd: &Path, out: &str, extra: &[&str]) -> Output {
    let trace = kth_trace();
    Command::new(interstice_bin())
        .args(["sweep", trace.to_str().unwrap(), "--out", out])
        .args(GRID)
        .args(extra)
        .current_dir(cwd)
        .output()
        .expect("run interstice sweep")
}

/// `sweep.csv` without `wall_seconds`, its last column.
fn results(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("sweep.csv"))
        .unwrap()
        .lines()
        .map(|line| line.rsplit_once(',').unwrap().0.to_string())
        .collect()
}

#[test]
fn a_sweep_runs_as_a_slurm_job_array_each_cell_once() {
    let cluster = Cluster::start(&PluginSettings::default());
    // The jobs' directory, which every node's job can write.
    let cwd = cluster.dir.path().join("jobs");
    assert_success(&sweep(&cwd, "array", &["--slurm-array"]));
    let script = cwd.join("array/slurm/sweep.sbatch");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(
        text.contains(&format!("#SBATCH --array=0-{}", CELLS - 1)),
        "{text}"
    );
    let cells_tsv = std::fs::read_to_string(cwd.join("array/slurm/cells.tsv")).unwrap();
    assert_eq!(
        cells_tsv.lines().count(),
        1 + CELLS,
        "a header and a line per cell"
    );

    let submitted = cluster.run("sbatch", &["--parsable", script.to_str().unwrap()]);
    assert_success(&submitted);
    let job = String::from_utf8_lossy(&submitted.stdout).trim().to_string();

    // Every array task ends (COMPLETED in sacct-less Slurm: gone from the
    // active states), each having written its cell.
    let cells_dir = cwd.join("array/cells");
    wait_for("every cell of the array", Duration::from_secs(180), || {
        let done = (0..CELLS)
            .filter(|i| cells_dir.join(format!("{i:05}.json")).exists())
            .count();
        let active = cluster.run("squeue", &["-h", "-j", &job, "-t", "PENDING,RUNNING,COMPLETING"]);
        (done == CELLS && String::from_utf8_lossy(&active.stdout).trim().is_empty()).then_some(())
    });
    let states = cluster.run("squeue", &["-h", "-t", "all", "-j", &job, "-o", "%i %T"]);
    let states = String::from_utf8_lossy(&states.stdout).to_string();
    assert_eq!(
        states.lines().filter(|line| line.ends_with("COMPLETED")).count(),
        CELLS,
        "each cell is one array task that completed:\n{states}"
    );
    for task in 0..CELLS {
        assert!(
            cwd.join(format!("array/slurm/cell-{task}.out")).exists(),
            "array task {task} wrote its output where the script says"
        );
    }
    let log = std::fs::read_to_string(cells_dir.join("runs.log")).unwrap();
    let mut ran: Vec<usize> = log
        .lines()
        .map(|line| line.split('\t').next().unwrap().parse().unwrap())
        .collect();
    ran.sort_unstable();
    assert_eq!(
        ran,
        (0..CELLS).collect::<Vec<_>>(),
        "every cell ran exactly once:\n{log}"
    );

    // collect, from anywhere: the tables of the sweep run in one go.
    let collected = Command::new(interstice_bin())
        .args(["sweep", "collect", cwd.join("array").to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&collected);
    assert_success(&sweep(&cwd, "whole", &["--quiet"]));
    assert_eq!(results(&cwd.join("array")), results(&cwd.join("whole")));
    let log_after = std::fs::read_to_string(cells_dir.join("runs.log")).unwrap();
    assert_eq!(log_after, log, "collect runs no cell");
}

#[test]
fn collect_names_the_cells_not_finished() {
    let dir = tempfile::tempdir().unwrap();
    assert_success(&sweep(dir.path(), "array", &["--slurm-array"]));
    assert_success(&sweep(dir.path(), "array", &["--cell", "3", "--quiet"]));
    let output = Command::new(interstice_bin())
        .args(["sweep", "collect", dir.path().join("array").to_str().unwrap()])
        .output()
        .unwrap();
    interstice_tests::assert_failure_mentions(
        &output,
        &[&format!("{} of the {CELLS} cells", CELLS - 1), "--cell"],
    );
    assert!(!dir.path().join("array/sweep.csv").exists());
}
