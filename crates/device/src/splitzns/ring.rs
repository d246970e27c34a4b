//! The SubZone Ring (SplitZNS §4.4.1, Fig. 7): subzone writes land in a per-chip FIFO buffer
//! in device DRAM (power-loss protected, as the paper assumes: DRAM behind supercapacitors), so
//! a write is acknowledged once its data is there. When the buffer is full, the write that
//! needs room flushes one program unit from every chip's FIFO at once (W1-W3) and completes
//! when those programs do (W4-W5): writing subzones on many chips then runs at wide-zone speed.
//!
//! Each subzone with data in the buffer has a ring array of its buffered units, head first;
//! a unit leaves the head when its program has completed, which moves the subzone's actual
//! write pointer on. A read at or beyond the actual write pointer is served from the buffer:
//! its unit is `ring[head + (read page − actual write pointer page)]`, found in O(1).
//!
//! Units are program units of one die (a multi-plane page). A unit is flushable once written
//! whole, or once its subzone is full (the last partial unit is padded). The slots of a flush
//! round are handed to new data as soon as the round is issued; the write that issued it
//! waits for it, so writers are throttled by the chips' programs.

use std::collections::{BTreeMap, VecDeque};

use super::tickets::SharedTickets;
use crate::flash::Place;
use crate::sim::{Completion, Ticket};

/// One buffered program unit of a subzone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit {
    /// The flush program, once issued.
    flush: Option<Completion>,
    /// Written whole (or padded at the subzone's end): flushable.
    complete: bool,
}

/// The ring array of one subzone.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SubRing {
    zone: u32,
    slot: u32,
    chip: u32,
    /// Unit index of the ring's head (the actual write pointer, in units).
    head: u64,
    units: VecDeque<Unit>,
}

/// A unit issued for flushing by the current admission.
pub(crate) type Issued = (u32, u64);

/// The SubZone Ring of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubzoneRing {
    unit_bytes: u64,
    page_bytes: u64,
    capacity_units: u64,
    /// Per chip: complete, not yet issued units `(subzone, unit)`, oldest first.
    fifo: Vec<VecDeque<(u32, u64)>>,
    /// Per subzone (global index) with buffered units.
    rings: BTreeMap<u32, SubRing>,
    /// Units in the buffer not yet issued for flushing.
    held: u64,
    /// Units in the buffer (held or being flushed).
    units: u64,
    peak_units: u64,
    rounds: u64,
    flushed: u64,
}

impl SubzoneRing {
    /// A ring of `ring_bytes` (whole units of `unit_bytes`, at least one per chip) for `chips`
    /// chips whose flash pages are `page_bytes`.
    pub fn new(ring_bytes: u64, unit_bytes: u64, page_bytes: u64, chips: u32) -> Self {
        Self {
            unit_bytes,
            page_bytes,
            capacity_units: (ring_bytes / unit_bytes.max(1)).max(u64::from(chips)),
            fifo: vec![VecDeque::new(); chips as usize],
            rings: BTreeMap::new(),
            held: 0,
            units: 0,
            peak_units: 0,
            rounds: 0,
            flushed: 0,
        }
    }

    /// Capacity, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_units * self.unit_bytes
    }

    /// Bytes in the buffer now (whole units).
    pub fn bytes(&self) -> u64 {
        self.units * self.unit_bytes
    }

    /// The most bytes the buffer held.
    pub fn peak_bytes(&self) -> u64 {
        self.peak_units * self.unit_bytes
    }

    /// Flush rounds issued and units flushed so far.
    pub fn flush_counts(&self) -> (u64, u64) {
        (self.rounds, self.flushed)
    }

    /// Drops the head units of a subzone whose programs completed by `now` (W4: the actual
    /// write pointer moves on).
    fn settle(&mut self, sub: u32, now: u64, tickets: &mut SharedTickets) -> Vec<Ticket> {
        let mut forgotten = Vec::new();
        let Some(r) = self.rings.get_mut(&sub) else {
            return forgotten;
        };
        while let Some(u) = r.units.front() {
            let done = u
                .flush
                .and_then(|c| tickets.done_at(c))
                .is_some_and(|t| t <= now);
            if !done {
                break;
            }
            if let Some(c) = u.flush {
                forgotten.extend(tickets.release(c));
            }
            r.units.pop_front();
            r.head += 1;
            self.units -= 1;
        }
        if r.units.is_empty() {
            self.rings.remove(&sub);
        }
        forgotten
    }

    /// The actual write pointer of subzone `sub` at `now` (bytes from its start; `None`: no
    /// data of it in the buffer, all on flash).
    pub(crate) fn flushed(
        &mut self,
        sub: u32,
        now: u64,
        tickets: &mut SharedTickets,
    ) -> Option<u64> {
        self.settle(sub, now, tickets);
        self.rings.get(&sub).map(|r| r.head * self.unit_bytes)
    }

    /// Whether the unit holding byte `rel` of subzone `sub` is in the buffer (the ring array
    /// lookup `ring[head + page − actual write pointer]`).
    pub(crate) fn holds(&self, sub: u32, rel: u64) -> bool {
        let u = rel / self.unit_bytes;
        self.rings.get(&sub).is_some_and(|r| {
            u.checked_sub(r.head)
                .is_some_and(|i| (i as usize) < r.units.len())
        })
    }

    /// One flush round: the oldest flushable unit of every chip that has one.
    fn round(&mut self, out: &mut Vec<Issued>) -> bool {
        let mut n = 0;
        for q in &mut self.fifo {
            if let Some(unit) = q.pop_front() {
                out.push(unit);
                n += 1;
            }
        }
        if n > 0 {
            self.rounds += 1;
            self.held = self.held.saturating_sub(n);
        }
        n > 0
    }

    /// Takes a write of `len` bytes at `rel` of subzone `sub` (on `chip`, slot `slot` of
    /// `zone`, capacity `cap`) into the buffer at `now`. Returns the units flush rounds issued
    /// to make room (the caller books their programs as part of this write and passes the
    /// completion to [`SubzoneRing::issued`]).
    #[allow(clippy::too_many_arguments, reason = "one write's coordinates")]
    pub(crate) fn admit(
        &mut self,
        now: u64,
        tickets: &mut SharedTickets,
        (sub, zone, slot, chip): (u32, u32, u32, u32),
        rel: u64,
        len: u64,
        cap: u64,
    ) -> (Vec<Issued>, Vec<Ticket>) {
        let forgotten = self.settle(sub, now, tickets);
        let ub = self.unit_bytes;
        let end = rel + len;
        let mut issued = Vec::new();
        for u in rel / ub..end.div_ceil(ub) {
            let have = self
                .rings
                .get(&sub)
                .is_some_and(|r| u < r.head + r.units.len() as u64);
            if !have {
                // W1-W3: no room, so one unit of every chip goes to flash.
                while self.held >= self.capacity_units && self.round(&mut issued) {}
                let r = self.rings.entry(sub).or_insert(SubRing {
                    zone,
                    slot,
                    chip,
                    head: u,
                    units: VecDeque::new(),
                });
                r.units.push_back(Unit {
                    flush: None,
                    complete: false,
                });
                self.held += 1;
                self.units += 1;
                self.peak_units = self.peak_units.max(self.units);
            }
            if (u + 1) * ub <= end || end == cap {
                self.complete(sub, u);
            }
        }
        (issued, forgotten)
    }

    /// Marks unit `u` of `sub` flushable and queues it on its chip.
    fn complete(&mut self, sub: u32, u: u64) {
        let Some(r) = self.rings.get_mut(&sub) else {
            return;
        };
        let Some(unit) = u
            .checked_sub(r.head)
            .and_then(|i| r.units.get_mut(i as usize))
        else {
            return;
        };
        if !unit.complete && unit.flush.is_none() {
            unit.complete = true;
            if let Some(q) = self.fifo.get_mut(r.chip as usize) {
                q.push_back((sub, u));
            }
        }
    }

    /// The programs of flush units `(subzone, unit)` as `(place, unit, pages)` for the engine.
    pub(crate) fn programs(&self, issued: &[Issued], cap: u64) -> Vec<(Place, u64, u64)> {
        let planes = self.unit_bytes / self.page_bytes.max(1);
        issued
            .iter()
            .filter_map(|&(sub, u)| {
                let r = self.rings.get(&sub)?;
                let bytes = (cap - (u * self.unit_bytes).min(cap)).min(self.unit_bytes);
                let pages = if bytes == self.unit_bytes {
                    planes
                } else {
                    bytes.div_ceil(self.page_bytes)
                };
                Some((
                    Place::Chip {
                        zone: r.zone,
                        slot: r.slot,
                    },
                    u,
                    pages,
                ))
            })
            .collect()
    }

    /// Records the completion of the request that programs `issued`.
    pub(crate) fn issued(&mut self, issued: &[Issued], c: Completion, tickets: &mut SharedTickets) {
        for &(sub, u) in issued {
            let Some(r) = self.rings.get_mut(&sub) else {
                continue;
            };
            if let Some(unit) = u
                .checked_sub(r.head)
                .and_then(|i| r.units.get_mut(i as usize))
            {
                unit.flush = Some(c);
                tickets.hold(c);
                self.flushed += 1;
            }
        }
    }

    /// The host finished subzone `sub` at `written` bytes of capacity `cap`: its last partial
    /// unit becomes flushable (padded).
    pub(crate) fn finish(&mut self, sub: u32, written: u64) {
        if !written.is_multiple_of(self.unit_bytes) {
            self.complete(sub, written / self.unit_bytes);
        }
    }

    /// MERGE: forgets every buffered unit of `sub` (programs already issued still run).
    pub(crate) fn drop_sub(&mut self, sub: u32, tickets: &mut SharedTickets) -> Vec<Ticket> {
        self.truncate(sub, 0, tickets)
    }

    /// A power loss lost the writes of `sub` from byte `written` on: forgets its units past
    /// that (the unit holding byte `written − 1` stays, flushable only if still whole).
    pub(crate) fn truncate(
        &mut self,
        sub: u32,
        written: u64,
        tickets: &mut SharedTickets,
    ) -> Vec<Ticket> {
        let mut forgotten = Vec::new();
        let ub = self.unit_bytes;
        let Some(r) = self.rings.get_mut(&sub) else {
            return forgotten;
        };
        let keep_units = written.div_ceil(ub).saturating_sub(r.head) as usize;
        let partial = !written.is_multiple_of(ub);
        let chip = r.chip as usize;
        let mut unqueue = Vec::new();
        while r.units.len() > keep_units {
            let i = r.units.len() - 1;
            if let Some(u) = r.units.pop_back() {
                if let Some(c) = u.flush {
                    forgotten.extend(tickets.release(c));
                } else {
                    self.held -= 1;
                    if u.complete {
                        unqueue.push(r.head + i as u64);
                    }
                }
                self.units -= 1;
            }
        }
        if partial
            && let Some(last) = r.units.back_mut()
            && last.flush.is_none()
            && last.complete
        {
            last.complete = false;
            unqueue.push(r.head + r.units.len() as u64 - 1);
        }
        if r.units.is_empty() {
            self.rings.remove(&sub);
        }
        if let Some(q) = self.fifo.get_mut(chip) {
            q.retain(|&(s, u)| s != sub || !unqueue.contains(&u));
        }
        forgotten
    }

    /// A power loss dropped the queued requests `dropped`: their units are buffered again,
    /// first in their chips' FIFOs (the buffer is power-loss protected).
    pub(crate) fn requeue(&mut self, dropped: &[Ticket]) {
        let mut back: Vec<(u32, u32, u64)> = Vec::new();
        for (&sub, r) in &mut self.rings {
            for (i, u) in r.units.iter_mut().enumerate() {
                if let Some(Completion::Queued(t)) = u.flush
                    && dropped.contains(&t)
                {
                    u.flush = None;
                    back.push((r.chip, sub, r.head + i as u64));
                }
            }
        }
        back.sort_unstable();
        for &(chip, sub, u) in back.iter().rev() {
            if let Some(q) = self.fifo.get_mut(chip as usize) {
                q.push_front((sub, u));
            }
            self.held += 1;
        }
    }
}
