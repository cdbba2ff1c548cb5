//! The limits of one run of a job, and the rule that turns the engine's
//! processors into the node's CPUs.

use interstice_core::ProcSet;

/// The limits of one run of a job (None: not limited).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobLimits {
    /// The node CPUs it may run on (empty: not pinned).
    pub cpus: Vec<u32>,
    /// Memory (`memory.max`, `memory.limit_in_bytes`), bytes.
    pub memory_bytes: Option<u64>,
    /// Processes and threads (`pids.max`).
    pub pids: Option<u64>,
    /// CPU time, in processors (`cpu.max`, `cpu.cfs_quota_us`).
    pub cpu_quota: Option<u32>,
}

/// The node CPUs of the engine's processors `procs`: processor `i` is the
/// `i`-th CPU the daemon may use (`allowed`, ascending), wrapping around
/// when the engine has more processors than the node has CPUs. Empty when
/// either is.
pub fn map_cpus(procs: &ProcSet, allowed: &[u32]) -> Vec<u32> {
    if allowed.is_empty() {
        return Vec::new();
    }
    let mut cpus: Vec<u32> = procs
        .iter()
        .map(|proc| allowed[proc as usize % allowed.len()])
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// The engine's processors (of `width`) that run on the node CPUs `cpus`:
/// the inverse of [`map_cpus`] (processor `i` is on CPU `allowed[i]`); CPUs
/// the daemon may not use hold no processor. An engine with more
/// processors than the daemon has CPUs (or none known) does not map its
/// processors one to one onto CPUs: there processor ids are taken as CPU
/// ids.
pub fn procs_on(cpus: &ProcSet, allowed: &[u32], width: u32) -> ProcSet {
    if allowed.len() < width as usize {
        return ProcSet::from_ids(cpus.iter().filter(|&cpu| cpu < width));
    }
    ProcSet::from_ids((0..width).filter(|&proc| cpus.contains(allowed[proc as usize])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch system's report of a job's CPUs names the processors the
    /// engine would place on them: an HPC job on CPU 6 holds processor 2.
    /// With more processors than CPUs, processor ids are CPU ids.
    #[test]
    fn cpus_map_back_onto_the_engines_processors() {
        let allowed = [2, 3, 6, 7];
        let on = |cpus: &[u32], width| procs_on(&ProcSet::from_ids(cpus.iter().copied()), &allowed, width);
        assert_eq!(on(&[6], 4), ProcSet::from_ids([2]));
        assert_eq!(on(&[2, 7], 4), ProcSet::from_ids([0, 3]));
        assert_eq!(
            on(&[2, 7], 3),
            ProcSet::from_ids([0]),
            "CPU 7 is processor 3, beyond 3 processors"
        );
        assert!(on(&[0, 1], 4).is_empty(), "CPUs the daemon may not use");
        assert_eq!(
            on(&[0, 5], 6),
            ProcSet::from_ids([0, 5]),
            "6 processors on 4 CPUs: ids are CPUs"
        );
        for proc in 0..4 {
            let set = ProcSet::from_ids([proc]);
            let cpus: Vec<u32> = map_cpus(&set, &allowed);
            assert_eq!(on(&cpus, 4), set, "the inverse of map_cpus");
        }
        assert_eq!(
            procs_on(&ProcSet::from_ids([1, 5]), &[], 4),
            ProcSet::from_ids([1]),
            "unknown: ids are CPUs"
        );
    }

    /// The engine's processors land on the CPUs the daemon may use, and a
    /// job placed again after an eviction gets the CPUs of its new place.
    #[test]
    fn processors_map_onto_the_allowed_cpus() {
        let allowed = [2, 3, 6, 7];
        assert_eq!(map_cpus(&ProcSet::from_ids([0]), &allowed), vec![2]);
        assert_eq!(map_cpus(&ProcSet::from_ids([1, 3]), &allowed), vec![3, 7]);
        // Re-placed on processor 2 after an eviction: CPU 6, not 2.
        assert_eq!(map_cpus(&ProcSet::from_ids([2]), &allowed), vec![6]);
        // More processors than CPUs: they wrap around.
        assert_eq!(map_cpus(&ProcSet::from_ids([4, 5]), &allowed), vec![2, 3]);
        assert!(map_cpus(&ProcSet::from_ids([0]), &[]).is_empty());
    }
}
