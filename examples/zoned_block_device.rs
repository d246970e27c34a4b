//! The store on a Linux host-managed zoned block device (an NVMe ZNS namespace, an HM-SMR
//! disk): `cargo run --example zoned_block_device -- /dev/nvme0n1`.
//!
//! The device's I/O scheduler must be `mq-deadline`, and you need read-write access to it. A
//! device whose zones are all empty is formatted; one that holds anything but a ZoneDB store
//! is refused (reset its zones with `blkzone reset` to use it). Without an argument this only
//! prints how to run it. On a machine without such a device, QEMU emulates one: see
//! `tests/qemu-zns/`.

use std::ffi::OsString;
use std::process::ExitCode;

use zonedb::{Db, Options};

fn main() -> ExitCode {
    let Some(device) = std::env::args_os().nth(1) else {
        println!(
            "usage: cargo run --example zoned_block_device -- /dev/nvme0n1\n\
             (a host-managed zoned block device with the mq-deadline scheduler; nothing to do \
             without one)"
        );
        return ExitCode::SUCCESS;
    };
    match run(&device) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e} ({:?})", device.to_string_lossy(), e.kind());
            ExitCode::FAILURE
        }
    }
}

fn run(device: &OsString) -> zonedb::Result<()> {
    let db = Db::open_device(device, Options::default())?;
    let before = db.stats().last_sequence;
    for i in 0..1000u32 {
        db.put(format!("key{i:04}"), i.to_le_bytes())?;
    }
    db.flush()?;
    let n = db.prefix(b"key").collect::<zonedb::Result<Vec<_>>>()?.len();
    println!(
        "{}: wrote 1000 keys (sequence {before} -> {}), {n} keys under \"key\"",
        device.to_string_lossy(),
        db.stats().last_sequence
    );
    db.close()?;
    Ok(())
}
