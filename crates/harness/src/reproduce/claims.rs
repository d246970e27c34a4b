//! A study's headline claims beside ours, each with a verdict: the `claims` list of
//! `zonedb reproduce NAME --json`, and the claims tables at the top of
//! `docs/results/<study>.md`, rendered from that JSON ([`table`]), never typed.
//!
//! A claim is one number the paper states (a ratio of two schemes, a change, a share) and the
//! rule that judges ours against it ([`Rule`]). Ours is computed on every seed's runs alone
//! and summarized (mean, 95% interval by Student's t, n). The verdict:
//!
//! - `reproduced`: ours goes the paper's way by at least half the paper's effect (the bar the
//!   issues set at small scale), or the paper's number lies in our 95% interval; for a bound
//!   ("over 80%", "1.3x or more"), ours meets it (or the bound lies in our interval). Over
//!   more than one seed the whole interval must also be on the paper's side of no effect.
//! - `direction`: ours goes the paper's way, by less (or with an interval that reaches no
//!   effect).
//! - `contradicted`: ours goes the other way, or not at all.
//!
//! `--claims` runs only the cells the claims need ([`needed`]).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::StudyId;
use super::seeds::{BySeed, Seeded};
use crate::stats::Summary;

/// How a claim's numbers read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// A ratio of two schemes (`2.77` reads `2.77x`).
    Times,
    /// A change in percent (`-80.0` reads `-80.0%`).
    Change,
    /// A share, 0 to 1 (`0.86` reads `86.0%`).
    Share,
    /// A difference of two figures (`0.05` reads `+0.050`).
    Diff,
}

impl Unit {
    /// `v` as the unit prints it.
    pub fn show(self, v: f64) -> String {
        match self {
            Self::Times => format!("{v:.2}x"),
            Self::Change => format!("{v:+.1}%"),
            Self::Share => format!("{:.1}%", v * 100.0),
            Self::Diff => format!("{v:+.3}"),
        }
    }

    /// The value of no effect: 1 for a ratio, 0 for a change or a difference; none for a
    /// share.
    pub fn neutral(self) -> Option<f64> {
        match self {
            Self::Times => Some(1.0),
            Self::Change | Self::Diff => Some(0.0),
            Self::Share => None,
        }
    }

    /// The half-width `w` of an interval in the printed unit.
    fn show_width(self, w: f64) -> String {
        match self {
            Self::Times => format!("{w:.2}"),
            Self::Change => format!("{w:.1}"),
            Self::Share => format!("{:.1}", w * 100.0),
            Self::Diff => format!("{w:.3}"),
        }
    }
}

/// How ours is judged against the paper's number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Rule {
    /// The paper measured an effect of `paper - neutral` (a gain, a cut).
    Effect {
        /// No effect (1 for a ratio, 0 for a change).
        neutral: f64,
    },
    /// The paper states a floor ("1.3x or more", "over 80%").
    AtLeast {
        /// No effect, where there is one: between it and the floor is `direction`; without
        /// one, half the floor and up is.
        neutral: Option<f64>,
    },
    /// The paper states a ceiling ("28% less or more": a change of at most -28%).
    AtMost {
        /// As for [`Rule::AtLeast`] (without one, up to twice the ceiling is `direction`).
        neutral: Option<f64>,
    },
}

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Ours bears the claim out (see the module's rules).
    Reproduced,
    /// Ours goes the paper's way, by less.
    Direction,
    /// Ours goes the other way, or not at all.
    Contradicted,
}

impl Verdict {
    /// The name the JSON and the tables use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Reproduced => "reproduced",
            Self::Direction => "direction",
            Self::Contradicted => "contradicted",
        }
    }
}

/// Judges `ours` against `paper` by `rule`.
pub fn judge(rule: Rule, paper: f64, ours: &Summary) -> Verdict {
    let m = ours.mean;
    let many = ours.n > 1;
    let in_interval = many && ours.ci95_low <= paper && paper <= ours.ci95_high;
    // Over more than one seed the direction must be clear of no effect: the whole interval
    // on the paper's side of `neutral`.
    let clear = |neutral: Option<f64>, up: bool| match neutral {
        Some(n) if many => {
            if up {
                ours.ci95_low > n
            } else {
                ours.ci95_high < n
            }
        }
        _ => true,
    };
    match rule {
        Rule::Effect { neutral } => {
            let want = paper - neutral;
            let got = m - neutral;
            if want == 0.0 || got * want <= 0.0 {
                Verdict::Contradicted
            } else if clear(Some(neutral), want > 0.0)
                && (got.abs() >= want.abs() / 2.0 || in_interval)
            {
                Verdict::Reproduced
            } else {
                Verdict::Direction
            }
        }
        Rule::AtLeast { neutral } => {
            if (m >= paper || in_interval) && clear(neutral, true) {
                Verdict::Reproduced
            } else if neutral.map_or(m >= paper / 2.0, |n| m > n) {
                Verdict::Direction
            } else {
                Verdict::Contradicted
            }
        }
        Rule::AtMost { neutral } => {
            if (m <= paper || in_interval) && clear(neutral, false) {
                Verdict::Reproduced
            } else if neutral.map_or(m <= paper * 2.0, |n| m < n) {
                Verdict::Direction
            } else {
                Verdict::Contradicted
            }
        }
    }
}

/// Ours from one seed's runs (`None` where they do not give it).
pub type ValueFn<R> = Box<dyn Fn(&[R]) -> Option<f64>>;

/// What a claim says, and how ours is computed from one seed's runs.
pub struct Spec<R> {
    /// The claim in words (figure, workload, schemes).
    pub claim: String,
    /// The paper's number, in `unit`.
    pub paper: f64,
    /// The paper's words for it ("2.77x", "28.2-51.7% less").
    pub paper_text: String,
    /// How ours is judged.
    pub rule: Rule,
    /// How the numbers read.
    pub unit: Unit,
    /// Ours from one seed's runs (`None` where they do not give it).
    pub value: ValueFn<R>,
}

/// How a claim is judged, without its neutral value (the unit gives it: [`Unit::neutral`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// [`Rule::Effect`] (against 0 for a share).
    Effect,
    /// [`Rule::AtLeast`].
    AtLeast,
    /// [`Rule::AtMost`].
    AtMost,
}

impl Judge {
    /// The rule for a claim in `unit`.
    pub fn rule(self, unit: Unit) -> Rule {
        let neutral = unit.neutral();
        match self {
            Self::Effect => Rule::Effect {
                neutral: neutral.unwrap_or(0.0),
            },
            Self::AtLeast => Rule::AtLeast { neutral },
            Self::AtMost => Rule::AtMost { neutral },
        }
    }
}

impl<R> Spec<R> {
    /// A claim: the paper's `paper` in `unit` (its words `paper_text`), judged as `judge`
    /// says against the unit's no effect; ours from `value`.
    pub fn new(
        claim: impl Into<String>,
        paper: f64,
        paper_text: impl Into<String>,
        judge: Judge,
        unit: Unit,
        value: ValueFn<R>,
    ) -> Self {
        Self {
            claim: claim.into(),
            paper,
            paper_text: paper_text.into(),
            rule: judge.rule(unit),
            unit,
            value,
        }
    }
}

impl<R> std::fmt::Debug for Spec<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spec")
            .field("claim", &self.claim)
            .field("paper", &self.paper)
            .finish_non_exhaustive()
    }
}

/// Ours beside the paper's: the mean, the half-width of its 95% interval and the runs (seeds)
/// it summarizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ours {
    /// Mean over the seeds.
    pub mean: f64,
    /// Half-width of the 95% interval (0 for one seed).
    pub ci95: f64,
    /// Seeds.
    pub n: usize,
}

/// One claim judged: the JSON's `claims` entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The claim in words.
    pub claim: String,
    /// The paper's number.
    pub paper: f64,
    /// The paper's words for it.
    pub paper_text: String,
    /// Ours.
    pub ours: Ours,
    /// The scale it ran at (`small`, `paper`, `tiny`).
    pub scale: String,
    /// `reproduced`, `direction` or `contradicted`.
    pub verdict: Verdict,
    /// How the numbers read.
    pub unit: Unit,
    /// How ours was judged.
    pub rule: Rule,
}

impl Claim {
    /// Ours as the tables print it: the mean, ` ± ` the half-width for more than one seed,
    /// and `(n = N)`.
    pub fn ours_text(&self) -> String {
        let mut s = self.unit.show(self.ours.mean);
        if self.ours.n > 1 && self.ours.ci95 > 0.0 {
            let _ = write!(s, " ± {}", self.unit.show_width(self.ours.ci95));
        }
        let _ = write!(s, " (n = {})", self.ours.n);
        s
    }
}

/// Every spec judged on `results` at `scale`; the claims none of the runs give (their cells
/// did not run) are returned apart, by name.
pub fn evaluate<R: Seeded>(
    specs: &[Spec<R>],
    results: &[R],
    scale: &str,
) -> (Vec<Claim>, Vec<String>) {
    let by_seed = BySeed::new(results);
    let mut claims = Vec::new();
    let mut not_run = Vec::new();
    for s in specs {
        match by_seed.summary(|rs| (s.value)(rs)) {
            Some(sum) => claims.push(Claim {
                claim: s.claim.clone(),
                paper: s.paper,
                paper_text: s.paper_text.clone(),
                ours: Ours {
                    mean: sum.mean,
                    ci95: sum.ci95,
                    n: sum.n,
                },
                scale: scale.to_owned(),
                verdict: judge(s.rule, s.paper, &sum),
                unit: s.unit,
                rule: s.rule,
            }),
            None => not_run.push(s.claim.clone()),
        }
    }
    (claims, not_run)
}

impl Claim {
    /// The verdict the current rules give its numbers (the JSON keeps the one of the run that
    /// made it; [`rejudge`] brings it up to date).
    pub fn judged(&self) -> Verdict {
        let o = self.ours;
        let sum = Summary {
            n: o.n,
            mean: o.mean,
            stddev: 0.0,
            min: o.mean,
            max: o.mean,
            ci95: o.ci95,
            ci95_low: o.mean - o.ci95,
            ci95_high: o.mean + o.ci95,
        };
        judge(self.rule, self.paper, &sum)
    }
}

/// Sets every claim's `verdict` in a study's JSON to what the current rules give its numbers
/// (a verdict is a function of `paper`, `rule` and `ours`); returns how many changed.
pub fn rejudge(json: &mut serde_json::Value) -> usize {
    let Some(list) = json
        .get_mut("claims")
        .and_then(serde_json::Value::as_array_mut)
    else {
        return 0;
    };
    let mut changed = 0;
    for c in list {
        let Ok(claim) = serde_json::from_value::<Claim>(c.clone()) else {
            continue;
        };
        let v = claim.judged();
        if v != claim.verdict {
            c["verdict"] = v.name().into();
            changed += 1;
        }
    }
    changed
}

/// Adds `claims` and `claims_not_run` to a study's JSON object.
pub fn insert<R: Seeded>(
    json: &mut serde_json::Value,
    specs: &[Spec<R>],
    results: &[R],
    scale: &str,
) {
    let (claims, not_run) = evaluate(specs, results, scale);
    json["claims"] = serde_json::to_value(claims).unwrap_or_default();
    json["claims_not_run"] = serde_json::json!(not_run);
}

/// Whether `--claims` runs a cell of `study` (group, scheme, workload).
pub fn needed(study: StudyId, group: &str, scheme: &str, workload: &str) -> bool {
    match study {
        StudyId::SameZone => group == "scheme" && matches!(scheme, "Baseline" | "A-CAZA"),
        StudyId::Oaza => group == "scheme" && matches!(scheme, "LIZA" | "CAZA" | "OAZA"),
        StudyId::SplitZns => match group {
            "scheme" => matches!(workload, "overwrite" | "ycsb-a"),
            "breakdown" => workload == "overwrite" && matches!(scheme, "native" | "+diff" | "+SZR"),
            _ => false,
        },
        StudyId::Hhzs => match group {
            "exp1" => matches!(scheme, "B3" | "AUTO" | "HHZS"),
            "exp2" => workload == "W4" && matches!(scheme, "P+M" | "P+M+C"),
            "caching" => workload == "W4" && scheme.contains('/'),
            _ => false,
        },
    }
}

/// The claims table of one study, from its JSON at 1/64 (`small`) and at the paper's size
/// (`paper`), either absent: claim, paper, ours and verdict at each scale; then the commands
/// that made them (each JSON's `command`).
pub fn table(small: Option<&serde_json::Value>, paper: Option<&serde_json::Value>) -> String {
    let parse = |j: Option<&serde_json::Value>| -> Vec<Claim> {
        j.and_then(|j| j.get("claims"))
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default()
    };
    let (at_small, at_paper) = (parse(small), parse(paper));
    let mut names: Vec<&str> = at_small.iter().map(|c| c.claim.as_str()).collect();
    for c in &at_paper {
        if !names.contains(&c.claim.as_str()) {
            names.push(&c.claim);
        }
    }
    // The second column is the paper's size, or the largest size a study ran below it (its
    // JSON's `scale`, `1/N`).
    let big = match paper
        .and_then(|j| j.get("scale"))
        .and_then(serde_json::Value::as_str)
    {
        Some(s) if s != "paper" => s.to_owned(),
        _ => "paper scale".to_owned(),
    };
    // The first is the study's `small` scale: 1/64, but HHZS's divides by 128.
    let little = match small
        .and_then(|j| j.get("study"))
        .and_then(serde_json::Value::as_str)
    {
        Some("hhzs") => format!("1/{}", super::hhzs::divisor(super::ReproScale::Small)),
        _ => "1/64".to_owned(),
    };
    let mut md = format!(
        "| claim | paper | ours, {little} | verdict, {little} | ours, {big} | verdict, {big} |\n|---|---|---|---|---|---|\n",
    );
    let not_run = |j: Option<&serde_json::Value>, name: &str| {
        j.and_then(|j| j.get("claims_not_run"))
            .and_then(serde_json::Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(name)))
    };
    for name in names {
        let pick = |v: &[Claim]| v.iter().find(|c| c.claim == name).cloned();
        let (a, b) = (pick(&at_small), pick(&at_paper));
        let Some(first) = a.as_ref().or(b.as_ref()) else {
            continue;
        };
        let cell = |c: &Option<Claim>, j: Option<&serde_json::Value>| match c {
            Some(c) => (c.ours_text(), format!("**{}**", c.verdict.name())),
            None if j.is_none() => ("not run yet".to_owned(), "-".to_owned()),
            None if not_run(j, name) => ("not run".to_owned(), "-".to_owned()),
            None => ("-".to_owned(), "-".to_owned()),
        };
        let (os, vs) = cell(&a, small);
        let (op, vp) = cell(&b, paper);
        let _ = writeln!(
            md,
            "| {name} | {} | {os} | {vs} | {op} | {vp} |",
            first.paper_text
        );
    }
    md.push('\n');
    for (what, j) in [(little.as_str(), small), (big.as_str(), paper)] {
        if let Some(cmd) = j
            .and_then(|j| j.get("command"))
            .and_then(serde_json::Value::as_str)
        {
            let _ = writeln!(md, "{what}: `{cmd}`  ");
        }
    }
    md
}

/// The markers between which a results page holds its rendered claims table.
pub const BEGIN: &str = "<!-- claims: rendered from the JSON beside this page; do not edit -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- claims: end -->";

/// `page` with the text between [`BEGIN`] and [`END`] replaced by `table` (`None` when the
/// page has no markers).
pub fn splice(page: &str, table: &str) -> Option<String> {
    let b = page.find(BEGIN)? + BEGIN.len();
    let e = b + page[b..].find(END)?;
    Some(format!("{}\n{}{}", &page[..b], table, &page[e..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(xs: &[f64]) -> Summary {
        Summary::of(xs).unwrap()
    }

    #[test]
    fn an_effect_of_half_the_papers_or_more_is_reproduced_less_is_direction_else_contradicted() {
        let gain = Rule::Effect { neutral: 1.0 };
        assert_eq!(judge(gain, 2.77, &summary(&[2.04])), Verdict::Reproduced);
        assert_eq!(judge(gain, 2.77, &summary(&[1.50])), Verdict::Direction);
        assert_eq!(judge(gain, 2.77, &summary(&[0.79])), Verdict::Contradicted);
        assert_eq!(judge(gain, 2.77, &summary(&[1.0])), Verdict::Contradicted);
        let cut = Rule::Effect { neutral: 0.0 };
        assert_eq!(judge(cut, -80.0, &summary(&[-74.6])), Verdict::Reproduced);
        assert_eq!(judge(cut, -80.0, &summary(&[-20.0])), Verdict::Direction);
        assert_eq!(judge(cut, 16.0, &summary(&[-3.0])), Verdict::Contradicted);
        // The paper's number inside our interval counts, however small our mean, when the
        // whole interval goes its way; an interval that reaches no effect is direction at
        // best, and a mean the other way is contradicted.
        assert_eq!(
            judge(cut, 16.0, &summary(&[9.0, 10.0, 12.0])),
            Verdict::Reproduced
        );
        assert_eq!(
            judge(cut, 16.0, &summary(&[-5.0, 2.0, 14.0])),
            Verdict::Direction
        );
        assert_eq!(
            judge(gain, 2.77, &summary(&[0.5, 1.2, 2.3])),
            Verdict::Direction
        );
        assert_eq!(
            judge(cut, -10.0, &summary(&[-14.0, 0.0, 15.0])),
            Verdict::Contradicted
        );
    }

    #[test]
    fn bounds_are_met_approached_or_missed() {
        let floor = Rule::AtLeast { neutral: Some(1.0) };
        assert_eq!(judge(floor, 1.3, &summary(&[1.4])), Verdict::Reproduced);
        assert_eq!(judge(floor, 1.3, &summary(&[1.1])), Verdict::Direction);
        assert_eq!(judge(floor, 1.3, &summary(&[0.9])), Verdict::Contradicted);
        let share = Rule::AtLeast { neutral: None };
        assert_eq!(judge(share, 0.8, &summary(&[0.5])), Verdict::Direction);
        assert_eq!(judge(share, 0.8, &summary(&[0.3])), Verdict::Contradicted);
        let ceiling = Rule::AtMost { neutral: Some(0.0) };
        assert_eq!(
            judge(ceiling, -28.2, &summary(&[-30.0])),
            Verdict::Reproduced
        );
        assert_eq!(
            judge(ceiling, -28.2, &summary(&[-10.0])),
            Verdict::Direction
        );
        assert_eq!(
            judge(ceiling, -28.2, &summary(&[5.0])),
            Verdict::Contradicted
        );
    }

    #[derive(Clone)]
    struct Run(u64, f64);
    impl Seeded for Run {
        fn seed(&self) -> u64 {
            self.0
        }

        fn finished(&self) -> bool {
            true
        }
    }

    fn specs() -> Vec<Spec<Run>> {
        vec![
            Spec::new(
                "overwrite, A / B",
                2.0,
                "2.00x",
                Judge::Effect,
                Unit::Times,
                Box::new(|rs: &[Run]| rs.first().map(|r| r.1)),
            ),
            Spec::new(
                "never measured",
                1.0,
                "-",
                Judge::Effect,
                Unit::Change,
                Box::new(|_: &[Run]| None),
            ),
        ]
    }

    #[test]
    fn a_rules_neutral_value_is_its_units() {
        assert_eq!(
            Judge::Effect.rule(Unit::Times),
            Rule::Effect { neutral: 1.0 }
        );
        assert_eq!(
            Judge::AtMost.rule(Unit::Change),
            Rule::AtMost { neutral: Some(0.0) }
        );
        assert_eq!(
            Judge::AtLeast.rule(Unit::Share),
            Rule::AtLeast { neutral: None }
        );
    }

    #[test]
    fn claims_summarize_each_seed_and_keep_the_issue_keys() {
        let runs = [Run(1, 1.8), Run(2, 2.0), Run(3, 2.2)];
        let mut j = serde_json::json!({});
        insert(&mut j, &specs(), &runs, "small");
        let c = &j["claims"][0];
        for k in ["claim", "paper", "ours", "scale", "verdict"] {
            assert!(c.get(k).is_some(), "{k}: {c}");
        }
        assert_eq!(c["ours"]["n"], 3);
        assert!((c["ours"]["mean"].as_f64().unwrap() - 2.0).abs() < 1e-9);
        assert!(c["ours"]["ci95"].as_f64().unwrap() > 0.0);
        assert_eq!(c["verdict"], "reproduced");
        assert_eq!(j["claims_not_run"], serde_json::json!(["never measured"]));
    }

    #[test]
    fn a_verdict_is_a_function_of_the_numbers_the_json_keeps() {
        let runs = [Run(1, 1.8), Run(2, 2.0), Run(3, 2.2)];
        let mut j = serde_json::json!({});
        insert(&mut j, &specs(), &runs, "small");
        assert_eq!(rejudge(&mut j), 0, "fresh verdicts are current");
        j["claims"][0]["verdict"] = "contradicted".into();
        assert_eq!(rejudge(&mut j), 1);
        assert_eq!(j["claims"][0]["verdict"], "reproduced");
    }

    #[test]
    fn the_table_renders_both_scales_from_the_json_and_splices_into_a_page() {
        let runs = [Run(1, 1.8), Run(2, 2.0), Run(3, 2.2)];
        let mut small = serde_json::json!({"command": "zonedb reproduce x --claims --seeds 3"});
        insert(&mut small, &specs(), &runs, "small");
        let md = table(Some(&small), None);
        assert!(
            md.contains("| overwrite, A / B | 2.00x | 2.00x ± 0.50 (n = 3) | **reproduced** | not run yet | - |"),
            "{md}"
        );
        assert!(
            md.contains("1/64: `zonedb reproduce x --claims --seeds 3`"),
            "{md}"
        );
        let page = format!("# X\n\n{BEGIN}\nold\n{END}\n\nrest\n");
        let new = splice(&page, &md).unwrap();
        assert!(new.contains(&md) && !new.contains("old") && new.ends_with("rest\n"));
        assert_eq!(
            splice(&new, &md).unwrap(),
            new,
            "splicing twice changes nothing"
        );
        assert!(splice("no markers", &md).is_none());
    }

    #[test]
    fn a_run_below_the_papers_size_labels_the_second_column_with_its_scale() {
        let runs = [Run(1, 1.8), Run(2, 2.0), Run(3, 2.2)];
        let mut small = serde_json::json!({});
        insert(&mut small, &specs(), &runs, "small");
        let mut large =
            serde_json::json!({"scale": "1/32", "command": "zonedb reproduce x --scale 1/32"});
        insert(&mut large, &specs(), &runs[..1], "1/32");
        let md = table(Some(&small), Some(&large));
        assert!(
            md.starts_with(
                "| claim | paper | ours, 1/64 | verdict, 1/64 | ours, 1/32 | verdict, 1/32 |"
            ),
            "{md}"
        );
        assert!(
            md.contains("1/32: `zonedb reproduce x --scale 1/32`"),
            "{md}"
        );
        large["scale"] = "paper".into();
        assert!(table(Some(&small), Some(&large)).contains("| ours, paper scale |"));
        // HHZS's `small` divides by 128.
        small["study"] = "hhzs".into();
        assert!(
            table(Some(&small), None)
                .starts_with("| claim | paper | ours, 1/128 | verdict, 1/128 |")
        );
    }
}
