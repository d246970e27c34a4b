//! In-memory state of a mounted file layer: files, names, per-zone accounting, tokens.

use std::collections::BTreeMap;

use crate::file::{Extent, ExtentIndex, FileMeta};
use crate::placement::{AllocView, Lifetime, ZoneView};

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
    /// Holds an active token (allocated empty, or partially written).
    pub(crate) active: bool,
    /// Reads in flight on the zone: it is not reset until they are done (a read that looked
    /// up its extents before cleaning moved them still reads the old place).
    pub(crate) readers: u32,
    /// The device reports the zone read-only or offline: it is never written, reset or
    /// cleaned again (its live data, if readable, stays where it is).
    pub(crate) failed: bool,
}

impl ZoneAcct {
    pub(crate) fn remaining(&self) -> u64 {
        self.start + self.capacity - self.wp
    }

    pub(crate) fn written(&self) -> u64 {
        self.wp - self.start
    }

    pub(crate) fn view(&self) -> ZoneView {
        ZoneView {
            index: self.index,
            max_capacity_bytes: self.capacity,
            remaining_bytes: self.remaining(),
            used_bytes: self.used,
            lifetime: self.lifetime,
            busy: self.busy || self.failed,
        }
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
            .find(|z| off >= z.start && off < z.start + z.capacity)
            .map(|z| z.index)
    }

    pub(crate) fn active_tokens(&self) -> u32 {
        u32::try_from(self.zones.iter().filter(|z| z.active).count()).unwrap_or(u32::MAX)
    }

    pub(crate) fn views(&self) -> Vec<ZoneView> {
        self.zones.iter().map(ZoneAcct::view).collect()
    }

    pub(crate) fn alloc_view<'a>(&self, views: &'a [ZoneView]) -> AllocView<'a> {
        AllocView {
            zones: views,
            open_io_zones: self.open_tokens,
            active_io_zones: self.active_tokens(),
            max_open_io_zones: self.max_open_io,
            max_active_io_zones: self.max_active_io,
            finish_threshold_pct: self.finish_threshold_pct,
        }
    }

    /// Adds (or, with `sign` false, removes) a file's extents to its zones' live bytes.
    pub(crate) fn account_extents(&mut self, extents: &[Extent], add: bool) {
        for e in extents {
            if let Some(z) = self.zone_of(e.start).and_then(|z| self.zone_mut(z)) {
                z.used = if add {
                    z.used + e.len
                } else {
                    z.used.saturating_sub(e.len)
                };
            }
        }
    }
}
