//! A real process kill (SIGKILL) after acknowledgement loses no write of a zone file device.
//!
//! The parent test spawns this test binary again, filtered to `kill_child_writer`, with an
//! environment variable that makes that test act as the writer: it writes self-describing
//! records to three lanes of zones (writes, appends, closes and finishes mixed in) and prints
//! `ACK <index> <offset> <len>` after each acknowledged record. The parent kills it after a few
//! hundred acknowledgements, reopens the device and checks that every acknowledged record is
//! present and intact, and that everything below each write pointer is an intact record (or the
//! zero tail of a finished zone). Two rounds: the second child continues on the reopened device.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use zonedb_device::zone::{ZoneGeometry, ZoneState};
use zonedb_device::{IoClass, ZoneFileDevice, ZoneOp, ZonedDevice};

const CHILD_DIR_ENV: &str = "ZONEDB_ZONEFILE_KILL_CHILD_DIR";
const CHILD_FIRST_INDEX_ENV: &str = "ZONEDB_ZONEFILE_KILL_CHILD_FIRST_INDEX";
const LANES: u32 = 3;
const BS: u64 = 4096;
const CAP: u64 = 768 * 1024;
const RECORD_MAGIC: u32 = 0x5A4F_4E45;
const ACKS_PER_ROUND: usize = 400;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 96,
        zone_size_bytes: 1 << 20,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 4,
        max_active_zones: 6,
        zone_append_max_bytes: 64 * 1024,
    }
}

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Record `index` of `blocks` blocks: magic, block count, index, then bytes derived from both.
fn record(index: u64, blocks: u64) -> Vec<u8> {
    let len = (blocks * BS) as usize;
    let mut r: Vec<u8> = (0..len as u64)
        .map(|i| (mix(index.wrapping_mul(1_000_003).wrapping_add(i / 8)) >> ((i % 8) * 8)) as u8)
        .collect();
    r[0..4].copy_from_slice(&RECORD_MAGIC.to_le_bytes());
    r[4..8].copy_from_slice(&(blocks as u32).to_le_bytes());
    r[8..16].copy_from_slice(&index.to_le_bytes());
    r
}

/// Child mode: a no-op unless the parent set the environment variable.
#[test]
fn kill_child_writer() {
    let Some(dir) = std::env::var_os(CHILD_DIR_ENV) else {
        return;
    };
    let mut index: u64 = std::env::var(CHILD_FIRST_INDEX_ENV)
        .unwrap()
        .parse()
        .unwrap();
    let dev = ZoneFileDevice::open(Path::new(&dir)).unwrap();
    dev.set_checking(true);
    let zone_count = dev.geometry().zone_count;
    let mut out = std::io::stdout().lock();
    // A blank line first, in case the test harness left its "test ... " prefix unterminated.
    writeln!(out).unwrap();
    loop {
        let lane = (index % u64::from(LANES)) as u32;
        let Some(info) = (lane..zone_count)
            .step_by(LANES as usize)
            .map(|z| dev.report_zones(z, 1)[0])
            .find(|z| z.state != ZoneState::Full)
        else {
            break;
        };
        let room = (info.start + CAP - info.write_pointer) / BS;
        let blocks = (1 + mix(index) % 3).min(room);
        let rec = record(index, blocks);
        let offset = if lane == 1 {
            block_on(dev.append(info.index, &rec)).unwrap()
        } else {
            block_on(dev.write(info.write_pointer, &rec)).unwrap();
            info.write_pointer
        };
        writeln!(out, "ACK {index} {offset} {}", rec.len()).unwrap();
        out.flush().unwrap();
        let state = dev.report_zones(info.index, 1)[0].state;
        if index % 53 == 52 && state != ZoneState::Full {
            block_on(dev.manage(info.index, ZoneOp::Finish)).unwrap();
        } else if index % 29 == 28 && state.is_open() {
            block_on(dev.manage(info.index, ZoneOp::Close)).unwrap();
        }
        index += 1;
    }
    writeln!(out, "DONE").unwrap();
}

/// Runs a child writer from `first_index`, kills it after `ACKS_PER_ROUND` acknowledgements and
/// returns them as index -> (offset, len).
fn run_and_kill(dir: &Path, first_index: u64) -> BTreeMap<u64, (u64, u64)> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "zonefile_kill_keeps_acknowledged_writes::kill_child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR_ENV, dir)
        .env(CHILD_FIRST_INDEX_ENV, first_index.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acks = BTreeMap::new();
    let mut done = false;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("DONE") {
            done = true;
            break;
        }
        let Some(ack) = line.split("ACK ").nth(1) else {
            continue;
        };
        let f: Vec<u64> = ack.split_whitespace().map(|x| x.parse().unwrap()).collect();
        acks.insert(f[0], (f[1], f[2]));
        if acks.len() >= ACKS_PER_ROUND {
            break;
        }
    }
    // Kill while the pipe is still open, so the child dies by SIGKILL, not by a broken pipe.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    drop(lines);
    if !done {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(9),
            "child was not killed by SIGKILL: {status:?}"
        );
    }
    assert!(
        acks.len() >= ACKS_PER_ROUND || (done && status.success()),
        "child writer failed after {} acknowledgements: {status:?}",
        acks.len()
    );
    acks
}

/// Reopens the device and checks every zone: intact records up to the write pointer (then only
/// the zero tail of a finished zone). Returns index -> (offset, len) of every record found.
fn scan(dir: &Path) -> BTreeMap<u64, (u64, u64)> {
    let dev = ZoneFileDevice::open(dir).unwrap();
    dev.set_checking(true);
    let mut found = BTreeMap::new();
    for z in dev.report_zones(0, geometry().zone_count) {
        assert!(
            !z.state.is_open(),
            "zone {} came back {:?}",
            z.index,
            z.state
        );
        let written = z.written_bytes();
        if written == 0 {
            continue;
        }
        let data = block_on(dev.read(z.start, written, IoClass::QueryRead)).unwrap();
        let mut pos = 0usize;
        while pos < data.len() {
            let magic = u32::from_le_bytes(data[pos..pos + 4].try_into().unwrap());
            if magic != RECORD_MAGIC {
                assert_eq!(
                    z.state,
                    ZoneState::Full,
                    "zone {}: garbage at {pos}",
                    z.index
                );
                assert!(
                    data[pos..].iter().all(|&b| b == 0),
                    "zone {}: finished tail not zero",
                    z.index
                );
                break;
            }
            let blocks = u64::from(u32::from_le_bytes(
                data[pos + 4..pos + 8].try_into().unwrap(),
            ));
            let index = u64::from_le_bytes(data[pos + 8..pos + 16].try_into().unwrap());
            let len = (blocks * BS) as usize;
            assert!(
                pos + len <= data.len(),
                "zone {}: record {index} cut by the write pointer",
                z.index
            );
            assert!(
                data[pos..pos + len] == record(index, blocks),
                "zone {}: record {index} damaged",
                z.index
            );
            let prev = found.insert(index, (z.start + pos as u64, len as u64));
            assert!(prev.is_none(), "record {index} twice");
            pos += len;
        }
    }
    found
}

#[test]
fn sigkill_after_acknowledgement_loses_nothing() {
    if std::env::var_os(CHILD_DIR_ENV).is_some() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
    let mut acked = BTreeMap::new();
    let mut next = 0;
    for round in 0..2 {
        acked.extend(run_and_kill(tmp.path(), next));
        let found = scan(tmp.path());
        eprintln!(
            "round {round}: {} acknowledged, {} found",
            acked.len(),
            found.len()
        );
        for (index, at) in &acked {
            assert_eq!(
                found.get(index),
                Some(at),
                "round {round}: acknowledged record {index} lost"
            );
        }
        // Unacknowledged but persisted records are fine; they are intact (checked by scan).
        next = found.keys().next_back().map_or(0, |i| i + 1);
        assert!(next as usize >= acked.len());
    }
}
