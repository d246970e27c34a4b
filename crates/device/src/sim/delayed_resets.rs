//! [`DelayedResets`]: a device whose zone resets take effect some time after they are issued.
//!
//! The simulated devices apply a reset to their zone table the instant it is admitted, so a
//! zone being reset never counts against the active-zone limit while its reset is in flight.
//! Real devices take time there: the file-backed device syncs its zone records, an SSD
//! erases. This wrapper gives a simulation that window, for tests of code that must not hand
//! out a zone's resources before its reset is done. It can also make the writes to some
//! zones slow ([`DelayedResets::with_slow_writes`]): a write there is issued only after a
//! delay, so a power loss in that window loses it, for tests of what may happen while a
//! metadata record is still on its way.

use std::future::Future;
use std::ops::Range;

use zonedb_env::Env;

use crate::{DeviceError, DeviceStats, IoClass, ZoneGeometry, ZoneInfo, ZoneOp, ZonedDevice};

/// `device`, whose resets take effect `delay_ns` after they are issued. Forwards the basic
/// commands only (reads, writes, appends, zone management, sync, stats, the write cache
/// flag): optional commands (split zones, copies, threaded logging) are not offered.
#[derive(Debug)]
pub struct DelayedResets<E: Env, D: ZonedDevice> {
    /// The device underneath.
    pub device: D,
    env: E,
    delay_ns: u64,
    /// Zones whose writes and appends wait `.1` ns before they are issued.
    slow_writes: (Range<u32>, u64),
}

impl<E: Env, D: ZonedDevice> DelayedResets<E, D> {
    /// Wraps `device`; `env` keeps the time.
    pub fn new(env: E, device: D, delay_ns: u64) -> Self {
        Self {
            device,
            env,
            delay_ns,
            slow_writes: (0..0, 0),
        }
    }

    /// Writes and appends to `zones` wait `delay_ns` before they are issued to the device.
    #[must_use]
    pub fn with_slow_writes(mut self, zones: Range<u32>, delay_ns: u64) -> Self {
        self.slow_writes = (zones, delay_ns);
        self
    }

    /// How long a write to `zone` waits before it is issued.
    fn write_delay(&self, zone: Option<u32>) -> u64 {
        match zone {
            Some(z) if self.slow_writes.0.contains(&z) => self.slow_writes.1,
            _ => 0,
        }
    }
}

impl<E: Env, D: ZonedDevice> ZonedDevice for DelayedResets<E, D> {
    fn geometry(&self) -> &ZoneGeometry {
        self.device.geometry()
    }

    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.device.report_zones(first, count)
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        self.device.read(offset, len, class)
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let wait = self
            .env
            .sleep(self.write_delay(self.geometry().zone_of(offset)));
        async move {
            wait.await;
            self.device.write(offset, data).await
        }
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        let wait = self.env.sleep(self.write_delay(Some(zone)));
        async move {
            wait.await;
            self.device.append(zone, data).await
        }
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let wait = self.env.sleep(if op == ZoneOp::Reset {
            self.delay_ns
        } else {
            0
        });
        async move {
            wait.await;
            self.device.manage(zone, op).await
        }
    }

    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.device.sync()
    }

    fn volatile_write_cache(&self) -> bool {
        self.device.volatile_write_cache()
    }

    fn stats(&self) -> DeviceStats {
        self.device.stats()
    }
}
