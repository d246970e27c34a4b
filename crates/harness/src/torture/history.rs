//! The writes of a torture round and the check of what a reopened store holds against them.
//!
//! Every value names its key and the write that put it, so a value nobody wrote cannot match.
//! After a power loss the store must equal the state after some prefix of the round's writes
//! that contains every synced write (point-in-time recovery); after a clean close, a prefix that
//! contains every acknowledged write.

use std::collections::BTreeMap;

/// Key index to value.
pub type State = BTreeMap<u64, Vec<u8>>;

/// One write (a batch): the keys it sets, `None` for a delete.
pub type Write = Vec<(u64, Option<Vec<u8>>)>;

/// Key `i` as db_bench prints it.
pub fn key(i: u64) -> Vec<u8> {
    format!("{i:016}").into_bytes()
}

/// The key index of a key written by [`key`].
pub fn key_index(k: &[u8]) -> Option<u64> {
    std::str::from_utf8(k).ok()?.parse().ok()
}

/// The value of write `write` for key `k`: names both, `len` bytes (at least the name).
pub fn value(k: u64, write: u64, len: u64) -> Vec<u8> {
    let mut v = format!("{k}:{write}:").into_bytes();
    let fill = b'a' + (write % 26) as u8;
    v.resize((len as usize).max(v.len()), fill);
    v
}

/// The writes issued since the last verified state.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// The state every write below applies to.
    pub base: State,
    /// Writes in the order they were issued (the last may have failed).
    pub writes: Vec<Write>,
    /// Writes acknowledged (a prefix of `writes`).
    pub acked: usize,
    /// Writes before and including the last acknowledged synced write.
    pub synced: usize,
}

fn apply(state: &mut State, w: &Write) {
    for (k, v) in w {
        match v {
            Some(v) => state.insert(*k, v.clone()),
            None => state.remove(k),
        };
    }
}

impl History {
    /// A history starting from `base`.
    pub fn new(base: State) -> Self {
        Self {
            base,
            ..Self::default()
        }
    }

    /// The state after every acknowledged write.
    pub fn acknowledged_state(&self) -> State {
        let mut s = self.base.clone();
        for w in &self.writes[..self.acked] {
            apply(&mut s, w);
        }
        s
    }

    /// The shortest prefix of at least `at_least` writes whose state equals `got`, if any.
    pub fn matching_prefix(&self, got: &State, at_least: usize) -> Option<usize> {
        let at_least = at_least.min(self.writes.len());
        let mut state = self.base.clone();
        for w in &self.writes[..at_least] {
            apply(&mut state, w);
        }
        let differs = |state: &State, k: u64| state.get(&k) != got.get(&k);
        // Keys where the candidate state and the recovered one differ.
        let mut diff: usize = state
            .keys()
            .chain(got.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|&&k| differs(&state, k))
            .count();
        let mut p = at_least;
        loop {
            if diff == 0 {
                return Some(p);
            }
            let w = self.writes.get(p)?;
            let mut touched: Vec<u64> = w.iter().map(|(k, _)| *k).collect();
            touched.sort_unstable();
            touched.dedup();
            let before: Vec<bool> = touched.iter().map(|&k| differs(&state, k)).collect();
            apply(&mut state, w);
            for (&k, was) in touched.iter().zip(before) {
                match (was, differs(&state, k)) {
                    (true, false) => diff -= 1,
                    (false, true) => diff += 1,
                    _ => {}
                }
            }
            p += 1;
        }
    }

    /// A short description of how `got` differs from the state after `prefix` writes.
    pub fn describe_difference(&self, got: &State, prefix: usize) -> String {
        let mut state = self.base.clone();
        for w in &self.writes[..prefix.min(self.writes.len())] {
            apply(&mut state, w);
        }
        let mut lines = Vec::new();
        let keys: std::collections::BTreeSet<u64> =
            state.keys().chain(got.keys()).copied().collect();
        for k in keys {
            let (want, have) = (state.get(&k), got.get(&k));
            if want != have {
                let show = |v: Option<&Vec<u8>>| match v {
                    None => "absent".to_string(),
                    Some(v) => {
                        let s = String::from_utf8_lossy(v);
                        s.split(':').take(2).collect::<Vec<_>>().join(":")
                    }
                };
                lines.push(format!("key {k}: want {} got {}", show(want), show(have)));
                if lines.len() == 5 {
                    break;
                }
            }
        }
        lines.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(k: u64, w: u64) -> Write {
        vec![(k, Some(value(k, w, 8)))]
    }

    #[test]
    fn a_prefix_is_found_and_a_lost_synced_write_is_not() {
        let mut h = History::new(State::new());
        h.writes = vec![put(1, 0), put(2, 1), vec![(1, None)], put(3, 3)];
        h.acked = 4;
        h.synced = 2;
        let mut got = State::new();
        got.insert(2, value(2, 1, 8));
        assert_eq!(h.matching_prefix(&got, 2), Some(3));
        // Write 1 was synced and is missing: no prefix of at least 2 matches.
        let mut lost = State::new();
        lost.insert(1, value(1, 0, 8));
        assert_eq!(h.matching_prefix(&lost, 2), None);
        assert_eq!(h.matching_prefix(&lost, 0), Some(1));
        // A value nobody wrote matches nothing.
        let mut odd = got.clone();
        odd.insert(9, value(9, 99, 8));
        assert_eq!(h.matching_prefix(&odd, 0), None);
    }

    #[test]
    fn key_names_round_trip() {
        assert_eq!(key_index(&key(42)), Some(42));
        assert_eq!(key_index(b"x"), None);
        assert!(value(3, 7, 2).starts_with(b"3:7:"));
    }
}
