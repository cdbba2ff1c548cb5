-- Cloud jobs: one row per submission, updated as the job moves.
CREATE TABLE jobs (
    id                   INTEGER PRIMARY KEY,
    owner_uid            INTEGER,
    owner_pid            INTEGER,
    procs                INTEGER NOT NULL,
    walltime             REAL NOT NULL,
    slo                  REAL NOT NULL,
    argv                 TEXT NOT NULL,
    env                  TEXT,
    workdir              TEXT,
    class                TEXT,
    submitted_at         REAL NOT NULL,
    decision             TEXT NOT NULL,
    predicted_start      REAL,
    predicted_completion REAL,
    violation_seconds    REAL,
    predicts_violation   INTEGER NOT NULL DEFAULT 0,
    counter_offer_slo    REAL,
    state                TEXT NOT NULL,
    pid                  INTEGER,
    pid_start_ticks      INTEGER,
    started_at           REAL,
    ended_at             REAL,
    exit_code            INTEGER,
    end_reason           TEXT,
    evictions            INTEGER NOT NULL DEFAULT 0,
    resubmissions        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX jobs_state ON jobs(state);

-- Append-only log of everything that happened to a job or an HPC event.
CREATE TABLE events (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    time   REAL NOT NULL,
    job_id INTEGER,
    kind   TEXT NOT NULL,
    detail TEXT
);
CREATE INDEX events_job ON events(job_id);

-- Predictions asked for with "admission": true (Slurm's job_submit plugin).
CREATE TABLE admissions (
    seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
    time                 REAL NOT NULL,
    procs                INTEGER NOT NULL,
    walltime             REAL NOT NULL,
    slo                  REAL NOT NULL,
    decision             TEXT NOT NULL,
    predicted_start      REAL,
    predicted_completion REAL,
    counter_offer_slo    REAL
);
