//! What is measured per cell, as the study's JSON: each workload's measured phase, figure 3's
//! migration points and figure 4's workloads.

use super::{
    BySeed, CellResult, FIG3_PAPER, FIG3_WORKLOAD, FIG3_ZONE_MIB, FIG4_SKEWED_WORKLOAD, Figures,
    QUEUEING, ReproScale, SWEEPS, WORKLOADS, all_schemes, mib, must_show_json, ops_per_s,
    paper_sweep, ratio, summaries,
};

/// Whether a cell's figures are its measured phase's ([`crate::reproduce::Figures::with_measured`]): the
/// last phase with operations, after the load.
pub(crate) const MEASURED: bool = true;

/// The mean figures of `scheme` on `w` over the seeds run.
pub(super) fn mean_of(results: &[CellResult], scheme: &str, w: &str) -> Option<Figures> {
    let runs: Vec<&Figures> = results
        .iter()
        .filter(|r| r.scheme == scheme && r.workload == w)
        .filter_map(|r| r.figures.as_ref().ok())
        .collect();
    Figures::mean(&runs)
}

/// The keys for one scheme and workload, from the measured phase.
pub(super) fn workload_json(f: &Figures) -> serde_json::Value {
    let p = f.measured.clone().unwrap_or_default();
    serde_json::json!({
        "ops": p.ops,
        "ops_per_s": p.ops_per_s,
        "latency_us_p50": p.latency_us_p50,
        "latency_us_p99": p.latency_us_p99,
        "latency_us_p999": p.latency_us_p999,
        "latency_us_p99_by_op": p.latency_us_p99_by_op,
        "latency_us_p999_by_op": p.latency_us_p999_by_op,
        "device_write_bytes": p.device_write_bytes,
        "user_write_bytes": p.user_write_bytes,
        "gc_copied_bytes": p.gc_copied_bytes,
        "stall_ns": p.stall_ns,
        "run_device_write_bytes": p.run_device_write_bytes,
        "run_gc_copied_bytes": f.gc_copied_bytes,
        "tree_bytes": p.tree_bytes,
        "tree_files": p.tree_files,
        "compaction_read_mb_per_s": f.compaction_read_mb_per_s,
        "compaction_mb_per_s": p.compaction_mb_per_s,
        "subzone_ssts": p.subzone_ssts,
        "trivial_moves": p.trivial_moves,
        "sst_lifetime_s_by_level": p.sst_lifetime_s_by_level,
    })
}

/// The study's JSON: an object per scheme (the paper's names), each with an object per
/// workload run.
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let seeds = crate::reproduce::seeds::seeds_of(results);
    let by_seed = BySeed::new(results);
    let mut schemes = serde_json::Map::new();
    for s in all_schemes() {
        let mut per = serde_json::Map::new();
        for w in WORKLOADS {
            if let Some(f) = mean_of(results, s, w) {
                let mut o = workload_json(&f);
                if by_seed.many() {
                    let each: Vec<serde_json::Value> = by_seed
                        .each()
                        .iter()
                        .filter_map(|rs| mean_of(rs, s, w).map(|f| workload_json(&f)))
                        .collect();
                    o["spread"] = summaries(&each);
                }
                per.insert(w.to_owned(), o);
            }
        }
        if !per.is_empty() {
            schemes.insert(s.to_owned(), serde_json::Value::Object(per));
        }
    }
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.figures
                .as_ref()
                .err()
                .map(|e| format!("{} {} (seed {}): {e}", r.scheme, r.workload, r.seed))
        })
        .collect();
    let mut sweeps = serde_json::Map::new();
    for (sweep, w, points) in SWEEPS {
        let mut per = serde_json::Map::new();
        for &v in points {
            let key = format!("{w}@{sweep}={}", v.label());
            let (Some(l), Some(z)) = (
                mean_of(results, "LDP", &key),
                mean_of(results, "SplitZNS", &key),
            ) else {
                continue;
            };
            per.insert(
                v.label(),
                serde_json::json!({
                    "LDP": workload_json(&l),
                    "SplitZNS": workload_json(&z),
                    "splitzns_over_ldp": ratio(results, "SplitZNS", "LDP", &key, ops_per_s),
                    "paper": paper_sweep(v),
                }),
            );
        }
        if !per.is_empty() {
            sweeps.insert(sweep.to_owned(), serde_json::Value::Object(per));
        }
    }
    let mut zone_size = serde_json::Map::new();
    for p in fig3_points(results) {
        zone_size.insert(p.mib.to_string(), p.json());
    }
    if !zone_size.is_empty() {
        zone_size.insert(
            "paper".into(),
            serde_json::json!({
                "migrated_mib_per_gc": {"128": FIG3_PAPER[0].1, "1024": FIG3_PAPER[1].1},
                "gc_count": {"128": FIG3_PAPER[0].2, "1024": FIG3_PAPER[1].2},
                "migration_wa_vs_128_max": 1.9,
                "ops_per_s_1024_vs_128": 0.27,
            }),
        );
    }
    let mut lifetimes = serde_json::Map::new();
    for (name, w) in fig4_workloads() {
        if let Some(m) = mean_of(results, "LDP", &w).and_then(|f| f.measured) {
            lifetimes.insert(
                name.to_owned(),
                serde_json::json!({
                    "workload": w,
                    "percentiles": (0..=20).map(|i| i * 5).collect::<Vec<u32>>(),
                    "cdf_s_by_level": m.sst_lifetime_cdf_s_by_level,
                }),
            );
        }
    }
    serde_json::json!({
        "study": "splitzns",
        "scale": scale.name(),
        "seeds": seeds,
        "queueing": QUEUEING,
        "schemes": schemes,
        "sweeps": sweeps,
        "zone_size": zone_size,
        "sst_lifetimes": lifetimes,
        "must_show": must_show_json(results, &by_seed),
        "failed": failed,
    })
}

/// One zone size of figure 3 (LDP after the load and 10 M overwrites at paper scale).
pub(super) struct Fig3Point {
    pub(super) mib: u32,
    /// Overwrite throughput, ops/s.
    pub(super) ops_per_s: f64,
    /// Zone resets by cleaning over the run (the paper's GC count).
    pub(super) gc_count: u64,
    /// Bytes cleaning copied over the run.
    pub(super) gc_copied_bytes: u64,
    /// Device bytes over the file system's (the write amplification of migration).
    pub(super) migration_wa: f64,
    /// Write-stall time of the overwrite phase, s.
    pub(super) stall_s: f64,
}

impl Fig3Point {
    pub(super) fn migrated_mib_per_gc(&self) -> f64 {
        if self.gc_count == 0 {
            0.0
        } else {
            mib(self.gc_copied_bytes) / self.gc_count as f64
        }
    }

    pub(super) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "ops_per_s": self.ops_per_s,
            "gc_count": self.gc_count,
            "gc_copied_bytes": self.gc_copied_bytes,
            "migrated_mib_per_gc": self.migrated_mib_per_gc(),
            "migration_wa": self.migration_wa,
            "stall_s": self.stall_s,
        })
    }
}

/// Figure 3's points that ran, smallest zone first.
pub(super) fn fig3_points(results: &[CellResult]) -> Vec<Fig3Point> {
    FIG3_ZONE_MIB
        .iter()
        .filter_map(|&mib| {
            let f = mean_of(results, "LDP", &format!("{FIG3_WORKLOAD}@zone_size={mib}"))?;
            let m = f.measured.clone().unwrap_or_default();
            Some(Fig3Point {
                mib,
                ops_per_s: m.ops_per_s,
                gc_count: f.gc_zone_resets,
                gc_copied_bytes: f.gc_copied_bytes,
                migration_wa: f.zone_write_amplification,
                stall_s: m.stall_ns as f64 / 1e9,
            })
        })
        .collect()
}

/// Figure 4's two workloads: (name, workload key) for uniform (figure 3's 512 MiB point, the
/// profile's own zones) and zipfian 0.99.
pub(super) fn fig4_workloads() -> [(&'static str, String); 2] {
    [
        ("uniform", format!("{FIG3_WORKLOAD}@zone_size=512")),
        ("zipfian", FIG4_SKEWED_WORKLOAD.to_owned()),
    ]
}
