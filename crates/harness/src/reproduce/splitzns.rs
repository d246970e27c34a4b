//! The SplitZNS paper's experiments (TACO'23 §5, `shared/papers/000_…`): its schemes on its
//! workloads, on the SplitZNS device model of Table 1.
//!
//! - **Schemes** (§5.1.3): `LDP` (LIZA + `kMinOverlappingRatio` + greedy cleaning below 20 %
//!   free, on the plain ZNS SSD), `Gear` (dedicated zones per level, `level-zones`, with
//!   LevelDB's round-robin picking, `kRoundRobin`, and GearDB's cascading gear compaction,
//!   `compaction_scheme = "gear"`), `LLC` (dedicated zones per level with the
//!   lifetime-leveling picker, `compaction_scheme = "llc"`), `SplitZNS` (the selective
//!   allocator on the SplitZNS device with every acceleration). Zone cleaning is on for all
//!   (greedy, 20 %), as §5.1.3 says; the selective allocator's cleaning skips subzones.
//! - **Queueing** ([`QUEUEING`]): every scheme's device queues die work the same way, per-die
//!   work-conserving queues; SplitZNS's Read Scheduler only puts query reads first in them.
//!   [`FIFO_SCHEMES`] run the baselines again on FIFO queueing, rows apart.
//! - **Breakdown** (§5.4): `native` (subzones for every level, with the subzone and chip
//!   allocators, no acceleration), `+diff` (subzones for L4 and deeper only), `+SZR` (and the
//!   SubZone Ring), `+RP` (and the Read Prefetcher), `+RS` (and the Read Scheduler: SplitZNS).
//! - **Workloads** (Table 2): `fillrandom` (the load, ~50 GiB of 16 B keys and 1 KiB values),
//!   `overwrite` and `readrandom` (4 threads x 1 M operations after the load), `ycsb-l` (the
//!   same number of writes with zipfian 0.99 keys: a skewed load, as updates so keys repeat),
//!   `ycsb-a` ... `ycsb-f` (4 threads x 1 M operations after `ycsb-l`).
//!
//! Every figure of a workload is its measured phase's (the last): throughput, latency
//! percentiles, and the bytes the device wrote, the tree wrote and cleaning copied during it.
//! `small` divides the device (zone and subzone sizes), the engine's sizes and the operation
//! counts by 64; `tiny` by 256 (checks only); `paper` is the paper's own set-up.
//!
//! LLC here is its zone layout and picking rules; its relocation of skipped files is the
//! separate `llc-relocate` scheme and its temporary zone group the engine option
//! `llc_temp_zones`, both measured apart (see `docs/results/splitzns.md`).

use std::fmt::Write as _;

use super::figures::{CellResult, Figures, Measured};
use super::seeds::{BySeed, summaries};
use super::{Cell, Form, ReproScale};
use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

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
fn all_schemes() -> impl Iterator<Item = &'static str> {
    MAIN_SCHEMES
        .into_iter()
        .chain(FIFO_SCHEMES)
        .chain(BREAKDOWN_SCHEMES)
}

/// The scheme of a [`FIFO_SCHEMES`] row ([`MAIN_SCHEMES`]' name), or `scheme` itself; and the
/// queueing discipline its device runs.
fn queueing_of(scheme: &str) -> (&str, &'static str) {
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

const MIB: u64 = 1 << 20;

/// The divisor of sizes and counts at `scale` (the device's `1/N`).
pub fn divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 64,
        ReproScale::Paper => 1,
        // 1/1024 does not divide the profile's 512 pages per block.
        ReproScale::Tiny => 256,
    }
}

/// Device, placement and engine lines of `scheme` (TOML).
fn scheme_toml(scheme: &str) -> Result<(String, String, &'static str), HarnessError> {
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
            return Err(HarnessError::Config(format!(
                "splitzns scheme '{other}'; known: {}, {}, {}",
                MAIN_SCHEMES.join(", "),
                FIFO_SCHEMES.join(", "),
                BREAKDOWN_SCHEMES.join(", ")
            )));
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

/// Which keys the measured overwrites hit. db_bench's `--num` is both the key space and the
/// writes per thread, so "4 threads x 1 M operations" after a 50 GiB load reads two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OverwriteKeys {
    /// `--num <loaded keys> --writes 1000000 --threads 4`: spread uniformly over every loaded
    /// key, as the paper's text reads (the workloads run on the 50 GiB database).
    #[default]
    Spread,
    /// `--num 1000000 --threads 4` (db_bench run again with its literal flags): the first
    /// 1 M keys of the 47 M loaded, a hot range of 2 % of the key space.
    FirstKeys,
}

impl OverwriteKeys {
    /// The form's name (`spread`, `first-keys`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Spread => "spread",
            Self::FirstKeys => "first-keys",
        }
    }

    /// The form called `name`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the known forms.
    pub fn parse(name: &str) -> Result<Self, HarnessError> {
        match name {
            "spread" => Ok(Self::Spread),
            "first-keys" => Ok(Self::FirstKeys),
            other => Err(HarnessError::Config(format!(
                "overwrite keys '{other}'; known: spread, first-keys"
            ))),
        }
    }
}

/// How the database is loaded before the measured workloads. The paper loads "approximately 50
/// GiB" and names neither the benchmark nor the level sizing; its trees are large (41.95 GiB
/// after YCSB-L, figure 12) and its LDP is cleaning-bound (figure 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadForm {
    /// db_bench's `fillrandom` of 45 GiB ([`PAPER_LOAD_PUTS`]: keys drawn with replacement,
    /// so about 63% of them distinct), RocksDB 7.6's static level sizes; YCSB-L is the load's
    /// count of zipfian (0.99) upserts. The paper's text read literally.
    #[default]
    Random,
    /// db_bench's `filluniquerandom` of 40 GiB ([`PAPER_UNIQUE_LOAD_PUTS`]: every key once),
    /// dynamic level sizes (with static ones a 40 GiB unique load runs every scheme out of
    /// space, LDP included: the cleaner finds no zone to migrate into, as ZenFS's GC); YCSB-L
    /// is YCSB's own load phase of as many records. The device ends nearly full and LDP
    /// cleaning-bound, the regime of the paper's figures.
    Unique,
}

impl LoadForm {
    /// The form's name (`random`, `unique`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Unique => "unique",
        }
    }

    /// The form called `name`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the known forms.
    pub fn parse(name: &str) -> Result<Self, HarnessError> {
        match name {
            "random" => Ok(Self::Random),
            "unique" => Ok(Self::Unique),
            other => Err(HarnessError::Config(format!(
                "load '{other}'; known: random, unique"
            ))),
        }
    }

    /// Puts of the full load at paper scale with 1 KiB values.
    pub fn paper_puts(self) -> u64 {
        match self {
            Self::Random => PAPER_LOAD_PUTS,
            Self::Unique => PAPER_UNIQUE_LOAD_PUTS,
        }
    }

    /// The db_bench benchmark that loads.
    fn fill_benchmark(self) -> &'static str {
        match self {
            Self::Random => "fillrandom",
            Self::Unique => "filluniquerandom",
        }
    }
}

/// How the database is loaded: the form and, if given, its size (`--load-gib`) in place of
/// the form's ([`LoadForm::paper_puts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Load {
    /// The form.
    pub form: LoadForm,
    /// Puts of the load at paper scale with 1 KiB values (`None`: the form's).
    pub paper_puts: Option<u64>,
}

impl From<LoadForm> for Load {
    fn from(form: LoadForm) -> Self {
        Self {
            form,
            paper_puts: None,
        }
    }
}

impl Load {
    /// `form` loading `gib` GiB of 1 KiB values at paper scale (the study's other scales
    /// divide it as they divide the device); `None` keeps the form's size.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for a size that is not a positive number of at most 1 TiB.
    pub fn sized(form: LoadForm, gib: Option<f64>) -> Result<Self, HarnessError> {
        let Some(gib) = gib else {
            return Ok(form.into());
        };
        if !(gib.is_finite() && gib > 0.0 && gib <= 1024.0) {
            return Err(HarnessError::Config(format!(
                "load of {gib} GiB; give a positive size of at most 1024 GiB"
            )));
        }
        // 1 KiB values: 2^20 puts a GiB.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked above: positive and at most 2^30 puts"
        )]
        let puts = (gib * f64::from(1u32 << 20)).round() as u64;
        Ok(Self {
            form,
            paper_puts: Some(puts.max(1)),
        })
    }

    /// Puts of the load at paper scale with 1 KiB values.
    pub fn paper_puts(self) -> u64 {
        self.paper_puts.unwrap_or_else(|| self.form.paper_puts())
    }

    /// The size loaded at paper scale, GiB of values.
    #[allow(clippy::cast_precision_loss, reason = "a size for display")]
    pub fn gib(self) -> f64 {
        self.paper_puts() as f64 / f64::from(1u32 << 20)
    }
}

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
    fn block_bytes(self) -> Option<u64> {
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
fn paper_sweep(v: Variant) -> Option<f64> {
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
fn workload_toml(
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
            let mix = ycsb_mix(other).ok_or_else(|| {
                HarnessError::Config(format!(
                    "splitzns workload '{other}'; known: {}",
                    WORKLOADS.join(", ")
                ))
            })?;
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
        return Err(HarnessError::Config(format!(
            "workload '{w}'; known: {}",
            WORKLOADS.join(", ")
        )));
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

/// The mean figures of `scheme` on `w` over the seeds run.
fn mean_of(results: &[CellResult], scheme: &str, w: &str) -> Option<Figures> {
    let runs: Vec<&Figures> = results
        .iter()
        .filter(|r| r.scheme == scheme && r.workload == w)
        .filter_map(|r| r.figures.as_ref().ok())
        .collect();
    Figures::mean(&runs)
}

/// The issue's keys for one scheme and workload, from the measured phase.
fn workload_json(f: &Figures) -> serde_json::Value {
    let p = f.measured.clone().unwrap_or_default();
    serde_json::json!({
        "ops": p.ops,
        "ops_per_s": p.ops_per_s,
        "latency_us_p50": p.latency_us_p50,
        "latency_us_p99": p.latency_us_p99,
        "latency_us_p999": p.latency_us_p999,
        "latency_us_p99_by_op": p.latency_us_p99_by_op,
        "latency_us_p999_by_op": p.latency_us_p999_by_op,
        "device_write_bytes": p.device_write_bytes,
        "user_write_bytes": p.user_write_bytes,
        "gc_copied_bytes": p.gc_copied_bytes,
        "stall_ns": p.stall_ns,
        "run_device_write_bytes": p.run_device_write_bytes,
        "run_gc_copied_bytes": f.gc_copied_bytes,
        "tree_bytes": p.tree_bytes,
        "tree_files": p.tree_files,
        "compaction_read_mb_per_s": f.compaction_read_mb_per_s,
        "compaction_mb_per_s": p.compaction_mb_per_s,
        "subzone_ssts": p.subzone_ssts,
        "trivial_moves": p.trivial_moves,
        "sst_lifetime_s_by_level": p.sst_lifetime_s_by_level,
    })
}

/// The study's JSON: an object per scheme (the paper's names), each with an object per
/// workload run.
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let seeds = super::seeds::seeds_of(results);
    let by_seed = BySeed::new(results);
    let mut schemes = serde_json::Map::new();
    for s in all_schemes() {
        let mut per = serde_json::Map::new();
        for w in WORKLOADS {
            if let Some(f) = mean_of(results, s, w) {
                let mut o = workload_json(&f);
                if by_seed.many() {
                    let each: Vec<serde_json::Value> = by_seed
                        .each()
                        .iter()
                        .filter_map(|rs| mean_of(rs, s, w).map(|f| workload_json(&f)))
                        .collect();
                    o["spread"] = summaries(&each);
                }
                per.insert(w.to_owned(), o);
            }
        }
        if !per.is_empty() {
            schemes.insert(s.to_owned(), serde_json::Value::Object(per));
        }
    }
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.figures
                .as_ref()
                .err()
                .map(|e| format!("{} {} (seed {}): {e}", r.scheme, r.workload, r.seed))
        })
        .collect();
    let mut sweeps = serde_json::Map::new();
    for (sweep, w, points) in SWEEPS {
        let mut per = serde_json::Map::new();
        for &v in points {
            let key = format!("{w}@{sweep}={}", v.label());
            let (Some(l), Some(z)) = (
                mean_of(results, "LDP", &key),
                mean_of(results, "SplitZNS", &key),
            ) else {
                continue;
            };
            per.insert(
                v.label(),
                serde_json::json!({
                    "LDP": workload_json(&l),
                    "SplitZNS": workload_json(&z),
                    "splitzns_over_ldp": ratio(results, "SplitZNS", "LDP", &key, ops_per_s),
                    "paper": paper_sweep(v),
                }),
            );
        }
        if !per.is_empty() {
            sweeps.insert(sweep.to_owned(), serde_json::Value::Object(per));
        }
    }
    let mut zone_size = serde_json::Map::new();
    for p in fig3_points(results) {
        zone_size.insert(p.mib.to_string(), p.json());
    }
    if !zone_size.is_empty() {
        zone_size.insert(
            "paper".into(),
            serde_json::json!({
                "migrated_mib_per_gc": {"128": FIG3_PAPER[0].1, "1024": FIG3_PAPER[1].1},
                "gc_count": {"128": FIG3_PAPER[0].2, "1024": FIG3_PAPER[1].2},
                "migration_wa_vs_128_max": 1.9,
                "ops_per_s_1024_vs_128": 0.27,
            }),
        );
    }
    let mut lifetimes = serde_json::Map::new();
    for (name, w) in fig4_workloads() {
        if let Some(m) = mean_of(results, "LDP", &w).and_then(|f| f.measured) {
            lifetimes.insert(
                name.to_owned(),
                serde_json::json!({
                    "workload": w,
                    "percentiles": (0..=20).map(|i| i * 5).collect::<Vec<u32>>(),
                    "cdf_s_by_level": m.sst_lifetime_cdf_s_by_level,
                }),
            );
        }
    }
    serde_json::json!({
        "study": "splitzns",
        "scale": scale.name(),
        "seeds": seeds,
        "queueing": QUEUEING,
        "schemes": schemes,
        "sweeps": sweeps,
        "zone_size": zone_size,
        "sst_lifetimes": lifetimes,
        "must_show": must_show_json(results, &by_seed),
        "failed": failed,
    })
}

/// One zone size of figure 3 (LDP after the load and 10 M overwrites at paper scale).
struct Fig3Point {
    mib: u32,
    /// Overwrite throughput, ops/s.
    ops_per_s: f64,
    /// Zone resets by cleaning over the run (the paper's GC count).
    gc_count: u64,
    /// Bytes cleaning copied over the run.
    gc_copied_bytes: u64,
    /// Device bytes over the file system's (the write amplification of migration).
    migration_wa: f64,
    /// Write-stall time of the overwrite phase, s.
    stall_s: f64,
}

impl Fig3Point {
    fn migrated_mib_per_gc(&self) -> f64 {
        if self.gc_count == 0 {
            0.0
        } else {
            mib(self.gc_copied_bytes) / self.gc_count as f64
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "ops_per_s": self.ops_per_s,
            "gc_count": self.gc_count,
            "gc_copied_bytes": self.gc_copied_bytes,
            "migrated_mib_per_gc": self.migrated_mib_per_gc(),
            "migration_wa": self.migration_wa,
            "stall_s": self.stall_s,
        })
    }
}

/// Figure 3's points that ran, smallest zone first.
fn fig3_points(results: &[CellResult]) -> Vec<Fig3Point> {
    FIG3_ZONE_MIB
        .iter()
        .filter_map(|&mib| {
            let f = mean_of(results, "LDP", &format!("{FIG3_WORKLOAD}@zone_size={mib}"))?;
            let m = f.measured.clone().unwrap_or_default();
            Some(Fig3Point {
                mib,
                ops_per_s: m.ops_per_s,
                gc_count: f.gc_zone_resets,
                gc_copied_bytes: f.gc_copied_bytes,
                migration_wa: f.zone_write_amplification,
                stall_s: m.stall_ns as f64 / 1e9,
            })
        })
        .collect()
}

/// Figure 4's two workloads: (name, workload key) for uniform (figure 3's 512 MiB point, the
/// profile's own zones) and zipfian 0.99.
fn fig4_workloads() -> [(&'static str, String); 2] {
    [
        ("uniform", format!("{FIG3_WORKLOAD}@zone_size=512")),
        ("zipfian", FIG4_SKEWED_WORKLOAD.to_owned()),
    ]
}

/// One of the issue's "must show" comparisons.
struct Check {
    what: &'static str,
    paper: f64,
    /// The bar at small scale (half the paper's gain), or `None`: direction only.
    bar: Option<f64>,
    ours: Option<f64>,
    /// Lower is better (latency).
    lower: bool,
}

impl Check {
    fn met(&self) -> Option<bool> {
        let ours = self.ours?;
        Some(match (self.bar, self.lower) {
            (Some(b), false) => ours >= b,
            (Some(b), true) => ours <= b,
            (None, false) => ours > 1.0,
            (None, true) => ours < 1.0,
        })
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "what": self.what,
            "paper": self.paper,
            "bar": self.bar,
            "ours": self.ours,
            "met": self.met(),
        })
    }
}

/// The must-show list as JSON; with more than one seed each check's `ours_interval` (the
/// summary of each seed's ratio).
fn must_show_json(
    results: &[CellResult],
    by_seed: &BySeed<'_, CellResult>,
) -> Vec<serde_json::Value> {
    must_show(results)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut o = c.json();
            if by_seed.many() {
                o["ours_interval"] = serde_json::json!(by_seed.summary(|rs| must_show(rs)[i].ours));
            }
            o
        })
        .collect()
}

/// Ratio of `key` of the measured phase: `scheme` over `base` on `workload`.
fn ratio(
    results: &[CellResult],
    scheme: &str,
    base: &str,
    workload: &str,
    key: fn(&Figures) -> f64,
) -> Option<f64> {
    let ours = key(&mean_of(results, scheme, workload)?);
    let theirs = key(&mean_of(results, base, workload)?);
    (theirs > 0.0).then(|| ours / theirs)
}

fn ops_per_s(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.ops_per_s)
}

fn p99(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p99)
}

fn p999(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p999)
}

/// The headline claims ([`super::claims`]): the must-show list's ratios, each judged as an
/// effect against the paper's (P99: a ratio below 1).
pub fn claim_specs() -> Vec<super::claims::Spec<CellResult>> {
    use super::claims::{Judge, Spec, Unit};
    must_show(&[])
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Spec::new(
                c.what,
                c.paper,
                format!("{:.2}x", c.paper),
                Judge::Effect,
                Unit::Times,
                Box::new(move |rs: &[CellResult]| must_show(rs)[i].ours),
            )
        })
        .collect()
}

/// The issue's must-show list: gains of at least half the paper's over LDP, direction over
/// Gear and LLC, the breakdown's two write gains, lower P99 on overwrite.
fn must_show(r: &[CellResult]) -> Vec<Check> {
    let gain = |what, paper: f64, half: bool, a, b, w| Check {
        what,
        paper,
        bar: half.then(|| 1.0 + (paper - 1.0) / 2.0),
        ours: ratio(r, a, b, w, ops_per_s),
        lower: false,
    };
    vec![
        gain(
            "overwrite, SplitZNS / LDP",
            2.77,
            true,
            "SplitZNS",
            "LDP",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / LDP",
            1.79,
            true,
            "SplitZNS",
            "LDP",
            "ycsb-a",
        ),
        gain(
            "overwrite, SplitZNS / Gear",
            3.55,
            false,
            "SplitZNS",
            "Gear",
            "overwrite",
        ),
        gain(
            "overwrite, SplitZNS / LLC",
            2.68,
            false,
            "SplitZNS",
            "LLC",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / Gear",
            1.63,
            false,
            "SplitZNS",
            "Gear",
            "ycsb-a",
        ),
        gain(
            "YCSB-A, SplitZNS / LLC",
            1.23,
            false,
            "SplitZNS",
            "LLC",
            "ycsb-a",
        ),
        gain(
            "overwrite, +diff / native",
            1.43,
            true,
            "+diff",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / native",
            1.88,
            true,
            "+SZR",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / +diff",
            1.88,
            true,
            "+SZR",
            "+diff",
            "overwrite",
        ),
        Check {
            what: "overwrite P99, SplitZNS / LDP",
            paper: 1.0 - 0.572,
            bar: None,
            ours: ratio(r, "SplitZNS", "LDP", "overwrite", p99),
            lower: true,
        },
    ]
}

/// Figure 10's YCSB tails by operation type (the paper gives YCSB-A's update and read P99 and
/// YCSB-C's read P99 apart): a table of P99 per workload and operation, when any ran.
fn ycsb_p99_by_op(md: &mut String, results: &[CellResult], by_seed: &BySeed<'_, CellResult>) {
    let p99_of = |rs: &[CellResult], s: &str, w: &str, op: &str| {
        mean_of(rs, s, w)
            .and_then(|f| f.measured)
            .and_then(|m| m.latency_us_p99_by_op.get(op).copied())
    };
    let rows: Vec<(&str, String)> = WORKLOADS
        .iter()
        .filter(|w| w.starts_with("ycsb-"))
        .flat_map(|&w| {
            let ops = mean_of(results, "LDP", w)
                .and_then(|f| f.measured)
                .map(|m| m.latency_us_p99_by_op.into_keys().collect::<Vec<_>>())
                .unwrap_or_default();
            ops.into_iter().map(move |op| (w, op))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\nP99 by operation, µs:\n\n| workload | operation | LDP | Gear | LLC | SplitZNS | SplitZNS vs LDP |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for (w, op) in rows {
        let _ = write!(md, "| {w} | {op} |");
        for s in MAIN_SCHEMES {
            let v = by_seed.show(|rs| p99_of(rs, s, w, &op), |v| format!("{v:.0}"), 0, "-");
            let _ = write!(md, " {v} |");
        }
        let d = by_seed.show(
            |rs| {
                let (ours, ldp) = (p99_of(rs, "SplitZNS", w, &op)?, p99_of(rs, "LDP", w, &op)?);
                (ldp > 0.0).then(|| (ours / ldp - 1.0) * 100.0)
            },
            |c| format!("{c:+.1}%"),
            1,
            "-",
        );
        let _ = writeln!(md, " {d} |");
    }
    md.push_str("\nPaper: SplitZNS vs LDP P99 on YCSB-A -39.6% (update) and -24.9% (read), on YCSB-C -39.2% (read).\n");
}

/// The baselines on FIFO queueing ([`FIFO_SCHEMES`]) beside `SplitZNS` on the study's per-die
/// queues, over `LDP (FIFO)`: the old ranking (SplitZNS alone on per-die queues) and what
/// the discipline is worth, when they ran.
fn fifo_rows(md: &mut String, results: &[CellResult], by_seed: &BySeed<'_, CellResult>) {
    let ws: Vec<&str> = WORKLOADS
        .iter()
        .copied()
        .filter(|w| {
            FIFO_SCHEMES
                .iter()
                .any(|s| mean_of(results, s, w).is_some())
        })
        .collect();
    if ws.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Queueing: the baselines on FIFO queueing, and the old ranking\n\nNot the paper's. Every scheme above runs per-die queues (`queueing = \"{QUEUEING}\"`; SplitZNS's Read Scheduler puts query reads first in them). Here the baselines run on FIFO queueing (`queueing = \"fifo\"`: die work and its transfers booked at issue), as the study used to run them; its old ranking was `SplitZNS` (per-die) over these.\n\n| workload | scheme | queueing | ops/s | x LDP (FIFO) | P99 µs | P99.9 µs |\n|---|---|---|---:|---:|---:|---:|"
    );
    let fig = |s: &str, w: &str, g: fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| mean_of(rs, s, w).map(|f| g(&f)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    for w in ws {
        let rows = FIFO_SCHEMES
            .iter()
            .map(|&s| (s, "fifo"))
            .chain([("SplitZNS", QUEUEING)]);
        for (s, q) in rows {
            if mean_of(results, s, w).is_none() {
                continue;
            }
            let x = by_seed.show(
                |rs| ratio(rs, s, "LDP (FIFO)", w, ops_per_s),
                |x| format!("{x:.2}x"),
                2,
                "-",
            );
            let _ = writeln!(
                md,
                "| {w} | {s} | {q} | {} | {x} | {} | {} |",
                fig(s, w, ops_per_s, 0),
                fig(s, w, p99, 0),
                fig(s, w, p999, 0),
            );
        }
    }
}

/// The paper's throughput of SplitZNS over each competitor (figure 9), where §5.2 gives it.
pub(crate) fn paper_gain(competitor: &str, w: &str) -> Option<f64> {
    Some(match (competitor, w) {
        ("LDP", "overwrite") => 2.77,
        ("LDP", "ycsb-a") => 1.79,
        ("Gear", "overwrite") => 3.55,
        ("LLC", "overwrite") => 2.68,
        ("Gear", "ycsb-a") => 1.63,
        ("LLC", "ycsb-a") => 1.23,
        ("LDP", "readrandom") => 1.16,
        ("Gear", "readrandom") => 2.05,
        ("LLC", "readrandom") => 1.11,
        ("LDP", "ycsb-c") => 1.29,
        ("Gear", "ycsb-c") => 1.21,
        ("LLC", "ycsb-c") => 1.07,
        _ => return None,
    })
}

fn mib(b: u64) -> f64 {
    b as f64 / MIB as f64
}

/// The study's tables, our figures beside the paper's.
#[allow(
    clippy::too_many_lines,
    reason = "one table per figure of the paper, in its order"
)]
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# SplitZNS (TACO'23) at `--scale {}`\n\nEvery figure is the measured phase's (the last of the workload), the mean over the seeds run.{}\n",
        scale.name(),
        by_seed.note(" Ours: ", ".")
    );
    // A figure of `scheme` on `w` (`g` of its mean figures), and a ratio, over seeds.
    let fig = |scheme: &str, w: &str, g: &dyn Fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| mean_of(rs, scheme, w).map(|f| g(&f)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    let times = |a: &str, b: &str, w: &str, key: fn(&Figures) -> f64| {
        by_seed.show(|rs| ratio(rs, a, b, w, key), |x| format!("{x:.2}x"), 2, "-")
    };
    // Figure 9: throughput normalized to LDP.
    let _ = writeln!(
        md,
        "## Throughput (figure 9): ops/s, and SplitZNS over each scheme (paper in brackets)\n"
    );
    let _ = writeln!(
        md,
        "| workload | LDP | Gear | LLC | SplitZNS | SplitZNS / LDP | / Gear | / LLC |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if MAIN_SCHEMES
            .iter()
            .all(|s| mean_of(results, s, w).is_none())
        {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            let _ = write!(md, " {} |", fig(s, w, &ops_per_s, 0));
        }
        for c in ["LDP", "Gear", "LLC"] {
            let ours = times("SplitZNS", c, w, ops_per_s);
            let paper = paper_gain(c, w).map_or(String::new(), |p| format!(" ({p:.2}x)"));
            let _ = write!(md, " {ours}{paper} |");
        }
        md.push('\n');
    }
    // Figure 10: tail latency.
    let _ = writeln!(
        md,
        "\n## Tail latency (figure 10): P99 / P99.9, µs\n\n| workload | LDP | Gear | LLC | SplitZNS | SplitZNS P99 vs LDP |\n|---|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if mean_of(results, "LDP", w).is_none() {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            if mean_of(results, s, w).is_some() {
                let _ = write!(md, " {} / {} |", fig(s, w, &p99, 0), fig(s, w, &p999, 0));
            } else {
                md.push_str(" - |");
            }
        }
        let d = by_seed.show(
            |rs| ratio(rs, "SplitZNS", "LDP", w, p99).map(|x| (x - 1.0) * 100.0),
            |c| format!("{c:+.1}%"),
            1,
            "-",
        );
        let _ = writeln!(md, " {d} |");
    }
    md.push_str("\nPaper: SplitZNS vs LDP P99 / P99.9 -57.2% / -52.8% on overwrite, -43.1% / -43% on readrandom.\n");
    ycsb_p99_by_op(&mut md, results, &by_seed);
    fifo_rows(&mut md, results, &by_seed);
    // Figures 11-12: writes on YCSB-A, tree after YCSB-L.
    let _ = writeln!(
        md,
        "\n## Writes during YCSB-A (figure 11) and the tree after YCSB-L (figure 12)\n\n| scheme | device writes MiB (-D) | tree writes MiB (-U) | cleaning copy MiB | tree after YCSB-L MiB | SSTs |\n|---|---:|---:|---:|---:|---:|"
    );
    for s in MAIN_SCHEMES {
        let a = mean_of(results, s, "ycsb-a").and_then(|f| f.measured);
        let l = mean_of(results, s, "ycsb-l");
        if a.is_none() && l.is_none() {
            continue;
        }
        let cell = |w: &str, g: fn(&Measured) -> f64, digits: usize| {
            by_seed.show(
                |rs| mean_of(rs, s, w)?.measured.as_ref().map(g),
                |v| format!("{v:.digits$}"),
                digits,
                "-",
            )
        };
        let _ = writeln!(
            md,
            "| {s} | {} | {} | {} | {} | {} |",
            cell("ycsb-a", |p| mib(p.device_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.user_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.gc_copied_bytes), 1),
            cell("ycsb-l", |m| mib(m.tree_bytes), 1),
            cell("ycsb-l", |m| m.tree_files as f64, 0),
        );
    }
    md.push_str("\nPaper (after YCSB-L): Gear 37.38 GiB / 2509 SSTs, LLC 36.41 / 2451, LDP 41.95 / 2953, SplitZNS 41.97 / 2873; equal tree writes for LDP and SplitZNS, more for Gear and LLC.\n");
    // Figures 13-15: the breakdown.
    if results.iter().any(|r| r.group == "breakdown") {
        let _ = writeln!(
            md,
            "\n## Breakdown (figures 13-15), normalized to native\n\n| workload | scheme | ops/s | x native | x previous | P99 µs | P99.9 µs | stall s | compaction MB/s | SSTs in subzones | trivial moves |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for w in BREAKDOWN_WORKLOADS {
            let mut prev: Option<&str> = None;
            for s in BREAKDOWN_SCHEMES {
                let Some(f) = mean_of(results, s, w) else {
                    continue;
                };
                let x = |b: &str| times(s, b, w, ops_per_s);
                let p = f.measured.clone().unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {w} | {s} | {} | {} | {} | {} | {} | {:.2} | {:.1} | {} | {} |",
                    fig(s, w, &ops_per_s, 0),
                    x("native"),
                    if s == "LDP+prio" || s == "LDP+query-first" {
                        format!("{} (x LDP)", x("LDP"))
                    } else if s == "SplitZNS+prio" {
                        format!("{} (x SplitZNS)", x("SplitZNS"))
                    } else if s == "+diff L3" {
                        format!("{} (x +diff)", x("+diff"))
                    } else if s == "SplitZNS L3" {
                        format!("{} (x +diff L3)", x("+diff L3"))
                    } else {
                        prev.map_or("-".into(), x)
                    },
                    fig(s, w, &p99, 0),
                    fig(s, w, &p999, 0),
                    p.stall_ns as f64 / 1e9,
                    p.compaction_mb_per_s,
                    p.subzone_ssts,
                    p.trivial_moves,
                );
                prev = Some(s);
            }
        }
        md.push_str("\nPaper (over native, write workload): +diff 1.43x, +SZR 1.88x, +RP 1.11x; +RS lowers read P99 by 33% and P99.9 by 27%. Not the paper's: `LDP+query-first` is LDP with the Read Scheduler's order, query reads first, on the same per-die queues (its `x previous` is over LDP: query priority alone); `SplitZNS+prio` and `LDP+prio` run the class order (queries, background reads, programs, erases) instead; `+diff L3` and `SplitZNS L3` put SSTs in subzones from L3 on.\n");
    }
    if results.iter().any(|r| r.group == "sweep") {
        let _ = writeln!(
            md,
            "\n## Sweeps (figure 16): SplitZNS over LDP\n\n| sweep | workload | point | LDP ops/s | SplitZNS ops/s | SplitZNS / LDP | paper |\n|---|---|---|---:|---:|---:|---:|"
        );
        for (sweep, w, points) in SWEEPS {
            for &v in points {
                let key = format!("{w}@{sweep}={}", v.label());
                let ops = |s: &str| fig(s, &key, &ops_per_s, 0);
                let _ = writeln!(
                    md,
                    "| {sweep} | {w} | {} | {} | {} | {} | {} |",
                    v.label(),
                    ops("LDP"),
                    ops("SplitZNS"),
                    times("SplitZNS", "LDP", &key, ops_per_s),
                    paper_sweep(v).map_or("-".into(), |x| format!("{x:.2}x")),
                );
            }
        }
        md.push_str("\nPaper: 1.13x-2.03x over value sizes 128 B-4 KiB (more with larger values); under skew up to 1.66x over LDP, 1.55x-1.9x over the competitors on uniform; by chips (8, 16, 32, 64; zone size kept by resizing the erase block) 1.79x, 1.75x, 1.50x, 1.20x.\n");
    }
    let f3 = fig3_points(results);
    if let Some(first) = f3.first() {
        let _ = writeln!(
            md,
            "\n## Zone size (figure 3): LDP after the load and {} M overwrites (paper scale), every zone over all 16 chips\n\n| zone (paper scale) | ops/s | x {} MiB | GC count | migrated MiB per GC (paper scale) | cleaning copy MiB | migration WA | x {} MiB | stall s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            FIG3_WRITES / 1_000_000,
            first.mib,
            first.mib
        );
        let d = divisor(scale) as f64;
        for p in &f3 {
            let _ = writeln!(
                md,
                "| {} MiB | {:.0} | {:.2}x | {} | {:.1} | {:.1} | {:.3} | {:.2}x | {:.2} |",
                p.mib,
                p.ops_per_s,
                p.ops_per_s / first.ops_per_s.max(1e-9),
                p.gc_count,
                p.migrated_mib_per_gc() * d,
                mib(p.gc_copied_bytes),
                p.migration_wa,
                p.migration_wa / first.migration_wa.max(1e-9),
                p.stall_s,
            );
        }
        md.push_str("\nPaper (128 MiB to 1 GiB): migrated data per GC 43 -> 386 MiB, GC count 298 -> 144, migration write amplification up to 1.9x, throughput -73%.\n");
    }
    let lt: Vec<(&str, Measured)> = fig4_workloads()
        .into_iter()
        .filter_map(|(n, w)| Some((n, mean_of(results, "LDP", &w)?.measured?)))
        .collect();
    if !lt.is_empty() {
        let _ = writeln!(
            md,
            "\n## SST lifetimes (figure 4), LDP: seconds, 10th / 50th / 90th percentile by the level written to\n\n| workload | level | SSTs' lifetimes p10 / p50 / p90 s |\n|---|---|---|"
        );
        for (name, m) in &lt {
            for (level, cdf) in m.sst_lifetime_cdf_s_by_level.iter().enumerate() {
                if cdf.len() == 21 {
                    let _ = writeln!(
                        md,
                        "| {name} | L{level} | {:.1} / {:.1} / {:.1} |",
                        cdf[2], cdf[10], cdf[18]
                    );
                }
            }
        }
        md.push_str("\nPaper: L0-L3 from about 0 to 100 s; L4 from about 10 to 800 s (uniform) and 10 to 4000 s (zipfian 0.99).\n");
    }
    let _ = writeln!(
        md,
        "\n## Must show (the issue's bars at small scale)\n\n| comparison | paper | bar | ours | met |\n|---|---:|---:|---:|---|"
    );
    for (i, c) in must_show(results).into_iter().enumerate() {
        let ours = by_seed.show(|rs| must_show(rs)[i].ours, |x| format!("{x:.2}"), 2, "-");
        let _ = writeln!(
            md,
            "| {} | {:.2} | {} | {} | {} |",
            c.what,
            c.paper,
            c.bar.map_or_else(
                || if c.lower { "< 1".into() } else { "> 1".into() },
                |b| format!("{} {b:.2}", if c.lower { "<=" } else { ">=" })
            ),
            ours,
            match c.met() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "not run",
            }
        );
    }
    let failed: Vec<&CellResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        md.push_str("\n## Failed runs\n\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} (seed {}): {}",
                r.scheme,
                r.workload,
                r.seed,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    #[test]
    fn every_scheme_and_workload_makes_a_valid_scenario() {
        for s in all_schemes() {
            for w in WORKLOADS {
                let sc = scenario(s, w, ReproScale::Small, 1).unwrap();
                sc.db_options().unwrap();
            }
        }
        assert!(scenario("+RS (FIFO)", "overwrite", ReproScale::Small, 1).is_err());
        let sz = scenario("SplitZNS", "ycsb-a", ReproScale::Small, 1).unwrap();
        assert_eq!(sz.device.kind.as_deref(), Some("splitzns"));
        assert_eq!(sz.fs.placement, "selective");
        assert_eq!(sz.fs.gc_threshold, 20);
        let phases = sz.workload.ycsb_phases().unwrap();
        assert_eq!(phases.len(), 2);
        assert!(!sz.workload.ycsb_load);
        assert!(phases[0].upsert);
        assert_eq!(phases[0].operationcount, PAPER_LOAD_PUTS / 64);
        assert_eq!(phases[1].operationcount, 4 * (PAPER_OPS_PER_THREAD / 64));
        assert_eq!(phases[1].threadcount, 4);
        let native = scenario("native", "overwrite", ReproScale::Small, 1).unwrap();
        assert_eq!(native.fs.selective_min_level, 0);
        assert!(!native.device.splitzns.unwrap().ring);
        let ldp = scenario("LDP", "overwrite", ReproScale::Small, 1).unwrap();
        assert_eq!(ldp.device.kind, None);
        assert_eq!(ldp.fs.placement, "liza");
        assert_eq!(ldp.workload.phases().unwrap()[1].threads, 4);
    }

    #[test]
    fn the_matrix_is_main_schemes_by_workloads_plus_the_breakdown() {
        let plan = SplitPlan {
            seeds: vec![1],
            workloads: Vec::new(),
            breakdown: true,
            sweeps: true,
            overwrite_keys: OverwriteKeys::Spread,
            load: LoadForm::Random.into(),
        };
        let c = cells(ReproScale::Small, &plan).unwrap();
        // Schemes (on per-die queues, then on FIFO) x workloads, the breakdown, figure 16's
        // sweeps (LDP and SplitZNS), figure 3's zone sizes and figure 4's skewed run (LDP).
        assert_eq!(c.len(), (4 + 3) * 10 + 10 * 2 + 2 * (4 + 5 + 4 + 4) + 4 + 1);
        // `tiny` cannot take 2 MiB blocks / 256: no 128 MiB zones and no 64 chips.
        let t = cells(ReproScale::Tiny, &plan).unwrap();
        assert_eq!(t.len(), c.len() - 1 - 2);
        // A sweep's base point is the study's own configuration.
        let named = |scheme: &str, w: &str| {
            let mut x = c
                .iter()
                .find(|c| c.scheme == scheme && c.workload == w)
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        let mor = named("LDP", "overwrite@compaction_pri=kMinOverlappingRatio");
        let base = named("LDP", "overwrite");
        assert_eq!(mor.engine, base.engine);
        assert_eq!(mor.workload.num, base.workload.num * SWEEP_LOAD_PCT / 100);
        let zipf = named("SplitZNS", "ycsb-a@skew=0.99");
        assert_eq!(
            zipf.workload.ycsb,
            named("SplitZNS", "ycsb-a")
                .workload
                .ycsb
                .clone()
                .into_iter()
                .map(|(k, v)| {
                    if k == "recordcount" || k == "operationcount" {
                        (k, toml::Value::Integer(v.as_integer().unwrap() * 70 / 100))
                    } else {
                        (k, v)
                    }
                })
                .collect()
        );
        let v128 = named("SplitZNS", "overwrite@value_size=128");
        assert_eq!(v128.workload.value_size, 128);
        assert_eq!(
            v128.workload.num,
            PAPER_LOAD_PUTS * 1040 / 144 * SWEEP_LOAD_PCT / 100 / 64
        );
        let uni = named("LDP", "ycsb-a@skew=uniform");
        assert_eq!(
            uni.workload.ycsb["requestdistribution"].as_str(),
            Some("uniform")
        );
        // +RS is SplitZNS: one configuration, run once.
        let pick = |s: &str| {
            let mut x = c
                .iter()
                .find(|c| c.scheme == s && c.workload == "overwrite")
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        assert_eq!(pick("+RS"), pick("SplitZNS"));
        // A FIFO row is its scheme with FIFO queueing, nothing else.
        for (fifo, base) in FIFO_SCHEMES.iter().zip(MAIN_SCHEMES) {
            let (mut f, b) = (pick(fifo), pick(base));
            assert_eq!(b.device.queueing.as_deref(), Some(QUEUEING));
            assert_eq!(f.device.queueing.as_deref(), Some("fifo"));
            f.device.queueing = b.device.queueing.clone();
            assert_eq!(f, b, "{fifo}");
        }
        let bad = SplitPlan {
            workloads: vec!["ycsb-z".into()],
            ..plan
        };
        assert!(cells(ReproScale::Small, &bad).is_err());
    }

    /// Figure 3's points keep every zone over all 16 chips (the block resized), figure 16b's
    /// keep 512 MiB zones over more chips (the block resized, SSTs fit the smaller
    /// subzones); the overwrite forms differ only in the key space of the measured phase.
    #[test]
    fn zone_size_and_chip_points_resize_the_block_and_overwrites_pick_their_keys() {
        use crate::experiment::spec_of;
        let at = |w: &str, v: Variant, keys: OverwriteKeys| {
            scenario_with(
                "LDP",
                w,
                ReproScale::Small,
                1,
                v,
                (keys, LoadForm::Random.into()),
            )
            .unwrap()
        };
        for (m, count) in [(128, 640), (256, 320), (512, 160), (1024, 80)] {
            let s = at(FIG3_WORKLOAD, Variant::ZoneSize(m), OverwriteKeys::Spread);
            let p = spec_of(&s).unwrap().profile().unwrap();
            assert_eq!(p.chips_per_zone, 16, "{m}");
            assert_eq!(p.zones.zone_count, count);
            assert_eq!(p.zones.zone_size_bytes, u64::from(m) * MIB / 64);
            assert_eq!(p.layout().unwrap().rows_per_zone(), 1);
            let ph = s.workload.phases().unwrap();
            assert_eq!(ph[1].writes, Some(FIG3_WRITES / 64 / THREADS));
            assert_eq!(ph[1].num, PAPER_LOAD_PUTS * SWEEP_LOAD_PCT / 100 / 64);
        }
        for n in [8, 16, 32, 64] {
            let s = scenario_with(
                "SplitZNS",
                "ycsb-a",
                ReproScale::Small,
                1,
                Variant::Chips(n),
                Default::default(),
            )
            .unwrap();
            let p = spec_of(&s).unwrap().profile().unwrap();
            assert_eq!((p.flash.chips(), p.chips_per_zone), (n, n));
            assert_eq!(p.zones.zone_size_bytes, 8 * MIB);
            assert_eq!(p.layout().unwrap().rows_per_zone(), 1);
            let sst = s.db_options().unwrap().target_file_size_base;
            assert!(sst <= p.zones.zone_size_bytes / u64::from(n), "{n}: {sst}");
        }
        let spread = at("overwrite", Variant::Base, OverwriteKeys::Spread);
        let first = at("overwrite", Variant::Base, OverwriteKeys::FirstKeys);
        let (a, b) = (
            spread.workload.phases().unwrap(),
            first.workload.phases().unwrap(),
        );
        let per = PAPER_OPS_PER_THREAD / 64;
        assert_eq!((a[1].num, a[1].writes), (PAPER_LOAD_PUTS / 64, Some(per)));
        assert_eq!((b[1].num, b[1].writes), (per, None));
        assert_eq!(a[0], b[0]);
        assert_eq!(spread.device, first.device);
        assert_eq!(
            OverwriteKeys::parse("first-keys").unwrap(),
            OverwriteKeys::FirstKeys
        );
        assert!(OverwriteKeys::parse("last-keys").is_err());
        let skewed = at(FIG4_SKEWED_WORKLOAD, Variant::Base, OverwriteKeys::Spread);
        let ph = skewed.workload.ycsb_phases().unwrap();
        assert_eq!(ph[1].operationcount, FIG3_WRITES / 64);
    }

    #[test]
    fn a_sized_load_replaces_the_forms_puts_and_bad_sizes_are_errors() {
        let at = |load: Load, scale| {
            let form = (OverwriteKeys::Spread, load);
            scenario_with("LDP", "overwrite", scale, 1, Variant::Base, form).unwrap()
        };
        let l35 = Load::sized(LoadForm::Unique, Some(35.0)).unwrap();
        assert_eq!(l35.paper_puts(), 36_700_160);
        assert!((l35.gib() - 35.0).abs() < 1e-12);
        let ph = at(l35, ReproScale::Paper).workload.phases().unwrap();
        assert_eq!((ph[0].num, ph[1].num), (36_700_160, 36_700_160));
        let ph = at(l35, ReproScale::Small).workload.phases().unwrap();
        assert_eq!(ph[0].num, 36_700_160 / 64);
        // No size: the form's own, exactly as before.
        let form = Load::sized(LoadForm::Unique, None).unwrap();
        assert_eq!(form, Load::from(LoadForm::Unique));
        assert_eq!(form.paper_puts(), PAPER_UNIQUE_LOAD_PUTS);
        assert_eq!(
            Load::sized(LoadForm::Unique, Some(40.0))
                .unwrap()
                .paper_puts(),
            PAPER_UNIQUE_LOAD_PUTS
        );
        assert_eq!(
            at(form, ReproScale::Small),
            at(
                Load::sized(LoadForm::Unique, Some(40.0)).unwrap(),
                ReproScale::Small
            )
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 2048.0] {
            assert!(Load::sized(LoadForm::Random, Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_unique_load_fills_every_key_once_on_dynamic_levels() {
        let unique = |w: &str| {
            let form = (OverwriteKeys::Spread, LoadForm::Unique.into());
            scenario_with("LDP", w, ReproScale::Small, 1, Variant::Base, form).unwrap()
        };
        let ow = unique("overwrite");
        let ph = ow.workload.phases().unwrap();
        assert_eq!(ph[0].benchmarks, "filluniquerandom");
        assert_eq!(ph[0].num, PAPER_UNIQUE_LOAD_PUTS / 64);
        assert_eq!(ph[1].num, PAPER_UNIQUE_LOAD_PUTS / 64);
        let dynamic = |s: &Scenario| s.engine["level_compaction_dynamic_level_bytes"].as_bool();
        assert_eq!(dynamic(&ow), Some(true));
        let random = scenario("LDP", "overwrite", ReproScale::Small, 1).unwrap();
        assert_eq!(dynamic(&random), Some(false));
        assert_eq!(
            random.workload.phases().unwrap()[0].benchmarks,
            "fillrandom"
        );
        // YCSB-L is YCSB's own load phase, with no transactions after it.
        let l = unique("ycsb-l");
        assert!(l.workload.ycsb_load);
        let lp = l.workload.ycsb_phases().unwrap();
        assert_eq!(lp.len(), 1);
        assert_eq!(
            (lp[0].recordcount, lp[0].operationcount),
            (PAPER_UNIQUE_LOAD_PUTS / 64, 0)
        );
        let a = unique("ycsb-a").workload.ycsb_phases().unwrap();
        assert_eq!(
            (a.len(), a[1].operationcount),
            (2, THREADS * PAPER_OPS_PER_THREAD / 64)
        );
        assert_eq!(LoadForm::parse("unique").unwrap(), LoadForm::Unique);
        assert!(LoadForm::parse("sequential").is_err());
    }

    fn run(scheme: &str, w: &str, seed: u64, ops_per_s: f64, p99: f64) -> CellResult {
        let measured = Some(Measured {
            ops_per_s,
            latency_us_p99: p99,
            ..Measured::default()
        });
        let f = Figures {
            measured,
            ..Figures::default()
        };
        CellResult::test_run("scheme", scheme, w, seed, f)
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_papers_figures() {
        use crate::stats::Summary;
        let results = vec![
            run("LDP", "overwrite", 1, 100.0, 50.0),
            run("SplitZNS", "overwrite", 1, 200.0, 40.0),
            run("LDP", "overwrite", 2, 100.0, 50.0),
            run("SplitZNS", "overwrite", 2, 260.0, 30.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "mean of 2 seeds, ± 95% interval (Student's t)");
        let gain = Summary::of(&[2.0, 2.6]).unwrap();
        let ops = Summary::of(&[200.0, 260.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| overwrite | 100 | - | - | {:.0} ± {:.0} | {:.2}x ± {:.2} (2.77x) |",
                ops.mean, ops.ci95, gain.mean, gain.ci95
            ),
        );
        let p99 = Summary::of(&[-20.0, -40.0]).unwrap();
        assert_has(&md, &format!("{:+.1}% ± {:.1} |", p99.mean, p99.ci95));
        assert_has(
            &md,
            &format!(
                "| overwrite, SplitZNS / LDP | 2.77 | >= 1.89 | {:.2} ± {:.2} |",
                gain.mean, gain.ci95
            ),
        );
        let j = json(ReproScale::Small, &results);
        let iv = &j["must_show"][0]["ours_interval"];
        assert_eq!(iv["ci95"].as_f64(), Some(gain.ci95));
        assert_eq!(iv["n"], 2);
        let sp = &j["schemes"]["SplitZNS"]["overwrite"]["spread"]["ops_per_s"];
        assert_eq!(sp["ci95_high"].as_f64(), Some(ops.ci95_high));
        // One seed: no interval, the figures alone.
        let one: Vec<CellResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Small, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, "| overwrite | 100 | - | - | 200 | 2.00x (2.77x) |");
        let j = json(ReproScale::Small, &one);
        assert!(j["must_show"][0].get("ours_interval").is_none());
        assert!(j["schemes"]["LDP"]["overwrite"].get("spread").is_none());
    }

    #[test]
    fn the_fifo_rows_show_the_old_ranking_over_ldp_on_fifo() {
        let results = [
            run("LDP", "overwrite", 1, 150.0, 40.0),
            run("SplitZNS", "overwrite", 1, 200.0, 6.0),
            run("LDP (FIFO)", "overwrite", 1, 100.0, 258.0),
            run("Gear (FIFO)", "overwrite", 1, 50.0, 300.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "## Queueing: the baselines on FIFO queueing");
        assert_has(&md, "| overwrite | LDP (FIFO) | fifo | 100 | 1.00x | 258 |");
        assert_has(&md, "| overwrite | Gear (FIFO) | fifo | 50 | 0.50x | 300 |");
        assert_has(&md, "| overwrite | SplitZNS | per-die | 200 | 2.00x | 6 |");
        // The main table compares on the common discipline.
        assert_has(&md, "| overwrite | 150 | - | - | 200 | 1.33x (2.77x) |");
        let j = json(ReproScale::Small, &results);
        assert_eq!(j["queueing"], QUEUEING);
        assert!(j["schemes"]["LDP (FIFO)"]["overwrite"].is_object());
        // Without FIFO rows, no such table.
        let md = markdown(ReproScale::Small, &results[..2]);
        assert!(!md.contains("## Queueing"), "{md}");
    }

    #[test]
    fn ycsb_tails_are_shown_by_operation() {
        let with_ops = |scheme: &str, seed: u64, read: f64, update: f64| {
            let mut r = run(scheme, "ycsb-a", seed, 100.0, 50.0);
            if let Ok(f) = &mut r.figures
                && let Some(m) = f.measured.as_mut()
            {
                m.latency_us_p99_by_op = [("read".into(), read), ("update".into(), update)].into();
            }
            r
        };
        let results = [
            with_ops("LDP", 1, 100.0, 200.0),
            with_ops("SplitZNS", 1, 75.0, 100.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "| ycsb-a | read | 100 | - | - | 75 | -25.0% |");
        assert_has(&md, "| ycsb-a | update | 200 | - | - | 100 | -50.0% |");
        let j = json(ReproScale::Small, &results);
        let a = &j["schemes"]["SplitZNS"]["ycsb-a"];
        assert_eq!(a["latency_us_p99_by_op"]["update"].as_f64(), Some(100.0));
        // Seeds are averaged by operation too.
        let two = [
            with_ops("LDP", 1, 100.0, 200.0),
            with_ops("LDP", 2, 300.0, 400.0),
        ];
        let j = json(ReproScale::Small, &two);
        let a = &j["schemes"]["LDP"]["ycsb-a"];
        assert_eq!(a["latency_us_p99_by_op"]["read"].as_f64(), Some(200.0));
        // No YCSB run: no table.
        let md = markdown(ReproScale::Small, &[run("LDP", "overwrite", 1, 1.0, 1.0)]);
        assert!(!md.contains("P99 by operation"), "{md}");
    }
}
