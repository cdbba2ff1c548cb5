//! The broker: the data center's global database of the members' tuples and
//! the answers it gives in their name. It runs no jobs and has no engine.
//!
//! - `POST /v1/datacenter/tuples`: a member's latest tuple replaces its last
//!   one (SQLite, `members`); a tuple older than
//!   `datacenter.member_max_age_seconds` is left out of every decision.
//! - `POST /v1/jobs`, `POST /v1/predict`: `F^J'` ([`rank`]) over the fresh
//!   tuples, then Algorithm 1 ([`route`]) with the broker's `engine.admission`.
//!   A job to send is forwarded to the first member of the ranking; the
//!   member's own admission has the last word: if it refuses or does not
//!   answer, the next member of the ranking is asked. The answer is the
//!   member's, under the broker's job id and naming the member; every answer
//!   is in SQLite (`routes`) before it is sent.
//! - `POST /v1/datacenter/evicted`: Algorithm 2. A member hands over a job it
//!   evicted; if [`Lifecycle::allows_resubmission`](interstice_core::Lifecycle::allows_resubmission)
//!   (the broker's bounds, counted across members) allows it, the job is
//!   placed as above over every fresh member, the evicting one included,
//!   keeping its first arrival and SLO deadline.
//! - `GET /v1/jobs/{id}`: the member's view of the job, under the broker's id.
//!
//! Each member's latency `r` is `F^r` ([`Latency::of`]) for the job's
//! `bytes`, with the link the broker measured ([`super::links`]): the
//! smoothed round trip of its forwards there, `engine.latency` until one
//! was answered.

use super::links::Links;
use super::{secs, tuple_of};
use crate::actor::{prediction_answer, Owner};
use crate::actor::{ApiError, ErrorKind};
use crate::api::{api_error, error_response, parse_body, Peer};
use crate::clock::{Clock, Stopwatch};
use crate::config::{BrokerConfig, BrokerRules};
use crate::metrics::Metrics;
use crate::store::{Route as RouteRow, Store};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use interstice_api::peer::PeerRule;
use interstice_api::tls::Pin;
use interstice_api::wire::{
    decision_name, EvictedRequest, HealthResponse, JobView, MemberList, MemberView, PredictRequest,
    PredictResponse, SubmitRequest, SubmitResponse, TupleRequest, TupleResponse,
};
use interstice_api::{Client, ClientError, Endpoint};
use interstice_core::datacenter::{rank, route, Choice, Latency, Request, Route, Tuple};
use interstice_core::Time;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The broker's state, shared by its handlers.
#[derive(Debug)]
pub struct Broker {
    store: Mutex<Store>,
    rules: BrokerRules,
    max_age: Time,
    timeout: Duration,
    clock: Clock,
    /// Sent to members reached over TCP (their `api.token_file`).
    token: Option<String>,
    /// Who a member's listener must be before it is sent anything.
    peer: PeerRule,
    /// The certificates a member at an `https://` address may present.
    pins: Vec<Pin>,
    /// `F^r`'s configured inputs: `engine.latency` as the link,
    /// `datacenter.bandwidth_bytes_per_second`, `datacenter.monitoring_seconds`.
    configured: Latency,
    /// The members' measured round trips, which replace the configured link.
    links: Links,
}

/// A fresh member: its tuple and when the broker received it.
struct Fresh {
    tuple: Tuple,
    received_at: f64,
}

/// Where a job went.
enum Placement {
    /// A member accepted it: its address and answer.
    Placed {
        member: String,
        answer: Box<SubmitResponse>,
    },
    /// Nobody took it: the counter-offer and the predicted violation to answer with.
    Refused {
        counter_offer_slo: Option<f64>,
        violation_seconds: Option<f64>,
    },
}

/// The job to place and its SLO deadline.
struct Job<'a> {
    spec: &'a SubmitRequest,
    request: Request,
}

impl Broker {
    /// A broker over `store`, applying `rules`.
    pub fn new(store: Store, config: &BrokerConfig, rules: BrokerRules, clock: Clock) -> Broker {
        if config.allow_unproven_remote {
            tracing::warn!(
                "datacenter.allow_unproven_remote: members on other hosts over http:// get jobs and the token \
                 without proving who they are"
            );
        }
        Broker {
            store: Mutex::new(store),
            max_age: Time::from_secs_f64(config.member_max_age_seconds),
            timeout: Duration::from_secs_f64(config.timeout_seconds),
            clock,
            token: None,
            peer: config.peer_rule(),
            pins: config.pins(),
            configured: Latency {
                link: rules.thesis.latency,
                bandwidth: config.bandwidth_bytes_per_second,
                monitoring: Time::from_secs_f64(config.monitoring_seconds),
            },
            links: Links::default(),
            rules,
        }
    }

    /// Send `token` (the data center's common `api.token_file`) to members reached over TCP.
    pub fn with_token(mut self, token: Option<String>) -> Broker {
        self.token = token;
        self
    }

    fn store(&self) -> Result<std::sync::MutexGuard<'_, Store>, ApiError> {
        self.store
            .lock()
            .map_err(|_| ApiError::internal("the broker's store lock is poisoned"))
    }

    /// `POST /v1/datacenter/tuples`: keep a member's latest tuple.
    pub fn publish(&self, request: TupleRequest) -> Result<TupleResponse, ApiError> {
        if let Err(err) = request.address.parse::<Endpoint>() {
            return Err(ApiError::bad_request(format!("address: {err}")));
        }
        tuple_of(&request, Latency::ZERO).map_err(ApiError::bad_request)?;
        let json = serde_json::to_string(&request).map_err(ApiError::internal)?;
        let now = self.clock.now();
        self.store()?
            .put_member(&request.address, &json, secs(now))
            .map_err(ApiError::internal)?;
        Ok(TupleResponse { ok: true })
    }

    /// The members whose tuple is at most `member_max_age_seconds` old at `now`.
    fn fresh(&self, now: Time) -> Result<Vec<Fresh>, ApiError> {
        let since = secs(now.saturating_sub(self.max_age));
        let rows = self.store()?.members(since).map_err(ApiError::internal)?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let parsed = serde_json::from_str::<TupleRequest>(&row.tuple_json)
                    .map_err(|err| err.to_string())
                    .and_then(|request| {
                        tuple_of(&request, self.links.latency(&row.address, self.configured))
                    });
                match parsed {
                    Ok(tuple) => Some(Fresh {
                        tuple,
                        received_at: row.received_at,
                    }),
                    Err(err) => {
                        tracing::warn!(member = row.address, "stored tuple unreadable, left out: {err}");
                        None
                    }
                }
            })
            .collect())
    }

    /// `GET /v1/datacenter/members`.
    pub fn members(&self) -> Result<MemberList, ApiError> {
        let now = self.clock.now();
        let members = self
            .fresh(now)?
            .into_iter()
            .map(|fresh| MemberView {
                rtt_seconds: self.links.rtt(&fresh.tuple.address).map(secs),
                latency_seconds: secs(fresh.tuple.latency.of(0)),
                age_seconds: (secs(now) - fresh.received_at).max(0.0),
                published: secs(fresh.tuple.published),
                idle_now: fresh.tuple.slots.immediate.len() as u32,
                address: fresh.tuple.address,
                procs: fresh.tuple.metadata.procs,
                features: fresh.tuple.metadata.features,
                overbooking: fresh.tuple.metadata.overbooking,
            })
            .collect();
        Ok(MemberList { members })
    }

    /// `F^J'` over the fresh members for `request` at `now`.
    fn ranking(&self, request: &Request, now: Time) -> Result<(Vec<Tuple>, Vec<Choice>), ApiError> {
        let tuples: Vec<Tuple> = self.fresh(now)?.into_iter().map(|fresh| fresh.tuple).collect();
        if tuples.is_empty() {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no member has published its idle slots in the last {} s; are the members up, with \
                     datacenter.broker naming this broker?",
                    secs(self.max_age)
                ),
            ));
        }
        let ranked = rank(
            &tuples,
            request,
            now,
            self.rules.thesis.beta,
            self.rules.tau,
            self.rules.topsis.as_ref(),
            None,
        );
        Ok((tuples, ranked))
    }

    /// Algorithm 1 on the ranking, then the forwarding: the members of the
    /// ranking in order until one accepts.
    fn place(&self, job: &Job<'_>, now: Time) -> Result<Placement, ApiError> {
        let (tuples, ranked) = self.ranking(&job.request, now)?;
        let best = match route(&ranked, self.rules.admission) {
            Route::Nowhere => return Err(nowhere(&tuples, &job.request)),
            Route::Offer(best) => {
                return Ok(Placement::Refused {
                    counter_offer_slo: best.prediction.counter_offer_slo.map(secs),
                    violation_seconds: best.prediction.violation_seconds,
                })
            }
            Route::Send(best) => best,
        };
        let deadline = job
            .request
            .arrival
            .saturating_add(job.request.slo.unwrap_or(Time::INFINITY));
        let mut counter_offers = Vec::new();
        let mut unreached = Vec::new();
        for choice in &ranked {
            let member = &tuples[choice.index].address;
            // The member judges the SLO from its own arrival: what remains of the deadline.
            let remaining = deadline.saturating_sub(self.clock.now()).max(Time::from_ticks(1));
            let forwarded = SubmitRequest {
                slo: secs(remaining),
                ..job.spec.clone()
            };
            match self.forward(member, &forwarded) {
                Ok(answer) if answer.accepted() => {
                    return Ok(Placement::Placed {
                        member: member.clone(),
                        answer: Box::new(answer),
                    })
                }
                Ok(answer) => {
                    tracing::info!(member = %member, "the member refused the job; asking the next one");
                    counter_offers.extend(answer.counter_offer_slo);
                }
                Err(ClientError::Http { status, message })
                    if (400..500).contains(&status) && status != 422 && status != 429 =>
                {
                    // The request itself is wrong: every member would say so.
                    return Err(ApiError::new(
                        kind_of(status),
                        format!("member {member}: {message}"),
                    ));
                }
                Err(err) => {
                    tracing::warn!(member = %member, "forwarding failed, asking the next member: {err}");
                    unreached.push(format!("{member}: {err}"));
                }
            }
        }
        if unreached.len() == ranked.len() {
            // No member answered: nobody judged the job, no counter-offer stands.
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "the job was not placed: no member could be reached and proven ({})",
                    unreached.join("; ")
                ),
            ));
        }
        // The members' own counter-offers are the better ones; else the ranking's.
        let counter_offer_slo = counter_offers
            .into_iter()
            .reduce(f64::min)
            .or(best.prediction.counter_offer_slo.map(secs));
        Ok(Placement::Refused {
            counter_offer_slo,
            violation_seconds: best.prediction.violation_seconds,
        })
    }

    /// A client of the member at `endpoint`, sending nothing to a listener
    /// that is not a daemon's (`datacenter.peer_uid`).
    fn member_client(&self, endpoint: Endpoint) -> Client {
        Client::at(endpoint, self.timeout)
            .with_token(self.token.clone())
            .with_peer_rule(self.peer.clone())
            .with_pins(self.pins.clone())
    }

    /// Forward `request` to `member`, timing the round trip of an answered
    /// forward (accepted or refused) for `member`'s `F^r`.
    fn forward(&self, member: &str, request: &SubmitRequest) -> Result<SubmitResponse, ClientError> {
        let endpoint = member
            .parse::<Endpoint>()
            .map_err(|err| ClientError::Protocol(err.to_string()))?;
        let stopwatch = Stopwatch::start();
        let answer = self.member_client(endpoint).submit(request)?;
        let rtt = self.links.observe(member, stopwatch.elapsed());
        tracing::debug!(member, rtt_seconds = secs(rtt), "forward answered");
        Ok(answer)
    }

    /// `POST /v1/jobs` from `caller`: the job is forwarded on the caller's
    /// behalf (`on_behalf_of`), so that it runs as its submitter on the
    /// member; only root may name another user.
    pub fn submit(&self, spec: SubmitRequest, caller: Owner) -> Result<SubmitResponse, ApiError> {
        let mut spec = spec;
        spec.on_behalf_of = on_behalf_of(caller, spec.on_behalf_of)?;
        let now = self.clock.now();
        let (walltime, slo) = check_shape(spec.procs, spec.walltime, spec.slo)?;
        if spec.argv.is_empty() {
            return Err(ApiError::bad_request(
                "argv: must name a program, e.g. [\"/bin/sleep\", \"5\"]",
            ));
        }
        let job = Job {
            request: Request {
                procs: spec.procs,
                walltime,
                slo: Some(slo),
                arrival: now,
                features: spec.features.clone(),
                bytes: spec.bytes.unwrap_or(0),
            },
            spec: &spec,
        };
        let placement = self.place(&job, now)?;
        let mut row = RouteRow {
            id: 0,
            arrival: secs(now),
            slo: spec.slo,
            procs: spec.procs,
            walltime: spec.walltime,
            decision: decision_name(true).to_string(),
            counter_offer_slo: None,
            member: None,
            member_job_id: None,
            resubmissions: 0,
            owner_uid: spec.on_behalf_of,
        };
        match placement {
            Placement::Placed { member, answer } => {
                row.decision = answer.decision.clone();
                row.member = Some(member.clone());
                row.member_job_id = Some(answer.id);
                let id = self.record(&row, &member, answer.id)?;
                Ok(placed(id, member, answer))
            }
            Placement::Refused {
                counter_offer_slo,
                violation_seconds,
            } => {
                row.counter_offer_slo = counter_offer_slo;
                let id = self.store()?.insert_route(&row).map_err(ApiError::internal)?;
                Ok(rejected(id, counter_offer_slo, violation_seconds))
            }
        }
    }

    /// Write an accepted job's route; the member runs it whatever happens here.
    fn record(&self, row: &RouteRow, member: &str, member_job_id: u64) -> Result<u64, ApiError> {
        self.store()?.insert_route(row).map_err(|err| {
            ApiError::internal(format!(
                "the job runs as job {member_job_id} on member {member}, but the broker could not record it: {err}"
            ))
        })
    }

    /// `POST /v1/predict`: Algorithm 1's answer from the tuples alone.
    pub fn predict(&self, request: PredictRequest) -> Result<PredictResponse, ApiError> {
        let now = self.clock.now();
        let (walltime, slo) = check_shape(request.procs, request.walltime, request.slo)?;
        let request = Request {
            procs: request.procs,
            walltime,
            slo: Some(slo),
            arrival: now,
            features: request.features,
            bytes: request.bytes.unwrap_or(0),
        };
        let (tuples, ranked) = self.ranking(&request, now)?;
        let (rejected, best) = match route(&ranked, self.rules.admission) {
            Route::Nowhere => return Err(nowhere(&tuples, &request)),
            Route::Offer(best) => (true, best),
            Route::Send(best) => (false, best),
        };
        Ok(prediction_answer(&best.prediction, rejected))
    }

    /// `POST /v1/datacenter/evicted`: Algorithm 2.
    pub fn evicted(&self, request: EvictedRequest) -> Result<SubmitResponse, ApiError> {
        let now = self.clock.now();
        let (walltime, _) = check_shape(request.job.procs, request.job.walltime, request.job.slo)?;
        let known = self
            .store()?
            .route_of(&request.member, request.job_id)
            .map_err(ApiError::internal)?;
        // The data center's first arrival and SLO, and its count of resubmissions.
        let (arrival, slo, resubmissions) = match &known {
            Some(row) => (row.arrival, row.slo, row.resubmissions.max(request.resubmissions)),
            None => (request.arrival, request.job.slo, request.resubmissions),
        };
        let Some(arrival_time) = Time::instant_from_secs_f64(arrival) else {
            return Err(ApiError::bad_request(format!(
                "arrival: {arrival} is not a time in epoch seconds"
            )));
        };
        let slo_time = Time::from_secs_f64(slo);
        let mut row = known.clone().unwrap_or(RouteRow {
            id: 0,
            arrival,
            slo,
            procs: request.job.procs,
            walltime: request.job.walltime,
            decision: decision_name(false).to_string(),
            counter_offer_slo: None,
            member: Some(request.member.clone()),
            member_job_id: Some(request.job_id),
            resubmissions,
            owner_uid: request.job.on_behalf_of,
        });
        if !self
            .rules
            .lifecycle
            .allows_resubmission(resubmissions, now.saturating_sub(arrival_time))
        {
            tracing::info!(
                member = request.member,
                job = request.job_id,
                resubmissions,
                "evicted job not resubmitted: no resubmission left"
            );
            let id = match known {
                Some(row) => row.id,
                None => self.store()?.insert_route(&row).map_err(ApiError::internal)?,
            };
            return Ok(rejected(id, None, None));
        }
        let job = Job {
            request: Request {
                procs: request.job.procs,
                walltime,
                slo: Some(slo_time),
                arrival: arrival_time,
                features: request.job.features.clone(),
                bytes: request.job.bytes.unwrap_or(0),
            },
            spec: &request.job,
        };
        match self.place(&job, now)? {
            Placement::Placed { member, answer } => {
                if member != request.member {
                    tracing::info!(from = request.member, to = %member, "evicted job migrated");
                }
                let id = match known {
                    Some(known) => {
                        self.store()?
                            .route_moved(known.id, &member, answer.id, resubmissions + 1)
                            .map_err(ApiError::internal)?;
                        known.id
                    }
                    None => {
                        row.member = Some(member.clone());
                        row.member_job_id = Some(answer.id);
                        row.resubmissions = resubmissions + 1;
                        self.record(&row, &member, answer.id)?
                    }
                };
                Ok(placed(id, member, answer))
            }
            Placement::Refused {
                counter_offer_slo,
                violation_seconds,
            } => {
                let id = match known {
                    Some(row) => row.id,
                    None => self.store()?.insert_route(&row).map_err(ApiError::internal)?,
                };
                Ok(rejected(id, counter_offer_slo, violation_seconds))
            }
        }
    }

    /// `GET /v1/jobs/{id}`: the member's view under the broker's id.
    pub fn job(&self, id: u64, caller: Owner) -> Result<JobView, ApiError> {
        let row = self
            .store()?
            .route(id)
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::not_found(id))?;
        // Another user's job is absent, whatever its state (root's jobs are root's).
        if !caller.sees(Some(row.owner_uid.unwrap_or(0))) {
            return Err(ApiError::not_found(id));
        }
        let (Some(member), Some(member_job_id)) = (&row.member, row.member_job_id) else {
            return Ok(JobView {
                id,
                state: "rejected".to_string(),
                decision: row.decision,
                owner_uid: None,
                procs: row.procs,
                walltime: row.walltime,
                slo: row.slo,
                argv: Vec::new(),
                class: None,
                submitted_at: row.arrival,
                predicted_start: None,
                predicted_completion: None,
                counter_offer_slo: row.counter_offer_slo,
                started_at: None,
                ended_at: None,
                exit_code: None,
                pid: None,
                evictions: 0,
                slo_violated: None,
                end_reason: None,
                cpus: None,
                memory_limit_bytes: None,
                pids_limit: None,
                processors: None,
            });
        };
        let endpoint = member
            .parse::<Endpoint>()
            .map_err(|err| ApiError::internal(format!("route of job {id}: {err}")))?;
        let view = self.member_client(endpoint).job(member_job_id).map_err(|err| {
            ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "job {id} runs as job {member_job_id} on member {member}, which does not answer: {err}"
                ),
            )
        })?;
        // The member answers the broker (root); the caller sees only its own.
        if !caller.sees(view.owner_uid) {
            return Err(ApiError::not_found(id));
        }
        // The data center's arrival and SLO: the member counts from when it got the job.
        Ok(JobView {
            id,
            submitted_at: row.arrival,
            slo: row.slo,
            ..view
        })
    }

    /// `GET /healthz`.
    pub fn health(&self) -> HealthResponse {
        HealthResponse {
            status: "ok".to_string(),
            backend: "broker".to_string(),
            now: secs(self.clock.now()),
            running: 0,
            queued: 0,
            plan_age_seconds: None,
            version: env!("CARGO_PKG_VERSION").to_string(),
            containment: None,
            confinement: None,
        }
    }
}

/// The processors, walltime and SLO of a request.
fn check_shape(procs: u32, walltime: f64, slo: f64) -> Result<(Time, Time), ApiError> {
    if procs == 0 {
        return Err(ApiError::bad_request("procs: must be at least 1"));
    }
    Ok((
        crate::actor::positive_seconds("walltime", walltime)?,
        crate::actor::positive_seconds("slo", slo)?,
    ))
}

/// No member's metadata and slots fit the job (a 422, as a member answers a
/// job wider than its area).
fn nowhere(tuples: &[Tuple], request: &Request) -> ApiError {
    let widest = tuples.iter().map(|tuple| tuple.metadata.procs).max().unwrap_or(0);
    let features = if request.features.is_empty() {
        String::new()
    } else {
        format!(" with features {:?}", request.features)
    };
    ApiError::new(
        ErrorKind::Unprocessable,
        format!(
            "no member can run {} processors{features}: the {} fresh members' areas are at most {widest} \
             processors, and their published slots never hold the job",
            request.procs,
            tuples.len()
        ),
    )
}

/// The answer to a job a member took (a first submission or an evicted
/// job's resubmission): the member's own answer, under the broker's route
/// `id` and naming the member.
fn placed(id: u64, member: String, answer: Box<SubmitResponse>) -> SubmitResponse {
    SubmitResponse {
        id,
        member: Some(member),
        ..*answer
    }
}

/// The answer to a job no member took: the broker's route `id`, with the
/// best counter-offer and the predicted violation when there are.
fn rejected(id: u64, counter_offer_slo: Option<f64>, violation_seconds: Option<f64>) -> SubmitResponse {
    SubmitResponse {
        id,
        decision: decision_name(true).to_string(),
        predicted_start: None,
        predicted_completion: None,
        violation_seconds,
        counter_offer_slo,
        violation_probability: None,
        member: None,
        refusal: None,
    }
}

fn kind_of(status: u16) -> ErrorKind {
    match status {
        403 => ErrorKind::Forbidden,
        404 => ErrorKind::NotFound,
        409 => ErrorKind::Conflict,
        _ => ErrorKind::BadRequest,
    }
}

/// What the broker's handlers share.
#[derive(Clone, Debug)]
pub struct BrokerState {
    /// The broker.
    pub broker: Arc<Broker>,
    /// For `/metrics`.
    pub metrics: Metrics,
}

/// The broker's routes: the member API it answers in its members' name,
/// and the data center's own.
///
/// Alike in shape to [`crate::api::router`], a node's, but not the same
/// table: a broker has no engine, so it serves no cancel, job output, slots
/// or HPC events, adds the data center's routes, answers an unknown path
/// naming its own API, and leaves a wrong method to axum's plain 405.
pub fn router(state: BrokerState) -> Router {
    Router::new()
        .route("/v1/jobs", post(submit).get(list_jobs))
        .route("/v1/jobs/{id}", get(get_job))
        .route("/v1/predict", post(predict))
        .route("/v1/datacenter/tuples", post(publish))
        .route("/v1/datacenter/members", get(members))
        .route("/v1/datacenter/evicted", post(evicted))
        .route("/metrics", get(metrics))
        .route("/healthz", get(health))
        .fallback(no_route)
        .with_state(state)
}

/// Run `work` on the blocking pool (SQLite, forwarding) and answer with its JSON.
async fn blocking<T: Serialize + Send + 'static>(
    state: &BrokerState,
    work: impl FnOnce(&Broker) -> Result<T, ApiError> + Send + 'static,
) -> Response {
    let broker = Arc::clone(&state.broker);
    match tokio::task::spawn_blocking(move || work(&broker)).await {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(err)) => api_error(err),
        Err(err) => api_error(ApiError::internal(err)),
    }
}

async fn submit(
    State(state): State<BrokerState>,
    ConnectInfo(Peer(caller)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    match parse_body::<SubmitRequest>(&body) {
        Ok(request) => blocking(&state, move |broker| broker.submit(request, caller)).await,
        Err(err) => api_error(err),
    }
}

async fn predict(State(state): State<BrokerState>, body: Bytes) -> Response {
    match parse_body::<PredictRequest>(&body) {
        Ok(request) => blocking(&state, move |broker| broker.predict(request)).await,
        Err(err) => api_error(err),
    }
}

async fn publish(
    State(state): State<BrokerState>,
    ConnectInfo(Peer(caller)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    from_member(&state, caller, &body, |broker, request: TupleRequest| {
        broker.publish(request)
    })
    .await
}

async fn evicted(
    State(state): State<BrokerState>,
    ConnectInfo(Peer(caller)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    from_member(&state, caller, &body, |broker, request: EvictedRequest| {
        broker.evicted(request)
    })
    .await
}

/// A call only member daemons make ([`member_daemon`]): `work` on its body.
async fn from_member<R, T>(
    state: &BrokerState,
    caller: Owner,
    body: &Bytes,
    work: impl FnOnce(&Broker, R) -> Result<T, ApiError> + Send + 'static,
) -> Response
where
    R: serde::de::DeserializeOwned + Send + 'static,
    T: Serialize + Send + 'static,
{
    if let Err(err) = member_daemon(caller) {
        return api_error(err);
    }
    match parse_body::<R>(body) {
        Ok(request) => blocking(state, move |broker| work(broker, request)).await,
        Err(err) => api_error(err),
    }
}

async fn members(State(state): State<BrokerState>) -> Response {
    blocking(&state, |broker| broker.members()).await
}

async fn get_job(
    State(state): State<BrokerState>,
    ConnectInfo(Peer(caller)): ConnectInfo<Peer>,
    Path(id): Path<String>,
) -> Response {
    match crate::api::parse_id(&id) {
        Ok(id) => blocking(&state, move |broker| broker.job(id, caller)).await,
        Err(err) => api_error(err),
    }
}

/// Who a forwarded job is submitted for: the caller itself (a user), or,
/// from root (a client acting for a user), the user it names; a user may
/// not name another.
fn on_behalf_of(caller: Owner, named: Option<u32>) -> Result<Option<u32>, ApiError> {
    match (caller.uid, named) {
        (Some(0), named) => Ok(named),
        (Some(uid), None) => Ok(Some(uid)),
        (Some(uid), Some(named)) if named == uid => Ok(Some(uid)),
        _ => Err(ApiError::new(
            ErrorKind::Forbidden,
            "on_behalf_of: only root may submit for another user (submit over the Unix socket as yourself)",
        )),
    }
}

/// Only member daemons (root, or a bearer-token holder over TCP) publish
/// tuples and hand evicted jobs over: a user who could would steer the
/// routing or have a job run as someone else.
fn member_daemon(caller: Owner) -> Result<(), ApiError> {
    if caller.uid == Some(0) {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorKind::Forbidden,
            "only a member daemon (root, or the bearer token over TCP) publishes tuples and hands jobs over",
        ))
    }
}

async fn list_jobs() -> Response {
    error_response(
        StatusCode::NOT_IMPLEMENTED,
        "a broker keeps no job list: ask GET /v1/jobs/{id}, or the members (GET /v1/datacenter/members)",
    )
}

async fn health(State(state): State<BrokerState>) -> Response {
    Json(state.broker.health()).into_response()
}

/// `/metrics`, with each fresh member's link as the broker sees it now
/// (`interstice_datacenter_member_*`).
async fn metrics(State(state): State<BrokerState>) -> Response {
    let broker = Arc::clone(&state.broker);
    match tokio::task::spawn_blocking(move || broker.members()).await {
        Ok(Ok(list)) => state.metrics.set_members(&list.members),
        Ok(Err(err)) => tracing::warn!("members for /metrics: {}", err.message),
        Err(err) => tracing::warn!("members for /metrics: {err}"),
    }
    crate::api::metrics_response(&state.metrics)
}

async fn no_route(method: Method, uri: Uri) -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        format!(
            "no route {method} {} on a broker; its API is POST /v1/jobs, GET /v1/jobs/{{id}}, POST /v1/predict, \
             POST /v1/datacenter/tuples, GET /v1/datacenter/members, POST /v1/datacenter/evicted, /metrics, /healthz",
            uri.path()
        ),
    )
}
