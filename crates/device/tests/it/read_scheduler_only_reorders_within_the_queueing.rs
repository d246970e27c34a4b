//! SplitZNS's Read Scheduler adds one thing, query reads first, within whatever queueing
//! discipline the device runs (`fifo` or `per-die`): with it on, the discipline is the same,
//! the same die work is done (busy time per die, page operations), and the query reads of a
//! contended burst complete earlier. On per-die queues that is all: a burst without query
//! reads runs to the nanosecond as without it.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::{Queueing, Scheduler};
use zonedb_device::splitzns::SplitZnsConfig;
use zonedb_device::{IoClass, SimDevice, SimDeviceSpec, SubzoneId, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

const KIB: u64 = 1 << 10;

fn spec(queueing: Queueing, read_scheduler: bool) -> SimDeviceSpec {
    // No ring and no prefetcher: their DRAM hits depend on timing, so they could change the
    // work itself.
    let c = SplitZnsConfig {
        read_scheduler,
        ..SplitZnsConfig::native()
    };
    SimDeviceSpec::new("tiny", "1")
        .queueing(Some(queueing))
        .splitzns(Some(c))
}

/// What a burst cost: each query read's and each other request's latency (ns, in spawn
/// order), busy time per die, page operations and block erases.
#[derive(Debug, PartialEq)]
struct Burst {
    queries: Vec<u64>,
    others: Vec<u64>,
    die_busy_ns: Vec<u64>,
    page_ops: u64,
    block_erases: u64,
}

/// Subzones 0 and 1 of split zone 0 and wide zones 1 and 2 filled; then at one instant, from
/// separate tasks in this order: a compaction reading subzone 0 from its start, background
/// reads of wide zone 1, a wide write and subzone appends, and (`queries`) query reads of both
/// subzones and of wide zone 2 (every `tiny` zone starts on die 0, so they contend).
fn burst(queueing: Queueing, read_scheduler: bool, queries: bool) -> Burst {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let dev = Arc::new(spec(queueing, read_scheduler).build(env.clone()).unwrap());
    let e = env.clone();
    let d = dev.clone();
    let (queries, others) = env
        .run(async move {
            let g = d.geometry().clone();
            crate::common::split(&*d).split_zone(0, 4).await.unwrap();
            for i in 0..2u32 {
                let id = SubzoneId { zone: 0, index: i };
                for _ in 0..6 {
                    crate::common::split(&*d)
                        .append_subzone(id, &[i as u8 + 1; 8192])
                        .await
                        .unwrap();
                }
            }
            for zone in 1..3 {
                d.write(g.zone_start(zone), &[zone as u8 + 10; 64 * 1024])
                    .await
                    .unwrap();
            }
            let s = crate::common::split(&*d).report_subzones(0).unwrap();
            let (s0, s1) = (s[0].start, s[1].start);
            e.sleep(1_000_000).await;
            let start = e.now();
            let mut others = Vec::new();
            let read = |off: u64, len: u64, class: IoClass, byte: u8| {
                let (d2, e2) = (d.clone(), e.clone());
                e.spawn("read", async move {
                    let got = d2.read(off, len, class).await.unwrap();
                    assert!(got.iter().all(|&b| b == byte), "read at {off}");
                    e2.now() - start
                })
            };
            for k in 0..6 {
                others.push(read(s0 + k * 8 * KIB, 8 * KIB, IoClass::BackgroundRead, 1));
            }
            for k in 0..4 {
                let off = g.zone_start(1) + k * 16 * KIB;
                others.push(read(off, 8 * KIB, IoClass::BackgroundRead, 11));
            }
            let (d2, e2, z3) = (d.clone(), e.clone(), g.zone_start(3));
            others.push(e.spawn("wide write", async move {
                d2.write(z3, &[7u8; 16 * 1024]).await.unwrap();
                e2.now() - start
            }));
            let (d2, e2) = (d.clone(), e.clone());
            others.push(e.spawn("subzone append", async move {
                let id = SubzoneId { zone: 0, index: 2 };
                crate::common::split(&*d2)
                    .append_subzone(id, &[8u8; 16 * 1024])
                    .await
                    .unwrap();
                e2.now() - start
            }));
            let query_reads = if queries {
                vec![
                    read(s0 + 40 * KIB, 4 * KIB, IoClass::QueryRead, 1),
                    read(s1 + 8 * KIB, 4 * KIB, IoClass::QueryRead, 2),
                    read(g.zone_start(2) + 32 * KIB, 4 * KIB, IoClass::QueryRead, 12),
                    read(s0 + 20 * KIB, 4 * KIB, IoClass::QueryRead, 1),
                ]
            } else {
                Vec::new()
            };
            let mut q = Vec::new();
            for t in query_reads {
                q.push(t.await.unwrap());
            }
            let mut o = Vec::new();
            for t in others {
                o.push(t.await.unwrap());
            }
            (q, o)
        })
        .unwrap();
    let SimDevice::SplitZns(split) = &*dev else {
        panic!("a SplitZNS device");
    };
    let st = dev.stats();
    Burst {
        queries,
        others,
        die_busy_ns: split.with_media_ref(|m| m.engine().die_busy_ns()),
        page_ops: st.page_ops,
        block_erases: st.block_erases,
    }
}

#[test]
fn the_read_scheduler_keeps_the_queueing_discipline() {
    for q in [Queueing::Fifo, Queueing::PerDie] {
        let off = spec(q, false).scheduler_in_force().unwrap();
        let on = spec(q, true).scheduler_in_force().unwrap();
        assert_eq!((off.queueing(), on.queueing()), (q, q));
        assert_eq!(on, off.query_first());
        let built = on.queueing();
        assert_eq!(built, q);
    }
    assert_eq!(
        spec(Queueing::Fifo, true).scheduler_in_force().unwrap(),
        Scheduler::FifoQueryFirst
    );
    assert_eq!(
        spec(Queueing::PerDie, true).scheduler_in_force().unwrap(),
        Scheduler::QueryFirst
    );
    // The device built runs the scheduler the spec says.
    let env = SimEnv::new(SimConfig::with_seed(1));
    for q in [Queueing::Fifo, Queueing::PerDie] {
        for rs in [false, true] {
            let s = spec(q, rs);
            let SimDevice::SplitZns(d) = s.build(env.clone()).unwrap() else {
                panic!("a SplitZNS device");
            };
            let running = d.with_media_ref(|m| m.engine().scheduler());
            assert_eq!(running, s.scheduler_in_force().unwrap(), "{q:?} {rs}");
        }
    }
}

#[test]
fn the_read_scheduler_only_reorders_query_reads_first() {
    for q in [Queueing::Fifo, Queueing::PerDie] {
        let off = burst(q, false, true);
        let on = burst(q, true, true);
        // The same work on every die, the same page operations and erases.
        assert_eq!(off.die_busy_ns, on.die_busy_ns, "{q:?}");
        assert_eq!(
            (off.page_ops, off.block_erases),
            (on.page_ops, on.block_erases),
            "{q:?}"
        );
        assert!(off.die_busy_ns.iter().sum::<u64>() > 0);
        // Every query read completes no later, and together they complete earlier.
        for (a, b) in off.queries.iter().zip(&on.queries) {
            assert!(
                b <= a,
                "{q:?}: query {b} ns with the Read Scheduler, {a} ns without"
            );
        }
        let (a, b) = (
            off.queries.iter().sum::<u64>(),
            on.queries.iter().sum::<u64>(),
        );
        assert!(b < a, "{q:?}: queries {on:?} vs {off:?}");
        assert_eq!(off.others.len(), on.others.len());
    }
}

#[test]
fn on_per_die_queues_the_read_scheduler_changes_nothing_without_queries() {
    let (off, on) = (
        burst(Queueing::PerDie, false, false),
        burst(Queueing::PerDie, true, false),
    );
    assert!(off.queries.is_empty() && off.others.len() == 12);
    assert_eq!(off, on);
    // On FIFO queueing the same work is done, though not at the same times (see
    // `Scheduler::FifoQueryFirst`).
    let (off, on) = (
        burst(Queueing::Fifo, false, false),
        burst(Queueing::Fifo, true, false),
    );
    assert_eq!(off.die_busy_ns, on.die_busy_ns);
}

#[test]
fn a_burst_repeats_to_the_nanosecond() {
    for q in [Queueing::Fifo, Queueing::PerDie] {
        assert_eq!(burst(q, true, true), burst(q, true, true));
    }
}
