//! The engine's error kinds as Python exceptions: `zonedb.Error` and one subclass per kind
//! (`CorruptionError`, `NoSpaceError`, `ZoneIOError`, `InvalidArgumentError`,
//! `ClosedError`, and its subclass `ForkedError`), each with the engine's message (and its
//! source chain).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use zonedb_device::{DeviceError, DeviceErrorKind};
use zonedb_fs::{FsError, FsErrorKind};
use zonedb_harness::db_bench::HarnessError;
use zonedb_lsm::{LsmError, LsmErrorKind};

create_exception!(
    zonedb,
    Error,
    PyException,
    "Every error the engine or the lab reports."
);
create_exception!(
    zonedb,
    CorruptionError,
    Error,
    "Stored data failed a checksum or does not decode."
);
create_exception!(
    zonedb,
    NoSpaceError,
    Error,
    "The zoned device is full: reads work, writes are refused."
);
create_exception!(
    zonedb,
    ZoneIOError,
    Error,
    "The device or the zone file layer failed."
);
create_exception!(
    zonedb,
    InvalidArgumentError,
    Error,
    "A bad option, argument or scenario."
);
create_exception!(zonedb, ClosedError, Error, "The store is closed.");
create_exception!(
    zonedb,
    ForkedError,
    ClosedError,
    "The store was opened in another process (this one is a fork() child of it): open it \
     again in this process."
);

/// The message of `e` with its sources (`: `-joined), as the CLI prints them.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = c.source();
    }
    s
}

/// The Python exception of an error of `kind` saying `msg`.
fn of_kind(kind: LsmErrorKind, msg: String) -> PyErr {
    match kind {
        LsmErrorKind::Corruption => CorruptionError::new_err(msg),
        LsmErrorKind::NoSpace => NoSpaceError::new_err(msg),
        LsmErrorKind::Io => ZoneIOError::new_err(msg),
        LsmErrorKind::InvalidArgument => InvalidArgumentError::new_err(msg),
    }
}

/// The Python exception of an engine error, by its kind.
pub fn lsm(e: LsmError) -> PyErr {
    let msg = chain(&e);
    if matches!(e, LsmError::Closed) {
        return ClosedError::new_err(msg);
    }
    of_kind(e.kind(), msg)
}

/// The kind of a device error: a bad configuration (a symbolic link where a device file
/// belongs is one), or I/O.
fn device_kind(e: &DeviceError) -> LsmErrorKind {
    match e.kind() {
        DeviceErrorKind::InvalidConfig => LsmErrorKind::InvalidArgument,
        _ => LsmErrorKind::Io,
    }
}

/// The Python exception of a device error (opening a device).
pub fn device(e: &DeviceError) -> PyErr {
    of_kind(device_kind(e), chain(e))
}

/// The engine's kind of a file layer error.
fn fs_kind(e: &FsError) -> LsmErrorKind {
    match e.kind() {
        FsErrorKind::NoSpace => LsmErrorKind::NoSpace,
        FsErrorKind::Corruption => LsmErrorKind::Corruption,
        FsErrorKind::InvalidArgument => LsmErrorKind::InvalidArgument,
        FsErrorKind::Io | FsErrorKind::NotFound => LsmErrorKind::Io,
    }
}

/// The engine's kind of a harness error (None: the harness's own, such as a failed check).
fn harness_kind(e: &HarnessError) -> Option<LsmErrorKind> {
    Some(match e {
        HarnessError::Lsm(e) | HarnessError::OutOfSpace { source: e, .. } => e.kind(),
        HarnessError::Fs(e) => fs_kind(e),
        HarnessError::Device(e) => device_kind(e),
        HarnessError::Config { .. } | HarnessError::LinkRefused { .. } => {
            LsmErrorKind::InvalidArgument
        }
        HarnessError::Io { .. } => LsmErrorKind::Io,
        _ => return None,
    })
}

/// The Python exception of a CLI/lab error: a failed run by its error's kind (a full device
/// is `NoSpaceError`), bad arguments `InvalidArgumentError`.
pub fn cli(e: zonedb::cli::CliError) -> PyErr {
    use zonedb::cli::CliError;
    let kind = match &e {
        CliError::Usage(_) => Some(LsmErrorKind::InvalidArgument),
        CliError::Harness(h) => harness_kind(h),
        CliError::Run(f) => f.error.as_ref().and_then(harness_kind),
        CliError::Device(d) => Some(device_kind(d)),
        CliError::Fs(f) => Some(fs_kind(f)),
        _ => None,
    };
    let msg = match &e {
        CliError::Usage(m) => m.clone(),
        e => chain(e),
    };
    match kind {
        Some(k) => of_kind(k, msg),
        None => Error::new_err(msg),
    }
}

/// A harness error (sweep files, results directories).
pub fn harness(e: HarnessError) -> PyErr {
    cli(zonedb::cli::CliError::Harness(e))
}

/// `InvalidArgumentError(msg)`.
pub fn invalid(msg: String) -> PyErr {
    InvalidArgumentError::new_err(msg)
}

/// `ClosedError`.
pub fn closed() -> PyErr {
    ClosedError::new_err("the store is closed: open it again to use it")
}

/// `ForkedError`: a store (or its snapshot or iterator) used in a `fork()` child of the
/// process `opened_by` that opened it.
pub fn forked(path: &str, opened_by: u32) -> PyErr {
    ForkedError::new_err(format!(
        "the store {path} was opened in another process (pid {opened_by}); this process \
         (pid {}) is a fork() child of it, and a store is not inherited across fork(): \
         open it again in this process (after the parent has closed it)",
        std::process::id()
    ))
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("CorruptionError", py.get_type::<CorruptionError>())?;
    m.add("NoSpaceError", py.get_type::<NoSpaceError>())?;
    m.add("ZoneIOError", py.get_type::<ZoneIOError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("ClosedError", py.get_type::<ClosedError>())?;
    m.add("ForkedError", py.get_type::<ForkedError>())?;
    Ok(())
}
