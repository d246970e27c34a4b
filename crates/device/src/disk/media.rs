//! The HM-SMR drive as a [`Media`]: one actuator serving requests in FIFO order, seeks,
//! rotation from a platter angle that is a pure function of virtual time, and transfer at the
//! rate of the track under the head.

use super::{DiskProfile, Platter};
use crate::DeviceError;
use crate::IoClass;
use crate::sim::{Completion, Media, MediaKind};

/// The request a sequential stream continues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stream {
    zone: u32,
    /// Zone-relative device byte where the last request ended.
    end: u64,
    write: bool,
    /// When it completed.
    done: u64,
}

/// An HM-SMR drive timed in virtual time (ns); deterministic: the same calls give the same
/// times.
///
/// Per request, in issue order (one FIFO queue; the [`IoClass`] of a read is ignored, as a
/// drive at QD1 without command reordering ignores priorities):
///
/// - it starts at `max(now, busy_until)`;
/// - a *streaming continuation* (same zone and direction, starting where the last request
///   ended) costs only its transfer: a write must arrive before the last one completed (no
///   write cache: once the head has passed, the next sector comes round a revolution later);
///   a read may arrive later, within the read-ahead the drive did meanwhile
///   ([`DiskProfile::read_ahead_bytes`]), and completes when the streamed data would have
///   passed under the head, or at once if it already has;
/// - any other request pays the command overhead, the seek from the head's track to the
///   target's ([`super::SeekCurve`]; plus the write settle for a write that moved the arm),
///   then waits until the target's angle comes under the head (the platter angle at time `t`
///   is `(t mod revolution) / revolution`), then transfers;
/// - transfer time = bytes / (bytes of the target's track per revolution);
/// - the head then rests on the track where the request ended.
///
/// Positions: byte `o` of zone `z` of a device scaled by `1/N` lies at byte
/// `z · zone_size · N + o · N` of the full drive (zones keep their platter positions, a zone's
/// bytes are spread over its real tracks); transfer is charged for the bytes actually moved at
/// that track's rate.
///
/// Writes are acknowledged when on the media (no write cache), so a flush is done when the
/// queue is. Open, close, finish and reset are metadata commands of fixed cost
/// ([`DiskProfile::zone_mgmt_ns`], [`DiskProfile::reset_ns`]) served in the same queue; they do
/// not move the arm but end any stream.
#[derive(Debug)]
pub struct DiskMedia {
    profile: DiskProfile,
    platter: Platter,
    revolution_ns: f64,
    busy_until: u64,
    head_track: u64,
    stream: Option<Stream>,
}

impl DiskMedia {
    /// The drive of `profile`, idle, its head on the outermost track.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent.
    pub fn new(profile: DiskProfile) -> Result<Self, DeviceError> {
        profile.validate()?;
        Ok(Self {
            platter: Platter::new(&profile),
            revolution_ns: profile.revolution_ns(),
            profile,
            busy_until: 0,
            head_track: 0,
            stream: None,
        })
    }

    /// The profile.
    pub fn profile(&self) -> &DiskProfile {
        &self.profile
    }

    /// The platter.
    pub fn platter(&self) -> &Platter {
        &self.platter
    }

    /// The track under the head.
    pub fn head_track(&self) -> u64 {
        self.head_track
    }

    /// When the queue drains.
    pub fn busy_until(&self) -> u64 {
        self.busy_until
    }

    /// Byte of the full drive where zone-relative byte `offset` of `zone` lies.
    fn position(&self, zone: u32, offset: u64) -> u64 {
        let n = u64::from(self.profile.scale);
        u64::from(zone) * self.profile.full_zone_bytes() + offset.saturating_mul(n)
    }

    /// The platter angle at time `t` (fraction of a revolution).
    fn angle_at(&self, t: u64) -> f64 {
        (t as f64 / self.revolution_ns).fract()
    }

    /// Books one request; returns its completion time.
    fn serve(&mut self, now: u64, zone: u32, offset: u64, len: u64, write: bool) -> u64 {
        let start = now.max(self.busy_until);
        let place = self.platter.place(self.position(zone, offset));
        let transfer = len as f64 * self.revolution_ns / place.track_bytes;
        let continues = self
            .stream
            .filter(|s| s.zone == zone && s.end == offset && s.write == write);
        let done = match continues {
            Some(s) if write && now <= s.done => start as f64 + transfer,
            Some(s) if !write && now <= s.done + self.read_ahead_ns(place.track_bytes) => {
                (start as f64).max(s.done as f64 + transfer)
            }
            _ => {
                let mut t = (start + self.profile.command_ns) as f64;
                let x = self.platter.stroke_fraction(self.head_track, place.track);
                t += self.profile.seek.seek_ns(x);
                if write && x > 0.0 {
                    t += self.profile.write_settle_ns as f64;
                }
                let at = self.angle_at(super::whole_ns(t));
                let wait = (place.angle - at).rem_euclid(1.0);
                t + wait * self.revolution_ns + transfer
            }
        };
        let done = super::whole_ns(done).max(start);
        let end = self.platter.place(self.position(zone, offset + len));
        self.head_track = end.track;
        self.busy_until = done;
        self.stream = Some(Stream {
            zone,
            end: offset + len,
            write,
            done,
        });
        done
    }

    /// How long the drive reads ahead of a read stream while idle, ns.
    fn read_ahead_ns(&self, track_bytes: f64) -> u64 {
        super::whole_ns(self.profile.read_ahead_bytes as f64 * self.revolution_ns / track_bytes)
    }

    /// Books a metadata command of `cost` ns; ends any stream.
    fn command(&mut self, now: u64, cost: u64) -> u64 {
        let done = now.max(self.busy_until) + cost;
        self.busy_until = done;
        self.stream = None;
        done
    }
}

impl Media for DiskMedia {
    fn kind(&self) -> MediaKind {
        MediaKind::Disk
    }

    fn read(&mut self, now: u64, zone: u32, offset: u64, len: u64, class: IoClass) -> Completion {
        let _ = class;
        Completion::At(self.serve(now, zone, offset, len, false))
    }

    fn write(&mut self, now: u64, zone: u32, offset: u64, len: u64, capacity: u64) -> Completion {
        let _ = capacity;
        Completion::At(self.serve(now, zone, offset, len, true))
    }

    fn reset(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> Completion {
        let _ = (zone, programmed_bytes);
        Completion::At(self.command(now, self.profile.reset_ns))
    }

    fn finish(&mut self, now: u64, zone: u32, unwritten_bytes: u64, was_empty: bool) -> Completion {
        let _ = (zone, unwritten_bytes, was_empty);
        Completion::At(self.command(now, self.profile.zone_mgmt_ns))
    }

    fn manage(&mut self, now: u64) -> u64 {
        self.command(now, self.profile.zone_mgmt_ns)
    }

    fn flush_done_ns(&mut self, now: u64) -> u64 {
        now.max(self.busy_until)
    }

    /// Queued work is dropped; the head stays where it is.
    fn power_cycle(&mut self, now: u64) {
        self.busy_until = self.busy_until.min(now);
        self.stream = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn media() -> DiskMedia {
        DiskMedia::new(DiskProfile::by_name("st14000nm0007").unwrap()).unwrap()
    }

    #[test]
    fn back_to_back_sequential_requests_run_at_the_media_rate() {
        let mut m = media();
        let mib = 1 << 20;
        let first = m.serve(0, 0, 0, mib, false);
        let mut t = first;
        for i in 1..100 {
            t = m.serve(t, 0, i * mib, mib, false);
        }
        let rate = 99.0 * mib as f64 / ((t - first) as f64 / 1e9) / mib as f64;
        assert!((rate - 210.0).abs() < 1.0, "{rate}");
    }

    #[test]
    fn requests_queue_in_issue_order() {
        let mut m = media();
        let a = m.serve(0, 100, 0, 4096, false);
        let b = m.serve(0, 5000, 0, 4096, false);
        assert!(b > a);
        assert_eq!(m.busy_until(), b);
        // A late sequential write pays a rotation; an on-time one does not.
        let w1 = m.serve(b, 7, 0, 4096, true);
        let w2 = m.serve(w1, 7, 4096, 4096, true);
        assert!(w2 - w1 < 100_000);
        let w3 = m.serve(w2 + 1_000_000, 7, 8192, 4096, true);
        assert!(w3 - (w2 + 1_000_000) > 100_000);
    }

    #[test]
    fn the_same_calls_give_the_same_times() {
        let run = || {
            let mut m = media();
            let mut t = 0;
            let mut out = Vec::new();
            for i in 0..200u64 {
                let zone = u32::try_from((i * 7919) % 52_156).unwrap();
                t = m.serve(t + i * 13, zone, (i * 4096) % (1 << 20), 4096, i % 3 == 0);
                out.push(t);
            }
            out
        };
        assert_eq!(run(), run());
    }
}
