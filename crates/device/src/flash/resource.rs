//! One exclusive resource booked first come, first served.
//!
//! Requests are admitted in virtual-time order, so booking each operation at
//! `max(ready, free_at)` is exactly a FIFO queue in front of the resource (the fast path MQSim
//! -style simulators take when a queue is empty). Priority scheduling of queued work (SplitZNS's
//! read scheduler) reorders the work waiting for a die: see [`super::scheduler`], which books a
//! die's next operation here when the die frees.

/// A die, a channel, a controller or a host link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resource {
    free_at_ns: u64,
    busy_ns: u64,
}

impl Resource {
    /// Books `duration_ns` of work that can start at `ready_ns`; returns `(start, end)`.
    #[inline]
    pub fn book(&mut self, ready_ns: u64, duration_ns: u64) -> (u64, u64) {
        let start = ready_ns.max(self.free_at_ns);
        let end = start + duration_ns;
        self.free_at_ns = end;
        self.busy_ns += duration_ns;
        (start, end)
    }

    /// When the resource next becomes free.
    pub fn free_at_ns(&self) -> u64 {
        self.free_at_ns
    }

    /// Total booked work so far.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }
}

#[cfg(test)]
mod tests {
    use super::Resource;

    #[test]
    fn fifo_booking_queues_behind_earlier_work() {
        let mut r = Resource::default();
        assert_eq!(r.book(10, 5), (10, 15));
        assert_eq!(r.book(12, 5), (15, 20));
        assert_eq!(r.book(30, 1), (30, 31));
        assert_eq!(r.busy_ns(), 11);
    }
}
