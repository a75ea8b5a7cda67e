//! Chomp: a chocolate bar whose bottom-left square is poisoned; a move takes a square and
//! every square above and to the right of it; whoever takes the poisoned square loses.
//!
//! The position is a Young diagram, stored as its column heights from left to right (never
//! increasing). Nobody takes the poisoned square unless nothing else is left, so Chomp is
//! exactly normal play on the diagram where the poisoned square may not be taken: the player
//! facing the poisoned square alone has no move and loses. A diagram and its transpose (rows
//! read as columns) are the same game, so components are stored in the smaller of the two
//! forms.
//!
//! Notation: `RxC`, a full bar of R rows and C columns, or the column heights from left to
//! right (`7 7 5 3`). A move `r,c` takes the square in row r, column c (from 1; row 1 is the
//! bottom row, column 1 the left column, the poisoned square is `1,1`) and every square in
//! rows ≥ r and columns ≥ c.

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Table};
use grundy_core::{tokens, Game, ParseError, Ruleset};

/// Largest number of rows or columns accepted.
pub const MAX_SIDE: u64 = 1000;

/// Most squares a position may have: listing the moves of a position copies the diagram once
/// per square, so this bounds that work (10 000 squares × 1 000 columns).
pub const MAX_SQUARES: u64 = 10_000;

/// The rules of Chomp. A component is a diagram of at least two squares, as column heights
/// (never increasing, all ≥ 1), the smaller of the diagram and its transpose.
#[derive(Clone, Copy, Debug, Default)]
pub struct Chomp;

/// A Chomp position: the column heights from left to right, never increasing, all ≥ 1, at
/// least one column (the poisoned square is always there).
pub type Diagram = Vec<u32>;

/// A move: take the square in `row`, `col` (0-based; row 0 is the bottom row) and every
/// square above and to the right of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bite {
    /// Row of the square, from 0 at the bottom.
    pub row: u32,
    /// Column of the square, from 0 at the left.
    pub col: u32,
}

/// The diagram with rows and columns exchanged.
pub fn transpose(h: &[u32]) -> Diagram {
    let rows = h.first().copied().unwrap_or(0);
    (0..rows)
        .map(|r| h.iter().take_while(|&&x| x > r).count() as u32)
        .collect()
}

/// The diagram after `b`: columns from `b.col` on are cut down to `b.row` squares.
pub fn bite(h: &[u32], b: Bite) -> Diagram {
    let mut out: Diagram = h.to_vec();
    for x in out.iter_mut().skip(b.col as usize) {
        *x = (*x).min(b.row);
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// Calls `f` with every legal bite of `h` (the poisoned square excepted), column by column.
fn each_bite(h: &[u32], mut f: impl FnMut(Bite)) {
    for (c, &height) in h.iter().enumerate() {
        for r in 0..height {
            if (r, c) != (0, 0) {
                f(Bite {
                    row: r,
                    col: c as u32,
                });
            }
        }
    }
}

/// The canonical component of a diagram: the smaller of it and its transpose.
fn canonical(h: Diagram) -> Diagram {
    let t = transpose(&h);
    if t < h {
        t
    } else {
        h
    }
}

impl Ruleset for Chomp {
    type Component = Diagram;

    fn options<F: FnMut(&[Diagram])>(&self, c: &Diagram, mut emit: F) {
        each_bite(c, |b| {
            let next = bite(c, b);
            if next == [1] {
                emit(&[]);
            } else {
                emit(&[canonical(next)]);
            }
        });
    }

    fn size_hint(&self, c: &Diagram) -> usize {
        c.iter().map(|&x| x as usize).sum()
    }
}

/// Reads `RxC` or column heights.
pub fn parse_diagram(text: &str) -> Result<Diagram, ParseError> {
    let toks = tokens(text);
    let Some(first) = toks.first() else {
        return Err(ParseError::new(
            1,
            1,
            "empty chomp position: give 'RxC' (e.g. 4x7) or column heights (e.g. 7 7 5 3)",
        ));
    };
    if let Some(x) = first.text.find(['x', 'X']) {
        if let Some(extra) = toks.get(1) {
            return Err(ParseError::new(
                extra.span.line,
                extra.span.column,
                "a bar 'RxC' is one word",
            ));
        }
        let mut rows_tok = *first;
        rows_tok.text = &first.text[..x];
        let mut cols_tok = *first;
        cols_tok.text = &first.text[x + 1..];
        cols_tok.span.column += first.text[..=x].chars().count();
        let rows = rows_tok.number("number of rows", MAX_SIDE)?;
        let cols = cols_tok.number("number of columns", MAX_SIDE)?;
        for (v, t, what) in [(rows, rows_tok, "rows"), (cols, cols_tok, "columns")] {
            if v == 0 {
                return Err(ParseError::new(
                    t.span.line,
                    t.span.column,
                    format!("the number of {what} must be at least 1"),
                ));
            }
        }
        if rows * cols > MAX_SQUARES {
            return Err(ParseError::new(
                first.span.line,
                first.span.column,
                format!(
                    "a {rows}x{cols} bar has {} squares, at most {MAX_SQUARES} are supported",
                    rows * cols
                ),
            ));
        }
        return Ok(vec![rows as u32; cols as usize]);
    }
    if toks.len() as u64 > MAX_SIDE {
        let t = toks[MAX_SIDE as usize];
        return Err(ParseError::new(
            t.span.line,
            t.span.column,
            format!("too many columns (at most {MAX_SIDE})"),
        ));
    }
    let mut h = Diagram::with_capacity(toks.len());
    let mut squares = 0u64;
    for t in &toks {
        let v = t.number("column height", MAX_SIDE)? as u32;
        if v == 0 {
            return Err(ParseError::new(
                t.span.line,
                t.span.column,
                "column heights must be at least 1 (leave empty columns out)",
            ));
        }
        if let Some(&prev) = h.last() {
            if v > prev {
                return Err(ParseError::new(
                    t.span.line,
                    t.span.column,
                    format!("column heights must not increase left to right ({prev} then {v})"),
                ));
            }
        }
        h.push(v);
        squares += v as u64;
        if squares > MAX_SQUARES {
            return Err(ParseError::new(
                t.span.line,
                t.span.column,
                format!("too many squares (at most {MAX_SQUARES})"),
            ));
        }
    }
    Ok(h)
}

/// The diagram as `RxC` when it is a full bar, else as column heights.
pub fn format_diagram(h: &[u32]) -> String {
    match (h.first(), h.last()) {
        (Some(&a), Some(&b)) if a == b && h.len() > 1 => format!("{a}x{}", h.len()),
        _ => h.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "),
    }
}

impl Game for Chomp {
    type Position = Diagram;
    type Move = Bite;

    fn parse_position(&self, text: &str) -> Result<Diagram, ParseError> {
        parse_diagram(text)
    }

    fn components(&self, p: &Diagram) -> Vec<Diagram> {
        if p.iter().map(|&x| x as u64).sum::<u64>() <= 1 {
            Vec::new()
        } else {
            vec![canonical(p.clone())]
        }
    }

    fn moves<F: FnMut(Bite, Diagram)>(&self, p: &Diagram, mut emit: F) {
        each_bite(p, |b| emit(b, bite(p, b)));
    }

    fn format_move(&self, m: &Bite) -> String {
        format!("{},{}", m.row + 1, m.col + 1)
    }

    fn format_position(&self, p: &Diagram) -> String {
        format_diagram(p)
    }
}

/// Chomp as a family of the registry.
pub struct ChompFamily;

impl Family for ChompFamily {
    type Game = Chomp;
    const DESCRIPTION: Description = Description {
        name: "chomp",
        aliases: &[],
        notation: "Chomp: a bar 'RxC' or column heights, e.g. '4x7' or '7 7 5 3'",
        example: "4x5",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        // Bars beyond 8x8 take long: the table stops there.
        table: Some(Table::boards(8)),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: crate::family::estimate_by_tokens,
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Chomp, Diagram), RegistryError> {
        let p = Chomp
            .parse_position(text)
            .map_err(|e| RegistryError::position("chomp", e))?;
        Ok((Chomp, p))
    }

    fn board(&self, _: &Chomp, p: &Diagram) -> BoardView {
        BoardView::Columns { heights: p.clone() }
    }
}

/// A Young diagram of one to four columns of height at most 4.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let n = r.range(1, 4);
    let mut h: Vec<u64> = (0..n).map(|_| r.range(1, 4)).collect();
    h.sort_unstable_by(|a, b| b.cmp(a));
    Sample::text(h.iter().map(u64::to_string).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::Outcome;
    use grundy_solve::Convention;
    use proptest::prelude::*;

    #[test]
    fn notation() {
        assert_eq!(Chomp.parse_position("4x7").unwrap(), vec![4; 7]);
        assert_eq!(Chomp.parse_position("7 7 5 3").unwrap(), vec![7, 7, 5, 3]);
        assert_eq!(format_diagram(&[4; 7]), "4x7");
        assert_eq!(format_diagram(&[3]), "3");
        assert_eq!(format_diagram(&[7, 7, 5, 3]), "7 7 5 3");
        assert_eq!(transpose(&[3, 1]), vec![2, 1, 1]);
        assert_eq!(bite(&[3, 3, 2], Bite { row: 1, col: 1 }), vec![3, 1, 1]);
        assert_eq!(bite(&[3, 3], Bite { row: 0, col: 1 }), vec![3]);
    }

    #[test]
    fn parse_errors_have_places() {
        let at = |s: &str| {
            let e = Chomp.parse_position(s).unwrap_err();
            (e.span.line, e.span.column)
        };
        assert_eq!(at("4xq"), (1, 3));
        assert_eq!(at("  0x3"), (1, 3));
        assert_eq!(at("4x0"), (1, 3));
        assert_eq!(at("3 4"), (1, 3));
        assert_eq!(at("3 0"), (1, 3));
        assert_eq!(at("3\n2 z"), (2, 3));
        assert_eq!(at("3x3 1"), (1, 5));
        assert_eq!(at(""), (1, 1));
        assert_eq!(at("99999999x2"), (1, 1));
        assert_eq!(at("1000x11"), (1, 1));
        assert_eq!(at("2x1001"), (1, 3));
        let many = ["1000"; 11].join(" ");
        assert_eq!(at(&many), (1, 51));
    }

    #[test]
    fn rectangles_are_first_player_wins() {
        // Strategy stealing: every rectangle larger than the poisoned square is a first-player
        // win; a square bar is won by biting at 2,2 (then mirroring).
        for (r, c) in [(1, 2), (2, 2), (2, 3), (3, 3), (3, 5), (4, 4)] {
            let p = vec![r; c];
            let a = grundy_solve::analyze(&Chomp, &p, Convention::Normal).unwrap();
            assert_eq!(a.outcome, Outcome::First, "{r}x{c}");
        }
        let a = grundy_solve::analyze(&Chomp, &vec![4; 4], Convention::Normal).unwrap();
        let w: Vec<String> = a.winning_moves.iter().map(|m| Chomp.format_move(m)).collect();
        assert_eq!(w, vec!["2,2"]);
        // The poisoned square alone: the player to move has lost.
        let a = grundy_solve::analyze(&Chomp, &vec![1], Convention::Normal).unwrap();
        assert_eq!(a.outcome, Outcome::Second);
        // Two rows: (n, n-1) ... a 2-row diagram with rows a and a-1 is lost for the mover.
        let a = grundy_solve::analyze(&Chomp, &vec![2, 2, 1], Convention::Normal).unwrap();
        assert_eq!(a.outcome, Outcome::Second);
    }

    fn diagram() -> impl Strategy<Value = Diagram> {
        proptest::collection::vec(1u32..5, 1..5).prop_map(|mut v| {
            v.sort_unstable_by(|a, b| b.cmp(a));
            v
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn transpose_is_an_involution(p in diagram()) {
            prop_assert_eq!(transpose(&transpose(&p)), p.clone());
            let mut ga = grundy_solve::GrundyMemo::new(&Chomp);
            let t = transpose(&p);
            prop_assert_eq!(
                ga.grundy_sum(&Chomp.components(&p)).unwrap(),
                ga.grundy_sum(&Chomp.components(&t)).unwrap()
            );
        }

        #[test]
        fn parser_never_panics(s in "[0-9x \n,]{0,30}") {
            let _ = Chomp.parse_position(&s);
        }
    }
}
