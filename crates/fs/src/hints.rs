//! Typed hints: what the engine above tells the zone layer about the files it writes and the
//! work it does (files created and deleted, flush and compaction phases with their inputs and
//! outputs, level scores, blocks the block cache evicted). The engine delivers every hint, in
//! the order things happen, to [`crate::ZoneFs::on_hint`], which hands it to the placement and
//! cleaning policies ([`crate::PlacementPolicy::on_hint`], [`crate::CleaningPolicy::on_hint`]);
//! policies that keep state from them (HHZS-style migration, hot-block caching) read them
//! there.

use crate::placement::policy::Lifetime;

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
        /// The block's stored bytes, when the zone layer asked for them
        /// ([`crate::ZoneFs::wants_evicted_blocks`]; HHZS's cache hint carries the block).
        #[serde(skip)]
        data: Option<zonedb_device::ElidedBytes>,
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
