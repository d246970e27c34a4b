//! The single-threaded run loop of the simulator.
//!
//! Tasks live in a slab owned by the loop; a task is polled only when its waker queued it. When
//! no task is ready, the clock jumps to the earliest timer and every timer due at that instant
//! fires. Nothing ready and no timer while `main` is unfinished is a deadlock; too many polls at
//! one instant is a zero-time livelock. Both are errors naming the tasks involved.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use super::SimConfig;
use super::timer::TimerEntry;
use crate::{SimError, SimRng};

type BoxTask = Pin<Box<dyn Future<Output = ()> + Send>>;

const MAIN: usize = usize::MAX;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// State shared by the environment handles, wakers, timers and the run loop.
#[derive(Debug)]
pub struct Shared {
    pub(crate) config: SimConfig,
    pub(crate) now: AtomicU64,
    pub(crate) timers: Mutex<BinaryHeap<Reverse<TimerEntry>>>,
    pub(crate) timer_seq: AtomicU64,
    pub(crate) cores: Mutex<Vec<u64>>,
    pub(crate) rng_streams: AtomicU64,
    pub(crate) polls: AtomicU64,
    ready: Mutex<VecDeque<usize>>,
    inbox: Mutex<Vec<NewTask>>,
    parked: Mutex<Vec<Option<Task>>>,
    next_task: AtomicU64,
}

struct NewTask {
    id: usize,
    name: String,
    future: BoxTask,
    waker: Arc<TaskWaker>,
}

impl std::fmt::Debug for NewTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NewTask({}, {})", self.id, self.name)
    }
}

struct Task {
    name: String,
    future: BoxTask,
    waker: Arc<TaskWaker>,
    /// Polls at the instant `instant`.
    polls_at_instant: u64,
    instant: u64,
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Task({})", self.name)
    }
}

struct TaskWaker {
    id: usize,
    queued: AtomicBool,
    shared: std::sync::Weak<Shared>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel)
            && let Some(shared) = self.shared.upgrade()
        {
            lock(&shared.ready).push_back(self.id);
        }
    }
}

impl Shared {
    pub(crate) fn new(config: SimConfig) -> Self {
        Self {
            cores: Mutex::new(vec![0; config.cores.max(1)]),
            config,
            now: AtomicU64::new(0),
            timers: Mutex::new(BinaryHeap::new()),
            timer_seq: AtomicU64::new(0),
            rng_streams: AtomicU64::new(0),
            polls: AtomicU64::new(0),
            ready: Mutex::new(VecDeque::new()),
            inbox: Mutex::new(Vec::new()),
            parked: Mutex::new(Vec::new()),
            next_task: AtomicU64::new(0),
        }
    }

    /// Drops every task not yet finished (a simulated power loss: nothing keeps running).
    /// Timers of dropped tasks fire into the void.
    pub(crate) fn kill_all_tasks(&self) {
        let parked = std::mem::take(&mut *lock(&self.parked));
        let inbox = std::mem::take(&mut *lock(&self.inbox));
        lock(&self.ready).clear();
        drop(parked);
        drop(inbox);
    }

    pub(crate) fn spawn(self: &Arc<Self>, name: &str, future: BoxTask) {
        let id = usize::try_from(self.next_task.fetch_add(1, Ordering::Relaxed))
            .unwrap_or(usize::MAX - 1);
        let waker = Arc::new(TaskWaker {
            id,
            queued: AtomicBool::new(true),
            shared: Arc::downgrade(self),
        });
        lock(&self.inbox).push(NewTask {
            id,
            name: name.to_owned(),
            future,
            waker,
        });
        lock(&self.ready).push_back(id);
    }
}

/// Runs `main` to completion on `shared`'s executor.
pub(crate) fn run<F: Future>(shared: &Arc<Shared>, main: F) -> Result<F::Output, SimError> {
    let mut main = pin!(main);
    let main_waker_arc = Arc::new(TaskWaker {
        id: MAIN,
        queued: AtomicBool::new(true),
        shared: Arc::downgrade(shared),
    });
    let main_waker = Waker::from(main_waker_arc.clone());
    lock(&shared.ready).push_back(MAIN);
    let mut tasks: Vec<Option<Task>> = std::mem::take(&mut *lock(&shared.parked));
    let mut shuffle = shared
        .config
        .shuffle_same_instant
        .then(|| SimRng::seed_from_u64(shared.config.seed ^ 0x5eed_5eed));
    let mut instant: u64 = 0;
    let mut polls_at_instant: u64 = 0;
    let mut main_polls_at_instant: u64 = 0;
    let result = loop {
        // Take in tasks spawned since the last poll.
        for t in lock(&shared.inbox).drain(..) {
            if tasks.len() <= t.id {
                tasks.resize_with(t.id + 1, || None);
            }
            tasks[t.id] = Some(Task {
                name: t.name,
                future: t.future,
                waker: t.waker,
                polls_at_instant: 0,
                instant: 0,
            });
        }
        let next = {
            let mut ready = lock(&shared.ready);
            match shuffle.as_mut() {
                Some(rng) if ready.len() > 1 => {
                    let i = rng.gen_range(0..ready.len() as u64) as usize;
                    ready.swap_remove_back(i)
                }
                _ => ready.pop_front(),
            }
        };
        let Some(id) = next else {
            // Nothing ready: advance the clock to the earliest timer and fire all due at it.
            match fire_next_timers(shared) {
                Some(true) => {
                    instant += 1;
                    polls_at_instant = 0;
                    main_polls_at_instant = 0;
                }
                Some(false) => {}
                None => {
                    let mut stuck: Vec<String> =
                        tasks.iter().flatten().map(|t| t.name.clone()).collect();
                    stuck.insert(0, "main".to_owned());
                    break Err(SimError::Deadlock {
                        now_ns: shared.now.load(Ordering::Relaxed),
                        stuck_tasks: stuck,
                    });
                }
            }
            continue;
        };
        polls_at_instant += 1;
        shared.polls.fetch_add(1, Ordering::Relaxed);
        if polls_at_instant > shared.config.livelock_poll_limit {
            break Err(livelock(
                shared,
                &tasks,
                instant,
                polls_at_instant,
                main_polls_at_instant,
            ));
        }
        if id == MAIN {
            main_waker_arc.queued.store(false, Ordering::Release);
            main_polls_at_instant += 1;
            let mut cx = Context::from_waker(&main_waker);
            if let Poll::Ready(v) = main.as_mut().poll(&mut cx) {
                break Ok(v);
            }
            continue;
        }
        let Some(slot) = tasks.get_mut(id) else {
            continue;
        };
        let Some(mut task) = slot.take() else {
            continue;
        };
        task.waker.queued.store(false, Ordering::Release);
        if task.instant != instant {
            task.instant = instant;
            task.polls_at_instant = 0;
        }
        task.polls_at_instant += 1;
        let waker = Waker::from(task.waker.clone());
        let mut cx = Context::from_waker(&waker);
        if task.future.as_mut().poll(&mut cx).is_pending() {
            tasks[id] = Some(task);
        }
    };
    // Keep unfinished tasks for a later run; forget main's pending wake-up.
    lock(&shared.ready).retain(|&id| id != MAIN);
    *lock(&shared.parked) = tasks;
    result
}

/// Pops the earliest timer, moves the clock to it and wakes every timer due then. Returns
/// whether the clock advanced, or `None` when no timer is pending.
fn fire_next_timers(shared: &Shared) -> Option<bool> {
    let mut timers = lock(&shared.timers);
    let Reverse(first) = timers.pop()?;
    let now = shared.now.load(Ordering::Relaxed);
    let t = first.deadline_ns.max(now);
    let advanced = t > now;
    if advanced {
        shared.now.store(t, Ordering::Relaxed);
    }
    let mut due = vec![first.waker];
    while timers.peek().is_some_and(|Reverse(e)| e.deadline_ns <= t) {
        if let Some(Reverse(e)) = timers.pop() {
            due.push(e.waker);
        }
    }
    drop(timers);
    for w in due {
        w.wake();
    }
    Some(advanced)
}

/// The livelock error, naming the tasks polled most at the current instant.
fn livelock(
    shared: &Shared,
    tasks: &[Option<Task>],
    instant: u64,
    polls: u64,
    main_polls: u64,
) -> SimError {
    let mut counts: Vec<(u64, String)> = tasks
        .iter()
        .flatten()
        .filter(|t| t.instant == instant)
        .map(|t| (t.polls_at_instant, t.name.clone()))
        .collect();
    counts.push((main_polls, "main".to_owned()));
    counts.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    SimError::Livelock {
        now_ns: shared.now.load(Ordering::Relaxed),
        polls,
        busiest_tasks: counts
            .into_iter()
            .filter(|c| c.0 > 0)
            .take(5)
            .map(|c| format!("{} ({} polls)", c.1, c.0))
            .collect(),
    }
}
