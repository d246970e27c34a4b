//! The ablation: from the study as it ran before (the paper's text forms on our old set-up) to
//! the authors' code on their set-up, moving one difference per row, so that every gap between
//! our figures and the paper's is explained by a measured row.
//!
//! Rows are cumulative. Row 0 is today's set-up ([`super::forms::today`]) with the text forms;
//! then each step of the authors' set-up ([`super::forms::setup_steps`]), one setting each;
//! then each policy difference, one at a time, from the text forms to the code forms. The last
//! row is exactly the code form's configuration (a test checks it). Each row runs the study's
//! compared schemes (same-zone: Baseline and A-CAZA; OAZA: LIZA, CAZA and OAZA) on the first
//! workload.
//!
//! A placement of the LIZA and CAZA families moves one difference of its code form at a time
//! ([`zonedb_fs::placement::liza_caza::LizaDifference`],
//! [`zonedb_fs::placement::caza_artifact::CazaDifference`]), through the named forms between
//! the two (`liza+abs-diff`, `caza+abs-diff+adv`, ...). A difference moves in every compared
//! scheme whose code form has it: the authors' LIZA allocator is the Baseline's placement and
//! CAZA's fallback, so its rows move both (one piece of code, as a set-up row moves every
//! scheme). A row that cannot be split says why ([`Row::unsplit`]): the compaction schemes
//! are one picker each in the engine, with no form between them.

use std::collections::BTreeSet;

use zonedb_fs::placement::caza_artifact::{CazaArtifactConfig, CazaDifference};
use zonedb_fs::placement::liza_caza::{LizaCazaConfig, LizaDifference};

use super::StudyId;
use super::forms::{self, Form, OAZA_SCHEMES, Policies, SAME_ZONE_SCHEMES, Scheme};
use crate::db_bench::HarnessError;
use crate::scenario::Override;

/// One row: what it moved, the set-up so far and each compared scheme's policies.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What this row changes from the previous one.
    pub name: String,
    /// Set-up overrides so far (applied after the study's base and scale).
    pub setup: Vec<Override>,
    /// (scheme name, its policies in this row).
    pub schemes: Vec<(&'static str, Policies)>,
    /// The workload at the paper's dataset size (same-zone: fillrandom of 1.07x the device)
    /// rather than the old study's.
    pub paper_dataset: bool,
    /// Why this row moves more than one behaviour, when it cannot be split; `None`: it moves
    /// one.
    pub unsplit: Option<&'static str>,
}

/// The schemes an ablation row runs.
pub fn compared(study: StudyId) -> Vec<&'static Scheme> {
    match study {
        StudyId::SameZone => vec![&SAME_ZONE_SCHEMES[0], &SAME_ZONE_SCHEMES[3]],
        StudyId::Oaza | StudyId::SplitZns | StudyId::Hhzs => OAZA_SCHEMES.iter().collect(),
    }
}

/// Why the A-CAZA victims row moves several behaviours at once.
const ACC_UNSPLIT: &str = "not split: `acc` and `acc-artifact` are one picker each in the engine (crates/lsm, compaction/adaptive*.rs), with no form between them; the row moves the ZACA objective (equation 1 -> GetMaxInvalidateCompactionScore) and its candidate order (SICA -> kMinOverlappingRatio), the picker outside ZACA (SICA -> RocksDB 7.4's kMinOverlappingRatio loop), the free space it switches on (exact -> whole MiB of every zone, floored) and the switch (free <= turning point -> free < max_compaction_kick)";

/// A policy step.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// `scheme`'s victim selection to its code form.
    Compaction {
        name: &'static str,
        scheme: &'static str,
        unsplit: Option<&'static str>,
    },
    /// `scheme`'s placement to its code form, a switch between two policies that are not
    /// forms of one another.
    Placement {
        name: &'static str,
        scheme: &'static str,
    },
    /// One difference of the authors' LIZA allocator, in every scheme whose code form has it.
    Liza(LizaDifference),
    /// One difference of the authors' CAZA, in every scheme whose code form has it.
    Caza(CazaDifference),
}

/// The policy steps of `study`, in order.
fn policy_steps(study: StudyId) -> Vec<Step> {
    let liza = LizaDifference::ALL.into_iter().map(Step::Liza);
    let caza = CazaDifference::ALL.into_iter().map(Step::Caza);
    match study {
        StudyId::SameZone => std::iter::once(Step::Compaction {
            name: "Baseline picker: SICA -> RocksDB 7.4 kMinOverlappingRatio",
            scheme: "Baseline",
            unsplit: None,
        })
        .chain(liza)
        .chain([Step::Compaction {
            name: "A-CAZA victims: ZACA eq. 1 + turning point -> GetMaxInvalidateCompactionScore + free-space kick (acc-artifact)",
            scheme: "A-CAZA",
            unsplit: Some(ACC_UNSPLIT),
        }])
        .chain(caza)
        .collect(),
        StudyId::Oaza | StudyId::SplitZns | StudyId::Hhzs => liza
            .chain(caza)
            .chain([Step::Placement {
                name: "OAZA: the whole SST must fit the target zone -> it may spill (oaza-spill)",
                scheme: "OAZA",
            }])
            .collect(),
    }
}

/// A placement as the ablation moves it: a LIZA or CAZA form (one difference at a time), or a
/// named policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    Liza(LizaCazaConfig),
    Caza(CazaArtifactConfig),
    Named(&'static str),
}

impl Placement {
    /// A policy of the LIZA or CAZA family by its configuration, another by its name.
    fn of(name: &'static str) -> Self {
        match name {
            "liza" => Self::Liza(LizaCazaConfig::UPSTREAM),
            "caza" => Self::Caza(CazaArtifactConfig::TEXT),
            "liza-caza" => Self::Liza(LizaCazaConfig::CODE),
            "caza-artifact" => Self::Caza(CazaArtifactConfig::ADV_CODE),
            "caza-v1-artifact" => Self::Caza(CazaArtifactConfig::V1_CODE),
            other => Self::Named(other),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Liza(c) => c.name(),
            Self::Caza(c) => c.name(),
            Self::Named(n) => n,
        }
    }

    /// With the LIZA difference `d` if `code` has it (in a CAZA, its fallback's).
    fn with_liza(self, code: Self, d: LizaDifference) -> Option<Self> {
        match (self, code) {
            (Self::Liza(c), Self::Liza(k)) if k.has(d) && !c.has(d) => Some(Self::Liza(c.with(d))),
            (Self::Caza(c), Self::Caza(k)) if k.fallback.has(d) && !c.fallback.has(d) => {
                Some(Self::Caza(c.with_fallback(d)))
            }
            _ => None,
        }
    }

    /// With the CAZA difference `d` if `code` has it.
    fn with_caza(self, code: Self, d: CazaDifference) -> Option<Self> {
        match (self, code) {
            (Self::Caza(c), Self::Caza(k)) if k.has(d) && !c.has(d) => Some(Self::Caza(c.with(d))),
            _ => None,
        }
    }
}

/// Every row of `study`'s ablation, sizes divided by `div` (the study's scale).
///
/// # Errors
/// [`HarnessError::Config`] if a set-up value does not fit (a bug).
pub fn rows(study: StudyId, div: u64) -> Result<Vec<Row>, HarnessError> {
    let schemes = compared(study);
    let mut setup = forms::today()?;
    let mut current: Vec<(&'static str, Policies)> = schemes
        .iter()
        .map(|s| (s.name, s.policies(Form::Text)))
        .collect();
    let mut out = vec![Row {
        name:
            "today: text forms, reads block by block from the device, uncompressed values, WAL, intra-L0, 1 subcompaction, no blocking"
                .into(),
        setup: setup.clone(),
        schemes: current.clone(),
        paper_dataset: false,
        unsplit: None,
    }];
    for step in forms::setup_steps(study, div)? {
        let compresses = step
            .overrides
            .iter()
            .any(|o| matches!(o, Override::Engine(k, _) if k == "compression"));
        setup.extend(step.overrides);
        out.push(Row {
            name: format!("+ {}", step.name),
            setup: setup.clone(),
            schemes: current.clone(),
            paper_dataset: out.last().is_some_and(|r| r.paper_dataset),
            unsplit: None,
        });
        if compresses {
            // Compressed, the paper's dataset fits; uncompressed it overfills the device.
            out.push(Row {
                name: match study {
                    StudyId::SameZone => "+ dataset: 0.52x -> the paper's 1.07x the device (fillrandom 69 M puts, scaled)",
                    StudyId::Oaza | StudyId::SplitZns | StudyId::Hhzs => "+ dataset: 40 K -> the slides' 6 M puts of 8 KiB (1.5x the device), scaled",
                }
                .into(),
                setup: setup.clone(),
                schemes: current.clone(),
                paper_dataset: true,
                unsplit: None,
            });
        }
    }
    let mut placements: Vec<Placement> = current
        .iter()
        .map(|(_, p)| Placement::of(p.placement))
        .collect();
    for step in policy_steps(study) {
        // The schemes moved, as the row names them (CAZA's LIZA: its fallback).
        let mut moved: Vec<String> = Vec::new();
        for (i, s) in schemes.iter().enumerate() {
            let code = Placement::of(s.code.placement);
            let next = match step {
                Step::Compaction { scheme, .. } if scheme == s.name => {
                    current[i].1.compaction = s.code.compaction;
                    moved.push(s.name.to_owned());
                    None
                }
                Step::Placement { scheme, .. } if scheme == s.name => Some(code),
                Step::Liza(d) => placements[i].with_liza(code, d),
                Step::Caza(d) => placements[i].with_caza(code, d),
                Step::Compaction { .. } | Step::Placement { .. } => None,
            };
            if let Some(p) = next {
                moved.push(match (step, p) {
                    (Step::Liza(_), Placement::Caza(_)) => format!("{}'s fallback", s.name),
                    _ => s.name.to_owned(),
                });
                placements[i] = p;
                current[i].1.placement = p.name();
            }
        }
        if moved.is_empty() {
            continue;
        }
        out.push(Row {
            name: format!("+ {}", step_name(step, &moved)),
            setup: setup.clone(),
            schemes: current.clone(),
            paper_dataset: true,
            unsplit: match step {
                Step::Compaction { unsplit, .. } => unsplit,
                _ => None,
            },
        });
    }
    Ok(out)
}

/// A step's row name; `moved`: the schemes it moved.
fn step_name(step: Step, moved: &[String]) -> String {
    match step {
        Step::Compaction { name, .. } | Step::Placement { name, .. } => name.to_owned(),
        Step::Liza(d) => format!(
            "authors' ZenFS LIZA ({}): {} ({})",
            moved.join(" + "),
            d.what(),
            d.key()
        ),
        Step::Caza(d) => format!(
            "{} placement, CAZA §VI -> code: {} ({})",
            moved.join(" + "),
            d.what(),
            d.key()
        ),
    }
}

/// What moves between two placements: each difference of the LIZA or CAZA family moved (by
/// its key), or the switch from one policy to another.
pub fn placement_moves(a: &str, b: &str) -> BTreeSet<String> {
    use zonedb_fs::placement::caza_artifact::differences;
    if a == b {
        return BTreeSet::new();
    }
    match (differences(a), differences(b)) {
        (Some((base_a, keys_a)), Some((base_b, keys_b))) if base_a == base_b => {
            let (ka, kb): (BTreeSet<&str>, BTreeSet<&str>) =
                (keys_a.into_iter().collect(), keys_b.into_iter().collect());
            ka.symmetric_difference(&kb)
                .map(|k| format!("placement {k}"))
                .collect()
        }
        _ => BTreeSet::from([format!("placement {a} -> {b}")]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::ReproScale;

    #[test]
    fn the_last_row_is_the_code_form_on_the_authors_setup() {
        for study in [StudyId::SameZone, StudyId::Oaza] {
            let rows = rows(study, 64).unwrap();
            let last = rows.last().unwrap();
            for (name, pol) in &last.schemes {
                let s = compared(study)
                    .into_iter()
                    .find(|s| s.name == *name)
                    .unwrap();
                assert_eq!(*pol, s.code, "{name}");
            }
            let first = &rows[0];
            for (name, pol) in &first.schemes {
                let s = compared(study)
                    .into_iter()
                    .find(|s| s.name == *name)
                    .unwrap();
                assert_eq!(*pol, s.text, "{name}");
            }
        }
    }

    /// Leaf paths where two JSON values differ.
    fn leaves_differing(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Vec<String> {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                keys.into_iter()
                    .flat_map(|k| {
                        leaves_differing(
                            x.get(k).unwrap_or(&Value::Null),
                            y.get(k).unwrap_or(&Value::Null),
                            &format!("{path}.{k}"),
                        )
                    })
                    .collect()
            }
            _ if a == b => Vec::new(),
            _ => vec![path.to_owned()],
        }
    }

    /// Every row moves one thing: one setting of the set-up (the scenario the row runs differs
    /// from the row above's in one value), or one policy difference (the same difference in
    /// every scheme it moves counts once), unless it says why it cannot be split.
    #[test]
    fn each_row_moves_one_thing() {
        use crate::reproduce::matrix::{matrix, study_base, workload};
        for study in [StudyId::SameZone, StudyId::Oaza] {
            let rows = rows(study, 64).unwrap();
            let w = matrix(study).1[0];
            let setup = |r: &Row| {
                let s = study_base(study, ReproScale::Small, 1)
                    .unwrap()
                    .with(r.setup.iter().cloned().chain(workload(
                        study,
                        w,
                        ReproScale::Small,
                        r.paper_dataset,
                    )))
                    .unwrap();
                serde_json::to_value(&s).unwrap()
            };
            for pair in rows.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                let settings = leaves_differing(&setup(a), &setup(b), "");
                let mut policies: BTreeSet<String> = BTreeSet::new();
                for ((name, x), (_, y)) in a.schemes.iter().zip(&b.schemes) {
                    policies.extend(placement_moves(x.placement, y.placement));
                    if x.compaction != y.compaction {
                        policies.insert(format!(
                            "{name} compaction {} -> {}",
                            x.compaction, y.compaction
                        ));
                    }
                }
                assert_eq!(
                    settings.len() + policies.len(),
                    1,
                    "{} -> {}: {settings:?} {policies:?}",
                    a.name,
                    b.name
                );
            }
        }
    }

    #[test]
    fn the_placement_rows_walk_each_difference_in_order() {
        let rows = rows(StudyId::SameZone, 64).unwrap();
        let placements: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.schemes[0].1.placement, r.schemes[1].1.placement))
            .collect();
        let first = placements.iter().position(|p| p.0 != "liza").unwrap();
        assert_eq!(
            placements[first],
            ("liza+fill-partial", "caza+fill-partial")
        );
        assert_eq!(
            placements[first + 4],
            (
                "liza-caza",
                "caza+fill-partial+abs-diff+skip-untagged+strict+any-largest"
            )
        );
        assert!(
            rows[first]
                .name
                .contains("LIZA (Baseline + A-CAZA's fallback)"),
            "{}",
            rows[first].name
        );
        // The victims row between, then CAZA's own differences.
        assert!(rows[first + 5].unsplit.is_some());
        assert_eq!(
            placements[first + 6].1,
            "caza+fill-partial+abs-diff+skip-untagged+strict+any-largest+adv"
        );
        assert_eq!(placements.last().unwrap().1, "caza-artifact");
        assert_eq!(rows.len(), first + 12);
        // Every named form is a registered placement.
        for (a, b) in placements {
            for p in [a, b] {
                assert!(zonedb_fs::placement::by_name(p).is_ok(), "{p}");
            }
        }
        // OAZA: CAZA moves its fallback's differences, then v1's; LIZA never moves.
        let oaza = super::rows(StudyId::Oaza, 64).unwrap();
        assert!(oaza.iter().all(|r| r.schemes[0].1.placement == "liza"));
        assert!(oaza.iter().any(|r| r.schemes[1].1.placement
            == "caza+fill-partial+abs-diff+skip-untagged+strict+any-largest+v1"));
    }

    #[test]
    fn moves_count_each_difference_of_a_form() {
        assert_eq!(placement_moves("liza", "liza").len(), 0);
        assert_eq!(placement_moves("liza", "liza+strict").len(), 1);
        assert_eq!(placement_moves("liza", "liza-caza").len(), 5);
        assert_eq!(placement_moves("caza", "caza-artifact").len(), 11);
        assert_eq!(placement_moves("caza+adv", "caza+v1").len(), 2);
        assert_eq!(placement_moves("oaza", "oaza-spill").len(), 1);
        assert_eq!(placement_moves("liza", "caza").len(), 1);
    }
}
