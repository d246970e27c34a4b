//! The split-zone state machine (SplitZNS §4.2 and Fig. 6) and the subzone-to-block map.
//!
//! A wide zone is split by SPLIT (only when empty) into one subzone per chip of the zone. The
//! split zone holds one open and one active token for all its subzones (in the zone table its
//! wide entry is explicitly open, so it is never auto-closed). Subzones move only on host
//! commands: a write to an empty subzone opens it (and takes a chip from the
//! [`ChipAllocator`]), a write reaching its capacity or the host's finish makes it full, MERGE
//! empties it. FINISH deactivates a split zone whose subzones are all empty or full (its
//! tokens go back); RESET turns a split zone whose subzones are all empty back into a wide zone.
//!
//! The two rules the paper leaves open:
//! - **A write to an empty subzone of a deactivated split zone reactivates the split zone**: it
//!   takes an open and an active token again, as an implicit open of a wide zone would (failing
//!   with [`DeviceError::TooManyOpen`] / [`DeviceError::TooManyActive`] and changing nothing
//!   when none is free; a split zone never auto-closes another zone). So subzones merged after a
//!   FINISH can be written again without turning the whole zone back.
//! - **An all-empty split zone goes back to wide only on an explicit RESET**, never by itself
//!   when its last subzone is merged: the host may keep reusing its subzones, and a zone's kind
//!   changes only on a host command, as every other split-zone transition.

use std::collections::BTreeMap;

use super::chips::ChipAllocator;
use super::{SplitZoneState, SubzoneId, SubzoneInfo, SubzoneState};
use crate::DeviceError;
use crate::error::{SplitOp, SplitRefusal};
use crate::zone::{ZoneState, ZoneTable};

/// One subzone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Subzone {
    pub(crate) state: SubzoneState,
    /// Bytes written from the subzone's start (acknowledged or admitted).
    pub(crate) written: u64,
    /// The chip slot serving it (from its first write until its merge).
    pub(crate) slot: Option<u32>,
}

/// One split zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitZone {
    pub(crate) state: SplitZoneState,
    pub(crate) subs: Vec<Subzone>,
}

/// What admitting a subzone write decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SubWrite {
    pub(crate) id: SubzoneId,
    /// The chip slot serving the subzone.
    pub(crate) slot: u32,
    /// Offset of the write from the subzone's start.
    pub(crate) rel: u64,
    /// Whether this write opened the subzone (and allocated its chip).
    pub(crate) opened: bool,
}

/// Every split zone of a device, the chip allocator and the subzone-to-block map.
#[derive(Debug, Clone)]
pub struct SplitTable {
    zone_size_bytes: u64,
    block_size_bytes: u64,
    append_max_bytes: u64,
    subzones: u32,
    sub_size_bytes: u64,
    sub_capacity_bytes: u64,
    zones: Vec<Option<SplitZone>>,
    chips: ChipAllocator,
    /// Subzone (global index `zone * subzones + i`) to erase block, one 8-byte entry (4-byte
    /// subzone, 4-byte block) per subzone holding a chip (§4.2).
    map: BTreeMap<u32, u32>,
    map_peak: usize,
}

/// Bytes of one subzone-to-block map entry (a 4-byte subzone id and a 4-byte block id, §4.2).
pub const MAP_ENTRY_BYTES: u64 = 8;

fn refuse(zone: u32, subzone: Option<u32>, op: SplitOp, reason: SplitRefusal) -> DeviceError {
    DeviceError::SplitZone {
        zone,
        subzone,
        op,
        reason,
    }
}

impl SplitTable {
    /// No split zone yet, on a device of `zone_count` zones split into `subzones` subzones.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the zone size or capacity does not divide into
    /// `subzones` block-aligned subzones.
    pub fn new(geometry: &crate::ZoneGeometry, subzones: u32) -> Result<Self, DeviceError> {
        let n = u64::from(subzones.max(1));
        let bs = geometry.block_size_bytes;
        if subzones == 0
            || !geometry.zone_size_bytes.is_multiple_of(n * bs)
            || !geometry.zone_capacity_bytes.is_multiple_of(n * bs)
        {
            return Err(DeviceError::InvalidConfig(format!(
                "zone size {} and capacity {} do not split into {subzones} block-aligned subzones",
                geometry.zone_size_bytes, geometry.zone_capacity_bytes
            )));
        }
        Ok(Self {
            zone_size_bytes: geometry.zone_size_bytes,
            block_size_bytes: bs,
            append_max_bytes: geometry.zone_append_max_bytes,
            subzones,
            sub_size_bytes: geometry.zone_size_bytes / n,
            sub_capacity_bytes: geometry.zone_capacity_bytes / n,
            zones: vec![None; geometry.zone_count as usize],
            chips: ChipAllocator::new(subzones),
            map: BTreeMap::new(),
            map_peak: 0,
        })
    }

    /// Subzones per split zone.
    pub fn subzones(&self) -> u32 {
        self.subzones
    }

    /// Address space of a subzone, bytes.
    pub fn sub_size_bytes(&self) -> u64 {
        self.sub_size_bytes
    }

    /// Writable bytes of a subzone.
    pub fn sub_capacity_bytes(&self) -> u64 {
        self.sub_capacity_bytes
    }

    /// Device offset of a subzone's start.
    pub fn sub_start(&self, id: SubzoneId) -> u64 {
        u64::from(id.zone) * self.zone_size_bytes + u64::from(id.index) * self.sub_size_bytes
    }

    /// Global index of a subzone (`zone * subzones + index`).
    pub fn global(&self, id: SubzoneId) -> u32 {
        id.zone * self.subzones + id.index
    }

    /// Whether `zone` is split.
    pub fn is_split(&self, zone: u32) -> bool {
        self.zones.get(zone as usize).is_some_and(Option::is_some)
    }

    /// The state of a split zone.
    pub fn zone_state(&self, zone: u32) -> Option<SplitZoneState> {
        self.zone(zone).map(|z| z.state)
    }

    pub(crate) fn zone(&self, zone: u32) -> Option<&SplitZone> {
        self.zones.get(zone as usize).and_then(Option::as_ref)
    }

    pub(crate) fn sub(&self, id: SubzoneId) -> Option<&Subzone> {
        self.zone(id.zone)
            .and_then(|z| z.subs.get(id.index as usize))
    }

    /// Split zones, in zone order, with their subzones.
    pub(crate) fn split_zones(&self) -> impl Iterator<Item = (u32, &SplitZone)> {
        self.zones
            .iter()
            .enumerate()
            .filter_map(|(z, s)| s.as_ref().map(|s| (z as u32, s)))
    }

    /// Entries in the subzone-to-block map now.
    pub fn map_entries(&self) -> usize {
        self.map.len()
    }

    /// The most entries the map held at once.
    pub fn map_peak_entries(&self) -> usize {
        self.map_peak
    }

    /// The erase block (first block of its chip's share of the zone) a subzone is mapped to.
    pub fn mapped_block(&self, id: SubzoneId) -> Option<u32> {
        self.map.get(&self.global(id)).copied()
    }

    /// The subzone a device offset of a split zone falls in and the offset from its start.
    pub(crate) fn locate(&self, zone: u32, offset: u64) -> (SubzoneId, u64) {
        let rel = offset - u64::from(zone) * self.zone_size_bytes;
        let index = (rel / self.sub_size_bytes) as u32;
        (SubzoneId { zone, index }, rel % self.sub_size_bytes)
    }

    fn sub_mut(&mut self, id: SubzoneId, op: SplitOp) -> Result<&mut Subzone, DeviceError> {
        let zone = self
            .zones
            .get_mut(id.zone as usize)
            .and_then(Option::as_mut);
        let Some(z) = zone else {
            return Err(refuse(id.zone, Some(id.index), op, SplitRefusal::NotSplit));
        };
        z.subs
            .get_mut(id.index as usize)
            .ok_or_else(|| refuse(id.zone, Some(id.index), op, SplitRefusal::NoSuchSubzone))
    }

    /// SPLIT: the empty wide `zone` becomes a split zone of `parts` empty subzones, open (it
    /// takes an open and an active token).
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] (wrong part count, zone not empty or already split),
    /// [`DeviceError::TooManyOpen`], [`DeviceError::TooManyActive`],
    /// [`DeviceError::OutOfRange`]; nothing changes on error.
    pub fn split(
        &mut self,
        table: &mut ZoneTable,
        zone: u32,
        parts: u32,
    ) -> Result<(), DeviceError> {
        let info = table.info(zone)?;
        if self.is_split(zone) {
            return Err(refuse(
                zone,
                None,
                SplitOp::Split,
                SplitRefusal::AlreadySplit,
            ));
        }
        if parts != self.subzones {
            return Err(refuse(
                zone,
                None,
                SplitOp::Split,
                SplitRefusal::WrongParts(self.subzones),
            ));
        }
        if info.state != ZoneState::Empty {
            return Err(refuse(
                zone,
                None,
                SplitOp::Split,
                SplitRefusal::NotEmpty(info.state),
            ));
        }
        table.open(zone)?;
        let empty = Subzone {
            state: SubzoneState::Empty,
            written: 0,
            slot: None,
        };
        self.zones[zone as usize] = Some(SplitZone {
            state: SplitZoneState::Open,
            subs: vec![empty; self.subzones as usize],
        });
        Ok(())
    }

    fn split_zone_mut(&mut self, zone: u32, op: SplitOp) -> Result<&mut SplitZone, DeviceError> {
        self.zones
            .get_mut(zone as usize)
            .and_then(Option::as_mut)
            .ok_or_else(|| refuse(zone, None, op, SplitRefusal::NotSplit))
    }

    /// FINISH: deactivates a split zone whose subzones are all empty or full (its tokens go
    /// back); a no-op on an inactive one. Returns whether it changed.
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] when the zone is not split or a subzone is open.
    pub fn finish(&mut self, table: &mut ZoneTable, zone: u32) -> Result<bool, DeviceError> {
        let z = self.split_zone_mut(zone, SplitOp::Finish)?;
        if z.subs.iter().any(|s| s.state == SubzoneState::Open) {
            return Err(refuse(
                zone,
                None,
                SplitOp::Finish,
                SplitRefusal::SubzonesOpen,
            ));
        }
        if z.state == SplitZoneState::Inactive {
            return Ok(false);
        }
        table.close(zone)?;
        z.state = SplitZoneState::Inactive;
        Ok(true)
    }

    /// RESET: a split zone whose subzones are all empty becomes an empty wide zone again
    /// (releasing its tokens if it held them).
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] when the zone is not split or a subzone holds data.
    pub fn reset(&mut self, table: &mut ZoneTable, zone: u32) -> Result<(), DeviceError> {
        let z = self.split_zone_mut(zone, SplitOp::Reset)?;
        if z.subs.iter().any(|s| s.state != SubzoneState::Empty) {
            return Err(refuse(
                zone,
                None,
                SplitOp::Reset,
                SplitRefusal::SubzonesNotEmpty,
            ));
        }
        if z.state == SplitZoneState::Open {
            table.close(zone)?;
        }
        self.zones[zone as usize] = None;
        Ok(())
    }

    /// Admits a write of `len` bytes to subzone `id` at `offset` (a device offset; `None`: an
    /// append at the subzone's write pointer), opening the subzone (and reactivating its split
    /// zone) if it was empty. `block_of` names the erase block of a chip slot for the map.
    ///
    /// # Errors
    /// [`DeviceError::Unaligned`], [`DeviceError::NotAtWritePointer`],
    /// [`DeviceError::BeyondCapacity`], [`DeviceError::AppendTooLarge`],
    /// [`DeviceError::SplitZone`] (full subzone, not split), token limits; nothing changes on
    /// error.
    pub(crate) fn admit_write(
        &mut self,
        table: &mut ZoneTable,
        id: SubzoneId,
        offset: Option<u64>,
        len: u64,
        block_of: impl Fn(u32) -> u32,
    ) -> Result<SubWrite, DeviceError> {
        let start = self.sub_start(id);
        let (cap, bs, append_max) = (
            self.sub_capacity_bytes,
            self.block_size_bytes,
            self.append_max_bytes,
        );
        let sub = *self.sub_mut(id, SplitOp::Write)?;
        let wp = start + sub.written;
        let at = offset.unwrap_or(wp);
        if len == 0 || !at.is_multiple_of(bs) || !len.is_multiple_of(bs) {
            return Err(DeviceError::Unaligned {
                offset: at,
                len,
                block_size: bs,
            });
        }
        if offset.is_none() && len > append_max {
            return Err(DeviceError::AppendTooLarge {
                len,
                limit: append_max,
            });
        }
        if sub.state == SubzoneState::Full {
            return Err(refuse(
                id.zone,
                Some(id.index),
                SplitOp::Write,
                SplitRefusal::SubzoneFull,
            ));
        }
        if at != wp {
            return Err(DeviceError::NotAtWritePointer {
                zone: id.zone,
                offset: at,
                write_pointer: wp,
            });
        }
        if sub.written + len > cap {
            return Err(DeviceError::BeyondCapacity {
                zone: id.zone,
                offset: at,
                len,
                capacity_end: start + cap,
            });
        }
        let opened = sub.state == SubzoneState::Empty;
        let mut slot = sub.slot;
        if opened {
            let mut in_use = vec![false; self.subzones as usize];
            for slot in self
                .zone(id.zone)
                .into_iter()
                .flat_map(|z| z.subs.iter().filter_map(|s| s.slot))
            {
                in_use[slot as usize] = true;
            }
            if self.zone_state(id.zone) == Some(SplitZoneState::Inactive) {
                // Rule: a write to an empty subzone reactivates a deactivated split zone.
                table.open(id.zone)?;
            }
            slot = self.chips.allocate(&in_use);
        }
        let Some(slot) = slot else {
            return Err(DeviceError::Corrupt("no free chip in a split zone"));
        };
        let global = self.global(id);
        if opened {
            self.map.insert(global, block_of(slot));
            self.map_peak = self.map_peak.max(self.map.len());
        }
        let z = self.split_zone_mut(id.zone, SplitOp::Write)?;
        z.state = SplitZoneState::Open;
        let s = &mut z.subs[id.index as usize];
        s.slot = Some(slot);
        s.written += len;
        s.state = if s.written == cap {
            SubzoneState::Full
        } else {
            SubzoneState::Open
        };
        Ok(SubWrite {
            id,
            slot,
            rel: at - start,
            opened,
        })
    }

    /// Checks a read of `len` bytes at device `offset` of split `zone`: aligned, inside one
    /// subzone, below its write pointer. Returns the subzone, its chip slot and the offset
    /// from its start.
    ///
    /// # Errors
    /// [`DeviceError::Unaligned`], [`DeviceError::CrossesZoneEnd`] (crossing the subzone's
    /// end), [`DeviceError::ReadBeyondWritePointer`].
    pub(crate) fn check_read(
        &self,
        zone: u32,
        offset: u64,
        len: u64,
    ) -> Result<(SubzoneId, u32, u64), DeviceError> {
        let bs = self.block_size_bytes;
        if len == 0 || !offset.is_multiple_of(bs) || !len.is_multiple_of(bs) {
            return Err(DeviceError::Unaligned {
                offset,
                len,
                block_size: bs,
            });
        }
        let (id, rel) = self.locate(zone, offset);
        if rel + len > self.sub_size_bytes {
            return Err(DeviceError::CrossesZoneEnd { zone, offset, len });
        }
        let sub = self.sub(id).copied();
        let written = sub.map_or(0, |s| s.written);
        match sub.and_then(|s| s.slot) {
            Some(slot) if rel + len <= written => Ok((id, slot, rel)),
            _ => Err(DeviceError::ReadBeyondWritePointer {
                zone,
                offset,
                len,
                write_pointer: self.sub_start(id) + written,
            }),
        }
    }

    /// The host finished writing a subzone: open becomes full (its write pointer at the
    /// capacity end); a no-op on a full one. Returns the bytes written before, `None` if it
    /// was already full.
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] for an empty subzone, a zone not split, a bad index.
    pub(crate) fn finish_subzone(&mut self, id: SubzoneId) -> Result<Option<u64>, DeviceError> {
        let cap = self.sub_capacity_bytes;
        let s = self.sub_mut(id, SplitOp::FinishSubzone)?;
        match s.state {
            SubzoneState::Empty => Err(refuse(
                id.zone,
                Some(id.index),
                SplitOp::FinishSubzone,
                SplitRefusal::SubzoneEmpty,
            )),
            SubzoneState::Full => Ok(None),
            SubzoneState::Open => {
                let before = s.written;
                s.state = SubzoneState::Full;
                s.written = cap;
                Ok(Some(before))
            }
        }
    }

    /// MERGE: the subzone becomes empty, its chip and map entry go back. Returns the chip slot
    /// it held (`None`: it was empty, a no-op).
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] for a zone not split or a bad index.
    pub(crate) fn merge(&mut self, id: SubzoneId) -> Result<Option<u32>, DeviceError> {
        let global = self.global(id);
        let s = self.sub_mut(id, SplitOp::Merge)?;
        let slot = s.slot.take();
        *s = Subzone {
            state: SubzoneState::Empty,
            written: 0,
            slot: None,
        };
        if slot.is_some() {
            self.map.remove(&global);
        }
        Ok(slot)
    }

    /// A power loss cut subzone `id` back to `written` bytes (writes not acknowledged are
    /// lost); nothing left makes it empty again.
    pub(crate) fn truncate(&mut self, id: SubzoneId, written: u64) {
        let global = self.global(id);
        let Ok(s) = self.sub_mut(id, SplitOp::Write) else {
            return;
        };
        if written >= s.written {
            return;
        }
        s.written = written;
        if written == 0 {
            *s = Subzone {
                state: SubzoneState::Empty,
                written: 0,
                slot: None,
            };
            self.map.remove(&global);
        } else {
            s.state = SubzoneState::Open;
        }
    }

    /// After a power cycle rebuilt the zone table (open zones came back closed or empty):
    /// every open split zone takes its tokens again (split zones change state only on host
    /// commands).
    ///
    /// # Errors
    /// As [`ZoneTable::open`] (cannot happen: the split zones held these tokens before).
    pub(crate) fn retake_tokens(&self, table: &mut ZoneTable) -> Result<(), DeviceError> {
        for (zone, z) in self.split_zones() {
            if z.state == SplitZoneState::Open {
                table.open(zone)?;
            }
        }
        Ok(())
    }

    /// One subzone's descriptor (`flushed` and `read_pointer`: bytes from its start).
    pub(crate) fn info(
        &self,
        id: SubzoneId,
        flushed: u64,
        read_pointer: u64,
        chip: Option<u32>,
    ) -> SubzoneInfo {
        let start = self.sub_start(id);
        let s = self.sub(id).copied().unwrap_or(Subzone {
            state: SubzoneState::Empty,
            written: 0,
            slot: None,
        });
        SubzoneInfo {
            id,
            state: s.state,
            start,
            capacity_bytes: self.sub_capacity_bytes,
            write_pointer: start + s.written,
            flushed_pointer: start + flushed.min(s.written),
            read_pointer: start + read_pointer,
            chip,
        }
    }
}
