//! Wall-clock measurements of the host, reported under the `"host"` key of every JSON output.
//! This is the only place in the binary that reads the OS clock.

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
