//! RocksDB's write-stall conditions (`ColumnFamilyData::RecalculateWriteStallConditions`),
//! computed in one place for the write path ([`super::write`]: stop, delay or pass a write
//! group) and for the scheduler ([`super::background::schedule`]: how many compactions may
//! run). Both must read the tree the same way, or writes could be delayed while compactions
//! stay throttled to one.
//!
//! RocksDB's zero-is-off rule: a pending-compaction-bytes limit of 0 never stalls, and a soft
//! limit of 0 takes the hard one (`SanitizeOptions`).
//!
//! Pure: it reads counts from the state, so tests need no I/O.

use super::State;
use crate::options::DbOptions;

/// What the tree asks of writers now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WriteStall {
    /// Writes stop: `max_write_buffer_number` immutable memtables,
    /// `level0_stop_writes_trigger`, or the hard pending limit.
    pub(crate) stop: bool,
    /// A slowdown condition holds: `level0_slowdown_writes_trigger`, the soft pending limit,
    /// or one write buffer left when there are more than three. It is reported also while
    /// writes stop, so the delay period (and its token bucket) lasts through a stop; RocksDB
    /// swaps its delay token for a stop token there and starts the next period with an
    /// empty bucket (a difference listed in `docs/library.md`, Options).
    pub(crate) delay: bool,
    /// RocksDB's compaction-pressure token: L0 or the pending bytes are getting close to a
    /// slowdown.
    pub(crate) speedup: bool,
}

impl WriteStall {
    /// RocksDB's `NeedSpeedupCompaction`: writes are stopped or delayed, or the tree holds
    /// a compaction-pressure token.
    pub(crate) fn needs_speedup(self) -> bool {
        self.stop || self.delay || self.speedup
    }
}

/// The soft pending-compaction-bytes limit in force (0: off): a soft limit of 0 takes the
/// hard one (`SanitizeOptions`; a hard limit below a nonzero soft one is refused by
/// [`DbOptions::validate`]).
fn soft_limit(opts: &DbOptions) -> u64 {
    match opts.soft_pending_compaction_bytes_limit {
        0 => opts.hard_pending_compaction_bytes_limit,
        soft => soft,
    }
}

/// Whether `pending` bytes reach `limit` (a limit of 0 is off).
fn at(pending: u64, limit: u64) -> bool {
    limit > 0 && pending >= limit
}

/// The stall condition for `l0` files in L0, `imm` immutable memtables waiting for a flush
/// and `pending` estimated pending compaction bytes.
pub(crate) fn write_stall(opts: &DbOptions, l0: u64, imm: u64, pending: u64) -> WriteStall {
    let max_wb = u64::from(opts.max_write_buffer_number);
    let trigger = u64::from(opts.level0_file_num_compaction_trigger);
    let slowdown = u64::from(opts.level0_slowdown_writes_trigger);
    let soft = soft_limit(opts);
    // `GetL0ThresholdSpeedupCompaction`: the lesser of twice the compaction trigger and a
    // quarter of the way from it to the slowdown trigger; and a quarter of the soft limit
    // of pending bytes.
    let speedup_l0 = (2 * trigger).min(trigger + slowdown.saturating_sub(trigger) / 4);
    WriteStall {
        stop: imm >= max_wb
            || l0 >= u64::from(opts.level0_stop_writes_trigger)
            || at(pending, opts.hard_pending_compaction_bytes_limit),
        delay: (max_wb > 3 && imm + 1 >= max_wb) || l0 >= slowdown || at(pending, soft),
        speedup: l0 >= speedup_l0 || at(pending, soft / 4),
    }
}

/// [`write_stall`] for the tree `st` holds now.
pub(crate) fn write_stall_of(opts: &DbOptions, st: &State) -> WriteStall {
    write_stall(
        opts,
        st.version.levels.first().map_or(0, Vec::len) as u64,
        st.imm.len() as u64,
        st.pending_compaction_bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(soft: u64, hard: u64) -> DbOptions {
        DbOptions {
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            max_write_buffer_number: 2,
            soft_pending_compaction_bytes_limit: soft,
            hard_pending_compaction_bytes_limit: hard,
            ..DbOptions::default()
        }
    }

    fn ws(stop: bool, delay: bool, speedup: bool) -> WriteStall {
        WriteStall {
            stop,
            delay,
            speedup,
        }
    }

    #[test]
    fn zero_pending_limits_never_stall() {
        let o = opts(0, 0);
        assert_eq!(write_stall(&o, 0, 0, u64::MAX), ws(false, false, false));
        assert!(!write_stall(&o, 0, 0, u64::MAX).needs_speedup());
    }

    #[test]
    fn a_zero_soft_limit_takes_the_hard_one() {
        let o = opts(0, 1000);
        assert_eq!(write_stall(&o, 0, 0, 249), ws(false, false, false));
        assert_eq!(write_stall(&o, 0, 0, 999), ws(false, false, true));
        assert_eq!(write_stall(&o, 0, 0, 1000), ws(true, true, true));
    }

    #[test]
    fn a_zero_hard_limit_still_delays_at_the_soft_one() {
        let o = opts(1000, 0);
        assert_eq!(write_stall(&o, 0, 0, 250), ws(false, false, true));
        assert_eq!(write_stall(&o, 0, 0, u64::MAX), ws(false, true, true));
    }

    #[test]
    fn l0_triggers_delay_stop_and_speed_up() {
        let o = opts(1 << 40, 1 << 41);
        // min(2 x 4, 4 + (20 - 4) / 4) = 8.
        assert!(!write_stall(&o, 7, 0, 0).needs_speedup());
        assert_eq!(write_stall(&o, 8, 0, 0), ws(false, false, true));
        assert_eq!(write_stall(&o, 20, 0, 0), ws(false, true, true));
        assert_eq!(write_stall(&o, 36, 0, 0), ws(true, true, true));
    }

    #[test]
    fn memtables_stop_at_the_limit_and_delay_one_before_it_past_three() {
        let o = opts(1 << 40, 1 << 41);
        assert_eq!(write_stall(&o, 0, 1, 0), ws(false, false, false));
        assert_eq!(write_stall(&o, 0, 2, 0), ws(true, false, false));
        assert!(write_stall(&o, 0, 2, 0).needs_speedup());
        let o = DbOptions {
            max_write_buffer_number: 4,
            ..o
        };
        assert_eq!(write_stall(&o, 0, 3, 0), ws(false, true, false));
        assert_eq!(write_stall(&o, 0, 4, 0), ws(true, true, false));
    }
}
