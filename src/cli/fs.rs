//! `zonedb fs ...`: mkfs, ls, df, dump and fsck of the zone file layer on a file-backed zoned
//! device (a directory) or a Linux zoned block device.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::json;
use zonedb_device::{RealDevice, ZoneFileDevice, ZonedDevice};
use zonedb_env::RealEnv;
use zonedb_fs::{FsOptions, ZoneFs};

use super::CliError;
use super::device::build_profile;

#[derive(Debug, Subcommand)]
pub enum FsCommand {
    /// Creates a file-backed zoned device in DIR with a profile's zone geometry and formats it,
    /// or formats the zoned block device of --device.
    Mkfs {
        /// Directory of a new file-backed device.
        #[arg(long, required_unless_present = "device", conflicts_with = "device")]
        dir: Option<PathBuf>,
        /// A Linux host-managed zoned block device (such as /dev/nvme0n1); its own geometry.
        #[arg(long)]
        device: Option<PathBuf>,
        /// Profile giving the zone geometry and limits.
        #[arg(long, default_value = "splitzns-paper")]
        profile: String,
        /// Scale of the profile.
        #[arg(long, default_value = "1/1")]
        scale: String,
        /// Finish threshold in percent (ZenFS's --finish_threshold), 0-100.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
        finish_threshold: u32,
    },
    /// Lists files with their extents and zones.
    Ls(Target),
    /// Space: used, reclaimable, free, space amplification.
    Df(Target),
    /// The metadata (files, extents, zones) as JSON.
    Dump(Target),
    /// Checks metadata against the zones and, when the device holds a database, `CURRENT`,
    /// the MANIFEST, every block of every live SST and every WAL; exits 1 when it finds a
    /// problem.
    Fsck(FsckArgs),
    /// Simulated fill-and-delete experiment: runs until a multiple of the capacity is written
    /// or the device runs out of space, and reports space amplification and cleaning cost.
    FillDelete(FillDeleteArgs),
}

#[derive(Debug, Args)]
pub struct FillDeleteArgs {
    /// Device profile.
    #[arg(long, default_value = "splitzns-paper")]
    profile: String,
    /// Scale of the profile.
    #[arg(long, default_value = "1/64")]
    scale: String,
    /// Cleaner: none, greedy, zenfs.
    #[arg(long, default_value = "greedy")]
    cleaner: String,
    /// Free-space threshold of the greedy cleaner, percent (0-100).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=100))]
    gc_threshold: u32,
    /// Stop after writing this many times the capacity (at least 1).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    capacity_multiple: u64,
    /// Live data kept near this percentage of the capacity (1-95).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=95))]
    live_pct: u64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Device kind: zns, or znsplus (ZNS+: in-device zone compaction and threaded logging,
    /// the reference's latencies).
    #[arg(long, default_value = "zns", value_parser = ["zns", "znsplus"])]
    kind: String,
    /// How cleaning moves live data: host (read and write through the host) or izc (ZNS+'s
    /// in-device zone compaction; needs --kind znsplus).
    #[arg(long, default_value = "host", value_parser = ["host", "izc"])]
    zone_copy: String,
    /// --zone-copy izc: copyback-aware destination allocation (CAB); false is CUB.
    #[arg(long, default_value = "true", action = clap::ArgAction::Set, value_parser = super::store::flag_bool)]
    copyback_aware: bool,
    /// Reclaim zones by threaded logging where it costs less than cleaning, when the cleaner
    /// has a victim (needs --kind znsplus).
    #[arg(long)]
    threaded_logging: bool,
    /// With --threaded-logging: open a zone for threaded logging only with at least this
    /// percentage of it garbage (0: any garbage, the ZNS+ artifact's rule).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    threaded_min_garbage_pct: u32,
    /// Flash chips in all, every zone striped over them (the profile's own if absent);
    /// zone size, capacity and count stay.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    chips: Option<u32>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct Target {
    /// Directory of a file-backed device.
    #[arg(long, required_unless_present = "device", conflicts_with = "device")]
    dir: Option<PathBuf>,
    /// A Linux host-managed zoned block device (such as /dev/nvme0n1).
    #[arg(long)]
    device: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct FsckArgs {
    #[command(flatten)]
    target: Target,
    /// Only the zone layer's check: extents against the zones and the zone accounting (no
    /// WAL, MANIFEST or SST is read).
    #[arg(long)]
    quick: bool,
}

type Fs = ZoneFs<RealEnv, RealDevice>;

/// The device a target names: the block device of --device, or the directory of --dir (opened
/// read-only: `ls`, `df`, `dump` and `fsck` never write to it).
fn open_target(dir: Option<&Path>, device: Option<&Path>) -> Result<RealDevice, CliError> {
    match (dir, device) {
        (_, Some(path)) => Ok(RealDevice::open_block(path)?),
        (Some(dir), None) => Ok(RealDevice::File(ZoneFileDevice::open_read_only(dir)?)),
        (None, None) => Err(CliError::Usage("give --dir DIR or --device PATH".into())),
    }
}

fn mount(t: &Target) -> Result<(RealEnv, Arc<Fs>), CliError> {
    let dev = Arc::new(open_target(t.dir.as_deref(), t.device.as_deref())?);
    let env = RealEnv::new(0);
    let opts = FsOptions {
        read_only: true,
        ..FsOptions::default()
    };
    let fs = env
        .block_on(ZoneFs::mount(env.clone(), dev, opts))
        .map_err(super::mount_error(
            "format it with `zonedb fs mkfs` (which erases the device)",
        ))?;
    Ok((env, fs))
}

pub fn run(cmd: FsCommand) -> Result<ExitCode, CliError> {
    match cmd {
        FsCommand::Mkfs {
            dir,
            device,
            profile,
            scale,
            finish_threshold,
        } => {
            let (dev, what) = match (&dir, &device) {
                (_, Some(path)) => (RealDevice::open_block(path)?, "device geometry".to_string()),
                (Some(dir), None) => {
                    let p = build_profile(&profile, &scale, None)?;
                    let d = ZoneFileDevice::create(dir, p.zones.clone())?;
                    (RealDevice::File(d), format!("profile {}", p.name))
                }
                (None, None) => {
                    return Err(CliError::Usage("give --dir DIR or --device PATH".into()));
                }
            };
            let env = RealEnv::new(0);
            env.block_on(Fs::mkfs(&dev, finish_threshold))?;
            let g = dev.geometry();
            println!(
                "zonedb fs mkfs: {} zones of {} MiB (capacity {} MiB, {}/{} open/active), {what}, on {}",
                g.zone_count,
                g.zone_size_bytes >> 20,
                g.zone_capacity_bytes >> 20,
                g.max_open_zones,
                g.max_active_zones,
                dev.describe()
            );
            Ok(ExitCode::SUCCESS)
        }
        FsCommand::Ls(t) => {
            let (_env, fs) = mount(&t)?;
            let g = fs.device().geometry().clone();
            let files = fs.files();
            if t.json {
                let v: Vec<_> = files
                    .iter()
                    .map(|f| {
                        let zones: Vec<u32> = f.extents.iter().filter_map(|e| g.zone_of(e.start)).collect();
                        json!({"name": f.name, "size_bytes": f.size, "kind": f.kind, "lifetime": f.lifetime, "extents": f.extents, "zones": zones})
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!(
                    "{:>12} {:>8} {:>10}  {:<24} zones",
                    "size", "extents", "lifetime", "name"
                );
                for f in &files {
                    let mut zones: Vec<u32> = f
                        .extents
                        .iter()
                        .filter_map(|e| g.zone_of(e.start))
                        .collect();
                    zones.dedup();
                    let lt = serde_json::to_value(f.lifetime)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    println!(
                        "{:>12} {:>8} {:>10}  {:<24} {zones:?}",
                        f.size,
                        f.extents.len(),
                        lt,
                        f.name
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        FsCommand::Df(t) => {
            let (_env, fs) = mount(&t)?;
            let s = fs.stats();
            // What the zones hold on the device: write pointers past zone starts.
            let g = fs.device().geometry().clone();
            let zone_written: u64 = fs
                .device()
                .report_zones(0, g.zone_count)
                .iter()
                .map(|z| z.write_pointer - z.start)
                .sum();
            if t.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json!({
                        "used_bytes": s.used_bytes,
                        "reclaimable_bytes": s.reclaimable_bytes,
                        "garbage_bytes": s.garbage_bytes,
                        "free_bytes": s.free_bytes,
                        "space_amplification": s.space_amplification,
                        "files": s.files,
                        "zone_written_bytes": zone_written,
                    }))?
                );
            } else {
                let mb = |b: u64| b as f64 / 1e6;
                println!("Free: {:.1} MB", mb(s.free_bytes));
                println!("Used: {:.1} MB", mb(s.used_bytes));
                println!("Reclaimable: {:.1} MB", mb(s.reclaimable_bytes));
                println!("Garbage (all zones): {:.1} MB", mb(s.garbage_bytes));
                println!("Space amplification: {:.3}", s.space_amplification);
                println!("Files: {}", s.files);
                println!("Zones written: {:.1} MB", mb(zone_written));
            }
            Ok(ExitCode::SUCCESS)
        }
        FsCommand::Dump(t) => {
            let (_env, fs) = mount(&t)?;
            let v = json!({
                "geometry": fs.device().geometry(),
                "first_io_zone": fs.first_io_zone(),
                "files": fs.files(),
                "zones": fs.zone_report(),
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
            Ok(ExitCode::SUCCESS)
        }
        FsCommand::FillDelete(a) => fill_delete(&a),
        FsCommand::Fsck(a) => {
            let t = &a.target;
            let (env, fs) = mount(t)?;
            let mut problems = fs.fsck();
            // The database, checked where its formats are known (`zonedb_lsm::db::check`):
            // CURRENT names a MANIFEST that decodes into a tree, every live SST is there
            // whole with every block's checksum right, WALs and MANIFESTs read as an open
            // would (damage is a problem, a torn tail only a note).
            let mut notes = Vec::new();
            let db = (!a.quick).then(|| env.block_on(zonedb_lsm::db::check::check_database(&fs)));
            if let Some(c) = &db {
                let as_problem = |f: &zonedb_lsm::db::check::Finding| zonedb_fs::fsck::Problem {
                    file: f.file.clone(),
                    what: f.what.clone(),
                };
                problems.extend(c.problems.iter().map(as_problem));
                notes.extend(c.notes.iter().map(as_problem));
            }
            let db = db.filter(|c| c.database);
            let checked = db.as_ref().map(|c| {
                format!(
                    ", {} live SSTs and {} blocks verified",
                    c.ssts_checked, c.blocks_checked
                )
            });
            if t.json {
                let mut v = json!({"problems": problems, "notes": notes});
                if let Some(c) = &db {
                    v["ssts_checked"] = json!(c.ssts_checked);
                    v["blocks_checked"] = json!(c.blocks_checked);
                }
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else if problems.is_empty() {
                for n in &notes {
                    println!("note: {}: {}", n.file, n.what);
                }
                println!(
                    "zonedb fs fsck: clean ({} files{})",
                    fs.files().len(),
                    checked.unwrap_or_default()
                );
            } else {
                for p in &problems {
                    println!(
                        "{}: {}",
                        if p.file.is_empty() { "-" } else { &p.file },
                        p.what
                    );
                }
                println!("zonedb fs fsck: {} problems", problems.len());
            }
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn fill_delete(a: &FillDeleteArgs) -> Result<ExitCode, CliError> {
    use zonedb_device::SimDeviceSpec;
    use zonedb_fs::ZoneCopy;
    use zonedb_harness::fill_delete::{self, FillDeleteOptions};

    let znsplus = a.kind == "znsplus";
    if !znsplus && (a.zone_copy == "izc" || a.threaded_logging) {
        return Err(CliError::Usage(
            "--zone-copy izc and --threaded-logging need a ZNS+ device (--kind znsplus)".into(),
        ));
    }
    let spec = SimDeviceSpec::new(&a.profile, &a.scale)
        .chips(a.chips)
        .znsplus(znsplus.then(zonedb_device::flash::ZnsPlusConfig::reference));
    let cleaner = zonedb_fs::cleaning::by_name(&a.cleaner, a.gc_threshold)?;
    let opts = FsOptions {
        cleaner,
        zone_copy: if a.zone_copy == "izc" {
            ZoneCopy::Izc {
                copyback_aware: a.copyback_aware,
            }
        } else {
            ZoneCopy::Host
        },
        znsplus: zonedb_fs::ZnsPlusOptions {
            threaded_logging: a.threaded_logging,
            threaded_min_garbage_pct: a.threaded_min_garbage_pct,
            ..zonedb_fs::ZnsPlusOptions::default()
        },
        ..FsOptions::default()
    };
    let fd = FillDeleteOptions {
        capacity_multiple: a.capacity_multiple,
        live_pct: a.live_pct,
        seed: a.seed,
        ..FillDeleteOptions::default()
    };
    let watch = crate::host::Stopwatch::start();
    // A failed end-of-run fsck is a failed check (exit 1), not a usage error.
    let run = fill_delete::run_simulated(&spec, opts, fd).map_err(|e| match e {
        zonedb_harness::db_bench::HarnessError::Invariant(m) => CliError::Failed(m),
        e => e.into(),
    })?;
    let wall_ns = watch.elapsed_ns();
    let report = &run.report;
    let s = &report.stats;
    if a.json {
        let mut v = serde_json::to_value(report)?;
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("profile".into(), serde_json::to_value(&run.profile)?);
            m.insert("cleaner".into(), serde_json::to_value(&a.cleaner)?);
            m.insert("kind".into(), json!(a.kind));
            m.insert("zone_copy".into(), json!(a.zone_copy));
            m.insert("copyback_aware".into(), json!(a.copyback_aware));
            m.insert("threaded_logging".into(), json!(a.threaded_logging));
            m.insert(
                "threaded_min_garbage_pct".into(),
                json!(a.threaded_min_garbage_pct),
            );
            m.insert("chips".into(), json!(run.chips));
            m.insert("cleaning_time_ns".into(), json!(s.cleaning_ns));
            m.insert("host_link_bytes".into(), json!(run.host_link_bytes()));
            m.insert(
                "metadata_write_bytes".into(),
                json!(s.metadata_bytes_written),
            );
            m.insert(
                "threaded_logging_share".into(),
                json!(run.threaded_logging_share()),
            );
            m.insert("device".into(), serde_json::to_value(run.device)?);
            if let Some(z) = run.znsplus {
                m.insert("znsplus".into(), serde_json::to_value(z)?);
            }
            m.insert("host".into(), json!({ "wall_time_ns": wall_ns }));
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let gb = |b: u64| b as f64 / 1e9;
        let copy = if a.zone_copy == "izc" {
            format!(
                " zone-copy=izc ({})",
                if a.copyback_aware { "CAB" } else { "CUB" }
            )
        } else {
            String::new()
        };
        println!(
            "zonedb fs fill-delete: profile={} chips={} kind={}{copy}{} cleaner={} seed={} live={}% goal={}x capacity",
            run.profile,
            run.chips,
            a.kind,
            if a.threaded_logging {
                " threaded-logging"
            } else {
                ""
            },
            a.cleaner,
            a.seed,
            a.live_pct,
            a.capacity_multiple
        );
        println!(
            "  {}: wrote {:.2} GB of {:.2} GB capacity ({} files, {} deleted) in {:.2} s virtual",
            if report.ran_out_of_space {
                "OUT OF SPACE"
            } else {
                "completed"
            },
            gb(report.user_bytes_written),
            gb(report.capacity_bytes),
            report.files_written,
            report.files_deleted,
            report.virtual_time_ns as f64 / 1e9
        );
        println!(
            "  space amplification {:.3}, write amplification {:.3}, cleaning copied {:.2} GB in {} passes, zone resets {}, finishes {}, I/O blocking {:.3} s",
            report.space_amplification_at_end,
            s.write_amplification,
            gb(s.gc_copied_bytes),
            s.cleaning_runs,
            s.zone_resets,
            s.zone_finishes,
            s.io_blocking_ns as f64 / 1e9
        );
        println!(
            "  {:.0} ops/s (4 KiB blocks), file write P99 {:.0} µs, cleaning {:.3} s, host link {:.2} GB, metadata {:.1} MB",
            report.ops_per_s,
            report.latency_us_p99,
            s.cleaning_ns as f64 / 1e9,
            gb(run.host_link_bytes()),
            s.metadata_bytes_written as f64 / 1e6
        );
        if let Some(z) = run.znsplus {
            println!(
                "  ZNS+: {} IZC commands ({:.2} GB), pages copied back {}, read-program {}, plugged {} ({} padding), threaded opens {}; fs: IZC {} commands, threaded reclaims {} ({:.1}% of reclaims)",
                z.copy_commands,
                gb(z.copy_bytes),
                z.copyback_pages,
                z.read_program_pages,
                z.plug_pages,
                z.padding_pages,
                z.threaded_opens,
                s.znsplus.izc_commands,
                s.znsplus.threaded_reclaims,
                run.threaded_logging_share() * 100.0
            );
        }
        println!("  host: wall {:.2} s", wall_ns as f64 / 1e9);
    }
    Ok(ExitCode::SUCCESS)
}
