//! The device suite: the NVMe ZNS zone rules every [`ZonedDevice`] must keep, checked through
//! the trait alone (state transitions, write-pointer rules, typed errors, the open and active
//! limits, concurrent appends to one zone). Uses zones from the end of the device and resets
//! them afterwards.

use std::sync::Arc;

use zonedb_device::{DeviceError, IoClass, ZoneOp, ZoneState, ZonedDevice};
use zonedb_env::Env;

use super::{Verdict, ensure};

fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn state_of<D: ZonedDevice>(dev: &D, zone: u32) -> (ZoneState, u64) {
    dev.report_zones(zone, 1)
        .first()
        .map_or((ZoneState::Offline, 0), |z| (z.state, z.write_pointer))
}

/// Resets every zone that holds data or resources.
///
/// # Errors
/// The first failing reset.
pub async fn reset_all<D: ZonedDevice>(dev: &D) -> Result<(), DeviceError> {
    let g = dev.geometry().clone();
    for z in dev.report_zones(0, g.zone_count) {
        if z.state != ZoneState::Empty {
            dev.manage(z.index, ZoneOp::Reset).await?;
        }
    }
    Ok(())
}

/// State machine and write-pointer rules on one zone.
///
/// # Errors
/// A description of the first rule the device broke.
pub async fn zone_rules<D: ZonedDevice>(dev: &D) -> Verdict {
    let g = dev.geometry().clone();
    let bs = g.block_size_bytes;
    let zone = g.zone_count - 1;
    let start = g.zone_start(zone);
    reset_all(dev).await?;
    ensure(
        state_of(dev, zone) == (ZoneState::Empty, start),
        "zone starts empty",
    )?;
    let a = pattern(1, (3 * bs) as usize);
    dev.write(start, &a).await?;
    ensure(
        state_of(dev, zone) == (ZoneState::ImplicitlyOpen, start + 3 * bs),
        "a write opens the zone implicitly and moves the write pointer",
    )?;
    ensure(
        dev.read(start, 3 * bs, IoClass::QueryRead).await? == a,
        "the written blocks read back",
    )?;
    let skip = dev.write(start + 4 * bs, &a[..bs as usize]).await;
    ensure(
        matches!(skip, Err(DeviceError::NotAtWritePointer { .. })),
        format!("a write past the write pointer is refused as such, got {skip:?}"),
    )?;
    let beyond = dev.read(start + 2 * bs, 2 * bs, IoClass::QueryRead).await;
    ensure(
        matches!(beyond, Err(DeviceError::ReadBeyondWritePointer { .. })),
        format!("a read beyond the write pointer is refused, got {beyond:?}"),
    )?;
    let unaligned = dev.write(start + 3 * bs, &a[..100]).await;
    ensure(
        matches!(unaligned, Err(DeviceError::Unaligned { .. })),
        format!("a partial block is refused, got {unaligned:?}"),
    )?;
    dev.manage(zone, ZoneOp::Close).await?;
    ensure(state_of(dev, zone).0 == ZoneState::Closed, "close")?;
    dev.manage(zone, ZoneOp::Open).await?;
    ensure(
        state_of(dev, zone).0 == ZoneState::ExplicitlyOpen,
        "explicit open",
    )?;
    let at = dev.append(zone, &a[..bs as usize]).await?;
    ensure(
        at == start + 3 * bs,
        format!("append lands at the write pointer, got {at}"),
    )?;
    ensure(
        dev.read(at, bs, IoClass::QueryRead).await? == a[..bs as usize],
        "appended block reads back",
    )?;
    dev.manage(zone, ZoneOp::Finish).await?;
    ensure(
        state_of(dev, zone) == (ZoneState::Full, start + g.zone_capacity_bytes),
        "finish fills the zone to its capacity",
    )?;
    let full = dev.append(zone, &a[..bs as usize]).await;
    ensure(
        matches!(full, Err(DeviceError::ZoneFull { .. })),
        format!("an append to a full zone is refused as such, got {full:?}"),
    )?;
    dev.manage(zone, ZoneOp::Reset).await?;
    ensure(
        state_of(dev, zone) == (ZoneState::Empty, start),
        "reset empties the zone",
    )?;
    let gone = dev.read(start, bs, IoClass::QueryRead).await;
    ensure(
        matches!(gone, Err(DeviceError::ReadBeyondWritePointer { .. })),
        format!("a reset zone has nothing to read, got {gone:?}"),
    )?;
    // Fill one zone to its capacity with large writes: it becomes full by itself.
    let chunk = (g.zone_capacity_bytes / 4).min(4 << 20) / bs * bs;
    let mut wp = start;
    let mut n = 0u64;
    while wp < start + g.zone_capacity_bytes {
        let len = chunk.min(start + g.zone_capacity_bytes - wp);
        dev.write(wp, &pattern(100 + n, len as usize)).await?;
        wp += len;
        n += 1;
    }
    ensure(
        state_of(dev, zone).0 == ZoneState::Full,
        "a zone written to capacity is full",
    )?;
    let tail = dev.read(
        wp - chunk.min(wp - start),
        chunk.min(wp - start),
        IoClass::QueryRead,
    );
    ensure(
        tail.await.is_ok(),
        "the last chunk of a full zone reads back",
    )?;
    reset_all(dev).await?;
    Ok(())
}

/// The open and active limits: the device refuses one active zone too many with
/// [`DeviceError::TooManyActive`], and takes it once a zone is finished.
///
/// # Errors
/// A description of the first rule the device broke.
pub async fn resource_limits<D: ZonedDevice>(dev: &D) -> Verdict {
    let g = dev.geometry().clone();
    let limit = g.max_active_zones;
    if limit == 0 || limit >= g.zone_count {
        return Ok(());
    }
    let bs = g.block_size_bytes;
    reset_all(dev).await?;
    let block = pattern(7, bs as usize);
    for z in 0..limit {
        dev.write(g.zone_start(z), &block).await?;
    }
    let over = dev.write(g.zone_start(limit), &block).await;
    ensure(
        matches!(over, Err(DeviceError::TooManyActive { .. })),
        format!("zone {limit} beyond {limit} active zones is refused, got {over:?}"),
    )?;
    dev.manage(0, ZoneOp::Finish).await?;
    dev.write(g.zone_start(limit), &block).await?;
    let opened = dev
        .report_zones(0, g.zone_count)
        .iter()
        .filter(|z| z.state.is_open())
        .count() as u32;
    ensure(
        g.max_open_zones == 0 || opened <= g.max_open_zones,
        "open zones stay within the limit",
    )?;
    for z in 1..=limit {
        ensure(
            dev.read(g.zone_start(z), bs, IoClass::QueryRead).await? == block,
            format!("zone {z} reads back"),
        )?;
    }
    reset_all(dev).await?;
    Ok(())
}

/// Tasks appending to one zone at once get disjoint offsets that tile the zone, and every
/// appended block reads back where the device put it; tasks writing their own zones meanwhile
/// see their data too.
///
/// # Errors
/// A description of the first rule the device broke.
pub async fn concurrent_appends<E: Env, D: ZonedDevice>(env: &E, dev: &Arc<D>) -> Verdict {
    let g = dev.geometry().clone();
    let bs = g.block_size_bytes;
    reset_all(dev.as_ref()).await?;
    let shared = g.zone_count - 1;
    let piece = (g.zone_append_max_bytes.min(64 << 10) / bs).max(1) * bs;
    let per_task = ((g.zone_capacity_bytes / piece) / 8).clamp(1, 32);
    let tasks = 4u64;
    let mut handles = Vec::new();
    for t in 0..tasks {
        let dev = dev.clone();
        handles.push(env.spawn("conformance", async move {
            let mut got = Vec::new();
            for i in 0..per_task {
                let data = pattern(t * 1000 + i, piece as usize);
                let at = dev.append(shared, &data).await?;
                got.push((at, t * 1000 + i));
            }
            Ok::<_, DeviceError>(got)
        }));
    }
    // Meanwhile, writers on zones of their own.
    let own: Vec<u32> = (0..2).map(|i| g.zone_count - 2 - i).collect();
    let mut writers = Vec::new();
    for &z in &own {
        let dev = dev.clone();
        let first = g.zone_start(z);
        writers.push(env.spawn("conformance", async move {
            let mut wp = first;
            for i in 0..per_task {
                dev.write(wp, &pattern(u64::from(z) * 7919 + i, piece as usize))
                    .await?;
                wp += piece;
            }
            Ok::<_, DeviceError>(())
        }));
    }
    let mut placed = Vec::new();
    for h in handles {
        placed.extend(h.await.map_err(|e| e.to_string())??);
    }
    for w in writers {
        w.await.map_err(|e| e.to_string())??;
    }
    placed.sort_unstable();
    let start = g.zone_start(shared);
    for (i, &(at, _)) in placed.iter().enumerate() {
        ensure(
            at == start + i as u64 * piece,
            format!("appends tile the zone: #{i} at {at}"),
        )?;
    }
    for &(at, seed) in &placed {
        let back = dev.read(at, piece, IoClass::QueryRead).await?;
        ensure(
            back == pattern(seed, piece as usize),
            format!("append at {at} reads back"),
        )?;
    }
    for &z in &own {
        let mut wp = g.zone_start(z);
        for i in 0..per_task {
            let back = dev.read(wp, piece, IoClass::QueryRead).await?;
            ensure(
                back == pattern(u64::from(z) * 7919 + i, piece as usize),
                format!("zone {z} piece {i} reads back"),
            )?;
            wp += piece;
        }
    }
    reset_all(dev.as_ref()).await?;
    Ok(())
}
