//! The engine tells the device why it reads: compaction inputs go out as background reads,
//! user gets and scans as query reads. Checked with a media wrapper (the device seam) that
//! counts the classes the flash model is handed.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::flash::FlashMedia;
use zonedb_device::payload::Payload;
use zonedb_device::sim::{Completion, Media, MediaKind, Poll, SimZonedDevice, Ticket};
use zonedb_device::{IoClass, Profile, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::ZoneFs;
use zonedb_harness::conformance::{db_oracle, fs_model};

/// Flash media that counts the reads it is handed by class.
#[derive(Debug)]
struct CountingFlash {
    inner: FlashMedia,
    reads: BTreeMap<IoClass, u64>,
}

impl Media for CountingFlash {
    fn kind(&self) -> MediaKind {
        self.inner.kind()
    }

    fn read(&mut self, now: u64, zone: u32, off: u64, len: u64, class: IoClass) -> Completion {
        *self.reads.entry(class).or_default() += 1;
        self.inner.read(now, zone, off, len, class)
    }

    fn write(&mut self, now: u64, zone: u32, off: u64, len: u64, cap: u64) -> Completion {
        self.inner.write(now, zone, off, len, cap)
    }

    fn reset(&mut self, now: u64, zone: u32, programmed: u64) -> Completion {
        self.inner.reset(now, zone, programmed)
    }

    fn finish(&mut self, now: u64, zone: u32, unwritten: u64, empty: bool) -> Completion {
        self.inner.finish(now, zone, unwritten, empty)
    }

    fn manage(&mut self, now: u64) -> u64 {
        self.inner.manage(now)
    }

    fn flush_done_ns(&mut self, now: u64) -> u64 {
        self.inner.flush_done_ns(now)
    }

    fn poll(&mut self, ticket: Ticket, now: u64) -> Poll {
        self.inner.poll(ticket, now)
    }
}

#[test]
fn compaction_reads_go_out_as_background_reads() {
    let env = SimEnv::new(SimConfig::with_seed(4));
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 400;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    let media = CountingFlash {
        inner: FlashMedia::new(p.clone()).unwrap(),
        reads: BTreeMap::new(),
    };
    let dev = Arc::new(
        SimZonedDevice::with_media(env.clone(), p.zones.clone(), media, Payload::memory(400))
            .unwrap(),
    );
    let (e, d) = (env.clone(), dev.clone());
    let stats = env
        .run(async move {
            ZoneFs::<SimEnv, SimZonedDevice<SimEnv, CountingFlash>>::mkfs(d.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(e.clone(), d.clone(), fs_model::options())
                .await
                .unwrap();
            db_oracle::run_and_reopen(fs, 4, 20_000).await
        })
        .unwrap()
        .unwrap_or_else(|f| panic!("{f}"));
    assert!(stats.compactions > 0, "no compaction ran");
    let reads = dev.with_media_ref(|m| m.reads.clone());
    let count = |c| reads.get(&c).copied().unwrap_or(0);
    assert!(count(IoClass::BackgroundRead) > 0, "{reads:?}");
    assert!(count(IoClass::QueryRead) > 0, "{reads:?}");
    assert_eq!(
        count(IoClass::BackgroundRead) + count(IoClass::QueryRead),
        dev.stats().reads,
        "{reads:?}"
    );
}
