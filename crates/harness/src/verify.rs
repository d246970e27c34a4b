//! Value verification of `zonedb bench --verify`: a ledger of what every key should hold
//! (CRC32C of its last acknowledged value, or nothing), checked by every read. Writers and
//! readers take the ledger's lock around each operation, so with several threads the
//! expected value of a key is always known (verification serializes the benchmark).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// What every key should hold.
#[derive(Debug, Default)]
pub struct ValueLedger {
    state: tokio::sync::Mutex<LedgerState>,
    verified: AtomicU64,
}

/// The ledger's contents, held while one operation runs.
#[derive(Debug, Default)]
pub struct LedgerState {
    /// Key → CRC32C and length of its value.
    values: BTreeMap<Vec<u8>, (u32, usize)>,
    /// Whether the ledger covers the whole database (it started empty with the database);
    /// otherwise keys the ledger does not know are not checked.
    complete: bool,
}

impl PartialEq for ValueLedger {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ValueLedger {}

impl ValueLedger {
    /// An empty ledger of a database of unknown contents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything; `complete` = the database is empty now.
    pub async fn reset(&self, complete: bool) {
        let mut s = self.state.lock().await;
        s.values.clear();
        s.complete = complete;
    }

    /// Takes the ledger for one operation.
    pub async fn lock(&self) -> tokio::sync::MutexGuard<'_, LedgerState> {
        self.state.lock().await
    }

    /// Reads checked so far.
    pub fn verified(&self) -> u64 {
        self.verified.load(Ordering::Relaxed)
    }

    fn count(&self) {
        self.verified.fetch_add(1, Ordering::Relaxed);
    }

    /// Checks one read against `state` and counts it.
    ///
    /// # Errors
    /// A description of the mismatch.
    pub fn check(&self, state: &LedgerState, key: &[u8], got: Option<&[u8]>) -> Result<(), String> {
        let want = state.values.get(key);
        let ok = match (want, got) {
            (Some(&(crc, len)), Some(v)) => v.len() == len && crc32c::crc32c(v) == crc,
            (None, None) => true,
            (None, Some(_)) => !state.complete,
            (Some(_), None) => false,
        };
        if !ok {
            return Err(format!(
                "key {}: read {} but the last acknowledged write left {}",
                String::from_utf8_lossy(key),
                got.map_or_else(|| "nothing".to_string(), |v| format!("{} bytes", v.len())),
                want.map_or_else(|| "nothing".to_string(), |w| format!("{} bytes", w.1)),
            ));
        }
        self.count();
        Ok(())
    }
}

impl LedgerState {
    /// Records an acknowledged put.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.values
            .insert(key.to_vec(), (crc32c::crc32c(value), value.len()));
    }

    /// Records an acknowledged delete.
    pub fn delete(&mut self, key: &[u8]) {
        self.values.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_checked_against_the_last_acknowledged_write() {
        let l = ValueLedger::new();
        let mut s = LedgerState {
            complete: true,
            ..LedgerState::default()
        };
        s.put(b"k1", b"one");
        assert!(l.check(&s, b"k1", Some(b"one")).is_ok());
        assert!(l.check(&s, b"k1", Some(b"two")).is_err());
        assert!(l.check(&s, b"k1", None).is_err());
        assert!(l.check(&s, b"k2", None).is_ok());
        assert!(
            l.check(&s, b"k2", Some(b"x")).is_err(),
            "complete: unknown keys are absent"
        );
        s.delete(b"k1");
        assert!(l.check(&s, b"k1", None).is_ok());
        s.complete = false;
        assert!(
            l.check(&s, b"k2", Some(b"x")).is_ok(),
            "incomplete: unknown keys pass"
        );
        assert_eq!(l.verified(), 4, "only passing reads are counted");
    }
}
