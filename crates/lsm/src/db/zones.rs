//! The engine's side of zone awareness: the zone layout under the tree (for ZACA / ACC and
//! the `S_same` / `S_inval` statistics). The tree view placement policies read (CAZA, OAZA)
//! is in `tree_view`.

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
pub(crate) use zonedb_fs::placement::NewSst;

use crate::compaction::{ZoneLayout, ZoneUsage};
use crate::version::manifest::sst_name;

/// The zones' usage and free space (and, for `files`, which zones hold them).
pub(crate) fn zone_layout<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    files: &[u64],
) -> ZoneLayout {
    let names: Vec<String> = files.iter().map(|&n| sst_name(n)).collect();
    let per_file = fs.file_zones(&names);
    let mut layout = ZoneLayout {
        files: files.iter().copied().zip(per_file).collect(),
        zones: BTreeMap::new(),
        free_pct: 0.0,
        meta_zones: fs.first_io_zone(),
    };
    let (mut free, mut total) = (0u64, 0u64);
    for z in fs.zone_report() {
        free += z.remaining_bytes;
        total += z.max_capacity_bytes;
        layout.zones.insert(
            z.index,
            ZoneUsage {
                capacity_bytes: z.max_capacity_bytes,
                written_bytes: z.max_capacity_bytes - z.remaining_bytes,
                valid_bytes: z.used_bytes,
            },
        );
    }
    layout.free_pct = if total == 0 {
        0.0
    } else {
        100.0 * free as f64 / total as f64
    };
    layout
}
