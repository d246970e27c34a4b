//! A zone open for ZNS+'s threaded logging, as the simulated device keeps it: which blocks
//! were valid at the open and which the host has written since, and the host's new bytes
//! beside the old ones (the commands on it are in `threaded`).

use std::collections::BTreeMap;

use crate::ElidedBytes;
use crate::flash::ThreadedBlocks;

/// A zone open for threaded logging.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThreadedZone {
    pub(crate) blocks: ThreadedBlocks,
    /// The host's writes since the open: device offset -> bytes.
    pub(crate) overlay: BTreeMap<u64, ElidedBytes>,
}

/// Where the bytes of one block run of a threaded zone come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// The old bytes (valid when the zone opened).
    Old,
    /// The host's new bytes.
    New,
    /// Nothing: padding (reads as zeros).
    Pad,
}

impl ThreadedZone {
    pub(super) fn source(&self, b: usize) -> Source {
        if self.blocks.written.get(b).copied().unwrap_or(false) {
            Source::New
        } else if self.blocks.valid.get(b).copied().unwrap_or(false) {
            Source::Old
        } else {
            Source::Pad
        }
    }

    /// The overlay's bytes of `[at, at + len)` (all written).
    pub(super) fn overlay_range(&self, at: u64, len: u64, out: &mut ElidedBytes) {
        let end = at + len;
        let mut cur = at;
        while cur < end {
            let Some((&off, bytes)) = self.overlay.range(..=cur).next_back() else {
                break;
            };
            let from = cur - off;
            let n = (bytes.len().saturating_sub(from)).min(end - cur);
            if n == 0 {
                break;
            }
            out.push_range(bytes, from, n);
            cur += n;
        }
        if cur < end {
            out.push_hole(end - cur);
        }
    }
}
