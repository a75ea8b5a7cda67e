//! The persistent store of grundy: results computed once are kept and answered again at once.
//! One redb file holds a catalogue (one JSON record per entry: what it is, who wrote it, a
//! checksum) and the entries' payloads as zstd-compressed blocks (dense arrays of values for
//! tables and sequences, serialised analyses for positions), written in one transaction each.
//!
//! Crash safety comes from redb's commits (copy-on-write pages, checksummed commit slots,
//! fsync on commit): a process killed during a write leaves the last committed state, which
//! the next open repairs to. Every block also carries its own checksum in the catalogue, so a
//! damaged payload is detected (`verify`) rather than misread. A file written in a newer
//! format is refused with [`StoreError::NewerFormat`]; entries written by another version of
//! grundy are kept but not trusted for answers ([`EntryInfo::writer`], `prune --stale`).
//!
//! Damage from outside (a flipped bit on disk, a file edited by hand) can make redb panic on
//! the pages it reads rather than return an error: every call into redb runs behind a panic
//! boundary, and such a panic (or redb's own report of corruption) comes back as
//! [`StoreError::Damaged`], after which the handle refuses further work. [`check_integrity`]
//! runs redb's integrity check without changing the file, and [`repair`] copies every entry
//! that still reads back sound into a new file, keeping the damaged one beside it.

mod guard;
mod overlay;
mod repair;

pub use repair::{check_integrity, repair, Integrity, LostEntry, RepairReport};

use redb::{
    Builder, ConcurrencyMode, Database, DatabaseError, ReadableDatabase, ReadableTable, TableDefinition,
    TableHandle,
};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The store's format: bumped when the layout of the file changes.
pub const FORMAT: u32 = 1;

/// Values per block of a dense array (and bytes per block of other payloads / 8).
pub const BLOCK_VALUES: usize = 1 << 16;
const BLOCK_BYTES: usize = BLOCK_VALUES * 8;

const META: TableDefinition<&str, &str> = TableDefinition::new("grundy_meta");
const CATALOGUE: TableDefinition<&str, &[u8]> = TableDefinition::new("grundy_catalogue");
const BLOCKS: TableDefinition<(&str, u32), &[u8]> = TableDefinition::new("grundy_blocks");

/// The value stored for "no value" in a dense array of Grundy values.
pub const NONE: u64 = u64::MAX;

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file could not be opened or created.
    #[error("cannot open the store {path}: {message}")]
    Open {
        /// The store's path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The path is not a regular file (a folder, a device, a pipe, a socket): never opened.
    #[error("cannot use {path} as the store: it is {what}, not a store file (give --db a file)")]
    NotAFile {
        /// The store's path.
        path: PathBuf,
        /// What is there: `a folder`, or `not a regular file (...)`.
        what: &'static str,
    },
    /// The file is a database, but not one grundy wrote.
    #[error("{0} is not a grundy store (use another --db, or remove the file)")]
    NotAStore(PathBuf),
    /// The store was written by a newer grundy, in a format this one does not know.
    #[error("the store {path} has format {found}, newer than the {supported} this grundy reads; it is left untouched (use a newer grundy, or another --db)")]
    NewerFormat {
        /// The store's path.
        path: PathBuf,
        /// Format found in the file.
        found: u32,
        /// Format this version reads and writes.
        supported: u32,
    },
    /// A read or write failed.
    #[error("store: {0}")]
    Db(String),
    /// The file is damaged: redb reported corruption, or failed (panicked) on a page it read.
    /// The handle that met it does no further work; `grundy db repair` keeps what can still
    /// be read.
    #[error("the store {path} is damaged ({message}); `grundy db repair` keeps what can still be read")]
    Damaged {
        /// The store's path.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// An entry's payload does not match its catalogue record.
    #[error("store entry '{key}' is damaged: {what}")]
    Corrupt {
        /// The entry.
        key: String,
        /// What does not match.
        what: String,
    },
}

/// A redb error: corruption is [`StoreError::Damaged`] (its path filled in at the boundary,
/// [`Store::run`]), anything else [`StoreError::Db`].
pub(crate) fn db_err(e: impl Into<redb::Error>) -> StoreError {
    match e.into() {
        redb::Error::Corrupted(message) => StoreError::Damaged {
            path: PathBuf::new(),
            message: format!("corrupted: {message}"),
        },
        e => StoreError::Db(e.to_string()),
    }
}

/// Another failure (compression, encoding) as [`StoreError::Db`].
fn other_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Db(e.to_string())
}

/// Runs `f` behind the panic boundary: a panic is damage of the store at `path`, and a
/// [`StoreError::Damaged`] from inside gets `path`.
fn at_boundary<T>(path: &Path, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    let damaged = |message: String| StoreError::Damaged {
        path: path.to_path_buf(),
        message,
    };
    match guard::guarded(f) {
        Ok(Err(StoreError::Damaged { message, .. })) => Err(damaged(message)),
        Ok(r) => r,
        Err(panic) => Err(damaged(format!("redb failed on a damaged page: {panic}"))),
    }
}

/// The catalogue record of one entry.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct EntryInfo {
    /// The entry's key (unique).
    pub key: String,
    /// What it holds: `analysis` (one position), `table` (a dense array of u64), `seq` (a
    /// Grundy sequence), `dense` (the tiers of a dense solve); the layouts of the last two
    /// are grundy-cli's (`entries.rs`).
    pub kind: String,
    /// The family it belongs to.
    pub family: String,
    /// A line for `grundy db list`.
    pub summary: String,
    /// The grundy version (and engine epoch) that computed it.
    pub writer: String,
    /// When it was written (seconds since the Unix epoch).
    pub created: u64,
    /// Payload size in bytes, uncompressed.
    pub bytes: u64,
    /// Payload size as stored (compressed).
    pub stored: u64,
    /// Number of blocks.
    pub blocks: u32,
    /// Checksum (FNV-1a, 64 bits) of each block, uncompressed.
    pub checksums: Vec<u64>,
}

/// What `put` needs besides the payload.
#[derive(Clone, Debug)]
pub struct NewEntry<'a> {
    /// The entry's key.
    pub key: &'a str,
    /// What it holds.
    pub kind: &'a str,
    /// The family it belongs to.
    pub family: &'a str,
    /// A line for `grundy db list`.
    pub summary: &'a str,
}

/// The outcome of [`Store::verify`].
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Entries checked.
    pub entries: usize,
    /// Blocks checked.
    pub blocks: usize,
    /// Blocks not referenced by any entry.
    pub orphan_blocks: usize,
    /// What is wrong, one line each (empty when the store is sound).
    pub problems: Vec<String>,
}

/// FNV-1a, 64 bits: a stable checksum of a block.
pub fn checksum(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Where the store lives unless told otherwise: `$XDG_DATA_HOME/grundy/store.redb`, else
/// `~/.local/share/grundy/store.redb` (`%APPDATA%\grundy` on Windows,
/// `~/Library/Application Support/grundy` on macOS). `None` when no home is known.
pub fn default_path() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = if cfg!(windows) {
        env("APPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Application Support"))
    } else {
        env("XDG_DATA_HOME").or_else(|| env("HOME").map(|h| h.join(".local").join("share")))
    }?;
    Some(base.join("grundy").join("store.redb"))
}

pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// An open store.
#[derive(Debug)]
pub struct Store {
    /// Always `Some` until dropped.
    db: Option<Database>,
    path: PathBuf,
    writer: String,
    /// Set once damage was met: redb's state may be inconsistent after a panic, so the handle
    /// does no further work.
    broken: AtomicBool,
}

impl Drop for Store {
    fn drop(&mut self) {
        let Some(db) = self.db.take() else { return };
        if self.broken.load(Ordering::Relaxed) {
            // After a panic inside redb, closing could panic or wait on a lock that is never
            // released: leave the handle to the end of the process.
            std::mem::forget(db);
        } else {
            let _ = guard::guarded(move || drop(db));
        }
    }
}

impl Store {
    /// Opens the store at `path`, creating it (and its folder) if needed. `writer` names the
    /// program version recorded with every entry written. Several processes may have one
    /// store open at once; writes are serialised.
    pub fn open(path: &Path, writer: &str) -> Result<Store, StoreError> {
        let open_err = |message: String| StoreError::Open {
            path: path.to_path_buf(),
            message,
        };
        Store::check_path(path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| open_err(format!("cannot create {}: {e}", dir.display())))?;
        }
        at_boundary(path, || Store::open_inner(path, writer))
    }

    /// Refuses a path that exists and is not a regular file: a store is a regular file, and
    /// a folder, a device, a pipe or a socket is never opened (nor written to). A regular
    /// file that is not a store is refused by redb unread.
    pub fn check_path(path: &Path) -> Result<(), StoreError> {
        if let Ok(meta) = std::fs::metadata(path) {
            let what = if meta.is_dir() {
                "a folder"
            } else if !meta.is_file() {
                "not a regular file (a device, a pipe or a socket)"
            } else {
                ""
            };
            if !what.is_empty() {
                return Err(StoreError::NotAFile {
                    path: path.to_path_buf(),
                    what,
                });
            }
        }
        Ok(())
    }

    fn open_inner(path: &Path, writer: &str) -> Result<Store, StoreError> {
        let open_err = |message: String| StoreError::Open {
            path: path.to_path_buf(),
            message,
        };
        let mut tries = 0;
        let db = loop {
            let mut b = Builder::new();
            b.set_cache_size(32 << 20);
            if cfg!(any(target_os = "linux", target_os = "macos", windows)) {
                b.set_concurrency_mode(ConcurrencyMode::MultiWriter);
            }
            match b.create(path) {
                Ok(db) => break db,
                // Another process is opening or repairing it: wait a little.
                Err(DatabaseError::DatabaseAlreadyOpen) if tries < 20 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => {
                    return Err(match db_err(e) {
                        StoreError::Db(message) => open_err(message),
                        damaged => damaged,
                    })
                }
            }
        };
        Store::ready(db, path, writer)
    }

    /// Opens the store at `path` as a snapshot that never changes the file (nor creates
    /// anything): reads come from the file, and whatever redb or the caller writes (a recovery
    /// after a crash, a new entry) stays in memory and is gone when the handle is dropped.
    /// For checking a store (`grundy db verify`); the snapshot does not take part in redb's
    /// locking between processes, so a process writing meanwhile may show as damage.
    pub fn open_snapshot(path: &Path, writer: &str) -> Result<Store, StoreError> {
        Store::check_path(path)?;
        at_boundary(path, || {
            let open_err = |message: String| StoreError::Open {
                path: path.to_path_buf(),
                message,
            };
            let base = overlay::Base::open(path).map_err(|e| open_err(e.to_string()))?;
            let mut b = Builder::new();
            b.set_cache_size(32 << 20);
            let db = match b.create_with_backend(overlay::Overlay::new(base)) {
                Ok(db) => db,
                Err(e) => {
                    return Err(match db_err(e) {
                        StoreError::Db(message) => open_err(message),
                        damaged => damaged,
                    })
                }
            };
            Store::ready(db, path, writer)
        })
    }

    /// The handle of an open database, its format checked.
    fn ready(db: Database, path: &Path, writer: &str) -> Result<Store, StoreError> {
        let store = Store {
            db: Some(db),
            path: path.to_path_buf(),
            writer: writer.to_string(),
            broken: AtomicBool::new(false),
        };
        store.run(|db| store.check_format(db))?;
        Ok(store)
    }

    /// Runs `f` on the database behind the panic boundary. Damage (a panic inside redb, or
    /// corruption it reports) marks the handle broken: every later call fails at once with
    /// [`StoreError::Damaged`].
    fn run<T>(&self, f: impl FnOnce(&Database) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let damaged = |message: &str| StoreError::Damaged {
            path: self.path.clone(),
            message: message.to_string(),
        };
        if self.broken.load(Ordering::Relaxed) {
            return Err(damaged("an earlier read of it failed"));
        }
        let Some(db) = self.db.as_ref() else {
            return Err(damaged("closed"));
        };
        let r = at_boundary(&self.path, || f(db));
        if matches!(r, Err(StoreError::Damaged { .. })) {
            self.broken.store(true, Ordering::Relaxed);
        }
        r
    }

    /// True once this handle met damage (it then refuses further work).
    pub fn is_damaged(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    /// The version recorded with the entries this handle writes.
    pub fn writer(&self) -> &str {
        &self.writer
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the format (writing it into a new store).
    fn check_format(&self, db: &Database) -> Result<(), StoreError> {
        let found = {
            let rtx = db.begin_read().map_err(db_err)?;
            let ours = [META.name(), CATALOGUE.name(), BLOCKS.name()];
            let foreign = rtx
                .list_tables()
                .map_err(db_err)?
                .any(|t| !ours.contains(&t.name()));
            if foreign {
                return Err(StoreError::NotAStore(self.path.clone()));
            }
            match rtx.open_table(META) {
                Ok(t) => t.get("format").map_err(db_err)?.map(|v| v.value().to_string()),
                Err(redb::TableError::TableDoesNotExist(_)) => None,
                Err(e) => return Err(db_err(e)),
            }
        };
        match found {
            None => {
                let wtx = db.begin_write().map_err(db_err)?;
                {
                    let mut meta = wtx.open_table(META).map_err(db_err)?;
                    // Another process may have initialised it meanwhile: keep its record.
                    if meta.get("format").map_err(db_err)?.is_none() {
                        meta.insert("format", FORMAT.to_string().as_str())
                            .map_err(db_err)?;
                        meta.insert("created_by", self.writer.as_str()).map_err(db_err)?;
                    }
                    wtx.open_table(CATALOGUE).map_err(db_err)?;
                    wtx.open_table(BLOCKS).map_err(db_err)?;
                }
                wtx.commit().map_err(db_err)?;
                Ok(())
            }
            Some(v) => match v.parse::<u32>() {
                Ok(FORMAT) => Ok(()),
                Ok(found) if found > FORMAT => Err(StoreError::NewerFormat {
                    path: self.path.clone(),
                    found,
                    supported: FORMAT,
                }),
                _ => Err(StoreError::NotAStore(self.path.clone())),
            },
        }
    }

    /// Writes an entry (replacing one with the same key) in one transaction: its catalogue
    /// record and its payload in compressed blocks are committed together or not at all.
    pub fn put(&self, entry: &NewEntry<'_>, payload: &[u8]) -> Result<EntryInfo, StoreError> {
        let mut checksums = Vec::new();
        let mut blocks = Vec::new();
        for chunk in payload.chunks(BLOCK_BYTES) {
            checksums.push(checksum(chunk));
            blocks.push(zstd::bulk::compress(chunk, 3).map_err(other_err)?);
        }
        let info = EntryInfo {
            key: entry.key.to_string(),
            kind: entry.kind.to_string(),
            family: entry.family.to_string(),
            summary: entry.summary.to_string(),
            writer: self.writer.clone(),
            created: now(),
            bytes: payload.len() as u64,
            stored: blocks.iter().map(|b| b.len() as u64).sum(),
            blocks: blocks.len() as u32,
            checksums,
        };
        self.write_entry(&info, &blocks)?;
        Ok(info)
    }

    /// Writes the record `info` and its compressed `blocks` in one transaction (replacing an
    /// entry with the same key).
    pub(crate) fn write_entry(&self, info: &EntryInfo, blocks: &[Vec<u8>]) -> Result<(), StoreError> {
        let record = serde_json::to_vec(info).map_err(other_err)?;
        let key = info.key.as_str();
        self.run(|db| {
            let wtx = db.begin_write().map_err(db_err)?;
            {
                let mut cat = wtx.open_table(CATALOGUE).map_err(db_err)?;
                let mut tab = wtx.open_table(BLOCKS).map_err(db_err)?;
                let old = cat
                    .get(key)
                    .map_err(db_err)?
                    .and_then(|v| serde_json::from_slice::<EntryInfo>(v.value()).ok());
                if let Some(old) = old {
                    for i in info.blocks..old.blocks {
                        tab.remove((key, i)).map_err(db_err)?;
                    }
                }
                for (i, b) in blocks.iter().enumerate() {
                    tab.insert((key, i as u32), b.as_slice()).map_err(db_err)?;
                }
                cat.insert(key, record.as_slice()).map_err(db_err)?;
            }
            wtx.commit().map_err(db_err)
        })
    }

    /// The catalogue record of `key`.
    pub fn info(&self, key: &str) -> Result<Option<EntryInfo>, StoreError> {
        self.run(|db| {
            let rtx = db.begin_read().map_err(db_err)?;
            let cat = rtx.open_table(CATALOGUE).map_err(db_err)?;
            let Some(v) = cat.get(key).map_err(db_err)? else {
                return Ok(None);
            };
            catalogue_record(key, v.value()).map(Some)
        })
    }

    /// An entry and its payload, checked against its checksums; `None` when absent.
    pub fn get(&self, key: &str) -> Result<Option<(EntryInfo, Vec<u8>)>, StoreError> {
        self.run(|db| {
            let rtx = db.begin_read().map_err(db_err)?;
            let cat = rtx.open_table(CATALOGUE).map_err(db_err)?;
            let tab = rtx.open_table(BLOCKS).map_err(db_err)?;
            let Some(v) = cat.get(key).map_err(db_err)? else {
                return Ok(None);
            };
            let info = catalogue_record(key, v.value())?;
            let payload = read_payload(&info, |i| {
                Ok(tab.get((key, i)).map_err(db_err)?.map(|b| b.value().to_vec()))
            })?;
            Ok(Some((info, payload)))
        })
    }

    /// Every catalogue record, in key order.
    pub fn list(&self) -> Result<Vec<EntryInfo>, StoreError> {
        self.run(|db| {
            let rtx = db.begin_read().map_err(db_err)?;
            let cat = rtx.open_table(CATALOGUE).map_err(db_err)?;
            let mut out = Vec::new();
            for item in cat.iter().map_err(db_err)? {
                let (k, v) = item.map_err(db_err)?;
                out.push(catalogue_record(k.value(), v.value())?);
            }
            Ok(out)
        })
    }

    /// The catalogue records whose keys start with `prefix`, in key order.
    pub fn list_prefix(&self, prefix: &str) -> Result<Vec<EntryInfo>, StoreError> {
        self.run(|db| {
            let rtx = db.begin_read().map_err(db_err)?;
            let cat = rtx.open_table(CATALOGUE).map_err(db_err)?;
            let mut out = Vec::new();
            for item in cat.range(prefix..).map_err(db_err)? {
                let (k, v) = item.map_err(db_err)?;
                if !k.value().starts_with(prefix) {
                    break;
                }
                out.push(catalogue_record(k.value(), v.value())?);
            }
            Ok(out)
        })
    }

    /// Removes the entries `remove` picks, with their blocks, in one transaction
    /// (also blocks no entry refers to). Returns the number of entries removed.
    pub fn prune(&self, mut remove: impl FnMut(&EntryInfo) -> bool) -> Result<usize, StoreError> {
        self.run(|db| {
            let wtx = db.begin_write().map_err(db_err)?;
            let removed;
            {
                let mut cat = wtx.open_table(CATALOGUE).map_err(db_err)?;
                let mut tab = wtx.open_table(BLOCKS).map_err(db_err)?;
                let mut doomed: Vec<String> = Vec::new();
                let mut live: std::collections::HashMap<String, u32> = Default::default();
                for item in cat.iter().map_err(db_err)? {
                    let (k, v) = item.map_err(db_err)?;
                    match serde_json::from_slice::<EntryInfo>(v.value()) {
                        Ok(info) if !remove(&info) => {
                            live.insert(info.key.clone(), info.blocks);
                        }
                        // Unreadable records go too.
                        _ => doomed.push(k.value().to_string()),
                    }
                }
                for k in &doomed {
                    cat.remove(k.as_str()).map_err(db_err)?;
                }
                removed = doomed.len();
                let mut dead_blocks: Vec<(String, u32)> = Vec::new();
                for item in tab.iter().map_err(db_err)? {
                    let (k, _) = item.map_err(db_err)?;
                    let (key, i) = k.value();
                    if live.get(key).is_none_or(|&n| i >= n) {
                        dead_blocks.push((key.to_string(), i));
                    }
                }
                for (k, i) in &dead_blocks {
                    tab.remove((k.as_str(), *i)).map_err(db_err)?;
                }
            }
            wtx.commit().map_err(db_err)?;
            Ok(removed)
        })
    }

    /// Reads every entry back: records parse, every block is there, decompresses and matches
    /// its checksum; also counts blocks no entry refers to.
    pub fn verify(&self) -> Result<VerifyReport, StoreError> {
        self.run(|db| {
            let rtx = db.begin_read().map_err(db_err)?;
            let cat = rtx.open_table(CATALOGUE).map_err(db_err)?;
            let tab = rtx.open_table(BLOCKS).map_err(db_err)?;
            let mut report = VerifyReport::default();
            let mut live: std::collections::HashMap<String, u32> = Default::default();
            for item in cat.iter().map_err(db_err)? {
                let (k, v) = item.map_err(db_err)?;
                report.entries += 1;
                let key = k.value().to_string();
                let info: EntryInfo = match serde_json::from_slice(v.value()) {
                    Ok(i) => i,
                    Err(e) => {
                        report
                            .problems
                            .push(format!("{key}: unreadable catalogue record: {e}"));
                        continue;
                    }
                };
                if info.key != key {
                    report
                        .problems
                        .push(format!("{key}: record names another key '{}'", info.key));
                }
                live.insert(key.clone(), info.blocks);
                report.blocks += info.blocks as usize;
                let read = read_payload(&info, |i| {
                    Ok(tab
                        .get((key.as_str(), i))
                        .map_err(db_err)?
                        .map(|b| b.value().to_vec()))
                });
                if let Err(e) = read {
                    report.problems.push(e.to_string());
                }
            }
            for item in tab.iter().map_err(db_err)? {
                let (k, _) = item.map_err(db_err)?;
                let (key, i) = k.value();
                if live.get(key).is_none_or(|&n| i >= n) {
                    report.orphan_blocks += 1;
                }
            }
            Ok(report)
        })
    }

    /// Stores a dense array of values (Grundy values, with [`NONE`] for "no value") as
    /// little-endian u64 in compressed blocks.
    pub fn put_values(&self, entry: &NewEntry<'_>, values: &[u64]) -> Result<EntryInfo, StoreError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.put(entry, &bytes)
    }

    /// A dense array written by [`Store::put_values`].
    pub fn get_values(&self, key: &str) -> Result<Option<(EntryInfo, Vec<u64>)>, StoreError> {
        let Some((info, bytes)) = self.get(key)? else {
            return Ok(None);
        };
        if bytes.len() % 8 != 0 {
            return Err(StoreError::Corrupt {
                key: key.to_string(),
                what: format!("{} bytes is not a whole number of values", bytes.len()),
            });
        }
        let values = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
            .collect();
        Ok(Some((info, values)))
    }
}

/// Reads and checks an entry's blocks through `block(i)`.
pub(crate) fn read_payload(
    info: &EntryInfo,
    mut block: impl FnMut(u32) -> Result<Option<Vec<u8>>, StoreError>,
) -> Result<Vec<u8>, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt {
        key: info.key.clone(),
        what,
    };
    if info.checksums.len() != info.blocks as usize {
        return Err(corrupt("the record's checksums do not match its blocks".into()));
    }
    let mut payload = Vec::with_capacity(info.bytes.min(1 << 30) as usize);
    for i in 0..info.blocks {
        let Some(raw) = block(i)? else {
            return Err(corrupt(format!("block {i} is missing")));
        };
        let data =
            zstd::bulk::decompress(&raw, BLOCK_BYTES).map_err(|e| corrupt(format!("block {i}: {e}")))?;
        if checksum(&data) != info.checksums[i as usize] {
            return Err(corrupt(format!("block {i} does not match its checksum")));
        }
        payload.extend_from_slice(&data);
    }
    if payload.len() as u64 != info.bytes {
        return Err(corrupt(format!(
            "{} bytes read, {} recorded",
            payload.len(),
            info.bytes
        )));
    }
    Ok(payload)
}
/// A catalogue record read back; a record that does not decode is corruption at `key`.
fn catalogue_record(key: &str, bytes: &[u8]) -> Result<EntryInfo, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        key: key.to_string(),
        what: format!("unreadable catalogue record: {e}"),
    })
}
