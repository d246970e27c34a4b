//! The device seam: a toy media model (every request takes a constant time, nothing queues)
//! plugged into the generic simulated device (`SimZonedDevice`) runs the zone file layer and
//! the engine unchanged, and the virtual times are those of the toy model.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::sim::{Completion, Media, MediaKind, SimZonedDevice};
use zonedb_device::{IoClass, Profile, ZoneGeometry, ZoneOp, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

const READ_NS: u64 = 70_000;
const WRITE_NS: u64 = 150_000;
const RESET_NS: u64 = 900_000;
const MGMT_NS: u64 = 5_000;

/// What a request was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Reset,
    Mgmt,
}

impl Kind {
    fn latency(self) -> u64 {
        match self {
            Self::Read => READ_NS,
            Self::Write => WRITE_NS,
            Self::Reset => RESET_NS,
            Self::Mgmt => MGMT_NS,
        }
    }
}

/// Every request takes a constant time from its issue, whatever else is in flight.
#[derive(Debug, Default)]
struct ConstantLatency {
    /// (kind, issued at, completes at) of every request.
    log: Vec<(Kind, u64, u64)>,
}

impl ConstantLatency {
    fn book(&mut self, kind: Kind, now: u64) -> u64 {
        let done = now + kind.latency();
        self.log.push((kind, now, done));
        done
    }
}

impl Media for ConstantLatency {
    fn kind(&self) -> MediaKind {
        MediaKind::Flash
    }

    fn read(&mut self, now: u64, _zone: u32, _off: u64, _len: u64, _c: IoClass) -> Completion {
        Completion::At(self.book(Kind::Read, now))
    }

    fn write(&mut self, now: u64, _zone: u32, _off: u64, _len: u64, _cap: u64) -> Completion {
        Completion::At(self.book(Kind::Write, now))
    }

    fn reset(&mut self, now: u64, _zone: u32, _programmed: u64) -> Completion {
        Completion::At(self.book(Kind::Reset, now))
    }

    fn finish(&mut self, now: u64, _zone: u32, _unwritten: u64, _empty: bool) -> Completion {
        Completion::At(self.book(Kind::Mgmt, now))
    }

    fn manage(&mut self, now: u64) -> u64 {
        self.book(Kind::Mgmt, now)
    }

    fn flush_done_ns(&mut self, now: u64) -> u64 {
        now
    }
}

type Toy = SimZonedDevice<SimEnv, ConstantLatency>;

fn zones() -> ZoneGeometry {
    let mut z = Profile::by_name("tiny").unwrap().zones;
    z.zone_count = 200;
    z.max_open_zones = 8;
    z.max_active_zones = 10;
    z
}

fn key(i: u64) -> Vec<u8> {
    format!("{i:016}").into_bytes()
}

fn value(i: u64) -> Vec<u8> {
    let mut v = format!("{i}:").into_bytes();
    v.resize(64 + (i % 50) as usize, b'v');
    v
}

fn options() -> DbOptions {
    DbOptions {
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        block_size: 1 << 10,
        block_cache_size: 0,
        max_background_jobs: 2,
        ..DbOptions::default()
    }
}

/// Every request the media saw completed exactly its constant latency after its issue.
fn assert_constant_latencies(dev: &Toy) -> usize {
    dev.with_media_ref(|m| {
        for &(kind, at, done) in &m.log {
            assert_eq!(done - at, kind.latency(), "{kind:?} issued at {at}");
        }
        m.log.len()
    })
}

#[test]
fn toy_constant_latency_media_runs_the_engine() {
    let env = SimEnv::new(SimConfig::with_seed(11));
    let g = zones();
    let dev = Arc::new(
        Toy::with_media(
            env.clone(),
            g.clone(),
            ConstantLatency::default(),
            Payload::memory(g.zone_count),
        )
        .unwrap(),
    );
    let e = env.clone();
    let d = dev.clone();
    env.run(async move {
        // The device alone: each request takes the model's latency, to the nanosecond.
        let last = g.zone_count - 1;
        let start = g.zone_start(last);
        let t0 = e.now();
        d.write(start, &[7u8; 4096]).await.unwrap();
        assert_eq!(e.now() - t0, WRITE_NS);
        let t1 = e.now();
        assert_eq!(
            d.read(start, 4096, IoClass::QueryRead).await.unwrap(),
            vec![7u8; 4096]
        );
        assert_eq!(e.now() - t1, READ_NS);
        let t2 = e.now();
        d.manage(last, ZoneOp::Reset).await.unwrap();
        assert_eq!(e.now() - t2, RESET_NS);
        // The toy has no optional command family.
        assert!(d.capabilities().in_device_copy.is_none());
        assert!(d.capabilities().split_zones.is_none());

        // The zone file layer: a file read back costs one read latency per device read.
        ZoneFs::<SimEnv, Toy>::mkfs(d.as_ref(), 0).await.unwrap();
        let fs = ZoneFs::mount(e.clone(), d.clone(), FsOptions::default())
            .await
            .unwrap();
        let mut f = fs.create("toy.dat", Lifetime::Medium).await.unwrap();
        let data: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
        f.append(&data).await.unwrap();
        f.sync().await.unwrap();
        f.close().await.unwrap();
        let reads = d.stats().reads;
        let t3 = e.now();
        assert_eq!(fs.read_all("toy.dat").await.unwrap(), data);
        let device_reads = d.stats().reads - reads;
        assert!(device_reads >= 1);
        assert_eq!(e.now() - t3, device_reads * READ_NS);

        // The engine: enough writes for flushes and compactions, all read back, also after a
        // reopen (cold: no block cache, so gets read the device).
        let db = Db::open(fs.clone(), options()).await.unwrap();
        let n = 3_000;
        for i in 0..n {
            db.put(&key(i * 7919 % n), &value(i * 7919 % n))
                .await
                .unwrap();
        }
        db.flush().await.unwrap();
        db.wait_for_compactions().await.unwrap();
        for i in (0..n).step_by(13) {
            assert_eq!(db.get(&key(i)).await.unwrap(), Some(value(i)));
        }
        assert!(
            db.stats().level_files.iter().skip(1).any(|&c| c > 0),
            "nothing below L0"
        );
        db.close().await.unwrap();
        drop(db);
        drop(fs);
        let fs = ZoneFs::mount(e.clone(), d.clone(), FsOptions::default())
            .await
            .unwrap();
        let db = Db::open(fs, options()).await.unwrap();
        let t4 = e.now();
        let reads = d.stats().reads;
        assert_eq!(db.get(&key(1234)).await.unwrap(), Some(value(1234)));
        let device_reads = d.stats().reads - reads;
        assert!(device_reads >= 1, "a cold get reads the device");
        assert!(e.now() - t4 >= device_reads * READ_NS);
        for i in 0..n {
            assert_eq!(db.get(&key(i)).await.unwrap(), Some(value(i)), "key {i}");
        }
        db.close().await.unwrap();
    })
    .unwrap();
    let requests = assert_constant_latencies(&dev);
    assert!(requests > 100, "only {requests} requests");
    let s = dev.stats();
    assert!(s.reads > 0 && s.writes > 0 && s.zone_resets > 0, "{s:?}");
}
