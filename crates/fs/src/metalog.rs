//! The metadata log: superblock + snapshot at the head of a metadata zone, then delta records;
//! rolled to another metadata zone (with a fresh snapshot) when full, and replayed at mount.

use std::collections::BTreeMap;

use zonedb_device::{IoClass, ZoneGeometry, ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::FileMeta;
use crate::fs::ZoneFs;
use crate::placement::Lifetime;
use crate::record::{Record, Superblock, Unframed, unframe};
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
        if head.len() as u64 > g.zone_capacity_bytes {
            return Err(FsError::MetadataTooLarge {
                needed: head.len() as u64,
                capacity: g.zone_capacity_bytes,
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

/// Reads every metadata zone and replays the newest one that starts with a valid superblock
/// and a snapshot. A record with a bad checksum, a torn frame or an undecodable payload ends
/// the log there (the tail written last is lost, the mount succeeds).
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
        let data = dev
            .read(
                info.start,
                info.write_pointer - info.start,
                IoClass::BackgroundRead,
            )
            .await?;
        let Unframed::Record(payload, n) = unframe(&data, block) else {
            continue;
        };
        if let Ok(Record::Superblock(sb)) = Record::decode(payload) {
            heads.push((sb.sequence, z, sb, data, n));
        }
    }
    heads.sort_by_key(|h| std::cmp::Reverse(h.0));
    for (_, zone, sb, data, mut pos) in heads {
        let mut records = Vec::new();
        while let Some(rest) = data.get(pos..) {
            if rest.is_empty() {
                break;
            }
            if let Unframed::Record(payload, n) = unframe(rest, block)
                && let Ok(rec) = Record::decode(payload)
            {
                records.push(rec);
                pos += n;
                continue;
            }
            // A bad record. The last one is a torn tail: cut it off. One with valid records
            // after it is damage in the middle of the log: replaying around it could hand a
            // file bytes that belong to another, so refuse.
            if valid_record_after(&data, pos, block) {
                return Err(FsError::Corrupt(format!(
                    "metadata zone {zone}: record at byte {pos} is damaged and later records exist"
                )));
            }
            break;
        }
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

/// Whether a valid record starts at any block boundary after `pos`.
fn valid_record_after(data: &[u8], pos: usize, block: u64) -> bool {
    let step = usize::try_from(block).unwrap_or(4096).max(1);
    let mut p = pos + step;
    while let Some(rest) = data.get(p..) {
        if rest.is_empty() {
            break;
        }
        if let Unframed::Record(payload, _) = unframe(rest, block)
            && Record::decode(payload).is_ok()
        {
            return true;
        }
        p += step;
    }
    false
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
