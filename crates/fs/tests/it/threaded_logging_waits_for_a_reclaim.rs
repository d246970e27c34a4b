//! ZNS+'s hybrid recycling replaces cleaning: threaded logging is weighed against the
//! cleaner's victim only when a reclaim is due. Between the greedy cleaner's trigger (below
//! 20% free) and 25% free, with empty zones and full zones half garbage, SST writers take
//! empty zones (no zone is opened for threaded logging: the TL candidate is never compared
//! with itself); once the free space falls below the trigger, the next SST writer gets the
//! half-garbage zone the cleaner would have cleaned, opened for threaded logging. Every file
//! reads back and fsck is clean.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::ZnsPlusConfig;
use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneCopy, ZoneFs};

type Fs = Arc<ZoneFs<SimEnv, ZnsSsd<SimEnv>>>;

fn contents(name: &str, len: u64) -> Vec<u8> {
    let seed = name.bytes().fold(7u64, |h, b| h * 31 + u64::from(b));
    (0..len).map(|i| (i * 131 + seed) as u8).collect()
}

async fn write(fs: &Fs, name: &str, lifetime: Lifetime, len: u64) {
    let mut w = fs.create(name, lifetime).await.unwrap();
    w.append(&contents(name, len)).await.unwrap();
    w.close().await.unwrap();
}

/// The greedy cleaner's free percentage: unwritten over unwritten + live + garbage of full
/// zones.
fn free_pct(fs: &Fs) -> u64 {
    let s = fs.stats();
    100 * s.free_bytes / (s.free_bytes + s.used_bytes + s.reclaimable_bytes)
}

fn zones_of(fs: &Fs, name: &str) -> Vec<u32> {
    fs.file_zones(&[name])[0].iter().map(|(z, _)| *z).collect()
}

#[test]
fn threaded_logging_waits_for_the_cleaners_trigger() {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    let cap = p.zones.zone_capacity_bytes;
    let payload = Payload::memory(p.zones.zone_count);
    let dev =
        Arc::new(ZnsSsd::new_znsplus(env.clone(), p, ZnsPlusConfig::reference(), payload).unwrap());
    let e2 = env.clone();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let opts = FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("greedy", 20).unwrap(),
            // No background cleaner: the free space moves only with the test's writes.
            cleaning_interval_ns: 0,
            zone_copy: ZoneCopy::Izc {
                copyback_aware: true,
            },
            znsplus: zonedb_fs::ZnsPlusOptions {
                threaded_logging: true,
                ..zonedb_fs::ZnsPlusOptions::default()
            },
            ..FsOptions::default()
        };
        let fs: Fs = ZoneFs::mount(e2, dev.clone(), opts).await.unwrap();
        let io_zones = fs.stats().free_bytes / cap;
        let half = cap / 2;
        // Pairs of half-zone files fill zones one by one (the second, of a shorter lifetime,
        // joins the first's zone); the second of every other pair is deleted, leaving full
        // zones half garbage. Stop with about 22% free.
        let full = io_zones - (io_zones * 22).div_ceil(100);
        let mut names = Vec::new();
        for i in 0..full {
            let (a, b) = (format!("{i:03}a.sst"), format!("{i:03}b.sst"));
            write(&fs, &a, Lifetime::Extreme, half).await;
            write(&fs, &b, Lifetime::Long, half).await;
            assert_eq!(zones_of(&fs, &a), zones_of(&fs, &b), "pair {i}");
            names.push(a);
            if i % 2 == 0 {
                fs.delete(&b).await.unwrap();
            } else {
                names.push(b);
            }
        }
        let garbage_zones: Vec<u32> = (0..full)
            .step_by(2)
            .flat_map(|i| zones_of(&fs, &format!("{i:03}a.sst")))
            .collect();
        let pct = free_pct(&fs);
        assert!((20..25).contains(&pct), "free {pct}%");
        assert!(fs.stats().free_bytes >= cap, "no empty zone left");

        // No reclaim is due: an SST writer takes an empty zone, not a half-garbage one.
        write(&fs, "fresh.sst", Lifetime::Long, half).await;
        names.push("fresh.sst".into());
        assert_eq!(fs.stats().znsplus.threaded_reclaims, 0, "{:?}", fs.stats());
        assert!(
            zones_of(&fs, "fresh.sst")
                .iter()
                .all(|z| !garbage_zones.contains(z)),
            "fresh.sst in a half-garbage zone"
        );

        // Fill on: while the free space stays at or above the trigger, no threaded logging;
        // the first SST writer below it reclaims by threaded logging.
        let mut n = 0;
        loop {
            let below = free_pct(&fs) < 20;
            let name = format!("more{n:03}.sst");
            write(&fs, &name, Lifetime::Long, half).await;
            names.push(name.clone());
            let reclaims = fs.stats().znsplus.threaded_reclaims;
            if below {
                assert_eq!(reclaims, 1, "below the trigger: {:?}", fs.stats());
                assert!(
                    zones_of(&fs, &name)
                        .iter()
                        .any(|z| garbage_zones.contains(z)),
                    "{name} not in a half-garbage zone"
                );
                break;
            }
            assert_eq!(reclaims, 0, "{name} at {}% free", free_pct(&fs));
            n += 1;
            assert!(n < io_zones * 2, "the free space never fell below 20%");
        }

        let problems = fs.fsck();
        assert!(problems.is_empty(), "{problems:?}");
        for name in &names {
            let got = fs.read_all(name).await.unwrap();
            assert!(got == contents(name, half), "{name} reads back other bytes");
        }
    })
    .unwrap();
}
