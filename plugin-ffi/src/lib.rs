//! C ABI for batch systems and the Slurm plugins.
