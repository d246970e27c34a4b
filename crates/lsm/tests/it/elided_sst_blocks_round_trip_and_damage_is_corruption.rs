//! SSTs with elided values: a table built with elided entries has exactly the layout of the
//! table built from the regenerated values (length, footer, properties' sizes, block cuts),
//! with compression none, Snappy and LZ4; it reads back (holes as holes or as zeros) to the
//! same entries; blocks whose compact form does not fit are written in full; damage to an
//! elided block, a WAL record or a stub is a typed error, never a panic or wrong data; and a
//! database without a regenerator refuses elided values with a typed error.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use zonedb_device::{ElidedBytes, IoClass};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::elided::{ValueRegenerator, encode_stub};
use zonedb_lsm::key::{ValueType, internal_key};
use zonedb_lsm::options::Compression;
use zonedb_lsm::sst::{BlockSource, Table, TableBuilder, TableIter, TableOptions};
use zonedb_lsm::{Db, DbConfig, LsmError};

/// A table's bytes with their holes: reads materialize, elided reads keep the holes.
struct Holey(ElidedBytes);

impl BlockSource for Holey {
    async fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>, LsmError> {
        Ok(self.0.slice(offset, len).materialize())
    }
    async fn read_elided(
        &self,
        offset: u64,
        len: u64,
        _class: IoClass,
    ) -> Result<ElidedBytes, LsmError> {
        Ok(self.0.slice(offset, len))
    }
    fn name(&self) -> &str {
        "holey.sst"
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    SimEnv::new(SimConfig::default()).run(f).unwrap()
}

/// Entries `(user key, seq, type, value or stub)`: elided values of many lengths (some
/// shorter than their stubs), plain values, tombstones, several versions of one key.
fn entries(tiny_only: bool) -> Vec<(Vec<u8>, u64, ValueType, Vec<u8>)> {
    let mut out = Vec::new();
    let mut seq = 100_000u64;
    for i in 0..600u64 {
        for v in 0..(1 + i % 3) {
            seq -= 1;
            let k = common::key(i);
            let kind = if tiny_only { 0 } else { (i * 7 + v) % 5 };
            let (t, val) = match kind {
                0..=2 => {
                    let len = if tiny_only || i % 11 == 0 {
                        i % 3
                    } else {
                        i * 13 % 900
                    };
                    let mut s = Vec::new();
                    encode_stub(len, &(i + v).to_le_bytes(), &mut s);
                    (ValueType::ElidedValue, s)
                }
                3 => (ValueType::Value, common::value(i, v)),
                _ => (ValueType::Deletion, Vec::new()),
            };
            out.push((k, seq + 1_000_000 * (2 - v), t, val));
        }
    }
    out
}

fn full(e: &(Vec<u8>, u64, ValueType, Vec<u8>)) -> (Vec<u8>, Vec<u8>) {
    let (k, seq, t, v) = e;
    if *t == ValueType::ElidedValue {
        let mut out = Vec::new();
        let (len, desc) = zonedb_lsm::elided::decode_stub(v).unwrap();
        assert!(common::TestRegen.regenerate(desc, len as usize, &mut out));
        (internal_key(k, *seq, ValueType::Value), out)
    } else {
        (internal_key(k, *seq, *t), v.clone())
    }
}

fn build(compression: Compression, tiny_only: bool) -> (ElidedBytes, Vec<u8>) {
    let opts = TableOptions {
        block_size: 1024,
        compression,
        ..TableOptions::default()
    };
    let es = entries(tiny_only);
    let mut a = TableBuilder::new(opts).with_regenerator(Some(Arc::new(common::TestRegen)));
    let mut b = TableBuilder::new(opts);
    let mut est = Vec::new();
    for e in &es {
        a.add(&internal_key(&e.0, e.1, e.2), &e.3);
        let (k, v) = full(e);
        b.add(&k, &v);
        est.push((a.estimated_file_size(), b.estimated_file_size()));
    }
    assert!(est.iter().all(|(x, y)| x == y), "estimated sizes differ");
    let built = a.finish_elided().unwrap();
    let (full_bytes, full_props) = b.finish();
    assert_eq!(built.bytes.len(), full_bytes.len() as u64);
    assert_eq!(built.props.data_size, full_props.data_size);
    assert_eq!(built.props.raw_value_size, full_props.raw_value_size);
    assert_eq!(built.props.num_data_blocks, full_props.num_data_blocks);
    assert_eq!(built.props.index_size, full_props.index_size);
    let m = built.bytes.materialize();
    assert_eq!(
        m[m.len() - 64..],
        full_bytes[full_bytes.len() - 64..],
        "footers differ"
    );
    (built.bytes, full_bytes)
}

/// Every entry of the table, elided values regenerated and typed `Value`.
/// A table's entries: (internal key, value).
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn read_all(src: Holey) -> Result<Entries, LsmError> {
    let size = src.0.len();
    block_on(async move {
        let t = Arc::new(Table::open(src, 1, size, None).await?);
        let mut it = TableIter::new(t);
        it.seek_to_first().await?;
        let mut out = Vec::new();
        while let Some((k, v)) = it.current() {
            let p = zonedb_lsm::key::parse(k).unwrap();
            out.push(full(&(
                p.user_key.to_vec(),
                p.seq,
                p.value_type,
                v.to_vec(),
            )));
            it.next().await?;
        }
        Ok(out)
    })
}

#[test]
fn elided_tables_have_the_full_tables_layout_and_entries() {
    for c in [Compression::None, Compression::Snappy, Compression::Lz4] {
        let (el, full_bytes) = build(c, false);
        assert!(
            el.hole_bytes() > el.len() / 4,
            "{c:?}: {} of {}",
            el.hole_bytes(),
            el.len()
        );
        let want = read_all(Holey(ElidedBytes::from_vec(full_bytes))).unwrap();
        assert_eq!(want.len(), entries(false).len());
        assert_eq!(
            read_all(Holey(el.clone())).unwrap(),
            want,
            "{c:?} with holes"
        );
        let zeros = ElidedBytes::from_vec(el.materialize());
        assert_eq!(read_all(Holey(zeros)).unwrap(), want, "{c:?} zero-filled");
    }
}

/// `format::verify_elided_range` (a merge computed ahead decodes blocks in place from its
/// snapshot) gives what verifying a copy of the same range gives: every block of tables with
/// and without compression, and ranges that are not blocks (shifted, cut short, past the
/// end) fail alike.
#[test]
fn blocks_decoded_in_place_equal_blocks_decoded_from_a_copy() {
    use zonedb_lsm::sst::format::{
        BlockHandle, FORMAT_VERSION, TRAILER_LEN, verify_elided_bytes, verify_elided_range,
    };
    for c in [Compression::None, Compression::Snappy, Compression::Lz4] {
        let (el, _) = build(c, false);
        let size = el.len();
        let t = block_on(Table::open(Holey(el.clone()), 1, size, None)).unwrap();
        let data_size = t.properties().data_size;
        let starts: Vec<u64> = (0..data_size)
            .filter(|&o| t.block_at(o).is_some())
            .collect();
        assert_eq!(starts.len(), t.num_blocks(), "{c:?}");
        let mut ok = 0;
        // Carried from range to range as a reader does: ascending ranges reuse it, the jump
        // back after the range past the end makes it stale (a fresh search).
        let mut hint = 0;
        for (i, &o) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(data_size);
            let real = end - o - TRAILER_LEN as u64;
            for (at, len) in [(o, real), (o + 1, real), (o, real / 2), (size - 3, real)] {
                let h = BlockHandle {
                    offset: at,
                    size: len,
                };
                let in_place = verify_elided_range("t", h, &el, at, FORMAT_VERSION, &mut hint);
                let copied = verify_elided_bytes(
                    "t",
                    h,
                    el.slice(at, len + TRAILER_LEN as u64),
                    FORMAT_VERSION,
                );
                match (in_place, copied) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{c:?} block {i} at {at}");
                        ok += 1;
                    }
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{c:?} at {at}"),
                    (a, b) => panic!("{c:?} at {at}: in place {a:?}, copied {b:?}"),
                }
            }
        }
        assert!(ok >= starts.len(), "{c:?}: {ok} blocks decoded");
    }
}

#[test]
fn blocks_whose_compact_form_does_not_fit_are_written_in_full() {
    for c in [Compression::None, Compression::Snappy] {
        let (el, full_bytes) = build(c, true);
        assert_eq!(el.hole_bytes(), 0, "{c:?}");
        assert_eq!(el.materialize(), full_bytes, "{c:?}: the full table itself");
    }
}

#[test]
fn damaged_elided_blocks_are_corruption_never_wrong_data() {
    let (el, full_bytes) = build(Compression::None, false);
    let want = read_all(Holey(ElidedBytes::from_vec(full_bytes))).unwrap();
    let m = el.materialize();
    // Every stored byte of the first elided block (compact block, meta, trailer).
    let hole = el.holes()[0];
    let next = el.holes().get(1).map_or(m.len() as u64, |h| h.at);
    let mut errors = 0;
    for at in (hole.at + hole.len..next).step_by(3) {
        let mut d = m.clone();
        d[at as usize] ^= 0x21;
        match read_all(Holey(ElidedBytes::from_vec(d))) {
            Err(LsmError::Corruption { .. }) => errors += 1,
            Err(e) => panic!("flip at {at}: not corruption: {e}"),
            Ok(got) => assert_eq!(got, want, "flip at {at} read as other data"),
        }
    }
    assert!(errors > 10, "{errors}");
    // The fuzz entry point on the elided table and random mutations of its stored bytes.
    zonedb_lsm::fuzz::sst_table(&m);
    let mut rng = zonedb_env::SimRng::seed_from_u64(0xe11d);
    for _ in 0..300 {
        let mut d = m.clone();
        for _ in 0..rng.gen_range(1..4) {
            let at = rng.gen_range(0..d.len() as u64) as usize;
            d[at] = rng.gen_range(0..256) as u8;
        }
        zonedb_lsm::fuzz::sst_table(&d);
    }
    // Flips in the hole change nothing (it is never read).
    let mut d = m.clone();
    d[(hole.at + 5) as usize] ^= 0xff;
    assert_eq!(read_all(Holey(ElidedBytes::from_vec(d))).unwrap(), want);
}

#[test]
fn damaged_elided_wal_records_and_stubs_are_typed_errors() {
    use zonedb_lsm::batch::WriteBatch;
    use zonedb_lsm::log_format::{LogWriter, RecoveryMode, read_log};
    let mut b = WriteBatch::new();
    b.put_elided(b"k", 5000, &7u64.to_le_bytes());
    b.put(b"j", b"v");
    let mut w = LogWriter::new();
    let mut log = ElidedBytes::new();
    assert!(w.add_elided_record(b.data(), b.logical_size_bytes(), &mut log));
    let m = log.materialize();
    assert_eq!(m.len(), b.logical_size_bytes() + 7);
    let ok = read_log("w", &m, RecoveryMode::AbsoluteConsistency).unwrap();
    assert_eq!(WriteBatch::from_data("w", &ok.records[0].1).unwrap(), b);
    for at in 0..log.data().len() {
        let mut d = m.clone();
        d[at] ^= 0x10;
        let r = read_log("w", &d, RecoveryMode::AbsoluteConsistency);
        assert!(
            matches!(r, Err(LsmError::Corruption { .. })),
            "flip at {at}: {r:?}"
        );
    }
    // A stub that does not decode is corruption, not a panic.
    let mut data = vec![0u8; 12];
    data[8] = 1;
    data.extend_from_slice(&[2, 1, b'k', 1, 0x80]);
    assert!(matches!(
        WriteBatch::from_data("w", &data),
        Err(LsmError::Corruption { .. })
    ));
    data[16] = 0x05;
    assert!(WriteBatch::from_data("w", &data).unwrap().has_elided());
}

#[test]
fn elided_values_without_a_regenerator_are_typed_errors() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 100);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        assert!(matches!(
            db.put_elided(b"k", 10, &[1; 8]).await,
            Err(LsmError::InvalidArgument(_))
        ));
        db.close().await.unwrap();
        let cfg =
            DbConfig::new(common::small_options()).with_regenerator(Arc::new(common::TestRegen));
        let db = Db::open_with(fs.clone(), cfg).await.unwrap();
        db.put_elided(b"k", 100, &3u64.to_le_bytes()).await.unwrap();
        db.put_elided(b"u", 100, &[1, 2]).await.unwrap();
        assert_eq!(
            db.get(b"k").await.unwrap(),
            Some(common::regen_value(3, 100))
        );
        // A descriptor the regenerator does not know.
        assert!(matches!(
            db.get(b"u").await,
            Err(LsmError::InvalidArgument(_))
        ));
        db.delete(b"u").await.unwrap();
        db.flush().await.unwrap();
        db.close().await.unwrap();
        // Reopened without a regenerator: elided values cannot be read, and say so.
        let db = Db::open(fs, common::small_options()).await.unwrap();
        assert!(matches!(
            db.get(b"k").await,
            Err(LsmError::InvalidArgument(_))
        ));
        let mut it = db.iter();
        assert!(matches!(
            it.seek_to_first().await,
            Err(LsmError::InvalidArgument(_))
        ));
    })
    .unwrap();
}
