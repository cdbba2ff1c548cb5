//! The data center of the thesis's §4.3–4.6 and chapter 5: several
//! schedulers, a global database of their idle slots, the best destination
//! `F^J'`, Algorithm 1 at the data center and Algorithm 2 after evictions.

pub mod database;

pub use database::{rank, route, Choice, Metadata, Request, Role, Route, Tuple};
