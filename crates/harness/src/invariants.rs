//! The checks every simulated study runs before it reports a figure: a figure from a run whose
//! data was corrupt is not a figure.
//!
//! - the zone layer's fsck (every extent inside its zone, below the write pointer, no overlaps,
//!   accounting equal to the device's zone report);
//! - a full scan of the database (every block's checksum verified on the way, keys strictly
//!   increasing);
//! - sampled point reads: every `sample_every`-th key of the scan read back with `get` must
//!   return the scanned value, and a key just past it that the scan did not return must read
//!   as absent;
//! - the sampled write ledger ([`WriteSample`]): for the keys it followed, the database holds
//!   the last acknowledged write.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_lsm::Db;

use crate::db_bench::HarnessError;

/// What the checks looked at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct InvariantReport {
    /// fsck problems (always 0 in a report: a problem fails the run).
    pub fsck_problems: u64,
    /// Keys the full scan returned.
    pub keys_scanned: u64,
    /// Point reads compared with the scan.
    pub sampled_reads: u64,
    /// Keys of the write ledger checked against their last acknowledged write.
    pub ledger_keys_checked: u64,
}

/// The last acknowledged write of one key in 64 (chosen by the key's CRC32C, so the same keys
/// are followed whatever the workload): a value's CRC32C and length, or `None` for a delete.
/// Recording takes a plain lock after the write returns and never waits, so a run with the
/// ledger is the same run as without it. Only meaningful with one writer at a time (with
/// several, two acknowledged writes of one key have no order the ledger could know).
#[derive(Debug, Default)]
pub struct WriteSample {
    last: Mutex<LastWrites>,
}

/// A value's CRC32C and length, or `None` for a delete.
type Fingerprint = Option<(u32, usize)>;

/// Key → its last acknowledged write.
type LastWrites = BTreeMap<Vec<u8>, Fingerprint>;

/// Equal whatever it holds: the ledger is not part of a run's configuration.
impl PartialEq for WriteSample {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for WriteSample {}

/// One key in this many is followed by [`WriteSample`].
pub const SAMPLE_ONE_IN: u32 = 64;

impl WriteSample {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `key` is one of the keys followed.
    pub fn follows(key: &[u8]) -> bool {
        crc32c::crc32c(key).is_multiple_of(SAMPLE_ONE_IN)
    }

    /// Records an acknowledged put (if the key is followed).
    pub fn put(&self, key: &[u8], value: &[u8]) {
        if Self::follows(key) {
            self.map()
                .insert(key.to_vec(), Some((crc32c::crc32c(value), value.len())));
        }
    }

    /// Records an acknowledged delete (if the key is followed).
    pub fn delete(&self, key: &[u8]) {
        if Self::follows(key) {
            self.map().insert(key.to_vec(), None);
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, LastWrites> {
        self.last.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn snapshot(&self) -> Vec<(Vec<u8>, Fingerprint)> {
        self.map().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

fn broken(what: String) -> HarnessError {
    HarnessError::Invariant(what)
}

/// Runs the checks on an open database and its zone layer: [`fsck`], then [`reads`]. For an
/// exact fsck no engine write may be in flight (see [`ZoneFs::fsck_quiesced`]); a study runs
/// [`fsck`] between closing the database and reopening it for [`reads`].
///
/// # Errors
/// As [`fsck`] and [`reads`].
pub async fn check<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    fs: &ZoneFs<E, D>,
    ledger: Option<&WriteSample>,
    sample_every: u64,
) -> Result<InvariantReport, HarnessError> {
    fsck(fs).await?;
    reads(db, ledger, sample_every).await
}

/// The zone layer's fsck with no cleaning pass in flight.
///
/// # Errors
/// [`HarnessError::Invariant`] naming the first problem.
pub async fn fsck<E: Env, D: ZonedDevice>(fs: &ZoneFs<E, D>) -> Result<(), HarnessError> {
    let problems = fs.fsck_quiesced().await;
    match problems.first() {
        Some(p) => Err(broken(format!(
            "fsck found {} problems; first: {} {}",
            problems.len(),
            p.file,
            p.what
        ))),
        None => Ok(()),
    }
}

/// The read checks: the full scan, the sampled point reads and the write ledger.
///
/// # Errors
/// [`HarnessError::Invariant`] naming the first problem; engine errors (a checksum mismatch
/// during the scan is one).
pub async fn reads<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    ledger: Option<&WriteSample>,
    sample_every: u64,
) -> Result<InvariantReport, HarnessError> {
    let mut report = InvariantReport::default();
    let mut it = db.iter();
    it.seek_to_first().await?;
    let mut prev: Option<Vec<u8>> = None;
    let mut samples: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    while it.valid() {
        let key = it.key().to_vec();
        if prev.as_ref().is_some_and(|p| *p >= key) {
            return Err(broken(format!(
                "the scan returned {} after {}",
                String::from_utf8_lossy(&key),
                String::from_utf8_lossy(prev.as_deref().unwrap_or_default())
            )));
        }
        if report.keys_scanned % sample_every.max(1) == 0 {
            samples.push((key.clone(), it.value().to_vec()));
        }
        report.keys_scanned += 1;
        prev = Some(key);
        it.next().await?;
    }
    drop(it);
    for (key, value) in &samples {
        let got = db.get(key).await?;
        if got.as_deref() != Some(value.as_slice()) {
            return Err(broken(format!(
                "get({}) disagrees with the scan",
                String::from_utf8_lossy(key)
            )));
        }
        // A key the scan skipped over (no key lies between `key` and `key\0`).
        let mut absent = key.clone();
        absent.push(0);
        let next_scanned = db.scan(&absent, &[0xff; 64], 1).await?;
        if next_scanned.first().is_none_or(|(k, _)| *k != absent)
            && db.get(&absent).await?.is_some()
        {
            return Err(broken(format!(
                "get({}\\0) found a key the scan did not return",
                String::from_utf8_lossy(key)
            )));
        }
        report.sampled_reads += 2;
    }
    if let Some(l) = ledger {
        for (key, want) in l.snapshot() {
            let got = db.get(&key).await?;
            let ok = match (want, &got) {
                (Some((crc, len)), Some(v)) => v.len() == len && crc32c::crc32c(v) == crc,
                (None, None) => true,
                _ => false,
            };
            if !ok {
                return Err(broken(format!(
                    "key {}: the last acknowledged write left {}, the database holds {}",
                    String::from_utf8_lossy(&key),
                    want.map_or_else(|| "nothing".into(), |(_, n)| format!("{n} bytes")),
                    got.map_or_else(|| "nothing".into(), |v| format!("{} bytes", v.len()))
                )));
            }
            report.ledger_keys_checked += 1;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_follows_one_key_in_sixty_four_and_keeps_the_last_write() {
        let l = WriteSample::new();
        let keys: Vec<Vec<u8>> = (0..6400u32)
            .map(|i| format!("{i:016}").into_bytes())
            .collect();
        for k in &keys {
            l.put(k, b"first");
            l.put(k, b"second");
        }
        let followed = l.snapshot();
        assert!((50..150).contains(&followed.len()), "{}", followed.len());
        assert!(
            followed
                .iter()
                .all(|(_, v)| *v == Some((crc32c::crc32c(b"second"), 6)))
        );
        let (k, _) = &followed[0];
        l.delete(k);
        assert_eq!(l.snapshot()[0].1, None);
    }
}
