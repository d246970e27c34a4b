//! The Markdown beside the paper's figures.

use super::paper;
use super::*;

/// Figure 10's YCSB tails by operation type (the paper gives YCSB-A's update and read P99 and
/// YCSB-C's read P99 apart): a table of P99 per workload and operation, when any ran.
pub(super) fn ycsb_p99_by_op(
    md: &mut String,
    results: &[CellResult],
    by_seed: &BySeed<'_, CellResult>,
) {
    let p99_of = |rs: &[CellResult], s: &str, w: &str, op: &str| {
        mean_of(rs, s, w)
            .and_then(|f| f.measured)
            .and_then(|m| m.latency_us_p99_by_op.get(op).copied())
    };
    let rows: Vec<(&str, String)> = WORKLOADS
        .iter()
        .filter(|w| w.starts_with("ycsb-"))
        .flat_map(|&w| {
            let ops = mean_of(results, "LDP", w)
                .and_then(|f| f.measured)
                .map(|m| m.latency_us_p99_by_op.into_keys().collect::<Vec<_>>())
                .unwrap_or_default();
            ops.into_iter().map(move |op| (w, op))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\nP99 by operation, µs:\n\n| workload | operation | LDP | Gear | LLC | SplitZNS | SplitZNS vs LDP |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for (w, op) in rows {
        let _ = write!(md, "| {w} | {op} |");
        for s in MAIN_SCHEMES {
            let v = by_seed.show(|rs| p99_of(rs, s, w, &op), |v| format!("{v:.0}"), 0, "-");
            let _ = write!(md, " {v} |");
        }
        let d = by_seed.show(
            |rs| {
                let (ours, ldp) = (p99_of(rs, "SplitZNS", w, &op)?, p99_of(rs, "LDP", w, &op)?);
                (ldp > 0.0).then(|| (ours / ldp - 1.0) * 100.0)
            },
            |c| format!("{c:+.1}%"),
            1,
            "-",
        );
        let _ = writeln!(md, " {d} |");
    }
    md.push_str("\nPaper: SplitZNS vs LDP P99 on YCSB-A -39.6% (update) and -24.9% (read), on YCSB-C -39.2% (read).\n");
}

/// The baselines on FIFO queueing ([`FIFO_SCHEMES`]) beside `SplitZNS` on the study's per-die
/// queues, over `LDP (FIFO)`: the old ranking (SplitZNS alone on per-die queues) and what
/// the discipline is worth, when they ran.
pub(super) fn fifo_rows(md: &mut String, results: &[CellResult], by_seed: &BySeed<'_, CellResult>) {
    let ws: Vec<&str> = WORKLOADS
        .iter()
        .copied()
        .filter(|w| {
            FIFO_SCHEMES
                .iter()
                .any(|s| mean_of(results, s, w).is_some())
        })
        .collect();
    if ws.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Queueing: the baselines on FIFO queueing, and the old ranking\n\nNot the paper's. Every scheme above runs per-die queues (`queueing = \"{QUEUEING}\"`; SplitZNS's Read Scheduler puts query reads first in them). Here the baselines run on FIFO queueing (`queueing = \"fifo\"`: die work and its transfers booked at issue), as the study used to run them; its old ranking was `SplitZNS` (per-die) over these.\n\n| workload | scheme | queueing | ops/s | x LDP (FIFO) | P99 µs | P99.9 µs |\n|---|---|---|---:|---:|---:|---:|"
    );
    let fig = |s: &str, w: &str, g: fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| mean_of(rs, s, w).map(|f| g(&f)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    for w in ws {
        let rows = FIFO_SCHEMES
            .iter()
            .map(|&s| (s, "fifo"))
            .chain([("SplitZNS", QUEUEING)]);
        for (s, q) in rows {
            if mean_of(results, s, w).is_none() {
                continue;
            }
            let x = by_seed.show(
                |rs| ratio(rs, s, "LDP (FIFO)", w, ops_per_s),
                |x| format!("{x:.2}x"),
                2,
                "-",
            );
            let _ = writeln!(
                md,
                "| {w} | {s} | {q} | {} | {x} | {} | {} |",
                fig(s, w, ops_per_s, 0),
                fig(s, w, p99, 0),
                fig(s, w, p999, 0),
            );
        }
    }
}

pub(super) fn mib(b: u64) -> f64 {
    b as f64 / MIB as f64
}

/// The study's tables, our figures beside the paper's.
#[allow(
    clippy::too_many_lines,
    reason = "one table per figure of the paper, in its order"
)]
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# SplitZNS (TACO'23) at `--scale {}`\n\nEvery figure is the measured phase's (the last of the workload), the mean over the seeds run.{}\n",
        scale.name(),
        by_seed.note(" Ours: ", ".")
    );
    // A figure of `scheme` on `w` (`g` of its mean figures), and a ratio, over seeds.
    let fig = |scheme: &str, w: &str, g: &dyn Fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| mean_of(rs, scheme, w).map(|f| g(&f)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    let times = |a: &str, b: &str, w: &str, key: fn(&Figures) -> f64| {
        by_seed.show(|rs| ratio(rs, a, b, w, key), |x| format!("{x:.2}x"), 2, "-")
    };
    // Figure 9: throughput normalized to LDP.
    let _ = writeln!(
        md,
        "## Throughput (figure 9): ops/s, and SplitZNS over each scheme (paper in brackets)\n"
    );
    let _ = writeln!(
        md,
        "| workload | LDP | Gear | LLC | SplitZNS | SplitZNS / LDP | / Gear | / LLC |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if MAIN_SCHEMES
            .iter()
            .all(|s| mean_of(results, s, w).is_none())
        {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            let _ = write!(md, " {} |", fig(s, w, &ops_per_s, 0));
        }
        for c in ["LDP", "Gear", "LLC"] {
            let ours = times("SplitZNS", c, w, ops_per_s);
            let paper = paper::gain(c, w).map_or(String::new(), |p| format!(" ({p:.2}x)"));
            let _ = write!(md, " {ours}{paper} |");
        }
        md.push('\n');
    }
    // Figure 10: tail latency.
    let _ = writeln!(
        md,
        "\n## Tail latency (figure 10): P99 / P99.9, µs\n\n| workload | LDP | Gear | LLC | SplitZNS | SplitZNS P99 vs LDP |\n|---|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if mean_of(results, "LDP", w).is_none() {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            if mean_of(results, s, w).is_some() {
                let _ = write!(md, " {} / {} |", fig(s, w, &p99, 0), fig(s, w, &p999, 0));
            } else {
                md.push_str(" - |");
            }
        }
        let d = by_seed.show(
            |rs| ratio(rs, "SplitZNS", "LDP", w, p99).map(|x| (x - 1.0) * 100.0),
            |c| format!("{c:+.1}%"),
            1,
            "-",
        );
        let _ = writeln!(md, " {d} |");
    }
    md.push_str("\nPaper: SplitZNS vs LDP P99 / P99.9 -57.2% / -52.8% on overwrite, -43.1% / -43% on readrandom.\n");
    ycsb_p99_by_op(&mut md, results, &by_seed);
    fifo_rows(&mut md, results, &by_seed);
    // Figures 11-12: writes on YCSB-A, tree after YCSB-L.
    let _ = writeln!(
        md,
        "\n## Writes during YCSB-A (figure 11) and the tree after YCSB-L (figure 12)\n\n| scheme | device writes MiB (-D) | tree writes MiB (-U) | cleaning copy MiB | tree after YCSB-L MiB | SSTs |\n|---|---:|---:|---:|---:|---:|"
    );
    for s in MAIN_SCHEMES {
        let a = mean_of(results, s, "ycsb-a").and_then(|f| f.measured);
        let l = mean_of(results, s, "ycsb-l");
        if a.is_none() && l.is_none() {
            continue;
        }
        let cell = |w: &str, g: fn(&Measured) -> f64, digits: usize| {
            by_seed.show(
                |rs| mean_of(rs, s, w)?.measured.as_ref().map(g),
                |v| format!("{v:.digits$}"),
                digits,
                "-",
            )
        };
        let _ = writeln!(
            md,
            "| {s} | {} | {} | {} | {} | {} |",
            cell("ycsb-a", |p| mib(p.device_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.user_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.gc_copied_bytes), 1),
            cell("ycsb-l", |m| mib(m.tree_bytes), 1),
            cell("ycsb-l", |m| m.tree_files as f64, 0),
        );
    }
    md.push_str("\nPaper (after YCSB-L): Gear 37.38 GiB / 2509 SSTs, LLC 36.41 / 2451, LDP 41.95 / 2953, SplitZNS 41.97 / 2873; equal tree writes for LDP and SplitZNS, more for Gear and LLC.\n");
    // Figures 13-15: the breakdown.
    if results.iter().any(|r| r.group == "breakdown") {
        let _ = writeln!(
            md,
            "\n## Breakdown (figures 13-15), normalized to native\n\n| workload | scheme | ops/s | x native | x previous | P99 µs | P99.9 µs | stall s | compaction MB/s | SSTs in subzones | trivial moves |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for w in BREAKDOWN_WORKLOADS {
            let mut prev: Option<&str> = None;
            for s in BREAKDOWN_SCHEMES {
                let Some(f) = mean_of(results, s, w) else {
                    continue;
                };
                let x = |b: &str| times(s, b, w, ops_per_s);
                let p = f.measured.clone().unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {w} | {s} | {} | {} | {} | {} | {} | {:.2} | {:.1} | {} | {} |",
                    fig(s, w, &ops_per_s, 0),
                    x("native"),
                    if s == "LDP+prio" || s == "LDP+query-first" {
                        format!("{} (x LDP)", x("LDP"))
                    } else if s == "SplitZNS+prio" {
                        format!("{} (x SplitZNS)", x("SplitZNS"))
                    } else if s == "+diff L3" {
                        format!("{} (x +diff)", x("+diff"))
                    } else if s == "SplitZNS L3" {
                        format!("{} (x +diff L3)", x("+diff L3"))
                    } else {
                        prev.map_or("-".into(), x)
                    },
                    fig(s, w, &p99, 0),
                    fig(s, w, &p999, 0),
                    p.stall_ns as f64 / 1e9,
                    p.compaction_mb_per_s,
                    p.subzone_ssts,
                    p.trivial_moves,
                );
                prev = Some(s);
            }
        }
        md.push_str("\nPaper (over native, write workload): +diff 1.43x, +SZR 1.88x, +RP 1.11x; +RS lowers read P99 by 33% and P99.9 by 27%. Not the paper's: `LDP+query-first` is LDP with the Read Scheduler's order, query reads first, on the same per-die queues (its `x previous` is over LDP: query priority alone); `SplitZNS+prio` and `LDP+prio` run the class order (queries, background reads, programs, erases) instead; `+diff L3` and `SplitZNS L3` put SSTs in subzones from L3 on.\n");
    }
    if results.iter().any(|r| r.group == "sweep") {
        let _ = writeln!(
            md,
            "\n## Sweeps (figure 16): SplitZNS over LDP\n\n| sweep | workload | point | LDP ops/s | SplitZNS ops/s | SplitZNS / LDP | paper |\n|---|---|---|---:|---:|---:|---:|"
        );
        for (sweep, w, points) in SWEEPS {
            for &v in points {
                let key = format!("{w}@{sweep}={}", v.label());
                let ops = |s: &str| fig(s, &key, &ops_per_s, 0);
                let _ = writeln!(
                    md,
                    "| {sweep} | {w} | {} | {} | {} | {} | {} |",
                    v.label(),
                    ops("LDP"),
                    ops("SplitZNS"),
                    times("SplitZNS", "LDP", &key, ops_per_s),
                    paper_sweep(v).map_or("-".into(), |x| format!("{x:.2}x")),
                );
            }
        }
        md.push_str("\nPaper: 1.13x-2.03x over value sizes 128 B-4 KiB (more with larger values); under skew up to 1.66x over LDP, 1.55x-1.9x over the competitors on uniform; by chips (8, 16, 32, 64; zone size kept by resizing the erase block) 1.79x, 1.75x, 1.50x, 1.20x.\n");
    }
    let f3 = fig3_points(results);
    if let Some(first) = f3.first() {
        let _ = writeln!(
            md,
            "\n## Zone size (figure 3): LDP after the load and {} M overwrites (paper scale), every zone over all 16 chips\n\n| zone (paper scale) | ops/s | x {} MiB | GC count | migrated MiB per GC (paper scale) | cleaning copy MiB | migration WA | x {} MiB | stall s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            FIG3_WRITES / 1_000_000,
            first.mib,
            first.mib
        );
        let d = divisor(scale) as f64;
        for p in &f3 {
            let _ = writeln!(
                md,
                "| {} MiB | {:.0} | {:.2}x | {} | {:.1} | {:.1} | {:.3} | {:.2}x | {:.2} |",
                p.mib,
                p.ops_per_s,
                p.ops_per_s / first.ops_per_s.max(1e-9),
                p.gc_count,
                p.migrated_mib_per_gc() * d,
                mib(p.gc_copied_bytes),
                p.migration_wa,
                p.migration_wa / first.migration_wa.max(1e-9),
                p.stall_s,
            );
        }
        md.push_str("\nPaper (128 MiB to 1 GiB): migrated data per GC 43 -> 386 MiB, GC count 298 -> 144, migration write amplification up to 1.9x, throughput -73%.\n");
    }
    let lt: Vec<(&str, Measured)> = fig4_workloads()
        .into_iter()
        .filter_map(|(n, w)| Some((n, mean_of(results, "LDP", &w)?.measured?)))
        .collect();
    if !lt.is_empty() {
        let _ = writeln!(
            md,
            "\n## SST lifetimes (figure 4), LDP: seconds, 10th / 50th / 90th percentile by the level written to\n\n| workload | level | SSTs' lifetimes p10 / p50 / p90 s |\n|---|---|---|"
        );
        for (name, m) in &lt {
            for (level, cdf) in m.sst_lifetime_cdf_s_by_level.iter().enumerate() {
                if cdf.len() == 21 {
                    let _ = writeln!(
                        md,
                        "| {name} | L{level} | {:.1} / {:.1} / {:.1} |",
                        cdf[2], cdf[10], cdf[18]
                    );
                }
            }
        }
        md.push_str("\nPaper: L0-L3 from about 0 to 100 s; L4 from about 10 to 800 s (uniform) and 10 to 4000 s (zipfian 0.99).\n");
    }
    let _ = writeln!(
        md,
        "\n## Must show (the issue's bars at small scale)\n\n| comparison | paper | bar | ours | met |\n|---|---:|---:|---:|---|"
    );
    for (i, c) in must_show(results).into_iter().enumerate() {
        let ours = by_seed.show(|rs| must_show(rs)[i].ours, |x| format!("{x:.2}"), 2, "-");
        let _ = writeln!(
            md,
            "| {} | {:.2} | {} | {} | {} |",
            c.what,
            c.paper,
            c.bar.map_or_else(
                || if c.lower { "< 1".into() } else { "> 1".into() },
                |b| format!("{} {b:.2}", if c.lower { "<=" } else { ">=" })
            ),
            ours,
            match c.met() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "not run",
            }
        );
    }
    let failed: Vec<&CellResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        md.push_str("\n## Failed runs\n\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} (seed {}): {}",
                r.scheme,
                r.workload,
                r.seed,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}
