//! db_bench's benchmarks on a [`zonedb_lsm::Db`], with its semantics: counts are per thread, `fillrandom`
//! and `overwrite` draw keys uniformly **with replacement**, `readrandom` reports
//! `(found of reads found)`, `seekrandom` counts a seek as found when it lands on the key
//! sought and then takes `seek_nexts` steps. Time comes from the `Env`: virtual in simulation,
//! real otherwise. The result line is db_bench's:
//!
//! `name : X micros/op Y ops/sec Z seconds N operations; M MB/s (message)`
//!
//! where micros/op is per-thread busy time per op and ops/sec is ops over wall time.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hdrhistogram::Histogram;

use zonedb_env::{Env, SimRng};
use zonedb_lsm::LsmErrorKind;
use zonedb_lsm::batch::WriteBatch;

use crate::benchmark::Benchmark;
use crate::elided::PoolRegenerator;
use crate::histogram::DbBenchHistogram;
use crate::keys::{ValueGen, make_key, make_key_into};
use crate::kv::{KvIter, KvStore};

pub use crate::error::HarnessError;

/// Operations finished so far, shared with whoever shows progress (the CLI's progress bar).
/// Not part of a configuration's identity: every two counters compare equal.
#[derive(Debug, Clone, Default)]
pub struct ProgressCounter(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl ProgressCounter {
    /// Adds `n` finished operations.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// Operations finished so far.
    pub fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Starts over at 0.
    pub fn reset(&self) {
        self.0.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

impl PartialEq for ProgressCounter {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ProgressCounter {}

/// What to run (db_bench's flags).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchConfig {
    /// `--num`: keys in the key space, and writes per thread.
    pub num: u64,
    /// `--reads` (None = `num`).
    pub reads: Option<u64>,
    /// `--writes`: writes per thread of the write benchmarks (fillseq, fillrandom, overwrite,
    /// deleterandom; None = `num`), their keys still drawn from the `num` keys, as db_bench's
    /// `--writes` (4 threads x 1 M overwrites spread over a 50 M-key database, say). Left out
    /// of the JSON when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<u64>,
    /// `--key_size` (at least 8).
    pub key_size: usize,
    /// `--value_size`.
    pub value_size: usize,
    /// `--threads`.
    pub threads: u32,
    /// `--seed`.
    pub seed: u64,
    /// `--seek_nexts`.
    pub seek_nexts: u64,
    /// `--batch_size`.
    pub batch_size: u64,
    /// `--readwritepercent` (readrandomwriterandom).
    pub readwritepercent: u64,
    /// `--compression_ratio`: the fraction of each 100-byte piece of the value pool that is
    /// random, the rest repeating it (db_bench's default 0.5; see [`ValueGen::with_ratio`]).
    pub compression_ratio: f64,
    /// `--elide_values`: puts hand the store the value's pool offset and length instead of
    /// its bytes ([`KvStore::put_elided`]; simulation only). The figures are the same either
    /// way, so it is not part of the JSON. Batched writes (`--batch_size` above 1) carry the
    /// bytes.
    #[serde(skip)]
    pub elide_values: bool,
    /// Progress of the running benchmark (for display only).
    #[serde(skip)]
    pub progress: ProgressCounter,
    /// `--verify`: every read is checked against the last acknowledged write of its key.
    #[serde(skip)]
    pub verify: Option<std::sync::Arc<crate::verify::ValueLedger>>,
    /// The studies' sampled write ledger ([`crate::invariants::WriteSample`]): records the
    /// last acknowledged write of one key in 64, without waiting, for the end-of-run check.
    #[serde(skip)]
    pub record: Option<std::sync::Arc<crate::invariants::WriteSample>>,
}

/// Most client threads a benchmark may run (each is a task with its own buffers).
pub const MAX_THREADS: u32 = 1024;

/// Largest value a workload writes: 64 MiB (RocksDB's default memtable size; a value is
/// generated, batched and logged whole, and db_bench's value pool holds one).
pub const MAX_VALUE_SIZE: usize = 64 << 20;

/// `key` set to `v`, which is not `range` (`between 8 and 1048576`).
fn out_of_range(key: String, v: &str, range: &str) -> HarnessError {
    HarnessError::config(key, format!("must be {range}, not {v}"))
}

impl BenchConfig {
    /// Checks the settings, naming the flag and its range.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for a value out of range.
    pub fn validate(&self) -> Result<(), HarnessError> {
        self.check()
            .map_err(|(flag, v, range)| out_of_range(format!("--{flag}"), &v, range))
    }

    /// [`BenchConfig::validate`] for a scenario's workload section: names the key under
    /// `section` (`workload`, `workload.then[0]`).
    ///
    /// # Errors
    /// [`HarnessError::Config`] for a value out of range.
    pub fn validate_in(&self, section: &str) -> Result<(), HarnessError> {
        self.check()
            .map_err(|(key, v, range)| out_of_range(format!("{section}.{key}"), &v, range))
    }

    /// The first setting out of range: its name, value and what it must be.
    fn check(&self) -> Result<(), (&'static str, String, &'static str)> {
        let bad = |flag: &'static str, v: String, range: &'static str| Err((flag, v, range));
        if self.num == 0 {
            return bad("num", "0".into(), "at least 1");
        }
        if self.writes == Some(0) {
            return bad("writes", "0".into(), "at least 1 (or absent: num)");
        }
        if !(8..=1 << 20).contains(&self.key_size) {
            return bad(
                "key_size",
                self.key_size.to_string(),
                "between 8 and 1048576",
            );
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return bad("threads", self.threads.to_string(), "between 1 and 1024");
        }
        if self.value_size > MAX_VALUE_SIZE {
            return bad(
                "value_size",
                self.value_size.to_string(),
                "at most 67108864 (64 MiB)",
            );
        }
        if self.batch_size == 0 {
            return bad("batch_size", "0".into(), "at least 1");
        }
        if !(self.compression_ratio.is_finite() && self.compression_ratio >= 0.0) {
            return bad(
                "compression_ratio",
                self.compression_ratio.to_string(),
                "a number of at least 0",
            );
        }
        if self.readwritepercent > 100 {
            return bad(
                "readwritepercent",
                self.readwritepercent.to_string(),
                "at most 100",
            );
        }
        Ok(())
    }

    /// The operations benchmark `bench` is to do, over every thread (what progress counts
    /// towards; waiting for compactions does none).
    pub fn planned_ops(&self, bench: Benchmark) -> u64 {
        let per_thread = if bench.writes_num_keys() {
            self.writes.unwrap_or(self.num)
        } else if bench == Benchmark::WaitForCompaction {
            0
        } else {
            self.reads.unwrap_or(self.num)
        };
        per_thread * u64::from(self.threads)
    }

    /// The generator of this configuration's values, to register with the store
    /// ([`KvStore::set_value_regenerator`]) when it is opened.
    pub fn value_regenerator(&self) -> Arc<dyn zonedb_lsm::elided::ValueRegenerator> {
        Arc::new(ValueGen::with_ratio(self.compression_ratio, self.value_size).regenerator())
    }

    /// Whether a write of `key` must be remembered for `--verify` or the sampled ledger.
    fn remembers(&self, key: &[u8]) -> bool {
        self.verify.is_some()
            || self
                .record
                .as_ref()
                .is_some_and(|_| crate::invariants::WriteSample::follows(key))
    }
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            num: 1_000_000,
            reads: None,
            writes: None,
            key_size: 16,
            value_size: 100,
            threads: 1,
            seed: 0,
            seek_nexts: 0,
            batch_size: 1,
            readwritepercent: 90,
            compression_ratio: crate::keys::DEFAULT_COMPRESSION_RATIO,
            elide_values: false,
            progress: ProgressCounter::default(),
            verify: None,
            record: None,
        }
    }
}

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Latency {
    /// Count.
    pub count: u64,
    /// Mean.
    pub avg_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 75th percentile.
    pub p75_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Maximum.
    pub max_us: f64,
}

impl Latency {
    /// The summary of a db_bench histogram (its percentiles as RocksDB computes them).
    pub fn of(h: &DbBenchHistogram) -> Self {
        Self {
            count: h.count(),
            avg_us: h.average(),
            p50_us: h.percentile(50.0),
            p75_us: h.percentile(75.0),
            p99_us: h.percentile(99.0),
            p999_us: h.percentile(99.9),
            p9999_us: h.percentile(99.99),
            max_us: h.max() as f64,
        }
    }
}

/// One benchmark's outcome.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchResult {
    /// Benchmark name.
    pub name: String,
    /// Operations done (all threads).
    pub ops: u64,
    /// Sum of per-thread busy time, ns.
    pub busy_ns: u64,
    /// Wall (or virtual) time from the first start to the last finish, ns.
    pub wall_ns: u64,
    /// Key + value bytes moved.
    pub bytes: u64,
    /// Reads that found their key (reads only).
    pub found: Option<u64>,
    /// db_bench's message after the MB/s figure.
    pub message: String,
    /// Per-op latency.
    pub latency: Latency,
    /// Skipped (a fresh-DB benchmark under `--use_existing_db`).
    pub skipped: bool,
    /// readwhilewriting: puts of the uncounted background writer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_writes: Option<u64>,
    /// Why the benchmark ended before its last operation: the device filled up (the engine's
    /// `NoSpace` error). The figures count the operations done until then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// db_bench's histograms per operation type (`write`, `read`, `seek`, `delete`).
    #[serde(skip)]
    pub histograms: BTreeMap<&'static str, DbBenchHistogram>,
    /// Latency per operation type: db_bench's (`write`, `read`, `seek`, `delete`, as its
    /// `--histogram` blocks name them) or YCSB's (`READ`, `UPDATE`, `INSERT`, `SCAN`,
    /// `READ-MODIFY-WRITE`). Left out of JSON when empty.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub latency_by_op: BTreeMap<String, Latency>,
    /// The latency CDF of every operation, from the full histogram: `[µs, fraction of
    /// operations at or below]` points ([`cdf_points`]), what the reports' latency plots draw.
    /// Left out of JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency_cdf: Vec<[f64; 2]>,
}

impl BenchResult {
    /// micros/op as db_bench computes it (per-thread busy time per op).
    pub fn micros_per_op(&self) -> f64 {
        self.busy_ns as f64 / 1e3 / self.ops.max(1) as f64
    }

    /// ops/sec over wall time.
    pub fn ops_per_sec(&self) -> f64 {
        self.ops.max(1) as f64 / (self.wall_ns.max(1) as f64 / 1e9)
    }

    /// MB/s (MiB of key + value bytes per wall second).
    pub fn mb_per_sec(&self) -> f64 {
        self.bytes as f64 / 1_048_576.0 / (self.wall_ns.max(1) as f64 / 1e9)
    }

    /// db_bench's result line.
    pub fn line(&self) -> String {
        if self.skipped {
            return format!("{:<12} : skipped (--use_existing_db is true)", self.name);
        }
        let mut s = format!(
            "{:<12} : {:>11.3} micros/op {:.0} ops/sec {:.3} seconds {} operations;",
            self.name,
            self.micros_per_op(),
            self.ops_per_sec().floor(),
            self.wall_ns as f64 / 1e9,
            self.ops.max(1)
        );
        if self.bytes > 0 {
            let _ = write!(s, " {:>6.1} MB/s", self.mb_per_sec());
        }
        if !self.message.is_empty() {
            let _ = write!(s, " {}", self.message);
        }
        s
    }

    /// db_bench's `--histogram` blocks.
    pub fn histogram_text(&self) -> String {
        let mut s = String::new();
        for (op, h) in &self.histograms {
            let _ = writeln!(s, "Microseconds per {op}:\n{}", h.to_text());
        }
        s
    }

    /// A skipped benchmark.
    pub fn skipped(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ops: 0,
            busy_ns: 0,
            wall_ns: 0,
            bytes: 0,
            found: None,
            message: String::new(),
            latency: Latency::default(),
            skipped: true,
            background_writes: None,
            stopped_by: None,
            histograms: BTreeMap::new(),
            latency_by_op: BTreeMap::new(),
            latency_cdf: Vec::new(),
        }
    }
}

/// What one thread did.
struct ThreadOut {
    ops: u64,
    busy_ns: u64,
    bytes: u64,
    found: u64,
    reads: u64,
    writes: u64,
    hist: Histogram<u64>,
    hists: BTreeMap<&'static str, DbBenchHistogram>,
    progress: ProgressCounter,
    /// The error that ended this thread's writes early (a full device).
    stopped_by: Option<String>,
}

impl ThreadOut {
    fn new(progress: ProgressCounter) -> Self {
        Self {
            progress,
            ops: 0,
            busy_ns: 0,
            bytes: 0,
            found: 0,
            reads: 0,
            writes: 0,
            hist: new_hist(),
            hists: BTreeMap::new(),
            stopped_by: None,
        }
    }

    /// Ends the thread's work quietly when `r` failed because the device is full (so the
    /// benchmark reports what it did until then); other errors pass through.
    fn stop_if_full(&mut self, r: Result<(), HarnessError>) -> Result<(), HarnessError> {
        match r {
            Err(HarnessError::Lsm(e)) if e.kind() == LsmErrorKind::NoSpace => {
                self.stopped_by = Some(e.to_string());
                Ok(())
            }
            r => r,
        }
    }

    fn add(&mut self, o: &Self) {
        self.ops += o.ops;
        self.busy_ns += o.busy_ns;
        self.bytes += o.bytes;
        self.found += o.found;
        self.reads += o.reads;
        self.writes += o.writes;
        if self.stopped_by.is_none() {
            self.stopped_by.clone_from(&o.stopped_by);
        }
        let _ = self.hist.add(&o.hist);
        for (k, h) in &o.hists {
            self.hists.entry(k).or_default().merge(h);
        }
    }

    /// Counts `n` ops of type `op` that started at `t0`.
    fn record(&mut self, now: u64, t0: u64, n: u64, op: &'static str) {
        let dt = now - t0;
        self.busy_ns += dt;
        self.ops += n;
        self.progress.add(n);
        let _ = self.hist.record(dt.max(1));
        if n > 0 {
            self.hists.entry(op).or_default().add(dt / 1000);
        }
    }
}

/// The CDF of a latency histogram in ns as `[µs, fraction at or below]` points: every
/// recorded value of the histogram, thinned to the points a log-log plot can tell apart (the
/// latency moves by 1% or the tail, 1 - fraction, by 5%), the maximum at 1 always kept.
/// Empty for an empty histogram.
pub fn cdf_points(h: &Histogram<u64>) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = Vec::new();
    if h.is_empty() {
        return out;
    }
    let total = h.len() as f64;
    let mut below = 0u64;
    let mut pending: Option<[f64; 2]> = None;
    for v in h.iter_recorded() {
        below += v.count_since_last_iteration();
        let us = h.highest_equivalent(v.value_iterated_to()) as f64 / 1e3;
        let q = below as f64 / total;
        let p = [us, q];
        let far = out
            .last()
            .is_none_or(|last| us > last[0] * 1.01 || (1.0 - q) < (1.0 - last[1]) / 1.05);
        if far {
            out.push(p);
            pending = None;
        } else {
            pending = Some(p);
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    if let Some(last) = out.last_mut() {
        last[1] = 1.0;
    }
    out
}

#[allow(
    clippy::expect_used,
    reason = "constant bounds that hdrhistogram accepts"
)]
pub(crate) fn new_hist() -> Histogram<u64> {
    // 1 ns .. 1000 s at 3 significant digits.
    Histogram::new_with_bounds(1, 1_000_000_000_000, 3).expect("valid histogram bounds")
}

/// Runs benchmark `bench` on `db` with `cfg.threads` tasks. Thread `t` seeds its RNG from
/// `cfg.seed` and `*thread_count + t + 1`, and `thread_count` advances by the thread count, so
/// every benchmark of a run draws new keys (db_bench's `total_thread_count_`).
///
/// # Errors
/// [`HarnessError::Config`] for bad sizes; engine errors.
pub async fn run_one<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    bench: Benchmark,
    cfg: &BenchConfig,
    thread_count: &mut u64,
) -> Result<BenchResult, HarnessError> {
    cfg.validate()?;
    if cfg.elide_values {
        // Where the opener registered it already, this one is ignored.
        db.set_value_regenerator(cfg.value_regenerator());
    }
    let name = bench.name();
    let start = env.now();
    let mut handles = Vec::new();
    for t in 0..cfg.threads {
        let (db, env2, cfg2) = (db.clone(), env.clone(), cfg.clone());
        let seed = cfg
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(*thread_count + u64::from(t) + 1);
        handles.push(env.spawn(&format!("{name}-{t}"), async move {
            thread_body(&env2, &db, bench, &cfg2, seed).await
        }));
    }
    *thread_count += u64::from(cfg.threads);
    // readwhilewriting: one more thread writes until the readers finish; it is not counted.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = (bench == Benchmark::ReadWhileWriting).then(|| {
        let (db, env2, cfg2, stop2) = (db.clone(), env.clone(), cfg.clone(), stop.clone());
        let seed = cfg
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(*thread_count + 1);
        *thread_count += 1;
        env.spawn("bgwriter", async move {
            background_writer(&env2, &db, &cfg2, seed, &stop2).await
        })
    });
    let mut total = ThreadOut::new(ProgressCounter::default());
    for h in handles {
        let out = h.await.map_err(HarnessError::task("benchmark thread"))??;
        total.add(&out);
    }
    stop.store(true, Ordering::Relaxed);
    let mut background_writes = None;
    if let Some(w) = writer {
        background_writes = Some(w.await.map_err(HarnessError::task("writer thread"))??);
    }
    let wall_ns = env.now() - start;
    let reads = bench.reports_found();
    let h = &total.hist;
    let us = |v: u64| v as f64 / 1e3;
    Ok(BenchResult {
        name: name.to_owned(),
        ops: total.ops,
        busy_ns: total.busy_ns,
        wall_ns,
        bytes: total.bytes,
        found: reads.then_some(total.found),
        message: if total.stopped_by.is_some() {
            "(stopped: the device is full)".to_owned()
        } else if reads {
            format!("({} of {} found)", total.found, total.ops)
        } else if bench == Benchmark::ReadRandomWriteRandom {
            format!(
                "( reads:{} writes:{} total:{} found:{})",
                total.reads,
                total.writes,
                cfg.reads.unwrap_or(cfg.num) * u64::from(cfg.threads),
                total.found
            )
        } else {
            String::new()
        },
        latency: Latency {
            count: h.len(),
            avg_us: h.mean() / 1e3,
            p50_us: us(h.value_at_quantile(0.5)),
            p75_us: us(h.value_at_quantile(0.75)),
            p99_us: us(h.value_at_quantile(0.99)),
            p999_us: us(h.value_at_quantile(0.999)),
            p9999_us: us(h.value_at_quantile(0.9999)),
            max_us: us(h.max()),
        },
        skipped: false,
        background_writes,
        stopped_by: total.stopped_by,
        latency_by_op: total
            .hists
            .iter()
            .map(|(op, h)| ((*op).to_owned(), Latency::of(h)))
            .collect(),
        latency_cdf: cdf_points(h),
        histograms: total.hists,
    })
}

async fn background_writer<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    cfg: &BenchConfig,
    seed: u64,
    stop: &AtomicBool,
) -> Result<u64, HarnessError> {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut values = ValueGen::with_ratio(cfg.compression_ratio, cfg.value_size);
    let mut puts = 0;
    while !stop.load(Ordering::Relaxed) {
        puts += 1;
        let key = make_key(rng.gen_range(0..cfg.num), cfg.key_size);
        verified_put(db, cfg, &key, &mut values).await?;
        // Let the readers run between writes even when nothing blocks (virtual time).
        env.cpu(0).await;
    }
    Ok(puts)
}

async fn thread_body<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    bench: Benchmark,
    cfg: &BenchConfig,
    seed: u64,
) -> Result<ThreadOut, HarnessError> {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut values = ValueGen::with_ratio(cfg.compression_ratio, cfg.value_size);
    let mut out = ThreadOut::new(cfg.progress.clone());
    let reads = cfg.reads.unwrap_or(cfg.num);
    let ks = cfg.key_size;
    match bench {
        Benchmark::FillSeq
        | Benchmark::FillRandom
        | Benchmark::FillUniqueRandom
        | Benchmark::Overwrite
        | Benchmark::DeleteRandom => {
            let r = write_ops(env, db, bench, cfg, &mut rng, &mut values, &mut out).await;
            out.stop_if_full(r)?;
        }
        Benchmark::ReadRandom | Benchmark::ReadWhileWriting => {
            for _ in 0..reads {
                let key = make_key(rng.gen_range(0..cfg.num), ks);
                let t0 = env.now();
                let v = verified_get(db, cfg, &key).await?;
                out.record(env.now(), t0, 1, "read");
                if let Some(v) = v {
                    out.found += 1;
                    out.bytes += (key.len() + v.len()) as u64;
                }
            }
        }
        Benchmark::ReadRandomWriteRandom => {
            let r = read_write_mix(env, db, cfg, &mut rng, &mut values, &mut out).await;
            out.stop_if_full(r)?;
        }
        // No operations: waits out the flushes and compactions still owed (the benchmark's
        // time is how long that took).
        Benchmark::WaitForCompaction => db.wait_for_compactions().await?,
        Benchmark::ReadSeq => {
            let mut it = db.iter();
            let t0 = env.now();
            it.seek_to_first().await?;
            out.record(env.now(), t0, 0, "read");
            while it.valid() && out.ops < reads {
                out.bytes += (it.key().len() + it.value().len()) as u64;
                let t0 = env.now();
                it.next().await?;
                out.record(env.now(), t0, 1, "read");
            }
        }
        Benchmark::SeekRandom => {
            for _ in 0..reads {
                let key = make_key(rng.gen_range(0..cfg.num), ks);
                let t0 = env.now();
                let mut it = db.iter();
                it.seek(&key).await?;
                if it.valid() && it.key() == key.as_slice() {
                    out.found += 1;
                }
                for _ in 0..cfg.seek_nexts {
                    if !it.valid() {
                        break;
                    }
                    out.bytes += (it.key().len() + it.value().len()) as u64;
                    it.next().await?;
                }
                out.record(env.now(), t0, 1, "seek");
            }
        }
    }
    Ok(out)
}

/// fillseq, fillrandom, filluniquerandom, overwrite, deleterandom: `num` keys (`writes` if
/// set) in batches of `batch_size`.
async fn write_ops<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    bench: Benchmark,
    cfg: &BenchConfig,
    rng: &mut SimRng,
    values: &mut ValueGen,
    out: &mut ThreadOut,
) -> Result<(), HarnessError> {
    let ks = cfg.key_size;
    let batch = cfg.batch_size.max(1);
    let op = if bench == Benchmark::DeleteRandom {
        "delete"
    } else {
        "write"
    };
    // Puts go out elided, one at a time or in batches.
    let elide = cfg.elide_values && bench != Benchmark::DeleteRandom;
    let regen = values.regenerator();
    // One put at a time goes out without a batch; key and descriptor buffers are reused.
    let single_put = elide && batch == 1;
    let (mut key, mut desc) = (Vec::with_capacity(ks.max(8)), Vec::with_capacity(10));
    let mut wrote: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let mut i = 0;
    let total = cfg.writes.unwrap_or(cfg.num);
    let order = (bench == Benchmark::FillUniqueRandom).then(|| unique_order(cfg.num, rng));
    while i < total {
        let n = batch.min(total - i);
        let mut b = (!single_put).then(|| {
            WriteBatch::with_capacity(usize::try_from(n).unwrap_or(1) * (ks + cfg.value_size + 21))
        });
        let mut single = None;
        wrote.clear();
        for j in 0..n {
            let k = match &order {
                // `writes` beyond `num` start the permutation again, as db_bench's generator.
                Some(o) => o[usize::try_from((i + j) % cfg.num).unwrap_or(0)],
                None if bench == Benchmark::FillSeq => i + j,
                None => rng.gen_range(0..cfg.num),
            };
            make_key_into(k, ks, &mut key);
            if bench == Benchmark::DeleteRandom {
                if let Some(b) = &mut b {
                    b.delete(&key);
                }
                out.bytes += key.len() as u64;
                if cfg.remembers(&key) {
                    wrote.push((key.clone(), None));
                }
            } else {
                let (offset, value) = values.next_elided(cfg.value_size);
                out.bytes += (key.len() + cfg.value_size) as u64;
                if cfg.remembers(&key) {
                    wrote.push((key.clone(), Some(value.to_vec())));
                }
                if elide {
                    PoolRegenerator::descriptor_into(offset, &mut desc);
                }
                match &mut b {
                    None => single = Some(value.len()),
                    Some(b) if elide => b.put_elided(&key, value.len(), &desc),
                    Some(b) => b.put(&key, value),
                }
            }
        }
        let t0 = env.now();
        let ledger = match &cfg.verify {
            Some(l) => Some(l.lock().await),
            None => None,
        };
        match (single, b) {
            (Some(len), _) => db.put_elided(&key, len, &desc, &regen).await?,
            (None, Some(b)) => db.write(b).await?,
            (None, None) => {}
        }
        if let Some(mut l) = ledger {
            for (k, v) in &wrote {
                match v {
                    Some(v) => l.put(k, v),
                    None => l.delete(k),
                }
            }
        }
        if let Some(r) = &cfg.record {
            for (k, v) in &wrote {
                match v {
                    Some(v) => r.put(k, v),
                    None => r.delete(k),
                }
            }
        }
        out.record(env.now(), t0, n, op);
        i += n;
    }
    Ok(())
}

/// filluniquerandom's key order: `0..num` shuffled (Fisher-Yates) by the thread's generator.
fn unique_order(num: u64, rng: &mut SimRng) -> Vec<u64> {
    let mut o: Vec<u64> = (0..num).collect();
    rng.shuffle(&mut o);
    o
}

/// A put of the next value of `values`, recorded in the ledger under `--verify` (which is held
/// across it); elided under `--elide_values`.
async fn verified_put<S: KvStore>(
    db: &S,
    cfg: &BenchConfig,
    key: &[u8],
    values: &mut ValueGen,
) -> Result<(), HarnessError> {
    let regen = cfg.elide_values.then(|| values.regenerator());
    let (offset, value) = values.next_elided(cfg.value_size);
    let put = async {
        match &regen {
            Some(r) => {
                let desc = PoolRegenerator::descriptor(offset);
                db.put_elided(key, value.len(), &desc, r).await
            }
            None => db.put(key, value).await,
        }
    };
    let Some(ledger) = &cfg.verify else {
        put.await?;
        if let Some(r) = &cfg.record {
            r.put(key, value);
        }
        return Ok(());
    };
    let mut state = ledger.lock().await;
    put.await?;
    state.put(key, value);
    if let Some(r) = &cfg.record {
        r.put(key, value);
    }
    Ok(())
}

/// A get, checked against the ledger under `--verify`.
async fn verified_get<S: KvStore>(
    db: &S,
    cfg: &BenchConfig,
    key: &[u8],
) -> Result<Option<Vec<u8>>, HarnessError> {
    let Some(ledger) = &cfg.verify else {
        return db.get(key).await;
    };
    let state = ledger.lock().await;
    let v = db.get(key).await?;
    ledger
        .check(&state, key, v.as_deref())
        .map_err(HarnessError::Verification)?;
    Ok(v)
}

/// readrandomwriterandom: a 100-op cycle of `readwritepercent` gets, then puts.
async fn read_write_mix<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    cfg: &BenchConfig,
    rng: &mut SimRng,
    values: &mut ValueGen,
    out: &mut ThreadOut,
) -> Result<(), HarnessError> {
    let reads = cfg.reads.unwrap_or(cfg.num);
    let ks = cfg.key_size;
    let (mut gets, mut puts) = (0u64, 0u64);
    for _ in 0..reads {
        if gets == 0 && puts == 0 {
            gets = cfg.readwritepercent.min(100);
            puts = 100 - gets;
        }
        let key = make_key(rng.gen_range(0..cfg.num), ks);
        let t0 = env.now();
        if gets > 0 {
            gets -= 1;
            out.reads += 1;
            let v = verified_get(db, cfg, &key).await?;
            out.record(env.now(), t0, 1, "read");
            if v.is_some() {
                out.found += 1;
            }
        } else {
            puts -= 1;
            out.writes += 1;
            verified_put(db, cfg, &key, values).await?;
            out.record(env.now(), t0, 1, "write");
        }
    }
    Ok(())
}
