#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zonedb_lsm::fuzz::sst_block(data));
