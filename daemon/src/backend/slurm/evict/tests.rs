//! The daemon's own eviction on Slurm, checked on captured `squeue` and
//! `scontrol` lines with hand-computed victims.

use super::*;
use crate::backend::slurm::cluster::parse_nodes;
use crate::backend::slurm::memory::MemoryRequest;
use crate::backend::slurm::parse_squeue;
use crate::backend::slurm::SlurmOutput;
use interstice_core::qos::ServiceClass;

const NOW: i64 = 1_800_000_000;

fn classes() -> ClassTable {
    ClassTable {
        classes: vec![
            ServiceClass::new("gold", 3, 1.0),
            ServiceClass::new("silver", 2, 0.9),
            ServiceClass::new("bronze", 1, 0.5),
        ],
        default: Some(2),
    }
}

fn policy(eviction: Eviction, tenants: Vec<Tenant>) -> Policy {
    Policy::new(eviction, Some(&classes()), tenants, "hpc", "cloud")
}

/// Three 4-CPU nodes in both partitions, `allocated` CPUs each.
fn cluster(allocated: [u32; 3], squeue: &str) -> SlurmState {
    let nodes = (0..3)
        .map(|i| {
            format!(
                "NodeName=n{} CPUAlloc={} CPUTot=4 State=MIXED Partitions=hpc,cloud\n",
                i + 1,
                allocated[i]
            )
        })
        .collect::<String>();
    SlurmState {
        jobs: parse_squeue(squeue).unwrap(),
        nodes: parse_nodes(&nodes).unwrap(),
        reservations: Vec::new(),
    }
}

/// A running cloud job line: submitted `ago` seconds ago, started at once.
fn cloud(id: u32, cpus: u32, node: &str, ago: i64, user: &str, class: &str) -> String {
    let (submit, end) = (NOW - ago, NOW + 3600);
    format!(
        "{id}|cloud|RUNNING|{cpus}|2:00:00|{submit}|{submit}|{end}|None|{node}|(null)|{user}|\
         interstice:accepted slo=100 class={class}\n"
    )
}

/// Three full 4-CPU nodes running the cloud jobs of the squeue `lines`,
/// with HPC job 9 pending behind them for four CPUs.
fn full_with_hpc_waiting(lines: &[String]) -> SlurmState {
    let mut squeue = lines.concat();
    squeue.push_str(&hpc(9, 4, "Resources"));
    cluster([4, 4, 4], &squeue)
}

fn hpc(id: u32, cpus: u32, reason: &str) -> String {
    format!("{id}|hpc|PENDING|{cpus}|1:00:00|{NOW}|N/A|N/A|{reason}||(null)|alice|(null)\n")
}

/// What `parse_need` reads from [`show_job`]'s line (`MinMemoryNode=0`:
/// the whole node's memory, counted only where nodes carry memory).
fn parsed_one_node(cpus: u32) -> Need {
    Need {
        memory: Some(MemoryRequest::WholeNode),
        ..one_node(cpus)
    }
}

fn one_node(cpus: u32) -> Need {
    Need {
        cpus,
        min_nodes: 1,
        max_nodes: Some(1),
        min_cpus_node: 1,
        exclusive: false,
        memory: None,
    }
}

/// The victims `eviction` (with `tenants`) picks in `state` for an HPC
/// job needing four CPUs on one node.
fn victim_for_one_node(eviction: Eviction, tenants: Vec<Tenant>, state: &SlurmState) -> Vec<String> {
    victims(&policy(eviction, tenants), state, one_node(4))
}

fn victims(policy: &Policy, state: &SlurmState, need: Need) -> Vec<String> {
    Evictor::default()
        .choose(policy, state, NOW, |_| Ok(Some(need.clone())))
        .into_iter()
        .map(|c| c.victim)
        .collect()
}

/// `scontrol -o show job` of a pending job, captured from Slurm 22.05.8,
/// with `fields` in place of its placement fields.
fn show_job(name: &str, fields: &str) -> String {
    format!(
        "JobId=6 JobName={name} UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901754 Nice=0 \
         Account=(null) QOS=(null) JobState=PENDING Reason=Resources Dependency=(null) Requeue=1 \
         Partition=hpc AllocNode:Sid=localhost:15448 ReqNodeList=(null) ExcNodeList=(null) NodeList= \
         SchedNodeList=vm {fields} ReqB:S:C:T=0:0:*:* TRES=cpu=4,mem=1000M,node=1,billing=4 \
         MinMemoryNode=0 Features=(null) DelayBoot=00:00:00 Contiguous=0 Licenses=(null) Network=(null) \
         Command=/home/u/run.sh WorkDir=/tmp StdErr=/tmp/slurm-6.out StdIn=/dev/null Power= \n"
    )
}

#[test]
fn needs_are_read_from_scontrol_and_placement_constraints_are_left_to_slurm() {
    let need = |name: &str, fields: &str| parse_need(&show_job(name, fields), "6", name);
    let fields = "NumNodes=1-1 NumCPUs=4 NumTasks=4 CPUs/Task=1 MinCPUsNode=1 OverSubscribe=OK";
    assert_eq!(need("wrap", fields), Some(parsed_one_node(4)));
    assert_eq!(
        need("x", "NumNodes=1 NumCPUs=6 MinCPUsNode=2 OverSubscribe=NO"),
        Some(Need {
            cpus: 6,
            min_nodes: 1,
            max_nodes: None,
            min_cpus_node: 2,
            exclusive: true,
            memory: Some(MemoryRequest::WholeNode),
        })
    );
    assert_eq!(need("x", "NumNodes=2-3 NumCPUs=2").unwrap().max_nodes, Some(3));
    assert_eq!(need("x", "NumNodes=x NumCPUs=2"), None);
    // A name that forges fields reads as it is: only its own line's fields count.
    let forged = "a NumCPUs=12 NumNodes=3-3 OverSubscribe=NO";
    assert_eq!(need(forged, fields), Some(parsed_one_node(4)));
    // A name other than the one squeue printed: not this job's line.
    assert_eq!(parse_need(&show_job(forged, fields), "6", "a"), None);
    assert_eq!(parse_need(&show_job("x", fields), "7", "x"), None);
    // Fields after the command are the user's: never read.
    let text = show_job("x", fields).replace("Command=/home/u/run.sh", "Command=/a ReqNodeList=n1");
    assert_eq!(parse_need(&text, "6", "x"), Some(parsed_one_node(4)));
    // Where it may run, the daemon does not judge.
    for (from, to) in [
        ("ReqNodeList=(null)", "ReqNodeList=n1"),
        ("ExcNodeList=(null)", "ExcNodeList=n[1-2]"),
        ("Features=(null)", "Features=gpu"),
        ("Licenses=(null)", "Licenses=matlab:1"),
        ("Contiguous=0", "Contiguous=1"),
        ("billing=4", "billing=4,gres/gpu=1"),
    ] {
        let text = show_job("x", fields).replace(from, to);
        assert_eq!(parse_need(&text, "6", "x"), None, "{to}");
    }
    assert_eq!(parse_need("", "6", "x"), None);
    // Its memory, per CPU or per node (0: none asked).
    let text = show_job("x", fields).replace("MinMemoryNode=0", "MinMemoryCPU=1000M");
    assert_eq!(
        parse_need(&text, "6", "x").unwrap().memory,
        Some(MemoryRequest::PerCpu(1000))
    );
}

#[test]
fn each_policy_picks_its_own_victim_for_a_one_node_hpc_job() {
    // One full node each: gold (oldest, alice), silver (bob), bronze (newest, bob).
    let state = full_with_hpc_waiting(&[
        cloud(1, 4, "n1", 300, "alice", "gold"),
        cloud(2, 4, "n2", 200, "bob", "silver"),
        cloud(3, 4, "n3", 100, "bob", "bronze"),
    ]);
    // Priority: the least important class.
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
    // Qos-driven: the largest Q. At SLO 1 gold's Q is 0; silver ran 200 s
    // of 200 at 0.9 (Q = 22 s), bronze 100 of 100 at 0.5 (Q = 100 s).
    assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["3"]);
    // Owner-share: bob holds 8 CPUs over a share of 4, alice 4 of 8; of
    // bob's jobs the one that has run least, bronze.
    let tenants = vec![
        Tenant {
            name: "alice".into(),
            share: 8,
        },
        Tenant {
            name: "bob".into(),
            share: 4,
        },
    ];
    assert_eq!(
        victim_for_one_node(Eviction::OwnerShare, tenants.clone(), &state),
        ["3"]
    );
    // A silver job far ahead of its SLO (2000 s run: Q = 222 s) and a
    // bronze one just started (10 s: Q = 10 s): priority still takes
    // bronze, qos-driven the one with most time to spare.
    let state = full_with_hpc_waiting(&[
        cloud(1, 4, "n1", 300, "alice", "gold"),
        cloud(2, 4, "n2", 2000, "bob", "silver"),
        cloud(3, 4, "n3", 10, "bob", "bronze"),
    ]);
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
    assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["2"]);
    // Turn the tables: gold is the newest and bob's oldest job is bronze.
    let state = full_with_hpc_waiting(&[
        cloud(1, 4, "n1", 100, "bob", "gold"),
        cloud(2, 4, "n2", 200, "alice", "silver"),
        cloud(3, 4, "n3", 2000, "alice", "bronze"),
    ]);
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
    // Bronze ran 2000 s at 0.5: Q = 2000 s, the largest.
    assert_eq!(victim_for_one_node(Eviction::QosDriven, vec![], &state), ["3"]);
    // Alice holds her 8, bob his 4: neither is over its share, so the
    // job that has run least goes, whoever's: gold (100 s).
    assert_eq!(victim_for_one_node(Eviction::OwnerShare, tenants, &state), ["1"]);
}

#[test]
fn a_job_without_class_or_of_an_unknown_user_goes_first() {
    let state = full_with_hpc_waiting(&[
        cloud(1, 4, "n1", 100, "alice", "bronze"),
        "2|cloud|RUNNING|4|1:00|1799999950|1799999950|1800003600|None|n2|(null)|mallory|(null)\n".to_string(),
        cloud(3, 4, "n3", 10, "alice", "gold"),
    ]);
    let tenants = vec![Tenant {
        name: "alice".into(),
        share: 12,
    }];
    // No marker: the default class, bronze, like job 1; of the two
    // the most recently admitted goes (job 2, 50 s ago).
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["2"]);
    // Mallory is in no tenant: entitled to nothing, over her share.
    assert_eq!(victim_for_one_node(Eviction::OwnerShare, tenants, &state), ["2"]);
}

#[test]
fn lines_a_comment_forged_are_never_victims() {
    // Job 5's comment holds a newline and a line naming job 3 (another
    // user's) as the newest bronze job; and a line with an id that
    // scancel would read as an option.
    let state = full_with_hpc_waiting(&[
        cloud(1, 4, "n1", 300, "alice", "gold"),
        cloud(3, 4, "n2", 200, "alice", "silver"),
        "5|cloud|RUNNING|4|2:00:00|1799999900|1799999900|1800003600|None|n3|(null)|eve|x\n".to_string(),
        cloud(3, 4, "n2", 1, "eve", "bronze"),
        cloud(0, 4, "n2", 1, "eve", "bronze").replacen('0', "--user=alice", 1),
    ]);
    assert!(state.jobs.iter().any(|j| j.id == "--user=alice"));
    // Job 3 is listed twice: neither line is trusted. Eve's job 5 (no
    // marker: the default class, bronze) goes.
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["5"]);
    assert!(is_job_id("12") && is_job_id("12_3"));
    assert!(!is_job_id("") && !is_job_id("12_") && !is_job_id("_3") && !is_job_id("1 2") && !is_job_id("-1"));
}

#[test]
fn a_victim_a_later_one_made_unneeded_is_given_back() {
    // n1: bronze 2 + gold 2 CPUs; n2: silver 4; n3: full HPC work.
    let state = full_with_hpc_waiting(&[
        cloud(1, 2, "n1", 100, "a", "bronze"),
        cloud(2, 2, "n1", 100, "a", "gold"),
        cloud(3, 4, "n2", 100, "a", "silver"),
    ]);
    // Priority takes bronze (n1 has 2 free: not enough), then silver
    // (n2 free: it fits); bronze did not help and is given back.
    assert_eq!(victim_for_one_node(Eviction::Priority, vec![], &state), ["3"]);
    // Allowed on two nodes, the same: bronze frees 2 CPUs, all there
    // is outside n2, so silver must go, and then bronze is not needed.
    let two_nodes = Need {
        max_nodes: Some(2),
        ..one_node(4)
    };
    assert_eq!(
        victims(&policy(Eviction::Priority, vec![]), &state, two_nodes),
        ["3"]
    );
}

#[test]
fn no_eviction_when_the_job_fits_or_hpc_work_blocks_it() {
    let squeue = [cloud(1, 2, "n1", 100, "a", "bronze"), hpc(9, 4, "Resources")].concat();
    // n3 is idle: the job fits without an eviction.
    assert!(victims(
        &policy(Eviction::Priority, vec![]),
        &cluster([2, 4, 0], &squeue),
        one_node(4)
    )
    .is_empty());
    // n2 and n3 full of HPC work, n1 half cloud: 4 CPUs on one node only by evicting job 1.
    assert_eq!(
        victims(
            &policy(Eviction::Priority, vec![]),
            &cluster([2, 4, 4], &squeue),
            one_node(4)
        ),
        ["1"]
    );
    // 8 CPUs on one node never fit: nothing is evicted for it.
    assert!(victims(
        &policy(Eviction::Priority, vec![]),
        &cluster([2, 4, 4], &squeue),
        one_node(8)
    )
    .is_empty());
    // Waiting for a dependency: not for CPUs.
    let waiting = [cloud(1, 2, "n1", 100, "a", "bronze"), hpc(9, 4, "Dependency")].concat();
    assert!(victims(
        &policy(Eviction::Priority, vec![]),
        &cluster([2, 4, 4], &waiting),
        one_node(4)
    )
    .is_empty());
    // A job whose needs the daemon cannot judge stops the walk.
    let chosen = Evictor::default().choose(
        &policy(Eviction::Priority, vec![]),
        &cluster([2, 4, 4], &squeue),
        NOW,
        |_| Ok(None),
    );
    assert!(chosen.is_empty());
}

#[test]
fn pending_jobs_are_served_in_order_and_victims_are_not_chosen_twice() {
    // n1 idle, n2 and n3 each one cloud job; two 4-CPU jobs pending: the
    // first takes n1, the second needs one eviction.
    let squeue = [
        cloud(1, 4, "n2", 100, "a", "bronze"),
        cloud(2, 4, "n3", 50, "a", "bronze"),
        hpc(8, 4, "Resources"),
        hpc(9, 4, "Priority"),
    ]
    .concat();
    let state = cluster([0, 4, 4], &squeue);
    let policy = policy(Eviction::Priority, vec![]);
    let mut evictor = Evictor::default();
    let chosen = evictor.choose(&policy, &state, NOW, |_| Ok(Some(one_node(4))));
    assert_eq!(
        chosen,
        [Chosen {
            victim: "2".into(),
            for_job: "9".into(),
            comment: Some(Comment {
                original: "interstice:accepted slo=100 class=bronze".into(),
                marked: "interstice:accepted slo=100 class=bronze evicted_for=9".into(),
            }),
        }]
    );
    // The next read still lists job 2 running (completing) and both HPC
    // jobs pending: nothing more is evicted, and no job's needs are
    // read again.
    let mut asked = 0;
    let again = evictor.choose(&policy, &state, NOW + 1, |_| {
        asked += 1;
        Ok(Some(one_node(4)))
    });
    assert!(again.is_empty());
    assert_eq!(asked, 0, "needs are read once per pending job");
    // Once job 2 is gone from the list it is forgotten.
    let gone = state_without(&state, "2");
    evictor.choose(&policy, &gone, NOW + 2, |_| Ok(None));
    assert!(evictor.cancelled.is_empty());
}

fn state_without(state: &SlurmState, id: &str) -> SlurmState {
    SlurmState {
        jobs: state.jobs.iter().filter(|j| j.id != id).cloned().collect(),
        nodes: state.nodes.clone(),
        reservations: Vec::new(),
    }
}

#[test]
fn rooms_place_whole_nodes_for_exclusive_jobs_and_respect_node_counts() {
    let state = cluster([1, 0, 3], "");
    let rooms = Rooms::new(&state.nodes, "hpc");
    let exclusive = Need {
        exclusive: true,
        ..one_node(2)
    };
    assert_eq!(rooms.place(&exclusive), Some(vec![(1, 4)]));
    // 7 CPUs: n2's 4 and n1's 3, on two nodes, not one.
    assert_eq!(rooms.place(&one_node(7)), None);
    let two = Need {
        max_nodes: Some(2),
        ..one_node(7)
    };
    assert_eq!(rooms.place(&two), Some(vec![(1, 4), (0, 3)]));
    // At least three nodes for 3 CPUs: one each.
    let three = Need {
        min_nodes: 3,
        max_nodes: None,
        ..one_node(3)
    };
    assert_eq!(rooms.place(&three), Some(vec![(1, 1), (0, 1), (2, 1)]));
}

/// One node of 8 CPUs and 8 GiB (both partitions) running the cloud jobs of
/// `lines`, whose CPUs and memory it has `allocated`, and HPC job 9
/// pending; Slurm counts memory.
fn node_with_memory(allocated: (u32, u64), lines: &[String]) -> SlurmState {
    let squeue = [lines.concat(), hpc(9, 4, "Resources")].concat();
    let output = SlurmOutput {
        squeue,
        nodes: format!(
            "NodeName=n1 CPUAlloc={} CPUTot=8 RealMemory=8192 AllocMem={} State=MIXED Partitions=hpc,cloud\n",
            allocated.0, allocated.1
        ),
        reservations: String::new(),
        memory: Some(String::new()),
    };
    output.parse().unwrap()
}

/// `lines`' jobs with the memory (MB) of `memory` by id, as `squeue -O tres-alloc` gives it.
fn with_memory(mut state: SlurmState, memory: &[(&str, u64)]) -> SlurmState {
    for job in &mut state.jobs {
        job.memory_mb = memory.iter().find(|(id, _)| *id == job.id).map(|(_, mb)| *mb);
    }
    state
}

fn asking(cpus: u32, memory: MemoryRequest) -> Need {
    Need {
        memory: Some(memory),
        ..one_node(cpus)
    }
}

/// The case: a node of 8 CPUs and 8 GiB, a cloud job holding 2
/// CPUs and 6 GiB, an HPC job asking 4 CPUs and 4 GiB: its CPUs are free
/// (6) but not its memory (2 GiB), so that cloud job goes. Counting CPUs
/// only, the job fit at once and nobody was evicted.
#[test]
fn a_cloud_job_holding_the_memory_an_hpc_job_needs_is_evicted() {
    let state = with_memory(
        node_with_memory((2, 6144), &[cloud(1, 2, "n1", 100, "a", "bronze")]),
        &[("1", 6144)],
    );
    let policy = policy(Eviction::Priority, vec![]);
    assert_eq!(
        victims(&policy, &state, asking(4, MemoryRequest::PerNode(4096))),
        ["1"]
    );
    // Per CPU, the same: 4 × 1 GiB.
    assert_eq!(
        victims(&policy, &state, asking(4, MemoryRequest::PerCpu(1024))),
        ["1"]
    );
    // `--mem=0`, the whole node's memory: the same.
    assert_eq!(
        victims(&policy, &state, asking(1, MemoryRequest::WholeNode)),
        ["1"]
    );
    // 2 GiB fit in what is free: no eviction.
    assert!(victims(&policy, &state, asking(4, MemoryRequest::PerNode(2048))).is_empty());
    // Slurm does not count memory (the read carried none): CPUs only, as before.
    let untracked = SlurmOutput {
        memory: None,
        squeue: [cloud(1, 2, "n1", 100, "a", "bronze"), hpc(9, 4, "Resources")].concat(),
        nodes:
            "NodeName=n1 CPUAlloc=2 CPUTot=8 RealMemory=8192 AllocMem=6144 State=MIXED Partitions=hpc,cloud\n"
                .into(),
        reservations: String::new(),
    }
    .parse()
    .unwrap();
    assert_eq!(untracked.nodes[0].memory, None);
    assert!(victims(&policy, &untracked, asking(4, MemoryRequest::PerNode(4096))).is_empty());
}

/// Victims are taken in the policy's order until CPUs and memory both fit,
/// and the give-back keeps one whose memory is needed. The node (8 CPUs,
/// 8 GiB) runs bronze A (2 CPUs, 512 MiB, newest: first under
/// `priority`), gold M (1 CPU, 6 GiB) and gold C (5 CPUs, 1 GiB, newest
/// gold); free: 0 CPUs, 512 MiB. The HPC job asks 4 CPUs and 4 GiB.
#[test]
fn victims_are_taken_until_cpus_and_memory_fit_and_memory_holders_are_kept() {
    let lines = [
        cloud(1, 1, "n1", 300, "a", "gold"),
        cloud(2, 5, "n1", 200, "a", "gold"),
        cloud(3, 2, "n1", 100, "a", "bronze"),
    ];
    let state = with_memory(
        node_with_memory((8, 7680), &lines),
        &[("1", 6144), ("2", 1024), ("3", 512)],
    );
    let policy = policy(Eviction::Priority, vec![]);
    // Order: 3 (bronze), 2 (gold, newer), 1. Taking 3: 2 CPUs, 1 GiB
    // free; 2: 7 CPUs, 2 GiB; 1: 8 CPUs, 8 GiB, it fits. Give back 2?
    // Without it: 3 CPUs, no. Give back 3? Without it: 6 CPUs, 7.5 GiB,
    // it fits: 3 goes back. Victims: 2 and 1. Counting CPUs only, 3 and 2
    // were taken (4 CPUs fit after 2), and the job still lacked memory.
    assert_eq!(
        victims(&policy, &state, asking(4, MemoryRequest::PerNode(4096))),
        ["2", "1"]
    );
    // Memory held first: 1 needs company for CPUs, and stays when the
    // give-back asks whether 2's CPUs alone would do (they would not:
    // 5 CPUs but 2 GiB free). A rule by CPUs only gave 1 back.
    let rooms = Rooms::new(&state.nodes, "hpc");
    let mut ranked: Vec<Running> = policy_order(&policy, &state);
    ranked.retain(|r| r.job.id != "3");
    ranked.reverse(); // 1 then 2
    let need = asking(4, MemoryRequest::PerNode(4096));
    let picked: Vec<&str> = pick(&rooms, &ranked, &need)
        .unwrap()
        .into_iter()
        .map(|i| ranked[i].job.id.as_str())
        .collect();
    assert_eq!(picked, ["1", "2"]);
}

/// The running cloud jobs of `state` in `policy`'s order of victims.
fn policy_order<'a>(policy: &Policy, state: &'a SlurmState) -> Vec<Running<'a>> {
    Evictor::default().ranked_victims(policy, state, &|_: &SqueueJob| true, Time::from_secs(NOW))
}

#[test]
fn rooms_count_memory_per_node_and_per_cpu() {
    let state = node_with_memory((0, 5120), &[]);
    let rooms = Rooms::new(&state.nodes, "hpc");
    // 3 GiB free: 3 CPUs at 1 GiB each, not 4.
    assert_eq!(
        rooms.place(&asking(3, MemoryRequest::PerCpu(1024))),
        Some(vec![(0, 3)])
    );
    assert_eq!(rooms.place(&asking(4, MemoryRequest::PerCpu(1024))), None);
    assert_eq!(
        rooms.place(&asking(8, MemoryRequest::PerNode(3072))),
        Some(vec![(0, 8)])
    );
    assert_eq!(rooms.place(&asking(1, MemoryRequest::PerNode(3073))), None);
    // A whole node needs its memory for every CPU.
    let whole = Need {
        exclusive: true,
        ..asking(1, MemoryRequest::PerCpu(512))
    };
    assert_eq!(rooms.place(&whole), None);
    // Taking a job counts its memory: 2 CPUs at 1 GiB leave 1 GiB.
    let mut rooms = rooms;
    let need = asking(2, MemoryRequest::PerCpu(1024));
    let placed = rooms.place(&need).unwrap();
    rooms.take(&placed, &need);
    assert_eq!(rooms.place(&asking(1, MemoryRequest::PerNode(1025))), None);
    assert!(rooms.place(&asking(1, MemoryRequest::PerNode(1024))).is_some());
}
