//! What replaying the WALs at open kept and dropped, so that a damaged WAL never opens a
//! database silently smaller: the CLI prints it on stderr and `zonedb fs fsck` reports the
//! same damage before an open drops it.

use std::fmt;

use crate::log_format::{LogContents, RecoveryMode};

/// One stretch of a WAL the recovery mode let the open drop.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WalDrop {
    /// The WAL file.
    pub file: String,
    /// Byte offset of the damage in it.
    pub offset: u64,
    /// What was wrong there.
    pub what: String,
    /// Bytes of the file from the damage on that were not replayed (`None` when the mode
    /// skipped the damaged record and went on).
    pub bytes_not_replayed: Option<u64>,
    /// The damage is a record cut short at the end of the log: a write the crash interrupted
    /// before it was synced (RocksDB drops these in every mode but kAbsoluteConsistency).
    pub torn_tail: bool,
}

/// The WAL replay of one open.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct WalRecovery {
    /// The `wal_recovery_mode` the open ran with.
    pub mode: RecoveryMode,
    /// WALs replayed, oldest first.
    pub logs_replayed: Vec<String>,
    /// Write batches replayed.
    pub records_replayed: u64,
    /// Damage the mode tolerated, in the order met.
    pub dropped: Vec<WalDrop>,
    /// Later WALs not replayed at all, because point-in-time recovery stopped at damage.
    pub logs_not_replayed: Vec<String>,
}

impl WalRecovery {
    /// Whether anything beyond a torn tail was dropped: damage in the middle of a log, or
    /// whole logs after it.
    #[must_use]
    pub fn lost_data(&self) -> bool {
        !self.logs_not_replayed.is_empty() || self.dropped.iter().any(|d| !d.torn_tail)
    }

    /// Whether nothing at all was dropped.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.dropped.is_empty() && self.logs_not_replayed.is_empty()
    }

    /// Records what reading `file` (of `len` bytes) found.
    pub(crate) fn add_log(&mut self, file: &str, len: u64, contents: &LogContents) {
        self.logs_replayed.push(file.to_owned());
        self.records_replayed += contents.records.len() as u64;
        let last = contents.skipped.len().saturating_sub(1);
        for (i, (offset, what)) in contents.skipped.iter().enumerate() {
            let stop = contents.stopped_early && i == last;
            self.dropped.push(WalDrop {
                file: file.to_owned(),
                offset: *offset,
                what: what.clone(),
                bytes_not_replayed: stop.then(|| len.saturating_sub(*offset)),
                torn_tail: i == last && contents.torn_tail,
            });
        }
    }

    /// Records a write batch that framed correctly but did not decode.
    pub(crate) fn add_bad_batch(&mut self, file: &str, len: u64, offset: u64, what: String) {
        let stop = self.mode == RecoveryMode::PointInTimeRecovery;
        self.dropped.push(WalDrop {
            file: file.to_owned(),
            offset,
            what,
            bytes_not_replayed: stop.then(|| len.saturating_sub(offset)),
            torn_tail: false,
        });
    }
}

impl fmt::Display for WalRecovery {
    /// One line per drop, then the logs not replayed; nothing when clean.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = self.mode.name();
        for d in &self.dropped {
            let how = match d.bytes_not_replayed {
                Some(n) => format!("stopped there, {n} bytes not replayed"),
                None => "skipped that record".to_owned(),
            };
            let why = if d.torn_tail {
                " (a write cut short by a crash, never synced)"
            } else {
                ""
            };
            writeln!(
                f,
                "WAL recovery ({mode}): {} at offset {}: {}; {how}{why}",
                d.file, d.offset, d.what
            )?;
        }
        if !self.logs_not_replayed.is_empty() {
            writeln!(
                f,
                "WAL recovery ({mode}): later logs not replayed: {}",
                self.logs_not_replayed.join(", ")
            )?;
        }
        Ok(())
    }
}

/// Reads a whole log file as fsck does, without stopping at damage: every stretch that an
/// open would drop or stop at (in any recovery mode), and for a WAL (`*.log`) every record
/// that frames correctly but is not a write batch.
#[must_use]
pub fn check_log(file: &str, data: &[u8]) -> Vec<WalDrop> {
    let mode = RecoveryMode::SkipAnyCorruptedRecords;
    let mut r = WalRecovery {
        mode,
        ..WalRecovery::default()
    };
    let len = data.len() as u64;
    match crate::log_format::read_log(file, data, mode) {
        Ok(contents) => {
            r.add_log(file, len, &contents);
            if std::path::Path::new(file)
                .extension()
                .is_some_and(|e| e == "log")
            {
                for (at, rec) in &contents.records {
                    if let Err(e) = crate::batch::WriteBatch::from_data(file, rec) {
                        r.add_bad_batch(file, len, *at, e.to_string());
                    }
                }
            }
        }
        Err(e) => r.add_bad_batch(file, len, 0, e.to_string()),
    }
    r.dropped
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use crate::batch::WriteBatch;
    use crate::log_format::{LogWriter, read_log};

    /// A WAL of `n` one-put batches.
    fn wal(n: u32) -> Vec<u8> {
        let mut w = LogWriter::new();
        let mut out = Vec::new();
        for i in 0..n {
            let mut b = WriteBatch::new();
            b.put(format!("key{i:04}").as_bytes(), &[7u8; 300]);
            b.set_sequence(u64::from(i) + 1);
            w.add_record(b.data(), &mut out);
        }
        out
    }

    fn replay(data: &[u8]) -> WalRecovery {
        let mut r = WalRecovery::default();
        let c = read_log("000009.log", data, RecoveryMode::PointInTimeRecovery).unwrap();
        r.add_log("000009.log", data.len() as u64, &c);
        r
    }

    #[test]
    fn a_clean_wal_reports_nothing() {
        let r = replay(&wal(20));
        assert!(r.is_clean() && !r.lost_data());
        assert_eq!(r.records_replayed, 20);
        assert_eq!(r.to_string(), "");
    }

    #[test]
    fn a_torn_tail_is_dropped_but_is_not_lost_data() {
        let data = wal(20);
        let r = replay(&data[..data.len() - 100]);
        assert_eq!(r.records_replayed, 19);
        assert_eq!(r.dropped.len(), 1);
        assert!(r.dropped[0].torn_tail, "{r:?}");
        assert!(!r.lost_data());
        assert!(r.to_string().contains("never synced"), "{r}");
    }

    #[test]
    fn a_damaged_head_says_how_much_was_not_replayed() {
        let mut data = wal(20);
        data[20] ^= 0xFF;
        let r = replay(&data);
        assert_eq!(r.records_replayed, 0);
        assert!(r.lost_data());
        let d = &r.dropped[0];
        assert_eq!((d.offset, d.torn_tail), (0, false));
        assert_eq!(d.bytes_not_replayed, Some(data.len() as u64));
        let text = r.to_string();
        assert!(
            text.contains("kPointInTimeRecovery")
                && text.contains("000009.log at offset 0")
                && text.contains(&format!("{} bytes not replayed", data.len())),
            "{text}"
        );
    }

    #[test]
    fn fsck_sees_every_damaged_stretch_and_the_torn_tail() {
        let mut data = wal(400); // about four 32 KiB log blocks
        data[20] ^= 0xFF;
        data[40_000] ^= 0xFF;
        let n = data.len();
        let found = check_log("000009.log", &data[..n - 50]);
        assert!(found.len() >= 3, "{found:?}");
        assert!(!found[0].torn_tail && found[0].offset == 0);
        assert!(found.last().unwrap().torn_tail, "{found:?}");
        assert!(check_log("000009.log", &wal(5)).is_empty());
    }
}
