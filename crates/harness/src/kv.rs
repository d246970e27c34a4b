//! The key-value operations db_bench's workloads need, as a trait, so the same harness drives
//! ZoneDB's [`Db`] and peers (fjall behind the `fjall` feature) in one process.

use std::future::Future;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::elided::ValueRegenerator;
use zonedb_lsm::{Db, DbIter};

use crate::db_bench::HarnessError;

/// The error of a peer store (RocksDB, fjall) handed an elided value: elision is ZoneDB's
/// simulation only.
pub fn elided_values_refused() -> HarnessError {
    HarnessError::config(
        "--elide_values",
        "elided values are ZoneDB's simulation only (run with --elide_values=false)",
    )
}

/// A store the benchmarks run on.
pub trait KvStore: Clone + Send + Sync + 'static {
    /// Its iterator.
    type Iter: KvIter;

    /// Puts one key.
    fn put(
        &self,
        key: &[u8],
        value: &[u8],
    ) -> impl Future<Output = Result<(), HarnessError>> + Send;

    /// Puts under `key` the value of `len` bytes that `regen` makes from `desc` (an elided
    /// value: ZoneDB's [`Db::put_elided`] keeps only the descriptor where it can). Stores
    /// without elided values (the default) regenerate the bytes and [`KvStore::put`] them.
    fn put_elided(
        &self,
        key: &[u8],
        len: usize,
        desc: &[u8],
        regen: &dyn ValueRegenerator,
    ) -> impl Future<Output = Result<(), HarnessError>> + Send {
        async move {
            let mut value = Vec::with_capacity(len);
            if !regen.regenerate(desc, len, &mut value) {
                return Err(HarnessError::config(
                    "--elide_values",
                    "an elided value its generator does not know",
                ));
            }
            self.put(key, &value).await
        }
    }

    /// Registers the generator of this store's elided values, where the store keeps them
    /// elided (ZoneDB's [`Db::set_value_regenerator`]; the first registration stays). Other
    /// stores ignore it.
    fn set_value_regenerator(&self, regen: std::sync::Arc<dyn ValueRegenerator>) {
        let _ = regen;
    }

    /// Reads one key.
    fn get(&self, key: &[u8])
    -> impl Future<Output = Result<Option<Vec<u8>>, HarnessError>> + Send;

    /// Applies a batch atomically.
    fn write(&self, batch: WriteBatch) -> impl Future<Output = Result<(), HarnessError>> + Send;

    /// An iterator over the store as it is now, not positioned yet.
    #[allow(
        clippy::iter_not_returning_iterator,
        reason = "an async cursor, as RocksDB's Iterator"
    )]
    fn iter(&self) -> Self::Iter;

    /// Waits until no flush or compaction is pending or running (RocksDB's `WaitForCompact`,
    /// db_bench's `waitforcompaction`). Stores without such a call return at once.
    fn wait_for_compactions(&self) -> impl Future<Output = Result<(), HarnessError>> + Send {
        async { Ok(()) }
    }
}

/// A forward iterator.
pub trait KvIter: Send + 'static {
    /// Moves to the first key.
    fn seek_to_first(&mut self) -> impl Future<Output = Result<(), HarnessError>> + Send;
    /// Moves to the first key at or after `key`.
    fn seek(&mut self, key: &[u8]) -> impl Future<Output = Result<(), HarnessError>> + Send;
    /// Moves to the next key.
    fn next(&mut self) -> impl Future<Output = Result<(), HarnessError>> + Send;
    /// Whether it is on a key.
    fn valid(&self) -> bool;
    /// The current key.
    fn key(&self) -> &[u8];
    /// The current value.
    fn value(&self) -> &[u8];
}

impl<E: Env, D: ZonedDevice> KvStore for Db<E, D> {
    type Iter = DbIter<E, D>;

    async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), HarnessError> {
        Ok(Db::put(self, key, value).await?)
    }

    async fn put_elided(
        &self,
        key: &[u8],
        len: usize,
        desc: &[u8],
        _regen: &dyn ValueRegenerator,
    ) -> Result<(), HarnessError> {
        Ok(Db::put_elided(self, key, len, desc).await?)
    }

    fn set_value_regenerator(&self, regen: std::sync::Arc<dyn ValueRegenerator>) {
        let _ = Db::set_value_regenerator(self, regen);
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, HarnessError> {
        Ok(Db::get(self, key).await?)
    }

    async fn write(&self, batch: WriteBatch) -> Result<(), HarnessError> {
        Ok(Db::write(self, batch).await?)
    }

    fn iter(&self) -> DbIter<E, D> {
        Db::iter(self)
    }

    async fn wait_for_compactions(&self) -> Result<(), HarnessError> {
        Ok(Db::wait_for_compactions(self).await?)
    }
}

impl<E: Env, D: ZonedDevice> KvIter for DbIter<E, D> {
    async fn seek_to_first(&mut self) -> Result<(), HarnessError> {
        Ok(DbIter::seek_to_first(self).await?)
    }

    async fn seek(&mut self, key: &[u8]) -> Result<(), HarnessError> {
        Ok(DbIter::seek(self, key).await?)
    }

    async fn next(&mut self) -> Result<(), HarnessError> {
        Ok(DbIter::next(self).await?)
    }

    fn valid(&self) -> bool {
        DbIter::valid(self)
    }

    fn key(&self) -> &[u8] {
        DbIter::key(self)
    }

    fn value(&self) -> &[u8] {
        DbIter::value(self)
    }
}
