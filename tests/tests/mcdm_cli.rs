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
