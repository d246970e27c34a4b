//! `zonedb`: the command-line front of ZoneDB. Only argument parsing and printing live here;
//! every capability is in the library crates.
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

mod cli;
mod host;
mod progress;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's malloc: real mode's threads (readers, the writer, flush and
/// compaction) free each other's blocks all the time, and glibc serializes that on its arena
/// locks (readers of `readwhilewriting` spent most of their waits there).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
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
