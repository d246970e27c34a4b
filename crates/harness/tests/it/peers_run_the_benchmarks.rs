//! The peer stores (fjall with feature `fjall`; RocksDB through the `rocksdb` crate with
//! feature `rocksdb`) in the same harness: db_bench's fill, read, seek and scan benchmarks run
//! on each with every read verified against the last acknowledged write, then
//! `waitforcompaction`; and YCSB's load and run phases through the same `KvStore` trait. Run with `cargo test -p zonedb-harness --features fjall` and, for
//! RocksDB, `ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu ROCKSDB_INCLUDE_DIR=/usr/include cargo
//! test -p zonedb-harness --features rocksdb` (see `rocksdb_peer` for the build).
#![cfg(any(feature = "fjall", feature = "rocksdb"))]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_env::RealEnv;
use zonedb_harness::benchmark::Benchmark;
use zonedb_harness::db_bench::{self, BenchConfig};
use zonedb_harness::kv::KvStore;
use zonedb_harness::verify::ValueLedger;
use zonedb_harness::ycsb::runner::run_phase;
use zonedb_harness::ycsb::workload::{CoreWorkload, parse_properties};

/// YCSB's load phase, then a read/update run phase, on `store`: every read finds its record.
fn runs_ycsb_load_and_run_phases<S: KvStore>(store: &S) {
    let env = RealEnv::new(1);
    let w = CoreWorkload::from_properties(&parse_properties(
        "recordcount=2000\noperationcount=2000\nreadproportion=0.5\nupdateproportion=0.5\n\
         threadcount=2\nrequestdistribution=zipfian\n",
    ))
    .unwrap();
    let load = env.block_on(run_phase(&env, store, &w, 1, true)).unwrap();
    assert_eq!(load.operations, 2000);
    assert_eq!(load.ops["INSERT"].ok, 2000);
    let run = env.block_on(run_phase(&env, store, &w, 1, false)).unwrap();
    assert_eq!(run.operations, 2000);
    let read = &run.ops["READ"];
    assert!(read.ok > 0 && read.not_found == 0, "{read:?}");
    assert!(run.ops["UPDATE"].ok > 0);
}

/// Runs the benchmarks on `store` with every read verified.
fn runs_db_bench_workloads_with_verified_reads<S: KvStore>(store: &S) {
    let env = RealEnv::new(1);
    let ledger = Arc::new(ValueLedger::new());
    let cfg = BenchConfig {
        num: 5000,
        value_size: 200,
        threads: 2,
        seed: 1,
        verify: Some(ledger.clone()),
        ..BenchConfig::default()
    };
    env.block_on(ledger.reset(true));
    let mut threads = 0;
    for b in [
        Benchmark::FillRandom,
        Benchmark::Overwrite,
        Benchmark::DeleteRandom,
        Benchmark::ReadRandom,
        Benchmark::ReadRandomWriteRandom,
        Benchmark::SeekRandom,
        Benchmark::ReadSeq,
    ] {
        let name = b.name();
        let r = env
            .block_on(db_bench::run_one(&env, store, b, &cfg, &mut threads))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.name, name);
        assert!(r.ops > 0, "{name}");
    }
    let r = env
        .block_on(db_bench::run_one(
            &env,
            store,
            Benchmark::WaitForCompaction,
            &cfg,
            &mut threads,
        ))
        .unwrap();
    assert_eq!((r.name.as_str(), r.ops), ("waitforcompaction", 0));
    assert!(
        ledger.verified() >= 10_000,
        "reads were checked: {}",
        ledger.verified()
    );
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_runs_db_bench_workloads_with_verified_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = zonedb_harness::fjall_peer::FjallStore::open(dir.path(), 8 << 20).unwrap();
    runs_db_bench_workloads_with_verified_reads(&store);
    store.persist().unwrap();
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_runs_ycsb_load_and_run_phases() {
    let dir = tempfile::tempdir().unwrap();
    let store = zonedb_harness::fjall_peer::FjallStore::open(dir.path(), 8 << 20).unwrap();
    runs_ycsb_load_and_run_phases(&store);
    store.persist().unwrap();
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_runs_db_bench_workloads_with_verified_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = zonedb_harness::rocksdb_peer::RocksStore::open(dir.path(), 8 << 20).unwrap();
    runs_db_bench_workloads_with_verified_reads(&store);
    store.persist().unwrap();
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_runs_ycsb_load_and_run_phases() {
    let dir = tempfile::tempdir().unwrap();
    let store = zonedb_harness::rocksdb_peer::RocksStore::open(dir.path(), 8 << 20).unwrap();
    runs_ycsb_load_and_run_phases(&store);
    store.persist().unwrap();
}
