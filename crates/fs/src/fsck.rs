//! Consistency check of a mounted layer against its device: what `zonedb fs fsck` reports.
//! Extents in split zones are checked against their subzone (`report_subzones`), and the
//! layer's subzone accounting against the device's.

use std::collections::BTreeMap;

use zonedb_device::{SubzoneInfo, ZonedDevice};
use zonedb_env::Env;

use crate::fs::ZoneFs;

/// One inconsistency found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// File concerned (empty for zone-level problems).
    pub file: String,
    /// What is wrong.
    pub what: String,
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// [`ZoneFs::fsck`] with no cleaning pass, hybrid migration or SSD cache write in flight
    /// (it waits for a running one to end and holds the next back). A device write in flight has moved the device's write pointer
    /// before the layer accounts it, so a live check would see the two differ; call this with
    /// no file open for writing either (after the engine is closed) for an exact check.
    pub async fn fsck_quiesced(&self) -> Vec<Problem> {
        // Hybrid migration holds the cleaning lock too, the SSD cache its own.
        let _no_cleaning = self.gc.lock().await;
        let _no_feature_io = self.feature_io.lock().await;
        self.fsck()
    }

    /// Checks every file's extents against the zones: inside an IO zone, below the device's
    /// write pointer, not overlapping another extent, sizes adding up; and the layer's zone
    /// accounting against the device's zone report.
    pub fn fsck(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let g = self.dev.geometry().clone();
        let reports = self.dev.report_zones(0, g.zone_count);
        let first_io = self.first_io_zone();
        // The split zones' subzones, as the device reports them.
        let splits: BTreeMap<u32, Vec<SubzoneInfo>> =
            if let Some(split) = self.dev.capabilities().split_zones {
                (first_io..g.zone_count)
                    .filter_map(|z| split.report_subzones(z).ok().map(|s| (z, s)))
                    .collect()
            } else {
                BTreeMap::new()
            };
        // Zones open for threaded logging: their live blocks lie past the write pointer.
        let threaded: BTreeMap<u32, crate::state::Threaded> = self
            .lock()
            .zones
            .iter()
            .filter_map(|z| Some((z.index, z.threaded.clone()?)))
            .collect();
        let mut spans: Vec<(u64, u64, String)> = Vec::new();
        for f in self.files() {
            let sum: u64 = f.extents.iter().map(|e| e.len).sum();
            if sum != f.size {
                problems.push(Problem {
                    file: f.name.clone(),
                    what: format!("size {} but extents hold {sum} bytes", f.size),
                });
            }
            for e in &f.extents {
                let Some(z) = g.zone_of(e.start) else {
                    problems.push(Problem {
                        file: f.name.clone(),
                        what: format!("extent at {} is beyond the device", e.start),
                    });
                    continue;
                };
                let start = g.zone_start(z);
                if z < first_io {
                    problems.push(Problem {
                        file: f.name.clone(),
                        what: format!("extent at {} lies in metadata zone {z}", e.start),
                    });
                }
                spans.push((e.start, e.start + e.len, f.name.clone()));
                if let Some(subs) = splits.get(&z) {
                    // Inside its subzone, below the subzone's write pointer.
                    check_subzone_extent(&f.name, *e, z, subs, &mut problems);
                    continue;
                }
                let capacity = reports
                    .get(z as usize)
                    .map_or(g.zone_capacity_bytes, |r| r.capacity_bytes);
                if e.start + e.len > start + capacity {
                    problems.push(Problem {
                        file: f.name.clone(),
                        what: format!(
                            "extent at {} of {} bytes crosses the end of zone {z}",
                            e.start, e.len
                        ),
                    });
                }
                let wp = reports.get(z as usize).map_or(0, |r| r.write_pointer);
                if reports
                    .get(z as usize)
                    .is_some_and(|r| r.state == zonedb_device::ZoneState::Offline)
                {
                    problems.push(Problem {
                        file: f.name.clone(),
                        what: format!(
                            "extent at {} of {} bytes is in zone {z}, which is offline (its data is lost)",
                            e.start, e.len
                        ),
                    });
                } else if e.start + e.len > wp
                    && !threaded.get(&z).is_some_and(|t| {
                        t.covers(start, e.start.max(wp), e.start + e.len - e.start.max(wp))
                    })
                {
                    problems.push(Problem {
                        file: f.name.clone(),
                        what: format!(
                            "extent at {} of {} bytes runs past zone {z}'s write pointer {wp}{}",
                            e.start,
                            e.len,
                            cut_note(f.closed)
                        ),
                    });
                }
            }
        }
        spans.sort();
        for w in spans.windows(2) {
            if w[1].0 < w[0].1 {
                problems.push(Problem {
                    file: w[1].2.clone(),
                    what: format!("extent at {} overlaps an extent of {}", w[1].0, w[0].2),
                });
            }
        }
        self.check_zone_accounting(&reports, &splits, &mut problems);
        problems
    }

    /// The layer's zone accounting against the device's report.
    fn check_zone_accounting(
        &self,
        reports: &[zonedb_device::ZoneInfo],
        splits: &BTreeMap<u32, Vec<SubzoneInfo>>,
        problems: &mut Vec<Problem>,
    ) {
        self.check_split_accounting(splits, problems);
        for z in self.zone_report() {
            let Some(r) = reports.get(z.index as usize) else {
                continue;
            };
            if splits.contains_key(&z.index) {
                continue;
            }
            let threaded = self
                .lock()
                .zone(z.index)
                .and_then(|a| a.threaded.is_some().then_some(a.wp - a.start));
            // A threaded zone's garbage blocks past the write pointer count as room.
            let written = threaded.unwrap_or(z.max_capacity_bytes - z.remaining_bytes);
            let dev_written = r.write_pointer - r.start;
            // The layer counts a full, read-only or offline zone as written to its capacity.
            let counted_full = matches!(
                r.state,
                zonedb_device::ZoneState::Full
                    | zonedb_device::ZoneState::ReadOnly
                    | zonedb_device::ZoneState::Offline
            );
            if !counted_full && written != dev_written {
                problems.push(Problem {
                    file: String::new(),
                    what: format!(
                        "zone {}: layer counts {written} bytes written, device {dev_written}",
                        z.index
                    ),
                });
            }
            // (A threaded zone's live blocks lie past its write pointer too.)
            if z.used_bytes > written && threaded.is_none() {
                problems.push(Problem {
                    file: String::new(),
                    what: format!(
                        "zone {}: {} live bytes but only {written} written",
                        z.index, z.used_bytes
                    ),
                });
            }
        }
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// The layer's split zones and subzones against the device's: the same zones split, each
    /// subzone's write pointer the same, no more live bytes than written.
    fn check_split_accounting(
        &self,
        splits: &BTreeMap<u32, Vec<SubzoneInfo>>,
        problems: &mut Vec<Problem>,
    ) {
        let zone_problem = |what: String| Problem {
            file: String::new(),
            what,
        };
        let s = self.lock();
        for z in &s.zones {
            let layer = z.split.as_ref();
            let device = splits.get(&z.index);
            let (layer, device) = match (layer, device) {
                (None, None) => continue,
                (Some(l), Some(d)) => (l, d),
                (Some(_), None) => {
                    problems.push(zone_problem(format!(
                        "zone {}: the layer counts it split, the device does not",
                        z.index
                    )));
                    continue;
                }
                (None, Some(_)) => {
                    problems.push(zone_problem(format!(
                        "zone {}: the device has it split, the layer does not",
                        z.index
                    )));
                    continue;
                }
            };
            for (i, (u, d)) in layer.subs.iter().zip(device).enumerate() {
                if u.wp != d.write_pointer {
                    problems.push(zone_problem(format!(
                        "subzone {i} of zone {}: layer write pointer {}, device {}",
                        z.index, u.wp, d.write_pointer
                    )));
                }
                if u.used > u.written() {
                    problems.push(zone_problem(format!(
                        "subzone {i} of zone {}: {} live bytes but only {} written",
                        z.index,
                        u.used,
                        u.written()
                    )));
                }
            }
        }
    }
}

/// What a write pointer cutting a file means: damage for a closed one, a crash's cut tail
/// for one being written.
fn cut_note(closed: bool) -> &'static str {
    if closed {
        " (the file is complete: the zone lost its data; a writable open refuses the device)"
    } else {
        " (the file was being written: a writable open drops the cut tail)"
    }
}

/// An extent in split zone `zone` (subzones `subs` as the device reports them): inside one
/// subzone's capacity, below its write pointer.
fn check_subzone_extent(
    file: &str,
    e: crate::file::Extent,
    zone: u32,
    subs: &[SubzoneInfo],
    problems: &mut Vec<Problem>,
) {
    let Some(u) = subs
        .iter()
        .filter(|u| u.start <= e.start)
        .max_by_key(|u| u.start)
    else {
        problems.push(Problem {
            file: file.to_owned(),
            what: format!(
                "extent at {} lies before every subzone of zone {zone}",
                e.start
            ),
        });
        return;
    };
    let index = u.id.index;
    if e.start + e.len > u.start + u.capacity_bytes {
        problems.push(Problem {
            file: file.to_owned(),
            what: format!(
                "extent at {} of {} bytes crosses the end of subzone {index} of zone {zone}",
                e.start, e.len
            ),
        });
    }
    if e.start + e.len > u.write_pointer {
        problems.push(Problem {
            file: file.to_owned(),
            what: format!(
                "extent at {} of {} bytes runs past subzone {index} of zone {zone}'s write pointer {}",
                e.start, e.len, u.write_pointer
            ),
        });
    }
}

/// Entry point for fuzzing and the corpus replay test: a crafted device directory, mounted
/// and checked as `zonedb fs fsck --dir` does. Never a panic, never memory without bound.
pub mod fuzz {
    use std::sync::{Arc, OnceLock};

    use zonedb_device::ZoneFileDevice;
    use zonedb_env::RealEnv;

    use crate::{FsOptions, ZoneFs};

    /// Lays `data` out as a device directory
    /// ([`zonedb_device::zonefile::fuzz::with_crafted_dir`]: flags, `HEADER`, `ZONES`, the
    /// start of `DATA`), opens it read-only, mounts the file layer read-only and runs fsck.
    pub fn zonefile_fsck(data: &[u8]) {
        static ENV: OnceLock<RealEnv> = OnceLock::new();
        let env = ENV.get_or_init(|| RealEnv::new(0)).clone();
        zonedb_device::zonefile::fuzz::with_crafted_dir(data, |dir, _| {
            let Ok(dev) = ZoneFileDevice::open_read_only(dir) else {
                return;
            };
            let opts = FsOptions {
                read_only: true,
                ..FsOptions::default()
            };
            if let Ok(fs) = env.block_on(ZoneFs::mount(env.clone(), Arc::new(dev), opts)) {
                let _ = fs.fsck();
                let _ = fs.files();
            }
        });
    }
}
