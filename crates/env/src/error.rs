//! Errors of the simulator.

/// Why a simulation stopped without its main future completing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// No task can run and no timer is pending, but the main future has not finished.
    #[error("deadlock at {now_ns} ns: no runnable task and no timer; stuck tasks: {}", stuck_tasks.join(", "))]
    Deadlock {
        /// Virtual time of the deadlock.
        now_ns: u64,
        /// Names of the tasks still pending.
        stuck_tasks: Vec<String>,
    },
    /// Tasks kept running without virtual time advancing.
    #[error("zero-time livelock at {now_ns} ns: {polls} polls without time advancing; busiest tasks: {}", busiest_tasks.join(", "))]
    Livelock {
        /// Virtual time of the livelock.
        now_ns: u64,
        /// Polls counted at that instant.
        polls: u64,
        /// Names of the tasks polled most at that instant.
        busiest_tasks: Vec<String>,
    },
}
