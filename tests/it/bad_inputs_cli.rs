//! Bad input never runs: each of these exits with status 2 and an error naming what is wrong
//! (the flag or property and its range), before any work. The table is the one in
//! `docs/bad-inputs.md`.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

/// (arguments, text the error must contain).
const BAD: &[(&[&str], &str)] = &[
    (&["bench", "--threads", "100000"], "--threads"),
    (&["bench", "--bloom_bits", "-7"], "--bloom_bits"),
    (&["bench", "--batch_size", "0"], "--batch_size"),
    (
        &["bench", "--readwritepercent", "150"],
        "--readwritepercent",
    ),
    (&["bench", "--reads", "-2"], "--reads"),
    (&["bench", "--benchmarks", ""], "--benchmarks"),
    (
        &["bench", "--benchmarks", "fillrandom,nosuch"],
        "unknown benchmark 'nosuch'",
    ),
    (&["bench", "--num", "0"], "--num"),
    (&["bench", "--key_size", "4"], "--key_size"),
    (&["bench", "--scale", "1/0"], "scale"),
    (&["bench", "--profile", "nosuch"], "unknown profile"),
    (
        &["bench", "--placement", "nosuch"],
        "unknown placement 'nosuch'; known: liza,",
    ),
    (
        &["bench", "--placement", "liza+nosuch"],
        "placement 'liza+nosuch': unknown key 'nosuch'",
    ),
    (
        &["bench", "--cleaner", "nosuch"],
        "unknown cleaner 'nosuch'; known: none, greedy, zenfs",
    ),
    (
        &["bench", "--scheduler", "nosuch"],
        "unknown scheduler 'nosuch'; known: fifo, priority, query-first",
    ),
    (
        &["ycsb", "-P", "/nonexistent/workload", "load"],
        "/nonexistent/workload: No such file or directory",
    ),
    (&["bench", "--write_buffer_size", "0"], "write_buffer_size"),
    (
        &["bench", "--max_bytes_for_level_multiplier", "0.5"],
        "max_bytes_for_level_multiplier",
    ),
    (
        &[
            "fs",
            "mkfs",
            "--dir",
            "/nonexistent/x",
            "--finish-threshold",
            "150",
        ],
        "--finish-threshold",
    ),
    (&["fs", "fill-delete", "--live-pct", "150"], "--live-pct"),
    (
        &["fs", "fill-delete", "--gc-threshold", "101"],
        "--gc-threshold",
    ),
    (
        &[
            "device",
            "bench",
            "--profile",
            "tiny",
            "--workload",
            "seq-write",
            "--zones",
            "0",
        ],
        "--zones",
    ),
    (
        &[
            "device",
            "bench",
            "--profile",
            "tiny",
            "--workload",
            "mixed",
            "--read-pct",
            "200",
        ],
        "--read-pct",
    ),
    (
        &[
            "device",
            "bench",
            "--profile",
            "tiny",
            "--workload",
            "seq-write",
            "--qd",
            "0",
        ],
        "--qd",
    ),
];

/// Sizes and counts that would grow memory or time without bound (issue 46): refused with
/// the limit named, before any work (a device file that does not exist is never created).
const UNBOUNDED: &[(&[&str], &str)] = &[
    (&["bench", "--value_size", "1000000000000"], "0..=67108864"),
    (
        &[
            "crashtest",
            "write",
            "--dir",
            "/nonexistent/d",
            "--ack",
            "/nonexistent/a",
            "--value_size",
            "1000000000000",
        ],
        "0..=67108864",
    ),
    (
        &[
            "torture",
            "--first_seed",
            "18446744073709551615",
            "--seeds",
            "10",
        ],
        "--first_seed 18446744073709551615 --seeds 10",
    ),
    (&["reproduce", "oaza", "--seeds", "0"], "--seeds"),
    (&["reproduce", "oaza", "--seeds", "1001"], "1..=1000"),
    (
        &[
            "reproduce",
            "oaza",
            "--seed",
            "18446744073709551615",
            "--seeds",
            "2",
        ],
        "would run past",
    ),
    (&["reproduce", "oaza", "--jobs", "0"], "--jobs"),
    (&["compare", "--jobs", "0"], "--jobs"),
    (&["sweep", "/nonexistent/s.toml", "--jobs", "0"], "--jobs"),
    (&["run", "/dev/zero"], "16 MiB"),
    (&["compare", "/dev/zero"], "16 MiB"),
    (&["sweep", "/dev/zero"], "16 MiB"),
    (&["ycsb", "-P", "/dev/zero", "load"], "16 MiB"),
    (&["bench", "--options_file", "/dev/zero"], "16 MiB"),
];

/// YCSB properties (`-p`) that must be refused.
const BAD_YCSB: &[(&str, &str)] = &[
    ("readproportion=1.5", "readproportion"),
    ("updateproportion=-0.5", "updateproportion"),
    ("zipfianconstant=0.5", "zipfianconstant"),
    ("hotspotdatafraction=2", "hotspotdatafraction"),
    ("insertorder=sideways", "insertorder"),
    ("scanlengthdistribution=normal", "scanlengthdistribution"),
    ("threadcount=100000", "threadcount"),
    ("fieldcount=18446744073709551615", "fieldcount"),
    ("maxscanlength=18446744073709551615", "maxscanlength"),
    ("fieldlength=100000000", "fieldlength"),
    ("zeropadding=1000000000000", "zeropadding"),
];

fn refused(args: &[&str], want: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(want),
        "{args:?}: the error does not name {want}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(out.stdout.is_empty() || !String::from_utf8_lossy(&out.stdout).contains("micros/op"));
}

#[test]
fn bad_flags_exit_2_naming_the_flag() {
    for (args, want) in BAD {
        refused(args, want);
    }
}

#[test]
fn unbounded_sizes_exit_2_naming_the_limit() {
    if !std::path::Path::new("/dev/zero").exists() {
        eprintln!("no /dev/zero: its rows are skipped");
    }
    for (args, want) in UNBOUNDED {
        if args.contains(&"/dev/zero") && !std::path::Path::new("/dev/zero").exists() {
            continue;
        }
        refused(args, want);
    }
}

/// Scenario and sweep files with unbounded sizes, or a name with a NUL: refused when parsed,
/// naming the key and the limit.
#[test]
fn unbounded_scenario_and_sweep_files_exit_2_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let values = |n: usize| (0..n).map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
    let files = [
        (
            "S.toml",
            "name = \"v\"\n[workload]\nvalue_size = 1000000000000\n".to_owned(),
            "workload.value_size: must be at most 67108864 (64 MiB), not 1000000000000",
        ),
        (
            "T.toml",
            "name = \"v\"\n[[workload.then]]\nvalue_size = 1000000000000\n".to_owned(),
            "workload.then[0].value_size: must be at most 67108864 (64 MiB), not 1000000000000",
        ),
        (
            "N.toml",
            "name = \"a\\u0000b\"\n".to_owned(),
            "control character U+0000",
        ),
        (
            "V.toml",
            "name = \"base\"\n[[compare]]\nname = \"x\\u0007\"\n".to_owned(),
            "control character U+0007",
        ),
        (
            "Y.toml",
            "name = \"y\"\n[workload]\nkind = \"ycsb\"\nycsb_file = \"/dev/zero\"\n".to_owned(),
            "16 MiB",
        ),
    ];
    for (file, text, want) in &files {
        let path = tmp.path().join(file);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        refused(&["run", p], want);
        refused(&["compare", p], want);
    }
    let sweeps = [
        (
            "G.toml",
            format!(
                "scenario = {{}}\n[grid]\n\"workload.num\" = [{}]\n\"workload.reads\" = [{}]\n\"workload.seek_nexts\" = [{}]\n",
                values(100),
                values(100),
                values(200)
            ),
            "2000000 configurations x 1 seeds is more than 10000 runs",
        ),
        (
            "W.toml",
            "scenario = {}\nseeds = 1000000000\n".to_owned(),
            "1000000000 seeds is more than 10000 runs",
        ),
    ];
    for (file, text, want) in &sweeps {
        let path = tmp.path().join(file);
        std::fs::write(&path, text).unwrap();
        let out = tmp.path().join("out");
        refused(
            &[
                "sweep",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            want,
        );
        assert!(!out.exists(), "{file}: the sweep wrote its directory");
    }
}

#[test]
fn bad_ycsb_properties_exit_2_naming_the_property() {
    for (p, want) in BAD_YCSB {
        refused(
            &[
                "ycsb",
                "-P",
                "workloads/workloada",
                "-p",
                "recordcount=100",
                "-p",
                p,
                "load",
            ],
            want,
        );
    }
    refused(
        &[
            "ycsb",
            "-P",
            "workloads/workloada",
            "-p",
            "readproportion=0",
            "-p",
            "updateproportion=0",
            "run",
        ],
        "proportions",
    );
}

fn zonedb(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A device without a file system: each command names the fix that applies to it (not a
/// generic "run mkfs" where `--fresh` is the fix), and nothing is written to the device.
#[test]
fn a_device_without_a_file_system_names_the_fix_for_each_command() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("dev");
    let p = zonedb_device::Profile::by_name("splitzns-paper")
        .unwrap()
        .scaled(64)
        .unwrap();
    drop(zonedb_device::ZoneFileDevice::create(&d, p.zones).unwrap());
    let d = d.to_str().unwrap();
    let ack = tmp.path().join("ack");
    let ack = ack.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "crashtest",
                "write",
                "--dir",
                d,
                "--ack",
                ack,
                "--count",
                "1",
            ],
            "add --fresh to format it",
        ),
        (
            &["crashtest", "verify", "--dir", d, "--ack", ack],
            "nothing to verify",
        ),
        (&["fs", "df", "--dir", d], "zonedb fs mkfs"),
        (
            &[
                "bench",
                "--mode",
                "real",
                "--db",
                d,
                "--use_existing_db",
                "--benchmarks",
                "readseq",
            ],
            "run without it",
        ),
    ];
    std::fs::write(tmp.path().join("ack"), "").unwrap();
    for (args, want) in cases {
        let (code, err) = zonedb(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("no ZoneDB file system"), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want '{want}': {err}");
    }
}

/// A device directory missing its zone-state file: the error names the file.
#[test]
fn a_missing_zones_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("dev");
    let d = d.to_str().unwrap();
    let (code, err) = zonedb(&["fs", "mkfs", "--dir", d]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::remove_file(tmp.path().join("dev").join("ZONES")).unwrap();
    for args in [
        &["fs", "fsck", "--dir", d][..],
        &["bench", "--mode", "real", "--db", d, "--use_existing_db"][..],
    ] {
        let (code, err) = zonedb(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("ZONES"), "{args:?}: {err}");
    }
}

/// A device directory missing its lock file: fsck's error names the file.
#[test]
fn a_missing_lock_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = tmp.path().join("dev");
    let d = dev.to_str().unwrap();
    let (code, err) = zonedb(&["fs", "mkfs", "--dir", d, "--scale", "1/512"]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::remove_file(dev.join("LOCK")).unwrap();
    let (code, err) = zonedb(&["fs", "fsck", "--dir", d]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&dev.join("LOCK").display().to_string()),
        "{err}"
    );
}
