//! Modeled CPU cores: `Env::cpu(cost)` books the core that frees up first.
//!
//! Booking happens when `cpu` is called (not when its future is first polled): start =
//! max(now, core free), end = start + cost. Calls are made in the deterministic order the
//! executor runs tasks, so the booking is deterministic too.

use std::sync::PoisonError;

use super::executor::Shared;

impl Shared {
    /// Books `cost_ns` of CPU work issued at `now`; returns its end time.
    pub(crate) fn book_cpu(&self, now: u64, cost_ns: u64) -> u64 {
        if cost_ns == 0 {
            return now;
        }
        let mut cores = self.cores.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(core) = cores.iter_mut().min_by_key(|free| **free) else {
            return now.saturating_add(cost_ns);
        };
        let start = now.max(*core);
        *core = start.saturating_add(cost_ns);
        *core
    }
}
