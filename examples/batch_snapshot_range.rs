//! A write batch (atomic), a snapshot that does not see later writes, and range scans forward
//! and backward: `cargo run --example batch_snapshot_range`.

use zonedb::{Db, Options, WriteBatch, WriteOptions};

fn show(
    label: &str,
    items: impl Iterator<Item = zonedb::Result<zonedb::KeyValue>>,
) -> zonedb::Result<()> {
    let mut line = Vec::new();
    for item in items {
        let (k, v) = item?;
        line.push(format!(
            "{}={}",
            String::from_utf8_lossy(&k),
            String::from_utf8_lossy(&v)
        ));
    }
    println!("{label:>28}: {}", line.join(" "));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = Db::open(dir.path(), Options::default())?;

    // A batch is applied whole or (after a crash) not at all; `sync` makes it durable against
    // a power loss before `write_opt` returns.
    let mut batch = WriteBatch::new();
    for (k, v) in [
        ("apple", "1"),
        ("banana", "2"),
        ("cherry", "3"),
        ("date", "4"),
        ("fig", "5"),
    ] {
        batch.put(k.as_bytes(), v.as_bytes());
    }
    db.write_opt(batch, WriteOptions { sync: true })?;

    // The snapshot keeps the store as it is now.
    let snapshot = db.snapshot();
    let mut later = WriteBatch::new();
    later.delete(b"banana");
    later.put(b"cherry", b"33");
    later.put(b"elderberry", b"6");
    db.write(later)?;

    show("now, all", db.iter())?;
    show("snapshot, all", snapshot.iter())?;
    show("now, b..f", db.range(b"b".as_slice()..b"f".as_slice()))?;
    show(
        "now, b..f reversed",
        db.range(b"b".as_slice()..b"f".as_slice()).rev(),
    )?;
    show(
        "snapshot, ..=cherry reversed",
        snapshot.range(..=b"cherry".as_slice()).rev(),
    )?;
    assert_eq!(snapshot.get(b"banana")?, Some(b"2".to_vec()));
    assert_eq!(db.get(b"banana")?, None);

    drop(snapshot);
    db.close()?;
    Ok(())
}
