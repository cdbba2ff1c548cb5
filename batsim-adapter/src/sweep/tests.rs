//! The sweep's grid, rows and columns.

use super::*;

#[test]
fn csv_fields_with_commas_are_quoted() {
    let mut out = String::new();
    csv_field(&mut out, "1:0.5,2:0.5");
    assert_eq!(out, "\"1:0.5,2:0.5\"");
    out.clear();
    csv_field(&mut out, "0.1w");
    assert_eq!(out, "0.1w");
}

/// A grid of one value per list: easy, hpc-first, unlimited depth, the
/// exact predictor, the whole machine, admit-all, 1-processor cloud
/// jobs running their walltime, slack 1.5, seed 1.
fn one_of_each() -> Grid {
    Grid {
        policies: vec![Policy::Easy],
        schedulings: vec![Scheduling::HpcFirst],
        depths: vec![ReservationDepth::Unlimited],
        predictors: vec![Predictor::Exact],
        convs: vec![None],
        admissions: vec![Admission::AdmitAll],
        evictions: vec![None],
        cloud_procs: vec![ProcsChoice::Fixed(1)],
        runtimes: vec![RuntimeSpec::WALLTIME],
        slacks: vec![1.5],
        seeds: vec![1],
    }
}

/// A finished run of a 4-processor machine with this HPC makespan.
fn outcome(makespan: f64) -> Outcome {
    Outcome {
        summary: Summary {
            hpc_makespan: makespan,
            ..Summary::default()
        },
        procs: 4,
        conv: 4,
        classes: None,
        wall_seconds: 0.0,
    }
}

#[test]
fn baselines_come_first_then_runs_in_list_order() {
    let grid = Grid {
        policies: vec![Policy::Easy, Policy::Fcfs],
        convs: vec![None, Some(4)],
        slacks: vec![1.5, 2.0],
        ..one_of_each()
    };
    let (tasks, n_baselines) = grid.tasks();
    assert_eq!((tasks.len(), n_baselines), (12, 4));
    assert_eq!(
        tasks[4].to_string(),
        "policy easy scheduling hpc-first predictor exact conv machine admission admit-all cloud-procs 1 \
         cloud-runtime 1w slack 1.5 seed 1"
    );
}

#[test]
fn each_reservation_depth_has_its_baseline_and_a_bounded_one_is_named() {
    let depth: ReservationDepth = "10".parse().unwrap();
    let grid = Grid {
        policies: vec![Policy::Conservative],
        depths: vec![depth, ReservationDepth::Unlimited],
        ..one_of_each()
    };
    let (tasks, n_baselines) = grid.tasks();
    assert_eq!((tasks.len(), n_baselines), (4, 2));
    assert_eq!(
        tasks[0].to_string(),
        "baseline policy conservative scheduling hpc-first depth 10 conv machine (no cloud jobs)"
    );
    assert_eq!(
        tasks[3].to_string(),
        "policy conservative scheduling hpc-first predictor exact conv machine admission admit-all \
         cloud-procs 1 cloud-runtime 1w slack 1.5 seed 1"
    );
    let outcomes: Vec<Outcome> = [10.0, 20.0, 15.0, 25.0].into_iter().map(outcome).collect();
    let rows = rows(&tasks, &outcomes, n_baselines);
    let deltas: Vec<f64> = rows.iter().map(Row::hpc_makespan_delta).collect();
    assert_eq!(
        deltas,
        [5.0, 5.0],
        "each run against the baseline of its own depth"
    );
    let csv: Vec<String> = rows
        .iter()
        .map(|row| row.params.reservation_depth.to_string())
        .collect();
    assert_eq!(csv, ["10", "unlimited"]);
}

#[test]
fn scheduling_and_predictor_are_lists_next_to_the_policy() {
    let grid = Grid {
        schedulings: vec![Scheduling::HpcFirst, Scheduling::SharedQueue],
        predictors: vec![Predictor::Exact, Predictor::Thesis],
        seeds: vec![1, 2],
        ..one_of_each()
    };
    let (tasks, n_baselines) = grid.tasks();
    assert_eq!(
        (tasks.len(), n_baselines),
        (2 + 2 * 2 * 2, 2),
        "a baseline per scheduling mode"
    );
    let runs: Vec<(Scheduling, Predictor, u64)> = grid
        .runs()
        .iter()
        .map(|run| (run.scheduling, run.predictor, run.seed))
        .collect();
    assert_eq!(runs[0], (Scheduling::HpcFirst, Predictor::Exact, 1));
    assert_eq!(runs[3], (Scheduling::HpcFirst, Predictor::Thesis, 2));
    assert_eq!(runs[4], (Scheduling::SharedQueue, Predictor::Exact, 1));
    let outcomes: Vec<Outcome> = [10.0, 20.0]
        .into_iter()
        .chain(std::iter::repeat(25.0).take(8))
        .map(outcome)
        .collect();
    let rows = rows(&tasks, &outcomes, n_baselines);
    let deltas: Vec<f64> = rows.iter().map(Row::hpc_makespan_delta).collect();
    assert_eq!(
        deltas,
        [15.0, 15.0, 15.0, 15.0, 5.0, 5.0, 5.0, 5.0],
        "each against its own mode's baseline"
    );
    let names: Vec<&str> = rows[0].cells().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names.join(","),
        SWEEP_CSV_HEADER,
        "the header names every cell, in order"
    );
    let csv = sweep_csv(&rows);
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("run,policy,scheduling,reservation_depth,predictor,procs,conv,admission,"));
    assert!(lines
        .nth(4)
        .unwrap()
        .starts_with("4,easy,shared-queue,unlimited,exact,4,4,admit-all,"));
    let json = rows_json(&rows);
    assert_eq!(
        (&json[7]["scheduling"], &json[7]["predictor"]),
        (&"shared-queue".into(), &"thesis".into())
    );
    assert_eq!(
        baselines_json(&tasks[..n_baselines], &outcomes[..n_baselines])[1]["scheduling"],
        "shared-queue"
    );
}
