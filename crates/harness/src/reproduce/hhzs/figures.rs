//! What is measured per cell, as the study's JSON: each phase's device traffic on the hybrid
//! device (means over seeds) per experiment and scheme.

use super::{
    BySeed, CellResult, EXPERIMENTS, HybridFigures, HybridPhase, ReproScale, SstReadSkew,
    must_show, summaries,
};

/// Whether a cell's figures are its measured phase's ([`crate::reproduce::Figures::with_measured`]): the
/// last phase with operations, after the load.
pub(crate) const MEASURED: bool = true;

/// The hybrid figures of `scheme` on `workload` in `group`, over the seeds run: the mean of
/// each phase's figures.
pub(super) fn runs_of<'a>(
    results: &'a [CellResult],
    group: &str,
    scheme: &str,
    workload: &str,
) -> Vec<&'a HybridFigures> {
    results
        .iter()
        .filter(|r| r.group == group && r.scheme == scheme && r.workload == workload)
        .filter_map(|r| r.figures.as_ref().ok()?.hybrid.as_ref())
        .collect()
}

/// The mean of phase `i` (negative: from the end) over `runs`.
pub(super) fn phase_mean(runs: &[&HybridFigures], last: bool) -> Option<HybridPhase> {
    let phases: Vec<&HybridPhase> = runs
        .iter()
        .filter_map(|h| {
            if last {
                h.phases.last()
            } else {
                h.phases.first()
            }
        })
        .collect();
    if phases.is_empty() {
        return None;
    }
    let n = phases.len() as f64;
    let f = |g: fn(&HybridPhase) -> f64| phases.iter().map(|p| g(p)).sum::<f64>() / n;
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "means of byte counts"
    )]
    let u = |g: fn(&HybridPhase) -> u64| {
        (phases.iter().map(|p| g(p) as f64).sum::<f64>() / n).round() as u64
    };
    Some(HybridPhase {
        ops: u(|p| p.ops),
        ops_per_s: f(|p| p.ops_per_s),
        latency_us_p99: f(|p| p.latency_us_p99),
        latency_us_p999: f(|p| p.latency_us_p999),
        latency_us_p9999: f(|p| p.latency_us_p9999),
        ssd_write_bytes: u(|p| p.ssd_write_bytes),
        hdd_write_bytes: u(|p| p.hdd_write_bytes),
        ssd_read_bytes: u(|p| p.ssd_read_bytes),
        hdd_read_bytes: u(|p| p.hdd_read_bytes),
        ssd_read_share: f(|p| p.ssd_read_share),
        migrated_bytes: u(|p| p.migrated_bytes),
        sst_reads: SstReadSkew {
            ssts_read: u(|p| p.sst_reads.ssts_read),
            reads: u(|p| p.sst_reads.reads),
            top_sst_share: f(|p| p.sst_reads.top_sst_share),
            top1pct_share: f(|p| p.sst_reads.top1pct_share),
            top10pct_share: f(|p| p.sst_reads.top10pct_share),
        },
    })
}

/// The measured phase (or, for `load`, the load) of `scheme` on `workload` in `group`.
pub(super) fn phase(
    results: &[CellResult],
    group: &str,
    scheme: &str,
    workload: &str,
) -> Option<HybridPhase> {
    // The load before one point (Exp#5: each SSD size loads on its own).
    if let Some(point) = workload.strip_prefix("load@") {
        return phase_mean(&runs_of(results, group, scheme, point), false);
    }
    // The load of a group: the first phase of its first workload's runs.
    if workload == "load" {
        let first = results
            .iter()
            .find(|r| r.group == group && r.scheme == scheme)?;
        return phase_mean(&runs_of(results, group, scheme, &first.workload), false);
    }
    phase_mean(&runs_of(results, group, scheme, workload), true)
}

pub(super) fn phase_json(p: &HybridPhase) -> serde_json::Value {
    serde_json::json!({
        "ops": p.ops,
        "ops_per_s": p.ops_per_s,
        "latency_us_p99": p.latency_us_p99,
        "latency_us_p999": p.latency_us_p999,
        "latency_us_p9999": p.latency_us_p9999,
        "ssd_write_bytes": p.ssd_write_bytes,
        "hdd_write_bytes": p.hdd_write_bytes,
        "ssd_read_bytes": p.ssd_read_bytes,
        "hdd_read_bytes": p.hdd_read_bytes,
        "ssd_read_share": p.ssd_read_share,
        "migrated_bytes": p.migrated_bytes,
        "sst_reads": p.sst_reads,
    })
}

/// The rows of `group`: `load`, then its workloads (Exp#5: the load before each SSD size
/// too, `load@zones=N`).
pub(super) fn rows(group: &str, workloads: &[String]) -> Vec<String> {
    let mut out = vec!["load".to_owned()];
    if group == "exp5" {
        out.extend(workloads.iter().map(|w| format!("load@{w}")));
    }
    out.extend(workloads.iter().cloned());
    out
}

/// The schemes and workloads of `group` present in `results`, in run order.
pub(super) fn matrix(results: &[CellResult], group: &str) -> (Vec<String>, Vec<String>) {
    let mut schemes: Vec<String> = Vec::new();
    let mut workloads: Vec<String> = Vec::new();
    for r in results.iter().filter(|r| r.group == group) {
        if !schemes.contains(&r.scheme) {
            schemes.push(r.scheme.clone());
        }
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload.clone());
        }
    }
    (schemes, workloads)
}

/// Throughput of `a` over `b` (a ratio) on `workload` of `group`.
pub(super) fn gain(
    results: &[CellResult],
    group: &str,
    a: &str,
    b: &str,
    workload: &str,
) -> Option<f64> {
    let x = phase(results, group, a, workload)?.ops_per_s;
    let y = phase(results, group, b, workload)?.ops_per_s;
    (y > 0.0).then(|| x / y)
}

/// The study's JSON: an object per experiment, per scheme, per workload (with `load`).
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let mut root = serde_json::Map::new();
    root.insert("study".into(), "hhzs".into());
    root.insert("scale".into(), scale.name().into());
    let seeds = crate::reproduce::seeds::seeds_of(results);
    let many = seeds.len() > 1;
    root.insert("seeds".into(), seeds.into());
    let by_seed = BySeed::new(results);
    for group in EXPERIMENTS {
        let (schemes, workloads) = matrix(results, group);
        if schemes.is_empty() {
            continue;
        }
        let mut g = serde_json::Map::new();
        for s in &schemes {
            let mut sm = serde_json::Map::new();
            for w in &rows(group, &workloads) {
                let w = w.as_str();
                if let Some(p) = phase(results, group, s, w) {
                    let mut v = phase_json(&p);
                    if many {
                        let each: Vec<serde_json::Value> = by_seed
                            .each()
                            .iter()
                            .filter_map(|rs| phase(rs, group, s, w).map(|p| phase_json(&p)))
                            .collect();
                        v["spread"] = summaries(&each);
                    }
                    if !w.starts_with("load")
                        && let Some(h) = runs_of(results, group, s, w).first()
                    {
                        v["level_tier_bytes"] = serde_json::json!(h.level_tier_bytes);
                        v["level_max_bytes"] = serde_json::json!(h.level_max_bytes);
                        v["ssd_cache_hits"] = serde_json::json!(h.ssd_cache_hits);
                        v["ssd_cache"] = serde_json::json!(h.ssd_cache);
                    }
                    sm.insert(w.to_owned(), v);
                }
            }
            g.insert(s.clone(), sm.into());
        }
        root.insert(group.into(), g.into());
    }
    root.insert(
        "must_show".into(),
        must_show(results)
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut o = serde_json::json!({
                    "what": c.what, "paper": c.paper, "bar": c.bar, "ours": c.ours, "met": c.met(),
                });
                if many {
                    o["ours_interval"] =
                        serde_json::json!(by_seed.summary(|rs| must_show(rs)[i].ours));
                }
                o
            })
            .collect::<Vec<_>>()
            .into(),
    );
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            let e = r.figures.as_ref().err()?;
            Some(format!(
                "{} {} {} (seed {}): {e}",
                r.group, r.scheme, r.workload, r.seed
            ))
        })
        .collect();
    root.insert("failed".into(), failed.into());
    root.into()
}
