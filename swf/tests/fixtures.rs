//! Hand-written fixtures: every extraction rule and every error message.

use crate::fixture;
use interstice_core::{JobId, JobKind, Time};
use interstice_swf::{load_workload, ExtractOptions, LineError, Strictness, SwfError, SwfReader};

fn job(w: &interstice_swf::Workload, id: u64) -> &interstice_core::Job {
    w.jobs
        .iter()
        .find(|j| j.id == JobId(id))
        .unwrap_or_else(|| panic!("job {id} missing"))
}

fn clip8() -> ExtractOptions {
    ExtractOptions {
        clip: Some(8),
        ..ExtractOptions::new()
    }
}

#[test]
fn every_extraction_rule() {
    let w = load_workload(&fixture("rules.swf"), &clip8()).unwrap();
    assert_eq!(w.machine_procs, Some(8), "MaxProcs wins over MaxNodes");
    let ids: Vec<u64> = w.jobs.iter().map(|j| j.id.0).collect();
    assert_eq!(
        ids,
        vec![1, 2, 3, 8, 9],
        "sorted by submit; skipped records absent"
    );

    let j1 = job(&w, 1);
    assert_eq!(
        (j1.procs, j1.walltime, j1.runtime),
        (4, Time::from_secs(300), Some(Time::from_secs(100)))
    );
    assert_eq!((j1.submit, j1.kind, j1.slo), (Time::ZERO, JobKind::Hpc, None));
    let j2 = job(&w, 2);
    assert_eq!(
        (j2.procs, j2.walltime, j2.submit),
        (3, Time::from_secs(50), Time::from_secs(10))
    );
    let j3 = job(&w, 3);
    assert_eq!((j3.procs, j3.walltime), (2, Time::from_secs(40)));
    let j8 = job(&w, 8);
    assert_eq!(j8.submit, Time::from_secs_f64(60.5));
    assert_eq!(
        (j8.procs, j8.walltime, j8.runtime),
        (1, Time::from_secs(30), Some(Time::from_secs_f64(12.25)))
    );
    assert_eq!(job(&w, 9).procs, 8, "clipped to --clip 8");

    let s = &w.stats;
    assert_eq!((s.records, s.jobs, s.skipped()), (9, 5, 4));
    assert_eq!(
        (s.skipped_runtime, s.skipped_procs, s.skipped_no_submit),
        (2, 1, 1)
    );
    assert_eq!((s.clipped, s.walltime_from_runtime, s.bad_lines), (1, 2, 0));
    let h = w.header.as_ref().unwrap();
    assert_eq!(h.notes, vec!["every extraction rule,\none line each".to_string()]);
    assert!(h.comments.iter().any(|c| c.starts_with("allocated (5) wins")));
}

#[test]
fn walltime_factor_and_machine_override() {
    let opts = ExtractOptions {
        walltime_factor: 2.0,
        machine_procs: Some(32),
        ..ExtractOptions::new()
    };
    let w = load_workload(&fixture("rules.swf"), &opts).unwrap();
    assert_eq!(w.machine_procs, Some(32));
    assert_eq!(job(&w, 1).walltime, Time::from_secs(600));
    assert_eq!(
        job(&w, 2).walltime,
        Time::from_secs(100),
        "factor applies to run-time walltimes too"
    );
    assert_eq!(job(&w, 9).procs, 16, "fits a 32-processor machine unclipped");
    assert_eq!(w.stats.clipped, 0);
}

#[test]
fn too_wide_is_an_error_unless_clipped_or_lenient() {
    let err = load_workload(&fixture("rules.swf"), &ExtractOptions::new()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.ends_with(
            "rules.swf:25: job 9 needs 16 processors but the machine has 8 \
             (pass --clip 8 to clip such jobs, or --lenient to skip them)"
        ),
        "{msg}"
    );
    let lenient = ExtractOptions {
        mode: Strictness::Lenient,
        ..ExtractOptions::new()
    };
    let w = load_workload(&fixture("rules.swf"), &lenient).unwrap();
    assert_eq!(w.jobs.len(), 4);
    assert_eq!(
        (w.stats.skipped_too_wide, w.stats.bad_lines, w.stats.skipped()),
        (1, 0, 5)
    );
    assert_eq!(w.stats.problems.len(), 1);
    assert!(w.stats.problems[0].contains("job 9 needs 16 processors"));
}

fn strict_error(name: &str) -> (String, SwfError) {
    let err = load_workload(&fixture(name), &ExtractOptions::new()).unwrap_err();
    (err.to_string(), err)
}

#[test]
fn error_messages_name_file_line_field_and_value() {
    let cases: [(&str, &str); 4] = [
        (
            "not_a_number.swf",
            "not_a_number.swf:3: field 5 (allocated processors): \"abc\" is not a number",
        ),
        (
            "not_whole.swf",
            "not_whole.swf:1: field 8 (requested processors): \"4.5\" is not a whole number",
        ),
        (
            "field_count.swf",
            "field_count.swf:2: expected the 18 fields of the standard workload format, found 15 \
             (write -1 for unknown values)",
        ),
        (
            "out_of_range.swf",
            "out_of_range.swf:2: field 1 (job number): \"-5\" is out of range",
        ),
    ];
    for (file, expected) in cases {
        let (msg, err) = strict_error(file);
        assert!(
            msg.ends_with(expected),
            "{file}:\n  got      {msg}\n  expected …{expected}"
        );
        assert!(matches!(err, SwfError::Line { .. }), "{file}: {err:?}");
    }
    let (_, err) = strict_error("not_a_number.swf");
    assert_eq!(
        err.line_error(),
        Some(&LineError::NotANumber {
            field: 5,
            value: "abc".into()
        })
    );
}

/// The header is a comment: a typed value that is not a number is left
/// unset with a note, and the trace still loads in strict mode.
#[test]
fn unreadable_header_values_are_notes_not_errors() {
    let w = load_workload(&fixture("bad_header.swf"), &ExtractOptions::new()).unwrap();
    let h = w.header.as_ref().unwrap();
    assert_eq!((h.max_procs, w.machine_procs, w.jobs.len()), (None, None, 1));
    let notes: Vec<String> = h.value_notes.iter().map(|n| n.at("bad_header.swf")).collect();
    assert_eq!(
        notes,
        ["bad_header.swf:1: header MaxProcs: \"many\" is not a whole number ≥ 0, so MaxProcs is left unset"]
    );
    let w = load_workload(&fixture("bad_bool.swf"), &ExtractOptions::new()).unwrap();
    let h = w.header.as_ref().unwrap();
    assert_eq!(h.allow_overuse, None);
    assert_eq!(
        h.value_notes[0].to_string(),
        "header AllowOveruse: \"maybe\" is not Yes or No, so AllowOveruse is left unset"
    );
}

/// A CTC-style header (free text after MaxNodes, MaxProcs unreadable): the
/// machine size comes from MaxNodes' leading number.
#[test]
fn machine_size_from_the_first_usable_of_maxprocs_and_maxnodes() {
    let trace = "; MaxJobs: 122,055\n\
                 ; MaxRuntime: N/A\n\
                 ; MaxNodes: 338 (batch partition; 512 total)\n\
                 ; MaxProcs: N/A\n\
                 1 0 5 100 300 -1 -1 300 300 -1 1 1 1 -1 -1 -1 -1 -1\n";
    let w = interstice_swf::load_workload_from(trace.as_bytes(), "ctc.swf", &ExtractOptions::new()).unwrap();
    assert_eq!(w.machine_procs, Some(338));
    let h = w.header.as_ref().unwrap();
    assert_eq!(
        (h.max_jobs, h.max_runtime, h.max_nodes, h.max_procs),
        (Some(122_055), None, Some(338), None)
    );
    let notes: Vec<String> = h.value_notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        notes,
        [
            "header MaxRuntime: \"N/A\" is not a whole number ≥ 0, so MaxRuntime is left unset",
            "header MaxNodes: \"338 (batch partition; 512 total)\" read as 338, the rest ignored",
            "header MaxProcs: \"N/A\" is not a whole number ≥ 0, so MaxProcs is left unset",
        ]
    );
    // Data lines stay strict.
    let bad = format!("{trace}2 0 5 abc 300 -1 -1 300 300 -1 1 1 1 -1 -1 -1 -1 -1\n");
    let err =
        interstice_swf::load_workload_from(std::io::Cursor::new(bad), "ctc.swf", &ExtractOptions::new())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ctc.swf:6: field 4 (run time): \"abc\" is not a number"
    );
}

#[test]
fn lenient_mode_skips_counts_and_reports() {
    let opts = ExtractOptions {
        mode: Strictness::Lenient,
        ..ExtractOptions::new()
    };
    let w = load_workload(&fixture("not_a_number.swf"), &opts).unwrap();
    assert_eq!(w.jobs.iter().map(|j| j.id.0).collect::<Vec<_>>(), vec![1, 3]);
    assert_eq!((w.stats.bad_lines, w.stats.skipped()), (1, 1));
    assert_eq!(w.stats.problems.len(), 1);
    assert!(w.stats.problems[0]
        .ends_with("not_a_number.swf:3: field 5 (allocated processors): \"abc\" is not a number"));
}

#[test]
fn missing_file_names_the_path() {
    let err = SwfReader::open(&fixture("no-such-file.swf"), Strictness::Strict).unwrap_err();
    assert!(err.to_string().contains("no-such-file.swf"), "{err}");
}

#[test]
fn gzip_is_detected_by_content() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(fixture("rules.swf")).unwrap();
    // A gzip file without the .gz name, written as two gzip members.
    let path = dir.path().join("rules-compressed.swf");
    let mut file = std::fs::File::create(&path).unwrap();
    let half = plain.len() / 2;
    for part in [&plain[..half], &plain[half..]] {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(part).unwrap();
        file.write_all(&gz.finish().unwrap()).unwrap();
    }
    drop(file);
    let a = load_workload(&path, &clip8()).unwrap();
    let b = load_workload(&fixture("rules.swf"), &clip8()).unwrap();
    assert_eq!(a.jobs, b.jobs);
    assert_eq!(a.header, b.header);
}
