//! Which entries a flush or a compaction leaves out (LevelDB's rule, which RocksDB's
//! compaction iterator refines): given the entries in internal-key order (user key ascending,
//! then sequence descending),
//!
//! - a version is dropped when a newer version of the same user key is visible to every
//!   snapshot (its sequence is at or below the smallest snapshot): no reader can see it;
//! - a tombstone is dropped when it is visible to every snapshot and the output is the
//!   bottommost (no deeper level holds the key, so nothing is left for it to hide).
//!
//! Exact with one snapshot, conservative with more. Pure: the caller feeds keys one by one.

use crate::key::{self, ValueType};

/// The drop rule over a stream of internal keys in order.
#[derive(Debug, Clone)]
pub struct DropRule {
    smallest_snapshot: u64,
    drop_tombstones: bool,
    /// The user key seen last (reused buffer; `has_current` says whether it holds one).
    current: Vec<u8>,
    has_current: bool,
    last_seq_for_key: u64,
}

impl DropRule {
    /// A rule for readers at or after `smallest_snapshot` (0 keeps everything but shadowed
    /// versions at sequence 0), dropping tombstones only when `bottommost`.
    pub fn new(smallest_snapshot: u64, bottommost: bool) -> Self {
        Self {
            smallest_snapshot,
            drop_tombstones: bottommost,
            current: Vec::new(),
            has_current: false,
            last_seq_for_key: u64::MAX,
        }
    }

    /// Whether the next entry, `ikey`, stays. A key that does not parse stays (the table
    /// reader reports it).
    pub fn keep(&mut self, ikey: &[u8]) -> bool {
        let Some(p) = key::parse(ikey) else {
            return true;
        };
        if !self.has_current || self.current != p.user_key {
            self.current.clear();
            self.current.extend_from_slice(p.user_key);
            self.has_current = true;
            self.last_seq_for_key = u64::MAX;
        }
        let drop = if self.last_seq_for_key <= self.smallest_snapshot {
            true
        } else {
            self.drop_tombstones
                && p.value_type == ValueType::Deletion
                && p.seq <= self.smallest_snapshot
        };
        self.last_seq_for_key = p.seq;
        !drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;

    fn put(k: &str, seq: u64) -> Vec<u8> {
        internal_key(k.as_bytes(), seq, ValueType::Value)
    }

    fn del(k: &str, seq: u64) -> Vec<u8> {
        internal_key(k.as_bytes(), seq, ValueType::Deletion)
    }

    fn kept(rule: &mut DropRule, keys: &[Vec<u8>]) -> Vec<bool> {
        keys.iter().map(|k| rule.keep(k)).collect()
    }

    #[test]
    fn shadowed_versions_no_snapshot_sees_are_dropped() {
        // Smallest snapshot 100: a@90 hides a@80 and a@70 from every reader.
        let keys = [put("a", 90), put("a", 80), put("a", 70), put("b", 60)];
        assert_eq!(
            kept(&mut DropRule::new(100, false), &keys),
            [true, false, false, true]
        );
    }

    #[test]
    fn a_snapshot_between_versions_keeps_the_older_one() {
        // Snapshot at 85: a@90 is newer than it, so a@80 is what it reads; a@70 is hidden by
        // a@80 (80 <= 85).
        let keys = [put("a", 90), put("a", 80), put("a", 70)];
        assert_eq!(
            kept(&mut DropRule::new(85, false), &keys),
            [true, true, false]
        );
    }

    #[test]
    fn tombstones_are_dropped_only_at_the_bottommost_level() {
        let keys = [del("a", 50), put("a", 40), put("b", 30)];
        assert_eq!(
            kept(&mut DropRule::new(100, false), &keys),
            [true, false, true],
            "not bottommost: the tombstone still hides deeper versions"
        );
        assert_eq!(
            kept(&mut DropRule::new(100, true), &keys),
            [false, false, true]
        );
        // A tombstone newer than the smallest snapshot stays even at the bottom.
        assert_eq!(
            kept(&mut DropRule::new(40, true), &keys),
            [true, true, true]
        );
    }

    #[test]
    fn smallest_snapshot_zero_keeps_every_distinct_key() {
        let keys = [
            put("a", 3),
            put("a", 2),
            del("b", 1),
            put("c", 0),
            put("c", 0),
        ];
        assert_eq!(
            kept(&mut DropRule::new(0, false), &keys),
            [true, true, true, true, false]
        );
    }

    #[test]
    fn keys_that_do_not_parse_stay_and_do_not_reset_the_current_key() {
        let mut r = DropRule::new(100, false);
        assert!(r.keep(&put("a", 90)));
        assert!(r.keep(b"short"));
        assert!(!r.keep(&put("a", 80)));
    }
}
