//! Flags every command that runs a workload takes: `--elide_values` (issue 17),
//! `--parallel_compute` and `--progress`.

use clap::Args;

use super::store::flag_bool;

/// `--elide_values`, `--parallel_compute` and `--progress`.
#[derive(Debug, Clone, Args)]
#[command(rename_all = "snake_case")]
pub struct RunFlags {
    /// Simulation: values the workload can regenerate (db_bench's, YCSB's) go to the engine
    /// as descriptors, not bytes; the device sees the same sizes, commands and times, and
    /// every figure is the same (default true; `=false` carries every value's bytes). Ignored
    /// in real mode (off).
    #[arg(long, num_args = 0..=1, default_value = "true", default_missing_value = "true", value_parser = flag_bool)]
    pub elide_values: bool,
    /// Simulation: merge large compactions and build flushes ahead on other OS threads,
    /// their I/O replayed in virtual time (default true; every figure is the same either way,
    /// only wall time changes; `=false` runs everything on the simulator's thread).
    #[arg(long, num_args = 0..=1, default_value = "true", default_missing_value = "true", value_parser = flag_bool)]
    pub parallel_compute: bool,
    /// Print a progress line with an ETA on stderr every 2 s even when stderr is not a
    /// terminal (on a terminal it is always shown).
    #[arg(long)]
    pub progress: bool,
}

impl RunFlags {
    /// Whether values are elided in `mode` (`sim` or `real`).
    pub fn elide_in(&self, mode: &str) -> bool {
        self.elide_values && mode == "sim"
    }

    /// Applies the process-wide switches (`--parallel_compute`) to the simulations this
    /// command starts.
    pub fn apply_process(&self) {
        zonedb_env::set_parallel_compute_default(self.parallel_compute);
    }

    /// Where progress lines go.
    pub fn display(&self) -> crate::progress::Display {
        crate::progress::Display::new(self.progress)
    }
}
