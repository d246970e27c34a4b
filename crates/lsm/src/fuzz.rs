//! Decoder entry points for fuzzing (the cargo-fuzz targets in `fuzz/`) and the corpus replay
//! test: each takes arbitrary bytes and must return (an error is fine), never panic, hang or
//! allocate without bound. Formats: SST footer, block handles and properties, data and index
//! blocks, whole tables (footer → index → blocks → properties → filter), WAL and MANIFEST
//! records, write batches, version edits.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use crate::batch::WriteBatch;
use crate::log_format::{RecoveryMode, read_log};
use crate::sst::block::Block;
use crate::sst::format::{BlockHandle, FOOTER_LEN, Footer, Properties};
use crate::sst::reader::{MemSource, Table, TableIter};
use crate::version::edit::VersionEdit;

/// Polls a future that never waits (every read is from memory) to its end.
fn ready<F: Future>(f: F) -> Option<F::Output> {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// Decodes the last 64 bytes of `data` as a footer of a file of `data.len()` bytes.
pub fn sst_footer(data: &[u8]) {
    let at = data.len().saturating_sub(FOOTER_LEN);
    let _ = Footer::decode("fuzz.sst", &data[at..], data.len() as u64);
}

/// Decodes `data` as a block handle and as a properties block.
pub fn sst_properties(data: &[u8]) {
    let _ = BlockHandle::decode(data);
    if let Some(p) = Properties::decode(data) {
        let again = Properties::decode(&p.encode());
        assert_eq!(again.as_ref(), Some(&p), "properties must round-trip");
    }
}

/// Parses `data` as a data or index block: every entry, and seeks to a few targets.
pub fn sst_block(data: &[u8]) {
    let Some(b) = Block::new(data) else {
        return;
    };
    let _ = b.entries();
    let mut keys = Vec::new();
    let mut out = Vec::new();
    let _ = b.decode_into(&mut keys, &mut out);
    for target in [
        &b""[..],
        b"k",
        &data[..data.len().min(9)],
        b"\xff\xff\xff\xff",
    ] {
        let _ = b.seek(target, <[u8]>::cmp);
    }
}

/// Opens `data` as a whole table and reads it: every entry in order, and point lookups.
pub fn sst_table(data: &[u8]) {
    let src = MemSource(Arc::new(data.to_vec()), "fuzz.sst".into());
    let Some(Ok(table)) = ready(Table::open(src, 1, data.len() as u64, None)) else {
        return;
    };
    let _ = table.properties();
    let table = Arc::new(table);
    let mut it = TableIter::new(table.clone());
    let mut keys: Vec<Vec<u8>> = Vec::new();
    if let Some(Ok(())) = ready(it.seek_to_first()) {
        // Bounded: a table of n bytes cannot hold more than n entries.
        for _ in 0..=data.len() {
            let Some((k, _)) = it.current() else { break };
            if keys.len() < 16 {
                keys.push(k.to_vec());
            }
            match ready(it.next()) {
                Some(Ok(())) => {}
                _ => break,
            }
        }
    }
    for k in &keys {
        let _ = table.filter_excludes(k);
        let _ = ready(table.get(k));
        let _ = ready(it.seek(k));
    }
}

/// Reads `data` as a log (WAL or MANIFEST) in every recovery mode, then decodes each record
/// as a write batch and as a version edit.
pub fn log_records(data: &[u8]) {
    for mode in [
        RecoveryMode::TolerateCorruptedTailRecords,
        RecoveryMode::AbsoluteConsistency,
        RecoveryMode::PointInTimeRecovery,
        RecoveryMode::SkipAnyCorruptedRecords,
    ] {
        if let Ok(contents) = read_log("fuzz.log", data, mode) {
            for (_, r) in &contents.records {
                write_batch(r);
                version_edit(r);
            }
        }
    }
}

/// Decodes `data` as a write batch and walks its operations.
pub fn write_batch(data: &[u8]) {
    if let Ok(b) = WriteBatch::from_data("fuzz.log", data) {
        for op in b.ops() {
            let _ = op.map(|o| (o.key.len(), o.value.len()));
        }
        let _ = (b.count(), b.sequence());
    }
}

/// Decodes `data` as a version edit; one that decodes must encode and decode back to itself.
///
/// # Panics
/// When a decoded edit does not survive a round trip (a decoder bug).
pub fn version_edit(data: &[u8]) {
    if let Ok(e) = VersionEdit::decode(data) {
        let again = VersionEdit::decode(&e.encode());
        assert_eq!(
            again.ok().as_ref(),
            Some(&e),
            "a version edit must round-trip"
        );
    }
}
