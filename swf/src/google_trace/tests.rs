//! The Google reader on hand-written `task_events` and `machine_events`
//! lines, each expected value worked out by hand from the rules of the
//! module's documentation.

use super::*;

/// A `task_events` line: time in seconds (written in µs), job, task,
/// event type, user, priority, CPU and memory requests (as written).
fn event(secs: u64, job: u64, task: u64, kind: u8, prio: &str, cpu: &str, mem: &str) -> String {
    format!(
        "{},,{job},{task},,{kind},user{job},2,{prio},{cpu},{mem},0.001,0\n",
        secs * 1_000_000
    )
}

fn scenario() -> String {
    [
        event(0, 2, 0, 0, "0", "0.02", "0.01"), // before the trace window: submitted at 0
        event(0, 2, 0, 1, "0", "", ""),         // …and running to the end: a service
        event(1, 1, 0, 0, "9", "0.125", "0.0625"),
        event(2, 1, 0, 1, "9", "", ""),    // runs 2..12
        event(2, 3, 1, 0, "2", "", "0.1"), // never a CPU request
        event(3, 1, 1, 0, "5", "0.25", "0.25"),
        event(3, 3, 1, 1, "2", "", ""),
        event(4, 1, 1, 1, "5", "", ""), // runs 4..10, then killed
        event(4, 3, 1, 4, "2", "", ""),
        event(5, 2, 1, 0, "1", "0.5", "0.5"),
        event(6, 2, 1, 1, "1", "", ""),
        event(7, 3, 0, 0, "11", "0.1", "0.1"), // pending to the end
        event(8, 2, 1, 3, "1", "", ""),        // failed: dropped
        event(10, 1, 1, 5, "5", "", ""),
        event(12, 1, 0, 2, "9", "", ""), // evicted after 10 s…
        event(13, 1, 0, 0, "9", "", ""), // …resubmitted
        event(15, 1, 0, 1, "9", "", ""), // runs 15..45
        event(20, 4, 0, 0, "1", "0.5", "0.5"),
        event(21, 4, 0, 7, "10", "0.25", ""), // updated while pending: now gold, 0.25 CPU
        event(22, 4, 0, 1, "10", "", ""),
        event(23, 4, 0, 4, "10", "", ""),
        event(45, 1, 0, 4, "9", "", ""),
    ]
    .concat()
}

fn read(text: &str) -> Result<(Vec<TraceRequest>, GoogleReport), SwfError> {
    let mut events = GoogleTaskEvents::new();
    events.read(text.as_bytes(), "part-00000-of-00500.csv")?;
    Ok(events.finish())
}

#[test]
fn evicted_then_finished_task_runs_the_sum_of_its_spans() {
    let (rows, _) = read(&scenario()).unwrap();
    let task = rows
        .iter()
        .find(|r| r.user == "user1" && r.class == "gold")
        .unwrap();
    // Submitted at 1 s; ran 2..12 (evicted) and 15..45 (finished): 10 + 30 s.
    assert_eq!(task.submit, 1.0);
    assert_eq!(task.duration, Some(40.0));
    assert_eq!((task.cpu, task.memory, task.instances), (0.125, 0.0625, 1));
}

#[test]
fn killed_kept_failed_and_pending_dropped_running_a_service() {
    let (rows, report) = read(&scenario()).unwrap();
    let summary: Vec<(f64, Option<f64>, &str, &str)> = rows
        .iter()
        .map(|r| (r.submit, r.duration, r.class.as_str(), r.user.as_str()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (0.0, None, "bronze", "user2"),      // task (2,0): running at the end
            (1.0, Some(40.0), "gold", "user1"),  // task (1,0)
            (3.0, Some(6.0), "silver", "user1"), // task (1,1): killed after 4..10
            (20.0, Some(1.0), "gold", "user4"),  // task (4,0): priority 10 after the update
        ]
    );
    assert_eq!(rows[3].cpu, 0.25, "the last CPU request given");
    assert_eq!(rows[3].memory, 0.5, "an empty memory column keeps the one before");
    assert_eq!(
        report,
        GoogleReport {
            events: 22,
            tasks: 7,
            finished: 2,
            killed: 1,
            running_at_end: 1,
            dropped_failed: 1,
            dropped_never_ran: 1,
            dropped_no_request: 1,
            ..GoogleReport::default()
        }
    );
}

#[test]
fn priorities_to_classes_as_the_paper_defines() {
    let classes: Vec<&str> = (0..=11).map(class_of_priority).collect();
    let mut expected = vec!["bronze"; 2];
    expected.extend(["silver"; 7]);
    expected.extend(["gold"; 3]);
    assert_eq!(classes, expected);
}

#[test]
fn bad_lines_name_the_file_line_and_column() {
    let short = read("1,,1,0,,0,u,2,9,0.1\n").unwrap_err().to_string();
    assert!(
        short.starts_with("part-00000-of-00500.csv:1: column any: 10 columns"),
        "{short}"
    );
    let kind = read(&format!(
        "{}{}",
        event(1, 1, 0, 0, "9", "0.1", "0.1"),
        event(2, 1, 0, 9, "9", "", "")
    ))
    .unwrap_err()
    .to_string();
    assert!(
        kind.starts_with("part-00000-of-00500.csv:2: column event type: 9 is not an event type"),
        "{kind}"
    );
    let prio = read(&event(1, 1, 0, 0, "12", "0.1", "0.1"))
        .unwrap_err()
        .to_string();
    assert!(
        prio.contains("column priority: \"12\" is not a priority"),
        "{prio}"
    );
    let cpu = read(&event(1, 1, 0, 0, "1", "-0.1", "0.1"))
        .unwrap_err()
        .to_string();
    assert!(cpu.contains("column CPU request: \"-0.1\""), "{cpu}");
    let time = read(",,1,0,,0,u,2,9,0.1,0.1,0,0\n").unwrap_err().to_string();
    assert!(time.contains("column timestamp: is empty"), "{time}");
}

#[test]
fn several_files_continue_the_same_tasks() {
    let text = scenario();
    let lines: Vec<&str> = text.lines().collect();
    let (first, second) = lines.split_at(10);
    let mut events = GoogleTaskEvents::new();
    events
        .read(format!("{}\n", first.join("\n")).as_bytes(), "a")
        .unwrap();
    events
        .read(format!("{}\n", second.join("\n")).as_bytes(), "b")
        .unwrap();
    assert_eq!(events.finish(), read(&text).unwrap());
}

#[test]
fn machine_events_give_each_machine_its_last_capacity() {
    let text = "0,1,0,p,0.5,0.5\n0,2,0,p,1,1\n0,3,0,p,,\n100,1,1,,,\n200,1,0,p,0.5,0.25\n300,2,2,p,1,1\n";
    let pool = machine_events(text.as_bytes(), "machine_events.csv").unwrap();
    assert_eq!(
        pool.hosts,
        vec![
            Host {
                cpu: 0.5,
                memory: 0.25
            },
            Host {
                cpu: 1.0,
                memory: 1.0
            }
        ]
    );
    assert_eq!((pool.removed, pool.unknown_capacity), (1, 1));
    let bad = machine_events("0,x,0,p,1,1\n".as_bytes(), "m.csv")
        .unwrap_err()
        .to_string();
    assert!(bad.starts_with("m.csv:1: column machine ID: \"x\""), "{bad}");
}
