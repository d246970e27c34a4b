//! The placement policies by name: one table, one lookup.
//!
//! Every name the command line, a scenario or the Python package accepts is a row of
//! [`ENTRIES`]: its name, a line of help, and a builder taking the settings a caller can
//! change ([`PlacementSettings`]). [`build`] looks a name up once; [`names`] lists the rows
//! for help texts and errors, so what `--help` says and what the code accepts cannot differ.
//! A new policy is its own file plus one row here.

use std::sync::Arc;

use super::policy::PlacementPolicy;
use super::{caza_artifact, compaction_aware, level_zones, lifetime, liza_caza, overlap_ratio};
use crate::error::UnknownName;
use crate::hybrid::placement::{self as hybrid, HybridSettings};
use crate::split::selective;

/// What a builder may need beyond the name (a scenario's `[fs]` keys); the defaults are each
/// policy's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementSettings {
    /// `selective`: SSTs written to this level or deeper go to subzones.
    pub selective_min_level: u32,
    /// `selective`: at most this percentage of the IO zones is split at once (at most 100).
    pub selective_max_split_pct: u32,
    /// The hybrid policies' migration and period.
    pub hybrid: HybridSettings,
}

impl Default for PlacementSettings {
    fn default() -> Self {
        Self {
            selective_min_level: selective::DEFAULT_MIN_LEVEL,
            selective_max_split_pct: selective::DEFAULT_MAX_SPLIT_PCT,
            hybrid: HybridSettings::default(),
        }
    }
}

/// A policy made, or why the name or the settings were refused.
pub type Built = Result<Arc<dyn PlacementPolicy>, PlacementError>;

/// What a row's builder returns: the policy, or the problem (without the name).
pub type Made = Result<Arc<dyn PlacementPolicy>, String>;

/// A row's builder: the name asked for (one the row matches) and the settings.
pub type Builder = fn(&str, &PlacementSettings) -> Made;

/// Why a placement could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// No row has the name.
    #[error(transparent)]
    Unknown(#[from] UnknownName),
    /// The row refused the name's keys (`liza+…`, `caza+…`) or the settings.
    #[error("placement '{name}': {problem}")]
    Invalid {
        /// The name asked for.
        name: String,
        /// What is wrong.
        problem: String,
    },
}

/// How a row matches a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Exactly this name.
    Exact(&'static str),
    /// Any name starting with this prefix (a family: `liza+KEY+...`); shown as the prefix
    /// followed by `KEY+...`.
    Family(&'static str),
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The name (or family) it answers to.
    pub pattern: Pattern,
    /// One line of help.
    pub help: &'static str,
    /// Makes the policy for `name` (a name the pattern matches) with the settings; `Err` is
    /// the problem, without the name.
    pub build: Builder,
}

impl Entry {
    /// The name as listed: the exact name, or `prefix` + `KEY+...` for a family.
    pub fn name(&self) -> String {
        match self.pattern {
            Pattern::Exact(n) => n.to_owned(),
            Pattern::Family(p) => format!("{p}KEY+..."),
        }
    }

    /// The policy for `name` (a name this row matches) with `settings`.
    ///
    /// # Errors
    /// [`PlacementError::Invalid`] when the row refuses the name's keys or the settings.
    pub fn make(&self, name: &str, settings: &PlacementSettings) -> Built {
        (self.build)(name, settings).map_err(|problem| PlacementError::Invalid {
            name: name.to_owned(),
            problem,
        })
    }

    fn matches(&self, name: &str) -> bool {
        match self.pattern {
            Pattern::Exact(n) => n == name,
            Pattern::Family(p) => name.starts_with(p),
        }
    }
}

#[allow(clippy::unnecessary_wraps, reason = "a builder's return type")]
fn ok<P: PlacementPolicy + 'static>(p: P) -> Made {
    Ok(Arc::new(p))
}

fn basic<const H: u32, const MIGRATION: bool>(_: &str, s: &PlacementSettings) -> Made {
    let mut b = hybrid::basic::Basic::new(H, MIGRATION);
    b.migration_rate_bytes_per_s = s.hybrid.rate_bytes_per_s;
    b.migration_chunk_bytes = s.hybrid.chunk_bytes;
    b.migration_period_ns = s.hybrid.period_ns;
    ok(b)
}

fn hhzs(name: &str, s: &PlacementSettings) -> Made {
    hybrid::hhzs::Hhzs::by_name_at(name, s.hybrid)
        .map(|h| Arc::new(h) as _)
        .ok_or_else(|| {
            format!(
                "not an HHZS form; known: {}",
                hybrid::hhzs::NAMES.join(", ")
            )
        })
}

const HHZS_HELP: &str = "HHZS's write-guided placement on a hybrid device (-p: placement only; \
                         -pm: with migration; hhzs: with caching)";

/// The rows, in the order help texts list them.
pub static ENTRIES: &[Entry] = &[
    Entry {
        pattern: Pattern::Exact("liza"),
        help: "ZenFS's lifetime-based allocator (LIZA)",
        build: |_, _| ok(lifetime::Liza),
    },
    Entry {
        pattern: Pattern::Exact("caza"),
        help: "compaction-aware allocation (CAZA, the Same-Zone Compaction paper's text)",
        build: |_, _| ok(compaction_aware::Caza),
    },
    Entry {
        pattern: Pattern::Exact("oaza"),
        help: "overlapping-ratio-aware allocation (OAZA)",
        build: |_, _| ok(overlap_ratio::Oaza),
    },
    Entry {
        pattern: Pattern::Exact("oaza-bytes"),
        help: "OAZA weighing overlaps by bytes",
        build: |_, _| ok(overlap_ratio::OazaBytes),
    },
    Entry {
        pattern: Pattern::Exact("oaza-spill"),
        help: "OAZA letting an SST spill past a full candidate zone",
        build: |_, _| ok(overlap_ratio::OazaSpill),
    },
    Entry {
        pattern: Pattern::Exact("oaza-band"),
        help: "OAZA with a fresh zone per overlap-ratio band when the target zone is full",
        build: |_, _| ok(overlap_ratio::OazaBand::default()),
    },
    Entry {
        pattern: Pattern::Exact("liza-caza"),
        help: "LIZA as the Same-Zone Compaction authors' code does it",
        build: |_, _| ok(liza_caza::LizaCaza::default()),
    },
    Entry {
        pattern: Pattern::Exact("caza-artifact"),
        help: "CAZA (CAZA-ADV) as the Same-Zone Compaction authors' code does it",
        build: |_, _| ok(caza_artifact::CazaArtifact::default()),
    },
    Entry {
        pattern: Pattern::Exact("caza-v1-artifact"),
        help: "CAZA v1 as the Same-Zone Compaction authors' code does it",
        build: |_, _| ok(caza_artifact::CazaArtifact::v1()),
    },
    Entry {
        pattern: Pattern::Exact(selective::NAME),
        help: "SplitZNS's selective allocator (LIZA for wide zones, subzones for deep SSTs)",
        build: |_, s| {
            ok(selective::Selective::new(
                s.selective_min_level,
                s.selective_max_split_pct,
            )?)
        },
    },
    Entry {
        pattern: Pattern::Exact(level_zones::NAME),
        help: "dedicated zones per level (GearDB's layout)",
        build: |_, _| ok(level_zones::LevelZones::default()),
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES[0]),
        help: "hybrid device: L0 on the SSD, the rest on the HDD (HHZS's B1)",
        build: basic::<1, false>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES[1]),
        help: "hybrid device: levels below 2 on the SSD (B2)",
        build: basic::<2, false>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES[2]),
        help: "hybrid device: levels below 3 on the SSD (B3)",
        build: basic::<3, false>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES[3]),
        help: "hybrid device: levels below 4 on the SSD (B4)",
        build: basic::<4, false>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES_M[0]),
        help: "B1 with HHZS's migration (B1+M)",
        build: basic::<1, true>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES_M[1]),
        help: "B2 with HHZS's migration (B2+M)",
        build: basic::<2, true>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES_M[2]),
        help: "B3 with HHZS's migration (B3+M)",
        build: basic::<3, true>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::basic::NAMES_M[3]),
        help: "B4 with HHZS's migration (B4+M)",
        build: basic::<4, true>,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::spandb_auto::NAME),
        help: "SpanDB's AUTO on a hybrid device, as HHZS re-implemented it",
        build: |_, s| {
            ok(hybrid::spandb_auto::SpanDbAuto::new(
                hybrid::spandb_auto::AutoConfig {
                    period_ns: s.hybrid.period_ns,
                    ..hybrid::spandb_auto::AutoConfig::default()
                },
            ))
        },
    },
    Entry {
        pattern: Pattern::Exact(hybrid::hhzs::NAMES[0]),
        help: HHZS_HELP,
        build: hhzs,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::hhzs::NAMES[1]),
        help: HHZS_HELP,
        build: hhzs,
    },
    Entry {
        pattern: Pattern::Exact(hybrid::hhzs::NAMES[2]),
        help: HHZS_HELP,
        build: hhzs,
    },
    Entry {
        pattern: Pattern::Family("liza+"),
        help: "LIZA with some of its authors' code's differences, keys in their order",
        build: |name, _| ok(liza_caza::LizaCaza::by_name(name).unwrap_or_else(|| no_form(name))?),
    },
    Entry {
        pattern: Pattern::Family("caza+"),
        help: "CAZA with some of its authors' code's differences, keys in their order",
        build: |name, _| {
            ok(caza_artifact::CazaArtifact::by_name(name).unwrap_or_else(|| no_form(name))?)
        },
    },
];

fn no_form<T>(name: &str) -> Result<T, String> {
    Err(format!("'{name}' is not a form of this family"))
}

/// The names (families as `prefix` + `KEY+...`), in table order.
pub fn names() -> Vec<String> {
    ENTRIES.iter().map(Entry::name).collect()
}

/// The exact names only (what a list of every policy to run holds).
pub fn exact_names() -> impl Iterator<Item = &'static str> {
    ENTRIES.iter().filter_map(|e| match e.pattern {
        Pattern::Exact(n) => Some(n),
        Pattern::Family(_) => None,
    })
}

/// The row for `name`.
///
/// # Errors
/// [`PlacementError::Unknown`] listing the accepted names.
pub fn entry(name: &str) -> Result<&'static Entry, PlacementError> {
    ENTRIES
        .iter()
        .find(|e| e.matches(name))
        .ok_or_else(|| PlacementError::Unknown(UnknownName::new("placement", name, names())))
}

/// The policy called `name`, made with `settings`.
///
/// # Errors
/// [`PlacementError::Unknown`] for a name no row has; [`PlacementError::Invalid`] when the row
/// refuses the name's keys or the settings.
pub fn build(name: &str, settings: &PlacementSettings) -> Built {
    entry(name)?.make(name, settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exact_name_builds_a_policy_of_that_name() {
        for n in exact_names() {
            let p = build(n, &PlacementSettings::default()).unwrap();
            assert_eq!(p.name(), n);
        }
    }

    #[test]
    fn unknown_names_list_every_row() {
        let e = build("nope", &PlacementSettings::default()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("unknown placement 'nope'; known: liza, caza"),
            "{text}"
        );
        assert!(text.ends_with("liza+KEY+..., caza+KEY+..."), "{text}");
        assert!(matches!(e, PlacementError::Unknown(u) if u.known.len() == ENTRIES.len()));
    }

    #[test]
    fn settings_reach_the_policy_or_are_refused() {
        let s = PlacementSettings {
            selective_max_split_pct: 101,
            ..PlacementSettings::default()
        };
        let e = build(selective::NAME, &s).unwrap_err();
        assert!(matches!(e, PlacementError::Invalid { .. }), "{e}");
        assert!(build("liza+nope", &s).is_err());
    }
}
