//! A study's figures over its seeds: each figure computed on every seed's runs alone, then
//! summarized ([`Summary`]: mean and 95% interval by Student's t), for the tables that put
//! ours beside the papers' (which average 3 runs) and for the JSON's spread.
//!
//! With one seed a figure prints exactly as it did before seeds had intervals: computed on
//! all the results, formatted alone. With more, a figure is the mean of each seed's own (a
//! ratio or a change: the mean of the seeds' ratios or changes), followed by ` ± ` and the
//! half-width of its interval, unless every seed gave the same.

use std::collections::BTreeMap;

use super::figures::CellResult;
use super::znsplus::ZnsPlusResult;
use crate::stats::Summary;

/// A study's result for one seed.
pub trait Seeded: Clone {
    /// The seed it ran with.
    fn seed(&self) -> u64;
    /// Whether its run finished (it has figures).
    fn finished(&self) -> bool;
}

impl Seeded for CellResult {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn finished(&self) -> bool {
        self.figures.is_ok()
    }
}

impl Seeded for ZnsPlusResult {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn finished(&self) -> bool {
        self.figures.is_ok()
    }
}

/// The seeds of `results`, sorted, each once.
pub fn seeds_of<R: Seeded>(results: &[R]) -> Vec<u64> {
    let mut seeds: Vec<u64> = results.iter().map(Seeded::seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    seeds
}

/// The header's words for `n` seeds: empty for one.
pub fn interval_note(n: usize) -> String {
    if n > 1 {
        format!(
            "mean of {n} seeds, ± 95% interval (Student's t); no ± where every seed gave the same"
        )
    } else {
        String::new()
    }
}

/// `results`, and the same split by seed.
#[derive(Debug)]
pub struct BySeed<'r, R> {
    all: &'r [R],
    each: Vec<Vec<R>>,
}

impl<'r, R: Seeded> BySeed<'r, R> {
    /// Splits `results` by seed.
    pub fn new(all: &'r [R]) -> Self {
        let mut by: BTreeMap<u64, Vec<R>> = BTreeMap::new();
        for r in all {
            by.entry(r.seed()).or_default().push(r.clone());
        }
        Self {
            all,
            each: by.into_values().collect(),
        }
    }

    /// Whether more than one seed ran (so that figures carry intervals).
    pub fn many(&self) -> bool {
        self.each.len() > 1
    }

    /// `prefix`, the header's words for the seeds ([`interval_note`]) and `suffix`; empty for
    /// one seed.
    pub fn note(&self, prefix: &str, suffix: &str) -> String {
        if self.many() {
            format!("{prefix}{}{suffix}", interval_note(self.each.len()))
        } else {
            String::new()
        }
    }

    /// Every seed's runs, in seed order.
    pub fn each(&self) -> &[Vec<R>] {
        &self.each
    }

    /// `f` of each seed's runs alone, summarized (seeds where it is undefined left out).
    pub fn summary(&self, f: impl Fn(&[R]) -> Option<f64>) -> Option<Summary> {
        let xs: Vec<f64> = self.each.iter().filter_map(|rs| f(rs)).collect();
        Summary::of(&xs)
    }

    /// `f` as `fmt` prints it, `missing` where it is undefined: of all the runs for one seed;
    /// for more, the mean of each seed's `f` and ` ± ` its 95% half-width with `digits`
    /// decimals (in `f`'s unit: let `f` give what `fmt` prints).
    pub fn show(
        &self,
        f: impl Fn(&[R]) -> Option<f64>,
        fmt: impl Fn(f64) -> String,
        digits: usize,
        missing: &str,
    ) -> String {
        if !self.many() {
            return f(self.all).map_or_else(|| missing.to_owned(), fmt);
        }
        self.summary(f)
            .map_or_else(|| missing.to_owned(), |s| with_interval(&s, &fmt, digits))
    }
}

/// `s`'s mean as `fmt` prints it, then ` ± ` and the half-width with `digits` decimals when
/// more than one run made it and they differ (a zero-width interval is left out: every run
/// gave the same figure).
pub fn with_interval(s: &Summary, fmt: &dyn Fn(f64) -> String, digits: usize) -> String {
    if s.n > 1 && s.ci95 > 0.0 {
        format!("{} ± {:.digits$}", fmt(s.mean), s.ci95)
    } else {
        fmt(s.mean)
    }
}

/// The summary over `values` (one JSON object per seed) of every number in them, key by key
/// (objects within, key by key too); keys that are not numbers in every value are left out.
pub fn summaries(values: &[serde_json::Value]) -> serde_json::Value {
    use serde_json::Value;
    let mut out = serde_json::Map::new();
    let Some(Value::Object(first)) = values.first() else {
        return Value::Object(out);
    };
    for k in first.keys() {
        let col: Vec<&Value> = values.iter().filter_map(|v| v.get(k)).collect();
        if col.len() != values.len() {
            continue;
        }
        if col.iter().all(|v| v.is_number()) {
            let xs: Vec<f64> = col.iter().filter_map(|v| v.as_f64()).collect();
            if let Some(s) = Summary::of(&xs) {
                out.insert(k.clone(), serde_json::json!(s));
            }
        } else if col.iter().all(|v| v.is_object()) {
            let inner = summaries(&col.into_iter().cloned().collect::<Vec<_>>());
            if inner.as_object().is_some_and(|o| !o.is_empty()) {
                out.insert(k.clone(), inner);
            }
        }
    }
    Value::Object(out)
}

/// Asserts that `text` holds `want` (tests of the reports).
#[cfg(test)]
pub(crate) fn assert_has(text: &str, want: &str) {
    assert!(text.contains(want), "{want:?} not in:\n{text}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::Figures;

    fn run(seed: u64, ops_per_s: f64) -> CellResult {
        CellResult::test_run(
            "scheme",
            "A",
            "w",
            seed,
            Figures {
                ops_per_s,
                ..Figures::default()
            },
        )
    }

    fn ops(rs: &[CellResult]) -> Option<f64> {
        let v: Vec<f64> = rs
            .iter()
            .filter_map(|r| Some(r.figures.as_ref().ok()?.ops_per_s))
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    #[test]
    fn one_seed_prints_the_figure_alone_and_more_add_the_interval() {
        let one = [run(1, 10.0)];
        let b = BySeed::new(&one);
        assert!(!b.many());
        assert_eq!(b.show(ops, |v| format!("{v:.1}"), 1, "-"), "10.0");
        let three = [run(1, 10.0), run(2, 12.0), run(3, 14.0)];
        let b = BySeed::new(&three);
        let s = Summary::of(&[10.0, 12.0, 14.0]).unwrap();
        assert_eq!(
            b.show(ops, |v| format!("{v:.1}"), 2, "-"),
            format!("12.0 ± {:.2}", s.ci95)
        );
        assert_eq!(b.summary(ops), Some(s));
        assert_eq!(b.show(|_| None, |v| format!("{v}"), 1, "-"), "-");
        assert_eq!(interval_note(1), "");
        assert!(interval_note(3).starts_with("mean of 3 seeds, ± 95% interval (Student's t)"));
        let same = [run(1, 10.0), run(2, 10.0)];
        assert_eq!(
            BySeed::new(&same).show(ops, |v| format!("{v:.1}"), 1, "-"),
            "10.0"
        );
    }

    #[test]
    fn summaries_cover_every_number_and_nested_objects() {
        let v = [
            serde_json::json!({"a": 1, "b": "x", "c": {"d": 2.0}, "e": [1]}),
            serde_json::json!({"a": 3, "b": "y", "c": {"d": 4.0}, "e": [2]}),
        ];
        let s = summaries(&v);
        assert_eq!(s["a"]["mean"], 2.0);
        assert_eq!(s["a"]["n"], 2);
        assert_eq!(s["c"]["d"]["max"], 4.0);
        assert!(s["a"]["ci95"].as_f64().unwrap() > 0.0);
        assert!(s.get("b").is_none() && s.get("e").is_none());
    }
}
