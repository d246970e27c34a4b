//! Files as lists of extents, and the offset index that maps a file offset to its extent.

use crate::placement::policy::{IoType, Lifetime};

/// A contiguous run of file bytes on the device. Never spans zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Extent {
    /// Device byte offset of the first file byte.
    pub start: u64,
    /// File bytes in the extent.
    pub len: u64,
}

/// What a file holds; decides its framing and I/O type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// Write-ahead log: sparse (length-framed) writes, reserved open slot.
    Wal = 0,
    /// Sorted table.
    Sst = 1,
    /// Manifest / version log.
    Manifest = 2,
    /// Anything else.
    Other = 3,
}

impl FileKind {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::Wal,
            1 => Self::Sst,
            2 => Self::Manifest,
            3 => Self::Other,
            _ => return None,
        })
    }

    /// Guessed from a name as ZenFS and RocksDB name files (`.log` = WAL, `.sst`, `MANIFEST-`).
    pub fn from_name(name: &str) -> Self {
        let base = name.rsplit('/').next().unwrap_or(name);
        let ext = std::path::Path::new(base)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("");
        if ext.eq_ignore_ascii_case("log") {
            Self::Wal
        } else if ext.eq_ignore_ascii_case("sst") {
            Self::Sst
        } else if base.starts_with("MANIFEST") {
            Self::Manifest
        } else {
            Self::Other
        }
    }

    /// ZenFS's I/O type for placement.
    pub fn io_type(self) -> IoType {
        if self == Self::Wal {
            IoType::Wal
        } else {
            IoType::Other
        }
    }
}

/// A file's persistent attributes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileMeta {
    /// Unique id (never reused).
    pub id: u64,
    /// Name (a path; directories are names only).
    pub name: String,
    /// Readable bytes.
    pub size: u64,
    /// Lifetime hint.
    pub lifetime: Lifetime,
    /// Kind.
    pub kind: FileKind,
    /// Length-framed writes (the WAL): the tail is recoverable from the write pointer.
    pub sparse: bool,
    /// Closed after its last write ([`crate::WritableFile::close`], its data flushed first on
    /// a device with a volatile write cache), or settled by a writable mount: every extent
    /// lies below its zone's write pointer. A writable mount refuses a closed file that a
    /// write pointer cuts ([`crate::FsError::FileCut`]); it drops the cut tail only of a file
    /// that was being written. Stored as bit 1 of the file's flag byte (bit 0: `sparse`);
    /// files of older records read as not closed.
    pub closed: bool,
    /// Device offset where the file's current zone region starts (the tail to recover from
    /// the write pointer), while it is open for writing.
    pub active_extent_start: Option<u64>,
    /// Extents in file order.
    pub extents: Vec<Extent>,
}

/// Maps file offsets to extents by binary search over cumulative lengths.
#[derive(Debug, Clone, Default)]
pub struct ExtentIndex {
    /// `ends[i]` = file offset just past extent `i`.
    ends: Vec<u64>,
}

impl ExtentIndex {
    /// The index of `extents`.
    pub fn new(extents: &[Extent]) -> Self {
        let mut ix = Self {
            ends: Vec::with_capacity(extents.len()),
        };
        for e in extents {
            ix.push(e.len);
        }
        ix
    }

    /// Appends an extent of `len` bytes.
    pub fn push(&mut self, len: u64) {
        let last = self.ends.last().copied().unwrap_or(0);
        self.ends.push(last + len);
    }

    /// Grows the last extent by `len` bytes.
    pub fn extend_last(&mut self, len: u64) {
        if let Some(last) = self.ends.last_mut() {
            *last += len;
        }
    }

    /// Total bytes.
    pub fn len_bytes(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The extent holding file offset `off` and the offset within it.
    pub fn find(&self, off: u64) -> Option<(usize, u64)> {
        let i = self.ends.partition_point(|&end| end <= off);
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (i < self.ends.len()).then_some((i, off - start))
    }
}

/// The SST number of an engine file name (`000123.sst`).
pub(crate) fn sst_number(name: &str) -> Option<u64> {
    name.strip_suffix(".sst")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_finds_the_extent_of_every_offset() {
        let ex = [
            Extent {
                start: 100,
                len: 10,
            },
            Extent { start: 500, len: 5 },
            Extent { start: 9, len: 1 },
        ];
        let ix = ExtentIndex::new(&ex);
        assert_eq!(ix.len_bytes(), 16);
        assert_eq!(ix.find(0), Some((0, 0)));
        assert_eq!(ix.find(9), Some((0, 9)));
        assert_eq!(ix.find(10), Some((1, 0)));
        assert_eq!(ix.find(15), Some((2, 0)));
        assert_eq!(ix.find(16), None);
    }

    #[test]
    fn kinds_from_names() {
        assert_eq!(FileKind::from_name("db/000003.log"), FileKind::Wal);
        assert_eq!(FileKind::from_name("000010.sst"), FileKind::Sst);
        assert_eq!(
            FileKind::from_name("db/MANIFEST-000001"),
            FileKind::Manifest
        );
        assert_eq!(FileKind::from_name("CURRENT"), FileKind::Other);
    }
}
