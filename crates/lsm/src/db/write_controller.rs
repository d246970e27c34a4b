//! RocksDB's delayed-write token bucket (`WriteController::GetDelay`): while writes are
//! delayed (past `level0_slowdown_writes_trigger`, the soft pending-compaction limit, or with
//! one write buffer left), a write group spends credit earned at `delayed_write_rate`; credit
//! is refilled in 1 ms steps, a group that finds too little sleeps for what it is over budget
//! and never less than 1 ms. So under a slowdown most writes pass at once and about one in
//! `rate x 1 ms / group bytes` waits a millisecond or more: the tail a slowdown gives
//! RocksDB's latencies. The bucket is emptied whenever a delay period begins.
//!
//! Pure: the caller passes the time, so the bucket needs no clock and tests need no I/O.

/// RocksDB's refill step and minimum delay (`kMicrosPerRefill`), ns.
pub const REFILL_NS: u64 = 1_000_000;

/// RocksDB's sleep step while a delayed write waits (`kDelayInterval`, 1001 µs), ns.
pub const DELAY_INTERVAL_NS: u64 = 1_001_000;

/// The credit of the current delay period.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteController {
    /// Whether writes are being delayed now (the bucket lives while this holds).
    delaying: bool,
    /// Bytes that may be written now without a delay.
    credit_bytes: u64,
    /// When credit is next refilled, µs (`None`: not since the period began).
    next_refill_us: Option<u64>,
}

impl WriteController {
    /// Records whether writes need a delay now; a period that begins starts with an empty
    /// bucket (RocksDB resets it when the first delay token is taken).
    pub fn set_delaying(&mut self, delaying: bool) {
        if delaying && !self.delaying {
            self.credit_bytes = 0;
            self.next_refill_us = None;
        }
        self.delaying = delaying;
    }

    /// Whether writes are being delayed.
    pub fn delaying(&self) -> bool {
        self.delaying
    }

    /// How long a group of `bytes` written at `now_ns` must wait, ns (0: it passes), at
    /// `rate` bytes per second. Outside a delay period nothing waits.
    pub fn delay_ns(&mut self, now_ns: u64, bytes: u64, rate: u64) -> u64 {
        if !self.delaying {
            return 0;
        }
        if self.credit_bytes >= bytes {
            self.credit_bytes -= bytes;
            return 0;
        }
        let rate = rate.max(1);
        let t_us = now_ns / 1_000;
        let refill_us = REFILL_NS / 1_000;
        let next = *self.next_refill_us.get_or_insert(t_us);
        if next <= t_us {
            // The step's credit and whatever elapsed since the refill was due, rounded up.
            let elapsed_us = t_us - next + refill_us;
            self.credit_bytes = self.credit_bytes.saturating_add(
                (u128::from(elapsed_us) * u128::from(rate)).div_ceil(1_000_000) as u64,
            );
            self.next_refill_us = Some(t_us + refill_us);
            if self.credit_bytes >= bytes {
                self.credit_bytes -= bytes;
                return 0;
            }
        }
        let over = bytes - self.credit_bytes;
        let needed_us = (u128::from(over) * 1_000_000 / u128::from(rate)) as u64;
        self.credit_bytes = 0;
        let next = self.next_refill_us.unwrap_or(t_us) + needed_us;
        self.next_refill_us = Some(next);
        next.saturating_sub(t_us).max(refill_us) * 1_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB16: u64 = 16 << 20;

    #[test]
    fn outside_a_delay_period_nothing_waits() {
        let mut c = WriteController::default();
        assert_eq!(c.delay_ns(5_000_000, 1 << 30, MB16), 0);
    }

    /// At 16 MiB/s, 1 KiB groups every 10 µs: a millisecond's credit (16,778 bytes) lets 16
    /// pass, the 17th waits at least 1 ms; over a long run the bytes let through match the
    /// rate.
    #[test]
    fn most_groups_pass_and_one_in_sixteen_waits_a_millisecond() {
        let mut c = WriteController::default();
        c.set_delaying(true);
        let mut now = 1_000_000_000;
        let mut waits = Vec::new();
        for _ in 0..17 {
            let d = c.delay_ns(now, 1024, MB16);
            waits.push(d);
            now += 10_000 + d;
        }
        assert!(waits[..16].iter().all(|&d| d == 0), "{waits:?}");
        assert!(waits[16] >= REFILL_NS, "{waits:?}");
        // Long run: bytes through over time stay near the rate.
        let start = now;
        let mut bytes = 0_u32;
        for _ in 0..20_000 {
            now += 1_000 + c.delay_ns(now, 1024, MB16);
            bytes += 1024;
        }
        let rate = f64::from(bytes) / ((now - start) as f64 / 1e9);
        assert!((rate / MB16 as f64 - 1.0).abs() < 0.1, "{rate}");
    }

    /// A large group waits for what it is over budget; a new period starts empty.
    #[test]
    fn a_large_group_waits_its_bytes_and_a_new_period_starts_empty() {
        let mut c = WriteController::default();
        c.set_delaying(true);
        // 1 MiB at 16 MiB/s: ~62.5 ms less the first step's credit.
        let d = c.delay_ns(0, 1 << 20, MB16);
        assert!((60_000_000..=63_000_000).contains(&d), "{d}");
        c.set_delaying(false);
        assert_eq!(c.delay_ns(1_000_000_000, 1 << 20, MB16), 0);
        c.set_delaying(true);
        assert_eq!(c.credit_bytes, 0);
        assert!(c.delay_ns(2_000_000_000, 1 << 20, MB16) > 0);
    }
}
