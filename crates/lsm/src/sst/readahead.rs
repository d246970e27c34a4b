//! Compaction readahead: a table's data blocks read through one buffer filled by large
//! sequential reads, as RocksDB's `FilePrefetchBuffer` serves compaction input iterators when
//! `compaction_readahead_size` is set (RocksDB 7.4 `file/file_prefetch_buffer.cc`:
//! `FilePrefetchBuffer::TryReadFromCache` with `for_compaction`, which prefetches
//! `max(n, readahead_size)` bytes from the requested offset, aligned).
//!
//! A read the buffer holds costs nothing; any other read replaces the buffer with
//! [`readahead_window`]: from the request's offset rounded down to the alignment, at least
//! `size_bytes` (rounded up to the alignment), clipped to the end of the table's data. The
//! source gets that as one request, so a device serves it through its parallelism.

use zonedb_device::{ElidedBytes, IoClass};

use super::reader::BlockSource;
use crate::{CorruptionKind, LsmError};

/// Alignment of readahead windows (a device block, as RocksDB aligns prefetches for direct
/// I/O).
pub const READAHEAD_ALIGN_BYTES: u64 = 4 << 10;

/// The bytes `[start, end)` a readahead of `size_bytes` reads to serve `len` bytes at
/// `offset` of a file whose data ends at `data_end_bytes`: from `offset` aligned down to
/// `align_bytes`, `size_bytes` or the request (whichever ends later) rounded up to the
/// alignment, clipped to the data end but never short of the request.
pub fn readahead_window(
    offset: u64,
    len: u64,
    size_bytes: u64,
    align_bytes: u64,
    data_end_bytes: u64,
) -> (u64, u64) {
    let align = align_bytes.max(1);
    let start = offset / align * align;
    let want = (offset + len).max(start.saturating_add(size_bytes));
    let end = want
        .div_ceil(align)
        .saturating_mul(align)
        .min(data_end_bytes)
        .max(offset + len);
    (start, end)
}

/// One table's readahead buffer (one per compaction input iterator).
#[derive(Debug, Clone, Default)]
pub struct ReadaheadBuffer {
    size_bytes: u64,
    offset: u64,
    /// The window last read, holes kept as holes (`BlockSource::read_elided`; empty after
    /// [`ReadaheadBuffer::touch`], which keeps no bytes).
    data: ElidedBytes,
    /// Length of the window last read.
    window: u64,
    reads: u64,
}

impl ReadaheadBuffer {
    /// A buffer that reads `size_bytes` at a time (0: every read goes to the source as asked).
    pub fn new(size_bytes: u64) -> Self {
        Self {
            size_bytes,
            ..Self::default()
        }
    }

    /// Reads issued to the source so far.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// `len` bytes at `offset` of `src`, whose data ends at `data_end_bytes`: from the buffer
    /// when it holds them, else by one readahead read on behalf of `class`.
    ///
    /// # Errors
    /// Read errors of the source; [`LsmError::Corruption`] when the source returns fewer
    /// bytes than the request needs.
    pub async fn read<S: BlockSource>(
        &mut self,
        src: &S,
        offset: u64,
        len: u64,
        data_end_bytes: u64,
        class: IoClass,
    ) -> Result<ElidedBytes, LsmError> {
        if self.size_bytes == 0 {
            self.reads += 1;
            return src.read_elided(offset, len, class).await;
        }
        if let Some(b) = self.held(offset, len) {
            return Ok(b);
        }
        let (start, end) = self.next_window(offset, len, data_end_bytes);
        self.data = src.read_elided(start, end - start, class).await?;
        (self.offset, self.window) = (start, self.data.len());
        self.held(offset, len).ok_or_else(|| {
            LsmError::corrupt(
                CorruptionKind::Truncated,
                src.name(),
                offset,
                "short readahead read",
            )
        })
    }

    /// The I/O of [`ReadaheadBuffer::read`] without taking the bytes out of the buffer.
    ///
    /// # Errors
    /// As [`ReadaheadBuffer::read`].
    pub async fn touch<S: BlockSource>(
        &mut self,
        src: &S,
        offset: u64,
        len: u64,
        data_end_bytes: u64,
        class: IoClass,
    ) -> Result<(), LsmError> {
        if self.size_bytes == 0 {
            self.reads += 1;
            return src.read_discard(offset, len, class).await;
        }
        if self.holds(offset, len) {
            return Ok(());
        }
        let (start, end) = self.next_window(offset, len, data_end_bytes);
        src.read_discard(start, end - start, class).await?;
        // The window is known to be there; its bytes are not kept.
        self.data = ElidedBytes::new();
        (self.offset, self.window) = (start, end - start);
        Ok(())
    }

    /// The window a miss of `len` bytes at `offset` reads (counted as a read).
    fn next_window(&mut self, offset: u64, len: u64, data_end_bytes: u64) -> (u64, u64) {
        self.reads += 1;
        readahead_window(
            offset,
            len,
            self.size_bytes,
            READAHEAD_ALIGN_BYTES,
            data_end_bytes,
        )
    }

    /// Whether the last window covers all of `[offset, offset + len)`.
    fn holds(&self, offset: u64, len: u64) -> bool {
        offset
            .checked_sub(self.offset)
            .and_then(|from| from.checked_add(len))
            .is_some_and(|to| to <= self.window)
    }

    /// The buffered bytes `[offset, offset + len)`, if the buffer holds all of them.
    fn held(&self, offset: u64, len: u64) -> Option<ElidedBytes> {
        let from = offset.checked_sub(self.offset)?;
        let to = from.checked_add(len)?;
        (to <= self.data.len()).then(|| self.data.slice(from, len))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use proptest::prelude::*;

    use super::*;
    use crate::sst::MemSource;

    /// A source counting its reads.
    struct Counting(MemSource, AtomicU64);

    impl BlockSource for Counting {
        async fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>, LsmError> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.read(offset, len).await
        }
        fn name(&self) -> &str {
            self.0.name()
        }
    }

    fn source(size: usize) -> Counting {
        let bytes: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        Counting(MemSource(Arc::new(bytes), "t".into()), AtomicU64::new(0))
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        zonedb_env::SimEnv::new(zonedb_env::SimConfig::default())
            .run(f)
            .unwrap()
    }

    #[test]
    fn windows_are_aligned_and_clipped_to_the_data() {
        assert_eq!(
            readahead_window(5000, 100, 8192, 4096, 1 << 20),
            (4096, 12288)
        );
        // Clipped to the data end.
        assert_eq!(readahead_window(5000, 100, 8192, 4096, 9000), (4096, 9000));
        // Never short of the request, even past the data end or above the readahead size.
        assert_eq!(readahead_window(5000, 100, 8192, 4096, 5050), (4096, 5100));
        assert_eq!(readahead_window(0, 20000, 8192, 4096, 1 << 20), (0, 20480));
    }

    #[test]
    fn sequential_blocks_are_served_by_one_read_per_window() {
        let src = source(100_000);
        let mut ra = ReadaheadBuffer::new(32 << 10);
        let mut off = 0;
        while off < 100_000 {
            let len = 4000.min(100_000 - off);
            let got = block_on(ra.read(&src, off, len, 100_000, IoClass::BackgroundRead)).unwrap();
            assert_eq!(
                got.materialize(),
                src.0.0[off as usize..(off + len) as usize]
            );
            off += len;
        }
        // 100,000 bytes in 32 KiB windows, plus the blocks straddling a window's end.
        assert!(ra.reads() <= 8, "{} reads", ra.reads());
        assert_eq!(src.1.load(Ordering::Relaxed), ra.reads());
        let mut off_ra = ReadaheadBuffer::new(0);
        block_on(off_ra.read(&src, 0, 10, 100_000, IoClass::BackgroundRead)).unwrap();
        block_on(off_ra.read(&src, 10, 10, 100_000, IoClass::BackgroundRead)).unwrap();
        assert_eq!(off_ra.reads(), 2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Reads through the buffer return the bytes unbuffered reads return, for any file
        /// size, readahead size and sequence of (mostly sequential) block reads, including
        /// blocks straddling the buffer's end and the data end.
        #[test]
        fn buffered_reads_equal_unbuffered_reads(
            size in 1usize..60_000,
            data_end_cut in 0usize..5_000,
            ra_size in prop::sample::select(vec![0u64, 1, 4096, 5000, 16384, 65536]),
            blocks in prop::collection::vec((1u64..9000, any::<bool>(), 0u64..60_000), 1..40),
        ) {
            let src = source(size);
            let size = size as u64;
            let data_end = size.saturating_sub(data_end_cut as u64).max(1);
            let mut ra = ReadaheadBuffer::new(ra_size);
            let mut pos = 0u64;
            for (len, jump, to) in blocks {
                if jump {
                    pos = to % size;
                }
                let len = len.min(size - pos);
                if len == 0 {
                    pos = 0;
                    continue;
                }
                let got = block_on(ra.read(&src, pos, len, data_end, IoClass::BackgroundRead))
                    .unwrap();
                let want = block_on(src.0.read(pos, len)).unwrap();
                prop_assert_eq!(got.materialize(), want);
                pos += len;
            }
        }
    }
}
