//! In-memory state of a mounted file layer: files, names, per-zone accounting (split zones
//! with their subzones included), tokens.

use std::collections::BTreeMap;

use zonedb_device::SubzoneId;

use crate::file::{Extent, ExtentIndex, FileKind, FileMeta};
use crate::placement::policy::{AllocView, Lifetime, ZoneView};

/// Accounting of one IO zone.
#[derive(Debug, Clone)]
pub(crate) struct ZoneAcct {
    pub(crate) index: u32,
    pub(crate) start: u64,
    pub(crate) capacity: u64,
    /// Our write pointer (device offset); `start + capacity` once full or finished.
    pub(crate) wp: u64,
    /// Live file bytes.
    pub(crate) used: u64,
    pub(crate) lifetime: Lifetime,
    pub(crate) busy: bool,
    /// The kind of file whose writer holds the zone (busy with a writer's open token), so a
    /// writer that finds no room can tell a zone an SST writer gives back soon from one the
    /// WAL keeps.
    pub(crate) holder: Option<FileKind>,
    /// Holds an active token (allocated empty, or partially written).
    pub(crate) active: bool,
    /// Reads in flight on the zone: it is not reset until they are done (a read that looked
    /// up its extents before cleaning moved them still reads the old place).
    pub(crate) readers: u32,
    /// The device reports the zone read-only or offline: it is never written, reset or
    /// cleaned again (its live data, if readable, stays where it is).
    pub(crate) failed: bool,
    /// The zone is split into subzones (SplitZNS): their accounting. `wp` then stays at the
    /// zone's start, `busy` means a command on the split zone is in flight, and `active` that
    /// the split zone holds its open and active tokens on the device.
    pub(crate) split: Option<SplitAcct>,
    /// The zone is open for ZNS+'s threaded logging: the blocks that held live data when it
    /// opened (never written over; readable past the write pointer). Writers skip them.
    pub(crate) threaded: Option<Threaded>,
}

/// A zone open for threaded logging.
#[derive(Debug, Clone)]
pub(crate) struct Threaded {
    /// Per block of the capacity: live when the zone opened.
    pub(crate) valid: Vec<bool>,
    /// Block size.
    pub(crate) block: u64,
}

impl Threaded {
    fn block_at(&self, start: u64, off: u64) -> usize {
        usize::try_from((off - start) / self.block).unwrap_or(usize::MAX)
    }

    /// Whether `[off, off + len)` of the zone starting at `start` lies in blocks that were
    /// live when it opened.
    pub(crate) fn covers(&self, start: u64, off: u64, len: u64) -> bool {
        let (a, b) = (
            self.block_at(start, off),
            self.block_at(start, (off + len).div_ceil(self.block) * self.block),
        );
        b <= self.valid.len() && self.valid[a..b].iter().all(|v| *v)
    }
}

impl ZoneAcct {
    pub(crate) fn remaining(&self) -> u64 {
        match (&self.split, &self.threaded) {
            (Some(s), _) => s.subs.iter().map(SubAcct::remaining).sum(),
            (None, Some(t)) => {
                let from = t.block_at(self.start, self.wp).min(t.valid.len());
                t.valid[from..].iter().filter(|v| !**v).count() as u64 * t.block
            }
            (None, None) => self.start + self.capacity - self.wp,
        }
    }

    /// A threaded zone: moves the write pointer past blocks that hold live data and returns
    /// how many bytes can be written from there in one piece (0 when none is left).
    pub(crate) fn threaded_run(&mut self) -> u64 {
        let Some(t) = &self.threaded else {
            return self.start + self.capacity - self.wp;
        };
        let mut b = t.block_at(self.start, self.wp);
        while b < t.valid.len() && t.valid[b] {
            b += 1;
        }
        let run = t.valid[b.min(t.valid.len())..]
            .iter()
            .take_while(|v| !**v)
            .count() as u64;
        self.wp = self.start + b as u64 * t.block;
        run * t.block
    }

    pub(crate) fn written(&self) -> u64 {
        match &self.split {
            Some(s) => s.subs.iter().map(SubAcct::written).sum(),
            None => self.wp - self.start,
        }
    }

    /// End of the zone's address range that may hold data: its capacity end, or for a split
    /// zone the end of its last subzone's address space (a zone size larger than its capacity
    /// puts the last subzones past the wide zone's capacity end).
    pub(crate) fn span_end(&self) -> u64 {
        match &self.split {
            Some(s) => self.start + s.sub_size * s.subs.len() as u64,
            None => self.start + self.capacity,
        }
    }

    /// A split zone is busy to every policy but the subzone allocator: wide placement,
    /// finishes and cleaning never touch it.
    pub(crate) fn view(&self) -> ZoneView {
        ZoneView {
            index: self.index,
            max_capacity_bytes: self.capacity,
            remaining_bytes: self.remaining(),
            used_bytes: self.used,
            lifetime: self.lifetime,
            // A threaded zone is for SST writers through hybrid recycling only: to placement
            // and cleaning it is busy.
            busy: self.busy || self.failed || self.split.is_some() || self.threaded.is_some(),
        }
    }

    /// The subzone holding device offset `off` (a split zone's).
    pub(crate) fn sub_of(&self, off: u64) -> Option<usize> {
        let s = self.split.as_ref()?;
        let i = usize::try_from(off.checked_sub(self.start)? / s.sub_size.max(1)).ok()?;
        (i < s.subs.len()).then_some(i)
    }

    /// The writable region holding device offset `off`: the wide zone, or the subzone of a
    /// split zone.
    pub(crate) fn region_of(&self, off: u64) -> Option<Region> {
        match &self.split {
            None => (off >= self.start && off < self.start + self.capacity).then_some(Region {
                start: self.start,
                capacity: self.capacity,
                wp: self.wp,
            }),
            Some(s) => self
                .sub_of(off)
                .and_then(|i| s.subs.get(i))
                .map(|u| Region {
                    start: u.start,
                    capacity: u.capacity,
                    wp: u.wp,
                }),
        }
    }
}

/// Where a writer writes: a wide zone, or a subzone of a split zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A wide zone.
    Zone(u32),
    /// A subzone.
    Subzone(SubzoneId),
}

/// A writable region: a wide zone or a subzone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) start: u64,
    pub(crate) capacity: u64,
    /// Our write pointer.
    pub(crate) wp: u64,
}

/// Accounting of a split zone's subzones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitAcct {
    /// Address space of one subzone (zone size / subzones).
    pub(crate) sub_size: u64,
    /// Subzones, in index order.
    pub(crate) subs: Vec<SubAcct>,
}

impl Region {
    /// Bytes still writable.
    pub(crate) fn remaining(&self) -> u64 {
        self.start + self.capacity - self.wp
    }
}

impl SplitAcct {
    /// A freshly split zone starting at `start`: every subzone empty.
    pub(crate) fn new(start: u64, g: &zonedb_device::splitzns::SplitZnsGeometry) -> Self {
        let subs = (0..u64::from(g.subzones))
            .map(|i| {
                let s = start + i * g.subzone_size_bytes;
                SubAcct {
                    start: s,
                    capacity: g.subzone_capacity_bytes,
                    wp: s,
                    used: 0,
                    writer: false,
                    merging: false,
                }
            })
            .collect();
        Self {
            sub_size: g.subzone_size_bytes,
            subs,
        }
    }

    /// A writer holds one of the subzones.
    pub(crate) fn has_writer(&self) -> bool {
        self.subs.iter().any(|s| s.writer)
    }

    /// Every subzone is empty and idle.
    pub(crate) fn all_empty(&self) -> bool {
        self.subs
            .iter()
            .all(|s| s.written() == 0 && !s.writer && !s.merging)
    }
}

/// Accounting of one subzone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SubAcct {
    pub(crate) start: u64,
    pub(crate) capacity: u64,
    /// Our write pointer; `start + capacity` once full or finished.
    pub(crate) wp: u64,
    /// Live file bytes.
    pub(crate) used: u64,
    /// Held by a writer (one SST at a time).
    pub(crate) writer: bool,
    /// A MERGE of it is in flight.
    pub(crate) merging: bool,
}

impl SubAcct {
    pub(crate) fn remaining(&self) -> u64 {
        self.start + self.capacity - self.wp
    }

    pub(crate) fn written(&self) -> u64 {
        self.wp - self.start
    }
}

/// A file and its lookup index.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    pub(crate) meta: FileMeta,
    pub(crate) index: ExtentIndex,
    /// Extents already persisted in the metadata log.
    pub(crate) persisted_extents: usize,
    /// Open for writing.
    pub(crate) writing: bool,
    /// Query reads served (hybrid migration's read rates).
    pub(crate) query_reads: u64,
}

impl FileEntry {
    pub(crate) fn new(meta: FileMeta) -> Self {
        let index = ExtentIndex::new(&meta.extents);
        let persisted_extents = meta.extents.len();
        Self {
            meta,
            index,
            persisted_extents,
            writing: false,
            query_reads: 0,
        }
    }

    pub(crate) fn push_extent(&mut self, e: Extent) {
        self.index.push(e.len);
        self.meta.extents.push(e);
    }

    pub(crate) fn set_extents(&mut self, extents: Vec<Extent>) {
        self.index = ExtentIndex::new(&extents);
        self.meta.extents = extents;
    }
}

/// Everything the layer keeps in memory.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) files: BTreeMap<u64, FileEntry>,
    pub(crate) names: BTreeMap<String, u64>,
    /// IO zones, in index order.
    pub(crate) zones: Vec<ZoneAcct>,
    /// Device index of the first IO zone.
    pub(crate) first_io_zone: u32,
    pub(crate) next_file_id: u64,
    pub(crate) open_tokens: u32,
    pub(crate) max_open_io: u32,
    pub(crate) max_active_io: u32,
    pub(crate) finish_threshold_pct: u32,
}

impl State {
    pub(crate) fn zone_mut(&mut self, zone: u32) -> Option<&mut ZoneAcct> {
        let i = zone.checked_sub(self.first_io_zone)? as usize;
        self.zones.get_mut(i)
    }

    pub(crate) fn zone(&self, zone: u32) -> Option<&ZoneAcct> {
        let i = zone.checked_sub(self.first_io_zone)? as usize;
        self.zones.get(i)
    }

    /// The zone holding device offset `off`.
    pub(crate) fn zone_of(&self, off: u64) -> Option<u32> {
        self.zones
            .iter()
            .find(|z| off >= z.start && off < z.span_end())
            .map(|z| z.index)
    }

    /// The region a writer's slot is.
    pub(crate) fn slot_region(&self, slot: Slot) -> Option<Region> {
        match slot {
            Slot::Zone(z) => self.zone(z).map(|z| Region {
                start: z.start,
                capacity: z.capacity,
                wp: z.wp,
            }),
            Slot::Subzone(id) => self.sub(id).map(|u| Region {
                start: u.start,
                capacity: u.capacity,
                wp: u.wp,
            }),
        }
    }

    /// Subzone `id`'s accounting.
    pub(crate) fn sub(&self, id: SubzoneId) -> Option<&SubAcct> {
        self.zone(id.zone)?
            .split
            .as_ref()?
            .subs
            .get(id.index as usize)
    }

    /// Subzone `id`'s accounting, to change.
    pub(crate) fn sub_mut(&mut self, id: SubzoneId) -> Option<&mut SubAcct> {
        self.zone_mut(id.zone)?
            .split
            .as_mut()?
            .subs
            .get_mut(id.index as usize)
    }

    /// Split zones now.
    pub(crate) fn split_zone_count(&self) -> usize {
        self.zones.iter().filter(|z| z.split.is_some()).count()
    }

    pub(crate) fn active_tokens(&self) -> u32 {
        u32::try_from(self.zones.iter().filter(|z| z.active).count()).unwrap_or(u32::MAX)
    }

    pub(crate) fn views(&self) -> Vec<ZoneView> {
        self.zones.iter().map(ZoneAcct::view).collect()
    }

    /// The zones cleaning judges and picks from: the wide ones. Split zones are left out
    /// whole: their subzones are never cleaned (a deleted SST's subzone is merged), and their
    /// free subzones take no writer of a wide zone, so counting them as free space would hold
    /// cleaning back while the wide zones fill with garbage.
    pub(crate) fn cleaning_views(&self) -> Vec<ZoneView> {
        self.zones
            .iter()
            .filter(|z| z.split.is_none())
            .map(ZoneAcct::view)
            .collect()
    }

    pub(crate) fn alloc_view<'a>(&self, views: &'a [ZoneView]) -> AllocView<'a> {
        AllocView {
            zones: views,
            open_io_zones: self.open_tokens,
            active_io_zones: self.active_tokens(),
            max_open_io_zones: self.max_open_io,
            max_active_io_zones: self.max_active_io,
            finish_threshold_pct: self.finish_threshold_pct,
            hybrid: None,
        }
    }

    /// Adds (or, with `add` false, removes) a file's extents to its zones' (and subzones')
    /// live bytes.
    pub(crate) fn account_extents(&mut self, extents: &[Extent], add: bool) {
        let count = |used: u64, len: u64| {
            if add {
                used + len
            } else {
                used.saturating_sub(len)
            }
        };
        for e in extents {
            if let Some(z) = self.zone_of(e.start).and_then(|z| self.zone_mut(z)) {
                z.used = count(z.used, e.len);
                if let Some(i) = z.sub_of(e.start)
                    && let Some(s) = z.split.as_mut().and_then(|s| s.subs.get_mut(i))
                {
                    s.used = count(s.used, e.len);
                }
            }
        }
    }
}
