//! `--scale 1/N` runs the HHZS and same-zone studies between their `small` and `paper` sizes:
//! every device, engine and dataset size is the paper's divided by `N`, and the other studies,
//! whose plans know only `small`, `paper` and `tiny`, refuse it with a message that says so.

use zonedb_harness::reproduce::{self, ReproScale, StudyId, hhzs};

fn toml_of(scale: ReproScale) -> String {
    let cells = hhzs::cells(
        scale,
        &hhzs::HhzsPlan {
            seeds: vec![1],
            experiments: vec!["exp1".into()],
        },
    )
    .unwrap();
    toml::to_string(&cells[0].scenario).unwrap()
}

fn integer(text: &str, key: &str) -> u64 {
    let at = text.find(&format!("\n{key} = ")).unwrap() + key.len() + 4;
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn hhzs_and_same_zone_take_a_scale_between_small_and_paper() {
    let s = ReproScale::parse("1/32").unwrap();
    assert_eq!(s, ReproScale::Fraction(32));
    assert_eq!((s.name(), s.div()), ("1/32", 32));
    let e = ReproScale::parse("1/3").unwrap_err().to_string();
    assert!(e.contains("1/3") && e.contains("1/32"), "{e}");
    assert!(ReproScale::parse("1/1").is_err());

    // HHZS at 1/32: four times small's (1/128) device, engine and dataset.
    let (small, quarter) = (toml_of(ReproScale::Small), toml_of(s));
    assert!(quarter.contains("scale = \"1/32\""), "{quarter}");
    assert!(small.contains("scale = \"1/128\""), "{small}");
    for key in [
        "recordcount",
        "write_buffer_size",
        "max_bytes_for_level_base",
    ] {
        assert_eq!(
            integer(&quarter, key),
            4 * integer(&small, key),
            "{key}:\n{quarter}"
        );
    }

    // Same-zone at 1/32: the device, the engine and fillrandom's puts divided by 32; the
    // other studies refuse it.
    let plan = reproduce::Plan {
        text_forms: false,
        ablation: false,
        sweep: false,
        workloads: vec!["fillrandom".into()],
        ..reproduce::Plan::full(1)
    };
    let at = |scale| {
        let c = reproduce::cells(StudyId::SameZone, scale, &plan).unwrap();
        toml::to_string(&c[0].scenario).unwrap()
    };
    let (small, big) = (at(ReproScale::Small), at(s));
    assert!(big.contains("scale = \"1/32\""), "{big}");
    for key in ["num", "write_buffer_size", "target_file_size_base"] {
        assert_eq!(
            integer(&big, key),
            2 * integer(&small, key),
            "{key}:\n{big}"
        );
    }
    for study in [StudyId::Oaza, StudyId::SplitZns] {
        let e = reproduce::cells(study, s, &plan).unwrap_err().to_string();
        assert!(
            e.contains("only hhzs and same-zone take a 1/N scale"),
            "{e}"
        );
    }
    assert!(reproduce::cells(StudyId::Hhzs, s, &reproduce::Plan::full(1)).is_ok());
}
