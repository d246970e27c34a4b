//! Deleting obsolete files: SSTs that no version uses any more (the graveyard), with their
//! lifetimes recorded, and WALs a flush made obsolete; inline at the end of the job, or by a
//! purge job of their own (`avoid_unnecessary_blocking_io`, RocksDB's `SchedulePurge`). An
//! SST whose last version goes anywhere else (a compaction's input version released while
//! other jobs run, an iterator or a lookup letting go of an old version) is deleted by a
//! purge job started then ([`purge_released`]), not left for whichever job ends next.

use std::ops::Range;
use std::sync::{Arc, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::Inner;
use super::schedule::finish_job;
use crate::LsmError;
use crate::hints::Hint;
use crate::version::manifest::sst_name;

/// Deletes SST `n` from the table cache and the zone layer (gone already is fine), and says
/// so in a hint. The zones it frees are reset by the caller ([`zonedb_fs::ZoneFs::reset_unused`],
/// once for many files) or by the next allocation.
pub(super) async fn delete_sst<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    n: u64,
) -> Result<(), LsmError> {
    inner.tables.evict(n);
    match inner.fs.delete_keeping_zones(&sst_name(n)).await {
        Ok(()) | Err(zonedb_fs::FsError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    inner.hint(&Hint::FileDeleted { number: n });
    Ok(())
}

/// Deletes files no version uses any more, then resets the zones they freed (once: each
/// reset waits for a device flush). One that fails to go stays deletable, with those after
/// it, for the next purge.
pub(crate) async fn delete_obsolete<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
) -> Result<(), LsmError> {
    let dead = inner.graveyard.take_dead();
    let any = !dead.is_empty();
    let deleted = delete_each(inner, dead).await;
    let reset = if any {
        inner.fs.reset_unused().await.map_err(LsmError::from)
    } else {
        Ok(())
    };
    deleted.and(reset)
}

/// Deletes `dead` one by one (their zones are not reset here).
async fn delete_each<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    dead: Vec<crate::version::Dead>,
) -> Result<(), LsmError> {
    let mut dead = dead.into_iter();
    while let Some(f) = dead.next() {
        let n = f.number;
        if let Err(e) = delete_sst(inner, n).await {
            inner.graveyard.untake(std::iter::once(f).chain(dead));
            return Err(e);
        }
        inner.graveyard.deleted(&f);
        let now = inner.env.now();
        let mut lt = inner
            .lifetimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((level, born)) = lt.born.remove(&n) {
            lt.done.entry(level).or_default().push(now - born);
        }
    }
    Ok(())
}

/// Deletes the WALs numbered in `logs` (those a flush made obsolete).
pub(super) async fn delete_wals<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    logs: Range<u64>,
) -> Result<(), LsmError> {
    for n in inner.fs.list() {
        if let Some((num, "log")) = crate::version::manifest::parse_name(&n)
            && logs.contains(&num)
        {
            inner.fs.delete(&n).await?;
        }
    }
    Ok(())
}

/// Starts a purge job: the WALs numbered in `logs` (a flush's; `None` for a compaction,
/// which makes no WAL obsolete) and every obsolete SST deleted in the background, so the job
/// that made them obsolete gives its slot back first. Close and
/// [`crate::Db::wait_for_compactions`] wait for purges; a failed purge is a background
/// error.
pub(super) fn schedule_purge<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    logs: Option<Range<u64>>,
) {
    inner.lock().purges_running += 1;
    // Files that become deletable before it starts wait for it.
    inner.graveyard.purge_queued();
    let i = inner.clone();
    drop(inner.env.spawn_background("purge", async move {
        let r = async {
            if let Some(logs) = logs {
                delete_wals(&i, logs).await?;
            }
            delete_obsolete(&i).await
        }
        .await;
        finish_job(&i, r, |st| st.purges_running -= 1);
    }));
}

/// Starts a purge job for SSTs that became deletable outside a job's own purge: the last
/// version holding them went when no job was about to delete them (the graveyard calls this,
/// [`crate::version::Obsolete::attach`]). RocksDB deletes such files where the last
/// reference to their version drops (a finished job's `FindObsoleteFiles`, an iterator's
/// cleanup); here a drop cannot wait, so a purge job does it. Once a close has begun the job
/// does nothing: the close deletes what is left.
pub(crate) fn purge_released<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let i = inner.clone();
    drop(inner.env.spawn_background("purge", async move {
        {
            let mut st = i.lock();
            if st.closing || st.closed {
                drop(st);
                i.graveyard.purge_skipped();
                i.bg_done.notify_waiters();
                return;
            }
            // Counted before it takes the files, so that waiters never see it neither
            // queued nor running.
            st.purges_running += 1;
        }
        let r = delete_obsolete(&i).await;
        {
            let mut st = i.lock();
            st.purges_running -= 1;
            if let Err(e) = r
                && st.bg_error.is_none()
            {
                st.bg_error = Some(crate::error::BackgroundError::from(e));
            }
        }
        // Deleting changes neither the tree nor the work due: only waiters need to know.
        i.bg_done.notify_waiters();
    }));
}
