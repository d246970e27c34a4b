//! The store in Python: `zonedb.open(path, **options)` on a file-backed zoned device (or
//! `device=` a Linux zoned block device) in real mode; `get`, `put`, `delete`, `write`,
//! `iter`, `snapshot`, `flush`, `close`. Bytes in, bytes out; every engine call runs with the
//! GIL released.
//!
//! Lifecycle: a store closes (the engine's `close`: the WAL closed and synced, background
//! work stopped, the device lock released) on `close()` or `with`, when it is garbage
//! collected, and at interpreter exit (the Python side's atexit hook over a weak set of open
//! stores); the automatic closes give up after [`AUTO_CLOSE_LIMIT_NS`] rather than hang.
//! Snapshots and iterators hold the store object but not the engine past `close()`: closing
//! lets go of them, and using them afterwards raises `ClosedError`. A store belongs to the
//! process that opened it: in a `fork()` child every call raises `ForkedError`, the child's
//! copies of the engine are forgotten (never run or dropped there: the parent owns them) and
//! its descriptor of the device's lock file is closed, so the child can open the store anew
//! once the parent has closed it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zonedb_device::{DeviceError, RealDevice, SimDeviceSpec, ZoneFileDevice};
use zonedb_env::{Env, RealEnv};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbIter, LsmError};

use crate::errors::{self, closed, forked, invalid};

type RealDb = Db<RealEnv, RealDevice>;
type RealSnapshot = zonedb_lsm::Snapshot<RealEnv, RealDevice>;

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
        placement: zonedb_fs::placement::by_name(&text("placement", "liza")?)
            .map_err(|e| invalid(e.to_string()))?,
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

/// How long a close the store did not ask for (garbage collection, interpreter exit) may
/// take before it is given up (the engine is then left as it is, never waited for forever).
pub const AUTO_CLOSE_LIMIT_NS: u64 = 30_000_000_000;

/// A device a store of this process opened: its path (canonical), the process that opened
/// it, and the device while any part of the engine holds it.
struct Held {
    key: PathBuf,
    pid: u32,
    dev: Weak<RealDevice>,
}

/// The devices the stores of this process (or, in a `fork()` child, of its parent) hold.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// The registry key of a device path: canonical when it exists.
fn key_of(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Whether a store of this process still holds the device at `key`.
fn held_here(key: &Path) -> bool {
    let pid = std::process::id();
    lock(&HELD)
        .iter()
        .any(|h| h.pid == pid && h.key == key && h.dev.strong_count() > 0)
}

/// Closes this process's descriptor of the lock of a device inherited through `fork()`
/// (the parent keeps its lock), if it is a file-backed device.
fn forget_lock(dev: &Weak<RealDevice>) {
    if let Some(dev) = dev.upgrade()
        && let RealDevice::File(d) = dev.as_ref()
    {
        d.forget_inherited_lock();
    }
}

/// In a `fork()` child: lets go of the devices the parent's stores hold (closes the child's
/// descriptors of their lock files, so that the child can open them once the parent closed
/// them) and drops them from the registry. Nothing when nothing was inherited; run at fork
/// (`os.register_at_fork`) and before every open.
#[pyfunction(name = "_after_fork")]
pub fn after_fork() {
    let pid = std::process::id();
    lock(&HELD).retain(|h| {
        if h.pid == pid {
            return h.dev.strong_count() > 0;
        }
        forget_lock(&h.dev);
        false
    });
}

/// What a snapshot or iterator holds of the engine, let go of when the store closes.
trait Release: Send + Sync {
    /// Drops the engine's parts (the store is closing).
    fn release(&self);
    /// Forgets them without running anything (a `fork()` child).
    fn forget(&self);
}

impl<T: Send> Release for Mutex<Option<T>> {
    fn release(&self) {
        drop(lock(self).take());
    }

    fn forget(&self) {
        if let Some(x) = lock(self).take() {
            std::mem::forget(x);
        }
    }
}

/// The database of `zonedb.open`. Use it as a context manager, or call `close()`; it also
/// closes when garbage collected and at interpreter exit.
#[pyclass(module = "zonedb._native", frozen, weakref)]
pub struct Store {
    open: Mutex<Option<Arc<Open>>>,
    path: String,
    /// The process that opened it.
    pid: u32,
    /// The engine parts of its snapshots and iterators, let go of at close.
    children: Mutex<Vec<Weak<dyn Release>>>,
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
            .field("sequence", &self.sequence)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Iter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").finish_non_exhaustive()
    }
}

/// `ForkedError` unless this is the process `pid`.
fn same_process(path: &str, pid: u32) -> PyResult<()> {
    if std::process::id() == pid {
        Ok(())
    } else {
        Err(forked(path, pid))
    }
}

impl Store {
    fn get_open(&self) -> PyResult<Arc<Open>> {
        same_process(&self.path, self.pid)?;
        lock(&self.open).clone().ok_or_else(closed)
    }

    /// Makes a child (snapshot or iterator state) from the open engine; the store's lock is
    /// held meanwhile, so a close either sees the child or the child sees the store closed.
    fn adopt<T: Send + 'static>(
        &self,
        make: impl FnOnce(&Arc<Open>) -> T,
    ) -> PyResult<Arc<Mutex<Option<T>>>> {
        same_process(&self.path, self.pid)?;
        let g = lock(&self.open);
        let o = g.as_ref().ok_or_else(closed)?;
        let child = Arc::new(Mutex::new(Some(make(o))));
        let weak: Weak<dyn Release> = Arc::downgrade(&child) as Weak<dyn Release>;
        let mut children = lock(&self.children);
        children.retain(|c| c.strong_count() > 0);
        children.push(weak);
        Ok(child)
    }

    /// Closes: lets go of the snapshots and iterators, closes the engine (giving up after
    /// `limit_ns` when given), then waits (a little) until the engine's background tasks have
    /// dropped the device, so that its lock is free when this returns. In a `fork()` child,
    /// forgets the inherited engine instead (see the module doc).
    fn shut(&self, py: Python<'_>, limit_ns: Option<u64>) -> PyResult<()> {
        if std::process::id() != self.pid {
            self.forget_in_child();
            return Ok(());
        }
        let Some(o) = lock(&self.open).take() else {
            return Ok(());
        };
        let children = std::mem::take(&mut *lock(&self.children));
        let closed = py.detach(|| {
            // Without the GIL: a child's call holds its lock while it waits for the GIL.
            for c in children {
                if let Some(c) = c.upgrade() {
                    c.release();
                }
            }
            match limit_ns {
                None => Some(o.env.block_on(o.db.close())),
                Some(ns) => o.env.block_on(zonedb_env::until(
                    &o.env,
                    o.env.now().saturating_add(ns),
                    o.db.close(),
                )),
            }
        });
        let Some(closed) = closed else {
            // Never block an exit forever: the engine is left as it is.
            std::mem::forget(o);
            return Err(errors::ZoneIOError::new_err(format!(
                "closing the store {} did not finish within {} s; it was left open",
                self.path,
                limit_ns.unwrap_or(0) / 1_000_000_000
            )));
        };
        let dev = o.dev.clone();
        drop(o);
        py.detach(|| wait_released(&dev));
        closed.map_err(errors::lsm)
    }

    /// In a `fork()` child: forgets the inherited engine, snapshots and iterators (they
    /// belong to the parent: nothing of them runs here) and closes this process's descriptor
    /// of the device lock.
    fn forget_in_child(&self) {
        if let Some(o) = lock(&self.open).take() {
            forget_lock(&o.dev);
            std::mem::forget(o);
        }
        for c in std::mem::take(&mut *lock(&self.children)) {
            if let Some(c) = c.upgrade() {
                c.forget();
            }
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if lock(&self.open).is_none() {
            return;
        }
        if std::process::id() != self.pid {
            self.forget_in_child();
            return;
        }
        // Garbage collected while open: close, as the context manager would have.
        Python::attach(|py| {
            if let Err(e) = self.shut(py, Some(AUTO_CLOSE_LIMIT_NS)) {
                e.write_unraisable(py, None);
            }
        });
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
            Err(DeviceError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                if !create {
                    // RocksDB's words and kind (InvalidArgument).
                    return Err(PyErrLater::Invalid(format!(
                        "{}: does not exist (create_if_missing is false): {e}",
                        p.display()
                    )));
                }
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
    let target = match (path, device) {
        (Some(p), None) => Target::Dir(p),
        (None, Some(d)) => Target::Block(d),
        _ => return Err(invalid("give exactly one of path or device=".into())),
    };
    let p = match &target {
        Target::Dir(p) | Target::Block(p) => p.clone(),
    };
    if p.as_os_str().is_empty() {
        // Refused before anything is created (not a device in the current directory).
        return Err(invalid(
            "the path is empty: give the store's directory (or device=)".into(),
        ));
    }
    let o = open_options(options)?;
    after_fork();
    let label = p.display().to_string();
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
    let key = key_of(&p);
    let opened = match opened {
        Ok(o) => o,
        Err(PyErrLater::Device(DeviceError::Locked)) if held_here(&key) => {
            return Err(errors::ZoneIOError::new_err(format!(
                "{label}: the store is already open in this process (an earlier zonedb.open \
                 of it is not closed): use that store, or close it first"
            )));
        }
        Err(PyErrLater::Device(DeviceError::Locked)) => {
            return Err(errors::ZoneIOError::new_err(format!(
                "{label}: the device is locked by another process (it has the store open)"
            )));
        }
        Err(e) => return Err(e.into_py()),
    };
    let pid = std::process::id();
    {
        let mut held = lock(&HELD);
        held.retain(|h| h.dev.strong_count() > 0);
        held.push(Held {
            key,
            pid,
            dev: opened.dev.clone(),
        });
    }
    Ok(Store {
        open: Mutex::new(Some(Arc::new(opened))),
        path: label,
        pid,
        children: Mutex::new(Vec::new()),
    })
}

/// An error built without the GIL, turned into a Python exception once it is held again.
enum PyErrLater {
    Device(DeviceError),
    Lsm(LsmError),
    Invalid(String),
}

impl PyErrLater {
    fn into_py(self) -> PyErr {
        match self {
            Self::Device(e) => errors::device(&e),
            Self::Lsm(e) => errors::lsm(e),
            Self::Invalid(m) => invalid(m),
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

    /// `with zonedb.open(...) as db:`: the store, closed at the block's end.
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the store (`close()`); exceptions propagate.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// `key in db`: whether `key` has a value.
    fn __contains__(&self, py: Python<'_>, key: &[u8]) -> PyResult<bool> {
        Ok(self.get(py, key)?.is_some())
    }

    /// `db[key]`: the value of `key`; `KeyError` when absent.
    fn __getitem__<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        self.get(py, key)?.ok_or_else(|| key_error(py, key))
    }

    /// `db[key] = value`: `put`.
    fn __setitem__(&self, py: Python<'_>, key: &[u8], value: &[u8]) -> PyResult<()> {
        self.put(py, key, value)
    }

    /// `del db[key]`: deletes `key`; `KeyError` when absent, as a dict (`delete` is the blind
    /// delete that never raises for a missing key).
    fn __delitem__(&self, py: Python<'_>, key: &[u8]) -> PyResult<()> {
        if self.get(py, key)?.is_none() {
            return Err(key_error(py, key));
        }
        self.delete(py, key)
    }

    /// `for key in db`: every key, in order (as a dict; `items()` gives the pairs).
    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<Iter> {
        make_iter(slf, Range::default(), None, Yield::Keys)
    }

    /// An iterator of `(key, value)` pairs over `start <= key < end` (None: unbounded) and,
    /// with `prefix`, over the keys that start with it; in key order, or from the end down
    /// with `reverse=True`; at `snapshot` (None: now).
    #[pyo3(signature = (start=None, end=None, snapshot=None, *, reverse=false, prefix=None))]
    fn iter(
        slf: &Bound<'_, Self>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        snapshot: Option<PyRef<'_, Snapshot>>,
        reverse: bool,
        prefix: Option<Vec<u8>>,
    ) -> PyResult<Iter> {
        let at = snapshot_of(snapshot.as_deref())?;
        make_iter(
            slf,
            Range::new(start, end, prefix, reverse),
            at,
            Yield::Items,
        )
    }

    /// `iter(...)`'s pairs: the same arguments.
    #[pyo3(signature = (start=None, end=None, snapshot=None, *, reverse=false, prefix=None))]
    fn items(
        slf: &Bound<'_, Self>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        snapshot: Option<PyRef<'_, Snapshot>>,
        reverse: bool,
        prefix: Option<Vec<u8>>,
    ) -> PyResult<Iter> {
        Self::iter(slf, start, end, snapshot, reverse, prefix)
    }

    /// `iter(...)`'s keys alone: the same arguments.
    #[pyo3(signature = (start=None, end=None, snapshot=None, *, reverse=false, prefix=None))]
    fn keys(
        slf: &Bound<'_, Self>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        snapshot: Option<PyRef<'_, Snapshot>>,
        reverse: bool,
        prefix: Option<Vec<u8>>,
    ) -> PyResult<Iter> {
        let at = snapshot_of(snapshot.as_deref())?;
        make_iter(
            slf,
            Range::new(start, end, prefix, reverse),
            at,
            Yield::Keys,
        )
    }

    /// `iter(...)`'s values alone: the same arguments.
    #[pyo3(signature = (start=None, end=None, snapshot=None, *, reverse=false, prefix=None))]
    fn values(
        slf: &Bound<'_, Self>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        snapshot: Option<PyRef<'_, Snapshot>>,
        reverse: bool,
        prefix: Option<Vec<u8>>,
    ) -> PyResult<Iter> {
        let at = snapshot_of(snapshot.as_deref())?;
        make_iter(
            slf,
            Range::new(start, end, prefix, reverse),
            at,
            Yield::Values,
        )
    }

    /// A consistent view of the database as of now.
    fn snapshot(slf: &Bound<'_, Self>) -> PyResult<Snapshot> {
        let this = slf.get();
        let inner = this.adopt(|o| SnapInner {
            snap: Arc::new(o.db.snapshot()),
            open: o.clone(),
        })?;
        let sequence = lock(&inner).as_ref().map_or(0, |s| s.snap.sequence());
        Ok(Snapshot {
            inner,
            sequence,
            pid: this.pid,
            path: this.path.clone(),
            released: AtomicBool::new(false),
            store: slf.clone().unbind(),
        })
    }

    /// Flushes the memtable to an SST.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let o = self.get_open()?;
        py.detach(|| o.env.block_on(o.db.flush()))
            .map_err(errors::lsm)
    }

    /// RocksDB's `FlushWAL`: writes the WAL's buffered write groups to the device (and with
    /// `sync=True` makes them durable). For stores opened with `manual_wal_flush=True`,
    /// whose groups wait in the buffer; by default each write already reaches the OS.
    #[pyo3(signature = (sync=false))]
    fn flush_wal(&self, py: Python<'_>, sync: bool) -> PyResult<()> {
        let o = self.get_open()?;
        py.detach(|| o.env.block_on(o.db.flush_wal(sync)))
            .map_err(errors::lsm)
    }

    /// Engine counters (flushes, compactions, bytes written and read, stalls, ...) as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let o = self.get_open()?;
        let s = py.detach(|| o.db.stats());
        let text = serde_json::to_string(&s).map_err(|e| invalid(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Closes the database: its snapshots and iterators let go of it (using them afterwards
    /// raises `ClosedError`), the WAL is closed and synced (replaying it into the memtable is
    /// the next open's job, as in RocksDB), background work stops and the device lock is
    /// released, so the store can be opened again at once. Later calls raise `ClosedError`.
    /// Closing twice is fine; in a `fork()` child it only lets go of the child's copy.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.shut(py, None)
    }

    /// `close()` as the interpreter's exit runs it: given up after 30 s rather than hang.
    fn _close_at_exit(&self, py: Python<'_>) -> PyResult<()> {
        self.shut(py, Some(AUTO_CLOSE_LIMIT_NS))
    }

    /// Whether the database is closed (always, in a `fork()` child).
    #[getter]
    fn closed(&self) -> bool {
        std::process::id() != self.pid || lock(&self.open).is_none()
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

/// Why a snapshot's or iterator's call failed, built without the GIL.
enum Fail {
    Closed,
    Lsm(LsmError),
}

impl Fail {
    fn into_py(self) -> PyErr {
        match self {
            Self::Closed => closed(),
            Self::Lsm(e) => errors::lsm(e),
        }
    }
}

/// What a snapshot holds of the engine while its store is open.
struct SnapInner {
    snap: Arc<RealSnapshot>,
    open: Arc<Open>,
}

/// A snapshot of a `Store` (`store.snapshot()`): reads at it see the database as it was.
/// It keeps the store object alive, not the engine: after the store's `close()` it raises
/// `ClosedError`. A context manager: leaving `with` (or `close()`) releases it.
#[pyclass(module = "zonedb._native", frozen)]
pub struct Snapshot {
    inner: Arc<Mutex<Option<SnapInner>>>,
    sequence: u64,
    pid: u32,
    path: String,
    /// Released by `close()` (not by the store's close).
    released: AtomicBool,
    store: Py<Store>,
}

impl Snapshot {
    /// The engine snapshot and the open store, unless closed.
    fn engine(&self) -> PyResult<(Arc<RealSnapshot>, Arc<Open>)> {
        same_process(&self.path, self.pid)?;
        if self.released.load(Ordering::Relaxed) {
            return Err(errors::ClosedError::new_err(
                "the snapshot is closed (released by close() or its with block)",
            ));
        }
        lock(&self.inner)
            .as_ref()
            .map(|s| (s.snap.clone(), s.open.clone()))
            .ok_or_else(closed)
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            self.inner.forget();
        }
    }
}

/// The engine snapshot of an optional Python snapshot.
fn snapshot_of(s: Option<&Snapshot>) -> PyResult<Option<Arc<RealSnapshot>>> {
    s.map(|s| s.engine().map(|e| e.0)).transpose()
}

/// `KeyError(key)`.
fn key_error(py: Python<'_>, key: &[u8]) -> PyErr {
    pyo3::exceptions::PyKeyError::new_err(PyBytes::new(py, key).unbind())
}

#[pymethods]
impl Snapshot {
    /// The value of `key` as of the snapshot, or None.
    fn get<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let (snap, o) = self.engine()?;
        let v = py
            .detach(|| o.env.block_on(o.db.get_at(key, &snap)))
            .map_err(errors::lsm)?;
        Ok(v.map(|v| PyBytes::new(py, &v)))
    }

    /// `snap[key]`: the value of `key` as of the snapshot; `KeyError` when absent.
    fn __getitem__<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        self.get(py, key)?.ok_or_else(|| key_error(py, key))
    }

    /// `key in snap`: whether `key` had a value as of the snapshot.
    fn __contains__(&self, py: Python<'_>, key: &[u8]) -> PyResult<bool> {
        Ok(self.get(py, key)?.is_some())
    }

    /// `store.iter(..., snapshot=snap)`: `(key, value)` pairs as of the snapshot, over
    /// `start <= key < end` and `prefix`, forward or with `reverse=True` backward.
    #[pyo3(signature = (start=None, end=None, *, reverse=false, prefix=None))]
    fn iter(
        &self,
        py: Python<'_>,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        reverse: bool,
        prefix: Option<Vec<u8>>,
    ) -> PyResult<Iter> {
        let at = Some(self.engine()?.0);
        make_iter(
            self.store.bind(py),
            Range::new(start, end, prefix, reverse),
            at,
            Yield::Items,
        )
    }

    /// `for key in snap`: every key as of the snapshot, in order.
    fn __iter__(&self, py: Python<'_>) -> PyResult<Iter> {
        let at = Some(self.engine()?.0);
        make_iter(self.store.bind(py), Range::default(), at, Yield::Keys)
    }

    /// Releases the snapshot (the engine may then drop the versions only it kept); later
    /// reads at it raise `ClosedError`. Closing twice is fine.
    fn close(&self, py: Python<'_>) {
        if std::process::id() != self.pid {
            self.inner.forget();
            return;
        }
        self.released.store(true, Ordering::Relaxed);
        py.detach(|| self.inner.release());
    }

    /// `with store.snapshot() as snap:`: the snapshot, released at the block's end.
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Releases the snapshot (`close()`); exceptions propagate.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    /// The snapshot's sequence number.
    #[getter]
    fn sequence(&self) -> u64 {
        self.sequence
    }

    /// Whether it is released (by `close()` or the store's close).
    #[getter]
    fn closed(&self) -> bool {
        std::process::id() != self.pid
            || self.released.load(Ordering::Relaxed)
            || lock(&self.inner).is_none()
    }
}

/// What an iterator yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Yield {
    Items,
    Keys,
    Values,
}

/// An iterator's keys: `lower <= key < upper` (None: unbounded), walked up or down.
#[derive(Debug, Default)]
struct Range {
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    reverse: bool,
}

/// The first key after every key that starts with `prefix` (None when there is none: the
/// prefix is empty or all `0xff`), as the root crate's `prefix_bounds`.
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while end.last() == Some(&0xff) {
        end.pop();
    }
    let last = end.last_mut()?;
    *last += 1;
    Some(end)
}

impl Range {
    /// `start <= key < end` and, with `prefix`, the keys that start with it.
    fn new(
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        prefix: Option<Vec<u8>>,
        reverse: bool,
    ) -> Self {
        let (mut lower, mut upper) = (start, end);
        if let Some(p) = prefix {
            let p_end = prefix_end(&p);
            lower = Some(match lower {
                Some(l) if l > p => l,
                _ => p,
            });
            upper = match (upper, p_end) {
                (Some(u), Some(e)) => Some(u.min(e)),
                (u, None) => u,
                (None, e) => e,
            };
        }
        Self {
            lower,
            upper,
            reverse,
        }
    }

    /// Whether `key` is past the end the walk goes to.
    fn past(&self, key: &[u8]) -> bool {
        if self.reverse {
            self.lower.as_deref().is_some_and(|l| key < l)
        } else {
            self.upper.as_deref().is_some_and(|u| key >= u)
        }
    }
}

/// An iterator of `store` over `range` at `at` (None: a snapshot taken now), positioned at
/// its first key (the engine's `seek`, or `seek_for_prev` / `seek_to_last` for a reverse
/// walk, as the root crate's `Iter` does).
fn make_iter(
    store: &Bound<'_, Store>,
    range: Range,
    at: Option<Arc<RealSnapshot>>,
    what: Yield,
) -> PyResult<Iter> {
    let py = store.py();
    let this = store.get();
    let state = this.adopt(|o| IterState {
        it: match &at {
            Some(snap) => o.db.iter_at(snap),
            None => o.db.iter(),
        },
        range,
        open: o.clone(),
        _at: at,
    })?;
    py.detach(|| {
        let mut g = lock(&state);
        let Some(s) = g.as_mut() else {
            return Err(Fail::Closed);
        };
        let IterState {
            it, range, open, ..
        } = s;
        open.env
            .block_on(async {
                if !range.reverse {
                    return it.seek(range.lower.as_deref().unwrap_or_default()).await;
                }
                match &range.upper {
                    Some(u) => {
                        it.seek_for_prev(u).await?;
                        if it.valid() && it.key() == u.as_slice() {
                            it.prev().await?;
                        }
                        Ok(())
                    }
                    None => it.seek_to_last().await,
                }
            })
            .map_err(Fail::Lsm)
    })
    .map_err(Fail::into_py)?;
    Ok(Iter {
        state,
        what,
        pid: this.pid,
        path: this.path.clone(),
        released: AtomicBool::new(false),
        _store: store.clone().unbind(),
    })
}

struct IterState {
    it: DbIter<RealEnv, RealDevice>,
    range: Range,
    open: Arc<Open>,
    /// The snapshot it reads at, kept while it lives.
    _at: Option<Arc<RealSnapshot>>,
}

/// An iterator of `(key, value)` pairs, keys or values (`store.iter(...)`, `keys(...)`,
/// `values(...)`). It keeps the store object alive, not the engine: after the store's
/// `close()` it raises `ClosedError`. A context manager: leaving `with` (or `close()`)
/// releases it.
#[pyclass(module = "zonedb._native", frozen)]
pub struct Iter {
    state: Arc<Mutex<Option<IterState>>>,
    what: Yield,
    pid: u32,
    path: String,
    /// Released by `close()` (not by the store's close).
    released: AtomicBool,
    _store: Py<Store>,
}

impl Drop for Iter {
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            self.state.forget();
        }
    }
}

#[pymethods]
impl Iter {
    /// The iterator itself.
    #[allow(clippy::self_named_constructors, reason = "Python's iterator protocol")]
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next pair (or key, or value); `StopIteration` past the range's end.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        same_process(&self.path, self.pid)?;
        if self.released.load(Ordering::Relaxed) {
            return Err(errors::ClosedError::new_err(
                "the iterator is closed (released by close() or its with block)",
            ));
        }
        let what = self.what;
        // The lock is taken without the GIL (a close waits for it without the GIL too).
        let pair = py
            .detach(|| {
                let mut g = lock(&self.state);
                let s = g.as_mut().ok_or(Fail::Closed)?;
                if !s.it.valid() || s.range.past(s.it.key()) {
                    return Ok(None);
                }
                let k = (what != Yield::Values).then(|| s.it.key().to_vec());
                let v = (what != Yield::Keys).then(|| s.it.value().to_vec());
                let step = if s.range.reverse {
                    s.open.env.block_on(s.it.prev())
                } else {
                    s.open.env.block_on(s.it.next())
                };
                step.map_err(Fail::Lsm)?;
                Ok(Some((k, v)))
            })
            .map_err(Fail::into_py)?;
        let Some((k, v)) = pair else {
            return Ok(None);
        };
        Ok(Some(match (k, v) {
            (Some(k), Some(v)) => {
                pyo3::types::PyTuple::new(py, [PyBytes::new(py, &k), PyBytes::new(py, &v)])?
                    .into_any()
            }
            (Some(x), None) | (None, Some(x)) => PyBytes::new(py, &x).into_any(),
            (None, None) => py.None().into_bound(py),
        }))
    }

    /// Releases the iterator's hold on the engine; later steps raise `ClosedError`.
    /// Closing twice is fine.
    fn close(&self, py: Python<'_>) {
        if std::process::id() != self.pid {
            self.state.forget();
            return;
        }
        self.released.store(true, Ordering::Relaxed);
        py.detach(|| self.state.release());
    }

    /// `with store.iter(...) as it:`: the iterator, released at the block's end.
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Releases the iterator (`close()`); exceptions propagate.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }
}
