//! How the database is loaded (`--load`, `--load-gib`) and which keys the measured overwrites
//! hit (`--overwrite-keys`).

use super::*;

/// Which keys the measured overwrites hit. db_bench's `--num` is both the key space and the
/// writes per thread, so "4 threads x 1 M operations" after a 50 GiB load reads two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OverwriteKeys {
    /// `--num <loaded keys> --writes 1000000 --threads 4`: spread uniformly over every loaded
    /// key, as the paper's text reads (the workloads run on the 50 GiB database).
    #[default]
    Spread,
    /// `--num 1000000 --threads 4` (db_bench run again with its literal flags): the first
    /// 1 M keys of the 47 M loaded, a hot range of 2 % of the key space.
    FirstKeys,
}

impl OverwriteKeys {
    /// The form's name (`spread`, `first-keys`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Spread => "spread",
            Self::FirstKeys => "first-keys",
        }
    }

    /// The form called `name`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the known forms.
    pub fn parse(name: &str) -> Result<Self, HarnessError> {
        match name {
            "spread" => Ok(Self::Spread),
            "first-keys" => Ok(Self::FirstKeys),
            other => Err(HarnessError::unknown(
                "--overwrite-keys",
                other,
                ["spread", "first-keys"],
            )),
        }
    }
}

/// How the database is loaded before the measured workloads. The paper loads "approximately 50
/// GiB" and names neither the benchmark nor the level sizing; its trees are large (41.95 GiB
/// after YCSB-L, figure 12) and its LDP is cleaning-bound (figure 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadForm {
    /// db_bench's `fillrandom` of 45 GiB ([`PAPER_LOAD_PUTS`]: keys drawn with replacement,
    /// so about 63% of them distinct), RocksDB 7.6's static level sizes; YCSB-L is the load's
    /// count of zipfian (0.99) upserts. The paper's text read literally.
    #[default]
    Random,
    /// db_bench's `filluniquerandom` of 40 GiB ([`PAPER_UNIQUE_LOAD_PUTS`]: every key once),
    /// dynamic level sizes (with static ones a 40 GiB unique load runs every scheme out of
    /// space, LDP included: the cleaner finds no zone to migrate into, as ZenFS's GC); YCSB-L
    /// is YCSB's own load phase of as many records. The device ends nearly full and LDP
    /// cleaning-bound, the regime of the paper's figures.
    Unique,
}

impl LoadForm {
    /// The form's name (`random`, `unique`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Unique => "unique",
        }
    }

    /// The form called `name`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the known forms.
    pub fn parse(name: &str) -> Result<Self, HarnessError> {
        match name {
            "random" => Ok(Self::Random),
            "unique" => Ok(Self::Unique),
            other => Err(HarnessError::unknown("--load", other, ["random", "unique"])),
        }
    }

    /// Puts of the full load at paper scale with 1 KiB values.
    pub fn paper_puts(self) -> u64 {
        match self {
            Self::Random => PAPER_LOAD_PUTS,
            Self::Unique => PAPER_UNIQUE_LOAD_PUTS,
        }
    }

    /// The db_bench benchmark that loads.
    pub(super) fn fill_benchmark(self) -> &'static str {
        match self {
            Self::Random => "fillrandom",
            Self::Unique => "filluniquerandom",
        }
    }
}

/// How the database is loaded: the form and, if given, its size (`--load-gib`) in place of
/// the form's ([`LoadForm::paper_puts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Load {
    /// The form.
    pub form: LoadForm,
    /// Puts of the load at paper scale with 1 KiB values (`None`: the form's).
    pub paper_puts: Option<u64>,
}

impl From<LoadForm> for Load {
    fn from(form: LoadForm) -> Self {
        Self {
            form,
            paper_puts: None,
        }
    }
}

impl Load {
    /// `form` loading `gib` GiB of 1 KiB values at paper scale (the study's other scales
    /// divide it as they divide the device); `None` keeps the form's size.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for a size that is not a positive number of at most 1 TiB.
    pub fn sized(form: LoadForm, gib: Option<f64>) -> Result<Self, HarnessError> {
        let Some(gib) = gib else {
            return Ok(form.into());
        };
        if !(gib.is_finite() && gib > 0.0 && gib <= 1024.0) {
            return Err(HarnessError::config(
                "--load-gib",
                format!("{gib} GiB: give a positive size of at most 1024 GiB"),
            ));
        }
        // 1 KiB values: 2^20 puts a GiB.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked above: positive and at most 2^30 puts"
        )]
        let puts = (gib * f64::from(1u32 << 20)).round() as u64;
        Ok(Self {
            form,
            paper_puts: Some(puts.max(1)),
        })
    }

    /// Puts of the load at paper scale with 1 KiB values.
    pub fn paper_puts(self) -> u64 {
        self.paper_puts.unwrap_or_else(|| self.form.paper_puts())
    }

    /// The size loaded at paper scale, GiB of values.
    #[allow(clippy::cast_precision_loss, reason = "a size for display")]
    pub fn gib(self) -> f64 {
        self.paper_puts() as f64 / f64::from(1u32 << 20)
    }
}
