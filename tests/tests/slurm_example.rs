//! `packaging/examples/slurm.yaml` is a valid `intersticed` config for the
//! `slurm` backend, and a typo in it is reported with the key.

use std::process::Command;

#[test]
fn slurm_example_config_is_valid() {
    let daemon = interstice_tests::artifact("intersticed");
    let example = interstice_tests::repo_root().join("packaging/examples/slurm.yaml");
    let output = Command::new(&daemon)
        .args(["--config", &example.display().to_string(), "--check-config"])
        .output()
        .expect("run intersticed --check-config");
    assert!(
        output.status.success(),
        "{} is invalid:\n{}",
        example.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&example).expect("read the example");
    assert!(text.contains("type: slurm"), "the example uses the slurm backend");

    let dir = tempfile::tempdir().expect("scratch dir");
    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        text.replace("bf_interval_seconds: 5", "bf_interval_secs: 5"),
    )
    .expect("write");
    let output = Command::new(&daemon)
        .args(["--config", &broken.display().to_string(), "--check-config"])
        .output()
        .expect("run intersticed --check-config");
    assert!(!output.status.success(), "a misspelt key must be refused");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("bf_interval_secs"),
        "the error names the key"
    );
}
