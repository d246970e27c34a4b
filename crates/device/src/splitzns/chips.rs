//! The device-side chip allocator (SplitZNS §4.3, point 3): a round-robin counter over the
//! chips of a zone. When a write reaches an empty subzone, the chip the counter points at is
//! taken (and the counter moves on); a chip already serving another subzone of the same split
//! zone is skipped the same way, so a chip never serves two subzones of one split zone at once.

/// Round-robin chip allocator shared by every split zone of a device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChipAllocator {
    /// Chips of a zone (the slots the counter runs over).
    chips: u32,
    /// The next chip slot to try.
    counter: u32,
}

impl ChipAllocator {
    /// An allocator over the `chips` chips of a zone, its counter at 0.
    pub fn new(chips: u32) -> Self {
        Self { chips, counter: 0 }
    }

    /// The chip slot for a subzone's first write, `in_use[slot]` telling which chips already
    /// serve a subzone of the same split zone; `None` if every chip does (cannot happen while a
    /// split zone has as many subzones as chips and the subzone written is empty).
    pub fn allocate(&mut self, in_use: &[bool]) -> Option<u32> {
        for _ in 0..self.chips {
            let slot = self.counter;
            self.counter = (self.counter + 1) % self.chips.max(1);
            if !in_use.get(slot as usize).copied().unwrap_or(true) {
                return Some(slot);
            }
        }
        None
    }

    /// The slot the counter points at.
    pub fn counter(&self) -> u32 {
        self.counter
    }
}

#[cfg(test)]
mod tests {
    use super::ChipAllocator;

    #[test]
    fn round_robin_skips_chips_in_use() {
        let mut a = ChipAllocator::new(4);
        assert_eq!(a.allocate(&[false; 4]), Some(0));
        assert_eq!(a.allocate(&[true, false, false, false]), Some(1));
        // Slot 2 is taken in this split zone: the counter moves past it.
        assert_eq!(a.allocate(&[true, true, true, false]), Some(3));
        assert_eq!(a.counter(), 0);
        assert_eq!(a.allocate(&[true; 4]), None);
    }
}
