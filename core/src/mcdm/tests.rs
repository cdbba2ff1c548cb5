//! Hand-computed scenarios of the scheduler: min/max levels, pods, the
//! network, resubmission and deadlines.

use super::place::{network_utilities, place, request_utilities, ServerValues};
use super::queue::QueueOrder;
use super::request::{Container, Request, Span, VirtualLink};
use super::simulate::{simulate, Fate, RunConfig};
use super::state::State;
use super::topology::{Host, Link, Topology};

/// First fit: the candidates in server order.
fn first_fit(values: &[ServerValues]) -> Vec<usize> {
    (0..values.len()).collect()
}

fn host(name: &str, cpu: f64, ram: f64) -> Host {
    Host {
        name: name.into(),
        cpu,
        ram,
        gpu: 0.0,
    }
}

fn container(cpu: (f64, f64), ram: (f64, f64), pod: Option<u32>) -> Container {
    Container::cpu_ram(cpu, ram, pod)
}

fn request(id: u64, submit: u64, proc: u64, containers: Vec<Container>) -> Request {
    Request {
        id,
        submit,
        proc,
        deadline: None,
        containers,
        links: vec![],
    }
}

/// Hosts a (0), b (1) on one switch s (2), 1 Gbps each.
fn pair(a: Host, b: Host) -> Topology {
    let l = |a, b| Link { a, b, mbps: 1000.0 };
    Topology::new(vec![a, b], vec!["s".into()], vec![l(0, 2), l(1, 2)]).unwrap()
}

#[test]
fn a_pod_gets_the_first_level_that_fits_and_stays_on_one_server() {
    // Two containers of one pod ask [2, 6] cores each on a 10-core server:
    // 12 at max; each step takes 0.4 from each; step 3 gives 4.8 + 4.8 = 9.6.
    let t = pair(host("a", 10.0, 8.0), host("b", 10.0, 8.0));
    let mut state = State::new(&t);
    let r = request(
        1,
        0,
        5,
        vec![
            container((2.0, 6.0), (1.0, 1.0), Some(0)),
            container((2.0, 6.0), (1.0, 1.0), Some(0)),
        ],
    );
    let alloc = place(&t, &mut state, &r, &first_fit).unwrap();
    for (u, res) in &alloc.containers {
        assert_eq!(*u, 0);
        assert!((res[0] - 4.8).abs() < 1e-9, "{res:?}");
        assert_eq!(res[1], 1.0);
    }
    assert!((state.free[0][0] - 0.4).abs() < 1e-9);
    // U(i) = (4.8/6 + 1/1) / 2 = 0.9 for each container
    for u in request_utilities(&r, &alloc) {
        assert!((u.unwrap() - 0.9).abs() < 1e-9);
    }
    // A third container of [1, 3] cores: 0.4 left on a, so b, at its max 3.
    let r2 = request(2, 0, 5, vec![container((1.0, 3.0), (1.0, 1.0), None)]);
    let alloc2 = place(&t, &mut state, &r2, &first_fit).unwrap();
    assert_eq!(alloc2.containers, vec![(1, [3.0, 1.0, 0.0])]);
}

#[test]
fn min_and_max_bound_what_a_container_gets() {
    // [3, 5] cores on a 4-core server: never more than 5, never below 3;
    // 5 - 0.2·step ≤ 4 at step 5: 4.0.
    let t = pair(host("a", 4.0, 8.0), host("b", 2.0, 8.0));
    let mut state = State::new(&t);
    let r = request(1, 0, 5, vec![container((3.0, 5.0), (2.0, 16.0), None)]);
    let alloc = place(&t, &mut state, &r, &first_fit).unwrap();
    let (u, res) = alloc.containers[0];
    assert_eq!(u, 0);
    assert!((res[0] - 4.0).abs() < 1e-9);
    // RAM [2, 16] on 8 GB: 16 - 1.4·step ≤ 8 at step 6: 7.6.
    assert!((res[1] - 7.6).abs() < 1e-9);
    // A second one finds a with 0 cores and b with 2 < 3: not placed, and
    // the state is as it was.
    let before = state.free.clone();
    assert!(place(&t, &mut state, &r, &first_fit).is_err());
    assert_eq!(state.free, before);
}

#[test]
fn a_virtual_link_takes_the_widest_path_and_a_level_it_fits() {
    // Hosts a (0), b (1) of one core; switches s (2), t (3), u (4), v (5):
    // a–s–b bottlenecks at 100 Mbps, a–t–u–v–b at 400.
    let l = |a, b, mbps| Link { a, b, mbps };
    let t = Topology::new(
        vec![host("a", 1.0, 1.0), host("b", 1.0, 1.0)],
        vec!["s".into(), "t".into(), "u".into(), "v".into()],
        vec![
            l(0, 2, 1000.0),
            l(2, 1, 100.0),
            l(0, 3, 1000.0),
            l(3, 4, 400.0),
            l(4, 5, 500.0),
            l(5, 1, 1000.0),
        ],
    )
    .unwrap();
    let mut state = State::new(&t);
    let mut r = request(
        1,
        0,
        5,
        vec![
            container((1.0, 1.0), (1.0, 1.0), None),
            container((1.0, 1.0), (1.0, 1.0), None),
        ],
    );
    // [100, 500] Mbps: 500 − 40·step ≤ 400 at step 3: 380.
    r.links = vec![VirtualLink {
        a: 0,
        b: 1,
        mbps: Span {
            min: 100.0,
            max: 500.0,
        },
    }];
    let alloc = place(&t, &mut state, &r, &first_fit).unwrap();
    assert_eq!(alloc.links, vec![(vec![2, 3, 4, 5], 380.0)]);
    assert_eq!(state.bandwidth[3], 20.0);
    assert_eq!(state.flows, vec![0, 0, 1, 1, 1, 1]);
    assert!((network_utilities(&r, &alloc)[0].unwrap() - 0.76).abs() < 1e-12);
}

/// One 4-core server; A takes it all from 0 to 10; B (2 cores, 5 events)
/// comes at 1.
fn blocked() -> (Topology, Vec<Request>) {
    let t = Topology::new(vec![host("a", 4.0, 8.0)], vec![], vec![]).unwrap();
    let a = request(1, 0, 10, vec![container((4.0, 4.0), (1.0, 1.0), None)]);
    let b = request(2, 1, 5, vec![container((2.0, 2.0), (1.0, 1.0), None)]);
    (t, vec![a, b])
}

#[test]
fn with_resubmission_a_request_waits_for_an_end() {
    let (t, requests) = blocked();
    let config = RunConfig {
        order: QueueOrder::Fcfs,
        resubmit: Some(3),
    };
    let out = simulate(&t, &requests, config, &first_fit);
    // B fails at 1, retries at max(1 + 3, 10) = 10, when A has ended.
    assert!(matches!(out.fates[1], Fate::Placed { start: 10, .. }));
    let s = &out.summary;
    assert_eq!((s.placed, s.delayed, s.unplaced), (2, 1, 0));
    assert_eq!(s.total_delay, 9);
    assert_eq!(s.attempts, 3);
    // slowdowns 1 and (9 + 5) / 5 = 2.8
    assert!((s.mean_slowdown.unwrap() - 1.9).abs() < 1e-12);
    // CPU: 4 cores over [0, 10), 2 over [10, 15): (40 + 10) / (4 · 15)
    assert!((s.cpu_footprint.unwrap() - 50.0 / 60.0).abs() < 1e-12);
    assert_eq!(s.server_fragmentation, Some(1.0));
    assert_eq!(s.network_utility, None);
}

#[test]
fn without_resubmission_or_past_its_deadline_it_is_unplaced() {
    let (t, mut requests) = blocked();
    let once = RunConfig {
        order: QueueOrder::Fcfs,
        resubmit: None,
    };
    let out = simulate(&t, &requests, once, &first_fit);
    assert_eq!(out.fates[1], Fate::Unplaced { deadline: false });
    assert_eq!((out.summary.placed, out.summary.unplaced), (1, 1));
    assert_eq!(out.summary.mean_delay, Some(0.0));
    // With resubmission but a deadline of 14: the retry at 10 would end at 15.
    requests[1].deadline = Some(14);
    let retry = RunConfig {
        resubmit: Some(3),
        ..once
    };
    let out = simulate(&t, &requests, retry, &first_fit);
    assert_eq!(out.fates[1], Fate::Unplaced { deadline: true });
    assert_eq!(out.summary.unplaced_deadline, 1);
    // A request larger than the empty data center is never retried forever.
    requests[1].deadline = None;
    requests[1].containers[0].cpu = Span::exactly(5.0);
    let out = simulate(&t, &requests, retry, &first_fit);
    assert_eq!(out.fates[1], Fate::Unplaced { deadline: false });
}

#[test]
fn a_gpu_container_goes_only_where_gpus_are_free() {
    // Host a has no GPU, b has one: first fit would take a, the GPU
    // constraint leaves b; a second GPU container then fits nowhere.
    let mut b = host("b", 4.0, 8.0);
    b.gpu = 1.0;
    let t = pair(host("a", 4.0, 8.0), b);
    let mut state = State::new(&t);
    let mut c = container((1.0, 1.0), (1.0, 1.0), None);
    c.gpu = Span { min: 1.0, max: 2.0 };
    let r = request(1, 0, 5, vec![c]);
    let alloc = place(&t, &mut state, &r, &first_fit).unwrap();
    assert_eq!(alloc.containers, vec![(1, [1.0, 1.0, 1.0])]);
    assert_eq!(state.free[1][2], 0.0);
    assert!(place(&t, &mut state, &r, &first_fit).is_err());
}
