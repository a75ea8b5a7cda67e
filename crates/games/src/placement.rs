//! Placement games (`kind = "placement"` game files): players take turns placing a piece of
//! one of the spec's shapes on empty cells of a board; the player who cannot place one loses.
//! With dominoes this is Cram (the built-in `cram` family), with straight triominoes
//! Triomino Cram.
//!
//! ```toml
//! kind = "placement"
//! name = "cram"
//! pieces = [ ["##"] ]     # each piece a list of rows: '#' a cell of the piece, '.' none
//! rotations = true        # (the default) every rotation and reflection of a piece too
//! ```
//!
//! Positions are written as Cram's: `RxC` (an empty board), or rows of `.` (empty) and `#`
//! (filled, or a hole) joined by `/` or new lines, at most 128 cells. A move names the cells
//! it covers, `r,c` from 1, in reading order, joined by `-` (`1,1-1,2`), as Cram's moves.
//!
//! When every piece is connected (cells joined through sides), the components are the
//! connected regions of empty cells, each cropped to its box and kept in the least form
//! under the symmetries of the square that map the set of pieces onto itself (all eight
//! with `rotations = true`); regions where no piece fits are dropped. With a piece that is
//! not connected, a region cannot be played apart from the others: the empty cells of the
//! board are then one component (still cropped and in least form).

use crate::cram::{format_board, parse_board, Board};
use crate::family::{
    BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Sample, Seeded, Table,
};
use crate::gamefile::{GameFile, SpecError};
use grundy_core::{Game, ParseError, Ruleset};
use serde::Deserialize;
use std::sync::{Arc, OnceLock};
use toml::Spanned;

/// Most pieces a spec may give.
pub const MAX_PIECES: usize = 32;
/// Largest side of a piece.
pub const MAX_PIECE_SIDE: usize = 8;

/// The spec of Cram (dominoes), used when no game file is given.
pub const CRAM: &str = include_str!("../../../examples/games/cram.toml");
/// The spec of Triomino Cram (straight triominoes), an example.
pub const TRIOMINOES: &str = include_str!("../../../examples/games/triomino-cram.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    pieces: Spanned<Vec<Spanned<Vec<String>>>>,
    #[serde(default = "yes")]
    rotations: bool,
}

fn yes() -> bool {
    true
}

/// A piece in one orientation: its cells, from (0, 0), in reading order, and its box.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    /// Rows of the box.
    pub h: u32,
    /// Columns of the box.
    pub w: u32,
    /// The cells `(row, column)`, sorted.
    pub cells: Vec<(u32, u32)>,
}

/// The eight symmetries of the square, as maps of `(r, c)`: transpose when bit 2 is set,
/// then negate the row (bit 0) and the column (bit 1).
fn transform(t: u8, (r, c): (i64, i64)) -> (i64, i64) {
    let (r, c) = if t & 4 != 0 { (c, r) } else { (r, c) };
    (if t & 1 != 0 { -r } else { r }, if t & 2 != 0 { -c } else { c })
}

/// Cells moved to start at (0, 0), sorted, with their box.
fn normalise(cells: &[(i64, i64)]) -> Shape {
    let r0 = cells.iter().map(|x| x.0).min().unwrap_or(0);
    let c0 = cells.iter().map(|x| x.1).min().unwrap_or(0);
    let mut out: Vec<(u32, u32)> = cells
        .iter()
        .map(|&(r, c)| ((r - r0) as u32, (c - c0) as u32))
        .collect();
    out.sort_unstable();
    let h = out.iter().map(|x| x.0 + 1).max().unwrap_or(0);
    let w = out.iter().map(|x| x.1 + 1).max().unwrap_or(0);
    Shape { h, w, cells: out }
}

fn connected(cells: &[(u32, u32)]) -> bool {
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(i) = stack.pop() {
        let (r, c) = cells[i];
        for (j, &(r2, c2)) in cells.iter().enumerate() {
            if !seen[j] && r.abs_diff(r2) + c.abs_diff(c2) == 1 {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    seen.iter().all(|&s| s)
}

/// The rules read from a spec.
#[derive(Debug)]
pub struct Rules {
    /// Every orientation of every piece, without duplicates.
    pub shapes: Vec<Shape>,
    /// The symmetries of the square (see [`transform`]) that map the shapes onto themselves.
    symmetries: Vec<u8>,
    /// Whether every piece is connected, so regions of empty cells are independent.
    pub split: bool,
    /// Fewest cells of a piece.
    min_cells: u32,
}

/// Reads and checks a placement spec; every error names its line and column.
pub fn read_spec(file: &GameFile) -> Result<Rules, SpecError> {
    let spec: FileSpec = file.spec()?;
    let pieces = spec.pieces.get_ref();
    if pieces.is_empty() {
        return Err(file.error_at(
            spec.pieces.span(),
            "give at least one piece, e.g. pieces = [[\"##\"]]",
        ));
    }
    if pieces.len() > MAX_PIECES {
        return Err(file.error_at(spec.pieces.span(), format!("at most {MAX_PIECES} pieces")));
    }
    let mut shapes = Vec::new();
    let mut split = true;
    for piece in pieces {
        let rows = piece.get_ref();
        let at = piece.span();
        if rows.is_empty() || rows.len() > MAX_PIECE_SIDE {
            return Err(file.error_at(
                at,
                format!("a piece is 1 to {MAX_PIECE_SIDE} rows of '#' and '.'"),
            ));
        }
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            if row.chars().count() > MAX_PIECE_SIDE {
                return Err(file.error_at(
                    at,
                    format!("a piece's rows have at most {MAX_PIECE_SIDE} characters"),
                ));
            }
            for (c, ch) in row.chars().enumerate() {
                match ch {
                    '#' => cells.push((r as i64, c as i64)),
                    '.' => {}
                    _ => {
                        return Err(file.error_at(
                            at,
                            format!("a piece's rows are '#' (a cell) and '.' (none), not '{ch}'"),
                        ))
                    }
                }
            }
        }
        if cells.is_empty() {
            return Err(file.error_at(at, "a piece needs at least one cell ('#')"));
        }
        let base = normalise(&cells);
        split &= connected(&base.cells);
        let orientations: &[u8] = if spec.rotations {
            &[0, 1, 2, 3, 4, 5, 6, 7]
        } else {
            &[0]
        };
        for &t in orientations {
            let moved: Vec<(i64, i64)> = cells.iter().map(|&x| transform(t, x)).collect();
            shapes.push(normalise(&moved));
        }
    }
    shapes.sort();
    shapes.dedup();
    let symmetries = (0..8u8)
        .filter(|&t| {
            let mut mapped: Vec<Shape> = shapes
                .iter()
                .map(|s| {
                    let moved: Vec<(i64, i64)> = s
                        .cells
                        .iter()
                        .map(|&(r, c)| transform(t, (r as i64, c as i64)))
                        .collect();
                    normalise(&moved)
                })
                .collect();
            mapped.sort();
            mapped == shapes
        })
        .collect();
    let min_cells = shapes.iter().map(|s| s.cells.len() as u32).min().unwrap_or(1);
    Ok(Rules {
        shapes,
        symmetries,
        split,
        min_cells,
    })
}

/// One component: a set of empty cells in the least form of its box, `h × w` cells, bit
/// `r * w + c` for cell (r, c).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Region {
    /// Rows of the box.
    pub h: u8,
    /// Columns of the box.
    pub w: u8,
    /// The cells.
    pub mask: u128,
}

/// Masks of an `h × w` box: its cells, and its first and last columns.
#[derive(Clone, Copy)]
struct BoxShape {
    w: u32,
    full: u128,
    left: u128,
    right: u128,
}

impl BoxShape {
    fn new(h: u32, w: u32) -> BoxShape {
        let n = h * w;
        let full = if n >= 128 { u128::MAX } else { (1u128 << n) - 1 };
        let mut left = 0u128;
        for r in 0..h {
            left |= 1 << (r * w);
        }
        BoxShape {
            w,
            full,
            left,
            right: left << (w - 1),
        }
    }

    fn neighbours(&self, m: u128) -> u128 {
        let horiz = ((m & !self.right) << 1) | ((m & !self.left) >> 1);
        let vert = m.checked_shl(self.w).unwrap_or(0) | m.checked_shr(self.w).unwrap_or(0);
        (horiz | vert) & self.full
    }

    /// Calls `f` with each connected part of `set`.
    fn split(&self, mut set: u128, mut f: impl FnMut(u128)) {
        while set != 0 {
            let mut comp = set & set.wrapping_neg();
            loop {
                let next = (comp | self.neighbours(comp)) & set;
                if next == comp {
                    break;
                }
                comp = next;
            }
            set &= !comp;
            f(comp);
        }
    }
}

/// A placement game: its rules, and the file it was read from.
#[derive(Clone, Debug)]
pub struct Placement {
    rules: Arc<Rules>,
    file: Arc<GameFile>,
    builtin: bool,
}

impl Placement {
    /// The game of `file` (a placement spec).
    pub fn from_file(file: Arc<GameFile>) -> Result<Placement, SpecError> {
        let rules = file.cached(read_spec)?;
        Ok(Placement {
            rules,
            file,
            builtin: false,
        })
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Calls `f` with the mask of every placement of a piece inside the cells `set` of an
    /// `h × w` box.
    fn placements(&self, h: u32, w: u32, set: u128, mut f: impl FnMut(u128)) {
        for s in &self.rules.shapes {
            if s.h > h || s.w > w {
                continue;
            }
            let base: u128 = s.cells.iter().fold(0, |m, &(r, c)| m | 1 << (r * w + c));
            for r in 0..=h - s.h {
                for c in 0..=w - s.w {
                    let m = base << (r * w + c);
                    if set & m == m {
                        f(m);
                    }
                }
            }
        }
    }

    /// Whether some piece fits in the cells `set` of an `h × w` box.
    fn playable(&self, h: u32, w: u32, set: u128) -> bool {
        if set.count_ones() < self.rules.min_cells {
            return false;
        }
        let mut any = false;
        self.placements(h, w, set, |_| any = true);
        any
    }

    /// The least form of the cells `set` of an `h × w` box under the symmetries.
    fn canonical(&self, h: u32, w: u32, set: u128) -> Region {
        let cells: Vec<(i64, i64)> = (0..h * w)
            .filter(|&i| set >> i & 1 == 1)
            .map(|i| ((i / w) as i64, (i % w) as i64))
            .collect();
        let mut best: Option<Region> = None;
        for &t in &self.rules.symmetries {
            let moved: Vec<(i64, i64)> = cells.iter().map(|&x| transform(t, x)).collect();
            let s = normalise(&moved);
            let mask = s.cells.iter().fold(0u128, |m, &(r, c)| m | 1 << (r * s.w + c));
            let region = Region {
                h: s.h as u8,
                w: s.w as u8,
                mask,
            };
            if best.is_none_or(|b| region < b) {
                best = Some(region);
            }
        }
        best.unwrap_or(Region { h: 0, w: 0, mask: 0 })
    }

    /// The components of the cells `set` of an `h × w` box, pushed to `out`.
    fn regions_into(&self, h: u32, w: u32, set: u128, out: &mut Vec<Region>) {
        if !self.rules.split {
            if self.playable(h, w, set) {
                out.push(self.canonical(h, w, set));
            }
            return;
        }
        BoxShape::new(h, w).split(set, |part| {
            if self.playable(h, w, part) {
                out.push(self.canonical(h, w, part));
            }
        });
    }
}

impl Ruleset for Placement {
    type Component = Region;

    fn options<F: FnMut(&[Region])>(&self, c: &Region, mut emit: F) {
        let (h, w) = (c.h as u32, c.w as u32);
        let mut parts = Vec::new();
        self.placements(h, w, c.mask, |m| {
            parts.clear();
            self.regions_into(h, w, c.mask & !m, &mut parts);
            emit(&parts);
        });
    }

    fn size_hint(&self, c: &Region) -> usize {
        c.mask.count_ones() as usize
    }
}

/// A move: the cells covered, `(row, column)` from 0, in reading order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place(pub Vec<(u32, u32)>);

impl Game for Placement {
    type Position = Board;
    type Move = Place;

    fn parse_position(&self, text: &str) -> Result<Board, ParseError> {
        parse_board(text)
    }

    fn components(&self, p: &Board) -> Vec<Region> {
        let mut out = Vec::new();
        self.regions_into(p.rows, p.cols, p.empty, &mut out);
        out
    }

    fn moves<F: FnMut(Place, Board)>(&self, p: &Board, mut emit: F) {
        let (h, w) = (p.rows, p.cols);
        let mut all = Vec::new();
        self.placements(h, w, p.empty, |m| all.push(m));
        // In reading order of the first cell, then of the others.
        let cells = |m: u128| -> Vec<(u32, u32)> {
            (0..h * w)
                .filter(|&i| m >> i & 1 == 1)
                .map(|i| (i / w, i % w))
                .collect()
        };
        let mut moves: Vec<(Vec<(u32, u32)>, u128)> = all.into_iter().map(|m| (cells(m), m)).collect();
        moves.sort();
        for (c, m) in moves {
            emit(
                Place(c),
                Board {
                    empty: p.empty & !m,
                    ..p.clone()
                },
            );
        }
    }

    fn format_move(&self, m: &Place) -> String {
        m.0.iter()
            .map(|(r, c)| format!("{},{}", r + 1, c + 1))
            .collect::<Vec<_>>()
            .join("-")
    }

    fn format_position(&self, p: &Board) -> String {
        format_board(p)
    }
}

fn cram_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "cram.toml", CRAM)
}

fn triomino_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "triomino-cram.toml", TRIOMINOES)
}

/// Specs for the samples beyond the examples: L-trominoes, horizontal dominoes only, a
/// piece of two cells apart (no split), a domino or a single cell.
const SAMPLE_SPECS: [&str; 4] = [
    "kind = \"placement\"\npieces = [[\"#.\", \"##\"]]\n",
    "kind = \"placement\"\npieces = [[\"##\"]]\nrotations = false\n",
    "kind = \"placement\"\npieces = [[\"#.#\"]]\n",
    "kind = \"placement\"\npieces = [[\"##\"], [\"#\"]]\nrotations = false\n",
];

fn sample_file(k: usize) -> Option<Arc<GameFile>> {
    static FILES: OnceLock<Vec<Option<Arc<GameFile>>>> = OnceLock::new();
    crate::gamefile::sample_file(&FILES, "placement", &SAMPLE_SPECS, k)
}

/// Boards of up to 3×4 cells, a fifth of them holes, with Cram, Triomino Cram or a sample
/// spec.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let file = match r.range(0, 5) {
        0 => cram_file(),
        1 => triomino_file(),
        k => sample_file(k as usize - 2),
    };
    let (rows, cols) = (r.range(1, 3), r.range(1, 4));
    Sample {
        text: r.grid(rows, cols, &['.', '.', '.', '.', '#']),
        options: FamilyOptions {
            game: file,
            ..FamilyOptions::default()
        },
    }
}

/// Placement games (game files of kind `placement`) as a family of the registry; without a
/// game file, Cram.
pub struct PlacementFamily;

impl Family for PlacementFamily {
    type Game = Placement;
    const DESCRIPTION: Description = Description {
        name: "placement",
        aliases: &[],
        notation: "pieces placed on a board (a game file of kind placement; dominoes without one): 'RxC' or rows of '.' and '#' (a hole), e.g. '3x4'",
        example: "3x4",
        misere: true,
        engine: Engine::Search,
        options: &[],
        table: Some(Table::boards(5)),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: crate::family::estimate_by_tokens,
        sample,
    };

    fn build(&self, _: &str, opts: &FamilyOptions, text: &str) -> Result<(Placement, Board), RegistryError> {
        let (file, builtin) = crate::gamefile::file_or_example(opts, cram_file, "Cram")?;
        let mut game = Placement::from_file(file)?;
        game.builtin = builtin;
        let p = game
            .parse_position(text)
            .map_err(|e| RegistryError::position("placement", e))?;
        Ok((game, p))
    }

    fn name(&self, game: &Placement) -> String {
        if game.builtin {
            Self::DESCRIPTION.name.to_string()
        } else {
            game.file.id()
        }
    }

    fn board(&self, _: &Placement, p: &Board) -> BoardView {
        let rows = (0..p.rows)
            .map(|r| {
                (0..p.cols)
                    .map(|c| if p.is_empty_cell(r, c) { '.' } else { '#' })
                    .collect()
            })
            .collect();
        BoardView::Grid { rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cram::Cram;
    use grundy_core::Nimber;
    use grundy_solve::{analyze, brute, Convention};
    use proptest::prelude::*;

    fn game(text: &str) -> Placement {
        Placement::from_file(Arc::new(GameFile::load("t.toml", text).unwrap())).unwrap()
    }

    #[test]
    fn dominoes_are_cram() {
        let g = game(CRAM);
        assert_eq!(g.rules.shapes.len(), 2);
        assert_eq!(g.rules.symmetries.len(), 8);
        let mut r = Seeded::new(7);
        for i in 0..300 {
            let (rows, cols) = (r.range(1, 4), r.range(1, 5));
            let text = r.grid(rows, cols, &['.', '.', '.', '.', '#']);
            let p = g.parse_position(&text).unwrap();
            let want = analyze(&Cram, &Cram.parse_position(&text).unwrap(), Convention::Normal).unwrap();
            let got = analyze(&g, &p, Convention::Normal).unwrap();
            assert_eq!(got.grundy, want.grundy, "{text}");
            if i < 60 {
                let names = |v: &[String]| {
                    let mut v = v.to_vec();
                    v.sort();
                    v
                };
                let mine: Vec<String> = got.winning_moves.iter().map(|m| g.format_move(m)).collect();
                let cram: Vec<String> = want.winning_moves.iter().map(|m| Cram.format_move(m)).collect();
                assert_eq!(names(&mine), names(&cram), "{text}");
            }
        }
        for text in ["3x4", "4x4", "2x7", "3x5"] {
            let a = analyze(&g, &g.parse_position(text).unwrap(), Convention::Normal).unwrap();
            let b = analyze(&Cram, &Cram.parse_position(text).unwrap(), Convention::Normal).unwrap();
            assert_eq!(a.grundy, b.grundy, "{text}");
        }
    }

    /// Straight triominoes on a 1×n strip: remove three cells in a row, leaving two strips
    /// (octal game 0.007), by a mex written here.
    #[test]
    fn triominoes_on_a_strip_are_octal_0_007() {
        let mut strip = vec![0u64; 41];
        for n in 3..=40 {
            let seen: Vec<u64> = (0..=n - 3).map(|a| strip[a] ^ strip[n - 3 - a]).collect();
            strip[n] = (0..).find(|v| !seen.contains(v)).unwrap();
        }
        assert_eq!(&strip[..8], &[0, 0, 0, 1, 1, 1, 2, 2]);
        let g = game(TRIOMINOES);
        for (n, &want) in strip.iter().enumerate().skip(1) {
            let p = g.parse_position(&format!("1x{n}")).unwrap();
            let a = analyze(&g, &p, Convention::Normal).unwrap();
            assert_eq!(a.grundy, Some(Nimber(want)), "1x{n}");
            if n <= 8 {
                assert_eq!(brute::grundy(&g, &p), Nimber(want));
            }
        }
        // A 3x3 board: the middle row leaves two 1×3 strips, worth 1 each, a loss for the
        // player to move: the first player wins.
        let p = g.parse_position("3x3").unwrap();
        assert_eq!(
            analyze(&g, &p, Convention::Normal).unwrap().outcome,
            grundy_core::Outcome::First
        );
    }

    #[test]
    fn components_and_symmetries() {
        let g = game(CRAM);
        let a = g.components(&g.parse_position("../.#").unwrap());
        for s in ["../#.", ".#/..", "#./.."] {
            assert_eq!(g.components(&g.parse_position(s).unwrap()), a, "{s}");
        }
        // Lone cells are dropped; two regions.
        assert_eq!(
            g.components(&g.parse_position("..#./#.#./...#").unwrap()).len(),
            2
        );
        // Horizontal dominoes only: a column is no component, a row is; no transposition.
        let h = game(SAMPLE_SPECS[1]);
        assert_eq!(h.rules.symmetries.len(), 4);
        assert!(h.components(&h.parse_position("./.").unwrap()).is_empty());
        assert_eq!(h.components(&h.parse_position("..").unwrap()).len(), 1);
        // A piece in two parts: the board is one component.
        let d = game(SAMPLE_SPECS[2]);
        assert!(!d.rules.split);
        assert_eq!(d.components(&d.parse_position(".#./..#").unwrap()).len(), 1);
        let mut moves = Vec::new();
        d.moves(&d.parse_position("3x3").unwrap(), |m, _| {
            moves.push(d.format_move(&m))
        });
        assert_eq!(moves.len(), 6);
        assert_eq!(moves[0], "1,1-1,3");
    }

    #[test]
    fn spec_errors_have_places() {
        let at = |text: &str| {
            let f = GameFile::load("e.toml", text).unwrap();
            let e = read_spec(&f).unwrap_err();
            (e.line, e.column, e.message)
        };
        assert_eq!(at("kind = \"placement\"\npieces = []\n").0, 2);
        let (l, c, m) = at("kind = \"placement\"\npieces = [[\"##\"], [\"#x\"]]\n");
        assert_eq!((l, c), (2, 19), "{m}");
        assert_eq!(at("kind = \"placement\"\npieces = [[\"..\"]]\n").1, 11);
        assert_eq!(
            at("kind = \"placement\"\npieces = [[\"##\"]]\nrotation = true\n").0,
            3
        );
        assert_eq!(at("kind = \"placement\"\npieces = [[\"#########\"]]\n").0, 2);
        assert_eq!(at("kind = \"placement\"\npieces = \"##\"\n").0, 2);
    }

    proptest! {
        #[test]
        fn arbitrary_specs_and_positions_never_panic(spec in "[a-z =\\[\\],.#\n\"]{0,60}", pos in "[.#x0-9/\n]{0,16}") {
            let text = format!("kind = \"placement\"\n{spec}");
            if let Ok(f) = GameFile::load("p.toml", &text) {
                if let Ok(g) = Placement::from_file(Arc::new(f)) {
                    if let Ok(p) = g.parse_position(&pos) {
                        let _ = g.components(&p);
                        let _ = g.format_position(&p);
                    }
                }
            }
        }
    }
}
