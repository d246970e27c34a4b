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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use crate::{Env, SimConfig, SimEnv};

    #[test]
    fn bookings_go_to_the_core_free_first() {
        let sim = SimEnv::new(SimConfig::default().cores(2));
        let s = &sim.shared;
        assert_eq!(s.book_cpu(0, 100), 100);
        assert_eq!(s.book_cpu(0, 50), 50);
        assert_eq!(s.book_cpu(0, 10), 60); // core 2 frees first (at 50)
        assert_eq!(s.book_cpu(0, 0), 0); // zero cost needs no core
        assert_eq!(s.book_cpu(500, 10), 510); // an idle core starts at once
    }

    #[test]
    fn zero_cores_act_as_one() {
        let sim = SimEnv::new(SimConfig::default().cores(0));
        assert_eq!(sim.shared.book_cpu(0, 10), 10);
        assert_eq!(sim.shared.book_cpu(0, 10), 20);
    }

    #[test]
    fn cpu_futures_complete_at_their_booked_end() {
        let sim = SimEnv::new(SimConfig::default().cores(1));
        let env = sim.clone();
        let ends = sim
            .run(async move {
                let (a, b) = (env.cpu(30), env.cpu(30)); // both booked now: 30 and 60
                a.await;
                let t1 = env.now();
                b.await;
                let t2 = env.now();
                env.cpu(0).await;
                (t1, t2, env.now())
            })
            .unwrap();
        assert_eq!(ends, (30, 60, 60));
    }
}
