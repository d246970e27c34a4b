//! Fairness by construction: two schemes compared side by side differ only in the
//! configuration keys that define them, the mechanisms their papers claim.
//!
//! Each study declares, per scheme, the keys that define it ([`defining_keys`]). [`check`]
//! takes a study's cells, groups those compared side by side (same [`Cell::coordinates`]:
//! group, workload, form, ablation row, sweep point, seed), flattens each scenario to dotted
//! keys (`device.scheduler`, `fs.placement`, `engine.compaction_pri`) and reports every key on
//! which two schemes of a group differ that neither declares. A scheduler, a readahead, a
//! number of background jobs, a blocking model or a timing constant given to one scheme
//! alone is such a key; so is anything a scheme sets that its paper does not claim. Extra
//! rows that move a model switch on purpose (SplitZNS's own queues, say) are schemes of
//! their own, named for it, and declare the switch.

use std::collections::BTreeMap;

use super::{Cell, StudyId};

/// A scenario (or a cell's configuration) as dotted keys and values.
pub type Keys = BTreeMap<String, String>;
use crate::scenario::Scenario;

/// A key two compared schemes differ on that neither declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The comparison ([`Cell::coordinates`]).
    pub coordinates: String,
    /// The two schemes.
    pub schemes: (String, String),
    /// The dotted key.
    pub key: String,
    /// Its value in each (`-` when absent).
    pub values: (String, String),
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} has {} = {}, {} has {}; neither scheme declares {}",
            self.coordinates,
            self.schemes.0,
            self.key,
            self.values.0,
            self.schemes.1,
            self.values.1,
            self.key
        )
    }
}

/// The keys (dotted, a key or a table prefix) that define `scheme` in `study`: what its paper
/// claims, and nothing else. `None` for a scheme the study does not declare (then every
/// difference is a violation).
pub fn defining_keys(study: StudyId, scheme: &str) -> Option<&'static [&'static str]> {
    match study {
        StudyId::SameZone => same_zone(scheme),
        StudyId::Oaza => oaza(scheme),
        StudyId::SplitZns => splitzns(scheme),
        StudyId::Hhzs => hhzs(scheme),
    }
}

/// Same-zone compaction: a scheme is a compaction picker (ZACA/ACC and its turning point) and
/// a placement (LIZA / CAZA).
fn same_zone(scheme: &str) -> Option<&'static [&'static str]> {
    const KEYS: &[&str] = &[
        "engine.compaction_scheme",
        "engine.compaction_pri",
        "engine.max_compaction_kick",
        "engine.max_compaction_start_level",
        "fs.placement",
    ];
    ["Baseline", "A-LIZA", "CAZA", "A-CAZA"]
        .contains(&scheme)
        .then_some(KEYS)
}

/// OAZA: a placement.
fn oaza(scheme: &str) -> Option<&'static [&'static str]> {
    const KEYS: &[&str] = &["fs.placement"];
    super::OAZA_MATRIX
        .iter()
        .any(|s| s.name == scheme)
        .then_some(KEYS)
}

/// SplitZNS and its baselines: the allocator, the device's accelerations (the SubZone Ring,
/// the Read Prefetcher, the Read Scheduler's query-first order) and the compaction each
/// baseline's paper claims (Gear's round-robin cascade, LLC's picker). Every scheme runs the
/// same queueing discipline ([`super::splitzns::QUEUEING`]); the named extra rows add what
/// their names say: ` (FIFO)` the simulator's FIFO booking (`device.queueing`), `+prio` and
/// `+query-first` another die order (`device.scheduler`).
fn splitzns(scheme: &str) -> Option<&'static [&'static str]> {
    const KEYS: &[&str] = &[
        "fs.placement",
        "fs.selective_min_level",
        "fs.selective_max_split_pct",
        "device.kind",
        "device.splitzns",
        "engine.compaction_scheme",
        "engine.compaction_pri",
        "engine.llc_temp_zones",
    ];
    const FIFO: &[&str] = &[
        "fs.placement",
        "device.queueing",
        "engine.compaction_scheme",
        "engine.compaction_pri",
    ];
    const ORDER: &[&str] = &[
        "fs.placement",
        "fs.selective_min_level",
        "fs.selective_max_split_pct",
        "device.kind",
        "device.splitzns",
        "device.scheduler",
        "engine.compaction_scheme",
        "engine.compaction_pri",
    ];
    use super::splitzns::{BREAKDOWN_SCHEMES, FIFO_SCHEMES, MAIN_SCHEMES};
    if FIFO_SCHEMES.contains(&scheme) {
        Some(FIFO)
    } else if BREAKDOWN_SCHEMES.contains(&scheme)
        && (scheme.ends_with("+prio") || scheme.ends_with("+query-first"))
    {
        Some(ORDER)
    } else {
        (MAIN_SCHEMES.contains(&scheme) || BREAKDOWN_SCHEMES.contains(&scheme)).then_some(KEYS)
    }
}

/// HHZS and the hybrid baselines: the placement (tiering, migration, caching, AUTO). The
/// ablation's named extra rows add what their names say: `/1MiB` a 1 MiB migration chunk,
/// `/no-demand` the tiering rule without compactions' demand; the caching group's
/// `/reopen` the load and run as two processes, `/wal-1-zone` a WAL budget of one zone,
/// `/ordered` ordered inserts and `/1-client` one YCSB client thread.
fn hhzs(scheme: &str) -> Option<&'static [&'static str]> {
    const KEYS: &[&str] = &["fs.placement"];
    const CHUNK: &[&str] = &["fs.placement", "fs.migration_chunk_kib"];
    const DEMAND: &[&str] = &["fs.placement", "fs.hhzs_compaction_demand"];
    const REOPEN: &[&str] = &["fs.placement", "workload.reopen_between_phases"];
    const WAL: &[&str] = &["fs.placement", "engine.max_total_wal_size"];
    const ORDERED: &[&str] = &["fs.placement", "workload.ycsb.insertorder"];
    const CLIENTS: &[&str] = &["fs.placement", "workload.ycsb.threadcount", "workload.then"];
    match scheme.split_once('/').map(|(_, v)| v) {
        Some("1MiB") => Some(CHUNK),
        Some("no-demand") => Some(DEMAND),
        Some("reopen") => Some(REOPEN),
        Some("wal-1-zone") => Some(WAL),
        Some("ordered") => Some(ORDERED),
        Some("1-client") => Some(CLIENTS),
        Some(_) => None,
        None => Some(KEYS).filter(|_| !scheme.is_empty()),
    }
}

/// A scenario as dotted keys and their values (TOML), `name` left out.
///
/// # Panics
/// Never: a scenario always serializes (its fields are TOML types).
pub fn flatten(s: &Scenario) -> BTreeMap<String, String> {
    fn walk(prefix: &str, t: &toml::Table, out: &mut BTreeMap<String, String>) {
        for (k, v) in t {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(inner) => walk(&key, inner, out),
                other => {
                    out.insert(key, other.to_string());
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    if let Ok(t) = toml::Table::try_from(s) {
        walk("", &t, &mut out);
    }
    out.remove("name");
    out
}

/// The ZNS+ study: a scheme is the zone layer's copy mechanism (host copy or IZC), its
/// copyback-aware destinations and threaded logging, on the same ZNS+ device.
pub const ZNSPLUS_KEYS: &[&str] = &["fs.zone_copy", "fs.copyback_aware", "fs.threaded_logging"];

/// The ZNS+ study's named variant `ZNS+/need_SSR`: ZNS+'s keys and the trigger of threaded
/// logging (F2FS's `need_SSR`), which its name says.
pub const NEED_SSR_KEYS: &[&str] = &[
    "fs.zone_copy",
    "fs.copyback_aware",
    "fs.threaded_logging",
    "fs.threaded_trigger",
];

/// The keys that define a scheme of the ZNS+ study (`None`: not one of its schemes).
pub fn znsplus_keys(scheme: &str) -> Option<&'static [&'static str]> {
    use super::znsplus::{NEED_SSR, SCHEMES};
    if scheme == NEED_SSR {
        Some(NEED_SSR_KEYS)
    } else {
        SCHEMES.contains(&scheme).then_some(ZNSPLUS_KEYS)
    }
}

/// A ZNS+ cell as dotted keys: an engine cell's scenario ([`flatten`]); a fill-and-delete
/// cell's device, experiment options and zone layer options (the scheme's three keys apart,
/// everything else in one `fs.rest` entry).
///
/// # Errors
/// [`crate::db_bench::HarnessError::Config`] for an unknown scheme.
pub fn flatten_znsplus(
    c: &super::znsplus::ZnsPlusCell,
) -> Result<BTreeMap<String, String>, crate::db_bench::HarnessError> {
    match &c.work {
        super::znsplus::Work::Engine(s) => Ok(flatten(s)),
        super::znsplus::Work::FillDelete(run) => {
            let mut fs = run.fs_options()?;
            let mut out = BTreeMap::new();
            out.insert("device".into(), format!("{:?}", run.spec()));
            out.insert("fill_delete".into(), format!("{:?}", run.options()));
            out.insert("fs.zone_copy".into(), format!("{:?}", fs.zone_copy));
            out.insert(
                "fs.threaded_logging".into(),
                fs.znsplus.threaded_logging.to_string(),
            );
            out.insert(
                "fs.threaded_trigger".into(),
                fs.znsplus.threaded_trigger.name().to_owned(),
            );
            fs.zone_copy = zonedb_fs::ZoneCopy::Host;
            fs.znsplus = zonedb_fs::ZnsPlusOptions::default();
            out.insert(
                "fs.rest".into(),
                format!(
                    "{fs:?} placement {} cleaner {}",
                    fs.placement.name(),
                    fs.cleaner.name()
                ),
            );
            Ok(out)
        }
    }
}

/// Every undeclared difference between two ZNS+ schemes run on the same experiment and seed.
///
/// # Errors
/// As [`flatten_znsplus`].
pub fn check_znsplus(
    cells: &[super::znsplus::ZnsPlusCell],
) -> Result<Vec<Violation>, crate::db_bench::HarnessError> {
    let mut groups: BTreeMap<String, Vec<(&str, Keys)>> = BTreeMap::new();
    for c in cells {
        groups
            .entry(format!("{} seed{}", c.experiment, c.seed))
            .or_default()
            .push((c.scheme, flatten_znsplus(c)?));
    }
    let mut out = Vec::new();
    for (coordinates, members) in &groups {
        for (i, (a, fa)) in members.iter().enumerate() {
            for (b, fb) in &members[i + 1..] {
                out.extend(differences(
                    coordinates,
                    (a, fa),
                    (b, fb),
                    znsplus_keys(a).unwrap_or(&[]),
                    znsplus_keys(b).unwrap_or(&[]),
                ));
            }
        }
    }
    Ok(out)
}

/// The keys on which `a` and `b` differ that neither `ka` nor `kb` declares.
fn differences(
    coordinates: &str,
    (a, fa): (&str, &BTreeMap<String, String>),
    (b, fb): (&str, &BTreeMap<String, String>),
    ka: &[&str],
    kb: &[&str],
) -> Vec<Violation> {
    let keys: std::collections::BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    let show = |v: Option<&String>| v.cloned().unwrap_or_else(|| "-".into());
    keys.into_iter()
        .filter(|key| fa.get(*key) != fb.get(*key) && !declared(ka, key) && !declared(kb, key))
        .map(|key| Violation {
            coordinates: coordinates.to_owned(),
            schemes: (a.to_owned(), b.to_owned()),
            key: key.clone(),
            values: (show(fa.get(key)), show(fb.get(key))),
        })
        .collect()
}

fn declared(keys: &[&str], key: &str) -> bool {
    keys.iter()
        .any(|d| key == *d || key.strip_prefix(d).is_some_and(|r| r.starts_with('.')))
}

/// Every undeclared difference between two schemes compared side by side in `cells`.
pub fn check(study: StudyId, cells: &[Cell]) -> Vec<Violation> {
    let mut groups: BTreeMap<String, Vec<(&Cell, Keys)>> = BTreeMap::new();
    for c in cells {
        groups
            .entry(c.coordinates())
            .or_default()
            .push((c, flatten(&c.scenario)));
    }
    let mut out = Vec::new();
    for (coordinates, members) in &groups {
        for (i, (a, fa)) in members.iter().enumerate() {
            for (b, fb) in &members[i + 1..] {
                if a.scheme == b.scheme {
                    continue;
                }
                out.extend(differences(
                    coordinates,
                    (a.scheme, fa),
                    (b.scheme, fb),
                    defining_keys(study, a.scheme).unwrap_or(&[]),
                    defining_keys(study, b.scheme).unwrap_or(&[]),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::{Plan, ReproScale, cells};

    fn study_cells(study: StudyId) -> Vec<Cell> {
        cells(study, ReproScale::Small, &Plan::full(1)).unwrap()
    }

    const STUDIES: [StudyId; 4] = [
        StudyId::SameZone,
        StudyId::Oaza,
        StudyId::SplitZns,
        StudyId::Hhzs,
    ];

    #[test]
    fn compared_schemes_differ_only_in_what_defines_them() {
        let mut found = std::collections::BTreeSet::new();
        for study in STUDIES {
            let cells = study_cells(study);
            for v in check(study, &cells) {
                let group = v.coordinates.split(' ').next().unwrap_or("").to_owned();
                found.insert(format!("{study:?} {group} {:?}: {}", v.schemes, v.key));
            }
            // Every scheme compared is declared.
            for c in &cells {
                assert!(
                    defining_keys(study, c.scheme).is_some(),
                    "{study:?}: scheme {} declares nothing",
                    c.scheme
                );
            }
        }
        assert!(
            found.is_empty(),
            "undeclared differences:\n{}",
            found.into_iter().collect::<Vec<_>>().join("\n")
        );
    }

    #[test]
    fn znsplus_schemes_differ_only_in_copy_cab_and_threaded_logging() {
        let plan = crate::reproduce::znsplus::ZnsPlusPlan {
            seeds: vec![1, 2],
            experiments: Vec::new(),
        };
        let mut cells = crate::reproduce::znsplus::cells(ReproScale::Small, &plan).unwrap();
        let v = check_znsplus(&cells).unwrap();
        assert!(v.is_empty(), "{}", v[0]);
        // One scheme alone with another cleaner period, or another chip count, is caught.
        for c in &mut cells {
            if c.scheme == "ZNS+" {
                match &mut c.work {
                    crate::reproduce::znsplus::Work::Engine(s) => s.fs.cleaning_interval_ms = 1,
                    crate::reproduce::znsplus::Work::FillDelete(r) => r.chips = Some(3),
                }
            }
        }
        let v = check_znsplus(&cells).unwrap();
        assert!(
            v.iter().any(|v| v.key == "fs.cleaning_interval_ms"),
            "{v:?}"
        );
        assert!(v.iter().any(|v| v.key == "device"), "{v:?}");
    }

    /// `ZNS+/need_SSR` differs from `ZNS+` in the trigger alone, which it declares; the same
    /// trigger on `ZNS+` (a scheme that does not declare it) is caught.
    #[test]
    fn znsplus_need_ssr_differs_from_znsplus_in_its_trigger_alone() {
        use crate::reproduce::znsplus::{NEED_SSR, Work, ZnsPlusPlan, cells};
        let plan = ZnsPlusPlan {
            seeds: vec![1],
            experiments: vec!["fill-delete-80".into(), "overwrite".into()],
        };
        let all = cells(ReproScale::Small, &plan).unwrap();
        assert_eq!(znsplus_keys(NEED_SSR), Some(NEED_SSR_KEYS));
        assert_eq!(znsplus_keys("ZNS+"), Some(ZNSPLUS_KEYS));
        assert_eq!(znsplus_keys("other"), None);
        for experiment in ["fill-delete-80", "overwrite"] {
            let keys = |scheme: &str| {
                let c = all
                    .iter()
                    .find(|c| c.scheme == scheme && c.experiment == experiment)
                    .unwrap();
                flatten_znsplus(c).unwrap()
            };
            let (plus, variant) = (keys("ZNS+"), keys(NEED_SSR));
            let differ: Vec<&String> = plus
                .keys()
                .chain(variant.keys())
                .filter(|k| plus.get(*k) != variant.get(*k))
                .collect();
            assert!(
                !differ.is_empty() && differ.iter().all(|k| *k == "fs.threaded_trigger"),
                "{experiment}: {differ:?}"
            );
        }
        assert!(check_znsplus(&all).unwrap().is_empty());
        // The variant's trigger given to ZNS+ as well: ZNS+ and ZNS/IZC differ on a key
        // neither declares.
        let mut changed = all.clone();
        for c in &mut changed {
            if c.scheme == "ZNS+" {
                match &mut c.work {
                    Work::Engine(s) => s.fs.threaded_trigger = "need-ssr".into(),
                    Work::FillDelete(r) => r.scheme = NEED_SSR,
                }
            }
        }
        let v = check_znsplus(&changed).unwrap();
        for experiment in ["fill-delete-80", "overwrite"] {
            assert!(
                v.iter().any(|v| v.key == "fs.threaded_trigger"
                    && v.coordinates.starts_with(experiment)
                    && v.schemes.0 != NEED_SSR
                    && v.schemes.1 != NEED_SSR),
                "{experiment}: {v:?}"
            );
        }
    }

    #[test]
    fn cells_are_unique_so_every_one_is_emitted() {
        for study in STUDIES {
            let cells = study_cells(study);
            let mut stems: Vec<String> = cells.iter().map(|c| c.stem("s")).collect();
            stems.sort();
            let n = stems.len();
            stems.dedup();
            assert_eq!(stems.len(), n, "{study:?}: two cells share a file name");
        }
    }

    /// The check fails when one scheme alone gets another scheduler or another timing
    /// constant.
    #[test]
    fn one_scheme_alone_with_another_scheduler_or_poll_is_caught() {
        type Change = fn(&mut Scenario);
        let cases: [(StudyId, &str, Change); 3] = [
            (StudyId::SplitZns, "device.scheduler", |s| {
                s.device.scheduler = Some("per-die".into());
            }),
            (StudyId::SameZone, "fs.zc_blocking_poll_ms", |s| {
                s.fs.zc_blocking_poll_ms = 7;
            }),
            (StudyId::Hhzs, "fs.cleaning_interval_ms", |s| {
                s.fs.cleaning_interval_ms += 1;
            }),
        ];
        for (study, key, change) in cases {
            let mut cells = study_cells(study);
            assert!(check(study, &cells).is_empty());
            let first = cells[0].coordinates();
            change(&mut cells[0].scenario);
            let v = check(study, &cells);
            assert!(!v.is_empty(), "{study:?}: {key} went unnoticed");
            assert!(
                v.iter().all(|v| v.coordinates == first && v.key == key),
                "{v:?}"
            );
        }
    }
}
