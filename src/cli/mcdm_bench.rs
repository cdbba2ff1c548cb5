//! `interstice bench placement --fat-tree-k 4,8,… --containers 1,64,…`:
//! seed 003's scalability experiment (§4.1, Figs. 16–18) on the CPU — one
//! request of N small homogeneous containers placed by AHP and by TOPSIS
//! (Flat weights) on a k-ary fat-tree of 24-core, 256 GB servers. A cell
//! over the budget stops that method's larger requests on that tree and
//! larger trees (the seed's 900 s ceiling, here `--budget`).

use interstice_core::mcdm::choose::{Chooser, Profile};
use interstice_core::mcdm::fat_tree::{fat_tree, FatTreeSpec};
use interstice_core::mcdm::queue::QueueOrder;
use interstice_core::mcdm::simulate::{simulate, RunConfig};
use interstice_core::mcdm::Method;
use interstice_swf::container_requests::scalability_request;
use std::time::Instant;

/// Time every (method, k, containers) cell within `budget` seconds each.
pub fn bench(ks: &[usize], containers: &[usize], budget: f64) -> anyhow::Result<()> {
    for method in Method::ALL {
        let chooser = Chooser::Mcdm {
            method,
            weights: Profile::Flat.weights(),
        };
        // The largest request that fit the budget on the last tree.
        let mut ceiling = usize::MAX;
        for &k in ks {
            let topology = fat_tree(&FatTreeSpec::seed(k))
                .map_err(|e| super::flags::Usage(format!("--fat-tree-k: {e}")))?;
            for &c in containers.iter().filter(|&&c| c <= ceiling) {
                let request = scalability_request(c);
                let config = RunConfig {
                    order: QueueOrder::Fcfs,
                    resubmit: None,
                };
                let t0 = Instant::now();
                let out = simulate(&topology, std::slice::from_ref(&request), config, &|v: &[_]| {
                    chooser.order(v)
                });
                let secs = t0.elapsed().as_secs_f64();
                outln!(
                    "{}: fat-tree k={k} ({} servers), {c} containers: {secs:.3} s ({} placed)",
                    method.name(),
                    topology.hosts().len(),
                    out.summary.placed
                )?;
                outln!("METRIC:mcdm_{}_k{k}_c{c}:{:.3}:ms", method.name(), secs * 1e3)?;
                if secs > budget {
                    outln!(
                        "{}: over the {budget} s budget: no larger request on this tree or larger ones",
                        method.name()
                    )?;
                    ceiling = c.saturating_sub(1);
                    break;
                }
            }
        }
    }
    Ok(())
}
