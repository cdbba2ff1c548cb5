//! The Debian package end to end: `packaging/test-deb.sh` builds it (one
//! release build), installs it with `dpkg -i`, checks the installed files
//! against packaging/deb/README.md's list, the shipped config, the unit
//! (`systemd-analyze verify`), lintian (no errors) and that `dpkg --purge`
//! leaves nothing behind. It installs system-wide, so it runs as root only
//! (like the real-Slurm tests) and purges on every exit.

use std::process::Command;

#[test]
fn the_debian_package_installs_runs_and_purges_cleanly() {
    let root = Command::new("id").arg("-u").output().expect("run id -u");
    if String::from_utf8_lossy(&root.stdout).trim() != "0" {
        eprintln!("skipped: the package test installs system-wide and needs root");
        return;
    }
    let started = std::time::Instant::now();
    let output = Command::new("bash")
        .arg(interstice_tests::repo_root().join("packaging/test-deb.sh"))
        .output()
        .expect("run packaging/test-deb.sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "packaging/test-deb.sh failed ({})\n--- stdout\n{}\n--- stderr\n{stderr}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
    );
    assert!(
        stderr.contains("test-deb: ok: interstice_"),
        "test-deb.sh exited 0 without its closing line:\n{stderr}"
    );
    eprintln!("package test: {:.0} s", started.elapsed().as_secs_f64());
}
