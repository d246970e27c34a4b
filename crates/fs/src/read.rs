//! The read path of the mounted layer: reads of file bytes by extent piece (through the page
//! cache when it is on, from HHZS's SSD cache for query reads it holds), the zones being
//! read kept from resets ([`ZoneReaders`]), and the query reads counted per SST.

use std::collections::BTreeMap;

use zonedb_device::{ElidedBytes, IoClass, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::FileKind;
use crate::fs::{ZoneFs, align_up};
use crate::page_cache::PAGE_BYTES;
use crate::state::{FileEntry, State};

/// A range of device bytes: (offset, length).
type DeviceRange = (u64, u64);

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Reads up to `len` bytes of `name` from `offset` (only synced data is readable; a read
    /// past the end returns fewer bytes), on behalf of a query ([`IoClass::QueryRead`]).
    ///
    /// # Errors
    /// [`FsError::NotFound`], device errors.
    pub async fn read(&self, name: &str, offset: u64, len: u64) -> Result<Vec<u8>, FsError> {
        self.read_class(name, offset, len, IoClass::QueryRead).await
    }

    /// As [`ZoneFs::read`], issuing the device reads as `class` (compaction inputs go out as
    /// [`IoClass::BackgroundRead`], so a device scheduler can serve queries first).
    ///
    /// # Errors
    /// As [`ZoneFs::read`].
    pub async fn read_class(
        &self,
        name: &str,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<Vec<u8>, FsError> {
        let (id, size) = self.id_and_size(name)?;
        if class == IoClass::QueryRead {
            self.count_query_read(id);
            if let Some(got) = self.read_from_ssd_cache(name, offset, len, class).await {
                return got.map(|g| g.into_dense().unwrap_or_else(|e| e.materialize()));
            }
        }
        if self.page_cache.is_some() {
            let got = self.read_cached(id, size, offset, len, class).await?;
            return Ok(got.into_dense().unwrap_or_else(|e| e.materialize()));
        }
        self.read_device(id, offset, len, class).await
    }

    /// As [`ZoneFs::read_class`] (the same device reads), returning ranges that were appended
    /// as holes ([`crate::WritableFile::append_elided`]) as holes where the device kept them
    /// so ([`ZonedDevice::read_elided`]), through the page cache too (which keeps them as
    /// holes).
    ///
    /// # Errors
    /// As [`ZoneFs::read`].
    pub async fn read_elided(
        &self,
        name: &str,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<ElidedBytes, FsError> {
        let (id, size) = self.id_and_size(name)?;
        if class == IoClass::QueryRead {
            self.count_query_read(id);
            if let Some(got) = self.read_from_ssd_cache(name, offset, len, class).await {
                return got;
            }
        }
        if self.page_cache.is_some() {
            return self.read_cached(id, size, offset, len, class).await;
        }
        self.read_device_elided(id, offset, len, class).await
    }

    /// A read of `len` bytes of file `name` at `offset` on behalf of `class`, as
    /// [`ZoneFs::read_elided`] does it (through the page cache when there is one; the same
    /// device reads, timing and counters), for a caller that does not want the bytes.
    ///
    /// # Errors
    /// As [`ZoneFs::read`].
    pub async fn read_discard(
        &self,
        name: &str,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<(), FsError> {
        let (id, size) = self.id_and_size(name)?;
        if class == IoClass::QueryRead {
            self.count_query_read(id);
            if let Some(got) = self.read_from_ssd_cache(name, offset, len, class).await {
                return got.map(drop);
            }
        }
        if self.page_cache.is_some() {
            return self
                .read_cached(id, size, offset, len, class)
                .await
                .map(drop);
        }
        let (pieces, _readers) = self.extent_pieces(id, offset, len)?;
        for (dev_off, n) in pieces {
            let (a, b) = self.block_span(dev_off, n);
            let t0 = self.env.now();
            self.dev.read_discard(a, b - a, class).await?;
            self.count_background_read(class, a, b - a, t0);
        }
        Ok(())
    }

    /// Up to `len` bytes of file `id` at `offset` from the device, holes as holes (one read
    /// per extent piece, as [`ZoneFs::read_device`]).
    async fn read_device_elided(
        &self,
        id: u64,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<ElidedBytes, FsError> {
        let (pieces, _readers) = self.extent_pieces(id, offset, len)?;
        let mut out = ElidedBytes::new();
        for (dev_off, n) in pieces {
            let (a, b) = self.block_span(dev_off, n);
            let t0 = self.env.now();
            let data = self.dev.read_elided(a, b - a, class).await?;
            self.count_background_read(class, a, b - a, t0);
            if data.len() != b - a {
                return Err(FsError::Corrupt("short device read".into()));
            }
            out.push_range(&data, dev_off - a, n);
        }
        Ok(out)
    }

    /// A whole file's synced bytes as the device holds them now (holes as holes), taken
    /// without device commands ([`ZonedDevice::peek_elided`]): no time passes and no counter
    /// moves. `None` when the device cannot peek or the file is not there.
    pub fn peek_file(&self, name: &str) -> Option<ElidedBytes> {
        let (id, size) = self.id_and_size(name).ok()?;
        let (pieces, _readers) = self.extent_pieces(id, 0, size).ok()?;
        let mut out = ElidedBytes::new();
        for (dev_off, n) in pieces {
            let (a, b) = self.block_span(dev_off, n);
            let data = self.dev.peek_elided(a, b - a)?;
            if data.len() != b - a {
                return None;
            }
            out.push_range(&data, dev_off - a, n);
        }
        (out.len() == size).then_some(out)
    }

    /// A file's id and synced size.
    fn id_and_size(&self, name: &str) -> Result<(u64, u64), FsError> {
        let st = self.lock();
        let id = *st
            .names
            .get(name)
            .ok_or_else(|| FsError::NotFound(name.to_owned()))?;
        Ok((id, st.files.get(&id).map_or(0, |f| f.meta.size)))
    }

    /// Counts a device read of `bytes` at `at` begun at `t0` when it was for a background
    /// file read (compaction inputs), by whether its zone is split (SplitZNS subzones).
    fn count_background_read(&self, class: IoClass, at: u64, bytes: u64, t0: u64) {
        if class != IoClass::BackgroundRead {
            return;
        }
        let ns = self.env.now().saturating_sub(t0);
        let split = {
            let s = self.lock();
            s.zone_of(at)
                .and_then(|z| s.zone(z))
                .is_some_and(|z| z.split.is_some())
        };
        self.counters().background_reads.add(split, bytes, ns);
    }

    /// The block-aligned device range `[a, b)` holding `n` bytes at `dev_off`.
    fn block_span(&self, dev_off: u64, n: u64) -> (u64, u64) {
        (
            dev_off / self.block * self.block,
            align_up(dev_off + n, self.block),
        )
    }

    /// Reads up to `len` bytes of file `id` (of `size` synced bytes) at `offset` through the
    /// page cache: cached pages cost nothing, each run of missing pages is read from the
    /// device as one readahead window ([`PageCache::miss_window`]).
    async fn read_cached(
        &self,
        id: u64,
        size: u64,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<ElidedBytes, FsError> {
        let end = offset.saturating_add(len).min(size);
        let mut out = ElidedBytes::new();
        let file_pages = size.div_ceil(PAGE_BYTES);
        let mut pos = offset;
        while pos < end {
            let page = pos / PAGE_BYTES;
            let page_len = PAGE_BYTES.min(size - page * PAGE_BYTES);
            let within = pos - page * PAGE_BYTES;
            let take = (page * PAGE_BYTES + page_len).min(end) - pos;
            let hit = self.pages().is_some_and(|mut c| {
                c.get(id, page, page_len)
                    .filter(|d| within + take <= d.len())
                    .map(|d| out.push_range(d, within, take))
                    .is_some()
            });
            if hit {
                pos += take;
                continue;
            }
            let req = end.div_ceil(PAGE_BYTES) - page;
            let (a, b) = self.pages().map_or((page, page + req), |mut c| {
                c.miss_window(id, page, req, file_pages)
            });
            let from = a * PAGE_BYTES;
            let to = (b * PAGE_BYTES).min(size);
            let data = self.read_device_elided(id, from, to - from, class).await?;
            if data.len() != to - from {
                return Err(FsError::Corrupt("short device read".into()));
            }
            let live = self
                .lock()
                .files
                .get(&id)
                .is_some_and(|f| f.meta.size >= to);
            let upto = end.min(to);
            out.push_range(&data, pos - from, upto - pos);
            // Pages of a file deleted meanwhile are not cached (they could never be read).
            if live && let Some(mut c) = self.pages() {
                for p in a..b {
                    let at = (p - a) * PAGE_BYTES;
                    c.insert(id, p, data.slice(at, PAGE_BYTES.min(data.len() - at)));
                }
            }
            pos = upto;
        }
        Ok(out)
    }

    /// Reads up to `len` bytes of file `id` at `offset` from the device (one read per extent
    /// piece).
    async fn read_device(
        &self,
        id: u64,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<Vec<u8>, FsError> {
        let (pieces, _readers) = self.extent_pieces(id, offset, len)?;
        let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1 << 30));
        for (dev_off, n) in pieces {
            let (a, b) = self.block_span(dev_off, n);
            let t0 = self.env.now();
            let data = self.dev.read(a, b - a, class).await?;
            self.count_background_read(class, a, b - a, t0);
            let from = usize::try_from(dev_off - a).unwrap_or(0);
            let to = from + usize::try_from(n).unwrap_or(0);
            out.extend_from_slice(
                data.get(from..to)
                    .ok_or_else(|| FsError::Corrupt("short device read".into()))?,
            );
        }
        Ok(out)
    }

    /// The device ranges (offset, bytes) holding up to `len` bytes of file `id` at `offset`,
    /// one per extent piece, with their zones marked as being read.
    fn extent_pieces(
        &self,
        id: u64,
        offset: u64,
        len: u64,
    ) -> Result<(Vec<DeviceRange>, ZoneReaders<'_, E, D>), FsError> {
        {
            let mut st = self.lock();
            let file = st
                .files
                .get(&id)
                .ok_or_else(|| FsError::NotFound(format!("file id {id}")))?;
            let end = offset.saturating_add(len).min(file.meta.size);
            let mut pieces = Vec::new();
            let mut pos = offset;
            while pos < end {
                let Some((i, within)) = file.index.find(pos) else {
                    break;
                };
                let extent = file.meta.extents[i];
                let take = (extent.len - within).min(end - pos);
                pieces.push((extent.start + within, take));
                pos += take;
            }
            // Marked under the same lock the extents were read under.
            let readers = ZoneReaders::new(self, &mut st, pieces.iter().map(|p| p.0));
            Ok((pieces, readers))
        }
    }

    /// Reads a whole file.
    ///
    /// # Errors
    /// As [`ZoneFs::read`].
    pub async fn read_all(&self, name: &str) -> Result<Vec<u8>, FsError> {
        let size = self
            .stat(name)
            .ok_or_else(|| FsError::NotFound(name.to_owned()))?
            .size;
        self.read(name, 0, size).await
    }

    /// Counts one query read of file `id`.
    pub(crate) fn count_query_read(&self, id: u64) {
        if let Some(f) = self.lock().files.get_mut(&id) {
            f.query_reads += 1;
        }
    }

    /// Keeps the query reads of `f`, file `id`, as the state lets go of it (an SST's count
    /// outlives it for [`ZoneFs::sst_read_counts`]). Called under the state's lock (the
    /// counters' lock is taken under it, as [`ZoneFs::stats`] does), so that no snapshot
    /// sees the file in neither place.
    pub(crate) fn keep_query_reads(&self, id: u64, f: &FileEntry) {
        if f.meta.kind == FileKind::Sst && f.query_reads > 0 {
            self.counters()
                .deleted_sst_query_reads
                .insert(id, f.query_reads);
        }
    }

    /// Query reads (reads on behalf of a query that reach the zone layer: block-cache misses,
    /// SSD-cache hits included) of every SST read so far, by file id; SSTs deleted since are
    /// kept. Two snapshots' difference is how a period's reads spread over SSTs.
    pub fn sst_read_counts(&self) -> BTreeMap<u64, u64> {
        let s = self.lock();
        let mut out = self.counters().deleted_sst_query_reads.clone();
        out.extend(
            s.files
                .iter()
                .filter(|(_, f)| f.meta.kind == FileKind::Sst && f.query_reads > 0)
                .map(|(&id, f)| (id, f.query_reads)),
        );
        out
    }
}

/// Marks zones as being read for as long as it lives (dropped futures included).
pub(crate) struct ZoneReaders<'a, E: Env, D: ZonedDevice> {
    fs: &'a ZoneFs<E, D>,
    zones: Vec<u32>,
}

impl<'a, E: Env, D: ZonedDevice> ZoneReaders<'a, E, D> {
    pub(crate) fn new(
        fs: &'a ZoneFs<E, D>,
        s: &mut State,
        offsets: impl Iterator<Item = u64>,
    ) -> Self {
        let mut zones: Vec<u32> = offsets.filter_map(|o| s.zone_of(o)).collect();
        zones.dedup();
        for &z in &zones {
            if let Some(a) = s.zone_mut(z) {
                a.readers += 1;
            }
        }
        Self { fs, zones }
    }
}

impl<E: Env, D: ZonedDevice> Drop for ZoneReaders<'_, E, D> {
    fn drop(&mut self) {
        let mut s = self.fs.lock();
        for &z in &self.zones {
            if let Some(a) = s.zone_mut(z) {
                a.readers = a.readers.saturating_sub(1);
            }
        }
    }
}
