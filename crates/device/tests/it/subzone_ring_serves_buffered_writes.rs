//! The SubZone Ring on the simulated SplitZNS device (`tiny`: 4 chips, 8 KiB program units,
//! 48 KiB subzones): reads of data still in the ring return the right bytes, the actual write
//! pointer moves only when a flush round has programmed a unit, writes over several chips run
//! at once, a power loss keeps every acknowledged write (the ring is power-loss protected) and
//! loses only the one still waiting for its flush round.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::splitzns::SplitZnsConfig;
use zonedb_device::{IoClass, SimDevice, SimDeviceSpec, SubzoneId, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

const KIB: u64 = 1 << 10;

fn config(ring: bool, ring_bytes: u64) -> SplitZnsConfig {
    SplitZnsConfig {
        ring,
        ring_bytes: Some(ring_bytes),
        ..SplitZnsConfig::native()
    }
}

fn device(env: &SimEnv, c: SplitZnsConfig) -> Arc<SimDevice<SimEnv>> {
    let spec = SimDeviceSpec::new("tiny", "1").splitzns(Some(c));
    Arc::new(spec.build(env.clone()).unwrap())
}

fn pattern(seed: u8, len: u64) -> Vec<u8> {
    (0..len).map(|i| seed ^ (i / 4096) as u8).collect()
}

#[test]
fn reads_of_buffered_data_return_the_written_bytes() {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let d = device(&env, config(true, 64 * KIB));
    env.run(async move {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let s0 = crate::common::split(&*d).report_subzones(0).unwrap()[0].start;
        let data = pattern(3, 40 * KIB);
        d.write(s0, &data).await.unwrap();
        let info = crate::common::split(&*d).report_subzones(0).unwrap()[0];
        // 5 units, ring of 8: nothing flushed yet.
        assert_eq!(info.write_pointer, s0 + 40 * KIB);
        assert_eq!(info.flushed_pointer, s0);
        for (off, len) in [(0, 40 * KIB), (12 * KIB, 4 * KIB), (36 * KIB, 4 * KIB)] {
            let got = d.read(s0 + off, len, IoClass::QueryRead).await.unwrap();
            assert_eq!(got, data[off as usize..(off + len) as usize]);
        }
        assert_eq!(d.split_stats().unwrap().ring_reads, 3);
        // Subzone 1 overflows the ring: flush rounds program the oldest units of each chip.
        let s1 = crate::common::split(&*d).report_subzones(0).unwrap()[1].start;
        let more = pattern(9, 48 * KIB);
        d.write(s1, &more).await.unwrap();
        let st = d.split_stats().unwrap();
        assert!(st.ring_flush_rounds >= 1, "{st:?}");
        assert!(st.ring_bytes <= 64 * KIB + 4 * 8 * KIB, "{st:?}");
        let subs = crate::common::split(&*d).report_subzones(0).unwrap();
        assert!(subs[0].flushed_pointer > s0, "{subs:?}");
        assert_eq!(subs[0].flushed_pointer % (8 * KIB), 0);
        // Whatever sits where, every byte reads back.
        let got = d.read(s0, 40 * KIB, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, data);
        let got = d.read(s1, 48 * KIB, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, more);
        // Finishing pads the last partial unit and lets it flush; merging drops the rest.
        crate::common::split(&*d)
            .finish_subzone(SubzoneId { zone: 0, index: 0 })
            .await
            .unwrap();
        crate::common::split(&*d)
            .merge_subzone(SubzoneId { zone: 0, index: 1 })
            .await
            .unwrap();
        let got = d.read(s0, 40 * KIB, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, data);
    })
    .unwrap();
}

/// Writes 48 KiB to each of the four subzones of a split zone from four tasks at once;
/// returns when the last completes (ns) and the flush rounds.
fn four_subzones(ring: bool) -> (u64, u64) {
    let env = SimEnv::new(SimConfig::with_seed(2));
    let d = device(&env, config(ring, 64 * KIB));
    let e = env.clone();
    env.run(async move {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let start = e.now();
        let mut tasks = Vec::new();
        for i in 0..4u32 {
            let d2 = d.clone();
            tasks.push(e.spawn("writer", async move {
                let id = SubzoneId { zone: 0, index: i };
                for k in 0..6u8 {
                    crate::common::split(&*d2)
                        .append_subzone(id, &[k; 8192])
                        .await
                        .unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let rounds = d.split_stats().unwrap().ring_flush_rounds;
        (e.now() - start, rounds)
    })
    .unwrap()
}

#[test]
fn the_ring_acknowledges_subzone_writes_before_their_programs() {
    let (native, _) = four_subzones(false);
    let (ring, rounds) = four_subzones(true);
    // Natively each of the 6 units of a subzone waits for its chip's program (100 us each).
    assert!(native >= 6 * 100_000, "native {native} ns");
    assert!(ring < native, "ring {ring} ns vs native {native} ns");
    assert!(rounds >= 1);
}

#[test]
fn a_power_loss_keeps_acknowledged_writes_and_loses_the_waiting_one() {
    let env = SimEnv::new(SimConfig::with_seed(3));
    let d = device(&env, config(true, 32 * KIB));
    let e = env.clone();
    let dev = d.clone();
    env.run(async move {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let id = SubzoneId { zone: 0, index: 0 };
        let s0 = crate::common::split(&*d).report_subzones(0).unwrap()[0].start;
        let acked = pattern(5, 32 * KIB);
        d.write(s0, &acked).await.unwrap();
        assert_eq!(
            crate::common::split(&*d).report_subzones(0).unwrap()[0].flushed_pointer,
            s0
        );
        // The ring is full: this write issues a flush round and waits for it.
        let d2 = d.clone();
        let w = e.spawn("waiting write", async move {
            crate::common::split(&*d2)
                .append_subzone(id, &[7; 8192])
                .await
        });
        e.sleep(1_000).await;
        d.power_cycle().unwrap();
        drop(w);
    })
    .unwrap();
    env.kill_all_tasks();
    let d = dev;
    env.run(async move {
        let s = crate::common::split(&*d).report_subzones(0).unwrap()[0];
        assert_eq!(s.write_pointer - s.start, 32 * KIB, "{s:?}");
        let got = d.read(s.start, 32 * KIB, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, pattern(5, 32 * KIB));
        // The device keeps going: the lost write can be written again.
        d.write(s.write_pointer, &[8; 8192]).await.unwrap();
        let got = d
            .read(s.write_pointer, 8192, IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got.iter().all(|&b| b == 8));
    })
    .unwrap();
}
