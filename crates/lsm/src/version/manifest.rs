//! The MANIFEST: version edits in the log format, one record each, in a file named
//! `MANIFEST-NNNNNN`; the file `CURRENT` names the live one. A new MANIFEST is started on
//! every open with a snapshot of the tree; `CURRENT` is switched by an atomic rename.

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{WritableFile, ZoneFs};

use super::edit::VersionEdit;
use crate::log_format::{LogWriter, RecoveryMode, read_log};
use crate::{CorruptionKind, LsmError};

/// Name of the file naming the live MANIFEST.
pub const CURRENT: &str = "CURRENT";

/// `MANIFEST-NNNNNN`.
pub fn manifest_name(number: u64) -> String {
    format!("MANIFEST-{number:06}")
}

/// `NNNNNN.log`.
pub fn wal_name(number: u64) -> String {
    format!("{number:06}.log")
}

/// `NNNNNN.sst`.
pub fn sst_name(number: u64) -> String {
    format!("{number:06}.sst")
}

/// Parses a file name: (number, kind) with kind one of "log", "sst", "manifest".
pub fn parse_name(name: &str) -> Option<(u64, &'static str)> {
    if let Some(n) = name.strip_prefix("MANIFEST-") {
        return n.parse().ok().map(|n| (n, "manifest"));
    }
    let (stem, ext) = name.rsplit_once('.')?;
    let n = stem.parse().ok()?;
    match ext {
        "log" => Some((n, "log")),
        "sst" => Some((n, "sst")),
        _ => None,
    }
}

/// An open MANIFEST being appended to.
#[derive(Debug)]
pub struct ManifestWriter<E: Env, D: ZonedDevice> {
    file: WritableFile<E, D>,
    log: LogWriter,
    /// Its number.
    pub number: u64,
}

impl<E: Env, D: ZonedDevice> ManifestWriter<E, D> {
    /// Creates MANIFEST `number` holding `snapshot`, syncs it, and points `CURRENT` at it.
    ///
    /// # Errors
    /// File layer errors.
    pub async fn create(
        fs: &Arc<ZoneFs<E, D>>,
        number: u64,
        snapshot: &VersionEdit,
    ) -> Result<Self, LsmError> {
        let mut w = Self {
            file: fs.create(&manifest_name(number), Lifetime::NotSet).await?,
            log: LogWriter::new(),
            number,
        };
        // A failure gives the new files up (deletable, their zones back): the caller
        // deletes them.
        if let Err(e) = w.append(snapshot).await {
            w.file.abandon().await?;
            return Err(e);
        }
        let tmp = format!("{number:06}.dbtmp");
        let current = async {
            let mut c = fs.create(&tmp, Lifetime::NotSet).await?;
            if let Err(e) = c
                .append(format!("{}\n", manifest_name(number)).as_bytes())
                .await
            {
                c.abandon().await?;
                return Err(e);
            }
            c.close().await?;
            fs.rename(&tmp, CURRENT).await
        };
        if let Err(e) = current.await {
            w.file.abandon().await?;
            return Err(e.into());
        }
        Ok(w)
    }

    /// Appends an edit and syncs it.
    ///
    /// # Errors
    /// File layer errors.
    pub async fn append(&mut self, edit: &VersionEdit) -> Result<(), LsmError> {
        let mut buf = Vec::new();
        self.log.add_record(&edit.encode(), &mut buf);
        self.file.append(&buf).await?;
        self.file.fsync().await?;
        Ok(())
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// Closes the file.
    ///
    /// # Errors
    /// File layer errors.
    pub async fn close(self) -> Result<(), LsmError> {
        self.file.close().await?;
        Ok(())
    }
}

/// Reads `CURRENT` and the MANIFEST it names: the edits in order. `None` if there is no
/// database yet.
///
/// # Errors
/// [`LsmError::Corruption`] for a damaged `CURRENT` or MANIFEST (a torn last record is
/// tolerated); file layer errors.
pub async fn read_manifest<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
) -> Result<Option<(u64, Vec<VersionEdit>)>, LsmError> {
    if !fs.exists(CURRENT) {
        return Ok(None);
    }
    let cur = fs.read_all(CURRENT).await?;
    let name = std::str::from_utf8(&cur)
        .ok()
        .and_then(|s| s.strip_suffix('\n'))
        .filter(|s| s.starts_with("MANIFEST-"))
        .ok_or_else(|| LsmError::corruption(CURRENT, 0, "CURRENT does not name a MANIFEST"))?
        .to_owned();
    let number = parse_name(&name)
        .map(|(n, _)| n)
        .ok_or_else(|| LsmError::corruption(CURRENT, 0, "bad MANIFEST name"))?;
    if !fs.exists(&name) {
        return Err(LsmError::corrupt(
            CorruptionKind::Missing,
            CURRENT,
            0,
            format!("{name} is missing"),
        ));
    }
    let data = fs.read_all(&name).await?;
    let log = read_log(&name, &data, RecoveryMode::TolerateCorruptedTailRecords)?;
    let mut edits = Vec::with_capacity(log.records.len());
    for (at, r) in log.records {
        edits.push(VersionEdit::decode(&r).map_err(|e| match e {
            LsmError::Corruption { kind, what, .. } => LsmError::corrupt(kind, &name, at, what),
            other => other,
        })?);
    }
    if edits.is_empty() {
        return Err(LsmError::corruption(&name, 0, "empty MANIFEST"));
    }
    Ok(Some((number, edits)))
}
