//! Where a byte of the drive lies on the platter, and how fast it passes under the head.
//!
//! The drive is modeled as one recording surface of `tracks` tracks, track 0 at the outer
//! diameter holding LBA 0. A track is what passes under the head in one revolution; with zoned
//! bit recording its bytes fall linearly from `outer` (track 0) to `inner` (the last track), so
//! the byte at fraction `u` of the drive lies at radial fraction `x` solving
//! `u = (x - (1 - ρ)·x²/2) / ((1 + ρ)/2)`, `ρ = inner / outer`. Track index and angle come from
//! the continuous track coordinate `x · tracks`: its integer part is the track, its fraction
//! the angle at which the byte comes under the head (every track starts at angle 0; a sequential
//! stream crossing tracks keeps the media rate, as track skew makes it on a real drive). Real
//! drives serpentine over several surfaces; one surface of the same bytes per revolution keeps
//! what the timing needs (distance across the stroke, bytes per revolution).

use super::DiskProfile;

/// A byte's place: its track and the angle (fraction of a revolution) at which it comes under
/// the head.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    /// Track, 0 at the outer diameter.
    pub track: u64,
    /// Angle in `[0, 1)`.
    pub angle: f64,
    /// Bytes of that track.
    pub track_bytes: f64,
}

/// The platter of a [`DiskProfile`]: byte positions of the full drive to places.
#[derive(Debug, Clone)]
pub struct Platter {
    tracks: f64,
    outer: f64,
    inner: f64,
    drive_bytes: f64,
}

impl Platter {
    /// The platter of `profile`.
    pub fn new(profile: &DiskProfile) -> Self {
        let outer = profile.outer_track_bytes as f64;
        let inner = profile.inner_track_bytes as f64;
        let drive_bytes = profile.drive_bytes() as f64;
        Self {
            tracks: (2.0 * drive_bytes / (outer + inner)).ceil(),
            outer,
            inner,
            drive_bytes,
        }
    }

    /// Tracks of the drive.
    pub fn tracks(&self) -> u64 {
        super::whole_ns(self.tracks)
    }

    /// The place of byte `pos` of the full drive (clamped to the drive).
    pub fn place(&self, pos: u64) -> Place {
        let u = (pos as f64 / self.drive_bytes).clamp(0.0, 1.0);
        let shrink = 1.0 - self.inner / self.outer;
        // u · (1 + ρ)/2 = x − (1 − ρ)·x²/2, solved for x in [0, 1].
        let x = if shrink <= 0.0 {
            u
        } else {
            let rho = 1.0 - shrink;
            (1.0 - (1.0 - 2.0 * shrink * u * (1.0 + rho) / 2.0).max(0.0).sqrt()) / shrink
        };
        let y = (x * self.tracks).min(self.tracks - 1e-9).max(0.0);
        let track = y.floor();
        Place {
            track: super::whole_ns(track),
            angle: y - track,
            track_bytes: self.track_bytes(track),
        }
    }

    /// Bytes of track `track` (fractional tracks interpolate).
    fn track_bytes(&self, track: f64) -> f64 {
        let x = (track / (self.tracks - 1.0).max(1.0)).clamp(0.0, 1.0);
        self.outer - (self.outer - self.inner) * x
    }

    /// Distance between two tracks as a fraction of the full stroke.
    pub fn stroke_fraction(&self, a: u64, b: u64) -> f64 {
        a.abs_diff(b) as f64 / self.tracks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_first_and_inner_tracks_hold_less() {
        let p = DiskProfile::by_name("st14000nm0007").unwrap();
        let pl = Platter::new(&p);
        let first = pl.place(0);
        assert_eq!(first.track, 0);
        assert!(first.angle.abs() < 1e-9);
        assert!((first.track_bytes - p.outer_track_bytes as f64).abs() < 1.0);
        let last = pl.place(p.drive_bytes() - 1);
        assert_eq!(last.track, pl.tracks() - 1);
        assert!((last.track_bytes / p.outer_track_bytes as f64 - 0.6).abs() < 0.01);
        // Half the bytes lie in less than half the stroke (outer tracks hold more).
        let mid = pl.place(p.drive_bytes() / 2);
        assert!(mid.track < pl.tracks() / 2);
        // One track further is one revolution's bytes further.
        let b = pl.place(p.outer_track_bytes / 4);
        assert_eq!(b.track, 0);
        assert!((b.angle - 0.25).abs() < 1e-3);
        assert_eq!(pl.place(p.outer_track_bytes + 10).track, 1);
    }
}
