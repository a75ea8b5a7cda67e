//! Checkpoint files of Grundy sequences: a header (game, format version, width, count,
//! checksum) and the values G(0), G(1), ... as little-endian cells. New values are appended
//! and the header's count and checksum rewritten after them, so a run killed at any moment
//! leaves a file that resumes from its last save. Anything unexpected — another game,
//! another format, fewer bytes than the header claims, a wrong checksum — is refused.

use super::{SeqEngine, SeqError, StoreOptions};
use grundy_core::HeapRules;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"GRUNDYSQ";
/// Format version written in every checkpoint; files of another version are refused.
pub const FORMAT_VERSION: u32 = 1;
const COUNT_AT: u64 = 16;
const FIXED_HEADER: usize = 36;
const MAX_NAME: usize = 1 << 16;

/// The running checksum of a sequence: one multiply per value (independent of the width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum(pub u64);

impl Default for Checksum {
    fn default() -> Self {
        Checksum(0xcbf2_9ce4_8422_2325)
    }
}

impl Checksum {
    /// Adds the next value.
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
    }
}

/// What is at a path a checkpoint is about to be written to ([`target`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing: the checkpoint is a new file.
    Missing,
    /// A grundy sequence checkpoint (of any game, any format version): it may be replaced.
    Checkpoint,
    /// A regular file that is not a grundy checkpoint: replaced only when the user insists.
    OtherFile,
    /// A folder: never written over.
    Folder,
    /// Something else that is not a regular file (a device such as `/dev/null`, a pipe, a
    /// socket): never written over.
    Special,
}

impl Target {
    /// Why a checkpoint may not be written over this, in words (`None` when it may be;
    /// `force`: the user allows replacing a regular file that is not a checkpoint).
    pub fn refusal(self, force: bool) -> Option<&'static str> {
        match self {
            Target::Missing | Target::Checkpoint => None,
            Target::OtherFile if force => None,
            Target::OtherFile => {
                Some("it is an existing file that is not a grundy checkpoint (--force replaces it)")
            }
            Target::Folder => Some("it is a folder"),
            Target::Special => Some("it is not a regular file (a device, a pipe or a socket)"),
        }
    }
}

/// What is at `path` (following symbolic links): nothing, a checkpoint (its first bytes are
/// the checkpoint magic `GRUNDYSQ`), another regular file, a folder or something special.
/// A file that cannot be read counts as another file.
pub fn target(path: &Path) -> Target {
    target_of(path, MAGIC)
}

/// What is at `path`, for checkpoints whose first bytes are `magic` (the sequence's
/// `GRUNDYSQ` or the search's `GRUNDYSR`): as [`target`].
pub fn target_of(path: &Path, magic: &[u8; 8]) -> Target {
    let Ok(meta) = std::fs::metadata(path) else {
        // A dangling link is written through, as a missing file would be.
        return Target::Missing;
    };
    if meta.is_dir() {
        return Target::Folder;
    }
    if !meta.is_file() {
        return Target::Special;
    }
    let mut first = [0u8; 8];
    match File::open(path).and_then(|mut f| f.read_exact(&mut first)) {
        Ok(()) if &first == magic => Target::Checkpoint,
        _ => Target::OtherFile,
    }
}

/// The temporary file a checkpoint of `path` is written to before it is renamed over `path`.
pub fn temporary(path: &Path) -> PathBuf {
    path.with_extension("tmp-grundy")
}

/// A checkpoint file being written.
pub struct CheckpointWriter {
    path: PathBuf,
    file: File,
    data_at: u64,
    width: usize,
    count: u64,
    sum: Checksum,
}

fn err(path: &Path, reason: impl Into<String>) -> SeqError {
    SeqError::Checkpoint {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn header(game: &str, width: usize, count: u64, sum: Checksum) -> Vec<u8> {
    let mut h = Vec::with_capacity(FIXED_HEADER + game.len());
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&(width as u32).to_le_bytes());
    h.extend_from_slice(&count.to_le_bytes());
    h.extend_from_slice(&sum.0.to_le_bytes());
    h.extend_from_slice(&(game.len() as u32).to_le_bytes());
    h.extend_from_slice(game.as_bytes());
    h
}

impl CheckpointWriter {
    /// Writes a fresh checkpoint of `engine`'s values so far (atomically: a temporary file
    /// renamed over `path`).
    pub fn create(path: &Path, game: &str, engine: &SeqEngine) -> Result<Self, SeqError> {
        let io = |e: std::io::Error| err(path, e.to_string());
        let width = engine.width();
        let tmp = temporary(path);
        // The temporary name is grundy's own, but a folder or a device there is not.
        if let Some(why) = target(&tmp).refusal(true) {
            return Err(err(
                path,
                format!("cannot use {} as its temporary file: {why}", tmp.display()),
            ));
        }
        let mut sum = Checksum::default();
        {
            let mut f = std::io::BufWriter::new(File::create(&tmp).map_err(io)?);
            f.write_all(&header(game, width, 0, sum)).map_err(io)?;
            let step = 1 << 20;
            let mut i = 0;
            while i < engine.len() {
                let j = (i + step).min(engine.len());
                for k in i..j {
                    sum.add(engine.get(k));
                }
                f.write_all(&engine.bytes(i, j)).map_err(io)?;
                i = j;
            }
            f.flush().map_err(io)?;
            let mut f = f.into_inner().map_err(|e| io(e.into_error()))?;
            f.seek(SeekFrom::Start(0)).map_err(io)?;
            f.write_all(&header(game, width, engine.len(), sum)).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, path).map_err(io)?;
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        Ok(CheckpointWriter {
            path: path.to_path_buf(),
            file,
            data_at: (FIXED_HEADER + game.len()) as u64,
            width,
            count: engine.len(),
            sum,
        })
    }

    /// Continues the checkpoint `resume` just read (appending after its saved values; any
    /// bytes past them, left by a run killed mid-save, are dropped).
    pub fn reopen(path: &Path, saved: &Saved) -> Result<Self, SeqError> {
        let io = |e: std::io::Error| err(path, e.to_string());
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len(saved.data_at + saved.count * saved.width as u64)
            .map_err(io)?;
        Ok(CheckpointWriter {
            path: path.to_path_buf(),
            file,
            data_at: saved.data_at,
            width: saved.width,
            count: saved.count,
            sum: saved.sum,
        })
    }

    /// Number of values saved.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Saves the values `engine` computed since the last save. Returns false when the
    /// width changed (the caller then creates a new checkpoint).
    pub fn save(&mut self, engine: &SeqEngine) -> Result<bool, SeqError> {
        if engine.width() != self.width {
            return Ok(false);
        }
        let io = |e: std::io::Error| err(&self.path, e.to_string());
        let (from, to) = (self.count, engine.len());
        if to <= from {
            return Ok(true);
        }
        let mut sum = self.sum;
        for k in from..to {
            sum.add(engine.get(k));
        }
        self.file
            .seek(SeekFrom::Start(self.data_at + from * self.width as u64))
            .map_err(io)?;
        self.file.write_all(&engine.bytes(from, to)).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        // Only now does the header claim the new values.
        let mut h = Vec::with_capacity(16);
        h.extend_from_slice(&to.to_le_bytes());
        h.extend_from_slice(&sum.0.to_le_bytes());
        self.file.seek(SeekFrom::Start(COUNT_AT)).map_err(io)?;
        self.file.write_all(&h).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.count = to;
        self.sum = sum;
        Ok(true)
    }
}

/// Where a checkpoint that was read stands (for [`CheckpointWriter::reopen`]).
#[derive(Clone, Copy, Debug)]
pub struct Saved {
    data_at: u64,
    width: usize,
    count: u64,
    sum: Checksum,
}

/// Reads the checkpoint at `path` for the game named `game` into an engine of at least
/// `capacity` values (all saved values are kept).
pub fn resume(
    path: &Path,
    game: &str,
    rules: &HeapRules,
    capacity: u64,
    store: StoreOptions,
) -> Result<SeqEngine, SeqError> {
    resume_saved(path, game, rules, capacity, store).map(|(e, _)| e)
}

/// Like [`resume`], also telling where the file stands, to continue it.
pub fn resume_saved(
    path: &Path,
    game: &str,
    rules: &HeapRules,
    capacity: u64,
    store: StoreOptions,
) -> Result<(SeqEngine, Saved), SeqError> {
    let io = |e: std::io::Error| err(path, e.to_string());
    let f = File::open(path).map_err(io)?;
    let file_len = f.metadata().map_err(io)?.len();
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut fixed = [0u8; FIXED_HEADER];
    r.read_exact(&mut fixed)
        .map_err(|_| err(path, "truncated: too short for a grundy checkpoint"))?;
    if &fixed[..8] != MAGIC {
        return Err(err(path, "not a grundy sequence checkpoint"));
    }
    let u32_at = |i: usize| u32::from_le_bytes(fixed[i..i + 4].try_into().unwrap_or([0; 4]));
    let u64_at = |i: usize| u64::from_le_bytes(fixed[i..i + 8].try_into().unwrap_or([0; 8]));
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(err(
            path,
            format!("written in checkpoint format {version}, this grundy reads format {FORMAT_VERSION}"),
        ));
    }
    let width = u32_at(12) as usize;
    if width != 2 && width != 4 {
        return Err(err(path, format!("corrupt: value width {width}")));
    }
    let count = u64_at(16);
    let want = Checksum(u64_at(24));
    let name_len = u32_at(32) as usize;
    if name_len > MAX_NAME {
        return Err(err(path, "corrupt: game name too long"));
    }
    let mut name = vec![0u8; name_len];
    r.read_exact(&mut name)
        .map_err(|_| err(path, "truncated: header cut short"))?;
    let name = String::from_utf8(name).map_err(|_| err(path, "corrupt: game name"))?;
    if name != game {
        return Err(err(
            path,
            format!("it is a checkpoint of game {name}, not of {game}"),
        ));
    }
    let data_at = (FIXED_HEADER + name_len) as u64;
    let needed = count
        .checked_mul(width as u64)
        .and_then(|b| b.checked_add(data_at));
    match needed {
        Some(n) if n <= file_len => {}
        _ => {
            return Err(err(
                path,
                format!("truncated: the header claims {count} values, the file holds fewer"),
            ))
        }
    }
    // Read and checksum every saved value; refuse the file if the sum differs, or if a value
    // is more than its heap's options allow (G(n) ≤ the number of options of n, at most
    // (n + 1)^parts: a remove and a split into at most `parts` heaps), which a checkpoint
    // with a valid checksum but values no game has would otherwise turn into tables of GBs.
    let parts = rules.max_parts();
    let mut impossible: Option<(u64, u64)> = None;
    let mut sum = Checksum::default();
    let mut failure: Option<std::io::Error> = None;
    let mut read = 0u64;
    let mut buf = [0u8; 4];
    let reader = std::iter::from_fn(|| {
        if read >= count || failure.is_some() || impossible.is_some() {
            return None;
        }
        match r.read_exact(&mut buf[..width]) {
            Ok(()) => {
                read += 1;
                let v = if width == 2 {
                    u16::from_le_bytes([buf[0], buf[1]]) as u64
                } else {
                    u32::from_le_bytes(buf) as u64
                };
                let n = read - 1;
                if v > (n + 1).saturating_pow(parts) - 1 {
                    impossible = Some((n, v));
                    return None;
                }
                sum.add(v);
                Some(v)
            }
            Err(e) => {
                failure = Some(e);
                None
            }
        }
    });
    let capacity = capacity.max(count);
    let engine = SeqEngine::resume(rules, capacity, store, reader, width)?;
    if let Some(e) = failure {
        return Err(io(e));
    }
    if let Some((n, v)) = impossible {
        return Err(err(
            path,
            format!("corrupt: G({n}) = {v}, more than a heap of {n} has options"),
        ));
    }
    if read != count {
        return Err(err(path, "truncated: values missing"));
    }
    if sum != want {
        return Err(err(path, "corrupt: the values do not match the checksum"));
    }
    Ok((
        engine,
        Saved {
            data_at,
            width,
            count,
            sum,
        },
    ))
}
