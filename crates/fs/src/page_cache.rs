//! A page cache for buffered reads, as ZenFS's buffered read path gets from the kernel: file
//! data cached in 4 KiB pages with LRU eviction, and Linux-style sequential readahead on a
//! miss (`mm/readahead.c`: `ondemand_readahead`, `get_init_ra_size`, `get_next_ra_size`).
//!
//! Pages are keyed by file id and page index within the file. File ids are never reused and
//! file data never changes once written (files only grow), so a page can go stale only by its
//! file growing past a partial last page (such a page is a miss unless it still ends the file)
//! or by the file going away: [`PageCache::invalidate_file`] on delete (and on a rename over
//! it). A zone reset frees only zones without live file data, so it leaves nothing cached for a
//! live file; migration by cleaning moves a file's bytes without changing them, and the layer
//! drops the file's pages then too, as the kernel drops a block device's cached pages when
//! their zone is reset.
//!
//! Readahead state is per file (Linux's `file_ra_state`): a miss at the start of a file, right
//! after the previous read, or larger than the readahead maximum starts an initial window
//! (`get_init_ra_size`: the request rounded up to a power of two, ×4 when small, ×2 when
//! medium, else the maximum); a miss where the previous window ended doubles the window up to
//! `readahead_kb`; any other miss reads just the pages asked for. Windows stop at the file's
//! end and at the first page already cached. Unlike the kernel, the reader waits for each
//! window (no asynchronous readahead of the next window at a marker page). Everything is
//! ordered maps: deterministic.

use std::collections::BTreeMap;

use zonedb_device::ElidedBytes;

/// Bytes in a page.
pub const PAGE_BYTES: u64 = 4 << 10;

/// Readahead state of one file (the last window and the last page read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct RaState {
    /// First page of the last window.
    start: u64,
    /// Pages in the last window (0: none yet).
    size: u64,
    /// Last page read (hit or miss), if any.
    prev: Option<u64>,
}

/// Hits, misses and device reads of a page cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PageCacheStats {
    /// Pages served from the cache.
    pub hits: u64,
    /// Pages read from the device because they were not cached (readahead pages included).
    pub pages_read: u64,
    /// Reads issued to the device (one per window).
    pub reads: u64,
    /// Pages evicted to make room.
    pub evictions: u64,
    /// Pages dropped by invalidation.
    pub invalidated: u64,
}

/// A cached page: its bytes as read, holes kept as holes ([`ElidedBytes`]), so a page of
/// elided payload costs a few words of memory, not 4 KiB (a dense read of it returns zeros
/// there, as the device's own dense read does).
#[derive(Debug)]
struct Page {
    data: ElidedBytes,
    stamp: u64,
}

/// An LRU cache of file pages with per-file readahead state.
#[derive(Debug)]
pub struct PageCache {
    capacity_pages: u64,
    max_ra_pages: u64,
    pages: BTreeMap<(u64, u64), Page>,
    lru: BTreeMap<u64, (u64, u64)>,
    ra: BTreeMap<u64, RaState>,
    tick: u64,
    stats: PageCacheStats,
}

/// Linux's initial window for a request of `req` pages with a maximum of `max` pages
/// (`get_init_ra_size`).
pub fn initial_window_pages(req: u64, max: u64) -> u64 {
    let size = req.max(1).next_power_of_two();
    if size <= max / 32 {
        size * 4
    } else if size <= max / 4 {
        size * 2
    } else {
        max
    }
}

/// The window after one of `cur` pages: doubled, at most `max` pages.
pub fn next_window_pages(cur: u64, max: u64) -> u64 {
    cur.saturating_mul(2).min(max).max(1)
}

impl PageCache {
    /// A cache of `capacity_bytes` (whole pages) whose readahead window grows to
    /// `readahead_kb` KiB (0: no readahead, misses read what is asked).
    pub fn new(capacity_bytes: u64, readahead_kb: u64) -> Self {
        Self {
            capacity_pages: capacity_bytes / PAGE_BYTES,
            max_ra_pages: readahead_kb * 1024 / PAGE_BYTES,
            pages: BTreeMap::new(),
            lru: BTreeMap::new(),
            ra: BTreeMap::new(),
            tick: 0,
            stats: PageCacheStats::default(),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> PageCacheStats {
        self.stats
    }

    /// Pages cached now.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Page `page` of `file` if cached with `len` bytes (a page's length is the file's bytes
    /// in it: a shorter cached last page of a file that grew is a miss). Counts a hit.
    pub fn get(&mut self, file: u64, page: u64, len: u64) -> Option<&ElidedBytes> {
        self.tick += 1;
        let tick = self.tick;
        let p = self.pages.get_mut(&(file, page))?;
        if p.data.len() != len {
            return None;
        }
        self.lru.remove(&p.stamp);
        p.stamp = tick;
        self.lru.insert(tick, (file, page));
        self.stats.hits += 1;
        self.ra.entry(file).or_default().prev = Some(page);
        Some(&p.data)
    }

    /// Whether page `page` of `file` is cached (whatever its length; no LRU touch).
    fn holds(&self, file: u64, page: u64) -> bool {
        self.pages.contains_key(&(file, page))
    }

    /// The pages `[first, end)` to read for a miss at page `first` of `file` when the reader
    /// wants `req` pages and the file has `file_pages` pages; records the window and counts
    /// one device read.
    pub fn miss_window(&mut self, file: u64, first: u64, req: u64, file_pages: u64) -> (u64, u64) {
        let max = self.max_ra_pages;
        let st = self.ra.get(&file).copied().unwrap_or_default();
        let req = req.max(1);
        let size = if max == 0 {
            req
        } else if st.size > 0 && first == st.start + st.size {
            // Sequential: the reader reached the end of the last window.
            next_window_pages(st.size, max).max(req.min(max))
        } else if first == 0 || req > max || st.prev.is_some_and(|p| first.abs_diff(p) <= 1) {
            initial_window_pages(req, max)
        } else {
            // A random read: just what is asked.
            req
        };
        let mut end = first
            .saturating_add(size.max(req))
            .min(file_pages.max(first + 1));
        // Stop at the first page already cached (the kernel reads only missing pages).
        if let Some(p) = (first + 1..end).find(|&p| self.holds(file, p)) {
            end = p;
        }
        self.ra.insert(
            file,
            RaState {
                start: first,
                size: end - first,
                prev: Some(first + req.min(end - first) - 1),
            },
        );
        self.stats.reads += 1;
        (first, end)
    }

    /// Caches `data` as page `page` of `file`, evicting the least recently used pages.
    pub fn insert(&mut self, file: u64, page: u64, data: ElidedBytes) {
        if self.capacity_pages == 0 {
            return;
        }
        self.tick += 1;
        self.stats.pages_read += 1;
        if let Some(old) = self.pages.insert(
            (file, page),
            Page {
                data,
                stamp: self.tick,
            },
        ) {
            self.lru.remove(&old.stamp);
        }
        self.lru.insert(self.tick, (file, page));
        while self.pages.len() as u64 > self.capacity_pages {
            let Some((_, key)) = self.lru.pop_first() else {
                break;
            };
            self.pages.remove(&key);
            self.stats.evictions += 1;
        }
    }

    /// Drops every page and the readahead state of `file` (deleted, or its data moved).
    pub fn invalidate_file(&mut self, file: u64) {
        let keys: Vec<(u64, u64)> = self
            .pages
            .range((file, 0)..=(file, u64::MAX))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            if let Some(p) = self.pages.remove(&k) {
                self.lru.remove(&p.stamp);
                self.stats.invalidated += 1;
            }
        }
        self.ra.remove(&file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(b: u8) -> ElidedBytes {
        ElidedBytes::from_vec(vec![b; PAGE_BYTES as usize])
    }

    #[test]
    fn windows_follow_linux_sizes() {
        // read_ahead_kb = 128: 32 pages.
        assert_eq!(initial_window_pages(1, 32), 4);
        assert_eq!(initial_window_pages(3, 32), 8);
        assert_eq!(initial_window_pages(8, 32), 16);
        assert_eq!(initial_window_pages(9, 32), 32);
        assert_eq!(next_window_pages(4, 32), 8);
        assert_eq!(next_window_pages(32, 32), 32);
    }

    #[test]
    fn sequential_misses_grow_the_window_up_to_the_maximum() {
        let mut c = PageCache::new(1 << 20, 128);
        let mut windows = Vec::new();
        let mut p = 0;
        while p < 200 {
            let (a, b) = c.miss_window(7, p, 1, 1000);
            assert_eq!(a, p);
            windows.push(b - a);
            for q in a..b {
                c.insert(7, q, page(1));
            }
            // The reader consumes the window page by page: all hits.
            for q in a..b {
                assert!(c.get(7, q, PAGE_BYTES).is_some());
            }
            p = b;
        }
        assert_eq!(&windows[..5], &[4, 8, 16, 32, 32]);
        assert_eq!(c.stats().reads, windows.len() as u64);
        assert_eq!(c.stats().hits, p);
    }

    #[test]
    fn a_random_miss_reads_only_what_is_asked_and_windows_stop_at_cached_pages() {
        let mut c = PageCache::new(1 << 20, 128);
        assert_eq!(c.miss_window(1, 0, 1, 100), (0, 4));
        assert_eq!(c.miss_window(1, 50, 2, 100), (50, 52));
        c.insert(1, 60, page(2));
        assert_eq!(c.miss_window(1, 58, 20, 100), (58, 60));
        // Clipped to the file.
        assert_eq!(c.miss_window(2, 0, 1, 2), (0, 2));
        // No readahead at all.
        let mut n = PageCache::new(1 << 20, 0);
        assert_eq!(n.miss_window(1, 0, 3, 100), (0, 3));
    }

    #[test]
    fn hits_misses_lru_eviction_and_short_last_pages() {
        let mut c = PageCache::new(2 * PAGE_BYTES, 128);
        c.insert(1, 0, page(1));
        c.insert(1, 1, page(2));
        assert_eq!(c.get(1, 0, PAGE_BYTES).map(|d| d.data()[0]), Some(1));
        c.insert(1, 2, page(3));
        // Page 1 was least recently used.
        assert!(c.get(1, 1, PAGE_BYTES).is_none());
        assert!(c.get(1, 0, PAGE_BYTES).is_some());
        assert_eq!(c.stats().evictions, 1);
        // A short last page is a miss once the file grew past it.
        c.insert(3, 0, ElidedBytes::from_vec(vec![9; 100]));
        assert!(c.get(3, 0, 100).is_some());
        assert!(c.get(3, 0, 200).is_none());
    }

    #[test]
    fn invalidation_drops_a_files_pages_only() {
        let mut c = PageCache::new(1 << 20, 128);
        for p in 0..4 {
            c.insert(1, p, page(1));
            c.insert(2, p, page(2));
        }
        c.invalidate_file(1);
        assert!((0..4).all(|p| c.get(1, p, PAGE_BYTES).is_none()));
        assert!((0..4).all(|p| c.get(2, p, PAGE_BYTES).is_some()));
        assert_eq!(c.stats().invalidated, 4);
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn a_page_of_holes_is_kept_as_holes() {
        let mut c = PageCache::new(1 << 20, 128);
        let mut p = ElidedBytes::new();
        p.push_bytes(&[5; 96]);
        p.push_hole(PAGE_BYTES - 96);
        c.insert(1, 0, p);
        let got = c.get(1, 0, PAGE_BYTES).expect("cached");
        assert_eq!(got.hole_bytes(), PAGE_BYTES - 96);
        assert_eq!(got.data(), &[5; 96][..]);
    }
}
