//! YCSB workload properties (`key=value` lines, `#` comments) and the `CoreWorkload`
//! configuration they describe, with YCSB's defaults.

use std::collections::BTreeMap;

use crate::db_bench::{HarnessError, MAX_THREADS, MAX_VALUE_SIZE};

/// Most fields a record may have (`fieldcount`; YCSB's default is 10).
pub const MAX_FIELD_COUNT: u64 = 1024;
/// Longest scan (`maxscanlength`; YCSB's default is 1000): a zipfian scan length sums zeta
/// over every length first.
pub const MAX_SCAN_LENGTH: u64 = 1_000_000;
/// Widest key number padding (`zeropadding`; YCSB's default is 1).
pub const MAX_ZERO_PADDING: usize = 1024;

/// Request distribution of keys.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// Uniform over the loaded keys.
    Uniform,
    /// Scrambled zipfian.
    Zipfian,
    /// Skewed towards the newest inserts.
    Latest,
    /// A hot set taking most operations.
    Hotspot,
}

/// The `CoreWorkload` settings this harness honours.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "YCSB's own boolean properties"
)]
pub struct CoreWorkload {
    /// `recordcount`.
    pub recordcount: u64,
    /// `operationcount`.
    pub operationcount: u64,
    /// `fieldcount` (10).
    pub fieldcount: u64,
    /// `fieldlength` (100).
    pub fieldlength: usize,
    /// `fieldnameprefix` (`field`).
    pub fieldnameprefix: String,
    /// `readproportion` (0.95).
    pub readproportion: f64,
    /// `updateproportion` (0.05).
    pub updateproportion: f64,
    /// `insertproportion` (0).
    pub insertproportion: f64,
    /// `scanproportion` (0).
    pub scanproportion: f64,
    /// `readmodifywriteproportion` (0).
    pub readmodifywriteproportion: f64,
    /// `requestdistribution` (uniform).
    pub requestdistribution: Distribution,
    /// Zipfian constant (`zipfianconstant` or YCSB-cpp's `zipfian_const`; 0.99).
    pub zipfianconstant: f64,
    /// `minscanlength` (1).
    pub minscanlength: u64,
    /// `maxscanlength` (1000).
    pub maxscanlength: u64,
    /// `scanlengthdistribution` uniform (true) or zipfian.
    pub scanlength_uniform: bool,
    /// `insertorder` ordered (false = hashed, the default).
    pub insert_ordered: bool,
    /// `insertstart` (0).
    pub insertstart: u64,
    /// `insertcount` (recordcount − insertstart).
    pub insertcount: u64,
    /// `zeropadding` (1).
    pub zeropadding: usize,
    /// `hotspotdatafraction` (0.2).
    pub hotspotdatafraction: f64,
    /// `hotspotopnfraction` (0.8).
    pub hotspotopnfraction: f64,
    /// `writeallfields` (false: updates write one field).
    pub writeallfields: bool,
    /// `upsert` (false), not a YCSB property: an update (or the write of a
    /// read-modify-write) of a record that does not exist writes the whole record instead of
    /// returning NOT_FOUND, so a transaction phase can load records with a skewed key choice
    /// (the SplitZNS paper's zipfian load, YCSB-L).
    pub upsert: bool,
    /// `threadcount` (1).
    pub threadcount: u64,
}

/// Parses a properties text into key → value (later lines win).
pub fn parse_properties(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with('!') {
            continue;
        }
        if let Some((k, v)) = l.split_once('=').or_else(|| l.split_once(':')) {
            m.insert(k.trim().to_owned(), v.trim().to_owned());
        }
    }
    m
}

impl CoreWorkload {
    /// The workload of `props` (unknown keys are ignored, as YCSB does).
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming a property with a bad value.
    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Self, HarnessError> {
        fn get<T: std::str::FromStr>(
            p: &BTreeMap<String, String>,
            k: &str,
            d: T,
        ) -> Result<T, HarnessError> {
            match p.get(k) {
                None => Ok(d),
                Some(v) => v
                    .parse()
                    .map_err(|_| HarnessError::config(k, format!("bad value '{v}'"))),
            }
        }
        let recordcount: u64 = get(props, "recordcount", 0)?;
        let insertstart: u64 = get(props, "insertstart", 0)?;
        let dist = match props.get("requestdistribution").map(String::as_str) {
            None | Some("uniform") => Distribution::Uniform,
            Some("zipfian") => Distribution::Zipfian,
            Some("latest") => Distribution::Latest,
            Some("hotspot") => Distribution::Hotspot,
            Some(other) => {
                return Err(HarnessError::config(
                    "requestdistribution",
                    format!("unsupported '{other}' (uniform, zipfian, latest, hotspot)"),
                ));
            }
        };
        let theta = match props
            .get("zipfianconstant")
            .or_else(|| props.get("zipfian_const"))
        {
            Some(v) => v
                .parse()
                .map_err(|_| HarnessError::config("zipfianconstant", format!("bad value '{v}'")))?,
            None => 0.99,
        };
        let w = Self {
            recordcount,
            operationcount: get(props, "operationcount", 0)?,
            fieldcount: get(props, "fieldcount", 10)?,
            fieldlength: get(props, "fieldlength", 100)?,
            fieldnameprefix: props
                .get("fieldnameprefix")
                .cloned()
                .unwrap_or_else(|| "field".into()),
            readproportion: get(props, "readproportion", 0.95)?,
            updateproportion: get(props, "updateproportion", 0.05)?,
            insertproportion: get(props, "insertproportion", 0.0)?,
            scanproportion: get(props, "scanproportion", 0.0)?,
            readmodifywriteproportion: get(props, "readmodifywriteproportion", 0.0)?,
            requestdistribution: dist,
            zipfianconstant: theta,
            minscanlength: get(props, "minscanlength", 1)?,
            maxscanlength: get(props, "maxscanlength", 1000)?,
            scanlength_uniform: props
                .get("scanlengthdistribution")
                .is_none_or(|v| v == "uniform"),
            insert_ordered: props.get("insertorder").is_some_and(|v| v == "ordered"),
            insertstart,
            insertcount: get(
                props,
                "insertcount",
                recordcount.saturating_sub(insertstart),
            )?,
            zeropadding: get(props, "zeropadding", 1)?,
            hotspotdatafraction: get(props, "hotspotdatafraction", 0.2)?,
            hotspotopnfraction: get(props, "hotspotopnfraction", 0.8)?,
            writeallfields: get(props, "writeallfields", false)?,
            upsert: get(props, "upsert", false)?,
            threadcount: get(props, "threadcount", 1)?,
        };
        if w.fieldcount == 0 || w.threadcount == 0 || w.insertcount == 0 {
            return Err(HarnessError::config(
                "fieldcount, threadcount and recordcount",
                "must be at least 1",
            ));
        }
        if w.minscanlength > w.maxscanlength || w.minscanlength == 0 {
            return Err(HarnessError::config(
                "minscanlength, maxscanlength",
                "need 1 <= minscanlength <= maxscanlength",
            ));
        }
        w.check_ranges(props)?;
        w.check_sizes()?;
        let theta_given =
            props.contains_key("zipfianconstant") || props.contains_key("zipfian_const");
        if (w.requestdistribution == Distribution::Zipfian || theta_given)
            && crate::ycsb::generators::scrambled_zetan(w.zipfianconstant).is_none()
        {
            return Err(HarnessError::config(
                "zipfianconstant",
                format!(
                    "unsupported {}; supported are 0.8, 0.9, 0.95, 0.99, 1.1, 1.2 (precomputed zeta over 10^10 items)",
                    w.zipfianconstant
                ),
            ));
        }
        Ok(w)
    }
}

impl CoreWorkload {
    /// Bytes of one record: each field is its name's and value's lengths (4 bytes each), the
    /// name (`fieldnameprefix` and the field number) and the value (saturating).
    pub fn record_bytes(&self) -> u64 {
        let prefix = self.fieldnameprefix.len() as u64;
        let value = self.fieldlength as u64;
        (0..self.fieldcount.min(MAX_FIELD_COUNT + 1)).fold(0u64, |sum, i| {
            let digits = i.checked_ilog10().unwrap_or(0) + 1;
            sum.saturating_add(8 + prefix + u64::from(digits))
                .saturating_add(value)
        })
    }

    /// Refuses sizes that would grow memory or time without bound: more than 1024 client
    /// threads (as db_bench's `--threads`) or fields, records over 64 MiB (the largest value
    /// the workloads write), scans over 1,000,000 records, key padding over 1024 digits.
    fn check_sizes(&self) -> Result<(), HarnessError> {
        let bad = |k: &str, v: &dyn std::fmt::Display, what: &str| {
            Err(HarnessError::config(k, format!("{what}, not {v}")))
        };
        if self.threadcount > u64::from(MAX_THREADS) {
            return bad(
                "threadcount",
                &self.threadcount,
                "must be between 1 and 1024 (client threads)",
            );
        }
        if self.fieldcount > MAX_FIELD_COUNT {
            return bad("fieldcount", &self.fieldcount, "must be between 1 and 1024");
        }
        if self.maxscanlength > MAX_SCAN_LENGTH {
            return bad(
                "maxscanlength",
                &self.maxscanlength,
                "must be at most 1000000",
            );
        }
        if self.zeropadding > MAX_ZERO_PADDING {
            return bad("zeropadding", &self.zeropadding, "must be at most 1024");
        }
        let record = self.record_bytes();
        if record > MAX_VALUE_SIZE as u64 {
            return Err(HarnessError::config(
                "fieldlength",
                format!(
                    "{} with {} fields makes a record of {record} bytes (names and lengths included); at most 67108864 (64 MiB)",
                    self.fieldlength, self.fieldcount
                ),
            ));
        }
        Ok(())
    }

    /// Rejects what YCSB would misbehave on or silently ignore: proportions outside [0, 1] or
    /// all zero, hotspot fractions outside [0, 1], unknown `insertorder` and
    /// `scanlengthdistribution`.
    fn check_ranges(&self, props: &BTreeMap<String, String>) -> Result<(), HarnessError> {
        let proportions = [
            ("readproportion", self.readproportion),
            ("updateproportion", self.updateproportion),
            ("insertproportion", self.insertproportion),
            ("scanproportion", self.scanproportion),
            ("readmodifywriteproportion", self.readmodifywriteproportion),
            ("hotspotdatafraction", self.hotspotdatafraction),
            ("hotspotopnfraction", self.hotspotopnfraction),
        ];
        for (k, v) in proportions {
            if !(0.0..=1.0).contains(&v) {
                return Err(HarnessError::config(
                    k,
                    format!("must be between 0 and 1, not {v}"),
                ));
            }
        }
        if proportions[..5].iter().all(|(_, v)| *v == 0.0) {
            return Err(HarnessError::config(
                "readproportion, updateproportion, insertproportion, scanproportion, \
                 readmodifywriteproportion",
                "the operation proportions are all 0: the run phase would have nothing to do",
            ));
        }
        for (k, known) in [
            ("insertorder", &["hashed", "ordered"][..]),
            ("scanlengthdistribution", &["uniform", "zipfian"][..]),
        ] {
            if let Some(v) = props.get(k)
                && !known.contains(&v.as_str())
            {
                return Err(HarnessError::config(
                    k,
                    format!("unsupported '{v}' ({})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_out_of_range_are_errors_naming_the_property() {
        for (props, names) in [
            ("readproportion=1.5", "readproportion"),
            ("updateproportion=-0.5", "updateproportion"),
            ("readproportion=0\nupdateproportion=0", "proportions"),
            ("zipfianconstant=0.5", "zipfianconstant"),
            (
                "requestdistribution=uniform\nzipfianconstant=0.5",
                "zipfianconstant",
            ),
            ("hotspotdatafraction=2", "hotspotdatafraction"),
            ("hotspotopnfraction=-1", "hotspotopnfraction"),
            ("insertorder=sideways", "insertorder"),
            ("scanlengthdistribution=normal", "scanlengthdistribution"),
            ("threadcount=100000", "threadcount"),
            ("fieldcount=18446744073709551615", "fieldcount"),
            ("fieldcount=1025", "fieldcount"),
            ("maxscanlength=18446744073709551615", "maxscanlength"),
            ("zeropadding=1000000000000", "zeropadding"),
            ("fieldlength=18446744073709551615", "fieldlength"),
            ("fieldcount=1024\nfieldlength=65536", "fieldlength"),
        ] {
            let p = parse_properties(&format!("recordcount=10\n{props}"));
            let err = CoreWorkload::from_properties(&p).unwrap_err().to_string();
            assert!(err.contains(names), "{props}: {err}");
        }
        let ok = parse_properties(
            "recordcount=10\ninsertorder=ordered\nscanlengthdistribution=zipfian\nzipfianconstant=0.99",
        );
        assert!(CoreWorkload::from_properties(&ok).is_ok());
        // The limits themselves are accepted.
        let edge = parse_properties(
            "recordcount=10\nthreadcount=1024\nfieldcount=1024\nfieldlength=65000\nmaxscanlength=1000000\nzeropadding=1024",
        );
        let w = CoreWorkload::from_properties(&edge).unwrap();
        assert!(w.record_bytes() <= MAX_VALUE_SIZE as u64);
    }

    #[test]
    fn shipped_workload_files_parse_with_ycsb_defaults() {
        let a = parse_properties(include_str!("../../../../workloads/workloada"));
        let w = CoreWorkload::from_properties(&a).unwrap();
        assert_eq!((w.recordcount, w.operationcount), (1000, 1000));
        assert_eq!((w.readproportion, w.updateproportion), (0.5, 0.5));
        assert_eq!(w.requestdistribution, Distribution::Zipfian);
        assert_eq!((w.fieldcount, w.fieldlength, w.zeropadding), (10, 100, 1));
        let e = CoreWorkload::from_properties(&parse_properties(include_str!(
            "../../../../workloads/workloade"
        )))
        .unwrap();
        assert_eq!(
            (e.scanproportion, e.maxscanlength, e.minscanlength),
            (0.95, 100, 1)
        );
        let mut bad = a.clone();
        bad.insert("readproportion".into(), "lots".into());
        assert!(CoreWorkload::from_properties(&bad).is_err());
        bad = a;
        bad.insert("zipfianconstant".into(), "0.7".into());
        assert!(CoreWorkload::from_properties(&bad).is_err());
    }
}
