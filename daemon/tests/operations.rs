//! The operations material shipped beside the daemon, checked against the
//! daemon itself and the real promtool (no mocks):
//!
//! - `packaging/prometheus/`: `promtool check config` on the scrape config,
//!   `promtool check rules` and `promtool test rules` on the alerting rules;
//! - every PromQL expression of the rules and of the Grafana dashboard
//!   (`packaging/grafana/interstice.json`) parses (`promtool check rules` on
//!   a rules file made of them), and every metric it names is exported by a
//!   live daemon in Slurm mode (squeue/scontrol are scripts printing a small
//!   cluster), whose scrape `promtool check metrics` accepts;
//! - every key of the config structs (`src/config/`) is in
//!   `daemon/README.md`'s "Config keys" table;
//! - a bad config is refused naming its key paths, and the demo config is valid.

use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(relative: &str) -> String {
    let path = repo().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn promtool(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new("promtool")
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promtool (apt-get install prometheus)");
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn assert_success(what: &str, output: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{what}:\n{text}");
    text
}

#[test]
fn prometheus_config_and_rules_pass_promtool() {
    let text = assert_success(
        "promtool check config",
        &promtool(&["check", "config", "packaging/prometheus/scrape.yml"], None),
    );
    assert!(text.contains("SUCCESS: 1 rule files found"), "{text}");
    let text = assert_success(
        "promtool check rules",
        &promtool(
            &["check", "rules", "packaging/prometheus/interstice.rules.yml"],
            None,
        ),
    );
    assert!(text.contains("SUCCESS: 7 rules found"), "{text}");
    let text = assert_success(
        "promtool test rules",
        &promtool(
            &["test", "rules", "packaging/prometheus/interstice.rules.test.yml"],
            None,
        ),
    );
    assert!(text.contains("SUCCESS"), "{text}");
}

/// Every alert of the rules file is tested firing (an `exp_alerts` with
/// labels) and not firing (an empty `exp_alerts`).
#[test]
fn every_alert_is_tested_firing_and_not_firing() {
    let rules = read("packaging/prometheus/interstice.rules.yml");
    let alerts: BTreeSet<&str> = rules
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- alert: "))
        .collect();
    assert_eq!(alerts.len(), 7, "{alerts:?}");
    let tests = read("packaging/prometheus/interstice.rules.test.yml");
    let mut firing = BTreeSet::new();
    let mut quiet = BTreeSet::new();
    let mut current = None;
    for line in tests.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("alertname: ") {
            current = Some(name);
        } else if line == "exp_alerts: []" {
            quiet.insert(current.expect("exp_alerts after alertname"));
        } else if line.starts_with("- exp_labels:") {
            firing.insert(current.expect("exp_labels after alertname"));
        }
    }
    assert_eq!(firing, alerts, "alerts tested firing");
    assert_eq!(quiet, alerts, "alerts tested not firing");
    for alert in &alerts {
        let rule = rules
            .split("- alert: ")
            .find(|rule| rule.starts_with(alert))
            .unwrap();
        for part in ["for: ", "severity: ", "summary: ", "description: "] {
            assert!(rule.contains(part), "{alert} has no {part}");
        }
    }
}

/// The alerting rules' expressions, as written.
fn rule_exprs() -> Vec<(String, String)> {
    let rules = read("packaging/prometheus/interstice.rules.yml");
    let mut exprs = Vec::new();
    let mut lines = rules.lines().peekable();
    let mut alert = String::new();
    while let Some(line) = lines.next() {
        if let Some(name) = line.trim().strip_prefix("- alert: ") {
            alert = name.to_string();
        }
        let Some(expr) = line.trim().strip_prefix("expr: ") else {
            continue;
        };
        let expr = if expr == "|" {
            let mut block = String::new();
            // The block: the lines indented deeper than `expr:`.
            while let Some(next) = lines.next_if(|next| next.starts_with("          ")) {
                block.push_str(next.trim());
                block.push('\n');
            }
            block
        } else {
            expr.to_string()
        };
        exprs.push((alert.clone(), expr));
    }
    assert_eq!(exprs.len(), 7, "{exprs:?}");
    exprs
}

/// The dashboard's expressions (panel title, expr), its template variables'
/// queries included.
fn dashboard_exprs(dashboard: &serde_json::Value) -> Vec<(String, String)> {
    let mut exprs = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        let title = panel["title"].as_str().unwrap().to_string();
        if panel["type"] == "row" {
            continue;
        }
        assert_eq!(
            panel["datasource"]["uid"], "${datasource}",
            "{title}: the datasource is the variable"
        );
        let targets = panel["targets"].as_array().unwrap();
        assert!(!targets.is_empty(), "{title} has no query");
        for target in targets {
            assert_eq!(target["datasource"]["uid"], "${datasource}", "{title}");
            exprs.push((title.clone(), target["expr"].as_str().unwrap().to_string()));
        }
    }
    exprs
}

/// Grafana's variables replaced by values Prometheus accepts.
fn grafana_to_promql(expr: &str) -> String {
    expr.replace("$__rate_interval", "2m")
        .replace("$window", "1h")
        .replace("$instance", ".*")
}

/// PromQL's words that name no metric: set operators, modifiers and
/// aggregations (a flat table).
const PROMQL_KEYWORDS: [&str; 17] = [
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
    "group",
];

/// The words a label list `(label, ...)` follows (a flat table).
const LABEL_LISTS: [&str; 6] = ["by", "without", "on", "ignoring", "group_left", "group_right"];

/// The metric names an expression reads: identifiers outside strings, label
/// matchers, ranges and the label lists of `by`, `on`… that are neither
/// functions (followed by `(`), aggregations nor operators.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut names = BTreeSet::new();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == '"' {
            index = past_string(&chars, index);
        } else if let Some(close) = closing_bracket(c) {
            index = past_bracketed(&chars, index, close);
        } else if c.is_ascii_digit() || c == '.' {
            while index < chars.len() && (chars[index].is_ascii_alphanumeric() || chars[index] == '.') {
                index += 1;
            }
        } else if is_word_char(c) {
            let start = index;
            while index < chars.len() && is_word_char(chars[index]) {
                index += 1;
            }
            let word: String = chars[start..index].iter().collect();
            if LABEL_LISTS.contains(&word.as_str()) {
                index = past_label_list(&chars, index);
            } else if !is_call(&chars[index..]) && !PROMQL_KEYWORDS.contains(&word.as_str()) {
                names.insert(word);
            }
        } else {
            index += 1;
        }
    }
    names
}

/// Whether `c` may be in a PromQL identifier (a digit not first: numbers
/// are read before words).
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

/// Whether what follows a word (`rest`) makes it a call: a `(` after spaces.
fn is_call(rest: &[char]) -> bool {
    rest.iter().find(|c| !c.is_whitespace()) == Some(&'(')
}

/// The bracket that closes `open`: label matchers and ranges, which name no
/// metric (none: `open` opens neither).
fn closing_bracket(open: char) -> Option<char> {
    match open {
        '{' => Some('}'),
        '[' => Some(']'),
        _ => None,
    }
}

/// The index past the string that starts at `index` (its closing quote;
/// backslash escapes skipped).
fn past_string(chars: &[char], mut index: usize) -> usize {
    index += 1;
    while index < chars.len() && chars[index] != '"' {
        index += if chars[index] == '\\' { 2 } else { 1 };
    }
    index + 1
}

/// The index past the bracketed part that starts at `index` and ends at
/// `close` (strings inside, which may hold `close`, skipped).
fn past_bracketed(chars: &[char], mut index: usize, close: char) -> usize {
    while index < chars.len() && chars[index] != close {
        if chars[index] == '"' {
            index = past_string(chars, index);
        } else {
            index += 1;
        }
    }
    index + 1
}

/// The index past the label list `(label, ...)` after a `by`, `on`… at
/// `index` (group_left's may be absent: then `index` itself).
fn past_label_list(chars: &[char], index: usize) -> usize {
    let rest = chars[index..].iter().position(|c| !c.is_whitespace());
    if rest.is_some_and(|offset| chars[index + offset] == '(') {
        index + chars[index..].iter().position(|c| *c == ')').unwrap() + 1
    } else {
        index
    }
}

/// A PromQL expression with each thing [`metric_names`] must pass over: a
/// function, an aggregation's label list, label matchers (a value holding a
/// brace), a range, `on (…) group_left`, a number, `and`, `without(…)`,
/// `offset`.
const TRICKY_PROMQL: &str = r#"histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="x", l=~"a|b{"}[5m]))) / on (job) group_left b > 0.1 and sum without(x) (c_total offset 1h)"#;

#[test]
fn metric_names_are_found_in_promql() {
    assert_eq!(
        metric_names(TRICKY_PROMQL),
        ["a_bucket", "b", "c_total"].map(String::from).into()
    );
    assert_eq!(
        metric_names("absent(up{job=\"interstice\"})"),
        ["up"].map(String::from).into()
    );
}

/// A daemon in Slurm mode whose squeue and scontrol are scripts printing a
/// two-node cluster (n1 in hpc and cloud, n2 in hpc) with one HPC job, and
/// one service class (so that the per-class series are exported).
struct SlurmDaemon {
    dir: tempfile::TempDir,
    child: Child,
}

impl SlurmDaemon {
    fn start() -> SlurmDaemon {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        let squeue = script(
            "squeue",
            "now=$(date +%s)\n\
             echo \"7|hpc|RUNNING|4|10:00|$((now - 60))|$((now - 30))|$((now + 570))|None|n2|(null)|root|(null)\"\n",
        );
        let scontrol = script(
            "scontrol",
            "case \"$*\" in\n\
             *node*) echo 'NodeName=n1 CPUAlloc=0 CPUTot=4 State=IDLE Partitions=hpc,cloud'\n\
                     echo 'NodeName=n2 CPUAlloc=4 CPUTot=4 State=ALLOCATED Partitions=hpc' ;;\n\
             *reservation*) echo 'No reservations in the system' ;;\n\
             esac\n",
        );
        let config = dir.path().join("d.yaml");
        std::fs::write(
            &config,
            format!(
                "api: {{socket: {dir}/d.sock}}\nstate_dir: {dir}/state\n\
                 engine: {{procs: 8, conv_procs: 4}}\n\
                 backend: {{type: slurm, squeue: {squeue}, scontrol: {scontrol}, bf_interval_seconds: 0.2, \
                 plan_stale_seconds: 30}}\n\
                 node: {{busy_margin_cpus: 1000}}\nclasses: [{{name: gold, slo: 1.0}}]\nlog_level: warn\n",
                dir = dir.path().display(),
                squeue = squeue.display(),
                scontrol = scontrol.display(),
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new(BIN)
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        SlurmDaemon { dir, child }
    }

    fn client(&self) -> Client {
        Client::new(self.dir.path().join("d.sock"), DEFAULT_TIMEOUT)
    }

    /// `/metrics` once the first plan read is in (partition CPUs, plan age).
    fn scrape(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(text) = self.client().metrics() {
                if text.contains("\ninterstice_slurm_partition_cpus{")
                    && text.contains("\ninterstice_plan_age_seconds ")
                {
                    return text;
                }
            }
            assert!(
                Instant::now() < deadline,
                "no plan read: {}",
                std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for SlurmDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its cgroup subtrees (v2, and v1's per controller) go with it.
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

/// The metric names a scrape exports (`# TYPE` lines; a histogram's
/// `_bucket`, `_sum` and `_count` series too).
fn exported(scrape: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in scrape.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut words = rest.split_whitespace();
            let (name, kind) = (words.next().unwrap(), words.next().unwrap());
            names.insert(name.to_string());
            if kind == "histogram" {
                for suffix in ["_bucket", "_sum", "_count"] {
                    names.insert(format!("{name}{suffix}"));
                }
            }
        }
    }
    names
}

#[test]
fn dashboard_and_rules_read_metrics_a_live_daemon_exports() {
    let dashboard: serde_json::Value =
        serde_json::from_str(&read("packaging/grafana/interstice.json")).expect("the dashboard is JSON");
    assert_eq!(dashboard["uid"], "interstice");
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    assert!(
        variables.iter().any(|var| var["type"] == "datasource"
            && var["name"] == "datasource"
            && var["query"] == "prometheus"),
        "no datasource variable"
    );
    let mut exprs: Vec<(String, String)> = rule_exprs();
    let panels = dashboard_exprs(&dashboard);
    assert!(panels.len() >= 20, "{panels:?}");
    let panel_titles: BTreeSet<&str> = panels.iter().map(|(title, _)| title.as_str()).collect();
    for wanted in [
        "Idle processor-seconds",
        "Admitted, rejected, evicted (per minute)",
        "SLO violation ratio",
        "Prediction precision and recall",
        "Admission latency",
        "Plan age",
        "Slurm partition CPUs",
        "Admission holds",
        "Availability SLO met, per class",
    ] {
        assert!(panel_titles.contains(wanted), "no panel {wanted:?}");
    }
    exprs.extend(panels);
    for var in variables {
        if let Some(query) = var["query"]["query"].as_str() {
            let inner = query
                .strip_prefix("label_values(")
                .and_then(|rest| rest.rsplit_once(','))
                .map(|(selector, _)| selector)
                .unwrap_or_else(|| panic!("unexpected variable query {query}"));
            exprs.push((format!("variable {}", var["name"]), inner.to_string()));
        }
    }

    // Every expression parses: one recording rule each, through promtool.
    let dir = tempfile::tempdir().unwrap();
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (index, (_, expr)) in exprs.iter().enumerate() {
        rules.push_str(&format!(
            "      - record: check:expr_{index}\n        expr: {}\n",
            serde_json::to_string(&grafana_to_promql(expr)).unwrap()
        ));
    }
    let file = dir.path().join("exprs.yml");
    std::fs::write(&file, &rules).unwrap();
    let text = assert_success(
        "promtool check rules on the dashboard's and the alerts' expressions",
        &promtool(&["check", "rules", file.to_str().unwrap()], None),
    );
    assert!(
        text.contains(&format!("SUCCESS: {} rules found", exprs.len())),
        "{text}\n{rules}"
    );

    // Every metric they read is exported by the daemon (`up` is Prometheus's).
    let daemon = SlurmDaemon::start();
    let scrape = daemon.scrape();
    assert_success(
        "promtool check metrics on the Slurm-mode scrape",
        &promtool(&["check", "metrics"], Some(&scrape)),
    );
    let exported = exported(&scrape);
    let mut read_by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (owner, expr) in &exprs {
        let names = metric_names(expr);
        assert!(!names.is_empty(), "{owner}: no metric in {expr}");
        for name in names {
            read_by.entry(name).or_default().push(owner.clone());
        }
    }
    let missing: Vec<_> = read_by
        .iter()
        .filter(|(name, _)| *name != "up" && !exported.contains(*name))
        .collect();
    assert!(missing.is_empty(), "read but not exported: {missing:?}");
    // The metrics the dashboard must show are read.
    for name in [
        "interstice_idle_processor_seconds",
        "interstice_admissions_total",
        "interstice_evictions_total",
        "interstice_slo_violations_total",
        "interstice_cloud_jobs_finished_total",
        "interstice_prediction_outcomes_total",
        "interstice_admission_duration_seconds_bucket",
        "interstice_plan_age_seconds",
        "interstice_plan_stale_after_seconds",
        "interstice_slurm_partition_cpus",
        "interstice_admission_holds",
        "interstice_slurm_unpredicted_admissions_total",
        "interstice_build_info",
    ] {
        assert!(read_by.contains_key(name), "{name} is on no panel and in no rule");
    }
    // The Slurm mode's plan as the scripts print it, on the dashboard's series.
    for series in [
        "interstice_slurm_partition_cpus{partition=\"cloud\",state=\"total\"} 4\n",
        "interstice_slurm_partition_cpus{partition=\"hpc\",state=\"allocated\"} 4\n",
        "interstice_plan_stale_after_seconds 30\n",
    ] {
        assert!(scrape.contains(series), "{series} not in\n{scrape}");
    }
}

/// Config struct → the prefix of its keys (a flat table). A new section
/// struct must be added here.
const SECTION_PREFIXES: [(&str, &str); 20] = [
    ("Config", ""),
    ("ApiConfig", "api."),
    ("TlsConfig", "api.tls."),
    ("EngineSection", "engine."),
    ("EmbeddedConfig", "backend."),
    ("PluginConfig", "backend."),
    ("SlurmConfig", "backend."),
    ("ExecutionConfig", "execution."),
    ("RlimitConfig", "execution.rlimits."),
    ("LimitsConfig", "execution.limits."),
    ("NodeConfig", "node."),
    ("MetricsConfig", "metrics."),
    ("StoreConfig", "store."),
    ("QuotaConfig", "quota."),
    ("MemberConfig", "datacenter."),
    ("BrokerConfig", "datacenter."),
    ("OnBehalfOf", "datacenter.on_behalf_of."),
    ("MaintenanceEntry", "engine.maintenance[]."),
    ("CandidatesSection", "engine.candidates."),
    ("RegulateSection", "engine.regulate."),
];

/// The config module's files, one section each (`src/config/`), in name
/// order, as one text.
fn config_source() -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("daemon/src/config"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| read(path.strip_prefix(repo()).unwrap().to_str().unwrap()))
        .collect()
}

/// The key paths of the config structs of `src/config/`, read from its
/// source: every `pub` field of a struct deriving `Deserialize` under the
/// prefix of its section, the tags of the tagged enums, and the fields of a
/// maintenance entry (named in `engine.maintenance`'s row).
fn config_keys() -> (BTreeSet<String>, BTreeSet<String>) {
    let source = config_source();
    let mut walk = KeyWalk {
        lines: source.lines().collect(),
        index: 0,
        prefixes: SECTION_PREFIXES.into(),
        keys: BTreeSet::new(),
        entry_fields: BTreeSet::new(),
        seen: BTreeSet::new(),
    };
    while walk.index < walk.lines.len() {
        walk.item();
    }
    let KeyWalk {
        prefixes,
        keys,
        entry_fields,
        seen,
        ..
    } = walk;
    assert_eq!(seen.len(), prefixes.len(), "structs not found: {seen:?}");
    (keys, entry_fields)
}

/// A walk over the config module's source, line by line, collecting the
/// key paths of the items that derive `Deserialize`.
struct KeyWalk<'a> {
    lines: Vec<&'a str>,
    /// The next line to read.
    index: usize,
    /// [`SECTION_PREFIXES`].
    prefixes: BTreeMap<&'static str, &'static str>,
    keys: BTreeSet<String>,
    /// The fields of a maintenance entry.
    entry_fields: BTreeSet<String>,
    /// The section structs found.
    seen: BTreeSet<&'a str>,
}

impl<'a> KeyWalk<'a> {
    /// Read one line; at a `#[derive(…Deserialize…)]`, the item it derives
    /// for too: a tagged enum's tag, or a section struct's fields.
    fn item(&mut self) {
        let line = self.lines[self.index];
        self.index += 1;
        if !(line.starts_with("#[derive(") && line.contains("Deserialize")) {
            return;
        }
        let tag = self.serde_tag();
        let head = self.lines[self.index];
        self.index += 1;
        if let Some(name) = head.strip_prefix("pub enum ") {
            if let Some(tag) = tag {
                self.keys.insert(enum_tag_key(name.trim_end_matches(" {"), &tag));
            }
            return;
        }
        let Some(name) = head.strip_prefix("pub struct ") else {
            return;
        };
        let name = name.split(|c| " {;".contains(c)).next().unwrap();
        let prefix = *self
            .prefixes
            .get(name)
            .unwrap_or_else(|| panic!("config struct {name}: add its key prefix to this test"));
        self.seen.insert(name);
        if head.ends_with("{") {
            self.fields(name, prefix);
        }
    }

    /// Skip the attributes after the derive, returning serde's `tag = "…"`.
    fn serde_tag(&mut self) -> Option<String> {
        let mut tag = None;
        while self.lines[self.index].starts_with("#[") {
            if let Some(rest) = self.lines[self.index].split("tag = \"").nth(1) {
                tag = Some(rest.split('"').next().unwrap().to_string());
            }
            assert!(
                !self.lines[self.index].contains("rename ="),
                "renamed item: teach this test"
            );
            self.index += 1;
        }
        tag
    }

    /// The keys of struct `name`'s fields up to its closing line, under
    /// `prefix` (a maintenance entry's into `entry_fields`): neither fields
    /// serde skips nor fields that hold a section.
    fn fields(&mut self, name: &str, prefix: &str) {
        let mut skip = false;
        while !self.lines[self.index].starts_with("}") {
            let field = self.lines[self.index].trim();
            self.index += 1;
            if field.starts_with("#[serde(skip") {
                skip = true;
            }
            assert!(
                !field.contains("rename"),
                "{name}: renamed field: teach this test"
            );
            let Some(rest) = field.strip_prefix("pub ") else {
                continue;
            };
            let (field_name, field_type) = rest
                .split_once(": ")
                .unwrap_or_else(|| panic!("{name}: field {field:?}"));
            if std::mem::take(&mut skip) || self.holds_a_section(field_type) {
                continue;
            }
            if name == "MaintenanceEntry" {
                self.entry_fields.insert(field_name.to_string());
            } else {
                self.keys.insert(format!("{prefix}{field_name}"));
            }
        }
    }

    /// Whether a field of this type is a section (a section struct, maybe
    /// in an `Option` or a `Vec`), not a key.
    fn holds_a_section(&self, field_type: &str) -> bool {
        self.prefixes
            .keys()
            .chain(["BackendConfig", "DatacenterConfig"].iter())
            .any(|section| {
                *section != "MaintenanceEntry"
                    && field_type
                        .trim_end_matches(',')
                        .split(['<', '>'])
                        .any(|part| part == *section)
            })
    }
}

/// The key a tagged enum's tag is: `backend.type`, `datacenter.role`.
fn enum_tag_key(name: &str, tag: &str) -> String {
    let section = match name {
        "BackendConfig" => "backend",
        "DatacenterConfig" => "datacenter",
        other => panic!("tagged enum {other}: add its section to this test"),
    };
    format!("{section}.{tag}")
}

/// The key paths of daemon/README.md's "Config keys" table: the backticked
/// names of each row's first cell, `a.{b,c}` expanded; with the whole row.
fn readme_keys() -> BTreeMap<String, String> {
    let readme = read("daemon/README.md");
    let table = readme
        .split("## Config keys")
        .nth(1)
        .expect("a Config keys section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut keys = BTreeMap::new();
    for row in table.lines().filter(|line| line.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap();
        for (position, span) in first.split('`').enumerate() {
            if position % 2 == 0 {
                continue;
            }
            match span.split_once(".{") {
                Some((head, rest)) => {
                    for leaf in rest.trim_end_matches('}').split(',') {
                        keys.insert(format!("{head}.{}", leaf.trim()), row.to_string());
                    }
                }
                None => {
                    keys.insert(span.to_string(), row.to_string());
                }
            }
        }
    }
    keys
}

#[test]
fn every_config_key_is_in_the_readme_table() {
    let (keys, entry_fields) = config_keys();
    // A sample of what the source walk must find (a walk finding nothing passes nothing).
    for key in [
        "api.socket",
        "api.allow_remote",
        "state_dir",
        "engine.maintenance",
        "backend.type",
        "backend.plan_stale_seconds",
        "execution.rlimits.open_files",
        "datacenter.role",
        "datacenter.member_max_age_seconds",
        "log_level",
    ] {
        assert!(keys.contains(key), "{key} not found in config.rs: {keys:?}");
    }
    assert!(!keys.contains("backend.clip_procs"), "serde(skip) is no key");
    assert!(!keys.contains("api"), "a section is no key");
    assert_eq!(
        entry_fields,
        ["duration", "procs", "start"].map(String::from).into()
    );
    let documented = readme_keys();
    let missing: Vec<&String> = keys.iter().filter(|key| !documented.contains_key(*key)).collect();
    assert!(
        missing.is_empty(),
        "config keys missing from daemon/README.md's Config keys table: {missing:?}"
    );
    let row = &documented["engine.maintenance"];
    for field in &entry_fields {
        assert!(
            row.contains(field.as_str()),
            "engine.maintenance's row does not name {field}"
        );
    }
    // And the table names no key the daemon does not read.
    let unknown: Vec<&String> = documented.keys().filter(|key| !keys.contains(*key)).collect();
    assert!(
        unknown.is_empty(),
        "README keys config.rs does not have: {unknown:?}"
    );
}

#[test]
fn bad_config_is_reported_with_key_paths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    // `intersticed --config FILE --check-config` in `cwd`: it fails, or not, and says why on stderr.
    let check = |config: &Path, cwd: &Path| {
        let output = Command::new(BIN)
            .current_dir(cwd)
            .arg("--config")
            .arg(config)
            .arg("--check-config")
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    std::fs::write(&path, "engine: {procs: 4, conv_procs: 8, policy: sjf}\nbackend: {type: plugin}\nexecution: {grace_seconds: -1}\n")
        .unwrap();
    let (ok, stderr) = check(&path, dir.path());
    assert!(!ok);
    for needle in [
        "engine.conv_procs",
        "engine.policy",
        "fcfs, easy, conservative, convergence",
        "execution.grace_seconds",
    ] {
        assert!(stderr.contains(needle), "{needle} missing in {stderr}");
    }
    std::fs::write(&path, "engine: {procs: 4}\nbackend: {type: plugin, speed: 3}\n").unwrap();
    let (ok, stderr) = check(&path, dir.path());
    assert!(!ok && stderr.contains("speed"), "{stderr}");
    let (ok, stderr) = check(&dir.path().join("missing.yaml"), dir.path());
    assert!(!ok && stderr.contains("missing.yaml"), "{stderr}");
    // The shipped configs are valid.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let (ok, stderr) = check(Path::new("packaging/examples/demo.yaml"), root);
    assert!(ok, "{stderr}");
    // What start-up refuses, --check-config refuses too (it said ok for
    // both): a token file others may read, a state directory that is a link.
    let token = dir.path().join("token");
    std::fs::write(&token, "0123456789abcdef0123\n").unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(
        &path,
        format!(
            "engine: {{procs: 4}}\nbackend: {{type: plugin}}\napi: {{token_file: {}}}\n",
            token.display()
        ),
    )
    .unwrap();
    let (ok, stderr) = check(&path, dir.path());
    assert!(
        !ok && stderr.contains("api.token_file") && stderr.contains("chmod 600"),
        "{stderr}"
    );
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("state")).unwrap();
    std::fs::write(
        &path,
        "engine: {procs: 4}\nbackend: {type: plugin}\nstate_dir: state\n",
    )
    .unwrap();
    let (ok, stderr) = check(&path, dir.path());
    assert!(!ok && stderr.contains("is a symbolic link"), "{stderr}");
}

/// The finding: with `RLIMIT_NOFILE` below what `api.max_connections`
/// admits, the kernel refused connections (root's `/healthz` among them)
/// before the daemon's own gates. A hard limit too low is refused with the
/// fix (by `--check-config` too); a low soft limit is raised at start.
#[test]
fn the_descriptor_limit_is_raised_to_the_connection_limits_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("d.yaml");
    std::fs::write(
        &config,
        format!(
            "api: {{socket: {d}/d.sock, max_connections: 256}}\nstate_dir: {d}/state\nengine: {{procs: 2}}\n\
             backend: {{type: plugin}}\nlog_level: warn\n",
            d = dir.path().display()
        ),
    )
    .unwrap();
    let limited = |limit: &str, check: bool| {
        let mut command = Command::new("prlimit");
        command
            .arg(format!("--nofile={limit}"))
            .arg(BIN)
            .arg("--config")
            .arg(&config);
        if check {
            command.arg("--check-config");
        }
        command
    };
    let refused = limited("300:300", true).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("RLIMIT_NOFILE's hard limit is 300, below the 768"),
        "{stderr}"
    );
    assert!(
        !limited("300:300", false).output().unwrap().status.success(),
        "start-up refuses it too"
    );
    // A soft limit of 64 under a hard one of 4096: raised at start.
    let mut child = limited("64:4096", false).stderr(Stdio::piped()).spawn().unwrap();
    let client = Client::new(dir.path().join("d.sock"), DEFAULT_TIMEOUT);
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.health().is_err() {
        assert!(Instant::now() < deadline, "the daemon did not come up");
        std::thread::sleep(Duration::from_millis(20));
    }
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).unwrap();
    let open_files = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap();
    let soft: u64 = open_files.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert_eq!(soft, 768, "{open_files}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `scripts/fuzz-api.py`, a few hostile requests per route of a node and a
/// broker (the note runs it with more): no 500, no crash, every answer in time.
#[test]
fn hostile_requests_to_every_route_get_an_answer_and_no_500() {
    if !nix::unistd::geteuid().is_root() {
        return; // jobs run as their submitter: the daemons need root
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/fuzz-api.py");
    let output = Command::new("python3")
        .arg(&script)
        .args(["--bin", BIN, "--per-route", "10"])
        .output()
        .expect("run scripts/fuzz-api.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
}
