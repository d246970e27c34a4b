//! The `zonedb` library behind the command line: the CLI's commands ([`cli`]) and the lab
//! functions the Python package calls ([`lab`]), so `zonedb run`, `zonedb.run(...)` and a
//! sweep's runs give the same JSON. The OS clock is read in [`host`] only.
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod cli;
pub mod host;
pub mod lab;
pub mod progress;
