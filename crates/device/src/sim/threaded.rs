//! ZNS+'s commands on the simulated device (media with [`Media::znsplus`]): the in-device zone
//! compaction (IZC, [`crate::InDeviceCopy::copy`]) and threaded logging
//! ([`crate::InDeviceCopy::threaded_open`], then [`crate::InDeviceCopy::write_sparse`] into the
//! zone's invalid blocks in increasing order). The flash timing is in [`crate::flash::znsplus`];
//! here the zone rules and the bytes.
//!
//! A threaded zone keeps its old bytes in the payload and the host's new bytes beside them (an
//! overlay), until it is closed (finished, or filled to its capacity): then the device's
//! plugging is complete and the zone's bytes are written back as one string. Reads of a
//! threaded zone may go past the write pointer into blocks that were valid when it opened; a
//! power loss drops the overlay's lost writes only (the old bytes stay where they were, as the
//! old flash blocks do until close), and the device closes every threaded zone at power-up:
//! it comes back full, its lost and unwritten blocks padding.

use std::collections::BTreeMap;

use zonedb_env::Env;

use super::device::{SimZonedDevice, State};
use super::media::{Completion, Media};
use super::threaded_zone::{Source, ThreadedZone};
use crate::flash::ThreadedBlocks;
use crate::zone::ZoneState;
use crate::{DeviceError, ElidedBytes};

fn refused(zone: u32, command: &'static str, reason: &'static str) -> DeviceError {
    DeviceError::ZnsPlus {
        zone,
        command,
        reason,
    }
}

fn unsupported(command: &'static str) -> DeviceError {
    DeviceError::Unsupported { command }
}

impl<E: Env, M: Media> SimZonedDevice<E, M> {
    /// Whether `[offset, offset + len)` of threaded zone `zone` may be read: below the write
    /// pointer, or blocks that were valid when it opened. `None` when the zone is not threaded.
    pub(crate) fn threaded_readable(
        s: &State<M>,
        zone: u32,
        offset: u64,
        len: u64,
    ) -> Option<Result<(), DeviceError>> {
        let t = s.threaded.get(&zone)?;
        let g = s.table.geometry();
        let start = g.zone_start(zone);
        let block = g.block_size_bytes;
        let wp = s.table.info(zone).map_or(start, |i| i.write_pointer);
        let end = offset + len;
        if end > start + g.zone_capacity_bytes || offset < start {
            return Some(Err(DeviceError::CrossesZoneEnd { zone, offset, len }));
        }
        let ok = (offset.max(wp)..end)
            .step_by(block as usize)
            .all(|o| t.source(((o - start) / block) as usize) == Source::Old);
        Some(if ok {
            Ok(())
        } else {
            Err(DeviceError::ReadBeyondWritePointer {
                zone,
                offset,
                len,
                write_pointer: wp,
            })
        })
    }

    /// The bytes of `[offset, offset + len)` of `zone`, a threaded zone's assembled from its
    /// old bytes, the overlay and padding.
    pub(crate) fn zone_bytes(
        &self,
        zone: u32,
        offset: u64,
        len: u64,
    ) -> Result<ElidedBytes, DeviceError> {
        let (start, runs) = {
            let s = self.lock();
            let start = s.table.geometry().zone_start(zone);
            let block = s.table.geometry().block_size_bytes;
            let Some(t) = s.threaded.get(&zone) else {
                drop(s);
                return self.payload.read_elided(zone, start, offset, len);
            };
            // Runs of one source, with the overlay's bytes taken now.
            let mut runs: Vec<(Source, u64, u64, Option<ElidedBytes>)> = Vec::new();
            let mut at = offset;
            while at < offset + len {
                let src = t.source(((at - start) / block) as usize);
                let mut run_end = at + block;
                while run_end < offset + len
                    && t.source(((run_end - start) / block) as usize) == src
                {
                    run_end += block;
                }
                let run_end = run_end.min(offset + len);
                let new = (src == Source::New).then(|| {
                    let mut out = ElidedBytes::new();
                    t.overlay_range(at, run_end - at, &mut out);
                    out
                });
                runs.push((src, at, run_end - at, new));
                at = run_end;
            }
            (start, runs)
        };
        let mut out = ElidedBytes::new();
        for (src, at, n, new) in runs {
            match (src, new) {
                (Source::Old, _) => out.push(&self.payload.read_elided(zone, start, at, n)?),
                (Source::New, Some(bytes)) => out.push(&bytes),
                _ => out.push_hole(n),
            }
        }
        Ok(out)
    }

    /// Admits an IZC of the device ranges `sources` to the write pointer of `dest`: returns
    /// the destination offset and the completion.
    pub(crate) fn admit_copy(
        &self,
        sources: &[(u64, u64)],
        dest: u32,
    ) -> Result<(u32, u64, Completion), DeviceError> {
        const CMD: &str = "internal copy";
        let now = self.env.now();
        let mut s = self.lock();
        let g = s.table.geometry().clone();
        let block = g.block_size_bytes;
        let Some((_, zp)) = s.media.znsplus() else {
            return Err(unsupported("simple copy"));
        };
        let max = u64::from(zp.config.max_copy_blocks);
        let mut blocks: Vec<(u32, u64)> = Vec::new();
        for &(off, len) in sources {
            let zone = g.zone_of(off).ok_or(DeviceError::OutOfRange {
                what: "offset",
                value: off,
                limit: g.device_size_bytes(),
            })?;
            match Self::threaded_readable(&s, zone, off, len) {
                Some(r) => r?,
                None => {
                    s.table.check_read(off, len)?;
                }
            }
            if len == 0 || !len.is_multiple_of(block) {
                return Err(DeviceError::Unaligned {
                    offset: off,
                    len,
                    block_size: block,
                });
            }
            let start = g.zone_start(zone);
            blocks.extend((0..len / block).map(|i| (zone, off - start + i * block)));
            if blocks.len() as u64 > max {
                return Err(refused(dest, CMD, "more blocks than one command copies"));
            }
        }
        if blocks.is_empty() {
            return Err(refused(dest, CMD, "nothing to copy"));
        }
        if s.threaded.contains_key(&dest) {
            return Err(refused(
                dest,
                CMD,
                "the destination is open for threaded logging",
            ));
        }
        let len = blocks.len() as u64 * block;
        let wp = s.table.info(dest)?.write_pointer;
        let adm = s.table.admit_write(wp, len)?;
        let start = g.zone_start(dest);
        let rel = adm.offset - start;
        let State {
            media,
            programmed,
            in_flight,
            stats,
            ..
        } = &mut *s;
        let (engine, zp) = media.znsplus().ok_or_else(|| unsupported("simple copy"))?;
        let cfg = zp.config;
        let done = engine.internal_copy(
            now,
            &cfg,
            &mut zp.stats,
            (dest, rel, g.zone_capacity_bytes),
            &blocks,
            block,
        );
        programmed[dest as usize] = rel + len;
        in_flight[dest as usize].push_back((adm.offset, len, Completion::At(done)));
        stats.page_ops = media.page_ops();
        drop(s);
        let mut bytes = ElidedBytes::new();
        for &(off, len) in sources {
            let zone = g.zone_of(off).unwrap_or(0);
            bytes.push(&self.zone_bytes(zone, off, len)?);
        }
        self.payload.write_elided(dest, start, adm.offset, &bytes)?;
        Ok((dest, adm.offset, Completion::At(done)))
    }

    /// Admits the opening of full zone `zone` for threaded logging with its per-block validity.
    pub(crate) fn admit_threaded_open(
        &self,
        zone: u32,
        valid: &[bool],
    ) -> Result<Completion, DeviceError> {
        const CMD: &str = "threaded open";
        let now = self.env.now();
        let mut s = self.lock();
        let g = s.table.geometry().clone();
        let Some((_, zp)) = s.media.znsplus() else {
            return Err(unsupported("sparse write"));
        };
        let max = zp.config.max_threaded_zones as usize;
        let info = s.table.info(zone)?;
        if info.state != ZoneState::Full {
            return Err(refused(zone, CMD, "the zone is not full"));
        }
        if valid.len() as u64 != g.zone_capacity_bytes / g.block_size_bytes {
            return Err(refused(
                zone,
                CMD,
                "the bitmap is not one bit per block of the capacity",
            ));
        }
        if s.threaded.len() >= max {
            return Err(refused(
                zone,
                CMD,
                "too many zones open for threaded logging",
            ));
        }
        if g.max_open_zones > 0 && s.table.open_count() >= g.max_open_zones {
            return Err(DeviceError::TooManyOpen {
                zone,
                limit: g.max_open_zones,
            });
        }
        if g.max_active_zones > 0 && s.table.active_count() >= g.max_active_zones {
            return Err(DeviceError::TooManyActive {
                zone,
                limit: g.max_active_zones,
            });
        }
        let start = g.zone_start(zone);
        s.table.resync(zone, ZoneState::ExplicitlyOpen, start)?;
        let State {
            media,
            threaded,
            checker,
            table,
            stats,
            ..
        } = &mut *s;
        let (engine, zp) = media.znsplus().ok_or_else(|| unsupported("sparse write"))?;
        let done = engine.threaded_open(now, zone, g.zone_capacity_bytes, &mut zp.pluggers);
        zp.stats.threaded_opens += 1;
        stats.block_erases = media.block_erases();
        threaded.insert(
            zone,
            ThreadedZone {
                blocks: ThreadedBlocks {
                    valid: valid.to_vec(),
                    written: vec![false; valid.len()],
                },
                overlay: BTreeMap::new(),
            },
        );
        checker.check(table, "after threaded open", Some(zone));
        Ok(Completion::At(done))
    }

    /// Admits a host write into threaded zone `zone` at `offset` (at or past the write
    /// pointer, into blocks invalid when the zone opened); `None` when the zone is not
    /// threaded. Returns (zone, offset, completion).
    pub(crate) fn admit_threaded_write(
        &self,
        zone: u32,
        offset: u64,
        data: &ElidedBytes,
    ) -> Option<Result<(u32, u64, Completion), DeviceError>> {
        const CMD: &str = "threaded write";
        let now = self.env.now();
        let mut s = self.lock();
        if !s.threaded.contains_key(&zone) {
            return None;
        }
        let g = s.table.geometry().clone();
        let block = g.block_size_bytes;
        let start = g.zone_start(zone);
        let len = data.len();
        let result = (|| {
            let wp = s.table.info(zone)?.write_pointer;
            if offset < wp {
                return Err(refused(zone, CMD, "below the write pointer"));
            }
            if len == 0 || !len.is_multiple_of(block) || !(offset - start).is_multiple_of(block) {
                return Err(DeviceError::Unaligned {
                    offset,
                    len,
                    block_size: block,
                });
            }
            if offset + len > start + g.zone_capacity_bytes {
                return Err(DeviceError::BeyondCapacity {
                    zone,
                    offset,
                    len,
                    capacity_end: start + g.zone_capacity_bytes,
                });
            }
            let t = &s.threaded[&zone];
            let (b0, b1) = (
                ((offset - start) / block) as usize,
                ((offset + len - start) / block) as usize,
            );
            if (b0..b1).any(|b| t.blocks.valid[b] || t.blocks.written[b]) {
                return Err(refused(zone, CMD, "a block it writes holds valid data"));
            }
            if offset > wp {
                let state = s.table.info(zone)?.state;
                s.table.resync(zone, state, offset)?;
            }
            let adm = s.table.admit_write(offset, len)?;
            let State {
                media,
                threaded,
                programmed,
                in_flight,
                stats,
                ..
            } = &mut *s;
            {
                let t = threaded
                    .get_mut(&zone)
                    .ok_or(DeviceError::Corrupt("threaded zone"))?;
                for b in b0..b1 {
                    t.blocks.written[b] = true;
                }
                t.overlay.insert(offset, data.clone());
            }
            let mine = &threaded[&zone].blocks;
            let (engine, zp) = media.znsplus().ok_or_else(|| unsupported("sparse write"))?;
            let mut done = engine.threaded_write(now, zone, (offset - start, len), mine, block, zp);
            engine.threaded_idle(
                now,
                threaded.iter().map(|(&z, t)| (z, &t.blocks)),
                block,
                zp,
            );
            let full = adm.offset + len == start + g.zone_capacity_bytes;
            if full {
                done = done.max(engine.threaded_close(now, zone, mine, block, zp));
            }
            programmed[zone as usize] = g.zone_capacity_bytes;
            in_flight[zone as usize].push_back((adm.offset, len, Completion::At(done)));
            stats.bytes_written += len;
            stats.writes += 1;
            stats.page_ops = media.page_ops();
            Ok((adm.offset, done, full))
        })();
        drop(s);
        Some(result.and_then(|(off, done, full)| {
            if full {
                self.close_threaded(zone)?;
            }
            Ok((zone, off, Completion::At(done)))
        }))
    }

    /// Admits a sparse write: into a threaded zone, else refused.
    pub(crate) fn admit_sparse(
        &self,
        offset: u64,
        data: &ElidedBytes,
    ) -> Result<(u32, u64, Completion), DeviceError> {
        let zone = {
            let s = self.lock();
            if s.media.znsplus_ref().is_none() {
                return Err(unsupported("sparse write"));
            }
            s.table
                .geometry()
                .zone_of(offset)
                .ok_or(DeviceError::OutOfRange {
                    what: "offset",
                    value: offset,
                    limit: s.table.geometry().device_size_bytes(),
                })?
        };
        self.admit_threaded_write(zone, offset, data)
            .unwrap_or(Err(refused(
                zone,
                "sparse write",
                "the zone is not open for threaded logging",
            )))
    }

    /// Ends threaded logging in `zone` (its plugging booked by the caller): its bytes are
    /// written back as one string and the overlay dropped.
    pub(crate) fn close_threaded(&self, zone: u32) -> Result<(), DeviceError> {
        let (start, cap) = {
            let s = self.lock();
            if !s.threaded.contains_key(&zone) {
                return Ok(());
            }
            let g = s.table.geometry();
            (g.zone_start(zone), g.zone_capacity_bytes)
        };
        let bytes = self.zone_bytes(zone, start, cap)?;
        self.lock().threaded.remove(&zone);
        self.payload.discard_zone(zone);
        self.payload.write_elided(zone, start, start, &bytes)
    }

    /// Books the plugging of threaded `zone`'s remaining units at a finish; returns the
    /// completion, `None` when the zone is not threaded.
    pub(crate) fn plug_rest(s: &mut State<M>, now: u64, zone: u32) -> Option<u64> {
        let block = s.table.geometry().block_size_bytes;
        let State {
            media, threaded, ..
        } = s;
        let t = threaded.get(&zone)?;
        let (engine, zp) = media.znsplus()?;
        Some(engine.threaded_close(now, zone, &t.blocks, block, zp))
    }

    /// A power loss in threaded `zone` from device offset `lost_from` on: the overlay's writes
    /// there are gone (the old bytes stay).
    pub(crate) fn threaded_lost(s: &mut State<M>, zone: u32, lost_from: u64) -> bool {
        let start = s.table.geometry().zone_start(zone);
        let block = s.table.geometry().block_size_bytes;
        let Some(t) = s.threaded.get_mut(&zone) else {
            return false;
        };
        t.overlay.retain(|&off, _| off < lost_from);
        if let Some((&off, bytes)) = t.overlay.iter_mut().next_back()
            && off + bytes.len() > lost_from
        {
            *bytes = bytes.slice(0, lost_from - off);
        }
        let from = ((lost_from.max(start) - start) / block) as usize;
        for w in t.blocks.written.iter_mut().skip(from) {
            *w = false;
        }
        true
    }
}
