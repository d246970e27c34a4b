//! Writable files: a write buffer aligned to the device block, WAL framing, zone allocation
//! through the placement policy, zone switches, sync and close.
//!
//! Non-WAL files write whole buffers without padding; a sync pads the last block and persists
//! the new extents. WAL files (sparse) prefix every flushed chunk with an 8-byte length, so a
//! sync needs no metadata write: mount walks the headers from the active extent start to the
//! write pointer.

use std::sync::Arc;

use std::borrow::Cow;

use zonedb_device::{ElidedBytes, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::alloc::Token;
use crate::file::{Extent, FileKind, FileMeta};
use crate::fs::{ZoneFs, align_up, kind_of};
use crate::placement::policy::{Lifetime, SstContext};
use crate::record::Record;
use crate::state::{FileEntry, Slot};

/// A file open for appending. Drop without `close` leaves it as a crash would: synced data is
/// kept, the buffer is lost (and its zone stays held until remount).
#[derive(Debug)]
pub struct WritableFile<E: Env, D: ZonedDevice> {
    fs: Arc<ZoneFs<E, D>>,
    id: u64,
    name: String,
    sparse: bool,
    kind: FileKind,
    lifetime: Lifetime,
    /// Appended bytes not yet written: stored bytes and holes (a plain append adds no hole).
    buf: ElidedBytes,
    buf_cap: u64,
    /// Where the file's current extent goes (none between zones).
    slot: Option<Slot>,
    /// The file has asked for its first zone: a subzone is taken only for that one (an SST
    /// never continues from one subzone into another).
    asked: bool,
    closed: bool,
    /// Bytes written to the device since the last device flush this writer asked for: `close`
    /// flushes them before persisting the file as closed (on a device with a volatile write
    /// cache, a closed file's data is durable before its closed record can be).
    unsynced_bytes: u64,
    /// The first write error (every later call fails with it).
    failed: Option<(String, bool)>,
    sst: Option<Box<SstContext>>,
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Creates `name` for writing (replacing an existing file of that name), with its kind
    /// taken from the name (`*.log` = WAL, `*.sst`, `MANIFEST*`).
    ///
    /// # Errors
    /// [`FsError::InvalidArgument`] for an empty name, device errors.
    pub async fn create(
        self: &Arc<Self>,
        name: &str,
        lifetime: Lifetime,
    ) -> Result<WritableFile<E, D>, FsError> {
        self.create_as(name, kind_of(name), lifetime).await
    }

    /// Creates SST `name` whose whole content is known, described by `context` for placement
    /// policies that choose zones from the LSM-tree's shape (CAZA, OAZA).
    ///
    /// # Errors
    /// As [`ZoneFs::create`].
    pub async fn create_sst(
        self: &Arc<Self>,
        name: &str,
        lifetime: Lifetime,
        context: SstContext,
    ) -> Result<WritableFile<E, D>, FsError> {
        let mut f = self.create_as(name, FileKind::Sst, lifetime).await?;
        f.sst = Some(Box::new(context));
        Ok(f)
    }

    /// Creates `name` of the given kind.
    ///
    /// # Errors
    /// As [`ZoneFs::create`].
    pub async fn create_as(
        self: &Arc<Self>,
        name: &str,
        kind: FileKind,
        lifetime: Lifetime,
    ) -> Result<WritableFile<E, D>, FsError> {
        self.check_writable()?;
        if name.is_empty() {
            return Err(FsError::InvalidArgument("empty file name".into()));
        }
        if self.exists(name) {
            self.delete(name).await?;
        }
        let sparse = kind == FileKind::Wal;
        let mut meta_log = self.meta.lock().await;
        let meta = {
            let mut s = self.lock();
            let id = s.next_file_id;
            s.next_file_id += 1;
            let meta = FileMeta {
                id,
                name: name.to_owned(),
                size: 0,
                lifetime,
                kind,
                sparse,
                closed: false,
                active_extent_start: None,
                extents: Vec::new(),
            };
            let mut entry = FileEntry::new(meta.clone());
            entry.writing = true;
            s.files.insert(id, entry);
            s.names.insert(name.to_owned(), id);
            meta
        };
        self.persist(
            &mut meta_log,
            Record::FileUpdate {
                file: meta.clone(),
                extents_before: 0,
            },
        )
        .await?;
        let buf_cap = align_up(self.opts.write_buffer_bytes.max(self.block), self.block);
        Ok(WritableFile {
            fs: self.clone(),
            id: meta.id,
            name: name.to_owned(),
            sparse,
            kind,
            lifetime,
            buf: ElidedBytes::with_capacity(usize::try_from(buf_cap).unwrap_or(1 << 20)),
            buf_cap,
            slot: None,
            asked: false,
            closed: false,
            unsynced_bytes: 0,
            failed: None,
            sst: None,
        })
    }

    /// Persists a file's attributes and the extents added since its last update; `durable`:
    /// flushed with its data ([`ZoneFs::persist_durable`]).
    pub(crate) async fn persist_file(&self, id: u64, durable: bool) -> Result<(), FsError> {
        let mut meta = self.meta.lock().await;
        let rec = {
            let mut s = self.lock();
            let Some(f) = s.files.get_mut(&id) else {
                return Ok(());
            };
            let before = f.persisted_extents.min(f.meta.extents.len());
            let mut file = f.meta.clone();
            file.extents = f.meta.extents[before..].to_vec();
            f.persisted_extents = f.meta.extents.len();
            Record::FileUpdate {
                file,
                extents_before: u32::try_from(before).unwrap_or(u32::MAX),
            }
        };
        if durable {
            self.persist_durable(&mut meta, rec).await
        } else {
            self.persist(&mut meta, rec).await
        }
    }
}

impl<E: Env, D: ZonedDevice> WritableFile<E, D> {
    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes appended so far (synced or buffered).
    pub fn len(&self) -> u64 {
        self.fs.stat_id(self.id).map_or(0, |m| m.size) + self.buf.len()
    }

    /// Whether nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `data` (buffered; whole buffers go to the device as they fill).
    ///
    /// # Errors
    /// [`FsError::NoSpace`], device errors.
    pub fn append<'a>(
        &'a mut self,
        data: &'a [u8],
    ) -> impl Future<Output = Result<(), FsError>> + Send + 'a {
        // The future of `append_data` itself (no wrapper state machine on the hot path).
        self.append_data(Data::Dense(data))
    }

    /// Appends the logical string `data`: exactly as [`WritableFile::append`] of
    /// `data.len()` bytes (same offsets, buffering, padding, device writes, metadata and byte
    /// counts), but the holes stay holes in the buffer and go to the device as holes
    /// ([`ZonedDevice::write_elided`]); they read back as holes through
    /// [`ZoneFs::read_elided`], or as zeros.
    ///
    /// # Errors
    /// As [`WritableFile::append`].
    pub fn append_elided<'a>(
        &'a mut self,
        data: &'a ElidedBytes,
    ) -> impl Future<Output = Result<(), FsError>> + Send + 'a {
        self.append_data(Data::of(data))
    }

    async fn append_data(&mut self, data: Data<'_>) -> Result<(), FsError> {
        if self.closed {
            return Err(FsError::InvalidArgument(format!("{} is closed", self.name)));
        }
        self.check_failed()?;
        let total = data.len();
        self.fs.counters().user_bytes += total;
        if total < self.buf_cap - self.buf.len() {
            // Fits in the buffer without filling it (the common case of small appends).
            data.push_into(&mut self.buf, 0, total);
            return Ok(());
        }
        let mut pos = 0;
        // Whole buffers of an empty buffer go out without being copied into it.
        if self.buf.is_empty() && total >= self.buf_cap {
            pos = total - total % self.buf_cap;
            self.write_out_or_fail(data, pos).await?;
        }
        while pos < total {
            let n = (self.buf_cap - self.buf.len()).min(total - pos);
            data.push_into(&mut self.buf, pos, n);
            pos += n;
            if self.buf.len() == self.buf_cap {
                self.write_buffer().await?;
            }
        }
        Ok(())
    }

    /// Writes the whole buffer out and empties it (keeping its memory).
    async fn write_buffer(&mut self) -> Result<(), FsError> {
        let chunk = std::mem::take(&mut self.buf);
        let r = self.write_out_or_fail(Data::of(&chunk), chunk.len()).await;
        self.buf = chunk;
        self.buf.clear();
        r
    }

    /// Fails with the first write error, once there was one.
    fn check_failed(&self) -> Result<(), FsError> {
        match &self.failed {
            None => Ok(()),
            Some((cause, no_space)) => Err(FsError::WriterFailed {
                file: self.name.clone(),
                cause: cause.clone(),
                no_space: *no_space,
            }),
        }
    }

    /// [`Self::write_out`], remembering a failure: the bytes are gone from the buffer, so
    /// nothing may be written after them.
    async fn write_out_or_fail(&mut self, data: Data<'_>, len: u64) -> Result<(), FsError> {
        let r = self.write_out(data, len).await;
        if let Err(e) = &r {
            self.failed = Some((e.to_string(), e.kind() == crate::FsErrorKind::NoSpace));
        }
        r
    }

    /// Writes the buffer to the device and makes it durable. Non-WAL files then persist their
    /// new extents (durably, see [`ZoneFs::sync_device`]); a WAL's data is recoverable from its
    /// framing without a metadata write, so a WAL sync is one device flush.
    ///
    /// # Errors
    /// Device errors, [`FsError::NoSpace`].
    pub async fn sync(&mut self) -> Result<(), FsError> {
        self.flush_buffer().await?;
        if self.sparse {
            self.fs.sync_device().await?;
        } else {
            self.fs.persist_file(self.id, true).await?;
        }
        self.unsynced_bytes = 0;
        Ok(())
    }

    /// Writes the buffer to the device without a device flush (RocksDB's `Flush` as opposed to
    /// `Sync`): on a device whose writes land in the host's page cache
    /// ([`ZonedDevice::host_cached_writes`]) the bytes then survive the end of the process,
    /// though not a power loss. A WAL's bytes are recoverable from their framing; other files
    /// need their extents persisted (`sync`) to be found after a restart.
    ///
    /// # Errors
    /// As [`WritableFile::sync`].
    pub async fn flush(&mut self) -> Result<(), FsError> {
        self.flush_buffer().await
    }

    /// `sync`, then persist the metadata for WAL files too.
    ///
    /// # Errors
    /// As [`WritableFile::sync`].
    pub async fn fsync(&mut self) -> Result<(), FsError> {
        self.flush_buffer().await?;
        self.fs.persist_file(self.id, true).await?;
        self.unsynced_bytes = 0;
        Ok(())
    }

    /// Writes the buffer, persists the final metadata (the file closed:
    /// [`crate::file::FileMeta::closed`]) and releases the zone. On a device with a volatile write
    /// cache, data written since the writer's last sync is flushed before that record, so a
    /// closed file's data is never behind its record; the record itself is durable at the next
    /// device flush (any `sync`/`fsync`, a rename): `fsync` first to make it durable now.
    ///
    /// # Errors
    /// As [`WritableFile::sync`].
    pub async fn close(mut self) -> Result<(), FsError> {
        if let Err(e) = self.flush_buffer().await {
            // A failed write gives the file up (deletable, its zone back). The write's error
            // is the one to report: giving the zone back after it may fail for its sake.
            if !self.closed {
                let _released = self.give_up().await;
            }
            return Err(e);
        }
        // The record below says the file is complete (`FileMeta::closed`: a mount refuses
        // to cut it), so its data must be on the device first: flushed, on a device with a
        // volatile write cache (a no-op on the others), when this writer wrote since its
        // last sync. RocksDB syncs every finished table likewise.
        if self.unsynced_bytes > 0 {
            self.fs.sync_device().await?;
            self.unsynced_bytes = 0;
        }
        {
            let mut s = self.fs.lock();
            if let Some(f) = s.files.get_mut(&self.id) {
                f.meta.active_extent_start = None;
                f.meta.closed = true;
                f.writing = false;
            }
        }
        self.fs.persist_file(self.id, false).await?;
        if let Some(slot) = self.slot.take() {
            self.fs.release_slot(slot).await?;
        }
        self.closed = true;
        Ok(())
    }

    /// Gives up a file whose write failed: unwritten bytes dropped, no longer open for
    /// writing (so it can be deleted), its zone given back. The caller deletes it (RocksDB
    /// deletes the outputs of a failed job).
    ///
    /// # Errors
    /// Giving the zone back failed (a device error finishing it).
    pub async fn abandon(mut self) -> Result<(), FsError> {
        self.give_up().await
    }

    async fn give_up(&mut self) -> Result<(), FsError> {
        self.buf.clear();
        {
            let mut s = self.fs.lock();
            if let Some(f) = s.files.get_mut(&self.id) {
                f.meta.active_extent_start = None;
                f.writing = false;
            }
        }
        self.closed = true;
        if let Some(slot) = self.slot.take() {
            self.fs.release_slot(slot).await?;
        }
        Ok(())
    }

    async fn flush_buffer(&mut self) -> Result<(), FsError> {
        if self.closed {
            return Err(FsError::InvalidArgument(format!("{} is closed", self.name)));
        }
        self.check_failed()?;
        if self.buf.is_empty() {
            return Ok(());
        }
        self.write_buffer().await
    }

    /// Writes the first `len` bytes of `data` at the write pointers of the file's zones,
    /// switching zones as they fill.
    async fn write_out(&mut self, data: Data<'_>, len: u64) -> Result<(), FsError> {
        let fs = self.fs.clone();
        let block = fs.block;
        let mut pos = 0;
        while pos < len {
            let slot = if let Some(slot) = self.slot {
                slot
            } else {
                let slot = self.take_slot().await?;
                self.slot = Some(slot);
                let wp = fs.lock().slot_region(slot).map_or(0, |r| r.wp);
                if let Some(f) = fs.lock().files.get_mut(&self.id) {
                    f.meta.active_extent_start = Some(wp);
                }
                fs.persist_file(self.id, false).await?;
                slot
            };
            let (wp, remaining, threaded) = {
                let mut s = fs.lock();
                match slot {
                    // A threaded zone: the next run of blocks that held no live data.
                    Slot::Zone(z) if s.zone(z).is_some_and(|a| a.threaded.is_some()) => {
                        s.zone_mut(z).map_or((0, 0, true), |a| {
                            // The run first: it moves the write pointer past live blocks.
                            let run = a.threaded_run();
                            (a.wp, run, true)
                        })
                    }
                    _ => s
                        .slot_region(slot)
                        .map_or((0, 0, false), |r| (r.wp, r.remaining(), false)),
                }
            };
            if threaded && remaining == 0 {
                // Nothing left to write over: the zone is done, take another.
                self.slot = None;
                fs.release_slot(slot).await?;
                continue;
            }
            let rest = len - pos;
            // WAL files frame each piece with its 8-byte length.
            let (n, header) = if self.sparse {
                let n = rest.min(remaining.saturating_sub(8));
                (n, Some(n))
            } else {
                (rest.min(remaining), None)
            };
            let extent = Extent {
                start: wp + header.map_or(0, |_| 8),
                len: n,
            };
            if n == 0 {
                return Err(FsError::Corrupt(format!(
                    "{slot:?} has no room for a frame"
                )));
            }
            let framed = align_up(n + header.map_or(0, |_| 8), block);
            let piece = frame(data, pos, n, header, framed);
            // In a threaded zone data goes first (blocks past the device's write pointer hold
            // other files' live data, so an extent persisted ahead would read theirs).
            let padded = !self.sparse && n % block != 0 && !threaded;
            let (full, written_ns) = if padded {
                // A padded piece ends a sync. Persist its extent before writing it: were the
                // padding on the device first, a crash would let mount take it for file data.
                // Mount clips extents that run past the write pointer instead (of a file not
                // closed: this one, until `close`). Should the record or the write fail (a
                // full device), the accounting goes back to what reached the device.
                let undo = self.piece_undo(slot);
                let full = self.record_piece(slot, wp, piece.len(), extent, n);
                let written = match fs.persist_file(self.id, false).await {
                    Ok(()) => fs.write_frame_timed(slot, wp, &piece).await,
                    Err(e) => Err(e),
                };
                match written {
                    Ok(ns) => (full, ns),
                    Err(e) => {
                        self.undo_piece(slot, &undo);
                        return Err(e);
                    }
                }
            } else {
                let ns = fs.write_frame_timed(slot, wp, &piece).await?;
                (self.record_piece(slot, wp, piece.len(), extent, n), ns)
            };
            {
                let mut c = fs.counters();
                c.device_bytes += piece.len();
                if self.kind == FileKind::Sst {
                    let subzone = matches!(slot, Slot::Subzone(_));
                    c.sst_writes.add(subzone, piece.len(), written_ns);
                }
                if threaded {
                    c.znsplus.threaded_bytes += n;
                }
            }
            self.unsynced_bytes += piece.len();
            pos += n;
            if full {
                self.slot = None;
                fs.release_slot(slot).await?;
            }
        }
        Ok(())
    }

    /// The file's next zone: for its first one, a subzone when the placement policy puts the
    /// file there ([`ZoneFs::acquire_subzone`]); otherwise a wide zone.
    async fn take_slot(&mut self) -> Result<Slot, FsError> {
        let fs = self.fs.clone();
        let first = !self.asked;
        if first {
            self.asked = true;
            if let Some(id) = fs
                .acquire_subzone(self.lifetime, self.kind, self.sst.as_deref())
                .await?
            {
                return Ok(Slot::Subzone(id));
            }
        }
        match fs
            .acquire_zone(self.lifetime, self.kind, self.sst.as_deref())
            .await
        {
            // Nothing written yet and no wide zone has room: a free subzone, if the SST fits.
            Err(FsError::NoSpace) if first => fs
                .acquire_subzone_last_resort(self.kind, self.sst.as_deref())
                .await?
                .map(Slot::Subzone)
                .ok_or(FsError::NoSpace),
            other => other.map(Slot::Zone),
        }
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// [`Self::write_frame`], returning how long the device took, ns.
    async fn write_frame_timed(
        &self,
        slot: Slot,
        wp: u64,
        piece: &Piece<'_>,
    ) -> Result<u64, FsError> {
        let t0 = self.env.now();
        self.write_frame(slot, wp, piece).await?;
        Ok(self.env.now() - t0)
    }

    /// Writes a framed piece at `wp` of `slot`; one with holes as one elided write (holes
    /// materialized as zeros under [`crate::FsOptions::zone_append`]).
    async fn write_frame(&self, slot: Slot, wp: u64, piece: &Piece<'_>) -> Result<(), FsError> {
        match piece {
            Piece::Bytes(bytes) => self.write_piece(slot, wp, bytes).await,
            Piece::Elided(e) if self.opts.zone_append => {
                self.write_piece(slot, wp, &e.materialize()).await
            }
            Piece::Elided(e) => Ok(self.dev.write_elided(wp, e).await?),
            Piece::Range(e, at, len) if self.opts.zone_append => {
                self.write_piece(slot, wp, &e.slice(*at, *len).materialize())
                    .await
            }
            Piece::Range(e, at, len) => Ok(self.dev.write_elided_range(wp, e, *at, *len).await?),
        }
    }

    /// Writes a piece of file data at `wp` of `slot`: one write at the write pointer, or zone
    /// appends (subzone appends in a subzone) of at most the device's append limit each when
    /// [`crate::FsOptions::zone_append`] is on (the writer owns the zone or subzone, so each
    /// must land where the layer expects).
    async fn write_piece(&self, slot: Slot, wp: u64, piece: &[u8]) -> Result<(), FsError> {
        if !self.opts.zone_append {
            self.dev.write(wp, piece).await?;
            return Ok(());
        }
        let g = self.dev.geometry();
        let step = (g.zone_append_max_bytes / self.block).max(1) * self.block;
        let mut at = wp;
        for chunk in piece.chunks(usize::try_from(step).unwrap_or(usize::MAX)) {
            let landed = match slot {
                Slot::Zone(zone) => self.dev.append(zone, chunk).await?,
                Slot::Subzone(id) => self.split_zones()?.append_subzone(id, chunk).await?,
            };
            if landed != at {
                return Err(FsError::Corrupt(format!(
                    "{slot:?}: an append landed at {landed}, expected {at}"
                )));
            }
            at += chunk.len() as u64;
        }
        Ok(())
    }

    /// Gives a writer's zone or subzone back.
    pub(crate) async fn release_slot(&self, slot: Slot) -> Result<(), FsError> {
        match slot {
            Slot::Zone(z) => self.release_zone(z, Token::Writer).await,
            Slot::Subzone(id) => self.release_subzone(id).await,
        }
    }
}

/// What [`WritableFile::record_piece`] changes, as it was before: undone when the piece
/// recorded ahead of its write never reached the device.
#[derive(Debug)]
struct PieceUndo {
    /// The zone's (or subzone's) write pointer and live bytes.
    region: Option<(u64, u64)>,
    /// The zone's live bytes (of a subzone's zone).
    zone_used: Option<u64>,
    /// The file's extent count, last extent, size and active extent start.
    file: Option<(usize, Option<Extent>, u64, Option<u64>)>,
}

impl<E: Env, D: ZonedDevice> WritableFile<E, D> {
    /// The accounting [`WritableFile::record_piece`] of a piece in `slot` changes.
    fn piece_undo(&self, slot: Slot) -> PieceUndo {
        let s = self.fs.lock();
        let (region, zone_used) = match slot {
            Slot::Zone(z) => (s.zone(z).map(|a| (a.wp, a.used)), None),
            Slot::Subzone(id) => (
                s.sub(id).map(|u| (u.wp, u.used)),
                s.zone(id.zone).map(|a| a.used),
            ),
        };
        let file = s.files.get(&self.id).map(|f| {
            (
                f.meta.extents.len(),
                f.meta.extents.last().copied(),
                f.meta.size,
                f.meta.active_extent_start,
            )
        });
        PieceUndo {
            region,
            zone_used,
            file,
        }
    }

    /// Puts back the accounting of a piece recorded before its write that failed: the
    /// layer never counts bytes the device does not hold (fsck compares the two). The
    /// metadata log may hold the piece's extent already; the file is not closed, so a mount
    /// drops it.
    fn undo_piece(&self, slot: Slot, undo: &PieceUndo) {
        let mut s = self.fs.lock();
        match slot {
            Slot::Zone(z) => {
                if let (Some(a), Some((wp, used))) = (s.zone_mut(z), undo.region) {
                    a.wp = wp;
                    a.used = used;
                }
            }
            Slot::Subzone(id) => {
                if let (Some(a), Some(used)) = (s.zone_mut(id.zone), undo.zone_used) {
                    a.used = used;
                }
                if let (Some(u), Some((wp, used))) = (s.sub_mut(id), undo.region) {
                    u.wp = wp;
                    u.used = used;
                }
            }
        }
        if let (Some(f), Some((len, last, size, aes))) = (s.files.get_mut(&self.id), undo.file) {
            let mut extents = std::mem::take(&mut f.meta.extents);
            extents.truncate(len);
            if let (Some(l), Some(was)) = (extents.last_mut(), last) {
                *l = was;
            }
            // The log's copy of the last extent may be the longer one: rewrite it next time.
            f.persisted_extents = f.persisted_extents.min(len.saturating_sub(1));
            f.set_extents(extents);
            f.meta.size = size;
            f.meta.active_extent_start = aes;
        }
    }

    /// Accounts a piece written at `wp` of `slot`: zone (and subzone) write pointer and live
    /// bytes, the file's extents (merged when contiguous), size and active extent start.
    /// Returns whether the zone (subzone) is now full.
    fn record_piece(&self, slot: Slot, wp: u64, piece_len: u64, extent: Extent, n: u64) -> bool {
        let block = self.fs.block;
        let mut s = self.fs.lock();
        let mut zone_start = 0;
        match slot {
            Slot::Zone(zone) => {
                if let Some(z) = s.zone_mut(zone) {
                    zone_start = z.start;
                    z.wp += piece_len;
                    z.used += n;
                }
            }
            Slot::Subzone(id) => {
                if let Some(z) = s.zone_mut(id.zone) {
                    z.used += n;
                }
                if let Some(u) = s.sub_mut(id) {
                    zone_start = u.start;
                    u.wp += piece_len;
                    u.used += n;
                }
            }
        }
        let full = match slot {
            Slot::Zone(z) => s.zone(z).is_none_or(|a| a.remaining() == 0),
            Slot::Subzone(_) => s.slot_region(slot).is_none_or(|r| r.remaining() == 0),
        };
        if let Some(f) = s.files.get_mut(&self.id) {
            let merged = match f.meta.extents.last_mut() {
                Some(last)
                    if !self.sparse
                        && extent.start != zone_start
                        && last.start + last.len == extent.start
                        && last.len % block == 0 =>
                {
                    last.len += extent.len;
                    true
                }
                _ => false,
            };
            if merged {
                let i = f.meta.extents.len() - 1;
                f.persisted_extents = f.persisted_extents.min(i);
                f.index.extend_last(extent.len);
            } else {
                f.push_extent(extent);
            }
            f.meta.size += n;
            // The tail to recover after a crash starts after the last extent known in memory,
            // so a snapshot taken by a metadata roll never makes mount add an extent twice.
            // A piece that fills the zone leaves no tail in it: its end is the next zone's
            // start, and a tail recovered from there would take another file's data.
            f.meta.active_extent_start = if full { None } else { Some(wp + piece_len) };
        }
        full
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    pub(crate) fn stat_id(&self, id: u64) -> Option<FileMeta> {
        self.lock().files.get(&id).map(|f| f.meta.clone())
    }
}

/// Data a writer appends: plain bytes, or a logical string with holes.
#[derive(Debug, Clone, Copy)]
enum Data<'a> {
    Dense(&'a [u8]),
    Elided(&'a ElidedBytes),
}

impl<'a> Data<'a> {
    /// `e`, as plain bytes when it has no holes.
    fn of(e: &'a ElidedBytes) -> Self {
        if e.is_dense() {
            Self::Dense(e.data())
        } else {
            Self::Elided(e)
        }
    }

    /// Logical bytes.
    fn len(&self) -> u64 {
        match self {
            Self::Dense(d) => d.len() as u64,
            Self::Elided(e) => e.len(),
        }
    }

    /// Appends the logical range `[at, at + n)` to `buf`.
    fn push_into(&self, buf: &mut ElidedBytes, at: u64, n: u64) {
        match self {
            Self::Dense(d) => buf.push_bytes(&d[idx(at)..idx(at + n)]),
            Self::Elided(e) => buf.push_range(e, at, n),
        }
    }
}

fn idx(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// A piece framed for the device: bytes (borrowed when written as they are), or a logical
/// string with holes.
#[derive(Debug)]
enum Piece<'a> {
    Bytes(Cow<'a, [u8]>),
    Elided(ElidedBytes),
    /// The logical range `[at, at + len)` of a string, borrowed.
    Range(&'a ElidedBytes, u64, u64),
}

impl Piece<'_> {
    /// Logical bytes.
    fn len(&self) -> u64 {
        match self {
            Self::Bytes(b) => b.len() as u64,
            Self::Elided(e) => e.len(),
            Self::Range(_, _, len) => *len,
        }
    }
}

/// The piece for `n` bytes of `data` from `at`: after `header` (a WAL frame's length) when
/// given, padded with zeros to `framed` bytes. A whole-block piece of plain bytes without a
/// header is the caller's buffer itself (no copy).
fn frame(data: Data<'_>, at: u64, n: u64, header: Option<u64>, framed: u64) -> Piece<'_> {
    let dense = |body: &[u8]| {
        let mut p = Vec::with_capacity(idx(framed));
        if let Some(h) = header {
            p.extend_from_slice(&h.to_le_bytes());
        }
        p.extend_from_slice(body);
        p.resize(idx(framed), 0);
        p
    };
    match data {
        Data::Dense(d) => {
            let body = &d[idx(at)..idx(at + n)];
            if header.is_none() && framed == n {
                Piece::Bytes(Cow::Borrowed(body))
            } else {
                Piece::Bytes(Cow::Owned(dense(body)))
            }
        }
        Data::Elided(e) if header.is_none() && framed == n => {
            // A whole-block piece without a header: the caller's string itself (no copy).
            match e.dense_range(at, n) {
                Some(bytes) => Piece::Bytes(Cow::Borrowed(bytes)),
                None => Piece::Range(e, at, n),
            }
        }
        Data::Elided(e) => {
            // The body straight from `e` after the header (one copy, room reserved once).
            let mut p = ElidedBytes::new();
            if let Some(h) = header {
                p.push_bytes(&h.to_le_bytes());
            }
            p.push_range(e, at, n);
            // Padding is written as zeros, as for plain bytes.
            p.push_zeros(idx(framed - p.len()));
            if p.is_dense() {
                return Piece::Bytes(Cow::Owned(p.into_data()));
            }
            Piece::Elided(p)
        }
    }
}
