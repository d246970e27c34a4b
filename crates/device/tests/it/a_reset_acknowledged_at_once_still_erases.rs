//! `reset_ack = "at-once"` (FEMU's timing of a zone reset): a reset or a SplitZNS MERGE
//! completes after the controller's command cost, its erases still booked on the dies, so a
//! write there right after it waits for them, and it erases the same blocks. The default
//! (`after-erase`) waits for the erases. Both on FIFO booking and on per-die queues.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::{ResetAck, Scheduler};
use zonedb_device::sim::spec::SimPayload;
use zonedb_device::splitzns::SplitZnsConfig;
use zonedb_device::{SimDeviceSpec, SubzoneId, ZoneOp, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

const MIB: u64 = 1 << 20;
const ERASE_NS: u64 = 3_000_000;

/// On a one-chip zone of `splitzns-paper`, the time a reset of 97 MiB took, the time a 1 MiB
/// write to the zone right after it took, and the block erases.
fn reset_then_write(ack: ResetAck, scheduler: Scheduler) -> (u64, u64, u64) {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let spec = SimDeviceSpec::new("splitzns-paper", "1")
        .chips_per_zone(Some(1))
        .scheduler(Some(scheduler))
        .reset_ack(Some(ack))
        .payload(SimPayload::Discard);
    let dev = Arc::new(spec.build(env.clone()).unwrap());
    let e = env.clone();
    env.run(async move {
        let chunk = vec![0u8; MIB as usize];
        for i in 0..97u64 {
            dev.write(i * MIB, &chunk).await.unwrap();
        }
        let t0 = e.now();
        dev.manage(0, ZoneOp::Reset).await.unwrap();
        let t1 = e.now();
        dev.write(0, &chunk).await.unwrap();
        let t2 = e.now();
        (t1 - t0, t2 - t1, dev.stats().block_erases)
    })
    .unwrap()
}

#[test]
fn a_reset_acknowledged_at_once_leaves_its_erases_on_the_die() {
    for scheduler in [Scheduler::Fifo, Scheduler::QueryFirst] {
        let (reset, write, erases) = reset_then_write(ResetAck::AfterErase, scheduler);
        // 97 MiB on one chip = 4 rows: 4 multi-plane erases of 3 ms, one after another.
        assert_eq!(reset, 4 * ERASE_NS, "{scheduler:?}");
        let (reset_now, write_after, erases_now) = reset_then_write(ResetAck::AtOnce, scheduler);
        assert_eq!(reset_now, 0, "{scheduler:?}");
        // The write waits for the erases still on the chip, then programs as before.
        assert!(
            write_after >= 4 * ERASE_NS + write / 2 && write_after <= 4 * ERASE_NS + write,
            "{scheduler:?}: write {write_after} ns after an at-once reset, {write} ns after \
             an acknowledged erase"
        );
        assert_eq!(erases_now, erases, "{scheduler:?}");
    }
}

/// On `tiny` split (4 chips, 48 KiB subzones), the time a MERGE of a full subzone took and
/// the time the next write to the chip it erased took (after one small write to each other
/// chip).
fn merge_then_write(ack: ResetAck) -> (u64, u64, u64) {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let spec = SimDeviceSpec::new("tiny", "1")
        .splitzns(Some(SplitZnsConfig::native()))
        .reset_ack(Some(ack));
    let dev = Arc::new(spec.build(env.clone()).unwrap());
    let e = env.clone();
    env.run(async move {
        let sub = SubzoneId { zone: 0, index: 0 };
        crate::common::split(&*dev).split_zone(0, 4).await.unwrap();
        crate::common::split(&*dev)
            .append_subzone(sub, &[7; 32 * 1024])
            .await
            .unwrap();
        crate::common::split(&*dev)
            .append_subzone(sub, &[7; 16 * 1024])
            .await
            .unwrap();
        let chip = crate::common::split(&*dev).report_subzones(0).unwrap()[0].chip;
        let t0 = e.now();
        crate::common::split(&*dev)
            .merge_subzone(sub)
            .await
            .unwrap();
        let t1 = e.now();
        // The chip allocator goes round: the other three subzones take the other three
        // chips, so subzone 0's next first write lands on the chip just erased.
        for index in 1..4 {
            let other = SubzoneId { zone: 0, index };
            crate::common::split(&*dev)
                .append_subzone(other, &[1; 4096])
                .await
                .unwrap();
        }
        let t2 = e.now();
        crate::common::split(&*dev)
            .append_subzone(sub, &[8; 8192])
            .await
            .unwrap();
        let t3 = e.now();
        assert_eq!(
            crate::common::split(&*dev).report_subzones(0).unwrap()[0].chip,
            chip
        );
        let start = crate::common::split(&*dev).report_subzones(0).unwrap()[0].start;
        let back = dev
            .read(start, 8192, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap();
        assert!(back.iter().all(|&b| b == 8));
        (t1 - t0, t3 - t2, dev.stats().block_erases)
    })
    .unwrap()
}

#[test]
fn a_merge_acknowledged_at_once_leaves_its_erases_on_the_chip() {
    let (merge, write, erases) = merge_then_write(ResetAck::AfterErase);
    assert!(merge > 0, "merge {merge} ns");
    let (merge_now, write_after, erases_now) = merge_then_write(ResetAck::AtOnce);
    assert!(
        merge_now < merge,
        "merge at once {merge_now} ns vs {merge} ns"
    );
    assert!(
        write_after > write,
        "write {write_after} ns after an at-once merge, {write} ns after an acknowledged one"
    );
    assert_eq!(erases_now, erases);
}

#[test]
fn reset_ack_names_parse_and_unknown_ones_are_config_errors() {
    assert_eq!(ResetAck::by_name("at-once").unwrap(), ResetAck::AtOnce);
    assert_eq!(
        ResetAck::by_name("after-erase").unwrap(),
        ResetAck::AfterErase
    );
    assert!(matches!(
        ResetAck::by_name("never"),
        Err(zonedb_device::DeviceError::InvalidConfig(_))
    ));
    // A disk has no erase to acknowledge.
    let e = SimDeviceSpec::new("st14000nm0007", "1/1024")
        .reset_ack(Some(ResetAck::AtOnce))
        .disk_profile()
        .unwrap_err();
    assert!(e.to_string().contains("reset_ack"), "{e}");
}
