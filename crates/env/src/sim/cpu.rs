//! Modeled CPU cores: `Env::cpu(cost)` books the core that frees up first.
//!
//! Booking happens when `cpu` is called (not when its future is first polled): start =
//! max(now, core free), end = start + cost. Calls are made in the deterministic order the
//! executor runs tasks, so the booking is deterministic too.

use std::sync::atomic::Ordering;

use super::executor::Shared;

impl Shared {
    /// Books `cost_ns` of CPU work issued at `now`; returns its end time.
    pub(crate) fn book_cpu(&self, now: u64, cost_ns: u64) -> u64 {
        if cost_ns == 0 {
            return now;
        }
        let Some(core) = self
            .cores
            .iter()
            .min_by_key(|free| free.load(Ordering::Relaxed))
        else {
            return now.saturating_add(cost_ns);
        };
        let start = now.max(core.load(Ordering::Relaxed));
        let end = start.saturating_add(cost_ns);
        core.store(end, Ordering::Relaxed);
        end
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

    /// `cpu_alone` ends where `cpu` ends, before a timer due later and after one due at
    /// the same instant or earlier, and never ahead of a task that is ready.
    #[test]
    fn cpu_alone_keeps_every_instant_and_order() {
        for alone in [false, true] {
            let sim = SimEnv::new(SimConfig::default().cores(1));
            let env = sim.clone();
            let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let l = log.clone();
            let got = sim
                .run(async move {
                    let (e1, l1) = (env.clone(), l.clone());
                    // A sleeper due at 50, and another woken at 100 (the same instant as the
                    // second charge's end).
                    let a = env.spawn("at-50", async move {
                        e1.sleep_until(50).await;
                        l1.lock().unwrap().push(("at-50", e1.now()));
                    });
                    let (e2, l2) = (env.clone(), l.clone());
                    let b = env.spawn("at-100", async move {
                        e2.sleep_until(100).await;
                        l2.lock().unwrap().push(("at-100", e2.now()));
                    });
                    // Let both register their timers first (one yield to the executor).
                    let mut yielded = false;
                    std::future::poll_fn(|cx| {
                        if yielded {
                            return std::task::Poll::Ready(());
                        }
                        yielded = true;
                        cx.waker().wake_by_ref();
                        std::task::Poll::Pending
                    })
                    .await;
                    let charge = |c| if alone { env.cpu_alone(c) } else { env.cpu(c) };
                    charge(30).await; // ends at 30: nothing due before
                    l.lock().unwrap().push(("charge-30", env.now()));
                    charge(70).await; // ends at 100: after "at-50", after "at-100" (due first)
                    l.lock().unwrap().push(("charge-100", env.now()));
                    charge(5).await; // ends at 105
                    l.lock().unwrap().push(("charge-105", env.now()));
                    a.await.unwrap();
                    b.await.unwrap();
                    env.now()
                })
                .unwrap();
            assert_eq!(got, 105);
            assert_eq!(
                *log.lock().unwrap(),
                vec![
                    ("charge-30", 30),
                    ("at-50", 50),
                    ("at-100", 100),
                    ("charge-100", 100),
                    ("charge-105", 105)
                ],
                "alone = {alone}"
            );
        }
    }

    #[test]
    fn cpu_alone_outside_a_run_only_books() {
        let sim = SimEnv::new(SimConfig::default().cores(1));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut f = std::pin::pin!(sim.cpu_alone(10));
        assert!(std::future::Future::poll(f.as_mut(), &mut cx).is_pending());
        assert_eq!(sim.now(), 0);
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
