//! What a hybrid zoned device (a fast ZNS SSD and a slow HM-SMR HDD under one zone index space)
//! tells the layers above about its two parts: which zones live on which device, each device's
//! zone capacity and open / active budgets, and per-device counters.

use crate::DeviceStats;

/// Which device of a hybrid a zone lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// The fast device (ZNS SSD).
    Ssd,
    /// The slow device (HM-SMR HDD).
    Hdd,
}

/// One device's zones in a hybrid: how many, their capacity, its budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TierLimits {
    /// Zones of this device.
    pub zones: u32,
    /// Writable bytes of each of its zones.
    pub zone_capacity_bytes: u64,
    /// Its open-zone limit (0 = none).
    pub max_open_zones: u32,
    /// Its active-zone limit (0 = none).
    pub max_active_zones: u32,
}

/// The zone index space of a hybrid: zones `[0, ssd.zones)` are the SSD's, zones
/// `[ssd.zones, ssd.zones + hdd.zones)` the HDD's; every zone starts at `index * zone_size`
/// of the device geometry (the larger of the two zone sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct HybridLayout {
    /// The fast device.
    pub ssd: TierLimits,
    /// The slow device.
    pub hdd: TierLimits,
}

impl HybridLayout {
    /// The device zone `zone` lives on (`None` past the last zone).
    pub fn tier_of(&self, zone: u32) -> Option<Tier> {
        if zone < self.ssd.zones {
            Some(Tier::Ssd)
        } else if zone - self.ssd.zones < self.hdd.zones {
            Some(Tier::Hdd)
        } else {
            None
        }
    }

    /// The limits of one device.
    pub fn limits(&self, tier: Tier) -> TierLimits {
        match tier {
            Tier::Ssd => self.ssd,
            Tier::Hdd => self.hdd,
        }
    }

    /// The zone indexes of one device.
    pub fn zones(&self, tier: Tier) -> std::ops::Range<u32> {
        match tier {
            Tier::Ssd => 0..self.ssd.zones,
            Tier::Hdd => self.ssd.zones..self.ssd.zones + self.hdd.zones,
        }
    }
}

/// Counters of each device of a hybrid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct HybridStats {
    /// The SSD's.
    pub ssd: DeviceStats,
    /// The HDD's.
    pub hdd: DeviceStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_split_at_the_ssd_count() {
        let t = |zones, cap| TierLimits {
            zones,
            zone_capacity_bytes: cap,
            max_open_zones: 0,
            max_active_zones: 0,
        };
        let l = HybridLayout {
            ssd: t(3, 10),
            hdd: t(5, 4),
        };
        assert_eq!(l.tier_of(0), Some(Tier::Ssd));
        assert_eq!(l.tier_of(2), Some(Tier::Ssd));
        assert_eq!(l.tier_of(3), Some(Tier::Hdd));
        assert_eq!(l.tier_of(7), Some(Tier::Hdd));
        assert_eq!(l.tier_of(8), None);
        assert_eq!(l.zones(Tier::Hdd), 3..8);
        assert_eq!(l.limits(Tier::Hdd).zone_capacity_bytes, 4);
    }
}
