//! A `Version`: the SSTs of every level at one point in time. Versions are immutable and
//! shared (`Arc`); readers keep the version they started with, so files it names stay on the
//! device until the last reader lets go (see [`LiveFile`]), and no longer (see [`Obsolete`]).

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::edit::VersionEdit;
use super::file_meta::FileMeta;
use crate::LsmError;
use crate::key;

/// What the engine does when a file becomes deletable and no job is about to purge: start a
/// purge ([`Obsolete::attach`]).
pub type OnDead = Box<dyn Fn() + Send + Sync>;

/// The engine's clock, ns ([`Obsolete::attach`]).
pub type Clock = Box<dyn Fn() -> u64 + Send + Sync>;

/// A file no version holds, waiting to be deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dead {
    /// Its number.
    pub number: u64,
    /// Its bytes.
    pub bytes: u64,
    /// When the last version holding it went (the engine's clock, ns; 0 before the engine
    /// attached it).
    pub since_ns: u64,
}

/// How long files stayed on the device once no version held them ([`Obsolete::waits`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeletionWaits {
    /// Files deleted.
    pub files: u64,
    /// The longest wait, ns.
    pub max_ns: u64,
    /// Bytes times wait, summed over the files, in byte-milliseconds: divided by a run's
    /// length in ms, the mean bytes deletable and not deleted over it.
    pub byte_ms: u64,
}

/// Files removed from the tree ([`Graveyard`]): those no version uses any more, waiting to be
/// deleted, and a gauge of those some older version still holds.
///
/// A file becomes deletable when the last version holding it drops, wherever that happens
/// (a finished job releasing its input version, an iterator or a lookup letting go of an
/// old version). Then, unless a job holds the purge ([`Obsolete::hold_purge`]: it is
/// installing and deletes what it made obsolete itself, as RocksDB's jobs purge at their
/// end), the engine is told at once ([`Obsolete::attach`]) and starts a purge, as
/// RocksDB purges when the last reference to a version drops; so a file stays on the device
/// only while a version holds it.
#[derive(Default)]
pub struct Obsolete {
    /// Deletable files not taken by a purge yet.
    dead: Mutex<Vec<Dead>>,
    pinned_files: AtomicU64,
    pinned_bytes: AtomicU64,
    /// Files no version uses and not deleted yet (waiting or being deleted), and their bytes.
    deletable_files: AtomicU64,
    deletable_bytes: AtomicU64,
    /// The most `pinned_bytes`, `deletable_files` and `deletable_bytes` have been.
    peak_pinned_bytes: AtomicU64,
    peak_deletable_files: AtomicU64,
    peak_deletable_bytes: AtomicU64,
    /// Jobs between their install and their own purge ([`PurgeHold`]).
    holds: AtomicU32,
    /// A purge is queued and has not taken the deletable files yet.
    queued: AtomicBool,
    /// How long deleted files waited.
    waits: Mutex<DeletionWaits>,
    engine: OnceLock<(OnDead, Clock)>,
}

impl std::fmt::Debug for Obsolete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Obsolete")
            .field("pinned", &self.pinned())
            .field("deletable", &self.deletable())
            .field("holds", &self.holds.load(AtomicOrdering::Relaxed))
            .field("queued", &self.queued.load(AtomicOrdering::Relaxed))
            .field("waits", &self.waits())
            .finish_non_exhaustive()
    }
}

impl Obsolete {
    /// Takes the deletable files for a purge to delete (each reported with
    /// [`Obsolete::deleted`] once gone). A purge that was queued has started.
    pub fn take_dead(&self) -> Vec<Dead> {
        self.queued.store(false, AtomicOrdering::SeqCst);
        std::mem::take(&mut *lock(&self.dead))
    }

    /// A file taken by [`Obsolete::take_dead`] is off the device.
    pub fn deleted(&self, file: &Dead) {
        self.forget(file);
        if let Some((_, now)) = self.engine.get() {
            let wait = now().saturating_sub(file.since_ns);
            let mut w = lock(&self.waits);
            w.files += 1;
            w.max_ns = w.max_ns.max(wait);
            w.byte_ms = w
                .byte_ms
                .saturating_add(file.bytes.saturating_mul(wait / 1_000_000));
        }
    }

    /// Gives back files taken by [`Obsolete::take_dead`] that a purge could not delete; the
    /// next purge tries them again.
    pub fn untake(&self, files: impl IntoIterator<Item = Dead>) {
        lock(&self.dead).extend(files);
    }

    /// Forgets the deletable files without deleting them (recovery: files the replayed
    /// edits dropped are long gone, or orphans the open removes), and starts the peaks over.
    pub fn forget_dead(&self) {
        let dead = std::mem::take(&mut *lock(&self.dead));
        for f in &dead {
            self.forget(f);
        }
        let pinned = self.pinned_bytes.load(AtomicOrdering::Relaxed);
        self.peak_pinned_bytes
            .store(pinned, AtomicOrdering::Relaxed);
        self.peak_deletable_files.store(0, AtomicOrdering::Relaxed);
        self.peak_deletable_bytes.store(0, AtomicOrdering::Relaxed);
    }

    /// Files no version uses any more and not deleted yet (waiting for a purge or being
    /// deleted), and their bytes.
    pub fn deletable(&self) -> (u64, u64) {
        (
            self.deletable_files.load(AtomicOrdering::Relaxed),
            self.deletable_bytes.load(AtomicOrdering::Relaxed),
        )
    }

    /// Files out of the tree that an older version still holds (a running compaction's or
    /// an iterator's), and their bytes: RocksDB's `rocksdb.obsolete-sst-files-size`.
    pub fn pinned(&self) -> (u64, u64) {
        (
            self.pinned_files.load(AtomicOrdering::Relaxed),
            self.pinned_bytes.load(AtomicOrdering::Relaxed),
        )
    }

    /// The most bytes [`Obsolete::pinned`] has counted, and the most files and bytes
    /// [`Obsolete::deletable`] has counted (each at its own moment).
    pub fn peaks(&self) -> (u64, (u64, u64)) {
        (
            self.peak_pinned_bytes.load(AtomicOrdering::Relaxed),
            (
                self.peak_deletable_files.load(AtomicOrdering::Relaxed),
                self.peak_deletable_bytes.load(AtomicOrdering::Relaxed),
            ),
        )
    }

    /// How long the files deleted so far stayed on the device once no version held them
    /// (from when the engine attached its clock).
    pub fn waits(&self) -> DeletionWaits {
        *lock(&self.waits)
    }

    /// Attaches the engine (once, when it opens; before that nothing is called): `on_dead`
    /// is called when a file becomes deletable with no purge queued and no job holding the
    /// purge, `now` times how long files wait.
    pub fn attach(&self, on_dead: OnDead, now: Clock) {
        // Once per graveyard: a second call keeps the first.
        let _ = self.engine.set((on_dead, now));
    }

    /// Whether a purge is queued that has not taken the deletable files yet.
    pub fn purge_pending(&self) -> bool {
        self.queued.load(AtomicOrdering::SeqCst)
    }

    /// A queued purge gives up without taking the deletable files (the store is closing,
    /// and the close deletes them).
    pub fn purge_skipped(&self) {
        self.queued.store(false, AtomicOrdering::SeqCst);
    }

    /// A purge job is queued: files that become deletable before it takes them wait for it
    /// (no other purge is started for them).
    pub fn purge_queued(&self) {
        self.queued.store(true, AtomicOrdering::SeqCst);
    }

    /// Holds the purge for a job that deletes what it makes obsolete itself: files that
    /// become deletable meanwhile wait for the job's own purge. When the last hold goes and
    /// deletable files are left, a purge is started.
    pub fn hold_purge(self: &Arc<Self>) -> PurgeHold {
        self.holds.fetch_add(1, AtomicOrdering::SeqCst);
        PurgeHold(self.clone())
    }

    /// A file no longer counted deletable.
    fn forget(&self, file: &Dead) {
        self.deletable_files.fetch_sub(1, AtomicOrdering::Relaxed);
        self.deletable_bytes
            .fetch_sub(file.bytes, AtomicOrdering::Relaxed);
    }

    /// A file of `bytes` is deletable.
    fn bury(&self, number: u64, bytes: u64) {
        let since_ns = self.engine.get().map_or(0, |(_, now)| now());
        lock(&self.dead).push(Dead {
            number,
            bytes,
            since_ns,
        });
        let files = self.deletable_files.fetch_add(1, AtomicOrdering::Relaxed) + 1;
        let total = self
            .deletable_bytes
            .fetch_add(bytes, AtomicOrdering::Relaxed)
            + bytes;
        self.peak_deletable_files
            .fetch_max(files, AtomicOrdering::Relaxed);
        self.peak_deletable_bytes
            .fetch_max(total, AtomicOrdering::Relaxed);
        if self.holds.load(AtomicOrdering::SeqCst) == 0 {
            self.announce();
        }
    }

    /// Tells the engine that deletable files wait, unless a purge is queued already.
    fn announce(&self) {
        if let Some((on_dead, _)) = self.engine.get()
            && !self.queued.swap(true, AtomicOrdering::SeqCst)
        {
            on_dead();
        }
    }
}

/// A job's hold on the purge ([`Obsolete::hold_purge`]), released when dropped.
#[derive(Debug)]
pub struct PurgeHold(Graveyard);

impl Drop for PurgeHold {
    fn drop(&mut self) {
        let g = &self.0;
        if g.holds.fetch_sub(1, AtomicOrdering::SeqCst) == 1 && !lock(&g.dead).is_empty() {
            g.announce();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The files removed from a tree, shared by its versions' files.
pub type Graveyard = Arc<Obsolete>;

/// An SST known to the tree. When a compaction removes it from the current version it is
/// marked obsolete; it becomes deletable when the last version holding it drops.
#[derive(Debug)]
pub struct LiveFile {
    /// The file's metadata.
    pub meta: FileMeta,
    obsolete: AtomicBool,
    graveyard: Graveyard,
}

impl LiveFile {
    /// Wraps a file's metadata.
    pub fn new(meta: FileMeta, graveyard: Graveyard) -> Arc<Self> {
        Arc::new(Self {
            meta,
            obsolete: AtomicBool::new(false),
            graveyard,
        })
    }

    /// Marks the file as no longer part of the tree.
    pub fn mark_obsolete(&self) {
        if !self.obsolete.swap(true, AtomicOrdering::AcqRel) {
            let g = &self.graveyard;
            g.pinned_files.fetch_add(1, AtomicOrdering::Relaxed);
            let pinned = g
                .pinned_bytes
                .fetch_add(self.meta.file_size, AtomicOrdering::Relaxed)
                + self.meta.file_size;
            g.peak_pinned_bytes
                .fetch_max(pinned, AtomicOrdering::Relaxed);
        }
    }

    /// Smallest user key.
    pub fn smallest_user_key(&self) -> &[u8] {
        self.meta.smallest_user_key()
    }

    /// Largest user key.
    pub fn largest_user_key(&self) -> &[u8] {
        self.meta.largest_user_key()
    }
}

impl Drop for LiveFile {
    fn drop(&mut self) {
        if self.obsolete.load(AtomicOrdering::Acquire) {
            let g = &self.graveyard;
            g.pinned_files.fetch_sub(1, AtomicOrdering::Relaxed);
            g.pinned_bytes
                .fetch_sub(self.meta.file_size, AtomicOrdering::Relaxed);
            g.bury(self.meta.number, self.meta.file_size);
        }
    }
}

/// The files of each level. L0 is ordered newest first (largest sequence descending); deeper
/// levels by smallest key, without overlap.
#[derive(Debug, Clone, Default)]
pub struct Version {
    /// Files per level.
    pub levels: Vec<Vec<Arc<LiveFile>>>,
}

fn l0_order(a: &Arc<LiveFile>, b: &Arc<LiveFile>) -> Ordering {
    b.meta
        .largest_seq
        .cmp(&a.meta.largest_seq)
        .then(b.meta.number.cmp(&a.meta.number))
}

impl Version {
    /// An empty tree of `num_levels` levels.
    pub fn new(num_levels: usize) -> Self {
        Self {
            levels: vec![Vec::new(); num_levels],
        }
    }

    /// The version after `edit`. Deleted files are marked obsolete.
    ///
    /// # Errors
    /// [`LsmError::Corruption`] when the edit names a level that does not exist, deletes a file
    /// that is not there, or leaves overlapping files in a level below L0.
    pub fn apply(&self, edit: &VersionEdit, graveyard: &Graveyard) -> Result<Self, LsmError> {
        let bad = |w: String| LsmError::corruption("MANIFEST", 0, w);
        let mut levels = self.levels.clone();
        let moved: Vec<u64> = edit.new_files.iter().map(|(_, f)| f.number).collect();
        for &(level, number) in &edit.deleted_files {
            let l = levels
                .get_mut(level as usize)
                .ok_or_else(|| bad(format!("edit deletes from level {level}")))?;
            let i = l
                .iter()
                .position(|f| f.meta.number == number)
                .ok_or_else(|| bad(format!("edit deletes missing file {number} at L{level}")))?;
            let f = l.remove(i);
            if !moved.contains(&number) {
                f.mark_obsolete();
            }
        }
        for (level, nf) in &edit.new_files {
            let l = levels
                .get_mut(*level as usize)
                .ok_or_else(|| bad(format!("edit adds to level {level}")))?;
            // A trivial move re-adds a file that was deleted from another level: keep its
            // identity so it is not deleted from the device.
            let existing = self
                .levels
                .iter()
                .flatten()
                .find(|f| f.meta.number == nf.number)
                .filter(|_| edit.deleted_files.iter().any(|&(_, n)| n == nf.number));
            let f = match existing {
                Some(f) => f.clone(),
                None => LiveFile::new(nf.clone(), graveyard.clone()),
            };
            l.push(f);
        }
        for (i, l) in levels.iter_mut().enumerate() {
            if i == 0 {
                l.sort_by(l0_order);
            } else {
                l.sort_by(|a, b| key::compare(&a.meta.smallest, &b.meta.smallest));
                for w in l.windows(2) {
                    if w[0].largest_user_key() >= w[1].smallest_user_key() {
                        return Err(bad(format!(
                            "files {} and {} overlap in L{i}",
                            w[0].meta.number, w[1].meta.number
                        )));
                    }
                }
            }
        }
        Ok(Self { levels })
    }

    /// Every file of every level, as (level, file).
    pub fn all_files(&self) -> impl Iterator<Item = (u32, &Arc<LiveFile>)> {
        self.levels
            .iter()
            .enumerate()
            .flat_map(|(l, fs)| fs.iter().map(move |f| (l as u32, f)))
    }

    /// Bytes in `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels
            .get(level)
            .map_or(0, |l| l.iter().map(|f| f.meta.file_size).sum())
    }

    /// Files of `level` whose user-key range contains `user_key`, in search order (L0 newest
    /// first; at most one below L0).
    pub fn files_for_key(&self, level: usize, user_key: &[u8]) -> Vec<Arc<LiveFile>> {
        let Some(files) = self.levels.get(level) else {
            return Vec::new();
        };
        if level == 0 {
            return files
                .iter()
                .filter(|f| f.smallest_user_key() <= user_key && user_key <= f.largest_user_key())
                .cloned()
                .collect();
        }
        let i = files.partition_point(|f| f.largest_user_key() < user_key);
        files
            .get(i)
            .filter(|f| f.smallest_user_key() <= user_key)
            .cloned()
            .into_iter()
            .collect()
    }

    /// An edit that recreates this version from nothing (the first record of a new MANIFEST).
    pub fn snapshot_edit(&self) -> VersionEdit {
        VersionEdit {
            new_files: self.all_files().map(|(l, f)| (l, f.meta.clone())).collect(),
            ..VersionEdit::default()
        }
    }
}
