//! The deterministic virtual-time simulator.
//!
//! - [`executor`]: the single-threaded run loop, task slab, wakers, deadlock and livelock
//!   detection, the seeded same-instant shuffle.
//! - [`timer`]: the timer heap ordered by (deadline, sequence) and the sleep future.
//! - [`cpu`]: the pool of modeled CPU cores behind `Env::cpu`.

mod cpu;
mod executor;
mod timer;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use timer::SimSleep;

use crate::join::task_with_handle;
use crate::rng::stream_seed;
use crate::{Env, JoinHandle, SimError, SimRng};
use executor::Shared;

/// Options of a simulation. The run is a pure function of them (and of the program).
///
/// ```
/// use zonedb_env::SimConfig;
/// let config = SimConfig::with_seed(7).cores(4).shuffle_same_instant(true);
/// assert_eq!(config.cores, 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    /// Seed of every random choice (RNG streams, same-instant shuffle).
    pub seed: u64,
    /// Modeled CPU cores that `Env::cpu` work contends for (0 is treated as 1). Default 2.
    pub cores: usize,
    /// Run tasks that are ready at the same instant in a seeded random order instead of FIFO.
    /// Default off.
    pub shuffle_same_instant: bool,
    /// Task polls allowed at one virtual instant before the run fails as a livelock. Default
    /// 10 000 000.
    pub livelock_poll_limit: u64,
    /// Whether [`Env::spawn_compute`] runs pure computation on OS threads beside the executor
    /// (results are the same either way; only wall time changes). Default on.
    pub parallel_compute: bool,
}

/// What [`SimConfig::default`] sets `parallel_compute` to (see
/// [`set_parallel_compute_default`]).
static PARALLEL_COMPUTE_DEFAULT: AtomicBool = AtomicBool::new(true);

/// Work [`Env::spawn_compute`] started on threads of their own in this process.
static COMPUTATIONS_STARTED: AtomicU64 = AtomicU64::new(0);

/// How many pieces of work simulations in this process started on threads beside their
/// executors ([`Env::spawn_compute`]); a wall-time figure, like the run's wall time.
pub fn parallel_computations() -> u64 {
    COMPUTATIONS_STARTED.load(Ordering::Relaxed)
}

/// Sets `parallel_compute` of every [`SimConfig::default`] made from now on in this process (a
/// command-line switch: it changes wall time only, never a result).
pub fn set_parallel_compute_default(on: bool) {
    PARALLEL_COMPUTE_DEFAULT.store(on, Ordering::Relaxed);
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            cores: 2,
            shuffle_same_instant: false,
            livelock_poll_limit: 10_000_000,
            parallel_compute: PARALLEL_COMPUTE_DEFAULT.load(Ordering::Relaxed),
        }
    }
}

impl SimConfig {
    /// Default options with `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }

    /// These options with `seed`.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// These options with `cores` modeled CPU cores.
    #[must_use]
    pub fn cores(mut self, cores: usize) -> Self {
        self.cores = cores;
        self
    }

    /// These options with the seeded same-instant shuffle on or off.
    #[must_use]
    pub fn shuffle_same_instant(mut self, on: bool) -> Self {
        self.shuffle_same_instant = on;
        self
    }

    /// These options with pure computation on OS threads beside the executor on or off.
    #[must_use]
    pub fn parallel_compute(mut self, on: bool) -> Self {
        self.parallel_compute = on;
        self
    }

    /// These options with a livelock limit of `polls` task polls per instant.
    #[must_use]
    pub fn livelock_poll_limit(mut self, polls: u64) -> Self {
        self.livelock_poll_limit = polls;
        self
    }
}

/// The simulated environment: virtual nanosecond clock, single-threaded executor.
///
/// Clones share one simulation. Tasks run only inside [`SimEnv::run`], on the calling thread,
/// one at a time; `now()` changes only when every task is blocked, jumping to the next timer.
#[derive(Debug, Clone)]
pub struct SimEnv {
    shared: Arc<Shared>,
}

impl SimEnv {
    /// A new simulation at time 0.
    pub fn new(config: SimConfig) -> Self {
        Self {
            shared: Arc::new(Shared::new(config)),
        }
    }

    /// The options.
    pub fn config(&self) -> &SimConfig {
        &self.shared.config
    }

    /// Drops every unfinished task, as a power loss would stop them. Call between runs, not
    /// from inside one. Their pending timers still fire later, waking nobody.
    ///
    /// Unfinished tasks hold clones of the environment, so a `SimEnv` dropped with tasks still
    /// pending is not freed; call this first when that matters.
    pub fn kill_all_tasks(&self) {
        self.shared.kill_all_tasks();
    }

    /// Task polls performed so far (all runs; main's polls included).
    pub fn tasks_polled(&self) -> u64 {
        self.shared.polls.load(Ordering::Relaxed)
    }

    /// Drives `main` (and every task spawned) on the calling thread until `main` completes.
    /// `main` need not be `Send`. Tasks still pending when `main` completes stay queued for a
    /// later `run` on this environment (or until [`SimEnv::kill_all_tasks`]).
    ///
    /// # Errors
    /// [`SimError::Deadlock`] when nothing can run and no timer is pending;
    /// [`SimError::Livelock`] when more than `livelock_poll_limit` polls happen without time
    /// advancing. The tasks stay as they were, for inspection or a later run.
    ///
    /// # Panics
    /// If a run is already in progress on this environment (called from inside a task, or
    /// from two threads at once). A panic inside a task propagates out of `run` (loudly: a
    /// simulation does not hide bugs); the environment's unfinished tasks are then lost.
    pub fn run<F: Future>(&self, main: F) -> Result<F::Output, SimError> {
        executor::run(&self.shared, main)
    }
}

impl Env for SimEnv {
    type Sleep = SimSleep;
    type Cpu = SimSleep;

    fn now(&self) -> u64 {
        self.shared.now.load(Ordering::Relaxed)
    }

    fn sleep_until(&self, deadline_ns: u64) -> SimSleep {
        SimSleep::new(self.shared.clone(), deadline_ns)
    }

    fn spawn<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let (task, handle) = task_with_handle(name, future);
        self.shared.spawn(name, Box::pin(task));
        handle
    }

    /// Books the modeled core that frees up first *at call time* (not at first poll): start =
    /// max(now, core free), end = start + `cost_ns`. The future completes at end; dropping it
    /// does not give the booking back. Cost 0 completes at once.
    fn cpu(&self, cost_ns: u64) -> SimSleep {
        let end = self.shared.book_cpu(self.now(), cost_ns);
        self.sleep_until(end)
    }

    fn cpu_alone(&self, cost_ns: u64) -> SimSleep {
        let end = self.shared.book_cpu(self.now(), cost_ns);
        SimSleep::alone(self.shared.clone(), end)
    }

    fn rng(&self) -> SimRng {
        let stream = self.shared.rng_streams.fetch_add(1, Ordering::Relaxed);
        SimRng::seed_from_u64(stream_seed(self.shared.config.seed, stream))
    }

    fn is_simulated(&self) -> bool {
        true
    }

    fn parallel_compute(&self) -> bool {
        self.shared.config.parallel_compute
    }

    fn spawn_compute(&self, name: &str, work: impl FnOnce() + Send + 'static) -> bool {
        let started = self.shared.config.parallel_compute
            && std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(work)
                .is_ok();
        if started {
            COMPUTATIONS_STARTED.fetch_add(1, Ordering::Relaxed);
        }
        started
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};

    use super::{SimConfig, SimEnv};
    use crate::{Env, SimError};

    #[test]
    fn builder_sets_every_option() {
        let c = SimConfig::default()
            .seed(9)
            .cores(3)
            .shuffle_same_instant(true)
            .livelock_poll_limit(77)
            .parallel_compute(false);
        assert_eq!(
            c,
            SimConfig {
                seed: 9,
                cores: 3,
                shuffle_same_instant: true,
                livelock_poll_limit: 77,
                parallel_compute: false,
            }
        );
        assert_eq!(SimConfig::with_seed(9).seed, 9);
    }

    #[test]
    fn run_returns_main_output_and_leaves_background_tasks_pending() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let log = Arc::new(Mutex::new(Vec::new()));
        let log2 = log.clone();
        let out = sim
            .run(async move {
                let e = env.clone();
                env.spawn("background", async move {
                    e.sleep(1_000).await;
                    log2.lock().unwrap().push(e.now());
                });
                env.sleep(10).await;
                env.now()
            })
            .unwrap();
        assert_eq!(out, 10);
        assert!(log.lock().unwrap().is_empty());
        // A later run lets the parked task finish.
        let env = sim.clone();
        sim.run(async move { env.sleep(2_000).await }).unwrap();
        assert_eq!(*log.lock().unwrap(), vec![1_000]);
        assert_eq!(sim.now(), 2_010);
    }

    #[test]
    fn killed_tasks_never_run_again() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let hits = Arc::new(Mutex::new(0));
        let h2 = hits.clone();
        sim.run(async move {
            let e = env.clone();
            env.spawn("victim", async move {
                e.sleep(100).await;
                *h2.lock().unwrap() += 1;
            });
            env.sleep(50).await;
        })
        .unwrap();
        sim.kill_all_tasks();
        let env = sim.clone();
        sim.run(async move {
            // New tasks reuse the freed slot; the victim's stale timer must not wake them
            // early or poll the victim.
            let e = env.clone();
            let h = env.spawn("successor", async move {
                e.sleep(500).await;
                e.now()
            });
            h.await.unwrap()
        })
        .map(|t| assert_eq!(t, 550))
        .unwrap();
        assert_eq!(*hits.lock().unwrap(), 0);
    }

    #[test]
    fn tasks_spawned_by_killed_tasks_destructors_never_run() {
        /// Spawns a task when dropped, as a store letting go of its last version starts a
        /// purge.
        struct SpawnsOnDrop {
            env: SimEnv,
            hits: Arc<Mutex<u32>>,
            depth: u32,
        }
        impl Drop for SpawnsOnDrop {
            fn drop(&mut self) {
                let hits = self.hits.clone();
                let next = (self.depth > 0).then(|| SpawnsOnDrop {
                    env: self.env.clone(),
                    hits: self.hits.clone(),
                    depth: self.depth - 1,
                });
                let e = self.env.clone();
                drop(self.env.spawn("spawned-while-dying", async move {
                    let _next = next;
                    e.sleep(10).await;
                    *hits.lock().unwrap() += 1;
                }));
            }
        }
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let hits = Arc::new(Mutex::new(0));
        let guard = SpawnsOnDrop {
            env: sim.clone(),
            hits: hits.clone(),
            depth: 3,
        };
        sim.run(async move {
            let e = env.clone();
            env.spawn("victim", async move {
                let _guard = guard;
                e.sleep(1_000).await;
            });
            env.sleep(50).await;
        })
        .unwrap();
        sim.kill_all_tasks();
        let env = sim.clone();
        sim.run(async move { env.sleep(5_000).await }).unwrap();
        assert_eq!(*hits.lock().unwrap(), 0, "a task spawned while dying ran");
    }

    #[test]
    fn slots_are_reused_so_many_short_tasks_stay_cheap() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let total = sim
            .run(async move {
                let mut total = 0;
                for round in 0..200u64 {
                    let hs: Vec<_> = (0..50u64)
                        .map(|i| {
                            let e = env.clone();
                            env.spawn("short", async move {
                                e.sleep(i % 3 + 1).await;
                                round + i
                            })
                        })
                        .collect();
                    for h in hs {
                        total += h.await.unwrap();
                    }
                }
                total
            })
            .unwrap();
        assert_eq!(total, 50 * (199 * 200 / 2) + 200 * (49 * 50 / 2));
        assert!(sim.shared.parked_slots() <= 51);
    }

    #[test]
    fn spawn_inside_a_task_runs_the_new_task() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let v = sim
            .run(async move {
                let e = env.clone();
                let outer = env.spawn("outer", async move {
                    let e2 = e.clone();
                    let inner = e.spawn("inner", async move {
                        e2.sleep(7).await;
                        e2.now() * 2
                    });
                    inner.await.unwrap() + 1
                });
                outer.await.unwrap()
            })
            .unwrap();
        assert_eq!(v, 15);
    }

    #[test]
    fn a_deadlocked_main_alone_is_reported() {
        let sim = SimEnv::new(SimConfig::default());
        let (_tx, rx) = tokio::sync::oneshot::channel::<()>();
        let err = sim.run(rx).unwrap_err();
        assert_eq!(
            err,
            SimError::Deadlock {
                now_ns: 0,
                stuck_tasks: vec!["main".to_owned()]
            }
        );
        assert!(err.to_string().contains("main"));
    }

    /// Yields once (wakes itself and returns Pending), then completes.
    struct YieldOnce(bool);

    impl Future for YieldOnce {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            cx.waker().wake_by_ref(); // a second wake must not queue the task twice
            Poll::Pending
        }
    }

    #[test]
    fn a_task_woken_twice_is_polled_once() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        sim.run(async move { env.spawn("y", YieldOnce(false)).await.unwrap() })
            .unwrap();
        // main: first poll, then once when "y" finishes; "y": twice.
        assert_eq!(sim.tasks_polled(), 4);
    }

    #[test]
    fn livelock_limit_counts_polls_per_instant_only() {
        // 100 tasks each sleeping 1 ns 100 times: 10 000 polls overall, but few per instant.
        let sim = SimEnv::new(SimConfig::default().livelock_poll_limit(500));
        let env = sim.clone();
        sim.run(async move {
            let hs: Vec<_> = (0..100)
                .map(|_| {
                    let e = env.clone();
                    env.spawn("sleeper", async move {
                        for _ in 0..100 {
                            e.sleep(1).await;
                        }
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        })
        .unwrap();
        assert_eq!(sim.now(), 100);
    }

    #[test]
    #[should_panic(expected = "already in progress")]
    fn nested_run_panics() {
        let sim = SimEnv::new(SimConfig::default());
        let inner = sim.clone();
        let _ = sim.run(async move { inner.run(async {}) });
    }
}
