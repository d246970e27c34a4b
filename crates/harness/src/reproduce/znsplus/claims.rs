//! The slides' claims beside ours, and the headline claims judged over seeds.

use super::paper;
use super::*;

/// One of the slides' claims beside ours.
pub(super) struct Claim {
    pub(super) what: &'static str,
    pub(super) slides: &'static str,
    /// Our values, one per experiment (label, value).
    pub(super) ours: Vec<(String, f64)>,
    /// Whether ours bear the claim out (`None`: nothing to judge).
    pub(super) met: Option<bool>,
    /// How `ours` print.
    pub(super) unit: Unit,
}

#[derive(Clone, Copy)]
pub(super) enum Unit {
    /// A ratio, printed `1.23x`.
    Times,
    /// A share, printed `45.6%`.
    Percent,
    /// A change, printed `-12.3%`.
    Change,
}

impl Unit {
    pub(super) fn show(self, v: f64) -> String {
        match self {
            Self::Times => format!("{v:.2}x"),
            Self::Percent => format!("{:.1}%", v * 100.0),
            Self::Change => format!("{:+.1}%", (v - 1.0) * 100.0),
        }
    }

    /// The mean of `s` as [`Self::show`] prints it, then ` ± ` and the half-width of its 95%
    /// interval in the printed unit (for more than one run).
    pub(super) fn show_interval(self, s: &Summary) -> String {
        let (factor, digits) = match self {
            Self::Times => (1.0, 2),
            Self::Percent | Self::Change => (100.0, 1),
        };
        let scaled = Summary {
            mean: s.mean,
            ci95: s.ci95 * factor,
            ..*s
        };
        crate::reproduce::seeds::with_interval(&scaled, &|v| self.show(v), digits)
    }
}

/// Each claim's values, experiment by experiment, summarized over seeds (empty for one seed).
pub(super) fn claim_intervals(
    by_seed: &BySeed<'_, ZnsPlusResult>,
) -> Vec<BTreeMap<String, Summary>> {
    if !by_seed.many() {
        return Vec::new();
    }
    let each: Vec<Vec<Claim>> = by_seed.each().iter().map(|rs| claims(rs)).collect();
    let Some(first) = each.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| {
            let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for c in each.iter().filter_map(|cs| cs.get(i)) {
                for (e, v) in &c.ours {
                    values.entry(e.clone()).or_default().push(*v);
                }
            }
            values
                .into_iter()
                .filter_map(|(e, xs)| Some((e, Summary::of(&xs)?)))
                .collect()
        })
        .collect()
}

impl Claim {
    /// With more than one seed: each experiment's value the mean of the seeds' (`intervals`,
    /// from [`claim_intervals`]), and the single value's interval.
    pub(super) fn with_intervals(mut self, intervals: Option<&BTreeMap<String, Summary>>) -> Self {
        if let Some(iv) = intervals {
            for (e, v) in &mut self.ours {
                if let Some(s) = iv.get(e) {
                    *v = s.mean;
                }
            }
        }
        self
    }

    /// The values' range; with more than one seed a single value with its interval.
    pub(super) fn range_interval(&self, intervals: Option<&BTreeMap<String, Summary>>) -> String {
        match (&self.ours[..], intervals) {
            ([(e, _)], Some(iv)) => iv
                .get(e)
                .map_or_else(|| self.range(), |s| self.unit.show_interval(s)),
            _ => self.range(),
        }
    }

    pub(super) fn range(&self) -> String {
        if self.ours.is_empty() {
            return "-".into();
        }
        let lo = self.ours.iter().map(|o| o.1).fold(f64::INFINITY, f64::min);
        let hi = self
            .ours
            .iter()
            .map(|o| o.1)
            .fold(f64::NEG_INFINITY, f64::max);
        if (hi - lo).abs() < 1e-12 {
            self.unit.show(lo)
        } else {
            format!("{} .. {}", self.unit.show(lo), self.unit.show(hi))
        }
    }

    pub(super) fn json(&self) -> serde_json::Value {
        let per: serde_json::Map<String, serde_json::Value> = self
            .ours
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::json!(v)))
            .collect();
        serde_json::json!({
            "what": self.what,
            "slides": self.slides,
            "ours": per,
            "ours_range": self.range(),
            "met": self.met,
        })
    }
}

/// Values of `f` over the experiments run (those where it is defined).
pub(super) fn over(experiments: &[&str], f: &dyn Fn(&str) -> Option<f64>) -> Vec<(String, f64)> {
    experiments
        .iter()
        .filter_map(|e| f(e).map(|v| ((*e).to_owned(), v)))
        .collect()
}

/// Whether every value is at least `bar` (`None` for none).
pub(super) fn all_at_least(ours: &[(String, f64)], bar: f64) -> Option<bool> {
    (!ours.is_empty()).then(|| ours.iter().all(|o| o.1 >= bar))
}

/// The slides' claims beside our figures.
pub(super) fn claims(results: &[ZnsPlusResult]) -> Vec<Claim> {
    let run = experiments_run(results);
    // Cleaning figures only where ZNS cleaned.
    let cleaned: Vec<&str> = run
        .iter()
        .copied()
        .filter(|e| figure(results, "ZNS", e, "cleaning_time_ns").is_some_and(|c| c > 0.0))
        .collect();
    let izc_cleaning = over(&cleaned, &|e| vs_zns(results, "IZC", e, "cleaning_time_ns"));
    let izc_tput = over(&run, &|e| vs_zns(results, "IZC", e, "ops_per_s"));
    let plus_tput = over(&run, &|e| vs_zns(results, "ZNS+", e, "ops_per_s"));
    let cab = |scheme: &'static str| {
        over(&run, &|e| {
            let c = figure(results, scheme, e, "izc_copyback_pages")?;
            let r = figure(results, scheme, e, "read_program_pages")?;
            (c + r > 0.0).then(|| c / (c + r))
        })
    };
    let mut cab_ratio = cab("IZC");
    cab_ratio.extend(
        cab("ZNS+")
            .into_iter()
            .map(|(e, v)| (format!("ZNS+ {e}"), v)),
    );
    let cub_chips: Vec<(String, f64)> = CHIPS
        .iter()
        .filter_map(|c| {
            let e = format!("chips-{c}");
            let v = figure(results, "ZNS+/CUB", &e, "copyback_ratio")?;
            let cb = figure(results, "ZNS+/CUB", &e, "izc_copyback_pages")?;
            let rp = figure(results, "ZNS+/CUB", &e, "read_program_pages")?;
            (cb + rp > 0.0).then_some((e, v))
        })
        .collect();
    let falling = (cub_chips.len() >= 2).then(|| {
        cub_chips.windows(2).all(|w| w[1].1 <= w[0].1 + 1e-9)
            && cub_chips.first().map(|f| f.1) > cub_chips.last().map(|l| l.1)
    });
    let threaded = over(&run, &|e| {
        let g = figure(results, "ZNS+", e, "gc_zone_resets")?;
        let t = figure(results, "ZNS+", e, "threaded_reclaims")?;
        (g + t > 0.0).then(|| t / (g + t))
    });
    let metadata = over(&run, &|e| {
        vs_zns(results, "ZNS+", e, "metadata_write_bytes")
    });
    let izc_met_cleaning =
        (!izc_cleaning.is_empty()).then(|| izc_cleaning.iter().all(|o| o.1 <= 1.0 - 0.282));
    let mut all = vec![
        Claim {
            what: "IZC cleaning time vs ZNS",
            slides: "28.2-51.7% less",
            met: izc_met_cleaning,
            ours: izc_cleaning,
            unit: Unit::Change,
        },
        Claim {
            what: "IZC throughput vs ZNS",
            slides: "1.3-1.9x",
            met: all_at_least(&izc_tput, 1.3),
            ours: izc_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "ZNS+ throughput vs ZNS",
            slides: "1.3-2.9x",
            met: all_at_least(&plus_tput, 1.3),
            ours: plus_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "copyback share of IZC's pages under CAB (IZC, ZNS+)",
            slides: "over 80%",
            met: all_at_least(&cab_ratio, paper::COPYBACK_SHARE_AT_LEAST),
            ours: cab_ratio,
            unit: Unit::Percent,
        },
        Claim {
            what: "copyback share under CUB (ZNS+/CUB) by chip count",
            slides: "falls as chips grow",
            met: falling,
            ours: cub_chips,
            unit: Unit::Percent,
        },
        Claim {
            what: "threaded logging's share of zone reclaims (ZNS+)",
            slides: "over 86%",
            met: all_at_least(&threaded, 0.86),
            ours: threaded,
            unit: Unit::Percent,
        },
        Claim {
            what: "metadata writes, ZNS+ vs ZNS",
            slides: "-48%",
            met: (!metadata.is_empty()).then(|| metadata.iter().all(|o| o.1 <= 1.0 - 0.48)),
            ours: metadata,
            unit: Unit::Change,
        },
    ];
    all.extend(variant_claims(results, &run));
    all
}

/// ZNS+'s claims for the variant with the artifact's `need_SSR` trigger ([`NEED_SSR`]).
pub(super) fn variant_claims(results: &[ZnsPlusResult], run: &[&str]) -> Vec<Claim> {
    let variant_tput = over(run, &|e| vs_zns(results, NEED_SSR, e, "ops_per_s"));
    let variant_threaded = over(run, &|e| {
        let g = figure(results, NEED_SSR, e, "gc_zone_resets")?;
        let t = figure(results, NEED_SSR, e, "threaded_reclaims")?;
        (g + t > 0.0).then(|| t / (g + t))
    });
    let variant_metadata = over(run, &|e| {
        vs_zns(results, NEED_SSR, e, "metadata_write_bytes")
    });
    vec![
        Claim {
            what: "ZNS+/need_SSR throughput vs ZNS",
            slides: "1.3-2.9x",
            met: all_at_least(&variant_tput, 1.3),
            ours: variant_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "threaded logging's share of zone reclaims (ZNS+/need_SSR)",
            slides: "over 86%",
            met: all_at_least(&variant_threaded, 0.86),
            ours: variant_threaded,
            unit: Unit::Percent,
        },
        Claim {
            what: "metadata writes, ZNS+/need_SSR vs ZNS",
            slides: "-48%",
            met: (!variant_metadata.is_empty())
                .then(|| variant_metadata.iter().all(|o| o.1 <= 1.0 - 0.48)),
            ours: variant_metadata,
            unit: Unit::Change,
        },
    ]
}

/// The headline claims ([`crate::reproduce::claims`]), one per slide claim and experiment (those with a
/// number; "falls as chips grow" stays in the slides' table): ours from `claims` on each
/// seed's runs.
pub fn claim_specs(
    results: &[ZnsPlusResult],
) -> Vec<crate::reproduce::claims::Spec<ZnsPlusResult>> {
    use crate::reproduce::claims::{Judge, Spec, Unit as U};
    // (index in `claims`, paper, how it is judged, unit, whether ours is a ratio shown as a
    // change)
    let how: [(usize, f64, Judge, U, bool); 9] = [
        (0, -28.2, Judge::AtMost, U::Change, true),
        (1, 1.3, Judge::AtLeast, U::Times, false),
        (2, 1.3, Judge::AtLeast, U::Times, false),
        (7, 1.3, Judge::AtLeast, U::Times, false),
        (
            3,
            paper::COPYBACK_SHARE_AT_LEAST,
            Judge::AtLeast,
            U::Share,
            false,
        ),
        (5, 0.86, Judge::AtLeast, U::Share, false),
        (8, 0.86, Judge::AtLeast, U::Share, false),
        (6, -48.0, Judge::Effect, U::Change, true),
        (9, -48.0, Judge::Effect, U::Change, true),
    ];
    let all = claims(results);
    let mut out = Vec::new();
    for (i, paper, judge, unit, change) in how {
        let Some(c) = all.get(i) else { continue };
        for (key, _) in &c.ours {
            let k = key.clone();
            out.push(Spec::new(
                format!("{}, {key}", c.what),
                paper,
                c.slides,
                judge,
                unit,
                Box::new(move |rs: &[ZnsPlusResult]| {
                    let v = claims(rs).get(i)?.ours.iter().find(|o| o.0 == k)?.1;
                    Some(if change { (v - 1.0) * 100.0 } else { v })
                }),
            ));
        }
    }
    out
}
