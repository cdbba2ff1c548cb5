//! The count-based reference of `bench limit`: its reading, its FCFS and
//! EASY rules on hand-made cases, and the comparison of starts.

use super::*;

/// Job `id` of `width` processors submitted at `submit` s, running `run` s of a `walltime` s request.
fn job(id: u64, submit: i64, width: u32, run: i64, walltime: i64) -> RefJob {
    let secs = |s: i64| s * 1_000_000;
    let (run, walltime) = (secs(run), secs(walltime));
    RefJob {
        submit: secs(submit),
        id,
        width,
        walltime,
        run: run.min(walltime),
    }
}

#[test]
fn a_job_passes_the_head_only_under_easy() {
    // The 4-wide head waits for job 1 until 100; job 3 ends by then.
    let jobs = [job(1, 0, 2, 100, 100), job(2, 1, 4, 10, 10), job(3, 2, 2, 50, 50)];
    assert_eq!(simulate(&jobs, 4, true), [0, 100_000_000, 2_000_000]);
    assert_eq!(simulate(&jobs, 4, false), [0, 100_000_000, 110_000_000]);
}

#[test]
fn every_job_ending_at_the_shadow_time_frees_its_processors() {
    // Jobs 1 and 2 both end at 100: the 3-wide head then has 4 processors,
    // so job 4 (1 wide, ending past the shadow time) takes the extra one now.
    let jobs = [
        job(1, 0, 2, 100, 100),
        job(2, 0, 1, 100, 100),
        job(3, 1, 3, 10, 10),
        job(4, 2, 1, 500, 500),
    ];
    assert_eq!(simulate(&jobs, 4, true), [0, 0, 100_000_000, 2_000_000]);
    // A job that overruns its request runs to its walltime only.
    let jobs = [job(1, 0, 4, 100, 50), job(2, 1, 4, 10, 10)];
    assert_eq!(simulate(&jobs, 4, false), [0, 50_000_000]);
}

#[test]
fn jobs_are_read_by_the_extraction_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.swf");
    let trace = "; MaxProcs: 8\n\n  ; an indented comment\n\
        2 10.0000004 -1 30 -1 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n\
        1 10 -1 90 2 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1\n\
        3 5 -1 0 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n\
        4 -1 -1 9 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n";
    std::fs::write(&path, trace).unwrap();
    let jobs = read_jobs(&path, 8).unwrap();
    let read: Vec<_> = jobs
        .iter()
        .map(|j| (j.id, j.submit, j.width, j.walltime, j.run))
        .collect();
    // Job 1 runs its 60 s request; job 2 has requested processors, its run
    // time as walltime and its submit time rounded to the tick.
    assert_eq!(
        read,
        [
            (1, 10_000_000, 2, 60_000_000, 60_000_000),
            (2, 10_000_000, 4, 30_000_000, 30_000_000)
        ]
    );
    let err = read_jobs(&path, 3).unwrap_err().to_string();
    assert!(err.contains("t.swf:4: job 2 asks for 4 processors"), "{err}");
}

#[test]
fn a_bad_file_is_named() {
    let err = read_jobs(Path::new("/nonexistent/x.swf"), 8).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.swf"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.swf");
    std::fs::write(&path, "1 0 -1 x 2 -1 -1 2 60\n").unwrap();
    let err = read_jobs(&path, 8).unwrap_err().to_string();
    assert!(err.contains("bad.swf:1: field 4 \"x\" is not a number"), "{err}");
    std::fs::write(&path, "1 0 -1\n").unwrap();
    let err = read_jobs(&path, 8).unwrap_err().to_string();
    assert!(err.contains("bad.swf:1: 3 fields"), "{err}");
}

#[test]
fn missing_and_moved_jobs_are_differences() {
    let reference = [(1, 0), (2, 5_000_000), (4, 7)];
    let replay = [(1, Some(0)), (2, Some(6_000_000)), (3, Some(1)), (4, None)];
    let (count, first) = differences(&reference, &replay);
    assert_eq!(count, 3);
    assert_eq!(first.unwrap(), "job 2: reference 5 s, replay 6 s");
    assert_eq!(differences(&reference[..1], &replay[..1]), (0, None));
}
