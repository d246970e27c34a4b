//! Every scheme of the SplitZNS study runs the same queueing discipline: the scenarios the
//! study emits (`zonedb reproduce splitzns --emit-scenarios DIR` writes these, as TOML) carry
//! one `[device] queueing` for LDP, Gear, LLC, SplitZNS, the breakdown, its ablations and the
//! sweeps, and the devices they build run it; SplitZNS's Read Scheduler only adds query reads
//! first within it. Only the rows named for FIFO queueing run another one.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;

use zonedb_device::flash::{Queueing, Scheduler};
use zonedb_harness::experiment::{DeviceSpec, device_spec_of};
use zonedb_harness::reproduce::splitzns::{
    BREAKDOWN_SCHEMES, FIFO_SCHEMES, MAIN_SCHEMES, QUEUEING,
};
use zonedb_harness::reproduce::{self, Plan, ReproScale, StudyId};
use zonedb_harness::scenario::Scenario;

/// Every cell of the study (both scales that matter, breakdown and sweeps on) as emitted:
/// (scheme, the `[device] queueing` of its TOML, the scheduler its device runs).
fn emitted(scale: ReproScale) -> Vec<(String, Option<String>, Scheduler)> {
    let cells = reproduce::cells(StudyId::SplitZns, scale, &Plan::full(1)).unwrap();
    assert!(cells.len() > 100, "{}", cells.len());
    cells
        .iter()
        .map(|c| {
            let text = toml::to_string(&c.scenario).unwrap();
            let back = Scenario::configurations(&text).unwrap();
            assert_eq!(back.first(), Some(&c.scenario), "{}", c.scenario.name);
            let table: toml::Table = toml::from_str(&text).unwrap();
            let queueing = table["device"]
                .get("queueing")
                .and_then(toml::Value::as_str)
                .map(str::to_owned);
            let DeviceSpec::One(spec) = device_spec_of(&back[0]).unwrap() else {
                panic!("{}: one device", c.scenario.name);
            };
            (
                c.scheme.to_owned(),
                queueing,
                spec.scheduler_in_force().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_scheme_of_the_splitzns_study_has_the_same_queueing() {
    for scale in [ReproScale::Small, ReproScale::Paper] {
        let cells = emitted(scale);
        let schemes: BTreeSet<&str> = cells.iter().map(|(s, _, _)| s.as_str()).collect();
        let compared: Vec<&str> = MAIN_SCHEMES
            .iter()
            .chain(&BREAKDOWN_SCHEMES)
            .copied()
            .collect();
        for s in compared.iter().chain(&FIFO_SCHEMES) {
            assert!(schemes.contains(s), "{s} not in the study");
        }
        // One key, written out, for every scheme but the FIFO rows.
        let keys: BTreeSet<Option<&str>> = cells
            .iter()
            .filter(|(s, _, _)| !FIFO_SCHEMES.contains(&s.as_str()))
            .map(|(_, q, _)| q.as_deref())
            .collect();
        assert_eq!(keys, BTreeSet::from([Some(QUEUEING)]), "{scale:?}");
        assert_eq!(Queueing::by_name(QUEUEING).unwrap(), Queueing::PerDie);
        // And the devices run it: the Read Scheduler only adds query reads first.
        for (s, _, sched) in &cells {
            let fifo = FIFO_SCHEMES.contains(&s.as_str());
            let want = if fifo {
                Queueing::Fifo
            } else {
                Queueing::PerDie
            };
            assert_eq!(sched.queueing(), want, "{s}: {sched:?}");
            let expected = match s.as_str() {
                "LDP+prio" | "SplitZNS+prio" => Scheduler::Priority,
                "SplitZNS" | "+RS" | "SplitZNS L3" | "LDP+query-first" => Scheduler::QueryFirst,
                _ if fifo => Scheduler::Fifo,
                _ => Scheduler::PerDie,
            };
            assert_eq!(*sched, expected, "{s}");
        }
        // The FIFO rows are the baselines, and nothing else differs in queueing.
        let fifo_keys: BTreeSet<Option<&str>> = cells
            .iter()
            .filter(|(s, _, _)| FIFO_SCHEMES.contains(&s.as_str()))
            .map(|(_, q, _)| q.as_deref())
            .collect();
        assert_eq!(fifo_keys, BTreeSet::from([Some("fifo")]));
    }
}
