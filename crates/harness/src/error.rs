//! The harness's errors: one variant per layer or cause, each keeping the error it came from
//! as its source (walk them with [`std::error::Error::source`]), and each documenting what
//! the user should do about it.

use zonedb_device::DeviceError;
use zonedb_env::{JoinError, SimError};
use zonedb_fs::FsError;
use zonedb_lsm::LsmError;

/// Errors of a benchmark run, a YCSB phase or a study.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The engine failed. What to do depends on its kind ([`LsmError::kind`]): `NoSpace` —
    /// give the run a larger device (profile or `--scale`) or fewer keys; `Corruption` — the
    /// stored data is damaged: run `zonedb fs fsck` on it and start from a fresh database;
    /// `Io` — check the device (its error is in the source chain); `InvalidArgument` — fix
    /// the engine option it names.
    #[error(transparent)]
    Lsm(#[from] LsmError),
    /// A simulated run filled its device: the engine's `NoSpace` error, with where the space
    /// was when it failed (the tree's level sizes; live, garbage and free bytes of the wide
    /// zones and of the split zones' subzones). Give the run a larger device (profile or
    /// `--scale`) or fewer keys; the snapshot says whether garbage (cleaning), live data (the
    /// load) or a placement rule (split zones, subzone tails) took the space.
    #[error("{source}; at {at}")]
    OutOfSpace {
        /// The engine's error.
        source: LsmError,
        /// The space when it failed.
        at: Box<SpaceAtFailure>,
    },
    /// The zone file layer failed outside the engine (formatting or mounting a study's
    /// device). Fix what it names: a device too small or with too tight zone limits for the
    /// layer (a larger scale or higher limits), or the device error in its source chain.
    #[error("file layer: {0}")]
    Fs(#[from] FsError),
    /// The device could not be built or refused a request: fix the device settings it names
    /// (profile — `zonedb device profiles` lists them —, scale, chips per zone, zone limits),
    /// or check the device itself.
    #[error("device: {0}")]
    Device(#[from] DeviceError),
    /// The simulation stopped itself: a deadlock (no runnable task and no timer) or a
    /// zero-time livelock. A bug in the engine or the harness, not in the settings: report it
    /// with the scenario and its seed (runs are deterministic, so they reproduce it).
    #[error("simulation: {0}")]
    Sim(#[from] SimError),
    /// A task of the run (a benchmark thread, a YCSB client, the sampler) ended without its
    /// result: it panicked (its message is on stderr) or was dropped. A bug: report it with
    /// the command line.
    #[error("{task} failed: {source:?}")]
    Task {
        /// Which task (`benchmark thread`, `writer thread`, `client task`, `sampler`).
        task: &'static str,
        /// The join error.
        source: JoinError,
    },
    /// Bad configuration: a flag, scenario key, engine option, YCSB property, scheme or
    /// study name out of range or unknown, a peer store (`rocksdb`, `fjall`) that failed, or
    /// a file that is not what it should be (a report's `compare.json` that does not parse, a
    /// plot that cannot be drawn: then `key` is the file's path). Fix the setting `key`
    /// names as `problem` says.
    #[error("{key}: {problem}")]
    Config {
        /// What the user must fix: a flag (`--num`), a scenario key (`fs.cleaner`), an engine
        /// option, a YCSB property (`readproportion`), a scheme or study (`znsplus scheme`,
        /// `rocksdb`), or a file's path.
        key: String,
        /// What is wrong with it (and what it accepts).
        problem: String,
    },
    /// A file or directory (a report, plot, study cell, sweep result, or a scenario, sweep or
    /// YCSB property file) could not be read or written. Check the path it names: that it
    /// exists, is readable or writable, and that its file system has room; the I/O error is
    /// the source.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// `--verify`: a read returned something the last acknowledged write did not leave. The
    /// store lost or mangled an acknowledged write: keep the database (`--db DIR`) and report
    /// it with the command line and seed.
    #[error("verification failed: {0}")]
    Verification(String),
    /// A study's end-of-run check failed (fsck, scan, sampled reads): its figures are void.
    /// A bug in the engine or the zone layer: report it with the scenario and seed.
    #[error("invariant check failed, the run's figures are void: {0}")]
    Invariant(String),
    /// An output file (a report, plot, sweep result or scenario file) is a symbolic link:
    /// nothing is written through links ([`crate::output`]). Remove the link, or write the
    /// output elsewhere (`--out`).
    #[error(
        "{}: is a symbolic link; ZoneDB does not write output files through links (remove it, or choose another output directory)",
        path.display()
    )]
    LinkRefused {
        /// The link.
        path: std::path::PathBuf,
    },
}

/// Where a simulated run's space was when the device filled up.
#[derive(Debug, Clone)]
pub struct SpaceAtFailure {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// The tree's bytes per level.
    pub level_bytes: Vec<u64>,
    /// SSTs out of the tree that older versions still hold (running compactions'): files and
    /// bytes.
    pub obsolete_sst: (u64, u64),
    /// SSTs no version holds any more, not deleted yet (a purge is deleting them): files
    /// and bytes. Right after a failed job let go of its version these are what it held.
    pub deletable_sst: (u64, u64),
    /// The most bytes of obsolete SSTs older versions held at once over the run (running
    /// compactions hold the version they started from, as RocksDB's do).
    pub peak_obsolete_sst_bytes: u64,
    /// Compactions finished and the time they took, summed (ns).
    pub compaction_time: (u64, u64),
    /// SSTs on the device that the tree does not list (outputs of flushes and compactions
    /// not installed yet, and the obsolete ones above): files and bytes.
    pub outside_tree_sst: (u64, u64),
    /// Compactions that found the device full (soft errors), compactions cancelled for lack
    /// of room, and soft errors cleared.
    pub no_space: (u64, u64, u64),
    /// Compactions running, oldest first.
    pub running_compactions: Vec<zonedb_lsm::RunningCompactionInfo>,
    /// The zone layer's space by zone kind.
    pub zones: zonedb_fs::space::SpaceReport,
}

impl std::fmt::Display for SpaceAtFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use zonedb_fs::space::mib;
        let levels: Vec<String> = self.level_bytes.iter().map(|b| mib(*b)).collect();
        write!(
            f,
            "{:.3} s: tree {} MiB by level [{}]; SSTs outside the tree {} ({} MiB), of which \
             obsolete and still held {} ({} MiB) and deletable {} ({} MiB); at most {} MiB \
             held by older versions at once; {} compactions running{}; compactions done {} \
             (mean {:.3} s); compactions out of space {}, cancelled {}, recoveries {}; {}",
            self.t_ns as f64 / 1e9,
            mib(self.level_bytes.iter().sum::<u64>()),
            levels.join(", "),
            self.outside_tree_sst.0,
            mib(self.outside_tree_sst.1),
            self.obsolete_sst.0,
            mib(self.obsolete_sst.1),
            self.deletable_sst.0,
            mib(self.deletable_sst.1),
            mib(self.peak_obsolete_sst_bytes),
            self.running_compactions.len(),
            self.running_compactions
                .first()
                .map_or(String::new(), |r| format!(
                    ", the oldest job {} (L{} -> L{}, {} input files) for {:.3} s",
                    r.job,
                    r.start_level,
                    r.output_level,
                    r.input_files,
                    self.t_ns.saturating_sub(r.started_ns) as f64 / 1e9
                )),
            self.compaction_time.0,
            self.compaction_time.1 as f64 / 1e9 / self.compaction_time.0.max(1) as f64,
            self.no_space.0,
            self.no_space.1,
            self.no_space.2,
            self.zones
        )
    }
}

impl HarnessError {
    /// A [`HarnessError::Config`]: `key` (what the user must fix) and what is wrong with it.
    pub fn config(key: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Config {
            key: key.into(),
            problem: problem.into(),
        }
    }

    /// A [`HarnessError::Config`] for a name `key` does not accept: `unknown 'NAME'; known:
    /// A, B, ...`, listing `known` in order.
    pub fn unknown<S: AsRef<str>>(
        key: impl Into<String>,
        name: &str,
        known: impl IntoIterator<Item = S>,
    ) -> Self {
        let known: Vec<String> = known.into_iter().map(|k| k.as_ref().to_owned()).collect();
        Self::config(
            key,
            format!("unknown '{name}'; known: {}", known.join(", ")),
        )
    }

    /// The [`HarnessError::Io`] of an operation on `path`.
    pub fn io(path: impl Into<std::path::PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }

    /// A plot at `path` that could not be drawn or written (the drawing library's error).
    pub(crate) fn plot(path: &std::path::Path, e: &dyn std::fmt::Display) -> Self {
        Self::config(
            path.display().to_string(),
            format!("cannot draw the plot: {e}"),
        )
    }

    /// A task's join error.
    pub fn task(task: &'static str) -> impl FnOnce(JoinError) -> Self {
        move |source| Self::Task { task, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message of the chain, outermost first.
    fn chain(e: &dyn std::error::Error) -> Vec<String> {
        let mut out = vec![e.to_string()];
        let mut cur = e.source();
        while let Some(s) = cur {
            out.push(s.to_string());
            cur = s.source();
        }
        out
    }

    #[test]
    fn layer_errors_keep_their_message_and_their_source() {
        let dev = DeviceError::ZoneOffline { zone: 7 };
        let e = HarnessError::from(LsmError::from(FsError::from(dev)));
        // Transparent: the engine's message, and the layers below as the source chain.
        assert_eq!(
            chain(&e),
            [
                "file layer: device: zone 7 is offline",
                "device: zone 7 is offline",
                "zone 7 is offline"
            ]
        );
        let e = HarnessError::from(FsError::NoSpace);
        assert_eq!(
            chain(&e),
            [
                "file layer: no space left on the zoned device",
                "no space left on the zoned device"
            ]
        );
        let e = HarnessError::task("sampler")(JoinError {
            task: "sampler".into(),
        });
        assert_eq!(
            e.to_string(),
            "sampler failed: JoinError { task: \"sampler\" }"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn unknown_names_list_what_the_key_accepts_in_order() {
        let e = HarnessError::unknown("--scale", "huge", ["small", "paper", "tiny"]);
        assert_eq!(
            e.to_string(),
            "--scale: unknown 'huge'; known: small, paper, tiny"
        );
    }

    #[test]
    fn config_errors_name_the_key_and_the_problem() {
        let e = HarnessError::config("--num", "must be at least 1, not 0");
        assert_eq!(e.to_string(), "--num: must be at least 1, not 0");
        let HarnessError::Config { key, problem } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(key, "--num");
        assert_eq!(problem, "must be at least 1, not 0");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn io_errors_keep_the_path_and_the_io_error_as_source() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = HarnessError::io("/nonexistent/cells")(io);
        assert_eq!(e.to_string(), "/nonexistent/cells: no such file");
        let source = std::error::Error::source(&e).expect("a source");
        let io = source
            .downcast_ref::<std::io::Error>()
            .expect("the io::Error");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(
            chain(&e),
            ["/nonexistent/cells: no such file", "no such file"]
        );
    }
}
