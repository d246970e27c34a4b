#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zonedb_device::zonefile::fuzz::open_dir(data));
