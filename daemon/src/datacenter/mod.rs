//! The daemon's side of the data center (`docs/datacenter.md`): several
//! `intersticed`, one per Slurm cluster or partition (the *members*), and one
//! *broker* that keeps the global database of their published idle slots and
//! places the cloud jobs it is sent.
//!
//! - [`publisher`]: a member publishes its tuple off the actor thread, and
//!   hands the cloud jobs it evicts to the broker (Algorithm 2);
//! - [`broker`]: the broker's database, its answers (`F^J'` and Algorithm 1
//!   over the fresh tuples, then forwarding to the chosen member) and its
//!   HTTP routes;
//! - [`links`]: the round trips the broker measures to each member, the
//!   link of their `F^r`.
//!
//! The rules are core's, called here: `F^J'` is
//! [`interstice_core::datacenter::rank`], Algorithm 1's verdict
//! [`interstice_core::datacenter::route`], the resubmission bound
//! [`interstice_core::Lifecycle::allows_resubmission`]. This module converts
//! between them and the wire types of `interstice_api::wire`.

pub mod broker;
#[cfg(test)]
mod broker_tests;
pub mod links;
pub mod publisher;

use interstice_api::wire::{FutureSlotView, ImmediateSlotView, SlotsResponse, TupleRequest};
use interstice_core::datacenter::{Latency, Metadata, Role, Tuple};
use interstice_core::{FutureSlot, ImmediateSlot, ProcSet, Slots, Time};

/// Epoch seconds of an engine time, as the wire spells times.
fn secs(time: Time) -> f64 {
    time.as_secs_f64()
}

/// `None` for an infinite time ("nothing planned", "open").
fn finite_secs(time: Time) -> Option<f64> {
    (!time.is_infinite()).then(|| secs(time))
}

/// Engine time of wire epoch seconds; `None` is infinite.
fn wire_time(key: &str, value: Option<f64>) -> Result<Time, String> {
    match value {
        None => Ok(Time::INFINITY),
        Some(secs) => Time::instant_from_secs_f64(secs)
            .ok_or_else(|| format!("{key}: {secs} is not a time in epoch seconds")),
    }
}

/// The idle slots at `now` as `GET /v1/slots` serves them (and a member publishes them).
pub fn slots_view(now: Time, slots: &Slots) -> SlotsResponse {
    SlotsResponse {
        now: secs(now),
        immediate: slots
            .immediate
            .iter()
            .map(|slot| ImmediateSlotView {
                proc: slot.proc,
                idle_until: finite_secs(slot.idle_until),
            })
            .collect(),
        future: slots
            .future
            .iter()
            .map(|slot| FutureSlotView {
                start: secs(slot.start),
                end: finite_secs(slot.end),
                procs: slot.procs.to_string(),
            })
            .collect(),
    }
}

/// The core tuple of a published one, with the broker's `F^r` inputs for
/// that member; the problem names the bad field.
pub fn tuple_of(request: &TupleRequest, latency: Latency) -> Result<Tuple, String> {
    if request.procs == 0 {
        return Err("procs: must be at least 1 (the member's convergence area)".to_string());
    }
    if !(request.overbooking.is_finite() && request.overbooking > 0.0) {
        return Err(format!(
            "overbooking: {} must be a positive number",
            request.overbooking
        ));
    }
    let immediate = request
        .slots
        .immediate
        .iter()
        .map(|slot| {
            Ok(ImmediateSlot {
                proc: slot.proc,
                idle_until: wire_time("slots.immediate.idle_until", slot.idle_until)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let future = request
        .slots
        .future
        .iter()
        .map(|slot| {
            let start = wire_time("slots.future.start", Some(slot.start))?;
            let end = wire_time("slots.future.end", slot.end)?;
            if end < start {
                return Err(format!("slots.future: end {end} is before start {start}"));
            }
            let procs = slot
                .procs
                .parse::<ProcSet>()
                .map_err(|err| format!("slots.future.procs: {err}"))?;
            Ok(FutureSlot { start, end, procs })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Tuple {
        address: request.address.clone(),
        role: Role::Hpc,
        metadata: Metadata {
            procs: request.procs,
            features: request.features.clone(),
            overbooking: request.overbooking,
        },
        slots: Slots { immediate, future },
        published: wire_time("slots.now", Some(request.slots.now))?,
        latency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_tuple_reads_back_as_the_slots_it_was_made_of() {
        let now = Time::from_secs(1_700_000_000);
        let slots = Slots {
            immediate: vec![
                ImmediateSlot {
                    proc: 0,
                    idle_until: Time::INFINITY,
                },
                ImmediateSlot {
                    proc: 1,
                    idle_until: now + Time::from_secs(50),
                },
            ],
            future: vec![FutureSlot {
                start: now + Time::from_secs(200),
                end: Time::INFINITY,
                procs: ProcSet::range(0, 3),
            }],
        };
        let request = TupleRequest {
            address: "/run/m.sock".into(),
            procs: 4,
            features: vec!["gpu".into()],
            overbooking: 1.5,
            slots: slots_view(now, &slots),
        };
        let tuple = tuple_of(&request, Latency::constant(Time::from_secs(2))).unwrap();
        assert_eq!(tuple.slots, slots);
        assert_eq!(tuple.published, now);
        assert_eq!(tuple.latency.of(1 << 30), Time::from_secs(2));
        assert_eq!(tuple.metadata.overbooking, 1.5);
        let mut bad = request.clone();
        bad.slots.future[0].procs = "3-1".into();
        assert!(tuple_of(&bad, Latency::ZERO)
            .unwrap_err()
            .starts_with("slots.future.procs"));
        let mut bad = request;
        bad.overbooking = f64::NAN;
        assert!(tuple_of(&bad, Latency::ZERO)
            .unwrap_err()
            .starts_with("overbooking"));
    }
}
