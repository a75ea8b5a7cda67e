//! Checkpoints of a long pruned-search analysis ([`crate::search::analyze_normal_resumable`]):
//! the moves of the position settled so far and what the search's compact table knows, so
//! that a run stopped at any moment (kill -9, a limit, the memory budget) resumes with the
//! same answer and little of its work lost.
//!
//! A file is a fixed header — the magic `GRUNDYSR`, the format version, flags, the length
//! of the body and its checksum — and the body: the game and position it belongs to, the
//! work done (search nodes, seconds), the size of the table, the settled moves, then the
//! table's (code, word) pairs. It is written whole to a temporary file that is then renamed
//! over the checkpoint, so the previous checkpoint stays until the new one is complete.
//! Anything unexpected — another magic or version, fewer bytes than the header says, a
//! wrong checksum — is refused: a damaged table would make the search answer wrongly.

use crate::search::NimberSearch;
use crate::seq::checkpoint::Target;
use crate::SolveError;
use grundy_core::Ruleset;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"GRUNDYSR";
/// Format version written in every checkpoint; files of another version are refused.
pub const FORMAT_VERSION: u32 = 1;
/// Magic, version, flags, body length, checksum.
const HEADER: usize = 8 + 4 + 4 + 8 + 8;
/// Longest game or position text a checkpoint holds.
const MAX_TEXT: usize = 1 << 20;

/// What a checkpoint saves of a search: its work and its table's (code, word) pairs. A
/// [`NimberSearch`] is one; the analysis on several threads saves the table they share
/// ([`crate::search_parallel`]).
pub trait TableSource {
    /// Search nodes of this run so far.
    fn nodes(&self) -> u64;
    /// Bytes of the table.
    fn table_bytes(&self) -> usize;
    /// How many pairs [`TableSource::saved_entries`] gives.
    fn saved_len(&self) -> usize;
    /// Calls `f` with every (code, word) pair (at most [`TableSource::saved_len`]).
    fn saved_entries(&self, f: &mut dyn FnMut(u64, u64));
}

impl<R: Ruleset> TableSource for NimberSearch<'_, R> {
    fn nodes(&self) -> u64 {
        self.stats().nodes
    }
    fn table_bytes(&self) -> usize {
        NimberSearch::table_bytes(self)
    }
    fn saved_len(&self) -> usize {
        NimberSearch::saved_len(self)
    }
    fn saved_entries(&self, f: &mut dyn FnMut(u64, u64)) {
        NimberSearch::saved_entries(self, f)
    }
}

/// What a checkpoint belongs to: a resumed run must ask the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The game: its family's name and the options that shape it.
    pub game: String,
    /// The position, as the game writes it.
    pub position: String,
    /// Whether every move is valued exactly (`--all-moves`) or only its outcome.
    pub values_of_moves: bool,
}

/// One move of the position, settled (in the order the game lists its moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    /// Its exact value, when the analysis values moves.
    pub grundy: Option<u64>,
    /// Whether the position after it is lost for the player to move (a winning move).
    pub lost: bool,
}

/// A checkpoint read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Saved {
    /// What it belongs to.
    pub identity: Identity,
    /// Search nodes of the runs before.
    pub nodes: u64,
    /// Seconds of the runs before.
    pub seconds: f64,
    /// Bytes of the search's compact table when it was saved.
    pub table_bytes: u64,
    /// The moves settled.
    pub settled: Vec<Settled>,
    /// The table's (code, word) pairs ([`NimberSearch::saved_entries`]).
    pub entries: Vec<(u64, u64)>,
}

impl Saved {
    /// Refuses a checkpoint that settles more moves than the position has (`moves`): it
    /// belongs to another position.
    pub fn check_moves(&self, moves: usize) -> Result<(), SolveError> {
        if self.settled.len() > moves {
            return Err(SolveError::Checkpoint(format!(
                "settles {} moves, the position has {moves}",
                self.settled.len()
            )));
        }
        Ok(())
    }
}

fn err(path: &Path, reason: impl std::fmt::Display) -> SolveError {
    SolveError::Checkpoint(format!("{}: {reason}", path.display()))
}

/// The running checksum of a body (FNV-style, eight bytes at a time).
#[derive(Clone, Copy)]
struct Sum(u64);

impl Sum {
    fn new() -> Sum {
        Sum(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("eight bytes")));
        }
        for &b in chunks.remainder() {
            self.word(b as u64 | 0x100);
        }
    }
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
}

/// A writer that checksums and counts what goes through it.
struct Summed<W> {
    inner: W,
    sum: Sum,
    len: u64,
}

impl<W: Write> Summed<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum.add(bytes);
        self.len += bytes.len() as u64;
        self.inner.write_all(bytes)
    }
    fn u64(&mut self, v: u64) -> std::io::Result<()> {
        self.put(&v.to_le_bytes())
    }
    fn text(&mut self, t: &str) -> std::io::Result<()> {
        self.u64(t.len() as u64)?;
        self.put(t.as_bytes())
    }
}

/// What is at `path`: nothing, a search checkpoint (its first bytes are `GRUNDYSR`), another
/// regular file, a folder or something special (as for sequence checkpoints).
pub fn target(path: &Path) -> Target {
    crate::seq::checkpoint::target_of(path, MAGIC)
}

/// The temporary file a checkpoint of `path` is written to before it is renamed over `path`.
pub fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp-grundy");
    path.with_file_name(name)
}

/// Writes a checkpoint of `search` and the moves `settled` to `path`, atomically (a
/// temporary file, synced, renamed over `path`). `nodes` and `seconds`: the work of the
/// runs before this one, added to this one's.
pub fn write<S: TableSource + ?Sized>(
    path: &Path,
    identity: &Identity,
    settled: &[Settled],
    search: &S,
    nodes: u64,
    seconds: f64,
) -> Result<(), SolveError> {
    let tmp = temporary(path);
    if let Some(why) = target(&tmp).refusal(true) {
        return Err(err(
            path,
            format!("cannot use {} as its temporary file: {why}", tmp.display()),
        ));
    }
    let io = |e: std::io::Error| err(path, e);
    let file = File::create(&tmp).map_err(io)?;
    let mut w = Summed {
        inner: BufWriter::with_capacity(1 << 20, file),
        sum: Sum::new(),
        len: 0,
    };
    w.inner.write_all(&[0; HEADER]).map_err(io)?;
    write_body(&mut w, identity, settled, search, nodes, seconds).map_err(io)?;
    let (sum, len) = (w.sum.0, w.len);
    let mut file = w.inner.into_inner().map_err(|e| io(e.into_error()))?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut head = Vec::with_capacity(HEADER);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    head.extend_from_slice(&(identity.values_of_moves as u32).to_le_bytes());
    head.extend_from_slice(&len.to_le_bytes());
    head.extend_from_slice(&sum.to_le_bytes());
    file.write_all(&head).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(())
}

/// The body of a checkpoint, through `w`.
fn write_body<W: Write, S: TableSource + ?Sized>(
    w: &mut Summed<W>,
    identity: &Identity,
    settled: &[Settled],
    search: &S,
    nodes: u64,
    seconds: f64,
) -> std::io::Result<()> {
    w.text(&identity.game)?;
    w.text(&identity.position)?;
    w.u64(nodes + search.nodes())?;
    w.u64(seconds.to_bits())?;
    w.u64(search.table_bytes() as u64)?;
    w.u64(settled.len() as u64)?;
    for s in settled {
        w.u64(s.lost as u64)?;
        w.u64(s.grundy.unwrap_or(u64::MAX))?;
    }
    w.u64(search.saved_len() as u64)?;
    let mut out = Ok(());
    let mut written = 0u64;
    search.saved_entries(&mut |code, word| {
        if out.is_ok() && written < search.saved_len() as u64 {
            written += 1;
            let mut pair = [0u8; 16];
            pair[..8].copy_from_slice(&code.to_le_bytes());
            pair[8..].copy_from_slice(&word.to_le_bytes());
            out = w.put(&pair);
        }
    });
    out
}

/// A reader of a body that checks its length as it goes.
struct Body<R> {
    inner: R,
    left: u64,
    sum: Sum,
}

impl<R: Read> Body<R> {
    fn bytes(&mut self, n: usize) -> Result<Vec<u8>, String> {
        if (n as u64) > self.left {
            return Err("it is cut short (fewer bytes than its header says)".into());
        }
        let mut b = vec![0; n];
        self.inner
            .read_exact(&mut b)
            .map_err(|_| "it is cut short (fewer bytes than its header says)".to_string())?;
        self.left -= n as u64;
        self.sum.add(&b);
        Ok(b)
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.bytes(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("eight bytes")))
    }
    fn text(&mut self, what: &str) -> Result<String, String> {
        let n = self.u64()?;
        if n > MAX_TEXT as u64 || n > self.left {
            return Err(format!("its {what} is {n} bytes long, more than the file holds"));
        }
        String::from_utf8(self.bytes(n as usize)?).map_err(|_| format!("its {what} is not UTF-8"))
    }
    /// A count of items of `size` bytes each, checked against what is left.
    fn count(&mut self, size: u64, what: &str) -> Result<usize, String> {
        let n = self.u64()?;
        if n.saturating_mul(size) > self.left {
            return Err(format!("it claims {n} {what}, more than the file holds"));
        }
        Ok(n as usize)
    }
}

/// The body of a checkpoint whose header had `flags`.
fn read_body<R: Read>(b: &mut Body<R>, flags: u32) -> Result<Saved, String> {
    let game = b.text("game")?;
    let position = b.text("position")?;
    let nodes = b.u64()?;
    let seconds = f64::from_bits(b.u64()?);
    let table_bytes = b.u64()?;
    let n = b.count(16, "settled moves")?;
    let mut settled = Vec::with_capacity(n);
    for _ in 0..n {
        let lost = match b.u64()? {
            0 => false,
            1 => true,
            x => return Err(format!("a settled move has the outcome {x}")),
        };
        let g = b.u64()?;
        settled.push(Settled {
            grundy: (g != u64::MAX).then_some(g),
            lost,
        });
    }
    let n = b.count(16, "table entries")?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        entries.push((b.u64()?, b.u64()?));
    }
    if b.left != 0 {
        return Err(format!("{} bytes past its body", b.left));
    }
    Ok(Saved {
        identity: Identity {
            game,
            position,
            values_of_moves: flags & 1 == 1,
        },
        nodes,
        seconds: if seconds.is_finite() && seconds >= 0.0 {
            seconds
        } else {
            0.0
        },
        table_bytes,
        settled,
        entries,
    })
}

/// Reads the checkpoint at `path`, checking its header and checksum (not what it belongs
/// to: the caller compares [`Saved::identity`] with its own).
pub fn read(path: &Path) -> Result<Saved, SolveError> {
    let file = File::open(path).map_err(|e| err(path, e))?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; HEADER];
    r.read_exact(&mut head)
        .map_err(|_| err(path, "not a grundy search checkpoint (too short)"))?;
    if &head[..8] != MAGIC {
        return Err(err(
            path,
            "not a grundy search checkpoint (no GRUNDYSR at its start)",
        ));
    }
    let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("eight bytes"));
    let version = u32::from_le_bytes(head[8..12].try_into().expect("four bytes"));
    if version != FORMAT_VERSION {
        return Err(err(
            path,
            format!("checkpoint format version {version}, this grundy reads version {FORMAT_VERSION}"),
        ));
    }
    let flags = u32::from_le_bytes(head[12..16].try_into().expect("four bytes"));
    if flags > 1 {
        return Err(err(path, format!("unknown flags {flags:#x} in the header")));
    }
    let (len, sum) = (word(16), word(24));
    let mut b = Body {
        inner: r,
        left: len,
        sum: Sum::new(),
    };
    let saved = read_body(&mut b, flags).map_err(|why| err(path, format!("damaged checkpoint: {why}")))?;
    let mut extra = [0u8; 1];
    if b.inner.read(&mut extra).map_err(|e| err(path, e))? != 0 {
        return Err(err(path, "damaged checkpoint: longer than its header says"));
    }
    if b.sum.0 != sum {
        return Err(err(path, "damaged checkpoint: wrong checksum"));
    }
    Ok(saved)
}

/// When a running analysis saves: after every settled move and every so often in between,
/// the pause between two saves at least ten times what the last save took (so saving
/// costs at most a tenth of the run) and at least [`Saver::min_gap`].
pub struct Saver {
    /// Where to save.
    pub path: PathBuf,
    /// What the run is.
    pub identity: Identity,
    /// Nodes of the runs before this one.
    pub nodes_before: u64,
    /// Seconds of the runs before this one.
    pub seconds_before: f64,
    /// Shortest pause between two saves within a move.
    pub min_gap: Duration,
    started: Instant,
    last: Instant,
    cost: Duration,
    /// Saves written.
    pub saves: u64,
}

impl Saver {
    /// A saver to `path` for a run of `identity`, continuing `resumed` if given.
    pub fn new(path: PathBuf, identity: Identity, resumed: Option<&Saved>) -> Saver {
        let now = Instant::now();
        Saver {
            path,
            identity,
            nodes_before: resumed.map_or(0, |s| s.nodes),
            seconds_before: resumed.map_or(0.0, |s| s.seconds),
            min_gap: Duration::from_secs(1),
            started: now,
            last: now,
            cost: Duration::ZERO,
            saves: 0,
        }
    }

    /// Whether a save within a move is due.
    pub fn due(&self) -> bool {
        self.last.elapsed() >= self.min_gap.max(self.cost * 10)
    }

    /// Saves now.
    pub fn save<S: TableSource + ?Sized>(
        &mut self,
        settled: &[Settled],
        search: &S,
    ) -> Result<(), SolveError> {
        let t = Instant::now();
        let seconds = self.seconds_before + self.started.elapsed().as_secs_f64();
        write(
            &self.path,
            &self.identity,
            settled,
            search,
            self.nodes_before,
            seconds,
        )?;
        self.cost = t.elapsed();
        self.last = Instant::now();
        self.saves += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rules::CodedSplits;

    #[test]
    fn round_trip_and_damage_refused() {
        let dir = std::env::temp_dir().join(format!("grundy-sr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.ckpt");
        let mut s = NimberSearch::new(&CodedSplits);
        let want = s.grundy(&40).unwrap();
        let id = Identity {
            game: "splits".into(),
            position: "40".into(),
            values_of_moves: true,
        };
        let settled = [
            Settled {
                grundy: Some(3),
                lost: false,
            },
            Settled {
                grundy: None,
                lost: true,
            },
        ];
        write(&path, &id, &settled, &s, 5, 1.5).unwrap();
        assert_eq!(target(&path), Target::Checkpoint);
        assert!(!temporary(&path).exists());
        let back = read(&path).unwrap();
        assert_eq!(back.identity, id);
        assert_eq!(back.settled, settled);
        assert_eq!(back.seconds, 1.5);
        assert_eq!(back.entries.len(), s.saved_len());
        // Loaded into a fresh search, the table answers at once, with no search.
        let mut t = NimberSearch::new(&CodedSplits);
        t.load_entries(&back.entries, back.table_bytes as usize);
        assert_eq!(t.grundy(&40).unwrap(), want);
        assert_eq!(t.stats().nodes, 0);
        // Every byte flipped, and every cut, is refused.
        let bytes = std::fs::read(&path).unwrap();
        for i in (0..bytes.len()).step_by(7) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            assert!(read(&path).is_err(), "byte {i}");
        }
        for cut in [0, 10, HEADER, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(read(&path).is_err(), "cut at {cut}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
