//! Daemon lifecycle: lock the state directory (one daemon each), open the
//! state, recover jobs, start the engine actor,
//! the backend and the listeners (a data center's broker starts none of the
//! engine's parts: only its own routes, [`crate::datacenter::broker`]),
//! then serve until SIGTERM/SIGINT (stop
//! admitting, finish in-flight requests, exit 0). SIGHUP re-reads the config
//! and swaps in what can change without a restart (execution, node, metrics);
//! an invalid new config is logged and the old one kept.

use crate::actor::{Actor, ActorSetup, Command, Reloadable};
use crate::api::{router, AppState};
use crate::backend::{self, HpcSink, Shutdown};
use crate::clock::Clock;
use crate::config::BackendConfig;
use crate::config::Config;
use crate::datacenter::broker::{router as broker_router, Broker, BrokerState};
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::reload::ConfigText;
use crate::store::Store;
use axum::Router;
use futures_util::StreamExt;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::watch;

/// Command-line overrides of the config.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--socket`.
    pub socket: Option<PathBuf>,
    /// `--listen`.
    pub listen: Option<String>,
    /// `--state`.
    pub state_dir: Option<PathBuf>,
}

impl Overrides {
    /// Apply to a loaded config (re-validate afterwards).
    pub fn apply(&self, config: &mut Config) {
        if let Some(socket) = &self.socket {
            config.api.socket = socket.clone();
        }
        if let Some(listen) = &self.listen {
            config.api.listen = Some(listen.clone());
        }
        if let Some(state) = &self.state_dir {
            config.state_dir = state.clone();
            config.absolute_state_dir();
        }
    }
}

/// Fatal daemon errors.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Could not start.
    #[error("{0}")]
    Setup(String),
    /// The backend failed.
    #[error("backend: {0}")]
    Backend(#[from] backend::BackendError),
}

fn setup(message: impl std::fmt::Display) -> DaemonError {
    DaemonError::Setup(message.to_string())
}

/// Load a config file with overrides applied and validate it.
pub fn load_config(path: &Path, overrides: &Overrides) -> Result<Config, crate::config::ConfigError> {
    let mut config = Config::load(path)?;
    overrides.apply(&mut config);
    let problems = config.validate();
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(crate::config::ConfigError::Invalid {
            path: path.to_path_buf(),
            problems,
        })
    }
}

/// Create the socket's directory `dir` and its missing parents, mode 0755
/// less the umask: never writable by the group whatever the umask (as the
/// state directory, [`crate::state_dir::create_state_dir`]).
fn create_dirs(dir: &Path) -> Result<(), DaemonError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(|err| setup(format!("cannot create {}: {err}", dir.display())))
}

async fn bind_socket(path: &Path) -> Result<UnixListener, DaemonError> {
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        create_dirs(parent)?;
    }
    if path.exists() {
        if tokio::net::UnixStream::connect(path).await.is_ok() {
            return Err(setup(format!(
                "another daemon is listening on {}; stop it or use --socket",
                path.display()
            )));
        }
        std::fs::remove_file(path)
            .map_err(|err| setup(format!("cannot remove stale socket {}: {err}", path.display())))?;
    }
    let listener = UnixListener::bind(path)
        .map_err(|err| setup(format!("cannot listen on {}: {err}", path.display())))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|err| setup(format!("cannot chmod {}: {err}", path.display())))?;
    Ok(listener)
}

/// What start-up refuses before anything starts, checked without changing
/// anything (`intersticed --check-config` runs it; [`run`] does before it
/// makes the state directory): the state directory's path, a token file
/// others may read, and a descriptor limit too low for the connection limits.
pub fn preflight(config: &Config) -> Result<(), DaemonError> {
    crate::state_dir::check_state_dir(&config.state_dir).map_err(setup)?;
    config.api.token().map_err(setup)?;
    if let Some(problem) = crate::fd_limit::problem(config) {
        return Err(setup(problem));
    }
    if let Some(problem) = crate::exec::work_root_disk_problem(&config.state_dir, &config.execution) {
        return Err(setup(problem));
    }
    Ok(())
}

/// Run the daemon until a stop signal. `config_path` is re-read on SIGHUP.
pub async fn run(config: Config, config_path: PathBuf, overrides: Overrides) -> Result<(), DaemonError> {
    preflight(&config)?;
    crate::fd_limit::raise(&config).map_err(setup)?;
    crate::state_dir::create_state_dir(&config.state_dir).map_err(setup)?;
    // Held until `run` returns: a second daemon on this state would adopt
    // and run this one's jobs twice.
    let _state_lock = crate::lock::lock_state_dir(&config.state_dir).map_err(setup)?;
    let db_path = config.state_dir.join("interstice.sqlite");
    let store = Store::open(&db_path).map_err(|err| setup(format!("{}: {err}", db_path.display())))?;
    let mut metrics = Metrics::new();
    if let Some(table) = config
        .class_table()
        .map_err(|problems| setup(problems.join("; ")))?
    {
        metrics
            .set_classes(table)
            .map_err(|err| setup(format!("class metrics: {err}")))?;
    }
    if let Some(broker) = config.broker() {
        return run_broker(&config, broker, store, metrics).await;
    }
    let wrapper =
        std::env::current_exe().map_err(|err| setup(format!("cannot find own executable: {err}")))?;
    let executor = Executor::new(&config.state_dir, wrapper, config.execution.clone()).map_err(setup)?;
    metrics.set_confinement(&executor.confinement());
    let eviction = config
        .slurm_eviction(metrics.classes())
        .map_err(|problems| setup(problems.join("; ")))?
        .map(|settings| backend::slurm::evict::Policy::configured(settings, metrics.classes()));
    let mut backend_config = config.backend.clone();
    let engine = config.engine_config().map_err(setup)?;
    let shape = backend::slurm::EngineShape {
        procs: engine.procs,
        conv_procs: engine.conv_procs,
    };
    if let BackendConfig::Embedded(embedded) = &mut backend_config {
        embedded.clip_procs = Some(config.engine.procs);
    }
    let actor = Actor::start(ActorSetup {
        config: config.clone(),
        store,
        metrics: metrics.clone(),
        executor,
        clock: Clock::System,
    })
    .map_err(setup)?;
    let (commands, receiver) = mpsc::channel();
    let actor_thread = std::thread::Builder::new()
        .name("engine".to_string())
        .spawn(move || actor.run(receiver))
        .map_err(|err| setup(format!("cannot start the engine thread: {err}")))?;

    let (stop_tx, stop_rx) = watch::channel(false);
    let app = router(AppState {
        commands: commands.clone(),
        metrics: metrics.clone(),
    });
    let listeners = Listeners::start(&config, app, &stop_rx).await?;
    tracing::info!(socket = %config.api.socket.display(), listen = ?config.api.listen, backend = backend::name(&config.backend), "intersticed ready");
    let mut backend_task = tokio::spawn(backend::run(
        backend_config,
        shape,
        eviction,
        HpcSink::new(commands.clone()),
        metrics,
        Shutdown::new(stop_rx.clone()),
    ));

    let mut signals = signal_hook_tokio::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|err| setup(format!("cannot install signal handlers: {err}")))?;
    let mut outcome = Ok(());
    let mut backend_done = false;
    // The file as it was loaded, to say what each SIGHUP changes.
    let mut in_effect = ConfigText::read(&config_path).unwrap_or_default();
    loop {
        tokio::select! {
            signal = signals.next() => match signal {
                Some(SIGHUP) => reload(&config_path, &overrides, &commands, &mut in_effect),
                Some(signal) => {
                    tracing::info!(signal, "stopping: no new admissions, finishing in-flight requests");
                    break;
                }
                None => break,
            },
            result = &mut backend_task, if !backend_done => {
                backend_done = true;
                match result {
                    Ok(Ok(())) => {}
                    Ok(Err(err)) => {
                        tracing::error!("backend failed: {err}");
                        outcome = Err(DaemonError::Backend(err));
                        break;
                    }
                    Err(err) => {
                        outcome = Err(setup(format!("backend task panicked: {err}")));
                        break;
                    }
                }
            }
        }
    }
    let _ = stop_tx.send(true);
    let deadline = Duration::from_secs(5);
    listeners.stop(deadline).await;
    if !backend_done && tokio::time::timeout(deadline, backend_task).await.is_err() {
        tracing::warn!("the backend did not stop within {deadline:?}");
    }
    let _ = commands.send(Command::Shutdown);
    drop(commands);
    let _ = tokio::task::spawn_blocking(move || actor_thread.join()).await;
    let _ = std::fs::remove_file(&config.api.socket);
    outcome
}

/// A broker (`datacenter: {role: broker}`): no engine, no backend, no jobs
/// of its own; it serves its members' database and places jobs on them
/// until a stop signal. SIGHUP changes nothing (restart it instead).
async fn run_broker(
    config: &Config,
    broker: &crate::config::BrokerConfig,
    store: Store,
    metrics: Metrics,
) -> Result<(), DaemonError> {
    let rules = config.broker_rules().map_err(setup)?;
    let state = BrokerState {
        broker: Arc::new(
            Broker::new(store, broker, rules, Clock::System).with_token(config.api.token().map_err(setup)?),
        ),
        metrics,
    };
    let (stop_tx, stop_rx) = watch::channel(false);
    let listeners = Listeners::start(config, broker_router(state), &stop_rx).await?;
    tracing::info!(socket = %config.api.socket.display(), listen = ?config.api.listen, "intersticed ready (broker)");
    let mut signals = signal_hook_tokio::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|err| setup(format!("cannot install signal handlers: {err}")))?;
    while let Some(signal) = signals.next().await {
        if signal == SIGHUP {
            tracing::warn!("SIGHUP: a broker applies its configuration only at a restart");
        } else {
            tracing::info!(signal, "stopping: finishing in-flight requests");
            break;
        }
    }
    let _ = stop_tx.send(true);
    listeners.stop(Duration::from_secs(5)).await;
    let _ = std::fs::remove_file(&config.api.socket);
    Ok(())
}

/// The API's listeners: the Unix socket, and the optional TCP one.
struct Listeners {
    unix: tokio::task::JoinHandle<std::io::Result<()>>,
    tcp: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Listeners {
    /// Bind `api.socket` (and `api.listen`) and serve `app` until `stop` says so.
    async fn start(
        config: &Config,
        app: Router,
        stop: &watch::Receiver<bool>,
    ) -> Result<Listeners, DaemonError> {
        let unix = bind_socket(&config.api.socket).await?;
        let tcp = match &config.api.listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|err| setup(format!("cannot listen on {addr}: {err}")))?,
            ),
            None => None,
        };
        let token = config.api.token().map_err(setup)?;
        let tls = config
            .api
            .tls
            .as_ref()
            .map(crate::tls::acceptor)
            .transpose()
            .map_err(setup)?;
        if token.is_some() && tcp.is_none() {
            tracing::warn!("api.token_file is set but api.listen is not: the token opens nothing");
        }
        let limits = config.api.limits(config.backend.slurm_uid());
        let unix = tokio::spawn(crate::listen::serve_unix(
            unix,
            app.clone(),
            crate::listen::Gate::new("unix socket", limits),
            Shutdown::new(stop.clone()),
        ));
        let tcp = tcp.map(|tcp| {
            tokio::spawn(crate::listen::serve_tcp(
                tcp,
                app,
                crate::listen::TcpPolicy {
                    token: token.map(Into::into),
                },
                tls,
                crate::listen::Gate::new("tcp", limits),
                Shutdown::new(stop.clone()),
            ))
        });
        Ok(Listeners { unix, tcp })
    }

    /// Wait up to `deadline` for each listener to finish its in-flight requests.
    async fn stop(self, deadline: Duration) {
        if tokio::time::timeout(deadline, self.unix).await.is_err() {
            tracing::warn!("the unix socket listener did not stop within {deadline:?}");
        }
        if let Some(tcp) = self.tcp {
            if tokio::time::timeout(deadline, tcp).await.is_err() {
                tracing::warn!("the tcp listener did not stop within {deadline:?}");
            }
        }
    }
}

/// SIGHUP: re-read the file, apply its reloadable sections, and say which
/// changed keys were applied and which need a restart.
fn reload(
    config_path: &Path,
    overrides: &Overrides,
    commands: &mpsc::Sender<Command>,
    in_effect: &mut ConfigText,
) {
    let config = match load_config(config_path, overrides) {
        Ok(config) => config,
        Err(err) => {
            tracing::error!("SIGHUP: keeping the old configuration: {err}");
            return;
        }
    };
    let Some(new_text) = ConfigText::read(config_path) else {
        tracing::error!(config = %config_path.display(), "SIGHUP: the file changed while being read; keeping the old configuration");
        return;
    };
    let (changes, now_in_effect) = in_effect.reload(&new_text);
    let area = changes
        .applied
        .iter()
        .any(|key| key == "engine.conv_procs")
        .then(|| config.engine.conv_procs.unwrap_or(config.engine.procs));
    let reloadable = Reloadable {
        execution: config.execution,
        node: config.node,
        metrics: config.metrics,
        area,
    };
    let _ = commands.send(Command::Reload(Box::new(reloadable)));
    *in_effect = now_in_effect;
    let list = |keys: &[String]| {
        if keys.is_empty() {
            "none".to_string()
        } else {
            keys.join(", ")
        }
    };
    if changes.need_restart.is_empty() {
        tracing::info!(config = %config_path.display(), "SIGHUP: applied: {}", list(&changes.applied));
    } else {
        tracing::warn!(
            config = %config_path.display(),
            "SIGHUP: applied: {}; changed but NOT applied until a restart: {}",
            list(&changes.applied),
            list(&changes.need_restart)
        );
    }
}
