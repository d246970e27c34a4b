//! The per-die priority scheduler on the simulated SSD, in virtual time: a query read issued
//! behind background reads and programs on the same die completes earlier than under FIFO,
//! everything still completes with the right data, runs repeat to the nanosecond, and a power
//! loss while work is queued loses only writes not yet complete.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::Scheduler;
use zonedb_device::sim::spec::SimPayload;
use zonedb_device::{IoClass, SimDevice, SimDeviceSpec, ZoneState, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

const KIB: u64 = 1 << 10;

fn device(env: &SimEnv, s: Scheduler) -> Arc<SimDevice<SimEnv>> {
    let spec = SimDeviceSpec::new("tiny", "1")
        .zone_limits(Some(8), Some(10))
        .scheduler(Some(s))
        .payload(SimPayload::Memory);
    Arc::new(spec.build(env.clone()).unwrap())
}

/// Fills the first 64 KiB of zones 0..4, then at one instant issues (from separate tasks, in
/// this order) 6 background reads, 2 writes and a query read, all starting on die 0 (every
/// `tiny` zone starts there). Returns each one's completion time, the query's last.
fn contended(s: Scheduler, seed: u64) -> Vec<u64> {
    let env = SimEnv::new(SimConfig::with_seed(seed));
    let dev = device(&env, s);
    let e = env.clone();
    env.run(async move {
        let g = dev.geometry().clone();
        for zone in 0..4 {
            let data = vec![zone as u8 + 1; 64 * KIB as usize];
            dev.write(g.zone_start(zone), &data).await.unwrap();
        }
        let start = e.now();
        let mut tasks = Vec::new();
        for i in 0..6u32 {
            let (d, e2, zone) = (dev.clone(), e.clone(), i % 4);
            let off = g.zone_start(zone) + u64::from(i / 4) * 32 * KIB;
            tasks.push(e.spawn("background read", async move {
                let got = d.read(off, 8 * KIB, IoClass::BackgroundRead).await.unwrap();
                assert!(got.iter().all(|&b| b == zone as u8 + 1));
                e2.now()
            }));
        }
        for zone in 4..6 {
            let (d, e2, off) = (dev.clone(), e.clone(), g.zone_start(zone));
            tasks.push(e.spawn("write", async move {
                d.write(off, &[9u8; 8 * KIB as usize]).await.unwrap();
                e2.now()
            }));
        }
        let (d, e2, off) = (dev.clone(), e.clone(), g.zone_start(3));
        tasks.push(e.spawn("query read", async move {
            let got = d.read(off, 4 * KIB, IoClass::QueryRead).await.unwrap();
            assert!(got.iter().all(|&b| b == 4));
            e2.now()
        }));
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap() - start);
        }
        // The writes landed.
        for zone in 4..6 {
            let got = dev
                .read(g.zone_start(zone), 8 * KIB, IoClass::QueryRead)
                .await
                .unwrap();
            assert!(got.iter().all(|&b| b == 9));
        }
        out
    })
    .unwrap()
}

#[test]
fn query_read_completes_earlier_under_the_priority_scheduler() {
    let fifo = contended(Scheduler::Fifo, 1);
    let prio = contended(Scheduler::Priority, 1);
    let (qf, qp) = (fifo[8], prio[8]);
    assert!(
        qp < qf,
        "query: priority {qp} ns, fifo {qf} ns ({prio:?} vs {fifo:?})"
    );
    // Under FIFO the query waits for every operation queued before it on die 0: 6 reads and
    // 2 programs (20 us and 100 us on `tiny`).
    assert!(qf >= 6 * 20_000 + 2 * 100_000, "{fifo:?}");
    // Under priority it waits at most for the operation running when it arrives.
    assert!(qp <= 100_000 + 20_000 + 4_000, "{prio:?}");
    // Background work is served after the query, not dropped.
    assert!(
        prio[..6].iter().filter(|&&t| t > qp).count() >= 4,
        "{prio:?}"
    );
}

#[test]
fn priority_scheduler_runs_repeat_to_the_nanosecond() {
    assert_eq!(
        contended(Scheduler::Priority, 5),
        contended(Scheduler::Priority, 5)
    );
    assert_eq!(contended(Scheduler::Fifo, 5), contended(Scheduler::Fifo, 5));
}

#[test]
fn power_loss_with_queued_programs_loses_only_incomplete_writes() {
    let env = SimEnv::new(SimConfig::with_seed(3));
    let dev = device(&env, Scheduler::Priority);
    let (e, d) = (env.clone(), dev.clone());
    env.run(async move {
        let g = d.geometry().clone();
        d.write(g.zone_start(0), &[1u8; 16 * KIB as usize])
            .await
            .unwrap();
        // Queue two writes and a pile of reads on die 0, then lose power before they finish.
        let (d2, z1) = (d.clone(), g.zone_start(1));
        let w = e.spawn("write", async move {
            d2.write(z1, &[2u8; 8 * KIB as usize]).await
        });
        for _ in 0..8 {
            let (d3, z0) = (d.clone(), g.zone_start(0));
            drop(e.spawn("read", async move {
                d3.read(z0, 8 * KIB, IoClass::BackgroundRead).await
            }));
        }
        e.sleep(1_000).await;
        d.power_cycle().unwrap();
        drop(w);
    })
    .unwrap();
    env.kill_all_tasks();
    let zones = dev.report_zones(0, 2);
    assert_eq!(zones[0].write_pointer - zones[0].start, 16 * KIB);
    assert_eq!(zones[1].state, ZoneState::Empty, "{:?}", zones[1]);
    // The device keeps working after the loss.
    let d = dev.clone();
    env.run(async move {
        let g = d.geometry().clone();
        d.write(g.zone_start(1), &[3u8; 8 * KIB as usize])
            .await
            .unwrap();
        let got = d
            .read(g.zone_start(1), 8 * KIB, IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got.iter().all(|&b| b == 3));
    })
    .unwrap();
}

#[test]
fn a_queued_write_whose_waiter_is_gone_still_completes_before_a_later_power_loss() {
    let env = SimEnv::new(SimConfig::with_seed(8));
    let dev = device(&env, Scheduler::Priority);
    let (e, d) = (env.clone(), dev.clone());
    env.run(async move {
        let g = d.geometry().clone();
        // Admitted when the future is made; nobody ever waits for it.
        drop(d.write(g.zone_start(2), &[5u8; 16 * KIB as usize]));
        e.sleep(10_000_000).await;
        d.power_cycle().unwrap();
        let got = d
            .read(g.zone_start(2), 16 * KIB, IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got.iter().all(|&b| b == 5));
    })
    .unwrap();
}
