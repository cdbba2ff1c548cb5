//! sim (being built).
