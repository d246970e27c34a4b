//! The file-backed zoned device of real mode: a directory holding the zones' bytes, write
//! pointers and states, surviving process restarts, with exactly the NVMe ZNS semantics of the
//! shared [`ZoneTable`] (every check is the table's; this module only persists its outcome).
//!
//! # On-disk format (version 1, all integers little-endian)
//!
//! The directory holds four files:
//!
//! - `HEADER` ([`HEADER_LEN`] = 68 bytes), written once by [`ZoneFileDevice::create`] through a
//!   temporary file and a rename, so a device exists exactly when its header does:
//!
//!   | bytes  | field                                   |
//!   |--------|-----------------------------------------|
//!   | 0..8   | magic [`MAGIC`] (`ZDBZONEF`)            |
//!   | 8..12  | format version ([`FORMAT_VERSION`])     |
//!   | 12..16 | zone record length ([`RECORD_LEN`])     |
//!   | 16..20 | zone count                              |
//!   | 20..24 | max open zones (0 = no limit)           |
//!   | 24..28 | max active zones (0 = no limit)         |
//!   | 28..32 | reserved, zero                          |
//!   | 32..40 | zone size, bytes                        |
//!   | 40..48 | zone capacity, bytes                    |
//!   | 48..56 | logical block size, bytes               |
//!   | 56..64 | zone append limit, bytes                |
//!   | 64..68 | CRC32C of bytes 0..64                   |
//!
//! - `ZONES`: one [`RECORD_LEN`] = 64-byte record per zone, zone `z` at byte `64 * z` (records
//!   never straddle a 512-byte sector):
//!
//!   | bytes  | field                                                        |
//!   |--------|--------------------------------------------------------------|
//!   | 0      | NVMe zone state code ([`ZoneState::code`])                   |
//!   | 1..4   | reserved, zero                                               |
//!   | 4..8   | zone index (catches misplaced records)                       |
//!   | 8..16  | write pointer, device byte offset                            |
//!   | 16..24 | programmed bytes from the zone start (data really written;   |
//!   |        | below the write pointer after a finish)                      |
//!   | 24..32 | generation: incremented by every rewrite of the record       |
//!   | 32..60 | reserved, zero                                               |
//!   | 60..64 | CRC32C of bytes 0..60                                        |
//!
//! - `DATA`: a sparse file of zone count × zone size bytes; zone `z` starts at `z * zone size`.
//! - `LOCK`: empty; an exclusive advisory lock on it is held while a device is open.
//!
//! The four are regular files: each is created and opened without following a symbolic link
//! (see [`crate::links`]), so a link planted in the directory (`DATA -> /elsewhere`) is
//! refused with [`DeviceError::LinkRefused`] naming it, never truncated or written through.
//!
//! # Ordering and durability
//!
//! Every state change is admitted by the table first; then, for writes and appends, the data is
//! written with `pwrite`, and then the changed zone records (the written zone, and a zone the
//! admission closed automatically) are rewritten with `pwrite`. A request is acknowledged once
//! both returned, so the page cache holds it and a process kill (even SIGKILL) never loses an
//! acknowledged request. A kill between the two writes loses only the unacknowledged request.
//!
//! Power loss or host crash: the page cache may write `DATA` and `ZONES` back in any order, so
//! only what a [`crate::ZonedDevice::sync`] covered is durable. A sync runs `fdatasync` of `DATA`
//! first and of `ZONES` second (each only when written since the last sync), so the write
//! pointers it makes durable cover durable data. Between syncs either file may reach the disk
//! first, so after a host crash a write pointer may cover unsynced bytes (reading as zeros or
//! old data): the zone layer treats what follows its last flush as a torn tail. The zone layer
//! flushes once per synced WAL write group, around durable metadata records (MANIFEST syncs,
//! renames) and before resets. With
//! [`ZoneFileDevice::set_sync_every_write`] each request is durable when acknowledged (data
//! synced before its record is written, record synced after).
//!
//! Space: a reset punches the zone's range out of `DATA` (`fallocate(PUNCH_HOLE|KEEP_SIZE)`), a
//! finish the unprogrammed rest of the zone, and opening a device the part of every zone above
//! its programmed bytes (empty zones hold no blocks), so the file's blocks follow the zones'
//! data. Before punching, a reset `fdatasync`s `ZONES`, so the reset record is durable before
//! the zone's bytes are gone: a host crash never brings back a zone whose write pointer covers
//! punched bytes (the zone layer flushes before resets, so what made the zone unused is durable
//! too). Punching is best effort (a file system without it keeps the bytes; reads never see
//! them).
//!
//! Reads return zeros for bytes below the write pointer that were never programmed (the tail a
//! finish skipped), so bytes from before a reset are never visible.
//!
//! [`ZoneFileDevice::open_read_only`] opens a device without writing anything (inspection
//! tools): no record is rewritten, nothing is punched, every write and zone operation fails.
//!
//! If a `pwrite` or `fdatasync` fails, the zone table may already have advanced past data that
//! is not in the file, so the device refuses every further request with an I/O error; reopening
//! it reloads the persisted records. One exception: a data `pwrite` the host file system has no
//! room for (`ENOSPC`, `EDQUOT`) is refused with [`DeviceError::HostNoSpace`] (a no-space
//! error, as a full zone's) and its admission undone (the zone's state and write pointer put
//! back; nothing was persisted for it), so the device stays usable: a full host is a full
//! device, and the layers above fall back as on one.
//!
//! Concurrency: one mutex guards the table, the checker and the records, and is held across the
//! file I/O of a request, so the order of admissions to a zone is the order of its data writes.
//! A flush runs its `fdatasync`s without that mutex (flushes are serialized by their own), so
//! requests are not held up behind it.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::checker::WritePointerChecker;
use crate::links;
use crate::zone::{ZoneGeometry, ZoneInfo, ZoneState, ZoneTable};
use crate::{DeviceError, DeviceStats, ZoneOp};

/// Name of the header file inside a device directory.
pub const HEADER_FILE: &str = "HEADER";
/// Name of the zone-state file (one record per zone).
pub const ZONES_FILE: &str = "ZONES";
/// Name of the sparse data file.
pub const DATA_FILE: &str = "DATA";
/// Name of the lock file.
pub const LOCK_FILE: &str = "LOCK";
/// Temporary name of the header while a device is being created.
const HEADER_TMP_FILE: &str = "HEADER.tmp";

/// Magic bytes opening the header.
pub const MAGIC: [u8; 8] = *b"ZDBZONEF";
/// Current on-disk format version.
pub const FORMAT_VERSION: u32 = 1;
/// Header length in bytes, CRC included.
pub const HEADER_LEN: usize = 68;
/// Zone record length in bytes, CRC included.
pub const RECORD_LEN: usize = 64;

/// Most zones a zone file device holds: 1,048,576 (a 64 MiB `ZONES` file; the largest zoned
/// drives have about 100,000). A header claiming more is refused before anything is
/// allocated for its zones (the files may be sparse, so their sizes bound nothing).
pub const MAX_ZONE_COUNT: u32 = 1 << 20;
/// Largest zone size of a zone file device: 64 GiB (zoned drives have 256 MiB to 4 GiB).
pub const MAX_ZONE_SIZE_BYTES: u64 = 1 << 36;
/// Smallest logical block size of a zone file device: 512 bytes.
pub const MIN_BLOCK_SIZE_BYTES: u64 = 512;
/// Largest logical block size of a zone file device: 64 KiB (the zone layer pads each
/// metadata record to a block).
pub const MAX_BLOCK_SIZE_BYTES: u64 = 64 << 10;
/// Zone records read and decoded at a time when a device is opened (256 KiB of `ZONES`).
const RECORDS_PER_READ: usize = 4096;

/// A geometry field beyond what a zone file device supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutOfBounds {
    ZoneCount,
    ZoneSize,
    BlockSize,
}

impl OutOfBounds {
    /// The first field of `g` out of the zone file device's bounds, if any.
    fn of(g: &ZoneGeometry) -> Option<Self> {
        if g.zone_count > MAX_ZONE_COUNT {
            Some(Self::ZoneCount)
        } else if g.zone_size_bytes > MAX_ZONE_SIZE_BYTES {
            Some(Self::ZoneSize)
        } else if !(MIN_BLOCK_SIZE_BYTES..=MAX_BLOCK_SIZE_BYTES).contains(&g.block_size_bytes) {
            Some(Self::BlockSize)
        } else {
            None
        }
    }

    /// What a header with this field says (a [`DeviceError::Corrupt`] message).
    fn header_message(self) -> &'static str {
        match self {
            Self::ZoneCount => {
                "header claims more than 1048576 zones, the most a zone file device holds"
            }
            Self::ZoneSize => {
                "header claims a zone size above 64 GiB, the largest a zone file device supports"
            }
            Self::BlockSize => {
                "header claims a block size outside 512 B to 64 KiB, the sizes a zone file device supports"
            }
        }
    }

    /// Why `create` refuses `g` (a [`DeviceError::InvalidConfig`] message).
    fn create_message(self, g: &ZoneGeometry) -> String {
        match self {
            Self::ZoneCount => format!(
                "{} zones: a zone file device holds at most {MAX_ZONE_COUNT}",
                g.zone_count
            ),
            Self::ZoneSize => format!(
                "zone size {} bytes: a zone file device supports at most {MAX_ZONE_SIZE_BYTES} (64 GiB)",
                g.zone_size_bytes
            ),
            Self::BlockSize => format!(
                "block size {} bytes: a zone file device supports {MIN_BLOCK_SIZE_BYTES} to {MAX_BLOCK_SIZE_BYTES}",
                g.block_size_bytes
            ),
        }
    }
}

fn get_u32(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn encode_header(g: &ZoneGeometry) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(&MAGIC);
    put_u32(&mut b, 8, FORMAT_VERSION);
    put_u32(&mut b, 12, RECORD_LEN as u32);
    put_u32(&mut b, 16, g.zone_count);
    put_u32(&mut b, 20, g.max_open_zones);
    put_u32(&mut b, 24, g.max_active_zones);
    put_u64(&mut b, 32, g.zone_size_bytes);
    put_u64(&mut b, 40, g.zone_capacity_bytes);
    put_u64(&mut b, 48, g.block_size_bytes);
    put_u64(&mut b, 56, g.zone_append_max_bytes);
    let crc = crc32c::crc32c(&b[..HEADER_LEN - 4]);
    put_u32(&mut b, HEADER_LEN - 4, crc);
    b
}

fn decode_header(b: &[u8]) -> Result<ZoneGeometry, DeviceError> {
    if b.len() < MAGIC.len() || b[..MAGIC.len()] != MAGIC {
        return Err(DeviceError::Corrupt(
            "header magic mismatch: not a zone file device",
        ));
    }
    if b.len() != HEADER_LEN {
        return Err(DeviceError::Corrupt("header has the wrong length"));
    }
    if crc32c::crc32c(&b[..HEADER_LEN - 4]) != get_u32(b, HEADER_LEN - 4) {
        return Err(DeviceError::Corrupt("header checksum mismatch"));
    }
    if get_u32(b, 8) != FORMAT_VERSION {
        return Err(DeviceError::Corrupt("unsupported zone file format version"));
    }
    if get_u32(b, 12) as usize != RECORD_LEN {
        return Err(DeviceError::Corrupt(
            "header names an unsupported zone record length",
        ));
    }
    let geometry = ZoneGeometry {
        zone_count: get_u32(b, 16),
        max_open_zones: get_u32(b, 20),
        max_active_zones: get_u32(b, 24),
        zone_size_bytes: get_u64(b, 32),
        zone_capacity_bytes: get_u64(b, 40),
        block_size_bytes: get_u64(b, 48),
        zone_append_max_bytes: get_u64(b, 56),
    };
    geometry
        .validate()
        .map_err(|_| DeviceError::Corrupt("header geometry is invalid"))?;
    if let Some(bad) = OutOfBounds::of(&geometry) {
        return Err(DeviceError::Corrupt(bad.header_message()));
    }
    Ok(geometry)
}

/// One zone's persisted record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    state: ZoneState,
    write_pointer: u64,
    /// Bytes really written from the zone start.
    programmed: u64,
    generation: u64,
}

/// Decoder entry points for fuzzing and the corpus replay test: arbitrary bytes in, never a
/// panic out (an error is fine).
pub mod fuzz {
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::{
        DATA_FILE, HEADER_FILE, HEADER_LEN, LOCK_FILE, RECORD_LEN, Record, ZONES_FILE,
        ZoneFileDevice, decode_header,
    };

    /// Decodes `data` as a `HEADER` file.
    pub fn header(data: &[u8]) {
        let _ = decode_header(data);
    }

    /// Decodes `data` as a `ZONES` file: one record per 64-byte slot.
    pub fn zone_records(data: &[u8]) {
        for (z, chunk) in data.chunks_exact(RECORD_LEN).enumerate() {
            if let Ok(b) = <&[u8; RECORD_LEN]>::try_from(chunk)
                && let Ok(r) = Record::decode(u32::try_from(z).unwrap_or(u32::MAX), b)
            {
                let _ = r.same_state(&r);
            }
        }
    }

    /// Removes a crafted directory when dropped, also when the code given it panics.
    struct Removed<'a>(&'a Path);

    impl Drop for Removed<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0);
        }
    }

    /// Largest sparse `DATA` file a crafted directory gets (1 TiB): a larger geometry keeps
    /// an empty `DATA`, which the open refuses.
    const MAX_SPARSE_DATA: u64 = 1 << 40;

    /// Lays `data` out as a device directory and calls `f` on it (then removes it).
    ///
    /// Layout of `data`: one flag byte (bit 0: `DATA` gets the size the header's geometry
    /// gives, sparse; bit 1: the device is to be opened read-only; bit 2: `ZONES` is one
    /// byte short), the 68-byte `HEADER`, the `ZONES` file (as many bytes as the header's
    /// zone count needs, when the header decodes; else the rest), and the rest written at
    /// the start of `DATA` (the first metadata zone of a file system).
    ///
    /// # Panics
    /// When the temporary directory cannot be written.
    pub fn with_crafted_dir<R>(data: &[u8], f: impl FnOnce(&Path, bool) -> R) -> R {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "zonedb-fuzz-zonefile-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
        let (header, rest) = rest.split_at(rest.len().min(HEADER_LEN));
        let geometry = decode_header(header).ok();
        let zones_len = geometry.as_ref().map_or(rest.len(), |g| {
            (g.zone_count as usize)
                .saturating_mul(RECORD_LEN)
                .saturating_sub(usize::from(flags & 4 != 0))
                .min(rest.len())
        });
        let (zones, content) = rest.split_at(zones_len);
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join(HEADER_FILE), header)?;
            std::fs::write(dir.join(ZONES_FILE), zones)?;
            std::fs::write(dir.join(LOCK_FILE), [])?;
            let file = std::fs::File::create(dir.join(DATA_FILE))?;
            if flags & 1 != 0
                && let Some(size) = geometry
                    .as_ref()
                    .map(crate::ZoneGeometry::device_size_bytes)
                    .filter(|&s| s <= MAX_SPARSE_DATA)
            {
                // A file system may refuse a file this large: `DATA` then stays short.
                let _ = file.set_len(size);
            }
            let content = &content[..content
                .len()
                .min(usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX))];
            std::os::unix::fs::FileExt::write_all_at(&file, content, 0)
        };
        let _removed = Removed(&dir);
        let written = write();
        assert!(written.is_ok(), "{}: {written:?}", dir.display());
        f(&dir, flags & 2 != 0)
    }

    /// Opens `data` laid out as a device directory ([`with_crafted_dir`]) as a device and
    /// reads the start of every zone it reports written.
    pub fn open_dir(data: &[u8]) {
        with_crafted_dir(data, |dir, read_only| {
            let dev = if read_only {
                ZoneFileDevice::open_read_only(dir)
            } else {
                ZoneFileDevice::open(dir)
            };
            let Ok(dev) = dev else { return };
            let g = dev.geometry_now().clone();
            for z in dev.report_now(0, g.zone_count) {
                if z.write_pointer > z.start {
                    let _ =
                        dev.read_now(z.start, g.block_size_bytes.min(z.write_pointer - z.start));
                }
            }
            let _ = dev.read_now(0, g.block_size_bytes);
        });
    }
}

impl Record {
    fn encode(&self, zone: u32) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[0] = self.state.code();
        put_u32(&mut b, 4, zone);
        put_u64(&mut b, 8, self.write_pointer);
        put_u64(&mut b, 16, self.programmed);
        put_u64(&mut b, 24, self.generation);
        let crc = crc32c::crc32c(&b[..RECORD_LEN - 4]);
        put_u32(&mut b, RECORD_LEN - 4, crc);
        b
    }

    fn decode(zone: u32, b: &[u8; RECORD_LEN]) -> Result<Self, DeviceError> {
        if crc32c::crc32c(&b[..RECORD_LEN - 4]) != get_u32(b, RECORD_LEN - 4) {
            return Err(DeviceError::Corrupt("zone record checksum mismatch"));
        }
        if get_u32(b, 4) != zone {
            return Err(DeviceError::Corrupt("zone record stored in the wrong slot"));
        }
        let state =
            ZoneState::from_code(b[0]).ok_or(DeviceError::Corrupt("unknown zone state code"))?;
        Ok(Self {
            state,
            write_pointer: get_u64(b, 8),
            programmed: get_u64(b, 16),
            generation: get_u64(b, 24),
        })
    }

    /// Same persisted zone state, generation aside.
    fn same_state(&self, other: &Self) -> bool {
        self.state == other.state
            && self.write_pointer == other.write_pointer
            && self.programmed == other.programmed
    }
}

/// Reads and verifies the header of the device in `dir`; takes no lock.
///
/// # Errors
/// [`DeviceError::Io`] when the header cannot be read (`NotFound` when there is no device),
/// [`DeviceError::Corrupt`] when it is damaged or of another format.
pub fn geometry_from_dir(dir: &Path) -> Result<ZoneGeometry, DeviceError> {
    let f = open_part(dir, HEADER_FILE, false)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    // Read at most one byte more than a valid header, so a huge file costs nothing.
    f.take(HEADER_LEN as u64 + 1).read_to_end(&mut bytes)?;
    decode_header(&bytes)
}

/// Reads and decodes the `count` zone records of `zones` (its size checked already), a few
/// thousand at a time.
fn read_records(zones: &File, count: u32) -> Result<Vec<Record>, DeviceError> {
    let mut records = Vec::with_capacity(count as usize);
    let mut bytes = vec![0u8; RECORDS_PER_READ.min(count as usize) * RECORD_LEN];
    let mut next = 0u32;
    while next < count {
        let n = RECORDS_PER_READ.min((count - next) as usize);
        let buf = &mut bytes[..n * RECORD_LEN];
        zones.read_exact_at(buf, u64::from(next) * RECORD_LEN as u64)?;
        let (chunks, _) = buf.as_chunks::<RECORD_LEN>();
        for chunk in chunks {
            records.push(Record::decode(next, chunk)?);
            next += 1;
        }
    }
    Ok(records)
}

/// Whether `dir` holds a zone file device (its header exists; it may still be damaged).
///
/// # Errors
/// [`DeviceError::Io`] when the directory cannot be inspected.
pub fn device_exists(dir: &Path) -> Result<bool, DeviceError> {
    Ok(dir.join(HEADER_FILE).try_exists()?)
}

/// Opens `dir/name` with `options` without following a symbolic link there
/// ([`DeviceError::LinkRefused`]), naming the file in an I/O error (a missing `ZONES` or
/// `DATA` says which file, where a bare "No such file or directory" would not); `why` ends
/// the message.
fn open_named(
    dir: &Path,
    name: &str,
    options: OpenOptions,
    why: &str,
) -> Result<File, DeviceError> {
    let path = dir.join(name);
    links::open_no_follow(&path, options).map_err(|e| match e {
        DeviceError::Io(e) => DeviceError::Io(io::Error::new(
            e.kind(),
            format!("{}: {e} ({why})", path.display()),
        )),
        e => e,
    })
}

/// Opens one of the device's files (never through a symbolic link), naming it in the error.
fn open_part(dir: &Path, name: &str, write: bool) -> Result<File, DeviceError> {
    let mut o = OpenOptions::new();
    o.read(true).write(write);
    open_named(
        dir,
        name,
        o,
        &format!(
            "the zone file device in {} is incomplete or damaged",
            dir.display()
        ),
    )
}

/// Creates (truncating) one of the device's files for reading and writing, never through a
/// symbolic link.
fn create_part(dir: &Path, name: &str) -> Result<File, DeviceError> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(true);
    open_named(dir, name, o, "creating the zone file device")
}

fn lock_dir(dir: &Path) -> Result<File, DeviceError> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    let f = open_named(dir, LOCK_FILE, o, "the device's lock file")?;
    lock_briefly(&f, false)?;
    Ok(f)
}

/// How long an open waits for a held lock before it reports [`DeviceError::Locked`]: 250 ms.
const LOCK_WAIT_MS: u64 = 250;

/// Takes the lock file's lock (shared or exclusive), trying again for [`LOCK_WAIT_MS`] while
/// it is held: a child process forked by another thread holds a copy of a just-closed
/// handle's descriptor, and with it the lock, until it `exec`s (microseconds), so a reopen
/// right after a close in a program that spawns processes would otherwise fail at random.
#[allow(
    clippy::disallowed_methods,
    reason = "real-mode device: waits in real time for a lock another process holds"
)]
fn lock_briefly(f: &File, shared: bool) -> Result<(), DeviceError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(LOCK_WAIT_MS);
    loop {
        let r = if shared {
            f.try_lock_shared()
        } else {
            f.try_lock()
        };
        match r {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(TryLockError::WouldBlock) => return Err(DeviceError::Locked),
            Err(TryLockError::Error(e)) => return Err(DeviceError::Io(e)),
        }
    }
}

fn already_exists(dir: &Path) -> DeviceError {
    DeviceError::InvalidConfig(format!(
        "a zone file device already exists in {}; open it instead",
        dir.display()
    ))
}

/// Frees the blocks of `len` bytes at `offset` of `file` (the size stays). Best effort: a file
/// system without hole punching keeps them, which costs space but never correctness (bytes
/// above a zone's programmed length are never read).
#[cfg(target_os = "linux")]
fn punch_hole(file: &File, offset: u64, len: u64) {
    use rustix::fs::{FallocateFlags, fallocate};
    if len > 0 {
        let _unsupported_or_failed = fallocate(
            file,
            FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
            offset,
            len,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn punch_hole(_file: &File, _offset: u64, _len: u64) {}

/// Where a write goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    At(u64),
    Append(u32),
}

#[derive(Debug)]
struct Inner {
    table: ZoneTable,
    checker: WritePointerChecker,
    /// What `ZONES` holds for each zone.
    records: Vec<Record>,
    stats: DeviceStats,
    sync_every_write: bool,
    /// What was written since its last `fdatasync`.
    dirty: Dirty,
    /// Opened with [`ZoneFileDevice::open_read_only`].
    read_only: bool,
    /// Set by a failed write or sync: the table may be ahead of the files.
    failed: Option<String>,
}

impl Inner {
    fn healthy(&self) -> Result<(), DeviceError> {
        match &self.failed {
            None => Ok(()),
            Some(why) => Err(DeviceError::Io(io::Error::other(format!(
                "zone file device failed earlier and must be reopened: {why}"
            )))),
        }
    }

    /// Healthy and opened for writing.
    fn writable(&self) -> Result<(), DeviceError> {
        if self.read_only {
            return Err(DeviceError::Io(io::Error::new(
                ErrorKind::PermissionDenied,
                "zone file device opened read-only",
            )));
        }
        self.healthy()
    }

    fn fail(&mut self, e: &DeviceError) {
        self.failed.get_or_insert_with(|| e.to_string());
    }

    /// Rewrites the record of `zone` when the table's view of it (and `programmed`, when given)
    /// differs from the persisted record. Returns whether it wrote.
    fn persist(
        &mut self,
        zones: &File,
        zone: u32,
        programmed: Option<u64>,
    ) -> Result<bool, DeviceError> {
        let info = self.table.info(zone)?;
        let slot = self
            .records
            .get_mut(zone as usize)
            .ok_or(DeviceError::OutOfRange {
                what: "zone",
                value: u64::from(zone),
                limit: u64::from(self.table.geometry().zone_count),
            })?;
        let next = Record {
            state: info.state,
            write_pointer: info.write_pointer,
            programmed: programmed.unwrap_or(slot.programmed),
            generation: slot.generation.wrapping_add(1),
        };
        if next.same_state(slot) {
            return Ok(false);
        }
        zones.write_all_at(&next.encode(zone), u64::from(zone) * RECORD_LEN as u64)?;
        *slot = next;
        self.dirty.zones = true;
        Ok(true)
    }

    /// With checking on: the persisted records equal the table.
    fn check_records(&self, moment: &str) {
        if !self.checker.enabled() {
            return;
        }
        let infos = self.table.report(0, self.table.geometry().zone_count);
        assert_eq!(
            infos.len(),
            self.records.len(),
            "zone file ({moment}): record count"
        );
        for (info, r) in infos.iter().zip(&self.records) {
            assert!(
                r.state == info.state
                    && r.write_pointer == info.write_pointer
                    && r.programmed <= info.written_bytes(),
                "zone file ({moment}): zone {} persisted as {:?} at {} ({} programmed) but the table has {:?} at {}",
                info.index,
                r.state,
                r.write_pointer,
                r.programmed,
                info.state,
                info.write_pointer
            );
        }
    }
}

/// Files written since their last `fdatasync`.
#[derive(Debug, Default, Clone, Copy)]
struct Dirty {
    data: bool,
    zones: bool,
}

/// A zoned device backed by files in a directory; see the [module docs](self) for the format.
///
/// Open zones come back closed after a reopen, as after a controller power cycle. Dropping the
/// device does not sync: acknowledged requests survive a process exit or kill through the page
/// cache; call [`crate::ZonedDevice::sync`] for power-loss durability.
#[derive(Debug)]
pub struct ZoneFileDevice {
    dir: PathBuf,
    geometry: ZoneGeometry,
    data: File,
    zones: File,
    /// Holds the exclusive lock while the device is open (None once
    /// [`ZoneFileDevice::forget_inherited_lock`] closed it in a forked child).
    lock: Mutex<Option<File>>,
    inner: Mutex<Inner>,
    /// Serializes flushes, which run without `inner` held: a flush that finds nothing dirty
    /// returns only after the flush in progress (which may cover its writes) completed.
    flushing: Mutex<()>,
}

impl ZoneFileDevice {
    /// Creates a device of `geometry` in `dir` (created if needed) and opens it.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for an inconsistent geometry or when `dir` already holds a
    /// device, [`DeviceError::Locked`] when another handle holds the directory,
    /// [`DeviceError::Io`] when the files cannot be written.
    #[allow(
        clippy::needless_pass_by_value,
        reason = "owned like every device constructor's geometry"
    )]
    pub fn create(dir: &Path, geometry: ZoneGeometry) -> Result<Self, DeviceError> {
        geometry.validate()?;
        if let Some(bad) = OutOfBounds::of(&geometry) {
            return Err(DeviceError::InvalidConfig(bad.create_message(&geometry)));
        }
        if dir.as_os_str().is_empty() {
            // Not the current directory by accident: an empty path is a mistake.
            return Err(DeviceError::InvalidConfig(
                "the device directory is an empty path; give a directory".into(),
            ));
        }
        if device_exists(dir)? {
            return Err(already_exists(dir));
        }
        fs::create_dir_all(dir)?;
        let lock = lock_dir(dir)?;
        if device_exists(dir)? {
            return Err(already_exists(dir));
        }
        // Files left by an interrupted create are overwritten (never through a symbolic
        // link: see `crate::links`); the header comes last.
        let data = create_part(dir, DATA_FILE)?;
        data.set_len(geometry.device_size_bytes())?;
        data.sync_all()?;
        let mut bytes = Vec::with_capacity(geometry.zone_count as usize * RECORD_LEN);
        for z in 0..geometry.zone_count {
            let r = Record {
                state: ZoneState::Empty,
                write_pointer: geometry.zone_start(z),
                programmed: 0,
                generation: 0,
            };
            bytes.extend_from_slice(&r.encode(z));
        }
        let zones = create_part(dir, ZONES_FILE)?;
        zones.write_all_at(&bytes, 0)?;
        zones.sync_all()?;
        let tmp = dir.join(HEADER_TMP_FILE);
        let mut header = create_part(dir, HEADER_TMP_FILE)?;
        header.write_all(&encode_header(&geometry))?;
        header.sync_all()?;
        fs::rename(&tmp, dir.join(HEADER_FILE))?;
        File::open(dir)?.sync_all()?;
        Self::open_locked(dir, lock, false)
    }

    /// Opens the device in `dir`, restoring its zones (open zones come back closed).
    ///
    /// # Errors
    /// [`DeviceError::Locked`] when another handle has it open, [`DeviceError::Corrupt`] when
    /// the header, a zone record or a file size is damaged or inconsistent,
    /// [`DeviceError::Io`] when a file cannot be read (`NotFound` when there is no device).
    pub fn open(dir: &Path) -> Result<Self, DeviceError> {
        if !device_exists(dir)? {
            return Err(DeviceError::Io(io::Error::new(
                ErrorKind::NotFound,
                format!("no zone file device in {}", dir.display()),
            )));
        }
        let lock = lock_dir(dir)?;
        Self::open_locked(dir, lock, false)
    }

    /// Opens the device in `dir` for inspection without writing anything to the directory:
    /// open zones stay open in the persisted records (the in-memory table closes them), nothing
    /// is punched, and every write, append, zone operation or sync fails with a
    /// `PermissionDenied` I/O error. Shares the lock with other read-only handles; fails with
    /// [`DeviceError::Locked`] while a writer has the device open.
    ///
    /// # Errors
    /// As [`ZoneFileDevice::open`]; `NotFound` also when the lock file is missing.
    pub fn open_read_only(dir: &Path) -> Result<Self, DeviceError> {
        if !device_exists(dir)? {
            return Err(DeviceError::Io(io::Error::new(
                ErrorKind::NotFound,
                format!("no zone file device in {}", dir.display()),
            )));
        }
        let mut o = OpenOptions::new();
        o.read(true);
        let lock = open_named(
            dir,
            LOCK_FILE,
            o,
            &format!(
                "the lock file of the zone file device in {} is missing or unreadable",
                dir.display()
            ),
        )?;
        lock_briefly(&lock, true)?;
        Self::open_locked(dir, lock, true)
    }

    /// Opens the device in `dir` if there is one (its geometry must equal `geometry`), else
    /// creates it.
    ///
    /// # Errors
    /// As [`ZoneFileDevice::open`] and [`ZoneFileDevice::create`];
    /// [`DeviceError::InvalidConfig`] when the existing device has another geometry.
    pub fn open_or_create(dir: &Path, geometry: ZoneGeometry) -> Result<Self, DeviceError> {
        if !device_exists(dir)? {
            return Self::create(dir, geometry);
        }
        let dev = Self::open(dir)?;
        if dev.geometry != geometry {
            return Err(DeviceError::InvalidConfig(format!(
                "the device in {} has geometry {:?}, not the requested {:?}",
                dir.display(),
                dev.geometry,
                geometry
            )));
        }
        Ok(dev)
    }

    fn open_locked(dir: &Path, lock: File, read_only: bool) -> Result<Self, DeviceError> {
        // The header's geometry is within bounds (zone count, zone and block sizes); every
        // file size is checked against it before anything is allocated for the zones.
        let geometry = geometry_from_dir(dir)?;
        let zones = open_part(dir, ZONES_FILE, !read_only)?;
        let records_len = u64::from(geometry.zone_count) * RECORD_LEN as u64;
        if zones.metadata()?.len() != records_len {
            return Err(DeviceError::Corrupt(
                "zone-state file size does not match the zone count",
            ));
        }
        let data = open_part(dir, DATA_FILE, !read_only)?;
        if data.metadata()?.len() != geometry.device_size_bytes() {
            return Err(DeviceError::Corrupt(
                "data file size does not match the geometry",
            ));
        }
        let records = read_records(&zones, geometry.zone_count)?;
        let saved: Vec<(ZoneState, u64)> =
            records.iter().map(|r| (r.state, r.write_pointer)).collect();
        let table = ZoneTable::restore(geometry.clone(), &saved)?;
        table
            .check_invariants()
            .map_err(|_| DeviceError::Corrupt("restored zone states are inconsistent"))?;
        for (info, r) in table.report(0, geometry.zone_count).iter().zip(&records) {
            if r.programmed > info.written_bytes() {
                return Err(DeviceError::Corrupt(
                    "zone record claims data beyond its write pointer",
                ));
            }
        }
        let mut inner = Inner {
            table,
            checker: WritePointerChecker::new(cfg!(debug_assertions)),
            records,
            stats: DeviceStats::default(),
            sync_every_write: false,
            dirty: Dirty::default(),
            read_only,
            failed: None,
        };
        if read_only {
            // Nothing is written: the restore's changes (open zones are closed now) live in
            // memory only, so the records this device compares against mirror them.
            let infos = inner.table.report(0, geometry.zone_count);
            for (r, info) in inner.records.iter_mut().zip(&infos) {
                r.state = info.state;
                r.write_pointer = info.write_pointer;
            }
        } else {
            for z in 0..geometry.zone_count {
                // Persist what the restore changed (open zones are closed now).
                inner.persist(&zones, z, None)?;
                // Free what lies above the programmed bytes: all of an empty zone, and data a
                // kill left between its pwrite and its record.
                let programmed = inner.records.get(z as usize).map_or(0, |r| r.programmed);
                punch_hole(
                    &data,
                    geometry.zone_start(z) + programmed,
                    geometry.zone_size_bytes - programmed,
                );
            }
        }
        let Inner { table, checker, .. } = &mut inner;
        checker.check(table, "after open", None);
        inner.check_records("after open");
        Ok(Self {
            dir: dir.to_path_buf(),
            geometry,
            data,
            zones,
            lock: Mutex::new(Some(lock)),
            inner: Mutex::new(inner),
            flushing: Mutex::new(()),
        })
    }

    /// The device directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Closes this process's descriptor of the lock file, without unlocking: for a child
    /// process that inherited the open device through `fork()` and will never use it. The
    /// lock belongs to the open file description the parent shares, so unlocking would free
    /// the parent's device under it; closing the child's descriptor leaves the parent's lock
    /// alone, and once the parent closes the device, any process (the child too) can open
    /// it. Nothing else changes; the device must not be used afterwards.
    pub fn forget_inherited_lock(&self) {
        drop(
            self.lock
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    /// Makes every write durable on acknowledgement (power-loss safe, slow) or only on
    /// [`crate::ZonedDevice::sync`] (the default; process kills never lose acknowledged requests).
    pub fn set_sync_every_write(&self, enabled: bool) {
        self.lock().sync_every_write = enabled;
    }

    /// Whether every write is synced on acknowledgement.
    pub fn sync_every_write(&self) -> bool {
        self.lock().sync_every_write
    }

    /// Turns the write-pointer checker (and the check that the persisted records equal the
    /// table) on or off; on by default in debug builds.
    pub fn set_checking(&self, enabled: bool) {
        self.lock().checker = WritePointerChecker::new(enabled);
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn read_now(&self, offset: u64, len: u64) -> Result<Vec<u8>, DeviceError> {
        let n = {
            let mut s = self.lock();
            s.healthy()?;
            let zone = s.table.check_read(offset, len)?;
            let start = self.geometry.zone_start(zone);
            let programmed = s.records.get(zone as usize).map_or(0, |r| r.programmed);
            s.stats.reads += 1;
            s.stats.bytes_read += len;
            // Bytes below the write pointer that were never programmed (after a finish) read
            // as 0.
            (start + programmed).saturating_sub(offset).min(len)
        };
        // The read itself runs without the device lock: bytes below `programmed` were written
        // before it was recorded, and no write ever touches them again until a reset (which
        // the zone layer holds off while a read of the zone is in flight). Readers therefore
        // never wait behind a writer's multi-megabyte pwrite.
        let mut buf = vec![0u8; len as usize];
        if n > 0 {
            self.data.read_exact_at(&mut buf[..n as usize], offset)?;
        }
        Ok(buf)
    }

    pub(crate) fn write_now(&self, target: Target, data: &[u8]) -> Result<u64, DeviceError> {
        let len = data.len() as u64;
        let mut guard = self.lock();
        let s = &mut *guard;
        s.writable()?;
        s.checker.check(&s.table, "before write", None);
        // The target zone as it was, to undo the admission of a write the host has no room
        // for.
        let before = match target {
            Target::At(offset) => self.geometry.zone_of(offset),
            Target::Append(zone) => Some(zone),
        }
        .and_then(|z| s.table.info(z).ok());
        let adm = match target {
            Target::At(offset) => s.table.admit_write(offset, len)?,
            Target::Append(zone) => s.table.admit_append(zone, len)?,
        };
        let programmed = adm.offset - self.geometry.zone_start(adm.zone) + len;
        if let Err(e) = self.data.write_all_at(data, adm.offset) {
            return Err(self.refuse_write(s, &adm, before, e));
        }
        let committed = (|| {
            s.dirty.data = true;
            if s.sync_every_write {
                self.data.sync_data()?;
                s.dirty.data = false;
            }
            if let Some(closed) = adm.auto_closed {
                s.persist(&self.zones, closed, None)?;
            }
            s.persist(&self.zones, adm.zone, Some(programmed))?;
            if s.sync_every_write {
                self.zones.sync_data()?;
                s.dirty.zones = false;
            }
            Ok::<(), DeviceError>(())
        })();
        if let Err(e) = committed {
            s.fail(&e);
            return Err(e);
        }
        s.stats.writes += 1;
        s.stats.bytes_written += len;
        s.checker.check(&s.table, "after write", None);
        s.check_records("after write");
        Ok(adm.offset)
    }

    /// A write whose data did not reach `DATA` (`e`): when the host file system is full or
    /// over quota, the admission is undone (the zone's state and write pointer as `before`;
    /// a zone the admission closed stays closed, its record persisted) and the write is
    /// refused with [`DeviceError::HostNoSpace`], the device still usable: a full host is a
    /// full device, not a failed one. Bytes the `pwrite` got in lie above the write pointer
    /// and the programmed bytes, never read (and punched at the next open). Any other error
    /// fails the device, as before.
    fn refuse_write(
        &self,
        s: &mut Inner,
        adm: &crate::zone::WriteAdmission,
        before: Option<ZoneInfo>,
        e: io::Error,
    ) -> DeviceError {
        let e = DeviceError::from_host(e);
        if let (DeviceError::HostNoSpace { .. }, Some(b)) = (&e, before)
            && b.index == adm.zone
            && s.table.resync(adm.zone, b.state, b.write_pointer).is_ok()
        {
            match adm.auto_closed.map(|z| s.persist(&self.zones, z, None)) {
                Some(Err(persist)) => s.fail(&persist),
                _ => s.check_records("after a write the host had no room for"),
            }
            return e;
        }
        s.fail(&e);
        e
    }

    pub(crate) fn manage_now(&self, zone: u32, op: ZoneOp) -> Result<(), DeviceError> {
        let mut guard = self.lock();
        let s = &mut *guard;
        s.writable()?;
        s.checker.check(&s.table, "before zone management", None);
        let out = match op {
            ZoneOp::Open => s.table.open(zone)?,
            ZoneOp::Close => s.table.close(zone)?,
            ZoneOp::Finish => s.table.finish(zone)?,
            ZoneOp::Reset => s.table.reset(zone)?,
            ZoneOp::ReadOnly => s.table.set_read_only(zone)?,
            ZoneOp::Offline => s.table.set_offline(zone)?,
        };
        let programmed = (op == ZoneOp::Reset).then_some(0);
        let kept = s.records.get(zone as usize).map_or(0, |r| r.programmed);
        let committed = s.persist(&self.zones, zone, programmed).and_then(|wrote| {
            if wrote && (s.sync_every_write || op == ZoneOp::Reset) {
                // A reset's record is durable before its bytes go (a crash never brings back
                // the zone's old write pointer over punched bytes).
                self.zones.sync_data()?;
                s.dirty.zones = false;
            }
            Ok(wrote)
        });
        let wrote = match committed {
            Ok(wrote) => wrote,
            Err(e) => {
                s.fail(&e);
                return Err(e);
            }
        };
        if wrote {
            let start = self.geometry.zone_start(zone);
            match op {
                ZoneOp::Reset => punch_hole(&self.data, start, self.geometry.zone_size_bytes),
                ZoneOp::Finish => punch_hole(
                    &self.data,
                    start + kept,
                    self.geometry.zone_size_bytes - kept,
                ),
                _ => {}
            }
        }
        if out.changed {
            match op {
                ZoneOp::Finish => s.stats.zone_finishes += 1,
                ZoneOp::Reset => s.stats.zone_resets += 1,
                _ => {}
            }
        }
        let reset_zone = (op == ZoneOp::Reset).then_some(zone);
        s.checker
            .check(&s.table, "after zone management", reset_zone);
        s.check_records("after zone management");
        Ok(())
    }

    pub(crate) fn sync_now(&self) -> Result<(), DeviceError> {
        let _flushing = self.flushing.lock().unwrap_or_else(PoisonError::into_inner);
        // Every write acknowledged before this point is in the page cache; what is dirty now is
        // flushed below without the device lock, so requests go on meanwhile (a later write
        // marks its file dirty again for the next flush).
        let dirty = {
            let mut s = self.lock();
            s.writable()?;
            std::mem::take(&mut s.dirty)
        };
        let synced = (|| {
            if dirty.data {
                self.data.sync_data()?;
            }
            if dirty.zones {
                self.zones.sync_data()?;
            }
            Ok::<(), io::Error>(())
        })();
        let mut s = self.lock();
        if let Err(e) = synced {
            let e = DeviceError::Io(e);
            s.fail(&e);
            return Err(e);
        }
        s.stats.syncs += 1;
        Ok(())
    }
}

ready_device!(ZoneFileDevice);

impl ZoneFileDevice {
    fn geometry_now(&self) -> &ZoneGeometry {
        &self.geometry
    }

    fn report_now(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.lock().table.report(first, count)
    }

    fn stats_now(&self) -> DeviceStats {
        self.lock().stats
    }

    /// Writes are `pwrite`s to the zone files: in the host's page cache once acknowledged.
    #[allow(clippy::unused_self, reason = "the ready_device! method set")]
    fn host_cached_now(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> ZoneGeometry {
        ZoneGeometry {
            zone_count: 4,
            zone_size_bytes: 64 * 1024,
            zone_capacity_bytes: 48 * 1024,
            block_size_bytes: 4096,
            max_open_zones: 2,
            max_active_zones: 3,
            zone_append_max_bytes: 16 * 1024,
        }
    }

    #[test]
    fn header_round_trips_and_rejects_every_flipped_bit() {
        let g = geometry();
        let h = encode_header(&g);
        assert_eq!(decode_header(&h).ok(), Some(g));
        for byte in 0..HEADER_LEN {
            for bit in 0..8 {
                let mut bad = h;
                bad[byte] ^= 1 << bit;
                assert!(matches!(decode_header(&bad), Err(DeviceError::Corrupt(_))));
            }
        }
        assert!(matches!(
            decode_header(&h[..10]),
            Err(DeviceError::Corrupt(_))
        ));
        assert!(matches!(decode_header(&[]), Err(DeviceError::Corrupt(_))));
    }

    /// A killed writer leaves a zone persisted as open; a read-only open closes it in memory
    /// only, and its records must say so (they once kept the open state, and the debug
    /// build's record check failed `zonedb fs fsck` of such a device).
    #[test]
    fn read_only_open_of_a_killed_writer_mirrors_the_restored_states() {
        let dir = tempfile::tempdir().unwrap();
        let g = geometry();
        {
            let dev = ZoneFileDevice::create(dir.path(), g.clone()).unwrap();
            dev.write_now(Target::At(g.zone_start(1)), &[7u8; 4096])
                .unwrap();
            dev.sync_now().unwrap();
            let persisted = dev.lock().records[1].state;
            assert_eq!(persisted, ZoneState::ImplicitlyOpen);
        }
        let ro = ZoneFileDevice::open_read_only(dir.path()).unwrap();
        ro.set_checking(true);
        let inner = ro.lock();
        let infos = inner.table.report(0, g.zone_count);
        assert_eq!(infos[1].state, ZoneState::Closed);
        for (info, r) in infos.iter().zip(&inner.records) {
            assert_eq!((r.state, r.write_pointer), (info.state, info.write_pointer));
        }
        inner.check_records("read-only open");
        drop(inner);
        // Nothing was written: a writable open still finds the zone persisted as open.
        drop(ro);
        let bytes = std::fs::read(dir.path().join(ZONES_FILE)).unwrap();
        let slot: &[u8; RECORD_LEN] = bytes[RECORD_LEN..2 * RECORD_LEN].try_into().unwrap();
        let rec = Record::decode(1, slot).unwrap();
        assert_eq!(rec.state, ZoneState::ImplicitlyOpen);
    }

    #[test]
    fn record_round_trips_and_rejects_every_flipped_bit() {
        let r = Record {
            state: ZoneState::Closed,
            write_pointer: 3 * 65536 + 8192,
            programmed: 8192,
            generation: 7,
        };
        let b = r.encode(3);
        assert_eq!(Record::decode(3, &b).ok(), Some(r));
        assert!(Record::decode(2, &b).is_err());
        for byte in 0..RECORD_LEN {
            for bit in 0..8 {
                let mut bad = b;
                bad[byte] ^= 1 << bit;
                assert!(Record::decode(3, &bad).is_err());
            }
        }
        assert!(Record::decode(0, &[0u8; RECORD_LEN]).is_err());
    }
}
