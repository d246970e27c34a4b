//! RocksDB as a peer store (feature `rocksdb`), driven through the `rocksdb` crate: the same
//! db_bench workloads through [`KvStore`], on the default column family of a RocksDB database
//! in a directory. RocksDB's default options but an LRU block cache of the given size and no
//! compression; writes with the default `WriteOptions` (WAL on, `sync=false`, db_bench's
//! default); batches become RocksDB write batches; iterators are RocksDB's raw iterators.
//!
//! Build (links Debian's librocksdb-dev 7.8.3 dynamically, no RocksDB compile; bindgen needs
//! libclang; the crate's 0.20 binds the 7.9 C API, which 7.8.3 has function for function):
//!
//! ```text
//! apt-get install -y librocksdb-dev libclang-dev
//! ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu ROCKSDB_INCLUDE_DIR=/usr/include \
//!     cargo build --release --features rocksdb
//! ```
//!
//! Without `ROCKSDB_LIB_DIR`, librocksdb-sys compiles its bundled RocksDB from source instead
//! (about 20–30 minutes on 2 cores).

use std::path::Path;
use std::sync::Arc;

use rocksdb::{
    BlockBasedOptions, Cache, DB, DBCompressionType, DBRawIteratorWithThreadMode, Options,
};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::key::ValueType;

use crate::db_bench::HarnessError;
use crate::kv::{KvIter, KvStore};

fn err(e: impl std::fmt::Display) -> HarnessError {
    HarnessError::config("rocksdb", e.to_string())
}

/// A RocksDB database (its default column family).
#[derive(Clone)]
pub struct RocksStore {
    db: Arc<DB>,
}

impl std::fmt::Debug for RocksStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStore")
            .field("path", &self.db.path())
            .finish_non_exhaustive()
    }
}

impl RocksStore {
    /// Opens (or creates) the database in `dir`, with an LRU block cache of `cache_bytes`,
    /// no compression, and RocksDB's defaults otherwise.
    ///
    /// # Errors
    /// RocksDB's error, as [`HarnessError::Config`].
    pub fn open(dir: &Path, cache_bytes: u64) -> Result<Self, HarnessError> {
        let cache_bytes = usize::try_from(cache_bytes).map_err(err)?;
        let cache = Cache::new_lru_cache(cache_bytes).map_err(err)?;
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&cache);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_compression_type(DBCompressionType::None);
        opts.set_block_based_table_factory(&table);
        let db = DB::open(&opts, dir).map_err(err)?;
        Ok(Self { db: Arc::new(db) })
    }

    /// Persists the write-ahead log (flushed and synced).
    ///
    /// # Errors
    /// RocksDB's error.
    pub fn persist(&self) -> Result<(), HarnessError> {
        self.db.flush_wal(true).map_err(err)
    }
}

impl KvStore for RocksStore {
    type Iter = RocksIter;

    async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), HarnessError> {
        self.db.put(key, value).map_err(err)
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, HarnessError> {
        self.db.get(key).map_err(err)
    }

    async fn write(&self, batch: WriteBatch) -> Result<(), HarnessError> {
        let mut b = rocksdb::WriteBatch::default();
        for op in batch.ops() {
            let op = op?;
            if op.value_type == ValueType::ElidedValue {
                return Err(crate::kv::elided_values_refused());
            }
            if op.value_type == ValueType::Deletion {
                b.delete(op.key);
            } else {
                b.put(op.key, op.value);
            }
        }
        self.db.write(b).map_err(err)
    }

    /// db_bench's `waitforcompaction`: RocksDB 7.8 has no `WaitForCompact`, so this polls
    /// its properties until no flush or compaction is pending or running.
    async fn wait_for_compactions(&self) -> Result<(), HarnessError> {
        const BUSY: [&str; 4] = [
            "rocksdb.mem-table-flush-pending",
            "rocksdb.num-running-flushes",
            "rocksdb.compaction-pending",
            "rocksdb.num-running-compactions",
        ];
        loop {
            let mut busy = 0;
            for p in BUSY {
                busy += self.db.property_int_value(p).map_err(err)?.unwrap_or(0);
            }
            if busy == 0 {
                return Ok(());
            }
            #[allow(
                clippy::disallowed_methods,
                reason = "a real-mode peer only: RocksDB's own threads do the work"
            )]
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    fn iter(&self) -> RocksIter {
        RocksIter {
            inner: OwnedRawIter::new(Arc::clone(&self.db), |db| db.raw_iterator()),
        }
    }
}

/// RocksDB's raw iterator, which borrows its database.
type RawIter<'a> = DBRawIteratorWithThreadMode<'a, DB>;

self_cell::self_cell!(
    /// A raw iterator together with the database handle it borrows.
    struct OwnedRawIter {
        owner: Arc<DB>,
        #[covariant]
        dependent: RawIter,
    }
);

/// An iterator over a RocksDB database as it was when the iterator was made (RocksDB's raw
/// iterator, which holds an implicit snapshot), positioned by `seek`.
pub struct RocksIter {
    inner: OwnedRawIter,
}

impl std::fmt::Debug for RocksIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksIter")
            .field("valid", &self.valid())
            .finish_non_exhaustive()
    }
}

impl RocksIter {
    /// Moves the raw iterator with `step`, then reports its status (an error that stopped it).
    fn step(&mut self, step: impl FnOnce(&mut RawIter<'_>)) -> Result<(), HarnessError> {
        self.inner.with_dependent_mut(|_, it| {
            step(it);
            it.status().map_err(err)
        })
    }
}

impl KvIter for RocksIter {
    #[allow(
        clippy::redundant_closure_for_method_calls,
        reason = "the method path fixes the iterator's lifetime; `step` needs it for any"
    )]
    async fn seek_to_first(&mut self) -> Result<(), HarnessError> {
        self.step(|it| it.seek_to_first())
    }

    async fn seek(&mut self, key: &[u8]) -> Result<(), HarnessError> {
        self.step(|it| it.seek(key))
    }

    async fn next(&mut self) -> Result<(), HarnessError> {
        self.step(|it| {
            if it.valid() {
                it.next();
            }
        })
    }

    fn valid(&self) -> bool {
        self.inner.borrow_dependent().valid()
    }

    fn key(&self) -> &[u8] {
        self.inner.borrow_dependent().key().unwrap_or(&[])
    }

    fn value(&self) -> &[u8] {
        self.inner.borrow_dependent().value().unwrap_or(&[])
    }
}
