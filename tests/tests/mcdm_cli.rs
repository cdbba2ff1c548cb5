//! Seed 003's multi-criteria decision making from the command line:
//! `interstice mcdm weights` on the shipped judgements and on files a user
//! gets wrong.

use interstice_tests::{assert_failure_mentions, assert_success, repo_root, scratch_dir};
use serde_json::Value;
use std::process::{Command, Output};

fn interstice(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("run interstice")
}

/// The shipped judgements are Table 7's Network profile: bandwidth three
/// times as important as each of the three others, consistent (CR 0), so
/// the weights are exactly 1/6, 1/6, 1/6, 1/2.
#[test]
fn weights_of_the_shipped_judgements() {
    let out = interstice(&[
        "mcdm",
        "weights",
        "--judgements",
        "examples/judgements-network.yaml",
        "--json",
    ]);
    assert_success(&out);
    let v: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(
        v["criteria"],
        serde_json::json!(["cpu", "ram", "fragmentation", "bandwidth"])
    );
    for (name, want) in [
        ("cpu", 1.0 / 6.0),
        ("ram", 1.0 / 6.0),
        ("fragmentation", 1.0 / 6.0),
        ("bandwidth", 0.5),
    ] {
        let got = v["weights"][name].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{name}: {got}");
    }
    assert!(v["consistency_ratio"].as_f64().unwrap() < 1e-9);
    let text = interstice(&[
        "mcdm",
        "weights",
        "--judgements",
        "examples/judgements-network.yaml",
    ]);
    assert_success(&text);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("bandwidth      0.5000"), "{text}");
}

/// The convergence area's own criteria print in `--placement-weights`' form,
/// which `replay` takes back.
#[test]
fn area_criteria_print_as_placement_weights() {
    let dir = scratch_dir("mcdm-cli", "area");
    let file = dir.join("area.yaml");
    std::fs::write(
        &file,
        "criteria: [margin, completion, slack, fragmentation]\nmatrix:\n  - [1, 2, 2, 4]\n  - [1/2, 1, 1, 2]\n  - [1/2, 1, 1, 2]\n  - [1/4, 1/2, 1/2, 1]\n",
    )
    .unwrap();
    let out = interstice(&["mcdm", "weights", "--judgements", file.to_str().unwrap()]);
    assert_success(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "as --placement-weights: completion=0.2222,slack=0.2222,margin=0.4444,fragmentation=0.1111"
        ),
        "{text}"
    );
}

#[test]
fn inconsistent_or_malformed_judgements_exit_4_naming_the_file() {
    let dir = scratch_dir("mcdm-cli", "bad");
    let cycle = dir.join("cycle.yaml");
    std::fs::write(
        &cycle,
        "criteria: [a, b, c]\nmatrix: [[1, 9, 1/9], [1/9, 1, 9], [9, 1/9, 1]]\n",
    )
    .unwrap();
    let out = interstice(&["mcdm", "weights", "--judgements", cycle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    assert!(out.stdout.is_empty(), "refused judgements print no weights");
    assert_failure_mentions(&out, &["cycle.yaml", "inconsistent: consistency ratio", "> 0.1"]);
    let ragged = dir.join("ragged.yaml");
    std::fs::write(&ragged, "criteria: [a, b]\nmatrix: [[1, 3], [1/3]]\n").unwrap();
    let out = interstice(&["mcdm", "weights", "--judgements", ragged.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    assert_failure_mentions(&out, &["ragged.yaml", "row 2 (`b`) has 1 entries"]);
    let missing = interstice(&["mcdm", "weights", "--judgements", "/nonexistent/j.yaml"]);
    assert_eq!(missing.status.code(), Some(4));
    assert_failure_mentions(&missing, &["/nonexistent/j.yaml", "cannot read"]);
}

/// Seed 003's scheduler end to end on a k = 4 fat-tree: the generated file
/// reads back, every request is accounted for, the runs are the product of
/// the lists, and undefined values are null.
#[test]
fn fat_tree_then_run_writes_one_summary_row_per_combination() {
    let dir = scratch_dir("mcdm-cli", "run");
    let tree = dir.join("ft4.yaml");
    assert_success(&interstice(&[
        "mcdm",
        "fat-tree",
        "--k",
        "4",
        "-o",
        tree.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&tree).unwrap();
    assert_eq!(text.matches("{ name: p").count(), 16, "16 hosts");
    assert_eq!(text.matches("mbps: 1000").count(), 48, "48 links");
    let out_dir = dir.join("out");
    let out = interstice(&[
        "mcdm",
        "run",
        tree.to_str().unwrap(),
        "--generate",
        "network",
        "--count",
        "40",
        "--span",
        "10",
        "--rank",
        "topsis,bf",
        "--resubmit",
        "none,5",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_success(&out);
    let v: Value = serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        (v["hosts"].as_u64(), v["links"].as_u64(), v["requests"].as_u64()),
        (Some(16), Some(48), Some(40))
    );
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4, "2 ranks × 2 resubmission settings");
    for run in runs {
        let m = &run["metrics"];
        assert_eq!(
            m["placed"].as_u64().unwrap() + m["unplaced"].as_u64().unwrap(),
            40,
            "{run}"
        );
        for key in [
            "cpu_footprint",
            "server_fragmentation",
            "link_fragmentation",
            "request_utility",
        ] {
            let x = m[key].as_f64().unwrap_or_else(|| panic!("{key} in {run}"));
            assert!((0.0..=1.0).contains(&x), "{key} = {x}");
        }
    }
    assert_eq!(runs[0]["rank"], "topsis");
    assert_eq!(runs[0]["profile"], "flat");
    assert!(runs[0]["resubmit"].is_null(), "none is null");
    assert!(runs[2]["profile"].is_null(), "best fit has no weights");
    let txt = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    assert_eq!(txt.lines().count(), 5, "{txt}");
    // The shipped judgements give the run its weights.
    let judged = dir.join("judged");
    let out = interstice(&[
        "mcdm",
        "run",
        tree.to_str().unwrap(),
        "--generate",
        "temporal",
        "--count",
        "20",
        "--rank",
        "ahp",
        "--judgements",
        "examples/judgements-network.yaml",
        "--out",
        judged.to_str().unwrap(),
    ]);
    assert_success(&out);
    let v: Value = serde_json::from_slice(&std::fs::read(judged.join("summary.json")).unwrap()).unwrap();
    assert!(v["runs"][0]["profile"]
        .as_str()
        .unwrap()
        .ends_with("judgements-network.yaml"));
}

#[test]
fn bad_topology_or_requests_exit_4_naming_file_line_and_field() {
    let dir = scratch_dir("mcdm-cli", "bad-run");
    let file = dir.join("dc.yaml");
    std::fs::write(
        &file,
        "hosts:\n  - { name: h0, cpu: 4, ram: 8 }\nswitches: [s0]\nlinks:\n  - { a: h0, b: s9, mbps: 100 }\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let run = |file: &std::path::Path| {
        interstice(&[
            "mcdm",
            "run",
            file.to_str().unwrap(),
            "--generate",
            "network",
            "--count",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ])
    };
    let out = run(&file);
    assert_eq!(out.status.code(), Some(4));
    assert_failure_mentions(
        &out,
        &["dc.yaml:5: links[0].b", "\"s9\" is neither a host nor a switch"],
    );
    assert!(!out_dir.exists(), "a failed run leaves no --out behind");
    std::fs::write(
        &file,
        "hosts:\n  - { name: h0, cpu: 4, ram: 8 }\nrequests:\n  - id: 1\n    submit: 0\n    proc: 0\n    containers: [{ cpu: 1, ram: 1 }]\n",
    )
    .unwrap();
    let out = run(&file);
    assert_eq!(out.status.code(), Some(4));
    assert_failure_mentions(&out, &["dc.yaml:4: requests[0].proc", ">= 1"]);
    let odd = interstice(&["mcdm", "fat-tree", "--k", "5"]);
    assert_eq!(odd.status.code(), Some(2));
    assert_failure_mentions(&odd, &["k = 5", "even"]);
}
