//! ZNS+ (OSDI'21, `../shared/reference/zoned-devices.md` §4) on the flash timing engine: the
//! in-device zone compaction command (IZC) and threaded logging's internal plugging.
//!
//! - **IZC**: the destination is written in order from its write pointer; a destination flash
//!   page whose blocks all come, in order, from one source page on the same die and plane is
//!   copied back (the die alone, `copyback_ns`, no channel); any other page is read on its
//!   source die and moved over the channels into the destination die's program
//!   (`read_program_ns` of die time in all, plus the channel transfers). No byte crosses the
//!   host link. A program unit is programmed when the command supplies its last byte, as a
//!   write's.
//! - **Threaded logging**: a zone opened with a validity bitmap takes host writes into its
//!   invalid blocks in increasing order; each die keeps its own plug pointer (the next program
//!   unit of the zone on that die) and programs every unit it passes: a fully valid unit by
//!   copyback, a unit without valid blocks or host data by padding, a unit with host data (and
//!   valid blocks read into it, `page_read_ns` first) by a program. Foreground plugging: the
//!   units before a host write on its dies; idle pre-plugging: after each request, every idle
//!   die of a threaded zone copies back its next unit if it is fully valid; close: every
//!   unit left. The zone's blocks are erased when it is opened (a fresh block per die).

use std::collections::BTreeMap;

use super::{Place, TimingEngine};

/// The parameters of a ZNS+ device. Units last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZnsPlusConfig {
    /// Die time of a copyback of one (multi-plane) page: cell read + program, no channel
    /// (ZNS+'s `vssd1.conf`: 40 + 800 µs).
    pub copyback_ns: u64,
    /// Die time of a copy through the controller (read on the source die, program on the
    /// destination die; ZNS+: 100 + 840 µs); the channel transfers come on top.
    pub read_program_ns: u64,
    /// Most blocks one IZC command copies (ZNS+: 512 pairs).
    pub max_copy_blocks: u32,
    /// Zones open for threaded logging at once (ZNS+: 6 active blocks per chip, a zone
    /// holding one per die).
    pub max_threaded_zones: u32,
}

impl ZnsPlusConfig {
    /// The reference's latencies (840 / 940 µs per page) and limits.
    pub const fn reference() -> Self {
        Self {
            copyback_ns: 840_000,
            read_program_ns: 940_000,
            max_copy_blocks: 512,
            max_threaded_zones: 6,
        }
    }
}

impl Default for ZnsPlusConfig {
    fn default() -> Self {
        Self::reference()
    }
}

/// What a ZNS+ device did (flash pages of 4 KiB blocks' program units, counted per page).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ZnsPlusStats {
    /// IZC commands.
    pub copy_commands: u64,
    /// Bytes IZC copied.
    pub copy_bytes: u64,
    /// Pages copied by copyback (IZC and plugging).
    pub copyback_pages: u64,
    /// Of those, IZC's.
    pub izc_copyback_pages: u64,
    /// Pages IZC copied by read and program.
    pub read_program_pages: u64,
    /// Pages threaded logging's plugging programmed (copyback, padding and merges).
    pub plug_pages: u64,
    /// Of those, padding (no valid data, no host data).
    pub padding_pages: u64,
    /// Zones opened for threaded logging.
    pub threaded_opens: u64,
}

/// The blocks of a zone open for threaded logging, as the device sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadedBlocks {
    /// Per block: valid when the zone was opened (the device keeps it).
    pub valid: Vec<bool>,
    /// Per block: written by the host since.
    pub written: Vec<bool>,
}

/// Per threaded zone: the next program unit of each die of the zone (in units of that die).
#[derive(Debug, Clone, Default)]
pub(crate) struct Plugger {
    next: Vec<u64>,
}

/// The ZNS+ part of a flash media.
#[derive(Debug, Clone, Default)]
pub struct ZnsPlus {
    pub(crate) config: ZnsPlusConfig,
    pub(crate) stats: ZnsPlusStats,
    pub(crate) pluggers: BTreeMap<u32, Plugger>,
}

impl ZnsPlus {
    /// A device with `config`.
    pub fn new(config: ZnsPlusConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Its parameters.
    pub fn config(&self) -> ZnsPlusConfig {
        self.config
    }

    /// Its counters.
    pub fn stats(&self) -> ZnsPlusStats {
        self.stats
    }
}

/// How a unit is programmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    /// Fully valid old data: copyback.
    Copyback,
    /// Nothing to keep: a dummy program.
    Padding,
    /// Host data (`merge`: with valid blocks read in first).
    Program { merge: bool },
}

impl TimingEngine {
    fn blocks_per_unit(&self, block: u64) -> u64 {
        (self.unit_bytes() / block.max(1)).max(1)
    }

    /// Books an IZC whose destination blocks start at zone-relative `dst` of `dst_zone` (one
    /// entry per block: its source zone and zone-relative offset), with the zone's capacity
    /// `capacity`; returns the completion time. Counts pages in `stats`.
    pub(crate) fn internal_copy(
        &mut self,
        now: u64,
        cfg: &ZnsPlusConfig,
        stats: &mut ZnsPlusStats,
        (dst_zone, dst, capacity): (u32, u64, u64),
        sources: &[(u32, u64)],
        block: u64,
    ) -> u64 {
        let g = self.layout.geometry();
        let page = g.page_size_bytes;
        let planes = u64::from(g.planes_per_die);
        let unit = self.unit_bytes();
        let per_page = (page / block).max(1);
        let xfer = self.timing.channel_xfer_ns_per_page;
        let end = dst + sources.len() as u64 * block;
        let mut done = now;
        // Units whose last byte this command supplies, plus a partial last one at capacity.
        let mut last_unit = end / unit;
        if end == capacity && !capacity.is_multiple_of(unit) {
            last_unit += 1;
        }
        for u in dst / unit..last_unit {
            let addr = self.layout.locate_in(Place::Zone(dst_zone), u * planes);
            let mut reads: BTreeMap<(u32, u64), u64> = BTreeMap::new();
            let (mut cb, mut rp) = (0u64, 0u64);
            for p in 0..planes {
                let p_start = u * unit + p * page;
                if p_start >= end || p_start >= capacity {
                    break;
                }
                let dst_plane = self.layout.locate_in(Place::Zone(dst_zone), u * planes + p);
                // The page's blocks this command supplies.
                let first = p_start.max(dst);
                let blocks: Vec<(u32, u64)> = (first / block..(p_start + page).min(end) / block)
                    .map(|b| sources[((b * block - dst) / block) as usize])
                    .collect();
                let whole = first == p_start && blocks.len() as u64 == per_page;
                let copyback = whole
                    && blocks[0].1.is_multiple_of(page)
                    && blocks.iter().enumerate().all(|(i, &(z, o))| {
                        z == blocks[0].0 && o == blocks[0].1 + i as u64 * block
                    })
                    && {
                        let s = self
                            .layout
                            .locate_in(Place::Zone(blocks[0].0), blocks[0].1 / page);
                        s.die == dst_plane.die && s.plane == dst_plane.plane
                    };
                if copyback {
                    cb += 1;
                } else {
                    rp += 1;
                    for &(z, o) in &blocks {
                        *reads.entry((z, o / page)).or_default() += block;
                    }
                }
            }
            // Read-program: source pages read on their dies and moved over the channels.
            let mut data_in = now;
            let read_part = cfg.read_program_ns.saturating_sub(cfg.copyback_ns);
            for (&(z, src_page), &bytes) in &reads {
                let s = self.layout.locate_in(Place::Zone(z), src_page);
                let (_, r_end) = self.dies[s.die as usize].book(now, read_part);
                let (_, x_end) =
                    self.channels[s.channel as usize].book(r_end, (xfer * bytes).div_ceil(page));
                data_in = data_in.max(x_end);
                self.page_ops += 1;
            }
            if rp > 0 {
                let (_, x_end) = self.channels[addr.channel as usize].book(data_in, rp * xfer);
                data_in = x_end;
            }
            let (_, p_end) = self.dies[addr.die as usize].book(data_in, cfg.copyback_ns);
            self.page_ops += cb + rp;
            stats.copyback_pages += cb;
            stats.izc_copyback_pages += cb;
            stats.read_program_pages += rp;
            done = done.max(p_end);
        }
        stats.copy_commands += 1;
        stats.copy_bytes += sources.len() as u64 * block;
        done
    }

    /// Opens `zone` for threaded logging: a fresh block on every die of the zone, erased now
    /// (the old blocks keep the valid data until close). Returns the completion time.
    pub(crate) fn threaded_open(
        &mut self,
        now: u64,
        zone: u32,
        capacity: u64,
        pluggers: &mut BTreeMap<u32, Plugger>,
    ) -> u64 {
        let dies = self.layout.dies_per_zone() as usize;
        pluggers.insert(
            zone,
            Plugger {
                next: vec![0; dies],
            },
        );
        let mut done = now;
        for (die, busy) in self.count_erases(Place::Zone(zone), capacity) {
            let (_, e) = self.dies[die as usize].book(now, busy);
            done = done.max(e);
        }
        done
    }

    fn unit_kind(&self, u: u64, blocks: &ThreadedBlocks, block: u64) -> UnitKind {
        let per = self.blocks_per_unit(block) as usize;
        let lo = (u as usize * per).min(blocks.valid.len());
        let hi = (lo + per).min(blocks.valid.len());
        let valid = blocks.valid[lo..hi].iter().filter(|v| **v).count();
        let written = blocks.written[lo..hi].iter().filter(|v| **v).count();
        if written > 0 {
            UnitKind::Program { merge: valid > 0 }
        } else if valid == hi - lo && valid > 0 {
            UnitKind::Copyback
        } else {
            UnitKind::Padding
        }
    }

    /// Programs unit `u` of threaded `zone` at or after `ready` (host data there by then).
    fn program_unit(
        &mut self,
        (zone, u): (u32, u64),
        ready: u64,
        kind: UnitKind,
        cfg: &ZnsPlusConfig,
        stats: &mut ZnsPlusStats,
        plug: bool,
    ) -> u64 {
        let planes = u64::from(self.layout.geometry().planes_per_die);
        let addr = self.layout.locate_in(Place::Zone(zone), u * planes);
        let t = &self.timing;
        let (tprog, tread, xfer) = (
            t.page_program_ns,
            t.page_read_ns,
            t.channel_xfer_ns_per_page,
        );
        let end = match kind {
            UnitKind::Copyback => {
                stats.copyback_pages += planes;
                self.dies[addr.die as usize].book(ready, cfg.copyback_ns).1
            }
            UnitKind::Padding => {
                stats.padding_pages += planes;
                self.dies[addr.die as usize].book(ready, tprog).1
            }
            UnitKind::Program { merge } => {
                let mut at = ready;
                if merge {
                    at = self.dies[addr.die as usize].book(at, tread).1;
                }
                let (_, x) = self.channels[addr.channel as usize].book(at, planes * xfer);
                self.dies[addr.die as usize].book(x, tprog).1
            }
        };
        if plug {
            stats.plug_pages += planes;
        }
        self.page_ops += planes;
        end
    }

    /// Books a host write of `len` bytes at zone-relative `off` of threaded `zone` (its blocks
    /// already marked written in `blocks`), its data in the controller at `ready`: plugs every
    /// unit before it on the dies it reaches, programs the units it completes. Returns the
    /// acknowledgement time.
    #[allow(clippy::too_many_arguments, reason = "one booking, all of it needed")]
    pub(crate) fn threaded_write(
        &mut self,
        now: u64,
        zone: u32,
        (off, len): (u64, u64),
        blocks: &ThreadedBlocks,
        block: u64,
        zp: &mut ZnsPlus,
    ) -> u64 {
        let t = self.timing.clone();
        let (_, t_cmd) = self.controller.book(now, t.controller_write_ns);
        let t_data =
            super::timing::link_transfer(&mut self.link, t.host_link_bytes_per_s, t_cmd, len);
        let mut ack = t_data + t.write_fixed_ns;
        let unit = self.unit_bytes();
        let dies = u64::from(self.layout.dies_per_zone());
        let per = self.blocks_per_unit(block);
        let end = off + len;
        let Some(mut plugger) = zp.pluggers.remove(&zone) else {
            return ack;
        };
        let cfg = zp.config;
        for u in off / unit..end.div_ceil(unit) {
            let slot = (u % dies) as usize;
            let k = u / dies;
            // Foreground plugging of the die's units before this one.
            while plugger.next[slot] < k {
                let p = plugger.next[slot] * dies + slot as u64;
                let kind = self.unit_kind(p, blocks, block);
                let e = self.program_unit((zone, p), now, kind, &cfg, &mut zp.stats, true);
                ack = ack.max(e);
                plugger.next[slot] += 1;
            }
            // The unit is programmed now if nothing after this write in it waits for the host.
            let unit_end_block = ((u + 1) * per).min(blocks.valid.len() as u64);
            let waits = (end / block..unit_end_block)
                .any(|b| !blocks.valid[b as usize] && !blocks.written[b as usize]);
            if !waits && plugger.next[slot] == k {
                let kind = self.unit_kind(u, blocks, block);
                let e = self.program_unit((zone, u), t_data, kind, &cfg, &mut zp.stats, false);
                ack = ack.max(e);
                plugger.next[slot] += 1;
            }
        }
        zp.pluggers.insert(zone, plugger);
        ack
    }

    /// Idle-time pre-plugging: every idle die of every threaded zone copies back its next unit
    /// when that unit is fully valid.
    pub(crate) fn threaded_idle<'a>(
        &mut self,
        now: u64,
        zones: impl Iterator<Item = (u32, &'a ThreadedBlocks)>,
        block: u64,
        zp: &mut ZnsPlus,
    ) {
        let dies = u64::from(self.layout.dies_per_zone());
        let per = self.blocks_per_unit(block);
        let cfg = zp.config;
        for (zone, blocks) in zones {
            let total = (blocks.valid.len() as u64).div_ceil(per);
            let Some(mut plugger) = zp.pluggers.remove(&zone) else {
                continue;
            };
            for d in 0..dies as usize {
                let p = plugger.next[d] * dies + d as u64;
                if p >= total {
                    continue;
                }
                let die = self.layout.locate_in(
                    Place::Zone(zone),
                    p * u64::from(self.layout.geometry().planes_per_die),
                );
                if self.dies[die.die as usize].free_at_ns() > now
                    || self.unit_kind(p, blocks, block) != UnitKind::Copyback
                {
                    continue;
                }
                self.program_unit(
                    (zone, p),
                    now,
                    UnitKind::Copyback,
                    &cfg,
                    &mut zp.stats,
                    true,
                );
                plugger.next[d] += 1;
            }
            zp.pluggers.insert(zone, plugger);
        }
    }

    /// Close of a threaded zone: every unit not yet programmed is plugged. Returns the
    /// completion time.
    pub(crate) fn threaded_close(
        &mut self,
        now: u64,
        zone: u32,
        blocks: &ThreadedBlocks,
        block: u64,
        zp: &mut ZnsPlus,
    ) -> u64 {
        let Some(plugger) = zp.pluggers.remove(&zone) else {
            return now;
        };
        let dies = u64::from(self.layout.dies_per_zone());
        let total = (blocks.valid.len() as u64).div_ceil(self.blocks_per_unit(block));
        let cfg = zp.config;
        let mut done = now;
        for (d, &next) in plugger.next.iter().enumerate() {
            let mut k = next;
            while k * dies + (d as u64) < total {
                let p = k * dies + d as u64;
                let kind = self.unit_kind(p, blocks, block);
                done = done.max(self.program_unit((zone, p), now, kind, &cfg, &mut zp.stats, true));
                k += 1;
            }
        }
        done
    }
}
