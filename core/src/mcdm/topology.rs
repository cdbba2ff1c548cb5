//! The data center of seed 003 (Table 5): `G^s(N^s, E^s)`, servers with
//! capacities `c_u^s[r]` (CPU cores, RAM in GB, GPUs) and switches, joined
//! by undirected links of `bw_uv^s` Mbps. Nodes are numbered hosts first
//! (`0..hosts.len()`), then switches.

/// A server `u ∈ N^s` and its capacities.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// Its name in the topology file.
    pub name: String,
    /// CPU cores (fractions allowed: a container may ask for 0.1 core).
    pub cpu: f64,
    /// RAM, GB.
    pub ram: f64,
    /// GPUs: carried and checked as a resource, never used to accelerate anything.
    pub gpu: f64,
}

/// An undirected link `uv ∈ E^s` between two nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// One end (a node index: hosts first, then switches).
    pub a: usize,
    /// The other end.
    pub b: usize,
    /// Capacity, Mbps.
    pub mbps: f64,
}

/// What makes a topology unusable.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologyError {
    /// No host at all.
    NoHost,
    /// A capacity that is negative, not finite, or a link of no bandwidth.
    Capacity {
        /// `cpu`, `ram`, `gpu`, `mbps`.
        what: &'static str,
        /// The host's name or the link's ends.
        name: String,
        /// The value given.
        value: f64,
        /// `>= 0` or `> 0`.
        bound: &'static str,
    },
    /// A link naming a node that does not exist, or joining a node to itself.
    BadEnds {
        /// The link's index.
        index: usize,
        /// Its ends.
        a: usize,
        /// Its ends.
        b: usize,
    },
}

impl std::fmt::Display for TopologyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopologyError::NoHost => write!(f, "the topology has no host: give at least one"),
            TopologyError::Capacity {
                what,
                name,
                value,
                bound,
            } => write!(f, "{what} of {name} is {value}: give a finite number {bound}"),
            TopologyError::BadEnds { index, a, b } => {
                write!(
                    f,
                    "link {index} joins nodes {a} and {b}: both must exist and differ"
                )
            }
        }
    }
}

impl std::error::Error for TopologyError {}

/// The whole data center, checked, with each node's incident links.
#[derive(Clone, Debug)]
pub struct Topology {
    hosts: Vec<Host>,
    switches: Vec<String>,
    links: Vec<Link>,
    /// `incident[n]`: the links at node `n`.
    incident: Vec<Vec<usize>>,
}

impl Topology {
    /// Check and index a topology.
    pub fn new(hosts: Vec<Host>, switches: Vec<String>, links: Vec<Link>) -> Result<Topology, TopologyError> {
        if hosts.is_empty() {
            return Err(TopologyError::NoHost);
        }
        for h in &hosts {
            for (what, value) in [("cpu", h.cpu), ("ram", h.ram), ("gpu", h.gpu)] {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(TopologyError::Capacity {
                        what,
                        name: h.name.clone(),
                        value,
                        bound: ">= 0",
                    });
                }
            }
        }
        let nodes = hosts.len() + switches.len();
        let mut incident = vec![Vec::new(); nodes];
        for (index, l) in links.iter().enumerate() {
            if l.a >= nodes || l.b >= nodes || l.a == l.b {
                return Err(TopologyError::BadEnds {
                    index,
                    a: l.a,
                    b: l.b,
                });
            }
            if !(l.mbps.is_finite() && l.mbps > 0.0) {
                return Err(TopologyError::Capacity {
                    what: "mbps",
                    name: format!("link {index}"),
                    value: l.mbps,
                    bound: "> 0",
                });
            }
            incident[l.a].push(index);
            incident[l.b].push(index);
        }
        Ok(Topology {
            hosts,
            switches,
            links,
            incident,
        })
    }

    /// The servers, node indices `0..hosts().len()`.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The switches' names, node indices from `hosts().len()` on.
    pub fn switches(&self) -> &[String] {
        &self.switches
    }

    /// The links.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The links at node `n`.
    pub fn incident(&self, n: usize) -> &[usize] {
        &self.incident[n]
    }

    /// Hosts plus switches.
    pub fn nodes(&self) -> usize {
        self.incident.len()
    }

    /// The node at the other end of link `l` from `n`.
    pub fn other_end(&self, l: usize, n: usize) -> usize {
        let link = &self.links[l];
        if link.a == n {
            link.b
        } else {
            link.a
        }
    }

    /// A node's name (a host's or a switch's).
    pub fn node_name(&self, n: usize) -> &str {
        match self.hosts.get(n) {
            Some(h) => &h.name,
            None => &self.switches[n - self.hosts.len()],
        }
    }
}
