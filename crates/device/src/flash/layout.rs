//! Zone-to-flash mapping: which die, plane, block row and page hold a byte of a zone.
//!
//! A zone spans `chips_per_zone` chips (all their dies and planes), as ConfZNS's association
//! degree and FEMU's `chnls_per_zone`: with every chip it is a superblock (one block from every
//! plane of every chip), with one chip it is SplitZNS's subzone. Zones that share chips stack on
//! further block rows. Inside a zone, consecutive flash pages go across the planes of a die
//! first (so a program unit is a multi-plane program), then across the zone's chips, then across
//! the dies of each chip, then to the next page of each block, then to the next block row.

use super::FlashGeometry;
use crate::DeviceError;

/// A flash page of a zone, located.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageAddr {
    /// Global die index.
    pub die: u32,
    /// Channel of that die.
    pub channel: u32,
    /// Plane within the die.
    pub plane: u32,
    /// Block row within the plane (global: includes the zone's base row).
    pub row: u32,
    /// Page within the block.
    pub page: u32,
}

/// Where the flash pages of a request lie: spread over a whole zone, or on one chip of a zone
/// (the share of that chip, as a SplitZNS subzone uses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// Every die of the zone, in the zone's striping order.
    Zone(u32),
    /// The dies of the `slot`-th chip of `zone` only (`slot < chips_per_zone`), on the zone's
    /// block rows: planes first, then the chip's dies, then pages, then rows.
    Chip {
        /// The zone whose block rows are used.
        zone: u32,
        /// Which of the zone's chips.
        slot: u32,
    },
}

/// Mapping of every zone onto the flash array.
#[derive(Debug, Clone)]
pub struct ZoneLayout {
    geometry: FlashGeometry,
    chips_per_zone: u32,
    /// Chip groups that can hold zones side by side.
    groups: u32,
    /// Block rows one zone occupies in each plane of its dies.
    rows_per_zone: u32,
    /// Block rows in each plane (enough for every zone).
    rows_per_plane: u32,
}

impl ZoneLayout {
    /// Lays out `zone_count` zones of `zone_capacity_bytes` over `chips_per_zone` chips each.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the chip count does not divide the device's chips.
    pub fn new(
        geometry: &FlashGeometry,
        chips_per_zone: u32,
        zone_count: u32,
        zone_capacity_bytes: u64,
    ) -> Result<Self, DeviceError> {
        geometry.validate()?;
        let chips = geometry.chips();
        if chips_per_zone == 0 || chips_per_zone > chips || !chips.is_multiple_of(chips_per_zone) {
            return Err(DeviceError::InvalidConfig(format!(
                "chips per zone {chips_per_zone} must divide the device's {chips} chips"
            )));
        }
        let groups = chips / chips_per_zone;
        let row_bytes = u64::from(chips_per_zone)
            * u64::from(geometry.dies_per_chip)
            * u64::from(geometry.planes_per_die)
            * geometry.block_bytes();
        let rows_per_zone = u32::try_from(zone_capacity_bytes.div_ceil(row_bytes))
            .map_err(|_| DeviceError::InvalidConfig("zone too large for its flash".into()))?;
        let zones_per_group = zone_count.div_ceil(groups);
        let rows_per_plane = zones_per_group
            .checked_mul(rows_per_zone)
            .ok_or_else(|| DeviceError::InvalidConfig("too many block rows".into()))?;
        Ok(Self {
            geometry: geometry.clone(),
            chips_per_zone,
            groups,
            rows_per_zone,
            rows_per_plane,
        })
    }

    /// The flash geometry.
    pub fn geometry(&self) -> &FlashGeometry {
        &self.geometry
    }

    /// Chips each zone spans.
    pub fn chips_per_zone(&self) -> u32 {
        self.chips_per_zone
    }

    /// Dies each zone spans.
    pub fn dies_per_zone(&self) -> u32 {
        self.chips_per_zone * self.geometry.dies_per_chip
    }

    /// Block rows per zone.
    pub fn rows_per_zone(&self) -> u32 {
        self.rows_per_zone
    }

    /// Erase blocks in the device (for per-block erase counts).
    pub fn total_blocks(&self) -> usize {
        self.geometry.dies() as usize
            * self.geometry.planes_per_die as usize
            * self.rows_per_plane as usize
    }

    /// Index of a block in `0..total_blocks()`.
    pub fn block_index(&self, die: u32, plane: u32, row: u32) -> usize {
        (die as usize * self.geometry.planes_per_die as usize + plane as usize)
            * self.rows_per_plane as usize
            + row as usize
    }

    /// Pages in one stripe (one page in every plane of every die of the zone).
    pub fn stripe_pages(&self) -> u64 {
        u64::from(self.dies_per_zone()) * u64::from(self.geometry.planes_per_die)
    }

    /// The `i`-th die of a zone (`i < dies_per_zone()`), as a global die index.
    pub fn zone_die(&self, zone: u32, i: u32) -> u32 {
        let group = zone % self.groups;
        let chip_in_zone = i % self.chips_per_zone;
        let die_in_chip = i / self.chips_per_zone;
        let chip = group * self.chips_per_zone + chip_in_zone;
        chip * self.geometry.dies_per_chip + die_in_chip
    }

    /// Channel of a global die.
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.geometry
            .channel_of_chip(die / self.geometry.dies_per_chip)
    }

    /// First block row of a zone.
    pub fn base_row(&self, zone: u32) -> u32 {
        (zone / self.groups) * self.rows_per_zone
    }

    /// Locates zone-relative flash page `p`.
    pub fn locate(&self, zone: u32, p: u64) -> PageAddr {
        let g = &self.geometry;
        let planes = u64::from(g.planes_per_die);
        let plane = (p % planes) as u32;
        let q = p / planes;
        let die_slot = (q % u64::from(self.dies_per_zone())) as u32;
        let q = q / u64::from(self.dies_per_zone());
        let page = (q % u64::from(g.pages_per_block)) as u32;
        let row = self.base_row(zone) + (q / u64::from(g.pages_per_block)) as u32;
        let die = self.zone_die(zone, die_slot);
        PageAddr {
            die,
            channel: self.channel_of_die(die),
            plane,
            row,
            page,
        }
    }

    /// Pages a zone holds in one plane of one of its dies after `written_pages` pages were
    /// written into it (`slot` = `die_slot * planes + plane` in stripe order).
    pub fn pages_in_slot(&self, written_pages: u64, slot: u64) -> u64 {
        let s = self.stripe_pages();
        written_pages / s + u64::from(slot < written_pages % s)
    }

    /// The global chip of the `slot`-th chip of `zone`.
    pub fn zone_chip(&self, zone: u32, slot: u32) -> u32 {
        (zone % self.groups) * self.chips_per_zone + slot % self.chips_per_zone
    }

    /// Dies a place spans, in its striping order.
    pub fn place_dies(&self, place: Place) -> Vec<u32> {
        match place {
            Place::Zone(zone) => (0..self.dies_per_zone())
                .map(|i| self.zone_die(zone, i))
                .collect(),
            Place::Chip { zone, slot } => {
                let first = self.zone_chip(zone, slot) * self.geometry.dies_per_chip;
                (first..first + self.geometry.dies_per_chip).collect()
            }
        }
    }

    /// Pages in one stripe of a place (one page in every plane of each of its dies).
    pub fn place_stripe_pages(&self, place: Place) -> u64 {
        match place {
            Place::Zone(_) => self.stripe_pages(),
            Place::Chip { .. } => {
                u64::from(self.geometry.dies_per_chip) * u64::from(self.geometry.planes_per_die)
            }
        }
    }

    /// Locates page `p` of a place (for a zone: [`ZoneLayout::locate`]).
    pub fn locate_in(&self, place: Place, p: u64) -> PageAddr {
        let (zone, slot) = match place {
            Place::Zone(zone) => return self.locate(zone, p),
            Place::Chip { zone, slot } => (zone, slot),
        };
        let g = &self.geometry;
        let plane_count = u64::from(g.planes_per_die);
        let in_die = (p % plane_count) as u32;
        let q = p / plane_count;
        let die_in_chip = (q % u64::from(g.dies_per_chip)) as u32;
        let q = q / u64::from(g.dies_per_chip);
        let page = (q % u64::from(g.pages_per_block)) as u32;
        let row = self.base_row(zone) + (q / u64::from(g.pages_per_block)) as u32;
        let die = self.zone_chip(zone, slot) * g.dies_per_chip + die_in_chip;
        PageAddr {
            die,
            channel: self.channel_of_die(die),
            plane: in_die,
            row,
            page,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> FlashGeometry {
        FlashGeometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 4,
            page_size_bytes: 16 << 10,
            pages_per_block: 512,
        }
    }

    #[test]
    fn superblock_zone_spans_every_plane_of_every_chip_once() {
        let l = ZoneLayout::new(&geo(), 16, 160, 512 << 20).unwrap();
        assert_eq!(l.rows_per_zone(), 1);
        let mut seen = std::collections::BTreeSet::new();
        for p in 0..64 {
            let a = l.locate(3, p);
            assert_eq!(a.page, 0);
            assert_eq!(a.row, 3);
            seen.insert((a.die, a.plane));
        }
        assert_eq!(seen.len(), 64);
        // Planes first: pages 0..4 on one die, page 4 on the next chip, which is on the next channel.
        assert_eq!(l.locate(0, 3).die, l.locate(0, 0).die);
        assert_ne!(l.locate(0, 4).channel, l.locate(0, 0).channel);
    }

    #[test]
    fn single_chip_zones_sit_on_disjoint_chips_then_stack() {
        let l = ZoneLayout::new(&geo(), 1, 160, 512 << 20).unwrap();
        assert_eq!(l.rows_per_zone(), 16);
        assert_ne!(l.locate(0, 0).die, l.locate(1, 0).die);
        assert_eq!(l.locate(0, 0).die, l.locate(16, 0).die);
        assert_eq!(l.locate(16, 0).row, 16);
        let last = l.locate(0, (512u64 << 20) / (16 << 10) - 1);
        assert_eq!((last.row, last.page, last.plane), (15, 511, 3));
    }

    #[test]
    fn a_chip_place_stays_on_its_chip_and_on_the_zone_rows() {
        let l = ZoneLayout::new(&geo(), 16, 160, 512 << 20).unwrap();
        let place = Place::Chip { zone: 7, slot: 5 };
        assert_eq!(l.place_dies(place), vec![5]);
        assert_eq!(l.place_stripe_pages(place), 4);
        let pages = (32u64 << 20) / (16 << 10);
        let mut seen = std::collections::BTreeSet::new();
        for p in 0..pages {
            let a = l.locate_in(place, p);
            assert_eq!((a.die, a.row), (5, 7));
            seen.insert((a.plane, a.page));
        }
        assert_eq!(seen.len() as u64, pages);
        assert_eq!(l.locate_in(Place::Zone(3), 9), l.locate(3, 9));
    }

    #[test]
    fn chips_per_zone_must_divide_the_chip_count() {
        assert!(ZoneLayout::new(&geo(), 3, 160, 512 << 20).is_err());
        assert!(ZoneLayout::new(&geo(), 0, 160, 512 << 20).is_err());
    }
}
