//! The Markdown beside the slides' figures.

use super::*;

/// What the slides say of a scheme, for the tables' last column.
pub(super) fn slides_note(scheme: &str, experiment: &str) -> &'static str {
    match (scheme, experiment.starts_with("chips-")) {
        ("IZC", _) => "28.2-51.7% less cleaning, 1.3-1.9x",
        ("ZNS+", false) => "1.3-2.9x; threaded logging >86%; metadata -48%",
        ("ZNS+", true) => "1.3-2.9x; copyback >80% (CAB)",
        ("ZNS+/CUB", true) => "copyback share falls with chips",
        (NEED_SSR, _) => "ZNS+'s: 1.3-2.9x; threaded logging >86%; metadata -48%",
        _ => "",
    }
}

/// One table of the study: a row per experiment and scheme.
pub(super) fn table(md: &mut String, results: &[ZnsPlusResult], title: &str, experiments: &[&str]) {
    let _ = writeln!(
        md,
        "## {title}\n\n| experiment | scheme | ops/s | x ZNS | P99 µs | cleaning s | vs ZNS | host link GiB | gc copied GiB | copyback | threaded share | metadata MiB | vs ZNS | slides |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let by_seed = BySeed::new(results);
    for e in experiments {
        for s in SCHEMES {
            if mean_json(results, s, e).is_none() {
                continue;
            }
            // `key` as `to` converts it, with `digits` decimals and `unit` after.
            let f = |k: &str, to: &dyn Fn(f64) -> f64, digits: usize, unit: &str| {
                by_seed.show(
                    |rs| figure(rs, s, e, k).map(to),
                    |v| format!("{v:.digits$}{unit}"),
                    digits,
                    "-",
                )
            };
            let change = |k: &str| {
                by_seed.show(
                    |rs| vs_zns(rs, s, e, k).map(|v| (v - 1.0) * 100.0),
                    |c| format!("{c:+.1}%"),
                    1,
                    "-",
                )
            };
            let copyback = by_seed.show(
                |rs| {
                    let c = figure(rs, s, e, "izc_copyback_pages").unwrap_or(0.0);
                    let r = figure(rs, s, e, "read_program_pages").unwrap_or(0.0);
                    (c + r > 0.0).then(|| c * 100.0 / (c + r))
                },
                |v| format!("{v:.1}%"),
                1,
                "-",
            );
            let same = |v: f64| v;
            let gib = |v: f64| v / f64::from(1u32 << 30);
            let _ = writeln!(
                md,
                "| {e} | {s} | {} | {} | {} | {} | {} | {} | {} | {copyback} | {} | {} | {} | {} |",
                f("ops_per_s", &same, 0, ""),
                by_seed.show(
                    |rs| vs_zns(rs, s, e, "ops_per_s"),
                    |v| format!("{v:.2}"),
                    2,
                    "-"
                ),
                f("latency_us_p99", &same, 0, ""),
                f("cleaning_time_ns", &|v| v / 1e9, 2, ""),
                change("cleaning_time_ns"),
                f("host_link_bytes", &gib, 2, ""),
                f("gc_copied_bytes", &gib, 2, ""),
                f("threaded_logging_share", &|v| v * 100.0, 1, "%"),
                f("metadata_write_bytes", &|v| v / MIB as f64, 1, ""),
                change("metadata_write_bytes"),
                slides_note(s, e),
            );
        }
    }
    md.push('\n');
}

/// The study's tables: ours with ratios to ZNS, and the slides' claims beside ours.
pub fn markdown(scale: ReproScale, results: &[ZnsPlusResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# ZNS+ on the simulated ZNS+ SSD ({} scale)\n\n{}The slides' figures are F2FS's on FEMU and Cosmos+; ours are this store's LSM zone layer on `{PROFILE}` with `kind = \"znsplus\"` (copyback {} µs, read-program {} µs per page), fill-and-delete at 1/{} and the engine at 1/{}. Throughput is virtual time: 4 KiB blocks of user data per second for fill-and-delete (P99: one file write), operations per second of the workload after its load for the engine (P99: one operation). Cleaning time, bytes, pages and reclaims are the whole run's. Copyback is IZC's share: its copyback pages over its copyback + read-program pages (threaded logging's plugging copies back too; the JSON's `copyback_pages` counts both).\n",
        scale.name(),
        by_seed.note("Ours: ", ".\n\n"),
        ZnsPlusConfig::reference().copyback_ns / 1000,
        ZnsPlusConfig::reference().read_program_ns / 1000,
        fill_delete_divisor(scale),
        engine_divisor(scale),
    );
    let run = experiments_run(results);
    let pick =
        |f: &dyn Fn(&str) -> bool| -> Vec<&str> { run.iter().copied().filter(|e| f(e)).collect() };
    let fill = pick(&|e| e.starts_with("fill-delete"));
    if !fill.is_empty() {
        table(&mut md, results, "Fill and delete (greedy cleaning)", &fill);
    }
    let chips = pick(&|e| e.starts_with("chips-"));
    if !chips.is_empty() {
        table(
            &mut md,
            results,
            &format!("Chips (fill and delete at {CHIPS_LIVE_PCT}% live, zones over every chip)"),
            &chips,
        );
    }
    let engine = pick(&|e| e == "overwrite" || e == "ycsb-a");
    if !engine.is_empty() {
        table(
            &mut md,
            results,
            "Engine (LIZA placement, greedy cleaning)",
            &engine,
        );
    }
    let _ = writeln!(
        md,
        "## The slides beside ours\n\nThe slides' numbers are F2FS's on FEMU and Cosmos+; ours are the LSM zone layer's.\n\n| claim | slides | ours | borne out |\n|---|---|---|---|"
    );
    let intervals = claim_intervals(&by_seed);
    for (i, c) in claims(results).into_iter().enumerate() {
        let iv = intervals.get(i);
        let c = c.with_intervals(iv);
        let detail: Vec<String> = c
            .ours
            .iter()
            .map(|(e, v)| {
                let shown = iv
                    .and_then(|iv| iv.get(e))
                    .map_or_else(|| c.unit.show(*v), |s| c.unit.show_interval(s));
                format!("{e} {shown}")
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {}{} | {} |",
            c.what,
            c.slides,
            c.range_interval(iv),
            if detail.len() > 1 {
                format!(" ({})", detail.join(", "))
            } else {
                String::new()
            },
            match c.met {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
        );
    }
    let failed: Vec<&ZnsPlusResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} (seed {}): {}",
                r.scheme,
                r.experiment,
                r.seed,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}
