//! Wall-clock measurements of the host, reported under the `"host"` key of every JSON output.
//! This is the only place in the binary that reads the OS clock (and the process's peak memory).

/// A wall-clock stopwatch.
#[derive(Debug)]
pub struct Stopwatch(std::time::Instant);

impl Stopwatch {
    /// Starts now.
    #[allow(
        clippy::disallowed_methods,
        reason = "host wall time is reported, never simulated"
    )]
    pub fn start() -> Self {
        Self(std::time::Instant::now())
    }

    /// Nanoseconds since start.
    pub fn elapsed_ns(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Peak resident memory of this process in bytes (`VmHWM` in `/proc/self/status`); `None`
/// where the OS does not say.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The `"host"` object of a run's JSON: its wall time, simulated operations per wall second
/// (`sim_ops`: the operations simulated; `None` in real mode gives null), the process's peak
/// RSS and the work it ran on threads beside the simulator (`--parallel_compute`).
pub fn json(wall_ns: u64, sim_ops: Option<u64>) -> serde_json::Value {
    serde_json::json!({
        "wall_ns": wall_ns,
        "sim_ops_per_wall_s": sim_ops.map(|n| n as f64 / (wall_ns.max(1) as f64 / 1e9)),
        "peak_rss_bytes": peak_rss_bytes(),
        "parallel_computations": zonedb_env::parallel_computations(),
    })
}

/// The binary's side of the harness's runs ([`zonedb_harness::runner::Host`]): this
/// process's wall clock, the progress line `display` shows, and [`json`].
#[derive(Debug)]
pub struct Host {
    display: crate::progress::Display,
    watch: Stopwatch,
}

impl Host {
    /// Progress shown as `display` says; the wall clock starts now.
    pub fn new(display: crate::progress::Display) -> Self {
        Self {
            display,
            watch: Stopwatch::start(),
        }
    }
}

impl zonedb_harness::runner::Host for Host {
    fn wall_ns(&self) -> u64 {
        self.watch.elapsed_ns()
    }

    fn show_progress(
        &self,
        label: &str,
        total: u64,
        counter: &zonedb_harness::db_bench::ProgressCounter,
    ) -> Box<dyn std::any::Any> {
        Box::new(self.display.start(label, total, counter))
    }

    fn json(&self, wall_ns: u64, sim_ops: Option<u64>) -> serde_json::Value {
        json(wall_ns, sim_ops)
    }
}
