#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zonedb_device::zonefile::fuzz::zone_records(data));
