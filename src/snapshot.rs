//! [`Snapshot`]: a consistent read view of a [`Db`] (RocksDB's `GetSnapshot`), released when
//! dropped.

use std::ops::RangeBounds;

use crate::asynchronous::AsyncSnapshot;
use crate::iter::{Iter, bounds_of, prefix_bounds};
use crate::{Db, Error};

/// The store as it was when [`Db::snapshot`] was called: its reads never see later writes
/// (and compactions keep the versions it needs while it lives).
#[derive(Debug)]
pub struct Snapshot<'a> {
    db: &'a Db,
    snap: AsyncSnapshot,
}

impl<'a> Snapshot<'a> {
    pub(crate) fn new(db: &'a Db) -> Self {
        Self {
            db,
            snap: db.engine().snapshot(),
        }
    }

    /// The value `key` had, or `None`.
    ///
    /// # Errors
    /// I/O or corruption errors.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>, Error> {
        let db = self.db.engine();
        Ok(self.db.block_on(db.get_at(key.as_ref(), &self.snap))?)
    }

    /// Every key and value, in key order (`.rev()`: down).
    pub fn iter(&self) -> Iter<'_> {
        self.range::<&[u8], _>(..)
    }

    /// The keys in `range`, in key order (`.rev()`: down).
    pub fn range<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> Iter<'_> {
        Iter::new(self.db, Some(&self.snap), bounds_of(&range))
    }

    /// The keys that start with `prefix`, in key order (`.rev()`: down).
    pub fn prefix(&self, prefix: impl AsRef<[u8]>) -> Iter<'_> {
        Iter::new(self.db, Some(&self.snap), prefix_bounds(prefix.as_ref()))
    }

    /// The snapshot's sequence number (the last write it sees).
    pub fn sequence(&self) -> u64 {
        self.snap.sequence()
    }
}
