//! Where a compaction closes an output SST and starts the next one: never between two
//! versions of one user key, and otherwise when the output reached the plan's file size
//! (RocksDB's `MaxFileSizeForLevel`) or when the grandparent bytes it overlaps plus its own
//! size exceed `max_compaction_bytes` (RocksDB's `ShouldStopBefore`, so no later compaction of
//! the output gets too large), or, for a plan with a split key (LLC's `SPLIT`, see
//! [`super::lifetime_leveling`]), when the output would straddle that key. Pure: the caller
//! feeds the kept keys one by one.

use std::cmp::Ordering;

use crate::key;

/// A grandparent file as output cutting sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grandparent {
    /// Largest internal key.
    pub largest: Vec<u8>,
    /// Bytes.
    pub size: u64,
}

/// RocksDB's `ShouldStopBefore` over the grandparents (in key order).
#[derive(Debug, Clone)]
struct GrandparentCut<'a> {
    files: &'a [Grandparent],
    index: usize,
    overlapped: u64,
    seen_key: bool,
    limit: u64,
}

impl<'a> GrandparentCut<'a> {
    fn new(files: &'a [Grandparent], limit: u64) -> Self {
        Self {
            files,
            index: 0,
            overlapped: 0,
            seen_key: false,
            limit,
        }
    }

    fn should_stop_before(&mut self, ikey: &[u8], output_size: u64) -> bool {
        while self.index < self.files.len()
            && key::compare(ikey, &self.files[self.index].largest) == Ordering::Greater
        {
            if self.seen_key {
                self.overlapped += self.files[self.index].size;
            }
            self.index += 1;
        }
        self.seen_key = true;
        if self.overlapped + output_size > self.limit {
            self.overlapped = 0;
            return true;
        }
        false
    }
}

/// The cutting decision over the stream of entries a compaction keeps.
#[derive(Debug, Clone)]
pub struct OutputCutter<'a> {
    grandparents: GrandparentCut<'a>,
    max_file_size: u64,
    last_user_key: Vec<u8>,
    split_at: Option<&'a [u8]>,
    split_also: Option<&'a [u8]>,
    hard_cap: bool,
}

impl<'a> OutputCutter<'a> {
    /// Cuts at `max_file_size` bytes, or when an output's grandparent overlap plus its size
    /// exceeds `max_compaction_bytes`; `grandparents` are in key order.
    pub fn new(
        grandparents: &'a [Grandparent],
        max_file_size: u64,
        max_compaction_bytes: u64,
    ) -> Self {
        Self {
            grandparents: GrandparentCut::new(grandparents, max_compaction_bytes),
            max_file_size,
            last_user_key: Vec::new(),
            split_at: None,
            split_also: None,
            hard_cap: false,
        }
    }

    /// Makes `max_file_size` a hard cap: the caller passes, as the open output's size, what
    /// the finished file would take with the next entry in it, and the output is closed when
    /// that passes the cap (RocksDB closes an output once it has reached its target, so its
    /// files end a little past it).
    #[must_use]
    pub fn with_hard_cap(mut self, hard_cap: bool) -> Self {
        self.hard_cap = hard_cap;
        self
    }

    /// Also closes an output before the first key past the user key `split_at` when the
    /// output holds keys up to it, so no output straddles it (`None`: no such cut).
    #[must_use]
    pub fn with_split_at(mut self, split_at: Option<&'a [u8]>) -> Self {
        self.split_at = split_at;
        self
    }

    /// A second such cut (LLC's at the start level's new cursor, beside the one at the output
    /// level's).
    #[must_use]
    pub fn with_split_also(mut self, split_also: Option<&'a [u8]>) -> Self {
        self.split_also = split_also;
        self
    }

    /// Whether the open output (of `open` bytes so far; `None` when none is open) is closed
    /// before the next kept entry, `ikey`, is added. Call it for every kept entry, in order.
    pub fn cut_before(&mut self, ikey: &[u8], open: Option<u64>) -> bool {
        let uk = key::user_key(ikey);
        let size = open.unwrap_or(0);
        let grandparent_cut = self.grandparents.should_stop_before(ikey, size);
        let crosses = |s: &[u8]| self.last_user_key.as_slice() <= s && uk > s;
        let split_cut = self.split_at.is_some_and(crosses) || self.split_also.is_some_and(crosses);
        let cut = open.is_some()
            && uk != self.last_user_key
            && (self.full(size) || grandparent_cut || split_cut);
        uk.clone_into(&mut self.last_user_key);
        cut
    }

    fn full(&self, size: u64) -> bool {
        if self.hard_cap {
            size > self.max_file_size
        } else {
            size >= self.max_file_size
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueType, internal_key};

    fn k(u: &str, seq: u64) -> Vec<u8> {
        internal_key(u.as_bytes(), seq, ValueType::Value)
    }

    #[test]
    fn a_hard_cap_cuts_only_past_the_cap_where_the_target_cuts_at_it() {
        let mut soft = OutputCutter::new(&[], 100, u64::MAX);
        let mut hard = OutputCutter::new(&[], 100, u64::MAX).with_hard_cap(true);
        for c in [&mut soft, &mut hard] {
            assert!(!c.cut_before(&k("a", 5), None));
        }
        assert!(soft.cut_before(&k("b", 5), Some(100)), "reached the target");
        assert!(
            !hard.cut_before(&k("b", 5), Some(100)),
            "exactly at the cap fits"
        );
        assert!(hard.cut_before(&k("c", 5), Some(101)));
        assert!(
            !hard.cut_before(&k("c", 4), Some(500)),
            "never inside a user key"
        );
    }

    #[test]
    fn an_output_is_cut_at_the_file_size_but_never_inside_a_user_key() {
        let mut c = OutputCutter::new(&[], 100, u64::MAX);
        assert!(!c.cut_before(&k("a", 5), None), "nothing open");
        assert!(!c.cut_before(&k("b", 5), Some(50)));
        assert!(!c.cut_before(&k("b", 4), Some(150)), "same user key");
        assert!(c.cut_before(&k("c", 5), Some(150)));
        assert!(c.cut_before(&k("d", 5), Some(100)), "at the size exactly");
    }

    #[test]
    fn an_output_is_cut_once_its_grandparent_overlap_exceeds_the_limit() {
        // Grandparents end at b, d, f; 40 bytes each; limit 100.
        let gp = [
            Grandparent {
                largest: k("b", 0),
                size: 40,
            },
            Grandparent {
                largest: k("d", 0),
                size: 40,
            },
            Grandparent {
                largest: k("f", 0),
                size: 40,
            },
        ];
        let mut c = OutputCutter::new(&gp, u64::MAX, 100);
        // The first key passes nothing it counts (no key seen before it).
        assert!(!c.cut_before(&k("a", 1), None));
        // c passes b (40), e passes d (80): 80 + 10 <= 100.
        assert!(!c.cut_before(&k("c", 1), Some(5)));
        assert!(!c.cut_before(&k("e", 1), Some(10)));
        // g passes f (120): over the limit, cut; the count starts over.
        assert!(c.cut_before(&k("g", 1), Some(15)));
        assert!(!c.cut_before(&k("h", 1), Some(1)));
    }

    #[test]
    fn an_output_is_closed_before_it_would_straddle_the_split_key() {
        let mut c = OutputCutter::new(&[], u64::MAX, u64::MAX).with_split_at(Some(b"c"));
        assert!(!c.cut_before(&k("a", 1), None));
        assert!(!c.cut_before(&k("c", 2), Some(10)), "up to the split key");
        assert!(!c.cut_before(&k("c", 1), Some(20)), "same user key");
        assert!(c.cut_before(&k("d", 1), Some(30)), "the first key past it");
        assert!(
            !c.cut_before(&k("e", 1), Some(5)),
            "once past it, no more cuts"
        );
        // An output that starts past the split key is never cut by it.
        let mut c = OutputCutter::new(&[], u64::MAX, u64::MAX).with_split_at(Some(b"b"));
        assert!(!c.cut_before(&k("c", 1), None));
        assert!(!c.cut_before(&k("d", 1), Some(10)));
        // Without a split key nothing changes.
        let mut c = OutputCutter::new(&[], u64::MAX, u64::MAX).with_split_at(None);
        assert!(!c.cut_before(&k("a", 1), None));
        assert!(!c.cut_before(&k("z", 1), Some(10)));
    }

    #[test]
    fn the_grandparent_limit_counts_the_output_size_too() {
        let mut c = OutputCutter::new(&[], u64::MAX, 100);
        assert!(!c.cut_before(&k("a", 1), Some(100)));
        assert!(c.cut_before(&k("b", 1), Some(101)));
    }

    #[test]
    fn a_second_split_key_cuts_too() {
        let k = |u: &[u8]| key::internal_key(u, 1, key::ValueType::Value);
        let mut c = OutputCutter::new(&[], u64::MAX, u64::MAX)
            .with_split_at(Some(b"f"))
            .with_split_also(Some(b"c"));
        assert!(!c.cut_before(&k(b"a"), None));
        assert!(!c.cut_before(&k(b"b"), Some(10)));
        assert!(c.cut_before(&k(b"d"), Some(20)));
        assert!(!c.cut_before(&k(b"e"), Some(10)));
        assert!(c.cut_before(&k(b"g"), Some(20)));
    }
}
