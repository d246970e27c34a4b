//! [`SplitZnsMedia`]: the flash media of a SplitZNS device. Wide zones are timed exactly as
//! [`FlashMedia`] times them; split zones are kept here (state machine, chip allocator,
//! subzone-to-block map, SubZone Ring, Read Scheduler, Read Prefetcher) and their work is timed
//! on the chip serving each subzone. The simulated device reaches it through
//! [`Media::splitzns`].

use std::collections::BTreeMap;

use super::prefetch::Prefetcher;
use super::read_scheduler::{ReadGuess, ReadScheduler};
use super::ring::SubzoneRing;
use super::state::{MAP_ENTRY_BYTES, SplitTable};
use super::tickets::SharedTickets;
use super::{
    SplitZnsConfig, SplitZnsGeometry, SplitZnsStats, SplitZoneState, SubzoneId, SubzoneInfo,
};
use crate::flash::{FlashMedia, Place, TimingEngine};
use crate::profile::Profile;
use crate::sim::{Completion, Media, MediaKind, Poll, Ticket};
use crate::zone::ZoneTable;
use crate::{DeviceError, IoClass};

/// Tickets of reads served from a preread buffer still being filled start here (the engine's
/// own tickets count up from 0).
const ALIAS_BASE: u64 = 1 << 62;

/// Flash with SplitZNS's split zones.
#[derive(Debug)]
pub struct SplitZnsMedia {
    flash: FlashMedia,
    config: SplitZnsConfig,
    table: SplitTable,
    ring: Option<SubzoneRing>,
    reads: ReadScheduler,
    prefetch: Option<Prefetcher>,
    tickets: SharedTickets,
    /// Reads served from a preread buffer whose preread is queued: the preread, and the
    /// earliest the read can complete.
    aliases: BTreeMap<u64, (Completion, u64)>,
    next_alias: u64,
    /// Per subzone (global index): bytes programmed on flash (what a MERGE erases).
    programmed: Vec<u64>,
    stats: SplitZnsStats,
}

impl SplitZnsMedia {
    /// The flash of `profile` with split zones as `config` says.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent or its zones do not
    /// split into one block-aligned subzone per chip of a zone.
    pub fn new(profile: Profile, config: SplitZnsConfig) -> Result<Self, DeviceError> {
        let zones = profile.zones.clone();
        let subzones = profile.chips_per_zone;
        let page = profile.flash.page_size_bytes;
        let unit = page * u64::from(profile.flash.planes_per_die);
        let chips = profile.flash.chips();
        let flash = FlashMedia::new(profile)?;
        let table = SplitTable::new(&zones, subzones)?;
        let total = zones.zone_count as usize * subzones as usize;
        let ring_bytes = config.ring_bytes.unwrap_or(2 * zones.zone_capacity_bytes);
        let prefetch_bytes = config.prefetch_bytes.unwrap_or(4 * page);
        if config.ring && ring_bytes < unit {
            return Err(DeviceError::InvalidConfig(format!(
                "SubZone Ring of {ring_bytes} bytes holds no program unit of {unit} bytes"
            )));
        }
        if config.prefetcher
            && (prefetch_bytes == 0 || !prefetch_bytes.is_multiple_of(zones.block_size_bytes))
        {
            return Err(DeviceError::InvalidConfig(format!(
                "preread buffer of {prefetch_bytes} bytes is not a non-zero multiple of the block size"
            )));
        }
        Ok(Self {
            flash,
            ring: config
                .ring
                .then(|| SubzoneRing::new(ring_bytes, unit, page, chips)),
            prefetch: config.prefetcher.then(|| Prefetcher::new(prefetch_bytes)),
            config,
            table,
            reads: ReadScheduler::new(total),
            tickets: SharedTickets::default(),
            aliases: BTreeMap::new(),
            next_alias: ALIAS_BASE,
            programmed: vec![0; total],
            stats: SplitZnsStats::default(),
        })
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        self.flash.profile()
    }

    /// The accelerations in force.
    pub fn config(&self) -> SplitZnsConfig {
        self.config
    }

    /// The split zones.
    pub fn table(&self) -> &SplitTable {
        &self.table
    }

    /// The timing engine.
    pub fn engine(&self) -> &TimingEngine {
        self.flash.engine()
    }

    fn engine_mut(&mut self) -> &mut TimingEngine {
        self.flash.engine_mut()
    }

    /// Subzone sizes.
    pub fn geometry(&self) -> SplitZnsGeometry {
        SplitZnsGeometry {
            subzones: self.table.subzones(),
            subzone_size_bytes: self.table.sub_size_bytes(),
            subzone_capacity_bytes: self.table.sub_capacity_bytes(),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> SplitZnsStats {
        let mut s = self.stats;
        s.map_entries = self.table.map_entries() as u64;
        s.map_bytes = s.map_entries * MAP_ENTRY_BYTES;
        s.map_peak_bytes = self.table.map_peak_entries() as u64 * MAP_ENTRY_BYTES;
        if let Some(r) = &self.ring {
            (s.ring_flush_rounds, s.ring_units_flushed) = r.flush_counts();
            s.ring_bytes = r.bytes();
            s.ring_peak_bytes = r.peak_bytes();
        }
        [
            s.rs_query_as_query,
            s.rs_query_as_compaction,
            s.rs_compaction_as_query,
            s.rs_compaction_as_compaction,
        ] = self.reads.counts();
        if let Some(p) = &self.prefetch {
            (s.prereads, s.preread_hits, s.preread_misses) = p.counts();
        }
        s
    }

    /// Payload slots the device needs: one per zone, then one per subzone.
    pub(crate) fn payload_slots(&self, zone_count: u32) -> u32 {
        zone_count + zone_count * self.table.subzones()
    }

    /// The payload slot of a subzone.
    pub(crate) fn slot_of(&self, zone_count: u32, id: SubzoneId) -> u32 {
        zone_count + self.table.global(id)
    }

    /// The split zone holding device offset `offset`, if it is split.
    pub(crate) fn split_zone_at(&self, offset: u64) -> Option<u32> {
        let zone = u32::try_from(offset / self.flash.profile().zones.zone_size_bytes).ok()?;
        self.table.is_split(zone).then_some(zone)
    }

    fn chip_of(&self, zone: u32, slot: u32) -> u32 {
        self.engine().layout().zone_chip(zone, slot)
    }

    fn release(&mut self, c: Option<Completion>) {
        if let Some(t) = c.and_then(|c| self.tickets.release(c)) {
            self.engine_mut().forget(t);
        }
    }

    fn release_all(&mut self, ts: Vec<Ticket>) {
        for t in ts {
            self.engine_mut().forget(t);
        }
    }

    /// SPLIT of `zone` into `parts` subzones.
    ///
    /// # Errors
    /// As [`SplitTable::split`].
    pub(crate) fn split(
        &mut self,
        now: u64,
        table: &mut ZoneTable,
        zone: u32,
        parts: u32,
    ) -> Result<Completion, DeviceError> {
        self.table.split(table, zone, parts)?;
        self.stats.splits += 1;
        Ok(Completion::At(self.flash.manage(now)))
    }

    /// FINISH of split zone `zone`.
    ///
    /// # Errors
    /// As [`SplitTable::finish`].
    pub(crate) fn finish_zone(
        &mut self,
        now: u64,
        table: &mut ZoneTable,
        zone: u32,
    ) -> Result<Completion, DeviceError> {
        if self.table.finish(table, zone)? {
            self.stats.split_finishes += 1;
        }
        Ok(Completion::At(self.flash.manage(now)))
    }

    /// RESET of split zone `zone` (back to wide).
    ///
    /// # Errors
    /// As [`SplitTable::reset`].
    pub(crate) fn reset_zone(
        &mut self,
        now: u64,
        table: &mut ZoneTable,
        zone: u32,
    ) -> Result<Completion, DeviceError> {
        self.table.reset(table, zone)?;
        self.stats.split_resets += 1;
        Ok(Completion::At(self.flash.manage(now)))
    }

    /// Admits a write of `len` bytes to subzone `id` (at device `offset`, or appended) at
    /// `now`. Returns the device offset written and when the write completes: with the ring,
    /// once its data is in the ring (and any flush round it had to issue is programmed);
    /// without, once its chip has programmed it.
    ///
    /// # Errors
    /// As [`SplitTable::admit_write`].
    pub(crate) fn write_subzone(
        &mut self,
        now: u64,
        table: &mut ZoneTable,
        id: SubzoneId,
        offset: Option<u64>,
        len: u64,
    ) -> Result<(u64, Completion), DeviceError> {
        let layout = self.engine().layout().clone();
        let base = layout.base_row(id.zone);
        let block_of = |slot: u32| {
            let die = layout.zone_chip(id.zone, slot) * layout.geometry().dies_per_chip;
            u32::try_from(layout.block_index(die, 0, base)).unwrap_or(u32::MAX)
        };
        let was_inactive = self.table.zone_state(id.zone) == Some(SplitZoneState::Inactive);
        let w = self.table.admit_write(table, id, offset, len, block_of)?;
        if was_inactive && w.opened {
            self.stats.reactivations += 1;
        }
        let cap = self.table.sub_capacity_bytes();
        let global = self.table.global(id);
        let place = Place::Chip {
            zone: id.zone,
            slot: w.slot,
        };
        let chip = self.chip_of(id.zone, w.slot);
        let g = self.engine().layout().geometry();
        let unit = g.page_size_bytes * u64::from(g.planes_per_die);
        let done = if let Some(ring) = self.ring.as_mut() {
            let (t_data, ack) = self.flash.engine_mut().dram_write_front(now, len);
            let (issued, forgotten) = ring.admit(
                now,
                &mut self.tickets,
                (global, id.zone, w.slot, chip),
                w.rel,
                len,
                cap,
            );
            let programs = ring.programs(&issued, cap);
            let c = if programs.is_empty() {
                Completion::At(ack)
            } else {
                self.flash
                    .engine_mut()
                    .program_units_for(t_data, &programs, ack)
            };
            ring.issued(&issued, c, &mut self.tickets);
            for &(sub, u) in &issued {
                let end = ((u + 1) * unit).min(cap);
                if let Some(p) = self.programmed.get_mut(sub as usize) {
                    *p = (*p).max(end);
                }
            }
            self.release_all(forgotten);
            c
        } else {
            if let Some(p) = self.programmed.get_mut(global as usize) {
                *p = w.rel + len;
            }
            self.flash
                .engine_mut()
                .write_in_for(now, place, w.rel, len, cap)
        };
        Ok((self.table.sub_start(id) + w.rel, done))
    }

    /// Checks a read of split zone `zone`; returns the subzone.
    ///
    /// # Errors
    /// As [`SplitTable::check_read`].
    pub(crate) fn check_read(
        &self,
        zone: u32,
        offset: u64,
        len: u64,
    ) -> Result<SubzoneId, DeviceError> {
        self.table
            .check_read(zone, offset, len)
            .map(|(id, _, _)| id)
    }

    /// Times a read of split zone `zone` (checked) the host tagged `host`: the Read Scheduler
    /// classifies it; it is served from the ring, a preread buffer or the subzone's chip.
    pub(crate) fn read_subzone(
        &mut self,
        now: u64,
        zone: u32,
        offset: u64,
        len: u64,
        host: IoClass,
    ) -> Completion {
        let Ok((id, slot, rel)) = self.table.check_read(zone, offset, len) else {
            return Completion::At(now);
        };
        let global = self.table.global(id);
        let guess = self.reads.classify(global, rel, len, host);
        let class = if self.config.read_scheduler {
            guess.class()
        } else {
            host
        };
        let place = Place::Chip { zone, slot };
        // R1-R2 of §4.4.1: beyond the actual write pointer, the data is in the ring.
        let mut flash_len = len;
        if let Some(ring) = self.ring.as_mut()
            && ring.holds(global, rel + len - 1)
            && let Some(flushed) = ring.flushed(global, now, &mut self.tickets)
            && rel + len > flushed
        {
            self.stats.ring_reads += 1;
            if rel >= flushed {
                return Completion::At(self.flash.engine_mut().dram_read(now, len, now));
            }
            flash_len = flushed - rel;
        }
        if guess == ReadGuess::Compaction
            && let Some(p) = self.prefetch.as_mut()
        {
            let (hit, dropped) = p.take(global, rel, len);
            if let Some(ready) = hit {
                let c = self.read_buffer(now, len, ready);
                self.release(dropped);
                return c;
            }
            self.release(dropped);
            let c = self
                .flash
                .engine_mut()
                .read_in_for(now, place, rel, flash_len, class);
            self.preread_others(now, self.chip_of(zone, slot));
            return c;
        }
        self.flash
            .engine_mut()
            .read_in_for(now, place, rel, flash_len, class)
    }

    /// A read served from a preread buffer whose data is in DRAM at `ready`.
    fn read_buffer(&mut self, now: u64, len: u64, ready: Completion) -> Completion {
        if let Some(t) = self.tickets.done_at(ready) {
            return Completion::At(self.flash.engine_mut().dram_read(now, len, t));
        }
        let floor = self.flash.engine_mut().dram_read(now, len, now);
        let alias = self.next_alias;
        self.next_alias += 1;
        self.tickets.hold(ready);
        self.aliases.insert(alias, (ready, floor));
        Completion::Queued(Ticket(alias))
    }

    /// Prereads, on every chip but `reader`, the next bytes of the first subzone (in zone
    /// order) served by that chip that is a compaction input with an empty buffer.
    fn preread_others(&mut self, now: u64, reader: u32) {
        let Some(bytes) = self.prefetch.as_ref().map(Prefetcher::buffer_bytes) else {
            return;
        };
        let layout = self.engine().layout();
        let mut candidates = Vec::new();
        for (zone, z) in self.table.split_zones() {
            for (i, s) in z.subs.iter().enumerate() {
                let Some(slot) = s.slot else { continue };
                let id = SubzoneId {
                    zone,
                    index: i as u32,
                };
                let global = self.table.global(id);
                let chip = layout.zone_chip(zone, slot);
                let rp = self.reads.pointer(global);
                if chip != reader
                    && rp > 0
                    && rp < s.written
                    && self.prefetch.as_ref().is_some_and(|p| p.is_empty(global))
                {
                    candidates.push((chip, zone, slot, global, rp, s.written));
                }
            }
        }
        let mut served = Vec::new();
        for (chip, zone, slot, global, rp, written) in candidates {
            if served.contains(&chip) {
                continue;
            }
            let end = match self.ring.as_mut() {
                Some(r) => r.flushed(global, now, &mut self.tickets).unwrap_or(written),
                None => written,
            };
            let n = bytes.min(end.saturating_sub(rp));
            if n == 0 {
                continue;
            }
            served.push(chip);
            let c = self.flash.engine_mut().read_pages_for(
                now,
                Place::Chip { zone, slot },
                rp,
                n,
                IoClass::BackgroundRead,
                false,
            );
            self.tickets.hold(c);
            if let Some(p) = self.prefetch.as_mut() {
                p.fill(global, rp, rp + n, c);
            }
        }
    }

    /// The host finished subzone `id`.
    ///
    /// # Errors
    /// As [`SplitTable::finish_subzone`].
    pub(crate) fn finish_subzone(
        &mut self,
        now: u64,
        id: SubzoneId,
    ) -> Result<Completion, DeviceError> {
        if let Some(before) = self.table.finish_subzone(id)? {
            self.stats.subzone_finishes += 1;
            let global = self.table.global(id);
            if let Some(r) = self.ring.as_mut() {
                r.finish(global, before);
            }
        }
        Ok(Completion::At(self.flash.manage(now)))
    }

    /// MERGE of subzone `id`: erases the blocks of its chip that hold data. Returns the
    /// completion and the block erases it took.
    ///
    /// # Errors
    /// As [`SplitTable::merge`].
    pub(crate) fn merge(
        &mut self,
        now: u64,
        id: SubzoneId,
    ) -> Result<(Completion, u64), DeviceError> {
        let Some(slot) = self.table.merge(id)? else {
            return Ok((Completion::At(self.flash.manage(now)), 0));
        };
        self.stats.merges += 1;
        let global = self.table.global(id);
        self.reads.reset(global);
        if let Some(r) = self.ring.as_mut() {
            let forgotten = r.drop_sub(global, &mut self.tickets);
            self.release_all(forgotten);
        }
        let dropped = self.prefetch.as_mut().and_then(|p| p.drop_buffer(global));
        self.release(dropped);
        let prog = self
            .programmed
            .get_mut(global as usize)
            .map_or(0, std::mem::take);
        let before = self.flash.block_erases();
        let c = self.flash.engine_mut().reset_in_for(
            now,
            Place::Chip {
                zone: id.zone,
                slot,
            },
            prog,
        );
        Ok((c, self.flash.block_erases() - before))
    }

    /// A power loss lost the writes of subzone `id` from `written` bytes on.
    pub(crate) fn truncate_subzone(&mut self, id: SubzoneId, written: u64) {
        let global = self.table.global(id);
        self.table.truncate(id, written);
        if let Some(r) = self.ring.as_mut() {
            let forgotten = r.truncate(global, written, &mut self.tickets);
            self.release_all(forgotten);
        }
    }

    /// Split zones take back the tokens they held before a power cycle rebuilt `table`.
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] if the tokens are not there (a model bug).
    pub(crate) fn retake_tokens(&self, table: &mut ZoneTable) -> Result<(), DeviceError> {
        self.table
            .retake_tokens(table)
            .map_err(|_| DeviceError::Corrupt("split zones lost their tokens at a power cycle"))
    }

    /// Descriptors of split zone `zone`'s subzones at `now`.
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] when the zone is not split.
    pub(crate) fn report(&mut self, now: u64, zone: u32) -> Result<Vec<SubzoneInfo>, DeviceError> {
        let Some(z) = self.table.zone(zone) else {
            return Err(DeviceError::SplitZone {
                zone,
                subzone: None,
                op: crate::error::SplitOp::Read,
                reason: crate::error::SplitRefusal::NotSplit,
            });
        };
        let subs: Vec<_> = z.subs.iter().map(|s| (s.written, s.slot)).collect();
        let mut out = Vec::with_capacity(subs.len());
        for (i, (written, slot)) in subs.into_iter().enumerate() {
            let id = SubzoneId {
                zone,
                index: i as u32,
            };
            let global = self.table.global(id);
            let flushed = match self.ring.as_mut() {
                Some(r) => r.flushed(global, now, &mut self.tickets).unwrap_or(written),
                None => written,
            };
            let chip = slot.map(|s| self.chip_of(zone, s));
            out.push(
                self.table
                    .info(id, flushed, self.reads.pointer(global), chip),
            );
        }
        Ok(out)
    }
}

impl Media for SplitZnsMedia {
    fn kind(&self) -> MediaKind {
        MediaKind::Flash
    }

    /// The SplitZNS family ([`crate::SplitZones`]).
    fn device_capabilities<E: zonedb_env::Env>(
        device: &crate::sim::SimZonedDevice<E, Self>,
    ) -> crate::Capabilities<'_> {
        crate::Capabilities {
            split_zones: Some(device),
            ..crate::Capabilities::none()
        }
    }

    fn read(&mut self, now: u64, zone: u32, offset: u64, len: u64, class: IoClass) -> Completion {
        self.flash.read(now, zone, offset, len, class)
    }

    fn write(&mut self, now: u64, zone: u32, offset: u64, len: u64, capacity: u64) -> Completion {
        self.flash.write(now, zone, offset, len, capacity)
    }

    fn reset(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> Completion {
        self.flash.reset(now, zone, programmed_bytes)
    }

    fn finish(&mut self, now: u64, zone: u32, unwritten_bytes: u64, was_empty: bool) -> Completion {
        self.flash.finish(now, zone, unwritten_bytes, was_empty)
    }

    fn manage(&mut self, now: u64) -> u64 {
        self.flash.manage(now)
    }

    /// Wide zones' writes as on flash; the SubZone Ring is power-loss protected, so what sits
    /// in it is durable already.
    fn flush_done_ns(&mut self, now: u64) -> u64 {
        self.flash.flush_done_ns(now)
    }

    fn poll(&mut self, ticket: Ticket, now: u64) -> Poll {
        if let Some(&(pre, floor)) = self.aliases.get(&ticket.0) {
            let at = match self.tickets.done_at(pre) {
                Some(t) => t,
                None => match pre {
                    Completion::At(t) => t,
                    Completion::Queued(p) => match self.flash.poll(p, now) {
                        Poll::Done(t) => {
                            self.tickets.record(p, t);
                            t
                        }
                        Poll::Until(t) => return Poll::Until(t),
                    },
                },
            };
            self.aliases.remove(&ticket.0);
            self.release(Some(pre));
            return Poll::Done(at.max(floor));
        }
        let p = self.flash.poll(ticket, now);
        if let Poll::Done(t) = p
            && self.tickets.holds(ticket)
        {
            self.tickets.record(ticket, t);
        }
        p
    }

    /// Queued work is dropped; the ring's units whose flush was dropped are buffered again
    /// (the ring is power-loss protected); prereads not done are forgotten.
    fn power_cycle(&mut self, now: u64) {
        self.flash.power_cycle(now);
        let dropped = self.tickets.drop_pending();
        if let Some(r) = self.ring.as_mut() {
            r.requeue(&dropped);
        }
        if let Some(p) = self.prefetch.as_mut() {
            p.drop_unready(|c| match c {
                Completion::At(_) => true,
                Completion::Queued(t) => !dropped.contains(&t),
            });
        }
    }

    fn page_ops(&self) -> u64 {
        self.flash.page_ops()
    }

    fn block_erases(&self) -> u64 {
        self.flash.block_erases()
    }

    fn zone_hook(&mut self) -> Option<&mut dyn crate::sim::ZoneHook> {
        Some(self)
    }

    fn zone_hook_ref(&self) -> Option<&dyn crate::sim::ZoneHook> {
        Some(self)
    }
}
