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
}

impl SimSleep {
    pub(crate) fn new(shared: Arc<Shared>, deadline_ns: u64) -> Self {
        Self {
            shared,
            deadline_ns,
            registered: None,
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
