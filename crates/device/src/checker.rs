//! Write-pointer checker: asserts the zone invariants before a request is submitted and after it
//! completes (TigerBeetle-style checkers as a first-class module).
//!
//! Checked: every write pointer inside `[zone start, start + capacity]` and block aligned; state
//! consistent with the write pointer (empty at the start, full at the capacity end, closed with
//! data); open and active counters equal to the states and within the device limits; write
//! pointers only move forward except through reset.

use crate::zone::{ZoneInfo, ZoneState, ZoneTable};

/// Snapshot-comparing invariant checker for one device.
#[derive(Debug, Default, Clone)]
pub struct WritePointerChecker {
    enabled: bool,
    last: Vec<(ZoneState, u64)>,
}

impl WritePointerChecker {
    /// A checker; disabled ones cost nothing.
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            last: Vec::new(),
        }
    }

    /// Whether checks run.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Checks the table and, compared to the previous check, that no write pointer moved
    /// backwards unless its zone was reset (went through empty) in between. Panics on a
    /// violation: a violated invariant is a bug in the device model, never bad input.
    ///
    /// # Panics
    /// When an invariant does not hold.
    #[track_caller]
    pub fn check(&mut self, table: &ZoneTable, moment: &str, reset_zone: Option<u32>) {
        if !self.enabled {
            return;
        }
        if let Err(e) = table.check_invariants() {
            panic!("write-pointer checker ({moment}): {e}");
        }
        let now: Vec<(ZoneState, u64)> = table
            .report(0, table.geometry().zone_count)
            .iter()
            .map(|z: &ZoneInfo| (z.state, z.write_pointer))
            .collect();
        if self.last.len() == now.len() {
            for (i, (old, new)) in self.last.iter().zip(&now).enumerate() {
                let reset = reset_zone.is_some_and(|r| r as usize == i);
                assert!(
                    new.1 >= old.1 || reset,
                    "write-pointer checker ({moment}): zone {i} write pointer moved back from {} to {} without a reset",
                    old.1,
                    new.1
                );
            }
        }
        self.last = now;
    }
}
