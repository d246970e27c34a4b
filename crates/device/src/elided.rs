//! Bytes with elided ranges: a logical byte string in which some ranges ("holes") count in
//! every offset, length and timing but are not stored. Simulation elides value payloads the
//! workload generator can regenerate (see `docs/architecture.md`, "Elided payloads"): the
//! device is asked to write, read and copy exactly as many bytes as without elision, and
//! keeps only the bytes that are not holes. A hole reads as zeros when materialized.

/// A range of elided bytes: `len` bytes at logical offset `at` (from the start of the
/// string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole {
    /// Logical offset of the hole's first byte.
    pub at: u64,
    /// Bytes in the hole (never 0 in a normalized string).
    pub len: u64,
}

/// What [`ElidedBytes::view_in`] finds in a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeView<'a> {
    /// The range is empty (or lies past the string's end).
    Empty,
    /// No hole meets the range: its bytes, borrowed.
    Dense(&'a [u8]),
    /// A hole meets the range: its last piece (`Ok(stored bytes)` or `Err(hole length)`).
    Tail(Result<&'a [u8], u64>),
}

/// A logical byte string of [`ElidedBytes::len`] bytes: the stored bytes in order
/// ([`ElidedBytes::data`]) with the holes between them. Holes are sorted, never empty, never
/// adjacent (adjacent holes are merged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElidedBytes {
    data: Vec<u8>,
    holes: Vec<Hole>,
    /// Per hole: the stored bytes before it (the hole map from logical to stored offsets, so
    /// a range is found by binary search).
    stored_at: Vec<u64>,
    len: u64,
}

impl ElidedBytes {
    /// An empty string.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty string with room for `stored` stored bytes.
    pub fn with_capacity(stored: usize) -> Self {
        Self {
            data: Vec::with_capacity(stored),
            holes: Vec::new(),
            stored_at: Vec::new(),
            len: 0,
        }
    }

    /// An empty string with room for `stored` stored bytes and `holes` holes.
    pub fn with_room(stored: usize, holes: usize) -> Self {
        Self {
            data: Vec::with_capacity(stored),
            holes: Vec::with_capacity(holes),
            stored_at: Vec::with_capacity(holes),
            len: 0,
        }
    }

    /// A string with no holes.
    pub fn from_vec(data: Vec<u8>) -> Self {
        let len = data.len() as u64;
        Self {
            data,
            holes: Vec::new(),
            stored_at: Vec::new(),
            len,
        }
    }

    /// The string of the stored bytes `data` with holes inserted: each `(stored, len)` puts
    /// a hole of `len` bytes after the first `stored` stored bytes (sorted by `stored`; holes
    /// at the same place merge). Takes `data` without copying it.
    pub fn from_stored_holes(data: Vec<u8>, holes: &[(usize, u64)]) -> Self {
        let mut out = Self {
            holes: Vec::with_capacity(holes.len()),
            stored_at: Vec::with_capacity(holes.len()),
            ..Self::default()
        };
        let mut hole_bytes = 0u64;
        for &(stored, len) in holes {
            let stored = stored.min(data.len()) as u64;
            if len == 0 {
                continue;
            }
            let at = stored + hole_bytes;
            match out.holes.last_mut() {
                Some(h) if h.at + h.len == at => h.len += len,
                _ => {
                    out.holes.push(Hole { at, len });
                    out.stored_at.push(stored);
                }
            }
            hole_bytes += len;
        }
        out.len = data.len() as u64 + hole_bytes;
        out.data = data;
        out
    }

    /// The stored bytes (holes left out), taking them without a copy.
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// Logical length (stored bytes plus holes).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the logical length is 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stored bytes, in order (holes left out).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The holes, sorted by offset.
    pub fn holes(&self) -> &[Hole] {
        &self.holes
    }

    /// Whether the string has no holes (its stored bytes are all of it).
    pub fn is_dense(&self) -> bool {
        self.holes.is_empty()
    }

    /// Bytes in holes.
    pub fn hole_bytes(&self) -> u64 {
        self.len - self.data.len() as u64
    }

    /// Appends stored bytes.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
        self.len += bytes.len() as u64;
    }

    /// Appends a hole of `len` bytes (nothing for 0; merged with a hole just before it).
    pub fn push_hole(&mut self, len: u64) {
        if len == 0 {
            return;
        }
        match self.holes.last_mut() {
            Some(h) if h.at + h.len == self.len => h.len += len,
            _ => {
                self.holes.push(Hole { at: self.len, len });
                self.stored_at.push(self.data.len() as u64);
            }
        }
        self.len += len;
    }

    /// Appends `n` stored zeros.
    pub fn push_zeros(&mut self, n: usize) {
        self.data.resize(self.data.len() + n, 0);
        self.len += n as u64;
    }

    /// Appends another string.
    pub fn push(&mut self, other: &Self) {
        self.push_range(other, 0, other.len);
    }

    /// Empties the string, keeping its buffers.
    pub fn clear(&mut self) {
        self.data.clear();
        self.holes.clear();
        self.stored_at.clear();
        self.len = 0;
    }

    /// The pieces in order: `Ok(stored bytes)` or `Err(hole length)`.
    pub fn pieces(&self) -> impl Iterator<Item = Result<&[u8], u64>> + '_ {
        let mut out = Vec::with_capacity(self.holes.len() * 2 + 1);
        let mut stored = 0usize;
        let mut at = 0u64;
        for h in &self.holes {
            let n = usize::try_from(h.at - at).unwrap_or(usize::MAX);
            if n > 0 {
                out.push(Ok(&self.data[stored..stored + n]));
            }
            stored += n;
            out.push(Err(h.len));
            at = h.at + h.len;
        }
        if stored < self.data.len() {
            out.push(Ok(&self.data[stored..]));
        }
        out.into_iter()
    }

    /// The logical range `[at, at + len)` (clipped to the string) as a new string.
    #[must_use]
    pub fn slice(&self, at: u64, len: u64) -> Self {
        let mut out = Self::new();
        out.push_range(self, at, len);
        out
    }

    /// Stored bytes before logical byte `at` (inside a hole: before the hole).
    fn stored_of(&self, at: u64) -> u64 {
        let i = self.holes.partition_point(|h| h.at <= at);
        match i.checked_sub(1) {
            None => at,
            Some(j) => {
                let h = self.holes[j];
                self.stored_at[j] + at.saturating_sub(h.at + h.len)
            }
        }
    }

    /// Appends the logical range `[at, at + len)` of `other` (clipped to it), without an
    /// intermediate string, the room for its stored bytes and holes reserved once.
    pub fn push_range(&mut self, other: &Self, at: u64, len: u64) {
        if !other.holes.is_empty() {
            let end = at.saturating_add(len).min(other.len);
            if at < end {
                // The holes the range meets (one binary search, then a short walk): their
                // count and the hole bytes inside the range.
                let first = other.holes.partition_point(|h| h.at + h.len <= at);
                let (mut holes, mut hole_bytes) = (0, 0);
                for h in other.holes[first..].iter().take_while(|h| h.at < end) {
                    holes += 1;
                    hole_bytes += (h.at + h.len).min(end) - h.at.max(at);
                }
                let stored = (end - at) - hole_bytes;
                self.data.reserve(usize::try_from(stored).unwrap_or(0));
                self.holes.reserve(holes);
                self.stored_at.reserve(holes);
            }
        }
        other.for_each_piece_in(at, len, |p| match p {
            Ok(bytes) => self.push_bytes(bytes),
            Err(n) => self.push_hole(n),
        });
    }

    /// The shape of the logical range `[at, at + len)` (clipped to the string), found in one
    /// walk: one borrowed slice when no hole meets it, else its last piece. `hint` is where the
    /// search for the range's first hole starts (any value is correct; the value a previous
    /// call left there makes ranges read in ascending order cost no binary search), and is
    /// left for the next call.
    pub fn view_in(&self, at: u64, len: u64, hint: &mut usize) -> RangeView<'_> {
        let (mut pieces, mut last) = (0u32, None);
        *hint = self.for_each_piece_from(at, len, *hint, |p| {
            pieces += 1;
            last = Some(p);
        });
        match (pieces, last) {
            (_, None) => RangeView::Empty,
            (1, Some(Ok(bytes))) => RangeView::Dense(bytes),
            (_, Some(tail)) => RangeView::Tail(tail),
        }
    }

    /// The pieces of the logical range `[at, at + len)` (clipped to the string) in order,
    /// borrowed: `Ok(stored bytes)` or `Err(hole length)`.
    pub fn pieces_in(&self, at: u64, len: u64) -> Vec<Result<&[u8], u64>> {
        let mut out = Vec::new();
        self.for_each_piece_in(at, len, |p| out.push(p));
        out
    }

    /// The stored bytes of the logical range `[at, at + len)` when no hole meets it (and it
    /// lies in the string).
    pub fn dense_range(&self, at: u64, len: u64) -> Option<&[u8]> {
        let end = at.checked_add(len).filter(|&e| e <= self.len)?;
        if len == 0 {
            return Some(&[]);
        }
        let i = self.holes.partition_point(|h| h.at + h.len <= at);
        if self.holes.get(i).is_some_and(|h| h.at < end) {
            return None;
        }
        let from = usize::try_from(self.stored_of(at)).ok()?;
        self.data.get(from..from + usize::try_from(len).ok()?)
    }

    /// Hands `visit` the pieces of the logical range `[at, at + len)` (clipped) in order; the
    /// holes it spans are found by binary search.
    fn for_each_piece_in<'a>(
        &'a self,
        at: u64,
        len: u64,
        visit: impl FnMut(Result<&'a [u8], u64>),
    ) {
        self.for_each_piece_from(at, len, usize::MAX, visit);
    }

    /// The index of the first hole that ends after `at`: a short walk from `hint` when every
    /// hole before `hint` ends by `at`, else a binary search.
    fn first_hole_after(&self, at: u64, hint: usize) -> usize {
        let ends_by = |h: &Hole| h.at + h.len <= at;
        if hint <= self.holes.len() && (hint == 0 || ends_by(&self.holes[hint - 1])) {
            let mut i = hint;
            for _ in 0..8 {
                match self.holes.get(i) {
                    Some(h) if ends_by(h) => i += 1,
                    _ => return i,
                }
            }
        }
        self.holes.partition_point(ends_by)
    }

    /// As [`Self::for_each_piece_in`], the first hole searched from `hint`
    /// ([`Self::first_hole_after`]); returns a hint for a range at or after this one's end.
    fn for_each_piece_from<'a>(
        &'a self,
        at: u64,
        len: u64,
        hint: usize,
        mut visit: impl FnMut(Result<&'a [u8], u64>),
    ) -> usize {
        let end = at.saturating_add(len).min(self.len);
        if at >= end {
            return hint;
        }
        let idx = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        // The holes that end after `at` and start before `end` (found from the hint or by one
        // binary search, and a walk: a range meets few holes).
        let first = self.first_hole_after(at, hint);
        let last = first
            + self.holes[first..]
                .iter()
                .take_while(|h| h.at < end)
                .count();
        // `pos`: a logical offset not inside a hole; `stored`: the stored bytes before it.
        let (mut pos, mut stored) = match first.checked_sub(1) {
            None => (0, 0),
            Some(j) => (self.holes[j].at + self.holes[j].len, self.stored_at[j]),
        };
        // The stored bytes of the run `[from, to)` (`stored` before it) inside the range.
        let run = |from: u64, to: u64, stored: u64| {
            let (s, e) = (from.max(at), to.min(end));
            (s < e).then(|| {
                let first = stored + (s - from);
                &self.data[idx(first)..idx(first + (e - s))]
            })
        };
        for (h, &before) in self.holes[first..last]
            .iter()
            .zip(&self.stored_at[first..last])
        {
            if let Some(bytes) = run(pos, h.at, stored) {
                visit(Ok(bytes));
            }
            let (s, e) = (h.at.max(at), (h.at + h.len).min(end));
            if s < e {
                visit(Err(e - s));
            }
            pos = h.at + h.len;
            stored = before;
        }
        if let Some(bytes) = run(pos, end, stored) {
            visit(Ok(bytes));
        }
        // Every hole before the last one met ends by `end`.
        last.saturating_sub(1).max(first)
    }

    /// The string with its holes as zeros.
    pub fn materialize(&self) -> Vec<u8> {
        if self.holes.is_empty() {
            return self.data.clone();
        }
        let mut out = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
        for p in self.pieces() {
            match p {
                Ok(b) => out.extend_from_slice(b),
                Err(n) => out.resize(out.len() + usize::try_from(n).unwrap_or(0), 0),
            }
        }
        out
    }

    /// The string's stored bytes, when it has no holes.
    ///
    /// # Errors
    /// The string itself when it has holes.
    pub fn into_dense(self) -> Result<Vec<u8>, Self> {
        if self.holes.is_empty() {
            Ok(self.data)
        } else {
            Err(self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ElidedBytes {
        let mut e = ElidedBytes::new();
        e.push_bytes(b"ab");
        e.push_hole(3);
        e.push_hole(1);
        e.push_bytes(b"cde");
        e.push_hole(2);
        e
    }

    #[test]
    fn holes_merge_and_count_in_the_length() {
        let e = sample();
        assert_eq!(e.len(), 11);
        assert_eq!(e.data(), b"abcde");
        assert_eq!(e.holes(), &[Hole { at: 2, len: 4 }, Hole { at: 9, len: 2 }]);
        assert_eq!(e.hole_bytes(), 6);
        assert_eq!(e.materialize(), b"ab\0\0\0\0cde\0\0".to_vec());
    }

    #[test]
    fn slices_and_pushes_agree_with_the_materialized_bytes() {
        let mut lead = ElidedBytes::new();
        lead.push_hole(3);
        lead.push(&sample());
        lead.push_bytes(b"fg");
        for e in [sample(), lead] {
            slices_agree(&e);
        }
    }

    fn slices_agree(e: &ElidedBytes) {
        let e = e.clone();
        let full = e.materialize();
        for at in 0..=e.len() {
            for len in 0..=e.len() - at {
                let s = e.slice(at, len);
                assert_eq!(s.len(), len);
                assert_eq!(
                    s.materialize(),
                    full[at as usize..(at + len) as usize].to_vec(),
                    "{at}+{len}"
                );
                let mut joined = e.slice(0, at);
                joined.push(&e.slice(at, e.len() - at));
                assert_eq!(joined, e, "split at {at}");
            }
        }
    }

    #[test]
    fn stored_bytes_with_hole_places_build_the_same_string() {
        let e = ElidedBytes::from_stored_holes(b"abcde".to_vec(), &[(2, 3), (2, 1), (5, 2)]);
        assert_eq!(e, sample());
        assert_eq!(e.into_data(), b"abcde".to_vec());
        let mut z = sample();
        z.push_zeros(2);
        assert_eq!(z.len(), 13);
        assert_eq!(z.materialize(), b"ab\0\0\0\0cde\0\0\0\0".to_vec());
    }

    #[test]
    fn many_holes_slice_like_their_materialized_bytes() {
        let mut e = ElidedBytes::new();
        for i in 0..9u8 {
            e.push_bytes(&[i; 2][..usize::from(i % 3)]);
            e.push_hole(u64::from(i % 2) + 1);
        }
        slices_agree(&e);
    }

    #[test]
    fn borrowed_pieces_and_dense_ranges_match_slices() {
        let e = sample();
        for at in 0..=e.len() {
            for len in 0..=e.len() - at {
                let s = e.slice(at, len);
                let mut joined = ElidedBytes::new();
                for p in e.pieces_in(at, len) {
                    match p {
                        Ok(b) => joined.push_bytes(b),
                        Err(n) => joined.push_hole(n),
                    }
                }
                assert_eq!(joined, s, "{at}+{len}");
                let dense = e.dense_range(at, len);
                assert_eq!(dense.is_some(), s.is_dense(), "{at}+{len}");
                if let Some(d) = dense {
                    assert_eq!(d, s.data());
                }
            }
        }
    }

    /// `view_in` sees what the pieces show, whatever hint it starts from (stale, too far,
    /// out of range), and the hint it leaves serves the next range in order.
    #[test]
    fn range_views_match_the_pieces_from_any_hint() {
        let mut e = ElidedBytes::new();
        for i in 0..40u8 {
            e.push_bytes(&[i; 3][..usize::from(i % 4)]);
            e.push_hole(u64::from(i % 3) + 1);
        }
        let n = e.holes().len();
        for at in 0..=e.len() {
            for len in 0..=(e.len() - at).min(12) {
                let pieces = e.pieces_in(at, len);
                let want = match pieces.as_slice() {
                    [] => RangeView::Empty,
                    [Ok(b)] => RangeView::Dense(b),
                    [.., last] => RangeView::Tail(*last),
                };
                for start in [0, 1, n / 2, n - 1, n, n + 7, usize::MAX] {
                    let mut hint = start;
                    assert_eq!(
                        e.view_in(at, len, &mut hint),
                        want,
                        "{at}+{len} from {start}"
                    );
                    let mut next = hint;
                    let fresh = e.view_in(at + len, 5, &mut 0);
                    assert_eq!(e.view_in(at + len, 5, &mut next), fresh, "after {at}+{len}");
                }
            }
        }
    }

    #[test]
    fn dense_strings_have_no_holes() {
        let e = ElidedBytes::from_vec(b"xyz".to_vec());
        assert!(e.is_dense());
        assert_eq!(e.into_dense(), Ok(b"xyz".to_vec()));
        assert!(sample().into_dense().is_err());
    }
}
