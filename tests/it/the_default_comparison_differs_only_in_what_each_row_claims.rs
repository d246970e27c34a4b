//! The README's main job (`scenarios/default.toml`, what `zonedb compare` runs with no
//! argument): every row differs from ZenFS's default in exactly the keys its paper claims
//! (the fairness rule of the studies), in at least one of them, and no two rows are the same
//! configuration.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;

use zonedb_harness::reproduce::fairness::flatten;
use zonedb_harness::scenario::Scenario;

/// What each row claims to change: its paper's mechanisms.
fn claimed(row: &str) -> &'static [&'static str] {
    match row {
        "greedy GC" => &["fs.cleaner", "fs.gc_threshold"],
        "CAZA-ADV + ZACA" => &["fs.placement", "engine.compaction_scheme"],
        "SplitZNS" => &["device.kind", "device.splitzns", "fs.placement"],
        "ZNS+ (IZC + TL)" => &[
            "device.kind",
            "fs.cleaner",
            "fs.gc_threshold",
            "fs.zone_copy",
            "fs.copyback_aware",
            "fs.threaded_logging",
        ],
        "CAZA-ADV + ZACA + greedy, SplitZNS dev." => &[
            "device.kind",
            "device.splitzns",
            "fs.placement",
            "fs.cleaner",
            "fs.gc_threshold",
            "engine.compaction_scheme",
        ],
        other => panic!("row {other:?} declares nothing: add what it claims here"),
    }
}

#[test]
fn the_default_comparison_differs_only_in_what_each_row_claims() {
    let path = format!("{}/scenarios/default.toml", env!("CARGO_MANIFEST_DIR"));
    let rows = Scenario::configurations(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        rows.len() >= 6,
        "one row per paper's idea and a combination"
    );
    // `compare` lists the variants (on the first configuration only): not a setting.
    let settings = |s: &Scenario| {
        let mut f = flatten(s);
        f.remove("compare");
        f
    };
    let base = settings(&rows[0]);
    let mut seen = BTreeSet::new();
    for r in &rows {
        let f = settings(r);
        assert!(
            seen.insert(format!("{f:?}")),
            "{} repeats another row",
            r.name
        );
        if r.name == rows[0].name {
            continue;
        }
        let keys: BTreeSet<&String> = base
            .keys()
            .chain(f.keys())
            .filter(|k| base.get(*k) != f.get(*k))
            .collect();
        assert!(!keys.is_empty(), "{} changes nothing", r.name);
        let claims = claimed(&r.name);
        for k in keys {
            assert!(
                claims
                    .iter()
                    .any(|c| k == c || k.strip_prefix(c).is_some_and(|t| t.starts_with('.'))),
                "{} changes {k}, which it does not claim",
                r.name
            );
        }
    }
}
