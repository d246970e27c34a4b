//! `zonedb compare` on a tiny two-configuration scenario, then `zonedb report DIR`: the plots'
//! tick labels are SI (no `300000.0`), the latency CDF is the full histogram's (more than 20
//! points in `compare.json`), the time series mark where each benchmark phase began, the HTML
//! keeps its table in a scrolling box with captions, and re-rendering from `compare.json`
//! gives byte-identical Markdown and HTML.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use serde_json::Value;

use crate::common::zonedb_output as zonedb;

const SCENARIO: &str = r#"
name = "base"
seed = 3
sample_interval_ms = 20
[device]
profile = "splitzns-paper"
scale = "1/64"
[engine]
write_buffer_size = 1048576
target_file_size_base = 1048576
max_bytes_for_level_base = 4194304
[workload]
benchmarks = "fillrandom,readrandom"
num = 20000
reads = 5000
value_size = 512
[[compare]]
name = "narrow zones"
device = { chips_per_zone = 1 }
"#;

/// The text of every `<text>` element of an SVG, whitespace trimmed.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_owned())
        })
        .collect()
}

/// A tick label like `300000.0` or `1000000000`: five or more digits in a row, or a number
/// ending in `.0`.
fn raw_number(t: &str) -> bool {
    let mut run = 0;
    for c in t.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 5 {
            return true;
        }
    }
    t.split_whitespace()
        .any(|w| w.ends_with(".0") && w.trim_end_matches(".0").chars().all(|c| c.is_ascii_digit()))
}

fn compare(dir: &Path) -> std::path::PathBuf {
    let scen = dir.join("s.toml");
    std::fs::write(&scen, SCENARIO).unwrap();
    let out = dir.join("report");
    let o = zonedb(&[
        "compare",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

#[test]
fn plots_have_si_ticks_a_full_cdf_and_phase_marks_and_report_rerenders_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let out = compare(tmp.path());
    for name in [
        "throughput",
        "free-space",
        "stalls",
        "sst-lifetimes",
        "latency-cdf",
        "level-sizes",
    ] {
        let svg = std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap();
        let t = texts(&svg);
        assert!(t.len() > 5, "{name}: {t:?}");
        let raw: Vec<&String> = t.iter().filter(|s| raw_number(s)).collect();
        assert!(raw.is_empty(), "{name} has raw tick labels: {raw:?}");
        let png = std::fs::read(out.join(format!("{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    // Latency ticks are times, the CDF's points the histogram's.
    let cdf = texts(&std::fs::read_to_string(out.join("latency-cdf.svg")).unwrap());
    assert!(cdf.iter().any(|t| t.ends_with(" µs")), "{cdf:?}");
    assert!(cdf.iter().any(|t| t.ends_with(" ms")), "{cdf:?}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("compare.json")).unwrap()).unwrap();
    let confs = json["configurations"].as_array().unwrap();
    let most = confs
        .iter()
        .flat_map(|c| c["benchmarks"].as_array().unwrap())
        .map(|b| b["latency_cdf"].as_array().map_or(0, Vec::len))
        .max()
        .unwrap();
    assert!(most > 20, "a CDF of {most} points");
    for c in confs {
        for b in c["benchmarks"].as_array().unwrap() {
            let pts = b["latency_cdf"].as_array().unwrap();
            let q: Vec<f64> = pts.iter().map(|p| p[1].as_f64().unwrap()).collect();
            assert!(q.windows(2).all(|w| w[0] <= w[1]), "not a CDF: {q:?}");
            assert_eq!(q.last().copied(), Some(1.0));
        }
        assert_eq!(c["phases"].as_array().unwrap().len(), 2, "{}", c["phases"]);
    }
    // The second benchmark's start is marked on every time series.
    for name in ["throughput", "free-space", "stalls", "level-sizes"] {
        let t = texts(&std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap());
        assert!(
            t.iter().any(|s| s == "readrandom ▸"),
            "{name} has no phase mark: {t:?}"
        );
    }
    // The HTML table scrolls in its own box under its caption; figures have captions (how it
    // reads at 1400 and 390 px in a browser: tests/browser/run.sh).
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(html.contains("<div class=\"scroll\">\n<table"), "{html}");
    assert!(html.contains("max-width:100%"));
    assert!(html.contains("name=\"viewport\""));
    assert_eq!(html.matches("<figcaption>Figure ").count(), 6);
    assert!(html.contains("<figcaption id=\"table-1\">Table 1. "));
    // `zonedb report DIR` rewrites the same Markdown and HTML from compare.json.
    let (md, html) = (
        std::fs::read(out.join("compare.md")).unwrap(),
        std::fs::read(out.join("compare.html")).unwrap(),
    );
    let svg = std::fs::read(out.join("latency-cdf.svg")).unwrap();
    for f in [
        "compare.md",
        "compare.html",
        "latency-cdf.svg",
        "series-1.csv",
    ] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let o = zonedb(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(out.join("compare.md")).unwrap(), md);
    assert_eq!(std::fs::read(out.join("compare.html")).unwrap(), html);
    assert_eq!(std::fs::read(out.join("latency-cdf.svg")).unwrap(), svg);
    assert!(out.join("series-1.csv").exists());
    // A directory without a report's JSON is a usage error.
    let o = zonedb(&["report", tmp.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// Black polygons of an SVG: the paper's markers (diamonds, floor triangles), one more for
/// each kind in the legend.
fn black_polygons(svg: &str) -> usize {
    svg.split("<polygon")
        .skip(1)
        .filter(|p| p[..p.find("/>").unwrap_or(p.len())].contains("fill=\"#000000\""))
        .count()
}

/// `zonedb report docs/results` (a copy): each study's figures are redrawn from its checked-in
/// `reproduce-<study>.json`, as SVG and PNG, with SI tick labels (no `300000.0`), and every
/// bar the code holds a paper value for carries the paper's marker, with a legend entry.
#[test]
fn study_figures_redraw_from_their_json_with_the_papers_markers() {
    let tmp = tempfile::tempdir().unwrap();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results");
    for study in ["same-zone", "oaza", "splitzns", "hhzs", "znsplus"] {
        let f = format!("reproduce-{study}.json");
        std::fs::copy(results.join(&f), tmp.path().join(&f)).unwrap();
    }
    let o = zonedb(&["report", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // (file, paper markers at least, with the checked-in JSON's cells): SplitZNS over LDP and
    // Gear's and LLC's implied on overwrite and YCSB-A; +diff and +SZR; A-CAZA's PUT, copy and
    // ZC resets; LIZA's and CAZA's copy, WA and MB/s of all three; HHZS's floor on A-F; P+M+C
    // on W4. ZNS+'s slides give ranges, not bars: none.
    let expect = [
        ("reproduce-splitzns-fig9.svg", 6),
        ("reproduce-splitzns-fig10.svg", 0),
        ("reproduce-splitzns-breakdown.svg", 2),
        ("reproduce-same-zone-schemes.svg", 8),
        ("reproduce-oaza-schemes.svg", 8),
        ("reproduce-hhzs-exp1.svg", 6),
        ("reproduce-hhzs-exp2.svg", 1),
        ("reproduce-znsplus-throughput.svg", 0),
        ("reproduce-znsplus-copyback.svg", 0),
    ];
    for (name, marks) in expect {
        let svg = std::fs::read_to_string(tmp.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = texts(&svg);
        let raw: Vec<&String> = t.iter().filter(|s| raw_number(s)).collect();
        assert!(raw.is_empty(), "{name} has raw tick labels: {raw:?}");
        let legend = t.iter().any(|s| s == "paper" || s == "paper: at least");
        let drawn = black_polygons(&svg);
        if marks > 0 {
            assert!(legend, "{name} has no \"paper\" legend entry: {t:?}");
            assert!(
                drawn > marks,
                "{name}: {drawn} black marks (legend included), the paper gives {marks}"
            );
        } else {
            assert!(!legend, "{name} has a paper legend but no paper value");
        }
        // Three seeds: whiskers, said to be 95% intervals (the copyback share is a ratio of
        // summed pages, drawn without).
        assert_eq!(
            t.iter().any(|s| s == "95% interval"),
            name != "reproduce-znsplus-copyback.svg",
            "{name}: {t:?}"
        );
        let png = std::fs::read(tmp.path().join(name).with_extension("png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("reproduce-splitzns-fig9.svg (and .png), from reproduce-splitzns.json: 8 bars, 6 paper markers"),
        "{out}"
    );
}

/// Another run of a study beside its main JSON (`reproduce-splitzns-paper.json`) gets its own
/// figures, named with its tag, and leaves the main run's figures alone; a tagged file that
/// holds another study is refused.
#[test]
fn a_tagged_study_json_draws_figures_named_with_its_tag() {
    let tmp = tempfile::tempdir().unwrap();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results");
    for f in ["reproduce-splitzns.json", "reproduce-splitzns-paper.json"] {
        std::fs::copy(results.join(f), tmp.path().join(f)).unwrap();
    }
    let o = zonedb(&["report", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let main = std::fs::read_to_string(tmp.path().join("reproduce-splitzns-fig9.svg")).unwrap();
    let paper =
        std::fs::read_to_string(tmp.path().join("reproduce-splitzns-paper-fig9.svg")).unwrap();
    assert!(
        tmp.path()
            .join("reproduce-splitzns-paper-fig9.png")
            .exists()
    );
    // The paper-scale run draws its own bars: its figure is not the main run's, and the main
    // run's figure is the one the main JSON draws alone.
    assert_ne!(main, paper, "the tagged run drew the main run's figure");
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(
        results.join("reproduce-splitzns.json"),
        alone.path().join("reproduce-splitzns.json"),
    )
    .unwrap();
    let o2 = zonedb(&["report", alone.path().to_str().unwrap()]);
    assert!(
        o2.status.success(),
        "{}",
        String::from_utf8_lossy(&o2.stderr)
    );
    let main_alone =
        std::fs::read_to_string(alone.path().join("reproduce-splitzns-fig9.svg")).unwrap();
    assert_eq!(
        main, main_alone,
        "the tagged run changed the main run's figure"
    );
    assert!(
        !alone
            .path()
            .join("reproduce-splitzns-paper-fig9.svg")
            .exists()
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "reproduce-splitzns-paper-fig9.svg (and .png), from reproduce-splitzns-paper.json"
        ),
        "{out}"
    );
    std::fs::copy(
        results.join("reproduce-oaza.json"),
        tmp.path().join("reproduce-hhzs-wrong.json"),
    )
    .unwrap();
    let o = zonedb(&["report", tmp.path().to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("reproduce-hhzs-wrong.json: holds study"),
        "{err}"
    );
}
