//! `packaging/slurm/`, the Slurm configuration the package ships, agrees with
//! the cluster the Slurm tests run (`tests/slurm/slurm.conf.in`) and with the
//! daemon's Slurm sample (`packaging/examples/slurm.yaml`); every setting of
//! the three files is explained by a comment right above it. (Its
//! `interstice.conf` and `plugstack.conf` are parsed by the plugins' own
//! parsers in their unit tests: `packaged_*` in `plugin-ffi/`.)

use interstice_daemon::config::{BackendConfig, Config};
use std::collections::BTreeMap;

fn read(relative: &str) -> String {
    let path = interstice_tests::repo_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The settings of a slurm.conf: `Key=value` lines (but partitions and
/// nodes), and the partitions' attributes by partition name.
struct SlurmConf {
    settings: BTreeMap<String, String>,
    partitions: BTreeMap<String, BTreeMap<String, String>>,
}

fn parse_slurm_conf(text: &str) -> SlurmConf {
    let mut settings = BTreeMap::new();
    let mut partitions = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with('@') {
            continue;
        }
        let pairs: BTreeMap<String, String> = line
            .split_whitespace()
            .map(|word| {
                let (key, value) = word
                    .split_once('=')
                    .unwrap_or_else(|| panic!("not Key=value: {word:?} in {line:?}"));
                (key.to_string(), value.to_string())
            })
            .collect();
        if let Some(name) = pairs.get("PartitionName") {
            partitions.insert(name.clone(), pairs);
        } else {
            assert_eq!(pairs.len(), 1, "one setting per line: {line:?}");
            let (key, value) = pairs.into_iter().next().unwrap();
            assert!(settings.insert(key.clone(), value).is_none(), "{key} twice");
        }
    }
    SlurmConf { settings, partitions }
}

#[test]
fn slurm_conf_fragment_matches_the_test_cluster() {
    let fragment = parse_slurm_conf(&read("packaging/slurm/slurm.conf.fragment"));
    let tested = parse_slurm_conf(&read("tests/slurm/slurm.conf.in"));
    // What makes Interstice work is set alike.
    for key in [
        "SchedulerType",
        "PreemptType",
        "PreemptMode",
        "JobSubmitPlugins",
        "PrologFlags",
        "MinJobAge",
    ] {
        assert_eq!(
            fragment.settings.get(key),
            tested.settings.get(key),
            "{key}: the fragment and the tested cluster differ"
        );
    }
    // Paths are the installed ones: the package's plugin directory after
    // Debian's own, the SPANK stack in /etc/slurm.
    let plugin_dirs: Vec<&str> = fragment.settings["PluginDir"].split(':').collect();
    assert_eq!(
        plugin_dirs,
        ["/usr/lib/x86_64-linux-gnu/slurm-wlm", "/usr/lib/interstice/slurm"]
    );
    assert_eq!(fragment.settings["PlugStackConfig"], "/etc/slurm/plugstack.conf");
    assert!(tested.settings["PlugStackConfig"].ends_with("/plugstack.conf"));
    assert!(tested.settings.contains_key("PluginDir"));
    // The partitions: the same names and the same preemption setup.
    assert_eq!(
        fragment.partitions.keys().collect::<Vec<_>>(),
        ["cloud", "hpc"],
        "partitions of the fragment"
    );
    for (name, attributes) in &fragment.partitions {
        let tested_attributes = &tested.partitions[name];
        for key in ["Default", "PriorityTier", "PreemptMode", "MaxTime", "State"] {
            assert_eq!(
                attributes.get(key),
                tested_attributes.get(key),
                "PartitionName={name} {key}"
            );
        }
    }
    let tier = |name: &str| fragment.partitions[name]["PriorityTier"].parse::<u32>().unwrap();
    assert!(tier("hpc") > tier("cloud"), "hpc jobs preempt cloud jobs");
    assert_eq!(fragment.partitions["cloud"]["PreemptMode"], "CANCEL");
    assert_eq!(fragment.partitions["hpc"]["PreemptMode"], "OFF");
}

#[test]
fn slurm_packaging_agrees_with_the_daemon_sample() {
    let sample = Config::parse(&read("packaging/examples/slurm.yaml")).expect("the sample parses");
    let BackendConfig::Slurm(slurm) = &sample.backend else {
        panic!("the sample uses the slurm backend");
    };
    let fragment = parse_slurm_conf(&read("packaging/slurm/slurm.conf.fragment"));
    assert!(fragment.partitions.contains_key(&slurm.partition_hpc));
    assert!(fragment.partitions.contains_key(&slurm.partition_cloud));
    assert_eq!(
        fragment.partitions[&slurm.partition_cloud]["PreemptMode"], "CANCEL",
        "the daemon's cloud partition is the preemptable one"
    );
    // backend.bf_interval_seconds follows SchedulerParameters=bf_interval.
    let bf_interval = fragment.settings["SchedulerParameters"]
        .split(',')
        .find_map(|item| item.strip_prefix("bf_interval="))
        .expect("bf_interval in SchedulerParameters")
        .parse::<f64>()
        .unwrap();
    assert_eq!(slurm.bf_interval_seconds, bf_interval);
    // One socket and one cloud partition across the daemon and the plugins.
    let socket = sample.api.socket.display().to_string();
    let plugin_conf = read("packaging/slurm/interstice.conf");
    assert!(
        plugin_conf.contains(&format!("\nsocket = {socket}\n")),
        "interstice.conf's socket"
    );
    assert!(plugin_conf.contains(&format!("\ncloud_partition = {}\n", slurm.partition_cloud)));
    let plugstack = read("packaging/slurm/plugstack.conf");
    assert!(
        plugstack.contains(&format!(" socket={socket} ")),
        "plugstack.conf's socket"
    );
    assert!(plugstack.contains(&format!(" cloud_partition={} ", slurm.partition_cloud)));
}

#[test]
fn every_setting_is_explained_by_a_comment_above_it() {
    for file in [
        "packaging/slurm/slurm.conf.fragment",
        "packaging/slurm/plugstack.conf",
        "packaging/slurm/interstice.conf",
    ] {
        let text = read(file);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let mut settings = 0;
        for (index, line) in lines.iter().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            settings += 1;
            assert!(
                index > 0 && lines[index - 1].starts_with('#'),
                "{file}:{}: {line:?} has no comment right above it",
                index + 1
            );
        }
        assert!(settings > 0, "{file} sets nothing");
    }
}
