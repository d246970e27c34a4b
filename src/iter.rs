//! [`Iter`]: the synchronous door's iterator over a key range at a snapshot, forward
//! ([`Iterator`]) and backward ([`DoubleEndedIterator`]: `.rev()`, `next_back`), both ends
//! at once if asked (they stop where they meet).
//!
//! Each end is an engine cursor ([`crate::asynchronous::AsyncIter`]) created on its first step:
//! the front one seeks to the range's start and steps with `next`, the back one seeks to its
//! end (`seek_for_prev`) and steps with `prev`. A step either way costs about the same (each
//! source of the merge steps within a decoded block or a batch of memtable entries); nothing
//! is collected ahead, so a range of any size is walked in constant memory.

use std::ops::{Bound, RangeBounds};

use crate::Db;
use crate::Error;
use crate::asynchronous::{AsyncIter, AsyncSnapshot};

/// A key and its value.
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// The bounds of a range of keys.
pub(crate) type Bounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// The bounds of `r` as owned keys.
pub(crate) fn bounds_of<K: AsRef<[u8]>, R: RangeBounds<K>>(r: &R) -> Bounds {
    let own = |b: Bound<&K>| b.map(|k| k.as_ref().to_vec());
    (own(r.start_bound()), own(r.end_bound()))
}

/// The bounds of the keys that start with `prefix`: from it to the first key after all of
/// them (none when the prefix is empty or all `0xff`).
pub(crate) fn prefix_bounds(prefix: &[u8]) -> Bounds {
    let mut end = prefix.to_vec();
    while end.last() == Some(&0xff) {
        end.pop();
    }
    let upper = match end.last_mut() {
        Some(b) => {
            *b += 1;
            Bound::Excluded(end)
        }
        None => Bound::Unbounded,
    };
    (Bound::Included(prefix.to_vec()), upper)
}

/// The snapshot an iterator reads: its own, or a [`crate::Snapshot`]'s.
#[derive(Debug)]
enum At<'a> {
    Own(AsyncSnapshot),
    Shared(&'a AsyncSnapshot),
}

/// An iterator over the keys of a range, in key order, and of its values: items are
/// `Result<(key, value), Error>` (an I/O error or damage met on the way is an item; the
/// iterator ends after it). `.rev()` walks from the range's end down.
///
/// It reads the snapshot it was created at: writes after that are not seen.
#[derive(Debug)]
pub struct Iter<'a> {
    db: &'a Db,
    at: At<'a>,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    front: Option<AsyncIter>,
    back: Option<AsyncIter>,
    /// The last key each end yielded (the other end stops there).
    front_key: Option<Vec<u8>>,
    back_key: Option<Vec<u8>>,
    done: bool,
}

impl<'a> Iter<'a> {
    /// An iterator over `bounds` at `snapshot` (`None`: one taken now).
    pub(crate) fn new(db: &'a Db, snapshot: Option<&'a AsyncSnapshot>, bounds: Bounds) -> Self {
        let at = match snapshot {
            Some(s) => At::Shared(s),
            None => At::Own(db.engine().snapshot()),
        };
        Self {
            db,
            at,
            lower: bounds.0,
            upper: bounds.1,
            front: None,
            back: None,
            front_key: None,
            back_key: None,
            done: false,
        }
    }

    fn snapshot(&self) -> &AsyncSnapshot {
        match &self.at {
            At::Own(s) => s,
            At::Shared(s) => s,
        }
    }

    /// The front cursor's next pair within the range, if any.
    fn step_front(&mut self) -> Result<Option<KeyValue>, Error> {
        let db = self.db;
        let it = match &mut self.front {
            Some(it) => {
                db.block_on(it.next())?;
                it
            }
            None => {
                let mut it = db.engine().iter_at(self.snapshot());
                let lower = &self.lower;
                db.block_on(async {
                    match lower {
                        Bound::Included(s) => it.seek(s).await,
                        Bound::Excluded(s) => {
                            it.seek(s).await?;
                            if it.valid() && it.key() == s.as_slice() {
                                it.next().await?;
                            }
                            Ok(())
                        }
                        Bound::Unbounded => it.seek_to_first().await,
                    }
                })?;
                self.front.insert(it)
            }
        };
        if !it.valid() {
            return Ok(None);
        }
        let k = it.key();
        let past = match &self.upper {
            Bound::Included(e) => k > e.as_slice(),
            Bound::Excluded(e) => k >= e.as_slice(),
            Bound::Unbounded => false,
        };
        if past || self.back_key.as_deref().is_some_and(|b| k >= b) {
            return Ok(None);
        }
        remember(&mut self.front_key, k);
        Ok(Some((k.to_vec(), it.value().to_vec())))
    }

    /// The back cursor's next pair (going down) within the range, if any.
    fn step_back(&mut self) -> Result<Option<KeyValue>, Error> {
        let db = self.db;
        let it = match &mut self.back {
            Some(it) => {
                db.block_on(it.prev())?;
                it
            }
            None => {
                let mut it = db.engine().iter_at(self.snapshot());
                let upper = &self.upper;
                db.block_on(async {
                    match upper {
                        Bound::Included(e) => it.seek_for_prev(e).await,
                        Bound::Excluded(e) => {
                            it.seek_for_prev(e).await?;
                            if it.valid() && it.key() == e.as_slice() {
                                it.prev().await?;
                            }
                            Ok(())
                        }
                        Bound::Unbounded => it.seek_to_last().await,
                    }
                })?;
                self.back.insert(it)
            }
        };
        if !it.valid() {
            return Ok(None);
        }
        let k = it.key();
        let past = match &self.lower {
            Bound::Included(s) => k < s.as_slice(),
            Bound::Excluded(s) => k <= s.as_slice(),
            Bound::Unbounded => false,
        };
        if past || self.front_key.as_deref().is_some_and(|f| k <= f) {
            return Ok(None);
        }
        remember(&mut self.back_key, k);
        Ok(Some((k.to_vec(), it.value().to_vec())))
    }

    /// What a step returned, as an item; the iterator ends at its end or an error.
    fn item(&mut self, step: Result<Option<KeyValue>, Error>) -> Option<Result<KeyValue, Error>> {
        match step {
            Ok(Some(kv)) => Some(Ok(kv)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Keeps `k` in `slot` (reusing its buffer).
fn remember(slot: &mut Option<Vec<u8>>, k: &[u8]) {
    let buf = slot.get_or_insert_with(Vec::new);
    buf.clear();
    buf.extend_from_slice(k);
}

impl Iterator for Iter<'_> {
    type Item = Result<KeyValue, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = self.step_front();
        self.item(step)
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = self.step_back();
        self.item(step)
    }
}

impl std::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_bounds_end_after_every_key_with_the_prefix() {
        let b = |p: &[u8]| prefix_bounds(p).1;
        assert_eq!(b(b"ab"), Bound::Excluded(b"ac".to_vec()));
        assert_eq!(b(b"a\xff\xff"), Bound::Excluded(b"b".to_vec()));
        assert_eq!(b(b"\xff"), Bound::Unbounded);
        assert_eq!(b(b""), Bound::Unbounded);
    }
}
