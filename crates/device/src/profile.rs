//! Named device profiles and scaling.
//!
//! Values come from the papers and `shared/reference/zoned-devices.md` (§9); the comment on each
//! value says where it is from. Every profile can be scaled down by `1/N`: the block (and so the
//! zone size and capacity) shrinks N times while channels, chips, planes, zone count, limits and
//! latencies stay, so the ratios zone : SST : device and the per-zone bandwidth are kept.

use crate::DeviceError;
use crate::flash::{FinishModel, FlashGeometry, FlashTiming, ResetAck, Scheduler, ZoneLayout};
use crate::sim::MediaKind;
use crate::zone::ZoneGeometry;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// Names accepted by [`Profile::by_name`].
pub const PROFILE_NAMES: [&str; 6] = [
    "splitzns-paper",
    "caza-paper",
    "oaza-paper",
    "zn540",
    "zn540-hhzs",
    "tiny",
];

/// A simulated ZNS SSD: flash geometry, timing, zone geometry and the zone-to-chip mapping.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Profile {
    /// Profile name (with the scale appended when scaled, e.g. `splitzns-paper@1/8`).
    pub name: String,
    /// Flash array shape.
    pub flash: FlashGeometry,
    /// Latencies and front-end costs.
    pub timing: FlashTiming,
    /// Zone geometry and limits.
    pub zones: ZoneGeometry,
    /// Chips each zone is striped over (ConfZNS association degree).
    pub chips_per_zone: u32,
    /// What stores the bytes. Left out of JSON for flash (the default), so the profiles
    /// printed (and hashed) before this field existed keep their bytes.
    #[serde(default, skip_serializing_if = "MediaKind::is_flash")]
    pub media: MediaKind,
    /// How queued media work is ordered. Left out of JSON for FIFO (the default), as `media`.
    #[serde(default, skip_serializing_if = "Scheduler::is_fifo")]
    pub scheduler: Scheduler,
}

/// Parses a scale written `1/N` (or `N`); returns N.
///
/// # Errors
/// [`DeviceError::InvalidConfig`] for anything else or N = 0.
pub fn parse_scale(s: &str) -> Result<u32, DeviceError> {
    let n = s.strip_prefix("1/").unwrap_or(s).trim();
    match n.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(DeviceError::InvalidConfig(format!(
            "scale '{s}' is not of the form 1/N with N >= 1"
        ))),
    }
}

impl Profile {
    /// The profile called `name`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] listing the known names.
    pub fn by_name(name: &str) -> Result<Self, DeviceError> {
        let p = match name {
            "splitzns-paper" => splitzns_paper(),
            "caza-paper" => caza_paper(),
            "oaza-paper" => oaza_paper(),
            "zn540" => zn540(),
            "zn540-hhzs" => zn540_hhzs(),
            "tiny" => tiny(),
            _ => {
                return Err(DeviceError::InvalidConfig(format!(
                    "unknown profile '{name}'; known: {} (HM-SMR disks: {})",
                    PROFILE_NAMES.join(", "),
                    crate::disk::DISK_PROFILE_NAMES.join(", ")
                )));
            }
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks geometry, zone layout and their agreement.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`].
    pub fn validate(&self) -> Result<(), DeviceError> {
        self.flash.validate()?;
        self.zones.validate()?;
        let layout = self.layout()?;
        let flash_bytes = u64::from(layout.rows_per_zone())
            * u64::from(layout.dies_per_zone())
            * u64::from(self.flash.planes_per_die)
            * self.flash.block_bytes();
        if flash_bytes < self.zones.zone_capacity_bytes {
            return Err(DeviceError::InvalidConfig(
                "zone capacity exceeds its flash".into(),
            ));
        }
        if self.zones.block_size_bytes > self.flash.page_size_bytes {
            return Err(DeviceError::InvalidConfig(
                "logical block larger than a flash page".into(),
            ));
        }
        if self.scheduler != Scheduler::Fifo && self.timing.write_buffer_bytes > 0 {
            return Err(DeviceError::InvalidConfig(format!(
                "profile {}: the per-die queue schedulers do not model a device write buffer yet",
                self.name
            )));
        }
        Ok(())
    }

    /// The zone-to-flash layout.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when chips per zone does not divide the chips.
    pub fn layout(&self) -> Result<ZoneLayout, DeviceError> {
        ZoneLayout::new(
            &self.flash,
            self.chips_per_zone,
            self.zones.zone_count,
            self.zones.zone_capacity_bytes,
        )
    }

    /// Scaled down by `1/n`: blocks, zone size and zone capacity shrink `n` times.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the sizes do not divide by `n`.
    pub fn scaled(mut self, n: u32) -> Result<Self, DeviceError> {
        if n == 1 {
            return Ok(self);
        }
        let n64 = u64::from(n);
        let bad = || {
            DeviceError::InvalidConfig(format!("profile {} cannot be scaled by 1/{n}", self.name))
        };
        if n == 0
            || !self.flash.pages_per_block.is_multiple_of(n)
            || !self.zones.zone_size_bytes.is_multiple_of(n64)
            || !self
                .zones
                .zone_capacity_bytes
                .is_multiple_of(n64 * self.zones.block_size_bytes)
        {
            return Err(bad());
        }
        self.flash.pages_per_block /= n;
        self.zones.zone_size_bytes /= n64;
        self.zones.zone_capacity_bytes /= n64;
        if !self
            .zones
            .zone_size_bytes
            .is_multiple_of(self.zones.block_size_bytes)
        {
            return Err(bad());
        }
        self.zones.zone_append_max_bytes = self
            .zones
            .zone_append_max_bytes
            .min(self.zones.zone_capacity_bytes);
        for point in &mut self.timing.reset_latency_table {
            point.0 /= n64;
        }
        self.name = format!("{}@1/{n}", self.name);
        self.validate()?;
        Ok(self)
    }

    /// With zones striped over `chips` chips instead (1 = SplitZNS-like subzones).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when `chips` does not divide the device's chips.
    pub fn with_chips_per_zone(mut self, chips: u32) -> Result<Self, DeviceError> {
        self.chips_per_zone = chips;
        self.validate()?;
        Ok(self)
    }

    /// With `chips` flash chips in all: as many channels as before or `chips` if fewer, the
    /// chips spread evenly over them, and every zone striped over all `chips` chips. Zone
    /// size, capacity and count stay, so a zone takes more block rows on fewer chips (and
    /// fewer, partly used, on more); latencies stay per chip. Unchanged when the profile
    /// already has `chips` chips striped so.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when `chips` is 0 or does not divide evenly over the
    /// channels.
    pub fn with_chips(mut self, chips: u32) -> Result<Self, DeviceError> {
        let channels = chips.min(self.flash.channels);
        if chips == 0 || !chips.is_multiple_of(channels) {
            return Err(DeviceError::InvalidConfig(format!(
                "profile {}: {chips} chips do not spread evenly over {} channels",
                self.name, self.flash.channels
            )));
        }
        self.flash.channels = channels;
        self.flash.chips_per_channel = chips / channels;
        self.chips_per_zone = chips;
        self.validate()?;
        Ok(self)
    }

    /// With erase blocks of `bytes` (whole flash pages), zones unchanged: the knob SplitZNS
    /// turns to keep a zone striped over every chip whatever its size (Fig 3: "zones with
    /// various sizes share identical I/O performance, which is achieved by adjusting the erase
    /// block size") or a zone the same size whatever the chip count (Fig 16b: 16 chips take
    /// blocks twice those of 32). Apply before [`Profile::with_zone_size`], which then lays
    /// zones over the new blocks, and before [`Profile::scaled`]. The name records the size
    /// (`splitzns-paper+block2048KiB`).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when `bytes` is not a positive whole number of pages
    /// or a zone no longer fits its flash.
    pub fn with_block_bytes(mut self, bytes: u64) -> Result<Self, DeviceError> {
        let page = self.flash.page_size_bytes;
        let pages = u32::try_from(bytes / page).unwrap_or(0);
        if !bytes.is_multiple_of(page) || pages == 0 {
            return Err(DeviceError::InvalidConfig(format!(
                "profile {}: erase block of {bytes} bytes is not a whole number of {page}-byte pages",
                self.name
            )));
        }
        if pages == self.flash.pages_per_block {
            return Ok(self);
        }
        self.flash.pages_per_block = pages;
        self.name = format!("{}+block{}KiB", self.name, bytes >> 10);
        self.validate()?;
        Ok(self)
    }

    /// With resets (and SplitZNS MERGEs) acknowledged as `ack` says. The name records
    /// `at-once` (`+reset-at-once`).
    ///
    /// # Errors
    /// As [`Profile::validate`].
    pub fn with_reset_ack(mut self, ack: ResetAck) -> Result<Self, DeviceError> {
        if ack == self.timing.reset_ack {
            return Ok(self);
        }
        self.timing.reset_ack = ack;
        if ack == ResetAck::AtOnce {
            self.name = format!("{}+reset-at-once", self.name);
        }
        self.validate()?;
        Ok(self)
    }

    /// With a block erase latency (tBERS) of `ns`: with [`Profile::with_block_bytes`], an
    /// ablation of SplitZNS's Fig 3 (blocks resized with the zone at a fixed tBERS make a
    /// byte of a small zone dearer to erase; scaled with the block, they do not). The name
    /// records it (`+erase750us`).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for 0.
    pub fn with_block_erase_ns(mut self, ns: u64) -> Result<Self, DeviceError> {
        if ns == 0 {
            return Err(DeviceError::InvalidConfig(format!(
                "profile {}: a block erase takes time (tBERS 0)",
                self.name
            )));
        }
        if ns == self.timing.block_erase_ns {
            return Ok(self);
        }
        self.timing.block_erase_ns = ns;
        self.name = format!("{}+erase{}us", self.name, ns / 1_000);
        self.validate()?;
        Ok(self)
    }

    /// With zones of `bytes` each at the same total capacity (SplitZNS Fig 3's knob): a zone
    /// takes one block row on as many chips as it fills (`bytes` over a chip's row: planes x
    /// dies x flash block), or every chip and as many rows as it needs past that; the zone
    /// count changes so that count x size stays. So 128 MiB on `splitzns-paper` is 4 chips x
    /// 4 planes x one 8 MiB block row (640 zones), 1 GiB two rows over all 16 chips (80
    /// zones). Zone capacity equals the size; open / active limits above the new count are
    /// clipped to it. The name records the size (`splitzns-paper+zone128MiB`). Apply before
    /// [`Profile::scaled`], which then shrinks the zones like any other.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile's zones have a capacity below their
    /// size, `bytes` is not a whole number of chip rows, its chips do not divide the device's,
    /// a zone wider than the device is not whole rows of all chips, or the capacity does not
    /// divide into such zones.
    pub fn with_zone_size(mut self, bytes: u64) -> Result<Self, DeviceError> {
        let bad = |why: String| {
            Err(DeviceError::InvalidConfig(format!(
                "profile {}: zone size {} MiB: {why}",
                self.name,
                bytes as f64 / MIB as f64
            )))
        };
        if self.zones.zone_capacity_bytes != self.zones.zone_size_bytes {
            return bad("the profile's zones have a capacity below their size".into());
        }
        let chip_row = u64::from(self.flash.dies_per_chip)
            * u64::from(self.flash.planes_per_die)
            * self.flash.block_bytes();
        let chips = u64::from(self.flash.chips());
        if bytes == 0 || !bytes.is_multiple_of(chip_row) {
            return bad(format!(
                "not a whole number of {} KiB chip rows",
                chip_row / KIB
            ));
        }
        let want = bytes / chip_row;
        if want <= chips && !chips.is_multiple_of(want) {
            return bad(format!("{want} chips per zone do not divide {chips} chips"));
        }
        if want > chips && !want.is_multiple_of(chips) {
            return bad(format!(
                "wider than {chips} chips but not whole rows of them"
            ));
        }
        let total = u64::from(self.zones.zone_count) * self.zones.zone_capacity_bytes;
        let Some(count) = total
            .is_multiple_of(bytes)
            .then(|| u32::try_from(total / bytes).ok())
            .flatten()
        else {
            return bad(format!(
                "the capacity of {total} bytes is not a whole number of zones"
            ));
        };
        self.chips_per_zone = u32::try_from(want.min(chips)).unwrap_or(u32::MAX);
        self.zones.zone_count = count;
        self.zones.zone_size_bytes = bytes;
        self.zones.zone_capacity_bytes = bytes;
        self.zones.zone_append_max_bytes = self.zones.zone_append_max_bytes.min(bytes);
        self.zones.max_open_zones = self.zones.max_open_zones.min(count);
        self.zones.max_active_zones = self.zones.max_active_zones.min(count);
        self.name = format!("{}+zone{}MiB", self.name, bytes / MIB);
        self.validate()?;
        Ok(self)
    }

    /// With the scheduler `scheduler` ordering queued media work.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile cannot be scheduled so.
    pub fn with_scheduler(mut self, scheduler: Scheduler) -> Result<Self, DeviceError> {
        self.scheduler = scheduler;
        self.validate()?;
        Ok(self)
    }

    /// Exposing only the first `zones` zones (HHZS uses 20 zones of its 4 TB ZN540); open /
    /// active limits above `zones` are clipped to it. The zones kept are timed as before.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when `zones` is 0 or above the profile's count.
    pub fn with_zone_count(mut self, zones: u32) -> Result<Self, DeviceError> {
        self.zones = crate::disk::clip_zone_count(&self.name, &self.zones, zones)?;
        self.validate()?;
        Ok(self)
    }

    /// With other open and active zone limits (0 = no limit), as emulators configure them
    /// (FEMU's `zns_max_open` / `zns_max_active`).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the limits are inconsistent.
    pub fn with_zone_limits(mut self, max_open: u32, max_active: u32) -> Result<Self, DeviceError> {
        self.zones.max_open_zones = max_open;
        self.zones.max_active_zones = max_active;
        self.validate()?;
        Ok(self)
    }
}

fn zones(
    zone_count: u32,
    zone_size_bytes: u64,
    zone_capacity_bytes: u64,
    max_open_zones: u32,
    max_active_zones: u32,
) -> ZoneGeometry {
    ZoneGeometry {
        zone_count,
        zone_size_bytes,
        zone_capacity_bytes,
        block_size_bytes: 4 * KIB,
        max_open_zones,
        max_active_zones,
        // FEMU / ConfZNS default ZASL (unverified for the real devices).
        zone_append_max_bytes: 128 * KIB,
    }
}

/// Plain FEMU-like flash front end: no controller cost, no host link, no write buffer.
fn femu_like(read_ns: u64, program_ns: u64, erase_ns: u64, xfer_ns: u64, link: u64) -> FlashTiming {
    FlashTiming {
        page_read_ns: read_ns,
        page_program_ns: program_ns,
        block_erase_ns: erase_ns,
        channel_xfer_ns_per_page: xfer_ns,
        host_link_bytes_per_s: link,
        controller_read_ns: 0,
        controller_write_ns: 0,
        read_fixed_ns: 0,
        write_fixed_ns: 0,
        write_buffer_bytes: 0,
        buffer_ns_per_4k: 0,
        zone_mgmt_ns: 0,
        finish: FinishModel::MetadataOnly,
        reset_latency_table: Vec::new(),
        reset_ack: ResetAck::AfterErase,
    }
}

/// SplitZNS (TACO'23) Table 1 / §5.1 on FEMU: 8 ch × 2 chips × 4 planes, 16 KiB pages, 8 MiB
/// blocks, tR 35 µs, tPROG 960 µs, tBERS 3 ms, 160 zones of 512 MiB, 24 open / 24 active.
/// Channel transfer 25 µs per 16 KiB page is ConfZNS's default (unverified for the paper);
/// FEMU models no host link.
fn splitzns_paper() -> Profile {
    Profile {
        name: "splitzns-paper".into(),
        flash: FlashGeometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 4,
            page_size_bytes: 16 * KIB,
            pages_per_block: 512,
        },
        timing: femu_like(35 * US, 960 * US, 3 * MS, 25 * US, 0),
        zones: zones(160, 512 * MIB, 512 * MIB, 24, 24),
        chips_per_zone: 16,
        media: MediaKind::Flash,
        scheduler: Scheduler::Fifo,
    }
}

/// Same-zone compaction paper (§VII.A) on ConfZNS: 16 dies (8 ch × 2), 4 planes (ConfZNS
/// default), 16 KiB pages, tR 65 µs, tPROG 450 µs, tBERS 2 ms, 1 GiB zones, 62 zones ≈ 67 GB,
/// 25 µs channel transfer and the 4034 MB/s PCIe model of ConfZNS, no open/active limits
/// (ConfZNS default).
fn caza_paper() -> Profile {
    Profile {
        name: "caza-paper".into(),
        flash: FlashGeometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 4,
            page_size_bytes: 16 * KIB,
            pages_per_block: 1024,
        },
        timing: femu_like(65 * US, 450 * US, 2 * MS, 25 * US, 4_034_000_000),
        zones: zones(62, GIB, GIB, 0, 0),
        chips_per_zone: 16,
        media: MediaKind::Flash,
        scheduler: Scheduler::Fifo,
    }
}

/// OAZA slides' simulated SSD: 8 ch × 2 chips × 2 dies × 4 planes, 256 blocks per plane, 256
/// pages per block, 4 KiB pages, 256 zones of 128 MiB (zone parallelism 32 dies). Latencies are
/// not given: FEMU's defaults (40 µs read, 200 µs program, 2 ms erase) and a 25 µs per 16 KiB
/// channel rate are used (unverified).
fn oaza_paper() -> Profile {
    Profile {
        name: "oaza-paper".into(),
        flash: FlashGeometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 4,
            page_size_bytes: 4 * KIB,
            pages_per_block: 256,
        },
        timing: femu_like(40 * US, 200 * US, 2 * MS, 6_250, 0),
        zones: zones(256, 128 * MIB, 128 * MIB, 0, 0),
        chips_per_zone: 16,
        media: MediaKind::Flash,
        scheduler: Scheduler::Fifo,
    }
}

/// WD Ultrastar DC ZN540-like, calibrated to published measurements (reference §9.1): 904
/// zones of 2 GiB with 1077 MiB capacity, 14 open / 14 active, every zone over all 32 dies
/// (8 ch × 4 LUN), 96 KiB one-shot TLC programs (3 × 32 KiB) of 2.6 ms so writes cap near
/// 1.2 GB/s, tR 50 µs, controller 2.3 µs per read (436 K IOPS) and 7.5 µs per write, 400 MB/s
/// per channel so that QD1 reads take 74 µs (4 KiB) and 105 µs (16 KiB), PCIe 3.05 GB/s, a
/// 3 MiB write buffer acknowledging 4 KiB writes in ≈ 11 µs, resets interpolated from the
/// measured table, finish padding at ≈ 1190 MiB/s.
fn zn540() -> Profile {
    let timing = FlashTiming {
        page_read_ns: 50 * US,
        page_program_ns: 2_600 * US,
        block_erase_ns: 3_500 * US,
        // 32 KiB at 400 MB/s.
        channel_xfer_ns_per_page: 81_920,
        host_link_bytes_per_s: 3_050_000_000,
        controller_read_ns: 2_300,
        controller_write_ns: 7_500,
        read_fixed_ns: 11_700,
        write_fixed_ns: 2_000,
        write_buffer_bytes: 3 * MIB,
        buffer_ns_per_4k: 600,
        zone_mgmt_ns: 11 * US,
        finish: FinishModel::Pad {
            base_ns: 2_500 * US,
            ns_per_mib: 840 * US,
        },
        reset_latency_table: vec![
            (0, 1_600 * US),
            (4 * KIB, 1_660 * US),
            (67 * MIB, 5_100 * US),
            (135 * MIB, 6_900 * US),
            (269 * MIB, 8_700 * US),
            (538 * MIB, 12_200 * US),
            (1077 * MIB, 16_900 * US),
        ],
        reset_ack: ResetAck::AfterErase,
    };
    Profile {
        name: "zn540".into(),
        flash: FlashGeometry {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 1,
            planes_per_die: 3,
            page_size_bytes: 32 * KIB,
            pages_per_block: 384,
        },
        timing,
        zones: zones(904, 2 * GIB, 1077 * MIB, 14, 14),
        chips_per_zone: 32,
        media: MediaKind::Flash,
        scheduler: Scheduler::Fifo,
    }
}

/// The ZN540 of the HHZS paper (`shared/papers/002_…`, Table 1: a 4 TB unit measured with fio
/// at QD1: 1039.6 MiB/s sequential 1 MiB reads, 1002.8 MiB/s sequential 1 MiB writes, 16,928
/// random 4 KiB reads/s, 1077 MiB zone capacity). `zn540` is kept as it is: it is calibrated to
/// another unit's measurements (74 µs per QD1 4 KiB read, io_uring polled; reference §9.1) and
/// a CLI test pins them; on Table 1's workloads it gives 1112 MiB/s, 1057 MiB/s and 13.2 K
/// reads/s. This profile is `zn540` with four effective values fitted to Table 1 (fitted, not
/// measured component by component):
///
/// - no fixed per-read firmware cost and tR 44.9 µs (instead of 11.7 µs and 50 µs), so a QD1
///   4 KiB read takes 59 µs;
/// - a host link of 2.48 GB/s (instead of 3.05 GB/s), so a QD1 1 MiB read streams at
///   1039.6 MiB/s (the 1 MiB path of fio is slower than the polled 4 KiB one);
/// - tPROG 2.74 ms (instead of 2.6 ms), so QD1 1 MiB writes settle at 1002.8 MiB/s;
/// - 3,616 zones, four times the 904 of the measured 1 TB-class unit (unverified; HHZS uses only
///   20 of them, a scenario's `zone_count`).
fn zn540_hhzs() -> Profile {
    let base = zn540();
    Profile {
        name: "zn540-hhzs".into(),
        timing: FlashTiming {
            page_read_ns: 44_880,
            read_fixed_ns: 0,
            host_link_bytes_per_s: 2_477_500_000,
            page_program_ns: 2_740 * US,
            ..base.timing
        },
        zones: ZoneGeometry {
            zone_count: 3_616,
            ..base.zones
        },
        ..base
    }
}

/// A small device for tests: 2 ch × 2 chips × 2 planes, 4 KiB pages, 16 zones of 256 KiB with
/// 192 KiB capacity, 3 open / 4 active.
fn tiny() -> Profile {
    Profile {
        name: "tiny".into(),
        flash: FlashGeometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            page_size_bytes: 4 * KIB,
            pages_per_block: 8,
        },
        timing: FlashTiming {
            zone_mgmt_ns: 5 * US,
            ..femu_like(20 * US, 100 * US, 500 * US, 4 * US, 0)
        },
        zones: ZoneGeometry {
            zone_append_max_bytes: 32 * KIB,
            ..zones(16, 256 * KIB, 192 * KIB, 3, 4)
        },
        chips_per_zone: 4,
        media: MediaKind::Flash,
        scheduler: Scheduler::Fifo,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_profile_is_valid() {
        for name in PROFILE_NAMES {
            let p = Profile::by_name(name).unwrap();
            assert_eq!(p.name, name);
        }
        assert!(Profile::by_name("nope").is_err());
    }

    #[test]
    fn paper_profiles_have_the_papers_sizes() {
        let s = Profile::by_name("splitzns-paper").unwrap();
        assert_eq!(s.zones.usable_bytes(), 80 * GIB);
        assert_eq!(s.layout().unwrap().rows_per_zone(), 1);
        let c = Profile::by_name("caza-paper").unwrap();
        assert!((c.zones.usable_bytes() as f64 / 1e9 - 67.0).abs() < 1.0);
        let o = Profile::by_name("oaza-paper").unwrap();
        assert_eq!(o.zones.usable_bytes(), 32 * GIB);
        assert_eq!(o.layout().unwrap().dies_per_zone(), 32);
        let z = Profile::by_name("zn540").unwrap();
        assert_eq!(z.zones.zone_capacity_bytes, 1077 * MIB);
    }

    #[test]
    fn scaling_keeps_counts_and_shrinks_zones() {
        let s = Profile::by_name("splitzns-paper")
            .unwrap()
            .scaled(parse_scale("1/8").unwrap())
            .unwrap();
        assert_eq!(s.zones.zone_count, 160);
        assert_eq!(s.zones.zone_size_bytes, 64 * MIB);
        assert_eq!(s.flash.pages_per_block, 64);
        assert_eq!(s.name, "splitzns-paper@1/8");
        assert!(Profile::by_name("tiny").unwrap().scaled(3).is_err());
        assert!(parse_scale("1/0").is_err());
        assert!(parse_scale("x").is_err());
        assert_eq!(parse_scale("4").unwrap(), 4);
    }

    #[test]
    fn chip_count_changes_the_array_not_the_zones() {
        let base = Profile::by_name("splitzns-paper")
            .unwrap()
            .scaled(8)
            .unwrap();
        assert_eq!(base.clone().with_chips(16).unwrap(), base);
        for (chips, channels, per_channel, rows) in
            [(4, 4, 1, 4), (8, 8, 1, 2), (32, 8, 4, 1), (1, 1, 1, 16)]
        {
            let p = base.clone().with_chips(chips).unwrap();
            assert_eq!(p.flash.chips(), chips);
            assert_eq!(
                (
                    p.flash.channels,
                    p.flash.chips_per_channel,
                    p.chips_per_zone
                ),
                (channels, per_channel, chips)
            );
            assert_eq!(p.zones, base.zones);
            let layout = p.layout().unwrap();
            assert_eq!(layout.dies_per_zone(), chips);
            assert_eq!(layout.rows_per_zone(), rows, "{chips} chips");
        }
        assert!(base.clone().with_chips(0).is_err());
        assert!(base.clone().with_chips(12).is_err());
        // A chip count the zones can be mapped onto with chips per zone set after it.
        assert!(
            base.clone()
                .with_chips(32)
                .unwrap()
                .with_chips_per_zone(8)
                .is_ok()
        );
        // The tiny profile's 2 channels: 6 chips are 3 per channel.
        let t = Profile::by_name("tiny").unwrap().with_chips(6).unwrap();
        assert_eq!((t.flash.channels, t.flash.chips_per_channel), (2, 3));
    }

    /// Blocks resized keep zones over every chip (Fig 3's method): 2 MiB blocks and 128 MiB
    /// zones stripe all 16 chips in one row; blocks must be whole pages; smaller blocks give
    /// a zone more rows; the size survives the scale.
    #[test]
    fn block_size_keeps_zones_over_every_chip() {
        let paper = Profile::by_name("splitzns-paper").unwrap();
        let two_mib = paper.clone().with_block_bytes(2 * MIB).unwrap();
        assert_eq!(two_mib.flash.pages_per_block, 128);
        assert_eq!(two_mib.name, "splitzns-paper+block2048KiB");
        // Smaller blocks: the profile's 512 MiB zones take more rows of them.
        let rows = |q: &Profile| q.layout().unwrap().rows_per_zone();
        assert_eq!(
            (
                rows(&paper),
                rows(&paper.clone().with_block_bytes(MIB).unwrap())
            ),
            (1, 8)
        );
        let zoned = two_mib.with_zone_size(128 * MIB).unwrap();
        assert_eq!((zoned.chips_per_zone, zoned.zones.zone_count), (16, 640));
        assert_eq!(zoned.layout().unwrap().rows_per_zone(), 1);
        let scaled = zoned.scaled(64).unwrap();
        assert_eq!(scaled.flash.pages_per_block, 2);
        assert_eq!(scaled.zones.zone_size_bytes, 2 * MIB);
        let big = paper.clone().with_block_bytes(16 * MIB).unwrap();
        let one_gib = big.with_zone_size(GIB).unwrap();
        assert_eq!((one_gib.chips_per_zone, one_gib.zones.zone_count), (16, 80));
        assert!(paper.clone().with_block_bytes(16 * KIB + 1).is_err());
        assert!(paper.clone().with_block_bytes(0).is_err());
        assert_eq!(paper.clone().with_block_bytes(8 * MIB).unwrap(), paper);
        let erased = paper.clone().with_block_erase_ns(750_000).unwrap();
        assert_eq!(
            (erased.timing.block_erase_ns, erased.name.as_str()),
            (750_000, "splitzns-paper+erase750us")
        );
        assert!(paper.clone().with_block_erase_ns(0).is_err());
    }

    /// SplitZNS Fig 3's zone sizes at the fixed capacity of 160 x 512 MiB: chips per zone
    /// and rows as the flash allows, count x size unchanged; sizes that fit no layout are
    /// refused; scaling afterwards shrinks the new zones.
    #[test]
    fn zone_size_changes_chips_rows_and_count_at_fixed_capacity() {
        let p = Profile::by_name("splitzns-paper").unwrap();
        for (mib, chips, rows, count) in [
            (128, 4, 1, 640),
            (256, 8, 1, 320),
            (512, 16, 1, 160),
            (1024, 16, 2, 80),
        ] {
            let z = p.clone().with_zone_size(mib * MIB).unwrap();
            let l = z.layout().unwrap();
            assert_eq!(
                (z.chips_per_zone, l.rows_per_zone(), z.zones.zone_count),
                (chips, rows, count),
                "{mib} MiB"
            );
            assert_eq!(z.zones.zone_capacity_bytes, mib * MIB);
            assert_eq!(z.name, format!("splitzns-paper+zone{mib}MiB"));
            assert!(z.zones.max_open_zones <= count && z.zones.max_active_zones <= count);
            let small = z.scaled(8).unwrap();
            assert_eq!(small.zones.zone_size_bytes, mib * MIB / 8);
            assert_eq!(small.zones.zone_count, count);
        }
        for mib in [0, 100, 96, 1536] {
            assert!(p.clone().with_zone_size(mib * MIB).is_err(), "{mib} MiB");
        }
    }

    #[test]
    fn chips_per_zone_override_is_checked() {
        let p = Profile::by_name("splitzns-paper").unwrap();
        assert!(p.clone().with_chips_per_zone(1).is_ok());
        assert!(p.with_chips_per_zone(5).is_err());
    }
}
