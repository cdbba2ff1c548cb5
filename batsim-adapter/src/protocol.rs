//! protocol (being built).
