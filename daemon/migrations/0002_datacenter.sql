-- The data center (docs/datacenter.md).

-- Features a job requires (JSON array; NULL: none), handed back to the broker
-- with the job when it is evicted.
ALTER TABLE jobs ADD COLUMN features TEXT;

-- A broker's global database: the latest tuple each member published.
CREATE TABLE members (
    address     TEXT PRIMARY KEY,
    tuple       TEXT NOT NULL,   -- the POST /v1/datacenter/tuples body, as JSON
    received_at REAL NOT NULL    -- the broker's clock, epoch s: the tuple's age counts from here
);

-- A broker's jobs: every answer it gave, and where an accepted job runs now.
CREATE TABLE routes (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    arrival           REAL NOT NULL,    -- first arrival in the data center, epoch s (kept across migrations)
    slo               REAL NOT NULL,    -- from arrival, s
    procs             INTEGER NOT NULL,
    walltime          REAL NOT NULL,
    decision          TEXT NOT NULL,    -- accepted / rejected
    counter_offer_slo REAL,
    member            TEXT,             -- where it runs (accepted)
    member_job_id     INTEGER,          -- its id there
    resubmissions     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX routes_member_job ON routes(member, member_job_id);
