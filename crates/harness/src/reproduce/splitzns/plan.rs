//! The study's plan: its schemes (and each one's queueing), workloads, figure 16's sweeps and
//! figures 3 and 4's runs, each cell's scenario built from TOML text at the study's scale, and
//! the cells of a plan.

use super::*;

/// The schemes of figures 9-12, in the paper's order.
pub const MAIN_SCHEMES: [&str; 4] = ["LDP", "Gear", "LLC", "SplitZNS"];

/// The queueing discipline of every scheme's device (`[device] queueing`), the same for LDP,
/// Gear, LLC, SplitZNS, every step of the breakdown and the sweeps: work-conserving per-die
/// queues, each die serving, when it frees, the first issued of the operations that are
/// ready. SplitZNS's Read Scheduler (`read_scheduler`) only puts query reads first in them
/// (§4.4.2: "All requests from queries are placed into the request queue prior to any other
/// read or write request"), which slows compaction reads a little (§5.4.2); it changes
/// nothing else about how the device queues.
///
/// Why these queues and not the simulator's default, FIFO booking at issue. The paper ran every
/// scheme on one emulated device (§5.1.1: FEMU as Table 1 sets it), and FEMU times a chip by
/// one "next available time", an operation starting at `max(submission, free)` with nothing
/// before it on the device (no controller, host link or channel stage: its legacy FTL gates on
/// the LUN alone, its ZNS mode on the plane; `shared/reference/zoned-devices.md` §1.2, §1.6,
/// §7.5). Every operation is ready when submitted, so a chip serves its requests first come,
/// first served and is never idle while one waits; the paper's text has per-chip request
/// queues for every request ("For read requests to widezones, we simply append them to the
/// request queues of the corresponding chips"). Our FIFO booking books a die operation at
/// issue for a start that waits for the controller, the link and the channel transfer before
/// it, so a die sits idle while a later operation that is ready waits behind it, and channel
/// and link transfers are reserved ahead (the link too where it is not modelled, as on this
/// profile: a read then completes no earlier than every read issued before it, on any die);
/// FEMU has none of these effects. Per-die queues serve what is ready in issue order and book
/// each transfer when the work before it is done: FEMU's per-chip first come, first served on
/// a device that also times those stages. The Read Scheduler's queries-first needs queues
/// anyway, and only on the same per-die queues does turning it on change nothing but the
/// order (on FIFO queueing its queues would also drop the booking's reservations). The study
/// used to run SplitZNS alone on per-die queues (its Read Scheduler switched the whole device
/// over) and the baselines on FIFO booking; [`FIFO_SCHEMES`] keep that comparison visible,
/// and `zonedb reproduce splitzns --device-option 'queueing="fifo"'` runs the whole study on
/// FIFO queueing.
pub const QUEUEING: &str = "per-die";

/// The baselines again on FIFO queueing (`queueing = "fifo"`: each die operation and its
/// transfers booked at issue, the simulator's default), as the study used to run them. Not
/// the paper's. Beside [`MAIN_SCHEMES`] they show what the discipline is worth to each, and
/// the study's old ranking: SplitZNS on per-die queues over the baselines on FIFO booking
/// (`SplitZNS` over `LDP (FIFO)`, `Gear (FIFO)`, `LLC (FIFO)`). SplitZNS has no such row: its
/// Read Scheduler cannot reorder work booked at issue, and on FIFO queues it would also drop
/// the booking's reservations ahead, a difference that is not its order.
pub const FIFO_SCHEMES: [&str; 3] = ["LDP (FIFO)", "Gear (FIFO)", "LLC (FIFO)"];

/// Every scheme the study names: [`MAIN_SCHEMES`], [`FIFO_SCHEMES`], [`BREAKDOWN_SCHEMES`].
pub(super) fn all_schemes() -> impl Iterator<Item = &'static str> {
    MAIN_SCHEMES
        .into_iter()
        .chain(FIFO_SCHEMES)
        .chain(BREAKDOWN_SCHEMES)
}

/// The scheme of a [`FIFO_SCHEMES`] row ([`MAIN_SCHEMES`]' name), or `scheme` itself; and the
/// queueing discipline its device runs.
pub(super) fn queueing_of(scheme: &str) -> (&str, &'static str) {
    match scheme.strip_suffix(" (FIFO)") {
        Some(base) if FIFO_SCHEMES.contains(&scheme) => (base, "fifo"),
        _ => (scheme, QUEUEING),
    }
}

/// The breakdown of figures 13-15, one technique added at a time; then ablation rows that
/// are not the paper's, on the same per-die queues ([`QUEUEING`]) with other orders:
/// `LDP+query-first` is LDP with the Read Scheduler's order (queries before everything else,
/// the rest in issue order: `Scheduler::QueryFirst`), what query priority alone does for LDP;
/// `SplitZNS+prio` and `LDP+prio` use the class order of `Scheduler::Priority` instead
/// (queries, then background reads, then programs, then erases), the form earlier results of
/// this study ran.
///
/// `+diff L3` and `SplitZNS L3` are ablation rows too: subzones from L3 on instead of L4, with
/// no acceleration and with all of them. At the paper's load L4 is filled by trivial moves
/// (kMinOverlappingRatio takes L3 files without L4 overlap first), so no SST is ever written
/// to L4 and the L4 rule places nothing in subzones; these rows show what subzones do when
/// they are written.
pub const BREAKDOWN_SCHEMES: [&str; 10] = [
    "native",
    "+diff",
    "+SZR",
    "+RP",
    "+RS",
    "LDP+query-first",
    "SplitZNS+prio",
    "LDP+prio",
    "+diff L3",
    "SplitZNS L3",
];

/// Every workload of Table 2, in the paper's order.
pub const WORKLOADS: [&str; 10] = [
    "fillrandom",
    "overwrite",
    "readrandom",
    "ycsb-l",
    "ycsb-a",
    "ycsb-b",
    "ycsb-c",
    "ycsb-d",
    "ycsb-e",
    "ycsb-f",
];

/// The keys the issue names for every scheme and workload of the JSON (there are more).
pub const ISSUE_KEYS: [&str; 7] = [
    "ops_per_s",
    "latency_us_p99",
    "latency_us_p999",
    "device_write_bytes",
    "user_write_bytes",
    "gc_copied_bytes",
    "stall_ns",
];

/// The breakdown's workloads (§5.4: "the overwrite and read random workload").
pub const BREAKDOWN_WORKLOADS: [&str; 2] = ["overwrite", "readrandom"];

/// Puts of the load at paper scale: §5.1.4 loads "approximately 50 GiB" of 1 KiB values
/// (52,428,800 puts); we load 90 % of that, 45 GiB: with the full 50 GiB uncompressed and 16
/// compactions at once, LDP and SplitZNS run the device out of space at `small` (measured;
/// the paper notes the "space spike during compactions" that kept its load at 50 GiB).
pub const PAPER_LOAD_PUTS: u64 = 47_185_920;

/// Puts of the `unique` load at paper scale ([`LoadForm::Unique`]): 40 GiB of 1 KiB values,
/// every key once. 42.5 GiB still runs LDP and SplitZNS; 45 GiB runs SplitZNS out of space
/// (measured at `small`, `scenarios/splitzns-unique-load.toml`).
pub const PAPER_UNIQUE_LOAD_PUTS: u64 = 41_943_040;

/// Operations per thread of a measured workload at paper scale (§5.1.4: 4 threads x 1 M).
pub const PAPER_OPS_PER_THREAD: u64 = 1_000_000;

/// Client threads of a measured workload.
pub const THREADS: u64 = 4;

pub(super) const MIB: u64 = 1 << 20;

/// The divisor of sizes and counts at `scale` (the device's `1/N`).
pub fn divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 64,
        ReproScale::Paper => 1,
        // 1/1024 does not divide the profile's 512 pages per block.
        ReproScale::Tiny => 256,
        ReproScale::Fraction(n) => u64::from(n),
    }
}

/// Device, placement and engine lines of `scheme` (TOML).
pub(super) fn scheme_toml(scheme: &str) -> Result<(String, String, &'static str), HarnessError> {
    // (device lines, fs lines, engine lines)
    let selective = |min_level: u32, max_pct: u32| {
        format!(
            "placement = \"selective\"\nselective_min_level = {min_level}\nselective_max_split_pct = {max_pct}\n"
        )
    };
    let split = |ring: bool, prefetcher: bool, read_scheduler: bool| {
        format!(
            "kind = \"splitzns\"\n[device.splitzns]\nring = {ring}\nprefetcher = {prefetcher}\nread_scheduler = {read_scheduler}\n"
        )
    };
    Ok(match scheme {
        "LDP" => (String::new(), "placement = \"liza\"\n".into(), ""),
        "LDP+prio" => (
            "scheduler = \"priority\"\n".into(),
            "placement = \"liza\"\n".into(),
            "",
        ),
        "LDP+query-first" => (
            "scheduler = \"query-first\"\n".into(),
            "placement = \"liza\"\n".into(),
            "",
        ),
        "SplitZNS+prio" => (
            format!("scheduler = \"priority\"\n{}", split(true, true, true)),
            selective(4, 60),
            "",
        ),
        "Gear" => (
            String::new(),
            "placement = \"level-zones\"\n".into(),
            "compaction_pri = \"kRoundRobin\"\ncompaction_scheme = \"gear\"\n",
        ),
        "LLC" => (
            String::new(),
            "placement = \"level-zones\"\n".into(),
            "compaction_scheme = \"llc\"\n",
        ),
        "SplitZNS" | "+RS" => (split(true, true, true), selective(4, 60), ""),
        "native" => (split(false, false, false), selective(0, 100), ""),
        "+diff" => (split(false, false, false), selective(4, 60), ""),
        "+SZR" => (split(true, false, false), selective(4, 60), ""),
        "+RP" => (split(true, true, false), selective(4, 60), ""),
        "+diff L3" => (split(false, false, false), selective(3, 60), ""),
        "SplitZNS L3" => (split(true, true, true), selective(3, 60), ""),
        other => {
            return Err(HarnessError::unknown(
                "splitzns scheme",
                other,
                MAIN_SCHEMES
                    .iter()
                    .chain(FIFO_SCHEMES.iter())
                    .chain(BREAKDOWN_SCHEMES.iter()),
            ));
        }
    })
}

/// The YCSB mix of `ycsb-a` ... `ycsb-f` (YCSB's core workload files).
pub(crate) fn ycsb_mix(w: &str) -> Option<&'static str> {
    Some(match w {
        "ycsb-a" => "readproportion = 0.5\nupdateproportion = 0.5\n",
        "ycsb-b" => "readproportion = 0.95\nupdateproportion = 0.05\n",
        "ycsb-c" => "readproportion = 1.0\nupdateproportion = 0.0\n",
        "ycsb-d" => {
            "readproportion = 0.95\nupdateproportion = 0.0\ninsertproportion = 0.05\nrequestdistribution = \"latest\"\n"
        }
        "ycsb-e" => {
            "readproportion = 0.0\nupdateproportion = 0.0\nscanproportion = 0.95\ninsertproportion = 0.05\nmaxscanlength = 100\n"
        }
        "ycsb-f" => {
            "readproportion = 0.5\nupdateproportion = 0.0\nreadmodifywriteproportion = 0.5\n"
        }
        _ => return None,
    })
}

/// One point of figure 16's sweeps: what differs from the study's set-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Variant {
    /// The study's own set-up.
    Base,
    /// Values of this many bytes (the load keeps its bytes: fewer, larger puts).
    ValueSize(u64),
    /// The skewed load and YCSB's requests with this zipfian constant; `None`: uniform.
    Skew(Option<f64>),
    /// RocksDB's `compaction_pri`.
    Pri(&'static str),
    /// Zones of this many MiB at full scale, capacity fixed, every zone over all 16 chips
    /// (the erase block resized: figure 3's method).
    ZoneSize(u32),
    /// This many flash chips, the zone size kept by resizing the erase block (figure 16b's
    /// method); SSTs shrink to fit the smaller subzones of more chips.
    Chips(u32),
}

/// Percent of the study's load the sweeps load: at the full load, 8 of the 26 sweep runs at
/// `small` ran the device out of space (128 B and 4 KiB values, and `compaction_pri` other
/// than kMinOverlappingRatio use more space than the study's set-up; measured).
pub const SWEEP_LOAD_PCT: u64 = 70;

/// Figure 16's sweeps: (sweep name, workload, points). Value size and `compaction_pri` on
/// overwrite, skew and chip count on YCSB-A (after a load of the same skew).
pub const SWEEPS: [(&str, &str, &[Variant]); 4] = [
    (
        "value_size",
        "overwrite",
        &[
            Variant::ValueSize(128),
            Variant::ValueSize(512),
            Variant::ValueSize(1024),
            Variant::ValueSize(4096),
        ],
    ),
    (
        "skew",
        "ycsb-a",
        &[
            Variant::Skew(None),
            Variant::Skew(Some(0.8)),
            Variant::Skew(Some(0.9)),
            Variant::Skew(Some(0.95)),
            Variant::Skew(Some(0.99)),
        ],
    ),
    (
        "compaction_pri",
        "overwrite",
        &[
            Variant::Pri("kByCompensatedSize"),
            Variant::Pri("kMinOverlappingRatio"),
            Variant::Pri("kOldestLargestSeqFirst"),
            Variant::Pri("kOldestSmallestSeqFirst"),
        ],
    ),
    (
        "chips",
        "ycsb-a",
        &[
            Variant::Chips(8),
            Variant::Chips(16),
            Variant::Chips(32),
            Variant::Chips(64),
        ],
    ),
];

/// Figure 3's zone sizes, MiB at full scale (LDP; the paper normalizes to 128 MiB).
pub const FIG3_ZONE_MIB: [u32; 4] = [128, 256, 512, 1024];

/// Figure 3's workload (and figure 4's uniform one): the sweeps' load ([`SWEEP_LOAD_PCT`]),
/// then 10 M overwrites at paper scale ("write another 10 million key value pairs"), 4
/// threads.
pub const FIG3_WORKLOAD: &str = "overwrite-10m";

/// Figure 4's skewed workload: the zipfian (0.99) load, then 10 M zipfian updates.
pub const FIG4_SKEWED_WORKLOAD: &str = "update-10m";

/// Writes of figure 3's measured overwrite at paper scale.
pub const FIG3_WRITES: u64 = 10_000_000;

/// The paper's figure 3(c): (zone MiB, migrated MiB per GC, GC count), the two ends the text
/// gives.
pub const FIG3_PAPER: [(u32, f64, u64); 2] = [(128, 43.0, 298), (1024, 386.0, 144)];

impl Variant {
    /// The point's label (`128`, `uniform`, `0.99`, `kMinOverlappingRatio`).
    pub fn label(self) -> String {
        match self {
            Self::Base => "base".into(),
            Self::ValueSize(v) => v.to_string(),
            Self::Skew(None) => "uniform".into(),
            Self::Skew(Some(c)) => c.to_string(),
            Self::Pri(p) => p.to_owned(),
            Self::ZoneSize(m) => m.to_string(),
            Self::Chips(n) => n.to_string(),
        }
    }

    /// The erase block this point sets, bytes at full scale (`None`: the profile's 8 MiB).
    pub(super) fn block_bytes(self) -> Option<u64> {
        match self {
            // 16 chips x 4 planes per row.
            Self::ZoneSize(m) => Some(u64::from(m) * MIB / 64),
            // 512 MiB zones over `n` chips x 4 planes.
            Self::Chips(n) => Some(512 * MIB / (u64::from(n) * 4)),
            _ => None,
        }
    }

    /// Whether the point exists at `scale`: its erase block, divided by the scale, is still
    /// whole 16 KiB pages (`tiny` cannot take the 2 MiB blocks of 128 MiB zones or of 64
    /// chips).
    pub fn fits(self, scale: ReproScale) -> bool {
        self.block_bytes()
            .is_none_or(|b| (b / divisor(scale)).is_multiple_of(16 << 10) && b / divisor(scale) > 0)
    }
}

/// The paper's SplitZNS over LDP at a sweep point (figure 16, §5.5), where the text gives it.
pub(super) fn paper_sweep(v: Variant) -> Option<f64> {
    match v {
        Variant::Pri("kByCompensatedSize") | Variant::Chips(32) => Some(1.50),
        Variant::Pri("kMinOverlappingRatio") => Some(1.72),
        Variant::Pri("kOldestLargestSeqFirst") => Some(1.37),
        Variant::Pri("kOldestSmallestSeqFirst") => Some(1.91),
        Variant::Skew(Some(c)) if (c - 0.99).abs() < 1e-9 => Some(1.66),
        Variant::Chips(8) => Some(1.79),
        Variant::Chips(16) => Some(1.75),
        Variant::Chips(64) => Some(1.20),
        _ => None,
    }
}

/// The `[workload]` section (and its phases) of workload `w` with `load` puts and `ops`
/// operations per thread, values of `value` bytes and the skewed load's distribution `dist`.
pub(super) fn workload_toml(
    w: &str,
    (load, ops, value): (u64, u64, u64),
    dist: &str,
    (keys, form): (OverwriteKeys, LoadForm),
) -> Result<String, HarnessError> {
    let fill = form.fill_benchmark();
    let db_bench = |then: &str| {
        format!(
            "[workload]\nbenchmarks = \"{fill}\"\nnum = {load}\nkey_size = 16\nvalue_size = {value}\n{then}"
        )
    };
    let (load_phase, updates, upsert) = match form {
        // The skewed load: `load` writes (upserts) of zipfian keys over `load` records,
        // without YCSB's load phase.
        LoadForm::Random => ("ycsb_load = false\n", load, "upsert = true\n"),
        // YCSB's load phase of `load` records (each once), and no transactions with it: the
        // measured phase is the load itself, or the mix after it.
        LoadForm::Unique => ("", 0, ""),
    };
    let ycsb_load = format!(
        "[workload]\nkind = \"ycsb\"\n{load_phase}[workload.ycsb]\nrecordcount = {load}\noperationcount = {updates}\nreadproportion = 0.0\nupdateproportion = 1.0\n{upsert}{dist}fieldcount = 1\nfieldlength = {value}\n"
    );
    // Overwrites of `per` per thread, over the keys `keys` says.
    let overwrite = |per: u64| {
        db_bench(&match keys {
            OverwriteKeys::Spread => format!(
                "[[workload.then]]\nbenchmarks = \"overwrite\"\nnum = {load}\nwrites = {per}\nthreads = {THREADS}\n"
            ),
            OverwriteKeys::FirstKeys => format!(
                "[[workload.then]]\nbenchmarks = \"overwrite\"\nnum = {per}\nthreads = {THREADS}\n"
            ),
        })
    };
    let d10 = |d: u64| (FIG3_WRITES * ops / PAPER_OPS_PER_THREAD / d).max(1);
    Ok(match w {
        "fillrandom" => db_bench(""),
        "overwrite" => overwrite(ops),
        "readrandom" => db_bench(&format!(
            "[[workload.then]]\nbenchmarks = \"readrandom\"\nnum = {load}\nreads = {ops}\nthreads = {THREADS}\n"
        )),
        FIG3_WORKLOAD => overwrite(d10(THREADS)),
        FIG4_SKEWED_WORKLOAD => {
            let mut t = ycsb_load;
            let _ = write!(
                t,
                "[[workload.then]]\n[workload.then.ycsb]\noperationcount = {}\nthreadcount = {THREADS}\nreadproportion = 0.0\nupdateproportion = 1.0\n",
                d10(1)
            );
            t
        }
        "ycsb-l" => ycsb_load,
        other => {
            let mix = ycsb_mix(other)
                .ok_or_else(|| HarnessError::unknown("splitzns workload", other, WORKLOADS))?;
            let mut t = ycsb_load;
            let _ = write!(
                t,
                "[[workload.then]]\n[workload.then.ycsb]\noperationcount = {}\nthreadcount = {THREADS}\n{mix}",
                ops * THREADS
            );
            t
        }
    })
}

/// The scenario of `scheme` on workload `w` at `scale` with `seed`.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown scheme or workload.
pub fn scenario(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
) -> Result<Scenario, HarnessError> {
    scenario_at(scheme, w, scale, seed, Variant::Base)
}

/// [`scenario`] at a point of figure 16's sweeps.
///
/// # Errors
/// As [`scenario`].
pub fn scenario_at(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
    variant: Variant,
) -> Result<Scenario, HarnessError> {
    scenario_with(scheme, w, scale, seed, variant, Default::default())
}

/// [`scenario_at`] with the measured overwrites' keys and the load of `form`.
///
/// # Errors
/// As [`scenario`].
pub fn scenario_with(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
    variant: Variant,
    (keys, load): (OverwriteKeys, Load),
) -> Result<Scenario, HarnessError> {
    let load_form = load.form;
    let d = divisor(scale);
    let (base, queueing) = queueing_of(scheme);
    let (device, fs, engine) = scheme_toml(base)?;
    // The device lines of the point (before the scheme's, which may open a sub-table).
    let point_device = match variant {
        Variant::ZoneSize(m) => format!("zone_size_mib = {m}\n"),
        Variant::Chips(n) => format!("chips = {n}\n"),
        _ => String::new(),
    } + &variant
        .block_bytes()
        .map_or(String::new(), |b| format!("block_kib = {}\n", b >> 10));
    // SSTs fit a subzone: 30 MiB, or 15/16 of a smaller one (512 MiB over more than 16
    // chips); the same for every scheme of the point.
    let sst_full = match variant {
        Variant::Chips(n) => (30 * MIB).min(512 * MIB / u64::from(n) * 15 / 16),
        _ => 30 * MIB,
    };
    let value = match variant {
        Variant::ValueSize(v) => v,
        _ => 1024,
    };
    // The same bytes loaded whatever the value size; the sweeps load less (see
    // [`SWEEP_LOAD_PCT`]).
    // Figure 3's 10 M overwrites after the full load ran the device out of space at 512 MiB
    // and 1 GiB zones (measured), so its points load as the sweeps do.
    let pct = if variant == Variant::Base {
        100
    } else {
        SWEEP_LOAD_PCT
    };
    let load = load.paper_puts() * (16 + 1024) / (16 + value) * pct / 100 / d;
    let dist = match variant {
        Variant::Skew(None) => "requestdistribution = \"uniform\"\n".to_owned(),
        Variant::Skew(Some(c)) => {
            format!("requestdistribution = \"zipfian\"\nzipfianconstant = {c}\n")
        }
        _ => "requestdistribution = \"zipfian\"\nzipfianconstant = 0.99\n".to_owned(),
    };
    let pri = match variant {
        // The default is left unset, so that point is the study's own configuration.
        Variant::Pri(p) if p != "kMinOverlappingRatio" => {
            format!("compaction_pri = \"{p}\"\n")
        }
        _ => String::new(),
    };
    let ops = PAPER_OPS_PER_THREAD / d;
    // The unique load fits only on dynamic level sizes (see [`LoadForm::Unique`]).
    let dynamic = load_form == LoadForm::Unique;
    // The paper's RocksDB (v7.6.0: static level sizes by default), values stored
    // uncompressed (the paper's LDP cleans heavily at 50 GiB on 80: its data was not halved
    // by compression): 64 MiB memtables, SSTs the size of a subzone (32 MiB; 30 MiB here
    // so that an SST, which ends a little past its target, still fits one), 256 MiB L1, 16
    // compactions at once (21 jobs: 5 flushes + 16 compactions); the guest's 32 vCPUs.
    let text = format!(
        "name = \"{scheme} {w}\"\nseed = {seed}\nsample_interval_ms = 1000\nhost_cores = 32\n\
         [device]\nprofile = \"splitzns-paper\"\nscale = \"1/{d}\"\nqueueing = \"{queueing}\"\n{point_device}{device}\
         [fs]\ncleaner = \"greedy\"\ngc_threshold = 20\n{fs}\
         [engine]\nwrite_buffer_size = {wb}\ntarget_file_size_base = {sst}\nmax_bytes_for_level_base = {l1}\nmax_background_jobs = 21\nlevel_compaction_dynamic_level_bytes = {dynamic}\ncompression = \"none\"\n{engine}{pri}\
         {workload}",
        wb = 64 * MIB / d,
        sst = sst_full / d,
        l1 = 256 * MIB / d,
        workload = workload_toml(w, (load, ops, value), &dist, (keys, load_form))?,
    );
    Scenario::base(&text)
}

/// What of the study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPlan {
    /// Seeds (figures are their means).
    pub seeds: Vec<u64>,
    /// Workloads of the main matrix (empty: all of [`WORKLOADS`]).
    pub workloads: Vec<String>,
    /// Also the breakdown (figures 13-15).
    pub breakdown: bool,
    /// Also figure 16's sweeps ([`SWEEPS`], LDP and SplitZNS), figure 3's zone sizes and
    /// figure 4's skewed lifetimes (LDP).
    pub sweeps: bool,
    /// The keys the measured overwrites hit.
    pub overwrite_keys: OverwriteKeys,
    /// How the database is loaded.
    pub load: Load,
}

/// Every simulation of the study: per seed, the main schemes on the workloads, then the
/// breakdown on overwrite and readrandom.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown workload.
pub fn cells(scale: ReproScale, plan: &SplitPlan) -> Result<Vec<Cell>, HarnessError> {
    if let Some(w) = plan
        .workloads
        .iter()
        .find(|w| !WORKLOADS.contains(&w.as_str()))
    {
        return Err(crate::reproduce::unknown_workload(w, &WORKLOADS));
    }
    let runs = |w: &str| plan.workloads.is_empty() || plan.workloads.iter().any(|x| x == w);
    let form = (plan.overwrite_keys, plan.load);
    let mut out = Vec::new();
    let cell = |group: &'static str, scheme: &'static str, w: &str, seed: u64| {
        Ok::<_, HarnessError>(Cell {
            group,
            scheme,
            form: Form::Code,
            workload: w.to_owned(),
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed,
            scenario: scenario_with(scheme, w, scale, seed, Variant::Base, form)?,
        })
    };
    for &seed in &plan.seeds {
        for w in WORKLOADS.iter().filter(|w| runs(w)) {
            for s in MAIN_SCHEMES {
                out.push(cell("scheme", s, w, seed)?);
            }
            for s in FIFO_SCHEMES {
                out.push(cell("queueing", s, w, seed)?);
            }
        }
        if plan.sweeps {
            let point = |group, scheme, w: &str, key: String, v: Variant| {
                Ok::<_, HarnessError>(Cell {
                    group,
                    scheme,
                    form: Form::Code,
                    workload: key,
                    turning_point: None,
                    level_constraint: None,
                    ablation_step: None,
                    seed,
                    scenario: scenario_with(scheme, w, scale, seed, v, form)?,
                })
            };
            for (sweep, w, points) in SWEEPS {
                for &v in points.iter().filter(|v| v.fits(scale)) {
                    for scheme in ["LDP", "SplitZNS"] {
                        let key = format!("{w}@{sweep}={}", v.label());
                        out.push(point("sweep", scheme, w, key, v)?);
                    }
                }
            }
            for m in FIG3_ZONE_MIB {
                let v = Variant::ZoneSize(m);
                if v.fits(scale) {
                    let key = format!("{FIG3_WORKLOAD}@zone_size={m}");
                    out.push(point("zone_size", "LDP", FIG3_WORKLOAD, key, v)?);
                }
            }
            let w = FIG4_SKEWED_WORKLOAD;
            out.push(point("lifetime", "LDP", w, w.to_owned(), Variant::Base)?);
        }
        if plan.breakdown {
            for w in BREAKDOWN_WORKLOADS.iter().filter(|w| runs(w)) {
                for s in BREAKDOWN_SCHEMES {
                    out.push(cell("breakdown", s, w, seed)?);
                }
            }
        }
    }
    Ok(out)
}
