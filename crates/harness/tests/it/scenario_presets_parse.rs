//! Every scenario preset shipped in `scenarios/` parses and names valid options, devices,
//! policies and benchmarks (so `zonedb compare scenarios/X.toml` cannot fail on its input).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment::profile_of;
use zonedb_harness::scenario::Scenario;

#[test]
fn every_preset_parses_into_valid_configurations() {
    // Presets name YCSB files relative to the repository root.
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
    let dir = "scenarios";
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let configs = Scenario::configurations(&std::fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            // The papers' full-size set-ups are there to be run as they are.
            let paper_size = p.to_string_lossy().ends_with("-paper.toml");
            assert!(
                configs.len() >= 2 || paper_size,
                "{}: a preset compares something",
                p.display()
            );
            for c in &configs {
                profile_of(c).unwrap();
                c.db_options().unwrap();
            }
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} presets found");
}

/// `scenarios/splitzns-paper-ycsb-sequence.toml` runs the SplitZNS study's own paper-scale
/// cells (35 GiB unique load) for YCSB-B, C, F, D and E, one after another on one load: each
/// configuration's device, file layer, engine, load and every workload phase equal the
/// study's cell of that scheme and workload.
#[test]
fn the_paper_ycsb_sequence_is_the_studys_cells_on_one_load() {
    use zonedb_harness::reproduce::ReproScale;
    use zonedb_harness::reproduce::splitzns::{
        Load, LoadForm, OverwriteKeys, Variant, scenario_with,
    };
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
    let text = std::fs::read_to_string("scenarios/splitzns-paper-ycsb-sequence.toml").unwrap();
    let configs = Scenario::configurations(&text).unwrap();
    let load = Load::sized(LoadForm::Unique, Some(35.0)).unwrap();
    let schemes = ["LDP", "Gear", "LLC", "SplitZNS"];
    assert_eq!(configs.len(), schemes.len());
    for (c, scheme) in configs.iter().zip(schemes) {
        assert_eq!(c.name, scheme);
        let phases = c.workload.ycsb_phases().unwrap();
        let order = ["ycsb-b", "ycsb-c", "ycsb-f", "ycsb-d", "ycsb-e"];
        assert_eq!(phases.len(), 1 + order.len());
        for (i, w) in order.into_iter().enumerate() {
            let form = (OverwriteKeys::Spread, load);
            let cell = scenario_with(scheme, w, ReproScale::Paper, 1, Variant::Base, form).unwrap();
            let want = cell.workload.ycsb_phases().unwrap();
            assert_eq!(want.len(), 2, "{scheme} {w}");
            assert_eq!(phases[0], want[0], "{scheme}: the load");
            assert_eq!(phases[i + 1], want[1], "{scheme} {w}");
            assert_eq!(c.device, cell.device, "{scheme}");
            assert_eq!(c.fs, cell.fs, "{scheme}");
            assert_eq!(
                c.db_options().unwrap(),
                cell.db_options().unwrap(),
                "{scheme}"
            );
            assert_eq!(
                (c.seed, c.host_cores, c.workload.ycsb_load),
                (cell.seed, cell.host_cores, cell.workload.ycsb_load)
            );
        }
    }
}
