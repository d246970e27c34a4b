//! `zonedb fs fsck` checks what the engine keeps, not only the zone layer's extents: a byte
//! flipped in an SST's data block, filter, index or footer, in `CURRENT` or in the MANIFEST is
//! a problem naming the file (exit 1), where fsck once said `clean` to all of them while reads
//! failed with checksum errors; `--quick` keeps the zone layer's check alone. A zone whose
//! write pointer went back under a complete SST: fsck names the file and the zone, and a
//! writable open refuses the device instead of cutting the SST (it once cut 132,818 bytes to
//! 126,976, fsck said clean, and every scan failed with `file too short for a footer`).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn zonedb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap()
}

/// The files of the device in `d` (`fs ls --json`).
fn files(d: &str) -> Vec<Value> {
    let out = zonedb(&["fs", "ls", "--dir", d, "--json"]);
    assert!(out.status.success());
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// `file`'s entry in `files`.
fn file<'a>(files: &'a [Value], name: &str) -> &'a Value {
    files.iter().find(|f| f["name"] == name).unwrap()
}

/// The device offset of byte `at` of file `f`.
fn device_offset(f: &Value, mut at: u64) -> u64 {
    for e in f["extents"].as_array().unwrap() {
        let len = e["len"].as_u64().unwrap();
        if at < len {
            return e["start"].as_u64().unwrap() + at;
        }
        at -= len;
    }
    panic!("offset past the end of {}", f["name"]);
}

/// Flips every bit of byte `at` of file `f` in `DATA` (a second call undoes it).
fn flip(dir: &Path, f: &Value, at: u64) {
    let data = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("DATA"))
        .unwrap();
    let off = device_offset(f, at);
    let mut b = [0u8];
    data.read_exact_at(&mut b, off).unwrap();
    data.write_all_at(&[b[0] ^ 0xFF], off).unwrap();
}

/// Bytes `[at, at + len)` of file `f`.
fn read(dir: &Path, f: &Value, at: u64, len: usize) -> Vec<u8> {
    let data = std::fs::File::open(dir.join("DATA")).unwrap();
    let mut b = vec![0u8; len];
    data.read_exact_at(&mut b, device_offset(f, at)).unwrap();
    b
}

/// `fs fsck` of `d`: its exit status and stdout.
fn fsck(d: &str, quick: bool) -> (Option<i32>, String) {
    let mut args = vec!["fs", "fsck", "--dir", d];
    if quick {
        args.push("--quick");
    }
    let out = zonedb(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A byte of `name` at `at` flipped: fsck exits 1 with a problem line naming the file and
/// saying `what`; flipped back, fsck is clean again.
fn damage_is_found(dir: &Path, name: &str, at: u64, what: &str) {
    let d = dir.to_str().unwrap();
    let fs = files(d);
    let f = file(&fs, name);
    flip(dir, f, at);
    let (code, out) = fsck(d, false);
    assert_eq!(code, Some(1), "{name} byte {at}: {out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("{name}: ")) && l.contains(what)),
        "{name} byte {at}: no line naming it with {what:?}:\n{out}"
    );
    if name.ends_with(".sst") {
        // The zone layer's check alone sees nothing wrong.
        let (code, quick) = fsck(d, true);
        assert_eq!(code, Some(0), "--quick: {quick}");
    }
    flip(dir, f, at);
    let (code, out) = fsck(d, false);
    assert_eq!(code, Some(0), "after undoing the flip: {out}");
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// A CRC32C (Castagnoli) as the zone file device's records carry.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn fsck_finds_damaged_ssts_current_and_manifest_and_the_open_refuses_a_cut_sst() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let d = dir.to_str().unwrap();
    let out = zonedb(&[
        "bench",
        "--mode",
        "real",
        "--db",
        d,
        "--benchmarks",
        "fillrandom",
        "--num",
        "40000",
        "--scale",
        "1/64",
        "--write_buffer_size",
        "1048576",
        "--target_file_size_base",
        "131072",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, clean) = fsck(d, false);
    assert_eq!(code, Some(0), "{clean}");
    assert!(clean.contains("live SSTs and"), "{clean}");

    let fs = files(d);
    let sst = fs
        .iter()
        .find(|f| f["name"].as_str().unwrap().ends_with(".sst"))
        .unwrap();
    let name = sst["name"].as_str().unwrap().to_owned();
    let size = sst["size_bytes"].as_u64().unwrap();
    // The footer's last 64 bytes: handles of the index, filter and properties blocks.
    let footer = read(&dir, sst, size - 64, 64);
    let (index, filter) = (u64_at(&footer, 0), u64_at(&footer, 16));
    assert!(u64_at(&footer, 24) > 0, "the table has a filter");

    damage_is_found(
        &dir,
        &name,
        10,
        "data block 0: offset 0: block checksum mismatch",
    );
    damage_is_found(
        &dir,
        &name,
        index + 3,
        "footer, properties, filter or index",
    );
    damage_is_found(
        &dir,
        &name,
        filter + 3,
        "footer, properties, filter or index",
    );
    damage_is_found(&dir, &name, size - 60, "footer checksum mismatch");
    damage_is_found(&dir, &name, size - 3, "bad table magic");
    damage_is_found(&dir, "CURRENT", 2, "CURRENT does not name a MANIFEST");
    let manifest = fs
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .find(|n| n.starts_with("MANIFEST-"))
        .unwrap()
        .to_owned();
    damage_is_found(&dir, &manifest, 20, "damaged MANIFEST");

    // An SST written last into its zone (no file's extent there ends after it): the zone's
    // write pointer goes back to 8 KiB below the SST's padded end (a full zone becomes a
    // closed one there).
    let zones = std::fs::read(dir.join("ZONES")).unwrap();
    let zone_size = 8u64 << 20; // splitzns-paper at 1/64
    let end_of = |e: &Value| e["start"].as_u64().unwrap() + e["len"].as_u64().unwrap();
    let extents = |f: &Value| f["extents"].as_array().unwrap().clone();
    let (cut, zone, end) = fs
        .iter()
        .filter(|f| f["name"].as_str().unwrap().ends_with(".sst"))
        .map(|f| {
            let end = end_of(extents(f).last().unwrap());
            (f, (end - 1) / zone_size, end)
        })
        .find(|(f, z, end)| {
            fs.iter().filter(|g| g["name"] != f["name"]).all(|g| {
                extents(g)
                    .iter()
                    .all(|e| end_of(e) <= *end || (end_of(e) - 1) / zone_size != *z)
            })
        })
        .unwrap();
    let cut = cut["name"].as_str().unwrap().to_owned();
    let z = usize::try_from(zone).unwrap();
    let mut rec = zones[64 * z..64 * z + 64].to_vec();
    let wp = end.div_ceil(4096) * 4096 - 8192;
    rec[0] = 4; // closed
    let programmed = u64_at(&rec, 16).min(wp - zone * zone_size);
    rec[8..16].copy_from_slice(&wp.to_le_bytes());
    rec[16..24].copy_from_slice(&programmed.to_le_bytes());
    let crc = crc32c(&rec[..60]);
    rec[60..64].copy_from_slice(&crc.to_le_bytes());
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("ZONES"))
        .unwrap()
        .write_all_at(&rec, 64 * zone)
        .unwrap();

    let (code, out) = fsck(d, false);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("{cut}: extent at "))
                && l.contains(&format!("runs past zone {zone}'s write pointer {wp}"))),
        "{out}"
    );
    // The engine's check names it too: its blocks past the write pointer cannot be read.
    assert!(out.contains(&format!("{cut}: unreadable")), "{out}");
    let open = zonedb(&[
        "bench",
        "--mode",
        "real",
        "--db",
        d,
        "--use_existing_db",
        "--benchmarks",
        "readseq",
        "--num",
        "100",
        "--scale",
        "1/64",
    ]);
    let err = String::from_utf8_lossy(&open.stderr);
    assert!(!open.status.success(), "{err}");
    assert!(
        err.contains(&format!("{cut}: the metadata says it is complete"))
            && err.contains(&format!("zone {zone}'s write pointer {wp}")),
        "{err}"
    );
    // The refused open cut nothing: the file keeps its size.
    assert_eq!(
        file(&files(d), &cut)["size_bytes"],
        file(&fs, &cut)["size_bytes"]
    );
}
