//! fjall as a peer store (feature `fjall`): the same db_bench workloads through [`KvStore`],
//! on one keyspace of a fjall database in a directory. Batches become fjall batches; reads
//! and iterators use fjall's own.
//!
//! Durability, the contract of the other stores (ZoneDB's `manual_wal_flush = false`,
//! RocksDB's `sync = false`, `manual_wal_flush = false`): every acknowledged write is in the
//! operating system, so it outlives a crash of the process, and is not fsynced. fjall's
//! journal writer buffers in user space (a `BufWriter` of 8 KiB); with
//! `manual_journal_persist = false`, fjall 3's default, which this peer sets explicitly on the
//! database and the keyspace, every `insert` and every batch from `Database::batch` ends with
//! `persist(PersistMode::Buffer)`, which writes that buffer to the file (`write(2)`) before the
//! write returns. The journal is fsynced when the database closes ([`FjallStore::persist`]).
//!
//! Compression: none, as the other stores run (fjall's default compresses data blocks with
//! LZ4 from level 2 on).

use std::path::Path;

use fjall::config::CompressionPolicy;
use fjall::{CompressionType, Database, Keyspace, KeyspaceCreateOptions};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::key::ValueType;

use crate::db_bench::HarnessError;
use crate::kv::{KvIter, KvStore};

fn err(e: impl std::fmt::Display) -> HarnessError {
    HarnessError::config("fjall", e.to_string())
}

/// A fjall database with one keyspace.
#[derive(Clone)]
pub struct FjallStore {
    db: Database,
    ks: Keyspace,
}

impl std::fmt::Debug for FjallStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FjallStore").finish_non_exhaustive()
    }
}

impl FjallStore {
    /// Opens (or creates) the database in `dir`, with a block cache of `cache_bytes`, no
    /// compression, and each write handed to the OS before it returns (see the module's
    /// documentation).
    ///
    /// # Errors
    /// fjall's error, as [`HarnessError::Config`].
    pub fn open(dir: &Path, cache_bytes: u64) -> Result<Self, HarnessError> {
        let db = Database::builder(dir)
            .cache_size(cache_bytes)
            .manual_journal_persist(false)
            .open()
            .map_err(err)?;
        let ks = db
            .keyspace("default", || {
                KeyspaceCreateOptions::default()
                    .manual_journal_persist(false)
                    .data_block_compression_policy(CompressionPolicy::all(CompressionType::None))
            })
            .map_err(err)?;
        Ok(Self { db, ks })
    }

    /// Persists the journal (fsync).
    ///
    /// # Errors
    /// fjall's error.
    pub fn persist(&self) -> Result<(), HarnessError> {
        self.db.persist(fjall::PersistMode::SyncAll).map_err(err)
    }
}

impl KvStore for FjallStore {
    type Iter = FjallIter;

    async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), HarnessError> {
        self.ks.insert(key, value).map_err(err)
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, HarnessError> {
        Ok(self.ks.get(key).map_err(err)?.map(|v| v.to_vec()))
    }

    async fn write(&self, batch: WriteBatch) -> Result<(), HarnessError> {
        let mut b = self.db.batch();
        for op in batch.ops() {
            let op = op?;
            if op.value_type == ValueType::ElidedValue {
                return Err(crate::kv::elided_values_refused());
            }
            if op.value_type == ValueType::Deletion {
                b.remove(&self.ks, op.key);
            } else {
                b.insert(&self.ks, op.key, op.value);
            }
        }
        b.commit().map_err(err)
    }

    fn iter(&self) -> FjallIter {
        FjallIter {
            ks: self.ks.clone(),
            inner: None,
            current: None,
        }
    }
}

/// An iterator over a fjall keyspace, positioned by `seek`.
pub struct FjallIter {
    ks: Keyspace,
    inner: Option<fjall::Iter>,
    current: Option<(Vec<u8>, Vec<u8>)>,
}

impl std::fmt::Debug for FjallIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FjallIter").finish_non_exhaustive()
    }
}

impl FjallIter {
    fn advance(&mut self) -> Result<(), HarnessError> {
        self.current = match self.inner.as_mut().and_then(Iterator::next) {
            Some(guard) => {
                let (k, v) = guard.into_inner().map_err(err)?;
                Some((k.to_vec(), v.to_vec()))
            }
            None => None,
        };
        Ok(())
    }
}

impl KvIter for FjallIter {
    async fn seek_to_first(&mut self) -> Result<(), HarnessError> {
        self.inner = Some(self.ks.iter());
        self.advance()
    }

    async fn seek(&mut self, key: &[u8]) -> Result<(), HarnessError> {
        self.inner = Some(self.ks.range(key.to_vec()..));
        self.advance()
    }

    async fn next(&mut self) -> Result<(), HarnessError> {
        self.advance()
    }

    fn valid(&self) -> bool {
        self.current.is_some()
    }

    fn key(&self) -> &[u8] {
        self.current.as_ref().map_or(&[], |(k, _)| k)
    }

    fn value(&self) -> &[u8] {
        self.current.as_ref().map_or(&[], |(_, v)| v)
    }
}
