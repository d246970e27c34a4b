//! YCSB's field values, regenerable (issue 17, elided values). Each field's value is drawn as
//! one seed from the client's RNG and expanded into printable bytes (YCSB's
//! `RandomByteIterator` makes printable bytes too) by a separately seeded [`SimRng`], so a
//! record is described by its fields' (index, length, seed) and the workload consumes its RNG
//! the same way whether values are elided or not. The value's first digits spell its seed in
//! base 95, so a record read back tells its fields' seeds (an update keeps the other fields
//! as they are and writes the record again, elided).

use zonedb_env::SimRng;
use zonedb_lsm::elided::ValueRegenerator;
use zonedb_lsm::sst::format::{get_varint, put_varint};

/// Printable bytes: `' '` and the 94 after it.
const RADIX: u64 = 95;

/// Most leading digits that spell a seed (95^9 < 2^64).
const SEED_DIGITS: usize = 9;

/// Mixed into the seed of the expansion, so it is not the workload RNG's own stream.
const EXPANSION_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// One field of a record: its name is the workload's `fieldnameprefix` and `index`; its value
/// is [`field_value`] of `seed` and `len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The field's number.
    pub index: u64,
    /// Value length, bytes.
    pub len: usize,
    /// Value seed.
    pub seed: u64,
}

fn digits(len: usize) -> usize {
    len.min(SEED_DIGITS)
}

/// Draws the seed of a value of `len` bytes from the workload's RNG (one draw).
pub fn draw_seed(rng: &mut SimRng, len: usize) -> u64 {
    rng.gen_range(0..RADIX.pow(digits(len) as u32))
}

/// Appends the `len` printable bytes of the value of `seed`: the seed in base 95 (most
/// significant digit first, at most 9 digits), then bytes expanded from it.
pub fn field_value(seed: u64, len: usize, out: &mut Vec<u8>) {
    let d = digits(len);
    let start = out.len();
    out.resize(start + d, b' ');
    let mut s = seed;
    for b in out[start..].iter_mut().rev() {
        *b = b' ' + (s % RADIX) as u8;
        s /= RADIX;
    }
    let mut rng = SimRng::seed_from_u64(seed ^ EXPANSION_SALT);
    let mut left = len - d;
    while left > 0 {
        let word = rng.next_u64().to_le_bytes();
        let take = left.min(word.len());
        // Each byte scaled to 0..95 (multiply and shift).
        out.extend(
            word[..take]
                .iter()
                .map(|&x| b' ' + ((u16::from(x) * 95) >> 8) as u8),
        );
        left -= take;
    }
}

/// The seed of a value [`field_value`] made, if `value` is one.
pub fn seed_of(value: &[u8]) -> Option<u64> {
    let d = digits(value.len());
    let mut seed = 0u64;
    for &b in &value[..d] {
        let digit = b.checked_sub(b' ').filter(|&v| u64::from(v) < RADIX)?;
        seed = seed * RADIX + u64::from(digit);
    }
    let mut again = Vec::with_capacity(value.len());
    field_value(seed, value.len(), &mut again);
    (again == value).then_some(seed)
}

/// Appends one field in the RocksDB binding's serialization (4-byte big-endian name length,
/// name, 4-byte big-endian value length, value).
pub fn put_field(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(&(name.len() as u32).to_be_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

/// The specs of a decoded record's fields, if every name is `prefix` and a number and every
/// value one [`field_value`] made.
pub fn specs_of(prefix: &str, fields: &[(String, Vec<u8>)]) -> Option<Vec<FieldSpec>> {
    fields
        .iter()
        .map(|(name, value)| {
            let index: u64 = name.strip_prefix(prefix)?.parse().ok()?;
            (format!("{prefix}{index}") == *name).then_some(())?;
            Some(FieldSpec {
                index,
                len: value.len(),
                seed: seed_of(value)?,
            })
        })
        .collect()
}

/// Makes records from their fields' specs: the regenerator of YCSB's elided values.
#[derive(Debug, Clone)]
pub struct RecordRegenerator {
    prefix: String,
}

impl RecordRegenerator {
    /// Records of fields named `prefix` and a number (the workload's `fieldnameprefix`).
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
        }
    }

    /// Appends the record of `specs` in the binding's serialization.
    pub fn record(&self, specs: &[FieldSpec], out: &mut Vec<u8>) {
        let mut name = String::new();
        let mut value = Vec::new();
        for f in specs {
            name.clear();
            name.push_str(&self.prefix);
            name.push_str(&f.index.to_string());
            value.clear();
            field_value(f.seed, f.len, &mut value);
            put_field(out, name.as_bytes(), &value);
        }
    }

    /// The length of the record of `specs`.
    pub fn record_len(&self, specs: &[FieldSpec]) -> usize {
        specs
            .iter()
            .map(|f| 8 + self.prefix.len() + f.index.to_string().len() + f.len)
            .sum()
    }

    /// The descriptor of the record of `specs`: the field count, then each field's index,
    /// length and seed (varints).
    pub fn descriptor(specs: &[FieldSpec]) -> Vec<u8> {
        let mut d = Vec::with_capacity(1 + specs.len() * 14);
        put_varint(&mut d, specs.len() as u64);
        for f in specs {
            put_varint(&mut d, f.index);
            put_varint(&mut d, f.len as u64);
            put_varint(&mut d, f.seed);
        }
        d
    }

    fn decode(desc: &[u8]) -> Option<Vec<FieldSpec>> {
        let mut pos = 0;
        let n = get_varint(desc, &mut pos)?;
        let mut specs = Vec::new();
        for _ in 0..n {
            let index = get_varint(desc, &mut pos)?;
            let len = usize::try_from(get_varint(desc, &mut pos)?).ok()?;
            let seed = get_varint(desc, &mut pos)?;
            specs.push(FieldSpec { index, len, seed });
        }
        (pos == desc.len()).then_some(specs)
    }
}

impl ValueRegenerator for RecordRegenerator {
    fn regenerate(&self, desc: &[u8], len: usize, out: &mut Vec<u8>) -> bool {
        let Some(specs) = Self::decode(desc) else {
            return false;
        };
        if self.record_len(&specs) != len {
            return false;
        }
        out.reserve(len);
        self.record(&specs, out);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_printable_and_tell_their_seed() {
        let mut rng = SimRng::seed_from_u64(3);
        for len in [0, 1, 5, 9, 10, 100, 1024] {
            for _ in 0..20 {
                let seed = draw_seed(&mut rng, len);
                let mut v = Vec::new();
                field_value(seed, len, &mut v);
                assert_eq!(v.len(), len);
                assert!(v.iter().all(|b| (b' '..=b'~').contains(b)), "{v:?}");
                assert_eq!(seed_of(&v), Some(seed));
            }
        }
        let mut v = Vec::new();
        field_value(12345, 100, &mut v);
        v[50] = if v[50] == b'a' { b'b' } else { b'a' };
        assert_eq!(seed_of(&v), None);
        assert_eq!(seed_of(&[0u8; 4]), None);
    }

    #[test]
    fn descriptors_give_back_the_record() {
        let r = RecordRegenerator::new("field");
        let specs = [
            FieldSpec {
                index: 0,
                len: 100,
                seed: 7,
            },
            FieldSpec {
                index: 12,
                len: 3,
                seed: 95 * 95 * 95 - 1,
            },
        ];
        let mut rec = Vec::new();
        r.record(&specs, &mut rec);
        assert_eq!(rec.len(), r.record_len(&specs));
        let mut out = Vec::new();
        let d = RecordRegenerator::descriptor(&specs);
        assert!(r.regenerate(&d, rec.len(), &mut out));
        assert_eq!(out, rec);
        assert!(!r.regenerate(&d, rec.len() + 1, &mut Vec::new()));
        assert!(!r.regenerate(&d[..d.len() - 1], rec.len(), &mut Vec::new()));
        assert_eq!(
            specs_of(
                "field",
                &[
                    ("field0".into(), rec[14..114].to_vec()),
                    ("field12".into(), rec[rec.len() - 3..].to_vec())
                ]
            ),
            Some(specs.to_vec())
        );
        assert_eq!(specs_of("field", &[("field01".into(), vec![b' '])]), None);
        assert_eq!(specs_of("field", &[("other0".into(), vec![b' '])]), None);
    }
}
