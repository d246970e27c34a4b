//! Typed hints from the engine to the zone layer and to anyone listening (placement and
//! cleaning policies, HHZS-style migration, statistics). The engine calls
//! [`HintListener::on_hint`] synchronously, in the order things happen; listeners must be
//! quick and must not call back into the engine.

use std::sync::Mutex;

use zonedb_fs::placement::Lifetime;

/// What a created file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKindHint {
    /// Write-ahead log.
    Wal,
    /// Sorted table.
    Sst,
    /// MANIFEST.
    Manifest,
}

/// The files of one level taking part in a job.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LevelFiles {
    /// Level.
    pub level: u32,
    /// File numbers.
    pub files: Vec<u64>,
}

/// One hint.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "hint", rename_all = "kebab-case")]
pub enum Hint {
    /// A file is about to be written (SSTs: after they are built, before their bytes go out,
    /// as CAZA wants).
    FileCreated {
        /// File number.
        number: u64,
        /// Kind.
        kind: FileKindHint,
        /// Level (SSTs).
        level: Option<u32>,
        /// Smallest user key (SSTs).
        smallest: Vec<u8>,
        /// Largest user key (SSTs).
        largest: Vec<u8>,
        /// Bytes (SSTs: the whole file).
        size: u64,
        /// Lifetime given to the file layer (`CalculateSSTWriteHint` for SSTs).
        lifetime: Lifetime,
        /// Job that made it (0 = foreground).
        job: u64,
    },
    /// A file left the tree and was deleted.
    FileDeleted {
        /// File number.
        number: u64,
    },
    /// A flush began.
    FlushStarted {
        /// Job id.
        job: u64,
        /// Memtable bytes being flushed.
        memtable_bytes: u64,
    },
    /// A flush finished.
    FlushFinished {
        /// Job id.
        job: u64,
        /// L0 files written.
        outputs: Vec<u64>,
    },
    /// A compaction began.
    CompactionStarted {
        /// Job id.
        job: u64,
        /// Start level.
        start_level: u32,
        /// Output level.
        output_level: u32,
        /// Inputs per level.
        inputs: Vec<LevelFiles>,
        /// Whether only the manifest changes.
        trivial_move: bool,
    },
    /// A compaction finished.
    CompactionFinished {
        /// Job id.
        job: u64,
        /// Inputs per level.
        inputs: Vec<LevelFiles>,
        /// Outputs per level.
        outputs: Vec<LevelFiles>,
    },
    /// Level scores after the tree changed (sorted, highest first).
    LevelScores {
        /// (level, score).
        scores: Vec<(u32, f64)>,
        /// Base level.
        base_level: u32,
    },
    /// The block cache evicted a block.
    BlockEvicted {
        /// File number.
        file: u64,
        /// Block offset.
        offset: u64,
        /// Bytes.
        bytes: u64,
    },
}

impl Hint {
    /// A new WAL (lifetime short, as RocksDB marks WALs).
    pub fn wal_created(number: u64) -> Self {
        Self::FileCreated {
            number,
            kind: FileKindHint::Wal,
            level: None,
            smallest: Vec::new(),
            largest: Vec::new(),
            size: 0,
            lifetime: Lifetime::Short,
            job: 0,
        }
    }
}

/// Receives hints.
pub trait HintListener: Send + Sync + std::fmt::Debug {
    /// Called for every hint.
    fn on_hint(&self, hint: &Hint);
}

/// Ignores hints.
#[derive(Debug, Default)]
pub struct NoHints;

impl HintListener for NoHints {
    fn on_hint(&self, _hint: &Hint) {}
}

/// Keeps every hint (tests, traces).
#[derive(Debug, Default)]
pub struct RecordingHints(pub Mutex<Vec<Hint>>);

impl HintListener for RecordingHints {
    fn on_hint(&self, hint: &Hint) {
        if let Ok(mut v) = self.0.lock() {
            v.push(hint.clone());
        }
    }
}

impl RecordingHints {
    /// A copy of the hints so far.
    pub fn hints(&self) -> Vec<Hint> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}
