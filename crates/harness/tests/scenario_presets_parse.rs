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
