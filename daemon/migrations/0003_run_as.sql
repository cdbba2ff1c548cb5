-- Who a job's processes run as (daemon/README.md, Security): its submitter,
-- or execution.user for root's jobs. NULL: the daemon's own user (a daemon
-- not running as root), or a row from before this migration (its recovered
-- job runs as execution.user).
ALTER TABLE jobs ADD COLUMN run_uid INTEGER;
ALTER TABLE jobs ADD COLUMN run_gid INTEGER;
CREATE INDEX jobs_owner ON jobs(owner_uid);
