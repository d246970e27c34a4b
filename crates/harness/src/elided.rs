//! db_bench's values as elided values (issue 17): a value is a slice of the generator's pool
//! ([`crate::keys::ValueGen`]), so its offset in the pool and its length say everything about
//! it. With `elide_values` the harness hands the engine `(len, offset)` instead of the bytes
//! ([`crate::kv::KvStore::put_elided`]), and the engine asks [`PoolRegenerator`] for the bytes
//! when it needs them. The pool and how it is consumed are the same with and without elision.

use std::sync::Arc;

use zonedb_lsm::elided::ValueRegenerator;
use zonedb_lsm::sst::format::{get_varint, put_varint};

/// Regenerates db_bench's values from their descriptor: the value's offset in the pool
/// (a varint).
#[derive(Clone)]
pub struct PoolRegenerator {
    pool: Arc<[u8]>,
}

impl std::fmt::Debug for PoolRegenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolRegenerator")
            .field("pool_bytes", &self.pool.len())
            .finish()
    }
}

impl PoolRegenerator {
    /// The regenerator of the values of `pool`.
    pub fn new(pool: Arc<[u8]>) -> Self {
        Self { pool }
    }

    /// The descriptor of the value at `offset` in the pool.
    pub fn descriptor(offset: usize) -> Vec<u8> {
        let mut d = Vec::with_capacity(10);
        Self::descriptor_into(offset, &mut d);
        d
    }

    /// [`PoolRegenerator::descriptor`] into `out` (cleared first: a buffer reused per value).
    pub fn descriptor_into(offset: usize, out: &mut Vec<u8>) {
        out.clear();
        put_varint(out, offset as u64);
    }
}

impl ValueRegenerator for PoolRegenerator {
    fn regenerate(&self, desc: &[u8], len: usize, out: &mut Vec<u8>) -> bool {
        let mut pos = 0;
        let Some(offset) = get_varint(desc, &mut pos).and_then(|o| usize::try_from(o).ok()) else {
            return false;
        };
        if pos != desc.len() {
            return false;
        }
        match self.pool.get(offset..offset.saturating_add(len)) {
            Some(bytes) => {
                out.extend_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::ValueGen;

    #[test]
    fn descriptors_give_back_the_values_handed_out() {
        let mut g = ValueGen::with_ratio(0.5, 0);
        let plain = g.clone();
        let r = g.regenerator();
        let mut p = plain;
        for len in [100, 1024, 4000, 1 << 19, 1 << 19, 7] {
            let expect = p.next(len).to_vec();
            let (offset, bytes) = g.next_elided(len);
            assert_eq!(bytes, expect.as_slice());
            let mut out = Vec::new();
            assert!(r.regenerate(&PoolRegenerator::descriptor(offset), len, &mut out));
            assert_eq!(out, expect);
        }
        let mut out = Vec::new();
        assert!(!r.regenerate(&PoolRegenerator::descriptor(2 << 20), 1, &mut out));
        assert!(!r.regenerate(&[0x80], 1, &mut out));
        assert!(!r.regenerate(&[0, 0], 1, &mut out));
        assert!(out.is_empty());
    }
}
