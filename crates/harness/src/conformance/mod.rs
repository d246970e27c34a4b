//! Device-generic correctness suites: the zone rules of a device, the zone file layer against
//! a model, the engine against a `BTreeMap` oracle. One code path for every backend: the
//! integration tests run it on the simulated ZNS SSD and the file-backed device, and
//! `zonedb selftest --device /dev/nvme0n1` runs it on a Linux zoned block device (the QEMU
//! ZNS test does so inside its guest).
//!
//! - [`device`]: state machine, write-pointer rules, typed errors, limits, concurrent appends.
//! - [`fs_model`]: random creates, appends, syncs, closes, deletes, renames, reads, clean
//!   remounts and crashes of the zone file layer, checked against an in-memory model.
//! - [`db_oracle`]: random puts, deletes, batches, gets, scans, snapshots, flushes and
//!   reopens of the engine, checked against a `BTreeMap` after every read.
//! - [`synced_writes`]: the ordered synced-write workload of the crash tests and its check.

pub mod db_oracle;
pub mod device;
pub mod fs_model;
pub mod synced_writes;

use std::fmt;

/// What a suite found: `Ok` or the first violation.
pub type Verdict = Result<(), Failure>;

/// A violated expectation, or an error where none was allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Self(s)
    }
}

impl From<zonedb_device::DeviceError> for Failure {
    fn from(e: zonedb_device::DeviceError) -> Self {
        Self(format!("device error: {e}"))
    }
}

impl From<zonedb_fs::FsError> for Failure {
    fn from(e: zonedb_fs::FsError) -> Self {
        Self(format!("file layer error: {e}"))
    }
}

impl From<zonedb_lsm::LsmError> for Failure {
    fn from(e: zonedb_lsm::LsmError) -> Self {
        Self(format!("engine error: {e}"))
    }
}

/// `Ok` when `cond` holds, else a failure saying `what` was expected.
///
/// # Errors
/// [`Failure`] naming the expectation.
pub fn ensure(cond: bool, what: impl Into<String>) -> Verdict {
    if cond {
        Ok(())
    } else {
        Err(Failure(format!("expected: {}", what.into())))
    }
}
