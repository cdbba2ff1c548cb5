//! Service classes of cloud jobs (`classes:` and `default_class:` in the
//! config; docs/qos.md): what each finished cloud job delivered against its
//! class's availability SLO, exported per class as `interstice_class_*`.
//!
//! A job's class comes with it: `class` of `POST /v1/jobs` (`interstice
//! submit --class`), or `class=` in a Slurm job's marker (`sbatch --class`).
//! Availability, deficit and penalty are core's rules
//! ([`interstice_core::qos::Delivered`]); the daemon only says how long a
//! job ran (`e`), ran for nothing (`d`: runs thrown away by evictions) and
//! waited (`p`). Which job is evicted is not the class's to decide here: the
//! engine evicts the cloud work on the processors HPC work takes, Slurm its
//! own way (docs/qos.md, "On Slurm").

use interstice_core::qos::{gini, meets, Delivered, ServiceClass};
use interstice_core::{EndReason, Time};
use prometheus::{CounterVec, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry};
use std::sync::{Arc, Mutex};

/// The fairness window of `interstice_class_availability_gini`, seconds
/// (the seeds' 10 minutes).
pub const GINI_WINDOW_SECONDS: f64 = 600.0;

/// The configured classes and the class of a job that names none.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassTable {
    /// In the config's order.
    pub classes: Vec<ServiceClass>,
    /// Index of `default_class`, if set.
    pub default: Option<usize>,
}

impl ClassTable {
    /// The index of the class `name` names, or of the default class when it
    /// names none (`Ok(None)`: no class and no default); an unknown name is
    /// an error listing the classes.
    pub fn index(&self, name: Option<&str>) -> Result<Option<usize>, String> {
        match name {
            None => Ok(self.default),
            Some(name) => self
                .classes
                .iter()
                .position(|class| class.name == name)
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "unknown class {name:?}: this daemon's classes are {}",
                        self.names().join(", ")
                    )
                }),
        }
    }

    /// The class names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.classes.iter().map(|class| class.name.as_str()).collect()
    }
}

/// How one finished cloud job spent its time in the system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Served {
    /// Index into the [`ClassTable`].
    pub class: usize,
    /// Processors.
    pub procs: u32,
    /// When it ended (the daemon's clock).
    pub end: Time,
    /// `e`: run time that counted (its last run, unless an eviction ended it).
    pub ran: Time,
    /// `d`: run time thrown away by evictions.
    pub discarded: Time,
    /// `p`: time waiting.
    pub waited: Time,
    /// It completed (not evicted, killed or cut at its walltime).
    pub completed: bool,
}

impl Served {
    /// From a job's first arrival, its last run `[start, end)` (`None`: it
    /// never ran), all the run time thrown away by evictions (the last run's
    /// included when an eviction ended it) and why the last run ended: it
    /// counts unless an eviction ended it, and the job completed only when
    /// it ran to its own end.
    pub fn of(
        class: usize,
        procs: u32,
        arrival: Time,
        last_run: (Option<Time>, Time),
        discarded: Time,
        reason: EndReason,
    ) -> Served {
        let (start, end) = last_run;
        let ran = match start {
            Some(start) if reason != EndReason::Evicted => (end - start).max(Time::ZERO),
            _ => Time::ZERO,
        };
        let in_system = (end - arrival).max(Time::ZERO);
        Served {
            class,
            procs: procs.max(1),
            end,
            ran,
            discarded,
            waited: (in_system - ran - discarded).max(Time::ZERO),
            completed: reason == EndReason::Completed && start.is_some(),
        }
    }
}

/// The `interstice_class_*` series.
#[derive(Clone, Debug)]
pub struct ClassMetrics {
    table: Arc<ClassTable>,
    finished: IntCounterVec,
    met: IntCounterVec,
    availability: HistogramVec,
    deficit: CounterVec,
    penalty: CounterVec,
    gini: GaugeVec,
    window: Arc<Mutex<Window>>,
}

/// The availabilities of the jobs finished in the current Gini window.
#[derive(Debug, Default)]
struct Window {
    /// Start of the current window, seconds (`None` before the first job).
    start: Option<f64>,
    /// Per class.
    values: Vec<Vec<f64>>,
}

impl ClassMetrics {
    /// Registers the series in `registry`, one sample per class from the start.
    pub fn register(registry: &Registry, table: ClassTable) -> Result<ClassMetrics, prometheus::Error> {
        let opts = |name: &str, help: &str| Opts::new(name, help).namespace("interstice").subsystem("class");
        let finished = IntCounterVec::new(
            opts(
                "cloud_jobs_finished_total",
                "Cloud jobs of the class that finished (completed, evicted for good, killed), by class",
            ),
            &["class"],
        )?;
        let met = IntCounterVec::new(
            opts(
                "availability_slo_met_total",
                "Finished cloud jobs whose availability e/(e+d+p) met the class's availability SLO",
            ),
            &["class"],
        )?;
        let availability = HistogramVec::new(
            HistogramOpts::from(opts(
                "availability",
                "Availability e/(e+d+p) of finished cloud jobs: run time that counted over time in the system",
            ))
            .buckets(vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0]),
            &["class"],
        )?;
        let deficit = CounterVec::new(
            opts(
                "availability_deficit_total",
                "Sum over finished cloud jobs of max(0, availability SLO - availability)",
            ),
            &["class"],
        )?;
        let penalty = CounterVec::new(
            opts(
                "penalty_slot_seconds_total",
                "Penalty of finished cloud jobs that missed the availability SLO, P = deficit x duration x procs x (1 + credit), slot-seconds",
            ),
            &["class"],
        )?;
        let gini = GaugeVec::new(
            opts(
                "availability_gini",
                "Gini coefficient of the availabilities of the class's cloud jobs that finished in the last complete 10-minute window (NaN: none finished)",
            ),
            &["class"],
        )?;
        registry.register(Box::new(finished.clone()))?;
        registry.register(Box::new(met.clone()))?;
        registry.register(Box::new(availability.clone()))?;
        registry.register(Box::new(deficit.clone()))?;
        registry.register(Box::new(penalty.clone()))?;
        registry.register(Box::new(gini.clone()))?;
        for name in table.names() {
            finished.with_label_values(&[name]);
            met.with_label_values(&[name]);
            availability.with_label_values(&[name]);
            deficit.with_label_values(&[name]);
            penalty.with_label_values(&[name]);
            gini.with_label_values(&[name]).set(f64::NAN);
        }
        let window = Window {
            start: None,
            values: vec![Vec::new(); table.classes.len()],
        };
        Ok(ClassMetrics {
            table: Arc::new(table),
            finished,
            met,
            availability,
            deficit,
            penalty,
            gini,
            window: Arc::new(Mutex::new(window)),
        })
    }

    /// The classes.
    pub fn table(&self) -> &ClassTable {
        &self.table
    }

    /// Count one finished job.
    pub fn observe(&self, served: &Served) {
        let Some(class) = self.table.classes.get(served.class) else {
            return;
        };
        let name = class.name.as_str();
        let delivered = Delivered::of(
            class,
            served.procs,
            (served.ran, served.discarded, served.waited),
            served.completed,
        );
        self.finished.with_label_values(&[name]).inc();
        // Core counts slot-hours, as the seeds do; Prometheus wants base units.
        self.penalty
            .with_label_values(&[name])
            .inc_by(delivered.penalty * 3600.0);
        let Some(availability) = delivered.availability else {
            return;
        };
        self.availability.with_label_values(&[name]).observe(availability);
        if meets(availability, class.slo) {
            self.met.with_label_values(&[name]).inc();
        }
        if let Some(deficit) = delivered.deficit {
            self.deficit.with_label_values(&[name]).inc_by(deficit);
        }
        let mut window = self.window.lock().unwrap_or_else(|p| p.into_inner());
        let this = window_start(served.end);
        self.advance(&mut window, this);
        // A job reported after its window closed (a late read of Slurm's
        // queue) is counted everywhere but in a Gini already published.
        if window.start == Some(this) {
            window.values[served.class].push(availability);
        }
    }

    /// Close the Gini window the clock has left, so that the gauge is the
    /// last complete window's even when no job finishes for a while (the
    /// actor calls it with its telemetry).
    pub fn tick(&self, now: Time) {
        let mut window = self.window.lock().unwrap_or_else(|p| p.into_inner());
        self.advance(&mut window, window_start(now));
    }

    /// Move the current window forward to the one starting at `to`: the
    /// gauge becomes the Gini of the window just left when `to` follows it,
    /// NaN when an empty window came between.
    fn advance(&self, window: &mut Window, to: f64) {
        match window.start {
            None => window.start = Some(to),
            Some(start) if to > start => {
                let adjacent = to == start + GINI_WINDOW_SECONDS;
                for (index, class) in self.table.classes.iter().enumerate() {
                    let values = &window.values[index];
                    let value = if adjacent && !values.is_empty() {
                        gini(values)
                    } else {
                        f64::NAN
                    };
                    self.gini.with_label_values(&[&class.name]).set(value);
                }
                window.values.iter_mut().for_each(Vec::clear);
                window.start = Some(to);
            }
            Some(_) => {}
        }
    }
}

/// The start of the Gini window `at` falls in, seconds.
fn window_start(at: Time) -> f64 {
    (at.as_secs_f64() / GINI_WINDOW_SECONDS).floor() * GINI_WINDOW_SECONDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

    fn table() -> ClassTable {
        ClassTable {
            classes: ServiceClass::paper_classes(),
            default: Some(2),
        }
    }

    fn secs(s: i64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn names_resolve_to_classes_or_the_default() {
        let t = table();
        assert_eq!(t.index(Some("silver")), Ok(Some(1)));
        assert_eq!(t.index(None), Ok(Some(2)));
        let err = t.index(Some("platinum")).unwrap_err();
        assert!(err.contains("gold, silver, bronze"), "{err}");
        let no_default = ClassTable { default: None, ..t };
        assert_eq!(no_default.index(None), Ok(None));
    }

    #[test]
    fn served_splits_the_time_in_the_system() {
        // Arrived at 0, a run of 30 s thrown away, last run [100, 160): e 60, d 30, p 70.
        let s = Served::of(
            0,
            2,
            secs(0),
            (Some(secs(100)), secs(160)),
            secs(30),
            EndReason::Completed,
        );
        assert_eq!((s.ran, s.discarded, s.waited), (secs(60), secs(30), secs(70)));
        // The last run evicted for good too: nothing counted.
        let s = Served::of(
            0,
            2,
            secs(0),
            (Some(secs(100)), secs(160)),
            secs(90),
            EndReason::Evicted,
        );
        assert_eq!((s.ran, s.discarded, s.waited), (secs(0), secs(90), secs(70)));
        // Never ran.
        let s = Served::of(0, 2, secs(0), (None, secs(50)), secs(0), EndReason::Killed);
        assert_eq!((s.ran, s.discarded, s.waited), (secs(0), secs(0), secs(50)));
    }

    #[test]
    fn finished_jobs_feed_each_class_and_its_gini_per_window() {
        let mut metrics = Metrics::new();
        metrics.set_classes(table()).unwrap();
        let text = metrics.render();
        assert!(
            text.contains("interstice_class_cloud_jobs_finished_total{class=\"bronze\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("interstice_class_availability_gini{class=\"gold\"} NaN"),
            "{text}"
        );
        // Silver (SLO 0.9): one job at A = 1 (met), one at A = 0.5 (missed).
        let job = |ran: i64, waited: i64, end: i64| Served {
            class: 1,
            procs: 4,
            end: secs(end),
            ran: secs(ran),
            discarded: secs(0),
            waited: secs(waited),
            completed: true,
        };
        metrics.class_served(&job(100, 0, 100));
        metrics.class_served(&job(3600, 3600, 200));
        let text = metrics.render();
        for (series, value) in [
            (
                "interstice_class_cloud_jobs_finished_total{class=\"silver\"}",
                2.0,
            ),
            (
                "interstice_class_availability_slo_met_total{class=\"silver\"}",
                1.0,
            ),
            (
                "interstice_class_availability_deficit_total{class=\"silver\"}",
                0.4,
            ),
            // P = 0.4 × 1 h × 4 slots × (1 + 1) = 3.2 slot-hours: A = 0.5 is below every band.
            (
                "interstice_class_penalty_slot_seconds_total{class=\"silver\"}",
                3.2 * 3600.0,
            ),
            ("interstice_class_availability_count{class=\"silver\"}", 2.0),
        ] {
            let got = crate::metrics::sample(&text, series);
            assert!((got - value).abs() < 1e-9, "{series} = {got}, not {value}");
        }
        // Both finished in [0, 600): the window closes with the next job, at 700.
        assert!(text.contains("interstice_class_availability_gini{class=\"silver\"} NaN"));
        metrics.class_served(&job(100, 0, 700));
        let text = metrics.render();
        // Gini of {1, 0.5} = 1/6.
        assert!(
            text.contains("interstice_class_availability_gini{class=\"silver\"} 0.16666666666666"),
            "{text}"
        );
        assert!(text.contains("interstice_class_availability_gini{class=\"gold\"} NaN"));
        // The clock alone closes a window: [600, 1200) held one job (Gini 0).
        metrics.class_tick(secs(1300));
        assert!(metrics
            .render()
            .contains("interstice_class_availability_gini{class=\"silver\"} 0"));
        // A job reported after its window closed changes no published Gini.
        metrics.class_served(&job(3600, 3600, 1100));
        assert!(metrics
            .render()
            .contains("interstice_class_availability_gini{class=\"silver\"} 0"));
        // A window with no job at all before the next one: undefined again.
        metrics.class_served(&job(100, 0, 2500));
        assert!(metrics
            .render()
            .contains("interstice_class_availability_gini{class=\"silver\"} NaN"));
    }
}
