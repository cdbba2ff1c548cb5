//! The hash map every per-job index uses (the engine's job index, the
//! simulator's live jobs, a trace's duplicate check): std's map with
//! foldhash's randomly seeded hasher instead of SipHash. A job's id is
//! hashed several times per event; SipHash cost a replay a tenth of its
//! instructions, foldhash about a sixth of that, and its per-process seed
//! keeps crafted ids from choosing the collisions.

/// A map keyed by job ids (or other small keys) on the fast hasher.
pub type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
