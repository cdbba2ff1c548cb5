//! Durable state in SQLite (WAL, `synchronous = FULL`): every request, decision,
//! prediction, start, eviction and outcome. Migrations are the `.sql` files of
//! `daemon/migrations/`, embedded and applied in order on open (tracked with
//! `PRAGMA user_version`).

use crate::identity::RunAs;
use interstice_api::wire::{JobView, PredictorVerdicts};
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::path::Path;

/// The embedded migrations, in order; version N is `MIGRATIONS[N - 1]`.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_datacenter.sql"),
    include_str!("../migrations/0003_run_as.sql"),
    include_str!("../migrations/0004_route_owner.sql"),
    include_str!("../migrations/0005_verdicts.sql"),
    include_str!("../migrations/0006_slo_verdict.sql"),
    include_str!("../migrations/0007_confinement.sql"),
];

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database file is damaged (`PRAGMA quick_check`, or SQLite says so).
    #[error(
        "the database is damaged ({detail}); intersticed will not run on it. To recover: move it aside \
         (`mv {path} {path}.damaged`, with its -wal and -shm files) and start again: the daemon starts with an \
         empty state (the last run's jobs are forgotten: stop their processes by hand); or restore a backup of it"
    )]
    Damaged {
        /// The database file.
        path: String,
        /// What SQLite found.
        detail: String,
    },
    /// The database is newer than this daemon.
    #[error("database schema version {found} is newer than this daemon's ({known}); upgrade intersticed")]
    TooNew {
        /// The database's schema version.
        found: i64,
        /// The newest schema version this daemon knows.
        known: i64,
    },
}

/// A new job row: the request and the admission answer, written before the answer is sent.
#[derive(Clone, Debug)]
pub struct NewJob<'a> {
    /// The daemon's job id.
    pub id: u64,
    /// Owner uid.
    pub owner_uid: Option<u32>,
    /// Owner pid.
    pub owner_pid: Option<i32>,
    /// Who its processes run as (None: the daemon's own user).
    pub run_as: Option<&'a RunAs>,
    /// Processors asked for.
    pub procs: u32,
    /// Walltime, s.
    pub walltime: f64,
    /// SLO, s.
    pub slo: f64,
    /// argv as JSON.
    pub argv_json: &'a str,
    /// env as JSON.
    pub env_json: Option<&'a str>,
    /// Working directory.
    pub workdir: Option<&'a str>,
    /// Free-form class label from the request.
    pub class: Option<&'a str>,
    /// Submission, epoch s.
    pub submitted_at: f64,
    /// accepted / rejected.
    pub decision: &'a str,
    /// Predicted start, epoch s (none: never, or rejected).
    pub predicted_start: Option<f64>,
    /// Predicted completion, epoch s.
    pub predicted_completion: Option<f64>,
    /// Predicted completion minus the deadline, s (positive: late).
    pub violation_seconds: Option<f64>,
    /// The prediction said the SLO would be missed (scored against the outcome).
    pub predicts_violation: bool,
    /// Every predictor's verdict (scored against the outcome too).
    pub verdicts: Option<PredictorVerdicts>,
    /// The admitting predictor's violation probability.
    pub violation_probability: Option<f64>,
    /// SLO offered instead, s (rejected jobs).
    pub counter_offer_slo: Option<f64>,
    /// Initial state: `queued` or `rejected`.
    pub state: &'a str,
    /// Features the job requires, as a JSON array (none: `None`).
    pub features_json: Option<&'a str>,
    /// Memory asked for, MiB (None: the node's default).
    pub memory_mb: Option<u64>,
}

/// What a job's run is confined to, as its view shows it (None: not limited).
#[derive(Clone, Debug, Default)]
pub struct RunLimits<'a> {
    /// Its node CPUs, a CPU list (`0-1`).
    pub cpus: Option<&'a str>,
    /// Its memory limit, bytes.
    pub memory_bytes: Option<u64>,
    /// Its process limit.
    pub pids: Option<u64>,
}

/// A job to recover after a restart.
#[derive(Clone, Debug)]
pub struct StoredJob {
    /// The public view.
    pub view: JobView,
    /// env JSON.
    pub env_json: Option<String>,
    /// Working directory.
    pub workdir: Option<String>,
    /// Start time of the process in clock ticks since boot (`/proc/PID/stat` field 22).
    pub pid_start_ticks: Option<u64>,
    /// Whether the prediction said "violation".
    pub predicts_violation: bool,
    /// Every predictor's verdict (None: a row from before they were recorded).
    pub verdicts: Option<PredictorVerdicts>,
    /// Resubmissions so far.
    pub resubmissions: u32,
    /// Features the job requires.
    pub features: Vec<String>,
    /// Who its processes run as (None: the daemon's own user, or a row
    /// from before run_uid was recorded).
    pub run_as: Option<RunAs>,
    /// Memory asked for, MiB (None: the node's default).
    pub memory_mb: Option<u64>,
}

/// A job a broker answered: where it was sent (accepted) or the counter-offer (rejected).
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// The broker's job id.
    pub id: u64,
    /// First arrival in the data center, epoch s.
    pub arrival: f64,
    /// SLO from `arrival`, s.
    pub slo: f64,
    /// Processors.
    pub procs: u32,
    /// Walltime, s.
    pub walltime: f64,
    /// `accepted` or `rejected`.
    pub decision: String,
    /// SLO offered instead, s (rejected).
    pub counter_offer_slo: Option<f64>,
    /// The member it runs on now (accepted).
    pub member: Option<String>,
    /// Its id on that member.
    pub member_job_id: Option<u64>,
    /// Times the broker placed it again after an eviction.
    pub resubmissions: u32,
    /// The user it was submitted for (`None`: root's).
    pub owner_uid: Option<u32>,
}

/// A member's latest tuple as the broker stored it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTuple {
    /// The member's address.
    pub address: String,
    /// The `POST /v1/datacenter/tuples` body, JSON.
    pub tuple_json: String,
    /// When the broker received it, epoch s.
    pub received_at: f64,
}

/// The SQLite store (one connection, owned by the engine actor).
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// Why the last write failed for want of storage (full, I/O error,
    /// read-only), until a write succeeds again ([`Store::write_failure`]).
    write_failure: Option<String>,
}

/// Whether an error says the state cannot be written at all (rather than
/// this one statement being wrong): the disk is full, failing or read-only.
fn is_storage_failure(err: &StoreError) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(
        err,
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(failure, _))
            if matches!(
                failure.code,
                DiskFull | SystemIoFailure | ReadOnly | CannotOpen | DatabaseCorrupt | NotADatabase
            )
    )
}

/// Whether an error at open says the file is damaged (not a database, malformed).
fn is_damage(err: &StoreError) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(
        err,
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(failure, _))
            if matches!(failure.code, DatabaseCorrupt | NotADatabase)
    )
}

/// Create `path` with mode 0600 if it is missing, and take the group's and
/// others' access away from it and its `-wal`/`-shm` files: the database
/// holds every job's command line and environment.
fn restrict_mode(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::set_permissions(&name, std::fs::Permissions::from_mode(0o600)) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
            _ => {}
        }
    }
    Ok(())
}

/// The rows of rejected submissions.
const REJECTED: &str = "state = 'rejected'";

/// The rows of jobs that were accepted and are over (ended, failed,
/// cancelled, lost): their end is written.
const FINISHED: &str = "state <> 'rejected' AND ended_at IS NOT NULL";

const JOB_COLUMNS: &str = "id, state, decision, owner_uid, procs, walltime, slo, argv, class, submitted_at, \
     predicted_start, predicted_completion, counter_offer_slo, started_at, ended_at, exit_code, pid, evictions, \
     env, workdir, pid_start_ticks, predicts_violation, resubmissions, features, run_uid, run_gid, verdicts, slo_violated, \
     end_reason, cpus, memory_limit_bytes, pids_limit, memory_mb";

const ROUTE_COLUMNS: &str =
    "id, arrival, slo, procs, walltime, decision, counter_offer_slo, member, member_job_id, resubmissions, owner_uid";

impl Store {
    /// Open (creating) the database and apply pending migrations.
    /// The file gets mode 0600 (SQLite gives its `-wal` and `-shm` the
    /// same); a damaged file is refused ([`StoreError::Damaged`]).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        restrict_mode(path).map_err(|err| {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some(format!("cannot restrict the mode of {}: {err}", path.display())),
            ))
        })?;
        let damaged = |detail: String| StoreError::Damaged {
            path: path.display().to_string(),
            detail,
        };
        let opened = (|| {
            let conn = Connection::open(path)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            let problems = Store::quick_check(&conn)?;
            Ok((conn, problems))
        })();
        let (conn, problems) = match opened {
            Ok(opened) => opened,
            Err(err) if is_damage(&err) => return Err(damaged(err.to_string())),
            Err(err) => return Err(err),
        };
        if !problems.is_empty() {
            return Err(damaged(problems.join("; ")));
        }
        let mut store = Store {
            conn,
            write_failure: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// `PRAGMA quick_check`: what it finds wrong (empty: nothing), at most 10 lines.
    fn quick_check(conn: &Connection) -> Result<Vec<String>, StoreError> {
        let mut statement = conn.prepare("PRAGMA quick_check(10)")?;
        let lines = statement
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(lines.into_iter().filter(|line| line != "ok").collect())
    }

    /// Why the state could not be written, while it cannot: the last write
    /// failed for want of storage and none has succeeded since.
    pub fn write_failure(&self) -> Option<&str> {
        self.write_failure.as_deref()
    }

    /// Try a small durable write (after a failure, to notice that storage is back).
    pub fn probe_write(&mut self) -> Result<(), StoreError> {
        let result = (|| {
            let tx = self.conn.transaction()?;
            let version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
            tx.pragma_update(None, "user_version", version)?;
            tx.commit()?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// Note a write's outcome: a storage failure is kept until a write succeeds.
    fn wrote<T>(&mut self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        match &result {
            Ok(_) => self.write_failure = None,
            Err(err) if is_storage_failure(err) => {
                if self.write_failure.is_none() {
                    tracing::error!(
                        "cannot write the state: {err}; admissions answer 503 until a write succeeds"
                    );
                }
                self.write_failure = Some(err.to_string());
            }
            Err(_) => {}
        }
        result
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |row| row.get(0))?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                found: version,
                known,
            });
        }
        for (index, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// The largest job id used so far.
    pub fn max_job_id(&self) -> Result<u64, StoreError> {
        let max: Option<i64> = self
            .conn
            .query_row("SELECT MAX(id) FROM jobs", [], |row| row.get(0))?;
        Ok(max.unwrap_or(0) as u64)
    }

    /// Insert a job row and its decision event in one durable transaction.
    pub fn insert_job(&mut self, job: &NewJob<'_>) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            let tx = self.conn.transaction()?;
            tx.execute(
            "INSERT INTO jobs (id, owner_uid, owner_pid, procs, walltime, slo, argv, env, workdir, class, submitted_at, \
             decision, predicted_start, predicted_completion, violation_seconds, predicts_violation, counter_offer_slo, state, \
             features, run_uid, run_gid, verdicts, violation_probability, memory_mb) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
             ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
            params![
                job.id as i64,
                job.owner_uid,
                job.owner_pid,
                job.procs,
                job.walltime,
                job.slo,
                job.argv_json,
                job.env_json,
                job.workdir,
                job.class,
                job.submitted_at,
                job.decision,
                job.predicted_start,
                job.predicted_completion,
                job.violation_seconds,
                job.predicts_violation,
                job.counter_offer_slo,
                job.state,
                job.features_json,
                job.run_as.map(|run_as| run_as.uid),
                job.run_as.map(|run_as| run_as.gid),
                job.verdicts.map(|verdicts| verdicts.to_string()),
                job.violation_probability,
                job.memory_mb.map(|mb| mb as i64),
            ],
        )?;
            tx.execute(
                "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, ?3, NULL)",
                params![job.submitted_at, job.id as i64, job.decision],
            )?;
            tx.commit()?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// A process started for a job.
    pub fn job_started(
        &mut self,
        id: u64,
        time: f64,
        pid: u32,
        start_ticks: Option<u64>,
        limits: &RunLimits<'_>,
    ) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            let tx = self.conn.transaction()?;
            tx.execute(
                "UPDATE jobs SET state = 'running', pid = ?2, pid_start_ticks = ?3, started_at = ?4, cpus = ?5, \
                 memory_limit_bytes = ?6, pids_limit = ?7 WHERE id = ?1",
                params![
                    id as i64,
                    pid,
                    start_ticks.map(|t| t as i64),
                    time,
                    limits.cpus,
                    limits.memory_bytes.map(|bytes| bytes as i64),
                    limits.pids.map(|pids| pids as i64)
                ],
            )?;
            tx.execute(
                "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, 'started', ?3)",
                params![time, id as i64, format!("pid {pid}")],
            )?;
            tx.commit()?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// The job went back to the queue (evicted or lost, to be resubmitted).
    pub fn job_requeued(&mut self, id: u64, time: f64, evicted: bool, why: &str) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            let tx = self.conn.transaction()?;
            tx.execute(
                "UPDATE jobs SET state = 'queued', pid = NULL, pid_start_ticks = NULL, \
             evictions = evictions + ?2, resubmissions = resubmissions + 1 WHERE id = ?1",
                params![id as i64, evicted as i64],
            )?;
            tx.execute(
                "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, 'requeued', ?3)",
                params![time, id as i64, why],
            )?;
            tx.commit()?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// The job was evicted and is being handed to the broker: queued, no
    /// process, one more eviction (its resubmission is the broker's to count).
    pub fn job_handing_over(&mut self, id: u64, time: f64, why: &str) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            let tx = self.conn.transaction()?;
            tx.execute(
            "UPDATE jobs SET state = 'queued', pid = NULL, pid_start_ticks = NULL, evictions = evictions + 1 \
             WHERE id = ?1",
            params![id as i64],
        )?;
            tx.execute(
                "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, 'handing-over', ?3)",
                params![time, id as i64, why],
            )?;
            tx.commit()?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// The job reached a final state, with its SLO verdict (core's
    /// `violates` on how it ended, as the daemon's metrics count it; `None`:
    /// no verdict).
    #[allow(clippy::too_many_arguments)]
    pub fn job_ended(
        &mut self,
        id: u64,
        time: f64,
        state: &str,
        exit_code: Option<i32>,
        evicted: bool,
        why: &str,
        slo_violated: Option<bool>,
    ) -> Result<(), StoreError> {
        let result =
            (|| -> Result<(), StoreError> {
                let tx = self.conn.transaction()?;
                tx.execute(
                "UPDATE jobs SET state = ?2, ended_at = ?3, exit_code = ?4, end_reason = ?5, pid = NULL, \
             evictions = evictions + ?6, slo_violated = ?7 WHERE id = ?1",
                params![id as i64, state, time, exit_code, why, evicted as i64, slo_violated],
            )?;
                tx.execute(
                    "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, ?3, ?4)",
                    params![time, id as i64, state, why],
                )?;
                tx.commit()?;
                Ok(())
            })();
        self.wrote(result)
    }

    /// Log an event not tied to a job row change.
    pub fn event(
        &mut self,
        time: f64,
        job_id: Option<u64>,
        kind: &str,
        detail: &str,
    ) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            self.conn.execute(
                "INSERT INTO events (time, job_id, kind, detail) VALUES (?1, ?2, ?3, ?4)",
                params![time, job_id.map(|id| id as i64), kind, detail],
            )?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// Record an admission prediction (`"admission": true`).
    #[allow(clippy::too_many_arguments)]
    pub fn admission(
        &mut self,
        time: f64,
        procs: u32,
        walltime: f64,
        slo: f64,
        decision: &str,
        predicted_start: Option<f64>,
        predicted_completion: Option<f64>,
        counter_offer_slo: Option<f64>,
    ) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            self.conn.execute(
            "INSERT INTO admissions (time, procs, walltime, slo, decision, predicted_start, predicted_completion, \
             counter_offer_slo) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![time, procs, walltime, slo, decision, predicted_start, predicted_completion, counter_offer_slo],
        )?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// Keep `tuple_json` as member `address`'s latest tuple, received at `received_at`.
    pub fn put_member(
        &mut self,
        address: &str,
        tuple_json: &str,
        received_at: f64,
    ) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            self.conn.execute(
                "INSERT INTO members (address, tuple, received_at) VALUES (?1, ?2, ?3) \
             ON CONFLICT(address) DO UPDATE SET tuple = excluded.tuple, received_at = excluded.received_at",
                params![address, tuple_json, received_at],
            )?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// The members' tuples received at or after `since`, by address.
    pub fn members(&self, since: f64) -> Result<Vec<StoredTuple>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT address, tuple, received_at FROM members WHERE received_at >= ?1 ORDER BY address",
        )?;
        let rows = statement.query_map(params![since], |row| {
            Ok(StoredTuple {
                address: row.get(0)?,
                tuple_json: row.get(1)?,
                received_at: row.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Record a broker's answer; returns its id.
    pub fn insert_route(&mut self, route: &Route) -> Result<u64, StoreError> {
        let result = (|| -> Result<u64, StoreError> {
            self.conn.execute(
            "INSERT INTO routes (arrival, slo, procs, walltime, decision, counter_offer_slo, member, member_job_id, \
             resubmissions, owner_uid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                route.arrival,
                route.slo,
                route.procs,
                route.walltime,
                route.decision,
                route.counter_offer_slo,
                route.member,
                route.member_job_id.map(|id| id as i64),
                route.resubmissions,
                route.owner_uid
            ],
        )?;
            Ok(self.conn.last_insert_rowid() as u64)
        })();
        self.wrote(result)
    }

    /// A broker job moved: it runs as `member_job_id` on `member` after `resubmissions` resubmissions.
    pub fn route_moved(
        &mut self,
        id: u64,
        member: &str,
        member_job_id: u64,
        resubmissions: u32,
    ) -> Result<(), StoreError> {
        let result = (|| -> Result<(), StoreError> {
            self.conn.execute(
                "UPDATE routes SET member = ?2, member_job_id = ?3, resubmissions = ?4 WHERE id = ?1",
                params![id as i64, member, member_job_id as i64, resubmissions],
            )?;
            Ok(())
        })();
        self.wrote(result)
    }

    /// A broker job by its id.
    pub fn route(&self, id: u64) -> Result<Option<Route>, StoreError> {
        let sql = format!("SELECT {ROUTE_COLUMNS} FROM routes WHERE id = ?1");
        Ok(self
            .conn
            .query_row(&sql, params![id as i64], route_row)
            .optional()?)
    }

    /// The broker job that runs as `member_job_id` on `member`.
    pub fn route_of(&self, member: &str, member_job_id: u64) -> Result<Option<Route>, StoreError> {
        let sql = format!("SELECT {ROUTE_COLUMNS} FROM routes WHERE member = ?1 AND member_job_id = ?2");
        Ok(self
            .conn
            .query_row(&sql, params![member, member_job_id as i64], route_row)
            .optional()?)
    }

    /// One job.
    pub fn job(&self, id: u64) -> Result<Option<StoredJob>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1");
        Ok(self
            .conn
            .query_row(&sql, params![id as i64], stored_job)
            .optional()?)
    }

    /// The newest `limit` jobs, newest last; `active_only` keeps queued and running ones.
    pub fn jobs(&self, active_only: bool, limit: u32) -> Result<Vec<StoredJob>, StoreError> {
        let filter = if active_only {
            "WHERE state IN ('queued', 'running')"
        } else {
            ""
        };
        self.newest_jobs(filter, params![limit])
    }

    /// Jobs newest first, those of `uid` only if given (the `jobs_owner`
    /// index), below id `before` if given, each handed to `take` as read
    /// until it answers false: a page of `GET /v1/jobs` reads only the rows
    /// it keeps, and one more.
    pub fn jobs_newest_first(
        &self,
        uid: Option<u32>,
        before: Option<u64>,
        mut take: impl FnMut(StoredJob) -> bool,
    ) -> Result<(), StoreError> {
        let before = before.map_or(i64::MAX, |id| i64::try_from(id).unwrap_or(i64::MAX));
        let (sql, uid) = match uid {
            Some(uid) => (
                format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id < ?1 AND owner_uid = ?2 ORDER BY id DESC"),
                Some(uid),
            ),
            None => (
                format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id < ?1 ORDER BY id DESC"),
                None,
            ),
        };
        let mut statement = self.conn.prepare(&sql)?;
        let mut rows = match uid {
            Some(uid) => statement.query(params![before, uid])?,
            None => statement.query(params![before])?,
        };
        while let Some(row) = rows.next()? {
            if !take(stored_job(row)?) {
                break;
            }
        }
        Ok(())
    }

    /// Delete the oldest rejected submissions of `uid` (None: of no one's)
    /// beyond its newest `keep`, and their events; how many went.
    pub fn prune_rejected_of(&mut self, uid: Option<u32>, keep: u32) -> Result<u64, StoreError> {
        self.delete_jobs(
            REJECTED,
            "owner_uid IS ?1 AND id NOT IN (SELECT id FROM jobs WHERE state = 'rejected' AND owner_uid IS ?1 \
             ORDER BY id DESC LIMIT ?2)",
            params![uid, keep],
        )
    }

    /// Delete the rejected submissions made before `cutoff` (epoch s) and
    /// their events, but never the newest job (its id is where the next
    /// start counts from: ids are never given twice); how many went.
    pub fn prune_rejected_before(&mut self, cutoff: f64) -> Result<u64, StoreError> {
        self.delete_jobs(
            REJECTED,
            "submitted_at < ?1 AND id < (SELECT MAX(id) FROM jobs)",
            params![cutoff],
        )
    }

    /// Delete the finished jobs (ended, failed, cancelled: not rejected)
    /// that ended before `cutoff` (epoch s), and their events, but never the
    /// newest job; how many went.
    pub fn prune_finished_before(&mut self, cutoff: f64) -> Result<u64, StoreError> {
        self.delete_jobs(
            FINISHED,
            "ended_at < ?1 AND id < (SELECT MAX(id) FROM jobs)",
            params![cutoff],
        )
    }

    /// Delete each user's oldest finished jobs beyond their newest `keep`,
    /// and their events, but never the newest job; how many went.
    pub fn prune_finished_beyond(&mut self, keep: u32) -> Result<u64, StoreError> {
        self.delete_jobs(
            FINISHED,
            &format!(
                "id < (SELECT MAX(id) FROM jobs) AND id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER \
                 (PARTITION BY owner_uid ORDER BY id DESC) AS newer FROM jobs WHERE {FINISHED}) WHERE newer > ?1)"
            ),
            params![keep],
        )
    }

    /// Delete the jobs of `kind` (a condition over `jobs`) that `filter`
    /// (with `params`) keeps, with their events, in one transaction; how
    /// many went.
    fn delete_jobs(
        &mut self,
        kind: &str,
        filter: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<u64, StoreError> {
        let result = (|| -> Result<u64, StoreError> {
            let tx = self.conn.transaction()?;
            let doomed = format!("SELECT id FROM jobs WHERE {kind} AND {filter}");
            tx.execute(&format!("DELETE FROM events WHERE job_id IN ({doomed})"), params)?;
            let deleted = tx.execute(&format!("DELETE FROM jobs WHERE id IN ({doomed})"), params)?;
            tx.commit()?;
            Ok(deleted as u64)
        })();
        self.wrote(result)
    }

    /// The newest `?1` jobs that `filter` (a `WHERE` clause over `jobs`,
    /// its own parameters from `?2`) keeps, newest last.
    fn newest_jobs(
        &self,
        filter: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<StoredJob>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM (SELECT * FROM jobs {filter} ORDER BY id DESC LIMIT ?1) ORDER BY id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(params, stored_job)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

fn stored_job(row: &Row<'_>) -> rusqlite::Result<StoredJob> {
    let argv_json: String = row.get(7)?;
    let started_at: Option<f64> = row.get(13)?;
    let ended_at: Option<f64> = row.get(14)?;
    let submitted_at: f64 = row.get(9)?;
    let slo: f64 = row.get(6)?;
    let state: String = row.get(1)?;
    // Written with the job's end (`Store::job_ended`).
    let slo_violated: Option<bool> = row.get(27)?;
    Ok(StoredJob {
        view: JobView {
            id: row.get::<_, i64>(0)? as u64,
            state,
            decision: row.get(2)?,
            owner_uid: row.get(3)?,
            procs: row.get(4)?,
            walltime: row.get(5)?,
            slo,
            argv: serde_json::from_str(&argv_json).unwrap_or_default(),
            class: row.get(8)?,
            submitted_at,
            predicted_start: row.get(10)?,
            predicted_completion: row.get(11)?,
            counter_offer_slo: row.get(12)?,
            started_at,
            ended_at,
            exit_code: row.get(15)?,
            pid: row.get(16)?,
            evictions: row.get(17)?,
            slo_violated,
            end_reason: row.get(28)?,
            cpus: row.get(29)?,
            memory_limit_bytes: row.get::<_, Option<i64>>(30)?.map(|bytes| bytes as u64),
            pids_limit: row.get::<_, Option<i64>>(31)?.map(|pids| pids as u64),
            processors: None,
        },
        env_json: row.get(18)?,
        workdir: row.get(19)?,
        pid_start_ticks: row.get::<_, Option<i64>>(20)?.map(|t| t as u64),
        predicts_violation: row.get(21)?,
        resubmissions: row.get(22)?,
        features: row
            .get::<_, Option<String>>(23)?
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default(),
        run_as: match (row.get::<_, Option<u32>>(24)?, row.get::<_, Option<u32>>(25)?) {
            (Some(uid), Some(gid)) => Some(RunAs { uid, gid }),
            _ => None,
        },
        verdicts: row
            .get::<_, Option<String>>(26)?
            .and_then(|text| text.parse().ok()),
        memory_mb: row.get::<_, Option<i64>>(32)?.map(|mb| mb as u64),
    })
}

fn route_row(row: &Row<'_>) -> rusqlite::Result<Route> {
    Ok(Route {
        id: row.get::<_, i64>(0)? as u64,
        arrival: row.get(1)?,
        slo: row.get(2)?,
        procs: row.get(3)?,
        walltime: row.get(4)?,
        decision: row.get(5)?,
        counter_offer_slo: row.get(6)?,
        member: row.get(7)?,
        member_job_id: row.get::<_, Option<i64>>(8)?.map(|id| id as u64),
        resubmissions: row.get(9)?,
        owner_uid: row.get(10)?,
    })
}

#[cfg(test)]
mod tests;
