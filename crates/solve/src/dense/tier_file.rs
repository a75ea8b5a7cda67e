//! Finished tiers of a dense solve kept in a folder, one file per tier, so that a stopped
//! solve resumes from them ([`TierDir`], a [`TierKeeper`]).
//!
//! A tier file `tier-NNN.grundy-tier` is a header and the tier's records as
//! [`DenseTable::tier_records`](super::DenseTable::tier_records) gives them (little-endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `GRUNDYDT` |
//! | 4 | format version (1) |
//! | 4 | length L of the key |
//! | L | the key: the solve's game, board, rule, convention and record, UTF-8 |
//! | 4 | the tier |
//! | 1 | the record: 0 outcome, 1 grundy, 2 remoteness; then 3 zero bytes |
//! | 8 | the number of states of the tier |
//! | 8 | the number of bytes of records that follow |
//! | 8 | their checksum ([`Checksum`] over 8-byte little-endian words, the last padded with zeros) |
//!
//! A tier is written to `tier-NNN.grundy-tier.tmp`, synced, then renamed over its name (and
//! the folder synced): a tier file under its name is always whole, and a stop while writing
//! leaves only a temporary file, removed by the next run. A file whose header, size or
//! checksum does not fit is damaged: its tier is solved again. A file of another solve (its
//! key differs) refuses the folder: a folder keeps the tiers of one solve.
//!
//! The workers of a split solve that all see the folder write a tier together: worker 0
//! lays out the temporary file ([`TierKeeper::begin_shares`]: the header, with the checksum
//! of its whole copy, and the full length), each worker writes its share at its place
//! ([`write_share`]), then worker 0 renames it ([`TierKeeper::end_shares`]): the same file,
//! byte for byte, as one process's [`TierKeeper::save`].
//!
//! While a run uses the folder it holds a [`TierLock`] on it (the file [`LOCK_FILE`]), so
//! that two runs never write the same folder.

use super::{DenseError, Record, TierKeeper, TierSlice, TierView};
use crate::seq::checkpoint::Checksum;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"GRUNDYDT";
/// Format version of tier files; files of another version are damaged (solved again).
pub const FORMAT_VERSION: u32 = 1;
const SUFFIX: &str = ".grundy-tier";
const TEMPORARY: &str = ".grundy-tier.tmp";
const MAX_KEY: u32 = 1 << 16;
/// Bytes of the header after the key.
const FIXED_AFTER_KEY: u64 = 32;

/// The tiers of one solve kept in a folder.
#[derive(Debug)]
pub struct TierDir {
    dir: PathBuf,
    key: String,
    record: Record,
}

/// A tier file's header.
#[derive(Debug)]
struct Header {
    key: String,
    tier: u32,
    record: u8,
    states: u64,
    payload: u64,
    checksum: u64,
    data_at: u64,
}

fn record_code(r: Record) -> u8 {
    match r {
        Record::Outcome => 0,
        Record::Grundy => 1,
        Record::Remoteness => 2,
    }
}

fn read_header(file: &mut File) -> Result<Header, String> {
    let mut fixed = [0u8; 16];
    file.read_exact(&mut fixed).map_err(|_| "shorter than a header")?;
    if &fixed[..8] != MAGIC {
        return Err("not a grundy tier file".into());
    }
    let version = u32::from_le_bytes(fixed[8..12].try_into().unwrap_or_default());
    if version != FORMAT_VERSION {
        return Err(format!("format version {version}, not {FORMAT_VERSION}"));
    }
    let len = u32::from_le_bytes(fixed[12..16].try_into().unwrap_or_default());
    if len > MAX_KEY {
        return Err("key too long".into());
    }
    let mut key = vec![0u8; len as usize];
    file.read_exact(&mut key).map_err(|_| "header cut short")?;
    let key = String::from_utf8(key).map_err(|_| "key not UTF-8")?;
    let mut rest = [0u8; FIXED_AFTER_KEY as usize];
    file.read_exact(&mut rest).map_err(|_| "header cut short")?;
    let u64_at = |i: usize| u64::from_le_bytes(rest[i..i + 8].try_into().unwrap_or_default());
    Ok(Header {
        key,
        tier: u32::from_le_bytes(rest[0..4].try_into().unwrap_or_default()),
        record: rest[4],
        states: u64_at(8),
        payload: u64_at(16),
        checksum: u64_at(24),
        data_at: 16 + u64::from(len) + FIXED_AFTER_KEY,
    })
}

/// Adds `bytes` (a multiple of 8 unless it is the last part) to `sum`.
fn add_bytes(sum: &mut Checksum, bytes: &[u8]) {
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        sum.add(u64::from_le_bytes(w.try_into().unwrap_or_default()));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        sum.add(u64::from_le_bytes(last));
    }
}

impl TierDir {
    /// The folder `dir` for the tiers of the solve named `key` (its game, board, rule,
    /// convention and record), created when missing unless `must_exist`. Leftover temporary
    /// files (of a run stopped while writing) are removed. Refused with
    /// [`DenseError::Refused`]: a path that is not a folder, a missing folder when it must
    /// exist, a folder that cannot be created, a tier file of another solve in it.
    pub fn open(dir: &Path, key: &str, record: Record, must_exist: bool) -> Result<TierDir, DenseError> {
        let shown = dir.display();
        match std::fs::metadata(dir) {
            Ok(m) if !m.is_dir() => {
                return Err(DenseError::Refused(format!("{shown} is not a folder")));
            }
            Ok(_) => {}
            Err(_) if must_exist => {
                return Err(DenseError::Refused(format!("{shown}: no such folder")));
            }
            Err(_) => std::fs::create_dir_all(dir)
                .map_err(|e| DenseError::Refused(format!("cannot create the folder {shown}: {e}")))?,
        }
        let entries = std::fs::read_dir(dir)
            .map_err(|e| DenseError::Refused(format!("cannot read the folder {shown}: {e}")))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with("tier-") {
                continue;
            }
            let path = entry.path();
            if name.ends_with(TEMPORARY) {
                let _ = std::fs::remove_file(&path);
            } else if name.ends_with(SUFFIX) {
                let Ok(mut f) = File::open(&path) else { continue };
                if let Ok(h) = read_header(&mut f) {
                    if h.key != key {
                        return Err(foreign(&path, &h.key, key));
                    }
                }
            }
        }
        Ok(TierDir {
            dir: dir.to_path_buf(),
            key: key.to_string(),
            record,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The file of `tier`.
    pub fn tier_path(&self, tier: u32) -> PathBuf {
        self.dir.join(format!("tier-{tier:03}{SUFFIX}"))
    }

    /// The temporary file `tier` is written to before it is renamed to its name.
    fn temporary_path(dir: &Path, tier: u32) -> PathBuf {
        dir.join(format!("tier-{tier:03}{TEMPORARY}"))
    }

    /// The header of a file of `tier` (`states` states), its records' checksum last.
    fn header(&self, tier: u32, states: u64, checksum: u64) -> Vec<u8> {
        let mut header = Vec::with_capacity(64 + self.key.len());
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&(self.key.len() as u32).to_le_bytes());
        header.extend_from_slice(self.key.as_bytes());
        header.extend_from_slice(&tier.to_le_bytes());
        header.extend_from_slice(&[record_code(self.record), 0, 0, 0]);
        header.extend_from_slice(&states.to_le_bytes());
        header.extend_from_slice(&self.record.tier_bytes(states).to_le_bytes());
        header.extend_from_slice(&checksum.to_le_bytes());
        header
    }

    /// The header of `tier`'s file when it is a finished tier of this solve with `states`
    /// states (its size matching the header); `Err` with a foreign key.
    fn header_of(&self, tier: u32, states: u64) -> Result<Option<(File, Header)>, DenseError> {
        let path = self.tier_path(tier);
        let Ok(mut f) = File::open(&path) else {
            return Ok(None);
        };
        let Ok(h) = read_header(&mut f) else {
            return Ok(None);
        };
        if h.key != self.key {
            return Err(foreign(&path, &h.key, &self.key));
        }
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let fits = h.tier == tier
            && h.record == record_code(self.record)
            && h.states == states
            && h.payload == self.record.tier_bytes(states)
            && len == h.data_at.saturating_add(h.payload);
        Ok(fits.then_some((f, h)))
    }
}

fn foreign(path: &Path, theirs: &str, ours: &str) -> DenseError {
    DenseError::Refused(format!(
        "{} holds a tier of another solve ({theirs}), not of {ours}: give each solve a folder of its own",
        path.display()
    ))
}

impl TierKeeper for TierDir {
    fn finished(&mut self, tier: u32, states: u64) -> Result<bool, DenseError> {
        Ok(self.header_of(tier, states)?.is_some())
    }

    fn load(&mut self, tier: u32, states: u64, records: TierSlice<'_>) -> Result<bool, DenseError> {
        let Some((mut f, h)) = self.header_of(tier, states)? else {
            return Ok(false);
        };
        let mut sum = Checksum::default();
        let read = match records {
            TierSlice::Bits(w) => {
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(w);
                let ok = bytes.len() as u64 == h.payload && f.read_exact(bytes).is_ok();
                add_bytes(&mut sum, bytes);
                w.iter_mut().for_each(|x| *x = u64::from_le(*x));
                ok
            }
            TierSlice::Words(w) => {
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(w);
                let ok = bytes.len() as u64 == h.payload && f.read_exact(bytes).is_ok();
                add_bytes(&mut sum, bytes);
                w.iter_mut().for_each(|x| *x = u16::from_le(*x));
                ok
            }
        };
        Ok(read && sum.0 == h.checksum)
    }

    fn save(&mut self, tier: u32, states: u64, records: TierView<'_>) -> Result<(), DenseError> {
        let path = self.tier_path(tier);
        let tmp = Self::temporary_path(&self.dir, tier);
        let fail = |e: std::io::Error| {
            DenseError::TierIo(format!("could not keep tier {tier} in {}: {e}", path.display()))
        };
        let payload = self.record.tier_bytes(states);
        let bytes = match records {
            TierView::Bits(w) => w.len() as u64 * 8,
            TierView::Words(w) => w.len() as u64 * 2,
        };
        if bytes != payload {
            return Err(DenseError::BadRecords {
                tier,
                what: format!("{bytes} bytes for {states} states, expected {payload}"),
            });
        }
        let header = self.header(tier, states, 0);
        let checksum_at = header.len() as u64 - 8;
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(fail)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&header).map_err(fail)?;
        let mut sum = Checksum::default();
        let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
        let mut flush = |buf: &mut Vec<u8>, out: &mut BufWriter<File>| {
            add_bytes(&mut sum, buf);
            let r = out.write_all(buf);
            buf.clear();
            r
        };
        match records {
            TierView::Bits(w) => {
                for chunk in w.chunks(1 << 17) {
                    chunk.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
                    flush(&mut buf, &mut out).map_err(fail)?;
                }
            }
            TierView::Words(w) => {
                for chunk in w.chunks(1 << 19) {
                    chunk.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
                    flush(&mut buf, &mut out).map_err(fail)?;
                }
            }
        }
        let mut file = out.into_inner().map_err(|e| fail(e.into_error()))?;
        file.seek(SeekFrom::Start(checksum_at)).map_err(fail)?;
        file.write_all(&sum.0.to_le_bytes()).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        drop(file);
        std::fs::rename(&tmp, &path).map_err(fail)?;
        // The rename itself made durable (where folders can be synced).
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn begin_shares(
        &mut self,
        tier: u32,
        states: u64,
        records: TierView<'_>,
    ) -> Result<Option<u64>, DenseError> {
        let tmp = Self::temporary_path(&self.dir, tier);
        let fail = |e: std::io::Error| {
            DenseError::TierIo(format!("could not lay out tier {tier} in {}: {e}", tmp.display()))
        };
        let payload = self.record.tier_bytes(states);
        if view_bytes(records) != payload {
            return Err(DenseError::BadRecords {
                tier,
                what: format!(
                    "{} bytes for {states} states, expected {payload}",
                    view_bytes(records)
                ),
            });
        }
        let header = self.header(tier, states, checksum_of(records));
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(fail)?;
        file.write_all(&header).map_err(fail)?;
        let at = header.len() as u64;
        file.set_len(at + payload).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        Ok(Some(at))
    }

    fn end_shares(&mut self, tier: u32, states: u64) -> Result<(), DenseError> {
        let path = self.tier_path(tier);
        let tmp = Self::temporary_path(&self.dir, tier);
        let fail = |e: std::io::Error| {
            DenseError::TierIo(format!("could not keep tier {tier} in {}: {e}", path.display()))
        };
        let file = OpenOptions::new().write(true).open(&tmp).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        drop(file);
        // The file as laid out (a rank's share written past its end would show here).
        let mut f = File::open(&tmp).map_err(fail)?;
        let whole = read_header(&mut f).is_ok_and(|h| {
            h.tier == tier
                && h.states == states
                && f.metadata().is_ok_and(|m| m.len() == h.data_at + h.payload)
        });
        if !whole {
            return Err(DenseError::TierIo(format!(
                "tier {tier}'s file {} is not as laid out after the ranks wrote their shares",
                tmp.display()
            )));
        }
        std::fs::rename(&tmp, &path).map_err(fail)?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Bytes of records in `records`.
fn view_bytes(records: TierView<'_>) -> u64 {
    match records {
        TierView::Bits(w) => w.len() as u64 * 8,
        TierView::Words(w) => w.len() as u64 * 2,
    }
}

/// The checksum of a tier file's records: that of their little-endian bytes, as 8-byte words.
fn checksum_of(records: TierView<'_>) -> u64 {
    let mut sum = Checksum::default();
    match records {
        TierView::Bits(w) => w.iter().for_each(|&x| sum.add(x)),
        TierView::Words(w) => {
            for four in w.chunks(4) {
                let word = four
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (i, &r)| acc | (u64::from(r) << (16 * i)));
                sum.add(word);
            }
        }
    }
    sum.0
}

/// Writes elements `a..b` of each of `pieces` of the finished `tier` (`records`, the whole
/// tier) into its file in `dir`, laid out by worker 0 ([`TierKeeper::begin_shares`]; the
/// records start at byte `at`), and syncs them: one worker's share of a tier that every
/// worker writes. The file must be there (it is never created here).
pub fn write_share(
    dir: &Path,
    tier: u32,
    at: u64,
    records: TierView<'_>,
    pieces: &[(usize, usize)],
) -> Result<(), DenseError> {
    let tmp = TierDir::temporary_path(dir, tier);
    let fail = |e: std::io::Error| {
        DenseError::TierIo(format!(
            "could not write a share of tier {tier} to {}: {e}",
            tmp.display()
        ))
    };
    let mut file = OpenOptions::new().write(true).open(&tmp).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let size = match records {
        TierView::Bits(_) => 8,
        TierView::Words(_) => 2,
    };
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    for &(a, b) in pieces {
        let (a, b) = (a.min(records.len()), b.min(records.len()));
        let mut from = a;
        while from < b {
            let to = (from + (1 << 20) / size).min(b);
            buf.clear();
            match records {
                TierView::Bits(w) => w[from..to]
                    .iter()
                    .for_each(|x| buf.extend_from_slice(&x.to_le_bytes())),
                TierView::Words(w) => w[from..to]
                    .iter()
                    .for_each(|x| buf.extend_from_slice(&x.to_le_bytes())),
            }
            let offset = at + (from * size) as u64;
            if offset + buf.len() as u64 > len {
                return Err(DenseError::TierIo(format!(
                    "tier {tier}'s file {} is shorter than its records: another run rewrote it?",
                    tmp.display()
                )));
            }
            file.seek(SeekFrom::Start(offset)).map_err(fail)?;
            file.write_all(&buf).map_err(fail)?;
            from = to;
        }
    }
    file.sync_data().map_err(fail)?;
    Ok(())
}

/// The token of the lock held on `dir` ([`TierLock::token`]) as this worker reads it: equal
/// to worker 0's when both see the same folder.
pub fn lock_token(dir: &Path) -> Option<u64> {
    std::fs::read(dir.join(LOCK_FILE)).ok().map(|b| token_of(&b))
}

fn token_of(bytes: &[u8]) -> u64 {
    let mut sum = Checksum::default();
    add_bytes(&mut sum, bytes);
    sum.add(bytes.len() as u64);
    sum.0
}

/// The name of the lock file in a folder of tiers ([`TierLock`]).
pub const LOCK_FILE: &str = "grundy-dense.lock";

/// Who holds a [`TierLock`]: the lock file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockOwner {
    /// The process id.
    pub pid: u32,
    /// The host it runs on (`/proc/sys/kernel/hostname`; empty when unknown).
    pub host: String,
    /// When the process started (clock ticks after boot, `/proc/PID/stat`), so a reused pid
    /// is not taken for the run that wrote the lock; `None` when unknown.
    pub started: Option<u64>,
}

impl LockOwner {
    /// This process.
    fn me() -> LockOwner {
        let pid = std::process::id();
        LockOwner {
            pid,
            host: this_host(),
            started: start_time(pid),
        }
    }

    fn text(&self) -> String {
        let mut s = format!("grundy dense solve\npid {}\nhost {}\n", self.pid, self.host);
        if let Some(t) = self.started {
            s.push_str(&format!("started {t}\n"));
        }
        s
    }

    fn parse(text: &str) -> Option<LockOwner> {
        let mut lines = text.lines();
        if lines.next()? != "grundy dense solve" {
            return None;
        }
        let (mut pid, mut host, mut started) = (None, None, None);
        for l in lines {
            match l.split_once(' ') {
                Some(("pid", v)) => pid = v.parse().ok(),
                Some(("host", v)) => host = Some(v.to_string()),
                Some(("started", v)) => started = v.parse().ok(),
                _ if l == "host" => host = Some(String::new()),
                _ => return None,
            }
        }
        Some(LockOwner {
            pid: pid?,
            host: host?,
            started,
        })
    }

    /// Whether the process may still run: on another host (or where processes cannot be
    /// looked up) it is taken to run; on this host, when its pid runs and started when the
    /// lock says.
    fn may_run(&self) -> bool {
        if self.host != this_host() || self.host.is_empty() || !Path::new("/proc/self").exists() {
            return true;
        }
        if !Path::new(&format!("/proc/{}", self.pid)).exists() || ended(self.pid) {
            return false;
        }
        match (self.started, start_time(self.pid)) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }
}

impl std::fmt::Display for LockOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let host = if self.host.is_empty() {
            "an unknown host"
        } else {
            &self.host
        };
        write!(f, "pid {} on {host}", self.pid)
    }
}

/// This host's name (empty when it cannot be read).
fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// Whether process `pid` has ended and awaits only its parent's reaping (a zombie).
fn ended(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|st| st == "Z" || st == "X")
        })
        .unwrap_or(false)
}

/// When process `pid` started (field 22 of `/proc/PID/stat`, after the command in
/// parentheses, which may hold spaces).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// The guard that keeps two runs from sharing a folder of tiers: the file
/// [`LOCK_FILE`] in it, holding the pid and host of the run that uses the folder, created
/// whole or not at all (written aside, then hard-linked to its name, which fails when the
/// name exists), and removed when the lock is dropped. A lock left by a run that was killed
/// (its pid no longer runs on this host, or runs another program started since) is taken
/// over; a live one, or one of another host (whose processes cannot be seen), refuses.
#[derive(Debug)]
pub struct TierLock {
    path: PathBuf,
    text: String,
    taken_over: Option<LockOwner>,
}

impl TierLock {
    /// Locks the folder `dir`, created when missing unless `must_exist`. Refused with
    /// [`DenseError::Refused`], naming the folder and the run holding it: a lock of a run
    /// that may still run; also a path that is not a folder, a missing folder when it must
    /// exist, a folder where the lock cannot be written, a lock file grundy did not write.
    pub fn acquire(dir: &Path, must_exist: bool) -> Result<TierLock, DenseError> {
        let shown = dir.display();
        match std::fs::metadata(dir) {
            Ok(m) if !m.is_dir() => return Err(DenseError::Refused(format!("{shown} is not a folder"))),
            Ok(_) => {}
            Err(_) if must_exist => return Err(DenseError::Refused(format!("{shown}: no such folder"))),
            Err(_) => std::fs::create_dir_all(dir)
                .map_err(|e| DenseError::Refused(format!("cannot create the folder {shown}: {e}")))?,
        }
        let path = dir.join(LOCK_FILE);
        let me = LockOwner::me();
        let text = me.text();
        let cannot = |e: std::io::Error| {
            DenseError::Refused(format!(
                "cannot lock the folder {shown} ({}): {e}",
                path.display()
            ))
        };
        let mut taken_over = None;
        // A few tries: a stale lock is moved aside, then ours created.
        for _ in 0..4 {
            match create_whole(dir, &path, &text, me.pid) {
                Ok(()) => {
                    return Ok(TierLock {
                        path,
                        text,
                        taken_over,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(cannot(e)),
            }
            let theirs = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(cannot(e)),
            };
            let Some(owner) = LockOwner::parse(&theirs) else {
                return Err(DenseError::Refused(format!(
                    "the folder {shown} has a lock file {} that grundy did not write: remove it if no run uses the folder",
                    path.display()
                )));
            };
            if owner.may_run() {
                return Err(DenseError::Refused(in_use(dir, &path, &owner)));
            }
            // Stale: moved aside under a name of our own (only one run can move it), then
            // checked to be the lock just read (not one a run created meanwhile).
            let aside = dir.join(format!("{LOCK_FILE}.stale.{}", me.pid));
            match std::fs::rename(&path, &aside) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(cannot(e)),
            }
            if std::fs::read_to_string(&aside).is_ok_and(|t| t == theirs) {
                let _ = std::fs::remove_file(&aside);
                taken_over = Some(owner);
            } else {
                // Another run's fresh lock: put back (unless a third made one meanwhile).
                let _ = std::fs::hard_link(&aside, &path);
                let _ = std::fs::remove_file(&aside);
            }
        }
        Err(DenseError::Refused(format!(
            "the folder {shown} is being locked by other runs at the same time ({})",
            path.display()
        )))
    }

    /// The run whose stale lock this one replaced (killed without removing it).
    pub fn taken_over(&self) -> Option<&LockOwner> {
        self.taken_over.as_ref()
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A number naming this lock (a checksum of its contents: this run's pid, host and start
    /// time): a worker that reads the same from [`lock_token`] sees the same folder.
    pub fn token(&self) -> u64 {
        token_of(self.text.as_bytes())
    }
}

impl TierLock {
    /// Removes the folder this lock holds: its tier files (finished and temporary), then the
    /// lock, then the folder itself (left in place when it holds files grundy did not write).
    /// For a solve whose answer is kept elsewhere (the store), or a pending solve pruned.
    pub fn remove_folder(self) -> Result<(), String> {
        let dir = self.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let shown = dir.display().to_string();
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read the folder {shown}: {e}"))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("tier-") && (name.ends_with(SUFFIX) || name.ends_with(TEMPORARY)) {
                std::fs::remove_file(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            }
        }
        drop(self);
        // (Fails, harmlessly, when other files are left, or a run locked it meanwhile.)
        let _ = std::fs::remove_dir(&dir);
        Ok(())
    }
}

/// What a folder of tiers holds, for a listing ([`summary`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FolderSummary {
    /// The key of the solve (from the header of a tier file), when one is there.
    pub key: Option<String>,
    /// Finished tier files (under their names, whole or not).
    pub tiers: usize,
    /// Bytes of every file in the folder.
    pub bytes: u64,
    /// The run holding the folder's lock, when it may still run ([`TierLock`]).
    pub holder: Option<LockOwner>,
    /// When a file of the folder was last written (seconds since 1970; 0 when unknown).
    pub modified: u64,
}

/// What the folder of tiers `dir` holds: the solve's key, its finished tiers, its bytes, the
/// run holding it. `None` when `dir` is not a readable folder.
pub fn summary(dir: &Path) -> Option<FolderSummary> {
    let mut s = FolderSummary::default();
    let since = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    };
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        s.bytes += meta.len();
        s.modified = s.modified.max(meta.modified().map(since).unwrap_or(0));
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("tier-") && name.ends_with(SUFFIX) {
            s.tiers += 1;
            if s.key.is_none() {
                s.key = File::open(entry.path())
                    .ok()
                    .and_then(|mut f| read_header(&mut f).ok())
                    .map(|h| h.key);
            }
        }
    }
    s.holder = std::fs::read_to_string(dir.join(LOCK_FILE))
        .ok()
        .and_then(|t| LockOwner::parse(&t))
        .filter(LockOwner::may_run);
    Some(s)
}

impl Drop for TierLock {
    fn drop(&mut self) {
        // Only our own lock (never one another run took over meanwhile).
        if std::fs::read_to_string(&self.path).is_ok_and(|t| t == self.text) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn in_use(dir: &Path, path: &Path, owner: &LockOwner) -> String {
    let here = owner.host == this_host() && !owner.host.is_empty();
    format!(
        "the folder {} is in use by another grundy run ({owner}, lock file {}); two runs must not share a folder of tiers: wait for that run to end, or give this solve another folder{}",
        dir.display(),
        path.display(),
        if here {
            String::new()
        } else {
            " (grundy cannot see the processes of another host: if that run is over, remove the lock file)".to_string()
        }
    )
}

/// Creates `path` holding `text`, whole or not at all: written to a file of its own, then
/// hard-linked to `path` (which fails when `path` exists). Where hard links are not
/// supported, `path` is created with `create_new` and written.
fn create_whole(dir: &Path, path: &Path, text: &str, pid: u32) -> std::io::Result<()> {
    let tmp = dir.join(format!("{LOCK_FILE}.{pid}.tmp"));
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()
    })();
    let linked = written.and_then(|()| std::fs::hard_link(&tmp, path));
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            let mut f = OpenOptions::new().write(true).create_new(true).open(path)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()
        }
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_text(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap()
    }

    #[test]
    fn a_folder_is_locked_by_one_run_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tiers");
        let lock = TierLock::acquire(&dir, false).unwrap();
        assert!(lock.taken_over().is_none());
        let owner = LockOwner::parse(&lock_text(&dir)).unwrap();
        assert_eq!(owner, LockOwner::me());
        // A second run (here: the same live process) is refused, naming the folder and us.
        let again = TierLock::acquire(&dir, true);
        let Err(DenseError::Refused(m)) = again else {
            panic!("{again:?}")
        };
        assert!(m.contains(&dir.display().to_string()), "{m}");
        assert!(m.contains(&format!("pid {}", std::process::id())), "{m}");
        assert!(m.contains("in use by another grundy run"), "{m}");
        drop(lock);
        assert!(!dir.join(LOCK_FILE).exists(), "removed at the end");
        let relocked = TierLock::acquire(&dir, true).unwrap();
        assert!(relocked.taken_over().is_none());
        // Nothing left beside the lock (no temporary or moved-aside files).
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(LOCK_FILE)]);
    }

    #[test]
    fn shares_written_by_each_worker_make_the_file_one_process_saves() {
        let words: Vec<u16> = (0..1001u32).map(|i| (i * 7919 % 65_521) as u16).collect();
        let bits: Vec<u64> = (0..77u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (record, states, view) in [
            (Record::Grundy, 1001u64, TierView::Words(&words)),
            (Record::Outcome, 77 * 32 - 5, TierView::Bits(&bits)),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            let (one, many) = (tmp.path().join("one"), tmp.path().join("many"));
            let mut a = TierDir::open(&one, "k", record, false).unwrap();
            a.save(7, states, view).unwrap();
            let mut b = TierDir::open(&many, "k", record, false).unwrap();
            let at = b.begin_shares(7, states, view).unwrap().unwrap();
            assert!(!b.finished(7, states).unwrap(), "not finished before the shares");
            // Three workers' pieces, in any order, some of several ranges.
            let n = view.len();
            let cut = [0, n / 5, n / 2, 2 * n / 3, n];
            for pieces in [
                vec![(cut[3], cut[4]), (cut[0], cut[1])],
                vec![(cut[1], cut[2])],
                vec![(cut[2], cut[3])],
            ] {
                write_share(&many, 7, at, view, &pieces).unwrap();
            }
            b.end_shares(7, states).unwrap();
            let name = "tier-007.grundy-tier";
            assert_eq!(
                std::fs::read(one.join(name)).unwrap(),
                std::fs::read(many.join(name)).unwrap(),
                "{record:?}"
            );
            assert!(b.finished(7, states).unwrap());
            // Not laid out: refused, nothing created.
            assert!(write_share(&many, 8, at, view, &[(0, 1)]).is_err());
            assert!(b.end_shares(8, states).is_err());
            assert!(!many.join("tier-008.grundy-tier.tmp").exists());
        }
    }

    #[test]
    fn a_stale_lock_is_taken_over_and_foreign_ones_refuse() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let me = LockOwner::me();
        // A pid that cannot run (above any pid_max), on this host: stale, taken over.
        let dead = LockOwner {
            pid: 999_999_999,
            host: me.host.clone(),
            started: Some(1),
        };
        std::fs::write(dir.join(LOCK_FILE), dead.text()).unwrap();
        let lock = TierLock::acquire(dir, true).unwrap();
        assert_eq!(lock.taken_over(), Some(&dead));
        assert_eq!(LockOwner::parse(&lock_text(dir)), Some(me.clone()));
        drop(lock);
        // Our own pid, but a start time that is not ours: a reused pid, stale too.
        if me.started.is_some() {
            let reused = LockOwner {
                started: me.started.map(|t| t + 1),
                ..me.clone()
            };
            std::fs::write(dir.join(LOCK_FILE), reused.text()).unwrap();
            let lock = TierLock::acquire(dir, true).unwrap();
            assert_eq!(lock.taken_over(), Some(&reused));
        }
        // Another host: cannot be seen, refused with a hint; the lock is left alone.
        let far = LockOwner {
            pid: 1,
            host: format!("{}-elsewhere", me.host),
            started: None,
        };
        std::fs::write(dir.join(LOCK_FILE), far.text()).unwrap();
        let Err(DenseError::Refused(m)) = TierLock::acquire(dir, true) else {
            panic!("another host's lock taken")
        };
        assert!(
            m.contains("elsewhere") && m.contains("remove the lock file"),
            "{m}"
        );
        assert_eq!(lock_text(dir), far.text());
        // A file grundy did not write is refused, not removed.
        std::fs::write(dir.join(LOCK_FILE), "hello").unwrap();
        let Err(DenseError::Refused(m)) = TierLock::acquire(dir, true) else {
            panic!("a foreign lock file taken")
        };
        assert!(m.contains("did not write"), "{m}");
        assert_eq!(lock_text(dir), "hello");
        // Bad folders.
        assert!(TierLock::acquire(&dir.join("none"), true).is_err());
        assert!(TierLock::acquire(&dir.join(LOCK_FILE), false).is_err());
    }
}
