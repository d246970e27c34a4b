//! One flag style, the other accepted: a command's flags are spelled as documented (engine
//! and workload options in RocksDB's and db_bench's `snake_case`, `--write_buffer_size`; the
//! lab's own flags in `kebab-case`, `--emit-scenarios`; new lab flags take `kebab-case`), and
//! each is also accepted with `_` and `-` swapped (`--emit_scenarios`, `--write-buffer-size`),
//! rewritten to the documented spelling before clap parses, unless the swapped spelling is a
//! flag of its own.

use std::collections::BTreeSet;
use std::ffi::OsString;

use clap::CommandFactory;

use super::Cli;

/// The long flags of `cmd` and of the subcommands that `args` (after the program name) pick.
fn known_longs(args: &[OsString]) -> BTreeSet<String> {
    let mut cmd = Cli::command();
    let mut longs: BTreeSet<String> = BTreeSet::new();
    let collect = |c: &clap::Command, longs: &mut BTreeSet<String>| {
        for a in c.get_arguments() {
            longs.extend(a.get_long().map(str::to_owned));
            longs.extend(a.get_all_aliases().into_iter().flatten().map(str::to_owned));
        }
    };
    collect(&cmd, &mut longs);
    for a in args {
        let Some(word) = a.to_str() else { break };
        if word.starts_with('-') {
            continue;
        }
        let Some(sub) = cmd.find_subcommand(word).cloned() else {
            continue;
        };
        collect(&sub, &mut longs);
        cmd = sub;
    }
    longs
}

/// `args` (the program name first) with every `--flag` or `--flag=value` that the command
/// does not know, but knows with `_` and `-` swapped, in the known spelling. Arguments after
/// `--` are left alone.
pub fn normalize(args: Vec<OsString>) -> Vec<OsString> {
    let rest = args.get(1..).unwrap_or_default();
    let known = known_longs(rest);
    let mut out = Vec::with_capacity(args.len());
    let mut literal = false;
    for a in args {
        let Some(text) = a.to_str().filter(|t| !literal && t.starts_with("--")) else {
            out.push(a);
            continue;
        };
        if text == "--" {
            literal = true;
            out.push(a);
            continue;
        }
        let (name, value) = match text[2..].split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (&text[2..], None),
        };
        if known.contains(name) {
            out.push(a);
            continue;
        }
        let swapped: String = name
            .chars()
            .map(|c| match c {
                '_' => '-',
                '-' => '_',
                c => c,
            })
            .collect();
        if known.contains(&swapped) {
            out.push(OsString::from(match value {
                Some(v) => format!("--{swapped}={v}"),
                None => format!("--{swapped}"),
            }));
        } else {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::normalize;

    fn words(s: &str) -> Vec<OsString> {
        s.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn either_spelling_of_a_flag_reaches_its_documented_one() {
        assert_eq!(
            normalize(words(
                "zonedb bench --write-buffer-size=1024 --elide-values --num 5 -- --write-buffer-size"
            )),
            words(
                "zonedb bench --write_buffer_size=1024 --elide_values --num 5 -- --write-buffer-size"
            )
        );
        assert_eq!(
            normalize(words(
                "zonedb reproduce oaza --emit_scenarios d --no_ablation"
            )),
            words("zonedb reproduce oaza --emit-scenarios d --no-ablation")
        );
        // Nested subcommands, and a flag unknown in either spelling, left for clap to refuse.
        assert_eq!(
            normalize(words("zonedb device bench --no_such_flag")),
            words("zonedb device bench --no_such_flag")
        );
    }
}
