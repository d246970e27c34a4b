//! `scenarios/splitzns-selective.toml` (SplitZNS's selective allocator on the SplitZNS device)
//! run end to end through the harness, scaled down: `splitzns-paper` at 1/64 (8 MiB zones in
//! 16 subzones of 512 KiB), 256 KiB SSTs, subzones from L2 on so they are really used,
//! db_bench fillrandom then overwrite. The run's invariants (fsck, full scan, sampled reads)
//! must pass, SSTs must have gone to subzones and come back by MERGE, and no more zones than
//! the cap may have been split.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::scenario::Scenario;

fn preset() -> Vec<Scenario> {
    let path = format!(
        "{}/../../scenarios/splitzns-selective.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::configurations(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `s` at scale 1/64 with small SSTs and levels, `num` puts then 4 x `then_num` overwrites.
fn small(mut s: Scenario, num: u64, then_num: i64) -> Scenario {
    s.device.scale = "1/64".into();
    for (k, v) in [
        ("write_buffer_size", 1 << 20),
        ("target_file_size_base", 256 << 10),
        ("max_bytes_for_level_base", 1 << 20),
        ("max_background_jobs", 2),
    ] {
        s.engine.insert(k.into(), toml::Value::Integer(v));
    }
    s.fs.selective_min_level = 2;
    s.workload.num = num;
    for t in &mut s.workload.then {
        t.insert("num".into(), toml::Value::Integer(then_num));
    }
    s.sample_interval_ms = 100;
    s
}

#[test]
fn the_preset_compares_selective_splitzns_with_liza_on_zns() {
    let c = preset();
    assert_eq!(c.len(), 2);
    assert_eq!(
        (c[0].fs.placement.as_str(), c[0].device.kind.as_deref()),
        ("selective", Some("splitzns"))
    );
    assert_eq!(
        (c[0].fs.selective_min_level, c[0].fs.selective_max_split_pct),
        (4, 60)
    );
    assert_eq!(
        (c[1].fs.placement.as_str(), c[1].device.kind.as_deref()),
        ("liza", Some("zns"))
    );
    // A 30 MiB SST fits a 32 MiB subzone of the paper's device.
    let p = experiment::profile_of(&c[0]).unwrap();
    let sub = p.zones.zone_capacity_bytes / u64::from(p.chips_per_zone);
    let target = c[0].db_options().unwrap().target_file_size_base;
    assert!(target < sub, "{target} vs {sub}");
}

#[test]
fn fillrandom_and_overwrite_use_subzones_and_pass_the_invariants() {
    let s = small(preset().remove(0), 40_000, 2_500);
    let r = experiment::run(&s).unwrap();
    let ops: Vec<(&str, u64)> = r
        .benchmarks
        .iter()
        .map(|b| (b.name.as_str(), b.ops))
        .collect();
    assert_eq!(ops, [("fillrandom", 40_000), ("overwrite", 10_000)]);
    let fs = &r.fs;
    assert!(fs.split.subzone_allocations > 0, "{fs:?}");
    assert!(fs.split.subzone_merges > 0, "{fs:?}");
    assert!(fs.split.zone_splits > 0, "{fs:?}");
    // 60 % of the 157 IO zones.
    assert!(fs.split.split_zones_peak <= 94, "{fs:?}");
    // 256 KiB SSTs always fit a 512 KiB subzone.
    assert_eq!(fs.split.subzone_oversize_fallbacks, 0, "{fs:?}");
    let json = serde_json::to_string(&r.fs).unwrap();
    assert!(json.contains("\"subzone_allocations\""), "{json}");
}

#[test]
fn a_run_that_fills_the_device_says_where_the_space_went() {
    let mut s = small(preset().remove(0), 0, 0);
    s.device.scale = "1/256".into();
    s.engine.insert(
        "target_file_size_base".into(),
        toml::Value::Integer(120 << 10),
    );
    s.workload.benchmarks = "filluniquerandom".into();
    // 400 MiB of unique keys on a device of 160 zones of 2 MiB.
    s.workload.num = 400_000;
    s.workload.then.clear();
    let e = experiment::run(&s).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, zonedb_harness::error::HarnessError::OutOfSpace { .. }),
        "{msg}"
    );
    for part in [
        "no space left",
        "tree ",
        "SSTs outside the tree",
        "compactions running",
        "compactions out of space",
        "wide zones ",
        "split zones ",
        "subzones ",
        " live",
        " garbage",
    ] {
        assert!(msg.contains(part), "{part:?} missing from {msg}");
    }
    let zonedb_harness::error::HarnessError::OutOfSpace { at, .. } = e else {
        unreachable!()
    };
    // Everything written is accounted for: live, garbage or free, in either kind of zone.
    for r in [at.zones.wide, at.zones.subzones] {
        assert_eq!(r.written_bytes + r.free_bytes, r.capacity_bytes, "{r:?}");
        assert!(r.live_bytes <= r.written_bytes, "{r:?}");
    }
    assert!(at.zones.split_zones > 0);
    assert!(at.level_bytes.iter().sum::<u64>() > 0);
}

/// What a run measured, as JSON (the scenario itself left out).
fn measured(r: &experiment::RunReport) -> serde_json::Value {
    serde_json::json!({
        "benchmarks": r.benchmarks,
        "db": r.db,
        "fs": r.fs,
        "device": r.device,
        "end_ns": r.end_ns,
    })
}

/// The ablations of the results file move one difference at a time, which holds only if a
/// SplitZNS device that splits nothing, with the die order of a plain ZNS device (FIFO: Read
/// Scheduler off), is that device, and the selective allocator with no split allowed is LIZA:
/// the same run, to the byte.
#[test]
fn selective_with_nothing_split_on_the_splitzns_device_is_liza_on_zns() {
    let mut c = preset();
    let mut split = small(c.remove(0), 20_000, 1_250);
    split.fs.selective_max_split_pct = 0;
    split.device.splitzns = Some(zonedb_device::SplitZnsConfig {
        read_scheduler: false,
        ..zonedb_device::SplitZnsConfig::default()
    });
    let liza = small(c.remove(0), 20_000, 1_250);
    let (a, b) = (
        experiment::run(&split).unwrap(),
        experiment::run(&liza).unwrap(),
    );
    assert_eq!(a.fs.split.zone_splits, 0, "{:?}", a.fs);
    assert!(a.db.compactions > 0, "{:?}", a.db);
    // Deep SSTs were written, and went to wide zones.
    assert!(a.fs.split.subzone_fallbacks > 0, "{:?}", a.fs);
    // The selective allocator counts its own decisions (SSTs placed with their level known,
    // deep SSTs sent to a wide zone for want of a subzone); LIZA keeps no such counts.
    let (mut ma, mut mb) = (measured(&a), measured(&b));
    for m in [&mut ma, &mut mb] {
        if let Some(fs) = m["fs"].as_object_mut() {
            fs.remove("sst_context_allocations");
            fs.remove("subzone_fallbacks");
        }
    }
    let differ = differences("", &ma, &mb);
    assert!(differ.is_empty(), "{differ:#?}");
}

/// The paths where two JSON values differ, with both sides.
fn differences(path: &str, a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let (l, r) = (
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    );
                    differences(&format!("{path}.{k}"), l, r)
                })
                .collect()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (l, r))| differences(&format!("{path}[{i}]"), l, r))
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{path}: {a} vs {b}")],
    }
}
