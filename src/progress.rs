//! A progress line with an ETA for long runs, on stderr: every 2 s of wall time, the
//! operations done of the total, simulated operations per wall second and the time left. It
//! follows a [`ProgressCounter`] the harness advances, from a host thread, so nothing the run
//! measures or prints on stdout changes. Shown when stderr is a terminal (redrawn in place),
//! or as plain lines with `--progress`.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use zonedb_harness::db_bench::ProgressCounter;

use crate::host::Stopwatch;

/// Wall time between two progress lines.
const EVERY: Duration = Duration::from_secs(2);

/// Where progress goes: `forced` = `--progress` (lines even when stderr is not a terminal).
#[derive(Debug, Clone, Copy)]
pub struct Display {
    terminal: bool,
    forced: bool,
}

impl Display {
    /// Progress as `--progress` says (`forced`) and stderr allows.
    pub fn new(forced: bool) -> Self {
        Self {
            terminal: std::io::stderr().is_terminal(),
            forced,
        }
    }

    /// Nothing shown (a caller that shows progress itself).
    pub fn off() -> Self {
        Self {
            terminal: false,
            forced: false,
        }
    }

    /// Whether anything is shown.
    pub fn on(self) -> bool {
        self.terminal || self.forced
    }

    /// Starts a line for `label` following `counter` towards `total` operations (from 0), if
    /// progress is shown.
    pub fn start(self, label: &str, total: u64, counter: &ProgressCounter) -> Option<Bar> {
        self.on()
            .then(|| Bar::start(label, total, counter, self.terminal))
    }
}

/// The progress line of one run, while it runs; dropping it stops (and on a terminal clears)
/// it.
#[derive(Debug)]
pub struct Bar {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

/// `1h02m03s`, `4m05s`, `6s`.
fn duration_text(s: f64) -> String {
    if !s.is_finite() {
        return "?".into();
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "seconds shown"
    )]
    let s = s.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}m{sec:02}s"),
        (h, m, sec) => format!("{h}h{m:02}m{sec:02}s"),
    }
}

/// One progress line: `label: done/total ops (p%), r sim ops/wall s, ETA t`.
pub fn line(label: &str, done: u64, total: u64, wall_s: f64) -> String {
    let rate = done as f64 / wall_s.max(1e-9);
    let pct = if total == 0 {
        100.0
    } else {
        done as f64 * 100.0 / total as f64
    };
    let eta = if done == 0 {
        "?".to_owned()
    } else {
        duration_text(total.saturating_sub(done) as f64 / rate)
    };
    format!(
        "{label}: {done}/{total} ops ({pct:.1}%), {rate:.0} sim ops/wall s, {} elapsed, ETA {eta}",
        duration_text(wall_s)
    )
}

impl Bar {
    fn start(label: &str, total: u64, counter: &ProgressCounter, terminal: bool) -> Self {
        counter.reset();
        let stop = Arc::new(AtomicBool::new(false));
        let (s, c, label) = (stop.clone(), counter.clone(), label.to_owned());
        let watch = Stopwatch::start();
        // A display thread on the host; the simulation itself stays single-threaded.
        #[allow(clippy::disallowed_methods, reason = "host-side display thread")]
        let handle = std::thread::spawn(move || {
            let mut next = EVERY;
            loop {
                std::thread::park_timeout(Duration::from_millis(200));
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let wall = Duration::from_nanos(watch.elapsed_ns());
                if wall < next {
                    continue;
                }
                next = wall + EVERY;
                let text = line(&label, c.get(), total, wall.as_secs_f64());
                let mut err = std::io::stderr().lock();
                let _ = if terminal {
                    write!(err, "\r\x1b[K{text}")
                } else {
                    writeln!(err, "{text}")
                };
                let _ = err.flush();
            }
            if terminal {
                let _ = write!(std::io::stderr(), "\r\x1b[K");
            }
        });
        Self {
            stop,
            handle: Some(handle),
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_say_rate_and_time_left() {
        assert_eq!(
            line("fillrandom", 500, 1500, 2.0),
            "fillrandom: 500/1500 ops (33.3%), 250 sim ops/wall s, 2s elapsed, ETA 4s"
        );
        assert!(line("x", 0, 10, 2.0).ends_with("ETA ?"));
        assert_eq!(duration_text(3723.0), "1h02m03s");
        assert_eq!(duration_text(65.0), "1m05s");
    }
}
