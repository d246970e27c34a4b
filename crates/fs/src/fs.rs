//! The mounted zone file layer: its state and file operations (list, stat, read, delete,
//! rename). Options are in [`crate::options`], statistics in [`crate::stats`]. Formatting and mounting are in `mount`, zone allocation in `alloc`, writers in
//! [`crate::writer`], cleaning and resets in [`crate::cleaning::mechanism`].

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use crate::FsError;
use crate::file::{Extent, FileKind, FileMeta};
use crate::metalog::MetaLog;
pub use crate::options::{FsOptions, ZoneCopy};
use crate::page_cache::{PageCache, PageCacheStats};
use crate::record::Record;
use crate::state::State;
use crate::stats::Counters;

/// Zones kept out of the IO zones' open and active budgets: one for metadata, one for cleaning.
pub const RESERVED_ZONES: u32 = 2;
/// Bytes copied per cleaning step (ZenFS).
pub const GC_COPY_BYTES: u64 = 128 << 10;

/// A mounted zone file layer on device `D` in environment `E`.
#[derive(Debug)]
pub struct ZoneFs<E: Env, D: ZonedDevice> {
    pub(crate) env: E,
    pub(crate) dev: Arc<D>,
    pub(crate) opts: FsOptions,
    pub(crate) state: Mutex<State>,
    pub(crate) meta: tokio::sync::Mutex<MetaLog>,
    pub(crate) tokens: tokio::sync::Notify,
    pub(crate) gc: tokio::sync::Mutex<()>,
    /// Wakes the background cleaner (after every zone allocation).
    pub(crate) kick: Arc<tokio::sync::Notify>,
    /// The background cleaner is cleaning (it found victims and has not finished).
    pub(crate) zc_running: std::sync::atomic::AtomicBool,
    pub(crate) counters: Mutex<Counters>,
    pub(crate) block: u64,
    /// Subzone sizes of a device that splits zones (`None`: it does not).
    pub(crate) split_geo: Option<zonedb_device::splitzns::SplitZnsGeometry>,
    /// The page cache of buffered reads (`None`: off).
    pub(crate) page_cache: Option<Mutex<PageCache>>,
    /// The paper features' own state (HHZS's SSD cache, ...), put in at mount by
    /// [`crate::features::attach`].
    pub(crate) extensions: crate::extensions::Extensions,
    /// Held by a feature's background writer across each write and zone reset outside the
    /// files (the SSD cache's admissions and evictions), so that a quiesced fsck waits for
    /// them.
    pub(crate) feature_io: tokio::sync::Mutex<()>,
    /// Set when a mount for writing found no room for its own metadata: why the layer is
    /// read-only after all ([`ZoneFs::is_read_only`]).
    pub(crate) full_read_only: std::sync::OnceLock<String>,
}

pub(crate) fn align_up(v: u64, block: u64) -> u64 {
    v.div_ceil(block) * block
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn counters(&self) -> MutexGuard<'_, Counters> {
        self.counters.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The device's split-zone commands ([`zonedb_device::SplitZones`]); refused, typed, on a
    /// device without them.
    pub(crate) fn split_zones(
        &self,
    ) -> Result<&dyn zonedb_device::SplitZones, zonedb_device::DeviceError> {
        self.dev
            .capabilities()
            .split_zones
            .ok_or(zonedb_device::DeviceError::Unsupported {
                command: "zone split",
            })
    }

    /// How the device's zones split into SSD and HDD zones (`None`: not a hybrid device,
    /// [`zonedb_device::Tiers`]).
    pub(crate) fn hybrid_layout(&self) -> Option<zonedb_device::HybridLayout> {
        self.dev
            .capabilities()
            .tiers
            .map(zonedb_device::Tiers::hybrid_layout)
    }

    /// The page cache, if on.
    pub(crate) fn pages(&self) -> Option<MutexGuard<'_, PageCache>> {
        self.page_cache
            .as_ref()
            .map(|c| c.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Drops the cached pages of file `id` (deleted, replaced, or its extents moved).
    pub(crate) fn invalidate_pages(&self, id: u64) {
        if let Some(mut c) = self.pages() {
            c.invalidate_file(id);
        }
    }

    /// Counters of the page cache (`None` when it is off).
    pub fn page_cache_stats(&self) -> Option<PageCacheStats> {
        self.pages().map(|c| c.stats())
    }

    /// Makes every write completed so far durable: a flush of the device when it has a
    /// volatile write cache ([`ZonedDevice::volatile_write_cache`]), nothing otherwise (the
    /// simulated SSD). A synced WAL write ([`crate::WritableFile::sync`]) is one flush; a
    /// `sync`/`fsync` of another file (the MANIFEST) and a rename (`CURRENT`) flush before and
    /// after their metadata record; zone resets and metadata-log rolls flush first.
    ///
    /// # Errors
    /// Device errors.
    pub async fn sync_device(&self) -> Result<(), FsError> {
        if self.dev.volatile_write_cache() {
            self.dev.sync().await?;
        }
        Ok(())
    }

    /// Fails unless the layer takes writes: mounted read-only
    /// ([`FsError::InvalidArgument`]), or read-only because the device had no room for the
    /// mount's metadata ([`FsError::FullReadOnly`], a no-space error).
    ///
    /// # Errors
    /// As said.
    pub fn check_writable(&self) -> Result<(), FsError> {
        if self.opts.read_only {
            return Err(FsError::InvalidArgument(
                "file system is mounted read-only".into(),
            ));
        }
        if let Some(why) = self.full_read_only.get() {
            return Err(FsError::FullReadOnly(why.clone()));
        }
        Ok(())
    }

    /// Whether the layer takes no writes: mounted read-only, or read-only because a mount
    /// for writing found no room on the device for its own metadata
    /// ([`ZoneFs::full_read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.opts.read_only || self.full_read_only.get().is_some()
    }

    /// Why a mount for writing left the layer read-only: the device (for a file-backed one,
    /// the host file system) had no room for the mount's metadata. `None` otherwise.
    pub fn full_read_only(&self) -> Option<&str> {
        self.full_read_only.get().map(String::as_str)
    }

    /// The environment.
    pub fn env(&self) -> &E {
        &self.env
    }

    /// The device.
    pub fn device(&self) -> &Arc<D> {
        &self.dev
    }

    /// The options.
    pub fn options(&self) -> &FsOptions {
        &self.opts
    }

    /// Hands a hint from the engine to the placement and cleaning policies
    /// ([`PlacementPolicy::on_hint`], [`CleaningPolicy::on_hint`]).
    pub fn on_hint(&self, hint: &crate::hints::Hint) {
        self.opts.placement.on_hint(hint);
        self.opts.cleaner.on_hint(hint);
        if let crate::hints::Hint::BlockEvicted {
            file,
            offset,
            data: Some(data),
            ..
        } = hint
        {
            self.offer_evicted_block(*file, *offset, data);
        }
    }

    /// Names of every file, sorted.
    pub fn list(&self) -> Vec<String> {
        self.lock().names.keys().cloned().collect()
    }

    /// Names starting with `prefix` (a directory listing: directories are names only).
    pub fn list_dir(&self, prefix: &str) -> Vec<String> {
        self.lock()
            .names
            .range(prefix.to_owned()..)
            .take_while(|(n, _)| n.starts_with(prefix))
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// A file's attributes, extents included.
    pub fn stat(&self, name: &str) -> Option<FileMeta> {
        let s = self.lock();
        s.names
            .get(name)
            .and_then(|id| s.files.get(id))
            .map(|f| f.meta.clone())
    }

    /// Whether a file exists.
    pub fn exists(&self, name: &str) -> bool {
        self.lock().names.contains_key(name)
    }

    /// For each name, the zones holding the file's bytes: (zone index, bytes), most bytes
    /// first (ties: lower zone first); empty for a missing file. One lock for the batch.
    pub fn file_zones<S: AsRef<str>>(&self, names: &[S]) -> Vec<Vec<(u32, u64)>> {
        let s = self.lock();
        let zone_size = self.dev.geometry().zone_size_bytes.max(1);
        names
            .iter()
            .map(|n| {
                let Some(f) = s.names.get(n.as_ref()).and_then(|id| s.files.get(id)) else {
                    return Vec::new();
                };
                let mut per: Vec<(u32, u64)> = Vec::new();
                for e in &f.meta.extents {
                    let z = u32::try_from(e.start / zone_size).unwrap_or(u32::MAX);
                    match per.iter_mut().find(|(q, _)| *q == z) {
                        Some(p) => p.1 += e.len,
                        None => per.push((z, e.len)),
                    }
                }
                per.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                per
            })
            .collect()
    }

    /// Every file's attributes.
    pub fn files(&self) -> Vec<FileMeta> {
        self.lock().files.values().map(|f| f.meta.clone()).collect()
    }

    /// Deletes a file; zones left without live data are reset.
    ///
    /// # Errors
    /// [`FsError::NotFound`], [`FsError::Busy`] for a file open for writing, device errors.
    pub async fn delete(&self, name: &str) -> Result<(), FsError> {
        self.delete_keeping_zones(name).await?;
        self.reset_unused_zones().await
    }

    /// Resets every zone that holds no live data and no writer (ZenFS's
    /// `ResetUnusedIOZones`): after [`ZoneFs::delete_keeping_zones`].
    ///
    /// # Errors
    /// Device errors.
    pub async fn reset_unused(&self) -> Result<(), FsError> {
        self.reset_unused_zones().await
    }

    /// [`ZoneFs::delete`] without the reset of the zones it frees: they wait for the next
    /// reset of unused zones (the caller's [`ZoneFs::reset_unused`], an allocation, the
    /// cleaner), as ZenFS's deletes leave theirs to `ResetUnusedIOZones`. A purge deleting
    /// many files resets once, not once per file: each reset waits for a device flush.
    ///
    /// # Errors
    /// As [`ZoneFs::delete`].
    pub async fn delete_keeping_zones(&self, name: &str) -> Result<(), FsError> {
        self.check_writable()?;
        {
            let mut meta = self.meta.lock().await;
            let (id, extents) = {
                let mut s = self.lock();
                let id = *s
                    .names
                    .get(name)
                    .ok_or_else(|| FsError::NotFound(name.to_owned()))?;
                if s.files.get(&id).is_some_and(|f| f.writing) {
                    return Err(FsError::Busy(name.to_owned()));
                }
                s.names.remove(name);
                let extents = s.files.remove(&id).map(|f| {
                    self.keep_query_reads(id, &f);
                    f.meta.extents
                });
                (id, extents)
            };
            self.invalidate_pages(id);
            if let Some(n) = crate::file::sst_number(name) {
                self.forget_cached_sst(n);
            }
            self.persist(&mut meta, Record::FileDelete { id }).await?;
            // Its space is free only once its record is on the device: a reset of unused
            // zones from anywhere (a writer retrying an allocation) flushes before it resets,
            // so a zone freed here is never reset while a power loss could still bring the
            // file back. A record that failed leaves the space counted until the next mount.
            self.free_extents(extents.as_deref());
        }
        Ok(())
    }

    /// Renames a file, replacing any file called `to`.
    ///
    /// # Errors
    /// [`FsError::NotFound`], [`FsError::InvalidArgument`] for an empty name, device errors.
    pub async fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.check_writable()?;
        if to.is_empty() {
            return Err(FsError::InvalidArgument("empty file name".into()));
        }
        if from == to {
            return if self.exists(from) {
                Ok(())
            } else {
                Err(FsError::NotFound(from.to_owned()))
            };
        }
        if !self.exists(from) {
            return Err(FsError::NotFound(from.to_owned()));
        }
        let mut meta = self.meta.lock().await;
        let (id, replaced) = {
            let mut s = self.lock();
            if let Some(&old) = s.names.get(to)
                && s.files.get(&old).is_some_and(|f| f.writing)
            {
                return Err(FsError::Busy(to.to_owned()));
            }
            let id = s
                .names
                .remove(from)
                .ok_or_else(|| FsError::NotFound(from.to_owned()))?;
            // The file called `to` goes with the same record (replay drops it too): one
            // record, so a crash leaves either the old `to` or the new one, never neither.
            let replaced = s.names.insert(to.to_owned(), id).and_then(|old| {
                let f = s.files.remove(&old)?;
                self.keep_query_reads(old, &f);
                self.invalidate_pages(old);
                Some(f.meta.extents)
            });
            if let Some(f) = s.files.get_mut(&id) {
                to.clone_into(&mut f.meta.name);
            }
            (id, replaced)
        };
        // Durable on return (it switches `CURRENT`), with everything written before it.
        self.persist_durable(
            &mut meta,
            Record::Rename {
                id,
                name: to.to_owned(),
            },
        )
        .await?;
        // As a delete's: the replaced file's space is free once the record is durable.
        self.free_extents(replaced.as_deref());
        drop(meta);
        if replaced.is_some() {
            self.reset_unused_zones().await?;
        }
        Ok(())
    }

    /// Counts a removed file's `extents` as garbage, once the record that removed it is on
    /// the device.
    pub(crate) fn free_extents(&self, extents: Option<&[Extent]>) {
        if let Some(e) = extents {
            self.lock().account_extents(e, false);
        }
    }

    /// Open and active zone tokens the layer's writers share (the device's limits less the
    /// [`RESERVED_ZONES`] kept for metadata and cleaning).
    pub fn io_zone_budget(&self) -> (u32, u32) {
        let s = self.lock();
        (s.max_open_io, s.max_active_io)
    }

    /// Per-zone accounting (index, start, capacity, write pointer, live bytes, lifetime, busy).
    pub fn zone_report(&self) -> Vec<crate::placement::policy::ZoneView> {
        self.lock().views()
    }

    /// Bytes still writable in the IO zones (ZenFS's `GetFreeSpace`: the unwritten capacity
    /// of empty and partly written zones and subzones; garbage is not free until reset).
    pub fn free_bytes(&self) -> u64 {
        self.free_capacity()
    }

    /// Where the IO zones' bytes are, by zone kind (wide; split zones' subzones).
    pub fn space_report(&self) -> crate::space::SpaceReport {
        crate::space::SpaceReport::of(&self.lock())
    }

    /// Device index of the first IO zone.
    pub fn first_io_zone(&self) -> u32 {
        self.lock().first_io_zone
    }
}

/// Used by writers: the kind a new file gets from its name.
pub(crate) fn kind_of(name: &str) -> FileKind {
    FileKind::from_name(name)
}
