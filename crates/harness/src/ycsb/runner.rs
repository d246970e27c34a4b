//! Runs YCSB's load and transaction phases on a store ([`KvStore`]: ZoneDB's `Db`, or a peer)
//! with `threadcount` client tasks of the `Env`, as YCSB's `CoreWorkload` and its RocksDB binding do: records are `fieldcount` fields
//! serialized as the binding does (4-byte big-endian name length, name, 4-byte big-endian value
//! length, value); updates read the record, replace one field (all with `writeallfields`) and
//! write it back; read-modify-write times the read and the update together; run-phase inserts
//! take key numbers from an acknowledged counter and readers only choose acknowledged keys.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use hdrhistogram::Histogram;
use zonedb_env::{Env, SimRng};

use super::generators::{Discrete, Hotspot, ScrambledZipfian, SkewedLatest, Zipfian, key_name};
use super::values::{self, FieldSpec, RecordRegenerator};
use super::workload::{CoreWorkload, Distribution};
use crate::db_bench::{HarnessError, ProgressCounter};
use crate::kv::{KvIter, KvStore};

/// YCSB's operation names, in the order their blocks are printed.
pub const OPS: [&str; 5] = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Update,
    Insert,
    Scan,
    Rmw,
}

impl Op {
    fn name(self) -> &'static str {
        OPS[self as usize]
    }
}

/// Statistics of one operation type.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpStats {
    /// Operations.
    pub operations: u64,
    /// Mean latency, µs.
    pub average_us: f64,
    /// Minimum, µs.
    pub min_us: u64,
    /// Maximum, µs.
    pub max_us: u64,
    /// Percentiles, µs.
    pub p50_us: u64,
    /// 75th percentile, µs.
    pub p75_us: u64,
    /// 95th percentile, µs.
    pub p95_us: u64,
    /// 99th percentile, µs.
    pub p99_us: u64,
    /// 99.9th percentile, µs.
    pub p999_us: u64,
    /// 99.99th percentile, µs.
    pub p9999_us: u64,
    /// Returned OK.
    pub ok: u64,
    /// Returned NOT_FOUND.
    pub not_found: u64,
}

impl From<&OpStats> for crate::db_bench::Latency {
    /// An operation type's latencies in db_bench's form.
    fn from(o: &OpStats) -> Self {
        Self {
            count: o.operations,
            avg_us: o.average_us,
            p50_us: o.p50_us as f64,
            p75_us: o.p75_us as f64,
            p99_us: o.p99_us as f64,
            p999_us: o.p999_us as f64,
            p9999_us: o.p9999_us as f64,
            max_us: o.max_us as f64,
        }
    }
}

/// A phase's outcome.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct YcsbResult {
    /// `load` or `run`.
    pub phase: String,
    /// Run time, ns (virtual in simulation).
    pub runtime_ns: u64,
    /// Operations.
    pub operations: u64,
    /// ops/s.
    pub throughput: f64,
    /// Per operation type.
    pub ops: BTreeMap<String, OpStats>,
    /// Latency over every operation type, µs: (p50, p99, p99.9, p99.99, mean).
    pub overall_us: (u64, u64, u64, u64, f64),
    /// The latency CDF over every operation type (`[µs, fraction]`,
    /// [`crate::db_bench::cdf_points`]); for the reports' plots, not in this result's JSON.
    #[serde(skip)]
    pub overall_cdf: Vec<[f64; 2]>,
    /// Why the phase ended before its last operation: the device filled up (the engine's
    /// `NoSpace`); the figures count what was done until then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
}

impl YcsbResult {
    /// YCSB's text output.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "[OVERALL], RunTime(ms), {}", self.runtime_ns / 1_000_000);
        let _ = writeln!(s, "[OVERALL], Throughput(ops/sec), {}", self.throughput);
        for name in OPS {
            let Some(o) = self.ops.get(name) else {
                continue;
            };
            let _ = writeln!(s, "[{name}], Operations, {}", o.operations);
            let _ = writeln!(s, "[{name}], AverageLatency(us), {}", o.average_us);
            let _ = writeln!(s, "[{name}], MinLatency(us), {}", o.min_us);
            let _ = writeln!(s, "[{name}], MaxLatency(us), {}", o.max_us);
            let _ = writeln!(s, "[{name}], 95thPercentileLatency(us), {}", o.p95_us);
            let _ = writeln!(s, "[{name}], 99thPercentileLatency(us), {}", o.p99_us);
            if o.ok > 0 {
                let _ = writeln!(s, "[{name}], Return=OK, {}", o.ok);
            }
            if o.not_found > 0 {
                let _ = writeln!(s, "[{name}], Return=NOT_FOUND, {}", o.not_found);
            }
        }
        s
    }
}

/// YCSB's `AcknowledgedCounterGenerator`: hands out key numbers and knows the highest one
/// below which every insert is acknowledged.
#[derive(Debug)]
struct AckCounter {
    next: u64,
    limit: u64,
    acked: BTreeSet<u64>,
}

impl AckCounter {
    /// A counter for a run phase after `records` loaded records.
    fn after(records: u64) -> Arc<Mutex<Self>> {
        Arc::new(Mutex::new(Self {
            next: records,
            limit: records.saturating_sub(1),
            acked: BTreeSet::new(),
        }))
    }

    fn take(this: &Mutex<Self>) -> u64 {
        let mut s = this.lock().unwrap_or_else(PoisonError::into_inner);
        s.next += 1;
        s.next - 1
    }

    fn ack(this: &Mutex<Self>, v: u64) {
        let mut s = this.lock().unwrap_or_else(PoisonError::into_inner);
        s.acked.insert(v);
        loop {
            let n = s.limit + 1;
            if !s.acked.remove(&n) {
                break;
            }
            s.limit = n;
        }
    }

    fn last(this: &Mutex<Self>) -> u64 {
        this.lock().unwrap_or_else(PoisonError::into_inner).limit
    }
}

/// The key chooser of one client.
#[derive(Debug)]
enum Chooser {
    Uniform(u64, u64),
    Zipfian(ScrambledZipfian),
    Latest(SkewedLatest),
    Hotspot(Hotspot),
}

fn chooser(w: &CoreWorkload) -> Result<Chooser, HarnessError> {
    let lb = w.insertstart;
    let ub = w.insertstart + w.insertcount - 1;
    Ok(match w.requestdistribution {
        Distribution::Uniform => Chooser::Uniform(lb, ub),
        Distribution::Zipfian => {
            #[allow(
                clippy::cast_sign_loss,
                clippy::cast_possible_truncation,
                reason = "YCSB's (int) cast"
            )]
            let expected_new = (w.operationcount as f64 * w.insertproportion * 2.0) as u64;
            Chooser::Zipfian(
                ScrambledZipfian::new(lb, lb + w.insertcount + expected_new, w.zipfianconstant)
                    .ok_or_else(|| {
                        HarnessError::config(
                            "zipfianconstant",
                            format!("unsupported {}", w.zipfianconstant),
                        )
                    })?,
            )
        }
        Distribution::Latest => Chooser::Latest(SkewedLatest::new(w.recordcount.saturating_sub(1))),
        Distribution::Hotspot => Chooser::Hotspot(Hotspot::new(
            lb,
            ub,
            w.hotspotdatafraction,
            w.hotspotopnfraction,
        )),
    })
}

/// YCSB's `nextKeynum`: draw until the key is acknowledged.
fn next_keynum(c: &mut Chooser, rng: &mut SimRng, ack: &Mutex<AckCounter>) -> u64 {
    let last = AckCounter::last(ack);
    for _ in 0..1_000_000 {
        let k = match c {
            Chooser::Uniform(lb, ub) => *lb + rng.gen_range(0..*ub - *lb + 1),
            Chooser::Zipfian(z) => z.next(rng),
            Chooser::Latest(l) => l.next(rng, last),
            Chooser::Hotspot(h) => h.next(rng),
        };
        if k <= last {
            return k;
        }
    }
    last
}

/// A record of `fieldcount` fields in the RocksDB binding's serialization.
fn encode_record(fields: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in fields {
        values::put_field(&mut out, name.as_bytes(), value);
    }
    out
}

fn decode_record(data: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut p = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = data.get(p..p + n)?;
        p += n;
        Some(s)
    };
    while let Some(l) = take(4) {
        let nl = u32::from_be_bytes(l.try_into().ok()?) as usize;
        let name = String::from_utf8(take(nl)?.to_vec()).ok()?;
        let vl = u32::from_be_bytes(take(4)?.try_into().ok()?) as usize;
        out.push((name, take(vl)?.to_vec()));
    }
    Some(out)
}

/// Every field of a new record, one seed each from `rng` ([`values`]).
fn all_fields(w: &CoreWorkload, rng: &mut SimRng) -> Vec<FieldSpec> {
    (0..w.fieldcount)
        .map(|index| FieldSpec {
            index,
            len: w.fieldlength,
            seed: values::draw_seed(rng, w.fieldlength),
        })
        .collect()
}

/// How records are written: elided (the descriptor of their fields) or as bytes.
#[derive(Debug, Clone)]
struct Records {
    regen: RecordRegenerator,
    elide: bool,
}

impl Records {
    /// How `w`'s records go to `db`; registers their regenerator with it when `elide` (where
    /// the opener registered it already, this one is ignored).
    fn new<S: KvStore>(db: &S, w: &CoreWorkload, elide: bool) -> Self {
        if elide {
            db.set_value_regenerator(value_regenerator(w));
        }
        Self {
            regen: RecordRegenerator::new(&w.fieldnameprefix),
            elide,
        }
    }

    /// Puts the record of `specs` under `key`.
    async fn put<S: KvStore>(
        &self,
        db: &S,
        key: &[u8],
        specs: &[FieldSpec],
    ) -> Result<(), HarnessError> {
        if self.elide {
            let desc = RecordRegenerator::descriptor(specs);
            return db
                .put_elided(key, self.regen.record_len(specs), &desc, &self.regen)
                .await;
        }
        let mut rec = Vec::with_capacity(self.regen.record_len(specs));
        self.regen.record(specs, &mut rec);
        db.put(key, &rec).await
    }
}

struct Client {
    hists: BTreeMap<&'static str, Histogram<u64>>,
    ok: BTreeMap<&'static str, u64>,
    not_found: BTreeMap<&'static str, u64>,
    progress: ProgressCounter,
    stopped_by: Option<String>,
}

impl Client {
    fn new(progress: ProgressCounter) -> Self {
        Self {
            progress,
            hists: BTreeMap::new(),
            ok: BTreeMap::new(),
            not_found: BTreeMap::new(),
            stopped_by: None,
        }
    }

    fn record(&mut self, op: Op, ns: u64, found: bool) {
        self.progress.add(1);
        let h = self
            .hists
            .entry(op.name())
            .or_insert_with(crate::db_bench::new_hist);
        let _ = h.record(ns.max(1));
        *(if found {
            &mut self.ok
        } else {
            &mut self.not_found
        })
        .entry(op.name())
        .or_insert(0) += 1;
    }
}

fn key_of(w: &CoreWorkload, k: u64) -> Vec<u8> {
    key_name(k, w.insert_ordered, w.zeropadding).into_bytes()
}

/// YCSB splits `n` operations as n / threads each, the first n mod threads one more.
fn share(n: u64, threads: u64, t: u64) -> u64 {
    n / threads + u64::from(t < n % threads)
}

async fn update<S: KvStore>(
    db: &S,
    w: &CoreWorkload,
    records: &Records,
    key: &[u8],
    rng: &mut SimRng,
) -> Result<bool, HarnessError> {
    let Some(cur) = db.get(key).await? else {
        if w.upsert {
            records.put(db, key, &all_fields(w, rng)).await?;
            return Ok(true);
        }
        return Ok(false);
    };
    if w.writeallfields {
        records.put(db, key, &all_fields(w, rng)).await?;
        return Ok(true);
    }
    let fields = decode_record(&cur).unwrap_or_default();
    let field = FieldSpec {
        index: rng.gen_range(0..w.fieldcount),
        len: w.fieldlength,
        seed: values::draw_seed(rng, w.fieldlength),
    };
    if let Some(mut specs) = values::specs_of(&w.fieldnameprefix, &fields) {
        match specs.iter_mut().find(|f| f.index == field.index) {
            Some(f) => *f = field,
            None => specs.push(field),
        }
        records.put(db, key, &specs).await?;
    } else {
        // A record this workload did not write: its bytes, one field replaced.
        let mut fields = fields;
        let name = format!("{}{}", w.fieldnameprefix, field.index);
        let mut v = Vec::with_capacity(field.len);
        values::field_value(field.seed, field.len, &mut v);
        match fields.iter_mut().find(|(n, _)| *n == name) {
            Some(f) => f.1 = v,
            None => fields.push((name, v)),
        }
        db.put(key, &encode_record(&fields)).await?;
    }
    Ok(true)
}

/// The zipfian generator of scan lengths, for a phase that scans with zipfian lengths only:
/// it sums zeta over every length, so it is built once per phase (each client a copy).
fn scan_lengths(w: &CoreWorkload, load: bool) -> Option<Zipfian> {
    (!load && !w.scanlength_uniform && w.scanproportion > 0.0)
        .then(|| Zipfian::new(w.minscanlength, w.maxscanlength, 0.99, None))
}

#[allow(clippy::too_many_arguments)]
async fn client<E: Env, S: KvStore>(
    env: E,
    db: S,
    w: Arc<CoreWorkload>,
    ops: u64,
    seed: u64,
    load: bool,
    (load_counter, ack, progress): (Arc<Mutex<u64>>, Arc<Mutex<AckCounter>>, ProgressCounter),
    records: Records,
    mut scan_zipf: Option<Zipfian>,
) -> Result<Client, HarnessError> {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut c = Client::new(progress);
    let mut keys = chooser(&w)?;
    let mut opchooser = Discrete::new();
    opchooser.add(w.readproportion, Op::Read);
    opchooser.add(w.updateproportion, Op::Update);
    opchooser.add(w.insertproportion, Op::Insert);
    opchooser.add(w.scanproportion, Op::Scan);
    opchooser.add(w.readmodifywriteproportion, Op::Rmw);
    let done = async {
        for _ in 0..ops {
            if load {
                let k = {
                    let mut n = load_counter.lock().unwrap_or_else(PoisonError::into_inner);
                    *n += 1;
                    *n - 1
                };
                let rec = all_fields(&w, &mut rng);
                let t0 = env.now();
                records.put(&db, &key_of(&w, k), &rec).await?;
                c.record(Op::Insert, env.now() - t0, true);
                continue;
            }
            let Some(op) = opchooser.next(&mut rng) else {
                break;
            };
            let t0 = env.now();
            let found = match op {
                Op::Read => {
                    let k = key_of(&w, next_keynum(&mut keys, &mut rng, &ack));
                    db.get(&k).await?.is_some()
                }
                Op::Update => {
                    let k = key_of(&w, next_keynum(&mut keys, &mut rng, &ack));
                    update(&db, &w, &records, &k, &mut rng).await?
                }
                Op::Insert => {
                    let n = AckCounter::take(&ack);
                    let rec = all_fields(&w, &mut rng);
                    records.put(&db, &key_of(&w, n), &rec).await?;
                    AckCounter::ack(&ack, n);
                    true
                }
                Op::Scan => {
                    let k = key_of(&w, next_keynum(&mut keys, &mut rng, &ack));
                    let len = if w.scanlength_uniform {
                        w.minscanlength + rng.gen_range(0..w.maxscanlength - w.minscanlength + 1)
                    } else {
                        scan_zipf
                            .as_mut()
                            .map_or(w.minscanlength, |z| z.next(&mut rng))
                    };
                    let mut it = db.iter();
                    it.seek(&k).await?;
                    let mut n = 0;
                    while it.valid() && n < len {
                        n += 1;
                        it.next().await?;
                    }
                    true
                }
                Op::Rmw => {
                    let k = key_of(&w, next_keynum(&mut keys, &mut rng, &ack));
                    let _ = db.get(&k).await?;
                    update(&db, &w, &records, &k, &mut rng).await?
                }
            };
            c.record(op, env.now() - t0, found);
        }
        Ok::<(), HarnessError>(())
    };
    match done.await {
        // A full device ends the client's work; the phase reports what was done.
        Err(HarnessError::Lsm(e)) if e.kind() == zonedb_lsm::LsmErrorKind::NoSpace => {
            c.stopped_by = Some(e.to_string());
        }
        r => r?,
    }
    Ok(c)
}

/// Runs the load phase (`load`) or the transaction phase, records as bytes.
///
/// # Errors
/// Engine errors; bad workload settings.
pub async fn run_phase<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    w: &CoreWorkload,
    seed: u64,
    load: bool,
) -> Result<YcsbResult, HarnessError> {
    let how = PhaseOptions::default();
    run_phase_with_progress(env, db, w, seed, load, &how).await
}

/// How a phase runs besides its workload.
#[derive(Debug, Clone, Default)]
pub struct PhaseOptions {
    /// Advanced by one per operation done (for a progress display).
    pub progress: ProgressCounter,
    /// Records go to the store as descriptors of their fields ([`KvStore::put_elided`],
    /// [`values`]); the figures are the same either way.
    pub elide_values: bool,
}

/// The regenerator of `w`'s records, to register with the store when it is opened
/// ([`KvStore::set_value_regenerator`]).
pub fn value_regenerator(w: &CoreWorkload) -> Arc<dyn zonedb_lsm::elided::ValueRegenerator> {
    Arc::new(RecordRegenerator::new(&w.fieldnameprefix))
}

/// [`run_phase`] as `how` says.
///
/// # Errors
/// As [`run_phase`].
#[allow(
    clippy::too_many_lines,
    reason = "one phase from load to result, its latency CDF included"
)]
pub async fn run_phase_with_progress<E: Env, S: KvStore>(
    env: &E,
    db: &S,
    w: &CoreWorkload,
    seed: u64,
    load: bool,
    how: &PhaseOptions,
) -> Result<YcsbResult, HarnessError> {
    let (progress, records) = (&how.progress, Records::new(db, w, how.elide_values));
    let w = Arc::new(w.clone());
    let total = if load {
        w.insertcount
    } else {
        w.operationcount
    };
    let load_counter = Arc::new(Mutex::new(w.insertstart));
    let ack = AckCounter::after(w.recordcount);
    let scan_zipf = scan_lengths(&w, load);
    let start = env.now();
    let mut handles = Vec::new();
    for t in 0..w.threadcount {
        let n = share(total, w.threadcount, t);
        handles.push(
            env.spawn(
                &format!("ycsb-client-{t}"),
                client(
                    env.clone(),
                    db.clone(),
                    w.clone(),
                    n,
                    seed.wrapping_mul(7919)
                        .wrapping_add(t + if load { 0 } else { 1 << 32 }),
                    load,
                    (load_counter.clone(), ack.clone(), progress.clone()),
                    records.clone(),
                    scan_zipf.clone(),
                ),
            ),
        );
    }
    let mut hists: BTreeMap<&'static str, Histogram<u64>> = BTreeMap::new();
    let mut ok: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut nf: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut stopped_by = None;
    for h in handles {
        let c = h.await.map_err(HarnessError::task("client task"))??;
        if stopped_by.is_none() {
            stopped_by = c.stopped_by;
        }
        for (k, h) in c.hists {
            let _ = hists
                .entry(k)
                .or_insert_with(crate::db_bench::new_hist)
                .add(&h);
        }
        for (k, v) in c.ok {
            *ok.entry(k).or_insert(0) += v;
        }
        for (k, v) in c.not_found {
            *nf.entry(k).or_insert(0) += v;
        }
    }
    let runtime_ns = env.now() - start;
    let us = |ns: u64| ns / 1000;
    let ops: BTreeMap<String, OpStats> = hists
        .iter()
        .map(|(k, h)| {
            (
                (*k).to_owned(),
                OpStats {
                    operations: h.len(),
                    average_us: h.mean() / 1000.0,
                    min_us: us(h.min()),
                    max_us: us(h.max()),
                    p50_us: us(h.value_at_quantile(0.5)),
                    p75_us: us(h.value_at_quantile(0.75)),
                    p95_us: us(h.value_at_quantile(0.95)),
                    p99_us: us(h.value_at_quantile(0.99)),
                    p999_us: us(h.value_at_quantile(0.999)),
                    p9999_us: us(h.value_at_quantile(0.9999)),
                    ok: ok.get(k).copied().unwrap_or(0),
                    not_found: nf.get(k).copied().unwrap_or(0),
                },
            )
        })
        .collect();
    let operations: u64 = ops.values().map(|o| o.operations).sum();
    let mut all = crate::db_bench::new_hist();
    for h in hists.values() {
        let _ = all.add(h);
    }
    Ok(YcsbResult {
        phase: if load { "load" } else { "run" }.into(),
        runtime_ns,
        operations,
        throughput: operations as f64 / (runtime_ns.max(1) as f64 / 1e9),
        ops,
        overall_us: (
            us(all.value_at_quantile(0.5)),
            us(all.value_at_quantile(0.99)),
            us(all.value_at_quantile(0.999)),
            us(all.value_at_quantile(0.9999)),
            all.mean() / 1000.0,
        ),
        overall_cdf: crate::db_bench::cdf_points(&all),
        stopped_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_in_the_bindings_format() {
        let f = vec![
            ("field0".to_owned(), b"abc".to_vec()),
            ("field1".to_owned(), vec![]),
        ];
        let e = encode_record(&f);
        assert_eq!(&e[..4], &[0, 0, 0, 6]);
        assert_eq!(decode_record(&e).unwrap(), f);
        // A default record: 10 × (4 + 6 + 4 + 100) = 1140 bytes.
        let w = CoreWorkload::from_properties(&super::super::workload::parse_properties(
            "recordcount=10",
        ))
        .unwrap();
        let mut rng = SimRng::seed_from_u64(1);
        let r = RecordRegenerator::new(&w.fieldnameprefix);
        let mut rec = Vec::new();
        r.record(&all_fields(&w, &mut rng), &mut rec);
        assert_eq!(rec.len(), 1140);
        assert_eq!(r.record_len(&all_fields(&w, &mut rng)), 1140);
        let fields = decode_record(&rec).unwrap();
        assert_eq!(fields[3].0, "field3");
        assert_eq!(
            (share(10, 3, 0), share(10, 3, 1), share(10, 3, 2)),
            (4, 3, 3)
        );
    }
}
