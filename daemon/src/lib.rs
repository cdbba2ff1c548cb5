//! intersticed: the convergence-area node daemon.
