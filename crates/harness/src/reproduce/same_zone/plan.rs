//! The same-zone study's plan: its base scenario, its workloads at each scale and ACC's
//! turning-point sweep; the scheme matrix and the ablation are the shared forms matrix
//! (`reproduce/matrix.rs`).

use super::{
    Cell, Form, HarnessError, Override, ReproScale, SAME_ZONE_SCHEMES, Scenario, WorkloadSection,
};

/// The same-zone paper's fillrandom as the authors' run script sets it (`script/benchmark.sh`
/// at e4b644d: `SIZE=$HEAVY`, `HEAVY=$G72`, 72 GiB of 1 KiB values): `--scale paper` runs it.
pub const AUTHORS_FILLRANDOM_PUTS: u64 = 75_497_472;

/// ACC turning points swept (percent free space).
pub const TURNING_POINTS: [u32; 5] = [0, 25, 30, 50, 70];

/// The same-zone study's base: Baseline on fillrandom at 1/64 (its `[[compare]]` variants
/// are the other schemes; the study sets them itself).
pub(crate) const SAME_ZONE_BASE: &str = include_str!("../../../../../scenarios/same-zone.toml");

/// The same-zone paper's workload `w` at `scale`.
///
/// fillrandom puts the paper's 72 GB of 16 + 1024-byte pairs (69 M puts, 1.07x the device)
/// scaled with the device, when `paper_dataset`; otherwise the 500 K puts (0.52x) the study
/// ran before the authors' set-up (uncompressed values fill the device at 1.07x). At `paper`
/// scale fillrandom is the authors' run script's own count ([`AUTHORS_FILLRANDOM_PUTS`]).
/// YCSB loads half and updates half of 500 K records at 1/64 either way (its values do not
/// compress).
pub(crate) fn same_zone_workload(w: &str, scale: ReproScale, paper_dataset: bool) -> Override {
    const PAPER_PUTS: u64 = 69_000_000;
    if w == "fillrandom" {
        // The base file's workload: fillrandom, 16-byte keys, 1 KiB values.
        return Override::Num(match (scale, paper_dataset) {
            (ReproScale::Paper, _) => AUTHORS_FILLRANDOM_PUTS,
            (_, false) => scale.below_paper(500_000),
            (_, true) => PAPER_PUTS / scale.div(),
        });
    }
    let puts: u64 = if scale == ReproScale::Paper {
        PAPER_PUTS
    } else {
        scale.below_paper(500_000)
    };
    let n = i64::try_from(puts / 2).unwrap_or(i64::MAX);
    let int = toml::Value::Integer;
    let ycsb: toml::Table = [
        ("recordcount", int(n)),
        ("operationcount", int(n)),
        ("readproportion", int(0)),
        ("updateproportion", int(1)),
        ("scanproportion", int(0)),
        ("insertproportion", int(0)),
        ("fieldcount", int(1)),
        ("fieldlength", int(1024)),
        ("requestdistribution", toml::Value::String(w.to_owned())),
        ("zipfianconstant", toml::Value::Float(0.99)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Override::Workload(WorkloadSection {
        kind: "ycsb".into(),
        ycsb,
        ..WorkloadSection::default()
    })
}

/// The ACC turning-point sweep of the same-zone study (one seed), appended to `out`.
pub(crate) fn sweep_cells(
    base: &Scenario,
    setup: &[Override],
    scale: ReproScale,
    seed: u64,
    out: &mut Vec<Cell>,
) -> Result<(), HarnessError> {
    // Figures 13 and 14: A-CAZA with the turning point (the code's
    // `max_compaction_kick`) and the level constraint (`max_compaction_start_level`)
    // varied.
    let a_caza = SAME_ZONE_SCHEMES[3];
    for constraint in [false, true] {
        for tp in TURNING_POINTS {
            let scenario = base.clone().with(
                setup
                    .iter()
                    .cloned()
                    .chain(a_caza.policies(Form::Code).overrides())
                    .chain([
                        Override::engine_int("max_compaction_kick", u64::from(tp))?,
                        Override::engine_int(
                            "max_compaction_start_level",
                            if constraint { 2 } else { 0 },
                        )?,
                        same_zone_workload("fillrandom", scale, true),
                        Override::Name(format!(
                            "ACC kick={tp} {}",
                            if constraint { "L>=2" } else { "all levels" }
                        )),
                    ]),
            )?;
            out.push(Cell {
                group: "sweep",
                scheme: a_caza.name,
                form: Form::Code,
                workload: "fillrandom".into(),
                turning_point: Some(tp),
                level_constraint: Some(constraint),
                ablation_step: None,
                seed,
                scenario,
            });
        }
    }
    Ok(())
}
