//! The Read Prefetcher (SplitZNS §4.4.2, Fig. 8): a compaction reads one subzone at a time, so
//! one chip at a time. When a compaction read has to go to flash, the device prereads, on every
//! other chip, the bytes at the read pointer of one subzone that is a current compaction input
//! (its read pointer has left its start) and whose preread buffer is empty. A later compaction
//! read inside a buffer is served from device DRAM.

use std::collections::BTreeMap;

use crate::sim::Completion;

/// A preread buffer: bytes `[from, to)` of its subzone, in DRAM once `ready` completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Buffer {
    from: u64,
    to: u64,
    ready: Completion,
}

/// Preread buffers of every subzone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefetcher {
    bytes: u64,
    buffers: BTreeMap<u32, Buffer>,
    prereads: u64,
    hits: u64,
    misses: u64,
}

impl Prefetcher {
    /// Empty buffers of `bytes` each.
    pub fn new(bytes: u64) -> Self {
        Self {
            bytes,
            buffers: BTreeMap::new(),
            prereads: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// Size of one subzone's buffer, bytes.
    pub fn buffer_bytes(&self) -> u64 {
        self.bytes
    }

    /// `(prereads, hits, misses)` so far.
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.prereads, self.hits, self.misses)
    }

    /// Bytes held in buffers now.
    pub fn held_bytes(&self) -> u64 {
        self.buffers.values().map(|b| b.to - b.from).sum()
    }

    /// Whether subzone `sub`'s buffer is empty.
    pub fn is_empty(&self, sub: u32) -> bool {
        !self.buffers.contains_key(&sub)
    }

    /// A compaction read of `[rel, rel + len)` of `sub`: served from the buffer if it lies
    /// inside it (the buffer then gives those bytes up; emptied, it is dropped: the second
    /// value). Returns when the buffer's data is in DRAM.
    pub(crate) fn take(
        &mut self,
        sub: u32,
        rel: u64,
        len: u64,
    ) -> (Option<Completion>, Option<Completion>) {
        let Some(b) = self.buffers.get_mut(&sub) else {
            self.misses += 1;
            return (None, None);
        };
        if rel < b.from || rel + len > b.to {
            self.misses += 1;
            let dropped = self.buffers.remove(&sub).map(|b| b.ready);
            return (None, dropped);
        }
        self.hits += 1;
        let ready = b.ready;
        b.from = rel + len;
        let emptied = b.from >= b.to;
        if emptied {
            self.buffers.remove(&sub);
        }
        (Some(ready), emptied.then_some(ready))
    }

    /// A preread of `[from, to)` of `sub` issued, done at `ready`.
    pub(crate) fn fill(&mut self, sub: u32, from: u64, to: u64, ready: Completion) {
        self.prereads += 1;
        self.buffers.insert(sub, Buffer { from, to, ready });
    }

    /// Forgets `sub`'s buffer (MERGE, power loss); returns its preread's completion.
    pub(crate) fn drop_buffer(&mut self, sub: u32) -> Option<Completion> {
        self.buffers.remove(&sub).map(|b| b.ready)
    }

    /// Forgets every buffer whose preread is not complete (a power loss dropped it).
    pub(crate) fn drop_unready(&mut self, done: impl Fn(Completion) -> bool) {
        self.buffers.retain(|_, b| done(b.ready));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inside_the_buffer_hit_until_it_is_used_up() {
        let mut p = Prefetcher::new(16);
        assert_eq!(p.take(3, 0, 4), (None, None));
        p.fill(3, 4, 20, Completion::At(7));
        assert_eq!(p.take(3, 4, 8), (Some(Completion::At(7)), None));
        assert_eq!(p.held_bytes(), 8);
        assert_eq!(
            p.take(3, 12, 8),
            (Some(Completion::At(7)), Some(Completion::At(7)))
        );
        assert!(p.is_empty(3));
        p.fill(3, 20, 36, Completion::At(9));
        assert_eq!(p.take(3, 40, 4), (None, Some(Completion::At(9))));
        assert_eq!(p.counts(), (2, 2, 2));
    }
}
