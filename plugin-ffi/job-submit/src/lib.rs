//! Slurm job_submit/interstice plugin (being built).
