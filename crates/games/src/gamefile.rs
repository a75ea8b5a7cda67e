//! Games defined in a file (issue 12): a TOML spec whose `kind` names one of the shapes the
//! literature uses, or a Lua script for any other game. A file is read once into a
//! [`GameFile`]; the registry then hands it to the family that reads its kind
//! (by its [`FileKind`]), so every front end reads a game file as it reads a built-in
//! family: `FamilyOptions::game` carries it, and [`crate::registry::with_game`] picks the
//! family from it.
//!
//! Specs of heap games (`take-and-break`, `subtraction`) and of graph games (`graph`) say
//! the same as a built-in game code or a built-in graph rule, and resolve to those families
//! with the parameters the spec gives ([`GameFile::resolve`]): they run at built-in speed
//! because they *are* the built-in games. The other kinds have families of their own that
//! read their parameters from the file.
//!
//! Every error names the file, the line and the column ([`SpecError`]).

use crate::family::FamilyOptions;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::any::Any;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The largest game file read (1 MiB): a spec is a few lines, a script a few pages.
pub const MAX_FILE_LEN: usize = 1 << 20;

/// What a game file is: the kinds of spec, and scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// `kind = "take-and-break"`: a game code, or a list of (remove, leave-k-heaps) rules.
    TakeAndBreak,
    /// `kind = "subtraction"`: a subtraction set (finite or all-but, with or without a split).
    Subtraction,
    /// `kind = "coordinates"`: positions are tuples of numbers, moves are vectors (Wythoff).
    Coordinates,
    /// `kind = "coins"`: a coin-turning game (Ruler, Mock Turtles).
    Coins,
    /// `kind = "graph"`: a built-in graph rule on a graph given in the file or by name.
    Graph,
    /// `kind = "placement"`: pieces of given shapes placed on a board (Cram: dominoes).
    Placement,
    /// A Lua script.
    Script,
}

impl FileKind {
    /// The kinds a spec may name, in the order errors list them (scripts have no `kind`).
    pub const SPECS: [FileKind; 6] = [
        FileKind::TakeAndBreak,
        FileKind::Subtraction,
        FileKind::Coordinates,
        FileKind::Coins,
        FileKind::Graph,
        FileKind::Placement,
    ];

    /// The `kind` value of a spec (`script` for a script).
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::TakeAndBreak => "take-and-break",
            FileKind::Subtraction => "subtraction",
            FileKind::Coordinates => "coordinates",
            FileKind::Coins => "coins",
            FileKind::Graph => "graph",
            FileKind::Placement => "placement",
            FileKind::Script => "script",
        }
    }

    /// The kind a spec names.
    pub fn from_spec(kind: &str) -> Option<FileKind> {
        FileKind::SPECS.into_iter().find(|k| k.as_str() == kind)
    }
}

/// What is wrong with a game file, and where: `FILE:LINE:COLUMN: message` (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct SpecError {
    /// The file's name as given (`<request>` for a file sent to the server).
    pub file: String,
    /// The line (from 1).
    pub line: usize,
    /// The column (from 1, in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A game read from a file: its text, its kind and its canonical identity. Cheap to share
/// (`Arc<GameFile>` in [`FamilyOptions::game`]); what a family makes of it (a parsed spec, a
/// compiled script) is kept once in it ([`GameFile::cached`]).
pub struct GameFile {
    source: String,
    text: String,
    kind: FileKind,
    name: String,
    hash: u64,
    cache: OnceLock<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for GameFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameFile")
            .field("source", &self.source)
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

/// The fields every spec has, read first to learn its kind.
#[derive(Deserialize)]
struct Head {
    kind: Option<toml::Spanned<String>>,
    name: Option<toml::Spanned<String>>,
}

impl GameFile {
    /// Reads a game file: `source` is its name (a path; `.lua` marks a script, `.toml` a
    /// spec, anything else is told by its content: a TOML table with a `kind` is a spec, a
    /// text that is not TOML but defines a Lua `function` is a script).
    pub fn load(source: &str, text: &str) -> Result<GameFile, SpecError> {
        let at = |line, column, message: String| SpecError {
            file: source.to_string(),
            line,
            column,
            message,
        };
        if text.len() > MAX_FILE_LEN {
            return Err(at(
                1,
                1,
                format!(
                    "the file has {} bytes, more than the limit of {MAX_FILE_LEN}",
                    text.len()
                ),
            ));
        }
        if text.trim().is_empty() {
            return Err(at(1, 1, "the game file is empty".into()));
        }
        let lower = source.to_ascii_lowercase();
        let script = lower.ends_with(".lua")
            || (!lower.ends_with(".toml")
                && toml::from_str::<toml::Table>(text).is_err()
                && text.contains("function"));
        let mut file = GameFile {
            source: source.to_string(),
            text: text.to_string(),
            kind: FileKind::Script,
            name: String::new(),
            hash: 0,
            cache: OnceLock::new(),
        };
        if script {
            file.name = script_name(text).unwrap_or_else(|| stem(source));
            file.hash = fnv1a(canonical_script(text).as_bytes());
            return Ok(file);
        }
        let head: Head = file.spec()?;
        let Some(kind) = head.kind else {
            let names: Vec<&str> = FileKind::SPECS.iter().map(|k| k.as_str()).collect();
            return Err(at(
                1,
                1,
                format!(
                    "a game spec needs a kind (kind = \"{}\"; a Lua script ends in .lua)",
                    names.join("\" | \"")
                ),
            ));
        };
        file.kind = FileKind::from_spec(kind.get_ref()).ok_or_else(|| {
            let names: Vec<&str> = FileKind::SPECS.iter().map(|k| k.as_str()).collect();
            file.error_at(
                kind.span(),
                format!("unknown kind '{}' (one of: {})", kind.get_ref(), names.join(", ")),
            )
        })?;
        if let Some(name) = &head.name {
            check_name(name.get_ref()).map_err(|m| file.error_at(name.span(), m))?;
        }
        file.name = head.name.map_or_else(|| stem(source), |n| n.into_inner());
        // The canonical content: the table as TOML writes it back (keys sorted, comments,
        // spacing and quoting gone), so two files saying the same game share their answers.
        let table: toml::Table = file.spec()?;
        file.hash = fnv1a(toml::to_string(&table).unwrap_or_default().as_bytes());
        Ok(file)
    }

    /// The file's name as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Spec or script, and which spec.
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// The game's name: the spec's `name` (a script's `name = "..."`), else the file's stem.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A hash of the canonical content (FNV-1a, 64 bits).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The game's identity in answers and in the store: `NAME@HASH` (16 hex digits of the
    /// canonical content's hash).
    pub fn id(&self) -> String {
        format!("{}@{:016x}", self.name, self.hash)
    }

    /// Reads the whole spec as `T` (a serde type, usually with `deny_unknown_fields`), with
    /// errors at their line and column.
    pub fn spec<T: DeserializeOwned>(&self) -> Result<T, SpecError> {
        toml::from_str(&self.text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            self.error_at(span, e.message().to_string())
        })
    }

    /// An error at byte range `span` of the text.
    pub fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> SpecError {
        let (line, column) = line_column(&self.text, span.start);
        SpecError {
            file: self.source.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// An error at `line`, `column`.
    pub fn error(&self, line: usize, column: usize, message: impl Into<String>) -> SpecError {
        SpecError {
            file: self.source.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// What the family reading the file made of it (a parsed spec, a compiled script), made
    /// once by `make` and kept for every later game built from the same file.
    pub fn cached<T: Any + Send + Sync>(
        &self,
        make: impl FnOnce(&GameFile) -> Result<T, SpecError>,
    ) -> Result<Arc<T>, SpecError> {
        if let Some(kept) = self.cache.get() {
            if let Ok(t) = kept.clone().downcast::<T>() {
                return Ok(t);
            }
        }
        let made = Arc::new(make(self)?);
        let _ = self.cache.set(made.clone());
        Ok(made)
    }

    /// The family that reads this file and the options it is built with: the spec's own
    /// family with the file in `game`, or for a spec that says what a built-in game says
    /// (a heap code, a graph rule) that game's family, name and options, without the file.
    pub fn resolve(self: &Arc<Self>, opts: &FamilyOptions) -> Result<(String, FamilyOptions), SpecError> {
        match self.kind {
            FileKind::TakeAndBreak | FileKind::Subtraction => {
                let code = crate::heap_spec::spec_code(self)?;
                let opts = FamilyOptions {
                    game: None,
                    ..opts.clone()
                };
                Ok((code, opts))
            }
            FileKind::Graph => crate::graph_game::spec_options(self, opts),
            kind => {
                let family = match kind {
                    FileKind::Coordinates => "coordinates",
                    FileKind::Coins => "coins",
                    FileKind::Placement => "placement",
                    _ => "script",
                };
                Ok((family.to_string(), opts.clone()))
            }
        }
    }
}

/// A built-in game file (a family's example), read once into `slot`: `None` if it does not
/// read (a test of each family checks that its examples do).
pub fn example_file(
    slot: &'static OnceLock<Option<Arc<GameFile>>>,
    source: &str,
    text: &str,
) -> Option<Arc<GameFile>> {
    slot.get_or_init(|| GameFile::load(source, text).ok().map(Arc::new))
        .clone()
}

/// The game file of `opts`, or for a family's game without one its built-in `example`
/// (`what` names it in the error if it does not read); true when it is the example.
pub fn file_or_example(
    opts: &FamilyOptions,
    example: fn() -> Option<Arc<GameFile>>,
    what: &str,
) -> Result<(Arc<GameFile>, bool), crate::family::RegistryError> {
    match &opts.game {
        Some(f) => Ok((f.clone(), false)),
        None => example().map(|f| (f, true)).ok_or_else(|| {
            crate::family::RegistryError::Unsupported(format!("the built-in {what} spec does not read"))
        }),
    }
}

/// File `k` of built-in game files `texts` (a family's sample specs, named `PREFIXk.toml`),
/// all read once into `slot`.
pub fn sample_file(
    slot: &'static OnceLock<Vec<Option<Arc<GameFile>>>>,
    prefix: &str,
    texts: &[&str],
    k: usize,
) -> Option<Arc<GameFile>> {
    slot.get_or_init(|| {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| GameFile::load(&format!("{prefix}{i}.toml"), t).ok().map(Arc::new))
            .collect()
    })
    .get(k)
    .cloned()
    .flatten()
}

/// Line and column (1-based, the column in characters) of byte `at` of `text`.
pub fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let mut at = at;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// A name is letters, digits, `-` and `_`, 1 to 64 of them (it goes into keys and URLs).
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err("a name has 1 to 64 characters".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!("a name is letters, digits, '-' and '_' only, not '{c}'"));
    }
    Ok(())
}

/// The file name without folders and extension, made a valid name (`game` if nothing is left).
fn stem(source: &str) -> String {
    let base = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let base = base.split('.').next().unwrap_or(base);
    let name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let name = name.trim_matches('-');
    if name.is_empty() {
        "game".into()
    } else {
        name.to_string()
    }
}

/// A script's `name = "..."` at the start of a line, when it is a valid name.
fn script_name(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("name")?.trim_start().strip_prefix('=')?.trim();
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let inner = &rest[1..];
        let name = &inner[..inner.find(quote)?];
        check_name(name).is_ok().then(|| name.to_string())
    })
}

/// A script's canonical content: line ends as `\n`, no trailing spaces, no trailing blank lines.
fn canonical_script(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_errors_and_identity() {
        let f = GameFile::load(
            "k.toml",
            "kind = \"take-and-break\"\nname = \"k\"\ncode = \"0.77\"\n",
        )
        .unwrap();
        assert_eq!(f.kind(), FileKind::TakeAndBreak);
        assert_eq!(f.name(), "k");
        // Comments, spacing and key order do not change the identity.
        let g = GameFile::load(
            "other.toml",
            "# Kayles\ncode='0.77'\nkind = 'take-and-break'\nname = \"k\"",
        )
        .unwrap();
        assert_eq!(f.hash(), g.hash());
        assert_eq!(f.id(), g.id());
        let e = GameFile::load("x.toml", "name = \"x\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("needs a kind"), "{e}");
        let e = GameFile::load("x.toml", "\nkind = \"chess\"\n").unwrap_err();
        assert_eq!((e.file.as_str(), e.line, e.column), ("x.toml", 2, 8));
        assert!(
            e.to_string().starts_with("x.toml:2:8: unknown kind 'chess'"),
            "{e}"
        );
        let e = GameFile::load("x.toml", "kind = \"coins\"\nrule = [1, \n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 11), "{e}");
        let e = GameFile::load("x.toml", "kind = \"coins\"\nname = \"a b\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 8), "{e}");
        let s = GameFile::load("dir/my game.lua", "name = \"kayles\"\nfunction options(n) end\n").unwrap();
        assert_eq!((s.kind(), s.name()), (FileKind::Script, "kayles"));
        let t = GameFile::load("<request>", "function options(n)\r\n  return {}  \r\nend\n\n").unwrap();
        assert_eq!((t.kind(), t.name()), (FileKind::Script, "request"));
        let u = GameFile::load("<request>", "function options(n)\n  return {}\nend").unwrap();
        assert_eq!(t.hash(), u.hash());
        assert!(GameFile::load("a.toml", "").is_err());
        assert!(GameFile::load("a.toml", &"#".repeat(MAX_FILE_LEN + 1)).is_err());
    }

    #[test]
    fn line_and_column() {
        assert_eq!(line_column("ab\ncdé\nf", 0), (1, 1));
        assert_eq!(line_column("ab\ncdé\nf", 3), (2, 1));
        assert_eq!(line_column("ab\ncdé\nf", 8), (3, 1));
        assert_eq!(line_column("ab\ncdé\nf", 99), (3, 2));
    }
}
