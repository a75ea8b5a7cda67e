//! The census of a family of heap games (`grundy census PATTERN --count N`): every game of a
//! pattern (`0.??`, `0.???`, `4.???`) or of a list, each computed to N values through
//! [`crate::seq::compute`] (so every sequence is kept in the store), its proven period
//! (ordinary or arithmetic) read from the values, and the games whose sequences agree up to N
//! grouped together.
//!
//! The work is a loop over games with one function per game ([`run_game`]) and a journal
//! ([`Journal`]) that records each finished game atomically (the whole file is rewritten to a
//! temporary file and renamed over the old one), so a census stopped at any point (even by
//! `kill -9`) resumes with nothing lost and nothing counted twice. A scheduler that spreads
//! the games over processes drives the same two pieces: [`Plan::pending`] says what is left,
//! [`run_game`] does one game, [`Journal::record`] keeps it.
//!
//! Nothing here prints; the front end shows progress from the rows as they come.

use crate::seq::{self, SeqRequest};
use grundy_games::heap::HeapGame;
use grundy_solve::seq::{summarize, StoreOptions};
use grundy_store::Store;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Most `?` marks in a pattern: 6 (8^6 = 262 144 codes).
pub const MAX_MARKS: usize = 6;

/// Why a census cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The pattern does not read, or names no game.
    #[error("pattern '{pattern}': {reason}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A line of a list of codes does not read as a game.
    #[error("{source_name}: line {line}, column {column}: {message}")]
    List {
        /// The file (or `-`).
        source_name: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// The count does not read, or asks for more values than the memory budget holds.
    #[error("{0}")]
    Count(String),
    /// The journal belongs to another census, or does not read.
    #[error("journal {path}: {reason}")]
    Journal {
        /// The journal file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The journal could not be written.
    #[error("cannot write journal {path}: {reason}")]
    JournalWrite {
        /// The journal file.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// Computing a game failed.
    #[error("{game}: {source}")]
    Game {
        /// The game.
        game: String,
        /// The failure.
        source: seq::Error,
    },
}

impl Error {
    /// True for the user's input (exit code 2), false for a failure (exit code 1).
    pub fn is_input(&self) -> bool {
        match self {
            Error::Pattern { .. } | Error::List { .. } | Error::Count(_) | Error::Journal { .. } => true,
            Error::JournalWrite { .. } => false,
            Error::Game { source, .. } => source.is_input(),
        }
    }
}

/// The games of a census, in order, each named once by its canonical name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Games {
    /// The distinct games, canonical names, in the order of their first code.
    pub names: Vec<String>,
    /// Codes of the pattern that are the same game as an earlier one (`0.10` is `0.1`),
    /// each with the name it was counted under.
    pub duplicates: Vec<(String, String)>,
    /// Codes of the pattern that are no game (a digit 0 before the point that removes
    /// nothing yet leaves one heap: `1.0`), with the reason.
    pub invalid: Vec<(String, String)>,
}

/// Expands a pattern: each `?` is an octal digit 0–7 (`0.??` is the 64 codes 0.00 .. 0.77).
/// Every code is read as a game ([`HeapGame::parse`]); codes that are the same game (same
/// rules in canonical form: `0.10` and `0.1`) are listed once, under the canonical name,
/// where the first of them falls; codes that are no game are left out. A pattern with no
/// `?` is the one game it names. Refused: no game at all, more than [`MAX_MARKS`] marks.
pub fn expand(pattern: &str) -> Result<Games, Error> {
    let bad = |reason: String| Error::Pattern {
        pattern: grundy_core::parse::shorten(pattern),
        reason,
    };
    let p = pattern.trim();
    if p.is_empty() {
        return Err(bad("empty pattern (try 0.?? or 4.???)".into()));
    }
    let marks = p.matches('?').count();
    if marks > MAX_MARKS {
        return Err(bad(format!(
            "{marks} '?' marks: at most {MAX_MARKS} (8^{MAX_MARKS} codes)"
        )));
    }
    let mut games = Games {
        names: Vec::new(),
        duplicates: Vec::new(),
        invalid: Vec::new(),
    };
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut first_error = None;
    for i in 0..8usize.pow(marks as u32) {
        // The digits of i in base 8, the first mark the most significant.
        let mut code = String::with_capacity(p.len());
        let mut left = marks;
        for ch in p.chars() {
            if ch == '?' {
                left -= 1;
                let d = (i / 8usize.pow(left as u32)) % 8;
                code.push(char::from(b'0' + d as u8));
            } else {
                code.push(ch);
            }
        }
        match HeapGame::parse(&code) {
            Ok(g) => {
                let name = g.name().to_string();
                if seen.insert(name.clone(), ()).is_some() {
                    games.duplicates.push((code, name));
                } else {
                    games.names.push(name);
                }
            }
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(format!("{code}: column {}: {}", e.span.column, e.message));
                }
                games.invalid.push((code, e.message));
            }
        }
    }
    if games.names.is_empty() {
        return Err(bad(format!(
            "names no game ({})",
            first_error.unwrap_or_else(|| "no code".into())
        )));
    }
    Ok(games)
}

/// Reads a list of codes, one per line (blank lines and lines starting with `#` skipped; a
/// line may hold a pattern with `?`, expanded by [`expand`]). Every code must read; games
/// listed twice are counted once.
pub fn from_list(source_name: &str, text: &str) -> Result<Games, Error> {
    let mut games = Games {
        names: Vec::new(),
        duplicates: Vec::new(),
        invalid: Vec::new(),
    };
    let mut seen: HashMap<String, ()> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim();
        if code.is_empty() || code.starts_with('#') {
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let names = if code.contains('?') {
            let g = expand(code).map_err(|e| Error::List {
                source_name: source_name.into(),
                line: n + 1,
                column: lead + 1,
                message: e.to_string(),
            })?;
            games.invalid.extend(g.invalid);
            games.duplicates.extend(g.duplicates);
            g.names
        } else {
            let g = HeapGame::parse(code).map_err(|e| Error::List {
                source_name: source_name.into(),
                line: n + 1,
                column: lead + e.span.column,
                message: e.message,
            })?;
            vec![g.name().to_string()]
        };
        for name in names {
            if seen.insert(name.clone(), ()).is_some() {
                games.duplicates.push((code.to_string(), name));
            } else {
                games.names.push(name);
            }
        }
    }
    if games.names.is_empty() {
        return Err(Error::List {
            source_name: source_name.into(),
            line: text.lines().count().max(1),
            column: 1,
            message: "the list names no game".into(),
        });
    }
    Ok(games)
}

/// The verdict on a game after N values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// G(n + p) = G(n) for all n ≥ n0, proven by the periodicity theorem within N values.
    Periodic,
    /// G(n + p) = G(n) + s (s > 0) for all n ≥ n0, proven within N values.
    ArithmeticPeriodic,
    /// No period proven by N values (none may exist, or it needs more values).
    Unresolved,
}

impl Verdict {
    /// The name in the output: `periodic`, `arithmetic-periodic`, `unresolved`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Periodic => "periodic",
            Verdict::ArithmeticPeriodic => "arithmetic-periodic",
            Verdict::Unresolved => "unresolved",
        }
    }
}

/// One game of a census: the fields of `grundy seq --json` and the verdict. Written to the
/// journal as it is, one JSON object per line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The game's canonical name.
    pub game: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The proven period p (`None` when unresolved).
    pub period: Option<u64>,
    /// The first heap of the periodic part (`None` when unresolved).
    pub n0: Option<u64>,
    /// The saltus s of an arithmetic period, 0 for an ordinary one (`None` when unresolved).
    pub saltus: Option<u64>,
    /// The bound of the theorem up to which the period was checked (`None` when unresolved).
    pub checked_to: Option<u64>,
    /// Values of the census: G(0) .. G(count − 1), every field here is of these.
    pub count: u64,
    /// How many of them were computed; the rest follow from the proven period.
    pub computed: u64,
    /// The largest of them.
    pub max: u64,
    /// The rare values (`None` when the split was not computed: too many distinct values).
    pub rare: Option<Vec<u64>>,
    /// How many heaps have a rare value.
    pub rare_count: Option<u64>,
    /// A 128-bit digest of the values (hexadecimal): games with equal digests have equal
    /// sequences up to `count` (barring a collision of the digest).
    pub digest: String,
    /// Seconds the game took (0 when its values came from the store).
    pub seconds: f64,
}

/// A 128-bit digest of a sequence of values: two 64-bit FNV-1a style hashes (different
/// offsets and odd multipliers) of the values' little-endian 8-byte forms.
pub fn digest(values: impl Iterator<Item = u64>) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    let mut n: u64 = 0;
    for v in values {
        for byte in v.to_le_bytes() {
            a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        n += 1;
    }
    // The length, so sequences that are prefixes of each other differ.
    a ^= n;
    b = b.rotate_left(17) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{a:016x}{b:016x}")
}

/// How each game is computed.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// Values per game: G(0) .. G(count − 1).
    pub count: u64,
    /// Where values are kept (memory, then a scratch file).
    pub storage: StoreOptions,
    /// Threads per game (`None`: the default of `grundy seq`).
    pub threads: Option<usize>,
}

/// Refuses a count whose values (4 bytes each, the widest the engine keeps) do not fit in
/// the memory budget: a census computes hundreds of games and should not run them from a
/// scratch file on disk.
pub fn check_count(count: u64) -> Result<(), Error> {
    let budget = grundy_core::memory::budget();
    let need = count.saturating_mul(4);
    if need > budget {
        return Err(Error::Count(format!(
            "count {count} needs up to {need} bytes of values per game, past the memory budget of {budget} bytes (--memory-budget)"
        )));
    }
    Ok(())
}

/// The values of `game` through [`seq::compute`] (seeded by and kept in `store`) until a
/// period is proven or `options.count` values are computed.
fn compute(game: &str, options: &GameOptions, store: Option<&Store>) -> Result<seq::Computed, Error> {
    let request = SeqRequest {
        storage: options.storage.clone(),
        threads: options.threads,
        until_period: true,
        ..SeqRequest::new(game, options.count.to_string())
    };
    seq::compute(&request, store, &mut |_| {}).map_err(|e| Error::Game {
        game: game.to_string(),
        source: e,
    })
}

/// G(i): computed, or implied by the proven period (G(n) = G(n − p) + s for n ≥ n0 + p).
fn value(computed: &seq::Computed, i: u64) -> u64 {
    match computed.period {
        Some(p) if i >= computed.count => {
            let k = (i - p.n0) / p.period;
            computed.get(p.n0 + (i - p.n0) % p.period) + k * p.saltus
        }
        _ => computed.get(i),
    }
}

/// G(0) .. G(options.count − 1) of `game`, as [`run_game`] sees them: computed (or read from
/// `store`) up to a proven period, and the rest implied by it.
pub fn sequence(game: &str, options: &GameOptions, store: Option<&Store>) -> Result<Vec<u64>, Error> {
    let computed = compute(game, options, store)?;
    Ok((0..options.count).map(|i| value(&computed, i)).collect())
}

/// Computes one game of a census: values through [`seq::compute`] (seeded by and kept in
/// `store`) until a period is proven or `count` values are computed, then the summary of
/// G(0) .. G(count − 1) (the values past a proven period follow from it: G(n) = G(n − p) + s
/// for n ≥ n0 + p), exactly what `grundy seq GAME --count N --json` reports, and the digest.
pub fn run_game(game: &str, options: &GameOptions, store: Option<&Store>) -> Result<Row, Error> {
    let started = std::time::Instant::now();
    let computed = compute(game, options, store)?;
    let n = options.count;
    let known = computed.count;
    let get = |i: u64| value(&computed, i);
    let s = summarize(computed.engine.rules(), n as usize, |i| get(i as u64));
    let verdict = match s.period {
        Some(p) if p.saltus > 0 => Verdict::ArithmeticPeriodic,
        Some(_) => Verdict::Periodic,
        None => Verdict::Unresolved,
    };
    let seconds = if computed.from_store >= known {
        0.0
    } else {
        started.elapsed().as_secs_f64()
    };
    Ok(Row {
        game: computed.game.name().to_string(),
        verdict,
        period: s.period.map(|p| p.period),
        n0: s.period.map(|p| p.n0),
        saltus: s.period.map(|p| p.saltus),
        checked_to: s.period.map(|p| p.checked_to),
        count: s.count,
        computed: known,
        max: s.max,
        rare: s.rare.clone(),
        rare_count: s.rare_count,
        digest: digest((0..n).map(get)),
        seconds: (seconds * 1000.0).round() / 1000.0,
    })
}

/// The first line of a journal: which census it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Header {
    census: u32,
    /// The pattern or list, as the user gave it.
    pattern: String,
    /// Values per game.
    count: u64,
    /// The games, in order.
    games: Vec<String>,
}

/// The journal of a census: a file of JSON lines, the header (the pattern, the count and
/// the games) then one [`Row`] per finished game, rewritten whole and renamed into place
/// after each game, so it always holds whole rows only.
#[derive(Debug)]
pub struct Journal {
    path: Option<PathBuf>,
    header: Header,
    rows: Vec<Row>,
}

impl Journal {
    /// Opens the journal of the census of `games` from `pattern` at `count` values: a
    /// missing file starts empty, a file of the same census resumes, a file of another
    /// census (or that does not read) is refused. `None`: no file, nothing kept.
    pub fn open(path: Option<&Path>, pattern: &str, count: u64, games: &Games) -> Result<Journal, Error> {
        let header = Header {
            census: 1,
            pattern: pattern.to_string(),
            count,
            games: games.names.clone(),
        };
        let mut journal = Journal {
            path: path.map(Path::to_path_buf),
            header,
            rows: Vec::new(),
        };
        let Some(path) = path else {
            return Ok(journal);
        };
        let bad = |reason: String| Error::Journal {
            path: path.display().to_string(),
            reason,
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(journal),
            Err(e) => return Err(bad(e.to_string())),
        };
        let mut lines = text.lines().enumerate();
        let Some((_, first)) = lines.next() else {
            return Err(bad(
                "empty file (not a census journal; remove it or give another --journal)".into(),
            ));
        };
        let header: Header =
            serde_json::from_str(first).map_err(|e| bad(format!("line 1: not a census journal ({e})")))?;
        if header.census != 1 {
            return Err(bad(format!(
                "line 1: journal version {} (expected 1)",
                header.census
            )));
        }
        if header.count != count || header.games != journal.header.games {
            return Err(bad(format!(
                "it is the journal of the census of '{}' at --count {} ({} games); resume it with that pattern and count, or give another --journal",
                header.pattern,
                header.count,
                header.games.len()
            )));
        }
        let mut done: HashMap<String, ()> = HashMap::new();
        for (n, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let row: Row = serde_json::from_str(line).map_err(|e| bad(format!("line {}: {e}", n + 1)))?;
            if !journal.header.games.contains(&row.game) {
                return Err(bad(format!(
                    "line {}: game {} is not in this census",
                    n + 1,
                    row.game
                )));
            }
            if row.count != count {
                return Err(bad(format!(
                    "line {}: {} computed to {} values, not {count}",
                    n + 1,
                    row.game,
                    row.count
                )));
            }
            if done.insert(row.game.clone(), ()).is_some() {
                return Err(bad(format!("line {}: game {} recorded twice", n + 1, row.game)));
            }
            journal.rows.push(row);
        }
        Ok(journal)
    }

    /// The rows recorded so far, in the order they were recorded.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Whether `game` is recorded.
    pub fn has(&self, game: &str) -> bool {
        self.rows.iter().any(|r| r.game == game)
    }

    /// Records a finished game: the whole journal is written to `FILE.tmp`, synced, and
    /// renamed over `FILE` (atomic on POSIX file systems), so a stop at any point leaves the
    /// old journal or the new one, never half a row.
    pub fn record(&mut self, row: Row) -> Result<(), Error> {
        self.rows.push(row);
        let Some(path) = &self.path else {
            return Ok(());
        };
        let fail = |e: std::io::Error| Error::JournalWrite {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        let mut text = serde_json::to_string(&self.header).expect("header serialises");
        text.push('\n');
        for r in &self.rows {
            text.push_str(&serde_json::to_string(r).expect("row serialises"));
            text.push('\n');
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut f = std::fs::File::create(&tmp).map_err(fail)?;
        f.write_all(text.as_bytes()).map_err(fail)?;
        f.sync_all().map_err(fail)?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(fail)?;
        Ok(())
    }
}

/// The plan of a census: its games and which are left.
#[derive(Debug)]
pub struct Plan<'a> {
    games: &'a Games,
    journal: &'a Journal,
}

impl<'a> Plan<'a> {
    /// The plan of `games` with what `journal` already holds.
    pub fn new(games: &'a Games, journal: &'a Journal) -> Plan<'a> {
        Plan { games, journal }
    }

    /// The games not yet recorded, in order.
    pub fn pending(&self) -> Vec<String> {
        self.games
            .names
            .iter()
            .filter(|g| !self.journal.has(g))
            .cloned()
            .collect()
    }
}

/// Groups of games with equal sequences: for each row, the first earlier game (in the order
/// given) with the same digest, if any (`same_as`).
pub fn same_as(rows: &[Row]) -> Vec<Option<String>> {
    let mut first: HashMap<&str, &str> = HashMap::new();
    rows.iter()
        .map(|r| match first.get(r.digest.as_str()) {
            Some(g) => Some(g.to_string()),
            None => {
                first.insert(&r.digest, &r.game);
                None
            }
        })
        .collect()
}

/// The groups of two games or more with equal sequences, each in the order of `rows`.
pub fn groups(rows: &[Row]) -> Vec<Vec<String>> {
    let mut order: Vec<&str> = Vec::new();
    let mut by: HashMap<&str, Vec<String>> = HashMap::new();
    for r in rows {
        let e = by.entry(&r.digest).or_default();
        if e.is_empty() {
            order.push(&r.digest);
        }
        e.push(r.game.clone());
    }
    order
        .into_iter()
        .filter_map(|d| by.remove(d).filter(|g| g.len() > 1))
        .collect()
}

/// The default journal of a census: `census-<hash>.jsonl` in the folder of the store, the
/// hash of the pattern (or list) and the count, so each census has its own.
pub fn default_journal(store_path: &Path, pattern_key: &str, count: u64) -> PathBuf {
    let dir = store_path.parent().unwrap_or(Path::new("."));
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in pattern_key.bytes().chain(count.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    dir.join(format!("census-{h:016x}.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_digit_octal_games() {
        let g = expand("0.??").unwrap();
        // 64 codes, 64 games: 0.?0 is named by its shorter code (0.10 is 0.1), but no two
        // codes of the pattern are the same game.
        assert_eq!(g.names.len(), 64);
        assert!(g.duplicates.is_empty() && g.invalid.is_empty());
        assert!(g.names.contains(&"0.1".to_string()));
        assert!(!g.names.contains(&"0.10".to_string()));
        // With the one-digit codes first, 0.10 is a duplicate of 0.1.
        let both = from_list("f", "0.?\n0.??\n").unwrap();
        assert_eq!(both.names.len(), 64);
        assert!(both.duplicates.iter().any(|(c, n)| c == "0.??" && n == "0.1"));
        let mut sorted = g.names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), g.names.len());
    }

    #[test]
    fn bad_patterns() {
        assert!(matches!(expand(""), Err(Error::Pattern { .. })));
        assert!(matches!(expand("0.?x"), Err(Error::Pattern { .. })));
        assert!(matches!(expand("1.?"), Err(Error::Pattern { .. })));
        assert!(matches!(expand("0.???????"), Err(Error::Pattern { .. })));
        assert!(expand("0.77").unwrap().names == vec!["0.77".to_string()]);
    }

    #[test]
    fn lists() {
        let g = from_list("f", "# games\n0.77\n\n0.770\n4.0?\n").unwrap();
        assert_eq!(g.names[0], "0.77");
        assert_eq!(g.names.len(), 1 + 8);
        let e = from_list("f", "0.77\n  0.8\n").unwrap_err();
        assert!(e.to_string().starts_with("f: line 2, column"), "{e}");
        assert!(from_list("f", "# nothing\n").is_err());
    }

    #[test]
    fn digests_tell_sequences_apart() {
        assert_eq!(digest([1, 2, 3].into_iter()), digest([1, 2, 3].into_iter()));
        assert_ne!(digest([1, 2, 3].into_iter()), digest([1, 2, 4].into_iter()));
        assert_ne!(digest([0, 0].into_iter()), digest([0, 0, 0].into_iter()));
    }

    fn row(game: &str, d: &str) -> Row {
        Row {
            game: game.into(),
            verdict: Verdict::Unresolved,
            period: None,
            n0: None,
            saltus: None,
            checked_to: None,
            count: 10,
            computed: 10,
            max: 0,
            rare: None,
            rare_count: None,
            digest: d.into(),
            seconds: 0.0,
        }
    }

    #[test]
    fn grouping() {
        let rows = vec![row("a", "1"), row("b", "2"), row("c", "1"), row("d", "1")];
        assert_eq!(
            same_as(&rows),
            vec![None, None, Some("a".into()), Some("a".into())]
        );
        assert_eq!(groups(&rows), vec![vec!["a".to_string(), "c".into(), "d".into()]]);
    }

    #[test]
    fn journal_resumes_and_refuses_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let games = expand("0.?").unwrap();
        let mut j = Journal::open(Some(&path), "0.?", 10, &games).unwrap();
        j.record(row(&games.names[0], "x")).unwrap();
        let j2 = Journal::open(Some(&path), "0.?", 10, &games).unwrap();
        assert_eq!(j2.rows().len(), 1);
        assert_eq!(Plan::new(&games, &j2).pending().len(), games.names.len() - 1);
        // Another count, another pattern: refused.
        assert!(Journal::open(Some(&path), "0.?", 11, &games).is_err());
        let other = expand("4.?").unwrap();
        assert!(Journal::open(Some(&path), "4.?", 10, &other).is_err());
        // A row recorded twice, a torn file: refused with the line.
        let text = std::fs::read_to_string(&path).unwrap();
        let last = text.lines().last().unwrap().to_string();
        std::fs::write(&path, format!("{text}{last}\n")).unwrap();
        let e = Journal::open(Some(&path), "0.?", 10, &games).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
    }
}
