//! More concurrent writers than the device has open zones: writers wait for zone tokens
//! instead of exceeding the device's open and active limits (the simulated device rejects any
//! request that would), and every file reads back whole.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

#[test]
fn writers_wait_for_tokens_and_the_device_never_rejects() {
    for seed in 0..5 {
        let env = SimEnv::new(SimConfig {
            seed,
            shuffle_same_instant: true,
            ..SimConfig::default()
        });
        let mut p = Profile::by_name("tiny").unwrap();
        p.zones.zone_count = 48;
        p.zones.max_open_zones = 5;
        p.zones.max_active_zones = 6;
        let dev = Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(48)).unwrap());
        dev.set_checking(true);
        let (env2, dev2) = (env.clone(), dev.clone());
        env.run(async move {
            ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev2.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(
                env2.clone(),
                dev2.clone(),
                FsOptions {
                    write_buffer_bytes: 8 << 10,
                    ..FsOptions::default()
                },
            )
            .await
            .unwrap();
            let mut hs = Vec::new();
            for w in 0..8u8 {
                let fs = fs.clone();
                hs.push(env2.spawn(&format!("writer-{w}"), async move {
                    let name = if w % 3 == 0 {
                        format!("{w}.log")
                    } else {
                        format!("{w}.sst")
                    };
                    let mut f = fs
                        .create(&name, Lifetime::from_u8(2 + w % 4))
                        .await
                        .unwrap();
                    for i in 0..20u8 {
                        f.append(&vec![w ^ i; 5000]).await.unwrap();
                        if i % 5 == 0 {
                            f.sync().await.unwrap();
                        }
                    }
                    f.close().await.unwrap();
                    name
                }));
            }
            for (w, h) in hs.into_iter().enumerate() {
                let name = h.await.unwrap();
                let data = fs.read_all(&name).await.unwrap();
                let want: Vec<u8> = (0..20u8).flat_map(|i| vec![w as u8 ^ i; 5000]).collect();
                assert_eq!(data, want, "{name}");
            }
            let open_max = dev2
                .report_zones(0, 48)
                .iter()
                .filter(|z| z.state.is_open())
                .count();
            assert!(open_max <= 5);
            assert!(fs.fsck().is_empty());
            assert!(
                fs.stats().io_blocking_ns > 0 || seed > 0,
                "writers should have waited for tokens"
            );
        })
        .unwrap();
    }
}
