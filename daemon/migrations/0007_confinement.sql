-- A job's confinement (issue 42): the memory it asked for (MiB; NULL: the
-- node's default), and what its last run was confined to, written at its
-- start: the node CPUs (a CPU list such as `0-1`), the memory limit in bytes
-- and the process limit (NULL: not limited, or not started).
ALTER TABLE jobs ADD COLUMN memory_mb INTEGER;
ALTER TABLE jobs ADD COLUMN cpus TEXT;
ALTER TABLE jobs ADD COLUMN memory_limit_bytes INTEGER;
ALTER TABLE jobs ADD COLUMN pids_limit INTEGER;
