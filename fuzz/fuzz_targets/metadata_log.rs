#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zonedb_fs::record::fuzz::metadata_log(data));
