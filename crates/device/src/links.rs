//! Files opened without following a symbolic link at their path: the file-backed device's
//! own files (`HEADER`, `ZONES`, `DATA`, `LOCK`) and the reports and sweep files the harness
//! and the CLI write. A link there (dangling or not) is refused with
//! [`DeviceError::LinkRefused`] naming it, so a planted `DATA -> /some/file` or
//! `compare.md -> ~/.bashrc` is never truncated or written through. The directory itself may
//! be a link; only the file's last path component is checked.
//!
//! The check is `symlink_metadata` before the open, and on Linux the open itself carries
//! `O_NOFOLLOW`, so a link planted between the two is refused as well.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::DeviceError;

/// Whether the last component of `path` is a symbolic link.
pub fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// [`DeviceError::LinkRefused`] for `path`.
fn refused(path: &Path) -> DeviceError {
    DeviceError::LinkRefused {
        path: path.to_path_buf(),
    }
}

/// Opens `path` with `options`, refusing a symbolic link at it.
///
/// # Errors
/// [`DeviceError::LinkRefused`] when `path` is a symbolic link, [`DeviceError::Io`] when the
/// open fails otherwise.
pub fn open_no_follow(path: &Path, mut options: OpenOptions) -> Result<File, DeviceError> {
    if is_link(path) {
        return Err(refused(path));
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|e| {
        // O_NOFOLLOW fails with ELOOP on a link made since the check.
        if is_link(path) {
            refused(path)
        } else {
            DeviceError::Io(e)
        }
    })
}

/// Creates `path` for writing, or truncates it, refusing a symbolic link at it.
///
/// # Errors
/// As [`open_no_follow`].
pub fn create_no_follow(path: &Path) -> Result<File, DeviceError> {
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(true);
    open_no_follow(path, o)
}

/// Writes `bytes` as the whole of `path` (created or truncated), refusing a symbolic link at
/// it.
///
/// # Errors
/// As [`open_no_follow`]; [`DeviceError::Io`] when the write fails.
pub fn write_no_follow(path: &Path, bytes: &[u8]) -> Result<(), DeviceError> {
    create_no_follow(path)?.write_all(bytes)?;
    Ok(())
}
