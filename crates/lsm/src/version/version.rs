//! A `Version`: the SSTs of every level at one point in time. Versions are immutable and
//! shared (`Arc`); readers keep the version they started with, so files it names stay on the
//! device until the last reader lets go (see [`LiveFile`]).

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, PoisonError};

use super::edit::VersionEdit;
use super::file_meta::FileMeta;
use crate::LsmError;
use crate::key;

/// Files removed from the tree ([`Graveyard`]): the numbers of those no version uses any
/// more, waiting to be deleted, and a gauge of those some older version still holds.
#[derive(Debug, Default)]
pub struct Obsolete {
    dead: Mutex<Vec<u64>>,
    pinned_files: AtomicU64,
    pinned_bytes: AtomicU64,
}

impl Obsolete {
    /// Takes the numbers of the files no version uses any more.
    pub fn take_dead(&self) -> Vec<u64> {
        std::mem::take(&mut *self.dead.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Files no version uses any more and not deleted yet (the next job's end deletes them).
    pub fn dead_files(&self) -> u64 {
        self.dead
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len() as u64
    }

    /// Files out of the tree that an older version still holds (a running compaction's or
    /// an iterator's), and their bytes: RocksDB's `rocksdb.obsolete-sst-files-size`.
    pub fn pinned(&self) -> (u64, u64) {
        (
            self.pinned_files.load(AtomicOrdering::Relaxed),
            self.pinned_bytes.load(AtomicOrdering::Relaxed),
        )
    }
}

/// The files removed from a tree, shared by its versions' files.
pub type Graveyard = Arc<Obsolete>;

/// An SST known to the tree. When a compaction removes it from the current version it is
/// marked obsolete; its number goes to the graveyard when the last version holding it drops.
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
            self.graveyard
                .pinned_files
                .fetch_add(1, AtomicOrdering::Relaxed);
            self.graveyard
                .pinned_bytes
                .fetch_add(self.meta.file_size, AtomicOrdering::Relaxed);
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
            g.dead
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(self.meta.number);
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
