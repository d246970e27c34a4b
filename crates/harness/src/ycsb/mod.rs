//! YCSB: generators reproducing YCSB's core workload exactly.
//!
//! - [`generators`] — FNV key hashing and key names, zipfian, scrambled zipfian, skewed
//!   latest, hotspot, discrete choice.

pub mod generators;
