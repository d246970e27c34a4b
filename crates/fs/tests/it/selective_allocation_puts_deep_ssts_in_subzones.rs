//! `placement = "selective"` (SplitZNS's selective allocator) on a SplitZNS device (`tiny`:
//! 16 zones of 192 KiB in 4 subzones of 48 KiB, 13 IO zones): SSTs of L4 and deeper go to
//! subzones, one each, and everything else to wide zones; no more split zones than the cap;
//! an SST larger than a subzone falls back to a wide zone; a deleted SST's subzone is merged
//! and an all-empty split zone goes back to wide; cleaning never picks a split zone; after a
//! power loss the remount finds every file and fsck is clean.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::splitzns::{SplitZnsConfig, SubzoneState};
use zonedb_device::{SimDevice, SimDeviceSpec, SubzoneId, ZoneState, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::placement::{Lifetime, SstContext};
use zonedb_fs::split::selective::Selective;
use zonedb_fs::{FsOptions, ZoneFs};

type Dev = SimDevice<SimEnv>;
type Fs = ZoneFs<SimEnv, Dev>;

const KIB: usize = 1024;

fn device(env: &SimEnv) -> Arc<Dev> {
    let spec = SimDeviceSpec::new("tiny", "1")
        .zone_limits(Some(8), Some(10))
        .splitzns(Some(SplitZnsConfig::native()));
    Arc::new(spec.build(env.clone()).unwrap())
}

fn opts(policy: Selective) -> FsOptions {
    FsOptions {
        placement: Arc::new(policy),
        write_buffer_bytes: 16 << 10,
        ..FsOptions::default()
    }
}

fn contents(number: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 * 31 + number * 7) as u8)
        .collect()
}

/// Writes SST `number` of `len` bytes to `level`, planned as the engine plans it.
async fn write_sst(fs: &Arc<Fs>, number: u64, level: u32, len: usize) -> String {
    try_write_sst(fs, number, level, len).await.unwrap()
}

/// The subzone holding a file of one extent, `None` if it lies in a wide zone.
fn subzone_of(fs: &Fs, name: &str) -> Option<SubzoneId> {
    let meta = fs.stat(name).unwrap();
    let dev = fs.device();
    let g = dev.geometry();
    let start = meta.extents[0].start;
    let zone = u32::try_from(start / g.zone_size_bytes).unwrap();
    let subs = dev
        .capabilities()
        .split_zones
        .unwrap()
        .report_subzones(zone)
        .ok()?;
    assert_eq!(
        meta.extents.len(),
        1,
        "{name}: an SST in a subzone is one extent"
    );
    let sub = subs
        .iter()
        .find(|s| start >= s.start && start < s.start + s.capacity_bytes)
        .unwrap();
    Some(sub.id)
}

/// Zones the device has split now.
fn split_zones(dev: &Dev) -> Vec<u32> {
    (0..dev.geometry().zone_count)
        .filter(|&z| {
            dev.capabilities()
                .split_zones
                .unwrap()
                .report_subzones(z)
                .is_ok()
        })
        .collect()
}

/// The layer with the selective allocator and the greedy cleaner, cleaning below
/// `threshold_pct` free, woken at every allocation.
async fn mount_with_greedy(env: SimEnv, dev: &Arc<Dev>, threshold_pct: u32) -> Arc<Fs> {
    let opts = FsOptions {
        cleaner: zonedb_fs::cleaning::by_name("greedy", threshold_pct).unwrap(),
        cleaning_interval_ns: 0,
        ..opts(Selective::default())
    };
    Fs::mount(env, dev.clone(), opts).await.unwrap()
}

fn run<T: Send + 'static>(f: impl AsyncFnOnce(SimEnv, Arc<Dev>) -> T + Send + 'static) -> T {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let dev = device(&env);
    let env2 = env.clone();
    let out = env
        .run(async move {
            Fs::mkfs(dev.as_ref(), 0).await.unwrap();
            f(env2, dev).await
        })
        .unwrap();
    env.kill_all_tasks();
    out
}

#[test]
fn deep_ssts_go_to_subzones_and_the_rest_to_wide_zones() {
    run(async |env, dev| {
        let fs = Fs::mount(env, dev.clone(), opts(Selective::default()))
            .await
            .unwrap();
        let mut wal = fs.create("000001.log", Lifetime::Short).await.unwrap();
        wal.append(&[9; 5000]).await.unwrap();
        wal.sync().await.unwrap();
        let mut names = Vec::new();
        for level in 0..7u32 {
            names.push(write_sst(&fs, u64::from(level) + 10, level, 30 * KIB).await);
        }
        let mut manifest = fs
            .create("MANIFEST-000002", Lifetime::NotSet)
            .await
            .unwrap();
        manifest.append(&[3; 3000]).await.unwrap();
        manifest.close().await.unwrap();
        wal.close().await.unwrap();
        for (level, name) in names.iter().enumerate() {
            let sub = subzone_of(&fs, name);
            if level < 4 {
                assert_eq!(sub, None, "L{level} SST {name} belongs in a wide zone");
            } else {
                let sub = sub.unwrap_or_else(|| panic!("L{level} SST {name} not in a subzone"));
                // One split zone, filled from its first subzone: the fullest is taken first.
                assert_eq!(sub.index, level as u32 - 4, "{name}");
                let info = dev
                    .capabilities()
                    .split_zones
                    .unwrap()
                    .report_subzones(sub.zone)
                    .unwrap()[sub.index as usize];
                // Finished when the file was closed.
                assert_eq!(info.state, SubzoneState::Full, "{name}");
            }
            let n = 10 + level as u64;
            assert_eq!(fs.read_all(name).await.unwrap(), contents(n, 30 * KIB));
        }
        for wide in ["000001.log", "MANIFEST-000002"] {
            assert_eq!(subzone_of(&fs, wide), None, "{wide}");
        }
        let st = fs.stats();
        assert_eq!(
            (
                st.split.subzone_allocations,
                st.split.zone_splits,
                st.split.split_zones
            ),
            (3, 1, 1)
        );
        assert_eq!(st.split.subzone_fallbacks, 0);
        // The split zone no writer uses is deactivated: it shows full, holding no token.
        let zone = split_zones(&dev)[0];
        assert_eq!(dev.report_zones(zone, 1)[0].state, ZoneState::Full);
        assert!(st.split.split_zone_finishes >= 1);
        assert_eq!(fs.fsck(), Vec::new());
        let json = serde_json::to_string(&st).unwrap();
        assert!(json.contains("\"subzone_allocations\":3"), "{json}");
    });
}

#[test]
fn a_lower_min_level_puts_shallower_ssts_in_subzones() {
    run(async |env, dev| {
        let fs = Fs::mount(env, dev, opts(Selective::new(1, 60).unwrap()))
            .await
            .unwrap();
        let l0 = write_sst(&fs, 1, 0, 20 * KIB).await;
        let l1 = write_sst(&fs, 2, 1, 20 * KIB).await;
        assert_eq!(subzone_of(&fs, &l0), None);
        assert!(subzone_of(&fs, &l1).is_some());
    });
}

#[test]
fn split_zones_never_exceed_the_cap_and_oversize_ssts_go_wide() {
    run(async |env, dev| {
        // 30 % of 13 IO zones: 3 split zones, 12 subzones.
        let fs = Fs::mount(env, dev.clone(), opts(Selective::new(4, 30).unwrap()))
            .await
            .unwrap();
        let mut names = Vec::new();
        for n in 0..16u64 {
            names.push(write_sst(&fs, 100 + n, 5, 40 * KIB).await);
            assert!(split_zones(&dev).len() <= 3, "after SST {n}");
            assert!(fs.stats().split.split_zones <= 3);
        }
        let in_subzones = names
            .iter()
            .filter(|n| subzone_of(&fs, n).is_some())
            .count();
        assert_eq!(in_subzones, 12);
        // 49 KiB is more than a 48 KiB subzone.
        let big = write_sst(&fs, 200, 6, 49 * KIB).await;
        assert_eq!(subzone_of(&fs, &big), None);
        let st = fs.stats();
        assert_eq!(
            (
                st.split.subzone_allocations,
                st.split.subzone_fallbacks,
                st.split.subzone_oversize_fallbacks
            ),
            (12, 5, 1)
        );
        assert_eq!(
            (
                st.split.split_zones,
                st.split.split_zones_peak,
                st.split.zone_splits
            ),
            (3, 3, 3)
        );
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                fs.read_all(n).await.unwrap(),
                contents(100 + i as u64, 40 * KIB)
            );
        }
        assert_eq!(fs.fsck(), Vec::new());
    });
}

#[test]
fn deleting_an_sst_merges_its_subzone_and_an_empty_split_zone_goes_back_to_wide() {
    run(async |env, dev| {
        let fs = Fs::mount(env, dev.clone(), opts(Selective::default()))
            .await
            .unwrap();
        let a = write_sst(&fs, 1, 4, 30 * KIB).await;
        let b = write_sst(&fs, 2, 4, 30 * KIB).await;
        let l0 = write_sst(&fs, 3, 0, 30 * KIB).await;
        let (sa, sb) = (subzone_of(&fs, &a).unwrap(), subzone_of(&fs, &b).unwrap());
        assert_eq!(sa.zone, sb.zone);
        let zone = sa.zone;
        fs.delete(&a).await.unwrap();
        let subs = dev
            .capabilities()
            .split_zones
            .unwrap()
            .report_subzones(zone)
            .unwrap();
        let merged = subs[sa.index as usize];
        assert_eq!(merged.state, SubzoneState::Empty);
        assert_eq!(merged.write_pointer, merged.start);
        assert_eq!(subs[sb.index as usize].state, SubzoneState::Full);
        let st = fs.stats();
        assert_eq!(
            (st.split.subzone_merges, st.split.split_zone_resets),
            (1, 0)
        );
        assert_eq!(fs.fsck(), Vec::new());
        // The next deep SST takes the freed subzone of the same split zone.
        let c = write_sst(&fs, 4, 5, 30 * KIB).await;
        assert_eq!(subzone_of(&fs, &c), Some(sa));
        fs.delete(&b).await.unwrap();
        fs.delete(&c).await.unwrap();
        // Every subzone empty: RESET back to an empty wide zone.
        assert!(
            dev.capabilities()
                .split_zones
                .unwrap()
                .report_subzones(zone)
                .is_err()
        );
        assert_eq!(dev.report_zones(zone, 1)[0].state, ZoneState::Empty);
        let st = fs.stats();
        assert_eq!(
            (
                st.split.subzone_merges,
                st.split.split_zone_resets,
                st.split.split_zones
            ),
            (3, 1, 0)
        );
        assert_eq!(
            fs.read_all(&l0).await.unwrap(),
            contents(3, 30 * KIB),
            "the wide file is untouched"
        );
        assert_eq!(fs.fsck(), Vec::new());
        // A deep SST splits a zone again.
        let d = write_sst(&fs, 5, 4, 30 * KIB).await;
        assert!(subzone_of(&fs, &d).is_some());
        assert_eq!(fs.stats().split.zone_splits, 2);
    });
}

#[test]
fn cleaning_never_picks_a_split_zone() {
    run(async |env, dev| {
        // Cleans whenever anything is used.
        let fs = mount_with_greedy(env, &dev, 100).await;
        // Four small SSTs fill the four subzones of one split zone: it is full, and most of
        // it is finish padding, the greedy cleaner's ideal victim were it a wide zone.
        let mut names = Vec::new();
        for n in 0..4u64 {
            names.push(write_sst(&fs, 10 + n, 4, 8 * KIB).await);
        }
        let zone = subzone_of(&fs, &names[0]).unwrap().zone;
        let report = fs.zone_report();
        let view = report.iter().find(|z| z.index == zone).unwrap();
        assert!(view.is_full() && view.used_bytes < view.max_capacity_bytes);
        let before: Vec<_> = names.iter().map(|n| fs.stat(n).unwrap().extents).collect();
        assert!(!fs.clean_once().await.unwrap());
        let after: Vec<_> = names.iter().map(|n| fs.stat(n).unwrap().extents).collect();
        assert_eq!(before, after);
        assert_eq!(fs.stats().gc_copied_bytes, 0);
        assert!(
            dev.capabilities()
                .split_zones
                .unwrap()
                .report_subzones(zone)
                .is_ok()
        );
        assert_eq!(fs.fsck(), Vec::new());
    });
}

#[test]
fn remount_after_power_loss_finds_every_file_and_fsck_is_clean() {
    let env = SimEnv::new(SimConfig::with_seed(3));
    let dev = device(&env);
    let (env2, dev2) = (env.clone(), dev.clone());
    let (names, open_zone) = env
        .run(async move {
            Fs::mkfs(dev2.as_ref(), 0).await.unwrap();
            let fs = Fs::mount(env2, dev2.clone(), opts(Selective::default()))
                .await
                .unwrap();
            let mut names = Vec::new();
            for (n, level) in [(1, 0), (2, 4), (3, 5), (4, 2), (5, 6)] {
                names.push((write_sst(&fs, n, level, 30 * KIB).await, n, 30 * KIB));
            }
            // An SST still being written at the power loss: its synced part survives.
            let plan = SstContext {
                number: 6,
                level: 4,
                size: (40 * KIB) as u64,
                ..SstContext::default()
            };
            let mut open = fs
                .create_sst("000006.sst", Lifetime::Extreme, plan)
                .await
                .unwrap();
            open.append(&contents(6, 40 * KIB)[..20 * KIB])
                .await
                .unwrap();
            open.sync().await.unwrap();
            open.append(&contents(6, 40 * KIB)[20 * KIB..25 * KIB])
                .await
                .unwrap();
            let sub = subzone_of(&fs, "000006.sst").unwrap();
            assert_eq!(
                dev2.capabilities()
                    .split_zones
                    .unwrap()
                    .report_subzones(sub.zone)
                    .unwrap()[sub.index as usize]
                    .state,
                SubzoneState::Open
            );
            drop(open);
            (names, sub)
        })
        .unwrap();
    env.kill_all_tasks();
    dev.power_cycle().unwrap();
    let (env2, dev2) = (env.clone(), dev.clone());
    env.run(async move {
        let fs = Fs::mount(env2, dev2.clone(), opts(Selective::default()))
            .await
            .unwrap();
        for (name, n, len) in &names {
            assert_eq!(
                fs.read_all(name).await.unwrap(),
                contents(*n, *len),
                "{name}"
            );
        }
        let got = fs.read_all("000006.sst").await.unwrap();
        assert!(got.len() >= 20 * KIB, "{} bytes", got.len());
        assert_eq!(got, contents(6, 40 * KIB)[..got.len()]);
        assert_eq!(subzone_of(&fs, "000006.sst"), Some(open_zone));
        // The cut subzone was finished at mount, its split zone deactivated.
        let info = dev2
            .capabilities()
            .split_zones
            .unwrap()
            .report_subzones(open_zone.zone)
            .unwrap()[open_zone.index as usize];
        assert_eq!(info.state, SubzoneState::Full);
        assert_eq!(
            dev2.report_zones(open_zone.zone, 1)[0].state,
            ZoneState::Full
        );
        assert_eq!(fs.fsck(), Vec::new());
        // Everything deleted: every subzone merged, the split zone wide again.
        for (name, _, _) in &names {
            fs.delete(name).await.unwrap();
        }
        fs.delete("000006.sst").await.unwrap();
        assert!(split_zones(&dev2).is_empty());
        assert_eq!(fs.fsck(), Vec::new());
    })
    .unwrap();
    env.kill_all_tasks();
    // And once more, with nothing split any more.
    let (env2, dev2) = (env.clone(), dev.clone());
    env.run(async move {
        let fs = Fs::mount(env2, dev2, opts(Selective::default()))
            .await
            .unwrap();
        assert!(fs.list().is_empty());
        assert_eq!(fs.fsck(), Vec::new());
    })
    .unwrap();
    env.kill_all_tasks();
}

/// `100 * free / (free + live + garbage of full zones)` over `zones`, as cleaning computes it.
fn free_pct(zones: &[zonedb_fs::placement::ZoneView]) -> u64 {
    zonedb_fs::cleaning::CleaningView { zones }.free_percent()
}

#[test]
fn free_subzones_do_not_hold_back_cleaning_of_wide_zones() {
    run(async |env, dev| {
        // The papers' trigger: below 20 % free.
        let fs = mount_with_greedy(env, &dev, 20).await;
        // Two split zones of four subzones, three of each merged again: six free subzones.
        let mut deep = Vec::new();
        for n in 0..8u64 {
            deep.push(write_sst(&fs, 100 + n, 4, 8 * KIB).await);
        }
        assert_eq!(split_zones(&dev).len(), 2);
        let mut kept_deep = Vec::new();
        for (i, name) in deep.into_iter().enumerate() {
            if i % 4 == 0 {
                kept_deep.push(name);
            } else {
                fs.delete(&name).await.unwrap();
            }
        }
        assert_eq!(split_zones(&dev).len(), 2, "one live SST keeps each split");
        // Wide zones: twenty SSTs of half a zone, nine of them deleted once all are written
        // (a zone with no live byte left would be reset at once).
        let mut wide = Vec::new();
        for n in 0..20u64 {
            wide.push(write_sst(&fs, 200 + n, 1, 96 * KIB).await);
        }
        let mut kept = Vec::new();
        for (i, name) in wide.into_iter().enumerate() {
            if i % 2 == 0 && i < 18 {
                fs.delete(&name).await.unwrap();
            } else {
                kept.push(name);
            }
        }
        let wide = kept;
        let report = fs.zone_report();
        let split = split_zones(&dev);
        let wide_only: Vec<_> = report
            .iter()
            .filter(|z| !split.contains(&z.index))
            .copied()
            .collect();
        // The device as a whole looks free enough; its wide zones are not.
        assert!(free_pct(&report) >= 20, "{}", free_pct(&report));
        assert!(free_pct(&wide_only) < 20, "{}", free_pct(&wide_only));
        assert!(fs.clean_once().await.unwrap(), "cleaning held back");
        assert!(fs.stats().gc_zone_resets > 0);
        assert_eq!(split_zones(&dev), split, "split zones are never cleaned");
        for name in wide.iter().chain(&kept_deep) {
            assert_eq!(
                fs.read_all(name).await.unwrap().len(),
                fs.stat(name).unwrap().size as usize
            );
        }
        assert_eq!(fs.fsck(), Vec::new());
    });
}

/// Writes SST `number` of `len` bytes to `level`; the layer's error if it finds no room.
async fn try_write_sst(
    fs: &Arc<Fs>,
    number: u64,
    level: u32,
    len: usize,
) -> Result<String, zonedb_fs::FsError> {
    let name = format!("{number:06}.sst");
    let plan = SstContext {
        number,
        level,
        size: len as u64,
        ..SstContext::default()
    };
    let mut f = fs.create_sst(&name, Lifetime::Extreme, plan).await?;
    f.append(&contents(number, len)).await?;
    f.close().await?;
    Ok(name)
}

#[test]
fn a_shallow_sst_takes_a_free_subzone_when_no_wide_zone_has_room() {
    run(async |env, dev| {
        let fs = Fs::mount(env, dev.clone(), opts(Selective::default()))
            .await
            .unwrap();
        // One split zone, one of its four subzones used.
        let deep = write_sst(&fs, 1, 5, 30 * KIB).await;
        assert!(subzone_of(&fs, &deep).is_some());
        // Wide zones filled with L1 SSTs larger than a subzone until one finds no room.
        let mut number = 100;
        let mut shallow = Vec::new();
        loop {
            match try_write_sst(&fs, number, 1, 60 * KIB).await {
                Ok(name) => shallow.push(name),
                Err(zonedb_fs::FsError::NoSpace) => break,
                Err(e) => panic!("{e}"),
            }
            number += 1;
            assert!(number < 200, "the wide zones never filled");
        }
        assert!(shallow.len() >= 30, "{}", shallow.len());
        let _ = fs.delete(&format!("{number:06}.sst")).await;
        assert_eq!(fs.stats().last_resort_subzones, 0);
        // An L1 SST that fits a subzone goes to a free one of the split zone.
        let l1 = write_sst(&fs, 300, 1, 30 * KIB).await;
        let sub = subzone_of(&fs, &l1).expect("the L1 SST took a free subzone");
        assert_eq!(sub.zone, subzone_of(&fs, &deep).unwrap().zone);
        assert_eq!(fs.stats().last_resort_subzones, 1);
        assert_eq!(fs.read_all(&l1).await.unwrap(), contents(300, 30 * KIB));
        // One larger than a subzone still finds no room.
        assert!(matches!(
            try_write_sst(&fs, 301, 1, 60 * KIB).await,
            Err(zonedb_fs::FsError::NoSpace)
        ));
        let _ = fs.delete("000301.sst").await;
        // Deleting it merges its subzone as any other.
        fs.delete(&l1).await.unwrap();
        let info = dev
            .capabilities()
            .split_zones
            .unwrap()
            .report_subzones(sub.zone)
            .unwrap()[sub.index as usize];
        assert_eq!(info.state, SubzoneState::Empty);
        for name in shallow.iter().chain([&deep]) {
            let n: u64 = name[..6].parse().unwrap();
            let len = if n == 1 { 30 * KIB } else { 60 * KIB };
            assert_eq!(fs.read_all(name).await.unwrap(), contents(n, len), "{name}");
        }
    });
}

#[test]
fn compaction_reads_are_counted_by_the_kind_of_zone_they_come_from() {
    use zonedb_device::IoClass;
    run(async |env, dev| {
        let fs = Fs::mount(env, dev, opts(Selective::default()))
            .await
            .unwrap();
        let l1 = write_sst(&fs, 40, 1, 30 * KIB).await;
        let l5 = write_sst(&fs, 41, 5, 20 * KIB).await;
        assert_eq!(subzone_of(&fs, &l1), None);
        assert!(subzone_of(&fs, &l5).is_some());
        let before = fs.stats();
        assert_eq!(before.split.background_read_wide_bytes, 0);
        assert_eq!(before.split.background_read_subzone_bytes, 0);
        // Queries are not counted.
        fs.read(&l5, 0, 8 * KIB as u64).await.unwrap();
        let got = fs
            .read_class(&l1, 0, 30 * KIB as u64, IoClass::BackgroundRead)
            .await
            .unwrap();
        assert_eq!(got, contents(40, 30 * KIB));
        let got = fs
            .read_class(&l5, 0, 20 * KIB as u64, IoClass::BackgroundRead)
            .await
            .unwrap();
        assert_eq!(got, contents(41, 20 * KIB));
        let st = fs.stats();
        // Device bytes: whole 4 KiB blocks.
        assert_eq!(st.split.background_read_wide_bytes, 32 * KIB as u64);
        assert_eq!(st.split.background_read_subzone_bytes, 20 * KIB as u64);
        assert!(st.split.background_read_wide_ns > 0, "{st:?}");
        assert!(st.split.background_read_subzone_ns > 0, "{st:?}");
        let json = serde_json::to_string(&st).unwrap();
        assert!(
            json.contains("\"background_read_subzone_bytes\":20480"),
            "{json}"
        );
    });
}

#[test]
fn sst_writes_are_counted_by_the_kind_of_zone_they_go_to() {
    run(async |env, dev| {
        let fs = Fs::mount(env, dev, opts(Selective::default()))
            .await
            .unwrap();
        // A WAL is not an SST: not counted.
        let mut wal = fs.create("000001.log", Lifetime::Short).await.unwrap();
        wal.append(&[9; 5000]).await.unwrap();
        wal.sync().await.unwrap();
        let st = fs.stats();
        assert_eq!(
            (
                st.split.sst_write_wide_bytes,
                st.split.sst_write_subzone_bytes
            ),
            (0, 0)
        );
        let l1 = write_sst(&fs, 40, 1, 30 * KIB).await;
        let l5 = write_sst(&fs, 41, 5, 20 * KIB).await;
        assert_eq!(subzone_of(&fs, &l1), None);
        assert!(subzone_of(&fs, &l5).is_some());
        let st = fs.stats();
        // Device bytes: whole 4 KiB blocks (the 30 KiB SST's last block padded).
        assert_eq!(st.split.sst_write_wide_bytes, 32 * KIB as u64, "{st:?}");
        assert_eq!(st.split.sst_write_subzone_bytes, 20 * KIB as u64, "{st:?}");
        assert!(st.split.sst_write_wide_ns > 0, "{st:?}");
        assert!(st.split.sst_write_subzone_ns > 0, "{st:?}");
        let json = serde_json::to_string(&st).unwrap();
        assert!(json.contains("\"sst_write_subzone_bytes\":20480"), "{json}");
    });
}
