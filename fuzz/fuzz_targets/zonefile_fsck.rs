#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zonedb_fs::fsck::fuzz::zonefile_fsck(data));
