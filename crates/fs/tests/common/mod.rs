//! Helpers shared by the file layer's integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::SimEnv;

/// The `tiny` profile with 32 zones, 8 open and 10 active, its payload in memory.
pub fn tiny_device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap())
}
