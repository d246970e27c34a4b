//! The engine's error kinds as Python exceptions: `zonedb.Error` and one subclass per kind
//! (`CorruptionError`, `NoSpaceError`, `ZoneIOError`, `InvalidArgumentError`,
//! `ClosedError`), each with the engine's message (and its source chain).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use zonedb_device::DeviceError;
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

/// The Python exception of an engine error, by its kind.
pub fn lsm(e: LsmError) -> PyErr {
    let msg = chain(&e);
    if matches!(e, LsmError::Closed) {
        return ClosedError::new_err(msg);
    }
    match e.kind() {
        LsmErrorKind::Corruption => CorruptionError::new_err(msg),
        LsmErrorKind::NoSpace => NoSpaceError::new_err(msg),
        LsmErrorKind::Io => ZoneIOError::new_err(msg),
        LsmErrorKind::InvalidArgument => InvalidArgumentError::new_err(msg),
    }
}

/// The Python exception of a device error (opening a device).
pub fn device(e: &DeviceError) -> PyErr {
    match e {
        DeviceError::InvalidConfig(_) => InvalidArgumentError::new_err(chain(e)),
        _ => ZoneIOError::new_err(chain(e)),
    }
}

/// The Python exception of a CLI/lab error.
pub fn cli(e: zonedb::cli::CliError) -> PyErr {
    use zonedb::cli::CliError;
    match e {
        CliError::Usage(m) => InvalidArgumentError::new_err(m),
        CliError::Harness(zonedb_harness::db_bench::HarnessError::Config(m)) => {
            InvalidArgumentError::new_err(m)
        }
        CliError::Harness(zonedb_harness::db_bench::HarnessError::Lsm(e)) => lsm(e),
        CliError::Device(e) => device(&e),
        other => Error::new_err(chain(&other)),
    }
}

/// A harness error (sweep files, results directories).
pub fn harness(e: zonedb_harness::db_bench::HarnessError) -> PyErr {
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
    Ok(())
}
