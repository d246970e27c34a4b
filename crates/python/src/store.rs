//! The store in Python: `zonedb.open(path, **options)` on a file-backed zoned device (or
//! `device=` a Linux zoned block device) in real mode; `get`, `put`, `delete`, `write`,
//! `iter`, `snapshot`, `flush`, `close`. Bytes in, bytes out; every engine call runs with the
//! GIL released.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zonedb_device::{DeviceError, RealDevice, SimDeviceSpec, ZoneFileDevice};
use zonedb_env::RealEnv;
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbIter, LsmError};

use crate::errors::{self, closed, invalid};

type RealDb = Db<RealEnv, RealDevice>;

/// An open database and the environment its calls run in.
struct Open {
    env: RealEnv,
    db: RealDb,
    /// The device, to see when the engine's last background task has let go of it.
    dev: std::sync::Weak<RealDevice>,
}

/// Store-level keys of `zonedb.open(**options)`; every other key is an engine option under
/// its RocksDB name (`write_buffer_size`, `compaction_pri`, ...).
const STORE_KEYS: [&str; 5] = ["profile", "scale", "cleaner", "placement", "gc_threshold"];

/// A Python value as TOML (ints, floats, bools, strings).
fn toml_value(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    if let Ok(b) = v.extract::<bool>() {
        return Ok(toml::Value::Boolean(b));
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok(toml::Value::Float(f));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(toml::Value::String(s));
    }
    Err(invalid(format!(
        "option {key}: {} is not a number, bool or string",
        v.get_type().name()?
    )))
}

/// What `zonedb.open`'s keyword options say.
struct OpenOptions {
    profile: String,
    scale: String,
    fs: FsOptions,
    db: DbOptions,
}

fn open_options(options: Option<&Bound<'_, PyDict>>) -> PyResult<OpenOptions> {
    let mut store: std::collections::BTreeMap<String, toml::Value> = Default::default();
    let mut engine = toml::Table::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            let k: String = k.extract()?;
            let v = toml_value(&v, &k)?;
            if STORE_KEYS.contains(&k.as_str()) {
                store.insert(k, v);
            } else {
                engine.insert(k, v);
            }
        }
    }
    let text = |k: &str, default: &str| -> PyResult<String> {
        match store.get(k) {
            None => Ok(default.to_owned()),
            Some(toml::Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(invalid(format!("{k} = {v}: a string"))),
        }
    };
    let gc_threshold = match store.get("gc_threshold") {
        None => 20,
        Some(toml::Value::Integer(i)) => {
            u32::try_from(*i).map_err(|_| invalid(format!("gc_threshold = {i}: a percentage")))?
        }
        Some(v) => return Err(invalid(format!("gc_threshold = {v}: an integer"))),
    };
    let fs = FsOptions {
        cleaner: zonedb_fs::cleaning::by_name(&text("cleaner", "zenfs")?, gc_threshold)
            .map_err(|e| invalid(e.to_string()))?,
        placement: zonedb_fs::placement::by_name(&text("placement", "liza")?).map_err(invalid)?,
        ..FsOptions::default()
    };
    let engine_text = toml::to_string(&engine).map_err(|e| invalid(e.to_string()))?;
    let db = DbOptions::from_toml(&engine_text).map_err(errors::lsm)?;
    db.validate().map_err(errors::lsm)?;
    let profile = text("profile", "splitzns-paper")?;
    // The default device is the SplitZNS paper's at 1/64 (1.3 GB of sparse files); another
    // profile is taken whole unless a scale is given.
    let scale = text(
        "scale",
        if store.contains_key("profile") {
            "1/1"
        } else {
            "1/64"
        },
    )?;
    Ok(OpenOptions {
        profile,
        scale,
        fs,
        db,
    })
}

/// The database of `zonedb.open`. Use it as a context manager, or call `close()`.
#[pyclass(module = "zonedb._native")]
pub struct Store {
    open: Mutex<Option<Arc<Open>>>,
    path: String,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("sequence", &self.snap.sequence())
            .finish()
    }
}

impl std::fmt::Debug for Iter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").finish_non_exhaustive()
    }
}

impl Store {
    fn get_open(&self) -> PyResult<Arc<Open>> {
        lock(&self.open).clone().ok_or_else(closed)
    }
}

/// Where `zonedb.open` opens the database.
enum Target {
    /// A file-backed zoned device in this directory.
    Dir(PathBuf),
    /// A Linux zoned block device.
    Block(PathBuf),
}

/// Opens the device of `target` (creating a file-backed one when absent and `create`);
/// whether it is new.
fn open_device(
    target: &Target,
    o: &OpenOptions,
    create: bool,
) -> Result<(RealDevice, bool), PyErrLater> {
    match target {
        Target::Block(d) => Ok((
            RealDevice::open_block(d).map_err(PyErrLater::Device)?,
            false,
        )),
        Target::Dir(p) => match ZoneFileDevice::open(p) {
            Ok(d) => Ok((RealDevice::File(d), false)),
            Err(DeviceError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound && create => {
                let profile = SimDeviceSpec::new(&o.profile, &o.scale)
                    .profile()
                    .map_err(PyErrLater::Device)?;
                let d =
                    ZoneFileDevice::create(p, profile.zones.clone()).map_err(PyErrLater::Device)?;
                Ok((RealDevice::File(d), true))
            }
            Err(e) => Err(PyErrLater::Device(e)),
        },
    }
}

/// Opens (creating when absent and `create_if_missing`, the default) the database in the
/// file-backed zoned device at `path`, or on the zoned block device `device`.
#[pyfunction]
#[pyo3(signature = (path=None, device=None, **options))]
pub fn open_store(
    py: Python<'_>,
    path: Option<PathBuf>,
    device: Option<PathBuf>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Store> {
    let o = open_options(options)?;
    let target = match (path, device) {
        (Some(p), None) => Target::Dir(p),
        (None, Some(d)) => Target::Block(d),
        _ => return Err(invalid("give exactly one of path or device=".into())),
    };
    let label = match &target {
        Target::Dir(p) | Target::Block(p) => p.display().to_string(),
    };
    let opened = py.detach(move || -> Result<Open, PyErrLater> {
        let (dev, fresh) = open_device(&target, &o, o.db.create_if_missing)?;
        let OpenOptions {
            fs: fs_options,
            db: db_options,
            ..
        } = o;
        let dev = Arc::new(dev);
        let env = RealEnv::new(0);
        let db = env.block_on(async {
            if fresh {
                ZoneFs::<RealEnv, RealDevice>::mkfs(dev.as_ref(), 0)
                    .await
                    .map_err(|e| PyErrLater::Lsm(e.into()))?;
            }
            let fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options)
                .await
                .map_err(|e| PyErrLater::Lsm(e.into()))?;
            Db::open(fs, db_options).await.map_err(PyErrLater::Lsm)
        })?;
        Ok(Open {
            env,
            db,
            dev: Arc::downgrade(&dev),
        })
    });
    Ok(Store {
        open: Mutex::new(Some(Arc::new(opened.map_err(PyErrLater::into_py)?))),
        path: label,
    })
}

/// An error built without the GIL, turned into a Python exception once it is held again.
enum PyErrLater {
    Device(DeviceError),
    Lsm(LsmError),
}

impl PyErrLater {
    fn into_py(self) -> PyErr {
        match self {
            Self::Device(e) => errors::device(&e),
            Self::Lsm(e) => errors::lsm(e),
        }
    }
}

#[pymethods]
impl Store {
    /// The value of `key`, or None.
    fn get<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let o = self.get_open()?;
        let v = py
            .detach(|| o.env.block_on(o.db.get(key)))
            .map_err(errors::lsm)?;
        Ok(v.map(|v| PyBytes::new(py, &v)))
    }

    /// Sets `key` to `value`.
    fn put(&self, py: Python<'_>, key: &[u8], value: &[u8]) -> PyResult<()> {
        let o = self.get_open()?;
        py.detach(|| o.env.block_on(o.db.put(key, value)))
            .map_err(errors::lsm)
    }

    /// Deletes `key` (no error when absent).
    fn delete(&self, py: Python<'_>, key: &[u8]) -> PyResult<()> {
        let o = self.get_open()?;
        py.detach(|| o.env.block_on(o.db.delete(key)))
            .map_err(errors::lsm)
    }

    /// Applies a batch atomically: `ops` is a list of `(key, value)` puts and `(key, None)`
    /// deletes, in order (`zonedb.WriteBatch` builds it). `sync` syncs the WAL first.
    #[pyo3(signature = (ops, sync=false))]
    fn write_batch(
        &self,
        py: Python<'_>,
        ops: Vec<(Vec<u8>, Option<Vec<u8>>)>,
        sync: bool,
    ) -> PyResult<()> {
        let o = self.get_open()?;
        let mut b = WriteBatch::new();
        for (k, v) in &ops {
            match v {
                Some(v) => b.put(k, v),
                None => b.delete(k),
            }
        }
        py.detach(|| {
            o.env.block_on(async {
                if sync {
                    o.db.write_sync(b).await
                } else {
                    o.db.write(b).await
                }
            })
        })
        .map_err(errors::lsm)
    }

    /// Applies a `zonedb.WriteBatch` (or a list of `(key, value)` puts and `(key, None)`
    /// deletes) atomically.
    #[pyo3(signature = (batch, sync=false))]
    fn write(&self, py: Python<'_>, batch: &Bound<'_, PyAny>, sync: bool) -> PyResult<()> {
        let ops = match batch.getattr("_ops") {
            Ok(ops) => ops.extract()?,
            Err(_) => batch.extract()?,
        };
        self.write_batch(py, ops, sync)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __contains__(&self, py: Python<'_>, key: &[u8]) -> PyResult<bool> {
        Ok(self.get(py, key)?.is_some())
    }

    /// An iterator over `start <= key < end` (None: unbounded), in key order, at `snapshot`
    /// (None: now). Yields `(key, value)` bytes pairs.
    #[pyo3(signature = (start=None, end=None, snapshot=None))]
    fn iter(
        &self,
        py: Python<'_>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        snapshot: Option<PyRef<'_, Snapshot>>,
    ) -> PyResult<Iter> {
        let o = self.get_open()?;
        let mut it = match &snapshot {
            Some(s) => o.db.iter_at(&s.snap),
            None => o.db.iter(),
        };
        let start = start.unwrap_or_default();
        py.detach(|| o.env.block_on(it.seek(&start)))
            .map_err(errors::lsm)?;
        Ok(Iter {
            state: Mutex::new(IterState {
                it,
                end,
                env: o.env.clone(),
            }),
            _open: o,
        })
    }

    /// A consistent view of the database as of now.
    fn snapshot(&self) -> PyResult<Snapshot> {
        let o = self.get_open()?;
        Ok(Snapshot {
            snap: o.db.snapshot(),
            open: o,
        })
    }

    /// Flushes the memtable to an SST.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let o = self.get_open()?;
        py.detach(|| o.env.block_on(o.db.flush()))
            .map_err(errors::lsm)
    }

    /// Engine counters (flushes, compactions, bytes written and read, stalls, ...) as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let o = self.get_open()?;
        let s = py.detach(|| o.db.stats());
        let text = serde_json::to_string(&s).map_err(|e| invalid(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Closes the database (flushing what the WAL holds is the next open's job, as in
    /// RocksDB); later calls raise `ClosedError`. Closing twice is fine.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = lock(&self.open).take();
        if let Some(o) = taken {
            let closed = py.detach(|| o.env.block_on(o.db.close()));
            // With no snapshot or iterator still holding the store, wait (a little) until
            // the engine's background tasks have dropped the device, so that its lock is
            // free when close returns and the same process can open it again.
            if let Ok(o) = Arc::try_unwrap(o) {
                let dev = o.dev.clone();
                drop(o);
                py.detach(|| wait_released(&dev));
            }
            closed.map_err(errors::lsm)?;
        }
        Ok(())
    }

    /// Whether the database is closed.
    #[getter]
    fn closed(&self) -> bool {
        lock(&self.open).is_none()
    }

    fn __repr__(&self) -> String {
        format!(
            "<zonedb.Store {} ({})>",
            self.path,
            if self.closed() { "closed" } else { "open" }
        )
    }
}

/// Waits up to 10 s for the last strong reference to a closed store's device to go.
#[allow(
    clippy::disallowed_methods,
    reason = "a host-side wait for background threads of a real-mode store"
)]
fn wait_released(dev: &std::sync::Weak<RealDevice>) {
    for _ in 0..5000 {
        if dev.strong_count() == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// A snapshot of a `Store` (`store.snapshot()`): reads at it see the database as it was.
#[pyclass(module = "zonedb._native")]
pub struct Snapshot {
    snap: zonedb_lsm::Snapshot<RealEnv, RealDevice>,
    open: Arc<Open>,
}

#[pymethods]
impl Snapshot {
    /// The value of `key` as of the snapshot, or None.
    fn get<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let o = &self.open;
        let v = py
            .detach(|| o.env.block_on(o.db.get_at(key, &self.snap)))
            .map_err(errors::lsm)?;
        Ok(v.map(|v| PyBytes::new(py, &v)))
    }

    /// The snapshot's sequence number.
    #[getter]
    fn sequence(&self) -> u64 {
        self.snap.sequence()
    }
}

struct IterState {
    it: DbIter<RealEnv, RealDevice>,
    end: Option<Vec<u8>>,
    env: RealEnv,
}

/// An iterator of `(key, value)` pairs (`store.iter(start, end)`).
#[pyclass(module = "zonedb._native")]
pub struct Iter {
    state: Mutex<IterState>,
    _open: Arc<Open>,
}

#[pymethods]
impl Iter {
    #[allow(clippy::self_named_constructors, reason = "Python's iterator protocol")]
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>> {
        let mut s = lock(&self.state);
        let s = &mut *s;
        if !s.it.valid() || s.end.as_deref().is_some_and(|e| s.it.key() >= e) {
            return Ok(None);
        }
        let pair = (PyBytes::new(py, s.it.key()), PyBytes::new(py, s.it.value()));
        let (it, env) = (&mut s.it, &s.env);
        py.detach(|| env.block_on(it.next())).map_err(errors::lsm)?;
        Ok(Some(pair))
    }
}
