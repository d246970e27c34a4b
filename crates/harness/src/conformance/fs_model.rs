//! The zone file layer against an in-memory model: random creates, appends, syncs, closes,
//! deletes, renames and reads, clean remounts, and crashes (writers dropped without closing).
//! Every closed file reads back exactly; after a crash every synced byte is present and a file
//! never holds anything but a prefix of what was appended to it. Append sizes scale with the
//! zone capacity, so files cross zones on any device.

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::{Env, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsOptions, WritableFile, ZoneFs};

use super::{Verdict, ensure};

/// File layer options of the suite (small write buffers so zone switches happen often).
pub fn options() -> FsOptions {
    FsOptions {
        write_buffer_bytes: 16 << 10,
        ..FsOptions::default()
    }
}

struct Open<E: Env, D: ZonedDevice> {
    w: WritableFile<E, D>,
    appended: Vec<u8>,
    synced: usize,
}

const NAMES: [&str; 7] = [
    "a.sst",
    "b.sst",
    "c.log",
    "d.log",
    "MANIFEST-000001",
    "e.sst",
    "dir/f.sst",
];

/// Bytes of one append: up to a fifth of a zone, so files span zones.
fn max_append(zone_capacity: u64) -> u64 {
    (zone_capacity / 5).clamp(40_000, 8 << 20)
}

fn data_for(seed: u64, step: usize, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 8);
    let mut x = (seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(n);
    v
}

/// What one run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsModelReport {
    /// Bytes appended.
    pub appended_bytes: u64,
    /// Clean remounts.
    pub remounts: u64,
    /// Crashes (remounts with writers dropped).
    pub crashes: u64,
}

/// Formats `dev` and runs `steps` random operations with `seed`.
///
/// # Errors
/// The first divergence from the model, or an unexpected error.
#[allow(
    clippy::too_many_lines,
    reason = "one operation table, as in the model"
)]
pub async fn run<E: Env, D: ZonedDevice>(
    env: E,
    dev: Arc<D>,
    seed: u64,
    steps: usize,
) -> Result<FsModelReport, super::Failure> {
    run_with(env, dev, seed, steps, options()).await
}

/// [`run`] with other file layer options (zone append, placement, cleaning).
///
/// # Errors
/// As [`run`].
#[allow(
    clippy::too_many_lines,
    reason = "one operation table, as in the model"
)]
pub async fn run_with<E: Env, D: ZonedDevice>(
    env: E,
    dev: Arc<D>,
    seed: u64,
    steps: usize,
    opts: FsOptions,
) -> Result<FsModelReport, super::Failure> {
    ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
    let mut fs = ZoneFs::mount(env.clone(), dev.clone(), opts.clone()).await?;
    let mut rng = SimRng::seed_from_u64(seed);
    let biggest = max_append(dev.geometry().zone_capacity_bytes);
    let mut closed: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut open: BTreeMap<String, Open<E, D>> = BTreeMap::new();
    let mut report = FsModelReport::default();
    for step in 0..steps {
        let op = rng.gen_range(0..100);
        // Append, sync and close pick an open file; read, delete and rename a closed one.
        let pool: Vec<String> = match op {
            15..=69 => open.keys().cloned().collect(),
            70..=91 => closed.keys().cloned().collect(),
            _ => NAMES.iter().map(|n| (*n).to_owned()).collect(),
        };
        let name = if pool.is_empty() {
            NAMES[0].to_owned()
        } else {
            pool[rng.gen_range(0..pool.len() as u64) as usize].clone()
        };
        match op {
            0..=14 => {
                if open.contains_key(&name) || open.len() >= 3 {
                    continue;
                }
                let lt = Lifetime::from_u8(rng.gen_range(2..6) as u8);
                let w = fs.create(&name, lt).await?;
                closed.remove(&name);
                let o = Open {
                    w,
                    appended: Vec::new(),
                    synced: 0,
                };
                open.insert(name, o);
            }
            15..=49 => {
                if let Some(o) = open.get_mut(&name) {
                    let n = rng.gen_range(1..biggest) as usize;
                    let data = data_for(seed, step, n);
                    match o.w.append(&data).await {
                        Ok(()) => {
                            report.appended_bytes += data.len() as u64;
                            o.appended.extend_from_slice(&data);
                        }
                        Err(FsError::NoSpace) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            50..=59 => {
                if let Some(o) = open.get_mut(&name) {
                    o.w.sync().await?;
                    o.synced = o.appended.len();
                }
            }
            60..=69 => {
                if let Some(o) = open.remove(&name) {
                    o.w.close().await?;
                    closed.insert(name, o.appended);
                }
            }
            70..=74 => {
                if closed.remove(&name).is_some() {
                    fs.delete(&name).await?;
                }
            }
            75..=79 => {
                let to = NAMES[rng.gen_range(0..NAMES.len() as u64) as usize].to_owned();
                if closed.contains_key(&name) && !open.contains_key(&to) {
                    fs.rename(&name, &to).await?;
                    if let Some(v) = closed.remove(&name) {
                        closed.insert(to, v);
                    }
                }
            }
            80..=91 => {
                if let Some(want) = closed.get(&name) {
                    let off = rng.gen_range(0..want.len() as u64 + 1);
                    let len = rng.gen_range(0..biggest);
                    let got = fs.read(&name, off, len).await?;
                    let end = (off + len).min(want.len() as u64) as usize;
                    ensure(
                        got == want[off as usize..end],
                        format!("step {step}: read {name} at {off}+{len} returns what was written"),
                    )?;
                }
            }
            92..=95 => {
                for (n, o) in std::mem::take(&mut open) {
                    o.w.close().await?;
                    closed.insert(n, o.appended);
                }
                drop(fs);
                fs = ZoneFs::mount(env.clone(), dev.clone(), opts.clone()).await?;
                report.remounts += 1;
            }
            _ => {
                // Crash: writers vanish without closing; synced bytes must survive.
                let lost = std::mem::take(&mut open);
                drop(fs);
                fs = ZoneFs::mount(env.clone(), dev.clone(), opts.clone()).await?;
                report.crashes += 1;
                for (n, o) in lost {
                    let got = fs.read_all(&n).await?;
                    ensure(
                        got.len() >= o.synced,
                        format!(
                            "step {step}: {n} keeps its synced bytes ({} >= {})",
                            got.len(),
                            o.synced
                        ),
                    )?;
                    ensure(
                        got == o.appended[..got.len()],
                        format!("step {step}: {n} holds only bytes appended to it"),
                    )?;
                    closed.insert(n, got);
                }
            }
        }
        if step % 25 == 0 {
            check_all(&fs, &closed, &open, step).await?;
        }
    }
    for (n, o) in std::mem::take(&mut open) {
        o.w.close().await?;
        closed.insert(n, o.appended);
    }
    check_all(&fs, &closed, &open, steps).await?;
    drop(fs);
    let fs = ZoneFs::mount(env.clone(), dev.clone(), opts.clone()).await?;
    check_all(&fs, &closed, &BTreeMap::new(), steps).await?;
    let problems = fs.fsck();
    ensure(
        problems.is_empty(),
        format!("fsck is clean at the end: {problems:?}"),
    )?;
    Ok(report)
}

async fn check_all<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    closed: &BTreeMap<String, Vec<u8>>,
    open: &BTreeMap<String, Open<E, D>>,
    step: usize,
) -> Verdict {
    for (n, want) in closed {
        ensure(
            &fs.read_all(n).await? == want,
            format!("step {step}: {n} reads back whole"),
        )?;
    }
    let mut listed: Vec<String> = closed.keys().cloned().collect();
    listed.extend(open.keys().cloned());
    listed.sort();
    ensure(
        fs.list() == listed,
        format!("step {step}: the listing matches the model"),
    )
}
