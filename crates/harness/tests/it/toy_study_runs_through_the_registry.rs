//! The study seam: a study defined here, outside the crate (one file: its type and its
//! `Study` impl), is added to the registry with one line and runs through the same stages as
//! the papers' studies (plan cells -> run -> figures -> claims -> report), its report written
//! where theirs are.

use std::path::{Path, PathBuf};

use zonedb_harness::db_bench::ProgressCounter;
use zonedb_harness::reproduce::claims::{Judge, Spec, Unit};
use zonedb_harness::reproduce::run::Context;
use zonedb_harness::reproduce::seeds::Seeded;
use zonedb_harness::reproduce::{Planned, Ran, Registry, ReproScale, Request, Study};
use zonedb_harness::runner::{Host, LabError};

/// A toy study: each seed's cell "measures" twice its seed; the claim is that it doubles.
#[derive(Debug)]
struct Doubling;

#[derive(Debug, Clone)]
struct Doubled {
    seed: u64,
    value: f64,
}

impl Seeded for Doubled {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn finished(&self) -> bool {
        true
    }
}

impl Study for Doubling {
    type Cell = u64;
    type Result = Doubled;

    fn name(&self) -> &'static str {
        "doubling"
    }

    fn about(&self) -> &'static str {
        "doubles each seed"
    }

    fn plan(&self, req: &Request) -> Result<Planned<u64>, LabError> {
        let scale = ReproScale::parse(&req.scale).map_err(|e| LabError::Usage(e.to_string()))?;
        let seeds: Vec<u64> = (req.seed..req.seed + req.seeds).collect();
        Ok(Planned {
            scale,
            cells: seeds.clone(),
            seeds,
        })
    }

    fn run(&self, planned: &Planned<u64>, _ctx: &Context<'_>) -> Result<Ran<Doubled>, LabError> {
        Ok(Ran {
            results: planned
                .cells
                .iter()
                .map(|&seed| Doubled {
                    seed,
                    value: 2.0 * seed as f64,
                })
                .collect(),
            sim_ops: None,
            void: Vec::new(),
        })
    }

    fn figures(&self, scale: ReproScale, results: &[Doubled]) -> serde_json::Value {
        serde_json::json!({
            "study": self.name(),
            "scale": scale.name(),
            "values": results.iter().map(|r| r.value).collect::<Vec<_>>(),
        })
    }

    fn claims(&self, _results: &[Doubled]) -> Vec<Spec<Doubled>> {
        vec![Spec::new(
            "the value, over its seed",
            2.0,
            "2x",
            Judge::Effect,
            Unit::Times,
            Box::new(|rs: &[Doubled]| rs.first().map(|r| r.value / r.seed as f64)),
        )]
    }

    fn report(&self, _scale: ReproScale, results: &[Doubled]) -> String {
        format!("# Doubling\n\n{} cells\n", results.len())
    }
}

/// No wall clock, no progress line.
struct Still;

impl Host for Still {
    fn wall_ns(&self) -> u64 {
        0
    }

    fn show_progress(&self, _: &str, _: u64, _: &ProgressCounter) -> Box<dyn std::any::Any> {
        Box::new(())
    }

    fn json(&self, wall_ns: u64, _: Option<u64>) -> serde_json::Value {
        serde_json::json!({ "wall_ns": wall_ns })
    }
}

fn request(study: &str, out: &Path) -> Request {
    Request {
        study: study.into(),
        scale: "tiny".into(),
        json: true,
        jobs: 1,
        seed: 1,
        seeds: 3,
        claims: false,
        no_text_forms: false,
        no_ablation: false,
        no_sweep: false,
        no_breakdown: false,
        overwrite_keys: "spread".into(),
        load: "random".into(),
        load_gib: None,
        workloads: Vec::new(),
        experiments: Vec::new(),
        engine_options: Vec::new(),
        device_options: Vec::new(),
        fs_options: Vec::new(),
        out: out.to_path_buf(),
        emit_scenarios: None,
        resume: false,
        ray: None,
        elide_values: true,
        parallel_compute: true,
    }
}

#[test]
fn toy_study_runs_through_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    let mut studies = Registry::builtin();
    assert!(studies.get("doubling").is_none());
    studies.add(&Doubling);
    assert_eq!(
        studies.names(),
        [
            "same-zone",
            "oaza",
            "splitzns",
            "hhzs",
            "znsplus",
            "doubling"
        ]
    );
    let o = studies
        .reproduce(&request("doubling", dir.path()), &Still)
        .unwrap();
    assert!(o.any_finished);
    assert_eq!(o.json["values"], serde_json::json!([2.0, 4.0, 6.0]));
    assert_eq!(
        o.json["command"],
        "zonedb reproduce doubling --scale tiny --seeds 3"
    );
    let claim = &o.json["claims"][0];
    assert_eq!(claim["claim"], "the value, over its seed");
    assert_eq!(claim["verdict"], "reproduced", "{claim}");
    let report: PathBuf = dir.path().join("reproduce-doubling.md");
    assert_eq!(o.report, report);
    assert_eq!(
        std::fs::read_to_string(&report).unwrap(),
        "# Doubling\n\n3 cells\n"
    );
    assert!(dir.path().join("reproduce-doubling.json").exists());
    // A name not registered is refused, naming those that are.
    let e = studies
        .reproduce(&request("tripling", dir.path()), &Still)
        .unwrap_err();
    assert!(e.to_string().contains("known: same-zone, oaza"), "{e}");
}
