//! The single-threaded run loop of the simulator.
//!
//! Tasks live in a slab owned by the loop; a task is polled only when its waker queued it. When
//! no task is ready, the clock jumps to the earliest timer and every timer due at that instant
//! fires. Nothing ready and no timer while `main` is unfinished is a deadlock; too many polls at
//! one instant is a zero-time livelock. Both are errors naming the tasks involved.
//!
//! Tasks are addressed by a *key*: slot index in the low 32 bits, slot generation in the high
//! 32. A finished task's slot is reused with the next generation, so the slab stays as small as
//! the number of live tasks, and a stale waker (held by a timer of a finished task, say) wakes
//! nobody instead of the slot's new occupant.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use super::SimConfig;
use super::timer::TimerEntry;
use crate::{SimError, SimRng};

/// A spawned task's type-erased future.
pub(crate) type BoxTask = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Key of the main future (index `u32::MAX` is never handed out to a task).
const MAIN: u64 = u64::MAX;
/// Adding this to a key moves it to the slot's next generation.
const NEXT_GENERATION: u64 = 1 << 32;
/// Tasks named in a livelock report.
const BUSIEST_REPORTED: usize = 5;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn slot_index(key: u64) -> usize {
    (key & u64::from(u32::MAX)) as usize
}

/// Keys of the tasks whose wakers fired, in wake-up order.
type ReadyQueue = Mutex<VecDeque<u64>>;

/// State shared by the environment handles, sleep futures and the run loop.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: SimConfig,
    /// Virtual time in nanoseconds.
    pub(crate) now: AtomicU64,
    pub(crate) timers: Mutex<BinaryHeap<Reverse<TimerEntry>>>,
    pub(crate) timer_seq: AtomicU64,
    /// Per modeled core, the time it becomes free.
    /// (Atomics, not a lock: only the run loop's thread books; a write is one store.)
    pub(crate) cores: Box<[AtomicU64]>,
    pub(crate) rng_streams: AtomicU64,
    /// Task polls over all runs.
    pub(crate) polls: AtomicU64,
    /// Bumped whenever the clock advances; tasks stamp their poll counts with it.
    pub(crate) epoch: AtomicU64,
    /// Shared with every task waker (which therefore does not keep the tasks alive).
    ready: Arc<ReadyQueue>,
    /// Tasks spawned but not yet moved into the slab by the run loop.
    inbox: Mutex<Vec<NewTask>>,
    keys: Mutex<KeyAlloc>,
    /// The slab between runs (unfinished tasks stay for the next run).
    parked: Mutex<Vec<Slot>>,
    running: AtomicBool,
}

/// Hands out task keys: freed slots (next generation) first, then fresh slots.
#[derive(Debug, Default)]
struct KeyAlloc {
    free: Vec<u64>,
    next_index: u32,
}

impl KeyAlloc {
    fn alloc(&mut self) -> u64 {
        if let Some(key) = self.free.pop() {
            return key;
        }
        let index = self.next_index;
        // Index u32::MAX is main's; 4 billion live tasks cannot fit in memory anyway.
        self.next_index = self.next_index.saturating_add(1).min(u32::MAX - 1);
        u64::from(index)
    }
}

struct NewTask {
    key: u64,
    name: String,
    future: BoxTask,
    flag: Arc<TaskWaker>,
}

struct Task {
    name: String,
    future: BoxTask,
    /// The waker handed to the future (built once, from `flag`).
    waker: Waker,
    flag: Arc<TaskWaker>,
    /// Polls since `epoch`.
    polls_at_instant: u64,
    epoch: u64,
}

/// A slab entry: the key of its current (or last) occupant, and the task if still running.
struct Slot {
    key: u64,
    task: Option<Task>,
}

impl std::fmt::Debug for NewTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NewTask({:#x}, {})", self.key, self.name)
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.task {
            Some(t) => write!(f, "Slot({:#x}, {})", self.key, t.name),
            None => write!(f, "Slot({:#x}, free)", self.key),
        }
    }
}

/// Queues its task on the ready queue, at most once until the task is next polled.
struct TaskWaker {
    key: u64,
    queued: AtomicBool,
    ready: Arc<ReadyQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel) {
            lock(&self.ready).push_back(self.key);
        }
    }
}

impl Shared {
    pub(crate) fn new(config: SimConfig) -> Self {
        Self {
            cores: (0..config.cores.max(1))
                .map(|_| AtomicU64::new(0))
                .collect(),
            config,
            now: AtomicU64::new(0),
            timers: Mutex::new(BinaryHeap::new()),
            timer_seq: AtomicU64::new(0),
            rng_streams: AtomicU64::new(0),
            polls: AtomicU64::new(0),
            epoch: AtomicU64::new(0),
            ready: Arc::new(Mutex::new(VecDeque::new())),
            inbox: Mutex::new(Vec::new()),
            keys: Mutex::new(KeyAlloc::default()),
            parked: Mutex::new(Vec::new()),
            running: AtomicBool::new(false),
        }
    }

    /// Queues `future` as a new task; the run loop picks it up (FIFO among ready tasks).
    pub(crate) fn spawn(&self, name: &str, future: BoxTask) {
        let key = lock(&self.keys).alloc();
        let flag = Arc::new(TaskWaker {
            key,
            queued: AtomicBool::new(true),
            ready: self.ready.clone(),
        });
        // Into the inbox before the ready queue: a key the loop pops is always findable.
        lock(&self.inbox).push(NewTask {
            key,
            name: name.to_owned(),
            future,
            flag,
        });
        lock(&self.ready).push_back(key);
    }

    /// Moves the clock to `deadline_ns` at once when the executor would do nothing else
    /// first: a run in progress, no task ready and no timer due by then (a timer due at
    /// the same instant was registered first, so it fires first). Returns whether it did:
    /// the task being polled then goes on as if its timer had fired and woken it.
    pub(crate) fn skip_to(&self, deadline_ns: u64) -> bool {
        if !self.running.load(Ordering::Acquire) || !lock(&self.ready).is_empty() {
            return false;
        }
        let timers = lock(&self.timers);
        if timers
            .peek()
            .is_some_and(|Reverse(t)| t.deadline_ns <= deadline_ns)
        {
            return false;
        }
        if deadline_ns > self.now.load(Ordering::Relaxed) {
            self.now.store(deadline_ns, Ordering::Relaxed);
            self.epoch.fetch_add(1, Ordering::Relaxed);
        }
        drop(timers);
        true
    }

    /// Slots in the parked slab (live tasks plus free slots), for tests of slot reuse.
    #[cfg(test)]
    pub(crate) fn parked_slots(&self) -> usize {
        lock(&self.parked).len()
    }

    /// Drops every task not yet finished (a simulated power loss: nothing keeps running).
    /// Timers of dropped tasks later fire into the void. Must not be called during `run`.
    /// Tasks that dropped futures spawn from their destructors (a store letting go of its
    /// last version starts a purge) are dropped too, as many times over as it takes: a dead
    /// process runs nothing, so none of them may touch the device after the power loss.
    pub(crate) fn kill_all_tasks(&self) {
        while self.kill_tasks_once() {}
    }

    /// One pass of [`Shared::kill_all_tasks`]: whether it dropped any task.
    fn kill_tasks_once(&self) -> bool {
        let mut slab = std::mem::take(&mut *lock(&self.parked));
        let inbox = std::mem::take(&mut *lock(&self.inbox));
        lock(&self.ready).clear();
        let mut dropped: Vec<BoxTask> = Vec::new();
        {
            let mut keys = lock(&self.keys);
            for slot in &mut slab {
                if let Some(task) = slot.task.take() {
                    keys.free.push(slot.key.wrapping_add(NEXT_GENERATION));
                    dropped.push(task.future);
                }
            }
            for t in inbox {
                keys.free.push(t.key.wrapping_add(NEXT_GENERATION));
                dropped.push(t.future);
            }
        }
        *lock(&self.parked) = slab;
        let any = !dropped.is_empty();
        // Dropped last and outside every lock: a future's destructor may wake or spawn.
        drop(dropped);
        any
    }
}

/// Clears the `running` flag when a run ends, even by a panic.
struct RunGuard<'a>(&'a AtomicBool);

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The run loop's state.
struct Runner<'a> {
    shared: &'a Shared,
    slab: Vec<Slot>,
    /// Picks among ready tasks when `shuffle_same_instant` is on.
    shuffle: Option<SimRng>,
    /// Polls since the clock last advanced (this run).
    polls_at_instant: u64,
    main_polls_at_instant: u64,
    /// Wakers of the timers due at the current instant (buffer reused across instants).
    due: Vec<Waker>,
    /// The clock's epoch the per-instant poll counts belong to.
    seen_epoch: u64,
}

/// Runs `main` to completion on `shared`'s executor.
///
/// # Panics
/// If a run is already in progress on this environment (nested or from another thread).
pub(crate) fn run<F: Future>(shared: &Shared, main: F) -> Result<F::Output, SimError> {
    assert!(
        !shared.running.swap(true, Ordering::AcqRel),
        "SimEnv::run called while a run is already in progress on this environment"
    );
    let _guard = RunGuard(&shared.running);
    let mut main = pin!(main);
    let main_flag = Arc::new(TaskWaker {
        key: MAIN,
        queued: AtomicBool::new(true),
        ready: shared.ready.clone(),
    });
    let main_waker = Waker::from(main_flag.clone());
    lock(&shared.ready).push_back(MAIN);
    let mut runner = Runner {
        shared,
        slab: std::mem::take(&mut *lock(&shared.parked)),
        shuffle: shared
            .config
            .shuffle_same_instant
            .then(|| SimRng::seed_from_u64(shared.config.seed ^ 0x5eed_5eed)),
        polls_at_instant: 0,
        main_polls_at_instant: 0,
        due: Vec::new(),
        seen_epoch: shared.epoch.load(Ordering::Relaxed),
    };
    let result = loop {
        let Some(key) = runner.next_ready() else {
            // Nothing ready: advance the clock to the earliest timer and fire all due at it.
            if runner.fire_next_timers().is_none() {
                break Err(runner.deadlock());
            }
            continue;
        };
        // The clock moved (timers fired, or a task's sleep skipped ahead): a new instant.
        let epoch = shared.epoch.load(Ordering::Relaxed);
        if epoch != runner.seen_epoch {
            runner.seen_epoch = epoch;
            runner.polls_at_instant = 0;
            runner.main_polls_at_instant = 0;
        }
        if runner.polls_at_instant >= shared.config.livelock_poll_limit {
            break Err(runner.livelock());
        }
        if key == MAIN {
            main_flag.queued.store(false, Ordering::Release);
            runner.count_poll();
            runner.main_polls_at_instant += 1;
            if let Poll::Ready(v) = main.as_mut().poll(&mut Context::from_waker(&main_waker)) {
                break Ok(v);
            }
        } else {
            runner.poll_task(key);
        }
    };
    // Forget main's pending wake-up; keep unfinished tasks for a later run.
    lock(&shared.ready).retain(|&key| key != MAIN);
    runner.drain_inbox();
    *lock(&shared.parked) = std::mem::take(&mut runner.slab);
    result
}

impl Runner<'_> {
    fn next_ready(&mut self) -> Option<u64> {
        let mut ready = lock(&self.shared.ready);
        match self.shuffle.as_mut() {
            Some(rng) if ready.len() > 1 => {
                let i = rng.gen_range(0..ready.len() as u64) as usize;
                ready.swap_remove_back(i)
            }
            _ => ready.pop_front(),
        }
    }

    fn count_poll(&mut self) {
        self.polls_at_instant += 1;
        self.shared.polls.fetch_add(1, Ordering::Relaxed);
    }

    /// Moves spawned tasks into the slab.
    fn drain_inbox(&mut self) {
        let new = std::mem::take(&mut *lock(&self.shared.inbox));
        for t in new {
            let index = slot_index(t.key);
            if self.slab.len() <= index {
                self.slab
                    .resize_with(index + 1, || Slot { key: 0, task: None });
            }
            self.slab[index] = Slot {
                key: t.key,
                task: Some(Task {
                    name: t.name,
                    future: t.future,
                    waker: Waker::from(t.flag.clone()),
                    flag: t.flag,
                    polls_at_instant: 0,
                    epoch: 0,
                }),
            };
        }
    }

    /// Takes the task with `key` out of the slab, or `None` if that key is stale.
    fn take_task(&mut self, key: u64) -> Option<Task> {
        let index = slot_index(key);
        let live = |slab: &[Slot]| slab.get(index).is_some_and(|s| s.key == key);
        if !live(&self.slab) {
            // Spawned since the last drain (or stale: then still not live after it).
            self.drain_inbox();
            if !live(&self.slab) {
                return None;
            }
        }
        self.slab[index].task.take()
    }

    fn poll_task(&mut self, key: u64) {
        let Some(mut task) = self.take_task(key) else {
            return;
        };
        task.flag.queued.store(false, Ordering::Release);
        self.count_poll();
        let epoch = self.shared.epoch.load(Ordering::Relaxed);
        if task.epoch != epoch {
            task.epoch = epoch;
            task.polls_at_instant = 0;
        }
        task.polls_at_instant += 1;
        if task
            .future
            .as_mut()
            .poll(&mut Context::from_waker(&task.waker))
            .is_pending()
        {
            self.slab[slot_index(key)].task = Some(task);
        } else {
            lock(&self.shared.keys)
                .free
                .push(key.wrapping_add(NEXT_GENERATION));
            // `task` (its future's remaining state) drops here, outside every lock.
        }
    }

    /// Pops the earliest timer, moves the clock to it and wakes every timer due then. Returns
    /// whether the clock advanced, or `None` when no timer is pending.
    fn fire_next_timers(&mut self) -> Option<bool> {
        let shared = self.shared;
        let mut timers = lock(&shared.timers);
        let Reverse(first) = timers.pop()?;
        let now = shared.now.load(Ordering::Relaxed);
        let t = first.deadline_ns.max(now);
        let advanced = t > now;
        if advanced {
            shared.now.store(t, Ordering::Relaxed);
            shared.epoch.fetch_add(1, Ordering::Relaxed);
        }
        self.due.push(first.waker);
        while timers.peek().is_some_and(|Reverse(e)| e.deadline_ns <= t) {
            if let Some(Reverse(e)) = timers.pop() {
                self.due.push(e.waker);
            }
        }
        drop(timers);
        // Woken outside the lock, in (deadline, sequence) order.
        for w in self.due.drain(..) {
            w.wake();
        }
        Some(advanced)
    }

    /// The deadlock error, naming main and every unfinished task.
    fn deadlock(&mut self) -> SimError {
        self.drain_inbox();
        let mut stuck = vec!["main".to_owned()];
        stuck.extend(
            self.slab
                .iter()
                .filter_map(|s| s.task.as_ref())
                .map(|t| t.name.clone()),
        );
        SimError::Deadlock {
            now_ns: self.shared.now.load(Ordering::Relaxed),
            stuck_tasks: stuck,
        }
    }

    /// The livelock error, naming the tasks polled most at the current instant.
    fn livelock(&mut self) -> SimError {
        self.drain_inbox();
        let epoch = self.shared.epoch.load(Ordering::Relaxed);
        let mut counts: Vec<(u64, &str)> = self
            .slab
            .iter()
            .filter_map(|s| s.task.as_ref())
            .filter(|t| t.epoch == epoch && t.polls_at_instant > 0)
            .map(|t| (t.polls_at_instant, t.name.as_str()))
            .collect();
        if self.main_polls_at_instant > 0 {
            counts.push((self.main_polls_at_instant, "main"));
        }
        counts.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        SimError::Livelock {
            now_ns: self.shared.now.load(Ordering::Relaxed),
            polls: self.polls_at_instant,
            busiest_tasks: counts
                .into_iter()
                .take(BUSIEST_REPORTED)
                .map(|(polls, name)| format!("{name} ({polls} polls)"))
                .collect(),
        }
    }
}
