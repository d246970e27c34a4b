//! Text files a user names (scenario and sweep files, YCSB property files, options files),
//! read up to [`MAX_TEXT_FILE_BYTES`]: a huge file or `/dev/zero` given by mistake is refused
//! with an error instead of growing memory without bound.

use std::io::{self, Read};
use std::path::Path;

/// The most a scenario, sweep, YCSB property or options file may hold: 16 MiB.
pub const MAX_TEXT_FILE_BYTES: u64 = 16 << 20;

/// `std::fs::read_to_string` reading at most [`MAX_TEXT_FILE_BYTES`] (callers name the file
/// in their errors, as they do for a missing one).
///
/// # Errors
/// The open's or the read's error; `InvalidData` for a larger file (saying so and the limit)
/// or for one that is not UTF-8.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_TEXT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_FILE_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than 16 MiB ({MAX_TEXT_FILE_BYTES} bytes), the most a scenario, sweep, property or options file may hold"
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_up_to_the_limit_are_read_and_larger_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, "a = 1\n").unwrap();
        assert_eq!(read_to_string(&small).unwrap(), "a = 1\n");
        let big = dir.path().join("big");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_TEXT_FILE_BYTES + 1).unwrap();
        let e = read_to_string(&big).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("16 MiB"), "{e}");
        f.set_len(MAX_TEXT_FILE_BYTES).unwrap();
        assert_eq!(
            read_to_string(&big).unwrap().len() as u64,
            MAX_TEXT_FILE_BYTES
        );
        if Path::new("/dev/zero").exists() {
            assert!(read_to_string(Path::new("/dev/zero")).is_err());
        }
        assert_eq!(
            read_to_string(&dir.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
