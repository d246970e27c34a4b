//! The metadata log: superblock + snapshot at the head of a metadata zone, then delta records;
//! rolled to another metadata zone (with a fresh snapshot) when full, and replayed at mount.

use std::collections::BTreeMap;

use zonedb_device::{IoClass, ZoneGeometry, ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::FileMeta;
use crate::fs::ZoneFs;
use crate::placement::policy::Lifetime;
use crate::record::{FRAME_HEADER_BYTES, Record, Superblock, Unframed, unframe};
use crate::state::State;

/// Zones at the start of the device that hold the metadata log (as ZenFS).
pub const META_ZONES: u32 = 3;

/// Where the log is being appended.
#[derive(Debug)]
pub struct MetaLog {
    /// Current metadata zone.
    pub zone: u32,
    /// Sequence of its superblock.
    pub sequence: u64,
}

/// The framed superblock and snapshot that open a metadata zone.
pub(crate) fn superblock_and_snapshot(
    g: &ZoneGeometry,
    sequence: u64,
    finish_threshold_pct: u32,
    state: &State,
    block: u64,
) -> Vec<u8> {
    let sb = Record::Superblock(Superblock {
        sequence,
        block_size_bytes: g.block_size_bytes,
        zone_size_bytes: g.zone_size_bytes,
        zone_capacity_bytes: g.zone_capacity_bytes,
        zone_count: g.zone_count,
        finish_threshold_pct,
    });
    let snapshot = Record::Snapshot {
        next_file_id: state.next_file_id,
        files: state.files.values().map(|f| f.meta.clone()).collect(),
        zone_lifetimes: state
            .zones
            .iter()
            .filter(|z| z.written() > 0)
            .map(|z| (z.index, z.lifetime))
            .collect(),
    };
    let mut out = sb.frame(block);
    out.extend(snapshot.frame(block));
    out
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Appends `rec` to the metadata log (rolling to a fresh zone when it does not fit: the
    /// roll's snapshot already holds the change). The caller holds the metadata lock and has
    /// applied the change in memory. Durable only at the next device flush (a crash may lose
    /// it, or leave it torn at the log's end, which replay cuts off).
    pub(crate) async fn persist(&self, meta: &mut MetaLog, rec: Record) -> Result<(), FsError> {
        self.check_writable()?;
        let framed = rec.frame(self.block);
        if framed.len() as u64 > MAX_RECORD_BYTES {
            return Err(FsError::MetadataTooLarge {
                needed: framed.len() as u64,
                capacity: MAX_RECORD_BYTES,
            });
        }
        let info = self
            .dev
            .report_zones(meta.zone, 1)
            .first()
            .copied()
            .ok_or_else(|| FsError::Corrupt("metadata zone missing".into()))?;
        let cap_end = info.start + info.capacity_bytes;
        if info.write_pointer + framed.len() as u64 > cap_end
            || info.state == zonedb_device::ZoneState::Full
        {
            return self.roll(meta).await;
        }
        self.dev.write(info.write_pointer, &framed).await?;
        let mut c = self.counters();
        c.metadata_bytes += framed.len() as u64;
        c.device_bytes += framed.len() as u64;
        Ok(())
    }

    /// [`ZoneFs::persist`], durable on return: everything written before (the data the record
    /// describes included) is flushed before the record is written, and the record after.
    pub(crate) async fn persist_durable(
        &self,
        meta: &mut MetaLog,
        rec: Record,
    ) -> Result<(), FsError> {
        self.check_writable()?;
        self.sync_device().await?;
        self.persist(meta, rec).await?;
        self.sync_device().await
    }

    /// Writes a superblock (sequence + 1) and a full snapshot into another metadata zone, then
    /// resets the old one.
    pub(crate) async fn roll(&self, meta: &mut MetaLog) -> Result<(), FsError> {
        let g = self.dev.geometry().clone();
        let next = (1..META_ZONES)
            .map(|i| (meta.zone + i) % META_ZONES)
            .find(|&z| {
                self.dev.report_zones(z, 1).first().is_some_and(|i| {
                    i.state != zonedb_device::ZoneState::Offline
                        && i.state != zonedb_device::ZoneState::ReadOnly
                })
            });
        let Some(next) = next else {
            return Err(FsError::Corrupt(
                "no usable metadata zone to roll to".into(),
            ));
        };
        let head = {
            let s = self.lock();
            superblock_and_snapshot(
                &g,
                meta.sequence + 1,
                s.finish_threshold_pct,
                &s,
                self.block,
            )
        };
        // (Replay reads no record longer than MAX_RECORD_BYTES.)
        let room = g.zone_capacity_bytes.min(MAX_RECORD_BYTES);
        if head.len() as u64 > room {
            return Err(FsError::MetadataTooLarge {
                needed: head.len() as u64,
                capacity: room,
            });
        }
        if self
            .dev
            .report_zones(next, 1)
            .first()
            .is_some_and(|i| i.write_pointer != i.start)
        {
            self.dev.manage(next, ZoneOp::Reset).await?;
        }
        self.dev.write(g.zone_start(next), &head).await?;
        // The new superblock and snapshot are durable before the old log is reset.
        self.sync_device().await?;
        let old = meta.zone;
        meta.zone = next;
        meta.sequence += 1;
        {
            let mut c = self.counters();
            c.metadata_bytes += head.len() as u64;
            c.device_bytes += head.len() as u64;
        }
        // A metadata zone that went read-only keeps its older superblock (replay takes the
        // newest); it cannot be reset, and need not be.
        if self.dev.report_zones(old, 1).first().is_some_and(|i| {
            i.write_pointer != i.start
                && !matches!(
                    i.state,
                    zonedb_device::ZoneState::ReadOnly | zonedb_device::ZoneState::Offline
                )
        }) {
            self.dev.manage(old, ZoneOp::Reset).await?;
            self.counters().resets += 1;
        }
        Ok(())
    }
}

/// What mount learns from the metadata log.
#[derive(Debug)]
pub(crate) struct Replayed {
    pub(crate) superblock: Superblock,
    pub(crate) zone: u32,
    pub(crate) next_file_id: u64,
    pub(crate) files: BTreeMap<u64, FileMeta>,
    pub(crate) zone_lifetimes: BTreeMap<u32, Lifetime>,
}

/// Largest metadata record (a snapshot of every file) the log holds: 256 MiB. A frame
/// claiming more is damage (mount reads no further than this for one record).
pub const MAX_RECORD_BYTES: u64 = 256 << 20;

/// Bytes of a metadata zone read at a time at mount: 16 MiB (a log no longer than this is
/// read whole, in one request).
const READ_CHUNK_BYTES: u64 = 16 << 20;

/// A metadata zone's log from its start to its write pointer, read in pieces of
/// [`READ_CHUNK_BYTES`] (or one record's frame, when longer) as replay walks it: memory stays
/// bounded whatever the write pointer claims.
struct LogReader<'a, D> {
    dev: &'a D,
    /// Zone start and write pointer (device offsets).
    start: u64,
    end: u64,
    block: u64,
    /// Bytes from device offset `at`.
    at: u64,
    buf: Vec<u8>,
}

/// What replay finds at a position of the log.
enum Frame {
    /// A decoded record and the framed (padded) bytes it takes.
    Record(Record, u64),
    /// Zeros, a bad checksum, a frame running past the write pointer or longer than
    /// [`MAX_RECORD_BYTES`], or a payload that does not decode.
    Bad,
    /// The write pointer.
    End,
}

impl<'a, D: ZonedDevice> LogReader<'a, D> {
    fn new(dev: &'a D, start: u64, end: u64, block: u64) -> Self {
        Self {
            dev,
            start,
            end,
            block: block.max(1),
            at: start,
            buf: Vec::new(),
        }
    }

    /// The bytes from `pos` (a block boundary, relative to the zone start) to the write
    /// pointer, at least `want` of them (fewer when the write pointer comes first).
    async fn bytes(&mut self, pos: u64, want: u64) -> Result<&[u8], FsError> {
        let from = self.start.saturating_add(pos);
        let want = want.min(self.end.saturating_sub(from));
        let have = self.at + self.buf.len() as u64;
        if from < self.at || from.saturating_add(want) > have {
            let len = want
                .max(READ_CHUNK_BYTES)
                .div_ceil(self.block)
                .saturating_mul(self.block)
                .min(self.end.saturating_sub(from));
            self.buf = if len == 0 {
                Vec::new()
            } else {
                self.dev.read(from, len, IoClass::BackgroundRead).await?
            };
            self.at = from;
        }
        let skip = usize::try_from(from - self.at).unwrap_or(usize::MAX);
        Ok(self.buf.get(skip..).unwrap_or_default())
    }

    /// The frame at `pos` (relative to the zone start).
    async fn frame(&mut self, pos: u64) -> Result<Frame, FsError> {
        let block = self.block;
        let head = self.bytes(pos, FRAME_HEADER_BYTES as u64).await?;
        if head.is_empty() {
            return Ok(Frame::End);
        }
        let Some(len) = head.get(4..8) else {
            return Ok(Frame::Bad);
        };
        let len = u64::from(u32::from_le_bytes([len[0], len[1], len[2], len[3]]));
        if len > MAX_RECORD_BYTES {
            return Ok(Frame::Bad);
        }
        let data = self.bytes(pos, FRAME_HEADER_BYTES as u64 + len).await?;
        Ok(match unframe(data, block) {
            Unframed::Record(payload, n) => match Record::decode(payload) {
                Ok(rec) => Frame::Record(rec, n as u64),
                Err(_) => Frame::Bad,
            },
            Unframed::End => Frame::Bad,
        })
    }

    /// Whether a valid record starts at any block boundary after `pos`.
    async fn valid_record_after(&mut self, pos: u64) -> Result<bool, FsError> {
        let mut p = pos + self.block;
        while self.start.saturating_add(p) < self.end {
            match self.frame(p).await? {
                Frame::Record(..) => return Ok(true),
                Frame::End => break,
                Frame::Bad => p += self.block,
            }
        }
        Ok(false)
    }
}

/// Reads every metadata zone and replays the newest one that starts with a valid superblock
/// and a snapshot. A record with a bad checksum, a torn frame or an undecodable payload ends
/// the log there (the tail written last is lost, the mount succeeds). Each zone is read in
/// bounded pieces ([`LogReader`]), never whole.
pub(crate) async fn replay<D: ZonedDevice>(dev: &D) -> Result<Replayed, FsError> {
    let g = dev.geometry().clone();
    let block = g.block_size_bytes;
    let mut heads = Vec::new();
    let mut any_data = false;
    for z in 0..META_ZONES {
        let Some(info) = dev.report_zones(z, 1).first().copied() else {
            continue;
        };
        if info.write_pointer == info.start
            || matches!(info.state, zonedb_device::ZoneState::Offline)
        {
            continue;
        }
        any_data = true;
        let mut log = LogReader::new(dev, info.start, info.write_pointer, block);
        if let Frame::Record(Record::Superblock(sb), n) = log.frame(0).await? {
            heads.push((sb.sequence, z, sb, log, n));
        }
    }
    heads.sort_by_key(|h| std::cmp::Reverse(h.0));
    for (_, zone, sb, mut log, mut pos) in heads {
        let mut records = Vec::new();
        loop {
            match log.frame(pos).await? {
                Frame::End => break,
                Frame::Record(rec, n) => {
                    records.push(rec);
                    pos += n;
                }
                Frame::Bad => {
                    // A bad record. The last one is a torn tail: cut it off. One with valid
                    // records after it is damage in the middle of the log: replaying around
                    // it could hand a file bytes that belong to another, so refuse.
                    if log.valid_record_after(pos).await? {
                        return Err(FsError::Corrupt(format!(
                            "metadata zone {zone}: record at byte {pos} is damaged and later records exist"
                        )));
                    }
                    break;
                }
            }
        }
        drop(log);
        let mut it = records.into_iter();
        let Some(Record::Snapshot {
            next_file_id,
            files,
            zone_lifetimes,
        }) = it.next()
        else {
            // A roll that crashed before its snapshot: use an older zone.
            continue;
        };
        let mut r = Replayed {
            superblock: sb,
            zone,
            next_file_id,
            files: files.into_iter().map(|f| (f.id, f)).collect(),
            zone_lifetimes: zone_lifetimes.into_iter().collect(),
        };
        for rec in it {
            apply(&mut r, rec);
        }
        return Ok(r);
    }
    if any_data {
        Err(FsError::Corrupt(
            "no metadata zone holds a valid superblock and snapshot".into(),
        ))
    } else {
        Err(FsError::NotFormatted)
    }
}

fn apply(r: &mut Replayed, rec: Record) {
    match rec {
        Record::FileUpdate {
            file,
            extents_before,
        } => {
            r.next_file_id = r.next_file_id.max(file.id + 1);
            let entry = r.files.entry(file.id).or_insert_with(|| FileMeta {
                extents: Vec::new(),
                ..file.clone()
            });
            entry.extents.truncate(extents_before as usize);
            entry.extents.extend(file.extents.iter().copied());
            entry.name = file.name;
            entry.size = file.size;
            entry.lifetime = file.lifetime;
            entry.kind = file.kind;
            entry.sparse = file.sparse;
            entry.closed = file.closed;
            entry.active_extent_start = file.active_extent_start;
        }
        Record::FileReplace { id, extents } => {
            if let Some(f) = r.files.get_mut(&id) {
                f.extents = extents;
            }
        }
        Record::FileDelete { id } => {
            r.files.remove(&id);
        }
        Record::Rename { id, name } => {
            r.files.retain(|&other, f| other == id || f.name != name);
            if let Some(f) = r.files.get_mut(&id) {
                f.name = name;
            }
        }
        Record::ZoneLifetime { zone, lifetime } => {
            r.zone_lifetimes.insert(zone, lifetime);
        }
        Record::Superblock(_) | Record::Snapshot { .. } => {}
    }
}
