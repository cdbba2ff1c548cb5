-- The job's SLO verdict, core's `violates` on how it ended, written when the
-- daemon counts its outcome (1: missed, 0: met). NULL: no verdict (still in
-- the system; cancelled, lost, rejected or never started, as in the
-- metrics; or a row that ended before this migration).
ALTER TABLE jobs ADD COLUMN slo_violated INTEGER;
