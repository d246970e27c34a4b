//! The fjall peer (feature `fjall`) through the same harness: db_bench's fill, read, seek and
//! scan benchmarks run on it with every read verified against the last acknowledged write.
//! Run with `cargo test -p zonedb-harness --features fjall`.
#![cfg(feature = "fjall")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_env::RealEnv;
use zonedb_harness::db_bench::{self, BenchConfig};
use zonedb_harness::fjall_peer::FjallStore;
use zonedb_harness::verify::ValueLedger;

#[test]
fn fjall_runs_db_bench_workloads_with_verified_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = FjallStore::open(dir.path(), 8 << 20).unwrap();
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
    for name in [
        "fillrandom",
        "overwrite",
        "deleterandom",
        "readrandom",
        "readrandomwriterandom",
        "seekrandom",
        "readseq",
    ] {
        let r = env
            .block_on(db_bench::run_one(&env, &store, name, &cfg, &mut threads))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.name, name);
        assert!(r.ops > 0, "{name}");
    }
    assert!(
        ledger.verified() >= 10_000,
        "reads were checked: {}",
        ledger.verified()
    );
    store.persist().unwrap();
}
