//! The simulated device's elided writes and reads are its plain writes and reads of the same
//! logical length in everything but the payload: same counters, zone reports, completion
//! instants and power-loss outcome (torn writes included); the holes are not stored, and
//! `read_elided` returns them as holes while `read` returns zeros.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::profile::Profile;
use zonedb_device::{ElidedBytes, Faults, IoClass, SimDevice, SimDeviceSpec, ZnsSsd, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

/// A logical string of `blocks` 4 KiB blocks whose block `i` is a hole when `holes(i)`.
fn string(blocks: u64, seed: u64, holes: impl Fn(u64) -> bool) -> ElidedBytes {
    let mut e = ElidedBytes::new();
    for i in 0..blocks {
        if holes(i) {
            e.push_hole(4000);
            e.push_bytes(&[(seed + i) as u8; 96]);
        } else {
            e.push_bytes(&[(seed + i) as u8; 4096]);
        }
    }
    e
}

/// What a run observed: completion instants, stats, zone reports, and the data read back.
type Trace = (Vec<u64>, String, String, Vec<Vec<u8>>, u64);

/// Writes, reads, power-cycles (torn writes) and reads again; `elided` uses the elided calls.
fn run(elided: bool) -> (Trace, Vec<ElidedBytes>) {
    let env = SimEnv::new(SimConfig::default());
    let p = Profile::by_name("tiny").unwrap();
    let dev =
        Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap());
    dev.set_faults(Faults {
        torn_writes: true,
        seed: 11,
        ..Faults::default()
    });
    let zs = p.zones.zone_size_bytes;
    let e2 = env.clone();
    let d2 = dev.clone();
    let (times, reads, holes) = env
        .run(async move {
            let mut times = Vec::new();
            let mut reads = Vec::new();
            let mut holes = Vec::new();
            let mut at = [0u64, zs];
            for round in 0..6u64 {
                let z = (round % 2) as usize;
                let s = string(3 + round, round, |i| (i + round) % 3 != 0);
                if elided {
                    d2.write_elided(at[z], &s).await.unwrap();
                } else {
                    d2.write(at[z], &s.materialize()).await.unwrap();
                }
                times.push(e2.now());
                at[z] += s.len();
            }
            for (z, &end) in at.iter().enumerate() {
                let start = z as u64 * zs;
                let r = d2
                    .read_elided(start, end - start, IoClass::QueryRead)
                    .await
                    .unwrap();
                times.push(e2.now());
                reads.push(r.materialize());
                holes.push(r);
                reads.push(
                    d2.read(start, end - start, IoClass::BackgroundRead)
                        .await
                        .unwrap(),
                );
                times.push(e2.now());
            }
            // Writes left in flight at a power loss: torn the same way.
            let s = string(20, 99, |i| i % 2 == 0);
            // (Admission happens when the future is created; it is dropped unawaited.)
            if elided {
                drop(d2.write_elided(at[0], &s));
            } else {
                drop(d2.write(at[0], &s.materialize()));
            }
            e2.sleep(1_000).await;
            d2.power_cycle().unwrap();
            let wp = d2.report_zones(0, 1)[0].write_pointer;
            // Torn: part of the lost write survived (a block-aligned prefix, not all of it).
            assert!(wp > at[0] && wp < at[0] + s.len(), "{wp} vs {}", at[0]);
            reads.push(d2.read(0, wp, IoClass::QueryRead).await.unwrap());
            (times, reads, holes)
        })
        .unwrap();
    let stats = serde_json::to_string(&dev.stats()).unwrap();
    let zones = format!("{:?}", dev.report_zones(0, p.zones.zone_count));
    ((times, stats, zones, reads, env.now()), holes)
}

#[test]
fn elided_and_full_writes_are_indistinguishable_but_for_the_payload() {
    let (full, _) = run(false);
    let (elided, holes) = run(true);
    assert_eq!(full, elided);
    // The elided run's reads kept the holes (every third block is stored in full).
    assert!(holes.iter().all(|h| !h.is_dense()));
    assert!(holes.iter().all(|h| h.hole_bytes() > h.data().len() as u64));
}

#[test]
fn elided_payload_holds_only_stored_bytes_through_the_sim_device_enum() {
    let env = SimEnv::new(SimConfig::default());
    let dev = SimDeviceSpec::new("tiny", "1").build(env.clone()).unwrap();
    let dev = Arc::new(dev);
    let d2 = dev.clone();
    let s = string(40, 3, |_| true);
    let s2 = s.clone();
    let back = env
        .run(async move {
            d2.write_elided(0, &s2).await.unwrap();
            d2.read_elided(0, s2.len(), IoClass::QueryRead)
                .await
                .unwrap()
        })
        .unwrap();
    assert_eq!(back, s);
    assert_eq!(dev.memory_payload_bytes(), Some(40 * 96));
    assert_eq!(dev.stats().bytes_written, 40 * 4096);
    let _: &SimDevice<SimEnv> = &dev;
}
