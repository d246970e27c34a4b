//! A progress bar with an ETA for long benchmark runs, on stderr (drawn only on a terminal).
//! It follows a [`ProgressCounter`] the harness advances, from a host thread, in wall time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use zonedb_harness::db_bench::ProgressCounter;

/// A bar that lives while its benchmark runs; dropping it clears it.
#[derive(Debug)]
pub struct Bar {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Bar {
    /// Starts following `counter` towards `total` operations (from 0).
    pub fn start(label: &str, total: u64, counter: &ProgressCounter) -> Self {
        counter.reset();
        let stop = Arc::new(AtomicBool::new(false));
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:>12} [{bar:30}] {pos}/{len} ops, ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_message(label.to_owned());
        let (s, c) = (stop.clone(), counter.clone());
        // A display thread on the host; the simulation itself stays single-threaded.
        #[allow(clippy::disallowed_methods, reason = "host-side display thread")]
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                bar.set_position(c.get());
                std::thread::park_timeout(Duration::from_millis(200));
            }
            bar.finish_and_clear();
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
