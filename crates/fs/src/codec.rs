//! Little-endian binary encoding of metadata, with a decoder that never panics: every read is
//! bounds-checked and reports a typed [`DecodeError`].

/// Why bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ended early.
    #[error("truncated at byte {0}")]
    Truncated(usize),
    /// A field holds an impossible value.
    #[error("invalid {what} at byte {at}")]
    Invalid {
        /// Field name.
        what: &'static str,
        /// Byte position.
        at: usize,
    },
}

/// Appends encoded values to a buffer.
#[derive(Debug, Default)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes so far.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// Four bytes LE.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes LE.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.u32(u32::try_from(s.len()).unwrap_or(u32::MAX));
        self.buf.extend_from_slice(s.as_bytes());
        self
    }
}

/// Reads encoded values from a slice.
#[derive(Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

#[allow(
    clippy::missing_errors_doc,
    reason = "every read fails only with the DecodeError its signature names"
)]
impl<'a> Decoder<'a> {
    /// Reads from `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Whether everything was consumed.
    pub fn is_done(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(DecodeError::Truncated(self.pos))?;
        let s = self
            .buf
            .get(self.pos..end)
            .ok_or(DecodeError::Truncated(self.pos))?;
        self.pos = end;
        Ok(s)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    /// Four bytes LE.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }

    /// Eight bytes LE.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self) -> Result<String, DecodeError> {
        let at = self.pos;
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| DecodeError::Invalid {
            what: "utf-8 string",
            at,
        })
    }

    /// A count of items each at least `min_item_bytes` long, checked against the bytes left so
    /// a corrupt count cannot make the caller allocate without bound.
    pub fn count(&mut self, min_item_bytes: usize) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.u32()? as usize;
        if n.saturating_mul(min_item_bytes.max(1)) > self.buf.len() - self.pos {
            return Err(DecodeError::Invalid { what: "count", at });
        }
        Ok(n)
    }

    /// Current position.
    pub fn pos(&self) -> usize {
        self.pos
    }
}
