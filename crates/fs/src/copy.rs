//! The copy loop cleaning and HHZS's migration share: an extent's blocks copied into the
//! zones a caller hands out, step by step, the new extents merged inside each zone.
//!
//! What differs between the callers is behind [`CopySteps`]: where a new zone comes from, how
//! much one step copies, what a filled zone becomes, which counters a step moves, and what
//! happens after each step (migration's rate limit).

use zonedb_device::{IoClass, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::Extent;
use crate::fs::{ZoneFs, align_up};

/// A caller's part of [`ZoneFs::copy_extent`].
pub(crate) trait CopySteps<E: Env, D: ZonedDevice> {
    /// A zone to copy into, taken when the last one filled (or at the start).
    async fn new_zone(&mut self, fs: &ZoneFs<E, D>) -> Result<u32, FsError>;
    /// The most bytes one step copies.
    fn step_bytes(&self, fs: &ZoneFs<E, D>) -> u64;
    /// `zone` has no room left: it is full now (`full`), or it had none when the step looked
    /// (`!full`). The next step takes a new zone.
    fn filled(&mut self, fs: &ZoneFs<E, D>, zone: u32, full: bool);
    /// Counts `n` bytes copied.
    fn count(&self, fs: &ZoneFs<E, D>, n: u64);
    /// After each step (`n` bytes copied).
    async fn after_step(&mut self, _fs: &ZoneFs<E, D>, _n: u64) {}
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Copies extent `e`'s blocks (each extent keeps its offset within its block; holes stay
    /// holes) into `target`, taking new zones from `steps` as they fill, and appends the new
    /// extents to `out`. A new piece merges into `out`'s last extent only inside one zone: a
    /// new zone may begin exactly where the last one ended, and an extent must never cross a
    /// zone's end.
    pub(crate) async fn copy_extent<S: CopySteps<E, D>>(
        &self,
        e: Extent,
        target: &mut Option<u32>,
        out: &mut Vec<Extent>,
        steps: &mut S,
    ) -> Result<(), FsError> {
        let block = self.block;
        let (first, last) = (e.start / block * block, align_up(e.start + e.len, block));
        let mut cur = first;
        while cur < last {
            let zone = if let Some(z) = *target {
                z
            } else {
                let z = steps.new_zone(self).await?;
                *target = Some(z);
                z
            };
            let (wp, remaining, zone_start) = self
                .lock()
                .zone(zone)
                .map_or((0, 0, 0), |z| (z.wp, z.remaining(), z.start));
            let n = (last - cur).min(remaining).min(steps.step_bytes(self));
            if n == 0 {
                steps.filled(self, zone, false);
                *target = None;
                continue;
            }
            let data = self
                .dev
                .read_elided(cur, n, IoClass::BackgroundRead)
                .await?;
            self.dev.write_elided(wp, &data).await?;
            let (lo, hi) = (e.start.max(cur), (e.start + e.len).min(cur + n));
            let piece = Extent {
                start: wp + (lo - cur),
                len: hi - lo,
            };
            match out.last_mut() {
                Some(p) if p.start >= zone_start && p.start + p.len == piece.start => {
                    p.len += piece.len;
                }
                _ => out.push(piece),
            }
            let full = self.advance_copy_target(zone, n);
            steps.count(self, n);
            if full {
                steps.filled(self, zone, true);
                *target = None;
            }
            cur += n;
            steps.after_step(self, n).await;
        }
        Ok(())
    }

    /// Moves the write pointer of `zone`, a zone copies go to (cleaning, IZC, hybrid
    /// migration), past `n` bytes just written; returns whether it is full.
    pub(crate) fn advance_copy_target(&self, zone: u32, n: u64) -> bool {
        self.lock().zone_mut(zone).is_some_and(|z| {
            z.wp += n;
            z.remaining() == 0
        })
    }
}
