//! Where the IO zones' bytes are: a snapshot of the space accounting split by zone kind (wide
//! zones; split zones and their subzones), for the message of a run that ran out of space and
//! for tests. Unlike [`crate::FsStats`] it says, per kind, how much of the consumed space is
//! live, how much is garbage, and how much of the garbage sits in regions with no live byte
//! left (reclaimable whole). A subzone holds one SST, so a subzone's garbage while its SST
//! lives is the tail the SST left short of the subzone, lost until MERGE.

use crate::state::State;

/// Bytes of one kind of region (wide zones, or subzones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RegionSpace {
    /// Regions of this kind.
    pub regions: u64,
    /// Of which never written (or reset).
    pub empty: u64,
    /// Of which full or finished: nothing more can be appended.
    pub closed: u64,
    /// Of which written but holding no live byte: reclaimable whole (reset, MERGE).
    pub dead: u64,
    /// Writable capacity of all of them.
    pub capacity_bytes: u64,
    /// Bytes consumed: written, and the tail a finish gave up (a finished region's write
    /// pointer is at its end).
    pub written_bytes: u64,
    /// Of the written bytes, those live files hold.
    pub live_bytes: u64,
    /// Of the written bytes, those of dead regions.
    pub dead_bytes: u64,
    /// Capacity still writable (empty and partly written regions).
    pub free_bytes: u64,
}

impl RegionSpace {
    fn add(&mut self, capacity: u64, written: u64, live: u64, remaining: u64) {
        self.regions += 1;
        self.capacity_bytes += capacity;
        self.written_bytes += written;
        self.live_bytes += live;
        self.free_bytes += remaining;
        if written == 0 {
            self.empty += 1;
        } else if live == 0 {
            self.dead += 1;
            self.dead_bytes += written;
        }
        if remaining == 0 {
            self.closed += 1;
        }
    }

    /// Written bytes no live file holds (dead regions' included).
    pub fn garbage_bytes(&self) -> u64 {
        self.written_bytes.saturating_sub(self.live_bytes)
    }
}

/// The IO zones' space by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SpaceReport {
    /// Wide (unsplit) zones.
    pub wide: RegionSpace,
    /// Split zones (SplitZNS), counted as zones.
    pub split_zones: u64,
    /// The subzones of the split zones.
    pub subzones: RegionSpace,
    /// Files.
    pub files: u64,
}

impl SpaceReport {
    pub(crate) fn of(s: &State) -> Self {
        let mut r = Self {
            files: s.files.len() as u64,
            ..Self::default()
        };
        for z in &s.zones {
            match &z.split {
                Some(split) => {
                    r.split_zones += 1;
                    for u in &split.subs {
                        r.subzones
                            .add(u.capacity, u.written(), u.used, u.remaining());
                    }
                }
                None => r.wide.add(z.capacity, z.written(), z.used, z.remaining()),
            }
        }
        r
    }
}

/// Bytes as MiB with one decimal, as the report prints them.
pub fn mib(b: u64) -> String {
    format!("{:.1}", b as f64 / f64::from(1u32 << 20))
}

impl std::fmt::Display for RegionSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({} empty, {} closed, {} dead): {} MiB capacity, {} written, {} live, {} \
             garbage ({} in dead ones), {} free",
            self.regions,
            self.empty,
            self.closed,
            self.dead,
            mib(self.capacity_bytes),
            mib(self.written_bytes),
            mib(self.live_bytes),
            mib(self.garbage_bytes()),
            mib(self.dead_bytes),
            mib(self.free_bytes),
        )
    }
}

impl std::fmt::Display for SpaceReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wide zones {}", self.wide)?;
        if self.split_zones > 0 {
            write!(
                f,
                "; split zones {}, subzones {}",
                self.split_zones, self.subzones
            )?;
        }
        write!(f, "; {} files", self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_count_as_empty_closed_or_dead_and_bytes_add_up() {
        let mut r = RegionSpace::default();
        // Full, 60 live.
        r.add(100, 100, 60, 0);
        // Finished with nothing live left: dead.
        r.add(100, 100, 0, 0);
        // Open at 40, 10 live.
        r.add(100, 40, 10, 60);
        // Empty.
        r.add(100, 0, 0, 100);
        assert_eq!((r.regions, r.empty, r.closed, r.dead), (4, 1, 2, 1));
        assert_eq!(r.written_bytes, 240);
        assert_eq!(r.live_bytes, 70);
        assert_eq!(r.garbage_bytes(), 170);
        assert_eq!(r.dead_bytes, 100);
        assert_eq!(r.free_bytes, 160);
        assert_eq!(r.free_bytes + r.written_bytes, r.capacity_bytes);
    }

    #[test]
    fn the_message_names_split_zones_only_when_there_are_some() {
        let r = SpaceReport::default();
        assert!(!r.to_string().contains("split"));
        let r = SpaceReport {
            split_zones: 2,
            ..SpaceReport::default()
        };
        assert!(r.to_string().contains("split zones 2"), "{r}");
    }
}
