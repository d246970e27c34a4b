//! The ablation: from the study as it ran before (the paper's text forms on our old set-up) to
//! the authors' code on their set-up, moving one difference per row, so that every gap between
//! our figures and the paper's is explained by a measured row.
//!
//! Rows are cumulative. Row 0 is today's set-up ([`super::forms::today`]) with the text forms;
//! then each step of the authors' set-up ([`super::forms::setup_steps`]); then each policy, one
//! scheme and one mechanism at a time, from its text form to its code form. The last row is
//! exactly the code form's configuration (a test checks it). Each row runs the study's
//! compared schemes (same-zone: Baseline and A-CAZA; OAZA: LIZA, CAZA and OAZA) on the first
//! workload.

use super::Study;
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
}

/// The schemes an ablation row runs.
pub fn compared(study: Study) -> Vec<&'static Scheme> {
    match study {
        Study::SameZone => vec![&SAME_ZONE_SCHEMES[0], &SAME_ZONE_SCHEMES[3]],
        Study::Oaza | Study::SplitZns | Study::Hhzs => OAZA_SCHEMES.iter().collect(),
    }
}

/// A policy step: which scheme's which half moves to its code form.
struct PolicyStep {
    name: &'static str,
    scheme: &'static str,
    placement: bool,
}

/// The policy steps of `study`, in order.
fn policy_steps(study: Study) -> Vec<PolicyStep> {
    let step = |name, scheme, placement| PolicyStep {
        name,
        scheme,
        placement,
    };
    match study {
        Study::SameZone => vec![
            step(
                "Baseline picker: SICA -> RocksDB 7.4 kMinOverlappingRatio",
                "Baseline",
                false,
            ),
            step(
                "Baseline LIZA: upstream ZenFS -> authors' ZenFS (liza-caza)",
                "Baseline",
                true,
            ),
            step(
                "A-CAZA victims: ZACA eq. 1 + turning point -> GetMaxInvalidateCompactionScore + free-space kick (acc-artifact)",
                "A-CAZA",
                false,
            ),
            step(
                "A-CAZA placement: CAZA §VI -> AllocateCompactionAwaredZoneV2 (caza-artifact)",
                "A-CAZA",
                true,
            ),
        ],
        Study::Oaza | Study::SplitZns | Study::Hhzs => vec![
            step(
                "CAZA: §VI -> HotStorage'22 / AllocateCompactionAwaredZone (caza-v1-artifact)",
                "CAZA",
                true,
            ),
            step(
                "OAZA: the whole SST must fit the target zone -> it may spill (oaza-spill)",
                "OAZA",
                true,
            ),
        ],
    }
}

/// Every row of `study`'s ablation, sizes divided by `div` (the study's scale).
///
/// # Errors
/// [`HarnessError::Config`] if a set-up value does not fit (a bug).
pub fn rows(study: Study, div: u64) -> Result<Vec<Row>, HarnessError> {
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
        });
        if compresses {
            // Compressed, the paper's dataset fits; uncompressed it overfills the device.
            out.push(Row {
                name: match study {
                    Study::SameZone => "+ dataset: 0.52x -> the paper's 1.07x the device (fillrandom 69 M puts, scaled)",
                    Study::Oaza | Study::SplitZns | Study::Hhzs => "+ dataset: 40 K -> the slides' 6 M puts of 8 KiB (1.5x the device), scaled",
                }
                .into(),
                setup: setup.clone(),
                schemes: current.clone(),
                paper_dataset: true,
            });
        }
    }
    for step in policy_steps(study) {
        let Some(scheme) = schemes.iter().find(|s| s.name == step.scheme) else {
            continue;
        };
        let Some(slot) = current.iter_mut().find(|(n, _)| *n == step.scheme) else {
            continue;
        };
        if step.placement {
            slot.1.placement = scheme.code.placement;
        } else {
            slot.1.compaction = scheme.code.compaction;
        }
        out.push(Row {
            name: format!("+ {}", step.name),
            setup: setup.clone(),
            schemes: current.clone(),
            paper_dataset: true,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_row_is_the_code_form_on_the_authors_setup() {
        for study in [Study::SameZone, Study::Oaza] {
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

    #[test]
    fn each_row_moves_one_thing() {
        let rows = rows(Study::SameZone, 64).unwrap();
        for w in rows.windows(2) {
            let setup_moved =
                w[1].setup.len() != w[0].setup.len() || w[1].paper_dataset != w[0].paper_dataset;
            let policies_moved = w[0]
                .schemes
                .iter()
                .zip(&w[1].schemes)
                .map(|(a, b)| {
                    usize::from(a.1.placement != b.1.placement)
                        + usize::from(a.1.compaction != b.1.compaction)
                })
                .sum::<usize>();
            assert_eq!(
                usize::from(setup_moved) + policies_moved,
                1,
                "{} -> {}",
                w[0].name,
                w[1].name
            );
        }
    }
}
