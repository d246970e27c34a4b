//! Where a simulated device keeps the bytes written to it.
//!
//! The work is real even when time is modeled: every read returns what was written. Bytes live
//! in memory (1 MiB chunks per zone, recycled on reset, so memory stays at the payload's
//! high-water mark) or in a sparse file (so an 80 GiB device fits on a machine with less RAM).
//! `Discard` keeps nothing and reads zeros: only for timing-only microbenchmarks, never under a
//! store.
//!
//! Holes of elided writes ([`ElidedBytes`], [`Payload::write_elided`]) are not stored: the
//! memory store keeps a per-zone hole map (logical offset to stored offset) beside the stored
//! bytes and returns holes as holes from [`Payload::read_elided`]; the file store leaves them
//! unwritten. Plain reads return holes as zeros.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use crate::zone::ZoneGeometry;
use crate::{DeviceError, ElidedBytes};

/// Which payload store to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PayloadKind {
    /// Bytes in RAM.
    #[default]
    Memory,
    /// Bytes in a sparse file.
    File,
    /// Keep nothing; reads return zeros (timing-only benchmarks).
    Discard,
}

/// In-memory zones: each zone's stored bytes in 1 MiB chunks plus its hole map, and chunks of
/// reset or truncated zones kept for reuse. A fresh chunk costs a page fault (and the kernel
/// zeroing a page) per 4 KiB touched; a reused one costs nothing, so the memory held is the
/// payload's high-water mark and a run faults in no more than that, however many times zones
/// are rewritten. Holes ([`ElidedBytes`]) take no chunk bytes: only stored bytes count in
/// [`Payload::resident_bytes`].
#[derive(Debug, Default)]
pub struct MemZones {
    zones: Vec<MemZone>,
    pool: Vec<Chunk>,
    /// Stored bytes held in the zones now.
    resident: u64,
    /// The most stored bytes the zones ever held at once.
    peak: u64,
}

/// One zone's bytes: `logical` bytes from the zone's start, of which `len` are stored (in
/// whole chunks) and the rest are the `holes`.
#[derive(Debug, Default)]
struct MemZone {
    chunks: Vec<Chunk>,
    /// Stored bytes.
    len: usize,
    /// Logical bytes (stored bytes plus holes).
    logical: usize,
    /// Holes, sorted, never empty, never adjacent.
    holes: Vec<ZoneHole>,
}

/// A hole of a zone: `len` logical bytes from logical byte `at` of the zone, with `stored_at`
/// stored bytes before it (the hole map: logical offsets to stored offsets).
#[derive(Debug, Clone, Copy)]
struct ZoneHole {
    at: usize,
    len: usize,
    stored_at: usize,
}

impl ZoneHole {
    fn end(&self) -> usize {
        self.at + self.len
    }
}

impl MemZone {
    /// The stored offset of logical byte `at` (inside a hole: the hole's stored offset).
    fn stored_of(&self, at: usize) -> usize {
        let i = self.holes.partition_point(|h| h.at <= at);
        match i.checked_sub(1).map(|j| self.holes[j]) {
            None => at,
            Some(h) if at < h.end() => h.stored_at,
            Some(h) => h.stored_at + (at - h.end()),
        }
    }
}

/// A piece of a payload: stored bytes or a hole of that many bytes.
type PayloadPiece<'a> = Result<&'a [u8], usize>;

/// One chunk of payload memory.
type Chunk = memmap2::MmapMut;

/// A fresh chunk, its pages faulted in by one `mmap(MAP_POPULATE)`.
fn new_chunk() -> std::io::Result<Chunk> {
    memmap2::MmapOptions::new().len(CHUNK).populate().map_anon()
}

/// Bytes per chunk.
const CHUNK: usize = 1 << 20;

impl MemZones {
    /// Cuts zone `z` to `len` logical bytes (chunks past it go back to the pool, holes past it
    /// are forgotten).
    fn cut(&mut self, z: usize, len: usize) {
        let zone = &mut self.zones[z];
        if len >= zone.logical {
            return;
        }
        let stored = zone.stored_of(len);
        let keep = zone.holes.partition_point(|h| h.at < len);
        zone.holes.truncate(keep);
        if let Some(h) = zone.holes.last_mut() {
            h.len = h.len.min(len - h.at);
        }
        zone.logical = len;
        self.resident -= (zone.len - stored) as u64;
        zone.len = stored;
        let keep = stored.div_ceil(CHUNK);
        self.pool.extend(zone.chunks.drain(keep..));
    }

    /// Writes the pieces `data` at logical byte `at` of zone `z` (bytes past `at` are dropped
    /// first; a gap before `at` is stored as zeros).
    fn put<'a>(
        &mut self,
        z: usize,
        at: usize,
        data: impl IntoIterator<Item = PayloadPiece<'a>>,
    ) -> std::io::Result<()> {
        self.cut(z, at);
        let from = self.zones[z].logical;
        if from < at {
            self.copy_in(z, &vec![0u8; at - from])?;
        }
        for piece in data {
            match piece {
                Ok(bytes) => self.copy_in(z, bytes)?,
                Err(n) => self.hole_in(z, n),
            }
        }
        self.peak = self.peak.max(self.resident);
        Ok(())
    }

    /// Appends stored bytes at the zone's end.
    fn copy_in(&mut self, z: usize, data: &[u8]) -> std::io::Result<()> {
        let mut pos = self.zones[z].len;
        let mut rest = data;
        while !rest.is_empty() {
            let (ci, off) = (pos / CHUNK, pos % CHUNK);
            if self.zones[z].chunks.len() <= ci {
                let c = match self.pool.pop() {
                    Some(c) => c,
                    None => new_chunk()?,
                };
                self.zones[z].chunks.push(c);
            }
            let n = (CHUNK - off).min(rest.len());
            self.zones[z].chunks[ci][off..off + n].copy_from_slice(&rest[..n]);
            pos += n;
            rest = &rest[n..];
        }
        let zone = &mut self.zones[z];
        self.resident += (pos - zone.len) as u64;
        zone.len = pos;
        zone.logical += data.len();
        Ok(())
    }

    /// Appends a hole of `n` bytes at the zone's end.
    fn hole_in(&mut self, z: usize, n: usize) {
        if n == 0 {
            return;
        }
        let zone = &mut self.zones[z];
        match zone.holes.last_mut() {
            Some(h) if h.end() == zone.logical => h.len += n,
            _ => zone.holes.push(ZoneHole {
                at: zone.logical,
                len: n,
                stored_at: zone.len,
            }),
        }
        zone.logical += n;
    }

    /// Hands `f` the pieces of the logical range `[at, at + len)` of zone `z`, clipped to what
    /// the zone holds, in order.
    fn walk(&self, z: usize, at: usize, len: usize, mut visit: impl FnMut(PayloadPiece<'_>)) {
        let zone = &self.zones[z];
        let end = zone.logical.min(at.saturating_add(len));
        let mut pos = at;
        // The first hole ending after `at` (found once; the walk then goes hole by hole).
        let mut i = zone.holes.partition_point(|h| h.end() <= at);
        while pos < end {
            if let Some(h) = zone.holes.get(i)
                && h.at <= pos
            {
                let to = h.end().min(end);
                visit(Err(to - pos));
                pos = to;
                i += 1;
                continue;
            }
            let to = zone.holes.get(i).map_or(end, |h| h.at.min(end));
            let mut s = zone.stored_of(pos);
            let stop = s + (to - pos);
            while s < stop {
                let (ci, off) = (s / CHUNK, s % CHUNK);
                let n = (CHUNK - off).min(stop - s);
                visit(Ok(&zone.chunks[ci][off..off + n]));
                s += n;
            }
            pos = to;
        }
    }

    /// Stored bytes and holes in the logical range `[at, at + len)` of zone `z` (clipped).
    fn stored_and_holes_in(&self, z: usize, at: usize, len: usize) -> (usize, usize) {
        let zone = &self.zones[z];
        let end = zone.logical.min(at.saturating_add(len));
        if at >= end {
            return (0, 0);
        }
        let first = zone.holes.partition_point(|h| h.end() <= at);
        let last = zone.holes.partition_point(|h| h.at < end);
        (
            zone.stored_of(end) - zone.stored_of(at),
            last.saturating_sub(first),
        )
    }

    /// `len` bytes at byte `at` of zone `z`, holes as zeros; bytes past what the zone holds
    /// read as zeros.
    fn get(&self, z: usize, at: usize, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        self.walk(z, at, len, |p| match p {
            Ok(bytes) => out.extend_from_slice(bytes),
            Err(n) => out.resize(out.len() + n, 0),
        });
        out.resize(len, 0);
        out
    }

    /// `len` bytes at byte `at` of zone `z`, holes as holes; bytes past what the zone holds
    /// read as (stored) zeros.
    fn get_elided(&self, z: usize, at: usize, len: usize) -> ElidedBytes {
        let (stored, holes) = self.stored_and_holes_in(z, at, len);
        let mut out = ElidedBytes::with_room(stored, holes);
        self.walk(z, at, len, |p| match p {
            Ok(bytes) => out.push_bytes(bytes),
            Err(n) => out.push_hole(n as u64),
        });
        let rest = len as u64 - out.len();
        out.push_zeros(usize::try_from(rest).unwrap_or(0));
        out
    }
}

/// A sparse file holding a device's bytes, and how far each zone's range of it was ever
/// written. Holes are not written where the file never held data (they read as zeros, and
/// cost no disk space); over bytes a reset or cut zone left behind, they are written as zeros.
#[derive(Debug)]
pub struct FileStore {
    file: File,
    /// Per zone: bytes from the zone's start ever written to the file (never lowered).
    written: Mutex<Vec<u64>>,
}

/// Bytes of zeros written at once over old data.
const ZERO_STEP: usize = 64 << 10;

impl FileStore {
    /// Writes the pieces `data` at device offset `offset` of `zone`.
    fn write<'a>(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        data: impl IntoIterator<Item = PayloadPiece<'a>>,
    ) -> Result<(), DeviceError> {
        let high = self
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(zone as usize)
            .copied()
            .unwrap_or(u64::MAX);
        let mut pos = offset;
        for piece in data {
            match piece {
                Ok(bytes) => {
                    self.file.write_all_at(bytes, pos)?;
                    pos += bytes.len() as u64;
                }
                Err(n) => {
                    // Only the part over bytes written before needs zeros.
                    let end = pos + n as u64;
                    let old_end = end.min(zone_start.saturating_add(high)).max(pos);
                    let zeros = vec![0u8; ZERO_STEP.min(n)];
                    let mut at = pos;
                    while at < old_end {
                        let k = (old_end - at).min(zeros.len() as u64);
                        self.file
                            .write_all_at(&zeros[..usize::try_from(k).unwrap_or(0)], at)?;
                        at += k;
                    }
                    pos = end;
                }
            }
        }
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = written.get_mut(zone as usize) {
            *w = (*w).max(pos - zone_start);
        }
        Ok(())
    }
}

/// A payload store.
#[derive(Debug)]
pub enum Payload {
    /// Per-zone buffers, written sequentially from each zone's start.
    Memory(Mutex<MemZones>),
    /// A sparse file as large as the device.
    File(FileStore),
    /// Nothing kept.
    Discard,
}

impl Payload {
    /// An in-memory store for `zone_count` zones.
    pub fn memory(zone_count: u32) -> Self {
        Self::Memory(Mutex::new(MemZones {
            zones: (0..zone_count).map(|_| MemZone::default()).collect(),
            ..MemZones::default()
        }))
    }

    /// A sparse-file store at `path` (created or truncated).
    ///
    /// # Errors
    /// [`DeviceError::Io`].
    pub fn file(path: &Path, geometry: &ZoneGeometry) -> Result<Self, DeviceError> {
        let f = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        f.set_len(geometry.device_size_bytes())?;
        Ok(Self::File(FileStore {
            file: f,
            written: Mutex::new(vec![0; geometry.zone_count as usize]),
        }))
    }

    /// Stores `data` at device offset `offset` of `zone` (starting at `zone_start`). Writes to a
    /// zone arrive in write-pointer order.
    ///
    /// # Errors
    /// [`DeviceError::Io`] from the file store.
    pub fn write(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        self.write_pieces(zone, zone_start, offset, std::iter::once(Ok(data)))
    }

    /// Stores the logical string `data` at device offset `offset` of `zone`, as
    /// [`Payload::write`] of its materialized bytes would, without storing its holes: the
    /// memory store keeps them in the zone's hole map, the file store leaves them unwritten
    /// (sparse), discard keeps nothing anyway.
    ///
    /// # Errors
    /// [`DeviceError::Io`] from the file store.
    pub fn write_elided(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        data: &ElidedBytes,
    ) -> Result<(), DeviceError> {
        self.write_elided_pieces(zone, zone_start, offset, data.pieces())
    }

    /// [`Payload::write_elided`] of a string given as its pieces (`Ok(stored bytes)` or
    /// `Err(hole length)`).
    ///
    /// # Errors
    /// [`DeviceError::Io`] from the file store.
    pub fn write_elided_pieces<'a>(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        pieces: impl IntoIterator<Item = Result<&'a [u8], u64>>,
    ) -> Result<(), DeviceError> {
        let pieces = pieces
            .into_iter()
            .map(|p| p.map_err(|n| usize::try_from(n).unwrap_or(usize::MAX)));
        self.write_pieces(zone, zone_start, offset, pieces)
    }

    fn write_pieces<'a>(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        data: impl IntoIterator<Item = PayloadPiece<'a>>,
    ) -> Result<(), DeviceError> {
        match self {
            Self::Memory(zones) => {
                let mut zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(zones.put(zone as usize, (offset - zone_start) as usize, data)?)
            }
            Self::File(f) => f.write(zone, zone_start, offset, data),
            Self::Discard => Ok(()),
        }
    }

    /// Reads `len` bytes at device offset `offset` of `zone` (holes as zeros).
    ///
    /// # Errors
    /// [`DeviceError::Io`] from the file store.
    pub fn read(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, DeviceError> {
        let len = len as usize;
        match self {
            Self::Memory(zones) => {
                let zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(zones.get(zone as usize, (offset - zone_start) as usize, len))
            }
            Self::File(f) => {
                let mut out = vec![0u8; len];
                f.file.read_exact_at(&mut out, offset)?;
                Ok(out)
            }
            Self::Discard => Ok(vec![0u8; len]),
        }
    }

    /// Reads `len` bytes at device offset `offset` of `zone`, the holes the memory store keeps
    /// as holes (the file and discard stores return the bytes, holes as zeros).
    ///
    /// # Errors
    /// [`DeviceError::Io`] from the file store.
    pub fn read_elided(
        &self,
        zone: u32,
        zone_start: u64,
        offset: u64,
        len: u64,
    ) -> Result<ElidedBytes, DeviceError> {
        match self {
            Self::Memory(zones) => {
                let zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(zones.get_elided(zone as usize, (offset - zone_start) as usize, len as usize))
            }
            _ => self
                .read(zone, zone_start, offset, len)
                .map(ElidedBytes::from_vec),
        }
    }

    /// Forgets a zone's bytes from logical byte `len` on (writes lost at a power loss).
    pub fn truncate_zone(&self, zone: u32, len: u64) {
        if let Self::Memory(zones) = self {
            let mut zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
            if (zone as usize) < zones.zones.len() {
                zones.cut(zone as usize, usize::try_from(len).unwrap_or(usize::MAX));
            }
        }
    }

    /// Forgets a zone's bytes (after a reset).
    pub fn discard_zone(&self, zone: u32) {
        self.truncate_zone(zone, 0);
    }

    /// Whether bytes are kept in RAM.
    pub fn is_memory(&self) -> bool {
        matches!(self, Self::Memory(_))
    }

    /// Stored bytes held in memory (holes take none).
    pub fn resident_bytes(&self) -> u64 {
        match self {
            Self::Memory(zones) => {
                zones
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .resident
            }
            _ => 0,
        }
    }

    /// The most stored bytes ever held in memory at once.
    pub fn peak_resident_bytes(&self) -> u64 {
        match self {
            Self::Memory(zones) => zones.lock().unwrap_or_else(PoisonError::into_inner).peak,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_and_peak_bytes_follow_writes_truncations_and_resets() {
        let p = Payload::memory(3);
        p.write(0, 0, 0, &[1u8; 8192]).unwrap();
        p.write(1, 1 << 20, 1 << 20, &[2u8; 4096]).unwrap();
        assert_eq!(
            (p.resident_bytes(), p.peak_resident_bytes()),
            (12_288, 12_288)
        );
        p.truncate_zone(0, 4096);
        assert_eq!(
            (p.resident_bytes(), p.peak_resident_bytes()),
            (8192, 12_288)
        );
        p.discard_zone(1);
        assert_eq!(p.resident_bytes(), 4096);
        // The reset zone's buffer is reused; the peak stays the high-water mark.
        p.write(2, 2 << 20, 2 << 20, &[3u8; 16_384]).unwrap();
        assert_eq!(
            (p.resident_bytes(), p.peak_resident_bytes()),
            (20_480, 20_480)
        );
        assert_eq!(
            p.read(2, 2 << 20, (2 << 20) + 4096, 4096).unwrap(),
            vec![3u8; 4096]
        );
    }

    #[test]
    fn writes_across_chunks_read_back_after_truncation_and_reuse() {
        let p = Payload::memory(2);
        let zs = 8 * CHUNK as u64;
        let data: Vec<u8> = (0..3 * CHUNK + 123).map(|i| (i % 251) as u8).collect();
        p.write(0, 0, 0, &data[..CHUNK - 7]).unwrap();
        p.write(0, 0, CHUNK as u64 - 7, &data[CHUNK - 7..]).unwrap();
        assert_eq!(p.read(0, 0, 0, data.len() as u64).unwrap(), data);
        let mid = p.read(0, 0, CHUNK as u64 - 10, 2 * CHUNK as u64).unwrap();
        assert_eq!(mid, data[CHUNK - 10..3 * CHUNK - 10]);
        // Past the written end: zeros.
        let tail = p.read(0, 0, data.len() as u64 - 3, 10).unwrap();
        assert_eq!(tail, [&data[data.len() - 3..], &[0u8; 7][..]].concat());
        // A power loss cuts the zone; a rewrite after the cut replaces what was there.
        p.truncate_zone(0, CHUNK as u64 + 5);
        assert_eq!(p.resident_bytes(), CHUNK as u64 + 5);
        p.write(0, 0, CHUNK as u64 + 5, &[9u8; 10]).unwrap();
        let r = p.read(0, 0, CHUNK as u64, 20).unwrap();
        assert_eq!(r[..5], data[CHUNK..CHUNK + 5]);
        assert_eq!(r[5..15], [9u8; 10]);
        assert_eq!(r[15..], [0u8; 5]);
        // A reset zone's chunks serve the next zone, whose unwritten bytes still read as zeros.
        p.discard_zone(0);
        p.write(1, zs, zs + 100, &[7u8; 50]).unwrap();
        let r = p.read(1, zs, zs, 200).unwrap();
        assert_eq!(r[..100], [0u8; 100]);
        assert_eq!(r[100..150], [7u8; 50]);
        assert_eq!(r[150..], [0u8; 50]);
        assert_eq!(p.resident_bytes(), 150);
        assert_eq!(p.peak_resident_bytes(), data.len() as u64);
    }

    #[test]
    fn discard_keeps_nothing() {
        let d = Payload::Discard;
        d.write(0, 0, 0, &[1u8; 4096]).unwrap();
        assert_eq!((d.resident_bytes(), d.peak_resident_bytes()), (0, 0));
    }

    /// A logical string from (stored bytes, hole length) pairs.
    fn elided(parts: &[(Vec<u8>, u64)]) -> ElidedBytes {
        let mut e = ElidedBytes::new();
        for (bytes, hole) in parts {
            e.push_bytes(bytes);
            e.push_hole(*hole);
        }
        e
    }

    #[test]
    fn holes_take_no_memory_and_read_back_as_holes_or_zeros() {
        let p = Payload::memory(2);
        let e = elided(&[
            (vec![1; 100], 1 << 20),
            (vec![2; 50], 3 << 20),
            (vec![3; 10], 0),
        ]);
        p.write_elided(0, 0, 0, &e).unwrap();
        assert_eq!(p.resident_bytes(), 160);
        assert_eq!(p.peak_resident_bytes(), 160);
        assert_eq!(p.read(0, 0, 0, e.len()).unwrap(), e.materialize());
        assert_eq!(p.read_elided(0, 0, 0, e.len()).unwrap(), e);
        let mid = p.read_elided(0, 0, 90, 2 << 20).unwrap();
        assert_eq!(mid, e.slice(90, 2 << 20));
        // A cut inside a hole keeps the hole's head; what follows is appended after it.
        p.truncate_zone(0, 100 + 4096);
        assert_eq!(p.resident_bytes(), 100);
        p.write(0, 0, 100 + 4096, &[7u8; 8]).unwrap();
        let mut want = elided(&[(vec![1; 100], 4096)]);
        want.push_bytes(&[7u8; 8]);
        assert_eq!(p.read_elided(0, 0, 0, want.len()).unwrap(), want);
        // A reset zone's chunks serve again; no hole survives the reset.
        p.discard_zone(0);
        p.write(0, 0, 0, &[5u8; 4096]).unwrap();
        assert_eq!(
            p.read_elided(0, 0, 0, 4096).unwrap().into_dense(),
            Ok(vec![5u8; 4096])
        );
    }

    #[test]
    fn file_store_reads_holes_as_zeros_even_over_old_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let g = ZoneGeometry {
            zone_count: 2,
            zone_size_bytes: 1 << 20,
            zone_capacity_bytes: 1 << 20,
            block_size_bytes: 4096,
            max_open_zones: 0,
            max_active_zones: 0,
            zone_append_max_bytes: 1 << 20,
        };
        let p = Payload::file(&dir.path().join("payload"), &g).unwrap();
        p.write(1, 1 << 20, 1 << 20, &vec![9u8; 65_536]).unwrap();
        p.discard_zone(1);
        let e = elided(&[(vec![1; 10], 100_000), (vec![2; 10], 0)]);
        p.write_elided(1, 1 << 20, 1 << 20, &e).unwrap();
        assert_eq!(
            p.read(1, 1 << 20, 1 << 20, e.len()).unwrap(),
            e.materialize()
        );
        assert_eq!(
            p.read_elided(1, 1 << 20, 1 << 20, e.len())
                .unwrap()
                .materialize(),
            e.materialize()
        );
    }

    proptest::proptest! {
        /// The memory store against a model of the logical bytes and which of them are holes,
        /// through elided and plain writes and cuts.
        #[test]
        fn memory_store_matches_a_model(
            ops in proptest::collection::vec(
                (0u8..4, 0usize..3000, 0usize..5000, proptest::bool::ANY),
                1..40,
            )
        ) {
            let p = Payload::memory(1);
            let (mut bytes, mut hole): (Vec<u8>, Vec<bool>) = (Vec::new(), Vec::new());
            for (i, &(op, a, b, h)) in ops.iter().enumerate() {
                match op {
                    0 | 1 => {
                        let at = bytes.len();
                        let mut e = ElidedBytes::new();
                        e.push_bytes(&vec![i as u8 + 1; a]);
                        if h {
                            e.push_hole(b as u64);
                        }
                        e.push_bytes(&vec![i as u8 + 2; a / 3]);
                        p.write_elided(0, 0, at as u64, &e).unwrap();
                        bytes.extend(e.materialize());
                        hole.extend((0..e.len()).map(|k| e.holes().iter().any(|x| k >= x.at && k < x.at + x.len)));
                    }
                    2 => {
                        let at = bytes.len();
                        p.write(0, 0, at as u64, &vec![i as u8; a]).unwrap();
                        bytes.extend(vec![i as u8; a]);
                        hole.extend(vec![false; a]);
                    }
                    _ => {
                        let to = a.min(bytes.len());
                        p.truncate_zone(0, to as u64);
                        bytes.truncate(to);
                        hole.truncate(to);
                    }
                }
                let stored = hole.iter().filter(|&&x| !x).count() as u64;
                proptest::prop_assert_eq!(p.resident_bytes(), stored);
                let from = b.min(bytes.len());
                let n = bytes.len() - from;
                proptest::prop_assert_eq!(&p.read(0, 0, from as u64, n as u64).unwrap(), &bytes[from..]);
                let got = p.read_elided(0, 0, from as u64, n as u64).unwrap();
                proptest::prop_assert_eq!(&got.materialize(), &bytes[from..]);
                let got_holes: Vec<bool> = (0..n as u64)
                    .map(|k| got.holes().iter().any(|x| k >= x.at && k < x.at + x.len))
                    .collect();
                proptest::prop_assert_eq!(&got_holes, &hole[from..]);
            }
        }
    }
}
