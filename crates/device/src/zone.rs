//! The NVMe ZNS zone state machine shared by every device model and backend.
//!
//! Follows the ZNS command set (and QEMU/FEMU where the spec leaves a choice): seven states,
//! zone capacity below zone size, max open and max active resources, implicit vs explicit open,
//! auto-close of the oldest implicitly opened zone when an implicit open needs an open resource.
//! Every check happens before any change: a rejected request leaves the table untouched.

use crate::error::{DeviceError, ZoneOp};

/// Zone states of the NVMe ZNS specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneState {
    /// ZSE: write pointer at the zone start, no resources held.
    Empty,
    /// ZSIO: opened by a write; holds an open and an active resource.
    ImplicitlyOpen,
    /// ZSEO: opened by an Open command; holds an open and an active resource.
    ExplicitlyOpen,
    /// ZSC: written but not open; holds an active resource.
    Closed,
    /// ZSF: write pointer at the end of the capacity (or finished).
    Full,
    /// ZSRO: entered only by the device; readable, not writable.
    ReadOnly,
    /// ZSO: entered only by the device; no I/O.
    Offline,
}

impl ZoneState {
    /// Whether the state holds an open resource.
    pub fn is_open(self) -> bool {
        matches!(self, Self::ImplicitlyOpen | Self::ExplicitlyOpen)
    }

    /// Whether the state holds an active resource.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            Self::ImplicitlyOpen | Self::ExplicitlyOpen | Self::Closed
        )
    }

    /// The NVMe zone state code.
    pub fn code(self) -> u8 {
        match self {
            Self::Empty => 0x1,
            Self::ImplicitlyOpen => 0x2,
            Self::ExplicitlyOpen => 0x3,
            Self::Closed => 0x4,
            Self::ReadOnly => 0xD,
            Self::Full => 0xE,
            Self::Offline => 0xF,
        }
    }

    /// Inverse of [`ZoneState::code`].
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0x1 => Self::Empty,
            0x2 => Self::ImplicitlyOpen,
            0x3 => Self::ExplicitlyOpen,
            0x4 => Self::Closed,
            0xD => Self::ReadOnly,
            0xE => Self::Full,
            0xF => Self::Offline,
            _ => return None,
        })
    }
}

/// Static layout of a zoned device's address space.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZoneGeometry {
    /// Number of zones.
    pub zone_count: u32,
    /// Zone size (address space per zone), bytes.
    pub zone_size_bytes: u64,
    /// Writable bytes from each zone's start; at most the zone size.
    pub zone_capacity_bytes: u64,
    /// Logical block size: offsets and lengths are multiples of it, bytes.
    pub block_size_bytes: u64,
    /// Max open zones; 0 means no limit.
    pub max_open_zones: u32,
    /// Max active zones; 0 means no limit.
    pub max_active_zones: u32,
    /// Largest zone append, bytes.
    pub zone_append_max_bytes: u64,
}

impl ZoneGeometry {
    /// Checks the geometry's own consistency.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] naming the broken rule.
    pub fn validate(&self) -> Result<(), DeviceError> {
        let bad = |m: String| Err(DeviceError::InvalidConfig(m));
        if self.zone_count == 0 {
            return bad("zone_count must be at least 1".into());
        }
        if self.block_size_bytes == 0 || !self.block_size_bytes.is_power_of_two() {
            return bad(format!(
                "block size {} is not a power of two",
                self.block_size_bytes
            ));
        }
        if self.zone_size_bytes == 0 || !self.zone_size_bytes.is_multiple_of(self.block_size_bytes)
        {
            return bad(format!(
                "zone size {} is not a multiple of the block size {}",
                self.zone_size_bytes, self.block_size_bytes
            ));
        }
        if self.zone_capacity_bytes == 0
            || self.zone_capacity_bytes > self.zone_size_bytes
            || !self
                .zone_capacity_bytes
                .is_multiple_of(self.block_size_bytes)
        {
            return bad(format!(
                "zone capacity {} must be a non-zero multiple of the block size, at most the zone size {}",
                self.zone_capacity_bytes, self.zone_size_bytes
            ));
        }
        if self.max_active_zones != 0 && self.max_open_zones > self.max_active_zones {
            return bad(format!(
                "max open zones {} exceeds max active zones {}",
                self.max_open_zones, self.max_active_zones
            ));
        }
        if self.max_open_zones > self.zone_count || self.max_active_zones > self.zone_count {
            return bad("open/active limits exceed the zone count".into());
        }
        if self.zone_append_max_bytes < self.block_size_bytes {
            return bad("zone append limit is below the block size".into());
        }
        self.zone_size_bytes
            .checked_mul(u64::from(self.zone_count))
            .map(|_| ())
            .ok_or_else(|| DeviceError::InvalidConfig("device size overflows u64".into()))
    }

    /// Device size in bytes (zone count times zone size).
    pub fn device_size_bytes(&self) -> u64 {
        self.zone_size_bytes * u64::from(self.zone_count)
    }

    /// Writable bytes of the whole device (zone count times zone capacity).
    pub fn usable_bytes(&self) -> u64 {
        self.zone_capacity_bytes * u64::from(self.zone_count)
    }

    /// Start offset of a zone.
    pub fn zone_start(&self, zone: u32) -> u64 {
        u64::from(zone) * self.zone_size_bytes
    }

    /// The zone an offset falls in, if within the device.
    pub fn zone_of(&self, offset: u64) -> Option<u32> {
        let z = offset / self.zone_size_bytes;
        u32::try_from(z).ok().filter(|&z| z < self.zone_count)
    }
}

/// One zone's descriptor, as a zone report returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZoneInfo {
    /// Zone index.
    pub index: u32,
    /// State.
    pub state: ZoneState,
    /// Device byte offset of the zone start.
    pub start: u64,
    /// Writable bytes.
    pub capacity_bytes: u64,
    /// Device byte offset of the write pointer.
    pub write_pointer: u64,
}

impl ZoneInfo {
    /// Bytes written into the zone (write pointer minus start).
    pub fn written_bytes(&self) -> u64 {
        self.write_pointer - self.start
    }
}

/// What admitting a write changed besides the write pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteAdmission {
    /// Zone written.
    pub zone: u32,
    /// Device byte offset the data goes to (for appends: the assigned offset).
    pub offset: u64,
    /// A zone that was closed automatically to free an open resource.
    pub auto_closed: Option<u32>,
    /// Whether the write filled the zone (it is now full).
    pub filled: bool,
}

/// What a finish or reset changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneMgmtOutcome {
    /// Zone index.
    pub zone: u32,
    /// Bytes that had been written before the command.
    pub written_bytes_before: u64,
    /// Whether the command changed anything (false for allowed no-ops).
    pub changed: bool,
}

#[derive(Debug, Clone)]
struct Zone {
    state: ZoneState,
    write_pointer: u64,
    /// Order stamp of the implicit open, for auto-closing the oldest implicitly opened zone.
    implicit_open_stamp: u64,
}

/// The state of every zone of a device plus its open and active resource counters.
#[derive(Debug, Clone)]
pub struct ZoneTable {
    geometry: ZoneGeometry,
    zones: Vec<Zone>,
    open_count: u32,
    active_count: u32,
    stamp: u64,
}

impl ZoneTable {
    /// A table of empty zones.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the geometry is inconsistent.
    pub fn new(geometry: ZoneGeometry) -> Result<Self, DeviceError> {
        geometry.validate()?;
        let zones = (0..geometry.zone_count)
            .map(|z| Zone {
                state: ZoneState::Empty,
                write_pointer: geometry.zone_start(z),
                implicit_open_stamp: 0,
            })
            .collect();
        Ok(Self {
            geometry,
            zones,
            open_count: 0,
            active_count: 0,
            stamp: 0,
        })
    }

    /// Rebuilds a table from persisted zone descriptors (file-backed devices). Open zones come
    /// back closed, as after a controller power cycle; empty zones with data and other
    /// inconsistencies are rejected.
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] when the descriptors are inconsistent with the geometry.
    pub fn restore(
        geometry: ZoneGeometry,
        saved: &[(ZoneState, u64)],
    ) -> Result<Self, DeviceError> {
        let mut t = Self::new(geometry)?;
        if saved.len() != t.zones.len() {
            return Err(DeviceError::Corrupt("zone count differs from the geometry"));
        }
        for (z, &(state, wp)) in saved.iter().enumerate() {
            let start = t.geometry.zone_start(u32::try_from(z).unwrap_or(u32::MAX));
            let cap_end = start + t.geometry.zone_capacity_bytes;
            if wp < start || wp > cap_end || (wp - start) % t.geometry.block_size_bytes != 0 {
                return Err(DeviceError::Corrupt("write pointer outside its zone"));
            }
            let state = match state {
                ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen if wp == start => {
                    ZoneState::Empty
                }
                ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => ZoneState::Closed,
                s => s,
            };
            let consistent = match state {
                ZoneState::Empty => wp == start,
                ZoneState::Closed => wp > start && wp < cap_end,
                ZoneState::Full => wp == cap_end,
                _ => true,
            };
            if !consistent {
                return Err(DeviceError::Corrupt(
                    "zone state contradicts its write pointer",
                ));
            }
            if state.is_active() {
                t.active_count += 1;
            }
            t.zones[z] = Zone {
                state,
                write_pointer: wp,
                implicit_open_stamp: 0,
            };
        }
        if t.geometry.max_active_zones != 0 && t.active_count > t.geometry.max_active_zones {
            return Err(DeviceError::Corrupt(
                "more active zones than the device allows",
            ));
        }
        Ok(t)
    }

    /// The geometry.
    pub fn geometry(&self) -> &ZoneGeometry {
        &self.geometry
    }

    /// Zones holding an open resource.
    pub fn open_count(&self) -> u32 {
        self.open_count
    }

    /// Zones holding an active resource.
    pub fn active_count(&self) -> u32 {
        self.active_count
    }

    /// One zone's descriptor.
    ///
    /// # Errors
    /// [`DeviceError::OutOfRange`] for a zone index beyond the device.
    pub fn info(&self, zone: u32) -> Result<ZoneInfo, DeviceError> {
        let z = self.zone(zone)?;
        Ok(ZoneInfo {
            index: zone,
            state: z.state,
            start: self.geometry.zone_start(zone),
            capacity_bytes: self.geometry.zone_capacity_bytes,
            write_pointer: z.write_pointer,
        })
    }

    /// Descriptors of `count` zones from `first` (clipped to the device).
    pub fn report(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        let end = first.saturating_add(count).min(self.geometry.zone_count);
        (first..end).filter_map(|z| self.info(z).ok()).collect()
    }

    fn zone(&self, zone: u32) -> Result<&Zone, DeviceError> {
        self.zones
            .get(zone as usize)
            .ok_or(DeviceError::OutOfRange {
                what: "zone",
                value: u64::from(zone),
                limit: u64::from(self.geometry.zone_count),
            })
    }

    /// Checks that a read is block aligned (the rest of [`ZoneTable::check_read`] left to the
    /// caller: ZNS+'s threaded zones are read past their write pointer).
    ///
    /// # Errors
    /// [`DeviceError::Unaligned`].
    pub fn check_aligned_read(&self, offset: u64, len: u64) -> Result<(), DeviceError> {
        self.check_aligned(offset, len)
    }

    fn check_aligned(&self, offset: u64, len: u64) -> Result<(), DeviceError> {
        let bs = self.geometry.block_size_bytes;
        if len == 0 || !offset.is_multiple_of(bs) || !len.is_multiple_of(bs) {
            return Err(DeviceError::Unaligned {
                offset,
                len,
                block_size: bs,
            });
        }
        Ok(())
    }

    fn locate(&self, offset: u64) -> Result<u32, DeviceError> {
        self.geometry
            .zone_of(offset)
            .ok_or(DeviceError::OutOfRange {
                what: "offset",
                value: offset,
                limit: self.geometry.device_size_bytes(),
            })
    }

    /// Checks a read: aligned, inside one zone, below the write pointer, zone not offline.
    ///
    /// # Errors
    /// The matching [`DeviceError`].
    pub fn check_read(&self, offset: u64, len: u64) -> Result<u32, DeviceError> {
        self.check_aligned(offset, len)?;
        let zone = self.locate(offset)?;
        let start = self.geometry.zone_start(zone);
        let z = self.zone(zone)?;
        if z.state == ZoneState::Offline {
            return Err(DeviceError::ZoneOffline { zone });
        }
        let end = offset.saturating_add(len);
        if end > start + self.geometry.zone_size_bytes {
            return Err(DeviceError::CrossesZoneEnd { zone, offset, len });
        }
        if end > z.write_pointer {
            return Err(DeviceError::ReadBeyondWritePointer {
                zone,
                offset,
                len,
                write_pointer: z.write_pointer,
            });
        }
        Ok(zone)
    }

    /// Admits a write at `offset` (must be the write pointer) and advances the write pointer.
    ///
    /// # Errors
    /// The matching [`DeviceError`]; nothing changes on error.
    pub fn admit_write(&mut self, offset: u64, len: u64) -> Result<WriteAdmission, DeviceError> {
        self.check_aligned(offset, len)?;
        let zone = self.locate(offset)?;
        self.admit(zone, Some(offset), len)
    }

    /// Admits a zone append of `len` bytes to `zone`; returns the assigned offset.
    ///
    /// # Errors
    /// The matching [`DeviceError`]; nothing changes on error.
    pub fn admit_append(&mut self, zone: u32, len: u64) -> Result<WriteAdmission, DeviceError> {
        self.zone(zone)?;
        if len > self.geometry.zone_append_max_bytes {
            return Err(DeviceError::AppendTooLarge {
                len,
                limit: self.geometry.zone_append_max_bytes,
            });
        }
        self.check_aligned(self.geometry.zone_start(zone), len)?;
        self.admit(zone, None, len)
    }

    fn admit(
        &mut self,
        zone: u32,
        offset: Option<u64>,
        len: u64,
    ) -> Result<WriteAdmission, DeviceError> {
        let start = self.geometry.zone_start(zone);
        let cap_end = start + self.geometry.zone_capacity_bytes;
        let (state, wp) = {
            let z = self.zone(zone)?;
            (z.state, z.write_pointer)
        };
        match state {
            ZoneState::Full => return Err(DeviceError::ZoneFull { zone }),
            ZoneState::ReadOnly => return Err(DeviceError::ZoneReadOnly { zone }),
            ZoneState::Offline => return Err(DeviceError::ZoneOffline { zone }),
            _ => {}
        }
        let at = offset.unwrap_or(wp);
        if at != wp {
            return Err(DeviceError::NotAtWritePointer {
                zone,
                offset: at,
                write_pointer: wp,
            });
        }
        if at.checked_add(len).is_none_or(|end| end > cap_end) {
            return Err(DeviceError::BeyondCapacity {
                zone,
                offset: at,
                len,
                capacity_end: cap_end,
            });
        }
        let filled = at + len == cap_end;
        // Resources: an implicit open from Empty needs active + open; from Closed needs open.
        let mut auto_closed = None;
        let needs_active = state == ZoneState::Empty;
        let needs_open = matches!(state, ZoneState::Empty | ZoneState::Closed);
        if needs_active && !filled {
            self.check_active(zone)?;
        }
        if needs_open && !filled {
            auto_closed = self.make_open_room(zone)?;
        }
        // Commit.
        let stamp = self.next_stamp();
        let z = &mut self.zones[zone as usize];
        z.write_pointer = at + len;
        let old = z.state;
        z.state = if filled {
            ZoneState::Full
        } else if old == ZoneState::ExplicitlyOpen {
            ZoneState::ExplicitlyOpen
        } else {
            if !old.is_open() {
                z.implicit_open_stamp = stamp;
            }
            ZoneState::ImplicitlyOpen
        };
        let new = z.state;
        self.account(old, new);
        Ok(WriteAdmission {
            zone,
            offset: at,
            auto_closed,
            filled,
        })
    }

    fn next_stamp(&mut self) -> u64 {
        self.stamp += 1;
        self.stamp
    }

    fn check_active(&self, zone: u32) -> Result<(), DeviceError> {
        let limit = self.geometry.max_active_zones;
        if limit != 0 && self.active_count >= limit {
            return Err(DeviceError::TooManyActive { zone, limit });
        }
        Ok(())
    }

    /// For an implicit open: when the open limit is reached, close the oldest implicitly opened
    /// zone (FEMU/QEMU behaviour). Returns the zone closed. Errors if every open zone is
    /// explicitly open. Checks happen before any change; the close is committed here, so call
    /// it only after every other check passed.
    fn make_open_room(&mut self, zone: u32) -> Result<Option<u32>, DeviceError> {
        let limit = self.geometry.max_open_zones;
        if limit == 0 || self.open_count < limit {
            return Ok(None);
        }
        let victim = self
            .zones
            .iter()
            .enumerate()
            .filter(|(_, z)| z.state == ZoneState::ImplicitlyOpen)
            .min_by_key(|(_, z)| z.implicit_open_stamp)
            .map(|(i, _)| i);
        let Some(victim) = victim else {
            return Err(DeviceError::TooManyOpen { zone, limit });
        };
        self.zones[victim].state = ZoneState::Closed;
        self.account(ZoneState::ImplicitlyOpen, ZoneState::Closed);
        Ok(u32::try_from(victim).ok())
    }

    fn account(&mut self, old: ZoneState, new: ZoneState) {
        match (old.is_open(), new.is_open()) {
            (false, true) => self.open_count += 1,
            (true, false) => self.open_count -= 1,
            _ => {}
        }
        match (old.is_active(), new.is_active()) {
            (false, true) => self.active_count += 1,
            (true, false) => self.active_count -= 1,
            _ => {}
        }
    }

    /// Explicit Open: E→EO (needs active + open), C→EO (needs open), IO→EO, EO no-op.
    /// An explicit open never auto-closes another zone.
    ///
    /// # Errors
    /// [`DeviceError::TooManyActive`], [`DeviceError::TooManyOpen`],
    /// [`DeviceError::InvalidTransition`], [`DeviceError::OutOfRange`].
    pub fn open(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let state = self.zone(zone)?.state;
        match state {
            ZoneState::Empty | ZoneState::Closed => {
                if state == ZoneState::Empty {
                    self.check_active(zone)?;
                }
                let limit = self.geometry.max_open_zones;
                if limit != 0 && self.open_count >= limit {
                    return Err(DeviceError::TooManyOpen { zone, limit });
                }
            }
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {}
            from => {
                return Err(DeviceError::InvalidTransition {
                    zone,
                    op: ZoneOp::Open,
                    from,
                });
            }
        }
        self.transition(zone, ZoneState::ExplicitlyOpen)
    }

    /// Close: IO/EO→C (to Empty if nothing was written), C no-op.
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`], [`DeviceError::OutOfRange`].
    pub fn close(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let z = self.zone(zone)?;
        match z.state {
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {
                let to = if z.write_pointer == self.geometry.zone_start(zone) {
                    ZoneState::Empty
                } else {
                    ZoneState::Closed
                };
                self.transition(zone, to)
            }
            ZoneState::Closed => self.transition(zone, ZoneState::Closed),
            from => Err(DeviceError::InvalidTransition {
                zone,
                op: ZoneOp::Close,
                from,
            }),
        }
    }

    /// Finish: E/IO/EO/C→F with the write pointer at the end of the capacity; F no-op.
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`], [`DeviceError::OutOfRange`].
    pub fn finish(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let state = self.zone(zone)?.state;
        match state {
            ZoneState::Empty
            | ZoneState::ImplicitlyOpen
            | ZoneState::ExplicitlyOpen
            | ZoneState::Closed
            | ZoneState::Full => {}
            from => {
                return Err(DeviceError::InvalidTransition {
                    zone,
                    op: ZoneOp::Finish,
                    from,
                });
            }
        }
        let out = self.transition(zone, ZoneState::Full)?;
        let cap_end = self.geometry.zone_start(zone) + self.geometry.zone_capacity_bytes;
        self.zones[zone as usize].write_pointer = cap_end;
        Ok(out)
    }

    /// Reset: IO/EO/C/F→E with the write pointer at the zone start; E no-op.
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`], [`DeviceError::OutOfRange`].
    pub fn reset(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let state = self.zone(zone)?.state;
        if matches!(state, ZoneState::ReadOnly | ZoneState::Offline) {
            return Err(DeviceError::InvalidTransition {
                zone,
                op: ZoneOp::Reset,
                from: state,
            });
        }
        let out = self.transition(zone, ZoneState::Empty)?;
        self.zones[zone as usize].write_pointer = self.geometry.zone_start(zone);
        Ok(out)
    }

    /// Device-internal media failure: the zone becomes read-only (from any state but offline).
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`] from offline.
    pub fn set_read_only(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let state = self.zone(zone)?.state;
        if state == ZoneState::Offline {
            return Err(DeviceError::InvalidTransition {
                zone,
                op: ZoneOp::ReadOnly,
                from: state,
            });
        }
        self.transition(zone, ZoneState::ReadOnly)
    }

    /// Offline: only from read-only (the spec's RO→O).
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`] from any other state.
    pub fn set_offline(&mut self, zone: u32) -> Result<ZoneMgmtOutcome, DeviceError> {
        let state = self.zone(zone)?.state;
        if state != ZoneState::ReadOnly {
            return Err(DeviceError::InvalidTransition {
                zone,
                op: ZoneOp::Offline,
                from: state,
            });
        }
        self.transition(zone, ZoneState::Offline)
    }

    /// Overwrites one zone's state and write pointer with what a device reported (a Linux
    /// zoned block device after a failed request), keeping the resource counters right.
    ///
    /// # Errors
    /// [`DeviceError::OutOfRange`] for a zone beyond the device; [`DeviceError::Corrupt`] when
    /// the write pointer lies outside the zone's capacity or is not block aligned.
    pub fn resync(&mut self, zone: u32, state: ZoneState, wp: u64) -> Result<(), DeviceError> {
        let start = self.geometry.zone_start(zone);
        self.zone(zone)?;
        let cap_end = start + self.geometry.zone_capacity_bytes;
        if wp < start
            || wp > cap_end
            || !(wp - start).is_multiple_of(self.geometry.block_size_bytes)
        {
            return Err(DeviceError::Corrupt(
                "reported write pointer outside its zone",
            ));
        }
        let stamp = self.next_stamp();
        let z = &mut self.zones[zone as usize];
        let old = z.state;
        z.state = state;
        z.write_pointer = wp;
        if state == ZoneState::ImplicitlyOpen && old != state {
            z.implicit_open_stamp = stamp;
        }
        self.account(old, state);
        Ok(())
    }

    fn transition(&mut self, zone: u32, to: ZoneState) -> Result<ZoneMgmtOutcome, DeviceError> {
        let start = self.geometry.zone_start(zone);
        let z = self
            .zones
            .get_mut(zone as usize)
            .ok_or(DeviceError::OutOfRange {
                what: "zone",
                value: u64::from(zone),
                limit: u64::from(self.geometry.zone_count),
            })?;
        let old = z.state;
        let written = z.write_pointer - start;
        z.state = to;
        self.account(old, to);
        Ok(ZoneMgmtOutcome {
            zone,
            written_bytes_before: written,
            changed: old != to,
        })
    }

    /// Checks the invariants that must hold between requests; used by [`crate::checker`].
    ///
    /// # Errors
    /// A description of the first violated invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        let g = &self.geometry;
        let (mut open, mut active) = (0u32, 0u32);
        for (i, z) in self.zones.iter().enumerate() {
            let start = g.zone_start(u32::try_from(i).unwrap_or(u32::MAX));
            let cap_end = start + g.zone_capacity_bytes;
            if z.write_pointer < start || z.write_pointer > cap_end {
                return Err(format!(
                    "zone {i}: write pointer {} outside [{start}, {cap_end}]",
                    z.write_pointer
                ));
            }
            if !(z.write_pointer - start).is_multiple_of(g.block_size_bytes) {
                return Err(format!(
                    "zone {i}: write pointer {} not block aligned",
                    z.write_pointer
                ));
            }
            match z.state {
                ZoneState::Empty if z.write_pointer != start => {
                    return Err(format!(
                        "zone {i}: empty with write pointer {}",
                        z.write_pointer
                    ));
                }
                ZoneState::Closed if z.write_pointer == start => {
                    return Err(format!("zone {i}: closed with nothing written"));
                }
                ZoneState::Full if z.write_pointer != cap_end => {
                    return Err(format!(
                        "zone {i}: full with write pointer {} before {cap_end}",
                        z.write_pointer
                    ));
                }
                s if s.is_active() && z.write_pointer == cap_end => {
                    return Err(format!("zone {i}: {s:?} at the end of its capacity"));
                }
                _ => {}
            }
            open += u32::from(z.state.is_open());
            active += u32::from(z.state.is_active());
        }
        if open != self.open_count || active != self.active_count {
            return Err(format!(
                "resource counters drifted: open {}/{open}, active {}/{active}",
                self.open_count, self.active_count
            ));
        }
        if g.max_open_zones != 0 && open > g.max_open_zones {
            return Err(format!(
                "{open} open zones exceed the limit {}",
                g.max_open_zones
            ));
        }
        if g.max_active_zones != 0 && active > g.max_active_zones {
            return Err(format!(
                "{active} active zones exceed the limit {}",
                g.max_active_zones
            ));
        }
        Ok(())
    }
}
