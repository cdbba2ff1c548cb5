-- Every predictor's verdict at admission (exact, thesis, learned: three
-- digits 0 or 1, as the Slurm marker writes them) and the admitting
-- predictor's violation probability. NULL: a row from before this
-- migration (its predictors are not counted when it ends).
ALTER TABLE jobs ADD COLUMN verdicts TEXT;
ALTER TABLE jobs ADD COLUMN violation_probability REAL;
