//! The asynchronous front door: the engine's own `Db` ([`zonedb_lsm::Db`]) on real time and
//! a real device, opened as [`crate::Db::open`] opens it.
//!
//! Every call is an `async fn`; the futures need no particular executor (the engine's
//! background work runs on its own threads, its timers on a timer thread), so they run under
//! tokio, async-std, `futures::executor::block_on` or [`zonedb_env::RealEnv::block_on`].
//! Device I/O inside them is blocking file or block-device I/O: on a latency-sensitive
//! executor, call them from a blocking-friendly context (tokio's `spawn_blocking`).
//!
//! ```
//! use zonedb::Options;
//!
//! let dir = tempfile::tempdir().unwrap();
//! zonedb_env::RealEnv::new(0).block_on(async {
//!     let db = zonedb::asynchronous::open(dir.path(), Options::default()).await?;
//!     db.put(b"k", b"v").await?;
//!     assert_eq!(db.get(b"k").await?, Some(b"v".to_vec()));
//!     let mut it = db.iter();
//!     it.seek_to_last().await?; // and `prev()` backwards, `seek`/`next` forwards
//!     assert_eq!(it.key(), b"k");
//!     db.close().await?;
//!     Ok::<(), zonedb::Error>(())
//! })?;
//! # Ok::<(), zonedb::Error>(())
//! ```
//!
//! What the engine offers beyond the synchronous door (statistics per level, the zone view,
//! `wait_for_compactions`, elided values) is on [`AsyncDb`]; a synchronous
//! [`crate::Db`] lends its engine with [`crate::Db::as_async`].

use std::path::Path;

use zonedb_device::RealDevice;
use zonedb_env::RealEnv;

use crate::open::{Target, open as open_target};
use crate::{Error, Options};

/// The engine on real time and a real device (clones share one store; the last one dropped
/// closes it, but [`AsyncDb::close`] reports what a drop cannot).
pub type AsyncDb = zonedb_lsm::Db<RealEnv, RealDevice>;
/// A snapshot of an [`AsyncDb`] ([`AsyncDb::snapshot`]; read with `get_at`, `iter_at`).
pub type AsyncSnapshot = zonedb_lsm::Snapshot<RealEnv, RealDevice>;
/// An iterator of an [`AsyncDb`]: async `seek`, `next`, `seek_for_prev`, `seek_to_last`,
/// `prev`; `valid`, `key`, `value`.
pub type AsyncIter = zonedb_lsm::DbIter<RealEnv, RealDevice>;
pub use zonedb_lsm::batch::WriteBatch;

/// Opens (creating it when absent and `create_if_missing`) the store in the directory
/// `path`, as [`crate::Db::open`] does.
///
/// # Errors
/// As [`crate::Db::open`].
pub async fn open(path: impl AsRef<Path>, options: Options) -> Result<AsyncDb, Error> {
    let env = RealEnv::new(0);
    let target = Target::Dir(path.as_ref().to_path_buf());
    Ok(open_target(&env, &target, &options).await?.db)
}

/// Opens the store on the Linux zoned block device `device`, as
/// [`crate::Db::open_device`] does.
///
/// # Errors
/// As [`crate::Db::open_device`].
pub async fn open_device(device: impl AsRef<Path>, options: Options) -> Result<AsyncDb, Error> {
    let env = RealEnv::new(0);
    let target = Target::Block(device.as_ref().to_path_buf());
    Ok(open_target(&env, &target, &options).await?.db)
}
