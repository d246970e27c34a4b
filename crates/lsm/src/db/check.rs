//! The database check behind `zonedb fs fsck`: what the zone file layer cannot know, since it
//! knows files, not formats. `CURRENT` must name a MANIFEST that exists and decodes into a
//! tree (every edit applies); every live SST (every file that tree names) must exist with the
//! size the MANIFEST gives, and every block of it must pass its checksum (footer, properties,
//! filter, index, every data block); every WAL and MANIFEST is read as an open would, a torn
//! tail (a write a crash cut short before it was synced) being a note, not damage.
//!
//! Nothing is written and no database is opened: the check reads through a file layer that
//! may be mounted read-only.

use std::collections::BTreeSet;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;

use super::wal_recovery::check_log;
use crate::LsmError;
use crate::sst::{MemSource, Table};
use crate::version::manifest::{self, CURRENT, parse_name, sst_name};
use crate::version::{Graveyard, Version};

/// Damaged blocks reported per SST at most (the rest are counted in one line).
const MAX_BLOCK_PROBLEMS: usize = 8;
/// Levels a MANIFEST may name (the most `num_levels` allows).
const MAX_LEVELS: usize = 16;

/// One finding of [`check_database`]: the file and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The file (`CURRENT`, a MANIFEST, a WAL or an SST).
    pub file: String,
    /// What the check found.
    pub what: String,
}

/// What [`check_database`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DbCheck {
    /// The file layer holds a database (`CURRENT` or a MANIFEST): its tree and SSTs were
    /// checked. (WALs are checked whatever else is there.)
    pub database: bool,
    /// Damage: an open fails or drops data, or a read of live data fails.
    pub problems: Vec<Finding>,
    /// Not damage: torn tails an open drops, files an open deletes.
    pub notes: Vec<Finding>,
    /// Live SSTs read whole and verified.
    pub ssts_checked: u64,
    /// Blocks of those whose checksum was verified (data blocks, and the footer, properties,
    /// filter and index of each).
    pub blocks_checked: u64,
}

impl DbCheck {
    fn problem(&mut self, file: &str, what: impl Into<String>) {
        self.problems.push(Finding {
            file: file.to_owned(),
            what: what.into(),
        });
    }

    fn note(&mut self, file: &str, what: impl Into<String>) {
        self.notes.push(Finding {
            file: file.to_owned(),
            what: what.into(),
        });
    }
}

/// `file: what` of an engine error, naming the damaged file when the error does.
fn finding_of(default_file: &str, e: &LsmError) -> Finding {
    match e {
        LsmError::Corruption {
            file, offset, what, ..
        } => Finding {
            file: file.clone(),
            what: format!("offset {offset}: {what}"),
        },
        e => Finding {
            file: default_file.to_owned(),
            what: e.to_string(),
        },
    }
}

/// Checks the database kept in `fs` without opening it (see the [module docs](self)). A
/// file layer without `CURRENT` or a MANIFEST holds no database (`database` false): only
/// its WALs are read.
pub async fn check_database<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) -> DbCheck {
    let names = fs.list();
    let mut report = DbCheck {
        database: names
            .iter()
            .any(|n| n == CURRENT || n.starts_with("MANIFEST-")),
        ..DbCheck::default()
    };
    let current = current_manifest_name(fs).await;
    check_logs(fs, &names, current.as_deref(), &mut report).await;
    if !report.database {
        return report;
    }
    let Some(version) = check_manifest(fs, &names, &mut report).await else {
        return report;
    };
    let live: BTreeSet<u64> = version.all_files().map(|(_, f)| f.meta.number).collect();
    for (level, f) in version.all_files() {
        check_sst(fs, level, &f.meta, current.as_deref(), &mut report).await;
    }
    for n in &names {
        if let Some((num, "sst")) = parse_name(n)
            && !live.contains(&num)
        {
            report.note(
                n,
                "not in the tree the MANIFEST describes: an open deletes it",
            );
        }
    }
    report
}

/// The MANIFEST `CURRENT` names, if it reads as a name.
async fn current_manifest_name<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) -> Option<String> {
    let cur = fs.read_all(CURRENT).await.ok()?;
    std::str::from_utf8(&cur)
        .ok()
        .and_then(|s| s.strip_suffix('\n'))
        .filter(|s| s.starts_with("MANIFEST-"))
        .map(str::to_owned)
}

/// Every WAL and MANIFEST read as an open would, without stopping at damage.
async fn check_logs<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    names: &[String],
    current: Option<&str>,
    report: &mut DbCheck,
) {
    for name in names {
        let wal = matches!(parse_name(name), Some((_, "log")));
        if !(wal || name.starts_with("MANIFEST-")) {
            continue;
        }
        let data = match fs.read_all(name).await {
            Ok(d) => d,
            Err(e) => {
                report.problem(name, format!("unreadable: {e}"));
                continue;
            }
        };
        let live_manifest = current == Some(name.as_str());
        for d in check_log(name, &data) {
            let what = format!(
                "offset {}: {}{}",
                d.offset,
                d.what,
                d.bytes_not_replayed
                    .map(|n| format!(" ({n} bytes from there to the end)"))
                    .unwrap_or_default()
            );
            if d.torn_tail {
                report.note(name, format!("{what}: torn tail, dropped at open"));
            } else if wal {
                report.problem(
                    name,
                    format!(
                        "{what}: damaged log; an open drops or refuses what follows \
                         (wal_recovery_mode)"
                    ),
                );
            } else if live_manifest {
                report.problem(
                    name,
                    format!("{what}: damaged MANIFEST; an open of the database fails"),
                );
            } else {
                report.note(
                    name,
                    format!("{what}: damaged, but CURRENT does not name it: an open deletes it"),
                );
            }
        }
    }
}

/// `CURRENT` and the MANIFEST it names, read and applied as an open does: the tree, or
/// `None` after reporting why there is none.
async fn check_manifest<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    names: &[String],
    report: &mut DbCheck,
) -> Option<Version> {
    let edits = match manifest::read_manifest(fs).await {
        Ok(Some((_, edits))) => edits,
        Ok(None) => {
            // MANIFESTs without CURRENT.
            let kept = names
                .iter()
                .filter(|n| matches!(parse_name(n), Some((_, "sst" | "manifest"))))
                .count();
            report.problem(
                CURRENT,
                format!(
                    "missing, but the device holds {kept} MANIFESTs and SSTs: an open would \
                     start an empty database and delete them"
                ),
            );
            return None;
        }
        Err(e) => {
            let f = finding_of(CURRENT, &e);
            // Damage `check_logs` reported already is not reported twice.
            if !report.problems.iter().any(|p| p.file == f.file) {
                report.problems.push(f);
            }
            return None;
        }
    };
    let manifest = current_manifest_name(fs).await.unwrap_or_default();
    let graveyard: Graveyard = Arc::default();
    let mut version = Version::new(MAX_LEVELS);
    for (i, e) in edits.iter().enumerate() {
        match version.apply(e, &graveyard) {
            Ok(v) => version = v,
            Err(err) => {
                let what = match err {
                    LsmError::Corruption { what, .. } => what,
                    other => other.to_string(),
                };
                report.problem(
                    &manifest,
                    format!("edit {i} does not apply to the tree: {what}; an open fails"),
                );
                return None;
            }
        }
    }
    Some(version)
}

/// One live SST: there, of the size the MANIFEST gives, every block verified.
async fn check_sst<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    level: u32,
    meta: &crate::version::FileMeta,
    manifest: Option<&str>,
    report: &mut DbCheck,
) {
    let name = sst_name(meta.number);
    let manifest = manifest.unwrap_or("the MANIFEST");
    let Some(stat) = fs.stat(&name) else {
        report.problem(
            &name,
            format!("missing: {manifest} has it in L{level}; an open fails"),
        );
        return;
    };
    if stat.size != meta.file_size {
        report.problem(
            &name,
            format!(
                "{} bytes, but {manifest} says {} (L{level}): the file was cut or grown",
                stat.size, meta.file_size
            ),
        );
    }
    let bytes = match fs.read_all(&name).await {
        Ok(b) => b,
        Err(e) => {
            report.problem(&name, format!("unreadable: {e}"));
            return;
        }
    };
    let source = MemSource(Arc::new(bytes), name.clone());
    let table = match Table::open(source, meta.number, meta.file_size, None).await {
        Ok(t) => t,
        Err(e) => {
            let mut f = finding_of(&name, &e);
            f.what = format!("footer, properties, filter or index: {}", f.what);
            report.problems.push(f);
            return;
        }
    };
    report.ssts_checked += 1;
    // Footer, properties, filter and index: verified by the open.
    report.blocks_checked += 4;
    let mut damaged = 0usize;
    for i in 0..table.num_blocks() {
        match table.block_with(i, false).await {
            Ok(_) => report.blocks_checked += 1,
            Err(e) => {
                damaged += 1;
                if damaged <= MAX_BLOCK_PROBLEMS {
                    let mut f = finding_of(&name, &e);
                    f.what = format!("data block {i}: {}", f.what);
                    report.problems.push(f);
                }
            }
        }
    }
    if damaged > MAX_BLOCK_PROBLEMS {
        report.problem(
            &name,
            format!(
                "{} more damaged data blocks not listed",
                damaged - MAX_BLOCK_PROBLEMS
            ),
        );
    }
}
