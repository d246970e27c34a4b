//! `zonedb reproduce hhzs`: the HHZS paper's experiments (§2.3 and §4) on a simulated hybrid of
//! a ZNS SSD (`zn540-hhzs`, 20 zones for data) and an HM-SMR HDD (`st14000nm0007`).
//!
//! Set-up (§4.1), divided by the scale's `N` (`small`: 128) where it is a size or a count: 1,011.2 MiB SSTs
//! (one SSD zone, four HDD zones), 512 MiB memtables merged two at a time and at most four,
//! WAL + cache 2.1 GiB (two SSD zones), L0 = L1 = 1 GiB then x10 (the tuning guide's
//! `max_bytes_for_level_base = write_buffer_size x min_write_buffer_number_to_merge x
//! level0_file_num_compaction_trigger`, so the L0 trigger is 1), 12 background jobs, an
//! 8 MiB block cache, 24-byte keys and 1,000-byte values, 200 GiB loaded by YCSB before every
//! workload; zones reset when their files go, no cleaning. Not in the paper, chosen here: 16
//! YCSB client threads (the testbed's 16 cores), no compression (YCSB's values are random).
//!
//! Schemes: the basic schemes `B1`-`B4`, SpanDB's `AUTO`, HHZS (`P+M+C`) and its ablations
//! `P`, `P+M`, `B3+M` (placement names in [`placement_of`]).
//!
//! Every figure is the measured phase of a run (the load's own figures come from the first
//! phase of the same runs: the load is the same for every workload of a scheme).

mod claims;
pub(crate) mod draw;
mod figures;
mod paper;
mod plan;
mod report;

pub use claims::*;
pub use figures::*;
pub use plan::*;
pub use report::*;

use std::fmt::Write as _;

use super::StudyId;
use super::claims::Spec;
use super::engine::EngineStudy;
use super::figures::{HybridFigures, HybridPhase, SstReadSkew};
use super::seeds::{BySeed, summaries};
use super::splitzns::ycsb_mix;
use super::{Cell, CellResult, Form, ReproScale};
use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

/// The HHZS study.
#[derive(Debug, Clone, Copy)]
pub struct Hhzs;

impl EngineStudy for Hhzs {
    const NAME: &'static str = "hhzs";
    const ABOUT: &'static str = "HHZS on a hybrid ZNS SSD + HM-SMR HDD vs B1-B4 and SpanDB's AUTO; its breakdown and sweeps (motivation, exp1 ... exp6)";
    const ID: StudyId = StudyId::Hhzs;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    fn named_chunk(c: &[Cell], scheme: &str) -> u64 {
        c.iter()
            .find(|x| x.scheme == scheme)
            .unwrap()
            .scenario
            .fs
            .migration_chunk_kib
    }

    #[test]
    fn every_cell_is_a_valid_hybrid_scenario() {
        let plan = HhzsPlan {
            seeds: vec![1],
            experiments: Vec::new(),
        };
        let c = cells(ReproScale::Small, &plan).unwrap();
        assert_eq!(c.len(), 8 + 18 + 20 + 15 + 15 + 28 + 7 + 16 + 20);
        assert_eq!(named_chunk(&c, "P+M/1MiB"), 1024);
        assert_eq!(named_chunk(&c, "P+M"), 128);
        let demand = |scheme: &str| {
            c.iter()
                .find(|x| x.scheme == scheme)
                .unwrap()
                .scenario
                .fs
                .hhzs_compaction_demand
        };
        assert!(demand("P"));
        assert!(!demand("P/no-demand"));
        assert!(!demand("HHZS/no-demand"));
        for cell in &c {
            cell.scenario.db_options().unwrap();
            assert_eq!(cell.scenario.device.kind.as_deref(), Some("hybrid"));
        }
        let a = scenario(
            "HHZS",
            Work::Ycsb("A"),
            ReproScale::Small,
            1,
            Knobs::default(),
        )
        .unwrap();
        assert_eq!(a.fs.placement, "hhzs");
        let o = a.db_options().unwrap();
        assert_eq!(o.min_write_buffer_number_to_merge, 2);
        assert_eq!(o.write_buffer_size, 4 * MIB);
        assert_eq!(o.target_file_size_base % 4096, 0);
        let phases = a.workload.ycsb_phases().unwrap();
        assert_eq!(phases[0].recordcount, PAPER_RECORDS / 128);
        assert_eq!(phases[1].operationcount, PAPER_YCSB_OPS / 128);
        // Exp#5 at 20 zones with workload A is Exp#1's A: one configuration.
        let named = |g: &str, s: &str, w: &str| {
            let mut x = c
                .iter()
                .find(|x| x.group == g && x.scheme == s && x.workload == w)
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        assert_eq!(named("exp5", "B3", "zones=20"), named("exp1", "B3", "A"));
        assert_eq!(
            named("exp3", "HHZS", "alpha=0.9"),
            named("exp2", "P+M+C", "W2")
        );
        // The caching group's base pair is Exp#2's; each named row moves one thing.
        assert_eq!(named("caching", "P+M", "W4"), named("exp2", "P+M", "W4"));
        let base = named("caching", "P+M+C", "W4");
        let reopen = named("caching", "P+M+C/reopen", "W4");
        assert!(reopen.workload.reopen_between_phases && !base.workload.reopen_between_phases);
        let wal = |x: &Scenario| x.db_options().unwrap().max_total_wal_size;
        assert_eq!(
            wal(&named("caching", "P+M+C/wal-1-zone", "W4")) * 2,
            wal(&base) / 2 * 2
        );
        let load = |x: &Scenario| x.workload.ycsb_phases().unwrap().remove(0);
        assert!(load(&named("caching", "P+M+C/ordered", "W4")).insert_ordered);
        assert!(!load(&base).insert_ordered);
        let one = named("caching", "P+M+C/1-client", "W4");
        assert!(
            one.workload
                .ycsb_phases()
                .unwrap()
                .iter()
                .all(|p| p.threadcount == 1)
        );
        assert_eq!(load(&base).threadcount, THREADS);
        assert!(
            cells(
                ReproScale::Small,
                &HhzsPlan {
                    experiments: vec!["exp9".into()],
                    ..plan
                }
            )
            .is_err()
        );
    }

    fn run(scheme: &str, seed: u64, load: f64, ops_per_s: f64) -> CellResult {
        let phase = |ops_per_s: f64| HybridPhase {
            ops_per_s,
            ssd_read_share: 0.5,
            ..HybridPhase::default()
        };
        let hybrid = Some(HybridFigures {
            phases: vec![phase(load), phase(ops_per_s)],
            ..HybridFigures::default()
        });
        let f = crate::reproduce::Figures {
            hybrid,
            ..crate::reproduce::Figures::default()
        };
        CellResult::test_run("exp1", scheme, "A", seed, f)
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_papers_figures() {
        use crate::stats::Summary;
        let results = vec![
            run("B3", 1, 50.0, 100.0),
            run("HHZS", 1, 55.0, 120.0),
            run("B3", 2, 50.0, 100.0),
            run("HHZS", 2, 57.0, 150.0),
            run("B3", 3, 50.0, 100.0),
            run("HHZS", 3, 56.0, 130.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "mean of 3 seeds, ± 95% interval (Student's t)");
        let ops = Summary::of(&[120.0, 150.0, 130.0]).unwrap();
        let x = Summary::of(&[1.2, 1.5, 1.3]).unwrap();
        assert_has(
            &md,
            &format!(
                "| HHZS | A | {:.0} ± {:.0} | {:.2} ± {:.2} | 0 | 0 | 50.0% |",
                ops.mean, ops.ci95, x.mean, x.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| exp1 A: HHZS / B3 | +21.0% or more | 1.10 | {:.2} ± {:.2} | yes |",
                x.mean, x.ci95
            ),
        );
        let j = json(ReproScale::Small, &results);
        assert_eq!(
            j["must_show"][0]["ours_interval"]["ci95"].as_f64(),
            Some(x.ci95)
        );
        assert_eq!(
            j["exp1"]["HHZS"]["A"]["spread"]["ops_per_s"]["ci95"].as_f64(),
            Some(ops.ci95)
        );
        let one: Vec<CellResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Small, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, "| HHZS | A | 120 | 1.20 | 0 | 0 | 50.0% |");
    }
}
