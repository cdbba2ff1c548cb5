//! Service classes from the command line: `interstice qos run` on the
//! shipped Kubernetes validation scenarios, `interstice replay --eviction`
//! on a shared trace (HPC decisions unchanged, the tables and summary
//! consistent), and clear errors on bad files and flags.

use interstice_tests::{assert_failure_mentions, assert_success, kth_trace, repo_root, scratch_dir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("run interstice")
}

fn summary(dir: &Path) -> Value {
    interstice_tests::read_summary(dir)
}

fn class<'v>(summary: &'v Value, name: &str) -> &'v Value {
    summary["classes"]
        .as_array()
        .expect("classes is an array")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no class {name} in {summary}"))
}

/// requests.csv's rows as maps from column to field.
fn rows(dir: &Path, file: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn the_first_validation_scenario_priority_against_qos_driven() {
    let priority = scratch_dir("qos-cli", "test1-priority");
    let out = priority.to_str().unwrap();
    let run = interstice(&[
        "qos",
        "run",
        "examples/qos-kubernetes-test1.yaml",
        "--eviction",
        "priority",
        "--out",
        out,
    ]);
    assert_success(&run);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("priority eviction") && stdout.contains("bronze"),
        "{stdout}"
    );
    let s = summary(&priority);
    assert_eq!(s["qos"]["eviction"], "priority");
    let bronze: Vec<f64> = rows(&priority, "requests.csv")
        .iter()
        .filter(|r| r["class"] == "bronze")
        .map(|r| r["availability"].parse().unwrap())
        .collect();
    assert_eq!(bronze.len(), 96);
    assert_eq!(bronze.iter().filter(|&&a| a < 0.1).count(), 56, "{bronze:?}");
    assert_eq!(bronze.iter().filter(|&&a| a > 0.9).count(), 40, "{bronze:?}");

    let qos = scratch_dir("qos-cli", "test1-qos");
    assert_success(&interstice(&[
        "qos",
        "run",
        "examples/qos-kubernetes-test1.yaml",
        "--out",
        qos.to_str().unwrap(),
        "--quiet",
    ]));
    let q = summary(&qos);
    assert_eq!(q["qos"]["eviction"], "qos-driven", "the file's policy");
    for (name, slo) in [("silver", 0.9), ("bronze", 0.5)] {
        let a = &class(&q, name)["availability"];
        let (min, max) = (a["min"].as_f64().unwrap(), a["max"].as_f64().unwrap());
        assert!(slo - min < 0.05 && max - slo < 0.05, "{name}: {a}");
    }
    // The baseline pays more, and its bronze class is less fair.
    assert!(s["qos"]["penalty"].as_f64().unwrap() > q["qos"]["penalty"].as_f64().unwrap());
    let gini = |s: &Value| class(s, "bronze")["gini_mean"].as_f64().unwrap();
    assert!(gini(&s) > 10.0 * gini(&q), "{} vs {}", gini(&s), gini(&q));
    // The per-window table agrees with the summary's Gini.
    let windows = rows(&qos, "windows.csv");
    let bronze_windows: Vec<f64> = windows
        .iter()
        .filter(|w| w["class"] == "bronze" && w["active"].parse::<u32>().unwrap() >= 2)
        .map(|w| w["gini"].parse().unwrap())
        .collect();
    let mean = bronze_windows.iter().sum::<f64>() / bronze_windows.len() as f64;
    assert!((mean - gini(&q)).abs() < 1e-9, "{mean} vs {}", gini(&q));
}

#[test]
fn a_replay_with_classes_keeps_the_hpc_schedule_and_accounts_every_cloud_job() {
    let trace = kth_trace();
    let trace = trace.to_str().unwrap();
    let common = [
        trace,
        "--policy",
        "easy",
        "--conv",
        "60",
        "--until",
        "604800",
        "--cloud-interval",
        "300",
        "--cloud-procs",
        "1,2",
        "--cloud-runtime",
        "uniform:60:1800",
        "--cloud-walltime",
        "1800",
        "--quiet",
    ];
    let hpc_only = scratch_dir("qos-cli", "hpc-only");
    let mut args = vec!["replay"];
    args.extend_from_slice(&common[..7]);
    args.extend(["--quiet", "--out", hpc_only.to_str().unwrap()]);
    assert_success(&interstice(&args));
    for policy in ["priority", "qos-driven", "owner-share"] {
        let out = scratch_dir("qos-cli", policy);
        let mut args = vec!["replay"];
        args.extend_from_slice(&common);
        args.extend(["--eviction", policy, "--out", out.to_str().unwrap()]);
        assert_success(&interstice(&args));
        // HPC decisions are those of the replay without cloud jobs.
        assert_eq!(
            std::fs::read(out.join("jobs.csv")).unwrap(),
            std::fs::read(hpc_only.join("jobs.csv")).unwrap(),
            "{policy}"
        );
        let s = summary(&out);
        let requests = rows(&out, "requests.csv");
        // A cloud job every 300 s over the HPC trace's first week.
        assert!(requests.len() > 1_500, "{}", requests.len());
        assert_eq!(s["qos"]["requests"].as_u64().unwrap() as usize, requests.len());
        let per_class: u64 = s["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["requests"].as_u64().unwrap())
            .sum();
        assert_eq!(per_class as usize, requests.len());
        let penalty: f64 = requests
            .iter()
            .map(|r| r["penalty"].parse::<f64>().unwrap())
            .sum();
        assert!((penalty - s["qos"]["penalty"].as_f64().unwrap()).abs() < 1e-6 * penalty.max(1.0));
        assert!(
            s["qos"]["preemptions_for_capacity"].as_u64().unwrap() > 0,
            "HPC work takes the area back"
        );
        assert_eq!(s["qos"]["on_preempt"], "restart");
        // Every request's time in the system adds up; completed ones ran their whole run time.
        for r in &requests {
            let f = |k: &str| r[k].parse::<f64>().unwrap();
            if !r["end"].is_empty() {
                let in_system = f("end") - f("submit");
                let sum = f("run_time") + f("discarded_time") + f("pending_time");
                assert!((in_system - sum).abs() < 1e-3, "{r:?}");
            }
        }
        // The replay's own summary is still there, first, unchanged in shape.
        assert_eq!(s["hpc_jobs"], summary(&hpc_only)["hpc_jobs"]);
    }
}

/// Review defects: a cloud job's work is how long it runs in Batsim (its run
/// time cut at its walltime), and a replay into a directory a class replay
/// used leaves none of that run's tables behind.
#[test]
fn a_request_runs_at_most_its_walltime_and_no_table_outlives_its_run() {
    let trace = kth_trace();
    let out = scratch_dir("qos-cli", "walltime");
    let dir = out.to_str().unwrap();
    let base = [
        "replay",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--conv",
        "60",
        "--until",
        "172800",
    ];
    let mut args = base.to_vec();
    args.extend([
        "--cloud-interval",
        "600",
        "--cloud-procs",
        "1",
        "--cloud-runtime",
        "exp:600",
        "--cloud-walltime",
        "300",
        "--eviction",
        "priority",
        "--quiet",
        "--out",
        dir,
    ]);
    assert_success(&interstice(&args));
    let requests = rows(&out, "requests.csv");
    assert!(requests.len() > 100);
    for r in requests.iter().filter(|r| !r["end"].is_empty()) {
        let ran: f64 = r["run_time"].parse().unwrap();
        assert!(
            ran <= 300.0 + 1e-6,
            "a request ran past its 300 s walltime: {r:?}"
        );
    }
    let mut args = base.to_vec();
    args.extend(["--quiet", "--force", "--out", dir]);
    assert_success(&interstice(&args));
    assert!(!out.join("requests.csv").exists() && !out.join("windows.csv").exists());
}

#[test]
fn bad_files_and_flags_are_clear_errors() {
    let dir = scratch_dir("qos-cli", "errors");
    let bad = dir.join("bad.yaml");
    // Each bad file, and what its error must name; all are bad input (exit 4).
    let cases: [(&str, &[&str]); 4] = [
        (
            "hosts: { count: 2, slots: 4 }\nclasses:\n  - { name: gold, slo: 1.5 }\n",
            &["bad.yaml", "classes[0].slo", "(0, 1]"],
        ),
        (
            "hosts: { count: 2, slots: 4 }\nrequests:\n  - { class: platinum }\n",
            &["requests[0].class", "platinum", "gold, silver, bronze"],
        ),
        (
            "requests:\n  - { class: gold }\n",
            &["hosts", "count: 20, slots: 10"],
        ),
        (
            "hosts: [4]\nrequests:\n  - { procs: 8 }\n",
            &["requests[0].procs", "1 to 4 slots"],
        ),
    ];
    for (text, needles) in cases {
        std::fs::write(&bad, text).unwrap();
        let out = interstice(&["qos", "run", bad.to_str().unwrap()]);
        assert_failure_mentions(&out, needles);
        assert_eq!(out.status.code(), Some(4), "bad input: {text}");
    }

    let out = interstice(&[
        "qos",
        "run",
        "examples/qos-kubernetes-test2.yaml",
        "--eviction",
        "random",
    ]);
    assert_failure_mentions(&out, &["qos-driven", "owner-share"]);
    assert_eq!(out.status.code(), Some(2));

    let trace = kth_trace();
    let out_dir = dir.join("replay");
    let replay = |extra: &[&str]| {
        let mut args = vec![
            "replay",
            trace.to_str().unwrap(),
            "--policy",
            "easy",
            "--until",
            "86400",
            "--out",
            out_dir.to_str().unwrap(),
            "--eviction",
            "priority",
        ];
        args.extend_from_slice(extra);
        interstice(&args)
    };
    let out = replay(&[]);
    assert_failure_mentions(&out, &["--cloud-interval"]);
    assert_eq!(out.status.code(), Some(2));
    let out = replay(&["--cloud-interval", "60", "--scheduling", "shared-queue"]);
    assert_failure_mentions(&out, &["shared-queue", "hpc-first"]);
    let out = replay(&["--cloud-interval", "60", "--admission", "reject-predicted"]);
    assert_failure_mentions(&out, &["--admission"]);
    let out = replay(&["--cloud-interval", "60", "--predictor", "thesis"]);
    assert_failure_mentions(&out, &["--predictor", "drop"]);
    assert_eq!(out.status.code(), Some(2));
    // A bad class file is refused before the HPC simulation, as bad input.
    let bad_replay = dir.join("bad-replay.yaml");
    std::fs::write(&bad_replay, "watchdog: 0.001\n").unwrap();
    let out = replay(&["--cloud-interval", "60", "--qos", bad_replay.to_str().unwrap()]);
    assert_failure_mentions(&out, &["bad-replay.yaml", "watchdog", "minimum"]);
    assert_eq!(out.status.code(), Some(4));
    // A platform's own keys in a replay's class file.
    let out = replay(&[
        "--cloud-interval",
        "60",
        "--qos",
        "examples/qos-kubernetes-test2.yaml",
    ]);
    assert_failure_mentions(&out, &["qos-kubernetes-test2.yaml", "hosts", "--conv"]);
    assert_eq!(out.status.code(), Some(4));
}

/// Classes carried by the workload: `swf inject --qos FILE` labels every
/// cloud job with the class and tenant `replay --qos FILE` would draw, so
/// replaying the labelled workload gives exactly the run that injects the
/// same jobs itself; a label changed by hand is what that job gets, and
/// nothing else moves; labels the class file lacks, and labels on HPC work,
/// are bad input naming the job.
#[test]
fn classes_carried_by_the_workload_are_the_classes_scheduled() {
    let labels = Labelled::inject();
    let requests = labels.replayed_as_drawn();
    labels.a_relabelled_job_alone_changes_class(&requests);
    labels.bad_labels_name_the_job();
    // `swf convert` keeps the labels of a JSON workload.
    let converted = labels.path("converted.json");
    assert_success(&interstice(&[
        "swf",
        "convert",
        &labels.labelled,
        "-o",
        &converted,
        "--quiet",
    ]));
    let back: Value = serde_json::from_str(&std::fs::read_to_string(&converted).unwrap()).unwrap();
    assert_eq!(back["jobs"], labels.json["jobs"]);
}

/// The cloud jobs' shape both `swf inject` and `replay` draw: `swf
/// inject`'s flag, `replay`'s flag, the value.
const CLOUD_SHAPE: [(&str, &str, &str); 4] = [
    ("--interval", "--cloud-interval", "300"),
    ("--walltime", "--cloud-walltime", "1800"),
    ("--cloud-procs", "--cloud-procs", "1,2"),
    ("--runtime", "--cloud-runtime", "uniform:60:1800"),
];

/// A week of KTH with cloud jobs labelled by `swf inject --qos`, and the
/// files around it.
struct Labelled {
    dir: std::path::PathBuf,
    /// The class file (three classes, two tenants).
    classes: String,
    /// The first week of KTH as an SWF of its own.
    trace: String,
    /// The labelled Batsim JSON workload `swf inject` wrote, and its contents.
    labelled: String,
    json: Value,
    /// The id of the cloud job the test relabels (the eighth).
    target: u64,
}

impl Labelled {
    /// Writes the class file and the week of KTH, and injects labelled cloud
    /// jobs: every cloud job has a class and a tenant, no HPC job has one.
    fn inject() -> Labelled {
        let dir = scratch_dir("qos-cli", "labels");
        let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
        let classes = path("classes.yaml");
        std::fs::write(
            &classes,
            "seed: 11\nclasses:\n  - { name: gold, slo: 1.0 }\n  - { name: silver, slo: 0.9 }\n  \
             - { name: bronze, slo: 0.5, weight: 2 }\ntenants:\n  - { name: physics, share: 40 }\n  \
             - { name: biology, share: 20, weight: 3 }\n",
        )
        .unwrap();
        let trace = path("kth.swf");
        std::fs::write(&trace, first_week_of_kth()).unwrap();
        let labelled = path("labelled.json");
        assert_success(&interstice(&inject_args(&trace, &classes, &labelled)));
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&labelled).unwrap()).unwrap();
        let jobs = json["jobs"].as_array().unwrap();
        let cloud_jobs: Vec<&Value> = jobs.iter().filter(|j| j["kind"] == "cloud").collect();
        assert!(cloud_jobs.len() > 1_500, "{}", cloud_jobs.len());
        assert!(cloud_jobs
            .iter()
            .all(|j| j["class"].is_string() && j["tenant"].is_string()));
        assert!(jobs
            .iter()
            .filter(|j| j["kind"] == "hpc")
            .all(|j| j.get("class").is_none()));
        let target = cloud_jobs[7]["id"].as_u64().unwrap();
        Labelled {
            dir,
            classes,
            trace,
            labelled,
            json,
            target,
        }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }

    fn cloud_jobs(&self) -> Vec<&Value> {
        self.json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["kind"] == "cloud")
            .collect()
    }

    /// `replay` of `workload` into `out` with the class file and `extra` flags.
    fn replay(&self, workload: &str, out: &str, extra: &[&str]) -> Output {
        let mut args = vec![
            "replay",
            workload,
            "--policy",
            "easy",
            "--conv",
            "60",
            "--eviction",
            "owner-share",
            "--qos",
            &self.classes,
            "--quiet",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        interstice(&args)
    }

    /// Replaying the labelled workload gives the run that injects the same
    /// jobs itself, byte for byte, each request with its job's labels.
    /// Returns that run's requests.
    fn replayed_as_drawn(&self) -> Vec<std::collections::HashMap<String, String>> {
        let (drawn, carried) = (self.path("drawn"), self.path("carried"));
        let injecting: Vec<&str> = CLOUD_SHAPE
            .iter()
            .flat_map(|&(_, flag, value)| [flag, value])
            .collect();
        assert_success(&self.replay(&self.trace, &drawn, &injecting));
        assert_success(&self.replay(&self.labelled, &carried, &[]));
        for file in ["requests.csv", "windows.csv"] {
            assert_eq!(
                std::fs::read(self.dir.join("drawn").join(file)).unwrap(),
                std::fs::read(self.dir.join("carried").join(file)).unwrap(),
                "{file}"
            );
        }
        let requests = rows(&self.dir.join("carried"), "requests.csv");
        for (job, row) in self.cloud_jobs().iter().zip(&requests) {
            assert_eq!(job["id"].to_string(), row["id"]);
            assert_eq!(job["class"], row["class"].as_str());
            assert_eq!(job["tenant"], row["tenant"].as_str());
        }
        requests
    }

    /// One job relabelled by hand (its tenant removed): it alone changes
    /// class, to the class as written, its tenant still drawn.
    fn a_relabelled_job_alone_changes_class(&self, requests: &[std::collections::HashMap<String, String>]) {
        let target = self.target;
        let before = self.cloud_jobs()[7]["class"].as_str().unwrap().to_string();
        let other = if before == "gold" { "bronze" } else { "gold" };
        let mut edited = self.json.clone();
        for job in edited["jobs"].as_array_mut().unwrap() {
            if job["id"] == target {
                job["class"] = other.into();
                job.as_object_mut().unwrap().remove("tenant");
            }
        }
        let relabelled = self.path("relabelled.json");
        std::fs::write(&relabelled, edited.to_string()).unwrap();
        assert_success(&self.replay(&relabelled, &self.path("moved"), &[]));
        let after = rows(&self.dir.join("moved"), "requests.csv");
        let by_id = |rows: &[std::collections::HashMap<String, String>]| {
            rows.iter()
                .map(|r| (r["id"].clone(), (r["class"].clone(), r["tenant"].clone())))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let (was, now) = (by_id(requests), by_id(&after));
        for (id, labels) in &now {
            if *id == target.to_string() {
                assert_eq!(labels, &(other.to_string(), was[id].1.clone()));
            } else {
                assert_eq!(labels, &was[id], "job {id}");
            }
        }
    }

    /// A class the file lacks (in `replay` and in `swf inject`), and a class
    /// on an HPC job: bad input (exit status 4) naming the file and the job.
    fn bad_labels_name_the_job(&self) {
        let target = self.target;
        let mut bad = self.json.clone();
        bad["jobs"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|j| j["id"] == target)
            .unwrap()["class"] = "platinum".into();
        let bad_json = self.path("bad.json");
        std::fs::write(&bad_json, bad.to_string()).unwrap();
        let out = self.replay(&bad_json, &self.path("bad"), &[]);
        assert_failure_mentions(
            &out,
            &[
                "bad.json",
                &format!("cloud job {target}"),
                "platinum",
                "gold, silver, bronze",
            ],
        );
        assert_eq!(out.status.code(), Some(4));
        let out = interstice(&inject_args(&bad_json, &self.classes, &self.path("again.json")));
        assert_failure_mentions(
            &out,
            &["bad.json", &format!("job {target}"), "platinum", "classes.yaml"],
        );
        assert_eq!(out.status.code(), Some(4));
        let mut hpc = self.json.clone();
        let first_hpc = hpc["jobs"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|j| j["kind"] == "hpc")
            .unwrap();
        first_hpc["class"] = "gold".into();
        let hpc_id = first_hpc["id"].clone();
        let hpc_json = self.path("hpc.json");
        std::fs::write(&hpc_json, hpc.to_string()).unwrap();
        let out = self.replay(&hpc_json, &self.path("hpc"), &[]);
        assert_failure_mentions(
            &out,
            &[
                "hpc.json",
                &format!("job {hpc_id}"),
                "HPC job",
                "\"kind\": \"cloud\"",
            ],
        );
        assert_eq!(out.status.code(), Some(4));
    }
}

/// `swf inject` of `workload` with the cloud jobs of [`CLOUD_SHAPE`], labelled
/// from `classes`, into `out`.
fn inject_args<'a>(workload: &'a str, classes: &'a str, out: &'a str) -> Vec<&'a str> {
    let mut args = vec!["swf", "inject", workload];
    args.extend(CLOUD_SHAPE.iter().flat_map(|&(flag, _, value)| [flag, value]));
    args.extend(["--quiet", "--qos", classes, "-o", out]);
    args
}

/// The first week of KTH as SWF text (header kept), so that both injections
/// span the same HPC jobs.
fn first_week_of_kth() -> String {
    let kth = kth_trace();
    let cat = interstice(&["swf", "cat", kth.to_str().unwrap()]);
    assert_success(&cat);
    let text = String::from_utf8(cat.stdout).unwrap();
    let submit = |line: &str| -> Option<f64> { line.split_whitespace().nth(1)?.parse().ok() };
    let first = text
        .lines()
        .filter(|l| !l.starts_with(';'))
        .find_map(submit)
        .unwrap();
    text.lines()
        .filter(|line| line.starts_with(';') || submit(line).is_some_and(|s| s < first + 604_800.0))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Seed 002's heterogeneous OSEP on the two-machine example: big takes the
/// slow machine at the update at 300 s; small's tasks end at 600 (100 %)
/// and 1200 (50 %), big's at 1500 (50 %): `SU` 50 and 75 in the table and
/// in `summary.json`. A negative speed is an error naming file, line, field.
#[test]
fn osep_reports_each_tenants_satisfaction() {
    let dir = scratch_dir("qos-cli", "osep");
    let run = interstice(&[
        "qos",
        "run",
        "examples/qos-osep-hetero.yaml",
        "--eviction",
        "osep",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_success(&run);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("osep eviction: 1 preemptions"), "{stdout}");
    let small = stdout
        .lines()
        .find(|l| l.starts_with("small"))
        .expect("a line for small");
    assert!(small.trim_end().ends_with("75.00"), "{stdout}");
    let s = summary(&dir);
    assert_eq!(s["qos"]["on_preempt"], "checkpoint");
    let tenants = s["qos"]["tenants"].as_array().expect("tenants");
    let su: Vec<&Value> = tenants.iter().map(|t| &t["satisfaction"]).collect();
    assert_eq!(su, [&Value::from(50.0), &Value::from(75.0)]);
    let discarded: Vec<String> = rows(&dir, "requests.csv")
        .iter()
        .map(|r| r["discarded_time"].clone())
        .collect();
    assert_eq!(discarded, ["0", "300", "0"]);

    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "eviction: osep\nhosts:\n  - { slots: 1, speed: 2.0 }\n  - { slots: 1, speed: -1.5 }\nrequests: [{ count: 1, duration: 5 }]\n",
    )
    .unwrap();
    let run = interstice(&["qos", "run", bad.to_str().unwrap()]);
    assert_failure_mentions(&run, &["bad.yaml:4:", "hosts[1].speed", "-1.5 is not a speed"]);
}

/// `qos osep-eval` writes one row per case, algorithm and user (12 cases ×
/// 2 algorithms × 4 users), each with its runs and mean satisfaction.
#[test]
fn osep_eval_writes_every_case() {
    let dir = scratch_dir("qos-cli", "osep-eval");
    let run = interstice(&[
        "qos",
        "osep-eval",
        "--out",
        dir.to_str().unwrap(),
        "--repetitions",
        "2",
    ]);
    assert_success(&run);
    let rows = rows(&dir, "osep-eval.csv");
    assert_eq!(rows.len(), 96);
    assert!(
        rows.iter().all(|r| r["runs"] == "2" && !r["su_mean"].is_empty()),
        "{rows:?}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("osep-eval.json")).unwrap()).unwrap();
    assert_eq!(json["settings"]["repetitions"], 2);
}

/// A `qos run` with CPU and memory, constraints, requests of several
/// instances and host events: one row per request (the two-instance
/// requests' run time is both instances' 100 s), the failure's preemptions
/// counted apart; an event on a host that does not exist is bad input
/// naming the file and the event.
#[test]
fn hosts_with_memory_instances_and_host_events() {
    let dir = scratch_dir("qos-cli", "multi");
    let file = dir.join("multi.yaml");
    std::fs::write(
        &file,
        "hosts:\n  - { cpu: 2, memory: 4 }\n  - { cpu: 2, memory: 4, labels: { arch: arm } }\n\
         events:\n  - { at: 50, host: 0, event: fail }\n  - { at: 80, host: 0, event: recover }\n\
         \x20 - { at: 100, event: add, host: { cpu: 2, memory: 4 } }\n\
         requests:\n  - { count: 3, cpu: 1, memory: 2, instances: 2, duration: 100 }\n\
         \x20 - { class: bronze, constraints: { arch: arm }, duration: 50 }\n",
    )
    .unwrap();
    let out = dir.join("out");
    assert_success(&interstice(&[
        "qos",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]));
    let rows = rows(&out, "requests.csv");
    assert_eq!(rows.len(), 4);
    for r in &rows[..3] {
        assert_eq!(r["run_time"], "200", "{r:?}");
    }
    assert_eq!(rows[3]["run_time"], "50");
    let qos = &summary(&out)["qos"];
    assert_eq!(qos["host_events"], 3);
    assert!(qos["preemptions_for_failures"].as_u64().unwrap() >= 1, "{qos}");
    assert_eq!(qos["host_memory"], serde_json::json!([4, 4]));
    std::fs::write(
        &file,
        "hosts: [2]\nevents: [{ at: 600, host: 9, event: fail }]\nrequests: [{ duration: 5 }]\n",
    )
    .unwrap();
    let out = interstice(&["qos", "run", file.to_str().unwrap()]);
    assert_failure_mentions(&out, &["multi.yaml", "events[0]", "host 9 does not exist"]);
}

/// Seed 001's study end to end on one small generated sample: study.json
/// has the three sizes, each with both policies' penalties, a heat map per
/// class whose quadrants add up to its requests, and the windows of every
/// contention level; requests.csv pairs every request at every size; the
/// report draws the heat maps, the penalty bars and the page. A study file
/// with hosts is refused naming the key.
#[test]
fn a_study_runs_end_to_end_and_reports() {
    let dir = scratch_dir("qos-cli", "study");
    let file = dir.join("study.yaml");
    std::fs::write(
        &file,
        "study: { samples: 1, seed: 3, scale: 100 }\nsample: { horizon_days: 1, user_share: 0.01 }\nallocation_time: 0\non_preempt: resume\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = interstice(&[
        "qos",
        "study",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&run);
    let study: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("study.json")).unwrap()).unwrap();
    let sizes = study["sizes"].as_array().unwrap();
    assert_eq!(
        sizes
            .iter()
            .map(|s| s["size"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["N", "0.9N", "0.8N"]
    );
    let requests = study["samples"][0]["requests"].as_u64().unwrap();
    assert!(requests > 0);
    let hosts = &study["samples"][0]["hosts"];
    assert!(
        hosts["N"].as_u64() >= hosts["0.9N"].as_u64() && hosts["0.9N"].as_u64() >= hosts["0.8N"].as_u64()
    );
    for s in sizes {
        assert!(s["penalty"]["priority"].as_f64().unwrap() >= 0.0);
        assert!(s["penalty"]["qos-driven"].as_f64().unwrap() >= 0.0);
        let counted: u64 = s["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["requests"].as_u64().unwrap())
            .sum();
        assert_eq!(
            counted + s["unpaired_requests"].as_u64().unwrap(),
            requests,
            "{s}"
        );
        for c in s["classes"].as_array().unwrap() {
            let squares: u64 = c["squares"]["counts_by_qos_driven_then_priority"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|row| row.as_array().unwrap().iter().map(|n| n.as_u64().unwrap()))
                .sum();
            assert_eq!(squares, c["requests"].as_u64().unwrap());
        }
        let windows: u64 = ["none", "low", "medium", "high"]
            .iter()
            .map(|l| s["windows"][l].as_u64().unwrap())
            .sum();
        assert!(windows > 0, "{s}");
    }
    let pairs = std::fs::read_to_string(out.join("requests.csv")).unwrap();
    assert_eq!(pairs.lines().count() as u64, 1 + 3 * requests);
    let report = interstice(&["report", out.to_str().unwrap()]);
    assert_success(&report);
    for figure in ["study-heatmaps", "study-penalty"] {
        assert!(
            out.join("report/figures").join(format!("{figure}.svg")).is_file(),
            "{figure}"
        );
        assert!(
            out.join("report/figures").join(format!("{figure}.png")).is_file(),
            "{figure}"
        );
    }
    let page = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(page.contains("Paired availabilities"), "the page has its tables");

    std::fs::write(&file, "study: { samples: 1 }\nhosts: { count: 2, slots: 4 }\n").unwrap();
    let bad = interstice(&[
        "qos",
        "study",
        file.to_str().unwrap(),
        "--out",
        dir.join("bad").to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(4));
    assert_failure_mentions(&bad, &["study.yaml", "hosts/requests"]);
}

/// `qos run --requests`: a run's requests from a request trace, CPU and
/// memory scaled into the hosts' units (a 0.25 request at scale 4 is one
/// slot); a file with requests of its own and a trace naming an unknown
/// class are refused.
#[test]
fn a_run_takes_its_requests_from_a_trace() {
    let dir = scratch_dir("qos-cli", "trace-run");
    let platform = dir.join("platform.yaml");
    std::fs::write(
        &platform,
        "hosts: [{ count: 2, cpu: 4, memory: 4 }]\nallocation_time: 0\nuntil: 100\n",
    )
    .unwrap();
    let trace = dir.join("trace.csv");
    std::fs::write(
        &trace,
        "submit,duration,cpu,memory,instances,class,user\n0,10,0.25,0.25,2,gold,a\n5,20,1,0.5,1,bronze,b\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = interstice(&[
        "qos",
        "run",
        platform.to_str().unwrap(),
        "--requests",
        trace.to_str().unwrap(),
        "--scale",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&run);
    let rows = rows(&out, "requests.csv");
    assert_eq!(rows.len(), 2, "one row per trace row");
    assert_eq!(rows[0]["procs"], "1");
    assert_eq!(rows[1]["class"], "bronze");
    assert_eq!(rows[0]["run_time"], "20", "two instances of 10 s");

    std::fs::write(
        &trace,
        "submit,duration,cpu,memory,instances,class,user\n0,10,0.25,0.25,1,platinum,a\n",
    )
    .unwrap();
    let bad = interstice(&[
        "qos",
        "run",
        platform.to_str().unwrap(),
        "--requests",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(4));
    assert_failure_mentions(&bad, &["trace.csv", "class `platinum`"]);
    let both = interstice(&[
        "qos",
        "run",
        "examples/qos-kubernetes-test1.yaml",
        "--requests",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(both.status.code(), Some(2));
    assert_failure_mentions(&both, &["not both"]);
}
