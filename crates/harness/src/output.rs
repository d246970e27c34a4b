//! Output files of reports, studies and sweeps (`compare.md`, `series-N.csv`, plots,
//! `runs/*.json`, `scenarios/*.toml`, `runs.parquet`, ...), written without following a
//! symbolic link at their path ([`zonedb_device::links`]): a link planted in an output
//! directory, dangling or not, is refused with [`HarnessError::LinkRefused`] naming it, and
//! nothing is written through it.

use std::fs::File;
use std::path::Path;

use zonedb_device::{DeviceError, links};

use crate::error::HarnessError;

fn error(path: &Path, e: DeviceError) -> HarnessError {
    match e {
        DeviceError::LinkRefused { path } => HarnessError::LinkRefused { path },
        DeviceError::Io(e) => HarnessError::io(path)(e),
        e => HarnessError::Device(e),
    }
}

/// Creates `path` (or truncates it) for writing, refusing a symbolic link at it.
///
/// # Errors
/// [`HarnessError::LinkRefused`] for a link, [`HarnessError::Io`] naming the file when it
/// cannot be created.
pub fn create(path: &Path) -> Result<File, HarnessError> {
    links::create_no_follow(path).map_err(|e| error(path, e))
}

/// Writes `bytes` as the whole of `path`, refusing a symbolic link at it.
///
/// # Errors
/// As [`create`], and when the write fails.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), HarnessError> {
    links::write_no_follow(path, bytes.as_ref()).map_err(|e| error(path, e))
}

/// Refuses a symbolic link at `path` (for files a library writes by path, such as plots).
///
/// # Errors
/// [`HarnessError::LinkRefused`] when `path` is a symbolic link.
pub fn refuse_link(path: &Path) -> Result<(), HarnessError> {
    if links::is_link(path) {
        return Err(HarnessError::LinkRefused {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}
