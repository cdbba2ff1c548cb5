//! A user's request `Req(N^c, E^c)` (Table 5): containers with `[min, max]`
//! of each resource, optionally grouped into pods, and virtual links with
//! `[bw_min, bw_max]` between pairs of them; its submission `sub_I`, its
//! processing time `proc_I` and its optional `deadline_I`, all in events
//! (the seed's unit of time: integer ticks).

/// `[min, max]` of one resource or one virtual link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// What the container cannot run without.
    pub min: f64,
    /// What gives it its best performance (the utility's denominator).
    pub max: f64,
}

impl Span {
    /// `[v, v]`.
    pub fn exactly(v: f64) -> Span {
        Span { min: v, max: v }
    }

    /// The `step`-th of the seed's levels (§3.8, `verifica_min_max`): the
    /// max, then 10 % of `max − min` less at each step, never below min.
    pub fn level(&self, step: u32) -> f64 {
        (self.max - f64::from(step) * 0.1 * (self.max - self.min)).max(self.min)
    }
}

/// Resources a container asks for, as `[min, max]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Container {
    /// CPU cores.
    pub cpu: Span,
    /// RAM, GB.
    pub ram: Span,
    /// GPUs.
    pub gpu: Span,
    /// Containers of one request with the same pod share a server (§3.3).
    pub pod: Option<u32>,
}

/// A virtual link `ij ∈ E^c` between two containers of the request.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualLink {
    /// A container's index in the request.
    pub a: usize,
    /// The other's.
    pub b: usize,
    /// Mbps.
    pub mbps: Span,
}

/// A request `I`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Its identifier (unique in a run).
    pub id: u64,
    /// `sub_I`, events.
    pub submit: u64,
    /// `proc_I`, events (≥ 1).
    pub proc: u64,
    /// `deadline_I`: the request must end by then (`None`: infinite).
    pub deadline: Option<u64>,
    /// `N^c`.
    pub containers: Vec<Container>,
    /// `E^c`.
    pub links: Vec<VirtualLink>,
}

/// What is wrong with a request (the reader adds the file and line).
#[derive(Clone, Debug, PartialEq)]
pub enum RequestError {
    /// No container.
    NoContainer,
    /// `proc` is 0.
    NoProcessingTime,
    /// A span with min > max, a negative or non-finite bound.
    BadSpan {
        /// `containers[2].cpu`, `links[0].mbps`.
        field: String,
        /// The span given.
        span: Span,
    },
    /// A virtual link naming a container that does not exist, or itself.
    BadLinkEnds {
        /// The link's index.
        index: usize,
    },
    /// A deadline before `submit + proc`: it can never be met.
    DeadlineTooSoon {
        /// The deadline.
        deadline: u64,
        /// `submit + proc`.
        earliest_end: u64,
    },
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::NoContainer => write!(f, "containers: is empty: give at least one container"),
            RequestError::NoProcessingTime => {
                write!(f, "proc: is 0: give the processing time in events, >= 1")
            }
            RequestError::BadSpan { field, span } => write!(
                f,
                "{field}: [{}, {}] is not a span: give 0 <= min <= max (finite)",
                span.min, span.max
            ),
            RequestError::BadLinkEnds { index } => write!(
                f,
                "links[{index}]: its ends must be two different container indices of the request (0-based)"
            ),
            RequestError::DeadlineTooSoon {
                deadline,
                earliest_end,
            } => write!(
                f,
                "deadline: {deadline} is before submit + proc = {earliest_end}: give a later deadline or none"
            ),
        }
    }
}

impl std::error::Error for RequestError {}

impl Request {
    /// Check the request's own consistency.
    pub fn check(&self) -> Result<(), RequestError> {
        if self.containers.is_empty() {
            return Err(RequestError::NoContainer);
        }
        if self.proc == 0 {
            return Err(RequestError::NoProcessingTime);
        }
        let good = |s: &Span| s.min.is_finite() && s.max.is_finite() && 0.0 <= s.min && s.min <= s.max;
        for (i, c) in self.containers.iter().enumerate() {
            for (name, span) in [("cpu", c.cpu), ("ram", c.ram), ("gpu", c.gpu)] {
                if !good(&span) {
                    return Err(RequestError::BadSpan {
                        field: format!("containers[{i}].{name}"),
                        span,
                    });
                }
            }
        }
        for (index, l) in self.links.iter().enumerate() {
            if l.a >= self.containers.len() || l.b >= self.containers.len() || l.a == l.b {
                return Err(RequestError::BadLinkEnds { index });
            }
            if !good(&l.mbps) {
                return Err(RequestError::BadSpan {
                    field: format!("links[{index}].mbps"),
                    span: l.mbps,
                });
            }
        }
        if let Some(deadline) = self.deadline {
            let earliest_end = self.submit.saturating_add(self.proc);
            if deadline < earliest_end {
                return Err(RequestError::DeadlineTooSoon {
                    deadline,
                    earliest_end,
                });
            }
        }
        Ok(())
    }

    /// The request's pods (Algorithm 1's `pod_g`): lists of container
    /// indices that share a server, in the order of their first container;
    /// a container without a pod is a pod of its own.
    pub fn pods(&self) -> Vec<Vec<usize>> {
        let mut pods: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
        for (i, c) in self.containers.iter().enumerate() {
            match c.pod.and_then(|p| pods.iter().position(|(q, _)| *q == Some(p))) {
                Some(at) => pods[at].1.push(i),
                None => pods.push((c.pod, vec![i])),
            }
        }
        pods.into_iter().map(|(_, members)| members).collect()
    }
}

#[cfg(test)]
impl Container {
    /// The tests' container: CPU and RAM `(min, max)`, no GPU, in `pod`.
    pub(crate) fn cpu_ram(cpu: (f64, f64), ram: (f64, f64), pod: Option<u32>) -> Container {
        Container {
            cpu: Span {
                min: cpu.0,
                max: cpu.1,
            },
            ram: Span {
                min: ram.0,
                max: ram.1,
            },
            gpu: Span::exactly(0.0),
            pod,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(cpu: (f64, f64), ram: (f64, f64), pod: Option<u32>) -> Container {
        Container::cpu_ram(cpu, ram, pod)
    }

    #[test]
    fn levels_step_down_by_a_tenth_of_the_span() {
        let s = Span { min: 2.0, max: 4.0 };
        assert_eq!(s.level(0), 4.0);
        assert!((s.level(1) - 3.8).abs() < 1e-12);
        assert!((s.level(5) - 3.0).abs() < 1e-12);
        assert_eq!(s.level(10), 2.0);
        assert_eq!(s.level(12), 2.0);
    }

    #[test]
    fn pods_group_containers_and_checks_name_the_field() {
        let mut r = Request {
            id: 1,
            submit: 5,
            proc: 10,
            deadline: None,
            containers: vec![
                container((1.0, 2.0), (1.0, 1.0), Some(7)),
                container((1.0, 2.0), (1.0, 1.0), None),
                container((1.0, 2.0), (1.0, 1.0), Some(7)),
            ],
            links: vec![],
        };
        assert_eq!(r.pods(), vec![vec![0, 2], vec![1]]);
        assert_eq!(r.check(), Ok(()));
        r.containers[1].ram = Span { min: 3.0, max: 1.0 };
        assert!(r
            .check()
            .unwrap_err()
            .to_string()
            .starts_with("containers[1].ram"));
        r.containers[1].ram = Span::exactly(1.0);
        r.deadline = Some(14);
        assert_eq!(
            r.check(),
            Err(RequestError::DeadlineTooSoon {
                deadline: 14,
                earliest_end: 15
            })
        );
    }
}
