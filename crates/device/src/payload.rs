//! Where a simulated device keeps the bytes written to it.
//!
//! The work is real even when time is modeled: every read returns what was written. Bytes live
//! in memory (one growing buffer per zone, freed on reset, so memory follows live data) or in a
//! sparse file (so an 80 GiB device fits on a machine with less RAM). `Discard` keeps nothing and
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

/// In-memory zones, and buffers of reset zones kept for reuse (a fresh multi-megabyte buffer
/// costs a page fault per page; a reused one does not). A zone's buffer is reserved at its full
/// capacity when first written (address space only: pages are touched as data arrives), so it
/// never grows by reallocation and copying.
#[derive(Debug, Default)]
pub struct MemZones {
    zones: Vec<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    zone_capacity: usize,
    /// Bytes held in the zones now.
    resident: u64,
    /// The most bytes the zones ever held at once.
    peak: u64,
}

/// Spare zone buffers kept for reuse.
const SPARE_BUFFERS: usize = 2;

impl std::ops::Index<usize> for MemZones {
    type Output = Vec<u8>;
    fn index(&self, i: usize) -> &Vec<u8> {
        &self.zones[i]
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
            zones: vec![Vec::new(); zone_count as usize],
            spare: Vec::new(),
            zone_capacity: 0,
            resident: 0,
            peak: 0,
        }))
    }

    /// Tells an in-memory store the zones' capacity, so each zone's buffer is reserved once
    /// at that size (the device does this when it takes the store).
    pub fn set_zone_capacity(&self, bytes: u64) {
        if let Self::Memory(zones) = self {
            zones
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .zone_capacity = usize::try_from(bytes).unwrap_or(0);
        }
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
                let z = &mut *zones;
                if z.zones[zone as usize].capacity() == 0 {
                    z.zones[zone as usize] = z
                        .spare
                        .pop()
                        .unwrap_or_else(|| Vec::with_capacity(z.zone_capacity));
                }
                let buf = &mut z.zones[zone as usize];
                let before = buf.len() as u64;
                let at = (offset - zone_start) as usize;
                if buf.len() < at {
                    buf.resize(at, 0);
                }
                buf.truncate(at);
                buf.extend_from_slice(data);
                let after = buf.len() as u64;
                z.resident = z.resident + after - before;
                z.peak = z.peak.max(z.resident);
                Ok(())
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
        let mut out = vec![0u8; len as usize];
        match self {
            Self::Memory(zones) => {
                let zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
                let buf = &zones[zone as usize];
                let at = (offset - zone_start) as usize;
                if at < buf.len() {
                    let n = (buf.len() - at).min(out.len());
                    out[..n].copy_from_slice(&buf[at..at + n]);
                }
            }
            Self::File(f) => f.read_exact_at(&mut out, offset)?,
            Self::Discard => {}
        }
        Ok(out)
    }

    /// Forgets a zone's bytes from `len` on (writes lost at a power loss).
    pub fn truncate_zone(&self, zone: u32, len: u64) {
        if let Self::Memory(zones) = self {
            let mut zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
            let z = &mut *zones;
            if let Some(buf) = z.zones.get_mut(zone as usize) {
                let before = buf.len() as u64;
                buf.truncate(usize::try_from(len).unwrap_or(usize::MAX));
                z.resident -= before - buf.len() as u64;
            }
        }
    }

    /// Forgets a zone's bytes (after a reset).
    pub fn discard_zone(&self, zone: u32) {
        if let Self::Memory(zones) = self {
            let mut zones = zones.lock().unwrap_or_else(PoisonError::into_inner);
            let mut b = std::mem::take(&mut zones.zones[zone as usize]);
            zones.resident -= b.len() as u64;
            if zones.spare.len() < SPARE_BUFFERS && b.capacity() > 0 {
                b.clear();
                zones.spare.push(b);
            }
        }
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
        p.set_zone_capacity(1 << 20);
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
        let d = Payload::Discard;
        d.write(0, 0, 0, &[1u8; 4096]).unwrap();
        assert_eq!((d.resident_bytes(), d.peak_resident_bytes()), (0, 0));
    }
}
