//! ZoneDB's benchmark harness: the workloads users know (db_bench's, first), run on the
//! engine in real or simulated mode, with db_bench's result lines; scenarios, studies and
//! their reports.
//!
//! ```
//! use zonedb_harness::{experiment, scenario::Scenario};
//!
//! // db_bench's fillrandom on a simulated ZNS SSD, in virtual time (milliseconds of real time).
//! let text = r#"
//!     name = "tiny"
//!     [device]
//!     profile = "splitzns-paper"
//!     scale = "1/512"
//!     [engine]
//!     write_buffer_size = 1048576
//!     [workload]
//!     benchmarks = "fillrandom"
//!     num = 5000
//!     value_size = 256
//! "#;
//! let scenario = Scenario::configurations(text)?.remove(0);
//! let report = experiment::run(&scenario)?;
//! let fill = &report.benchmarks[0];
//! assert_eq!((fill.name.as_str(), fill.ops), ("fillrandom", 5000));
//! println!("{:.0} ops/s (virtual)", fill.ops as f64 / (fill.wall_ns as f64 / 1e9));
//! # Ok::<(), zonedb_harness::error::HarnessError>(())
//! ```
//!
//! - [`keys`] — db_bench's key format and value generator.
//! - [`benchmark`] — db_bench's benchmark names as an enum.
//! - [`db_bench`] — the benchmarks (`fillseq`, `fillrandom`, `overwrite`, `readrandom`,
//!   `readseq`, `seekrandom`, `deleterandom`), their timing and result lines.
#![deny(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
#![warn(clippy::pedantic)]
#![allow(
    clippy::module_name_repetitions,
    clippy::must_use_candidate,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]

pub mod benchmark;
pub mod conformance;
pub mod db_bench;
pub mod elided;
pub mod error;
pub mod experiment;
pub mod figure;
pub mod fill_delete;
#[cfg(feature = "fjall")]
pub mod fjall_peer;
pub mod histogram;
pub mod input;
pub mod invariants;
pub mod keys;
pub mod kv;
pub mod output;
pub mod report;
pub mod reproduce;
#[cfg(feature = "rocksdb")]
pub mod rocksdb_peer;
pub mod runner;
pub mod scenario;
pub mod stats;
pub mod summary;
pub mod sweep;
pub mod torture;
pub mod verify;
pub mod ycsb;
