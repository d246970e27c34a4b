//! A simulated study from Rust: db_bench's fillrandom and readrandom on a simulated ZNS SSD
//! (the SplitZNS paper's at 1/512), in virtual time, through the lab API that `zonedb run`
//! and the Python package's `zonedb.run` use: `cargo run --example simulated_study`.
//!
//! The figures are a pure function of the scenario and its seed: run it twice, get the same
//! numbers. Change `placement` to `caza` or the cleaner to `greedy` and compare.

use zonedb::cli::run_flags::RunFlags;

const SCENARIO: &str = r#"
name = "tiny study"
seed = 3
sample_interval_ms = 10

[device]
profile = "splitzns-paper"
scale = "1/512"

[fs]
placement = "liza"
cleaner = "zenfs"

[engine]
write_buffer_size = 1048576
target_file_size_base = 1048576
max_bytes_for_level_base = 4194304

[workload]
benchmarks = "fillrandom,readrandom"
num = 20000
reads = 2000
value_size = 256
"#;

fn main() -> Result<(), zonedb::cli::CliError> {
    let flags = RunFlags {
        elide_values: true,
        parallel_compute: true,
        progress: false,
    };
    // A progress counter of our own (none is drawn on stderr); another thread could show it.
    let progress = zonedb::lab::Progress::default();
    let out = zonedb::lab::run_text(SCENARIO, &flags, Some(&progress))?;
    let r = &out.report;
    println!(
        "{} on {}: {} operations simulated",
        r.scenario.name,
        r.profile,
        progress.done.get()
    );
    for b in &r.benchmarks {
        let secs = b.wall_ns as f64 / 1e9;
        println!(
            "  {:<11} {:>7} ops in {:>8.4} s of virtual time: {:>9.0} ops/s",
            b.name,
            b.ops,
            secs,
            b.ops as f64 / secs.max(1e-9)
        );
    }
    println!(
        "  write amplification {:.2}, {} flushes, {} compactions, virtual end {:.3} s",
        r.write_amplification(),
        r.db.flushes,
        r.db.compactions,
        r.end_ns as f64 / 1e9
    );
    Ok(())
}
