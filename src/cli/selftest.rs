//! `zonedb selftest` and `zonedb crashtest`: the device-generic correctness suites and the
//! synced-write crash workload, on a real device (a Linux zoned block device, or a
//! file-backed one). The QEMU ZNS test runs both inside its guest.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use zonedb_device::{DeviceError, RealDevice, ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_harness::conformance::{Failure, db_oracle, device, fs_model, synced_writes};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

use super::CliError;
use super::device::build_profile;
use super::store::flag_bool;

/// Which real device to use.
#[derive(Debug, Clone, Args)]
#[command(rename_all = "snake_case")]
pub struct DeviceTarget {
    /// A Linux host-managed zoned block device, such as /dev/nvme0n1.
    #[arg(long, required_unless_present = "dir", conflicts_with = "dir")]
    pub device: Option<PathBuf>,
    /// A file-backed zoned device in this directory (created when missing by `selftest` and
    /// `crashtest write --fresh` only).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Profile of a new file-backed device.
    #[arg(long, default_value = "splitzns-paper")]
    pub profile: String,
    /// Scale of that profile.
    #[arg(long, default_value = "1/64")]
    pub scale: String,
    /// With --device: zone appends through io_uring NVMe passthrough, and the file layer
    /// writes its data with zone append.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    pub zone_append: bool,
}

impl DeviceTarget {
    /// Opens the device; a missing file-backed one is created only when `create` (a damaged
    /// one never is: that is an error, and the directory is left as it was).
    fn open(&self, create: bool) -> Result<RealDevice, CliError> {
        let dev = match (&self.device, &self.dir) {
            (Some(path), _) => RealDevice::open_block(path)?,
            (None, Some(dir)) => match ZoneFileDevice::open(dir) {
                Ok(d) => RealDevice::File(d),
                Err(DeviceError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                    if !create {
                        return Err(CliError::Usage(format!(
                            "no zone file device in {} (no HEADER there); nothing was created",
                            dir.display()
                        )));
                    }
                    let p = build_profile(&self.profile, &self.scale, None)?;
                    RealDevice::File(ZoneFileDevice::create(dir, p.zones)?)
                }
                Err(e) => return Err(e.into()),
            },
            (None, None) => return Err(CliError::Usage("give --device PATH or --dir DIR".into())),
        };
        if self.zone_append {
            super::store::enable_zone_append(&dev)?;
        }
        Ok(dev)
    }

    fn fs_options(&self) -> FsOptions {
        FsOptions {
            zone_append: self.zone_append,
            ..fs_model::options()
        }
    }
}

/// `zonedb selftest`.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct SelftestArgs {
    #[command(flatten)]
    target: DeviceTarget,
    /// Seed of the random suites.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Operations of the zone file layer's model suite.
    #[arg(long, default_value_t = 400)]
    fs_steps: usize,
    /// Operations of the engine's oracle suite.
    #[arg(long, default_value_t = 10_000)]
    db_ops: u64,
}

/// Takes each suite's name, outcome (with a detail line) and duration in ns.
type Reporter<'a> = dyn FnMut(&str, Result<String, Failure>, u64) + 'a;

async fn suites<E: Env>(
    env: &E,
    dev: &Arc<RealDevice>,
    a: &SelftestArgs,
    report: &mut Reporter<'_>,
) {
    let clock = |e: &E| e.now();
    let t = clock(env);
    let r = device::zone_rules(dev.as_ref())
        .await
        .map(|()| String::new());
    report(
        "device: zone states and write-pointer rules",
        r,
        clock(env) - t,
    );
    let t = clock(env);
    let r = device::resource_limits(dev.as_ref())
        .await
        .map(|()| String::new());
    report("device: open and active limits", r, clock(env) - t);
    let t = clock(env);
    let r = device::concurrent_appends(env, dev)
        .await
        .map(|()| String::new());
    report("device: concurrent appends and writers", r, clock(env) - t);
    let t = clock(env);
    let r = fs_model::run_with(
        env.clone(),
        dev.clone(),
        a.seed,
        a.fs_steps,
        a.target.fs_options(),
    )
    .await
    .map(|r| {
        format!(
            "{} MiB appended, {} remounts, {} crashes",
            r.appended_bytes >> 20,
            r.remounts,
            r.crashes
        )
    });
    report(
        "fs: files match a model across remounts and crashes",
        r,
        clock(env) - t,
    );
    let t = clock(env);
    let r = async {
        ZoneFs::<E, RealDevice>::mkfs(dev.as_ref(), 0).await?;
        let fs = ZoneFs::mount(env.clone(), dev.clone(), a.target.fs_options()).await?;
        let s = db_oracle::run_and_reopen(fs.clone(), a.seed, a.db_ops).await?;
        let problems = fs.fsck();
        if !problems.is_empty() {
            return Err(Failure(format!(
                "fsck after the engine suite: {problems:?}"
            )));
        }
        Ok(format!(
            "{} flushes, {} compactions, files per level {:?}",
            s.flushes, s.compactions, s.level_files
        ))
    }
    .await;
    report("engine: db matches a BTreeMap oracle", r, clock(env) - t);
}

/// Runs the suites; exit status 1 when one fails.
pub fn selftest(a: &SelftestArgs) -> Result<ExitCode, CliError> {
    let dev = Arc::new(a.target.open(true)?);
    let g = dev.geometry().clone();
    println!(
        "zonedb selftest: {} ({} zones of {} MiB, capacity {} MiB, {}/{} open/active, zone append {}), seed {}",
        dev.describe(),
        g.zone_count,
        g.zone_size_bytes >> 20,
        g.zone_capacity_bytes >> 20,
        g.max_open_zones,
        g.max_active_zones,
        if a.target.zone_append { "on" } else { "off" },
        a.seed
    );
    let env = RealEnv::new(a.seed);
    let (mut passed, mut failed) = (0, 0);
    let mut report = |name: &str, r: Result<String, Failure>, ns: u64| {
        let secs = ns as f64 / 1e9;
        let mirror = mirror_check(&dev);
        match r.and_then(|detail| mirror.map(|()| detail)) {
            Ok(detail) if detail.is_empty() => {
                passed += 1;
                println!("selftest: {name} ... ok ({secs:.2} s)");
            }
            Ok(detail) => {
                passed += 1;
                println!("selftest: {name} ... ok ({secs:.2} s; {detail})");
            }
            Err(e) => {
                failed += 1;
                println!("selftest: {name} ... FAILED ({secs:.2} s): {e}");
            }
        }
    };
    env.block_on(suites(&env, &dev, a, &mut report));
    let s = dev.stats();
    println!(
        "zonedb selftest: {passed} passed, {failed} failed; device wrote {} MiB, read {} MiB, {} zone resets",
        s.bytes_written >> 20,
        s.bytes_read >> 20,
        s.zone_resets
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// On a block device: the host-side zone mirror must equal the device's own report.
fn mirror_check(dev: &RealDevice) -> Result<(), Failure> {
    match dev {
        #[cfg(target_os = "linux")]
        RealDevice::Block(b) => {
            let diffs = b.verify_mirror().map_err(Failure::from)?;
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(Failure(format!(
                    "zone mirror differs from the device: {diffs:?}"
                )))
            }
        }
        RealDevice::File(_) => Ok(()),
    }
}

/// `zonedb crashtest ...`.
#[derive(Debug, Subcommand)]
pub enum CrashtestCommand {
    /// Applies synced ops 0, 1, 2, … in order and appends each acknowledged op count to --ack.
    Write(CrashWriteArgs),
    /// Opens the database and checks it holds the state after an op prefix at least as long
    /// as the acknowledged one.
    Verify(CrashVerifyArgs),
}

/// What `crashtest write` and `crashtest verify` share: the device, the acknowledgement log,
/// the key prefix and the value size of one run.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct CrashRun {
    #[command(flatten)]
    target: DeviceTarget,
    /// Acknowledgement log (one acknowledged op count per line).
    #[arg(long)]
    ack: PathBuf,
    /// Key prefix of the run's ops.
    #[arg(long, default_value = "a")]
    prefix: String,
    /// Value bytes (at most 64 MiB).
    #[arg(long, default_value_t = 512, value_parser = super::bench::parse_value_size)]
    value_size: usize,
}

/// `zonedb crashtest write`.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct CrashWriteArgs {
    #[command(flatten)]
    run: CrashRun,
    /// Ops to apply (the run is usually killed first).
    #[arg(long, default_value_t = 1_000_000)]
    count: u64,
    /// Format the device first.
    #[arg(long)]
    fresh: bool,
    /// Write without syncing: each op is acknowledged once its write group reached the OS
    /// (`manual_wal_flush = false`), which a SIGKILL of the process does not undo.
    #[arg(long)]
    unsynced: bool,
}

/// `zonedb crashtest verify`.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct CrashVerifyArgs {
    #[command(flatten)]
    run: CrashRun,
    /// The log may end before the last acknowledged op (it was copied while the writer ran):
    /// only "nothing acknowledged was lost" is checked, not "at most one op more".
    #[arg(long)]
    partial_log: bool,
}

/// Engine options of the crash workload: small memtables and files, so flushes, compactions
/// and MANIFEST rolls happen within seconds.
fn crash_options() -> DbOptions {
    DbOptions {
        write_buffer_size: 256 << 10,
        target_file_size_base: 256 << 10,
        max_bytes_for_level_base: 1 << 20,
        max_manifest_file_size: 64 << 10,
        ..DbOptions::default()
    }
}

fn crash_error(e: impl std::fmt::Display) -> CliError {
    CliError::Usage(format!("crashtest: {e}"))
}

/// Runs `crashtest write` or `crashtest verify`.
pub fn crashtest(cmd: &CrashtestCommand) -> Result<ExitCode, CliError> {
    match cmd {
        CrashtestCommand::Write(a) => crash_write(a),
        CrashtestCommand::Verify(a) => crash_verify(a),
    }
}

fn crash_write(a: &CrashWriteArgs) -> Result<ExitCode, CliError> {
    let dev = Arc::new(a.run.target.open(a.fresh)?);
    let env = RealEnv::new(1);
    // The log is created or appended to without following a symbolic link (as device files
    // and reports are: `docs/bad-inputs.md`).
    let mut log = {
        let mut o = std::fs::OpenOptions::new();
        o.create(true).append(true);
        zonedb_device::links::open_no_follow(&a.run.ack, o)
            .map_err(|e| crash_error(format!("{}: {e}", a.run.ack.display())))?
    };
    let fresh = a.fresh;
    let opts = a.run.target.fs_options();
    env.block_on(async {
        if fresh {
            ZoneFs::<RealEnv, RealDevice>::mkfs(dev.as_ref(), 0).await?;
        }
        let fs = ZoneFs::mount(env.clone(), dev.clone(), opts)
            .await
            .map_err(super::mount_error("add --fresh to format it"))?;
        let db = Db::open(fs, crash_options()).await.map_err(crash_error)?;
        super::report_wal_recovery(db.wal_recovery());
        for i in 0..a.count {
            let b = synced_writes::op(&a.run.prefix, i, a.run.value_size);
            if a.unsynced {
                db.write(b).await.map_err(crash_error)?;
            } else {
                db.write_sync(b).await.map_err(crash_error)?;
            }
            // Logged only after the acknowledgement: the log never claims an unacknowledged op.
            writeln!(log, "{}", i + 1).map_err(crash_error)?;
        }
        db.close().await.map_err(crash_error)?;
        println!("crashtest write: {} ops acknowledged", a.count);
        Ok::<_, CliError>(ExitCode::SUCCESS)
    })
}

fn crash_verify(a: &CrashVerifyArgs) -> Result<ExitCode, CliError> {
    let text = std::fs::read_to_string(&a.run.ack)
        .map_err(|e| crash_error(format!("{}: {e}", a.run.ack.display())))?;
    let acked = synced_writes::acked_from_log(&text);
    let dev = Arc::new(a.run.target.open(false)?);
    let env = RealEnv::new(1);
    let opts = a.run.target.fs_options();
    let found = env.block_on(async {
        let fs = ZoneFs::mount(env.clone(), dev.clone(), opts)
            .await
            .map_err(super::mount_error(
                "nothing to verify (was `crashtest write --fresh` run on it?)",
            ))?;
        let db = Db::open(fs.clone(), crash_options())
            .await
            .map_err(crash_error)?;
        super::report_wal_recovery(db.wal_recovery());
        let start = a.run.prefix.as_bytes().to_vec();
        let mut end = start.clone();
        end.push(0xFF);
        let found = db
            .scan(&start, &end, usize::MAX)
            .await
            .map_err(crash_error)?;
        db.close().await.map_err(crash_error)?;
        let problems = fs.fsck();
        if !problems.is_empty() {
            return Err(crash_error(format!("fsck after recovery: {problems:?}")));
        }
        Ok::<_, CliError>(found)
    })?;
    match synced_writes::check(
        &a.run.prefix,
        &found,
        acked,
        !a.partial_log,
        a.run.value_size,
    ) {
        Ok(m) => {
            println!(
                "crashtest verify: prefix '{}': {acked} acknowledged synced ops, the database holds the first {m}: ok",
                a.run.prefix
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("crashtest verify: FAILED: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
