//! A simulation is a pure function of its seed: timers fire in (deadline, sequence) order at
//! their exact deadlines, CPU work contends for the modeled cores, and the seeded same-instant
//! shuffle gives the same order for the same seed.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use zonedb_env::{Env, SimConfig, SimEnv};

fn trace(config: SimConfig, tasks: u64) -> Vec<(u64, u64)> {
    let sim = SimEnv::new(config);
    let log = Arc::new(Mutex::new(Vec::new()));
    let env = sim.clone();
    let log2 = log.clone();
    sim.run(async move {
        let mut hs = Vec::new();
        for i in 0..tasks {
            let (env2, log) = (env.clone(), log2.clone());
            hs.push(env.spawn(&format!("t{i}"), async move {
                // Everyone wakes at the same two instants.
                env2.sleep(100).await;
                log.lock().unwrap().push((env2.now(), i));
                env2.sleep(100).await;
                log.lock().unwrap().push((env2.now(), i));
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
    })
    .unwrap();

    log.lock().unwrap().clone()
}

#[test]
fn equal_deadlines_fire_in_fifo_order_without_shuffle() {
    let t = trace(SimConfig::default(), 8);
    let first: Vec<u64> = t.iter().filter(|e| e.0 == 100).map(|e| e.1).collect();
    assert_eq!(first, (0..8).collect::<Vec<_>>());
}

#[test]
fn shuffle_is_a_function_of_the_seed() {
    let cfg = |seed| SimConfig {
        seed,
        shuffle_same_instant: true,
        ..SimConfig::default()
    };
    assert_eq!(trace(cfg(5), 16), trace(cfg(5), 16));
    let orders: std::collections::BTreeSet<Vec<(u64, u64)>> =
        (0..8).map(|s| trace(cfg(s), 16)).collect();
    assert!(
        orders.len() > 1,
        "different seeds should give different orders"
    );
    // Shuffling never changes when things happen, only the order within an instant.
    for t in &orders {
        assert!(t.iter().all(|e| e.0 == 100 || e.0 == 200));
    }
}

#[test]
fn cpu_work_contends_for_modeled_cores() {
    let sim = SimEnv::new(SimConfig {
        cores: 2,
        ..SimConfig::default()
    });
    let env = sim.clone();
    let ends = sim
        .run(async move {
            let mut hs = Vec::new();
            for i in 0..3 {
                let e = env.clone();
                hs.push(env.spawn(&format!("cpu{i}"), async move {
                    e.cpu(100).await;
                    e.now()
                }));
            }
            let mut ends = Vec::new();
            for h in hs {
                ends.push(h.await.unwrap());
            }
            ends
        })
        .unwrap();
    assert_eq!(ends, vec![100, 100, 200]);
}

#[test]
fn rng_streams_repeat_for_the_same_seed() {
    let a = SimEnv::new(SimConfig::with_seed(11));
    let b = SimEnv::new(SimConfig::with_seed(11));
    let (mut ra, mut rb) = (a.rng(), b.rng());
    assert_eq!(ra.next_u64(), rb.next_u64());
    let mut second = a.rng();
    assert_ne!(second.next_u64(), a.rng().next_u64());
}

proptest! {
    /// Every sleep completes exactly at its deadline, in nondecreasing deadline order.
    #[test]
    fn sleeps_complete_exactly_at_their_deadlines(deadlines in prop::collection::vec(0u64..1_000_000_000_000, 1..64)) {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let log = Arc::new(Mutex::new(Vec::new()));
        let log2 = log.clone();
        let ds = deadlines.clone();
        sim.run(async move {
            let mut hs = Vec::new();
            for (i, d) in ds.into_iter().enumerate() {
                let (e, log) = (env.clone(), log2.clone());
                hs.push(env.spawn(&format!("s{i}"), async move {
                    e.sleep_until(d).await;
                    log.lock().unwrap().push((e.now(), d));
                }));
            }
            for h in hs { h.await.unwrap(); }
        }).unwrap();
        let log = log.lock().unwrap();
        prop_assert_eq!(log.len(), deadlines.len());
        for w in log.windows(2) {
            prop_assert!(w[0].0 <= w[1].0);
        }
        for &(at, d) in log.iter() {
            prop_assert_eq!(at, d);
        }
    }
}
