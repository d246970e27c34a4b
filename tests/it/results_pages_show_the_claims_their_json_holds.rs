//! Every results page that carries a claims table shows exactly what its checked-in JSON holds
//! (`docs/results/reproduce-<study>.json` at 1/64, `reproduce-<study>-paper.json` at the
//! paper's size, or `reproduce-<study>-large.json` at the largest `--scale 1/N` run where the
//! paper's size is out of reach): the table is rendered from the JSON (`zonedb claims --page`), never typed,
//! so a page cannot drift from its figures.

use std::path::Path;

use zonedb_harness::reproduce::claims;

const STUDIES: [&str; 5] = ["same-zone", "oaza", "splitzns", "hhzs", "znsplus"];

fn json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn every_claims_table_is_the_rendering_of_its_json() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results");
    let mut checked = 0;
    for study in STUDIES {
        let page_path = dir.join(format!("{study}.md"));
        let Ok(page) = std::fs::read_to_string(&page_path) else {
            continue;
        };
        if !page.contains(claims::BEGIN) {
            continue;
        }
        let small = json(&dir.join(format!("reproduce-{study}.json")));
        let paper = json(&dir.join(format!("reproduce-{study}-paper.json")))
            .or_else(|| json(&dir.join(format!("reproduce-{study}-large.json"))));
        assert!(
            small.is_some() || paper.is_some(),
            "{study}.md has a claims table but no JSON beside it"
        );
        for j in [&small, &paper].into_iter().flatten() {
            let mut again = j.clone();
            assert_eq!(
                claims::rejudge(&mut again),
                0,
                "{study}: a verdict in its JSON is not what the rules give its numbers; run `zonedb claims --rejudge`"
            );
        }
        let table = claims::table(small.as_ref(), paper.as_ref());
        let want = claims::splice(&page, &table).unwrap();
        assert!(
            want == page,
            "docs/results/{study}.md's claims table is not its JSON's; rerender it:\n  zonedb claims --small docs/results/reproduce-{study}.json --page docs/results/{study}.md\n(add --paper docs/results/reproduce-{study}-paper.json, or -large.json, where it exists)"
        );
        checked += 1;
    }
    assert!(checked > 0, "no results page carries a claims table");
}

/// The checked-in JSON was made by the claims the studies define now: each claim in it has
/// the paper's number, words, rule and unit its study's spec gives.
#[test]
fn the_checked_in_claims_are_the_studies_specs() {
    use zonedb_harness::reproduce::{StudyId, report};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results");
    for (study, name) in [
        (StudyId::SameZone, "same-zone"),
        (StudyId::Oaza, "oaza"),
        (StudyId::SplitZns, "splitzns"),
        (StudyId::Hhzs, "hhzs"),
    ] {
        let specs = report::claim_specs(study);
        for file in [
            format!("reproduce-{name}.json"),
            format!("reproduce-{name}-paper.json"),
            format!("reproduce-{name}-large.json"),
        ] {
            let Some(j) = json(&dir.join(&file)) else {
                continue;
            };
            let list: Vec<claims::Claim> = serde_json::from_value(j["claims"].clone()).unwrap();
            assert!(!list.is_empty(), "{file}: no claims");
            for c in list {
                let s = specs
                    .iter()
                    .find(|s| s.claim == c.claim)
                    .unwrap_or_else(|| panic!("{file}: no spec for {:?}", c.claim));
                // (JSON's decimal text gives a float back to within its last digit.)
                assert!(
                    (s.paper - c.paper).abs() <= 1e-12 * s.paper.abs().max(1.0),
                    "{file}: {}: paper {} vs {}",
                    c.claim,
                    s.paper,
                    c.paper
                );
                assert_eq!(
                    (s.paper_text.as_str(), s.rule, s.unit),
                    (c.paper_text.as_str(), c.rule, c.unit),
                    "{file}: {}",
                    c.claim
                );
            }
        }
    }
}
