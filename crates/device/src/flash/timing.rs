//! Latencies and the request timing engine of a simulated SSD.
//!
//! A request passes the controller (a per-command cost, serialized), the host link (bandwidth),
//! then the flash: writes are cut into program units (one page in every plane of a die, a
//! multi-plane program), each transferred over its die's channel and programmed on the die;
//! reads are cut into multi-plane array reads followed by channel transfers of the bytes asked
//! for. Every resource is booked first come, first served (see [`super::Resource`]; with the
//! priority scheduler, die operations wait in [`super::scheduler::DieQueues`] instead); a request
//! completes when its last operation does. Optionally a write buffer acknowledges writes once
//! their data is in device DRAM and applies back-pressure when it is full (ZN540-like devices).
//! Resets erase only the blocks that hold data (multi-plane erase per die), counting erases per
//! block; finish costs either a command or a pad to the zone capacity.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Place, Resource, ZoneLayout};

const MIB: u64 = 1 << 20;
const NS_PER_S: u128 = 1_000_000_000;

/// What a zone finish costs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum FinishModel {
    /// A metadata update: one zone-management command.
    MetadataOnly,
    /// The device pads the unwritten capacity: `base_ns` plus `ns_per_mib` per unwritten MiB,
    /// occupying the zone's dies (ZN540 measurements).
    Pad {
        /// Fixed part, ns.
        base_ns: u64,
        /// Per unwritten MiB of capacity, ns.
        ns_per_mib: u64,
    },
}

/// Latencies and front-end costs of a simulated SSD. Units last: `_ns`, `_bytes`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlashTiming {
    /// Array read of one (multi-plane) page, tR.
    pub page_read_ns: u64,
    /// Program of one (multi-plane) program unit, tPROG.
    pub page_program_ns: u64,
    /// Erase of one (multi-plane) block, tBERS.
    pub block_erase_ns: u64,
    /// Channel transfer of one full flash page; partial pages are prorated.
    pub channel_xfer_ns_per_page: u64,
    /// Host link bandwidth; 0 = not modeled.
    pub host_link_bytes_per_s: u64,
    /// Controller cost per read command (serialized: bounds IOPS).
    pub controller_read_ns: u64,
    /// Controller cost per write command (serialized).
    pub controller_write_ns: u64,
    /// Fixed firmware latency added to every read (pipelined, not serialized).
    pub read_fixed_ns: u64,
    /// Fixed firmware latency added to every write acknowledgement.
    pub write_fixed_ns: u64,
    /// Device write buffer; 0 = writes complete when programmed.
    pub write_buffer_bytes: u64,
    /// Buffer admission cost per 4 KiB written (with a write buffer).
    pub buffer_ns_per_4k: u64,
    /// Cost of open, close, and finish of an empty zone.
    pub zone_mgmt_ns: u64,
    /// Cost model of finish.
    pub finish: FinishModel,
    /// Measured reset latency by bytes programmed in the zone, interpolated linearly; empty =
    /// derive it from block erases.
    pub reset_latency_table: Vec<(u64, u64)>,
    /// When a reset (and a SplitZNS MERGE) completes. Left out of serialized timings at its
    /// default.
    #[serde(default, skip_serializing_if = "ResetAck::is_after_erase")]
    pub reset_ack: ResetAck,
}

/// When a zone reset (or a SplitZNS MERGE) completes to the host.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ResetAck {
    /// When its erases are done (they wait in the dies' queues like any operation): the
    /// default, and real devices' measured behaviour (reset latency grows with the data).
    #[default]
    AfterErase,
    /// At once (after the controller's command cost); the erases are still booked on the
    /// dies and delay what comes after them there. FEMU's ZNS mode (2023) times a reset this
    /// way, and the SplitZNS paper ran on FEMU.
    AtOnce,
}

impl ResetAck {
    /// From `after-erase` / `at-once`.
    ///
    /// # Errors
    /// [`crate::DeviceError::InvalidConfig`] for anything else.
    pub fn by_name(name: &str) -> Result<Self, crate::DeviceError> {
        match name {
            "after-erase" => Ok(Self::AfterErase),
            "at-once" => Ok(Self::AtOnce),
            other => Err(crate::DeviceError::InvalidConfig(format!(
                "reset_ack '{other}': after-erase or at-once"
            ))),
        }
    }

    /// Whether this is [`ResetAck::AfterErase`] (serde's skip test).
    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )]
    pub fn is_after_erase(&self) -> bool {
        *self == Self::AfterErase
    }
}

/// Books the flash operations of requests on dies, channels, the controller and the host link.
#[derive(Debug, Clone)]
pub struct TimingEngine {
    pub(super) layout: ZoneLayout,
    pub(super) timing: FlashTiming,
    pub(super) dies: Vec<Resource>,
    pub(super) channels: Vec<Resource>,
    pub(super) controller: Resource,
    pub(super) link: Resource,
    /// Release times of the write buffer's program-unit slots (min-heap).
    buffer_slots: BinaryHeap<Reverse<u64>>,
    pub(super) erase_counts: Vec<u32>,
    pub(super) page_ops: u64,
    pub(super) block_erases: u64,
    /// Per-die queues of the priority scheduler; `None`: FIFO booking at issue.
    pub(super) queues: Option<super::scheduler::DieQueues>,
}

pub(super) fn transfer_ns(bytes: u64, bytes_per_s: u64) -> u64 {
    if bytes_per_s == 0 {
        return 0;
    }
    u64::try_from((u128::from(bytes) * NS_PER_S).div_ceil(u128::from(bytes_per_s)))
        .unwrap_or(u64::MAX)
}

/// Books `len` bytes on the host `link` (of `bytes_per_s`) from `ready`; returns when they
/// are across. A link of bandwidth 0 is not modeled, so nothing is booked: a zero-length
/// booking would still hold the link until `ready`, and in FIFO booking every later request
/// (a write issued now) would queue behind the latest read's completion.
pub(super) fn link_transfer(link: &mut Resource, bytes_per_s: u64, ready: u64, len: u64) -> u64 {
    if bytes_per_s == 0 {
        return ready;
    }
    link.book(ready, transfer_ns(len, bytes_per_s)).1
}

/// Linear interpolation in a table of `(x, y)` points sorted by x, clamped at both ends.
pub(super) fn interpolate(table: &[(u64, u64)], x: u64) -> u64 {
    let Some(&(x0, y0)) = table.first() else {
        return 0;
    };
    if x <= x0 {
        return y0;
    }
    for w in table.windows(2) {
        let ((xa, ya), (xb, yb)) = (w[0], w[1]);
        if x <= xb {
            let (dx, span) = (i128::from(x - xa), i128::from((xb - xa).max(1)));
            let y = i128::from(ya) + (i128::from(yb) - i128::from(ya)) * dx / span;
            return u64::try_from(y).unwrap_or(0);
        }
    }
    table.last().map_or(0, |&(_, y)| y)
}

impl TimingEngine {
    /// An idle device.
    pub fn new(layout: ZoneLayout, timing: FlashTiming) -> Self {
        let g = layout.geometry();
        let unit_bytes = g.page_size_bytes * u64::from(g.planes_per_die);
        let slots = (timing.write_buffer_bytes / unit_bytes) as usize;
        let mut buffer_slots = BinaryHeap::with_capacity(slots);
        buffer_slots.extend(std::iter::repeat_n(Reverse(0), slots));
        Self {
            dies: vec![Resource::default(); g.dies() as usize],
            channels: vec![Resource::default(); g.channels as usize],
            controller: Resource::default(),
            link: Resource::default(),
            erase_counts: vec![0; layout.total_blocks()],
            buffer_slots,
            layout,
            timing,
            page_ops: 0,
            block_erases: 0,
            queues: None,
        }
    }

    /// The zone layout.
    pub fn layout(&self) -> &ZoneLayout {
        &self.layout
    }

    /// The latencies.
    pub fn timing(&self) -> &FlashTiming {
        &self.timing
    }

    /// Page reads and programs booked so far.
    pub fn page_ops(&self) -> u64 {
        self.page_ops
    }

    /// Block erases so far.
    pub fn block_erases(&self) -> u64 {
        self.block_erases
    }

    /// Erase count of every block, indexed by [`ZoneLayout::block_index`].
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_counts
    }

    /// Busy time booked on each die.
    pub fn die_busy_ns(&self) -> Vec<u64> {
        self.dies.iter().map(Resource::busy_ns).collect()
    }

    pub(super) fn unit_bytes(&self) -> u64 {
        let g = self.layout.geometry();
        g.page_size_bytes * u64::from(g.planes_per_die)
    }

    /// Books a write of `len` bytes at zone-relative offset `off` of `zone` (whose capacity is
    /// `capacity`) issued at `now`; returns the completion (acknowledgement) time.
    pub fn write(&mut self, now: u64, zone: u32, off: u64, len: u64, capacity: u64) -> u64 {
        self.write_in(now, Place::Zone(zone), off, len, capacity)
    }

    /// [`TimingEngine::write`] of `len` bytes at offset `off` of a place (a zone, or one chip's
    /// share of it) whose capacity is `capacity`.
    pub fn write_in(&mut self, now: u64, place: Place, off: u64, len: u64, capacity: u64) -> u64 {
        let t = &self.timing;
        let (_, t_cmd) = self.controller.book(now, t.controller_write_ns);
        let t_data = link_transfer(&mut self.link, t.host_link_bytes_per_s, t_cmd, len);
        let buffered = !self.buffer_slots.is_empty();
        let mut ack = t_data + t.write_fixed_ns + t.buffer_ns_per_4k * len.div_ceil(4096);
        let unit = self.unit_bytes();
        let end = off + len;
        let page = self.layout.geometry().page_size_bytes;
        let planes = u64::from(self.layout.geometry().planes_per_die);
        let xfer_page = t.channel_xfer_ns_per_page;
        let tprog = t.page_program_ns;
        // Units whose last byte this write supplies, plus a partial last unit at the capacity end.
        let mut units: Vec<(u64, u64)> = (off / unit..end / unit).map(|u| (u, planes)).collect();
        if end == capacity && !capacity.is_multiple_of(unit) {
            let u = capacity / unit;
            units.push((u, (capacity - u * unit).div_ceil(page)));
        }
        for (u, pages) in units {
            let addr = self.layout.locate_in(place, u * planes);
            let ready = if buffered {
                let Reverse(free) = self.buffer_slots.pop().unwrap_or(Reverse(0));
                let r = t_data.max(free);
                ack = ack.max(r + t.write_fixed_ns);
                r
            } else {
                t_data
            };
            let (_, x_end) = self.channels[addr.channel as usize].book(ready, pages * xfer_page);
            let (_, p_end) = self.dies[addr.die as usize].book(x_end, tprog);
            self.page_ops += pages;
            if buffered {
                self.buffer_slots.push(Reverse(p_end));
            } else {
                ack = ack.max(p_end);
            }
        }
        ack
    }

    /// Books a read of `len` bytes at zone-relative offset `off` of `zone`; returns the
    /// completion time.
    pub fn read(&mut self, now: u64, zone: u32, off: u64, len: u64) -> u64 {
        self.read_in(now, Place::Zone(zone), off, len)
    }

    /// [`TimingEngine::read`] of `len` bytes at offset `off` of a place.
    pub fn read_in(&mut self, now: u64, place: Place, off: u64, len: u64) -> u64 {
        self.read_pages(now, place, off, len, true)
    }

    /// Books the page reads of `len` bytes at offset `off` of a place; `host`: a host command
    /// (controller, fixed latency and host link booked), else a device-internal read into its
    /// DRAM that starts at `now` (SplitZNS's prereads).
    pub(crate) fn read_pages(
        &mut self,
        now: u64,
        place: Place,
        off: u64,
        len: u64,
        host: bool,
    ) -> u64 {
        let t = &self.timing;
        let t0 = if host {
            self.controller.book(now, t.controller_read_ns).1 + t.read_fixed_ns
        } else {
            now
        };
        let g = self.layout.geometry();
        let page = g.page_size_bytes;
        let planes = u64::from(g.planes_per_die);
        let unit = page * planes;
        let end = off + len;
        let mut done = t0;
        for u in off / unit..end.div_ceil(unit) {
            let addr = self.layout.locate_in(place, u * planes);
            let (_, r_end) = self.dies[addr.die as usize].book(t0, t.page_read_ns);
            let ch = &mut self.channels[addr.channel as usize];
            for p in u * planes..(u + 1) * planes {
                let (ps, pe) = (p * page, (p + 1) * page);
                let bytes = pe.min(end).saturating_sub(ps.max(off));
                if bytes == 0 {
                    continue;
                }
                let x = (t.channel_xfer_ns_per_page * bytes).div_ceil(page);
                let (_, x_end) = ch.book(r_end, x);
                done = done.max(x_end);
                self.page_ops += 1;
            }
        }
        if !host {
            return done;
        }
        link_transfer(&mut self.link, t.host_link_bytes_per_s, done, len)
    }

    /// Books a reset of `zone` holding `programmed_bytes`; returns the completion time.
    pub fn reset(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> u64 {
        self.reset_in(now, Place::Zone(zone), programmed_bytes)
    }

    /// [`TimingEngine::reset`] of a place: erases only the blocks of its dies that hold data.
    pub fn reset_in(&mut self, now: u64, place: Place, programmed_bytes: u64) -> u64 {
        let (_, t0) = self.controller.book(now, self.timing.zone_mgmt_ns);
        let mut done = t0;
        for (die, busy) in self.count_erases(place, programmed_bytes) {
            let (_, e) = self.dies[die as usize].book(t0, busy);
            done = done.max(e);
        }
        match self.timing.reset_ack {
            ResetAck::AfterErase => done,
            ResetAck::AtOnce => t0,
        }
    }

    /// Counts the block erases a reset of a place holding `programmed_bytes` does (per block
    /// and in total) and returns each die's erase time, in die order (dies with nothing to
    /// erase left out). The FIFO and the priority scheduler book these the same way. A zone's
    /// measured reset latency table (if any) applies to whole zones only.
    pub(crate) fn count_erases(&mut self, place: Place, programmed_bytes: u64) -> Vec<(u32, u64)> {
        let g = self.layout.geometry().clone();
        let written_pages = programmed_bytes.div_ceil(g.page_size_bytes);
        let planes = u64::from(g.planes_per_die);
        let ppb = u64::from(g.pages_per_block);
        let (zone, whole) = match place {
            Place::Zone(zone) => (zone, true),
            Place::Chip { zone, .. } => (zone, false),
        };
        let base = self.layout.base_row(zone);
        let stripe = self.layout.place_stripe_pages(place);
        let table_ns = (whole && !self.timing.reset_latency_table.is_empty())
            .then(|| interpolate(&self.timing.reset_latency_table, programmed_bytes));
        let mut out = Vec::new();
        for (i, die) in self.layout.place_dies(place).into_iter().enumerate() {
            let mut rows_max = 0;
            for plane in 0..planes {
                let slot = i as u64 * planes + plane;
                let pages = written_pages / stripe + u64::from(slot < written_pages % stripe);
                let rows = pages.div_ceil(ppb) as u32;
                for r in 0..rows {
                    let b = self.layout.block_index(die, plane as u32, base + r);
                    if let Some(c) = self.erase_counts.get_mut(b) {
                        *c += 1;
                    }
                }
                self.block_erases += u64::from(rows);
                rows_max = rows_max.max(rows);
            }
            let busy = table_ns.unwrap_or(u64::from(rows_max) * self.timing.block_erase_ns);
            if busy > 0 {
                out.push((die, busy));
            }
        }
        out
    }

    /// Books a finish of `zone`; `unwritten_bytes` of capacity remain, `was_empty` if nothing
    /// had been written. Returns the completion time.
    pub fn finish(&mut self, now: u64, zone: u32, unwritten_bytes: u64, was_empty: bool) -> u64 {
        let (_, t0) = self.controller.book(now, self.timing.zone_mgmt_ns);
        match self.timing.finish {
            FinishModel::Pad {
                base_ns,
                ns_per_mib,
            } if !was_empty && unwritten_bytes > 0 => {
                let lat = base_ns
                    + (u128::from(unwritten_bytes) * u128::from(ns_per_mib) / u128::from(MIB))
                        as u64;
                let mut done = t0;
                for i in 0..self.layout.dies_per_zone() {
                    let die = self.layout.zone_die(zone, i);
                    let (_, e) = self.dies[die as usize].book(t0, lat);
                    done = done.max(e);
                }
                done
            }
            _ => t0,
        }
    }

    /// When every write acknowledged so far is programmed (a flush of the write buffer).
    pub fn flush_done_ns(&self, now: u64) -> u64 {
        self.buffer_slots
            .iter()
            .map(|Reverse(t)| *t)
            .fold(now, u64::max)
    }

    /// Books an open or close command; returns its completion time.
    pub fn manage(&mut self, now: u64) -> u64 {
        self.controller.book(now, self.timing.zone_mgmt_ns).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_linear_and_clamped() {
        let t = [(0, 100), (10, 200), (20, 400)];
        assert_eq!(interpolate(&t, 0), 100);
        assert_eq!(interpolate(&t, 5), 150);
        assert_eq!(interpolate(&t, 15), 300);
        assert_eq!(interpolate(&t, 99), 400);
        assert_eq!(interpolate(&[], 5), 0);
    }

    /// A FIFO engine on an unmodeled host link (`femu-zns`-like timing, bandwidth 0): a write
    /// issued just after a read must not wait for the read's completion. Before the fix the
    /// read booked a zero-length transfer at its completion, the link was then "busy" until
    /// then, and the write's data transfer queued behind it.
    #[test]
    fn an_unmodeled_link_queues_nothing_behind_a_read() {
        let p = crate::Profile::by_name("caza-paper").unwrap();
        let mut timing = p.timing.clone();
        timing.host_link_bytes_per_s = 0;
        let engine = || TimingEngine::new(p.layout().unwrap(), timing.clone());
        let cap = p.zones.zone_capacity_bytes;
        let mut alone = engine();
        let write_alone = alone.write(10, 5, 0, 4096, cap);
        let mut after_read = engine();
        let read_done = after_read.read(0, 3, 0, 2 << 20);
        assert!(read_done > write_alone, "the read must outlast the write");
        let write_after_read = after_read.write(10, 5, 0, 4096, cap);
        assert_eq!(write_after_read, write_alone);
        assert_eq!(link_transfer(&mut Resource::default(), 0, 77, 4096), 77);
    }

    #[test]
    fn transfer_rounds_up() {
        assert_eq!(transfer_ns(1, 1_000_000_000), 1);
        assert_eq!(transfer_ns(4096, 0), 0);
        assert_eq!(transfer_ns(1000, 500_000_000), 2000);
    }
}

#[cfg(test)]
mod parallel_read_tests {
    use crate::IoClass;
    use crate::Profile;
    use crate::flash::Scheduler;
    use crate::sim::{Completion, Poll};

    use super::{TimingEngine, transfer_ns};

    /// A 2 MiB read of a `caza-paper` zone (16 dies of 4 planes of 16 KiB pages, 8 channels):
    /// 32 multi-plane page reads, two per die, read on all dies at once; each channel carries
    /// 16 pages. The request takes 2 tR + a channel's 16 page transfers (pipelined behind the
    /// reads) + the host link, not 32 (or 512) serial array reads.
    fn two_mib_read(s: Scheduler) -> (u64, super::FlashTiming) {
        let p = Profile::by_name("caza-paper").unwrap();
        assert_eq!(p.layout().unwrap().dies_per_zone(), 16);
        let mut e = TimingEngine::new(p.layout().unwrap(), p.timing.clone()).with_scheduler(s);
        let done = match e.read_for(0, 3, 0, 2 << 20, IoClass::BackgroundRead) {
            Completion::At(t) => t,
            Completion::Queued(ticket) => {
                let mut now = 0;
                loop {
                    match e.poll(ticket, now) {
                        Poll::Done(t) => break t,
                        Poll::Until(t) => now = t,
                    }
                }
            }
        };
        (done, p.timing)
    }

    #[test]
    fn a_large_read_is_served_by_every_die_of_the_zone_at_once() {
        for s in [Scheduler::Fifo, Scheduler::Priority] {
            let (done, t) = two_mib_read(s);
            let link = transfer_ns(2 << 20, t.host_link_bytes_per_s);
            let parallel = t.page_read_ns + 16 * t.channel_xfer_ns_per_page + link;
            // The second page of each die is read while the first is on the channel.
            assert!(
                done >= parallel && done <= parallel + t.page_read_ns,
                "{s:?}: {done} ns, expected about {parallel} ns"
            );
            assert!(done < 32 * t.page_read_ns, "{s:?}: serialised: {done} ns");
        }
    }
}
