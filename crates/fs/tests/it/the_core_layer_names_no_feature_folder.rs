//! The core file layer (every file directly under `crates/fs/src`: state, allocation,
//! writers, reads, mount, metadata log, fsck) names no paper feature's folder
//! (`hybrid/`, `split/`, `znsplus/`). A feature reaches the core through the mount's
//! feature registry (`features.rs`), its options part (`options.rs`) and its counters part
//! (`stats.rs`), the only root files allowed to name one; `lib.rs` re-exports.

use std::path::Path;

const FEATURES: [&str; 3] = ["hybrid", "split", "znsplus"];
const ALLOWED: [&str; 4] = ["features.rs", "options.rs", "stats.rs", "lib.rs"];

/// The places in `text` that name a feature folder as a module path.
fn feature_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for f in FEATURES {
            for prefix in ["crate::", "super::", "zonedb_fs::"] {
                if code.contains(&format!("{prefix}{f}::"))
                    || code.contains(&format!("{prefix}{f};"))
                    || code.contains(&format!("{prefix}{{{f}"))
                {
                    found.push(format!("line {}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_core_layer_names_no_feature_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut core_files = 0;
    let mut offences = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() || !name.ends_with(".rs") || ALLOWED.contains(&name.as_str()) {
            continue;
        }
        core_files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for hit in feature_paths(&text) {
            offences.push(format!("{name} {hit}"));
        }
    }
    assert!(
        core_files >= 10,
        "the core files were not found in {}",
        src.display()
    );
    assert!(
        offences.is_empty(),
        "core files name a feature folder (reach it through features.rs instead):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_check_sees_a_feature_path() {
    assert_eq!(
        feature_paths("    crate::hybrid::ssd_cache::start(&fs);").len(),
        1
    );
    assert_eq!(feature_paths("use crate::split::subzone;").len(), 1);
    assert_eq!(feature_paths("use crate::{znsplus, state};").len(), 1);
    assert!(feature_paths("// crate::hybrid::ssd_cache in a comment").is_empty());
    assert!(feature_paths("let split = 3; self.split_zones()?;").is_empty());
}
