//! Formatting and mounting: mkfs, the checks a device must pass, and mount's recovery (replay
//! of the metadata log, extents clipped to the zone write pointers, unsynced tails recovered
//! from the write pointers, unused zones reset, a fresh metadata zone).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use zonedb_device::splitzns::SubzoneState;
use zonedb_device::{IoClass, SubzoneId, ZoneOp, ZoneState, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::{Extent, FileMeta};
use crate::fs::{FsOptions, RESERVED_ZONES, ZoneFs, align_up};
use crate::metalog::{self, META_ZONES, MetaLog};
use crate::page_cache::PageCache;
use crate::placement::policy::Lifetime;
use crate::state::{FileEntry, SplitAcct, State, ZoneAcct};
use crate::stats::Counters;

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Formats `dev`: resets every zone and writes a superblock and an empty snapshot.
    ///
    /// # Errors
    /// [`FsError::Unsupported`] for devices with too few zones or too tight limits; device
    /// errors.
    pub async fn mkfs(dev: &D, finish_threshold_pct: u32) -> Result<(), FsError> {
        check_device(dev)?;
        let g = dev.geometry().clone();
        for z in dev.report_zones(0, g.zone_count) {
            if let Some(split) = dev.capabilities().split_zones
                && let Ok(subs) = split.report_subzones(z.index)
            {
                // A split zone goes back to wide: its subzones merged, then RESET.
                for u in subs.iter().filter(|u| u.state != SubzoneState::Empty) {
                    split.merge_subzone(u.id).await?;
                }
                dev.manage(z.index, ZoneOp::Reset).await?;
                continue;
            }
            if z.write_pointer != z.start || z.state != ZoneState::Empty {
                dev.manage(z.index, ZoneOp::Reset).await?;
            }
        }
        let rec = metalog::superblock_and_snapshot(
            &g,
            1,
            finish_threshold_pct.min(100),
            &State::empty(&g),
            g.block_size_bytes,
        );
        dev.write(0, &rec).await?;
        if dev.volatile_write_cache() {
            dev.sync().await?;
        }
        Ok(())
    }

    /// Mounts the file layer on `dev`: picks the newest valid superblock, replays the metadata
    /// log (a torn last record ends it), recovers unsynced tails from the zone write pointers,
    /// resets zones without live data and rolls to a fresh metadata zone.
    ///
    /// # Errors
    /// [`FsError::NotFormatted`], [`FsError::Corrupt`], [`FsError::Unsupported`], device errors.
    pub async fn mount(env: E, dev: Arc<D>, opts: FsOptions) -> Result<Arc<Self>, FsError> {
        check_device(dev.as_ref())?;
        let g = dev.geometry().clone();
        let replayed = metalog::replay(dev.as_ref()).await?;
        let sb = &replayed.superblock;
        if sb.block_size_bytes != g.block_size_bytes
            || sb.zone_size_bytes != g.zone_size_bytes
            || sb.zone_capacity_bytes != g.zone_capacity_bytes
            || sb.zone_count != g.zone_count
        {
            return Err(FsError::Corrupt(
                "superblock geometry differs from the device".into(),
            ));
        }
        let mut state = State::empty(&g);
        state.finish_threshold_pct = sb.finish_threshold_pct;
        state.next_file_id = replayed.next_file_id;
        let reports = dev.report_zones(0, g.zone_count);
        account_zones(dev.as_ref(), &mut state, &reports, &replayed.zone_lifetimes)?;
        let (data_end, tail_end) = data_ends(&state, &reports);
        take_files(&mut state, replayed.files, &data_end, opts.read_only)?;
        recover_tails(dev.as_ref(), &mut state, &tail_end).await?;
        if !opts.read_only {
            // Every file is complete now (cut tails dropped, unsynced ones recovered): a
            // later cut of any of them is damage. The roll below persists it.
            for f in state.files.values_mut() {
                f.meta.closed = true;
            }
        }
        let all: Vec<Extent> = state
            .files
            .values()
            .flat_map(|f| f.meta.extents.clone())
            .collect();
        state.account_extents(&all, true);
        let fs = Arc::new(Self {
            block: g.block_size_bytes,
            split_geo: dev
                .capabilities()
                .split_zones
                .map(zonedb_device::SplitZones::split_geometry),
            env: env.clone(),
            dev: dev.clone(),
            state: Mutex::new(state),
            meta: tokio::sync::Mutex::new(MetaLog {
                zone: replayed.zone,
                sequence: sb.sequence,
            }),
            tokens: tokio::sync::Notify::new(),
            gc: tokio::sync::Mutex::new(()),
            kick: Arc::new(tokio::sync::Notify::new()),
            zc_running: std::sync::atomic::AtomicBool::new(false),
            counters: Mutex::new(Counters::default()),
            extensions: crate::features::attach(&opts, &*dev),
            feature_io: tokio::sync::Mutex::new(()),
            full_read_only: std::sync::OnceLock::new(),
            page_cache: (opts.page_cache_size_bytes > 0).then(|| {
                Mutex::new(PageCache::new(
                    opts.page_cache_size_bytes,
                    opts.readahead_kb,
                ))
            }),
            opts,
        });
        if !fs.opts.read_only {
            match fs.settle_for_writing().await {
                Ok(()) => {}
                // No room for the mount's own metadata (a full host file system under a
                // file-backed device): read-only, as the engine opens a full device. The
                // metadata log is as it was (a roll writes its new zone before it lets go
                // of the old one), the layer shows what a writable mount would.
                Err(e) if e.kind() == crate::FsErrorKind::NoSpace => {
                    let _ = fs.full_read_only.set(e.to_string());
                    return Ok(fs);
                }
                Err(e) => return Err(e),
            }
            if fs.opts.cleaning_interval_ns > 0 && fs.opts.cleaner.name() != "none" {
                crate::cleaning::mechanism::spawn_background(&fs);
            }
            crate::features::start(&fs);
        }
        Ok(fs)
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// What a mount for writing does after recovery: open zones closed, split zones
    /// settled, zones without live data reset, a roll to a fresh metadata zone (persisting
    /// what recovery changed).
    async fn settle_for_writing(&self) -> Result<(), FsError> {
        let g = self.dev.geometry().clone();
        for z in self.dev.report_zones(0, g.zone_count) {
            if matches!(
                z.state,
                ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen
            ) && z.index >= META_ZONES
                && self.lock().zone(z.index).is_none_or(|a| a.split.is_none())
            {
                self.dev.manage(z.index, ZoneOp::Close).await?;
            }
        }
        self.settle_split_zones().await?;
        // Zones without live data first: recovery never waits on space it could free.
        self.reset_unused_zones().await?;
        let mut meta = self.meta.lock().await;
        self.roll(&mut meta).await
    }
}

impl State {
    pub(crate) fn empty(g: &zonedb_device::ZoneGeometry) -> Self {
        let zones = (META_ZONES..g.zone_count)
            .map(|z| ZoneAcct {
                index: z,
                start: g.zone_start(z),
                capacity: g.zone_capacity_bytes,
                wp: g.zone_start(z),
                used: 0,
                lifetime: Lifetime::NotSet,
                busy: false,
                holder: None,
                active: false,
                readers: 0,
                failed: false,
                split: None,
                threaded: None,
            })
            .collect::<Vec<_>>();
        let io = u32::try_from(zones.len()).unwrap_or(u32::MAX);
        let budget = |limit: u32| {
            if limit == 0 {
                io
            } else {
                limit.saturating_sub(RESERVED_ZONES).min(io)
            }
        };
        Self {
            files: BTreeMap::new(),
            names: BTreeMap::new(),
            zones,
            first_io_zone: META_ZONES,
            next_file_id: 1,
            open_tokens: 0,
            max_open_io: budget(g.max_open_zones),
            max_active_io: budget(g.max_active_zones),
            finish_threshold_pct: 0,
        }
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// After a remount no writer holds a subzone: every subzone left open (an SST cut by the
    /// power loss) is finished, and every split zone still open is deactivated (FINISH).
    async fn settle_split_zones(&self) -> Result<(), FsError> {
        let (open, active): (Vec<SubzoneId>, Vec<u32>) = {
            let s = self.lock();
            let mut open = Vec::new();
            let mut active = Vec::new();
            for z in &s.zones {
                let Some(split) = &z.split else { continue };
                for (i, u) in split.subs.iter().enumerate() {
                    if u.written() > 0 && u.remaining() > 0 {
                        open.push(SubzoneId {
                            zone: z.index,
                            index: u32::try_from(i).unwrap_or(u32::MAX),
                        });
                    }
                }
                if z.active {
                    active.push(z.index);
                }
            }
            (open, active)
        };
        for id in open {
            self.split_zones()?.finish_subzone(id).await?;
            if let Some(u) = self.lock().sub_mut(id) {
                u.wp = u.start + u.capacity;
            }
            self.counters().split.subzone_finishes += 1;
        }
        for zone in active {
            self.dev.manage(zone, ZoneOp::Finish).await?;
            if let Some(z) = self.lock().zone_mut(zone) {
                z.active = false;
            }
            self.counters().split.split_zone_finishes += 1;
        }
        Ok(())
    }
}

/// Takes the device's subzones of split zone `z` into its accounting (`state`: the split
/// zone's own state in the zone report: open while it holds its tokens).
fn take_split_zone(
    z: &mut ZoneAcct,
    g: &zonedb_device::splitzns::SplitZnsGeometry,
    subs: &[zonedb_device::SubzoneInfo],
    state: ZoneState,
) {
    let mut split = SplitAcct::new(z.start, g);
    for (acct, info) in split.subs.iter_mut().zip(subs) {
        acct.start = info.start;
        acct.capacity = info.capacity_bytes;
        acct.wp = info.write_pointer;
    }
    z.split = Some(split);
    z.wp = z.start;
    z.lifetime = Lifetime::NotSet;
    z.active = matches!(state, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen);
}

/// The zones' accounting from the device's report (write pointers, failed zones, lifetimes
/// replayed, active tokens; split zones from `report_subzones`).
fn account_zones<D: ZonedDevice>(
    dev: &D,
    state: &mut State,
    reports: &[zonedb_device::ZoneInfo],
    lifetimes: &BTreeMap<u32, Lifetime>,
) -> Result<(), FsError> {
    for z in &mut state.zones {
        let r = reports
            .get(z.index as usize)
            .ok_or_else(|| FsError::Corrupt("zone report too short".into()))?;
        // Each zone's own capacity (a hybrid's SSD and HDD zones differ).
        if r.capacity_bytes > 0 && r.capacity_bytes <= z.capacity {
            z.capacity = r.capacity_bytes;
        }
        z.wp = match r.state {
            ZoneState::Full | ZoneState::Offline | ZoneState::ReadOnly => z.start + z.capacity,
            _ => r.write_pointer,
        };
        z.failed = matches!(r.state, ZoneState::Offline | ZoneState::ReadOnly);
        z.lifetime = if z.written() == 0 {
            Lifetime::NotSet
        } else {
            lifetimes.get(&z.index).copied().unwrap_or_default()
        };
        z.active = z.written() > 0 && z.remaining() > 0;
        if let Some(split) = dev.capabilities().split_zones
            && let Ok(subs) = split.report_subzones(z.index)
        {
            let g = split.split_geometry();
            take_split_zone(z, &g, &subs, r.state);
        }
    }
    Ok(())
}

fn check_device<D: ZonedDevice>(dev: &D) -> Result<(), FsError> {
    let g = dev.geometry();
    if g.zone_count < META_ZONES + 3 {
        return Err(FsError::Unsupported(format!(
            "{} zones; at least {} are needed",
            g.zone_count,
            META_ZONES + 3
        )));
    }
    let io = g.zone_count - META_ZONES;
    for (what, limit) in [("open", g.max_open_zones), ("active", g.max_active_zones)] {
        if limit != 0 && limit.saturating_sub(RESERVED_ZONES).min(io) < 2 {
            return Err(FsError::Unsupported(format!(
                "max {what} zones {limit}: at least {} are needed (2 reserved for metadata and cleaning, 2 for writers)",
                RESERVED_ZONES + 2
            )));
        }
    }
    Ok(())
}

/// Recovers the tails written after the last metadata record of every file that was open for
/// writing, from the zone write pointers, and closes those files.
async fn recover_tails<D: ZonedDevice>(
    dev: &D,
    state: &mut State,
    data_end: &[u64],
) -> Result<(), FsError> {
    let g = dev.geometry().clone();
    let tails: Vec<(u64, u64, bool)> = state
        .files
        .values()
        .filter_map(|f| {
            f.meta
                .active_extent_start
                .map(|a| (f.meta.id, a, f.meta.sparse))
        })
        .collect();
    for (id, aes, sparse) in tails {
        let Some(zone) = state.zone_of(aes).and_then(|z| state.zone(z)) else {
            continue;
        };
        // The tail's region: its wide zone, or its subzone of a split zone.
        let Some(region) = zone.region_of(aes) else {
            continue;
        };
        let (index, split) = (zone.index, zone.split.is_some());
        // Never walk over extents the metadata already has (defensive: writers keep the
        // active extent start after their last extent).
        let known_end = state.files.get(&id).map_or(0, |f| {
            f.meta
                .extents
                .iter()
                .filter(|e| e.start >= region.start && e.start < region.start + region.capacity)
                .map(|e| align_up(e.start + e.len, g.block_size_bytes))
                .max()
                .unwrap_or(0)
        });
        let aes = aes.max(known_end);
        let mut end = if split {
            region.wp
        } else {
            index
                .checked_sub(state.first_io_zone)
                .and_then(|i| data_end.get(i as usize))
                .copied()
                .unwrap_or(region.wp)
        };
        // Never past data another file's metadata owns (defensive: a zone holds one writer's
        // tail at a time, so a known extent after the tail start ends it).
        if let Some(next) = state
            .files
            .values()
            .filter(|f| f.meta.id != id)
            .flat_map(|f| f.meta.extents.iter())
            .map(|e| e.start / g.block_size_bytes * g.block_size_bytes)
            .filter(|&s| s >= aes && s < end)
            .min()
        {
            end = next;
        }
        let recovered = if end > aes {
            read_tail(dev, aes, end, sparse, g.block_size_bytes).await?
        } else {
            Vec::new()
        };
        if let Some(f) = state.files.get_mut(&id) {
            for e in recovered {
                f.meta.size += e.len;
                f.push_extent(e);
            }
            f.meta.active_extent_start = None;
        }
    }
    Ok(())
}

/// Bytes of a tail read at a time at mount: 16 MiB (a shorter tail is read in one request).
const TAIL_READ_BYTES: u64 = 16 << 20;

/// The extents of the tail from `aes` to `end` ([`recover_tail`]), read in pieces of at most
/// [`TAIL_READ_BYTES`]: memory stays bounded however far the write pointer lies. Sparse
/// files' headers are taken from each piece (a header split between two pieces is joined).
async fn read_tail<D: ZonedDevice>(
    dev: &D,
    aes: u64,
    end: u64,
    sparse: bool,
    block: u64,
) -> Result<Vec<Extent>, FsError> {
    let total = end - aes;
    if total <= TAIL_READ_BYTES {
        let data = dev.read(aes, total, IoClass::BackgroundRead).await?;
        return Ok(recover_tail(aes, &data, sparse, block));
    }
    let step = TAIL_READ_BYTES.div_ceil(block.max(1)) * block.max(1);
    let mut out = Vec::new();
    // The next sparse header, relative to `aes`, and its bytes seen so far.
    let mut next: Option<u64> = sparse.then_some(0);
    let mut header: Vec<u8> = Vec::with_capacity(8);
    let mut at = 0u64;
    while at < total {
        let len = step.min(total - at);
        // Every piece is read (a read error fails the mount as a single read would).
        let data = dev.read(aes + at, len, IoClass::BackgroundRead).await?;
        while let Some(pos) = next {
            if pos + 8 > total {
                next = None;
                break;
            }
            let from = pos + header.len() as u64;
            if from >= at + len {
                break;
            }
            let i = usize::try_from(from - at).unwrap_or(usize::MAX);
            let take = (8 - header.len()).min(data.len().saturating_sub(i));
            header.extend_from_slice(data.get(i..i + take).unwrap_or_default());
            if header.len() < 8 {
                break;
            }
            let mut a = [0u8; 8];
            a.copy_from_slice(&header);
            header.clear();
            let n = u64::from_le_bytes(a);
            if n == 0 || n > total - pos - 8 {
                next = None;
                break;
            }
            out.push(Extent {
                start: aes + pos + 8,
                len: n,
            });
            next = Some(align_up(pos + 8 + n, block));
        }
        at += len;
    }
    if !sparse {
        out.push(Extent {
            start: aes,
            len: total,
        });
    }
    Ok(out)
}

/// Rebuilds the extents written after `aes` up to the write pointer (`data` = the bytes from
/// `aes` to the write pointer). Sparse files walk their 8-byte length headers; others take
/// everything (their unsynced writes are whole buffers, without padding).
pub(crate) fn recover_tail(aes: u64, data: &[u8], sparse: bool, block: u64) -> Vec<Extent> {
    if !sparse {
        return if data.is_empty() {
            Vec::new()
        } else {
            vec![Extent {
                start: aes,
                len: data.len() as u64,
            }]
        };
    }
    let mut out = Vec::new();
    let mut pos: u64 = 0;
    let total = data.len() as u64;
    while pos + 8 <= total {
        let p = usize::try_from(pos).unwrap_or(usize::MAX);
        let Some(h) = data.get(p..p + 8) else { break };
        let mut a = [0u8; 8];
        a.copy_from_slice(h);
        let len = u64::from_le_bytes(a);
        if len == 0 || pos + 8 + len > total {
            break;
        }
        out.push(Extent {
            start: aes + pos + 8,
            len,
        });
        pos = align_up(pos + 8 + len, block);
    }
    out
}

/// Takes the replayed files into `state`. A read-only mount (fsck, tools) shows the metadata
/// as it is. A writable one drops the cut tail of a file that was being written (a piece
/// persisted ahead of its data, which a crash lost) and refuses to cut a closed file: that is
/// damage ([`FsError::FileCut`]).
fn take_files(
    state: &mut State,
    files: BTreeMap<u64, FileMeta>,
    data_end: &[u64],
    read_only: bool,
) -> Result<(), FsError> {
    for (_, mut meta) in files {
        if !read_only
            && let Some(cut) = clip_to_write_pointers(&mut meta, state, data_end)
            && meta.closed
        {
            return Err(FsError::FileCut {
                file: meta.name,
                zone: cut.zone,
                extent_start: cut.extent.start,
                extent_len: cut.extent.len,
                write_pointer: cut.write_pointer,
            });
        }
        state.names.insert(meta.name.clone(), meta.id);
        state.files.insert(meta.id, FileEntry::new(meta));
    }
    Ok(())
}

/// Where a write pointer cut a file: the first extent it cut, its zone and the pointer.
#[derive(Debug, Clone, Copy)]
struct Cut {
    extent: Extent,
    zone: u32,
    write_pointer: u64,
}

/// Drops the part of a file's extents that lies at or past its zone's write pointer (an
/// extent persisted ahead of its data, lost in a crash), and every extent after it; returns
/// the first extent cut, if any.
fn clip_to_write_pointers(meta: &mut FileMeta, state: &State, data_end: &[u64]) -> Option<Cut> {
    let mut keep = Vec::with_capacity(meta.extents.len());
    let mut cut = None;
    let first = state.zones.first().map_or(0, |z| z.index);
    for e in &meta.extents {
        let zone = state.zone_of(e.start);
        let wp = match zone.and_then(|z| state.zone(z)) {
            // In a split zone, the write pointer of the extent's subzone.
            Some(z) if z.split.is_some() => z.region_of(e.start).map_or(0, |r| r.wp),
            _ => zone
                .and_then(|z| data_end.get(z.checked_sub(first)? as usize))
                .copied()
                .unwrap_or(0),
        };
        let end = e.start + e.len;
        if end <= wp {
            keep.push(*e);
            continue;
        }
        if e.start < wp {
            keep.push(Extent {
                start: e.start,
                len: wp - e.start,
            });
        }
        cut = Some(Cut {
            extent: *e,
            zone: zone.unwrap_or(u32::MAX),
            write_pointer: wp,
        });
        break;
    }
    if keep.len() != meta.extents.len() || keep.last() != meta.extents.last() {
        meta.extents = keep;
        meta.size = meta.extents.iter().map(|e| e.len).sum();
    }
    cut
}

/// Where each IO zone's data ends on the device, and where a tail may be recovered up to.
fn data_ends(state: &State, reports: &[zonedb_device::ZoneInfo]) -> (Vec<u64>, Vec<u64>) {
    // Where each zone's data ends on the device: the write pointer, also of a zone that
    // went read-only or offline (the layer counts it full, but nothing past its pointer
    // was ever written: extents there are clipped; extents below it in an offline zone are
    // kept, so reads of them fail and fsck reports the loss instead of a silent clip); a
    // full zone's capacity.
    let data_end: Vec<u64> = state
        .zones
        .iter()
        .map(|z| match reports.get(z.index as usize) {
            Some(r) if matches!(r.state, ZoneState::ReadOnly | ZoneState::Offline) => {
                r.write_pointer
            }
            _ => z.wp,
        })
        .collect();
    // Tails are recovered up to the data's end, except in an offline zone (unreadable).
    let tail_end: Vec<u64> = state
        .zones
        .iter()
        .zip(&data_end)
        .map(|(z, &end)| match reports.get(z.index as usize) {
            Some(r) if r.state == ZoneState::Offline => z.start,
            _ => end,
        })
        .collect();
    (data_end, tail_end)
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use zonedb_device::{ZoneFileDevice, ZoneGeometry, ZonedDevice};

    use super::{TAIL_READ_BYTES, read_tail, recover_tail};
    use crate::fs::align_up;

    /// Runs a future of the file-backed device (they complete at once).
    fn now<F: Future>(f: F) -> F::Output {
        match pin!(f).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("a zone file device future was pending"),
        }
    }

    /// A tail longer than a piece is recovered piece by piece exactly as in one read: sparse
    /// headers anywhere (in the first piece, past a piece boundary, after an extent spanning
    /// pieces), and a zero header ending the walk.
    #[test]
    fn a_tail_read_in_pieces_recovers_what_one_read_does() {
        let block = 4096u64;
        let g = ZoneGeometry {
            zone_count: 2,
            zone_size_bytes: 64 << 20,
            zone_capacity_bytes: 64 << 20,
            block_size_bytes: block,
            max_open_zones: 0,
            max_active_zones: 0,
            zone_append_max_bytes: 1 << 20,
        };
        let tmp = tempfile::tempdir().unwrap();
        let dev = ZoneFileDevice::create(tmp.path(), g).unwrap();
        // Sparse records: an 8-byte length, the payload, padding to the block.
        let lens: [u64; 6] = [
            100,
            TAIL_READ_BYTES - 8 - 2 * block,
            3 * block,
            TAIL_READ_BYTES + 12_345,
            5,
            20_000,
        ];
        let mut data = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            data.extend_from_slice(&len.to_le_bytes());
            data.resize(data.len() + len as usize, u8::try_from(i).unwrap() + 1);
            data.resize(align_up(data.len() as u64, block) as usize, 0);
        }
        let written = data.len() as u64;
        // Then zeros: the walk ends at a zero header.
        data.resize(data.len() + 3 * block as usize, 0);
        now(dev.write(0, &data)).unwrap();
        let end = data.len() as u64;
        assert!(end > 2 * TAIL_READ_BYTES);
        for aes in [0, align_up(8 + lens[0], block)] {
            let whole = &data[aes as usize..];
            for sparse in [true, false] {
                let pieces = now(read_tail(&dev, aes, end, sparse, block)).unwrap();
                assert_eq!(
                    pieces,
                    recover_tail(aes, whole, sparse, block),
                    "{aes} {sparse}"
                );
            }
        }
        let sparse = now(read_tail(&dev, 0, end, true, block)).unwrap();
        assert_eq!(sparse.len(), lens.len());
        assert_eq!(sparse.iter().map(|e| e.len).collect::<Vec<_>>(), lens);
        assert!(sparse.last().unwrap().start < written);
        // A length running past the write pointer ends the walk.
        let cut = now(read_tail(&dev, 0, written - block, true, block)).unwrap();
        assert_eq!(cut.len(), lens.len() - 1);
    }
}
