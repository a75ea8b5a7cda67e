//! redb's integrity check, and the repair of a damaged store: every entry that still reads
//! back sound is copied into a new file, which takes the damaged file's place; the damaged
//! file is kept beside it. Both read the file through an [`Overlay`], so neither changes it.

use crate::guard::guarded;
use crate::overlay::{Base, Overlay};
use crate::{read_payload, EntryInfo, Store, StoreError, BLOCKS, CATALOGUE, FORMAT, META};
use redb::{Builder, Database, ReadableDatabase, ReadableTable, TableHandle};

/// A database opened for reading, one way or another.
type AnyDb = Box<dyn ReadableDatabase>;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What redb's integrity check says of a store file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Integrity {
    /// Every page of the committed state checks out.
    Sound,
    /// redb found something it repairs by itself (e.g. an interrupted commit to roll back, or
    /// space an interrupted commit left allocated); the entries are not affected. The check
    /// repaired a private copy: the file is as it was, and redb repairs it on the next write.
    Repairable,
    /// The file is damaged: what the check reported.
    Damaged(String),
}

/// Runs redb's integrity check (every page's checksum, the allocator state) on the store at
/// `path` without changing it: the check, and any repair it makes, work on an in-memory
/// overlay of the file. Never panics; a file that is not a redb database at all is
/// [`Integrity::Damaged`].
pub fn check_integrity(path: &Path) -> Result<Integrity, StoreError> {
    let base = Base::open(path).map_err(|e| StoreError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut db = match open_overlay(&base, false) {
        Ok(db) => db,
        Err(e) => return Ok(Integrity::Damaged(e)),
    };
    let checked = guarded(|| db.check_integrity());
    let verdict = match &checked {
        Ok(Ok(true)) => Integrity::Sound,
        Ok(Ok(false)) => Integrity::Repairable,
        Ok(Err(e)) => Integrity::Damaged(e.to_string()),
        Err(panic) => Integrity::Damaged(format!("redb failed on a damaged page: {panic}")),
    };
    close(db, checked.is_err());
    Ok(verdict)
}

/// Opens a database on an overlay of `base`, behind the panic boundary; with `check`, redb
/// checks (and repairs, in the overlay) the whole file as it opens it.
fn open_overlay(base: &Arc<Base>, check: bool) -> Result<Database, String> {
    let mut b = Builder::new();
    b.set_cache_size(4 << 20);
    b.set_check_integrity_on_open(check);
    match guarded(|| b.create_with_backend(Overlay::new(base.clone()))) {
        Ok(Ok(db)) => Ok(db),
        Ok(Err(e)) => Err(e.to_string()),
        Err(panic) => Err(format!("redb failed on a damaged page: {panic}")),
    }
}

/// Opens `base` for reading: read-only first (which reads the least: no allocator state, no
/// recovery), else as [`open_overlay`] does, plain and then checked on open (which may fall
/// back to the previous commit).
fn open_any(base: &Arc<Base>) -> Result<AnyDb, String> {
    let b = Builder::new();
    let read_only = match guarded(|| b.open_read_only_with_backend(Overlay::new(base.clone()))) {
        Ok(Ok(db)) => return Ok(Box::new(db)),
        Ok(Err(e)) => e.to_string(),
        Err(panic) => format!("redb failed on a damaged page: {panic}"),
    };
    match open_overlay(base, false).or_else(|_| open_overlay(base, true)) {
        Ok(db) => Ok(Box::new(db)),
        Err(e) => Err(format!("{e} (read-only: {read_only})")),
    }
}

/// Closes a database opened on an overlay; after a panic inside it, leaves it be (closing
/// could panic again or wait on a lock never released; it holds memory only).
fn close<D: 'static>(db: D, panicked: bool) {
    if panicked {
        std::mem::forget(db);
    } else {
        let _ = guarded(move || drop(db));
    }
}

/// An entry `repair` could not keep.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LostEntry {
    /// The entry's key.
    pub key: String,
    /// Why it could not be kept.
    pub reason: String,
}

/// What [`repair`] did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RepairReport {
    /// The store (now the repaired file).
    pub path: PathBuf,
    /// The file as it was before the repair, kept beside it.
    pub backup: PathBuf,
    /// The keys of the entries kept, in order.
    pub kept: Vec<String>,
    /// The entries that could not be kept (their key is known: it was read from the
    /// catalogue or from the blocks).
    pub lost: Vec<LostEntry>,
    /// What could not be read at all (a part of the catalogue or of the blocks): entries
    /// recorded only there are lost without their keys being known.
    pub notes: Vec<String>,
}

/// Panics survived before `repair` gives up on the rest of a file.
const MAX_FAILURES: usize = 1000;

/// Reads a damaged file through overlays, opening a fresh one after each panic (redb's
/// state may be inconsistent after one).
struct Reader {
    base: Arc<Base>,
    db: Option<AnyDb>,
    failures: usize,
    /// Items any one scan may visit (a damaged page must not make one loop for ever).
    cap: usize,
}

impl Reader {
    /// Runs `f` on the database (opened if needed), behind the panic boundary.
    fn with<T>(&mut self, f: impl FnOnce(&dyn ReadableDatabase) -> Result<T, String>) -> Result<T, String> {
        if self.failures >= MAX_FAILURES {
            return Err(format!("gave up after {MAX_FAILURES} failures to read the file"));
        }
        if self.db.is_none() {
            match open_any(&self.base) {
                Ok(db) => self.db = Some(db),
                Err(e) => {
                    self.failures += 1;
                    return Err(format!("cannot open it: {e}"));
                }
            }
        }
        let Some(db) = self.db.as_ref() else {
            return Err("cannot open it".into());
        };
        match guarded(|| f(db.as_ref())) {
            Ok(r) => r,
            Err(panic) => {
                self.failures += 1;
                if let Some(db) = self.db.take() {
                    close(db, true);
                }
                Err(format!("redb failed on a damaged page: {panic}"))
            }
        }
    }

    /// The catalogue's records, forwards (or backwards) until the end or a failure: `found`
    /// keeps what was read before a failure.
    fn scan_catalogue(
        &mut self,
        backwards: bool,
        found: &mut BTreeMap<String, Vec<u8>>,
    ) -> Result<(), String> {
        let cap = self.cap;
        self.with(|db| {
            let rtx = db.begin_read().map_err(|e| e.to_string())?;
            let cat = rtx.open_table(CATALOGUE).map_err(|e| e.to_string())?;
            let iter = cat.iter().map_err(|e| e.to_string())?;
            let iter: Box<dyn Iterator<Item = _>> = if backwards {
                Box::new(iter.rev())
            } else {
                Box::new(iter)
            };
            for item in iter.take(cap) {
                let (k, v) = item.map_err(|e| e.to_string())?;
                let key = k.value().to_string();
                if backwards && found.contains_key(&key) {
                    break;
                }
                found.insert(key, v.value().to_vec());
            }
            Ok(())
        })
    }

    /// The keys of the blocks table, as [`Reader::scan_catalogue`].
    fn scan_blocks(&mut self, backwards: bool, found: &mut BTreeSet<String>) -> Result<(), String> {
        let cap = self.cap;
        self.with(|db| {
            let rtx = db.begin_read().map_err(|e| e.to_string())?;
            let tab = rtx.open_table(BLOCKS).map_err(|e| e.to_string())?;
            let iter = tab.iter().map_err(|e| e.to_string())?;
            let iter: Box<dyn Iterator<Item = _>> = if backwards {
                Box::new(iter.rev())
            } else {
                Box::new(iter)
            };
            let mut last: Option<String> = None;
            for item in iter.take(cap) {
                let (k, _) = item.map_err(|e| e.to_string())?;
                let key = k.value().0;
                if last.as_deref() == Some(key) {
                    continue;
                }
                if backwards && found.contains(key) {
                    break;
                }
                found.insert(key.to_string());
                last = Some(key.to_string());
            }
            Ok(())
        })
    }

    /// The catalogue record of `key`, looked up on its own.
    fn record(&mut self, key: &str) -> Result<Option<Vec<u8>>, String> {
        self.with(|db| {
            let rtx = db.begin_read().map_err(|e| e.to_string())?;
            let cat = rtx.open_table(CATALOGUE).map_err(|e| e.to_string())?;
            let v = cat.get(key).map_err(|e| e.to_string())?;
            Ok(v.map(|v| v.value().to_vec()))
        })
    }

    /// The entry of `record`, checked: its record and its compressed blocks.
    fn entry(&mut self, key: &str, record: &[u8]) -> Result<(EntryInfo, Vec<Vec<u8>>), String> {
        let info: EntryInfo =
            serde_json::from_slice(record).map_err(|e| format!("unreadable catalogue record: {e}"))?;
        if info.key != key {
            return Err(format!("its record names another key '{}'", info.key));
        }
        let blocks = self.with(|db| {
            let rtx = db.begin_read().map_err(|e| e.to_string())?;
            let tab = rtx.open_table(BLOCKS).map_err(|e| e.to_string())?;
            let mut raw = Vec::new();
            read_payload(&info, |i| {
                let b = tab
                    .get((key, i))
                    .map_err(crate::db_err)?
                    .map(|b| b.value().to_vec());
                raw.extend(b.clone());
                Ok(b)
            })
            .map_err(|e| match e {
                StoreError::Corrupt { what, .. } => what,
                e => e.to_string(),
            })?;
            Ok(raw)
        })?;
        Ok((info, blocks))
    }

    /// The format recorded in the file, and whether it holds tables grundy does not write.
    fn format(&mut self) -> Result<(Option<String>, bool), String> {
        self.with(|db| {
            let rtx = db.begin_read().map_err(|e| e.to_string())?;
            let ours = [META.name(), CATALOGUE.name(), BLOCKS.name()];
            let foreign = rtx
                .list_tables()
                .map_err(|e| e.to_string())?
                .any(|t| !ours.contains(&t.name()));
            let format = match rtx.open_table(META) {
                Ok(t) => t
                    .get("format")
                    .map_err(|e| e.to_string())?
                    .map(|v| v.value().to_string()),
                Err(redb::TableError::TableDoesNotExist(_)) => None,
                Err(e) => return Err(e.to_string()),
            };
            Ok((format, foreign))
        })
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            close(db, false);
        }
    }
}

/// Repairs the store at `path`: copies every entry whose record reads back and whose blocks
/// all decompress and match their checksums into a new file (records kept as they were: the
/// writer, the date), renames the old file to `PATH.damaged-YYYYMMDDTHHMMSS` (UTC; `-2`,
/// `-3`, ... appended if taken) and puts the new one in its place. The old file is only read,
/// never changed. A store of a newer format, or a redb file grundy did not write, is refused
/// and left alone. Run it while no other grundy uses the store.
pub fn repair(path: &Path, writer: &str) -> Result<RepairReport, StoreError> {
    let open_err = |message: String| StoreError::Open {
        path: path.to_path_buf(),
        message,
    };
    let base = Base::open(path).map_err(|e| open_err(e.to_string()))?;
    let cap = usize::try_from(base.len())
        .unwrap_or(usize::MAX)
        .saturating_add(16);
    let mut reader = Reader {
        base,
        db: None,
        failures: 0,
        cap,
    };
    let mut notes = Vec::new();
    match reader.format() {
        Ok((_, true)) => return Err(StoreError::NotAStore(path.to_path_buf())),
        Ok((Some(v), _)) => match v.parse::<u32>() {
            Ok(FORMAT) => {}
            Ok(found) if found > FORMAT => {
                return Err(StoreError::NewerFormat {
                    path: path.to_path_buf(),
                    found,
                    supported: FORMAT,
                })
            }
            _ => return Err(StoreError::NotAStore(path.to_path_buf())),
        },
        Ok((None, _)) => {}
        Err(e) => notes.push(format!("the store's format record could not be read ({e})")),
    }

    // Every key that can be found: the catalogue read from both ends, and the keys of the
    // blocks (whose records are then looked up one by one).
    let mut records = BTreeMap::new();
    let mut read_all = true;
    if let Err(e) = reader.scan_catalogue(false, &mut records) {
        read_all = false;
        if let Err(e2) = reader.scan_catalogue(true, &mut records) {
            notes.push(format!(
                "the catalogue could not be read through ({e}; backwards: {e2})"
            ));
        } else {
            notes.push(format!("a part of the catalogue could not be read ({e})"));
        }
    }
    let mut block_keys = BTreeSet::new();
    if let Err(e) = reader.scan_blocks(false, &mut block_keys) {
        let back = reader.scan_blocks(true, &mut block_keys);
        if !read_all {
            notes.push(match back {
                Ok(()) => format!("a part of the blocks could not be read ({e})"),
                Err(e2) => format!("the blocks could not be read through ({e}; backwards: {e2})"),
            });
        }
    }
    let mut lost = Vec::new();
    for key in block_keys {
        if records.contains_key(&key) {
            continue;
        }
        match reader.record(&key) {
            Ok(Some(r)) => {
                records.insert(key, r);
            }
            // Blocks without a record are what an entry's pruning leaves: nothing is lost.
            Ok(None) if read_all => {}
            Ok(None) => lost.push(LostEntry {
                key,
                reason: "its catalogue record is missing".into(),
            }),
            Err(e) => lost.push(LostEntry {
                key,
                reason: format!("its catalogue record cannot be read: {e}"),
            }),
        }
    }

    // The new file, beside the old one.
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store.redb".into());
    let fresh = dir.join(format!("{name}.repair-{}", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    let mut kept = Vec::new();
    {
        let store = Store::open(&fresh, writer)?;
        for (key, record) in &records {
            match reader.entry(key, record) {
                Ok((info, blocks)) => {
                    if let Err(e) = store.write_entry(&info, &blocks) {
                        drop(store);
                        let _ = std::fs::remove_file(&fresh);
                        return Err(e);
                    }
                    kept.push(key.clone());
                }
                Err(reason) => lost.push(LostEntry {
                    key: key.clone(),
                    reason,
                }),
            }
        }
    }
    drop(reader);
    lost.sort_by(|a, b| a.key.cmp(&b.key));

    let backup = backup_name(path);
    let moved = std::fs::rename(path, &backup)
        .map_err(|e| open_err(format!("cannot rename it to {}: {e}", backup.display())))
        .and_then(|()| {
            std::fs::rename(&fresh, path).map_err(|e| {
                open_err(format!(
                    "cannot put the repaired file {} in its place ({e}); the old file is {}",
                    fresh.display(),
                    backup.display()
                ))
            })
        });
    if let Err(e) = moved {
        if !path.exists() && backup.exists() {
            let _ = std::fs::rename(&backup, path);
        }
        let _ = std::fs::remove_file(&fresh);
        return Err(e);
    }
    Ok(RepairReport {
        path: path.to_path_buf(),
        backup,
        kept,
        lost,
        notes,
    })
}

/// `PATH.damaged-YYYYMMDDTHHMMSS` (UTC now), with `-2`, `-3`, ... if that is taken.
fn backup_name(path: &Path) -> PathBuf {
    let stamp = utc_stamp(crate::now());
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".damaged-{stamp}"));
    let first = PathBuf::from(name);
    let mut candidate = first.clone();
    let mut n = 2;
    while candidate.exists() {
        let mut name = first.as_os_str().to_owned();
        name.push(format!("-{n}"));
        candidate = PathBuf::from(name);
        n += 1;
    }
    candidate
}

/// `YYYYMMDDTHHMMSS` of `secs` since the Unix epoch, UTC.
fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_are_utc_dates() {
        assert_eq!(super::utc_stamp(0), "19700101T000000");
        assert_eq!(super::utc_stamp(951_782_400 + 3_661), "20000229T010101");
        assert_eq!(super::utc_stamp(1_767_225_599), "20251231T235959");
    }
}
