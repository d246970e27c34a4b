//! Every value a registry-backed flag accepts appears in the `--help` of the commands that
//! take it: the help is made from the registries (placements, cleaners, compaction schemes,
//! device profiles, schedulers, compressions, benchmarks, studies), so it cannot fall behind
//! what the code accepts. And every flag has help text; every engine option states its
//! default.

use crate::common::zonedb_output as zonedb;

fn help(args: &[&str]) -> String {
    let o = zonedb(args);
    assert!(o.status.success(), "{args:?}");
    String::from_utf8(o.stdout).unwrap()
}

fn assert_lists(cmd: &str, help: &str, what: &str, names: impl IntoIterator<Item = String>) {
    for name in names {
        assert!(help.contains(&name), "{cmd} --help lacks the {what} {name}");
    }
}

fn owned<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    names.into_iter().map(str::to_owned).collect()
}

#[test]
fn bench_and_ycsb_help_list_every_registered_name() {
    for cmd in ["bench", "ycsb"] {
        let h = help(&[cmd, "--help"]);
        assert_lists(
            cmd,
            &h,
            "placement",
            zonedb_fs::placement::registry::names(),
        );
        assert_lists(cmd, &h, "cleaner", owned(zonedb_fs::cleaning::names()));
        assert_lists(
            cmd,
            &h,
            "compaction scheme",
            owned(zonedb_lsm::options::CompactionScheme::NAMES),
        );
        assert_lists(
            cmd,
            &h,
            "scheduler",
            owned(zonedb_device::flash::Scheduler::names()),
        );
        assert_lists(
            cmd,
            &h,
            "profile",
            owned(zonedb_device::profile::PROFILE_NAMES),
        );
        assert_lists(
            cmd,
            &h,
            "compression",
            owned(zonedb_lsm::options::Compression::NAMES),
        );
    }
    let h = help(&["bench", "--help"]);
    assert_lists(
        "bench",
        &h,
        "benchmark",
        owned(zonedb_harness::benchmark::BENCHMARKS),
    );
}

#[test]
fn reproduce_help_lists_every_registered_study() {
    let h = help(&["reproduce", "--help"]);
    assert_lists(
        "reproduce",
        &h,
        "study",
        owned(zonedb_harness::reproduce::Registry::builtin().names()),
    );
}

/// The flags of a `--help` text with their help lines (the long help puts each flag's text on
/// the lines below it, indented deeper).
fn flags(help: &str) -> Vec<(&str, String)> {
    let lines: Vec<&str> = help.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let flag = line.trim_start();
        if !(flag.starts_with("--") || flag.starts_with("-h")) || !line.starts_with("  ") {
            continue;
        }
        let text: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| !l.trim().is_empty() && indent(l) > indent(line))
            .map(|l| l.trim())
            .collect();
        out.push((flag, text.join(" ")));
    }
    out
}

#[test]
fn every_flag_of_the_run_commands_has_help_text() {
    for cmd in ["bench", "ycsb", "reproduce", "compare", "run", "sweep"] {
        for (flag, text) in flags(&help(&[cmd, "--help"])) {
            assert!(!text.is_empty(), "{cmd} --help: `{flag}` has no help text");
        }
    }
}

/// The engine options (from `--options_file` to the first store flag, `--mode`) each state
/// the value they take when absent.
#[test]
fn every_engine_flag_states_its_default() {
    let h = help(&["bench", "--help"]);
    let all = flags(&h);
    let start = all
        .iter()
        .position(|(f, _)| f.starts_with("--options_file"))
        .unwrap();
    let end = all
        .iter()
        .position(|(f, _)| f.starts_with("--mode"))
        .unwrap();
    assert!(end > start + 20, "the engine flags are where they were");
    for (flag, text) in &all[start + 1..end] {
        assert!(
            text.contains("default"),
            "bench --help: `{flag}` does not state its default: {text}"
        );
    }
}
