//! Helpers shared by the CLI tests: running the binary, and JSON without its `"host"` objects.
#![allow(dead_code, reason = "each test binary uses a part")]

use std::process::Command;

use serde_json::Value;

/// Runs `zonedb args` in the current directory; its whole output, whatever its status.
pub fn zonedb_output(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .expect("zonedb runs")
}

/// Runs `zonedb args` in the repository; its stdout (the command must succeed).
pub fn zonedb(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("zonedb runs");
    assert!(
        out.status.success(),
        "zonedb {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The JSON with every `"host"` object removed (as `scripts/fingerprint.sh` strips it).
pub fn without_host(text: &str) -> String {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("host");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: Value = serde_json::from_str(text).expect("JSON output");
    strip(&mut v);
    serde_json::to_string_pretty(&v).expect("JSON")
}
