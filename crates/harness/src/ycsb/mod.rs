//! YCSB: the core workload, reproduced.
//!
//! - [`generators`] — FNV key hashing and key names, zipfian, scrambled zipfian, skewed
//!   latest, hotspot, discrete choice.
//! - [`workload`] — property files and `CoreWorkload` settings with YCSB's defaults.
//! - [`values`] — field values from one seed each, and their regenerator (elided values).
//! - [`runner`] — load and run phases on a `Db`, per-operation measurements, YCSB's output.

pub mod generators;
pub mod runner;
pub mod values;
pub mod workload;
