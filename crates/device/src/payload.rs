//! Where a simulated device keeps the bytes written to it.
//!
//! The work is real even when time is modeled: every read returns what was written. Bytes live
//! in memory (1 MiB chunks per zone, recycled on reset, so memory stays at the payload's
//! high-water mark) or in a sparse file (so an 80 GiB device fits on a machine with less RAM). `Discard` keeps nothing and
//! reads zeros: only for timing-only microbenchmarks, never under a store.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use crate::DeviceError;
use crate::zone::ZoneGeometry;

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

/// In-memory zones: each zone's bytes in 1 MiB chunks, and chunks of reset or truncated
/// zones kept for reuse. A fresh chunk costs a page fault (and the kernel zeroing a page) per
/// 4 KiB touched; a reused one costs nothing, so the memory held is the payload's high-water
/// mark and a run faults in no more than that, however many times zones are rewritten.
#[derive(Debug, Default)]
pub struct MemZones {
    zones: Vec<MemZone>,
    pool: Vec<Chunk>,
    /// Bytes held in the zones now.
    resident: u64,
    /// The most bytes the zones ever held at once.
    peak: u64,
}

/// One zone's bytes: `len` bytes from the zone's start, in whole chunks.
#[derive(Debug, Default)]
struct MemZone {
    chunks: Vec<Chunk>,
    len: usize,
}

/// One chunk of payload memory.
type Chunk = memmap2::MmapMut;

/// A fresh chunk, its pages faulted in by one `mmap(MAP_POPULATE)`.
fn new_chunk() -> std::io::Result<Chunk> {
    memmap2::MmapOptions::new().len(CHUNK).populate().map_anon()
}

/// Bytes per chunk.
const CHUNK: usize = 1 << 20;

impl MemZones {
    /// Cuts zone `z` to `len` bytes (chunks past it go back to the pool).
    fn cut(&mut self, z: usize, len: usize) {
        let zone = &mut self.zones[z];
        if len >= zone.len {
            return;
        }
        self.resident -= (zone.len - len) as u64;
        zone.len = len;
        let keep = len.div_ceil(CHUNK);
        self.pool.extend(zone.chunks.drain(keep..));
    }

    /// Writes `data` at byte `at` of zone `z` (bytes past `at` are dropped first; a gap
    /// before `at` reads as zeros).
    fn put(&mut self, z: usize, at: usize, data: &[u8]) -> std::io::Result<()> {
        self.cut(z, at);
        let from = self.zones[z].len;
        if from < at {
            self.copy_in(z, from, &vec![0u8; at - from])?;
        }
        self.copy_in(z, at, data)?;
        self.peak = self.peak.max(self.resident);
        Ok(())
    }

    /// Appends `data` at byte `at` = the zone's length.
    fn copy_in(&mut self, z: usize, at: usize, data: &[u8]) -> std::io::Result<()> {
        let mut pos = at;
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
        Ok(())
    }

    /// `len` bytes at byte `at` of zone `z`; bytes past what the zone holds read as zeros.
    fn get(&self, z: usize, at: usize, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        let zone = &self.zones[z];
        let mut pos = at;
        let end = zone.len.min(at.saturating_add(len));
        while pos < end {
            let (ci, off) = (pos / CHUNK, pos % CHUNK);
            let n = (CHUNK - off).min(end - pos);
            out.extend_from_slice(&zone.chunks[ci][off..off + n]);
            pos += n;
        }
        out.resize(len, 0);
        out
    }
}

/// A payload store.
#[derive(Debug)]
pub enum Payload {
    /// Per-zone buffers, written sequentially from each zone's start.
    Memory(Mutex<MemZones>),
    /// A sparse file as large as the device.
    File(File),
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
        Ok(Self::File(f))
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
        match self {
            Self::Memory(zones) => {
                let mut zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
                Ok(zones.put(zone as usize, (offset - zone_start) as usize, data)?)
            }
            Self::File(f) => Ok(f.write_all_at(data, offset)?),
            Self::Discard => Ok(()),
        }
    }

    /// Reads `len` bytes at device offset `offset` of `zone`.
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
                f.read_exact_at(&mut out, offset)?;
                Ok(out)
            }
            Self::Discard => Ok(vec![0u8; len]),
        }
    }

    /// Forgets a zone's bytes from `len` on (writes lost at a power loss).
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

    /// Bytes held in memory.
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

    /// The most bytes ever held in memory at once.
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
}
