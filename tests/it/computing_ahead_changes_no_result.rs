//! Merging compactions and building flushes ahead on other OS threads (`--parallel_compute`,
//! on by default in simulation) changes nothing a run reports: the JSON outside `"host"` is
//! byte-identical with `--parallel_compute=false`, for db_bench fillrandom + overwrite +
//! readrandom (with `--verify`), with Snappy, subcompactions and no readahead, and for a
//! scenario with zone cleaning and a page cache. `host.parallel_computations` shows that the
//! parallel path ran (and that `=false` turns it off).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use crate::common::{without_host, zonedb};
use serde_json::Value;

fn computations(text: &str) -> u64 {
    let v: Value = serde_json::from_str(text).unwrap();
    v["host"]["parallel_computations"].as_u64().unwrap()
}

/// `args` with the parallel path (the default) and without it: the same JSON outside
/// `"host"`, and the parallel path taken only in the first.
fn same_either_way(args: &[&str]) {
    let on = zonedb(args);
    let off = zonedb(&[args, &["--parallel_compute=false"]].concat());
    assert_eq!(without_host(&on), without_host(&off), "zonedb {args:?}");
    assert!(computations(&on) > 0, "{args:?}: nothing ran ahead");
    assert_eq!(computations(&off), 0, "{args:?}");
}

/// Large enough for compactions of 8 MiB and more and memtables of 4 MiB (the smallest run
/// ahead), small enough for a few seconds.
const SHAPE: [&str; 8] = [
    "--write_buffer_size",
    "4194304",
    "--target_file_size_base",
    "4194304",
    "--max_bytes_for_level_base",
    "16777216",
    "--scale",
    "1/16",
];

#[test]
fn db_bench_fill_overwrite_and_verified_reads() {
    same_either_way(
        &[
            &[
                "bench",
                "--benchmarks",
                "fillrandom,overwrite,readrandom",
                "--num",
                "100000",
                "--reads",
                "20000",
                "--value_size",
                "1024",
                "--verify",
                "--json",
            ][..],
            &SHAPE,
        ]
        .concat(),
    );
}

#[test]
fn snappy_subcompactions_and_block_by_block_reads() {
    same_either_way(
        &[
            &[
                "bench",
                "--benchmarks",
                "fillrandom,overwrite",
                "--num",
                "100000",
                "--value_size",
                "1024",
                "--compression_type",
                "snappy",
                "--max_subcompactions",
                "4",
                "--compaction_readahead_size",
                "0",
                "--json",
            ][..],
            &SHAPE,
        ]
        .concat(),
    );
}

#[test]
fn scenario_with_cleaning_and_a_page_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cleaning.toml");
    std::fs::write(
        &path,
        r#"name = "cleaning under compaction"
seed = 3

[device]
profile = "caza-paper"
scale = "1/64"

[fs]
placement = "liza"
cleaner = "greedy"
gc_threshold = 20
page_cache_size = 16777216

[engine]
write_buffer_size = 4194304
target_file_size_base = 4194304
max_bytes_for_level_base = 16777216
max_subcompactions = 2

[workload]
benchmarks = "fillrandom,overwrite"
num = 400000
value_size = 1024
"#,
    )
    .unwrap();
    same_either_way(&["run", path.to_str().unwrap(), "--json"]);
}
