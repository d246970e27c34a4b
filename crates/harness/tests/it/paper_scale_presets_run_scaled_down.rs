//! The papers' full-size scenario files (`scenarios/caza-paper.toml`,
//! `scenarios/splitzns-paper.toml`) parse, say what `zonedb reproduce same-zone --scale paper`
//! runs, and run once scaled down (at full size they take far longer than a test).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::reproduce::{self, AUTHORS_FILLRANDOM_PUTS, Plan, ReproScale, StudyId};
use zonedb_harness::scenario::Scenario;

fn preset(name: &str) -> Vec<Scenario> {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    Scenario::configurations(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `s` with its name and variants cleared, to compare configurations.
fn unnamed(s: &Scenario) -> Scenario {
    Scenario {
        name: String::new(),
        compare: Vec::new(),
        ..s.clone()
    }
}

#[test]
fn caza_paper_is_the_same_zone_studys_paper_scale() {
    let plan = Plan {
        seeds: vec![1],
        text_forms: false,
        ablation: false,
        sweep: false,
        workloads: vec!["fillrandom".into()],
        breakdown: false,
        overwrite_keys: reproduce::splitzns::OverwriteKeys::default(),
        load: reproduce::splitzns::Load::default(),
    };
    let cells = reproduce::cells(StudyId::SameZone, ReproScale::Paper, &plan).unwrap();
    let fillrandom: Vec<&Scenario> = cells
        .iter()
        .filter(|c| c.group == "scheme")
        .map(|c| &c.scenario)
        .collect();
    let file = preset("caza-paper.toml");
    assert_eq!(file.len(), fillrandom.len());
    for (f, c) in file.iter().zip(fillrandom) {
        assert_eq!(f.name, c.name);
        assert_eq!(unnamed(f), unnamed(c), "{}", f.name);
    }
    assert_eq!(file[0].workload.num, AUTHORS_FILLRANDOM_PUTS);
    assert_eq!(file[0].device.scale, "1/1");
}

#[test]
fn splitzns_paper_loads_then_overwrites_with_four_threads() {
    let s = &preset("splitzns-paper.toml")[0];
    let p = experiment::profile_of(s).unwrap();
    assert_eq!(p.zones.zone_count, 160);
    assert_eq!(p.zones.zone_capacity_bytes, 512 << 20);
    let phases = s.workload.phases().unwrap();
    assert_eq!(phases.len(), 2);
    let loaded = phases[0].num * phases[0].value_size as u64;
    assert_eq!(loaded, 50 << 30);
    // 4 threads x 1 M overwrites spread over every loaded key (db_bench's `--writes`).
    assert_eq!(
        (
            phases[1].benchmarks.as_str(),
            phases[1].threads,
            phases[1].num,
            phases[1].writes
        ),
        ("overwrite", 4, phases[0].num, Some(1_000_000))
    );
    assert_eq!(
        experiment::planned_ops(s).unwrap(),
        phases[0].num + 4_000_000
    );
}

/// `s` at 1/`div` of its device and engine sizes with `num` puts and `then_num` per thread in
/// every later phase (its writes over the `num` keys where the phase sets `writes`).
fn scaled_down(mut s: Scenario, div: i64, num: u64, then_num: i64) -> Scenario {
    s.device.scale = format!("1/{div}");
    for k in [
        "write_buffer_size",
        "target_file_size_base",
        "max_bytes_for_level_base",
    ] {
        if let Some(toml::Value::Integer(v)) = s.engine.get_mut(k) {
            *v /= div;
        }
    }
    s.fs.page_cache_size /= u64::try_from(div).unwrap();
    s.workload.num = num;
    for t in &mut s.workload.then {
        if t.contains_key("writes") {
            t.insert("writes".into(), toml::Value::Integer(then_num));
            t.insert(
                "num".into(),
                toml::Value::Integer(i64::try_from(num).unwrap()),
            );
        } else {
            t.insert("num".into(), toml::Value::Integer(then_num));
        }
    }
    s
}

#[test]
fn paper_presets_run_scaled_down() {
    let caza = scaled_down(preset("caza-paper.toml").remove(0), 256, 20_000, 0);
    let r = experiment::run(&caza).unwrap();
    assert_eq!(r.benchmarks[0].ops, 20_000);
    let split = scaled_down(preset("splitzns-paper.toml").remove(0), 256, 20_000, 1_000);
    let r = experiment::run(&split).unwrap();
    let ops: Vec<(&str, u64)> = r
        .benchmarks
        .iter()
        .map(|b| (b.name.as_str(), b.ops))
        .collect();
    assert_eq!(ops, [("fillrandom", 20_000), ("overwrite", 4_000)]);
}
