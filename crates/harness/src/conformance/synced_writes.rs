//! The synced-write workload of the crash tests (`zonedb crashtest write|verify`): one writer
//! applies op 0, 1, 2, … in order, each a synced batch, and logs each acknowledged op. Op `i`
//! puts key `i` and, when `i % 8 == 7`, overwrites key `i - 5` in the same batch. After a kill,
//! a power cut or a reboot the database must hold exactly the state after some prefix of the
//! ops, at least as long as the acknowledged ones (and, when the log is complete, at most one
//! op longer: the one in flight).

use std::collections::BTreeMap;

use zonedb_lsm::batch::WriteBatch;

use super::Failure;

/// Key of op `i` under `prefix`.
pub fn key(prefix: &str, i: u64) -> Vec<u8> {
    format!("{prefix}{i:012}").into_bytes()
}

/// Value of key `i` at `version` (1 = first put, 2 = overwrite), `len` bytes.
pub fn value(prefix: &str, i: u64, version: u64, len: usize) -> Vec<u8> {
    let mut v = format!("{prefix}{i}:{version}:").into_bytes();
    let mut x = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ version) | 1;
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(b'a' + (x % 26) as u8);
    }
    v.truncate(len.max(1));
    v
}

/// The key overwritten by op `i`, if any.
fn overwritten(i: u64) -> Option<u64> {
    (i % 8 == 7).then(|| i - 5)
}

/// The batch of op `i`.
pub fn op(prefix: &str, i: u64, value_len: usize) -> WriteBatch {
    let mut b = WriteBatch::new();
    b.put(&key(prefix, i), &value(prefix, i, 1, value_len));
    if let Some(j) = overwritten(i) {
        b.put(&key(prefix, j), &value(prefix, j, 2, value_len));
    }
    b
}

/// The state after ops `0..m`.
pub fn state(prefix: &str, m: u64, value_len: usize) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut s = BTreeMap::new();
    for i in 0..m {
        s.insert(key(prefix, i), value(prefix, i, 1, value_len));
        if let Some(j) = overwritten(i) {
            s.insert(key(prefix, j), value(prefix, j, 2, value_len));
        }
    }
    s
}

/// Checks the keys found under `prefix` (in key order) against the acknowledged count:
/// returns the length `m` of the op prefix they equal.
///
/// # Errors
/// [`Failure`] when they are no prefix state, when `m < acked` (an acknowledged write was
/// lost) or, with `log_complete`, when `m > acked + 1`.
pub fn check(
    prefix: &str,
    found: &[(Vec<u8>, Vec<u8>)],
    acked: u64,
    log_complete: bool,
    value_len: usize,
) -> Result<u64, Failure> {
    let m = found.len() as u64;
    let want = state(prefix, m, value_len);
    if want.len() as u64 != m {
        return Err(Failure(format!(
            "{prefix}: internal: state({m}) has {} keys",
            want.len()
        )));
    }
    for ((k, v), (wk, wv)) in found.iter().zip(&want) {
        if k != wk {
            return Err(Failure(format!(
                "{prefix}: the database holds {} where the op prefix of length {m} has {}: \
                 writes are missing from the middle",
                String::from_utf8_lossy(k),
                String::from_utf8_lossy(wk)
            )));
        }
        if v != wv {
            return Err(Failure(format!(
                "{prefix}: {} holds a value that no op prefix of length {m} gives",
                String::from_utf8_lossy(k)
            )));
        }
    }
    if m < acked {
        return Err(Failure(format!(
            "{prefix}: {acked} synced writes were acknowledged but only {m} survived"
        )));
    }
    if log_complete && m > acked + 1 {
        return Err(Failure(format!(
            "{prefix}: {m} writes survived but only {acked} (+1 in flight) were issued"
        )));
    }
    Ok(m)
}

/// The acknowledged count from an acknowledgement log: one decimal op count per line, the
/// last complete line wins (a torn last line is ignored).
pub fn acked_from_log(text: &str) -> u64 {
    text.lines()
        .rev()
        .filter(|l| !l.is_empty())
        .find_map(|l| l.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(s: &BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<(Vec<u8>, Vec<u8>)> {
        s.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    #[test]
    fn a_prefix_state_passes_and_its_length_is_found() {
        let s = state("a", 20, 40);
        assert_eq!(check("a", &scan(&s), 20, true, 40), Ok(20));
        assert_eq!(check("a", &scan(&s), 19, true, 40), Ok(20));
        assert_eq!(check("a", &scan(&s), 5, false, 40), Ok(20));
        assert_eq!(check("a", &[], 0, true, 40), Ok(0));
    }

    #[test]
    fn lost_acknowledged_writes_holes_and_wrong_values_fail() {
        let s = state("a", 20, 40);
        assert!(
            check("a", &scan(&s), 21, true, 40).is_err(),
            "lost acked write"
        );
        assert!(
            check("a", &scan(&s), 10, true, 40).is_err(),
            "too many survived"
        );
        let mut holed = s.clone();
        holed.remove(&key("a", 3));
        assert!(check("a", &scan(&holed), 0, false, 40).is_err(), "hole");
        // Op 15 overwrote key 10: the old value with key 15 present is no prefix state.
        let mut stale = s.clone();
        stale.insert(key("a", 10), value("a", 10, 1, 40));
        assert!(
            check("a", &scan(&stale), 0, false, 40).is_err(),
            "lost overwrite"
        );
        let mut torn = s;
        torn.insert(key("a", 19), b"x".to_vec());
        assert!(
            check("a", &scan(&torn), 0, false, 40).is_err(),
            "wrong value"
        );
    }

    #[test]
    fn the_ack_log_is_read_to_its_last_complete_line() {
        assert_eq!(acked_from_log(""), 0);
        assert_eq!(acked_from_log("1\n2\n3\n"), 3);
        assert_eq!(acked_from_log("1\n2\n3\n4"), 4);
        assert_eq!(acked_from_log("1\n2\nx"), 2);
        assert_eq!(op("a", 7, 10).count(), 2);
        assert_eq!(op("a", 6, 10).count(), 1);
    }
}
