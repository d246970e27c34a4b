//! The fio-like device microbenchmark behind `zonedb device bench`.
//!
//! Workloads: `seq-write` (zones written front to back), `seq-read` (the same order, after a
//! preconditioning fill), `rand-read` (block-aligned uniform random reads of filled zones), and
//! `mixed` (random reads of filled zones interleaved with sequential writes to other zones),
//! and `subzone-write` (SplitZNS: the zones are split, each client writes one subzone at a
//! time front to back with zone appends, finishes it and takes the next, as concurrent SST
//! writers do; the measured time ends when every program the device has started is done,
//! but a SubZone Ring acknowledges writes it still holds, up to its size (two wide zones by
//! default): for a sustained rate, write many times that), and `read-under-writes` (wide zones
//! read front to back as compactions read their inputs, background class, while `writers`
//! tasks keep writing either other wide zones or subzones of split zones; the measured time
//! ends when the reads are done: how much a program queue on a few chips slows reads striped
//! over all of them).
//! `qd` client tasks keep that many requests in flight. Everything reported is a pure function
//! of the profile, the options and the seed; wall-clock figures are added by the caller under
//! `host`.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hdrhistogram::Histogram;
use zonedb_env::Env;

use crate::{DeviceError, DeviceStats, IoClass, ZonedDevice};

/// Access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Sequential writes from the start of zone 0.
    SeqWrite,
    /// Sequential reads of preconditioned zones.
    SeqRead,
    /// Uniform random reads of preconditioned zones.
    RandRead,
    /// Random reads of preconditioned zones mixed with sequential writes to other zones.
    Mixed,
    /// Subzones of split zones written one per client at a time (SplitZNS devices).
    SubzoneWrite,
    /// Wide zones read sequentially (background class) while writer tasks write.
    ReadUnderWrites,
}

/// Where the writers of `read-under-writes` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteTo {
    /// Wide zones after the read set, written front to back (every chip programs).
    #[default]
    Wide,
    /// One subzone per writer at a time, of zones split after the read set (one chip each).
    Subzone,
}

impl WriteTo {
    /// Parses the CLI name.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] listing the names.
    pub fn parse(s: &str) -> Result<Self, DeviceError> {
        match s {
            "wide" => Ok(Self::Wide),
            "subzone" => Ok(Self::Subzone),
            _ => Err(DeviceError::InvalidConfig(format!(
                "unknown write target '{s}'; known: wide, subzone"
            ))),
        }
    }
}

impl Workload {
    /// Parses the CLI name.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] listing the names.
    pub fn parse(s: &str) -> Result<Self, DeviceError> {
        match s {
            "seq-write" => Ok(Self::SeqWrite),
            "seq-read" => Ok(Self::SeqRead),
            "rand-read" => Ok(Self::RandRead),
            "mixed" => Ok(Self::Mixed),
            "subzone-write" => Ok(Self::SubzoneWrite),
            "read-under-writes" => Ok(Self::ReadUnderWrites),
            _ => Err(DeviceError::InvalidConfig(format!(
                "unknown workload '{s}'; known: seq-write, seq-read, rand-read, mixed, \
                 subzone-write, read-under-writes"
            ))),
        }
    }
}

/// Benchmark options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchOptions {
    /// Access pattern.
    pub workload: Workload,
    /// Request size, bytes.
    pub block_size_bytes: u64,
    /// Requests in flight.
    pub qd: u32,
    /// Zones the workload touches (written, or preconditioned and read).
    pub zones: u32,
    /// Requests to issue for random and mixed workloads and the reads of `read-under-writes`
    /// (which go over the read zones again as many times as that takes); sequential ones
    /// cover their zones once.
    pub ops: u64,
    /// Percentage of reads in `mixed`.
    pub read_pct: u32,
    /// Seed of the random offsets.
    pub seed: u64,
    /// `read-under-writes`: writer tasks, one request in flight each (0: the reads alone).
    pub writers: u32,
    /// `read-under-writes`: where the writers write.
    pub write_to: WriteTo,
    /// `read-under-writes`: the writers' total rate, bytes per second of virtual time, shared
    /// equally (0: as fast as the device takes them).
    pub write_rate_bytes_per_s: u64,
    /// Write the data pattern as holes the simulated device does not store (it is regenerable
    /// from the seed; see [`crate::ElidedBytes`]): the same commands, byte counts and timing,
    /// without the payload's memory. Not part of the report (results are the same either way).
    #[serde(skip)]
    pub elide_payload: bool,
}

/// Latency summary of one operation type.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LatencySummary {
    /// Requests completed.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Mean latency (exact).
    pub latency_ns_mean: u64,
    /// Smallest latency (exact).
    pub latency_ns_min: u64,
    /// Median latency.
    pub latency_ns_p50: u64,
    /// 99th percentile.
    pub latency_ns_p99: u64,
    /// 99.9th percentile.
    pub latency_ns_p999: u64,
    /// Largest latency (exact).
    pub latency_ns_max: u64,
}

/// Benchmark result (without wall-clock figures).
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchReport {
    /// The options run.
    pub options: BenchOptions,
    /// Requests completed in the measured phase.
    pub ops: u64,
    /// Bytes moved in the measured phase.
    pub bytes: u64,
    /// Bytes per second of virtual time.
    pub bandwidth_bytes_per_s: f64,
    /// Requests per second of virtual time.
    pub iops: f64,
    /// Median latency over all requests.
    pub latency_ns_p50: u64,
    /// 99th percentile over all requests.
    pub latency_ns_p99: u64,
    /// 99.9th percentile over all requests.
    pub latency_ns_p999: u64,
    /// Mean latency over all requests.
    pub latency_ns_mean: u64,
    /// Reads only.
    pub read: LatencySummary,
    /// Writes only.
    pub write: LatencySummary,
    /// Virtual duration of the measured phase.
    pub virtual_time_ns: u64,
    /// Device counters at the end (preconditioning included).
    pub device: DeviceStats,
}

fn histogram() -> Histogram<u64> {
    // 1 ns .. 1000 s at 3 significant digits; the bounds are constants, so this cannot fail.
    Histogram::new_with_bounds(1, 1_000_000_000_000, 3).unwrap_or_else(|_| unreachable!())
}

/// Latencies of one operation type: a histogram for percentiles, exact sum, min and max.
#[derive(Debug)]
struct Latencies {
    hist: Histogram<u64>,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
    bytes: u64,
}

impl Latencies {
    fn new() -> Self {
        Self {
            hist: histogram(),
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            bytes: 0,
        }
    }

    fn record(&mut self, latency_ns: u64, bytes: u64) {
        self.hist.saturating_record(latency_ns.max(1));
        self.sum_ns += u128::from(latency_ns);
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
        self.bytes += bytes;
    }

    fn summary(&self) -> LatencySummary {
        let h = &self.hist;
        if h.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            ops: h.len(),
            bytes: self.bytes,
            latency_ns_mean: u64::try_from(self.sum_ns / u128::from(h.len())).unwrap_or(u64::MAX),
            latency_ns_min: self.min_ns,
            // Histogram buckets can round a percentile above the exact maximum: clamp.
            latency_ns_p50: h.value_at_quantile(0.5).min(self.max_ns),
            latency_ns_p99: h.value_at_quantile(0.99).min(self.max_ns),
            latency_ns_p999: h.value_at_quantile(0.999).min(self.max_ns),
            latency_ns_max: self.max_ns,
        }
    }
}

#[derive(Debug)]
struct Recorder {
    read: Latencies,
    write: Latencies,
    all: Latencies,
}

impl Recorder {
    fn record(&mut self, is_read: bool, latency_ns: u64, bytes: u64) {
        if is_read {
            &mut self.read
        } else {
            &mut self.write
        }
        .record(latency_ns, bytes);
        self.all.record(latency_ns, bytes);
    }
}

/// Sequential cursor over `(zone, offset)` of the zones `first..first + count`, `bs` at a time.
#[derive(Debug)]
struct SeqCursor {
    next: AtomicU64,
    first_zone: u32,
    zone_count: u32,
    zone_size: u64,
    capacity: u64,
    bs: u64,
}

impl SeqCursor {
    /// Claims the next request: device offset and length (shorter at the zone capacity end).
    fn claim(&self) -> Option<(u64, u64)> {
        let per_zone = self.capacity.div_ceil(self.bs);
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let zone = i / per_zone;
        if zone >= u64::from(self.zone_count) {
            return None;
        }
        let off = (i % per_zone) * self.bs;
        let len = self.bs.min(self.capacity - off);
        Some((
            (u64::from(self.first_zone) + zone) * self.zone_size + off,
            len,
        ))
    }
}

/// What every client task of one run shares.
#[derive(Debug)]
struct Clients<D> {
    dev: Arc<D>,
    opts: BenchOptions,
    geometry: crate::ZoneGeometry,
    read_zones: u32,
    seq: SeqCursor,
    issued: AtomicU64,
    pattern: Vec<u8>,
    rec: Mutex<Recorder>,
    /// `subzone-write` and `read-under-writes` to subzones: the next subzone to hand to a
    /// writer (zone-major) and the subzone geometry.
    subzones: Option<SubzoneCursor>,
    /// `read-under-writes`: the reads are done, writers stop.
    stop: AtomicBool,
    /// `read-under-writes` to wide zones: the writers' cursor over the zones after the reads.
    wide_writes: Option<SeqCursor>,
}

/// The subzones of `subzone-write`, handed out in order. A zone is split when its first
/// subzone is handed out and finished (deactivated) when its last one is full, so the split
/// zones in use stay within the device's active-zone limit.
#[derive(Debug)]
struct SubzoneCursor {
    next: AtomicU64,
    per_zone: u32,
    /// The first zone split (the zones are `first..first + zones`).
    first: u32,
    zones: u32,
    capacity: u64,
    /// Per zone (index relative to `first`): split on the device.
    split: Vec<AtomicBool>,
    /// Per zone: subzones finished.
    full: Vec<AtomicU32>,
}

impl SubzoneCursor {
    fn claim(&self) -> Option<crate::SubzoneId> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let per = u64::from(self.per_zone.max(1));
        let zone = u32::try_from(i / per).ok().filter(|&z| z < self.zones)?;
        Some(crate::SubzoneId {
            zone: self.first + zone,
            index: u32::try_from(i % per).ok()?,
        })
    }
}

impl<D: ZonedDevice> Clients<D> {
    /// Issues the next request of the workload; `None` when the workload is done.
    async fn next<E: Env>(
        &self,
        env: &E,
        rng: &mut zonedb_env::SimRng,
    ) -> Option<Result<(), DeviceError>> {
        let bs = self.opts.block_size_bytes;
        let t0 = env.now();
        let (target, read) = match self.opts.workload {
            Workload::SeqWrite => (self.seq.claim()?, false),
            // Its clients run `write_subzones` instead.
            Workload::SubzoneWrite => return None,
            Workload::SeqRead => (self.seq.claim()?, true),
            // The read zones front to back, over again until `ops` requests.
            Workload::ReadUnderWrites => {
                let i = self.issued.fetch_add(1, Ordering::Relaxed);
                let cap = self.geometry.zone_capacity_bytes;
                let per_zone = cap.div_ceil(bs);
                let total = per_zone * u64::from(self.read_zones);
                if i >= self.opts.ops || total == 0 {
                    return None;
                }
                let j = i % total;
                let off = (j % per_zone) * bs;
                (
                    (
                        (j / per_zone) * self.geometry.zone_size_bytes + off,
                        bs.min(cap - off),
                    ),
                    true,
                )
            }
            Workload::RandRead | Workload::Mixed => {
                if self.issued.fetch_add(1, Ordering::Relaxed) >= self.opts.ops {
                    return None;
                }
                let wants_read = self.opts.workload == Workload::RandRead
                    || rng.gen_range(0..100) < u64::from(self.opts.read_pct);
                // Once the writes have filled the device, the mix continues with reads.
                if let (false, Some(w)) =
                    (wants_read, if wants_read { None } else { self.seq.claim() })
                {
                    (w, false)
                } else {
                    {
                        let blocks_per_zone = self.geometry.zone_capacity_bytes / bs;
                        if blocks_per_zone == 0 || self.read_zones == 0 {
                            return None;
                        }
                        let zone = rng.gen_range(0..u64::from(self.read_zones));
                        let off = zone * self.geometry.zone_size_bytes
                            + rng.gen_range(0..blocks_per_zone) * bs;
                        ((off, bs), true)
                    }
                }
            }
        };
        let (off, len) = target;
        // `read-under-writes` reads as compactions do.
        let class = if self.opts.workload == Workload::ReadUnderWrites {
            IoClass::BackgroundRead
        } else {
            IoClass::QueryRead
        };
        let done = if read {
            if self.opts.elide_payload {
                self.dev.read_elided(off, len, class).await.map(drop)
            } else {
                self.dev.read(off, len, class).await.map(drop)
            }
        } else {
            self.write_at(off, len).await
        };
        if done.is_ok() {
            let lat = env.now() - t0;
            self.rec
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .record(read, lat, len);
        }
        Some(done)
    }
}

impl<D: ZonedDevice> Clients<D> {
    /// Holds a writer that has written `sent` bytes since `start` back to its share of
    /// `write_rate_bytes_per_s` (nothing when the rate is 0).
    async fn pace<E: Env>(&self, env: &E, start: u64, sent: u64) {
        let rate = self.opts.write_rate_bytes_per_s / u64::from(self.opts.writers.max(1));
        if rate == 0 {
            return;
        }
        let due = u128::from(sent) * 1_000_000_000 / u128::from(rate);
        let due = start.saturating_add(u64::try_from(due).unwrap_or(u64::MAX));
        if due > env.now() {
            env.sleep_until(due).await;
        }
    }

    /// Writes `len` bytes of the pattern at `off`.
    async fn write_at(&self, off: u64, len: u64) -> Result<(), DeviceError> {
        write_block(
            self.dev.as_ref(),
            off,
            &self.pattern,
            len,
            self.opts.elide_payload,
        )
        .await
    }

    /// Records a write of `len` bytes that took `latency_ns`, unless the reads of
    /// `read-under-writes` are done (a write completed after them is outside the measured time).
    fn record_write(&self, latency_ns: u64, len: u64) {
        if !self.stop.load(Ordering::Acquire) {
            self.rec
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .record(false, latency_ns, len);
        }
    }

    /// `read-under-writes` to wide zones: writes the zones after the read set front to back,
    /// one request in flight, until the reads are done or the zones run out.
    async fn write_wide<E: Env>(&self, env: &E) -> Result<(), DeviceError> {
        let Some(cursor) = &self.wide_writes else {
            return Ok(());
        };
        let (start, mut sent) = (env.now(), 0);
        while !self.stop.load(Ordering::Acquire) {
            let Some((off, len)) = cursor.claim() else {
                break;
            };
            let t0 = env.now();
            self.write_at(off, len).await?;
            self.record_write(env.now() - t0, len);
            sent += len;
            self.pace(env, start, sent).await;
        }
        Ok(())
    }

    /// `subzone-write`: claims subzones until none is left; each is appended to front to back,
    /// `bs` at a time (the last append shorter), and finished.
    async fn write_subzones<E: Env>(&self, env: &E) -> Result<(), DeviceError> {
        let Some(cursor) = &self.subzones else {
            return Ok(());
        };
        let split = self
            .dev
            .capabilities()
            .split_zones
            .ok_or_else(crate::zone_split_unsupported)?;
        // A zone append is at most the device's append limit.
        let bs = self
            .opts
            .block_size_bytes
            .min(self.geometry.zone_append_max_bytes);
        let (start, mut sent) = (env.now(), 0);
        while let Some(id) = cursor.claim() {
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            let z = (id.zone - cursor.first) as usize;
            if id.index == 0 {
                split.split_zone(id.zone, cursor.per_zone).await?;
                cursor.split[z].store(true, Ordering::Release);
            }
            // Another client is splitting the zone: its SPLIT is in flight.
            while !cursor.split[z].load(Ordering::Acquire) {
                env.sleep(1_000).await;
            }
            let mut written = 0;
            while written < cursor.capacity && !self.stop.load(Ordering::Acquire) {
                let len = bs.min(cursor.capacity - written);
                let t0 = env.now();
                split
                    .append_subzone(id, &self.pattern[..usize::try_from(len).unwrap_or(0)])
                    .await?;
                self.record_write(env.now() - t0, len);
                written += len;
                sent += len;
                self.pace(env, start, sent).await;
            }
            split.finish_subzone(id).await?;
            if cursor.full[z].fetch_add(1, Ordering::AcqRel) + 1 == cursor.per_zone {
                // Every subzone full: FINISH gives the split zone's tokens back.
                self.dev.manage(id.zone, crate::ZoneOp::Finish).await?;
            }
        }
        Ok(())
    }
}

/// The zones the workload touches, after checking the options against the device.
///
/// # Errors
/// [`DeviceError::InvalidConfig`] for a block size, queue depth or zone count the device
/// cannot run.
fn zones_needed(opts: &BenchOptions, g: &crate::ZoneGeometry) -> Result<u32, DeviceError> {
    let bs = opts.block_size_bytes;
    if bs == 0 || !bs.is_multiple_of(g.block_size_bytes) {
        return Err(DeviceError::InvalidConfig(format!(
            "block size {bs} is not a multiple of the device block {}",
            g.block_size_bytes
        )));
    }
    if opts.qd == 0 || opts.qd > 4096 {
        return Err(DeviceError::InvalidConfig("qd must be in 1..=4096".into()));
    }
    let needed = if opts.workload == Workload::Mixed {
        opts.zones.max(2)
    } else {
        opts.zones.max(1)
    };
    if needed > g.zone_count {
        return Err(DeviceError::InvalidConfig(format!(
            "{needed} zones asked, the device has {}",
            g.zone_count
        )));
    }
    if opts.workload == Workload::ReadUnderWrites && opts.writers > 0 && needed >= g.zone_count {
        return Err(DeviceError::InvalidConfig(format!(
            "read-under-writes reads {needed} zones and needs at least one more for its \
             writers; the device has {}",
            g.zone_count
        )));
    }
    if opts.writers > 4096 {
        return Err(DeviceError::InvalidConfig(
            "writers must be in 0..=4096".into(),
        ));
    }
    Ok(needed)
}

/// The subzones the writers take: of the `needed` zones for `subzone-write`, of the zones
/// after the `needed` read zones for `read-under-writes` to subzones (`None` otherwise).
///
/// # Errors
/// [`DeviceError::InvalidConfig`] when the device does not split zones.
fn subzone_cursor<D: ZonedDevice>(
    dev: &D,
    opts: &BenchOptions,
    needed: u32,
) -> Result<Option<SubzoneCursor>, DeviceError> {
    let (first, zones) = match (opts.workload, opts.write_to) {
        (Workload::SubzoneWrite, _) => (0, needed),
        (Workload::ReadUnderWrites, WriteTo::Subzone) if opts.writers > 0 => {
            (needed, dev.geometry().zone_count - needed)
        }
        _ => return Ok(None),
    };
    let geo = dev
        .capabilities()
        .split_zones
        .map(crate::SplitZones::split_geometry)
        .ok_or_else(|| {
            DeviceError::InvalidConfig(
                "writing subzones needs a device that splits zones (a SplitZNS device)".into(),
            )
        })?;
    Ok(Some(SubzoneCursor {
        next: AtomicU64::new(0),
        per_zone: geo.subzones,
        first,
        zones,
        capacity: geo.subzone_capacity_bytes,
        split: (0..zones).map(|_| AtomicBool::default()).collect(),
        full: (0..zones).map(|_| AtomicU32::default()).collect(),
    }))
}

/// Fills `zones` zones front to back and drains the write buffer, so measurement starts idle.
async fn precondition<D: ZonedDevice>(
    dev: &D,
    zones: u32,
    bs: u64,
    pattern: &[u8],
    elide: bool,
) -> Result<(), DeviceError> {
    let g = dev.geometry();
    let fill = SeqCursor {
        next: AtomicU64::new(0),
        first_zone: 0,
        zone_count: zones,
        zone_size: g.zone_size_bytes,
        capacity: g.zone_capacity_bytes,
        bs,
    };
    while let Some((off, len)) = fill.claim() {
        write_block(dev, off, pattern, len, elide).await?;
    }
    dev.sync().await
}

/// Writes `len` bytes of `pattern` at `off`, or as many bytes of hole when `elide`.
async fn write_block<D: ZonedDevice>(
    dev: &D,
    off: u64,
    pattern: &[u8],
    len: u64,
    elide: bool,
) -> Result<(), DeviceError> {
    if elide {
        let mut hole = crate::ElidedBytes::new();
        hole.push_hole(len);
        dev.write_elided(off, &hole).await
    } else {
        dev.write(off, &pattern[..usize::try_from(len).unwrap_or(usize::MAX)])
            .await
    }
}

/// Runs the clients (and the writers of `read-under-writes`) to the end; returns the end of
/// the measured time.
async fn drive<E: Env, D: ZonedDevice>(
    env: &E,
    clients: &Arc<Clients<D>>,
) -> Result<u64, DeviceError> {
    let under_writes = clients.opts.workload == Workload::ReadUnderWrites;
    let mut workers = Vec::new();
    for w in 0..clients.opts.qd {
        let (env2, clients, mut rng) = (env.clone(), clients.clone(), env.rng());
        workers.push(env.spawn(&format!("bench-client-{w}"), async move {
            if clients.subzones.is_some() && !under_writes {
                return clients.write_subzones(&env2).await;
            }
            while let Some(r) = clients.next(&env2, &mut rng).await {
                r?;
            }
            Ok::<(), DeviceError>(())
        }));
    }
    // `read-under-writes`: the writers, stopped when the reads are done.
    let mut writers = Vec::new();
    for w in 0..if under_writes {
        clients.opts.writers
    } else {
        0
    } {
        let (env2, clients) = (env.clone(), clients.clone());
        writers.push(env.spawn(&format!("bench-writer-{w}"), async move {
            if clients.subzones.is_some() {
                clients.write_subzones(&env2).await
            } else {
                clients.write_wide(&env2).await
            }
        }));
    }
    for w in workers {
        w.await
            .map_err(|e| DeviceError::InvalidConfig(format!("benchmark client failed: {e}")))??;
    }
    let reads_done = env.now();
    clients.stop.store(true, Ordering::Release);
    for w in writers {
        w.await
            .map_err(|e| DeviceError::InvalidConfig(format!("benchmark writer failed: {e}")))??;
    }
    if clients.subzones.is_some() && !under_writes {
        // The programs started are part of the measured time (the ring's tail is
        // power-loss protected: acknowledged and durable, not programmed yet).
        clients.dev.sync().await?;
    }
    // `read-under-writes` measures the reads: the writers' last requests after them are not
    // part of the time.
    Ok(if under_writes { reads_done } else { env.now() })
}

/// Runs the benchmark on `dev` (which must be empty) in `env`.
///
/// # Errors
/// [`DeviceError::InvalidConfig`] for options the device cannot run; any device error.
pub async fn run<E: Env, D: ZonedDevice>(
    env: E,
    dev: Arc<D>,
    opts: BenchOptions,
) -> Result<BenchReport, DeviceError> {
    let g = dev.geometry().clone();
    let bs = opts.block_size_bytes;
    let needed = zones_needed(&opts, &g)?;
    let (read_zones, write_first, write_zones) = match opts.workload {
        Workload::SeqWrite | Workload::SubzoneWrite => (0, 0, needed),
        Workload::SeqRead | Workload::ReadUnderWrites => (needed, 0, needed),
        Workload::RandRead => (needed, needed, 0),
        // Mixed: reads over half the zones asked, writes through every zone after them.
        Workload::Mixed => (needed / 2, needed / 2, g.zone_count - needed / 2),
    };
    let mut pattern = vec![0u8; bs as usize];
    let mut rng = env.rng();
    for chunk in pattern.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    if read_zones > 0 {
        precondition(dev.as_ref(), read_zones, bs, &pattern, opts.elide_payload).await?;
    }
    let subzones = subzone_cursor(dev.as_ref(), &opts, needed)?;
    let wide_writes = (opts.workload == Workload::ReadUnderWrites
        && opts.write_to == WriteTo::Wide
        && opts.writers > 0)
        .then(|| SeqCursor {
            next: AtomicU64::new(0),
            first_zone: needed,
            zone_count: g.zone_count - needed,
            zone_size: g.zone_size_bytes,
            capacity: g.zone_capacity_bytes,
            bs,
        });
    let clients = Arc::new(Clients {
        subzones,
        stop: AtomicBool::new(false),
        wide_writes,
        seq: SeqCursor {
            next: AtomicU64::new(0),
            first_zone: write_first,
            zone_count: write_zones,
            zone_size: g.zone_size_bytes,
            capacity: g.zone_capacity_bytes,
            bs,
        },
        dev: dev.clone(),
        opts: opts.clone(),
        geometry: g,
        read_zones,
        issued: AtomicU64::new(0),
        pattern,
        rec: Mutex::new(Recorder {
            read: Latencies::new(),
            write: Latencies::new(),
            all: Latencies::new(),
        }),
    });
    let start = env.now();
    let end = drive(&env, &clients).await?;
    let rec = clients.rec.lock().unwrap_or_else(PoisonError::into_inner);
    let elapsed = (end - start).max(1);
    let (read, write, all) = (rec.read.summary(), rec.write.summary(), rec.all.summary());
    let secs = elapsed as f64 / 1e9;
    Ok(BenchReport {
        ops: all.ops,
        bytes: all.bytes,
        bandwidth_bytes_per_s: all.bytes as f64 / secs,
        iops: all.ops as f64 / secs,
        latency_ns_p50: all.latency_ns_p50,
        latency_ns_p99: all.latency_ns_p99,
        latency_ns_p999: all.latency_ns_p999,
        latency_ns_mean: all.latency_ns_mean,
        read,
        write,
        virtual_time_ns: elapsed,
        device: dev.stats(),
        options: opts,
    })
}
