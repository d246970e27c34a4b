//! The real environment: one OS thread per task, the monotonic OS clock, a timer thread for
//! sleeps. This is the one file of the engine crates allowed to touch the OS clock and threads;
//! the items that do carry their own `allow`.

use std::cmp::{Ordering as CmpOrdering, Reverse};
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::join::task_with_handle;
use crate::rng::stream_seed;
use crate::{Env, JoinHandle, SimRng};

/// Environment on OS threads and the real clock.
///
/// `now()` counts nanoseconds since [`RealEnv::new`]; every spawned task gets its own OS thread
/// (named after the task); sleeps are woken by one shared timer thread, so a task may wait on
/// several sleeps (or a sleep and a channel) at once.
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
    /// Whether the timer thread started; if not, sleeps block their thread instead.
    timer_thread: bool,
    /// The nice value background threads run at (0: as foreground threads).
    background_nice: AtomicI32,
}

/// RocksDB's `CpuPriority::kLow`: background threads at nice 19.
pub const LOW_CPU_PRIORITY_NICE: i32 = 19;

/// A registered sleep: wake `waker` once the clock reaches `deadline_ns`.
#[derive(Debug)]
struct RealTimer {
    deadline_ns: u64,
    seq: u64,
    waker: Waker,
}

impl PartialEq for RealTimer {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline_ns, self.seq) == (other.deadline_ns, other.seq)
    }
}
impl Eq for RealTimer {}
impl PartialOrd for RealTimer {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for RealTimer {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (self.deadline_ns, self.seq).cmp(&(other.deadline_ns, other.seq))
    }
}

#[derive(Debug, Default)]
struct TimerState {
    heap: BinaryHeap<Reverse<RealTimer>>,
    /// Set when the environment is dropped: the timer thread exits.
    shutdown: bool,
}

/// Pending sleeps, shared by the environment and its timer thread.
#[derive(Debug, Default)]
struct Timers {
    state: Mutex<TimerState>,
    /// Signals the timer thread: an earlier deadline, or shutdown.
    cond: Condvar,
    seq: AtomicU64,
}

impl Timers {
    fn lock(&self) -> MutexGuard<'_, TimerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.timers.lock().shutdown = true;
        self.timers.cond.notify_all();
    }
}

fn elapsed_ns(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

impl RealEnv {
    /// A real environment whose clock starts now and whose RNG streams derive from `seed`.
    #[allow(
        clippy::disallowed_methods,
        reason = "the real environment reads the OS clock once, as its time origin"
    )]
    pub fn new(seed: u64) -> Self {
        let timers = Arc::new(Timers::default());
        let start = Instant::now();
        let t = timers.clone();
        let timer_thread = std::thread::Builder::new()
            .name("zonedb-timer".into())
            .spawn(move || timer_thread(&t, start))
            .is_ok();
        Self {
            inner: Arc::new(Inner {
                start,
                seed,
                rng_streams: AtomicU64::new(0),
                timers,
                timer_thread,
                background_nice: AtomicI32::new(LOW_CPU_PRIORITY_NICE),
            }),
        }
    }

    /// The nice value of background threads started from now on (flush, compaction, zone
    /// cleaning): nice 19 by default, 0 to run them as foreground threads.
    /// Applies on Linux, where a thread's nice value is its own; elsewhere it does nothing.
    pub fn set_background_nice(&self, nice: i32) {
        self.inner
            .background_nice
            .store(nice.clamp(0, 19), Ordering::Relaxed);
    }

    /// Runs `future` on the calling thread until it completes (parking the thread while it is
    /// pending).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        block_on(future)
    }
}

/// Wakes the wakers of due sleeps; waits on the condvar until the next deadline otherwise.
fn timer_thread(t: &Timers, start: Instant) {
    let mut due = Vec::new();
    let mut g = t.lock();
    loop {
        if g.shutdown {
            return;
        }
        let now = elapsed_ns(start);
        while g.heap.peek().is_some_and(|Reverse(e)| e.deadline_ns <= now) {
            if let Some(Reverse(e)) = g.heap.pop() {
                due.push(e.waker);
            }
        }
        if !due.is_empty() {
            // Woken outside the lock: a woken task may register its next sleep at once.
            drop(g);
            for w in due.drain(..) {
                w.wake();
            }
            g = t.lock();
            continue;
        }
        g = match g.heap.peek() {
            Some(Reverse(e)) => {
                let wait = Duration::from_nanos(e.deadline_ns.saturating_sub(now));
                t.cond
                    .wait_timeout(g, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => t.cond.wait(g).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

/// Unparks the thread running [`block_on`].
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

/// Polls `future` on this thread, parking between wake-ups.
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
        // `park` may return spuriously; the flag tells a real wake-up apart.
        while !tw.notified.swap(false, Ordering::AcqRel) {
            std::thread::park();
        }
    }
}

/// Completes once the real clock reaches the deadline. Registers with the timer thread on its
/// first pending poll (and again only if polled with a different waker); never spins.
#[derive(Debug)]
pub struct RealSleep {
    inner: Arc<Inner>,
    deadline_ns: u64,
    registered: Option<Waker>,
}

impl RealSleep {
    /// The deadline, in nanoseconds since the environment was created.
    pub fn deadline_ns(&self) -> u64 {
        self.deadline_ns
    }

    /// Without a timer thread (it failed to start), sleep on this task's own thread.
    #[allow(
        clippy::disallowed_methods,
        reason = "fallback of the real environment: one OS thread per task, so blocking it is \
                  a correct (if coarse) sleep"
    )]
    fn block_until_deadline(&self) {
        loop {
            let now = elapsed_ns(self.inner.start);
            if now >= self.deadline_ns {
                return;
            }
            std::thread::sleep(Duration::from_nanos(self.deadline_ns - now));
        }
    }
}

impl Future for RealSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if elapsed_ns(self.inner.start) >= self.deadline_ns {
            return Poll::Ready(());
        }
        if !self.inner.timer_thread {
            self.block_until_deadline();
            return Poll::Ready(());
        }
        if self
            .registered
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            return Poll::Pending;
        }
        let waker = cx.waker().clone();
        let timers = &self.inner.timers;
        let seq = timers.seq.fetch_add(1, Ordering::Relaxed);
        let earliest = {
            let mut g = timers.lock();
            g.heap.push(Reverse(RealTimer {
                deadline_ns: self.deadline_ns,
                seq,
                waker: waker.clone(),
            }));
            g.heap.peek().is_some_and(|Reverse(e)| e.seq == seq)
        };
        // The timer thread needs to hear only of a new earliest deadline.
        if earliest {
            timers.cond.notify_one();
        }
        self.registered = Some(waker);
        Poll::Pending
    }
}

impl Env for RealEnv {
    type Sleep = RealSleep;
    type Cpu = std::future::Ready<()>;

    fn now(&self) -> u64 {
        elapsed_ns(self.inner.start)
    }

    fn sleep_until(&self, deadline_ns: u64) -> RealSleep {
        RealSleep {
            inner: self.inner.clone(),
            deadline_ns,
            registered: None,
        }
    }

    /// Runs the task on a new OS thread named `name`. If the thread cannot be started, the
    /// task is dropped and its handle reports a [`crate::JoinError`]; so does a task that
    /// panics.
    fn run_blocking<F: Future>(&self, future: F) -> Option<F::Output> {
        Some(block_on(future))
    }

    fn spawn<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let (task, handle) = task_with_handle(name, future);
        let _ = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || block_on(task));
        handle
    }

    fn spawn_background<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let (task, handle) = task_with_handle(name, future);
        let nice = self.inner.background_nice.load(Ordering::Relaxed);
        let _ = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                lower_priority(nice);
                block_on(task);
            });
        handle
    }

    /// Completes at once: the work has already taken real time.
    fn cpu(&self, _cost_ns: u64) -> std::future::Ready<()> {
        std::future::ready(())
    }

    fn rng(&self) -> SimRng {
        let stream = self.inner.rng_streams.fetch_add(1, Ordering::Relaxed);
        SimRng::seed_from_u64(stream_seed(self.inner.seed, stream))
    }

    fn is_simulated(&self) -> bool {
        false
    }
}

/// Lowers the calling thread's CPU priority to `nice` (best effort: a refusal leaves it as
/// it was). On Linux `setpriority(PRIO_PROCESS, 0, …)` applies to the calling thread only.
#[cfg(target_os = "linux")]
fn lower_priority(nice: i32) {
    if nice > 0 {
        let _ = rustix::process::setpriority_process(None, nice);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_nice: i32) {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::RealEnv;
    use crate::{Env, SimConfig, SimEnv};

    /// Background tasks run at RocksDB's low CPU priority (nice 19) unless turned off;
    /// foreground tasks keep the caller's.
    #[cfg(target_os = "linux")]
    #[test]
    fn background_tasks_run_at_low_cpu_priority() {
        let nice = || rustix::process::getpriority_process(None).unwrap();
        let env = RealEnv::new(0);
        let e = env.clone();
        let base = nice();
        let (fg, bg) = env.block_on(async move {
            let fg = e.spawn("fg", async move { nice() }).await.unwrap();
            let bg = e
                .spawn_background("bg", async move { nice() })
                .await
                .unwrap();
            (fg, bg)
        });
        assert_eq!((fg, bg), (base, super::LOW_CPU_PRIORITY_NICE.max(base)));
        env.set_background_nice(0);
        let e = env.clone();
        let bg = env.block_on(async move {
            e.spawn_background("bg", async move { nice() })
                .await
                .unwrap()
        });
        assert_eq!(bg, base);
    }

    #[test]
    fn sleeps_wait_at_least_their_duration() {
        let env = RealEnv::new(0);
        let e = env.clone();
        let (t0, t1) = env.block_on(async move {
            let t0 = e.now();
            e.sleep(3_000_000).await;
            (t0, e.now())
        });
        assert!(t1 - t0 >= 3_000_000, "{}", t1 - t0);
    }

    #[test]
    fn many_tasks_with_many_sleeps_all_finish() {
        let env = RealEnv::new(0);
        let e = env.clone();
        let sum = env.block_on(async move {
            let hs: Vec<_> = (0..8u64)
                .map(|i| {
                    let e2 = e.clone();
                    e.spawn(&format!("sleeper-{i}"), async move {
                        for k in 0..20 {
                            e2.sleep((i + k) % 3 * 100_000).await;
                        }
                        i
                    })
                })
                .collect();
            let mut sum = 0;
            for h in hs {
                sum += h.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 28);
    }

    #[test]
    fn past_deadlines_and_cpu_complete_at_once() {
        let env = RealEnv::new(0);
        let e = env.clone();
        env.block_on(async move {
            e.sleep_until(0).await;
            e.cpu(1_000_000_000).await;
        });
        assert!(!env.is_simulated());
    }

    #[test]
    fn rng_streams_match_the_simulator_for_the_same_seed() {
        let real = RealEnv::new(42);
        let sim = SimEnv::new(SimConfig::with_seed(42));
        for _ in 0..3 {
            assert_eq!(real.rng().next_u64(), sim.rng().next_u64());
        }
    }
}
