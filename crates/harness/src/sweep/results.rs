//! A sweep's results: each run's JSON (what `zonedb run --json` prints) flattened into one row
//! of numbers, and each configuration's summary over its seeds (mean, standard deviation,
//! 95% interval by Student's t), as JSON, CSV and Markdown.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::SweepRun;
use crate::stats::Summary;

/// Metrics the Markdown shows when the sweep names none: each benchmark's throughput, then
/// these.
const DEFAULT_METRICS: [&str; 4] = [
    "write_amplification",
    "gc_copied_bytes",
    "zone_resets",
    "stall_ns",
];

/// The numbers of one run's JSON by dotted name: top-level numbers (`write_amplification`),
/// nested objects (`write_amplification_parts.wal`), each benchmark's numbers under its name
/// (`fillrandom.ops_per_s`; a repeated name gets `#2`, `#3`), and `host.*` (wall time: not a
/// function of the seed). Strings (names, db_bench lines) are left out.
pub fn flatten(run_json: &Value) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let conf = &run_json["configurations"][0];
    if let Some(o) = conf.as_object() {
        for (k, v) in o {
            if k == "benchmarks" {
                let mut seen: BTreeMap<String, usize> = BTreeMap::new();
                for b in v.as_array().into_iter().flatten() {
                    let name = b["name"].as_str().unwrap_or("benchmark").to_owned();
                    let n = seen.entry(name.clone()).or_insert(0);
                    *n += 1;
                    let prefix = if *n == 1 { name } else { format!("{name}#{n}") };
                    leaves(&prefix, b, &mut out);
                }
            } else {
                leaves(k, v, &mut out);
            }
        }
    }
    leaves("host", &run_json["host"], &mut out);
    out
}

fn leaves(prefix: &str, v: &Value, out: &mut BTreeMap<String, f64>) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                out.insert(prefix.to_owned(), x);
            }
        }
        Value::Object(o) => {
            for (k, v) in o {
                leaves(&format!("{prefix}.{k}"), v, out);
            }
        }
        _ => {}
    }
}

/// Whether a metric is the host's (wall time, memory): reported, never summarized as a result.
pub fn is_host(metric: &str) -> bool {
    metric.starts_with("host.")
}

/// One finished run: its plan entry and flattened numbers.
#[derive(Debug, Clone)]
pub struct Row {
    /// The run.
    pub run: SweepRun,
    /// Its numbers ([`flatten`]).
    pub metrics: BTreeMap<String, f64>,
}

/// Every metric name across rows, sorted, the host's last.
pub fn metric_names(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = rows
        .iter()
        .flat_map(|r| r.metrics.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|n| is_host(n));
    names
}

/// One configuration's summary.
#[derive(Debug, Clone)]
pub struct ConfigSummary {
    /// `c00`.
    pub config: String,
    /// Its label.
    pub label: String,
    /// Its grid values.
    pub values: Vec<(String, String)>,
    /// Seeds that finished.
    pub seeds: Vec<u64>,
    /// Every non-host metric over those seeds.
    pub metrics: BTreeMap<String, Summary>,
}

/// Summaries of every configuration, in plan order.
pub fn summarize(rows: &[Row]) -> Vec<ConfigSummary> {
    let mut order: Vec<&str> = Vec::new();
    for r in rows {
        if !order.contains(&r.run.config.as_str()) {
            order.push(&r.run.config);
        }
    }
    let names: Vec<String> = metric_names(rows)
        .into_iter()
        .filter(|n| !is_host(n))
        .collect();
    order
        .into_iter()
        .map(|c| {
            let of: Vec<&Row> = rows.iter().filter(|r| r.run.config == c).collect();
            let mut metrics = BTreeMap::new();
            for name in &names {
                let xs: Vec<f64> = of
                    .iter()
                    .filter_map(|r| r.metrics.get(name).copied())
                    .collect();
                if let Some(s) = Summary::of(&xs) {
                    metrics.insert(name.clone(), s);
                }
            }
            ConfigSummary {
                config: c.to_owned(),
                label: of[0].run.label.clone(),
                values: of[0].run.values.clone(),
                seeds: of.iter().map(|r| r.run.seed).collect(),
                metrics,
            }
        })
        .collect()
}

/// The metrics a report shows: the sweep's own list, or each benchmark's throughput and
/// `DEFAULT_METRICS`, those the runs have.
pub fn shown_metrics(asked: &[String], rows: &[Row]) -> Vec<String> {
    if !asked.is_empty() {
        return asked.to_vec();
    }
    let names = metric_names(rows);
    names
        .iter()
        .filter(|n| n.ends_with(".ops_per_s") && !is_host(n))
        .cloned()
        .chain(
            DEFAULT_METRICS
                .iter()
                .map(|s| (*s).to_owned())
                .filter(|m| names.contains(m)),
        )
        .collect()
}

/// `summary.json`: the sweep, then per configuration its values, seeds and every metric's
/// n, mean, stddev, min, max and 95% interval; failures by run.
pub fn summary_json(name: &str, summaries: &[ConfigSummary], failed: &[(String, String)]) -> Value {
    json!({
        "sweep": name,
        "configurations": summaries.iter().map(|s| json!({
            "config": s.config,
            "label": s.label,
            "values": s.values.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "seeds": s.seeds,
            "metrics": s.metrics,
        })).collect::<Vec<_>>(),
        "failed": failed.iter().map(|(r, e)| json!({"run": r, "error": e})).collect::<Vec<_>>(),
    })
}

/// `summary.csv`: one line per configuration and metric.
pub fn summary_csv(summaries: &[ConfigSummary]) -> String {
    let mut s = String::from("config,label,metric,n,mean,stddev,min,max,ci95_low,ci95_high\n");
    for c in summaries {
        for (m, x) in &c.metrics {
            let _ = writeln!(
                s,
                "{},\"{}\",{m},{},{},{},{},{},{},{}",
                c.config,
                c.label.replace('"', "\"\""),
                x.n,
                x.mean,
                x.stddev,
                x.min,
                x.max,
                x.ci95_low,
                x.ci95_high
            );
        }
    }
    s
}

/// Digits a figure of this size is shown with.
fn digits(x: f64) -> usize {
    match x.abs() {
        a if a >= 1000.0 || a == 0.0 => 0,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        _ => 4,
    }
}

/// `summary.md`: one row per configuration, one column per shown metric, `mean ± 95%
/// half-width`.
pub fn summary_markdown(
    name: &str,
    seeds: u64,
    shown: &[String],
    summaries: &[ConfigSummary],
    failed: &[(String, String)],
) -> String {
    let mut md = format!(
        "# zonedb sweep: {name}\n\n{} configurations x {seeds} seeds; each cell is the mean over \
         seeds ± the half-width of its 95% interval (Student's t, n - 1 degrees of freedom).\n\n",
        summaries.len()
    );
    md.push_str("| config | ");
    md.push_str(&shown.join(" | "));
    md.push_str(" |\n|---|");
    md.push_str(&"---:|".repeat(shown.len()));
    md.push('\n');
    for c in summaries {
        let _ = write!(md, "| {} {} |", c.config, c.label);
        for m in shown {
            match c.metrics.get(m) {
                Some(x) => {
                    let _ = write!(md, " {} |", x.text(digits(x.mean)));
                }
                None => md.push_str(" - |"),
            }
        }
        md.push('\n');
    }
    if !failed.is_empty() {
        md.push_str("\n## Failed runs\n\n");
        for (r, e) in failed {
            let _ = writeln!(md, "- {r}: {e}");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(config: &str, seed: u64) -> SweepRun {
        SweepRun {
            run: format!("{config}-s{seed}"),
            config: config.into(),
            label: format!("x={config}"),
            values: vec![("x".into(), config.into())],
            seed,
            scenario: String::new(),
        }
    }

    fn run_json(ops: f64, wa: f64) -> Value {
        json!({
            "configurations": [{
                "name": "n",
                "benchmarks": [
                    {"name": "fillrandom", "ops_per_s": ops, "line": "x"},
                    {"name": "fillrandom", "ops_per_s": 1.0},
                ],
                "write_amplification": wa,
                "write_amplification_parts": {"wal": 1.0},
            }],
            "host": {"wall_ns": 5, "peak_rss_bytes": null},
        })
    }

    #[test]
    fn flattening_names_benchmarks_nested_objects_and_host() {
        let m = flatten(&run_json(10.0, 2.0));
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "fillrandom#2.ops_per_s",
                "fillrandom.ops_per_s",
                "host.wall_ns",
                "write_amplification",
                "write_amplification_parts.wal"
            ]
        );
    }

    #[test]
    fn summaries_are_per_configuration_over_seeds_without_host() {
        let rows: Vec<Row> = [
            ("c0", 1, 10.0),
            ("c0", 2, 20.0),
            ("c0", 3, 30.0),
            ("c1", 1, 5.0),
        ]
        .into_iter()
        .map(|(c, s, ops)| Row {
            run: run(c, s),
            metrics: flatten(&run_json(ops, 1.0)),
        })
        .collect();
        let s = summarize(&rows);
        assert_eq!(s.len(), 2);
        let ops = s[0].metrics["fillrandom.ops_per_s"];
        assert_eq!((ops.n, ops.mean, ops.stddev), (3, 20.0, 10.0));
        assert!(!s[0].metrics.contains_key("host.wall_ns"));
        assert_eq!(s[1].seeds, [1]);
        let shown = shown_metrics(&[], &rows);
        assert_eq!(
            shown,
            [
                "fillrandom#2.ops_per_s",
                "fillrandom.ops_per_s",
                "write_amplification"
            ]
        );
        let md = summary_markdown("t", 3, &shown, &s, &[("c1-s2".into(), "boom".into())]);
        assert!(
            md.contains("| c0 x=c0 | 1.00 ± 0.00 | 20.0 ± 24.8 | 1.00 ± 0.00 |"),
            "{md}"
        );
        assert!(md.contains("| c1 x=c1 | 1.00 | 5.00 | 1.00 |"), "{md}");
        assert!(md.contains("- c1-s2: boom"));
        let j = summary_json("t", &s, &[]);
        assert_eq!(
            j["configurations"][0]["metrics"]["fillrandom.ops_per_s"]["n"],
            3
        );
        assert!(summary_csv(&s).contains("c0,\"x=c0\",fillrandom.ops_per_s,3,20,10,10,30,"));
    }
}
