//! The environment every ZoneDB engine type is generic over.
//!
//! [`Env`] gives engine code time (`u64` nanoseconds), tasks, modeled CPU work and a seeded
//! RNG. Two implementations exist:
//!
//! - [`SimEnv`]: a single-threaded, deterministic executor over a virtual clock. Time advances
//!   only when every task is blocked, jumping to the earliest timer; timers are exact to the
//!   nanosecond. A seeded mode shuffles tasks that are ready at the same instant, to find wake-up
//!   races a FIFO order hides. Deadlocks and zero-time livelocks are reported as errors.
//! - [`RealEnv`]: OS threads (one per spawned task) and the monotonic OS clock.
//!
//! The same `async` code runs under both:
//!
//! ```
//! use zonedb_env::{Env, SimConfig, SimEnv};
//!
//! // A task sleeps five seconds of virtual time: the run takes microseconds of real time.
//! let env = SimEnv::new(SimConfig::with_seed(1));
//! let e = env.clone();
//! let woke_at = env
//!     .run(async move {
//!         let sleeper = e.clone();
//!         let task = e.spawn("sleeper", async move {
//!             sleeper.sleep(5_000_000_000).await;
//!             sleeper.now()
//!         });
//!         task.await
//!     })
//!     .expect("no deadlock")
//!     .expect("the task ran");
//! assert_eq!(woke_at, 5_000_000_000);
//! ```
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
#![warn(clippy::pedantic)]
#![allow(
    clippy::module_name_repetitions,
    clippy::must_use_candidate,
    clippy::doc_markdown,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]

mod deadline;
mod error;
mod join;
mod real;
mod rng;
mod sim;

use std::future::Future;

pub use deadline::until;
pub use error::SimError;
pub use join::{JoinError, JoinHandle};
pub use real::{RealEnv, RealSleep};
pub use rng::SimRng;
pub use sim::{SimConfig, SimEnv, SimSleep, parallel_computations, set_parallel_compute_default};

/// Time and concurrency for engine code. Cheap to clone; clones share one environment.
pub trait Env: Clone + Send + Sync + 'static {
    /// Future returned by [`Env::sleep_until`].
    type Sleep: Future<Output = ()> + Send + 'static;
    /// Future returned by [`Env::cpu`].
    type Cpu: Future<Output = ()> + Send + 'static;

    /// Current time in nanoseconds since the environment was created.
    fn now(&self) -> u64;

    /// Completes once `now() >= deadline_ns`. A deadline in the past completes at once.
    fn sleep_until(&self, deadline_ns: u64) -> Self::Sleep;

    /// Sleeps for `duration_ns` from now.
    fn sleep(&self, duration_ns: u64) -> Self::Sleep {
        self.sleep_until(self.now().saturating_add(duration_ns))
    }

    /// Runs `future` as a new task named `name` (names appear in deadlock reports).
    fn spawn<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static;

    /// Runs `future` as a background task (flush, compaction, zone cleaning). In simulation
    /// this is [`Env::spawn`]; the real environment may run it at a lower CPU priority so
    /// foreground reads and writes go first (RocksDB's `LowerThreadPoolCPUPriority`).
    fn spawn_background<F, T>(&self, name: &str, future: F) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.spawn(name, future)
    }

    /// CPU work of `cost_ns` that occupies one of the environment's modeled cores.
    ///
    /// In simulation the task waits for a free core and then for `cost_ns` of virtual time, so
    /// CPU-heavy tasks contend. In real mode the work has already taken real time, and this
    /// completes at once.
    fn cpu(&self, cost_ns: u64) -> Self::Cpu;

    /// [`Env::cpu`] for a caller that awaits the future alone: directly, up to its task's
    /// root, never raced or joined with another future. The simulator may then complete it
    /// in the poll that books it when nothing else could run before its end (no task ready,
    /// no timer due by then): the same instants and order as waking the task at its end, one
    /// trip through the executor fewer.
    fn cpu_alone(&self, cost_ns: u64) -> Self::Cpu {
        self.cpu(cost_ns)
    }

    /// A new RNG stream derived from the environment's seed. Streams are handed out in call
    /// order, so a deterministic program gets the same streams on every run.
    fn rng(&self) -> SimRng;

    /// Whether time is virtual.
    fn is_simulated(&self) -> bool;

    /// Runs `future` to its end on the calling thread and returns its output where the
    /// environment can (the real one), or drops it unrun and returns `None` (the simulator:
    /// a caller outside its executor cannot wait in virtual time). For work a destructor must
    /// not leave undone in real mode, such as closing a dropped store.
    fn run_blocking<F: Future>(&self, future: F) -> Option<F::Output> {
        drop(future);
        None
    }

    /// Whether [`Env::spawn_compute`] may start work (ask before preparing its inputs).
    fn parallel_compute(&self) -> bool {
        false
    }

    /// Starts `work` on an OS thread of its own and returns `true`, or returns `false` without
    /// running it (the default, and the real environment's: its tasks are threads already).
    ///
    /// For pure computation only: work whose results do not depend on when it runs or on
    /// anything the tasks change meanwhile, handed back to a task through a channel the task
    /// waits on in wall time. The simulation stays a pure function of its seed; only the wall
    /// time it takes changes (the engine merges compactions ahead this way).
    fn spawn_compute(&self, name: &str, work: impl FnOnce() + Send + 'static) -> bool {
        let _ = (name, work);
        false
    }
}
