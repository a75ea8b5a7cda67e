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
        let tmp = self.dir.join(format!("tier-{tier:03}{TEMPORARY}"));
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
        let mut header = Vec::with_capacity(64 + self.key.len());
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&(self.key.len() as u32).to_le_bytes());
        header.extend_from_slice(self.key.as_bytes());
        header.extend_from_slice(&tier.to_le_bytes());
        header.extend_from_slice(&[record_code(self.record), 0, 0, 0]);
        header.extend_from_slice(&states.to_le_bytes());
        header.extend_from_slice(&payload.to_le_bytes());
        let checksum_at = header.len() as u64;
        header.extend_from_slice(&0u64.to_le_bytes());
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
}
