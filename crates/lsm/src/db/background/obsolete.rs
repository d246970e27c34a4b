//! Deleting obsolete files: SSTs that no version uses any more (the graveyard), with their
//! lifetimes recorded.

use std::sync::{Arc, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::Inner;
use crate::LsmError;
use crate::hints::Hint;
use crate::version::manifest::sst_name;

/// Deletes SST `n` from the table cache and the zone layer (gone already is fine), and says
/// so in a hint.
pub(super) async fn delete_sst<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    n: u64,
) -> Result<(), LsmError> {
    inner.tables.evict(n);
    match inner.fs.delete(&sst_name(n)).await {
        Ok(()) | Err(zonedb_fs::FsError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    inner.hint(&Hint::FileDeleted { number: n });
    Ok(())
}

/// Deletes files no version uses any more.
pub(crate) async fn delete_obsolete<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
) -> Result<(), LsmError> {
    let dead = inner.graveyard.take_dead();
    for n in dead {
        delete_sst(inner, n).await?;
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
