//! Tables of values: the Grundy sequence of a heap game or the 2-D table of a family with
//! two axes, as the family's description lays it out, for every front end.

use crate::cancel::{Bounded, Stop};
use crate::solve::{AppError, EngineChoice, ErrorKind, Limits};
use crate::store;
use grundy_core::Game;
use grundy_core::Ruleset;
use grundy_games::family::{Family, FamilyOptions, Table, TableKind};
use grundy_games::registry::{self, with_game, FamilyInfo, WithGame};
use grundy_solve::{analysis::Analyzer, SolveError};
use serde::{Deserialize, Serialize};

/// The Grundy sequence of a heap game or the table of a 2-D family (`POST /api/table`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableRequest {
    /// Family name; ignored when `game` is given.
    #[serde(default)]
    pub family: String,
    /// A game file's text (see [`crate::solve::SolveRequest::game`]): the table of its game.
    #[serde(default)]
    pub game: Option<String>,
    /// Length of the sequence, or side of the table. Any JSON number reads (a negative one as
    /// 0, a fraction or one past a machine word as the largest), so that
    /// [`check_table_size`] answers with the real limits rather than a type's.
    #[serde(default = "default_table_size", deserialize_with = "any_size")]
    pub size: usize,
}

/// Reads a JSON number as a size, saturating (see [`TableRequest::size`]).
fn any_size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    struct Size;
    impl serde::de::Visitor<'_> for Size {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_u64<E>(self, v: u64) -> Result<usize, E> {
            Ok(usize::try_from(v).unwrap_or(usize::MAX))
        }
        fn visit_i64<E>(self, v: i64) -> Result<usize, E> {
            Ok(usize::try_from(v.max(0)).unwrap_or(usize::MAX))
        }
        fn visit_f64<E>(self, v: f64) -> Result<usize, E> {
            // Not a whole number, or too large: refused by the size check.
            Ok(if v.is_finite() && v.fract() == 0.0 && (0.0..1e15).contains(&v) {
                v as usize
            } else if v < 0.0 {
                0
            } else {
                usize::MAX
            })
        }
    }
    d.deserialize_any(Size)
}

fn default_table_size() -> usize {
    20
}

/// The answer to a [`TableRequest`].
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

/// What a family's table looks like (without its values): the game's canonical name, the
/// table its family describes, and the options its game is built with.
#[derive(Clone, Debug)]
pub struct TableLayout {
    /// Canonical name of the game.
    pub family: String,
    /// The table, as the family describes it.
    pub table: Table,
    /// The family name asked for.
    name: String,
    /// The options of its game (a game file among them).
    opts: FamilyOptions,
}

impl TableLayout {
    /// The side (or length) of the table computed when `size` is asked.
    pub fn side(&self, size: usize) -> usize {
        size.min(self.table.max)
    }
}

/// Positions tried to learn the table of a game file, whose shape the family knows only
/// once the file is read: a heap, a pair, a board.
const PROBES: [&str; 4] = ["1", "1 1", "2x2", "1x1"];

/// The layout of `family`'s table (with `opts`: a game file's), as the family describes it
/// (400 for a family without one, 404 for an unknown family).
pub fn table_layout(family: &str, opts: &FamilyOptions) -> Result<TableLayout, AppError> {
    let found = registry::find_for(family, opts)?;
    let mut probes: Vec<String> = Vec::new();
    if let Some(t) = found.description.table {
        probes.push((t.cell)(t.first + 1, t.first + 1));
    }
    if opts.game.is_some() {
        probes.extend(PROBES.iter().map(|p| p.to_string()));
    }
    let what = match &opts.game {
        Some(file) => format!("the game file {}", file.source()),
        None => format!("the {} family", found.description.name),
    };
    let mut first_error = None;
    for probe in &probes {
        match with_game(family, opts, probe, NameOnly) {
            Ok((name, Some(table))) => {
                return Ok(TableLayout {
                    family: name,
                    table,
                    name: family.to_string(),
                    opts: opts.clone(),
                })
            }
            Ok((_, None)) => break,
            Err(e) if e.kind == ErrorKind::UnknownFamily => return Err(e),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(match (&opts.game, first_error) {
        (Some(_), Some(e)) => AppError::bad(format!(
            "{what} has no table: its positions are not heaps, pairs or boards ({})",
            e.message
        )),
        _ => AppError::bad(format!("{what} has no table or sequence")),
    })
}

/// The values of a table of side (or length) `size`; an error when cancelled (see
/// [`Limits::cancel`]), never a partial table. The game is built once, from the last cell
/// (so that tables a family computes in bulk cover every cell), and every cell is valued by
/// one engine, which keeps what it learnt from one cell for the next.
pub fn table_values(
    layout: &TableLayout,
    size: usize,
    limits: &Limits,
) -> Result<Vec<Vec<Option<u64>>>, AppError> {
    let size = layout.side(size);
    if size == 0 {
        return Ok(match layout.table.kind {
            TableKind::Grid => Vec::new(),
            TableKind::Sequence => vec![Vec::new()],
        });
    }
    let t = &layout.table;
    let f = t.first;
    let cells: Vec<(usize, usize)> = match t.kind {
        TableKind::Grid => (f..f + size)
            .flat_map(|a| (f..f + size).map(move |b| (a, b)))
            .collect(),
        TableKind::Sequence => (f..f + size).map(|k| (k, 0)).collect(),
    };
    let (a, b) = cells[cells.len() - 1];
    let last = (t.cell)(a, b);
    let action = Cells {
        cell: t.cell,
        cells: &cells,
        limits,
    };
    let values = match with_game(&layout.name, &layout.opts, &last, action) {
        Ok(v) => v,
        Err(e) if e.kind == ErrorKind::Cancelled || e.kind == ErrorKind::Memory => return Err(e),
        // The last cell itself does not read: value every cell on its own.
        Err(_) => cells
            .iter()
            .map(|&(a, b)| {
                match with_game(
                    &layout.name,
                    &layout.opts,
                    &(t.cell)(a, b),
                    Cells {
                        cell: t.cell,
                        cells: &[(a, b)],
                        limits,
                    },
                ) {
                    Ok(v) => Ok(v[0]),
                    Err(e) if e.kind == ErrorKind::Cancelled || e.kind == ErrorKind::Memory => Err(e),
                    Err(_) => Ok(None),
                }
            })
            .collect::<Result<Vec<_>, AppError>>()?,
    };
    Ok(match t.kind {
        TableKind::Grid => values.chunks(size).map(|r| r.to_vec()).collect(),
        TableKind::Sequence => vec![values],
    })
}

/// Checks the size asked of a table.
pub fn check_table_size(size: usize, limits: &Limits) -> Result<(), AppError> {
    if size == 0 || size > limits.max_table {
        return Err(AppError::bad(format!(
            "size must be between 1 and the limit of {}",
            limits.max_table
        )));
    }
    Ok(())
}

/// The answer to a table request from its layout and values.
pub fn table_response(layout: &TableLayout, values: Vec<Vec<Option<u64>>>) -> TableResponse {
    TableResponse {
        family: layout.family.clone(),
        kind: layout.table.kind,
        rows: layout.table.rows.into(),
        cols: layout.table.cols.into(),
        first: layout.table.first,
        values,
    }
}

/// Answers a table request with no store (see [`table_layout`], [`table_kept`]).
pub fn table(req: &TableRequest, limits: &Limits) -> Result<TableResponse, AppError> {
    check_table_size(req.size, limits)?;
    let layout = table_layout(&req.family, &table_options(req)?)?;
    let values = table_values(&layout, req.size, limits)?;
    Ok(table_response(&layout, values))
}

/// The options of a table request's game: its game file, if any.
fn table_options(req: &TableRequest) -> Result<FamilyOptions, AppError> {
    Ok(FamilyOptions {
        game: match &req.game {
            Some(text) => Some(crate::gamefile::load("<request>", text)?),
            None => None,
        },
        ..FamilyOptions::default()
    })
}

/// The game's canonical name and its table.
struct NameOnly;

impl WithGame for NameOnly {
    type Output = (String, Option<Table>);
    type Error = AppError;
    fn run<F: Family>(
        self,
        _: &F,
        _: &F::Game,
        _: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<(String, Option<Table>), AppError> {
        Ok((info.name.clone(), info.table))
    }
}

/// The values of the cells of a table, by one engine on one game.
struct Cells<'a> {
    cell: fn(usize, usize) -> String,
    cells: &'a [(usize, usize)],
    limits: &'a Limits,
}

impl WithGame for Cells<'_> {
    type Output = Vec<Option<u64>>;
    type Error = AppError;
    fn run<F: Family>(
        self,
        _: &F,
        game: &F::Game,
        _: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<Vec<Option<u64>>, AppError> {
        let search = EngineChoice::Auto.searches(info);
        let limit = self.limits.max_positions;
        let stop = Stop::new(self.limits);
        let bounded = Bounded { game, stop: &stop };
        let mut memo = Analyzer::with_limit(&bounded, limit);
        let mut out = Vec::with_capacity(self.cells.len());
        for &(a, b) in self.cells {
            // A position the game refuses (a 1x1 sheet) has no value.
            let Ok(p) = game.parse_position(&(self.cell)(a, b)) else {
                out.push(None);
                continue;
            };
            let v = if search {
                grundy_by(&bounded, &p, true, limit)
            } else {
                memo.grundy(&p).map(|g| g.map(|g| g.0))
            };
            match v {
                Ok(v) => out.push(v),
                Err(_) if bounded.halted() => {
                    return bounded.finish(Err::<Self::Output, SolveError>(SolveError::Halted))
                }
                // A position too large to solve within the limit: no value; the next cell
                // starts afresh.
                Err(_) => {
                    out.push(None);
                    memo = Analyzer::with_limit(&bounded, limit);
                }
            }
        }
        bounded.finish(Ok::<_, AppError>(out))
    }
}

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

/// [`table`], with the values kept in the store as a dense array (row by row,
/// [`grundy_store::NONE`] where a value is undefined) and read back from it.
pub fn table_kept(
    store: Option<&grundy_store::Store>,
    req: &TableRequest,
    limits: &Limits,
) -> Result<TableResponse, AppError> {
    check_table_size(req.size, limits)?;
    let layout = table_layout(&req.family, &table_options(req)?)?;
    table_kept_layout(store, &layout, req.size, limits)
}

/// The table of `layout` of side (or length) `size`, kept in the store and read back from it
/// as [`table_kept`] does.
pub fn table_kept_layout(
    store: Option<&grundy_store::Store>,
    layout: &TableLayout,
    size: usize,
    limits: &Limits,
) -> Result<TableResponse, AppError> {
    let layout = layout.clone();
    let Some(kept) = store else {
        return Ok(table_response(&layout, table_values(&layout, size, limits)?));
    };
    let n = layout.side(size);
    let width = n;
    let height = match layout.table.kind {
        TableKind::Grid => n,
        TableKind::Sequence => 1,
    };
    let key = store::table_key(&layout.family, n);
    if let Some(values) = store::load_table_values(kept, &key, width * height) {
        let none = grundy_store::NONE;
        let rows = values
            .chunks(width.max(1))
            .map(|row| row.iter().map(|&v| (v != none).then_some(v)).collect())
            .collect();
        return Ok(table_response(&layout, rows));
    }
    let rows = table_values(&layout, n, limits)?;
    let flat: Vec<u64> = rows
        .iter()
        .flatten()
        .map(|v| v.unwrap_or(grundy_store::NONE))
        .collect();
    let summary = format!(
        "{} {}, {height}x{width}",
        layout.family,
        layout.table.kind.as_str()
    );
    store::save_table_values(kept, &key, &layout.family, &summary, &flat);
    Ok(table_response(&layout, rows))
}
