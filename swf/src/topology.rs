//! The data-center topology and request file of seed 003's container
//! scheduler (`interstice mcdm run FILE`, `docs/placement.md`). Capacities
//! are CPU cores, RAM in GB, GPUs; bandwidth is in Mbps (the seed's unit);
//! times are events (integer ticks). A file holds a topology, requests, or
//! both; unknown keys are errors, and every error names the file, the line
//! (where it can be found) and the field.
//!
//! ```yaml
//! hosts:
//!   - { name: h0, cpu: 24, ram: 256, gpu: 0 }
//!   - { name: h1, cpu: 24, ram: 256 }          # gpu: 0 by default
//! switches: [s0]
//! links:
//!   - { a: h0, b: s0, mbps: 1000 }
//!   - { a: h1, b: s0, mbps: 1000 }
//! requests:
//!   - id: 1
//!     submit: 0          # sub_I, events
//!     proc: 10           # proc_I, events
//!     deadline: 100      # optional: must end by then
//!     containers:        # [min, max], or one number for min = max
//!       - { cpu: [1, 2], ram: [1, 4], pod: 0 }
//!       - { cpu: 1, ram: [2, 2], gpu: 0, pod: 0 }
//!       - { cpu: [0.5, 1], ram: 1 }
//!     links:             # between container indices (0-based), Mbps
//!       - { a: 0, b: 2, mbps: [10, 50] }
//! ```

use interstice_core::mcdm::request::{Container, Request, Span, VirtualLink};
use interstice_core::mcdm::topology::{Host, Link, Topology};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::path::Path;

/// A bad topology or request file: the message names the file, the line
/// and the field, and says what to write instead.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TopologyFileError(String);

impl TopologyFileError {
    /// An error about a file, worded by the caller (file, field, fix).
    pub fn from_message(message: String) -> TopologyFileError {
        TopologyFileError(message)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    hosts: Vec<HostEntry>,
    #[serde(default)]
    switches: Vec<String>,
    #[serde(default)]
    links: Vec<LinkEntry>,
    #[serde(default)]
    requests: Vec<RequestEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostEntry {
    name: String,
    cpu: f64,
    ram: f64,
    #[serde(default)]
    gpu: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkEntry {
    a: String,
    b: String,
    mbps: f64,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SpanEntry {
    One(f64),
    Two([f64; 2]),
}

impl SpanEntry {
    fn span(&self) -> Span {
        match *self {
            SpanEntry::One(v) => Span::exactly(v),
            SpanEntry::Two([min, max]) => Span { min, max },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestEntry {
    id: u64,
    submit: u64,
    proc: u64,
    #[serde(default)]
    deadline: Option<u64>,
    containers: Vec<ContainerEntry>,
    #[serde(default)]
    links: Vec<VirtualLinkEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContainerEntry {
    cpu: SpanEntry,
    ram: SpanEntry,
    #[serde(default)]
    gpu: Option<SpanEntry>,
    #[serde(default)]
    pod: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VirtualLinkEntry {
    a: usize,
    b: usize,
    mbps: SpanEntry,
}

/// What a file holds.
#[derive(Clone, Debug)]
pub struct McdmFile {
    /// The data center, if the file has `hosts:`.
    pub topology: Option<Topology>,
    /// Its requests (possibly none), checked.
    pub requests: Vec<Request>,
}

/// Where errors point: the file and its text, to find an item's line.
struct Place<'a> {
    name: String,
    text: &'a str,
}

impl Place<'_> {
    /// `FILE:LINE: FIELD: MESSAGE`, the line of the `index`-th item of the
    /// top-level `section` when it is a block list.
    fn err(&self, section: &str, index: usize, field: &str, message: &str) -> TopologyFileError {
        TopologyFileError(format!("{}{field}: {message}", self.at(section, index)))
    }

    /// `FILE:LINE: SECTION[INDEX]` (`FILE: …` when the line is not found).
    fn at(&self, section: &str, index: usize) -> String {
        match item_line(self.text, section, index) {
            Some(line) => format!("{}:{line}: {section}[{index}]", self.name),
            None => format!("{}: {section}[{index}]", self.name),
        }
    }
}

/// The 1-based line of the `index`-th `- ` item of the top-level key
/// `section` (a block sequence), if the text has one.
fn item_line(text: &str, section: &str, index: usize) -> Option<usize> {
    let mut lines = text.lines().enumerate();
    lines.find(|(_, l)| l.trim_end() == format!("{section}:"))?;
    let mut indent = None;
    let mut seen = 0;
    for (n, line) in lines {
        let trimmed = line.trim_start();
        let depth = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if depth == 0 && !trimmed.starts_with('-') {
            return None;
        }
        let item = trimmed.starts_with("- ") || trimmed == "-";
        if item && *indent.get_or_insert(depth) == depth {
            if seen == index {
                return Some(n + 1);
            }
            seen += 1;
        }
    }
    None
}

impl McdmFile {
    /// Read and check `path`.
    pub fn load(path: &Path) -> Result<McdmFile, TopologyFileError> {
        let text = crate::input_file::read_text(path, crate::input_file::MAX_TEXT_BYTES).map_err(|e| {
            TopologyFileError(format!(
                "{}: cannot read: {e} (give a topology or request file, see docs/placement.md)",
                path.display()
            ))
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parse `text`, shown in errors as `name`.
    pub fn parse(text: &str, name: &str) -> Result<McdmFile, TopologyFileError> {
        let file: File = crate::error::from_yaml(text, name).map_err(TopologyFileError)?;
        let place = Place {
            name: name.to_string(),
            text,
        };
        let topology = if file.hosts.is_empty() {
            if !file.switches.is_empty() || !file.links.is_empty() {
                return Err(TopologyFileError(format!(
                    "{name}: hosts: none, but switches or links are given: add the hosts (name, cpu, ram)"
                )));
            }
            None
        } else {
            Some(topology(&file, &place)?)
        };
        let mut ids = HashSet::new();
        let mut requests = Vec::with_capacity(file.requests.len());
        for (i, entry) in file.requests.iter().enumerate() {
            if !ids.insert(entry.id) {
                return Err(place.err(
                    "requests",
                    i,
                    ".id",
                    &format!("{} is used twice: give each request its own id", entry.id),
                ));
            }
            let request = request(entry);
            if let Err(e) = request.check() {
                // The request's own message starts with its field.
                return Err(TopologyFileError(format!("{}.{e}", place.at("requests", i))));
            }
            requests.push(request);
        }
        Ok(McdmFile { topology, requests })
    }
}

fn request(e: &RequestEntry) -> Request {
    Request {
        id: e.id,
        submit: e.submit,
        proc: e.proc,
        deadline: e.deadline,
        containers: e
            .containers
            .iter()
            .map(|c| Container {
                cpu: c.cpu.span(),
                ram: c.ram.span(),
                gpu: c.gpu.as_ref().map_or(Span::exactly(0.0), SpanEntry::span),
                pod: c.pod,
            })
            .collect(),
        links: e
            .links
            .iter()
            .map(|l| VirtualLink {
                a: l.a,
                b: l.b,
                mbps: l.mbps.span(),
            })
            .collect(),
    }
}

fn topology(file: &File, place: &Place) -> Result<Topology, TopologyFileError> {
    let mut index = HashMap::new();
    for (i, h) in file.hosts.iter().enumerate() {
        if index.insert(h.name.as_str(), i).is_some() {
            return Err(place.err(
                "hosts",
                i,
                ".name",
                &format!("{:?} is used twice: give each node its own name", h.name),
            ));
        }
        for (field, v) in [("cpu", h.cpu), ("ram", h.ram), ("gpu", h.gpu)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(place.err(
                    "hosts",
                    i,
                    &format!(".{field}"),
                    &format!("{v} is not a capacity: give a number >= 0"),
                ));
            }
        }
    }
    for (i, s) in file.switches.iter().enumerate() {
        if index.insert(s.as_str(), file.hosts.len() + i).is_some() {
            return Err(place.err(
                "switches",
                i,
                "",
                &format!("{s:?} is used twice: give each node its own name"),
            ));
        }
    }
    let mut links = Vec::with_capacity(file.links.len());
    for (i, l) in file.links.iter().enumerate() {
        let end = |field: &str, name: &str| {
            index.get(name).copied().ok_or_else(|| {
                place.err(
                    "links",
                    i,
                    field,
                    &format!("{name:?} is neither a host nor a switch: name one of them"),
                )
            })
        };
        let (a, b) = (end(".a", &l.a)?, end(".b", &l.b)?);
        if a == b {
            return Err(place.err("links", i, "", "joins a node to itself: give two different nodes"));
        }
        if !(l.mbps.is_finite() && l.mbps > 0.0) {
            return Err(place.err(
                "links",
                i,
                ".mbps",
                &format!("{} is not a bandwidth: give Mbps > 0", l.mbps),
            ));
        }
        links.push(Link { a, b, mbps: l.mbps });
    }
    let hosts = file
        .hosts
        .iter()
        .map(|h| Host {
            name: h.name.clone(),
            cpu: h.cpu,
            ram: h.ram,
            gpu: h.gpu,
        })
        .collect();
    Topology::new(hosts, file.switches.clone(), links)
        .map_err(|e| TopologyFileError(format!("{}: {e}", place.name)))
}

/// `topology` and `requests` as a file [`McdmFile::parse`] reads back.
pub fn to_yaml(topology: Option<&Topology>, requests: &[Request]) -> String {
    let mut out = String::new();
    if let Some(t) = topology {
        out.push_str("# CPU cores, RAM GB, GPUs; links in Mbps (docs/placement.md)\nhosts:\n");
        for h in t.hosts() {
            let _ = writeln!(
                out,
                "  - {{ name: {}, cpu: {}, ram: {}, gpu: {} }}",
                h.name, h.cpu, h.ram, h.gpu
            );
        }
        let _ = writeln!(out, "switches: [{}]", t.switches().join(", "));
        out.push_str("links:\n");
        for l in t.links() {
            let _ = writeln!(
                out,
                "  - {{ a: {}, b: {}, mbps: {} }}",
                t.node_name(l.a),
                t.node_name(l.b),
                l.mbps
            );
        }
    }
    if !requests.is_empty() {
        out.push_str("requests:\n");
    }
    let span = |s: Span| format!("[{}, {}]", s.min, s.max);
    for r in requests {
        let _ = write!(
            out,
            "  - id: {}\n    submit: {}\n    proc: {}\n",
            r.id, r.submit, r.proc
        );
        if let Some(d) = r.deadline {
            let _ = writeln!(out, "    deadline: {d}");
        }
        out.push_str("    containers:\n");
        for c in &r.containers {
            let pod = c.pod.map(|p| format!(", pod: {p}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "      - {{ cpu: {}, ram: {}, gpu: {}{pod} }}",
                span(c.cpu),
                span(c.ram),
                span(c.gpu)
            );
        }
        if !r.links.is_empty() {
            out.push_str("    links:\n");
            for l in &r.links {
                let _ = writeln!(
                    out,
                    "      - {{ a: {}, b: {}, mbps: {} }}",
                    l.a,
                    l.b,
                    span(l.mbps)
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "\
hosts:
  - { name: h0, cpu: 24, ram: 256, gpu: 1 }
  - { name: h1, cpu: 24, ram: 256 }
switches: [s0]
links:
  - { a: h0, b: s0, mbps: 1000 }
  - { a: h1, b: s0, mbps: 1000 }
requests:
  - id: 1
    submit: 0
    proc: 10
    containers:
      - { cpu: [1, 2], ram: [1, 4], pod: 0 }
      - { cpu: 1, ram: 2, gpu: [0, 1] }
    links:
      - { a: 0, b: 1, mbps: [10, 50] }
";

    #[test]
    fn reads_and_writes_back() {
        let f = McdmFile::parse(GOOD, "dc.yaml").unwrap();
        let t = f.topology.as_ref().unwrap();
        assert_eq!((t.hosts().len(), t.switches().len(), t.links().len()), (2, 1, 2));
        assert_eq!(t.hosts()[0].gpu, 1.0);
        assert_eq!(f.requests[0].containers[1].gpu, Span { min: 0.0, max: 1.0 });
        assert_eq!(f.requests[0].links[0].mbps, Span { min: 10.0, max: 50.0 });
        let again = McdmFile::parse(&to_yaml(Some(t), &f.requests), "again").unwrap();
        assert_eq!(again.requests, f.requests);
        assert_eq!(again.topology.unwrap().links(), t.links());
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let bad = GOOD.replace(
            "b: s0, mbps: 1000 }\n  - { a: h1",
            "b: s0, mbps: 1000 }\n  - { a: h9",
        );
        let e = McdmFile::parse(&bad, "dc.yaml").unwrap_err().to_string();
        assert!(e.starts_with("dc.yaml:7: links[1].a: \"h9\""), "{e}");
        let bad = GOOD.replace("cpu: [1, 2]", "cpu: [3, 2]");
        let e = McdmFile::parse(&bad, "dc.yaml").unwrap_err().to_string();
        assert!(
            e.starts_with("dc.yaml:9: requests[0].containers[0].cpu: [3, 2]"),
            "{e}"
        );
        let bad = GOOD.replace("proc: 10", "proc: 10\n    colour: red");
        let e = McdmFile::parse(&bad, "dc.yaml").unwrap_err().to_string();
        assert!(e.starts_with("dc.yaml:12:") && e.contains("colour"), "{e}");
        let bad = GOOD.replace("ram: 256 }", "ram: -1 }");
        let e = McdmFile::parse(&bad, "dc.yaml").unwrap_err().to_string();
        assert!(e.starts_with("dc.yaml:3: hosts[1].ram: -1"), "{e}");
    }
}
