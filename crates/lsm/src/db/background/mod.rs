//! Background work, one concept per file:
//!
//! - [`schedule`] — what runs when: one flush at a time, up to
//!   `max(1, max_background_jobs − max(1, max_background_jobs / 4))` compactions in parallel
//!   (as RocksDB splits its job budget), each picked by the configured picker.
//! - [`flush`] — a memtable written as an L0 SST (also used by recovery).
//! - [`compaction_job`] — a picked compaction run: trivial moves edit only the MANIFEST;
//!   merges drop entries by [`crate::compaction::drop_rule`] and cut outputs by
//!   [`crate::compaction::output_cutting`].
//! - [`output`] — writing a built SST: placement context, hints, table buffers.
//! - [`install`] — logging a version edit to the MANIFEST (and rolling it) and making it the
//!   current version.
//! - [`obsolete`] — deleting the files no version uses any more.
//! - [`no_space`] — a compaction that finds the device full: RocksDB's soft error, room
//!   checked before each compaction while it lasts, and the poller that clears it.
//!
//! Here: the picker's view of a version, score refresh, waiting for background work, and the
//! zone view of the SSTs.

mod build_ahead;
mod cascade;
mod compaction_job;
mod flush;
mod install;
mod merge_ahead;
mod no_space;
mod obsolete;
mod output;
mod schedule;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::{Inner, State};
use crate::LsmError;
use crate::compaction::{
    LevelFile, compaction_scores, estimated_pending_compaction_bytes, level_targets,
};
use crate::hints::Hint;
use crate::version::Version;

pub(crate) use build_ahead::{Pending as BuildAhead, start as start_build_ahead};
pub(crate) use flush::write_memtable;
pub(crate) use no_space::SpaceManager;
pub(crate) use obsolete::{delete_obsolete, purge_released};
pub(crate) use output::table_options;
pub(crate) use schedule::{RunningCompaction, maybe_schedule};

/// The picker's view of `version`: its files, borrowed, each marked if it is in `busy` (the
/// inputs of running compactions).
pub(crate) fn level_view<'v>(
    version: &'v Version,
    busy: &BTreeSet<u64>,
) -> Vec<Vec<LevelFile<'v>>> {
    version
        .levels
        .iter()
        .map(|l| {
            l.iter()
                .map(|f| LevelFile {
                    meta: &f.meta,
                    being_compacted: busy.contains(&f.meta.number),
                })
                .collect()
        })
        .collect()
}

/// Recomputes the pending compaction bytes and tells listeners the level scores.
pub(crate) fn refresh_scores<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let (scores, base) = {
        let mut st = inner.lock();
        let version = st.version.clone();
        let levels = level_view(&version, &st.being_compacted);
        let t = level_targets(&levels, &inner.opts);
        st.pending_compaction_bytes = estimated_pending_compaction_bytes(&levels, &t, &inner.opts);
        (compaction_scores(&levels, &t, &inner.opts), t.base_level)
    };
    inner.hint(&Hint::LevelScores {
        scores,
        base_level: base,
    });
}

/// Waits until `cond` holds (or a background error).
pub(crate) async fn wait_until<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    cond: impl Fn(&State) -> bool,
) -> Result<(), LsmError> {
    loop {
        let notified = inner.bg_done.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().enable();
        {
            let st = inner.lock();
            if let Some(e) = &st.bg_error {
                return Err(LsmError::Background(e.clone()));
            }
            if cond(&st) {
                return Ok(());
            }
        }
        notified.await;
    }
}

/// File number → (zone, bytes) for every SST the zone layer holds, in zone order.
pub(crate) fn zone_view<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
) -> BTreeMap<u64, Vec<(u32, u64)>> {
    let ssts: Vec<(u64, String)> = inner
        .fs
        .list()
        .into_iter()
        .filter_map(|name| match crate::version::manifest::parse_name(&name) {
            Some((n, "sst")) => Some((n, name)),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = ssts.iter().map(|(_, name)| name.as_str()).collect();
    let zones = inner.fs.file_zones(&names);
    ssts.into_iter()
        .zip(zones)
        .map(|((n, _), mut z)| {
            z.sort_unstable_by_key(|&(zone, _)| zone);
            (n, z)
        })
        .collect()
}
