//! `zonedb fs mkfs|ls|df|dump|fsck` on a file-backed zoned device: files written through the
//! library show up in every tool, `df --json` has its keys, and fsck exits non-zero when the
//! zones no longer hold what the metadata says.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use serde_json::Value;
use zonedb_device::{ZoneFileDevice, ZoneOp, ZonedDevice};
use zonedb_env::RealEnv;
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

use crate::common::zonedb_output as zonedb;

#[test]
fn tools_show_files_and_fsck_finds_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let d = dir.to_str().unwrap();
    let out = zonedb(&[
        "fs",
        "mkfs",
        "--dir",
        d,
        "--profile",
        "splitzns-paper",
        "--scale",
        "1/64",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Write two files through the library.
    let env = RealEnv::new(1);
    let zone_of_sst = {
        let dev = Arc::new(ZoneFileDevice::open(&dir).unwrap());
        let fs = env
            .block_on(ZoneFs::mount(
                env.clone(),
                dev.clone(),
                FsOptions::default(),
            ))
            .unwrap();
        env.block_on(async {
            let mut w = fs.create("000007.sst", Lifetime::Long).await.unwrap();
            w.append(&vec![7u8; 3 << 20]).await.unwrap();
            w.close().await.unwrap();
            let mut l = fs.create("000008.log", Lifetime::Short).await.unwrap();
            l.append(b"wal record").await.unwrap();
            l.sync().await.unwrap();
            l.close().await.unwrap();
        });
        let sst = fs.stat("000007.sst").unwrap();
        dev.geometry().zone_of(sst.extents[0].start).unwrap()
    };
    let ls = zonedb(&["fs", "ls", "--dir", d, "--json"]);
    assert!(ls.status.success());
    let v: Value = serde_json::from_slice(&ls.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"000007.sst") && names.contains(&"000008.log"));
    let df: Value =
        serde_json::from_slice(&zonedb(&["fs", "df", "--dir", d, "--json"]).stdout).unwrap();
    for key in [
        "used_bytes",
        "reclaimable_bytes",
        "free_bytes",
        "space_amplification",
    ] {
        assert!(df[key].is_number(), "df lacks {key}: {df}");
    }
    assert_eq!(df["used_bytes"], (3u64 << 20) + 10);
    let dump: Value = serde_json::from_slice(&zonedb(&["fs", "dump", "--dir", d]).stdout).unwrap();
    assert_eq!(dump["files"].as_array().unwrap().len(), 2);
    assert!(zonedb(&["fs", "fsck", "--dir", d]).status.success());
    // Reset the SST's zone behind the layer's back: fsck must see extents past the write pointer.
    {
        let dev = ZoneFileDevice::open(&dir).unwrap();
        env.block_on(dev.manage(zone_of_sst, ZoneOp::Reset))
            .unwrap();
    }
    let fsck = zonedb(&["fs", "fsck", "--dir", d]);
    assert_eq!(
        fsck.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&fsck.stdout)
    );
    assert!(String::from_utf8_lossy(&fsck.stdout).contains("write pointer"));
    // A directory without a device is a clear error.
    let none = zonedb(&[
        "fs",
        "ls",
        "--dir",
        tmp.path().join("nothing").to_str().unwrap(),
    ]);
    assert_eq!(none.status.code(), Some(2));
}

fn fill_delete_json(cleaner: &str, seed: &str) -> Value {
    let out = zonedb(&[
        "fs",
        "fill-delete",
        "--scale",
        "1/256",
        "--cleaner",
        cleaner,
        "--seed",
        seed,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut().unwrap().remove("host");
    v
}

#[test]
fn fill_delete_runs_out_of_space_without_cleaning_and_keeps_going_with_it() {
    let none = fill_delete_json("none", "3");
    assert_eq!(none["ran_out_of_space"], true, "{none}");
    assert!(none["space_amplification_at_end"].as_f64().unwrap() > 1.1);
    for cleaner in ["greedy", "zenfs"] {
        let v = fill_delete_json(cleaner, "3");
        assert_eq!(v["ran_out_of_space"], false, "{cleaner}: {v}");
        assert!(
            v["stats"]["gc_copied_bytes"].as_u64().unwrap() > 0,
            "{cleaner}: {v}"
        );
        assert!(
            v["user_bytes_written"].as_u64().unwrap() >= 3 * v["capacity_bytes"].as_u64().unwrap()
        );
    }
    // Same seed, same result, byte for byte.
    assert_eq!(
        serde_json::to_string(&fill_delete_json("greedy", "4")).unwrap(),
        serde_json::to_string(&fill_delete_json("greedy", "4")).unwrap()
    );
}

#[test]
fn fill_delete_on_a_znsplus_device_reports_its_counters_and_the_new_figures() {
    let out = zonedb(&[
        "fs",
        "fill-delete",
        "--scale",
        "1/256",
        "--kind",
        "znsplus",
        "--zone-copy",
        "izc",
        "--copyback-aware",
        "false",
        "--threaded-logging",
        "--chips",
        "8",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "znsplus");
    assert_eq!(v["zone_copy"], "izc");
    assert_eq!(v["copyback_aware"], false);
    assert_eq!(v["threaded_logging"], true);
    assert_eq!(v["chips"], 8);
    for k in [
        "copy_commands",
        "copyback_pages",
        "read_program_pages",
        "plug_pages",
        "padding_pages",
        "threaded_opens",
    ] {
        assert!(v["znsplus"][k].is_u64(), "znsplus.{k}: {v}");
    }
    for k in [
        "cleaning_time_ns",
        "host_link_bytes",
        "metadata_write_bytes",
        "threaded_logging_share",
        "ops_per_s",
        "latency_us_p99",
    ] {
        assert!(v[k].is_number(), "{k}: {v}");
    }
    assert!(v["ops_per_s"].as_f64().unwrap() > 0.0);
    // The existing fields stay.
    for k in ["ran_out_of_space", "user_bytes_written", "stats", "profile"] {
        assert!(v.get(k).is_some(), "{k}");
    }
    // A ZNS SSD has no ZNS+ counters; IZC and threaded logging need a ZNS+ device.
    let zns = fill_delete_json("greedy", "3");
    assert!(zns.get("znsplus").is_none());
    assert_eq!(zns["chips"], 16);
    for flags in [&["--zone-copy", "izc"][..], &["--threaded-logging"][..]] {
        let mut args = vec!["fs", "fill-delete", "--scale", "1/256"];
        args.extend_from_slice(flags);
        assert_eq!(zonedb(&args).status.code(), Some(2), "{flags:?}");
    }
    let bad = zonedb(&["fs", "fill-delete", "--scale", "1/256", "--chips", "12"]);
    assert_eq!(bad.status.code(), Some(2));
}
