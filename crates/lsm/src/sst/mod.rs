//! Sorted string tables.
//!
//! - [`format`](mod@format) — varints, block handles, block trailers (compression + masked CRC32C),
//!   properties, footer.
//! - [`block`] — data/index blocks with prefix compression and restart points.
//! - [`bloom`] — the whole-table Bloom filter over user keys.
//! - [`builder`] — `TableBuilder`.
//! - [`reader`] — `Table` (open, get) and `TableIter` over a [`reader::BlockSource`].
//! - [`readahead`] — compaction readahead (`compaction_readahead_size`): large sequential reads
//!   through one buffer per input iterator.
//!
//! File layout: `data block* | filter block | index block | properties block | footer (64 B)`.

pub mod block;
pub mod bloom;
pub mod builder;
pub mod format;
pub mod readahead;
pub mod reader;

pub use builder::{BuiltTable, TableBuilder, TableOptions};
pub use format::Properties;
pub use readahead::ReadaheadBuffer;
pub use reader::{BlockSource, MemSource, Table, TableIter};
