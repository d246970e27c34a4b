//! Timers: a heap ordered by (deadline, sequence), exact to the nanosecond.

use std::cmp::Ordering as CmpOrdering;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::task::{Context, Poll, Waker};

use super::executor::Shared;

/// A pending timer.
#[derive(Debug)]
pub(crate) struct TimerEntry {
    pub(crate) deadline_ns: u64,
    pub(crate) seq: u64,
    pub(crate) waker: Waker,
}

impl PartialEq for TimerEntry {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline_ns, self.seq) == (other.deadline_ns, other.seq)
    }
}
impl Eq for TimerEntry {}
impl PartialOrd for TimerEntry {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for TimerEntry {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (self.deadline_ns, self.seq).cmp(&(other.deadline_ns, other.seq))
    }
}

/// Completes once virtual time reaches its deadline.
#[derive(Debug)]
pub struct SimSleep {
    shared: Arc<Shared>,
    deadline_ns: u64,
    registered: Option<Waker>,
    /// Awaited alone ([`crate::Env::cpu_alone`]): may complete in its first poll.
    alone: bool,
}

impl SimSleep {
    pub(crate) fn new(shared: Arc<Shared>, deadline_ns: u64) -> Self {
        Self {
            shared,
            deadline_ns,
            registered: None,
            alone: false,
        }
    }

    /// A sleep its caller awaits alone (see [`crate::Env::cpu_alone`]).
    pub(crate) fn alone(shared: Arc<Shared>, deadline_ns: u64) -> Self {
        Self {
            alone: true,
            ..Self::new(shared, deadline_ns)
        }
    }

    /// The deadline.
    pub fn deadline_ns(&self) -> u64 {
        self.deadline_ns
    }
}

impl Future for SimSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.shared.now.load(Ordering::Relaxed) >= self.deadline_ns {
            return Poll::Ready(());
        }
        if self.alone && self.registered.is_none() && self.shared.skip_to(self.deadline_ns) {
            return Poll::Ready(());
        }
        let fresh = self
            .registered
            .as_ref()
            .is_none_or(|w| !w.will_wake(cx.waker()));
        if fresh {
            let seq = self.shared.timer_seq.fetch_add(1, Ordering::Relaxed);
            let waker = cx.waker().clone();
            self.shared
                .timers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(std::cmp::Reverse(TimerEntry {
                    deadline_ns: self.deadline_ns,
                    seq,
                    waker: waker.clone(),
                }));
            self.registered = Some(waker);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::future::Future;
    use std::pin::pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};

    use crate::{Env, SimConfig, SimEnv};

    #[test]
    fn timers_fire_in_deadline_then_registration_order() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let log = Arc::new(Mutex::new(Vec::new()));
        let log2 = log.clone();
        // (name, deadline): registered in this order.
        let plan = [
            ("a", 30),
            ("b", 10),
            ("c", 30),
            ("d", 20),
            ("e", 10),
            ("f", 5),
        ];
        sim.run(async move {
            let hs: Vec<_> = plan
                .into_iter()
                .map(|(name, d)| {
                    let (e, log) = (env.clone(), log2.clone());
                    env.spawn(name, async move {
                        e.sleep_until(d).await;
                        log.lock().unwrap().push((e.now(), name));
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        })
        .unwrap();
        assert_eq!(
            *log.lock().unwrap(),
            vec![
                (5, "f"),
                (10, "b"),
                (10, "e"),
                (20, "d"),
                (30, "a"),
                (30, "c")
            ]
        );
    }

    #[test]
    fn a_sleep_registers_once_however_often_it_is_polled() {
        let sim = SimEnv::new(SimConfig::default());
        let mut s = pin!(sim.sleep_until(100));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..10 {
            assert_eq!(s.as_mut().poll(&mut cx), Poll::Pending);
        }
        assert_eq!(sim.shared.timers.lock().unwrap().len(), 1);
        assert_eq!(s.deadline_ns(), 100);
    }

    #[test]
    fn past_and_present_deadlines_are_ready_at_once() {
        let sim = SimEnv::new(SimConfig::default());
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(pin!(sim.sleep_until(0)).poll(&mut cx), Poll::Ready(()));
        assert_eq!(pin!(sim.sleep(0)).poll(&mut cx), Poll::Ready(()));
        assert!(sim.shared.timers.lock().unwrap().is_empty());
    }

    #[test]
    fn nanosecond_deadlines_are_exact() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let t = sim
            .run(async move {
                env.sleep(1).await;
                env.sleep(999_999_999_999).await;
                env.sleep(3).await;
                env.now()
            })
            .unwrap();
        assert_eq!(t, 1_000_000_000_003);
    }
}
