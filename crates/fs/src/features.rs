//! The paper features a mount attaches, one line per feature: each puts its per-mount state
//! into the layer's [`Extensions`] and starts its background tasks. The core layer calls
//! these two functions and names no feature folder; a new feature adds a line to each.
//!
//! Features whose work needs no state or task of their own are not listed: ZNS+'s in-device
//! zone compaction and threaded logging ([`crate::znsplus`]) run inside cleaning and
//! allocation when their options are on, and SplitZNS's subzones ([`crate::split`]) where
//! the placement policy sends a file to one.

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use crate::extensions::Extensions;
use crate::fs::{FsOptions, ZoneFs};
use crate::hybrid;

/// Every feature's state for a mount of `dev` with `opts`.
pub(crate) fn attach<D: ZonedDevice>(opts: &FsOptions, dev: &D) -> Extensions {
    let mut ext = Extensions::default();
    hybrid::ssd_cache::attach(opts, dev, &mut ext);
    ext
}

/// Starts every feature's background tasks on a mount for writing.
pub(crate) fn start<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) {
    hybrid::migration::start(fs);
    hybrid::ssd_cache::start(fs);
}
