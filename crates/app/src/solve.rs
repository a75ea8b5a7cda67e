//! Solving one position, for every front end: the request, the answer, and the one function
//! that turns the first into the second (engine choice, misère check, limits, the store).
//! The CLI prints the answer, the server sends it as JSON: both call [`solve`].

use crate::cancel::{Bounded, Stop};
use crate::store;
use grundy_core::{Convention, Game, Outcome};
use grundy_games::family::{BoardView, Engine, Family, FamilyOptions, RegistryError};
use grundy_games::registry::{self, with_game, FamilyInfo, WithGame};
use grundy_solve::{analysis::Analyzer, Analysis, SolveError};
use grundy_store::Store;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits that keep one request within its means: the server's by default, the user's at
/// a terminal ([`Limits::local`]).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Positions an engine may store for one request before giving up.
    pub max_positions: usize,
    /// Entries the pruned search's tables may hold before it gives up; `None`: the same as
    /// `max_positions`. Its compact table forgets the least valuable answers once it stops
    /// growing (at a share of the memory budget), so a search held by nothing else runs on
    /// within its memory: the command line leaves it unbounded unless `--max-positions`
    /// is given.
    pub search_positions: Option<usize>,
    /// Most moves a position may have (estimated before anything is generated).
    pub max_moves: u64,
    /// Longest position text accepted, in bytes.
    pub max_position_len: usize,
    /// Largest side of a table or length of a sequence asked of `/api/table`.
    pub max_table: usize,
    /// Set by the server when the request's time is up: the search then winds down at once
    /// (its result is thrown away) and the solve answers 504.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Bulk tables of heap values only up to 2^20 heaps (larger heaps go to the memo engine
    /// and its limits), rather than up to [`grundy_games::heap::HEAP_TABLE_MAX`].
    pub small_heap_tables: bool,
    /// Bytes of memory one solve may add to what is in use when it begins (the server's
    /// share of its budget for one request); `None`: only the process budget
    /// ([`grundy_core::memory::set_budget`]) bounds it.
    pub memory: Option<u64>,
    /// Longest answer, in bytes of JSON, that may be built (estimated before solving: every
    /// move carries the position it leads to).
    pub max_response: u64,
    /// Threads the pruned search may use (1: the calling thread alone; the answers are the
    /// same on any number).
    pub threads: usize,
}

/// The server's cap on the size of one answer: 8 MiB of JSON.
pub const MAX_RESPONSE: u64 = 8 << 20;

/// Bytes of JSON an answer takes for each of its moves beside the text of the position
/// after it (the move's own fields): a lower bound, for the size of answers up front.
const BYTES_PER_MOVE: u64 = 160;

/// Bytes of memory a solve needs for each move of the position, whatever the game: the
/// move in the answer ([`MoveOut`]), before the positions and moves of the game are
/// counted. A lower bound, for refusals before the position is read.
const MEMORY_PER_MOVE: u64 = std::mem::size_of::<MoveOut>() as u64;

impl Default for Limits {
    /// The server's limits.
    fn default() -> Self {
        Limits {
            max_positions: 2_000_000,
            search_positions: None,
            max_moves: 5_000,
            max_position_len: 16 * 1024,
            max_table: 40,
            cancel: None,
            small_heap_tables: true,
            memory: None,
            max_response: MAX_RESPONSE,
            threads: 1,
        }
    }
}

impl Limits {
    /// Entries the pruned search may hold: [`Limits::search_positions`], else
    /// [`Limits::max_positions`].
    pub fn search_limit(&self) -> usize {
        self.search_positions.unwrap_or(self.max_positions)
    }

    /// The limits of a command run by the user at a terminal: only `max_positions` stored
    /// positions; positions of any size, full heap tables.
    pub fn local(max_positions: usize) -> Limits {
        Limits {
            max_positions,
            search_positions: None,
            max_moves: u64::MAX,
            max_position_len: usize::MAX,
            max_table: usize::MAX,
            cancel: None,
            small_heap_tables: false,
            memory: None,
            max_response: u64::MAX,
            threads: 1,
        }
    }
}

/// What kind of failure an [`AppError`] is; front ends map kinds to their codes (the
/// command line to exit 2 for the user's input and 1 for a limit, the server to a status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong: a bad position, option or field; misère where it is not defined.
    BadInput,
    /// No family has the name asked for.
    UnknownFamily,
    /// The input is longer than accepted.
    TooLarge,
    /// The position is too large for the limits (moves), or the solve failed.
    Limit,
    /// The search stopped at its limit of stored positions (a larger limit might answer).
    PositionLimit,
    /// The solve was stopped from outside (its time was up).
    Cancelled,
    /// The solve stopped at its memory limit (the budget, or the request's share of it),
    /// or would need more memory than it has and was refused up front.
    Memory,
}

/// Why a request could not be answered: its kind and a message for a person.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong, for a person.
    pub message: String,
}

impl AppError {
    /// An error of this kind with this message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        AppError {
            kind,
            message: message.into(),
        }
    }

    /// A bad request.
    pub fn bad(message: impl Into<String>) -> Self {
        AppError::new(ErrorKind::BadInput, message)
    }

    /// Whether the user's input is at fault (rather than a limit or a stop).
    pub fn is_input(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::BadInput | ErrorKind::UnknownFamily | ErrorKind::TooLarge
        )
    }
}

impl From<RegistryError> for AppError {
    fn from(e: RegistryError) -> Self {
        let kind = match e {
            RegistryError::UnknownFamily { .. } => ErrorKind::UnknownFamily,
            RegistryError::BadCode { .. }
            | RegistryError::BadOption { .. }
            | RegistryError::BadPosition { .. }
            | RegistryError::Unsupported(_)
            | RegistryError::BadGame(_) => ErrorKind::BadInput,
        };
        AppError::new(kind, e.to_string())
    }
}

impl From<SolveError> for AppError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Limit(n) => AppError::new(
                ErrorKind::PositionLimit,
                format!("gave up after storing {n} positions: too large to solve within the limit of {n} stored positions"),
            ),
            // A game whose moves come back to a position is wrongly defined (a game file).
            SolveError::Cycle(_) => AppError::new(ErrorKind::BadInput, e.to_string()),
            other => AppError::new(ErrorKind::Limit, other.to_string()),
        }
    }
}

/// A position of a family and what to compute: the body of `POST /api/solve`, and what
/// `grundy solve` and `grundy play` ask.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    /// Family name (`GET /api/families`); ignored when `game` is given.
    #[serde(default)]
    pub family: String,
    /// A game file's text (a TOML spec or a Lua script, docs/game-files.md): the game is
    /// the file's, whatever `family` says.
    #[serde(default)]
    pub game: Option<String>,
    /// The position in the family's notation (docs/games.md); for `graph`, an edge list
    /// (or empty with `board`).
    #[serde(default)]
    pub position: String,
    /// Misère play (the player who cannot move wins).
    #[serde(default)]
    pub misere: bool,
    /// Also compute remoteness, for the position and every move.
    #[serde(default)]
    pub remoteness: bool,
    /// Built-in board of the graph games (`maoershan`, `path:N`, `grid:RxC`, ...).
    #[serde(default)]
    pub board: Option<String>,
    /// Edge list of the host graph for `points` (one edge `P Q` a line).
    #[serde(default)]
    pub graph: Option<String>,
    /// Rule of the graph games (`one-or-two`, `take-vertex`, `node-kayles`, `arc-kayles`).
    #[serde(default)]
    pub rule: Option<String>,
    /// Subtraction set of the `subtraction` family (`"1,3,4"`: the game `sub:1,3,4`).
    #[serde(default)]
    pub set: Option<String>,
    /// Seconds the server may spend on this request, a positive number; the server's own
    /// limit (`grundy serve --timeout`) applies when it is shorter. Honoured by `grundy
    /// serve` (its HTTP 504 then names this limit); the command line has `--timeout`.
    #[serde(default)]
    pub timeout: Option<f64>,
}

/// One move of an analysed position.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct MoveOut {
    /// The move in the family's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Grundy value after the move (`null` under misère or when undefined).
    pub grundy: Option<u64>,
    /// Outcome after the move, for the player then to move.
    pub outcome: Outcome,
    /// Whether this move wins (leads to a second-player win, or wins at once).
    pub wins: bool,
    /// Remoteness after the move, when asked for.
    pub remoteness: Option<u32>,
    /// The position the move leads to, in the family's notation (for the graph family, as
    /// a `points` position on the same graph).
    pub position_after: String,
    /// Whether the move ends the game at once with a win for the player who made it (three
    /// in a row, cutting off a 1×1).
    pub ends_game: bool,
}

impl MoveOut {
    /// Whether the move leaves a position with no move at all (the game is then over: under
    /// normal play the player who made it wins, under misère play loses), known from its
    /// remoteness 0: `false` when remoteness was not asked for. A move that [`ends_game`]
    /// at once is not counted here. Front ends that play a game to its end (`grundy play`,
    /// the web page) ask for remoteness and stop on such a move instead of solving the
    /// position it leads to.
    ///
    /// [`ends_game`]: MoveOut::ends_game
    pub fn leaves_no_move(&self) -> bool {
        !self.ends_game && self.remoteness == Some(0)
    }
}

/// A graph to draw, for the graph games.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct GraphOut {
    /// Name of the board.
    pub name: String,
    /// Number of points, numbered from 1.
    pub points: usize,
    /// Edges as pairs of point numbers (from 1).
    pub edges: Vec<[usize; 2]>,
}

/// The answer to a [`SolveRequest`], whichever front end asked.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct SolveResponse {
    /// Canonical family name.
    pub family: String,
    /// The position as the family writes it.
    pub position: String,
    /// `normal` or `misere`.
    pub convention: Convention,
    /// Whether misère play is available for this family.
    pub misere_available: bool,
    /// Grundy value (`null` under misère play or when an immediate win decides the game).
    pub grundy: Option<u64>,
    /// `first` (the player to move wins) or `second`.
    pub outcome: Outcome,
    /// Remoteness of the position, when asked for.
    pub remoteness: Option<u32>,
    /// Every winning move, in the family's notation.
    pub winning_moves: Vec<String>,
    /// Every legal move with its result.
    pub moves: Vec<MoveOut>,
    /// The move perfect play chooses (win fastest, lose slowest when remoteness was asked
    /// for); `null` when there is no move.
    pub best_move: Option<String>,
    /// The host graph, for the graph games.
    pub graph: Option<GraphOut>,
    /// The position as the page draws it (`kind`: `heaps`, `grid`, `strip`, `sheets`,
    /// `columns` or `graph`, with the fields of that kind).
    pub board: BoardView,
}

/// The families the server lists: every named family of the registry, then the named games
/// of the families named by codes (any other code works through the API too).
pub fn families() -> Vec<FamilyEntry> {
    let entry = |name, description, d: &'static grundy_games::family::Description| FamilyEntry {
        name,
        description,
        example: d.example,
        misere: d.misere,
        table: d.table.is_some(),
    };
    let mut all: Vec<FamilyEntry> = registry::named().map(|d| entry(d.name, d.notation, d)).collect();
    for d in registry::DESCRIPTIONS {
        all.extend(d.presets.iter().map(|&(name, about)| entry(name, about, d)));
    }
    all
}

/// A family as `GET /api/families` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyEntry {
    /// The name to ask for.
    pub name: &'static str,
    /// One line on it and its notation.
    pub description: &'static str,
    /// A position to start from, in its notation.
    pub example: &'static str,
    /// Whether misère play is defined.
    pub misere: bool,
    /// Whether it has a table (`POST /api/table`).
    pub table: bool,
}

/// An upper estimate of the number of moves of a position, from its text alone, so a
/// position with millions of moves is refused before any is generated (the family's own
/// estimate; 0 for an unknown family, which is refused next).
pub fn estimate_moves(family: &str, opts: &FamilyOptions, text: &str) -> u64 {
    registry::estimate_moves(family, opts, text).unwrap_or(0)
}

/// The options of a request's game: its board, graph, rule and set, the game file it
/// carries (read through [`crate::gamefile::load`], named `source` in errors), and the bulk
/// heap values of `limits`.
pub fn family_options(
    req: &SolveRequest,
    limits: &Limits,
    source: Option<&str>,
) -> Result<FamilyOptions, AppError> {
    let mut opts = options(req, limits);
    if let Some(text) = &req.game {
        opts.game = Some(crate::gamefile::load(source.unwrap_or("<request>"), text)?);
    }
    Ok(opts)
}

fn options(req: &SolveRequest, limits: &Limits) -> FamilyOptions {
    let bulk: grundy_games::family::HeapValues = if limits.small_heap_tables {
        small_heap_values
    } else {
        heap_values
    };
    FamilyOptions {
        board: req.board.clone(),
        graph: req.graph.clone().map(|t| ("graph".to_string(), t)),
        rule: req.rule.clone(),
        set: req.set.clone(),
        game: None,
        // Normal-play values only: misère play never reads them (a table of a million
        // heaps would cost more than the misère answer by the quotient).
        heap_values: (!req.misere).then_some(bulk),
    }
}

/// Bulk heap values G(0), ..., G(count − 1) by the sequence engine, for heap games.
/// A table that would not fit in the memory budget, or past
/// [`grundy_solve::seq::quick_table_limit`], is not built (`None`: the memo engine and its
/// limits answer instead).
pub fn heap_values(rules: &grundy_core::HeapRules, count: u64) -> Option<Vec<u64>> {
    // The engine's cells (2 bytes a heap, 4 past 2^16 values) and the table (8 bytes).
    if count.saturating_mul(12) > grundy_core::memory::Share::whole().room() {
        return None;
    }
    // The general take-and-break engine is quadratic: no table for large heaps.
    if count > grundy_solve::seq::quick_table_limit(rules) {
        return None;
    }
    grundy_solve::seq::values(rules, count).ok()
}

/// [`heap_values`] up to 2^20 heaps, so a request cannot ask for an absurd table: larger
/// heaps fall back to the memo engine and its limits.
fn small_heap_values(rules: &grundy_core::HeapRules, count: u64) -> Option<Vec<u64>> {
    if count > 1 << 20 {
        return None;
    }
    heap_values(rules, count)
}

fn check_text(text: &str, limits: &Limits) -> Result<(), AppError> {
    if text.len() > limits.max_position_len {
        return Err(AppError::new(
            ErrorKind::TooLarge,
            format!(
                "position text of {} bytes is longer than the limit of {}",
                text.len(),
                limits.max_position_len
            ),
        ));
    }
    Ok(())
}

/// Which engine answers normal play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    /// The family's preferred engine ([`grundy_games::family::Description::engine`]).
    #[default]
    Auto,
    /// Memoised Grundy values of every component met.
    Memo,
    /// Pruned search.
    Search,
}

impl EngineChoice {
    /// Whether normal play is answered by the pruned search for the family of `info`.
    pub fn searches(self, info: &FamilyInfo) -> bool {
        match self {
            EngineChoice::Auto => info.description.engine == Engine::Search,
            EngineChoice::Memo => false,
            EngineChoice::Search => true,
        }
    }
}

/// The convention asked for, if the family of `info` has it: misère play is refused for
/// families whose games end by a winning move (the one misère check of every front end).
pub fn convention_of(info: &FamilyInfo, misere: bool) -> Result<Convention, AppError> {
    if misere && !info.misere {
        return Err(AppError::bad(format!(
            "misère play is not available for {}: its rules end the game by a winning move, not by a lack of moves",
            info.name
        )));
    }
    Ok(Convention::from_misere(misere))
}

/// How a solve runs, beside what is asked: what the front end wants computed, where answers
/// are kept, and whom to tell of progress. Two front ends asking the same [`SolveRequest`]
/// get the same answer whatever these say (but for the values of moves, see `all_moves`,
/// and the list of every move, see `list_moves`).
pub struct SolveOptions<'a> {
    /// The normal-play engine.
    pub engine: EngineChoice,
    /// Value every move, not only find the winning ones (the pruned search values the
    /// moves only when asked; the memo engine always does).
    pub all_moves: bool,
    /// List every move in the answer ([`SolveResponse::moves`], from which
    /// [`SolveResponse::best_move`] is chosen). `false` for a front end that shows only the
    /// winning moves (`grundy solve` without `--all-moves`): the answer's `moves` is then
    /// empty and `best_move` none (`winning_moves` is whole), and a misère sum of heaps
    /// answered by its quotient does not write the texts of its other moves (a sum of huge
    /// heaps has millions).
    pub list_moves: bool,
    /// The Grundy value and the outcome alone (`grundy solve --value-only`): no move is
    /// looked at on its own, so the answer's `winning_moves` and `moves` are empty. Only
    /// the pruned search answers it (normal play, no remoteness: anything else is refused
    /// as bad input), and `all_moves` must be off. Kept in the store under its own key
    /// (engine `search-value`), so it is never read back as an analysis; it is answered
    /// from a full analysis the store already holds for the position.
    pub value_only: bool,
    /// The store answers are read from and kept in.
    pub store: Option<&'a Store>,
    /// Keep answers that took at least this long (`Duration::ZERO`: every answer).
    pub keep_after: Duration,
    /// Where the `graph` text came from (a file's path), for errors.
    pub graph_source: Option<String>,
    /// Where the `game` text came from (a file's path), for errors.
    pub game_source: Option<String>,
    /// Called about once a second by a long pruned search.
    pub progress: Option<&'a mut dyn FnMut(&grundy_solve::search::Progress)>,
    /// Called once, before a pruned search estimated to take [`LONG_SEARCH_SECONDS`] of one
    /// core or more, with the estimate (what it will hold, its memory and time).
    pub notice: Option<&'a mut dyn FnMut(&str)>,
}

/// Estimated core seconds from which a pruned search is announced with its estimate
/// ([`SolveOptions::notice`]): ten minutes.
pub const LONG_SEARCH_SECONDS: f64 = 600.0;

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions {
            engine: EngineChoice::Auto,
            all_moves: true,
            list_moves: true,
            value_only: false,
            store: None,
            keep_after: Duration::ZERO,
            graph_source: None,
            game_source: None,
            progress: None,
            notice: None,
        }
    }
}

/// Answers a request with no store and every move valued, within `limits` (the server's
/// `POST /api/solve` runs it off the async threads; see [`solve_with`]).
pub fn solve(req: &SolveRequest, limits: &Limits) -> Result<SolveResponse, AppError> {
    solve_with(req, limits, SolveOptions::default())
}

/// Answers a request: reads the position through its family, refuses what the limits or
/// the family do not allow, answers from the store when it holds the answer, else solves
/// by the engine chosen and keeps the answer.
pub fn solve_with(
    req: &SolveRequest,
    limits: &Limits,
    opts: SolveOptions<'_>,
) -> Result<SolveResponse, AppError> {
    solve_checkpointed(req, limits, opts, &Checkpointing::default())
}

/// Checkpoints of a long pruned search (`grundy solve --checkpoint FILE --resume FILE`).
#[derive(Clone, Debug, Default)]
pub struct Checkpointing {
    /// Save the search's progress and table to this file (after each settled move, every so
    /// often in between, and when a limit stops it).
    pub checkpoint: Option<std::path::PathBuf>,
    /// Continue from this checkpoint (and keep saving to it unless `checkpoint` is given).
    pub resume: Option<std::path::PathBuf>,
}

impl Checkpointing {
    /// Where progress is saved, if anywhere.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.checkpoint.as_deref().or(self.resume.as_deref())
    }
}

/// [`solve_with`], saving the pruned search's progress to a checkpoint and resuming from
/// one as `ckpt` says (a checkpoint of another game or position is refused as bad input;
/// an engine other than the pruned search takes no checkpoint).
pub fn solve_checkpointed(
    req: &SolveRequest,
    limits: &Limits,
    opts: SolveOptions<'_>,
    ckpt: &Checkpointing,
) -> Result<SolveResponse, AppError> {
    check_text(&req.position, limits)?;
    let mut family_opts = family_options(req, limits, opts.game_source.as_deref())?;
    let est = estimate_moves(&req.family, &family_opts, &req.position);
    if est > limits.max_moves {
        return Err(AppError::new(
            ErrorKind::Limit,
            format!(
                "position too large: about {est} moves, more than the limit of {}",
                limits.max_moves
            ),
        ));
    }
    let stop = Stop::new(limits);
    if let (Some(source), Some(graph)) = (&opts.graph_source, &mut family_opts.graph) {
        graph.0 = source.clone();
    }
    let action = Solve {
        req,
        limits,
        opts,
        stop,
        estimate: est,
        ckpt,
        resumed: None,
        identity: None,
    };
    with_game(&req.family, &family_opts, &req.position, action)
}

struct Solve<'r, 'o> {
    req: &'r SolveRequest,
    limits: &'r Limits,
    opts: SolveOptions<'o>,
    stop: Stop,
    /// The family's estimate of the moves (an upper bound).
    estimate: u64,
    /// Checkpoints to write and read.
    ckpt: &'r Checkpointing,
    /// The checkpoint resumed from, read and checked.
    resumed: Option<grundy_solve::search_checkpoint::Saved>,
    /// What the checkpoints of this solve belong to.
    identity: Option<grundy_solve::search_checkpoint::Identity>,
}

/// The refusal of a position whose answer alone would not fit in the memory left.
fn too_big_for_memory(moves: u64, bytes: u64, stop: &Stop, about: &str) -> AppError {
    AppError::new(
        ErrorKind::Memory,
        format!(
            "position too large for the memory budget: {about} {moves} moves, whose answer alone needs at least {}, more than the {} left (raise it with --memory-budget SIZE)",
            grundy_core::memory::human_bytes(bytes),
            grundy_core::memory::human_bytes(stop.room())
        ),
    )
}

impl Solve<'_, '_> {
    /// Reads and checks the checkpoint to resume from, if any, and says what the
    /// checkpoints of this solve belong to: the family, the options that shape its game,
    /// the position as the game writes it, and whether every move is valued.
    fn prepare_checkpoint(&mut self, family: &str, position: &str, search: bool) -> Result<(), AppError> {
        use grundy_solve::search_checkpoint::{read, Identity};
        if !search {
            return Err(AppError::new(
                ErrorKind::BadInput,
                "--checkpoint and --resume are for the pruned search (normal play, the search engine), which this solve does not use",
            ));
        }
        let req = self.req;
        let mut game = family.to_string();
        for (name, value) in [("board", &req.board), ("rule", &req.rule), ("set", &req.set)] {
            if let Some(v) = value {
                game.push_str(&format!(" --{name} {v}"));
            }
        }
        for (name, text) in [("graph", &req.graph), ("game", &req.game)] {
            if let Some(t) = text {
                let mut sum = grundy_solve::seq::checkpoint::Checksum::default();
                for b in t.bytes() {
                    sum.add(b as u64);
                }
                game.push_str(&format!(" --{name} {:016x}", sum.0));
            }
        }
        if self.opts.value_only {
            game.push_str(" --value-only");
        }
        let identity = Identity {
            game,
            position: position.to_string(),
            values_of_moves: self.opts.all_moves,
        };
        if let Some(path) = &self.ckpt.resume {
            let saved = read(path).map_err(|e| AppError::new(ErrorKind::BadInput, e.to_string()))?;
            if saved.identity != identity {
                let show = |i: &Identity| {
                    format!(
                        "{} {}{}",
                        i.game,
                        grundy_core::parse::shorten(&i.position),
                        if i.values_of_moves {
                            " with every move valued (--all-moves)"
                        } else {
                            ""
                        }
                    )
                };
                return Err(AppError::new(
                    ErrorKind::BadInput,
                    format!(
                        "checkpoint {} is of {}, not of {}: refused",
                        path.display(),
                        show(&saved.identity),
                        show(&identity)
                    ),
                ));
            }
            self.resumed = Some(saved);
        }
        self.identity = Some(identity);
        Ok(())
    }

    /// The analysis of `p` by the engine chosen (`search`: the pruned search).
    fn analyze<G: Game>(
        &mut self,
        game: &G,
        p: &G::Position,
        convention: Convention,
        search: bool,
    ) -> Result<Analysis<G::Move>, SolveError> {
        if !search {
            return Analyzer::with_limit(game, self.limits.max_positions)
                .with_remoteness(self.req.remoteness)
                .analyze(p, convention);
        }
        let limit = self.limits.search_limit();
        let mut last = Instant::now();
        let progress = &mut self.opts.progress;
        let saver = match (self.ckpt.path(), &self.identity) {
            (Some(path), Some(id)) => Some(grundy_solve::search_checkpoint::Saver::new(
                path.to_path_buf(),
                id.clone(),
                self.resumed.as_ref(),
            )),
            _ => None,
        };
        let progress = |pr| {
            if let Some(f) = progress.as_mut() {
                if last.elapsed() >= Duration::from_secs(1) {
                    last = Instant::now();
                    f(&pr);
                }
            }
        };
        let threads = self.limits.threads;
        let resumed = self.resumed.take();
        if self.opts.value_only {
            return grundy_solve::search_parallel::value_normal_threads(
                game, p, limit, threads, progress, resumed, saver,
            );
        }
        grundy_solve::search_parallel::analyze_normal_threads(
            game,
            p,
            self.opts.all_moves,
            limit,
            threads,
            progress,
            resumed,
            saver,
        )
    }
}

/// The host graph of a board, for the graph games.
fn graph_of(board: &BoardView) -> Option<GraphOut> {
    match board {
        BoardView::Graph {
            name, points, edges, ..
        } => Some(GraphOut {
            name: name.clone(),
            points: *points,
            edges: edges.clone(),
        }),
        _ => None,
    }
}

/// How a misère sum of heaps is answered through its game's quotient.
enum ByQuotient<M> {
    /// The quotient covers the heaps: every outcome is a product.
    Products(Box<grundy_solve::quotient::Quotient>),
    /// The analysis, searched with every sum of the heaps the quotient covers a product.
    Analysis(Analysis<M>),
}

/// Options between two looks at the solve's stop, while the moves of a sum are valued.
const PRODUCTS_CHECK: u32 = 4096;

impl Solve<'_, '_> {
    /// The answer as the front end asked it: without the list of moves when it does not
    /// want it ([`SolveOptions::list_moves`]).
    fn listed(&self, mut answer: SolveResponse) -> SolveResponse {
        if !self.opts.list_moves {
            answer.moves = Vec::new();
            answer.best_move = None;
        }
        answer
    }

    /// The misère analysis of a sum of heaps through the game's quotient
    /// ([`crate::quotient::misere_outcomes`]): the quotient itself when it covers the heaps
    /// (then every outcome is a product: [`Solve::by_products`]), else the outcome and every
    /// move with the outcome it leads to, searched with every covered sum a product.
    #[allow(clippy::too_many_arguments)]
    fn misere_by_quotient<F: Family>(
        &self,
        family: &F,
        game: &F::Game,
        p: &<F::Game as Game>::Position,
        name: &str,
        rules: &grundy_core::HeapRules,
        heaps: &[u64],
        stop: &Stop,
    ) -> Result<ByQuotient<<F::Game as Game>::Move>, AppError> {
        let halt = || stop.stopped();
        // The moves, generated only when a search needs the sums they lead to.
        let mut after = Vec::new();
        let mut after_heaps = || -> Vec<Vec<u64>> {
            if after.is_empty() {
                game.moves(p, |m, next| after.push((m, next)));
            }
            after
                .iter()
                .map(|(_, next)| family.heaps(game, next).map(|(_, h)| h).unwrap_or_default())
                .collect()
        };
        // On an error, `stop.stopped()` first: a search that stopped at the memory budget
        // then ends with the solve's own message (its budget or its share).
        let found = crate::quotient::misere_outcomes(
            name,
            rules,
            heaps,
            &mut after_heaps,
            self.opts.store,
            &halt,
            self.limits.max_positions,
        );
        let (outcome, after_outcomes) = match found {
            Ok(crate::quotient::MisereAnswer::Products(q)) => {
                if family.heap_notation(game).is_some() && game.immediate_wins(p).is_none() {
                    return Ok(ByQuotient::Products(q));
                }
                // A heap family that does not write its moves itself: each move generated
                // and its sum a product.
                let sums = after_heaps();
                let Some(outcome) = q.outcome(heaps) else {
                    return Err(AppError::new(
                        ErrorKind::Limit,
                        "the quotient does not cover the heaps",
                    ));
                };
                let rest = sums.iter().map(|h| q.outcome(h)).collect::<Option<Vec<_>>>();
                let Some(rest) = rest else {
                    return Err(AppError::new(
                        ErrorKind::Limit,
                        "the quotient does not cover the heaps",
                    ));
                };
                (outcome, rest)
            }
            Ok(crate::quotient::MisereAnswer::Searched(o, rest)) => (o, rest),
            Err(e) => {
                let _ = stop.stopped();
                return stop.finish(Err(e));
            }
        };
        let moves: Vec<_> = after
            .into_iter()
            .zip(after_outcomes)
            .map(|((mv, _), o)| grundy_solve::analysis::MoveReport {
                mv,
                grundy: None,
                outcome: o,
                remoteness: None,
            })
            .collect();
        let winning_moves = moves
            .iter()
            .filter(|r| r.outcome == Outcome::Second)
            .map(|r| r.mv.clone())
            .collect();
        Ok(ByQuotient::Analysis(Analysis {
            grundy: None,
            outcome,
            winning_moves,
            moves,
            remoteness: None,
        }))
    }

    /// The answer for a misère sum of `heaps` that the quotient `q` covers, every outcome a
    /// product ([`crate::quotient::ByProducts`]), the moves in the order of [`Game::moves`]
    /// (the options of each heap in turn: [`Family::heaps`]) and written by the family's
    /// [`Family::heap_notation`], without generating them: the same answer as the
    /// analysis of the generated moves gives, in time linear in the moves.
    #[allow(clippy::too_many_arguments)]
    fn by_products<F: Family>(
        &self,
        family: &F,
        game: &F::Game,
        p: &<F::Game as Game>::Position,
        info: &FamilyInfo,
        position: String,
        q: &grundy_solve::quotient::Quotient,
        heaps: &[u64],
        count: u64,
        stop: &Stop,
    ) -> Result<SolveResponse, AppError> {
        let uncovered = || AppError::new(ErrorKind::Limit, "the quotient does not cover the heaps");
        let (Some(notation), Some(sum)) = (
            family.heap_notation(game),
            crate::quotient::ByProducts::new(q, heaps),
        ) else {
            return Err(uncovered());
        };
        let rules = q.rules();
        let list = self.opts.list_moves;
        // `count` moves (counted and checked against the limits and the memory already).
        let mut moves = Vec::with_capacity(if list { count as usize } else { 0 });
        let mut winning = Vec::new();
        let mut after_heaps: Vec<u64> = Vec::with_capacity(heaps.len() + 4);
        let (mut n, mut halted, mut bad) = (0u32, false, false);
        for (i, &h) in heaps.iter().enumerate() {
            if h == 0 {
                continue;
            }
            rules.heap_options(h, |to| {
                if halted || bad {
                    return;
                }
                n = n.wrapping_add(1);
                if n % PRODUCTS_CHECK == 0 && stop.stopped() {
                    halted = true;
                    return;
                }
                let Some(outcome) = sum.after(i, to) else {
                    bad = true;
                    return;
                };
                let wins = outcome == Outcome::Second;
                if !wins && !list {
                    return;
                }
                let mut mv = String::new();
                (notation.write_move)(&mut mv, i, h, to);
                if wins {
                    winning.push(if list { mv.clone() } else { std::mem::take(&mut mv) });
                }
                if list {
                    after_heaps.clear();
                    after_heaps.extend_from_slice(&heaps[..i]);
                    after_heaps.extend_from_slice(to);
                    after_heaps.extend_from_slice(&heaps[i + 1..]);
                    let mut position_after = String::new();
                    (notation.write_position)(&mut position_after, &after_heaps);
                    moves.push(MoveOut {
                        mv,
                        grundy: None,
                        outcome,
                        wins,
                        remoteness: None,
                        position_after,
                        ends_game: false,
                    });
                }
            });
        }
        if bad {
            return Err(uncovered());
        }
        stop.finish(Ok::<(), AppError>(()))?;
        if halted {
            // Stopped without a reason finish() knows of (cannot happen: the stop stays).
            return Err(crate::cancel::cancelled());
        }
        let best_move = best_move(&moves).map(|i| moves[i].mv.clone());
        let board = family.board(game, p);
        Ok(SolveResponse {
            family: info.name.clone(),
            position,
            convention: Convention::Misere,
            misere_available: info.misere,
            grundy: None,
            outcome: sum.outcome(),
            remoteness: None,
            winning_moves: winning,
            moves,
            best_move,
            graph: graph_of(&board),
            board,
        })
    }
}

impl WithGame for Solve<'_, '_> {
    type Output = SolveResponse;
    type Error = AppError;

    fn run<F: Family>(
        mut self,
        family: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<SolveResponse, AppError> {
        let req = self.req;
        let convention = convention_of(info, req.misere)?;
        // The estimate bounds the moves from above: refuse, before a move is generated, only
        // what could not fit even if every move took the least an answer needs for it (its
        // fields, and the text of the position after it, at least half as long as this one).
        let least = self
            .estimate
            .saturating_mul(MEMORY_PER_MOVE + req.position.len() as u64 / 2);
        if least > self.stop.room() {
            return Err(too_big_for_memory(self.estimate, least, &self.stop, "about"));
        }
        // Count the moves before keeping any (the estimate is only a first guard): a heap
        // game's by its rules, without generating them (Family::heaps says they are the
        // options of each heap in turn).
        let heap_sum = family.heaps(game, &p);
        let notation = family.heap_notation(game);
        let mut count = 0u64;
        match (&heap_sum, notation) {
            (Some((rules, heaps)), Some(_)) => {
                for &h in heaps.iter().filter(|&&h| h > 0) {
                    rules.heap_options(h, |_| count += 1);
                }
            }
            _ => game.moves(&p, |_, _| count += 1),
        }
        if count > self.limits.max_moves {
            return Err(AppError::new(
                ErrorKind::Limit,
                format!(
                    "position too large: {count} moves, more than the limit of {}",
                    self.limits.max_moves
                ),
            ));
        }
        let search = self.opts.engine.searches(info) && convention == Convention::Normal && !req.remoteness;
        if self.opts.value_only {
            refuse_value_only(&info.name, search, self.opts.all_moves)?;
        }
        let position = game.format_position(&p);
        // Every move carries the position after it: the answer's size is known up front.
        let answer_bytes = count.saturating_mul(BYTES_PER_MOVE + position.len() as u64);
        if answer_bytes > self.limits.max_response {
            return Err(AppError::new(
                ErrorKind::Limit,
                format!(
                    "the answer would be too large: {count} moves, each with the position after it (about {} characters), about {} in all, more than the limit of {} an answer may take",
                    position.len(),
                    grundy_core::memory::human_bytes(answer_bytes),
                    grundy_core::memory::human_bytes(self.limits.max_response)
                ),
            ));
        }
        // In memory, each move is held as the game's move and position (while the engines
        // value them), as a report, and in the answer with its texts.
        let per_move = (std::mem::size_of::<(<F::Game as Game>::Move, <F::Game as Game>::Position)>()
            + std::mem::size_of::<grundy_solve::analysis::MoveReport<<F::Game as Game>::Move>>()
            + std::mem::size_of::<MoveOut>()) as u64
            + 2 * position.len() as u64;
        let memory_bytes = count.saturating_mul(per_move);
        if memory_bytes > self.stop.room() {
            return Err(too_big_for_memory(count, memory_bytes, &self.stop, "its"));
        }
        let key = store::answer_key(
            &info.name,
            convention,
            req,
            &family.position_id(game, &p),
            match (search, self.opts.all_moves) {
                (false, _) => None,
                _ if self.opts.value_only => Some("search-value"),
                (true, false) => Some("search"),
                (true, true) => Some("search-all"),
            },
            &position,
        );
        if self.ckpt.path().is_some() {
            self.prepare_checkpoint(&info.name, &position, search)?;
        }
        let kept = self.opts.store;
        if let Some(found) = kept.and_then(|s| store::load_analysis(s, &key)) {
            return Ok(self.listed(found));
        }
        if self.opts.value_only {
            // A full analysis of the position, kept before, holds its value.
            for engine in ["search", "search-all"] {
                let full = store::answer_key(
                    &info.name,
                    convention,
                    req,
                    &family.position_id(game, &p),
                    Some(engine),
                    &position,
                );
                if let Some(mut found) = kept.and_then(|s| store::load_analysis(s, &full)) {
                    found.winning_moves.clear();
                    found.moves.clear();
                    found.best_move = None;
                    return Ok(found);
                }
            }
        }
        if search {
            if let Some(need) = family.search_need(game, &p) {
                let value_only = self.opts.value_only;
                refuse_beyond_reach(&info.name, &position, &need, value_only, self.limits, &self.stop)?;
                if need_seconds(&need, value_only) >= LONG_SEARCH_SECONDS {
                    if let Some(f) = self.opts.notice.as_mut() {
                        let threads = self.limits.threads.max(1);
                        f(&need_text(&info.name, &position, &need, value_only, threads));
                    }
                }
            }
        }
        let started = Instant::now();
        let stop = std::mem::replace(&mut self.stop, Stop::new(self.limits));
        let bounded = Bounded { game, stop: &stop };
        // Misère sums of heap games: by the game's misère quotient (grundy_app::quotient).
        // GRUNDY_NO_QUOTIENT=1: the whole-position search only (the baseline of the benchmarks).
        let heaps = match convention {
            Convention::Misere if !req.remoteness && std::env::var_os("GRUNDY_NO_QUOTIENT").is_none() => {
                heap_sum
            }
            _ => None,
        };
        let by_quotient = match heaps {
            Some((rules, heaps)) => {
                match self.misere_by_quotient(family, game, &p, &info.name, &rules, &heaps, &stop)? {
                    ByQuotient::Products(q) => {
                        // Every outcome a product: the answer is written straight from the
                        // rules, and not kept (it is quicker to compute again from the
                        // quotient the store keeps than to read back).
                        let answer =
                            self.by_products(family, game, &p, info, position, &q, &heaps, count, &stop)?;
                        return Ok(self.listed(answer));
                    }
                    ByQuotient::Analysis(a) => Some(a),
                }
            }
            None => None,
        };
        let a = match by_quotient {
            Some(a) => a,
            None => {
                let a = self.analyze(&bounded, &p, convention, search);
                bounded.finish(a)?
            }
        };
        let immediate = game.immediate_wins(&p).is_some();
        // The answer is built within the same limits as the solve.
        let mut after = Vec::with_capacity(a.moves.len());
        bounded.moves(&p, |_, q| after.push(game.format_position(&q)));
        bounded.finish(Ok::<(), AppError>(()))?;
        let winning: Vec<String> = a.winning_moves.iter().map(|m| game.format_move(m)).collect();
        let moves: Vec<MoveOut> = a
            .moves
            .iter()
            .zip(after)
            .map(|(r, position_after)| {
                let mv = game.format_move(&r.mv);
                let ends_game = immediate && winning.contains(&mv);
                MoveOut {
                    wins: ends_game || (!immediate && r.outcome == Outcome::Second),
                    grundy: if ends_game { None } else { r.grundy.map(|g| g.0) },
                    outcome: r.outcome,
                    remoteness: if ends_game { Some(0) } else { r.remoteness },
                    mv,
                    position_after,
                    ends_game,
                }
            })
            .collect();
        let best_move = best_move(&moves).map(|i| moves[i].mv.clone());
        let board = family.board(game, &p);
        let graph = graph_of(&board);
        let answer = SolveResponse {
            family: info.name.clone(),
            position,
            convention,
            misere_available: info.misere,
            grundy: a.grundy.map(|g| g.0),
            outcome: a.outcome,
            remoteness: a.remoteness,
            winning_moves: winning,
            moves,
            best_move,
            graph,
            board,
        };
        if let Some(s) = kept {
            if started.elapsed() >= self.opts.keep_after {
                store::save_analysis(s, &key, &answer);
            }
        }
        Ok(self.listed(answer))
    }
}

/// Refuses a value-only solve ([`SolveOptions::value_only`]) that the pruned search does not
/// answer (`search` false: misère play, remoteness, another engine) or that asks for the
/// values of the moves.
fn refuse_value_only(family: &str, search: bool, all_moves: bool) -> Result<(), AppError> {
    if all_moves {
        return Err(AppError::bad(
            "--value-only gives the position's value alone: it cannot list every move (--all-moves)",
        ));
    }
    if !search {
        return Err(AppError::bad(format!(
            "--value-only is for the pruned search in normal play (cram, or --engine search), which this solve of {family} does not use: misère play, --remoteness and the memo engine are refused"
        )));
    }
    Ok(())
}

/// How far past a limit an estimate must be before a position is refused up front: the
/// estimates are rough (a factor of a few on most boards, far more on a few), and a run
/// that reaches the limit stops cleanly anyway (with its checkpoint written when one is
/// asked).
const REFUSE_FACTOR: u64 = 4;

/// Refuses, before any search, a position whose estimated need ([`Family::search_need`]) is
/// more than [`REFUSE_FACTOR`] times what the limits allow: the entries held
/// (`--max-positions`: [`ErrorKind::PositionLimit`]) or the memory left
/// ([`ErrorKind::Memory`]). Both are limits, not bad input (exit 1): a larger one runs it.
fn refuse_beyond_reach(
    family: &str,
    position: &str,
    need: &grundy_games::family::SearchNeed,
    value_only: bool,
    limits: &Limits,
    stop: &Stop,
) -> Result<(), AppError> {
    let what = format!(
        "{family} {} is beyond the pruned search's limits: it would {}",
        grundy_core::parse::shorten(position),
        need_words(need, value_only)
    );
    if need.entries / REFUSE_FACTOR > limits.search_limit() as u64 {
        return Err(AppError::new(
            ErrorKind::PositionLimit,
            format!(
                "{what}, more than {REFUSE_FACTOR} times the limit of {} held entries: refused before starting",
                limits.search_limit()
            ),
        ));
    }
    if need.bytes / REFUSE_FACTOR > stop.room() {
        return Err(AppError::new(
            ErrorKind::Memory,
            format!(
                "{what}, more than {REFUSE_FACTOR} times the {} the memory budget leaves: refused before starting (raise it with --memory-budget SIZE)",
                grundy_core::memory::human_bytes(stop.room())
            ),
        ));
    }
    Ok(())
}

/// Seconds of one core a search is estimated to take: the value alone or the full analysis.
fn need_seconds(need: &grundy_games::family::SearchNeed, value_only: bool) -> f64 {
    if value_only {
        need.value_core_seconds
    } else {
        need.core_seconds
    }
}

/// What a search is estimated to need, in words: "hold about N table entries (...)".
fn need_words(need: &grundy_games::family::SearchNeed, value_only: bool) -> String {
    format!(
        "hold about {} table entries ({} of memory) and take about {} of one core for {} (estimated from {})",
        need.entries,
        grundy_core::memory::human_bytes(need.bytes),
        human_duration(need_seconds(need, value_only)),
        if value_only {
            "the value"
        } else {
            "the value and every move"
        },
        need.basis
    )
}

/// The notice of a long search ([`SolveOptions::notice`]) on `threads` threads. On several
/// threads each keeps a table of its own beside the one they share, and each may grow as
/// the estimate says (the 5×11 run on two threads held 2.74 GiB against an estimate of
/// 829 MiB for one table), so the notice gives what they may take together; the tables of
/// the whole process stay within half the memory budget (`code_table::doubling_fits`).
fn need_text(
    family: &str,
    position: &str,
    need: &grundy_games::family::SearchNeed,
    value_only: bool,
    threads: usize,
) -> String {
    let half = grundy_core::memory::budget_or_default() / 2;
    let together = if threads > 1 {
        let all = need.bytes.saturating_mul(threads as u64 + 1);
        format!(
            "; with {threads} threads, each with its own table beside the shared one, up to about {}",
            grundy_core::memory::human_bytes(all.min(half))
        )
    } else {
        String::new()
    };
    format!(
        "{family} {}: a long search; it may {}{together}. Its tables stay within half the memory budget ({}: they forget their least valuable answers past that)",
        grundy_core::parse::shorten(position),
        need_words(need, value_only),
        grundy_core::memory::human_bytes(half)
    )
}

/// Seconds as a person reads them: seconds, minutes, hours, days or years.
fn human_duration(secs: f64) -> String {
    let units = [
        (365.25 * 86400.0, "years"),
        (86400.0, "days"),
        (3600.0, "hours"),
        (60.0, "minutes"),
    ];
    for (size, name) in units {
        if secs >= 2.0 * size {
            return format!("{:.0} {name}", secs / size);
        }
    }
    format!("{secs:.0} seconds")
}

/// The index of the move perfect play chooses: a move that ends the game at once if there
/// is one; else a winning move, the fastest by remoteness; else (a lost position) the move
/// that holds out longest. `None` when there is no move.
pub fn best_move(moves: &[MoveOut]) -> Option<usize> {
    if let Some(i) = moves.iter().position(|m| m.ends_game) {
        return Some(i);
    }
    let winners = moves.iter().enumerate().filter(|(_, m)| m.wins);
    if let Some((i, _)) = winners.min_by_key(|(_, m)| m.remoteness.unwrap_or(0)) {
        return Some(i);
    }
    // Ties keep the first move: max_by_key would take the last.
    let mut best: Option<usize> = None;
    for (i, m) in moves.iter().enumerate() {
        if best.is_none_or(|b| m.remoteness.unwrap_or(0) > moves[b].remoteness.unwrap_or(0)) {
            best = Some(i);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(name: &str, wins: bool, remoteness: u32, ends_game: bool) -> MoveOut {
        MoveOut {
            mv: name.into(),
            grundy: None,
            outcome: if wins { Outcome::Second } else { Outcome::First },
            wins,
            remoteness: Some(remoteness),
            position_after: String::new(),
            ends_game,
        }
    }

    #[test]
    fn best_move_wins_fastest_and_loses_slowest() {
        assert_eq!(best_move(&[]), None);
        let winning = [
            mv("a", false, 1, false),
            mv("b", true, 6, false),
            mv("c", true, 2, false),
        ];
        assert_eq!(best_move(&winning), Some(2));
        let losing = [
            mv("a", false, 3, false),
            mv("b", false, 7, false),
            mv("c", false, 7, false),
        ];
        assert_eq!(best_move(&losing), Some(1));
        let immediate = [mv("a", true, 0, false), mv("b", true, 0, true)];
        assert_eq!(best_move(&immediate), Some(1));
    }

    #[test]
    fn estimates_bound_the_real_move_counts() {
        let limits = Limits {
            max_moves: u64::MAX,
            ..Limits::default()
        };
        for (family, text) in [
            ("nim", "3 5 7"),
            ("cutting", "4x3 2x5"),
            ("crosses", "..X......"),
            ("bombs", "..#/.#./#.#"),
        ] {
            let req = SolveRequest {
                family: family.into(),
                position: text.into(),
                ..SolveRequest::default()
            };
            let real = solve(&req, &limits).unwrap().moves.len() as u64;
            let est = estimate_moves(family, &FamilyOptions::default(), text);
            assert!(real <= est, "{family} {text}: {real} moves, estimated {est}");
        }
        assert_eq!(
            estimate_moves(
                "nim",
                &FamilyOptions::default(),
                "281474976710656 281474976710656"
            ),
            562949953421312
        );
        assert_eq!(
            estimate_moves("nim", &FamilyOptions::default(), "99999999999999999999999"),
            u64::MAX
        );
        // Families this crate does not know yet: at least the heap sizes and the cells.
        assert_eq!(estimate_moves("0.77", &FamilyOptions::default(), "10 20"), 30 + 5);
        assert_eq!(estimate_moves("cram", &FamilyOptions::default(), "..../...."), 9);
    }
}
