//! `zonedb`: the command-line front of ZoneDB. Only the entry point lives here; the commands
//! are in the `zonedb` library (`src/lib.rs`), every capability in the library crates.
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::ExitCode;

use clap::Parser;
use zonedb::cli;

/// mimalloc instead of glibc's malloc: real mode's threads (readers, the writer, flush and
/// compaction) free each other's blocks all the time, and glibc serializes that on its arena
/// locks (readers of `readwhilewriting` spent most of their waits there).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A closed stdout (`zonedb fs ls --json | head`) ends the process quietly with the shell's
/// SIGPIPE status, as other Unix tools do, instead of a panic report: Rust ignores SIGPIPE,
/// so `println!` panics with a broken-pipe error, and this crate forbids the `unsafe` that
/// restoring the signal's default would take.
fn exit_quietly_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    exit_quietly_on_broken_pipe();
    // Either spelling of a flag (`--emit_scenarios`, `--write-buffer-size`) is accepted.
    let args = cli::Cli::parse_from(cli::flag_style::normalize(std::env::args_os().collect()));
    match cli::run(args) {
        Ok(code) => code,
        Err(e @ cli::CliError::Failed(_)) => {
            eprintln!("zonedb: FAILED: {e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("zonedb: error: {e}");
            ExitCode::from(2)
        }
    }
}
