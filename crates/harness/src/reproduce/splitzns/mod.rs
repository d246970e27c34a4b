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

mod claims;
pub(crate) mod draw;
mod figures;
mod load;
mod paper;
mod plan;
mod report;

pub use claims::*;
pub use figures::*;
pub use load::*;
pub use plan::*;
pub use report::*;

use std::fmt::Write as _;

use super::StudyId;
use super::claims::Spec;
use super::engine::EngineStudy;
use super::figures::{CellResult, Figures, Measured};
use super::run::Request;
use super::seeds::{BySeed, summaries};
use super::{Cell, Form, ReproScale};
use crate::db_bench::HarnessError;
use crate::runner::LabError;
use crate::scenario::Scenario;

/// The SplitZNS study.
#[derive(Debug, Clone, Copy)]
pub struct SplitZns;

impl EngineStudy for SplitZns {
    const NAME: &'static str = "splitzns";
    const ABOUT: &'static str =
        "SplitZNS vs LDP, Gear and LLC on db_bench and YCSB; the breakdown native ... +RS";
    const ID: StudyId = StudyId::SplitZns;
    const MEASURED: bool = MEASURED;

    fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
        json(scale, results)
    }

    fn claim_specs() -> Vec<Spec<CellResult>> {
        claim_specs()
    }

    fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
        markdown(scale, results)
    }

    fn annotate_flags(
        req: &Request,
        json: &mut serde_json::Value,
        markdown: &mut String,
    ) -> Result<(), LabError> {
        let usage = |e: HarnessError| LabError::Usage(e.to_string());
        let load =
            Load::sized(LoadForm::parse(&req.load).map_err(usage)?, req.load_gib).map_err(usage)?;
        let keys = OverwriteKeys::parse(&req.overwrite_keys).map_err(usage)?;
        json["load"] = load.form.name().into();
        json["load_gib"] = load.gib().into();
        json["overwrite_keys"] = keys.name().into();
        let form = format!(
            "\nLoad: `{}` of {} GiB at paper scale (`--load`, `--load-gib`); measured \
             overwrites: `{}` (`--overwrite-keys`).\n",
            load.form.name(),
            load.gib(),
            keys.name()
        );
        let at = markdown.find('\n').map_or(markdown.len(), |i| i + 1);
        markdown.insert_str(at, &form);
        Ok(())
    }
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
