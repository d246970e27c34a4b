//! Internal keys, as RocksDB encodes them: the user key followed by an 8-byte little-endian
//! trailer `(sequence << 8) | value_type`. Ordered by user key ascending, then sequence
//! descending, then type descending, so the newest version of a key comes first.

use std::cmp::Ordering;

/// Largest sequence number (56 bits).
pub const MAX_SEQUENCE: u64 = (1 << 56) - 1;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ValueType {
    /// A tombstone.
    Deletion = 0,
    /// A value.
    Value = 1,
    /// An elided value: the entry's value bytes are a stub (`crate::elided::encode_stub`:
    /// the full value's length and the generator's descriptor); it is a live value like
    /// [`ValueType::Value`] everywhere, and reads regenerate its bytes.
    ElidedValue = 2,
}

impl ValueType {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Deletion),
            1 => Some(Self::Value),
            2 => Some(Self::ElidedValue),
            _ => None,
        }
    }

    /// Whether the entry is a live value (plain or elided).
    pub fn is_value(self) -> bool {
        matches!(self, Self::Value | Self::ElidedValue)
    }
}

/// The highest entry type: lookup keys carry it, so that at equal sequence they sort before
/// (or at) an entry of any type.
pub const MAX_VALUE_TYPE: ValueType = ValueType::ElidedValue;

/// Builds the internal key of `user_key` at `seq` with type `t`.
pub fn internal_key(user_key: &[u8], seq: u64, t: ValueType) -> Vec<u8> {
    let mut k = Vec::with_capacity(user_key.len() + 8);
    k.extend_from_slice(user_key);
    k.extend_from_slice(&trailer(seq, t).to_le_bytes());
    k
}

/// An internal key's last eight bytes as a number (stored little-endian): the sequence,
/// capped at [`MAX_SEQUENCE`], above the type.
pub fn trailer(seq: u64, t: ValueType) -> u64 {
    (seq.min(MAX_SEQUENCE) << 8) | t as u64
}

/// The key to seek for the newest version of `user_key` visible at snapshot `seq`
/// (types sort descending at equal sequence and [`MAX_VALUE_TYPE`] is the highest, so this
/// is the smallest internal key of `user_key` with sequence <= `seq`, whatever its type).
pub fn lookup_key(user_key: &[u8], seq: u64) -> Vec<u8> {
    internal_key(user_key, seq, MAX_VALUE_TYPE)
}

/// An internal key taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    /// The user key.
    pub user_key: &'a [u8],
    /// Sequence number.
    pub seq: u64,
    /// Entry type.
    pub value_type: ValueType,
}

/// Splits an internal key; `None` if it is shorter than 8 bytes or has an unknown type.
pub fn parse(ikey: &[u8]) -> Option<ParsedKey<'_>> {
    let n = ikey.len().checked_sub(8)?;
    let mut t = [0u8; 8];
    t.copy_from_slice(&ikey[n..]);
    let trailer = u64::from_le_bytes(t);
    Some(ParsedKey {
        user_key: &ikey[..n],
        seq: trailer >> 8,
        value_type: ValueType::from_u8((trailer & 0xff) as u8)?,
    })
}

/// The user key of an internal key (all of it if malformed).
pub fn user_key(ikey: &[u8]) -> &[u8] {
    &ikey[..ikey.len().saturating_sub(8)]
}

/// Orders internal keys: user key ascending, then trailer (sequence, type) descending.
/// Malformed keys (shorter than 8 bytes) compare bytewise, after nothing in particular.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() < 8 || b.len() < 8 {
        return a.cmp(b);
    }
    let (ua, ta) = a.split_at(a.len() - 8);
    let (ub, tb) = b.split_at(b.len() - 8);
    ua.cmp(ub).then_with(|| {
        let mut x = [0u8; 8];
        let mut y = [0u8; 8];
        x.copy_from_slice(ta);
        y.copy_from_slice(tb);
        u64::from_le_bytes(y).cmp(&u64::from_le_bytes(x))
    })
}

/// An owned internal key ordered with [`compare`] (for ordered maps such as the memtable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalKey(pub Vec<u8>);

impl Ord for InternalKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

impl PartialOrd for InternalKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_versions_sort_first_and_user_keys_ascend() {
        let a5 = internal_key(b"a", 5, ValueType::Value);
        let a7 = internal_key(b"a", 7, ValueType::Deletion);
        let b1 = internal_key(b"b", 1, ValueType::Value);
        assert_eq!(compare(&a7, &a5), Ordering::Less);
        assert_eq!(compare(&a5, &b1), Ordering::Less);
        assert_eq!(compare(&lookup_key(b"a", 6), &a5), Ordering::Less);
        assert_eq!(compare(&lookup_key(b"a", 6), &a7), Ordering::Greater);
        let p = parse(&a7).unwrap();
        assert_eq!(
            (p.user_key, p.seq, p.value_type),
            (&b"a"[..], 7, ValueType::Deletion)
        );
        assert!(parse(b"short").is_none());
    }

    #[test]
    fn lookup_keys_find_elided_values_at_their_own_sequence() {
        let e5 = internal_key(b"a", 5, ValueType::ElidedValue);
        let v5 = internal_key(b"a", 5, ValueType::Value);
        let d5 = internal_key(b"a", 5, ValueType::Deletion);
        for k in [&e5, &v5, &d5] {
            assert_ne!(compare(&lookup_key(b"a", 5), k), Ordering::Greater);
            assert_eq!(compare(&lookup_key(b"a", 4), k), Ordering::Greater);
        }
        assert_eq!(parse(&e5).unwrap().value_type, ValueType::ElidedValue);
        assert!(ValueType::ElidedValue.is_value() && !ValueType::Deletion.is_value());
    }
}
