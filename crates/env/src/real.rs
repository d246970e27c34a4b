//! The real environment: one OS thread per task, the monotonic OS clock, a timer thread for
//! sleeps. This is the one file of the engine crates allowed to touch the OS clock and threads.
#![allow(
    clippy::disallowed_methods,
    reason = "the real environment is where the OS clock and threads live"
)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::join::task_with_handle;
use crate::{Env, JoinHandle, SimRng};

/// Environment on OS threads and the real clock.
#[derive(Debug, Clone)]
pub struct RealEnv {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    start: Instant,
    seed: u64,
    rng_streams: AtomicU64,
    timers: Arc<Timers>,
}

/// Pending deadlines `(deadline, seq)`, the wakers by `seq`, and the shutdown flag.
type TimerState = (BinaryHeap<Reverse<(u64, u64)>>, Vec<(u64, Waker)>, bool);

#[derive(Debug, Default)]
struct Timers {
    heap: Mutex<TimerState>,
    cond: Condvar,
    seq: AtomicU64,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let mut g = self
            .timers
            .heap
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        g.2 = true;
        self.timers.cond.notify_all();
    }
}

impl RealEnv {
    /// A real environment whose RNG streams derive from `seed`.
    pub fn new(seed: u64) -> Self {
        let timers = Arc::new(Timers::default());
        let start = Instant::now();
        let t = timers.clone();
        let _ = std::thread::Builder::new()
            .name("zonedb-timer".into())
            .spawn(move || timer_thread(&t, start));
        Self {
            inner: Arc::new(Inner {
                start,
                seed,
                rng_streams: AtomicU64::new(0),
                timers,
            }),
        }
    }

    /// Runs `future` on the calling thread until it completes.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        block_on(future)
    }
}

fn timer_thread(t: &Timers, start: Instant) {
    let mut g = t.heap.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if g.2 {
            return;
        }
        let now = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // Fire every due timer.
        let mut due = Vec::new();
        while g.0.peek().is_some_and(|Reverse((d, _))| *d <= now) {
            if let Some(Reverse((_, seq))) = g.0.pop()
                && let Some(pos) = g.1.iter().position(|(s, _)| *s == seq)
            {
                due.push(g.1.swap_remove(pos).1);
            }
        }
        if !due.is_empty() {
            drop(g);
            for w in due {
                w.wake();
            }
            g = t.heap.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        g = match g.0.peek() {
            Some(Reverse((d, _))) => {
                let wait = Duration::from_nanos(d.saturating_sub(now));
                t.cond
                    .wait_timeout(g, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => t.cond.wait(g).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

struct ThreadWaker {
    thread: Thread,
    notified: AtomicBool,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.notified.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let tw = Arc::new(ThreadWaker {
        thread: std::thread::current(),
        notified: AtomicBool::new(false),
    });
    let waker = Waker::from(tw.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        while !tw.notified.swap(false, Ordering::AcqRel) {
            std::thread::park();
        }
    }
}

/// Completes once the real clock reaches the deadline.
#[derive(Debug)]
pub struct RealSleep {
    inner: Arc<Inner>,
    deadline_ns: u64,
    registered: bool,
}

impl Future for RealSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let now = u64::try_from(self.inner.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if now >= self.deadline_ns {
            return Poll::Ready(());
        }
        // Register (again on every poll: the waker may have changed; stale entries are harmless).
        let timers = self.inner.timers.clone();
        let seq = timers.seq.fetch_add(1, Ordering::Relaxed);
        {
            let mut g = timers.heap.lock().unwrap_or_else(PoisonError::into_inner);
            g.0.push(Reverse((self.deadline_ns, seq)));
            g.1.push((seq, cx.waker().clone()));
        }
        timers.cond.notify_all();
        self.registered = true;
        Poll::Pending
    }
}

impl Env for RealEnv {
    type Sleep = RealSleep;
    type Cpu = std::future::Ready<()>;

    fn now(&self) -> u64 {
        u64::try_from(self.inner.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn sleep_until(&self, deadline_ns: u64) -> RealSleep {
        RealSleep {
            inner: self.inner.clone(),
            deadline_ns,
            registered: false,
        }
    }

    fn spawn<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let (task, handle) = task_with_handle(name, future);
        // If the thread cannot start, the task is dropped and the handle reports a JoinError.
        let _ = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || block_on(task));
        handle
    }

    fn cpu(&self, _cost_ns: u64) -> std::future::Ready<()> {
        std::future::ready(())
    }

    fn rng(&self) -> SimRng {
        let stream = self.inner.rng_streams.fetch_add(1, Ordering::Relaxed);
        SimRng::seed_from_u64(
            self.inner.seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        )
    }

    fn is_simulated(&self) -> bool {
        false
    }
}
