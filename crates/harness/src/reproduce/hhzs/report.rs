//! The Markdown beside the paper's figures.

use super::*;

/// The paper's number for a row of a table, where the text gives one.
pub(super) fn paper_note(group: &str, scheme: &str, workload: &str) -> &'static str {
    match (group, scheme, workload) {
        ("exp1", "HHZS", "load") => "+7.8% vs B3, +18.3% vs AUTO",
        ("exp1", "HHZS", _) => "+21.0-56.4% vs B3, +28.0-69.3% vs AUTO",
        ("exp1", "AUTO", _) => "below B3 everywhere",
        ("exp2", "P", "load") => "+5.5% vs B3",
        ("exp2", "P", "W1") => "+18.0% vs B3",
        ("exp2", "P", "W2") => "+18.8% vs B3",
        ("exp2", "P", "W3") => "-1.4% vs B3",
        ("exp2", "P", "W4") => "-5.9% vs B3",
        ("exp2", "P+M", "W1") => "+14.5% vs B3+M",
        ("exp2", "P+M", "W2") => "+8.8% vs B3+M",
        ("exp2", "P+M", "W3") => "+9.4% vs B3+M",
        ("exp2", "P+M", "W4") => "+5.9% vs B3+M",
        ("exp2", "P+M+C", "W1") => "+5.3% vs P+M",
        ("exp2", "P+M+C", "W2") => "+6.8% vs P+M",
        ("exp2", "P+M+C", "W3") => "+7.4% vs P+M",
        ("exp2", "P+M+C", "W4") => "+173.7% vs P+M",
        ("exp3", "HHZS", _) => "+27.3-43.3% vs B3, +51.6-77.1% vs AUTO",
        ("exp4", "HHZS", "read=10") => "+40.4% vs B3, +67.7% vs AUTO",
        ("exp4", "HHZS", "read=30") => "+42.4% vs B3, +68.4% vs AUTO",
        ("exp4", "HHZS", _) => "+42.5-60.0% vs B3, +54.1-65.3% vs AUTO",
        ("motivation", "B4", "load") => "11.3% below B3",
        ("motivation", _, "read=0.9") => "HDD read share 79.7-98.2%",
        ("motivation", _, "read=1.2") => "HDD read share 35.8-49.5%",
        _ => "",
    }
}

/// The base scheme a group's table normalizes to.
pub(super) fn base_of(group: &str) -> &'static str {
    match group {
        "exp6" | "caching" => "P+M",
        _ => "B3",
    }
}

pub(super) fn gib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 30)
}

/// Figure 5b: the SSD's share of each level's bytes at the end of workload A.
pub(super) fn level_shares(results: &[CellResult], schemes: &[String]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "SSD share of each level's bytes at the end of workload A (figure 5b):\n\n| scheme | L0 | L1 | L2 | L3 | L4 |\n|---|---:|---:|---:|---:|---:|"
    );
    for s in schemes {
        if let Some(h) = runs_of(results, "exp1", s, "A").first() {
            let cells: Vec<String> = (0..5)
                .map(|l| {
                    h.level_tier_bytes.get(l).map_or("-".into(), |&(ssd, hdd)| {
                        if ssd + hdd == 0 {
                            "-".into()
                        } else {
                            format!("{:.0}%", ssd as f64 * 100.0 / (ssd + hdd) as f64)
                        }
                    })
                })
                .collect();
            let _ = writeln!(md, "| {s} | {} |", cells.join(" | "));
        }
    }
    md.push('\n');
    md
}

/// O1: the largest level sizes over the run against their targets.
pub(super) fn level_maxima(
    scale: ReproScale,
    results: &[CellResult],
    schemes: &[String],
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "O1, largest level sizes over the load against their targets (the paper's B4: L0 40.3x, L1 29.7x, L2 4.9x):\n\n| scheme | L0 | L1 | L2 |\n|---|---:|---:|---:|"
    );
    let d = divisor(scale);
    let targets = [1024 * MIB / d, 1024 * MIB / d, 10 * 1024 * MIB / d];
    for s in schemes {
        if let Some(h) = runs_of(results, "motivation", s, "read=0.9").first() {
            let cells: Vec<String> = targets
                .iter()
                .enumerate()
                .map(|(l, t)| {
                    let m = h.level_max_bytes.get(l).copied().unwrap_or(0);
                    format!("{:.1}x", m as f64 / *t as f64)
                })
                .collect();
            let _ = writeln!(md, "| {s} | {} |", cells.join(" | "));
        }
    }
    md.push('\n');
    md
}

/// O4 and the SSD cache: how the measured phase's query reads spread over SSTs (the hottest
/// SST's, 1%'s and 10%'s share; mean over the seeds), and what the SSD cache did over the run
/// (first seed).
pub(super) fn read_skew(
    results: &[CellResult],
    group: &str,
    schemes: &[String],
    workloads: &[String],
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Per-SST read skew of the measured phase (O4: query reads reaching the zone layer, by SST; the hottest 1% / 10% of the SSTs read) and the SSD cache over the run (blocks offered on eviction, admitted, cache lookups, hits):\n\n| scheme | workload | SSTs read | reads | hottest SST | hottest 1% | hottest 10% | offered | admitted | lookups | hits |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for w in workloads {
        for s in schemes {
            let Some(p) = phase(results, group, s, w) else {
                continue;
            };
            let k = p.sst_reads;
            let c = runs_of(results, group, s, w)
                .first()
                .map(|h| h.ssd_cache)
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "| {s} | {w} | {} | {} | {:.1}% | {:.1}% | {:.1}% | {} | {} | {} | {} |",
                k.ssts_read,
                k.reads,
                k.top_sst_share * 100.0,
                k.top1pct_share * 100.0,
                k.top10pct_share * 100.0,
                c.offered,
                c.admissions,
                c.lookups,
                c.hits,
            );
        }
    }
    md.push('\n');
    md
}

/// One row of a group's table: `s` on `w`, each figure over the seeds.
pub(super) fn table_row(by_seed: &BySeed<'_, CellResult>, group: &str, s: &str, w: &str) -> String {
    let base = base_of(group);
    let x = by_seed.show(
        |rs| gain(rs, group, s, base, w),
        |g| format!("{g:.2}"),
        2,
        "-",
    );
    let cell = |g: fn(&HybridPhase) -> f64, digits: usize| {
        by_seed.show(
            |rs| phase(rs, group, s, w).map(|p| g(&p)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    format!(
        "| {s} | {w} | {} | {x} | {} | {} | {} | {} | {} | {} | {} |\n",
        cell(|p| p.ops_per_s, 0),
        cell(|p| p.latency_us_p99, 0),
        cell(|p| p.latency_us_p9999, 0),
        by_seed.show(
            |rs| phase(rs, group, s, w).map(|p| p.ssd_read_share * 100.0),
            |v| format!("{v:.1}%"),
            1,
            "-"
        ),
        cell(|p| gib(p.ssd_write_bytes), 2),
        cell(|p| gib(p.hdd_write_bytes), 2),
        cell(|p| p.migrated_bytes as f64 / MIB as f64, 1),
        paper_note(group, s, w),
    )
}

/// The study's tables, with the paper's numbers beside ours.
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# HHZS on a simulated ZNS SSD + HM-SMR HDD ({} scale)\n\nThroughput in ops/s of the measured phase (virtual time), its ratio to the group's base scheme, P99 latency, the SSD's share of the bytes read, bytes written to each device and migrated during the phase.{}\n",
        scale.name(),
        by_seed.note(" Figures: ", ".")
    );
    for group in EXPERIMENTS {
        let (schemes, workloads) = matrix(results, group);
        if schemes.is_empty() {
            continue;
        }
        let base = base_of(group);
        let _ = writeln!(
            md,
            "## {group}\n\n| scheme | workload | ops/s | x {base} | P99 µs | P99.99 µs | SSD read share | SSD GiB written | HDD GiB written | migrated MiB | paper |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for w in &rows(group, &workloads) {
            let w = w.as_str();
            for s in &schemes {
                if phase(results, group, s, w).is_none() {
                    continue;
                }
                md.push_str(&table_row(&by_seed, group, s, w));
            }
        }
        md.push('\n');
        if group == "exp1" {
            md.push_str(&level_shares(results, &schemes));
        }
        if matches!(group, "exp1" | "exp2" | "ablation") {
            md.push_str(&read_skew(results, group, &schemes, &workloads));
        }
        if group == "motivation" {
            md.push_str(&level_maxima(scale, results, &schemes));
        }
    }
    let _ = writeln!(
        md,
        "## Must show (small scale)\n\n| check | paper | bar | ours | met |\n|---|---|---:|---:|---|"
    );
    for (i, c) in must_show(results).into_iter().enumerate() {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} | {} |",
            c.what,
            c.paper,
            c.bar,
            by_seed.show(|rs| must_show(rs)[i].ours, |o| format!("{o:.2}"), 2, "-"),
            match c.met() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
        );
    }
    let failed: Vec<&CellResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} {}: {}",
                r.group,
                r.scheme,
                r.workload,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}
