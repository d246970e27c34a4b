//! db_bench's benchmark names as a type: a `--benchmarks` list (or a scenario's
//! `workload.benchmarks`) is parsed once into [`Benchmark`]s, and everything that depends on
//! the benchmark (fresh database or not, what it counts) matches on the enum.

use std::fmt;
use std::str::FromStr;

/// Benchmarks this harness runs, in db_bench's names (the order `known:` lists them in).
pub const BENCHMARKS: [&str; 11] = [
    "fillseq",
    "fillrandom",
    "filluniquerandom",
    "overwrite",
    "readrandom",
    "readseq",
    "seekrandom",
    "deleterandom",
    "readwhilewriting",
    "readrandomwriterandom",
    "waitforcompaction",
];

/// One of db_bench's benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Benchmark {
    /// `fillseq`: `num` puts in key order (fresh database).
    FillSeq,
    /// `fillrandom`: `num` puts of uniformly drawn keys (fresh database).
    FillRandom,
    /// `filluniquerandom`: `num` puts of every key once, in a shuffled order (fresh database).
    /// As db_bench's, the permutation is per thread: unique within a thread.
    FillUniqueRandom,
    /// `overwrite`: `num` puts of uniformly drawn keys.
    Overwrite,
    /// `readrandom`: `reads` gets of uniformly drawn keys.
    ReadRandom,
    /// `readseq`: a scan of up to `reads` entries.
    ReadSeq,
    /// `seekrandom`: `reads` seeks, each followed by `seek_nexts` steps.
    SeekRandom,
    /// `deleterandom`: `num` deletes of uniformly drawn keys.
    DeleteRandom,
    /// `readwhilewriting`: readrandom beside one uncounted writer.
    ReadWhileWriting,
    /// `readrandomwriterandom`: `readwritepercent` gets, the rest puts.
    ReadRandomWriteRandom,
    /// `waitforcompaction`: waits out the flushes and compactions still owed.
    WaitForCompaction,
}

/// A name that is no benchmark.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown benchmark '{0}'; known: {known}", known = BENCHMARKS.join(", "))]
pub struct UnknownBenchmark(pub String);

impl Benchmark {
    /// Every benchmark, in the order of [`BENCHMARKS`].
    pub const ALL: [Self; 11] = [
        Self::FillSeq,
        Self::FillRandom,
        Self::FillUniqueRandom,
        Self::Overwrite,
        Self::ReadRandom,
        Self::ReadSeq,
        Self::SeekRandom,
        Self::DeleteRandom,
        Self::ReadWhileWriting,
        Self::ReadRandomWriteRandom,
        Self::WaitForCompaction,
    ];

    /// db_bench's name.
    pub fn name(self) -> &'static str {
        BENCHMARKS[self as usize]
    }

    /// Whether db_bench starts it on a fresh database (readwhilewriting and
    /// readrandomwriterandom use the existing one, as in db_bench).
    pub fn is_fresh_db(self) -> bool {
        matches!(
            self,
            Self::FillSeq | Self::FillRandom | Self::FillUniqueRandom
        )
    }

    /// Whether it writes `num` keys per thread (the others do `reads` operations).
    pub fn writes_num_keys(self) -> bool {
        matches!(
            self,
            Self::FillSeq
                | Self::FillRandom
                | Self::FillUniqueRandom
                | Self::Overwrite
                | Self::DeleteRandom
        )
    }

    /// Whether it reports `(found of reads found)`.
    pub fn reports_found(self) -> bool {
        matches!(
            self,
            Self::ReadRandom | Self::SeekRandom | Self::ReadWhileWriting
        )
    }

    /// A comma-separated list (blank entries skipped), each name checked.
    ///
    /// # Errors
    /// [`UnknownBenchmark`] naming the first unknown name.
    pub fn parse_list(list: &str) -> Result<Vec<Self>, UnknownBenchmark> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl FromStr for Benchmark {
    type Err = UnknownBenchmark;

    fn from_str(s: &str) -> Result<Self, UnknownBenchmark> {
        Self::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| UnknownBenchmark(s.to_owned()))
    }
}

impl fmt::Display for Benchmark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_known_ones() {
        for (b, n) in Benchmark::ALL.into_iter().zip(BENCHMARKS) {
            assert_eq!(b.name(), n);
            assert_eq!(n.parse::<Benchmark>(), Ok(b));
        }
        assert_eq!(
            Benchmark::parse_list(" fillrandom,,readrandom ").unwrap(),
            [Benchmark::FillRandom, Benchmark::ReadRandom]
        );
        let e = Benchmark::parse_list("fillrandom,nosuch").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown benchmark 'nosuch'; known: fillseq, fillrandom, filluniquerandom, overwrite, \
             readrandom, readseq, seekrandom, deleterandom, readwhilewriting, readrandomwriterandom, \
             waitforcompaction"
        );
        assert!(Benchmark::FillSeq.is_fresh_db() && !Benchmark::Overwrite.is_fresh_db());
    }
}
