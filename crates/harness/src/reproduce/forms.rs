//! The schemes of the studies in their two forms, and the authors' experimental setup.
//!
//! A paper's text and its authors' code differ; the code produced the figures. Every scheme
//! therefore names two sets of policies:
//!
//! - **code** (the default): what the authors' run script ran. For the Same-Zone Compaction
//!   paper that is `lass-lab/CAZAandZACA_MSST24` at e4b644d (`script/benchmark.sh`): the
//!   authors' ZenFS allocator (`liza-caza`), CAZA as `AllocateCompactionAwaredZoneV2`
//!   (`caza-artifact`), ZACA scored by `GetMaxInvalidateCompactionScore` under the free-space
//!   controller (`acc-artifact`), RocksDB 7.4's stock picker (`kMinOverlappingRatio`) for the
//!   Baseline and as every fallback;
//! - **text**: the policies as the paper's text states them (`liza` as upstream ZenFS, SICA,
//!   ZACA by equation 1 under pseudocode 1's turning point, CAZA as §VI).
//!
//! [`authors_setup`] is the db_bench set-up of that script (buffered reads through the page
//! cache, compressible values and Snappy, no WAL, no intra-L0 compaction, 8 subcompactions,
//! zone cleaning that holds back flushes and compactions, the allocation-retry wait); both
//! forms run on it, so the two tables differ only in the policies. The ablation
//! ([`super::ablation`]) walks from today's set-up and text forms to this, one step at a time.

use super::StudyId;
use crate::db_bench::HarnessError;
use crate::scenario::Override;

/// A placement policy and a victim-selection scheme, by their registry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policies {
    /// `fs.placement`.
    pub placement: &'static str,
    /// `engine.compaction_scheme`.
    pub compaction: &'static str,
}

impl Policies {
    /// The overrides that select these policies.
    pub fn overrides(self) -> [Override; 2] {
        [
            Override::Placement(self.placement.to_owned()),
            Override::engine_str("compaction_scheme", self.compaction),
        ]
    }
}

/// Which form of the policies a configuration runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    /// The authors' code (what produced the paper's figures).
    Code,
    /// The paper's text.
    Text,
}

impl Form {
    /// Both, the default first.
    pub const ALL: [Self; 2] = [Self::Code, Self::Text];

    /// `code` / `text`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Text => "text",
        }
    }

    /// From `code` / `text`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for anything else.
    pub fn parse(s: &str) -> Result<Self, HarnessError> {
        match s {
            "code" => Ok(Self::Code),
            "text" => Ok(Self::Text),
            other => Err(HarnessError::unknown("form", other, ["code", "text"])),
        }
    }
}

/// One scheme of a study under the paper's name, in both forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scheme {
    /// The paper's name (`Baseline`, `A-CAZA`, ...).
    pub name: &'static str,
    /// As the authors' code ran it.
    pub code: Policies,
    /// As the paper's text states it.
    pub text: Policies,
}

impl Scheme {
    /// The policies of `form`.
    pub fn policies(&self, form: Form) -> Policies {
        match form {
            Form::Code => self.code,
            Form::Text => self.text,
        }
    }
}

const fn p(placement: &'static str, compaction: &'static str) -> Policies {
    Policies {
        placement,
        compaction,
    }
}

/// The Same-Zone Compaction paper's four schemes.
pub const SAME_ZONE_SCHEMES: [Scheme; 4] = [
    Scheme {
        name: "Baseline",
        code: p("liza-caza", "rocksdb"),
        text: p("liza", "sica"),
    },
    Scheme {
        name: "A-LIZA",
        code: p("liza-caza", "acc-artifact"),
        text: p("liza", "acc"),
    },
    Scheme {
        name: "CAZA",
        code: p("caza-artifact", "rocksdb"),
        text: p("caza", "sica"),
    },
    Scheme {
        name: "A-CAZA",
        code: p("caza-artifact", "acc-artifact"),
        text: p("caza", "acc"),
    },
];

/// The OAZA slides' three schemes (RocksDB's own picker underneath). OAZA has no public code:
/// both forms are its reconstruction from the slides (key-range overlap ratio); the "code"
/// form lets the SST spill out of its target zone as the CAZA code does (`oaza-spill`; the
/// slides never require the whole SST to fit), the text form needs room for all of it. Its LIZA is
/// upstream ZenFS's in both; its CAZA is the HotStorage'22 paper it cites, whose code form is
/// `caza-v1-artifact` (`AllocateCompactionAwaredZone`).
pub const OAZA_SCHEMES: [Scheme; 3] = [
    Scheme {
        name: "LIZA",
        code: p("liza", "rocksdb"),
        text: p("liza", "rocksdb"),
    },
    Scheme {
        name: "CAZA",
        code: p("caza-v1-artifact", "rocksdb"),
        text: p("caza", "rocksdb"),
    },
    Scheme {
        name: "OAZA",
        code: p("oaza-spill", "rocksdb"),
        text: p("oaza", "rocksdb"),
    },
];

/// OAZA read the other natural way: when the target zone is full, the SST opens a fresh zone
/// for its overlap-ratio band, which later SSTs of the band fill (`oaza-band`), instead of
/// falling back to LIZA. Not the slides' scheme (they say nothing of a full target zone) and
/// without a code form of its own: both forms are `oaza-band`. Beside the slides' schemes in
/// the matrix, not in the ablation.
pub const OAZA_BAND: Scheme = Scheme {
    name: "OAZA-band",
    code: p("oaza-band", "rocksdb"),
    text: p("oaza-band", "rocksdb"),
};

/// The OAZA study's matrix: the slides' schemes, then [`OAZA_BAND`].
pub const OAZA_MATRIX: [Scheme; 4] = [OAZA_SCHEMES[0], OAZA_SCHEMES[1], OAZA_SCHEMES[2], OAZA_BAND];

/// The Same-Zone Compaction paper's workloads.
pub const SAME_ZONE_WORKLOADS: [&str; 4] = ["fillrandom", "zipfian", "latest", "uniform"];

/// One step of the way from today's set-up to the authors': a name and what it changes. The
/// steps of [`authors_setup`] and of the ablation are the same values.
#[derive(Debug, Clone, PartialEq)]
pub struct SetupStep {
    /// What it moves, as the ablation table names it.
    pub name: &'static str,
    /// The overrides.
    pub overrides: Vec<Override>,
}

/// Page cache of the host the authors ran on, at paper scale: 4 GiB. Their script sets
/// neither direct reads nor `compaction_readahead_size`, so RocksDB 7.4 read compaction inputs
/// block by block through ZenFS's buffered path: the kernel's page cache and its readahead
/// (128 KiB). The VM's memory is not stated; 4 GiB is our assumption, scaled with the device.
pub const AUTHORS_PAGE_CACHE_BYTES: u64 = 4 << 30;

/// Linux's default `read_ahead_kb`.
pub const AUTHORS_READAHEAD_KB: u64 = 128;

/// Subcompactions in the authors' script (`-subcompactions=8`).
pub const AUTHORS_SUBCOMPACTIONS: u64 = 8;

/// How often the authors' ZenFS checks whether zone cleaning still runs when RocksDB asks for
/// the free space to schedule a job (`ZenFS::GetFreeSpace` sleeps 1 s per check).
pub const AUTHORS_ZC_POLL_MS: u64 = 1000;

/// The allocation-retry wait of the authors' ZenFS (`ZoneFile::AllocateNewZone` sleeps 1 s
/// between attempts).
pub const AUTHORS_ALLOC_RETRY_MS: u64 = 1000;

/// The db_bench set-up of the authors' run script, one difference per step, in the order the
/// ablation moves them, with sizes divided by `div` (the study's scale). [`today`] is what
/// the study ran before it: compaction inputs read block by block from the device.
///
/// # Errors
/// [`HarnessError::Config`] if a value does not fit (a bug).
pub fn setup_steps(study: StudyId, div: u64) -> Result<Vec<SetupStep>, HarnessError> {
    let int = |v: u64| toml::Value::Integer(i64::try_from(v).unwrap_or(i64::MAX));
    if study == StudyId::Oaza {
        // The slides: db_bench with direct I/O (RocksDB then reads compaction inputs through
        // a 2 MiB readahead) and its default values and compression.
        return Ok(vec![
            SetupStep {
                name: "direct I/O: compaction readahead 2 MiB (RocksDB's with direct I/O)",
                overrides: vec![Override::engine_int(
                    "compaction_readahead_size",
                    DIRECT_IO_READAHEAD_BYTES,
                )?],
            },
            db_bench_values(),
        ]);
    }
    Ok(vec![
        SetupStep {
            name: "buffered reads: page cache (4 GiB scaled) + kernel readahead 128 KiB",
            overrides: vec![
                Override::FsKey(
                    "page_cache_size".into(),
                    int(AUTHORS_PAGE_CACHE_BYTES / div.max(1)),
                ),
                Override::FsKey("readahead_kb".into(), int(AUTHORS_READAHEAD_KB)),
            ],
        },
        db_bench_values(),
        SetupStep {
            name: "disable_wal",
            overrides: vec![Override::Engine(
                "disable_wal".into(),
                toml::Value::Boolean(true),
            )],
        },
        SetupStep {
            name: "intra-L0 compaction off",
            overrides: vec![Override::Engine(
                "enable_intra_l0_compaction".into(),
                toml::Value::Boolean(false),
            )],
        },
        SetupStep {
            name: "8 subcompactions",
            overrides: vec![Override::engine_int(
                "max_subcompactions",
                AUTHORS_SUBCOMPACTIONS,
            )?],
        },
        SetupStep {
            name: "zone cleaning blocks flush/compaction scheduling (1 s poll, divided by the scale)",
            overrides: vec![Override::FsKey(
                "zc_blocking_poll_ms".into(),
                toml::Value::Integer(i64::try_from(AUTHORS_ZC_POLL_MS).unwrap_or(1000)),
            )],
        },
        SetupStep {
            name: "allocation-retry blocking 1 s (divided by the scale)",
            overrides: vec![Override::FsKey(
                "alloc_retry_blocking_ms".into(),
                toml::Value::Integer(i64::try_from(AUTHORS_ALLOC_RETRY_MS).unwrap_or(1000)),
            )],
        },
    ])
}

/// db_bench's defaults: Snappy over values at `compression_ratio` 0.5. The ratio is already
/// the scenario's default (restated so the step keeps its meaning if that default moves), so
/// the step moves one setting: the compression.
fn db_bench_values() -> SetupStep {
    SetupStep {
        name: "Snappy (db_bench's values at compression_ratio 0.5, already the default, now compress)",
        overrides: vec![
            Override::WorkloadKey("compression_ratio".into(), toml::Value::Float(0.5)),
            Override::engine_str("compression", "snappy"),
        ],
    }
}

/// RocksDB's compaction readahead with direct I/O (7.4 sanitizes 0 to it; 8.x's default).
pub const DIRECT_IO_READAHEAD_BYTES: u64 = 2 << 20;

/// Today's set-up, the ablation's first row: the study as it ran before the authors' set-up
/// was modelled (compaction inputs read block by block).
///
/// # Errors
/// [`HarnessError::Config`] if a value does not fit (a bug).
pub fn today() -> Result<Vec<Override>, HarnessError> {
    Ok(vec![Override::engine_int("compaction_readahead_size", 0)?])
}

/// Every step of [`setup_steps`] at once: the authors' set-up, on top of [`today`].
///
/// # Errors
/// As [`setup_steps`].
pub fn authors_setup(study: StudyId, div: u64) -> Result<Vec<Override>, HarnessError> {
    Ok(today()?
        .into_iter()
        .chain(
            setup_steps(study, div)?
                .into_iter()
                .flat_map(|s| s.overrides),
        )
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_names_registered_policies_in_both_forms() {
        for s in SAME_ZONE_SCHEMES.iter().chain(&OAZA_MATRIX) {
            for form in Form::ALL {
                let pol = s.policies(form);
                assert!(
                    zonedb_fs::placement::by_name(pol.placement).is_ok(),
                    "{} {}: placement {}",
                    s.name,
                    form.name(),
                    pol.placement
                );
                assert!(
                    zonedb_lsm::options::CompactionScheme::from_name(pol.compaction).is_ok(),
                    "{} {}: compaction {}",
                    s.name,
                    form.name(),
                    pol.compaction
                );
            }
        }
    }

    #[test]
    fn forms_parse_by_name() {
        for f in Form::ALL {
            assert_eq!(Form::parse(f.name()).unwrap(), f);
        }
        assert!(Form::parse("paper").is_err());
    }
}
