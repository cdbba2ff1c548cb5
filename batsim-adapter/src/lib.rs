//! Batsim 4 protocol over ZeroMQ and the built-in simulator.
