//! Helpers shared by the file layer's integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::SimEnv;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::Lifetime;

/// The `tiny` profile with 32 zones, 8 open and 10 active, its payload in memory.
pub fn tiny_device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap())
}

/// The `tiny` profile as it is (16 zones of 192 KiB) with 6 open and 6 active zones, its
/// payload in memory: few enough zones to fill in a test.
pub fn six_token_device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 6;
    Arc::new(ZnsSsd::new(env.clone(), p, Payload::memory(16)).unwrap())
}

/// Writes and closes `big.sst` (lifetime long) over all the free space but `held_room`
/// bytes (the room left in zone `held`, which an open writer holds), and checks none of it
/// went to `held`.
pub async fn fill_all_but(fs: &Arc<ZoneFs<SimEnv, ZnsSsd<SimEnv>>>, held: u32, held_room: u64) {
    let room = fs.stats().free_bytes;
    let mut big = fs.create("big.sst", Lifetime::Long).await.unwrap();
    big.append(&vec![1; usize::try_from(room - held_room).unwrap()])
        .await
        .unwrap();
    big.close().await.unwrap();
    assert!(
        fs.file_zones(&["big.sst"])[0]
            .iter()
            .all(|(z, _)| *z != held)
    );
}
