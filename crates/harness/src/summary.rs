//! The JSON of finished runs that `zonedb run --json` and `zonedb compare --json` print (one
//! object per configuration under `"configurations"`), built in one place so the Python
//! package and sweeps give the CLI's JSON byte for byte. The caller adds `"host"` (wall
//! time, peak memory: the one part that is not a function of seed and scenario).

use serde_json::json;

use crate::experiment::RunReport;

/// `{"configurations": [...]}` of `runs`.
pub fn runs_json(runs: &[RunReport]) -> serde_json::Value {
    json!({
        "configurations": runs.iter().map(run_json).collect::<Vec<_>>(),
    })
}

/// One configuration's object.
fn run_json(r: &RunReport) -> serde_json::Value {
    let parts = r.db.write_amp_parts();
    json!({
        "name": r.scenario.name,
        "profile": r.profile,
        "benchmarks": r.benchmarks.iter().map(|b| json!({
            "name": b.name,
            "ops": b.ops,
            "ops_per_s": b.ops_per_sec(),
            "latency_ns_p50": (b.latency.p50_us * 1e3).round(),
            "latency_ns_p99": (b.latency.p99_us * 1e3).round(),
            "latency_ns_p999": (b.latency.p999_us * 1e3).round(),
            "latency_by_op": b.latency_by_op,
            "found": b.found,
            "line": b.line(),
        })).collect::<Vec<_>>(),
        "write_amplification": r.write_amplification(),
        "lsm_write_amplification": r.db.write_amplification(),
        "gc_copied_bytes": r.fs.gc_copied_bytes,
        "zone_resets": r.fs.zone_resets,
        "block_erases": r.device.block_erases,
        "stall_ns": r.db.stall_stop_ns + r.db.stall_delay_ns,
        "compactions": r.db.compactions,
        "flushes": r.db.flushes,
        "write_amplification_parts": {
            "wal": parts.wal,
            "flush": parts.flush,
            "compaction": parts.compaction,
            "cleaning": r.fs.gc_copied_bytes as f64 / r.db.user_bytes_written.max(1) as f64,
        },
        "flush_ns": r.db.flush_ns,
        "compaction_ns": r.db.compaction_ns,
        "flushes_per_s": r.db.flushes as f64 / (r.end_ns.max(1) as f64 / 1e9),
        "compactions_per_s": r.db.compactions as f64 / (r.end_ns.max(1) as f64 / 1e9),
        "device_bytes_written": r.device.bytes_written,
        "device_bytes_read": r.device.bytes_read,
        "io_blocking_ns": r.fs.io_blocking_ns,
        "virtual_end_ns": r.end_ns,
    })
}
