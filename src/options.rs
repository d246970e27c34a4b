//! [`Options`]: how [`crate::Db::open`] opens a store. The engine's options under RocksDB's
//! names ([`DbOptions`], the same table `zonedb bench`, scenario files and the Python package
//! read), the zone layer's choices (placement, cleaner) and the geometry of a new
//! file-backed device; [`WriteOptions`] for one write.

/// A value of [`Options::set`]: integers, floats, booleans and strings convert into it.
pub use toml::Value;
use zonedb_device::{Profile, SimDeviceSpec};
use zonedb_fs::FsOptions;
pub use zonedb_lsm::options::{CompactionPri, Compression, DbOptions};

use crate::Error;

/// The device profile a new file-backed device takes by default: the SplitZNS paper's SSD
/// (at [`DEFAULT_SCALE`]).
pub const DEFAULT_PROFILE: &str = "splitzns-paper";
/// The scale of [`DEFAULT_PROFILE`] by default: 1/64, 1.3 GB of sparse files (the Python
/// package's default too).
pub const DEFAULT_SCALE: &str = "1/64";

/// The keys [`Options::set`] takes for the zone layer and the device; every other key is an
/// engine option ([`DbOptions`], RocksDB's name).
pub const STORE_KEYS: [&str; 6] = [
    "placement",
    "cleaner",
    "gc_threshold",
    "profile",
    "scale",
    "zone_append",
];

/// How a store is opened. `Options::default()` opens (or creates) a store with RocksDB's
/// defaults on a file-backed device of the default geometry.
///
/// Set fields directly, chain the builder methods, or name any option as RocksDB does with
/// [`Options::set`] (or a TOML table with [`Options::from_toml`]):
///
/// ```
/// use zonedb::Options;
/// use zonedb::options::CompactionPri;
///
/// let o = Options::default()
///     .write_buffer_size(4 << 20)
///     .compaction_pri(CompactionPri::RoundRobin)
///     .placement("caza")
///     .set("max_background_jobs", 4)?
///     .set("compression", "lz4")?;
/// assert_eq!(o.engine.max_background_jobs, 4);
/// assert!(Options::default().set("write_bufer_size", 1).is_err()); // a typo is an error
/// # Ok::<(), zonedb::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The engine's options under RocksDB's names and defaults (`create_if_missing`,
    /// `write_buffer_size`, `compaction_pri`, `compression`, `sync`, ...).
    pub engine: DbOptions,
    /// Zone placement of the file layer: `liza` (ZenFS's, the default), `caza`, `oaza`, ...
    pub placement: String,
    /// Zone cleaner of the file layer: `zenfs` (the default), `greedy`, `none`.
    pub cleaner: String,
    /// Free-space percentage below which the cleaner runs (20).
    pub gc_threshold: u32,
    /// Device profile of a new file-backed device (`zonedb device profiles` lists them);
    /// an existing device keeps its geometry.
    pub profile: String,
    /// Scale of `profile` (`1/64`); `None`: [`DEFAULT_SCALE`] for [`DEFAULT_PROFILE`], the
    /// whole profile for another.
    pub scale: Option<String>,
    /// On a zoned block device: write through NVMe Zone Append (io_uring passthrough).
    pub zone_append: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            engine: DbOptions::default(),
            placement: "liza".into(),
            cleaner: "zenfs".into(),
            gc_threshold: 20,
            profile: DEFAULT_PROFILE.into(),
            scale: None,
            zone_append: false,
        }
    }
}

/// A builder method per common engine option, setting the field of the same name.
macro_rules! engine_setters {
    ($($(#[$doc:meta])* $name:ident: $t:ty),* $(,)?) => {
        $(
            $(#[$doc])*
            #[must_use]
            pub fn $name(mut self, v: $t) -> Self {
                self.engine.$name = v;
                self
            }
        )*
    };
}

impl Options {
    engine_setters! {
        /// Create the store if it does not exist (true).
        create_if_missing: bool,
        /// Memtable size that triggers a flush (64 MiB).
        write_buffer_size: u64,
        /// Memtables before writes stop (2).
        max_write_buffer_number: u32,
        /// Target size of SSTs at level 1 (64 MiB).
        target_file_size_base: u64,
        /// Target size of level 1 (256 MiB).
        max_bytes_for_level_base: u64,
        /// Background flushes and compactions together (2).
        max_background_jobs: u32,
        /// Compaction order within a level (`kMinOverlappingRatio`).
        compaction_pri: CompactionPri,
        /// Block compression (none).
        compression: Compression,
        /// Block cache capacity, bytes (32 MiB).
        block_cache_size: u64,
        /// Bloom filter bits per key (10; 0 = no filter).
        bloom_bits_per_key: u32,
        /// Sync the WAL on every write (false; see [`WriteOptions`] for one write).
        sync: bool,
        /// Skip the WAL (false): unflushed writes are lost if the process dies.
        disable_wal: bool,
    }

    /// Zone placement of the file layer (`liza`, `caza`, `oaza`, ...).
    #[must_use]
    pub fn placement(mut self, name: &str) -> Self {
        name.clone_into(&mut self.placement);
        self
    }

    /// Zone cleaner of the file layer (`zenfs`, `greedy`, `none`).
    #[must_use]
    pub fn cleaner(mut self, name: &str) -> Self {
        name.clone_into(&mut self.cleaner);
        self
    }

    /// Free-space percentage below which the cleaner runs.
    #[must_use]
    pub fn gc_threshold(mut self, pct: u32) -> Self {
        self.gc_threshold = pct;
        self
    }

    /// Device profile (and scale, such as `1/64`) of a new file-backed device.
    #[must_use]
    pub fn device_profile(mut self, profile: &str, scale: &str) -> Self {
        profile.clone_into(&mut self.profile);
        self.scale = Some(scale.to_owned());
        self
    }

    /// Sets the option `key`: a zone layer or device key ([`STORE_KEYS`]) or an engine option
    /// under its RocksDB name, parsed as the engine's TOML options are (`compaction_pri =
    /// "kRoundRobin"`, `compression = "lz4"`, ...).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown key or a bad value, naming it.
    pub fn set(mut self, key: &str, value: impl Into<Value>) -> Result<Self, Error> {
        let value = value.into();
        let text = |v: &Value| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| Error::invalid(format!("{key} = {v}: a string")))
        };
        match key {
            "placement" => self.placement = text(&value)?,
            "cleaner" => self.cleaner = text(&value)?,
            "profile" => self.profile = text(&value)?,
            "scale" => self.scale = Some(text(&value)?),
            "gc_threshold" => {
                self.gc_threshold = value
                    .as_integer()
                    .and_then(|i| u32::try_from(i).ok())
                    .ok_or_else(|| {
                        Error::invalid(format!("gc_threshold = {value}: a percentage"))
                    })?;
            }
            "zone_append" => {
                self.zone_append = value
                    .as_bool()
                    .ok_or_else(|| Error::invalid(format!("zone_append = {value}: a boolean")))?;
            }
            _ => {
                // The engine's own table does the parsing: the options as TOML, this key
                // replaced, read back (unknown keys and bad values are errors naming them).
                let mut table = toml::Table::try_from(&self.engine)
                    .map_err(|e| Error::invalid(format!("options: {e}")))?;
                table.insert(key.to_owned(), value);
                self.engine = DbOptions::from_toml(&table.to_string())?;
            }
        }
        Ok(self)
    }

    /// Options from a TOML table: engine options under RocksDB's names and the keys of
    /// [`STORE_KEYS`], over the defaults.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bad TOML, an unknown key or a bad value.
    pub fn from_toml(text: &str) -> Result<Self, Error> {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| Error::invalid(format!("options: {e}")))?;
        let (store, engine): (Vec<_>, Vec<_>) = table
            .into_iter()
            .partition(|(k, _)| STORE_KEYS.contains(&k.as_str()));
        let engine: toml::Table = engine.into_iter().collect();
        let mut o = Self {
            engine: DbOptions::from_toml(&engine.to_string())?,
            ..Self::default()
        };
        for (k, v) in store {
            o = o.set(&k, v)?;
        }
        Ok(o)
    }

    /// Checks every option (what [`crate::Db::open`] does first).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the bad option.
    pub fn validate(&self) -> Result<(), Error> {
        self.engine.validate()?;
        self.fs_options()?;
        self.new_device_profile()?;
        Ok(())
    }

    /// The scale a new device takes.
    pub(crate) fn scale_or_default(&self) -> &str {
        match &self.scale {
            Some(s) => s,
            None if self.profile == DEFAULT_PROFILE => DEFAULT_SCALE,
            None => "1/1",
        }
    }

    /// The profile (geometry) of a new file-backed device.
    pub(crate) fn new_device_profile(&self) -> Result<Profile, Error> {
        SimDeviceSpec::new(&self.profile, self.scale_or_default())
            .profile()
            .map_err(|e| Error::invalid(format!("profile {}: {e}", self.profile)))
    }

    /// The file layer's options.
    pub(crate) fn fs_options(&self) -> Result<FsOptions, Error> {
        Ok(FsOptions {
            cleaner: zonedb_fs::cleaning::by_name(&self.cleaner, self.gc_threshold)
                .map_err(|e| Error::invalid(format!("cleaner: {e}")))?,
            placement: zonedb_fs::placement::by_name(&self.placement)
                .map_err(|e| Error::invalid(format!("placement: {e}")))?,
            zone_append: self.zone_append,
            ..FsOptions::default()
        })
    }
}

/// Options of one write ([`crate::Db::write_opt`]; RocksDB's `WriteOptions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Sync the WAL before the write returns (survives a power loss; slower), whatever
    /// [`Options::sync`] says.
    pub sync: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn options_parse_through_the_engine_table() {
        let o = Options::from_toml(
            "write_buffer_size = 1048576\ncompaction_pri = \"kRoundRobin\"\nplacement = \"caza\"",
        )
        .unwrap();
        assert_eq!(o.engine.write_buffer_size, 1 << 20);
        assert_eq!(o.engine.compaction_pri, CompactionPri::RoundRobin);
        assert_eq!(o.placement, "caza");
        o.validate().unwrap();
        for bad in [
            Options::default().set("nope", 1),
            Options::default().set("write_buffer_size", "big"),
            Options::default().set("write_buffer_size", 1),
            Options::default().set("gc_threshold", -1),
            Options::from_toml("not toml ="),
        ] {
            assert_eq!(bad.unwrap_err().kind(), ErrorKind::InvalidArgument);
        }
        for bad in [
            Options::default().placement("nowhere"),
            Options::default().cleaner("magic"),
            Options::default().device_profile("nvme9000", "1/64"),
            Options::default().device_profile(DEFAULT_PROFILE, "1/0"),
        ] {
            assert_eq!(
                bad.validate().unwrap_err().kind(),
                ErrorKind::InvalidArgument
            );
        }
    }
}
