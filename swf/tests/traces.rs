//! The archive's real traces in ../shared/data.

use crate::shared_data;
use interstice_swf::{load_workload, ExtractOptions};

#[test]
fn kth_header_and_jobs() {
    let w = load_workload(
        &shared_data("KTH-SP2-1996-2.1-cln.swf.gz"),
        &ExtractOptions::new(),
    )
    .unwrap();
    let h = w.header.as_ref().unwrap();
    assert_eq!(
        (h.max_procs, h.max_nodes, h.max_jobs, h.max_records),
        (Some(100), Some(100), Some(28490), Some(28476))
    );
    assert_eq!(h.unix_start_time, Some(843480031));
    assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Stockholm"));
    assert_eq!(h.information.as_deref().map(|i| i.lines().count()), Some(2));
    assert_eq!(h.preemption.as_deref(), Some("No"));
    assert_eq!(w.machine_procs, Some(100));
    assert_eq!(w.stats.records, 28476, "MaxRecords data lines");
    assert_eq!(w.stats.jobs + w.stats.skipped(), w.stats.records);
    assert!(w
        .jobs
        .windows(2)
        .all(|p| (p[0].submit, p[0].id) <= (p[1].submit, p[1].id)));
    assert!(w
        .jobs
        .iter()
        .all(|j| j.procs >= 1 && j.procs <= 100 && j.runtime.is_some()));
}

#[test]
fn nasa_header_queues() {
    let w = load_workload(
        &shared_data("NASA-iPSC-1993-3.1-cln.swf.gz"),
        &ExtractOptions::new(),
    )
    .unwrap();
    let h = w.header.as_ref().unwrap();
    assert_eq!(h.max_procs, Some(128));
    assert_eq!(h.max_queues, Some(2));
    assert_eq!(
        h.queue,
        vec!["0  interactive".to_string(), "1  batch".to_string()]
    );
    assert_eq!(h.time_zone, Some(-28800));
    assert!(h.notes.len() >= 3);
    assert_eq!(w.stats.records, 18239);
    // NASA has no requested times: every walltime is the run time, as a
    // planning estimate the platform does not enforce.
    assert_eq!(w.stats.walltime_from_runtime, w.stats.jobs);
    assert!(w
        .jobs
        .iter()
        .all(|j| !j.walltime_enforced && Some(j.walltime) == j.runtime));
}

/// CTC's header writes free text after MaxNodes (`338 (batch partition;
/// 512 total)`): the trace loads, on 338 processors, with a note.
#[test]
fn ctc_header_with_free_text_loads() {
    let w = load_workload(
        &shared_data("CTC-SP2-1996-3.1-cln.swf.gz"),
        &ExtractOptions::new(),
    )
    .unwrap();
    let h = w.header.as_ref().unwrap();
    assert_eq!((h.max_nodes, h.max_procs), (Some(338), Some(338)));
    assert_eq!(w.machine_procs, Some(338));
    assert_eq!(h.value_notes.len(), 1);
    assert_eq!(h.value_notes[0].read.as_deref(), Some("338"));
    assert_eq!(
        w.stats.records, 77222,
        "MaxJobs minus the 2080 jobs the cleaning removed"
    );
}
