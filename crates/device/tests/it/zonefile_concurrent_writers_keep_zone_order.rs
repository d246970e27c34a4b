//! Threads sharing one zone file device: appends to one zone get distinct offsets and their
//! bytes land exactly there; writers of different zones do not disturb each other; everything
//! survives a reopen.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use zonedb_device::zone::{ZoneGeometry, ZoneState};
use zonedb_device::{IoClass, ZoneFileDevice, ZonedDevice};

const BS: u64 = 4096;
const CAP: u64 = 256 * BS;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 8,
        zone_size_bytes: CAP,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 8,
        max_active_zones: 8,
        zone_append_max_bytes: 4 * BS,
    }
}

/// A block tagged with its writer and sequence number.
fn block(writer: u8, seq: u8) -> Vec<u8> {
    let mut b = vec![writer; BS as usize];
    b[1] = seq;
    b
}

#[test]
fn concurrent_appends_and_writes_land_where_acknowledged() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = ZoneFileDevice::create(tmp.path(), geometry()).unwrap();
    dev.set_checking(true);
    let appended: Vec<Vec<(u64, u8)>> = std::thread::scope(|s| {
        // Four threads write their own zones (1..=4) at the write pointer.
        for w in 1..=4u8 {
            let dev = &dev;
            s.spawn(move || {
                let zone = u32::from(w);
                for seq in 0..64u8 {
                    let at = u64::from(zone) * CAP + u64::from(seq) * BS;
                    block_on(dev.write(at, &block(w, seq))).unwrap();
                }
            });
        }
        // Four threads append to zone 0 concurrently.
        let appenders: Vec<_> = (10..14u8)
            .map(|w| {
                let dev = &dev;
                s.spawn(move || {
                    (0..60u8)
                        .map(|seq| (block_on(dev.append(0, &block(w, seq))).unwrap(), seq))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        appenders.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let check = |dev: &ZoneFileDevice| {
        let mut offsets: Vec<u64> = appended.iter().flatten().map(|&(o, _)| o).collect();
        offsets.sort_unstable();
        offsets.dedup();
        assert_eq!(offsets.len(), 240, "append offsets must be distinct");
        for (i, w) in (10..14u8).enumerate() {
            let mut last = None;
            for &(at, seq) in &appended[i] {
                assert!(last < Some(at), "one thread's appends land in issue order");
                last = Some(at);
                assert_eq!(
                    block_on(dev.read(at, BS, IoClass::QueryRead)).unwrap(),
                    block(w, seq)
                );
            }
        }
        for w in 1..=4u8 {
            let zone = u32::from(w);
            let data =
                block_on(dev.read(u64::from(zone) * CAP, 64 * BS, IoClass::QueryRead)).unwrap();
            for seq in 0..64u8 {
                let at = usize::from(seq) * BS as usize;
                assert_eq!(data[at..at + BS as usize], block(w, seq)[..]);
            }
        }
        let z0 = dev.report_zones(0, 1)[0];
        assert_eq!(z0.write_pointer, 240 * BS);
    };
    check(&dev);
    assert_eq!(dev.stats().writes, 4 * 64 + 240);
    drop(dev);
    let dev = ZoneFileDevice::open(tmp.path()).unwrap();
    check(&dev);
    assert!(
        dev.report_zones(0, 8)
            .iter()
            .all(|z| z.state != ZoneState::ImplicitlyOpen)
    );
}
