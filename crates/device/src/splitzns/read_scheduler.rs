//! The Read Scheduler's detection (SplitZNS §4.4.2): a read pointer per subzone, at its start
//! until a read arrives exactly there; such a read is a compaction read (compactions read an
//! SST whole, in order, once) and moves the pointer on by its length; any other read is a
//! query. The device compares its guess with the host's own tag ([`IoClass`]) and counts
//! agreements, as the paper's §4.5.3 measured its accuracy.

use crate::IoClass;

/// What the device takes a subzone read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadGuess {
    /// A user query (random): served before every other queued die operation.
    Query,
    /// A compaction read (at the read pointer): queued behind queries.
    Compaction,
}

impl ReadGuess {
    /// The class the die scheduler serves this guess with.
    pub fn class(self) -> IoClass {
        match self {
            Self::Query => IoClass::QueryRead,
            Self::Compaction => IoClass::BackgroundRead,
        }
    }
}

/// Read pointers of every subzone and the detection's agreement counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadScheduler {
    /// Per subzone (global index): bytes from its start read by compactions.
    pointers: Vec<u64>,
    /// `[host query → query, host query → compaction, host background → query, host
    /// background → compaction]`.
    counts: [u64; 4],
}

impl ReadScheduler {
    /// Read pointers at the start of `subzones` subzones.
    pub fn new(subzones: usize) -> Self {
        Self {
            pointers: vec![0; subzones],
            counts: [0; 4],
        }
    }

    /// Classifies a read of `len` bytes at `rel` from the start of subzone `global` that the
    /// host tagged `host`: at the read pointer it is a compaction read and the pointer moves
    /// on; elsewhere a query. Counts the agreement with the host's tag (a host tag other than
    /// [`IoClass::QueryRead`] counts as background).
    pub fn classify(&mut self, global: u32, rel: u64, len: u64, host: IoClass) -> ReadGuess {
        let Some(p) = self.pointers.get_mut(global as usize) else {
            return ReadGuess::Query;
        };
        let guess = if rel == *p {
            *p += len;
            ReadGuess::Compaction
        } else {
            ReadGuess::Query
        };
        let host_query = host == IoClass::QueryRead;
        let i = match (host_query, guess) {
            (true, ReadGuess::Query) => 0,
            (true, ReadGuess::Compaction) => 1,
            (false, ReadGuess::Query) => 2,
            (false, ReadGuess::Compaction) => 3,
        };
        self.counts[i] += 1;
        guess
    }

    /// The read pointer of subzone `global` (bytes from its start).
    pub fn pointer(&self, global: u32) -> u64 {
        self.pointers.get(global as usize).copied().unwrap_or(0)
    }

    /// Back to the subzone's start (MERGE).
    pub fn reset(&mut self, global: u32) {
        if let Some(p) = self.pointers.get_mut(global as usize) {
            *p = 0;
        }
    }

    /// `[host query → query, host query → compaction, host background → query, host
    /// background → compaction]` so far.
    pub fn counts(&self) -> [u64; 4] {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_reads_follow_the_pointer_and_others_are_queries() {
        let mut rs = ReadScheduler::new(2);
        assert_eq!(
            rs.classify(1, 0, 8, IoClass::BackgroundRead),
            ReadGuess::Compaction
        );
        assert_eq!(
            rs.classify(1, 8, 8, IoClass::BackgroundRead),
            ReadGuess::Compaction
        );
        assert_eq!(rs.classify(1, 64, 8, IoClass::QueryRead), ReadGuess::Query);
        assert_eq!(rs.classify(1, 0, 8, IoClass::QueryRead), ReadGuess::Query);
        assert_eq!(rs.pointer(1), 16);
        assert_eq!(rs.counts(), [2, 0, 0, 2]);
        rs.reset(1);
        assert_eq!(
            rs.classify(1, 0, 8, IoClass::QueryRead),
            ReadGuess::Compaction
        );
        assert_eq!(rs.counts(), [2, 1, 0, 2]);
    }
}
