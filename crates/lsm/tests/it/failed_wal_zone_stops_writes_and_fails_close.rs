//! A WAL whose zone goes read-only under it: the switch to a new WAL (a flush) fails, every
//! later write is refused (no write is ever acknowledged without a WAL), the store stays
//! readable, and `close` reports the failure (acknowledged, unsynced writes in the WAL's buffer
//! were lost, so the close is not clean). Torture seed 8 found the bug: a failed WAL switch left
//! the engine writing with no WAL at all, and a later close returned `Ok`, losing acknowledged
//! writes silently (`torture_regressions.rs` replays it).
//! Also: a device whose open zone limit leaves the engine too few zones is refused at open with
//! a typed error (before: the first flush waited forever for a zone token).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZoneState, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::{Db, LsmErrorKind};

/// `e` and every error under it.
fn source_chain<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |e| e.source())
}

#[test]
fn a_failed_wal_zone_stops_writes_and_close_reports_it() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 48);
    let (e2, d2) = (env.clone(), dev.clone());
    env.run(async move {
        let fs = common::mount(&e2, &d2, true).await;
        let db = Db::open(fs, common::small_options()).await.unwrap();
        let mut acked = Vec::new();
        // Some acknowledged, unsynced writes sit in the WAL's buffer.
        for i in 0..40u64 {
            db.put(&common::key(i), &common::value(i, 0)).await.unwrap();
            acked.push(i);
        }
        // Every zone holding data goes read-only (the WAL's among them).
        for z in d2.report_zones(0, d2.geometry().zone_count) {
            if z.index >= zonedb_fs::META_ZONES
                && matches!(
                    z.state,
                    ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen | ZoneState::Closed
                )
            {
                d2.fail_zone(z.index, false).unwrap();
            }
        }
        // A flush switches the WAL: closing the old one writes its buffer, which fails.
        let failed = db.flush().await.unwrap_err();
        assert_eq!(failed.kind(), LsmErrorKind::Io, "{failed}");
        // From now on every write is refused, even ones that would fit in a buffer.
        for i in 0..20u64 {
            let e = db.put(&common::key(10_000 + i), b"x").await.unwrap_err();
            assert_eq!(e.kind(), LsmErrorKind::Io, "{e}");
        }
        assert!(db.background_error().is_some());
        // The refusal carries the failure itself, down to the device's error, as its source.
        let e = db.put(b"one more", b"x").await.unwrap_err();
        let device = source_chain(&e)
            .find_map(|s| s.downcast_ref::<zonedb_device::DeviceError>())
            .unwrap_or_else(|| panic!("no device error under {e}"));
        assert!(
            matches!(device, zonedb_device::DeviceError::ZoneReadOnly { .. }),
            "{device}"
        );
        // Reads still work and see the acknowledged state.
        for &i in acked.iter().step_by(7) {
            assert!(db.get(&common::key(i)).await.unwrap().is_some(), "key {i}");
        }
        let closed = db.close().await;
        assert!(
            closed.is_err(),
            "close after a WAL failure must not report a clean close"
        );
    })
    .unwrap();
}

#[test]
fn a_device_with_too_few_open_zones_is_refused_at_open() {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 5;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    let dev = Arc::new(ZnsSsd::new(env.clone(), p, Payload::memory(32)).unwrap());
    let e2 = env.clone();
    let err = env
        .run(async move {
            let fs = common::mount(&e2, &dev, true).await;
            Db::open(fs, common::small_options()).await.err()
        })
        .unwrap()
        .expect("five open zones leave the engine three: too few");
    assert_eq!(err.kind(), LsmErrorKind::InvalidArgument, "{err}");
    let msg = err.to_string();
    assert!(msg.contains("open zones") && msg.contains(">= 6"), "{msg}");
}
