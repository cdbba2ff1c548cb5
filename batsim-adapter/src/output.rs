//! output (being built).
