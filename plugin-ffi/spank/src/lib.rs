//! Slurm SPANK plugin spank_interstice (being built).
