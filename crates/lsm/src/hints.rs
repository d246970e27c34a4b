//! Typed hints from the engine to the zone layer and to anyone listening (placement and
//! cleaning policies, HHZS-style migration, statistics). The hint values are defined by the
//! zone layer ([`zonedb_fs::hints`]), where the policies that consume them live; the engine
//! calls [`HintListener::on_hint`] and [`zonedb_fs::ZoneFs::on_hint`] synchronously, in the
//! order things happen; listeners must be quick and must not call back into the engine.

use std::sync::{Arc, Mutex};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
pub use zonedb_fs::hints::{FileKindHint, Hint, LevelFiles};

/// Receives hints.
pub trait HintListener: Send + Sync + std::fmt::Debug {
    /// Called for every hint.
    fn on_hint(&self, hint: &Hint);
}

/// Hands every hint to the zone layer's policies ([`ZoneFs::on_hint`]), then to the user's
/// listener: what an open database reports through.
pub(crate) struct ToZoneLayer<E: Env, D: ZonedDevice> {
    pub(crate) fs: Arc<ZoneFs<E, D>>,
    pub(crate) next: Arc<dyn HintListener>,
}

impl<E: Env, D: ZonedDevice> std::fmt::Debug for ToZoneLayer<E, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToZoneLayer")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl<E: Env, D: ZonedDevice> HintListener for ToZoneLayer<E, D> {
    fn on_hint(&self, hint: &Hint) {
        self.fs.on_hint(hint);
        self.next.on_hint(hint);
    }
}

/// Ignores hints.
#[derive(Debug, Default)]
pub struct NoHints;

impl HintListener for NoHints {
    fn on_hint(&self, _hint: &Hint) {}
}

/// Keeps every hint (tests, traces).
#[derive(Debug, Default)]
pub struct RecordingHints(pub Mutex<Vec<Hint>>);

impl HintListener for RecordingHints {
    fn on_hint(&self, hint: &Hint) {
        if let Ok(mut v) = self.0.lock() {
            v.push(hint.clone());
        }
    }
}

impl RecordingHints {
    /// A copy of the hints so far.
    pub fn hints(&self) -> Vec<Hint> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}
