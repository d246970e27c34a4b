//! `zonedb._native`: the extension module under the `zonedb` Python package
//! (`python/zonedb/`). The store (`store`) and the lab (`lab`) call the same Rust the CLI
//! does; the engine's error kinds become Python exceptions (`errors`).
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

mod errors;
mod lab;
mod store;

use pyo3::prelude::*;

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<store::Store>()?;
    m.add_class::<store::Snapshot>()?;
    m.add_class::<store::Iter>()?;
    m.add_class::<lab::SweepDir>()?;
    m.add_function(wrap_pyfunction!(store::open_store, m)?)?;
    m.add_function(wrap_pyfunction!(store::after_fork, m)?)?;
    m.add_function(wrap_pyfunction!(lab::run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(lab::reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(lab::study_cell, m)?)?;
    m.add_function(wrap_pyfunction!(lab::toml_of_json, m)?)?;
    m.add_function(wrap_pyfunction!(lab::result_columns, m)?)?;
    m.add_function(wrap_pyfunction!(lab::cli_main, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
