//! Every key and layout of the persistent store, in one module: the analyses of single
//! positions (kind `analysis`), and the bulk results: Grundy sequences
//! of `grundy seq`/`grundy plot` (kind `seq`) and the whole tables of `grundy solve --dense`
//! (kind `dense`, with the dense answers as kind `analysis`). This module owns their keys and
//! binary layouts, reads them back (never trusting an entry of another version or a damaged
//! one) and checks them for `grundy db verify`.
//!
//! Keys and layouts (all integers little-endian):
//! - `seq/GAME` (GAME: the canonical name, `0.77`, `sub:1,3,4`): the magic `GSEQ`, a layout
//!   byte (1), the width in bytes of a value (2 or 4, as the sequence engine held them), two
//!   zero bytes, then G(0), G(1), ... At most [`SEQ_KEEP_MAX`] values are kept.
//! - `dense/FAMILY/GEOMETRY/RULE/CONVENTION/RECORD/START`: a u32 length, a JSON
//!   [`TableHeader`], then the records of each kept tier in increasing order of tier, as
//!   `grundy_solve::dense::DenseTable::tier_records` writes them. GEOMETRY is `ROWSxCOLS`
//!   for cram and the structural checksum of the graph (`Graph::id`) for the graph games; RULE is `-` for cram;
//!   START is the hexadecimal mask of the cells (vertices) present in the position the table
//!   was solved from: the table answers every position below it. Only tables whose records
//!   take at most [`DENSE_KEEP_MAX_BYTES`] are kept.
//! - `quotient/GAME`: the misère quotient of GAME kept by `grundy quotient` and misère solves
//!   (layout and checksum: `crate::quotient`, `grundy_solve::quotient::Quotient::to_bytes`).
//! - `dense-analysis/FAMILY/GEOMETRY/RULE/CONVENTION/RECORD/POSITION`: a [`DenseAnswer`] as
//!   JSON, for every dense solve whatever its size.
//!
//! Beside the store file `STORE`, the folder `STORE.dense-tiers/` holds the finished tiers of
//! the dense solves not finished yet (kind `pending`, not entries of the file: tiers of GiB):
//! one folder per solve, named by [`pending_name`] from the key of the table it builds, in
//! the layout of `grundy_solve::dense::tier_file`. A solve stopped resumes from it; once its
//! answer is in the store the folder is removed ([`pending_root`], [`list_pending`],
//! [`remove_pending`]).

use crate::solve::{SolveRequest, SolveResponse};
use grundy_core::Outcome;
use grundy_solve::dense::tier_file::{self, TierLock};
use grundy_solve::dense::{DenseTable, Record};
use grundy_solve::Convention;
use grundy_store::{EntryInfo, NewEntry, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bumped when an engine change could alter stored answers: entries written under another
/// epoch (or another grundy version) are not used for answers (`grundy db prune --stale`).
pub const ENGINE_EPOCH: u32 = 1;

/// Who writes entries: the grundy version and the engine epoch.
pub fn writer() -> String {
    format!("grundy {} engine {ENGINE_EPOCH}", env!("CARGO_PKG_VERSION"))
}

/// One move of a stored analysis.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredMove {
    /// The move, in the family's notation.
    pub mv: String,
    /// Grundy value after it.
    pub grundy: Option<u64>,
    /// Outcome after it (`first`/`second`).
    pub outcome: Outcome,
    /// Remoteness after it.
    pub remoteness: Option<u32>,
}

/// An analysis as `solve` prints it and the store keeps it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredAnalysis {
    /// Canonical family name.
    pub family: String,
    /// The position as the family writes it.
    pub position: String,
    /// `normal` or `misere`.
    pub convention: Convention,
    /// Grundy value.
    pub grundy: Option<u64>,
    /// `first` or `second`.
    pub outcome: Outcome,
    /// Remoteness, when computed.
    pub remoteness: Option<u32>,
    /// The winning moves.
    pub winning_moves: Vec<String>,
    /// Every move with its result.
    pub moves: Vec<StoredMove>,
}

impl From<SolveResponse> for StoredAnalysis {
    /// [`From<&SolveResponse>`], taking the texts rather than copying them.
    fn from(r: SolveResponse) -> Self {
        StoredAnalysis {
            family: r.family,
            position: r.position,
            convention: r.convention,
            grundy: r.grundy,
            outcome: r.outcome,
            remoteness: r.remoteness,
            winning_moves: r.winning_moves,
            moves: r
                .moves
                .into_iter()
                .map(|m| StoredMove {
                    mv: m.mv,
                    grundy: m.grundy,
                    outcome: m.outcome,
                    remoteness: m.remoteness,
                })
                .collect(),
        }
    }
}

impl From<&SolveResponse> for StoredAnalysis {
    fn from(r: &SolveResponse) -> Self {
        StoredAnalysis {
            family: r.family.clone(),
            position: r.position.clone(),
            convention: r.convention,
            grundy: r.grundy,
            outcome: r.outcome,
            remoteness: r.remoteness,
            winning_moves: r.winning_moves.clone(),
            moves: r
                .moves
                .iter()
                .map(|m| StoredMove {
                    mv: m.mv.clone(),
                    grundy: m.grundy,
                    outcome: m.outcome,
                    remoteness: m.remoteness,
                })
                .collect(),
        }
    }
}

/// The key of the answer to a request for one position: `analysis/FAMILY/CONVENTION/
/// REMOTENESS/BOARD/RULE/GRAPH-ID/POSITION`, with `/ENGINE` before the position when the
/// pruned search answered (`search`, or `search-all` when it valued every move). FAMILY is
/// the game's canonical name, POSITION as the family writes it, GRAPH-ID the family's
/// [`grundy_games::family::Family::position_id`] (`-` when empty): whichever front end
/// asks, one position has one key.
pub fn answer_key(
    family: &str,
    convention: Convention,
    req: &SolveRequest,
    position_id: &str,
    engine: Option<&str>,
    position: &str,
) -> String {
    let dash = |s: Option<&str>| s.filter(|s| !s.is_empty()).unwrap_or("-").to_string();
    let mut parts = vec![
        convention.as_str().to_string(),
        if req.remoteness { "remoteness" } else { "-" }.to_string(),
        dash(req.board.as_deref()),
        dash(req.rule.as_deref()),
        dash(Some(position_id)),
    ];
    parts.extend(engine.map(str::to_string));
    format!("analysis/{family}/{}/{position}", parts.join("/"))
}

/// The answer kept under `key` by this version, if any. A damaged entry is reported and
/// ignored (it will be rewritten).
pub fn load_analysis(store: &Store, key: &str) -> Option<SolveResponse> {
    let (_, bytes) = load(store, key)?;
    serde_json::from_slice(&bytes).ok()
}

/// Keeps an answer; a failure to write is reported, not fatal.
pub fn save_analysis(store: &Store, key: &str, a: &SolveResponse) {
    if store.is_damaged() {
        return; // already reported
    }
    let Ok(bytes) = serde_json::to_vec(a) else { return };
    let summary = format!(
        "{} {}{}: {}",
        a.family,
        a.position.chars().take(40).collect::<String>(),
        if a.convention == Convention::Misere {
            " (misère)"
        } else {
            ""
        },
        match a.grundy {
            Some(g) => format!("grundy {g}"),
            None => format!("{} player wins", a.outcome.as_str()),
        }
    );
    let entry = NewEntry {
        key,
        kind: KIND_ANALYSIS,
        family: &a.family,
        summary: &summary,
    };
    if let Err(e) = store.put(&entry, &bytes) {
        eprintln!("grundy: note: could not keep the result: {e}");
    }
}

/// The folder beside the store file `store_path` where unfinished dense solves keep their
/// finished tiers: `STORE.dense-tiers`.
pub fn pending_root(store_path: &Path) -> PathBuf {
    let mut name = store_path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".dense-tiers");
    store_path.with_file_name(name)
}

/// The name of the folder (in [`pending_root`]) of the tiers of the table `table_key`
/// ([`DenseSpace::table_key`]): a readable prefix of the key (its parts after `dense/`,
/// joined by `-`, only ASCII letters, digits, `_` and `-`, at most 80 characters), `-`, and
/// 16 hexadecimal digits of a hash of the whole key (FNV-1a), so that two keys never share a
/// folder even when their prefixes do.
pub fn pending_name(table_key: &str) -> String {
    let readable: String = table_key
        .strip_prefix("dense/")
        .unwrap_or(table_key)
        .split('/')
        .filter(|p| !p.is_empty() && *p != "-")
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let hash = table_key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{readable}-{hash:016x}")
}

/// An unfinished dense solve: its folder of finished tiers beside the store.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PendingSolve {
    /// The key of the table the solve builds (from a tier file; `None` before the first
    /// tier is finished).
    pub key: Option<String>,
    /// The folder's name ([`pending_name`]).
    pub name: String,
    /// The folder.
    pub path: PathBuf,
    /// The family (from the key), empty when unknown.
    pub family: String,
    /// Finished tiers in the folder.
    pub tiers: usize,
    /// Bytes on disk.
    pub bytes: u64,
    /// The run using the folder now (`pid N on HOST`), if any.
    pub in_use: Option<String>,
    /// When a file of it was last written (seconds since 1970).
    pub modified: u64,
}

/// The unfinished dense solves kept beside the store file `store_path` (the folders of
/// [`pending_root`]), sorted by name.
pub fn list_pending(store_path: &Path) -> Vec<PendingSolve> {
    let Ok(dir) = std::fs::read_dir(pending_root(store_path)) else {
        return Vec::new();
    };
    let mut found: Vec<PendingSolve> = dir
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let path = e.path();
            let s = tier_file::summary(&path)?;
            let family = s
                .key
                .as_deref()
                .and_then(|k| k.strip_prefix("dense/"))
                .and_then(|k| k.split('/').next())
                .unwrap_or_default()
                .to_string();
            Some(PendingSolve {
                key: s.key,
                name: e.file_name().to_string_lossy().into_owned(),
                path,
                family,
                tiers: s.tiers,
                bytes: s.bytes,
                in_use: s.holder.map(|h| h.to_string()),
                modified: s.modified,
            })
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// Removes the folder of an unfinished dense solve, under its lock: refused (with the
/// reason) while a run uses it; a lock left by a run that was killed is taken over.
pub fn remove_pending(p: &PendingSolve) -> Result<(), String> {
    let lock = TierLock::acquire(&p.path, true).map_err(|e| e.to_string())?;
    lock.remove_folder()
}

/// The key of a table of values: `table/FAMILY/SIDE` (SIDE: the side computed, so a capped
/// table is found again).
pub fn table_key(family: &str, side: usize) -> String {
    format!("table/{family}/{side}")
}

/// The values of a table kept under `key` by this version, if it holds `len` of them
/// ([`grundy_store::NONE`] where a value is undefined).
pub fn load_table_values(store: &Store, key: &str, len: usize) -> Option<Vec<u64>> {
    match store.get_values(key) {
        Ok(Some((info, values))) if info.writer == store.writer() && values.len() == len => Some(values),
        _ => None,
    }
}

/// Keeps the values of a table; a failure to write is ignored (the table is computed again
/// next time).
pub fn save_table_values(store: &Store, key: &str, family: &str, summary: &str, values: &[u64]) {
    let entry = NewEntry {
        key,
        kind: KIND_TABLE,
        family,
        summary,
    };
    let _ = store.put_values(&entry, values);
}

/// Most values of a sequence kept in the store: a longer run keeps its first `SEQ_KEEP_MAX`
/// values (2^24, at most 64 MiB before compression), which a later run continues from.
pub const SEQ_KEEP_MAX: u64 = 1 << 24;

/// Dense tables whose records take more bytes than this (32 MiB, e.g. the 2^24 16-bit
/// records of a 5×5 Cram board) are not kept; their answers are.
pub const DENSE_KEEP_MAX_BYTES: u64 = 32 << 20;

const SEQ_MAGIC: &[u8; 4] = b"GSEQ";
const SEQ_LAYOUT: u8 = 1;
const SEQ_HEADER: usize = 8;
const TABLE_LAYOUT: u32 = 1;

/// Kind of a kept answer for one position.
pub const KIND_ANALYSIS: &str = "analysis";
/// Kind of a kept table of values.
pub const KIND_TABLE: &str = "table";
/// Kind of a kept sequence.
pub const KIND_SEQ: &str = "seq";
/// Kind of a kept dense table.
pub const KIND_DENSE: &str = "dense";
/// Kind of the unfinished dense solves listed beside the store (their folders of finished
/// tiers, [`list_pending`]); not an entry of the store file.
pub const KIND_PENDING: &str = "pending";

/// The key of the sequence of the game named `game` (canonical name).
pub fn seq_key(game: &str) -> String {
    format!("seq/{game}")
}

/// A sequence read back from the store: G(0), ..., G(len − 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptSeq {
    width: usize,
    data: Vec<u8>,
}

impl KeptSeq {
    /// Number of values.
    pub fn len(&self) -> u64 {
        (self.data.len() / self.width) as u64
    }

    /// True when no value is kept.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes per value (2 or 4).
    pub fn width(&self) -> usize {
        self.width
    }

    /// G(0), G(1), ... in order.
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        values_of(self.width, &self.data)
    }
}

/// The values of `data`, `width` (2 or 4) little-endian bytes each.
fn values_of(width: usize, data: &[u8]) -> impl Iterator<Item = u64> + '_ {
    data.chunks_exact(width.max(1)).map(|c| match *c {
        [a, b] => u16::from_le_bytes([a, b]) as u64,
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]) as u64,
        _ => 0,
    })
}

/// The payload of a sequence: `data` holds the values, `width` bytes each.
pub fn encode_seq(width: usize, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SEQ_HEADER + data.len());
    out.extend_from_slice(SEQ_MAGIC);
    out.extend_from_slice(&[SEQ_LAYOUT, width as u8, 0, 0]);
    out.extend_from_slice(data);
    out
}

/// Reads a payload written by [`encode_seq`].
pub fn decode_seq(mut payload: Vec<u8>) -> Result<KeptSeq, String> {
    if payload.len() < SEQ_HEADER || &payload[..4] != SEQ_MAGIC {
        return Err("not a kept sequence".into());
    }
    if payload[4] != SEQ_LAYOUT {
        return Err(format!("unknown sequence layout {}", payload[4]));
    }
    let width = payload[5] as usize;
    if width != 2 && width != 4 {
        return Err(format!("value width {width}"));
    }
    payload.drain(..SEQ_HEADER);
    if !payload.len().is_multiple_of(width) {
        return Err(format!("{} bytes is not a whole number of values", payload.len()));
    }
    Ok(KeptSeq { width, data: payload })
}

/// The payload of `key` if an entry written by this version is there. An entry of another
/// version is passed over (it will be replaced); a damaged one is reported on stderr. A
/// damaged store file is reported once: the handle then answers nothing (and keeps nothing).
fn load(store: &Store, key: &str) -> Option<(EntryInfo, Vec<u8>)> {
    if store.is_damaged() {
        return None;
    }
    match store.get(key) {
        Ok(Some((info, bytes))) if info.writer == store.writer() => Some((info, bytes)),
        Ok(_) => None,
        Err(e) => {
            eprintln!("grundy: note: {e}; computing again");
            None
        }
    }
}

fn damaged(key: &str, what: String) -> StoreError {
    StoreError::Corrupt {
        key: key.to_string(),
        what,
    }
}

/// The kept sequence of `game`, if this version wrote one and it reads back sound.
pub fn load_seq(store: &Store, game: &str) -> Option<KeptSeq> {
    let key = seq_key(game);
    let (_, bytes) = load(store, &key)?;
    match decode_seq(bytes) {
        Ok(k) => Some(k),
        Err(e) => {
            eprintln!("grundy: note: {}; computing again", damaged(&key, e));
            None
        }
    }
}

/// Keeps G(0), ... of `game` (`data`: `width` bytes per value); a failure is reported on
/// stderr, never fatal.
pub fn save_seq(store: &Store, game: &str, width: usize, data: &[u8]) {
    if store.is_damaged() {
        return; // already reported
    }
    let n = data.len() / width;
    let max = values_of(width, data).max().unwrap_or(0);
    let summary = match n {
        0 => format!("{game}: no values"),
        n => format!("{game}: G(0) .. G({}), {n} values, largest {max}", n - 1),
    };
    let key = seq_key(game);
    let entry = NewEntry {
        key: &key,
        kind: KIND_SEQ,
        family: game,
        summary: &summary,
    };
    if let Err(e) = store.put(&entry, &encode_seq(width, data)) {
        eprintln!("grundy: note: could not keep the sequence: {e}");
    }
}

/// Everything that fixes a dense table but the position it starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DenseSpace {
    /// `cram`, `points` or `graph`.
    pub family: String,
    /// `ROWSxCOLS` (cram) or the structural checksum of the graph (`Graph::id`).
    pub geometry: String,
    /// The graph game's rule, `-` for cram.
    pub rule: String,
    /// Normal or misère play.
    pub convention: Convention,
    /// What is stored per state.
    pub record: Record,
}

fn record_named(name: &str) -> Option<Record> {
    [Record::Outcome, Record::Grundy, Record::Remoteness]
        .into_iter()
        .find(|r| r.as_str() == name)
}

fn convention_named(name: &str) -> Option<Convention> {
    [Convention::Normal, Convention::Misere]
        .into_iter()
        .find(|&c| c.as_str() == name)
}

impl DenseSpace {
    fn parts(&self) -> String {
        format!(
            "{}/{}/{}/{}/{}",
            self.family,
            self.geometry,
            self.rule,
            self.convention.as_str(),
            self.record.as_str()
        )
    }

    /// Every table of this space has a key starting with this.
    pub fn table_prefix(&self) -> String {
        format!("dense/{}/", self.parts())
    }

    /// The key of the table solved from the position with the cells (vertices) `start`.
    pub fn table_key(&self, start: u128) -> String {
        format!("{}{start:x}", self.table_prefix())
    }

    /// The key of the answer for `position` (as the family writes it).
    pub fn answer_key(&self, position: &str) -> String {
        format!("dense-analysis/{}/{position}", self.parts())
    }

    /// `normal play, grundy records`.
    fn play(&self) -> String {
        let play = match self.convention {
            Convention::Normal => "normal play",
            Convention::Misere => "misère play",
        };
        format!("{play}, {} records", self.record.as_str())
    }

    /// `cram 4x4, normal play, grundy records`; `points one-or-two on graph 0123…, ...`.
    pub fn describe(&self) -> String {
        match self.rule.as_str() {
            "-" => format!("{} {}, {}", self.family, self.geometry, self.play()),
            r => format!("{} {r} on graph {}, {}", self.family, self.geometry, self.play()),
        }
    }
}

/// What a kept dense table says about itself (its payload starts with it).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TableHeader {
    /// Layout number (1).
    pub layout: u32,
    /// The family.
    pub family: String,
    /// As in [`DenseSpace::geometry`].
    pub geometry: String,
    /// As in [`DenseSpace::rule`].
    pub rule: String,
    /// `normal` or `misere`.
    pub convention: String,
    /// `outcome`, `grundy` or `remoteness`.
    pub record: String,
    /// The starting cells (vertices), hexadecimal.
    pub start: String,
    /// The kept tiers and their numbers of states, in increasing order of tier.
    pub tiers: Vec<(u32, u64)>,
}

impl TableHeader {
    /// The space of the table.
    pub fn space(&self) -> Option<DenseSpace> {
        Some(DenseSpace {
            family: self.family.clone(),
            geometry: self.geometry.clone(),
            rule: self.rule.clone(),
            convention: convention_named(&self.convention)?,
            record: record_named(&self.record)?,
        })
    }

    /// Number of states kept.
    pub fn states(&self) -> u64 {
        self.tiers.iter().map(|&(_, n)| n).sum()
    }
}

/// The payload of `table`, solved in `space` from the cells `start`; `tier_size(t)` is the
/// number of states of tier `t`.
pub fn encode_table(
    space: &DenseSpace,
    start: u128,
    table: &DenseTable,
    tier_size: impl Fn(u32) -> u64,
) -> (TableHeader, Vec<u8>) {
    let tiers: Vec<(u32, u64)> = table
        .kept_tiers()
        .into_iter()
        .map(|t| (t, tier_size(t)))
        .collect();
    let header = TableHeader {
        layout: TABLE_LAYOUT,
        family: space.family.clone(),
        geometry: space.geometry.clone(),
        rule: space.rule.clone(),
        convention: space.convention.as_str().to_string(),
        record: space.record.as_str().to_string(),
        start: format!("{start:x}"),
        tiers,
    };
    let json = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = (json.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    for &(t, _) in &header.tiers {
        out.extend(table.tier_records(t).unwrap_or_default());
    }
    (header, out)
}

fn decode_header(payload: &[u8]) -> Result<(TableHeader, usize), String> {
    let len = payload
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or("too short for a dense table")?;
    let json = payload.get(4..4 + len).ok_or("header cut short")?;
    let header: TableHeader = serde_json::from_slice(json).map_err(|e| format!("unreadable header: {e}"))?;
    if header.layout != TABLE_LAYOUT {
        return Err(format!("unknown table layout {}", header.layout));
    }
    Ok((header, 4 + len))
}

/// Reads a payload written by [`encode_table`], checking every record.
pub fn decode_table(payload: &[u8]) -> Result<(TableHeader, DenseTable), String> {
    let (header, mut at) = decode_header(payload)?;
    let space = header.space().ok_or("unknown convention or record")?;
    let mut tiers: Vec<Option<(u64, Vec<u8>)>> = Vec::new();
    for &(t, states) in &header.tiers {
        if (t as usize) < tiers.len() || t > 128 {
            return Err(format!("tier {t} out of order"));
        }
        tiers.resize(t as usize, None);
        let n = space.record.tier_bytes(states);
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| at.checked_add(n))
            .filter(|&e| e <= payload.len())
            .ok_or(format!("the records of tier {t} are cut short"))?;
        tiers.push(Some((states, payload[at..end].to_vec())));
        at = end;
    }
    if at != payload.len() {
        return Err(format!("{} bytes after the last tier", payload.len() - at));
    }
    let table =
        DenseTable::from_tier_records(space.record, space.convention, tiers).map_err(|e| e.to_string())?;
    Ok((header, table))
}

/// Keeps a dense table; a failure is reported on stderr, never fatal.
pub fn save_table(
    store: &Store,
    space: &DenseSpace,
    start: u128,
    table: &DenseTable,
    tier_size: impl Fn(u32) -> u64,
) {
    if store.is_damaged() {
        return; // already reported
    }
    let (header, payload) = encode_table(space, start, table, tier_size);
    let key = space.table_key(start);
    let summary = format!(
        "{}, from cells {:x}: {} states in {} tiers",
        space.describe(),
        start,
        header.states(),
        header.tiers.len()
    );
    let entry = NewEntry {
        key: &key,
        kind: KIND_DENSE,
        family: &space.family,
        summary: &summary,
    };
    if let Err(e) = store.put(&entry, &payload) {
        eprintln!("grundy: note: could not keep the dense table: {e}");
    }
}

/// The kept tables of `space` whose start `covers` accepts, smallest first: their starts
/// and keys (at most `limit`).
pub fn covering_tables(
    store: &Store,
    space: &DenseSpace,
    covers: impl Fn(u128) -> bool,
    limit: usize,
) -> Vec<(u128, String)> {
    let prefix = space.table_prefix();
    let Ok(list) = store.list_prefix(&prefix) else {
        return Vec::new();
    };
    let mut found: Vec<(u128, String)> = list
        .into_iter()
        .filter(|e| e.writer == writer() && e.kind == KIND_DENSE)
        .filter_map(|e| {
            let start = u128::from_str_radix(&e.key[prefix.len()..], 16).ok()?;
            covers(start).then_some((start, e.key))
        })
        .collect();
    found.sort_by_key(|(s, _)| (s.count_ones(), *s));
    found.truncate(limit);
    found
}

/// The table of `key`, when this version wrote it and it reads back sound and in `space`.
pub fn load_table(store: &Store, key: &str, space: &DenseSpace) -> Option<(TableHeader, DenseTable)> {
    let (_, bytes) = load(store, key)?;
    match decode_table(&bytes) {
        Ok((h, t)) if h.space().as_ref() == Some(space) => Some((h, t)),
        Ok(_) => None,
        Err(e) => {
            eprintln!("grundy: note: {}; solving again", damaged(key, e));
            None
        }
    }
}

/// The answer of a dense solve as `grundy solve --dense` prints it and the store keeps it:
/// the analysis (kept as flat JSON fields, as `solve` keeps its own) and the solve's size.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DenseAnswer {
    /// Value, outcome, remoteness and every move (a Grundy value only with grundy records,
    /// a remoteness only with remoteness records).
    #[serde(flatten)]
    pub analysis: StoredAnalysis,
    /// States of the solve of this position.
    pub states: u64,
    /// Peak bytes of records of that solve.
    pub memory_bytes: u64,
}

/// The kept answer of `key`, if this version wrote one.
pub fn load_answer(store: &Store, key: &str) -> Option<DenseAnswer> {
    let (_, bytes) = load(store, key)?;
    serde_json::from_slice(&bytes).ok()
}

/// Keeps a dense answer; a failure is reported on stderr, never fatal. Returns whether the
/// answer is now in the store (committed, durably).
pub fn save_answer(store: &Store, space: &DenseSpace, answer: &DenseAnswer) -> bool {
    if store.is_damaged() {
        return false; // already reported
    }
    let Ok(bytes) = serde_json::to_vec(answer) else {
        return false;
    };
    let a = &answer.analysis;
    let key = space.answer_key(&a.position);
    let summary = format!(
        "{} {} (dense, {}): {}",
        a.family,
        a.position.chars().take(40).collect::<String>(),
        space.play(),
        match (a.grundy, a.remoteness) {
            (Some(g), _) => format!("grundy {g}"),
            (_, Some(r)) => format!("{} player wins, remoteness {r}", a.outcome.as_str()),
            _ => format!("{} player wins", a.outcome.as_str()),
        }
    );
    let entry = NewEntry {
        key: &key,
        kind: "analysis",
        family: &a.family,
        summary: &summary,
    };
    match store.put(&entry, &bytes) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("grundy: note: could not keep the result: {e}");
            false
        }
    }
}

/// Checks the content of an entry of kind `seq` or `dense` beyond its checksums (layout,
/// lengths, every record; a table's header matches its key). Other kinds pass.
pub fn check(info: &EntryInfo, payload: Vec<u8>) -> Result<(), String> {
    match info.kind.as_str() {
        KIND_SEQ => {
            if !info.key.starts_with("seq/") {
                return Err("a sequence under another key".into());
            }
            decode_seq(payload).map(|_| ())
        }
        KIND_DENSE => {
            let (h, _) = decode_table(&payload)?;
            let space = h.space().ok_or("unknown convention or record")?;
            let start = u128::from_str_radix(&h.start, 16).map_err(|_| "bad start")?;
            if space.table_key(start) != info.key {
                return Err(format!("the header describes '{}'", space.table_key(start)));
            }
            Ok(())
        }
        crate::quotient::KIND_QUOTIENT => crate::quotient::check(&info.key, &payload),
        _ => Ok(()),
    }
}

/// Lines describing the content of an entry of kind `seq` or `dense` for `grundy db show`;
/// `None` for other kinds.
pub fn describe(info: &EntryInfo, payload: Vec<u8>) -> Option<Vec<String>> {
    match info.kind.as_str() {
        KIND_SEQ => Some(match decode_seq(payload) {
            Ok(k) => {
                let shown: Vec<String> = k.values().take(1000).map(|v| v.to_string()).collect();
                vec![
                    format!("game:     {}", info.family),
                    format!("count:    {} values, {} bytes each", k.len(), k.width()),
                    format!(
                        "values:   {}{}",
                        shown.join(" "),
                        if k.len() > 1000 { " …" } else { "" }
                    ),
                ]
            }
            Err(e) => vec![format!("damaged:  {e}")],
        }),
        KIND_DENSE => Some(match decode_header(&payload) {
            Ok((h, _)) => {
                let tiers: Vec<String> = h.tiers.iter().map(|(t, n)| format!("{t}:{n}")).collect();
                let space = match h.space() {
                    Some(s) => s.describe(),
                    None => format!(
                        "{} {} {} {} {}",
                        h.family, h.geometry, h.rule, h.convention, h.record
                    ),
                };
                vec![
                    format!("space:    {space}"),
                    format!(
                        "start:    {} (hexadecimal mask of the cells or vertices present)",
                        h.start
                    ),
                    format!("states:   {} in {} tiers", h.states(), h.tiers.len()),
                    format!("tiers:    {} (tier:states)", tiers.join(" ")),
                ]
            }
            Err(e) => vec![format!("damaged:  {e}")],
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_round_trip_and_damage_is_refused() {
        let data: Vec<u8> = [0u16, 1, 1, 2, 70_00]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let k = decode_seq(encode_seq(2, &data)).unwrap();
        assert_eq!(k.len(), 5);
        assert_eq!(k.values().collect::<Vec<_>>(), [0, 1, 1, 2, 7000]);
        let wide: Vec<u8> = [0u32, 70_000].iter().flat_map(|v| v.to_le_bytes()).collect();
        let k = decode_seq(encode_seq(4, &wide)).unwrap();
        assert_eq!(k.values().collect::<Vec<_>>(), [0, 70_000]);
        assert!(decode_seq(b"GSEQ".to_vec()).is_err());
        assert!(decode_seq(b"XSEQ\x01\x02\0\0".to_vec()).is_err());
        assert!(decode_seq(b"GSEQ\x01\x03\0\0".to_vec()).is_err());
        assert!(decode_seq(b"GSEQ\x02\x02\0\0".to_vec()).is_err());
        assert!(decode_seq(b"GSEQ\x01\x02\0\0\x01".to_vec()).is_err());
        assert!(decode_seq(b"GSEQ\x01\x02\0\0".to_vec()).unwrap().is_empty());
    }

    #[test]
    fn keys_name_the_space() {
        let s = DenseSpace {
            family: "cram".into(),
            geometry: "4x4".into(),
            rule: "-".into(),
            convention: Convention::Misere,
            record: Record::Remoteness,
        };
        assert_eq!(s.table_key(0xffff), "dense/cram/4x4/-/misere/remoteness/ffff");
        assert!(s.table_key(0xffff).starts_with(&s.table_prefix()));
        assert_eq!(
            s.answer_key("4x4"),
            "dense-analysis/cram/4x4/-/misere/remoteness/4x4"
        );
    }

    #[test]
    fn damaged_table_payloads_are_refused() {
        assert!(decode_table(b"").is_err());
        assert!(decode_table(b"\xff\xff\xff\xff{}").is_err());
        assert!(decode_table(b"\x02\0\0\0{}").is_err());
        let header = TableHeader {
            layout: 1,
            family: "cram".into(),
            geometry: "1x2".into(),
            rule: "-".into(),
            convention: "normal".into(),
            record: "grundy".into(),
            start: "3".into(),
            tiers: vec![(0, 1), (2, 1)],
        };
        let json = serde_json::to_vec(&header).unwrap();
        let mut payload = (json.len() as u32).to_le_bytes().to_vec();
        payload.extend_from_slice(&json);
        payload.extend_from_slice(&[0, 0, 1, 0]);
        let (h, t) = decode_table(&payload).unwrap();
        assert_eq!(h, header);
        assert_eq!(t.value(2, 0).unwrap().grundy, Some(1));
        assert!(decode_table(&payload[..payload.len() - 1]).is_err());
        let mut longer = payload.clone();
        longer.push(0);
        assert!(decode_table(&longer).is_err());
    }

    #[test]
    fn pending_folders_are_safe_names_beside_the_store() {
        assert_eq!(
            pending_root(Path::new("/data/grundy/store.redb")),
            Path::new("/data/grundy/store.redb.dense-tiers")
        );
        let key = "dense/cram/5x6/-/normal/grundy/3fffffff";
        let name = pending_name(key);
        assert!(name.starts_with("cram-5x6-normal-grundy-3fffffff-"), "{name}");
        assert_eq!(name, pending_name(key), "the same key, the same folder");
        // Keys that differ anywhere have folders of their own, of safe characters only.
        let mut seen = std::collections::HashSet::new();
        for k in [
            key,
            "dense/cram/5x6/-/misere/grundy/3fffffff",
            "dense/cram/5x6/-/normal/grundy/3ffffffe",
            "dense/graph/0123abcd/node-kayles/misere/remoteness/fff",
            "dense/../../etc/passwd",
            "dense/a b/ü/\\/x:y",
            &format!("dense/{}", "x".repeat(500)),
        ] {
            let n = pending_name(k);
            assert!(seen.insert(n.clone()), "{k}: {n}");
            assert!(n.len() <= 80 + 17, "{n}");
            assert!(
                n.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)),
                "{n}"
            );
        }
    }

    #[test]
    fn pending_solves_are_listed_and_removed_unless_in_use() {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store.redb");
        assert!(list_pending(&store).is_empty(), "no folder: none");
        let key = "dense/cram/3x3/-/normal/grundy/1ff";
        let dir = pending_root(&store).join(pending_name(key));
        let mut tiers =
            grundy_solve::dense::tier_file::TierDir::open(&dir, key, Record::Grundy, false).unwrap();
        use grundy_solve::dense::{TierKeeper, TierView};
        tiers.save(0, 1, TierView::Words(&[0])).unwrap();
        tiers.save(1, 9, TierView::Words(&[1; 9])).unwrap();
        let lock = TierLock::acquire(&dir, true).unwrap();
        let listed = list_pending(&store);
        assert_eq!(listed.len(), 1);
        let p = &listed[0];
        assert_eq!(p.key.as_deref(), Some(key));
        assert_eq!((p.family.as_str(), p.tiers), ("cram", 2));
        assert_eq!(p.name, pending_name(key));
        let on_disk: u64 = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert_eq!(p.bytes, on_disk);
        assert!(p
            .in_use
            .as_deref()
            .is_some_and(|r| r.contains(&std::process::id().to_string())));
        // In use (this process holds the lock): refused, nothing removed.
        let refused = remove_pending(p).unwrap_err();
        assert!(refused.contains("in use"), "{refused}");
        assert!(dir.join("tier-001.grundy-tier").exists());
        drop(lock);
        let p = &list_pending(&store)[0];
        assert_eq!(p.in_use, None);
        remove_pending(p).unwrap();
        assert!(!dir.exists());
        assert!(list_pending(&store).is_empty());
    }
}
