//! [`Db`]: the synchronous front door. Each call runs the engine's future to completion on
//! the calling thread ([`RealEnv::block_on`]); background flushes, compactions and zone
//! cleaning run on the engine's own threads. `Db` is `Send + Sync`: share it between
//! threads with an `Arc` (concurrent writers share group commits).

use std::ops::RangeBounds;
use std::path::{Path, PathBuf};
use std::sync::Weak;

use zonedb_device::RealDevice;
use zonedb_env::{Env, RealEnv};
use zonedb_lsm::batch::WriteBatch;

use crate::asynchronous::AsyncDb;
use crate::iter::{Iter, bounds_of, prefix_bounds};
use crate::open::{Target, open};
use crate::snapshot::Snapshot;
use crate::{Error, Options, WriteOptions};

/// The largest entry (key plus value) a write takes: SST blocks address their entries with
/// 32-bit offsets.
pub const MAX_ENTRY_BYTES: usize = 1 << 31;

/// A store, open (RocksDB's `DB`). Opened with [`Db::open`] (a directory) or
/// [`Db::open_device`] (a zoned block device); closed by [`Db::close`] or, failing that, when
/// dropped (a drop closes too, and no write acknowledged before it is lost; only
/// [`Db::close`] reports a failed close).
///
/// ```
/// use zonedb::{Db, Options, WriteBatch};
///
/// let dir = tempfile::tempdir().unwrap();
/// let db = Db::open(dir.path(), Options::default())?;
/// db.put(b"apple", b"red")?;
/// let mut batch = WriteBatch::new();
/// batch.put(b"banana", b"yellow");
/// batch.delete(b"apple");
/// db.write(batch)?;
/// assert_eq!(db.get(b"apple")?, None);
/// let snapshot = db.snapshot();
/// db.put(b"cherry", b"dark red")?;
/// assert_eq!(snapshot.get(b"cherry")?, None); // the snapshot does not see it
/// let keys: Vec<Vec<u8>> = db.iter().rev().map(|kv| kv.map(|(k, _)| k)).collect::<Result<_, _>>()?;
/// assert_eq!(keys, [b"cherry".to_vec(), b"banana".to_vec()]);
/// drop(snapshot);
/// db.close()?;
/// # Ok::<(), zonedb::Error>(())
/// ```
///
/// The README's example (in a directory of its own here: doctests run side by side, and a
/// store opens once at a time):
///
/// ```rust
/// use zonedb::{Db, Options};
///
/// fn main() -> Result<(), zonedb::Error> {
///     let dir = std::env::temp_dir().join("zonedb-readme-db-doc");
///     let db = Db::open(&dir, Options::default())?;
///     db.put(b"hello", b"world")?;
///     assert_eq!(db.get(b"hello")?.as_deref(), Some(&b"world"[..]));
///     for item in db.range(b"a".as_slice()..b"z".as_slice()) {
///         let (key, value) = item?;
///         println!("{:?} = {:?}", key, value);
///     }
///     db.close()?;
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Db {
    env: RealEnv,
    /// `None` once closed.
    db: Option<AsyncDb>,
    /// The device, to see when the engine's background threads let go of it.
    dev: Weak<RealDevice>,
    path: PathBuf,
}

/// Checks the sizes of a write's entries.
fn check_entry(key: &[u8], value: &[u8]) -> Result<(), Error> {
    if key.len().saturating_add(value.len()) >= MAX_ENTRY_BYTES {
        return Err(Error::invalid(format!(
            "an entry of {} key and {} value bytes: entries are below 2 GiB",
            key.len(),
            value.len()
        )));
    }
    Ok(())
}

impl Db {
    /// Opens the store in the directory `path`: a file-backed zoned device (sparse files).
    /// When `path` holds none and `options.engine.create_if_missing` is true (the default),
    /// creates one of `options.profile` at `options.scale` (by default the SplitZNS paper's
    /// SSD at 1/64: 1.3 GB of sparse files) and formats it.
    ///
    /// # Errors
    /// [`crate::ErrorKind::InvalidArgument`] for bad options or a missing store with
    /// `create_if_missing = false`; [`crate::ErrorKind::Busy`] when the store is open
    /// elsewhere; I/O and corruption errors of the device and the store.
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Self, Error> {
        Self::open_target(Target::Dir(path.as_ref().to_path_buf()), &options)
    }

    /// Opens the store on the Linux host-managed zoned block device `device` (such as
    /// `/dev/nvme0n1`: an NVMe ZNS namespace or an HM-SMR disk; the kernel's scheduler must
    /// be `mq-deadline`). A device whose zones are all empty is formatted when
    /// `create_if_missing`; one holding anything but a ZoneDB store is refused.
    ///
    /// # Errors
    /// As [`Db::open`]; [`crate::ErrorKind::InvalidArgument`] off Linux or for a device that
    /// is not host-managed.
    pub fn open_device(device: impl AsRef<Path>, options: Options) -> Result<Self, Error> {
        Self::open_target(Target::Block(device.as_ref().to_path_buf()), &options)
    }

    fn open_target(target: Target, options: &Options) -> Result<Self, Error> {
        let env = RealEnv::new(0);
        let opened = env.block_on(open(&env, &target, options))?;
        Ok(Self {
            env,
            db: Some(opened.db),
            dev: opened.dev,
            path: target.path().to_path_buf(),
        })
    }

    /// The engine: set from open until [`Db::close`] or the drop, which take `self`.
    pub(crate) fn engine(&self) -> &AsyncDb {
        self.db
            .as_ref()
            .unwrap_or_else(|| unreachable!("a Db is open while it can be borrowed"))
    }

    pub(crate) fn block_on<F: Future>(&self, f: F) -> F::Output {
        self.env.block_on(f)
    }

    /// The directory or device the store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value of `key`, or `None`.
    ///
    /// # Errors
    /// I/O or corruption errors.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>, Error> {
        let db = self.engine();
        Ok(self.block_on(db.get(key.as_ref()))?)
    }

    /// Sets `key` to `value`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::NoSpace`] on a full device; a background error (writes refused
    /// until reopened); I/O errors.
    pub fn put(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<(), Error> {
        let (key, value) = (key.as_ref(), value.as_ref());
        check_entry(key, value)?;
        let db = self.engine();
        Ok(self.block_on(db.put(key, value))?)
    }

    /// Deletes `key` (nothing happens when it is absent).
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete(&self, key: impl AsRef<[u8]>) -> Result<(), Error> {
        let key = key.as_ref();
        check_entry(key, &[])?;
        let db = self.engine();
        Ok(self.block_on(db.delete(key))?)
    }

    /// Applies `batch` atomically: all of it or, after a crash, none of it.
    ///
    /// # Errors
    /// As [`Db::put`]; [`crate::ErrorKind::InvalidArgument`] for a damaged batch.
    pub fn write(&self, batch: WriteBatch) -> Result<(), Error> {
        self.write_opt(batch, WriteOptions::default())
    }

    /// Applies `batch` atomically with `options` (`sync`: durable against power loss when
    /// this returns).
    ///
    /// # Errors
    /// As [`Db::write`].
    pub fn write_opt(&self, batch: WriteBatch, options: WriteOptions) -> Result<(), Error> {
        for op in batch.ops() {
            let op = op?;
            check_entry(op.key, op.value)?;
        }
        let db = self.engine();
        Ok(self.block_on(async {
            if options.sync {
                db.write_sync(batch).await
            } else {
                db.write(batch).await
            }
        })?)
    }

    /// Every key and value in key order; `.rev()` walks from the last key down (the
    /// iterator is double-ended). It reads a snapshot taken now.
    pub fn iter(&self) -> Iter<'_> {
        self.range::<&[u8], _>(..)
    }

    /// The keys in `range` (any range of byte strings: `b"a".as_slice()..b"m".as_slice()`,
    /// `key.to_vec()..`, `..=end`) in key order; `.rev()` walks it from its end down. A range
    /// whose start is after its end is empty. It reads a snapshot taken now.
    pub fn range<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> Iter<'_> {
        Iter::new(self, None, bounds_of(&range))
    }

    /// The keys that start with `prefix`, in key order (`.rev()`: down).
    pub fn prefix(&self, prefix: impl AsRef<[u8]>) -> Iter<'_> {
        Iter::new(self, None, prefix_bounds(prefix.as_ref()))
    }

    /// A consistent view of the store as of now: reads through it never see later writes.
    /// Compaction keeps what it needs while it lives.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot::new(self)
    }

    /// Writes the memtable to an SST and waits for it (RocksDB's `Flush`).
    ///
    /// # Errors
    /// A background error; I/O errors.
    pub fn flush(&self) -> Result<(), Error> {
        let db = self.engine();
        Ok(self.block_on(db.flush())?)
    }

    /// RocksDB's `FlushWAL`: hands the WAL's buffered write groups to the device (and with
    /// `sync` makes them durable). Only needed with `manual_wal_flush`; by default every write
    /// reaches the operating system before it returns.
    ///
    /// # Errors
    /// I/O errors.
    pub fn flush_wal(&self, sync: bool) -> Result<(), Error> {
        let db = self.engine();
        Ok(self.block_on(db.flush_wal(sync))?)
    }

    /// The engine's counters (flushes, compactions, bytes, stalls, files per level, ...).
    pub fn stats(&self) -> zonedb_lsm::DbStats {
        self.engine().stats()
    }

    /// The engine underneath, for its asynchronous API (see [`crate::asynchronous`]).
    pub fn as_async(&self) -> &AsyncDb {
        self.engine()
    }

    /// Closes the store: background work stops, the WAL is synced and closed, and the device
    /// is released (the store can be opened again at once). A drop does the same but cannot
    /// report an error.
    ///
    /// # Errors
    /// I/O errors of the last writes (a store that could not close cleanly replays its WAL
    /// at the next open).
    pub fn close(mut self) -> Result<(), Error> {
        self.shut()
    }

    fn shut(&mut self) -> Result<(), Error> {
        let Some(db) = self.db.take() else {
            return Ok(());
        };
        let closed = self.env.block_on(db.close());
        drop(db);
        // The engine's threads drop their handles of the device as they end: wait (up to
        // 10 s) so that the device's lock is free when this returns.
        for _ in 0..5000 {
            if self.dev.strong_count() == 0 {
                break;
            }
            self.env.block_on(self.env.sleep(2_000_000));
        }
        Ok(closed?)
    }
}

// `Db` is shared between threads (its doc says so), and its iterators and snapshots can move
// to another thread with it.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    const fn send<T: Send>() {}
    send_sync::<Db>();
    send::<Iter<'static>>();
    send::<Snapshot<'static>>();
};

impl Drop for Db {
    fn drop(&mut self) {
        // Nobody to report to: a failed close leaves what the next open's recovery handles.
        let _ = self.shut();
    }
}
