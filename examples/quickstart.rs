//! Open a store, write, read, delete, close: `cargo run --example quickstart`.
//!
//! The store lives in a temporary directory (a file-backed zoned device: sparse files); give a
//! directory as the first argument to keep it instead.

use zonedb::{Db, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| tmp.path().to_path_buf(), Into::into);

    // Creates the store (a zoned device of the default geometry) when the directory holds none.
    let db = Db::open(&dir, Options::default())?;
    db.put(b"greeting", b"hello, zones")?;
    let value = db.get(b"greeting")?;
    println!(
        "greeting = {:?}",
        value.as_deref().map(String::from_utf8_lossy)
    );
    db.delete(b"greeting")?;
    assert_eq!(db.get(b"greeting")?, None);
    println!("deleted; the store is in {}", dir.display());
    // Closing syncs the WAL and releases the device (a drop would too, without an error to
    // report).
    db.close()?;
    Ok(())
}
