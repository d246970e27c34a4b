//! Tables read through the zone file layer, and the table cache (open tables by number).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use zonedb_device::{IoClass, ZonedDevice};
use zonedb_env::Env;
use zonedb_fs::ZoneFs;

use crate::LsmError;
use crate::block_cache::BlockCache;
use crate::sst::{BlockSource, Table};
use crate::version::manifest::sst_name;

/// A file of the zone layer as a block source.
#[derive(Debug)]
pub struct FsSource<E: Env, D: ZonedDevice> {
    fs: Arc<ZoneFs<E, D>>,
    name: String,
}

impl<E: Env, D: ZonedDevice> BlockSource for FsSource<E, D> {
    async fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>, LsmError> {
        Ok(self.fs.read(&self.name, offset, len).await?)
    }

    async fn read_class(&self, offset: u64, len: u64, class: IoClass) -> Result<Vec<u8>, LsmError> {
        Ok(self.fs.read_class(&self.name, offset, len, class).await?)
    }

    async fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Result<zonedb_device::ElidedBytes, LsmError> {
        Ok(self.fs.read_elided(&self.name, offset, len, class).await?)
    }

    async fn read_discard(&self, offset: u64, len: u64, class: IoClass) -> Result<(), LsmError> {
        Ok(self.fs.read_discard(&self.name, offset, len, class).await?)
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// An open SST on the zone layer.
pub type FsTable<E, D> = Table<FsSource<E, D>>;

/// Open tables, by file number (RocksDB's table cache with `max_open_files = -1`).
#[derive(Debug)]
pub struct TableCache<E: Env, D: ZonedDevice> {
    fs: Arc<ZoneFs<E, D>>,
    block_cache: Option<Arc<BlockCache>>,
    open: Mutex<BTreeMap<u64, Arc<FsTable<E, D>>>>,
}

impl<E: Env, D: ZonedDevice> TableCache<E, D> {
    /// An empty cache.
    pub fn new(fs: Arc<ZoneFs<E, D>>, block_cache: Option<Arc<BlockCache>>) -> Self {
        Self {
            fs,
            block_cache,
            open: Mutex::new(BTreeMap::new()),
        }
    }

    /// The open table `number` of `size` bytes, opening it if needed with reads on behalf of
    /// `class` (a compaction's inputs: [`IoClass::BackgroundRead`]; a `get`:
    /// [`IoClass::QueryRead`]).
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn get(
        &self,
        number: u64,
        size: u64,
        class: IoClass,
    ) -> Result<Arc<FsTable<E, D>>, LsmError> {
        if let Some(t) = self.lock().get(&number) {
            return Ok(t.clone());
        }
        let src = FsSource {
            fs: self.fs.clone(),
            name: sst_name(number),
        };
        let t =
            Arc::new(Table::open_for(src, number, size, self.block_cache.clone(), class).await?);
        self.lock().insert(number, t.clone());
        Ok(t)
    }

    /// Forgets table `number` (after its file is deleted).
    pub fn evict(&self, number: u64) {
        self.lock().remove(&number);
        if let Some(c) = &self.block_cache {
            c.erase_file(number);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<FsTable<E, D>>>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
