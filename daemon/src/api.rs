//! The HTTP/JSON API (axum) served on the Unix socket and the optional
//! loopback TCP listener (what each serves: [`crate::listen`]). Handlers only parse, forward a [`Command`] to the
//! engine actor and turn its answer into JSON; errors are `{"error": "..."}`.

use crate::actor::{ApiError, Command, ErrorKind, JobsPage, Owner};
use crate::backend::HpcEvent;
use crate::metrics::Metrics;
use axum::body::Bytes;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use interstice_api::wire::{AreaRequest, ErrorBody, HpcEventRequest, PredictRequest, SubmitRequest};
use interstice_core::{ProcSet, Time};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::mpsc;
use tokio::net::UnixStream;
use tokio::sync::oneshot;

/// Who is on the other end of a connection.
#[derive(Clone, Copy, Debug, Default)]
pub struct Peer(pub Owner);

impl Peer {
    /// The peer of an accepted Unix socket connection (`SO_PEERCRED`); a
    /// peer whose credentials cannot be read is nobody in particular.
    pub fn of_unix(stream: &UnixStream) -> Peer {
        match stream.peer_cred() {
            Ok(cred) => Peer(Owner {
                uid: Some(cred.uid()),
                gid: Some(cred.gid()),
                pid: cred.pid(),
            }),
            Err(_) => Peer(Owner::default()),
        }
    }
}

/// Shared by every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The engine actor.
    pub commands: mpsc::Sender<Command>,
    /// For `/metrics`.
    pub metrics: Metrics,
}

/// The API's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/v1/jobs", post(submit).get(list_jobs))
        .route("/v1/jobs/{id}", get(get_job).delete(cancel_job))
        .route("/v1/jobs/{id}/output", get(job_output))
        .route("/v1/predict", post(predict))
        .route("/v1/slots", get(slots))
        .route("/v1/hpc/events", post(hpc_event))
        .route("/v1/area", get(area).post(resize_area))
        .route("/metrics", get(metrics))
        .route("/healthz", get(health))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .with_state(state)
}

pub(crate) fn error_response(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        Json(ErrorBody {
            error: message.into(),
        }),
    )
        .into_response()
}

pub(crate) fn api_error(err: ApiError) -> Response {
    let status = match err.kind {
        ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::TooMany => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    };
    error_response(status, err.message)
}

pub(crate) fn parse_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    if body.is_empty() {
        return Err(ApiError::bad_request("empty request body: send a JSON object"));
    }
    serde_json::from_slice(body).map_err(|err| ApiError::bad_request(format!("invalid request body: {err}")))
}

async fn ask<T: Serialize>(
    state: &AppState,
    command: impl FnOnce(oneshot::Sender<Result<T, ApiError>>) -> Command,
) -> Response {
    let (reply, answer) = oneshot::channel();
    if state.commands.send(command(reply)).is_err() {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the daemon is shutting down; retry later",
        );
    }
    match answer.await {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(err)) => api_error(err),
        Err(_) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the daemon is shutting down; retry later",
        ),
    }
}

pub(crate) fn parse_id(id: &str) -> Result<u64, ApiError> {
    id.parse().map_err(|_| {
        ApiError::bad_request(format!("job id {id:?} is not a number; ids are integers like 42"))
    })
}

async fn submit(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    if owner.uid.is_none() {
        // TCP names nobody, and a job runs as its submitter.
        return error_response(
            StatusCode::FORBIDDEN,
            "submit over the Unix socket: jobs run as their submitter, whom only the socket's peer credentials name",
        );
    }
    let request: SubmitRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(err) => return api_error(err),
    };
    ask(&state, |reply| Command::Submit {
        request,
        owner,
        reply,
    })
    .await
}

async fn predict(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    let request: PredictRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(err) => return api_error(err),
    };
    ask(&state, |reply| Command::Predict {
        request,
        owner,
        reply,
    })
    .await
}

/// `?limit=N&cursor=C` of `GET /v1/jobs` ([`JobsPage`]).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JobsQuery {
    limit: Option<u32>,
    cursor: Option<String>,
}

async fn list_jobs(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    query: Result<axum::extract::Query<JobsQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let page = match query {
        Ok(axum::extract::Query(query)) => JobsPage::parse(query.limit, query.cursor.as_deref()),
        Err(err) => Err(format!("{err}: the query is ?limit=JOBS&cursor=NEXT_CURSOR")),
    };
    match page {
        Ok(page) => ask(&state, |reply| Command::Jobs { owner, page, reply }).await,
        Err(message) => api_error(ApiError::bad_request(message)),
    }
}

async fn get_job(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    Path(id): Path<String>,
) -> Response {
    match parse_id(&id) {
        Ok(id) => ask(&state, |reply| Command::Job { id, owner, reply }).await,
        Err(err) => api_error(err),
    }
}

/// `?stream=stdout|stderr&tail=BYTES` of `GET /v1/jobs/{id}/output`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputQuery {
    #[serde(default = "default_stream")]
    stream: String,
    #[serde(default = "default_tail")]
    tail: u64,
}

fn default_stream() -> String {
    "stdout".to_string()
}

fn default_tail() -> u64 {
    64 * 1024
}

async fn job_output(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<OutputQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let query = match query {
        Ok(axum::extract::Query(query)) => query,
        Err(err) => {
            return api_error(ApiError::bad_request(format!(
                "{err}: the query is ?stream=stdout|stderr&tail=BYTES"
            )))
        }
    };
    match parse_id(&id) {
        Ok(id) => {
            ask(&state, |reply| Command::JobOutput {
                id,
                stream: query.stream,
                tail: query.tail,
                owner,
                reply,
            })
            .await
        }
        Err(err) => api_error(err),
    }
}

async fn cancel_job(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    Path(id): Path<String>,
) -> Response {
    let id = match parse_id(&id) {
        Ok(id) => id,
        Err(err) => return api_error(err),
    };
    ask(&state, |reply| Command::Cancel { id, owner, reply }).await
}

async fn slots(State(state): State<AppState>) -> Response {
    ask(&state, |reply| Command::Slots { reply }).await
}

async fn health(State(state): State<AppState>) -> Response {
    ask(&state, |reply| Command::Health { reply }).await
}

async fn hpc_event(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    let request: HpcEventRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(err) => return api_error(err),
    };
    let event = match hpc_event_from(request) {
        Ok(event) => event,
        Err(err) => return api_error(err),
    };
    ask(&state, |reply| Command::HpcEvent { event, owner, reply }).await
}

/// Check and convert `POST /v1/hpc/events`.
pub fn hpc_event_from(request: HpcEventRequest) -> Result<HpcEvent, ApiError> {
    if request.id.is_empty() {
        return Err(ApiError::bad_request("id: must be the batch system's job id"));
    }
    if request.procs == 0 {
        return Err(ApiError::bad_request("procs: must be at least 1"));
    }
    if !request.walltime.is_finite() || request.walltime <= 0.0 {
        return Err(ApiError::bad_request(format!(
            "walltime: {} must be a positive number of seconds",
            request.walltime
        )));
    }
    let time = match request.time {
        Some(time) if !time.is_finite() || time < 0.0 => {
            return Err(ApiError::bad_request(format!(
                "time: {time} must be epoch seconds"
            )))
        }
        Some(time) => Time::from_secs_f64(time),
        None => crate::clock::wall_clock(),
    };
    let cpus = match &request.cpus {
        None => None,
        Some(text) => Some(
            text.parse::<ProcSet>()
                .map_err(|err| ApiError::bad_request(format!("cpus: {err} (e.g. \"0-3\" or \"0 2 4-5\")")))?,
        ),
    };
    if let Some(cpus) = cpus.as_ref().filter(|cpus| cpus.len() != request.procs) {
        return Err(ApiError::bad_request(format!(
            "cpus: \"{cpus}\" names {} CPU(s) and procs is {}: they must agree (the job holds exactly its CPUs)",
            cpus.len(),
            request.procs
        )));
    }
    Ok(HpcEvent {
        kind: request.kind,
        id: request.id,
        procs: request.procs,
        walltime: Time::from_secs_f64(request.walltime),
        time,
        runtime: None,
        cpus,
    })
}

async fn area(State(state): State<AppState>, ConnectInfo(Peer(owner)): ConnectInfo<Peer>) -> Response {
    ask(&state, |reply| Command::Area {
        resize: None,
        owner,
        reply,
    })
    .await
}

async fn resize_area(
    State(state): State<AppState>,
    ConnectInfo(Peer(owner)): ConnectInfo<Peer>,
    body: Bytes,
) -> Response {
    let request: AreaRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(err) => return api_error(err),
    };
    ask(&state, |reply| Command::Area {
        resize: Some(request.procs),
        owner,
        reply,
    })
    .await
}

async fn metrics(State(state): State<AppState>) -> Response {
    metrics_response(&state.metrics)
}

/// `GET /metrics`: Prometheus's text format (a daemon's and a broker's).
pub(crate) fn metrics_response(metrics: &crate::metrics::Metrics) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        metrics.render(),
    )
        .into_response()
}

async fn no_route(method: Method, uri: Uri) -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        format!(
            "no route {method} {}; the API is /v1/jobs, /v1/jobs/{{id}}, /v1/jobs/{{id}}/output, /v1/predict, /v1/slots, /v1/hpc/events, /v1/area, /metrics, /healthz",
            uri.path()
        ),
    )
}

async fn wrong_method(method: Method, uri: Uri) -> Response {
    error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {}", uri.path()),
    )
}
