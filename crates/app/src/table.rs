//! Tables of values: the Grundy sequence of a heap game or the 2-D table of a family with
//! two axes, as the family's description lays it out, for every front end.

use crate::cancel::{Bounded, Stop};
use crate::solve::{AppError, EngineChoice, ErrorKind, Limits};
use crate::store;
use grundy_core::Game;
use grundy_games::family::{Family, FamilyOptions, Table, TableKind};
use grundy_games::registry::{self, with_game, FamilyInfo, WithGame};
use grundy_solve::{analysis::Analyzer, SolveError};
use serde::{Deserialize, Serialize};

/// The Grundy sequence of a heap game or the table of a 2-D family (`POST /api/table`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableRequest {
    /// Family name.
    pub family: String,
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

/// What a family's table looks like (without its values): the game's canonical name and
/// the table its family describes.
#[derive(Clone, Debug)]
pub struct TableLayout {
    /// Canonical name of the game.
    pub family: String,
    /// The table, as the family describes it.
    pub table: Table,
}

impl TableLayout {
    /// The side (or length) of the table computed when `size` is asked.
    pub fn side(&self, size: usize) -> usize {
        size.min(self.table.max)
    }
}

/// The layout of `family`'s table, as the family describes it (400 for a family without
/// one, 404 for an unknown family).
pub fn table_layout(family: &str) -> Result<TableLayout, AppError> {
    let d = registry::find(family)?.description;
    let Some(t) = d.table else {
        return Err(AppError::bad(format!(
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
    .map_err(|e| match e.kind {
        ErrorKind::UnknownFamily => e,
        _ => AppError::bad(format!("the {family} family has no table or sequence")),
    })?;
    Ok(TableLayout {
        family: canonical,
        table: t,
    })
}

/// The values of a table of side (or length) `size`; an error when cancelled (see
/// [`Limits::cancel`]), never a partial table.
pub fn table_values(
    layout: &TableLayout,
    size: usize,
    limits: &Limits,
) -> Result<Vec<Vec<Option<u64>>>, AppError> {
    let family = layout.family.as_str();
    let size = layout.side(size);
    let no_opts = FamilyOptions::default();
    let grundy_of = |a: usize, b: usize| -> Result<Option<u64>, AppError> {
        let text = (layout.table.cell)(a, b);
        match with_game(family, &no_opts, &text, GrundyOnly(limits)) {
            Ok(v) => Ok(v),
            Err(e) if e.kind == ErrorKind::Cancelled => Err(e),
            // A position the family refuses (a 1x1 sheet) or cannot solve: no value.
            Err(_) => Ok(None),
        }
    };
    let f = layout.table.first;
    match layout.table.kind {
        TableKind::Grid => (f..f + size)
            .map(|a| (f..f + size).map(|b| grundy_of(a, b)).collect())
            .collect(),
        TableKind::Sequence => Ok(vec![(f..f + size)
            .map(|k| grundy_of(k, 0))
            .collect::<Result<_, _>>()?]),
    }
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
    let layout = table_layout(&req.family)?;
    let values = table_values(&layout, req.size, limits)?;
    Ok(table_response(&layout, values))
}

struct NameOnly;

impl WithGame for NameOnly {
    type Output = String;
    type Error = AppError;
    fn run<F: Family>(
        self,
        _: &F,
        _: &F::Game,
        _: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<String, AppError> {
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
    type Error = AppError;
    fn run<F: Family>(
        self,
        _: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<Option<u64>, AppError> {
        let search = EngineChoice::Auto.searches(info);
        let limit = self.0.max_positions;
        let stop = Stop::new(self.0);
        let bounded = Bounded { game, stop: &stop };
        let v = grundy_by(&bounded, &p, search, limit);
        bounded.finish(v)
    }
}

/// [`table`], with the values kept in the store as a dense array (row by row,
/// [`grundy_store::NONE`] where a value is undefined) and read back from it.
pub fn table_kept(
    store: Option<&grundy_store::Store>,
    req: &TableRequest,
    limits: &Limits,
) -> Result<TableResponse, AppError> {
    check_table_size(req.size, limits)?;
    let layout = table_layout(&req.family)?;
    let Some(kept) = store else {
        return Ok(table_response(&layout, table_values(&layout, req.size, limits)?));
    };
    let n = layout.side(req.size);
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
