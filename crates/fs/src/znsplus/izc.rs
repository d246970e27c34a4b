//! Zone cleaning through ZNS+'s in-device zone compaction (IZC): the live blocks of a victim
//! are copied by the device ([`zonedb_device::InDeviceCopy::copy`]), at most the device's
//! command limit at a time, into the cleaner's migration zone; no byte crosses the host link.
//!
//! The destination order (`plan`) is the live data's own (CUB, copyback-unaware: what the
//! ZNS+ artifact compiles, its bank-aware option being misspelled) or copyback-aware (CAB, the
//! paper's): each destination flash page takes a fully live source page on its own die and
//! plane (preferring the page after the last one taken, so runs stay runs), else the slot
//! with the most full pages left; partly live pages go last, one block at a time, and fill
//! the destination up to a page boundary first.

use std::collections::{BTreeMap, BTreeSet};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use crate::FsError;
use crate::alloc::Token;
use crate::file::Extent;
use crate::fs::{ZoneFs, align_up};

/// Blocks one IZC command copies (ZNS+: 512 pairs).
pub const IZC_MAX_BLOCKS: u64 = 512;

/// The copyback slot of a device page (`None`: the device has none).
pub trait SlotOf: Send {
    /// The slot of the page at device `offset`.
    fn slot(&self, offset: u64) -> Option<u32>;
}

impl<F: Fn(u64) -> Option<u32> + Send> SlotOf for F {
    fn slot(&self, offset: u64) -> Option<u32> {
        self(offset)
    }
}

/// Live source blocks waiting to be copied, in the order CUB takes them and sorted for CAB.
#[derive(Debug, Default)]
pub struct Pending {
    /// CUB: blocks in the live data's order.
    order: std::collections::VecDeque<u64>,
    /// CAB: fully live source pages by slot.
    full: BTreeMap<u32, BTreeSet<u64>>,
    /// CAB: blocks of partly live pages (and of full pages split for alignment).
    singles: BTreeSet<u64>,
    left: usize,
    /// The source page taken last (CAB prefers the next one).
    last_page: Option<u64>,
}

impl Pending {
    /// `blocks` (distinct, block-aligned device offsets, in the live data's order); with
    /// `page` and `slot`, grouped for copyback-aware allocation.
    pub fn new(blocks: Vec<u64>, block: u64, cab: Option<(u64, &(dyn SlotOf + Sync))>) -> Self {
        let left = blocks.len();
        let Some((page, slot)) = cab else {
            return Self {
                order: blocks.into(),
                left,
                ..Self::default()
            };
        };
        let per = (page / block).max(1);
        let set: BTreeSet<u64> = blocks.iter().copied().collect();
        let mut full: BTreeMap<u32, BTreeSet<u64>> = BTreeMap::new();
        let mut singles = BTreeSet::new();
        let mut seen = BTreeSet::new();
        for &b in &blocks {
            let p = b / page * page;
            if !seen.insert(p) {
                continue;
            }
            let whole = (0..per).all(|i| set.contains(&(p + i * block)));
            match slot.slot(p) {
                Some(s) if whole => {
                    full.entry(s).or_default().insert(p);
                }
                _ => singles.extend((0..per).map(|i| p + i * block).filter(|x| set.contains(x))),
            }
        }
        Self {
            full,
            singles,
            left,
            ..Self::default()
        }
    }

    /// The block CUB takes next (`None` under CAB or when empty).
    pub fn peek(&self) -> Option<u64> {
        self.order.front().copied()
    }

    /// Blocks not yet taken.
    pub fn len(&self) -> usize {
        self.left
    }

    /// Whether every block was taken.
    pub fn is_empty(&self) -> bool {
        self.left == 0
    }

    /// The next `n` source blocks for the destination blocks from device offset `dest`.
    pub fn take(
        &mut self,
        n: usize,
        dest: u64,
        block: u64,
        cab: Option<(u64, &(dyn SlotOf + Sync))>,
    ) -> Vec<u64> {
        let n = n.min(self.left);
        let mut out = Vec::with_capacity(n);
        let Some((page, slot)) = cab else {
            out.extend(self.order.drain(..n));
            self.left -= out.len();
            return out;
        };
        let per = (page / block).max(1) as usize;
        while out.len() < n {
            let d = dest + out.len() as u64 * block;
            let room = n - out.len();
            let aligned = d.is_multiple_of(page) && room >= per;
            let pick = if aligned {
                self.pick_full(slot.slot(d))
            } else {
                None
            };
            if let Some(p) = pick {
                out.extend((0..per as u64).map(|i| p + i * block));
                self.last_page = Some(p);
                continue;
            }
            if self.singles.is_empty() {
                // Split a full page (of the fullest slot) into singles.
                let Some(p) = self.pick_full(None) else {
                    break;
                };
                self.singles.extend((0..per as u64).map(|i| p + i * block));
            }
            if let Some(b) = self.singles.pop_first() {
                out.push(b);
            }
        }
        self.left -= out.len();
        out
    }

    /// A full page of `slot` (the one after the last taken when there is one), else of the
    /// slot with the most full pages.
    fn pick_full(&mut self, slot: Option<u32>) -> Option<u64> {
        if let Some(s) = slot
            && let Some(set) = self.full.get_mut(&s)
            && !set.is_empty()
        {
            let next = self
                .last_page
                .and_then(|l| set.range(l + 1..).next().copied());
            let p = next.or_else(|| set.first().copied())?;
            set.remove(&p);
            return Some(p);
        }
        let (&s, _) = self
            .full
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .max_by_key(|(s, v)| (v.len(), std::cmp::Reverse(**s)))?;
        let set = self.full.get_mut(&s)?;
        set.pop_first()
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Cleans `victim` through IZC into the migration zone `target` (taking new ones as they
    /// fill); `copyback_aware`: CAB, else CUB.
    pub(crate) async fn migrate_zone_izc(
        &self,
        victim: crate::cleaning::mechanism::Victim<'_, E, D>,
        target: &mut Option<u32>,
        copyback_aware: bool,
    ) -> Result<(), FsError> {
        let crate::cleaning::mechanism::Victim {
            files,
            reading,
            range: (lo, hi),
        } = victim;
        let block = self.block;
        // The live blocks, in file and extent order, each once, with their file's lifetime
        // (a new migration zone is chosen for the lifetime of the block copied next, as the
        // host copy chooses it for the file it copies).
        let mut lifetimes: BTreeMap<u64, crate::placement::policy::Lifetime> = BTreeMap::new();
        let mut blocks = Vec::new();
        for (_, extents, lifetime) in &files {
            for e in extents.iter().filter(|e| e.start >= lo && e.start < hi) {
                let mut b = e.start / block * block;
                while b < align_up(e.start + e.len, block) {
                    if lifetimes.insert(b, *lifetime).is_none() {
                        blocks.push(b);
                    }
                    b += block;
                }
            }
        }
        let dev = self.dev.clone();
        let slot_fn = move |off: u64| {
            dev.capabilities()
                .in_device_copy
                .and_then(|c| c.copyback_slot(off))
                .map(|(_, s)| s)
        };
        let page = self
            .dev
            .capabilities()
            .in_device_copy
            .and_then(|c| c.copyback_slot(lo))
            .map(|(p, _)| p);
        let cab: Option<(u64, &(dyn SlotOf + Sync))> = match page {
            Some(p) if copyback_aware => Some((p, &slot_fn)),
            _ => None,
        };
        let mut pending = Pending::new(blocks, block, cab);
        let mut moved: BTreeMap<u64, u64> = BTreeMap::new();
        let mut filled: Vec<u32> = Vec::new();
        let copied = self
            .izc_copy_all(
                &mut pending,
                (target, &mut filled),
                &lifetimes,
                cab,
                &mut moved,
            )
            .await;
        if let Err(e) = copied {
            for z in filled {
                self.release_zone(z, Token::Migration).await?;
            }
            return Err(e);
        }
        for (id, extents, _) in files {
            let new_extents = self.moved_extents(&extents, (lo, hi), &moved);
            self.commit_copies(id, &extents, new_extents).await?;
        }
        for z in filled {
            self.release_zone(z, Token::Migration).await?;
        }
        drop(reading);
        Ok(())
    }

    /// Issues IZC commands until `pending` is empty; records each source block's new place.
    async fn izc_copy_all(
        &self,
        pending: &mut Pending,
        (target, filled): (&mut Option<u32>, &mut Vec<u32>),
        lifetimes: &BTreeMap<u64, crate::placement::policy::Lifetime>,
        cab: Option<(u64, &(dyn SlotOf + Sync))>,
        moved: &mut BTreeMap<u64, u64>,
    ) -> Result<(), FsError> {
        let block = self.block;
        let first = lifetimes
            .values()
            .next()
            .copied()
            .unwrap_or(crate::placement::policy::Lifetime::NotSet);
        while !pending.is_empty() {
            let zone = if let Some(z) = *target {
                z
            } else {
                let lifetime = pending
                    .peek()
                    .and_then(|b| lifetimes.get(&b).copied())
                    .unwrap_or(first);
                let z = self.acquire_migration_zone(lifetime, block)?;
                *target = Some(z);
                z
            };
            let (wp, remaining) = self
                .lock()
                .zone(zone)
                .map_or((0, 0), |z| (z.wp, z.remaining()));
            let room = (remaining / block).min(IZC_MAX_BLOCKS) as usize;
            if room == 0 {
                self.hold_filled(zone, filled);
                *target = None;
                continue;
            }
            let srcs = pending.take(room, wp, block, cab);
            if srcs.is_empty() {
                break;
            }
            // Consecutive source blocks go as one range.
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            for &b in &srcs {
                match ranges.last_mut() {
                    Some((s, l)) if *s + *l == b => *l += block,
                    _ => ranges.push((b, block)),
                }
            }
            let copier = self.dev.capabilities().in_device_copy.ok_or(
                zonedb_device::DeviceError::Unsupported {
                    command: "simple copy",
                },
            )?;
            let at = copier.copy(&ranges, zone).await?;
            if at != wp {
                return Err(FsError::Corrupt(format!(
                    "zone {zone}: an internal copy landed at {at}, expected {wp}"
                )));
            }
            for (i, &b) in srcs.iter().enumerate() {
                moved.insert(b, wp + i as u64 * block);
            }
            let n = srcs.len() as u64 * block;
            let full = self.advance_copy_target(zone, n);
            {
                let mut c = self.counters();
                c.gc_bytes += n;
                c.device_bytes += n;
                c.znsplus.izc_commands += 1;
                c.znsplus.izc_bytes += n;
            }
            if full {
                self.hold_filled(zone, filled);
                *target = None;
            }
        }
        Ok(())
    }

    /// `extents` with their pieces in `[lo, hi)` moved as `moved` says (source block ->
    /// destination block), pieces merged where they stay contiguous inside one zone.
    fn moved_extents(
        &self,
        extents: &[Extent],
        (lo, hi): (u64, u64),
        moved: &BTreeMap<u64, u64>,
    ) -> Vec<Extent> {
        let block = self.block;
        // One lock for the whole remap (not one per block).
        let s = self.lock();
        let zone_start = |off: u64| {
            s.zone_of(off)
                .and_then(|z| s.zone(z))
                .map_or(0, |z| z.start)
        };
        let mut out: Vec<Extent> = Vec::with_capacity(extents.len());
        for e in extents {
            if !(e.start >= lo && e.start < hi) {
                out.push(*e);
                continue;
            }
            let end = e.start + e.len;
            let mut b = e.start / block * block;
            while b < end {
                let (from, to) = (e.start.max(b), end.min(b + block));
                let Some(&dst) = moved.get(&b) else {
                    b += block;
                    continue;
                };
                let piece = Extent {
                    start: dst + (from - b),
                    len: to - from,
                };
                match out.last_mut() {
                    Some(p)
                        if p.start + p.len == piece.start && p.start >= zone_start(piece.start) =>
                    {
                        p.len += piece.len;
                    }
                    _ => out.push(piece),
                }
                b += block;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: u64 = 4096;
    const PAGE: u64 = 4 * B;

    /// 4 slots of one page each, repeating.
    #[allow(clippy::unnecessary_wraps, reason = "the shape SlotOf takes")]
    fn slot(off: u64) -> Option<u32> {
        Some(((off / PAGE) % 4) as u32)
    }

    #[test]
    fn cub_keeps_the_live_order() {
        let blocks = vec![5 * B, 6 * B, B, 2 * B];
        let mut p = Pending::new(blocks.clone(), B, None);
        assert_eq!(p.take(3, 0, B, None), blocks[..3].to_vec());
        assert_eq!(p.take(3, 0, B, None), blocks[3..].to_vec());
        assert!(p.is_empty());
    }

    #[test]
    fn cab_puts_full_pages_on_their_slot_and_partial_pages_last() {
        // Full pages 0 (slot 0), 1 (slot 1), 5 (slot 1); page 2 partly live (2 blocks).
        let mut blocks: Vec<u64> = (0..8).map(|i| i * B).collect();
        blocks.extend((20..24).map(|i| i * B));
        blocks.extend([8 * B, 9 * B]);
        let s: &(dyn SlotOf + Sync) = &slot;
        let mut p = Pending::new(blocks, B, Some((PAGE, s)));
        // Destination at page 1 (slot 1): slot 1's first page, 1; slot 2 has no full page:
        // one of the fullest slots (a tie, the lower: slot 0's page 0); slot 3: slot 1's 5.
        let got = p.take(12, PAGE, B, Some((PAGE, s)));
        let pages: Vec<u64> = got.chunks(4).map(|c| c[0] / PAGE).collect();
        assert_eq!(pages, vec![1, 0, 5]);
        // Partial pages last, block by block.
        assert_eq!(p.take(8, 4 * PAGE, B, Some((PAGE, s))), vec![8 * B, 9 * B]);
        assert!(p.is_empty());
    }

    #[test]
    fn cab_fills_an_unaligned_destination_with_singles_first() {
        let blocks: Vec<u64> = (0..4).map(|i| i * B).chain([40 * B]).collect();
        let s: &(dyn SlotOf + Sync) = &slot;
        let mut p = Pending::new(blocks, B, Some((PAGE, s)));
        // Destination one block into a page: the single goes first, then the full page.
        let got = p.take(5, 3 * B, B, Some((PAGE, s)));
        assert_eq!(got, vec![40 * B, 0, B, 2 * B, 3 * B]);
    }
}
