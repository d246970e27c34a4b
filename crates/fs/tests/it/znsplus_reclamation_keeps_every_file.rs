//! ZNS+'s reclamation on the `tiny` ZNS+ SSD: zone cleaning through in-device zone compaction
//! and hybrid recycling's threaded logging. Every file reads back byte for byte and fsck is
//! clean after every pass, with the copyback-unaware (CUB) and copyback-aware (CAB)
//! destination orders and with threaded logging. CUB copies the live data in the order the
//! host copy does, so its layout (and every later decision) is the host copy's, while no
//! copied byte crosses the host link; CAB copies more pages back than CUB; with threaded
//! logging most zones are reclaimed by writing over their garbage, and less is copied.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::flash::ZnsPlusConfig;
use zonedb_device::payload::Payload;
use zonedb_device::{DeviceStats, Profile, ZnsSsd, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, FsStats, ZoneCopy, ZoneFs};

fn device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    let payload = Payload::memory(p.zones.zone_count);
    Arc::new(ZnsSsd::new_znsplus(env.clone(), p, ZnsPlusConfig::reference(), payload).unwrap())
}

fn contents(name: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 * 131 + name * 7) as u8)
        .collect()
}

struct Outcome {
    fs: FsStats,
    dev: DeviceStats,
    copyback: u64,
    read_program: u64,
}

/// Writes files of 20-300 KiB, deleting random ones to keep 6, cleaning (greedy) after every
/// file (with threaded logging: when a writer needs a zone); checks fsck and every file's
/// bytes after each file.
fn churn(copy: ZoneCopy, seed: u64) -> Outcome {
    churn_with(copy, false, seed)
}

fn churn_with(copy: ZoneCopy, threaded_logging: bool, seed: u64) -> Outcome {
    churn_full(copy, threaded_logging, 0, seed)
}

fn churn_full(copy: ZoneCopy, threaded_logging: bool, min_garbage_pct: u32, seed: u64) -> Outcome {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = device(&env);
    let e2 = env.clone();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let opts = FsOptions {
            write_buffer_bytes: 16 << 10,
            cleaner: zonedb_fs::cleaning::by_name("greedy", 90).unwrap(),
            cleaning_interval_ns: 0,
            zone_copy: copy,
            znsplus: zonedb_fs::ZnsPlusOptions {
                threaded_logging,
                threaded_min_garbage_pct: min_garbage_pct,
                ..zonedb_fs::ZnsPlusOptions::default()
            },
            ..FsOptions::default()
        };
        let fs = ZoneFs::mount(e2, dev.clone(), opts).await.unwrap();
        let mut rng = SimRng::seed_from_u64(seed);
        let mut live: BTreeMap<u64, usize> = BTreeMap::new();
        for n in 0..100u64 {
            let len = rng.gen_range(20_000..300_000) as usize;
            let name = format!("{n:06}.sst");
            let lifetime = Lifetime::from_u8(rng.gen_range(2..6) as u8);
            let mut w = match fs.create(&name, lifetime).await {
                Ok(w) => w,
                Err(zonedb_fs::FsError::NoSpace) => break,
                Err(e) => panic!("{e}"),
            };
            let data = contents(n, len);
            let written = match w.append(&data).await {
                Ok(()) => w.close().await,
                Err(e) => Err(e),
            };
            match written {
                Ok(()) => {}
                Err(zonedb_fs::FsError::NoSpace) => break,
                Err(e) => panic!("file {n}: {e}"),
            }
            live.insert(n, len);
            while live.len() > 6 {
                let victim = *live
                    .keys()
                    .nth(rng.gen_range(0..live.len() as u64) as usize)
                    .unwrap();
                live.remove(&victim);
                fs.delete(&format!("{victim:06}.sst")).await.unwrap();
            }
            // With threaded logging, reclamation happens when writers need zones (HSR first,
            // then foreground cleaning); without, the test cleans after every file.
            if !threaded_logging {
                fs.clean_while_gaining().await.unwrap();
            }
            let problems = fs.fsck();
            assert!(problems.is_empty(), "after file {n}: {problems:?}");
            for (&m, &len) in &live {
                let got = fs.read_all(&format!("{m:06}.sst")).await.unwrap();
                assert!(got == contents(m, len), "file {m} reads back other bytes");
            }
        }
        let z = dev
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        Outcome {
            fs: fs.stats(),
            dev: dev.stats(),
            copyback: z.copyback_pages,
            read_program: z.read_program_pages,
        }
    })
    .unwrap()
}

#[test]
fn izc_cleaning_keeps_every_file_and_moves_no_host_bytes() {
    for seed in 0..3 {
        let host = churn(ZoneCopy::Host, seed);
        let cub = churn(
            ZoneCopy::Izc {
                copyback_aware: false,
            },
            seed,
        );
        assert!(
            host.fs.gc_copied_bytes > 1 << 20,
            "seed {seed}: little cleaning"
        );
        assert_eq!(host.fs.znsplus.izc_commands, 0);
        assert!(cub.fs.znsplus.izc_commands > 0);
        // Same live data copied in the same order: the same bytes copied ...
        assert_eq!(
            cub.fs.gc_copied_bytes, host.fs.gc_copied_bytes,
            "seed {seed}"
        );
        assert_eq!(cub.fs.znsplus.izc_bytes, cub.fs.gc_copied_bytes);
        // ... none of them through the host.
        assert_eq!(
            cub.dev.bytes_read + cub.fs.gc_copied_bytes,
            host.dev.bytes_read,
            "seed {seed}"
        );
        assert_eq!(
            cub.dev.bytes_written + cub.fs.gc_copied_bytes,
            host.dev.bytes_written,
            "seed {seed}"
        );
        // The host copy never uses copyback.
        assert_eq!(host.copyback + host.read_program, 0);
    }
}

#[test]
fn copyback_aware_allocation_copies_more_pages_back() {
    let (mut cab_cb, mut cab_all, mut cub_cb, mut cub_all) = (0, 0, 0, 0);
    for seed in 0..3 {
        let cab = churn(
            ZoneCopy::Izc {
                copyback_aware: true,
            },
            seed,
        );
        let cub = churn(
            ZoneCopy::Izc {
                copyback_aware: false,
            },
            seed,
        );
        cab_cb += cab.copyback;
        cab_all += cab.copyback + cab.read_program;
        cub_cb += cub.copyback;
        cub_all += cub.copyback + cub.read_program;
    }
    let (cab, cub) = (
        cab_cb as f64 / cab_all as f64,
        cub_cb as f64 / cub_all as f64,
    );
    assert!(cab > 0.8, "CAB copied {cab:.2} of its pages back");
    assert!(cab > cub + 0.2, "CAB {cab:.2} vs CUB {cub:.2}");
}

#[test]
fn threaded_logging_reclaims_most_zones_and_keeps_every_file() {
    let (mut tl, mut cleaned, mut copied_tl, mut copied_izc) = (0, 0, 0, 0);
    for seed in 0..3 {
        let izc = churn(
            ZoneCopy::Izc {
                copyback_aware: true,
            },
            seed,
        );
        let plus = churn_with(
            ZoneCopy::Izc {
                copyback_aware: true,
            },
            true,
            seed,
        );
        assert!(
            plus.fs.znsplus.threaded_bytes > 0,
            "seed {seed}: {:?}",
            plus.fs
        );
        tl += plus.fs.znsplus.threaded_reclaims;
        cleaned += plus.fs.gc_zone_resets;
        copied_tl += plus.fs.gc_copied_bytes;
        copied_izc += izc.fs.gc_copied_bytes;
    }
    assert!(
        tl > cleaned,
        "threaded logging {tl} zones, cleaning {cleaned}"
    );
    assert!(
        copied_tl < copied_izc,
        "copied {copied_tl} with TL vs {copied_izc}"
    );
}

#[test]
fn a_garbage_floor_keeps_threaded_logging_to_zones_with_that_much_garbage() {
    let izc = ZoneCopy::Izc {
        copyback_aware: true,
    };
    // No zone is all garbage while it holds live data: a 100% floor leaves it all to cleaning.
    let none = churn_full(izc, true, 100, 1);
    assert_eq!(none.fs.znsplus.threaded_reclaims, 0, "{:?}", none.fs);
    let some = churn_full(izc, true, 50, 1);
    let all = churn_full(izc, true, 0, 1);
    assert!(some.fs.znsplus.threaded_reclaims > 0);
    assert!(some.fs.znsplus.threaded_reclaims <= all.fs.znsplus.threaded_reclaims);
}
