//! Typed overrides of a parsed [`Scenario`]: how a study derives its configurations from a
//! base scenario file (`scenarios/*.toml`) without assembling TOML text. Each value says which
//! field it sets; [`Scenario::with`] applies a list of them in order and checks the result as
//! a scenario file is checked.

use super::{Scenario, WorkloadSection};
use crate::db_bench::HarnessError;

/// One change to a scenario (what a `[[compare]]` variant says in TOML, as a value).
#[derive(Debug, Clone, PartialEq)]
pub enum Override {
    /// `name`.
    Name(String),
    /// `seed`.
    Seed(u64),
    /// `sample_interval_ms`.
    SampleIntervalMs(u64),
    /// `device.profile`.
    Profile(String),
    /// `device.scale` (`1/N`).
    Scale(String),
    /// `device.max_open_zones` and `device.max_active_zones` (None: the profile's own).
    ZoneLimits {
        /// Open zone limit.
        open: Option<u32>,
        /// Active zone limit.
        active: Option<u32>,
    },
    /// `fs.placement` (`liza`, `caza`, `oaza`).
    Placement(String),
    /// `fs.cleaner` (`none`, `greedy`, `zenfs`).
    Cleaner(String),
    /// `fs.gc_threshold`, percent.
    GcThreshold(u32),
    /// One engine option under its RocksDB name (`engine.<name> = value`).
    Engine(String, toml::Value),
    /// `workload.num`.
    Num(u64),
    /// The whole `[workload]` section, replacing the base's.
    Workload(WorkloadSection),
    /// Any `[fs]` key by its scenario-file name (`fs.<name> = value`), checked as the file's.
    FsKey(String, toml::Value),
    /// Any `[workload]` key by its scenario-file name (`workload.<name> = value`).
    WorkloadKey(String, toml::Value),
}

/// `section` with `key = value` set, read back through its own (strict) deserializer.
fn set_key<T: serde::Serialize + serde::de::DeserializeOwned>(
    section: &T,
    what: &str,
    key: &str,
    value: toml::Value,
) -> Result<T, HarnessError> {
    let bad =
        |e: &dyn std::fmt::Display| HarnessError::config(format!("{what}.{key}"), e.to_string());
    let mut table = toml::Table::try_from(section).map_err(|e| bad(&e))?;
    table.insert(key.to_owned(), value);
    T::deserialize(toml::Value::Table(table)).map_err(|e| bad(&e))
}

impl Override {
    /// An engine option set to a number (sizes, counts, percentages).
    ///
    /// # Errors
    /// [`HarnessError::Config`] if `value` does not fit TOML's 64-bit signed integers.
    pub fn engine_int(name: &str, value: u64) -> Result<Self, HarnessError> {
        let v = i64::try_from(value).map_err(|_| {
            HarnessError::config(
                format!("engine.{name}"),
                format!("{value} is too large for TOML"),
            )
        })?;
        Ok(Self::Engine(name.to_owned(), toml::Value::Integer(v)))
    }

    /// An engine option set to a string (`compaction_scheme = "acc"`).
    pub fn engine_str(name: &str, value: &str) -> Self {
        Self::Engine(name.to_owned(), toml::Value::String(value.to_owned()))
    }

    fn apply(self, s: &mut Scenario) -> Result<(), HarnessError> {
        match self {
            Self::Name(n) => s.name = n,
            Self::Seed(v) => s.seed = v,
            Self::SampleIntervalMs(v) => s.sample_interval_ms = v,
            Self::Profile(p) => s.device.profile = p,
            Self::Scale(v) => s.device.scale = v,
            Self::ZoneLimits { open, active } => {
                s.device.max_open_zones = open;
                s.device.max_active_zones = active;
            }
            Self::Placement(p) => s.fs.placement = p,
            Self::Cleaner(c) => s.fs.cleaner = c,
            Self::GcThreshold(t) => s.fs.gc_threshold = t,
            Self::Engine(k, v) => {
                s.engine.insert(k, v);
            }
            Self::Num(n) => s.workload.num = n,
            Self::Workload(w) => s.workload = w,
            Self::FsKey(k, v) => s.fs = set_key(&s.fs, "fs", &k, v)?,
            Self::WorkloadKey(k, v) => s.workload = set_key(&s.workload, "workload", &k, v)?,
        }
        Ok(())
    }
}

impl Scenario {
    /// The scenario file's own configuration (its `[[compare]]` variants are dropped).
    ///
    /// # Errors
    /// [`HarnessError::Config`] as [`Scenario::configurations`].
    pub fn base(text: &str) -> Result<Self, HarnessError> {
        let mut s = Self::configurations(text)?
            .into_iter()
            .next()
            .ok_or_else(|| HarnessError::config("scenario", "empty"))?;
        s.compare.clear();
        Ok(s)
    }

    /// This scenario with `overrides` applied in order, checked as a scenario file is.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming what the overrides made invalid.
    pub fn with(
        mut self,
        overrides: impl IntoIterator<Item = Override>,
    ) -> Result<Self, HarnessError> {
        for o in overrides {
            o.apply(&mut self)?;
        }
        self.check()?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
        name = "base"
        [device]
        scale = "1/128"
        [engine]
        write_buffer_size = 1048576
        [workload]
        benchmarks = "fillrandom"
        num = 1000
        [[compare]]
        name = "greedy"
        fs = { cleaner = "greedy" }
    "#;

    #[test]
    fn overrides_set_their_fields_and_match_the_same_settings_in_toml() {
        let s = Scenario::base(BASE)
            .unwrap()
            .with([
                Override::Name("variant".into()),
                Override::Cleaner("greedy".into()),
                Override::engine_str("compaction_pri", "kByCompensatedSize"),
                Override::engine_int("write_buffer_size", 2 << 20).unwrap(),
                Override::Num(500),
                Override::FsKey("finish_threshold".into(), toml::Value::Integer(10)),
                Override::WorkloadKey("value_size".into(), toml::Value::Integer(200)),
            ])
            .unwrap();
        assert!(s.compare.is_empty());
        let toml = Scenario::base(
            r#"
            name = "variant"
            [device]
            scale = "1/128"
            [fs]
            cleaner = "greedy"
            finish_threshold = 10
            [engine]
            write_buffer_size = 2097152
            compaction_pri = "kByCompensatedSize"
            [workload]
            benchmarks = "fillrandom"
            num = 500
            value_size = 200
        "#,
        )
        .unwrap();
        assert_eq!(s, toml);
    }

    #[test]
    fn an_override_that_breaks_the_scenario_is_refused() {
        let base = Scenario::base(BASE).unwrap();
        for bad in [
            Override::Cleaner("magic".into()),
            Override::Placement("nowhere".into()),
            Override::engine_int("write_buffer_size", 5).unwrap(),
            Override::SampleIntervalMs(0),
            Override::FsKey("no_such_key".into(), toml::Value::Integer(1)),
            Override::FsKey("gc_threshold".into(), toml::Value::String("x".into())),
            Override::WorkloadKey("no_such_key".into(), toml::Value::Integer(1)),
        ] {
            assert!(base.clone().with([bad.clone()]).is_err(), "{bad:?}");
        }
        assert!(Override::engine_int("write_buffer_size", u64::MAX).is_err());
    }
}
