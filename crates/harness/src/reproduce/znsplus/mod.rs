//! `zonedb reproduce znsplus`: ZNS+ (OSDI'21) on the simulated ZNS+ SSD (`splitzns-paper` with
//! `kind = "znsplus"`, the reference's copyback and read-program latencies), under the zone
//! layer of this store (not F2FS, as the paper's and the slides' figures are).
//!
//! Schemes: `ZNS` (cleaning copies through the host), `IZC` (in-device zone compaction,
//! copyback-aware destinations: CAB), `ZNS+` (IZC with CAB and threaded logging) and `ZNS+/CUB`
//! (IZC without copyback-aware destinations, threaded logging); and `ZNS+/need_SSR`, ZNS+ with
//! the artifact's F2FS trigger besides (threaded logging only near F2FS's reserve,
//! [`zonedb_fs::ThreadedTrigger::NeedSsr`]). Every scheme runs on the same
//! ZNS+ device; only the zone layer's options differ.
//!
//! Experiments:
//!
//! - `fill-delete-70`, `fill-delete-80`: the fill-and-delete experiment
//!   ([`crate::fill_delete`]) with live data at 70% and 80% of the capacity, three times the
//!   capacity written, greedy cleaning below 20% free, on the device at 1/8 (`small`).
//! - `chips-4` ... `chips-32`: the same at 80% on the device with 4, 8, 16 (the profile's own:
//!   the same run as `fill-delete-80`) and 32 chips, every zone striped over all of them.
//! - `overwrite`, `ycsb-a`: the engine with LIZA placement and greedy cleaning (below 20%
//!   free) on the device at 1/64, where cleaning runs: db_bench `overwrite` (4 threads) after
//!   a `fillrandom` load, and YCSB-A (zipfian 0.99, 4 threads) after a YCSB load (`tiny`: a
//!   quarter of the dataset on 80 zones).
//!
//! Every fill-and-delete run ends with the zone layer's fsck and every engine run with the
//! scenario runs' checks (fsck, scan, sampled reads); a failed check fails the cell.

mod claims;
pub(crate) mod draw;
mod figures;
mod paper;
mod plan;
mod report;
mod run;

pub use claims::*;
pub use figures::*;
pub use plan::*;
pub use report::*;
pub use run::*;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use zonedb_device::SimDeviceSpec;
use zonedb_device::flash::{ZnsPlusConfig, ZnsPlusStats};
use zonedb_fs::ThreadedTrigger;
use zonedb_fs::{FsOptions, FsStats, ZoneCopy};

use super::ReproScale;
use super::cache::CellCache;
use super::run::{Context, Request, seed_list};
use super::seeds::{BySeed, summaries};
use super::study::{Planned, Ran, Study};
use crate::db_bench::HarnessError;
use crate::fill_delete::{self, FillDeleteOptions};
use crate::runner::{LabError, done_line};
use crate::scenario::Scenario;
use crate::stats::Summary;

/// The ZNS+ study: its cells mix fill-and-delete runs and engine scenarios ([`Work`]), run
/// by [`run_cells`].
#[derive(Debug, Clone, Copy)]
pub struct ZnsPlus;

impl Study for ZnsPlus {
    type Cell = ZnsPlusCell;
    type Result = ZnsPlusResult;

    fn name(&self) -> &'static str {
        "znsplus"
    }

    fn about(&self) -> &'static str {
        "ZNS+ (in-device zone compaction, copyback-aware allocation, threaded logging) vs host \
         copy: fill-and-delete at 70% / 80% live and by chip count, the engine's overwrite and \
         YCSB-A under cleaning"
    }

    fn cells_word(&self) -> &'static str {
        "cells"
    }

    fn plan(&self, req: &Request) -> Result<Planned<ZnsPlusCell>, LabError> {
        if !(req.engine_options.is_empty()
            && req.device_options.is_empty()
            && req.fs_options.is_empty()
            && req.emit_scenarios.is_none()
            && req.ray.is_none())
        {
            return Err(LabError::Usage(
                "--engine-option, --device-option, --fs-option, --emit-scenarios, --ray: the znsplus study takes none"
                    .into(),
            ));
        }
        let usage = |e: HarnessError| LabError::Usage(e.to_string());
        let scale = ReproScale::parse(&req.scale).map_err(usage)?;
        scale.no_fraction().map_err(usage)?;
        let plan = ZnsPlusPlan {
            seeds: seed_list(req)?,
            experiments: req
                .workloads
                .iter()
                .chain(&req.experiments)
                .cloned()
                .collect(),
        };
        let mut cells = cells(scale, &plan).map_err(usage)?;
        zonedb_env::set_parallel_compute_default(req.parallel_compute);
        for c in &mut cells {
            if let Work::Engine(s) = &mut c.work {
                s.workload.elide_values &= req.elide_values;
            }
        }
        Ok(Planned {
            scale,
            seeds: plan.seeds,
            cells,
        })
    }

    fn run(
        &self,
        planned: &Planned<ZnsPlusCell>,
        ctx: &Context<'_>,
    ) -> Result<Ran<ZnsPlusResult>, LabError> {
        let results = run_cells(
            &planned.cells,
            ctx.req.jobs,
            &|done, total| eprintln!("{}", done_line(ctx.host, ctx.start, done, total)),
            Some(&ctx.cache),
        );
        let void = results
            .iter()
            .filter(|r| r.invariant_failed)
            .filter_map(|r| {
                let e = r.figures.as_ref().err()?;
                Some(format!("{} {}: {e}", r.scheme, r.experiment))
            })
            .collect();
        Ok(Ran {
            results,
            sim_ops: None,
            void,
        })
    }

    fn figures(&self, scale: ReproScale, results: &[ZnsPlusResult]) -> serde_json::Value {
        figures_json(scale, results)
    }

    fn claims(&self, results: &[ZnsPlusResult]) -> Vec<super::claims::Spec<ZnsPlusResult>> {
        claim_specs(results)
    }

    fn report(&self, scale: ReproScale, results: &[ZnsPlusResult]) -> String {
        markdown(scale, results)
    }

    fn draw(
        &self,
        dir: &std::path::Path,
        json: &serde_json::Value,
    ) -> Result<(), crate::runner::LabError> {
        super::plots::render(dir, json)
            .map(drop)
            .map_err(|e| crate::runner::LabError::Usage(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    fn plan() -> ZnsPlusPlan {
        ZnsPlusPlan {
            seeds: vec![1],
            experiments: Vec::new(),
        }
    }

    #[test]
    fn every_scheme_runs_every_experiment_and_chips_16_is_fill_delete_80() {
        let all = cells(ReproScale::Small, &plan()).unwrap();
        assert_eq!(all.len(), SCHEMES.len() * EXPERIMENTS.len());
        let work = |scheme: &str, experiment: &str| {
            all.iter()
                .find(|x| x.scheme == scheme && x.experiment == experiment)
                .unwrap()
                .work
                .clone()
        };
        for scheme in SCHEMES {
            assert_eq!(work(scheme, "chips-16"), work(scheme, "fill-delete-80"));
            assert_ne!(work(scheme, "chips-32"), work(scheme, "fill-delete-80"));
        }
        let Work::FillDelete(fill) = work("ZNS+/CUB", "chips-4") else {
            panic!("a fill-and-delete run");
        };
        let profile = fill.spec().profile().unwrap();
        assert_eq!((profile.flash.chips(), profile.chips_per_zone), (4, 4));
        assert_eq!(profile.zones.zone_size_bytes, 64 * MIB);
        let opts = fill.fs_options().unwrap();
        assert_eq!(
            opts.zone_copy,
            ZoneCopy::Izc {
                copyback_aware: false
            }
        );
        assert!(opts.znsplus.threaded_logging);
        assert!(fill.options().elide);
        let Work::Engine(ycsb) = work("ZNS+", "ycsb-a") else {
            panic!("an engine run");
        };
        assert_eq!(ycsb.device.kind.as_deref(), Some("znsplus"));
        assert_eq!(ycsb.fs.zone_copy, "izc");
        assert!(ycsb.fs.copyback_aware && ycsb.fs.threaded_logging);
        assert_eq!(ycsb.fs.placement, "liza");
        let phases = ycsb.workload.ycsb_phases().unwrap();
        assert_eq!(phases[0].recordcount, PAPER_LOAD_PUTS / 64);
        assert_eq!(phases[1].operationcount, PAPER_OPS / 64);
        let Work::Engine(overwrite) = work("ZNS", "overwrite") else {
            panic!("an engine run");
        };
        assert_eq!(overwrite.fs.zone_copy, "host");
        assert!(!overwrite.fs.threaded_logging);
        overwrite.db_options().unwrap();
        assert!(
            cells(
                ReproScale::Small,
                &ZnsPlusPlan {
                    experiments: vec!["chips-5".into()],
                    ..plan()
                }
            )
            .is_err()
        );
    }

    fn result(scheme: &str, experiment: &str, f: ZnsPlusFigures) -> ZnsPlusResult {
        ZnsPlusResult {
            scheme: scheme.into(),
            experiment: experiment.into(),
            seed: 1,
            figures: Ok(f),
            invariant_failed: false,
        }
    }

    #[test]
    fn json_and_tables_hold_every_scheme_and_the_slides_claims() {
        let f = |ops: f64, cleaning: u64, cb: u64, rp: u64| ZnsPlusFigures {
            ops_per_s: ops,
            cleaning_time_ns: cleaning,
            copyback_pages: cb,
            izc_copyback_pages: cb,
            read_program_pages: rp,
            copyback_ratio: ratio(cb, rp),
            metadata_write_bytes: 100,
            ..ZnsPlusFigures::default()
        };
        let mut results = Vec::new();
        for e in EXPERIMENTS {
            results.push(result("ZNS", e, f(100.0, 1000, 0, 0)));
            results.push(result("IZC", e, f(150.0, 600, 90, 10)));
            results.push(result("ZNS+", e, f(200.0, 500, 85, 15)));
        }
        for (c, cb) in CHIPS.iter().zip([80, 60, 40, 20]) {
            results.push(result(
                "ZNS+/CUB",
                &format!("chips-{c}"),
                f(180.0, 550, cb, 100 - cb),
            ));
        }
        let j = json(ReproScale::Tiny, &results);
        assert_eq!(j["study"], "znsplus");
        for s in ["ZNS", "IZC", "ZNS+"] {
            for e in EXPERIMENTS {
                for k in ISSUE_KEYS {
                    assert!(j["schemes"][s][e][k].is_number(), "{s}.{e}.{k}");
                }
            }
        }
        assert_eq!(j["schemes"]["IZC"]["chips-4"]["copyback_ratio"], 0.9);
        let slides = j["slides"].as_array().unwrap();
        assert_eq!(slides[0]["met"], true, "{}", slides[0]);
        assert_eq!(slides[1]["met"], true);
        assert_eq!(slides[4]["met"], true, "{}", slides[4]);
        let md = markdown(ReproScale::Tiny, &results);
        assert!(md.contains("| fill-delete-70 | IZC | 150 | 1.50 |"), "{md}");
        assert!(md.contains("F2FS"), "{md}");
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_slides() {
        let f = |ops: f64, cleaning: u64| ZnsPlusFigures {
            ops_per_s: ops,
            cleaning_time_ns: cleaning,
            metadata_write_bytes: 100,
            ..ZnsPlusFigures::default()
        };
        let e = "fill-delete-70";
        let mut results = Vec::new();
        for (seed, ops, cleaning) in [(1, 150.0, 600), (2, 180.0, 500)] {
            for (s, x) in [("ZNS", f(100.0, 1000)), ("IZC", f(ops, cleaning))] {
                results.push(ZnsPlusResult {
                    seed,
                    ..result(s, e, x)
                });
            }
        }
        let md = markdown(ReproScale::Tiny, &results);
        assert_has(&md, "Ours: mean of 2 seeds, ± 95% interval (Student's t)");
        let tput = Summary::of(&[1.5, 1.8]).unwrap();
        let ops = Summary::of(&[150.0, 180.0]).unwrap();
        let cleaning = Summary::of(&[-40.0, -50.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| {e} | IZC | {:.0} ± {:.0} | {:.2} ± {:.2} | 0 | 0.00 ± 0.00 | {:+.1}% ± {:.1} |",
                ops.mean, ops.ci95, tput.mean, tput.ci95, cleaning.mean, cleaning.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| IZC throughput vs ZNS | 1.3-1.9x | {:.2}x ± {:.2} | yes |",
                tput.mean, tput.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| IZC cleaning time vs ZNS | 28.2-51.7% less | {:+.1}% ± {:.1} | yes |",
                cleaning.mean, cleaning.ci95
            ),
        );
        let j = json(ReproScale::Tiny, &results);
        assert_eq!(
            j["slides"][1]["ours_interval"][e]["ci95"].as_f64(),
            Some(tput.ci95)
        );
        assert_eq!(
            j["schemes"]["IZC"][e]["spread"]["ops_per_s"]["ci95"].as_f64(),
            Some(ops.ci95)
        );
        let one: Vec<ZnsPlusResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Tiny, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, &format!("| {e} | IZC | 150 | 1.50 |"));
        assert_has(&md, "| IZC throughput vs ZNS | 1.3-1.9x | 1.50x | yes |");
    }
}
