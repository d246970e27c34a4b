//! Writing a built SST: the placement context the zone layer places it by, the hints that
//! announce it, and the pool of table buffers.

use std::sync::{Arc, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::{Lifetime, SstContext};

use super::super::Inner;
use super::super::zones::NewSst;
use crate::LsmError;
use crate::hints::{FileKindHint, Hint, HintListener};
use crate::key;
use crate::options::DbOptions;
use crate::sst::{TableBuilder, TableOptions};
use crate::version::FileMeta;
use crate::version::manifest::sst_name;

pub(crate) fn table_options(opts: &DbOptions) -> TableOptions {
    TableOptions {
        block_size: usize::try_from(opts.block_size).unwrap_or(4096),
        restart_interval: opts.block_restart_interval as usize,
        bloom_bits_per_key: opts.bloom_bits_per_key,
        compression: opts.compression,
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn write_built<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    hints: &dyn HintListener,
    (number, level): (u64, u32),
    lifetime: Lifetime,
    bytes: &zonedb_device::ElidedBytes,
    props: &crate::sst::Properties,
    job: u64,
    context: Option<SstContext>,
) -> Result<FileMeta, LsmError> {
    hints.on_hint(&Hint::FileCreated {
        number,
        kind: FileKindHint::Sst,
        level: Some(level),
        smallest: key::user_key(&props.smallest_key).to_vec(),
        largest: key::user_key(&props.largest_key).to_vec(),
        size: bytes.len(),
        lifetime,
        job,
    });
    let mut f = match context {
        Some(c) => fs.create_sst(&sst_name(number), lifetime, c).await?,
        None => fs.create(&sst_name(number), lifetime).await?,
    };
    // Holes of elided blocks go to the zone layer as holes. A file whose write failed is
    // given up (its zone back, deletable) before the error is returned; `close` does the
    // same.
    if let Err(e) = f.append_elided(bytes).await {
        f.abandon().await?;
        return Err(e.into());
    }
    f.close().await?;
    Ok(FileMeta {
        number,
        file_size: bytes.len(),
        smallest: props.smallest_key.clone(),
        largest: props.largest_key.clone(),
        smallest_seq: props.smallest_seq,
        largest_seq: props.largest_seq,
        num_entries: props.num_entries,
        num_deletions: props.num_deletions,
    })
}

/// Table buffers kept for reuse (a fresh one costs a page fault per page).
pub(super) const SPARE_TABLE_BUFFERS: usize = 2;

/// A table builder whose buffer comes from the pool, sized for about `bytes`.
pub(super) fn builder_for<E: Env, D: ZonedDevice>(inner: &Inner<E, D>, bytes: u64) -> TableBuilder {
    Builders::of(inner).builder(bytes)
}

/// What makes table builders as [`builder_for`] does, without the rest of the engine (for
/// builders on other threads).
#[derive(Clone)]
pub(super) struct Builders {
    opts: crate::sst::TableOptions,
    regen: Option<Arc<dyn crate::elided::ValueRegenerator>>,
    pool: Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
}

impl Builders {
    pub(super) fn of<E: Env, D: ZonedDevice>(inner: &Inner<E, D>) -> Self {
        Self {
            opts: table_options(&inner.opts),
            regen: inner.regenerator.get().cloned(),
            pool: inner.buffers.clone(),
        }
    }

    /// A builder with a buffer from the pool, sized for about `bytes`.
    pub(super) fn builder(&self, bytes: u64) -> TableBuilder {
        let buf = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        TableBuilder::with_buffer(self.opts, buf, usize::try_from(bytes).unwrap_or(0))
            .with_regenerator(self.regen.clone())
    }
}

/// A built table's buffer back for reuse (its stored bytes).
pub(crate) fn take_buffer(t: crate::sst::BuiltTable) -> Vec<u8> {
    t.bytes.into_data()
}

pub(super) fn give_buffer<E: Env, D: ZonedDevice>(inner: &Inner<E, D>, mut buf: Vec<u8>) {
    let mut pool = inner.buffers.lock().unwrap_or_else(PoisonError::into_inner);
    if pool.len() < SPARE_TABLE_BUFFERS {
        buf.clear();
        pool.push(buf);
    }
}

/// What the placement policy planned for a complete SST from the tree as it is now (`None`
/// when the policy does not read the tree).
pub(crate) fn placement_context<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    sst: &NewSst<'_>,
) -> Option<SstContext> {
    super::super::tree_view::placement_context(inner, sst)
}
