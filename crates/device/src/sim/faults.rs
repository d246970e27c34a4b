//! Faults the simulated device injects, as pure functions of a seed.

/// Faults the simulated device injects (all off by default), for torture campaigns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Faults {
    /// One read in this many fails with [`crate::DeviceError::UnrecoveredRead`] (0 = never).
    /// Which reads fail is a pure function of `seed` and the read's sequence number.
    pub read_error_one_in: u64,
    /// A power cycle tears the first lost write of each zone: a block-aligned prefix of it (chosen
    /// from `seed`, the zone and the offset) survives, as when a controller loses power in the
    /// middle of programming a request. Off: the whole request is lost.
    pub torn_writes: bool,
    /// Seed of the fault choices.
    pub seed: u64,
    /// A reset takes effect this long after it is issued (0: at once): until then the zone
    /// keeps its state, its data and its place against the open and active limits, as on the
    /// file-backed device (which syncs its zone records) and an SSD (which erases).
    pub reset_delay_ns: u64,
}

/// A 64-bit mix (splitmix64's finalizer): fault choices as a pure function of their inputs.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Faults {
    /// Whether read number `n` fails.
    pub(crate) fn read_fails(&self, n: u64) -> bool {
        self.read_error_one_in > 0 && mix(self.seed ^ mix(n)).is_multiple_of(self.read_error_one_in)
    }

    /// Blocks of a torn write of `blocks` blocks at `offset` of `zone` that survive.
    pub(crate) fn torn_blocks_kept(&self, zone: u32, offset: u64, blocks: u64) -> u64 {
        mix(self.seed ^ mix(u64::from(zone) ^ mix(offset))) % (blocks + 1)
    }
}
