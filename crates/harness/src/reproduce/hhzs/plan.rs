//! The study's plan: its schemes, experiments (motivation, Exp#1-#6) and sweeps, each cell's
//! scenario built from TOML text at the study's scale (`scenario`, `Work`, `Knobs`), and the
//! cells of a plan.

use super::*;

/// Records the paper loads: 200 GiB of 1 KiB objects.
pub const PAPER_RECORDS: u64 = 200 * (1 << 30) / 1024;
/// Operations of an Exp#1 workload (YCSB A-F) and of Exp#5's mixed workload.
pub const PAPER_YCSB_OPS: u64 = 1_000_000;
/// Operations of Exp#2-#4 and #6's workloads.
pub const PAPER_MIX_OPS: u64 = 5_000_000;
/// SSD zones for data (20 of 1,077 MiB: 21.0 GiB); the hybrid's SSD has three metadata
/// zones more.
pub const SSD_ZONES: u32 = 20;
/// Client threads.
pub const THREADS: u64 = 16;

/// The experiments, as the JSON names them.
pub const EXPERIMENTS: [&str; 9] = [
    "motivation",
    "exp1",
    "exp2",
    "exp3",
    "exp4",
    "exp5",
    "exp6",
    "ablation",
    "caching",
];

/// The caching group's schemes: P+M and P+M+C as in Exp#2, then each pair again with one of
/// the set-up differences that decide whether the SSD cache gets a zone (named extra rows,
/// one difference each; [`Setup`]).
pub const CACHING_SCHEMES: [&str; 10] = [
    "P+M",
    "P+M+C",
    "P+M/reopen",
    "P+M+C/reopen",
    "P+M/wal-1-zone",
    "P+M+C/wal-1-zone",
    "P+M/ordered",
    "P+M+C/ordered",
    "P+M/1-client",
    "P+M+C/1-client",
];

/// Exp#1's workloads.
pub const YCSB: [&str; 6] = ["A", "B", "C", "D", "E", "F"];

/// Exp#2's workloads: (name, read percent, zipfian constant).
pub const W: [(&str, u32, f64); 4] = [
    ("W1", 10, 0.9),
    ("W2", 50, 0.9),
    ("W3", 50, 1.2),
    ("W4", 100, 1.2),
];

/// The keys every workload object of the JSON holds.
pub const ISSUE_KEYS: [&str; 6] = [
    "ops_per_s",
    "latency_us_p99",
    "ssd_write_bytes",
    "hdd_write_bytes",
    "ssd_read_share",
    "migrated_bytes",
];

pub(super) const MIB: u64 = 1 << 20;

/// The placement policy of a scheme.
pub fn placement_of(scheme: &str) -> Option<&'static str> {
    Some(match scheme {
        "B1" => "hybrid-b1",
        "B2" => "hybrid-b2",
        "B3" => "hybrid-b3",
        "B4" => "hybrid-b4",
        "B3+M" => "hybrid-b3-m",
        "AUTO" => "spandb-auto",
        "P" | "P/no-demand" => "hhzs-p",
        "P+M" | "P+M/1MiB" | "P+M/reopen" | "P+M/wal-1-zone" | "P+M/ordered" | "P+M/1-client" => {
            "hhzs-pm"
        }
        "HHZS" | "P+M+C" | "P+M+C/1MiB" | "HHZS/no-demand" | "P+M+C/reopen"
        | "P+M+C/wal-1-zone" | "P+M+C/ordered" | "P+M+C/1-client" => "hhzs",
        _ => return None,
    })
}

/// What a run does after the load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// A YCSB core workload (`A` ... `F`), zipfian 0.9 (D: latest), 1 M operations.
    Ycsb(&'static str),
    /// `read_pct`% reads and the rest updates, zipfian `alpha`, `ops` operations (paper).
    Mix {
        /// Reads, percent.
        read_pct: u32,
        /// Zipfian constant.
        alpha: f64,
        /// Operations at paper scale.
        ops: u64,
    },
}

/// What varies between runs besides the scheme and the workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knobs {
    /// SSD zones for data (Exp#5).
    pub ssd_zones: u32,
    /// Migration rate, MiB/s (Exp#6).
    pub migration_mib_s: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            ssd_zones: SSD_ZONES,
            migration_mib_s: 4,
        }
    }
}

/// The divisor of sizes (device, memtables, SSTs, caches) at `scale`: 1/128 at `small` and
/// `tiny` (not the other studies' 1/64: every run loads the whole dataset, and the study's
/// ~110 runs stay under 10 minutes on 2 cores; `zn540-hhzs` divides by 128 at most).
pub fn divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small | ReproScale::Tiny => 128,
        ReproScale::Paper => 1,
        ReproScale::Fraction(n) => u64::from(n),
    }
}

/// The divisor of the dataset and operation counts at `scale` (`tiny`: 16 times fewer than
/// `small`, for checks of the machinery, not for figures).
pub fn data_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Tiny => 128 * 16,
        other => divisor(other),
    }
}

/// The set-up a scheme's name asks for beside its placement (the caching group's named rows;
/// the paper states none of these, so each is one row of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// `/reopen`: the load and the run as two processes (`workload.reopen_between_phases`):
    /// the run opens the store afresh, its WAL flushed and deleted.
    pub reopen: bool,
    /// `/wal-1-zone`: `max_total_wal_size` of one SSD zone (1.05 GiB at paper scale) rather
    /// than the paper's 2.1 GiB of WAL and cache zones.
    pub wal_one_zone: bool,
    /// `/ordered`: YCSB's `insertorder = ordered` for the load (keys in order, not hashed).
    pub ordered: bool,
    /// YCSB client threads (`/1-client`: 1, YCSB's default; else [`THREADS`]).
    pub threads: u64,
}

impl Setup {
    /// The set-up `scheme` names (its suffix after `/`).
    pub fn of(scheme: &str) -> Self {
        let variant = scheme.split_once('/').map_or("", |(_, v)| v);
        Self {
            reopen: variant == "reopen",
            wal_one_zone: variant == "wal-1-zone",
            ordered: variant == "ordered",
            threads: if variant == "1-client" { 1 } else { THREADS },
        }
    }
}

pub(super) fn work_toml(work: Work, d: u64, setup: Setup) -> Result<String, HarnessError> {
    let (mix, dist, ops) = match work {
        Work::Ycsb(w) => {
            let key = format!("ycsb-{}", w.to_lowercase());
            let mix = ycsb_mix(&key).ok_or_else(|| {
                HarnessError::config("hhzs workload", format!("unknown '{w}'; known: A ... F"))
            })?;
            let dist = if w == "D" {
                String::new()
            } else {
                "requestdistribution = \"zipfian\"\nzipfianconstant = 0.9\n".to_owned()
            };
            (mix.to_owned(), dist, PAPER_YCSB_OPS)
        }
        Work::Mix {
            read_pct,
            alpha,
            ops,
        } => (
            format!(
                "readproportion = {}\nupdateproportion = {}\n",
                f64::from(read_pct) / 100.0,
                f64::from(100 - read_pct.min(100)) / 100.0
            ),
            format!("requestdistribution = \"zipfian\"\nzipfianconstant = {alpha}\n"),
            ops,
        ),
    };
    Ok(format!(
        "[workload]\nkind = \"ycsb\"\n{reopen}[workload.ycsb]\nrecordcount = {records}\nfieldcount = 1\nfieldlength = 1000\nthreadcount = {threads}\n{order}\
         [[workload.then]]\n[workload.then.ycsb]\noperationcount = {n}\nthreadcount = {threads}\n{mix}{dist}",
        reopen = if setup.reopen {
            "reopen_between_phases = true\n"
        } else {
            ""
        },
        order = if setup.ordered {
            "insertorder = \"ordered\"\n"
        } else {
            ""
        },
        threads = setup.threads,
        records = PAPER_RECORDS / d,
        n = (ops / d).max(1),
    ))
}

/// The scenario of `scheme` running `work` at `scale` with `seed`.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown scheme or workload.
pub fn scenario(
    scheme: &str,
    work: Work,
    scale: ReproScale,
    seed: u64,
    knobs: Knobs,
) -> Result<Scenario, HarnessError> {
    let placement = placement_of(scheme)
        .ok_or_else(|| HarnessError::config("hhzs scheme", format!("unknown '{scheme}'")))?;
    // The ablation's schemes migrate in 1 MiB pieces instead of 128 KiB.
    let chunk_kib = if scheme.ends_with("/1MiB") { 1024 } else { 128 };
    // ... and `/no-demand` leaves the running compactions' demand out of the tiering rule.
    let demand = !scheme.ends_with("/no-demand");
    let setup = Setup::of(scheme);
    let d = divisor(scale);
    // WAL + cache zones: 2.1 GiB, two SSD zones (`/wal-1-zone`: the WAL gets one).
    let wal = 21 * (1 << 30) / 10 / d / if setup.wal_one_zone { 2 } else { 1 };
    // 1,011.2 MiB SSTs, block-aligned.
    let sst = (10_112 * MIB / 10 / d) / 4096 * 4096;
    // The HDD: room for the data several times over (the paper does not limit it).
    let hdd_zones = PAPER_RECORDS * 1024 * 6 / (256 * MIB) / data_divisor(scale) * d + 64;
    let text = format!(
        "name = \"{scheme}\"\nseed = {seed}\nsample_interval_ms = 1000\nhost_cores = 16\n\
         [device]\nkind = \"hybrid\"\n\
         [device.ssd]\nprofile = \"zn540-hhzs\"\nscale = \"1/{d}\"\nzone_count = {ssd}\n\
         [device.hdd]\nprofile = \"st14000nm0007\"\nscale = \"1/{d}\"\nzone_count = {hdd_zones}\n\
         [fs]\nplacement = \"{placement}\"\ncleaner = \"none\"\nmigration_rate_mib_s = {rate}\nmigration_chunk_kib = {chunk_kib}\nhhzs_compaction_demand = {demand}\n\
         [engine]\nwrite_buffer_size = {wb}\nmin_write_buffer_number_to_merge = 2\nmax_write_buffer_number = 4\n\
         max_total_wal_size = {wal}\ntarget_file_size_base = {sst}\nmax_bytes_for_level_base = {l1}\n\
         level0_file_num_compaction_trigger = 1\nmax_background_jobs = 12\nblock_cache_size = {bc}\n\
         level_compaction_dynamic_level_bytes = false\ncompression = \"none\"\n{workload}",
        ssd = knobs.ssd_zones + zonedb_fs::META_ZONES,
        rate = knobs.migration_mib_s,
        wb = 512 * MIB / d,
        l1 = 1024 * MIB / d,
        bc = (8 * MIB / d).max(64 << 10),
        workload = work_toml(work, data_divisor(scale), setup)?,
    );
    Scenario::base(&text)
}

/// What of the study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HhzsPlan {
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Experiments (empty: all of [`EXPERIMENTS`]).
    pub experiments: Vec<String>,
}

/// A sweep point's label.
pub(super) fn label(key: &str, v: impl std::fmt::Display) -> String {
    format!("{key}={v}")
}

/// One simulation of the study.
pub(super) struct CellOf<'a> {
    pub(super) scale: ReproScale,
    pub(super) seed: u64,
    pub(super) out: &'a mut Vec<Cell>,
}

impl CellOf<'_> {
    pub(super) fn push(
        &mut self,
        (group, scheme): (&'static str, &'static str),
        workload: String,
        work: Work,
        knobs: Knobs,
    ) -> Result<(), HarnessError> {
        self.out.push(Cell {
            group,
            scheme,
            form: Form::Code,
            workload,
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed: self.seed,
            scenario: scenario(scheme, work, self.scale, self.seed, knobs)?,
        });
        Ok(())
    }
}

pub(super) fn mix(read_pct: u32, alpha: f64, ops: u64) -> Work {
    Work::Mix {
        read_pct,
        alpha,
        ops,
    }
}

/// The motivation and Exp#1-#2 for one seed.
pub(super) fn main_cells(
    c: &mut CellOf<'_>,
    runs: &dyn Fn(&str) -> bool,
) -> Result<(), HarnessError> {
    let k = Knobs::default();
    if runs("motivation") {
        for s in ["B1", "B2", "B3", "B4"] {
            for alpha in [0.9, 1.2] {
                let w = mix(100, alpha, PAPER_YCSB_OPS);
                c.push(("motivation", s), label("read", alpha), w, k)?;
            }
        }
    }
    if runs("exp1") {
        for s in ["B3", "AUTO", "HHZS"] {
            for w in YCSB {
                c.push(("exp1", s), w.to_owned(), Work::Ycsb(w), k)?;
            }
        }
    }
    if runs("exp2") {
        for s in ["B3", "B3+M", "P", "P+M", "P+M+C"] {
            for (w, read, alpha) in W {
                c.push(
                    ("exp2", s),
                    w.to_owned(),
                    mix(read, alpha, PAPER_MIX_OPS),
                    k,
                )?;
            }
        }
    }
    Ok(())
}

/// Exp#3-#6 and the ablation for one seed.
pub(super) fn sweep_cells(
    c: &mut CellOf<'_>,
    runs: &dyn Fn(&str) -> bool,
) -> Result<(), HarnessError> {
    let k = Knobs::default();
    if runs("exp3") {
        for s in ["B3", "AUTO", "HHZS"] {
            // YCSB's zipfian is undefined at exactly 1 (its 1 / (1 - theta)): 0.99.
            for alpha in [0.8, 0.9, 0.99, 1.1, 1.2] {
                let w = mix(50, alpha, PAPER_MIX_OPS);
                c.push(("exp3", s), label("alpha", alpha), w, k)?;
            }
        }
    }
    if runs("exp4") {
        for s in ["B3", "AUTO", "HHZS"] {
            for read in [10, 30, 50, 70, 90] {
                let w = mix(read, 0.9, PAPER_MIX_OPS);
                c.push(("exp4", s), label("read", read), w, k)?;
            }
        }
    }
    if runs("exp5") {
        for s in ["B1", "B2", "B3", "B4", "AUTO", "P", "HHZS"] {
            for zones in [20, 40, 60, 80] {
                let knobs = Knobs {
                    ssd_zones: zones,
                    ..k
                };
                c.push(("exp5", s), label("zones", zones), Work::Ycsb("A"), knobs)?;
            }
        }
    }
    if runs("exp6") {
        for rate in [1, 2, 4, 8, 16, 32, 64] {
            let knobs = Knobs {
                migration_mib_s: rate,
                ..k
            };
            let w = mix(50, 0.9, PAPER_MIX_OPS);
            c.push(("exp6", "P+M"), label("rate", rate), w, knobs)?;
        }
    }
    if runs("caching") {
        // Caching's gain under each set-up difference that decides whether the cache gets a
        // zone.
        on_w2_and_w4(c, "caching", &CACHING_SCHEMES, k)?;
    }
    if runs("ablation") {
        // One difference at a time from exp2's schemes: migration's copy size (P+M, P+M+C),
        // the compactions' storage demand in the tiering rule (P, HHZS).
        let schemes = [
            "B3",
            "P",
            "P/no-demand",
            "P+M",
            "P+M/1MiB",
            "P+M+C",
            "P+M+C/1MiB",
            "HHZS/no-demand",
        ];
        on_w2_and_w4(c, "ablation", &schemes, k)?;
    }
    Ok(())
}

/// `schemes` of `group` on W2 and W4 (5 M operations at paper scale).
fn on_w2_and_w4(
    c: &mut CellOf<'_>,
    group: &'static str,
    schemes: &[&'static str],
    k: Knobs,
) -> Result<(), HarnessError> {
    for &s in schemes {
        for (w, read, alpha) in [W[1], W[3]] {
            c.push((group, s), w.to_owned(), mix(read, alpha, PAPER_MIX_OPS), k)?;
        }
    }
    Ok(())
}

/// Every simulation of the study.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown experiment.
pub fn cells(scale: ReproScale, plan: &HhzsPlan) -> Result<Vec<Cell>, HarnessError> {
    if let Some(e) = plan
        .experiments
        .iter()
        .find(|e| !EXPERIMENTS.contains(&e.as_str()))
    {
        return Err(HarnessError::unknown("hhzs experiment", e, EXPERIMENTS));
    }
    let runs = |e: &str| plan.experiments.is_empty() || plan.experiments.iter().any(|x| x == e);
    let mut out = Vec::new();
    for &seed in &plan.seeds {
        let mut c = CellOf {
            scale,
            seed,
            out: &mut out,
        };
        main_cells(&mut c, &runs)?;
        sweep_cells(&mut c, &runs)?;
    }
    Ok(out)
}
