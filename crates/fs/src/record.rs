//! Metadata records and their framing in metadata zones.
//!
//! A metadata zone holds a superblock record, a full snapshot of every file, then delta records
//! (file updates, deletions, renames, extent replacements, zone lifetime tags). Every record is
//! framed as `crc32c(len ‖ payload)` (u32 LE), `len` (u32 LE), payload, and padded with zeros to
//! the device block so the next record starts on a block boundary.

use crate::codec::{DecodeError, Decoder, Encoder};
use crate::file::{Extent, FileKind, FileMeta};
use crate::placement::policy::Lifetime;

/// "ZDBF".
pub const MAGIC: u32 = 0x5a44_4246;
/// On-device format version.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the frame header.
pub const FRAME_HEADER_BYTES: usize = 8;

/// The first record of every metadata zone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Superblock {
    /// Incremented at every metadata roll; the highest valid one wins at mount.
    pub sequence: u64,
    /// Device block size.
    pub block_size_bytes: u64,
    /// Device zone size.
    pub zone_size_bytes: u64,
    /// Device zone capacity.
    pub zone_capacity_bytes: u64,
    /// Zones on the device.
    pub zone_count: u32,
    /// Finish threshold in percent (0 = off).
    pub finish_threshold_pct: u32,
}

/// One metadata record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// Superblock.
    Superblock(Superblock),
    /// Every file and zone tag at roll time.
    Snapshot {
        /// Next file id to hand out.
        next_file_id: u64,
        /// All files.
        files: Vec<FileMeta>,
        /// Lifetime tags of non-empty IO zones.
        zone_lifetimes: Vec<(u32, Lifetime)>,
    },
    /// A file was created or changed: its attributes and the extents added since the last
    /// update (`new_extents`).
    FileUpdate {
        /// File attributes (its `extents` hold only the new extents).
        file: FileMeta,
        /// Extents of the file that precede the new ones (replay truncates to this count
        /// first, so replaying a record twice is harmless).
        extents_before: u32,
    },
    /// The whole extent list of a file was replaced (cleaning moved it).
    FileReplace {
        /// File id.
        id: u64,
        /// New extents.
        extents: Vec<Extent>,
    },
    /// A file was deleted.
    FileDelete {
        /// File id.
        id: u64,
    },
    /// A file was renamed.
    Rename {
        /// File id.
        id: u64,
        /// New name.
        name: String,
    },
    /// An empty zone was allocated and tagged with a lifetime.
    ZoneLifetime {
        /// Zone index.
        zone: u32,
        /// Lifetime tag.
        lifetime: Lifetime,
    },
}

const TAG_SUPERBLOCK: u8 = 1;
const TAG_SNAPSHOT: u8 = 2;
const TAG_FILE_UPDATE: u8 = 3;
const TAG_FILE_REPLACE: u8 = 4;
const TAG_FILE_DELETE: u8 = 5;
const TAG_RENAME: u8 = 6;
const TAG_ZONE_LIFETIME: u8 = 7;

fn encode_extents(e: &mut Encoder, extents: &[Extent]) {
    e.u32(u32::try_from(extents.len()).unwrap_or(u32::MAX));
    for x in extents {
        e.u64(x.start).u64(x.len);
    }
}

fn decode_extents(d: &mut Decoder<'_>) -> Result<Vec<Extent>, DecodeError> {
    let n = d.count(16)?;
    (0..n)
        .map(|_| {
            Ok(Extent {
                start: d.u64()?,
                len: d.u64()?,
            })
        })
        .collect()
}

/// Bit of a file's flag byte: length-framed writes ([`FileMeta::sparse`]).
const FLAG_SPARSE: u8 = 1;
/// Bit of a file's flag byte: closed after its last write ([`FileMeta::closed`]).
const FLAG_CLOSED: u8 = 2;

fn encode_file(e: &mut Encoder, f: &FileMeta) {
    e.u64(f.id)
        .str(&f.name)
        .u64(f.size)
        .u8(f.lifetime as u8)
        .u8(f.kind as u8)
        .u8(if f.sparse { FLAG_SPARSE } else { 0 } | if f.closed { FLAG_CLOSED } else { 0 });
    e.u64(f.active_extent_start.unwrap_or(u64::MAX));
    encode_extents(e, &f.extents);
}

fn decode_file(d: &mut Decoder<'_>) -> Result<FileMeta, DecodeError> {
    let id = d.u64()?;
    let name = d.str()?;
    let size = d.u64()?;
    let lifetime = Lifetime::from_u8(d.u8()?);
    let at = d.pos();
    let kind = FileKind::from_u8(d.u8()?).ok_or(DecodeError::Invalid {
        what: "file kind",
        at,
    })?;
    let at = d.pos();
    let flags = d.u8()?;
    if flags & !(FLAG_SPARSE | FLAG_CLOSED) != 0 {
        return Err(DecodeError::Invalid {
            what: "file flags",
            at,
        });
    }
    let aes = d.u64()?;
    let extents = decode_extents(d)?;
    Ok(FileMeta {
        id,
        name,
        size,
        lifetime,
        kind,
        sparse: flags & FLAG_SPARSE != 0,
        closed: flags & FLAG_CLOSED != 0,
        active_extent_start: (aes != u64::MAX).then_some(aes),
        extents,
    })
}

impl Record {
    /// Payload bytes (unframed).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        match self {
            Self::Superblock(s) => {
                e.u8(TAG_SUPERBLOCK)
                    .u32(MAGIC)
                    .u32(FORMAT_VERSION)
                    .u64(s.sequence);
                e.u64(s.block_size_bytes)
                    .u64(s.zone_size_bytes)
                    .u64(s.zone_capacity_bytes);
                e.u32(s.zone_count).u32(s.finish_threshold_pct);
            }
            Self::Snapshot {
                next_file_id,
                files,
                zone_lifetimes,
            } => {
                e.u8(TAG_SNAPSHOT).u64(*next_file_id);
                e.u32(u32::try_from(files.len()).unwrap_or(u32::MAX));
                for f in files {
                    encode_file(&mut e, f);
                }
                e.u32(u32::try_from(zone_lifetimes.len()).unwrap_or(u32::MAX));
                for (z, lt) in zone_lifetimes {
                    e.u32(*z).u8(*lt as u8);
                }
            }
            Self::FileUpdate {
                file,
                extents_before,
            } => {
                e.u8(TAG_FILE_UPDATE).u32(*extents_before);
                encode_file(&mut e, file);
            }
            Self::FileReplace { id, extents } => {
                e.u8(TAG_FILE_REPLACE).u64(*id);
                encode_extents(&mut e, extents);
            }
            Self::FileDelete { id } => {
                e.u8(TAG_FILE_DELETE).u64(*id);
            }
            Self::Rename { id, name } => {
                e.u8(TAG_RENAME).u64(*id).str(name);
            }
            Self::ZoneLifetime { zone, lifetime } => {
                e.u8(TAG_ZONE_LIFETIME).u32(*zone).u8(*lifetime as u8);
            }
        }
        e.finish()
    }

    /// Decodes a payload.
    ///
    /// # Errors
    /// [`DecodeError`] for truncated or impossible input; never panics.
    pub fn decode(payload: &[u8]) -> Result<Self, DecodeError> {
        let mut d = Decoder::new(payload);
        let rec = match d.u8()? {
            TAG_SUPERBLOCK => {
                let at = d.pos();
                if d.u32()? != MAGIC {
                    return Err(DecodeError::Invalid { what: "magic", at });
                }
                let at = d.pos();
                if d.u32()? != FORMAT_VERSION {
                    return Err(DecodeError::Invalid {
                        what: "format version",
                        at,
                    });
                }
                Self::Superblock(Superblock {
                    sequence: d.u64()?,
                    block_size_bytes: d.u64()?,
                    zone_size_bytes: d.u64()?,
                    zone_capacity_bytes: d.u64()?,
                    zone_count: d.u32()?,
                    finish_threshold_pct: d.u32()?,
                })
            }
            TAG_SNAPSHOT => {
                let next_file_id = d.u64()?;
                let n = d.count(40)?;
                let files = (0..n)
                    .map(|_| decode_file(&mut d))
                    .collect::<Result<Vec<_>, _>>()?;
                let n = d.count(5)?;
                let zone_lifetimes = (0..n)
                    .map(|_| Ok((d.u32()?, Lifetime::from_u8(d.u8()?))))
                    .collect::<Result<Vec<_>, DecodeError>>()?;
                Self::Snapshot {
                    next_file_id,
                    files,
                    zone_lifetimes,
                }
            }
            TAG_FILE_UPDATE => {
                let extents_before = d.u32()?;
                Self::FileUpdate {
                    file: decode_file(&mut d)?,
                    extents_before,
                }
            }
            TAG_FILE_REPLACE => Self::FileReplace {
                id: d.u64()?,
                extents: decode_extents(&mut d)?,
            },
            TAG_FILE_DELETE => Self::FileDelete { id: d.u64()? },
            TAG_RENAME => Self::Rename {
                id: d.u64()?,
                name: d.str()?,
            },
            TAG_ZONE_LIFETIME => Self::ZoneLifetime {
                zone: d.u32()?,
                lifetime: Lifetime::from_u8(d.u8()?),
            },
            _ => {
                return Err(DecodeError::Invalid {
                    what: "record tag",
                    at: 0,
                });
            }
        };
        if !d.is_done() {
            return Err(DecodeError::Invalid {
                what: "trailing bytes",
                at: d.pos(),
            });
        }
        Ok(rec)
    }

    /// The framed record, padded to `block` bytes.
    pub fn frame(&self, block: u64) -> Vec<u8> {
        frame_payload(&self.encode(), block)
    }
}

/// Frames `payload`: crc32c(len ‖ payload), len, payload, zero padding to `block`.
pub fn frame_payload(payload: &[u8], block: u64) -> Vec<u8> {
    let len = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .to_le_bytes();
    let crc = crc32c::crc32c_append(crc32c::crc32c(&len), payload);
    let mut out = Vec::with_capacity(FRAME_HEADER_BYTES + payload.len());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&len);
    out.extend_from_slice(payload);
    let padded = (out.len() as u64).div_ceil(block) * block;
    out.resize(usize::try_from(padded).unwrap_or(out.len()), 0);
    out
}

/// What is found at a position of a metadata zone.
#[derive(Debug, PartialEq, Eq)]
pub enum Unframed<'a> {
    /// A valid record payload and the framed length (padded) it occupies.
    Record(&'a [u8], usize),
    /// Zeros, a bad checksum or a length running past the data: the end of the valid log.
    End,
}

/// Reads the frame at the start of `data` (the bytes up to the write pointer).
pub fn unframe(data: &[u8], block: u64) -> Unframed<'_> {
    if data.len() < FRAME_HEADER_BYTES {
        return Unframed::End;
    }
    let crc = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let len_bytes = [data[4], data[5], data[6], data[7]];
    let len = u32::from_le_bytes(len_bytes) as usize;
    let Some(payload) = data.get(FRAME_HEADER_BYTES..FRAME_HEADER_BYTES.saturating_add(len)) else {
        return Unframed::End;
    };
    if crc32c::crc32c_append(crc32c::crc32c(&len_bytes), payload) != crc || len == 0 {
        return Unframed::End;
    }
    let framed = ((FRAME_HEADER_BYTES + len) as u64).div_ceil(block) * block;
    Unframed::Record(payload, usize::try_from(framed).unwrap_or(usize::MAX))
}

/// Decoder entry points for fuzzing and the corpus replay test: arbitrary bytes in, never a
/// panic out.
pub mod fuzz {
    use super::{Record, Unframed, unframe};

    /// Decodes `data` as one record payload; a record that decodes must encode and decode back
    /// to itself.
    ///
    /// # Panics
    /// When a decoded record does not survive a round trip (a decoder bug).
    pub fn record(data: &[u8]) {
        if let Ok(r) = Record::decode(data) {
            let again = Record::decode(&r.encode());
            assert_eq!(again.as_ref().ok(), Some(&r), "a record must round-trip");
        }
    }

    /// Walks `data` as a metadata zone (framed records, as mount's replay does), with a block
    /// size taken from the first byte.
    pub fn metadata_log(data: &[u8]) {
        let Some((&b, rest)) = data.split_first() else {
            return;
        };
        let block = [512u64, 4096, 1, 8][usize::from(b % 4)];
        let mut at = 0usize;
        while let Some(tail) = rest.get(at..) {
            match unframe(tail, block) {
                Unframed::Record(payload, framed) => {
                    let _ = Record::decode(payload);
                    at = at.saturating_add(framed.max(1));
                }
                Unframed::End => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> FileMeta {
        FileMeta {
            id: 7,
            name: "000012.sst".into(),
            size: 12345,
            lifetime: Lifetime::Long,
            kind: FileKind::Sst,
            sparse: false,
            closed: true,
            active_extent_start: Some(4096),
            extents: vec![
                Extent {
                    start: 8192,
                    len: 100,
                },
                Extent {
                    start: 1 << 30,
                    len: 4096,
                },
            ],
        }
    }

    #[test]
    fn every_record_round_trips() {
        let recs = vec![
            Record::Superblock(Superblock {
                sequence: 3,
                block_size_bytes: 4096,
                zone_size_bytes: 1 << 20,
                zone_capacity_bytes: 1 << 19,
                zone_count: 40,
                finish_threshold_pct: 10,
            }),
            Record::Snapshot {
                next_file_id: 9,
                files: vec![file(), file()],
                zone_lifetimes: vec![(3, Lifetime::Short)],
            },
            Record::FileUpdate {
                file: file(),
                extents_before: 3,
            },
            Record::FileReplace {
                id: 7,
                extents: vec![Extent { start: 1, len: 2 }],
            },
            Record::FileDelete { id: 7 },
            Record::Rename {
                id: 7,
                name: "x".into(),
            },
            Record::ZoneLifetime {
                zone: 5,
                lifetime: Lifetime::Extreme,
            },
        ];
        for r in recs {
            let framed = r.frame(4096);
            assert_eq!(framed.len() % 4096, 0);
            let Unframed::Record(p, n) = unframe(&framed, 4096) else {
                panic!("unframe failed")
            };
            assert_eq!(n, framed.len());
            assert_eq!(Record::decode(p).unwrap(), r);
        }
    }

    #[test]
    fn damaged_frames_end_the_log() {
        let framed = Record::FileDelete { id: 1 }.frame(512);
        for i in 0..16 {
            let mut bad = framed.clone();
            bad[i] ^= 0x40;
            assert_eq!(unframe(&bad, 512), Unframed::End, "byte {i}");
        }
        assert_eq!(unframe(&[0u8; 512], 512), Unframed::End);
        assert_eq!(unframe(&framed[..6], 512), Unframed::End);
    }
}

#[cfg(test)]
mod proptests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Arbitrary bytes never make the decoders panic or allocate without bound.
        #[test]
        fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
            let _ = Record::decode(&bytes);
            let _ = unframe(&bytes, 512);
        }

        /// Flipping any bit of a framed record is caught by the checksum or the decoder.
        #[test]
        fn bit_flips_never_decode_to_a_different_record(id in any::<u64>(), name in "[a-z]{0,20}", bit in 0usize..800) {
            let rec = Record::Rename { id, name };
            let mut framed = rec.frame(512);
            let bit = bit % (framed.len() * 8);
            framed[bit / 8] ^= 1 << (bit % 8);
            if let Unframed::Record(p, _) = unframe(&framed, 512) {
                // Only a flip in the padding leaves the record intact.
                prop_assert_eq!(Record::decode(p).ok(), Some(rec));
            }
        }
    }
}
