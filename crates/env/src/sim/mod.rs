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
use std::sync::atomic::Ordering;

pub use executor::Shared;
pub use timer::SimSleep;

use crate::join::task_with_handle;
use crate::{Env, JoinHandle, SimError, SimRng};

/// Options of a simulation. The run is a pure function of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    /// Seed of every random choice (RNG streams, same-instant shuffle).
    pub seed: u64,
    /// Modeled CPU cores that `Env::cpu` work contends for.
    pub cores: usize,
    /// Run tasks that are ready at the same instant in a seeded random order instead of FIFO.
    pub shuffle_same_instant: bool,
    /// Task polls allowed at one virtual instant before the run fails as a livelock.
    pub livelock_poll_limit: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            cores: 2,
            shuffle_same_instant: false,
            livelock_poll_limit: 10_000_000,
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
}

/// The simulated environment: virtual nanosecond clock, single-threaded executor.
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

    /// Drops every unfinished task, as a power loss would stop them. Call between runs.
    pub fn kill_all_tasks(&self) {
        self.shared.kill_all_tasks();
    }

    /// Task polls performed so far (all runs).
    pub fn tasks_polled(&self) -> u64 {
        self.shared.polls.load(Ordering::Relaxed)
    }

    /// Drives `main` (and every task spawned) until `main` completes. Tasks still pending when
    /// `main` completes stay queued for a later `run` on this environment.
    ///
    /// # Errors
    /// [`SimError::Deadlock`] when nothing can run and no timer is pending;
    /// [`SimError::Livelock`] when too many polls happen without time advancing.
    pub fn run<F: Future>(&self, main: F) -> Result<F::Output, SimError> {
        executor::run(&self.shared, main)
    }
}

static STREAM_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

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

    fn cpu(&self, cost_ns: u64) -> SimSleep {
        let end = self.shared.book_cpu(self.now(), cost_ns);
        self.sleep_until(end)
    }

    fn rng(&self) -> SimRng {
        let stream = self.shared.rng_streams.fetch_add(1, Ordering::Relaxed);
        SimRng::seed_from_u64(
            self.shared.config.seed ^ stream.wrapping_add(1).wrapping_mul(STREAM_MIX),
        )
    }

    fn is_simulated(&self) -> bool {
        true
    }
}
