//! Installing a version edit: logged to the MANIFEST (rolled to a new one past
//! `max_manifest_file_size`), then made the current version.

use std::sync::{Arc, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::{Inner, State};
use crate::LsmError;
use crate::version::VersionEdit;
use crate::version::manifest::ManifestWriter;

/// Logs `edit` to the MANIFEST and makes it the current version.
pub(super) async fn install<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    mut edit: VersionEdit,
    after: impl FnOnce(&mut State),
) -> Result<(), LsmError> {
    let mut m = inner.manifest.lock().await;
    let Some(mw) = m.as_mut() else {
        return Err(LsmError::Closed);
    };
    let v = {
        let st = inner.lock();
        edit.next_file_number = Some(st.next_file);
        edit.last_sequence = Some(st.last_seq);
        st.version.apply(&edit, &inner.graveyard)?
    };
    mw.append(&edit).await?;
    if mw.len() > inner.opts.max_manifest_file_size {
        // Start a new MANIFEST holding a snapshot of the new version (RocksDB's roll).
        let (number, snap) = {
            let mut st = inner.lock();
            let n = st.new_file_number();
            let mut snap = v.snapshot_edit();
            snap.log_number = edit
                .log_number
                .or(Some(st.imm.first().map_or(st.mem_log, |(_, l)| *l)));
            snap.next_file_number = Some(st.next_file);
            snap.last_sequence = Some(st.last_seq);
            (n, snap)
        };
        // The old MANIFEST is complete (the edit above is in it): close it first, so the
        // roll holds one open zone, not three (old, new and CURRENT's temporary file), which
        // on a device with few open zones waited forever for a token the roll itself held.
        // Until CURRENT names the new one, the old one stays the database's MANIFEST.
        let old = m.take().ok_or(LsmError::Closed)?;
        let old_name = crate::version::manifest::manifest_name(old.number);
        old.close().await?;
        *m = Some(ManifestWriter::create(&inner.fs, number, &snap).await?);
        inner.fs.delete(&old_name).await?;
    }
    {
        let now = inner.env.now();
        let mut lt = inner
            .lifetimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (level, f) in &edit.new_files {
            lt.born.entry(f.number).or_insert((*level, now));
        }
    }
    let mut st = inner.lock();
    // Re-apply to the version current now (only this task changes versions while it holds
    // the MANIFEST lock, so it is the same one).
    st.version = Arc::new(v);
    // A new version: file scans start over (RocksDB resets NextCompactionIndex).
    st.next_compaction_index.iter_mut().for_each(|i| *i = 0);
    after(&mut st);
    Ok(())
}
