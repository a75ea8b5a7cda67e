//! The JSON API's requests, answers and the synchronous work behind them, free of HTTP so
//! that tests, the server and `grundy play` share it. Every error is an [`ApiError`] with
//! the HTTP status it deserves and a message saying what was wrong.

use grundy_core::{Convention, Game, Nimber, Outcome, ParseError, Ruleset};
use grundy_games::family::{BoardView, Engine, Family, FamilyOptions, RegistryError, TableKind};
use grundy_games::registry::{self, with_game, FamilyInfo, WithGame};
use grundy_solve::{analysis::Analyzer, SolveError};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Limits that keep one request within the server's means (all configurable).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Positions an engine may store for one request before giving up.
    pub max_positions: usize,
    /// Most moves a position may have (estimated before anything is generated).
    pub max_moves: u64,
    /// Longest position text accepted, in bytes.
    pub max_position_len: usize,
    /// Largest side of a table or length of a sequence asked of `/api/table`.
    pub max_table: usize,
    /// Set by the server when the request's time is up: the search then winds down at once
    /// (its result is thrown away) and the solve answers 408.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_positions: 2_000_000,
            max_moves: 5_000,
            max_position_len: 16 * 1024,
            max_table: 40,
            cancel: None,
        }
    }
}

/// Why a request could not be answered; `status` is the HTTP status (always 4xx).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// HTTP status code: 400 bad input, 404 unknown family, 408 too slow, 413 too large,
    /// 422 a limit of the server was reached, 429 too many solves at once.
    pub status: u16,
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the search stopped at its limit of stored positions (a larger limit might
    /// answer).
    pub limit_hit: bool,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            limit_hit: false,
        }
    }

    /// A 400 Bad Request.
    pub fn bad(message: impl Into<String>) -> Self {
        ApiError::new(400, message)
    }
}

impl From<RegistryError> for ApiError {
    fn from(e: RegistryError) -> Self {
        let status = match e {
            RegistryError::UnknownFamily { .. } => 404,
            RegistryError::BadCode { .. }
            | RegistryError::BadOption { .. }
            | RegistryError::BadPosition { .. }
            | RegistryError::Unsupported(_) => 400,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<SolveError> for ApiError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Limit(n) => ApiError {
                limit_hit: true,
                ..ApiError::new(
                    422,
                    format!("position too large to solve within the server's limit of {n} stored positions"),
                )
            },
            other => ApiError::new(422, other.to_string()),
        }
    }
}

/// `POST /api/solve`: a position of a family and what to compute.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    /// Family name (`GET /api/families`).
    pub family: String,
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

/// The answer to `POST /api/solve`.
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

/// `POST /api/table`: the Grundy sequence of a heap game or the table of a 2-D family.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableRequest {
    /// Family name.
    pub family: String,
    /// Length of the sequence, or side of the table.
    #[serde(default = "default_table_size")]
    pub size: usize,
}

fn default_table_size() -> usize {
    20
}

/// The answer to `POST /api/table`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct TableResponse {
    /// Canonical family name.
    pub family: String,
    /// `sequence` (one row: values at 0, 1, 2, ...) or `grid` (rows × columns).
    pub kind: TableKind,
    /// What a row index means.
    pub rows: String,
    /// What a column index means.
    pub cols: String,
    /// Index of the first row and the first column.
    pub first: usize,
    /// The values; `null` where undefined (an immediate win, a position the family refuses).
    pub values: Vec<Vec<Option<u64>>>,
}

/// The families the server knows, `(name, description)`: every named family of the
/// registry, then the named games of the families named by codes (any other code works
/// through the API too).
pub fn families() -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<(&str, &str)> = registry::named().map(|d| (d.name, d.notation)).collect();
    for d in registry::DESCRIPTIONS {
        all.extend_from_slice(d.presets);
    }
    all
}

/// An upper estimate of the number of moves of a position, from its text alone, so a
/// position with millions of moves is refused before any is generated (the family's own
/// estimate; 0 for an unknown family, which is refused next).
pub fn estimate_moves(family: &str, text: &str) -> u64 {
    registry::estimate_moves(family, text).unwrap_or(0)
}

fn options(req: &SolveRequest) -> FamilyOptions {
    FamilyOptions {
        board: req.board.clone(),
        graph: req.graph.clone().map(|t| ("graph".to_string(), t)),
        rule: req.rule.clone(),
        set: req.set.clone(),
        heap_values: Some(heap_values),
    }
}

/// Bulk heap values by the sequence engine, for heap games (bounded so a request cannot ask
/// for an absurd table: larger heaps fall back to the memo engine and its limits).
fn heap_values(rules: &grundy_core::HeapRules, count: u64) -> Option<Vec<u64>> {
    if count > 1 << 20 {
        return None;
    }
    grundy_solve::seq::values(rules, count).ok()
}

fn check_text(text: &str, limits: &Limits) -> Result<(), ApiError> {
    if text.len() > limits.max_position_len {
        return Err(ApiError::new(
            413,
            format!(
                "position text of {} bytes is longer than the server's limit of {}",
                text.len(),
                limits.max_position_len
            ),
        ));
    }
    Ok(())
}

/// Answers `POST /api/solve` (synchronously: run it off the async threads).
pub fn solve(req: &SolveRequest, limits: &Limits) -> Result<SolveResponse, ApiError> {
    check_text(&req.position, limits)?;
    let est = estimate_moves(&req.family, &req.position);
    if est > limits.max_moves {
        return Err(ApiError::new(
            422,
            format!(
                "position too large: about {est} moves, more than the server's limit of {}",
                limits.max_moves
            ),
        ));
    }
    let action = Solve { req, limits };
    with_game(&req.family, &options(req), &req.position, action)
}

struct Solve<'a> {
    req: &'a SolveRequest,
    limits: &'a Limits,
}

impl WithGame for Solve<'_> {
    type Output = SolveResponse;
    type Error = ApiError;

    fn run<F: Family>(
        self,
        family: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<SolveResponse, ApiError> {
        let req = self.req;
        let convention = if req.misere {
            if !info.description.misere {
                return Err(ApiError::bad(format!(
                    "misère play is not available for {}: its rules end the game by a winning move, not by a lack of moves",
                    info.name
                )));
            }
            Convention::Misere
        } else {
            Convention::Normal
        };
        // Count the moves before keeping any (the estimate is only a first guard).
        let mut count = 0u64;
        game.moves(&p, |_, _| count += 1);
        if count > self.limits.max_moves {
            return Err(ApiError::new(
                422,
                format!(
                    "position too large: {count} moves, more than the server's limit of {}",
                    self.limits.max_moves
                ),
            ));
        }
        let immediate = game.immediate_wins(&p).is_some();
        let a = match &self.limits.cancel {
            None => Analyzer::with_limit(game, self.limits.max_positions)
                .with_remoteness(req.remoteness)
                .analyze(&p, convention)?,
            Some(flag) => {
                let g = Cancellable { game, cancel: flag };
                let a = Analyzer::with_limit(&g, self.limits.max_positions)
                    .with_remoteness(req.remoteness)
                    .analyze(&p, convention);
                if flag.load(Ordering::Relaxed) {
                    return Err(cancelled());
                }
                a?
            }
        };
        let mut after = Vec::with_capacity(a.moves.len());
        game.moves(&p, |_, q| after.push(game.format_position(&q)));
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
        let graph = match &board {
            BoardView::Graph {
                name, points, edges, ..
            } => Some(GraphOut {
                name: name.clone(),
                points: *points,
                edges: edges.clone(),
            }),
            _ => None,
        };
        Ok(SolveResponse {
            family: info.name.clone(),
            position: game.format_position(&p),
            convention,
            misere_available: info.description.misere,
            grundy: a.grundy.map(|g| g.0),
            outcome: a.outcome,
            remoteness: a.remoteness,
            winning_moves: winning,
            moves,
            best_move,
            graph,
            board,
        })
    }
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

/// What a family's table looks like (without its values).
#[derive(Clone, Debug)]
pub struct TableLayout {
    /// Canonical family name.
    pub family: String,
    /// `sequence` or `grid`.
    pub kind: TableKind,
    /// What a row index means.
    pub rows: &'static str,
    /// What a column index means.
    pub cols: &'static str,
    /// Index of the first row and column.
    pub first: usize,
    /// The largest side (or length) computed, whatever the size asked: boards whose
    /// values take long beyond it (Cram, Chomp) get a smaller table.
    pub max: usize,
    /// The position text of a cell (see [`grundy_games::family::Table::cell`]).
    pub cell: fn(usize, usize) -> String,
}

impl TableLayout {
    /// The side (or length) of the table computed when `size` is asked.
    pub fn side(&self, size: usize) -> usize {
        size.min(self.max)
    }
}

/// The layout of `family`'s table, as the family describes it (400 for a family without
/// one, 404 for an unknown family).
pub fn table_layout(family: &str) -> Result<TableLayout, ApiError> {
    let d = registry::find(family)?.description;
    let Some(t) = d.table else {
        return Err(ApiError::bad(format!(
            "the {} family has no table or sequence",
            d.name
        )));
    };
    // The canonical name of the game (for a heap game its code), from a small position.
    let canonical = with_game(
        family,
        &FamilyOptions::default(),
        &(t.cell)(t.first + 1, t.first + 1),
        NameOnly,
    )
    .map_err(|e| match e.status {
        404 => e,
        _ => ApiError::bad(format!("the {family} family has no table or sequence")),
    })?;
    Ok(TableLayout {
        family: canonical,
        kind: t.kind,
        rows: t.rows,
        cols: t.cols,
        first: t.first,
        max: t.max,
        cell: t.cell,
    })
}

/// The values of a table of side (or length) `size`; 408 when cancelled (see
/// [`Limits::cancel`]), never a partial table.
pub fn table_values(
    layout: &TableLayout,
    size: usize,
    limits: &Limits,
) -> Result<Vec<Vec<Option<u64>>>, ApiError> {
    let family = layout.family.as_str();
    let size = layout.side(size);
    let no_opts = FamilyOptions::default();
    let grundy_of = |a: usize, b: usize| -> Result<Option<u64>, ApiError> {
        let text = (layout.cell)(a, b);
        match with_game(family, &no_opts, &text, GrundyOnly(limits)) {
            Ok(v) => Ok(v),
            Err(e) if e.status == 408 => Err(e),
            // A position the family refuses (a 1x1 sheet) or cannot solve: no value.
            Err(_) => Ok(None),
        }
    };
    let f = layout.first;
    match layout.kind {
        TableKind::Grid => (f..f + size)
            .map(|a| (f..f + size).map(|b| grundy_of(a, b)).collect())
            .collect(),
        TableKind::Sequence => Ok(vec![(f..f + size)
            .map(|k| grundy_of(k, 0))
            .collect::<Result<_, _>>()?]),
    }
}

/// Checks the size asked of a table.
pub fn check_table_size(size: usize, limits: &Limits) -> Result<(), ApiError> {
    if size == 0 || size > limits.max_table {
        return Err(ApiError::bad(format!(
            "size must be between 1 and the server's limit of {}",
            limits.max_table
        )));
    }
    Ok(())
}

/// The answer to a table request from its layout and values.
pub fn table_response(layout: &TableLayout, values: Vec<Vec<Option<u64>>>) -> TableResponse {
    TableResponse {
        family: layout.family.clone(),
        kind: layout.kind,
        rows: layout.rows.into(),
        cols: layout.cols.into(),
        first: layout.first,
        values,
    }
}

/// Answers `POST /api/table` (see [`table_layout`]).
pub fn table(req: &TableRequest, limits: &Limits) -> Result<TableResponse, ApiError> {
    check_table_size(req.size, limits)?;
    let layout = table_layout(&req.family)?;
    let values = table_values(&layout, req.size, limits)?;
    Ok(table_response(&layout, values))
}

struct NameOnly;

impl WithGame for NameOnly {
    type Output = String;
    type Error = ApiError;
    fn run<F: Family>(
        self,
        _: &F,
        _: &F::Game,
        _: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<String, ApiError> {
        Ok(info.name.clone())
    }
}

struct GrundyOnly<'a>(&'a Limits);

/// The Grundy value of `p` (none when a move wins at once), by the engine the family
/// prefers: the pruned search (Cram) or the memo.
fn grundy_by<G: Game>(
    game: &G,
    p: &G::Position,
    search: bool,
    limit: usize,
) -> Result<Option<u64>, SolveError> {
    if !search {
        return Ok(Analyzer::with_limit(game, limit).grundy(p)?.map(|g| g.0));
    }
    if game.immediate_wins(p).is_some() {
        return Ok(None);
    }
    let g = grundy_solve::search::NimberSearch::new(game)
        .with_limit(limit)
        .grundy_sum(&game.components(p))?;
    Ok(Some(g.0))
}

impl WithGame for GrundyOnly<'_> {
    type Output = Option<u64>;
    type Error = ApiError;
    fn run<F: Family>(
        self,
        _: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<Option<u64>, ApiError> {
        let search = info.description.engine == Engine::Search;
        let limit = self.0.max_positions;
        match &self.0.cancel {
            None => Ok(grundy_by(game, &p, search, limit)?),
            Some(flag) => {
                let g = Cancellable { game, cancel: flag };
                let v = grundy_by(&g, &p, search, limit);
                if flag.load(Ordering::Relaxed) {
                    return Err(cancelled());
                }
                Ok(v?)
            }
        }
    }
}

fn cancelled() -> ApiError {
    ApiError::new(
        408,
        "the solve was stopped: it took longer than the server's limit",
    )
}

/// A game whose search can be stopped from outside: once `cancel` is set, no component has
/// an option and no position a move, so every engine winds down at once. What it computes
/// after that is meaningless and is thrown away by the caller, which checks the flag.
struct Cancellable<'a, G> {
    game: &'a G,
    cancel: &'a AtomicBool,
}

impl<G: Game> Cancellable<'_, G> {
    fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

impl<G: Game> Ruleset for Cancellable<'_, G> {
    type Component = G::Component;
    const INDEPENDENT: bool = G::INDEPENDENT;

    fn options<F: FnMut(&[Self::Component])>(&self, c: &Self::Component, emit: F) {
        if !self.stopped() {
            self.game.options(c, emit)
        }
    }
    fn options_until<F: FnMut(&[Self::Component]) -> std::ops::ControlFlow<()>>(
        &self,
        c: &Self::Component,
        emit: F,
    ) -> std::ops::ControlFlow<()> {
        if self.stopped() {
            return std::ops::ControlFlow::Continue(());
        }
        self.game.options_until(c, emit)
    }
    fn known_grundy(&self, c: &Self::Component) -> Option<Nimber> {
        self.game.known_grundy(c)
    }
    fn code(&self, c: &Self::Component) -> Option<u64> {
        self.game.code(c)
    }
    fn normalize_sum(&self, sorted: &mut Vec<Self::Component>) {
        self.game.normalize_sum(sorted)
    }
    fn size_hint(&self, c: &Self::Component) -> usize {
        self.game.size_hint(c)
    }
}

impl<G: Game> Game for Cancellable<'_, G> {
    type Position = G::Position;
    type Move = G::Move;

    fn parse_position(&self, text: &str) -> Result<Self::Position, ParseError> {
        self.game.parse_position(text)
    }
    fn components(&self, p: &Self::Position) -> Vec<Self::Component> {
        self.game.components(p)
    }
    fn moves<F: FnMut(Self::Move, Self::Position)>(&self, p: &Self::Position, emit: F) {
        if !self.stopped() {
            self.game.moves(p, emit)
        }
    }
    fn immediate_wins(&self, p: &Self::Position) -> Option<Vec<Self::Move>> {
        self.game.immediate_wins(p)
    }
    fn end_moves(&self, p: &Self::Position) -> u32 {
        self.game.end_moves(p)
    }
    fn format_move(&self, m: &Self::Move) -> String {
        self.game.format_move(m)
    }
    fn format_position(&self, p: &Self::Position) -> String {
        self.game.format_position(p)
    }
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
            let est = estimate_moves(family, text);
            assert!(real <= est, "{family} {text}: {real} moves, estimated {est}");
        }
        assert_eq!(
            estimate_moves("nim", "281474976710656 281474976710656"),
            562949953421312
        );
        assert_eq!(estimate_moves("nim", "99999999999999999999999"), u64::MAX);
        // Families this crate does not know yet: at least the heap sizes and the cells.
        assert_eq!(estimate_moves("0.77", "10 20"), 30 + 5);
        assert_eq!(estimate_moves("cram", "..../...."), 9);
    }
}
