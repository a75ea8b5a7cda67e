//! World of Darkraft (Codeforces 138D): a board of `L`, `R`, `X` cells; a move picks an
//! intact cell and fires diagonal lasers from it that destroy everything up to a destroyed
//! cell or the border.
//!
//! Notation (docs/games.md): rows of `L`/`R`/`X`/`.` separated by newlines or `/`
//! (`RL/LR`); a move is the chosen cell as 1-based `row,col` (`2,3`).
//!
//! The engine works in rotated coordinates `u = i+j`, `v = i−j`, where an `L` laser cuts
//! along `u = const`, an `R` laser along `v = const` and `X` along both. Cells of the two
//! parities of `i+j` never interact, and from a full board every reachable region of one
//! parity is a rectangle of the rotated lattice intersected with the board. Such regions are
//! [`Region::Rect`] components, whose values come from a dense table computed once in bulk;
//! any other region (from positions with destroyed cells) is a [`Region::Cells`] component,
//! searched by the generic memo engine through [`Ruleset::options`], whose options map back
//! to rectangles whenever they can.

pub mod baseline;
mod table;

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError};
use grundy_core::{tokens, Game, Nimber, ParseError, Ruleset};
use hashbrown::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;
use table::{Table, TableError};

/// Largest number of cells a board may have (`2^22`, e.g. 2048×2048); larger inputs are
/// rejected by the parser with an error.
pub const MAX_CELLS: usize = 1 << 22;

/// Default bound on the number of entries of the dense rectangle table (both parities
/// together). Each entry is one or two bytes; a 100×100 board needs about 5.3·10^7.
pub const DEFAULT_TABLE_LIMIT: usize = 1 << 28;

/// One cell of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// Fires down-left and up-right (cuts along `i+j = const`).
    L,
    /// Fires up-left and down-right (cuts along `i−j = const`).
    R,
    /// Fires in all four diagonal directions.
    X,
    /// A destroyed cell, written `.`: it cannot be chosen and stops lasers.
    Destroyed,
}

impl Cell {
    /// The character of the cell in the notation.
    pub fn as_char(self) -> char {
        match self {
            Cell::L => 'L',
            Cell::R => 'R',
            Cell::X => 'X',
            Cell::Destroyed => '.',
        }
    }

    /// True unless the cell is destroyed.
    pub fn is_intact(self) -> bool {
        self != Cell::Destroyed
    }

    /// The diagonal directions (row step, column step) its lasers travel.
    fn directions(self) -> &'static [(isize, isize)] {
        match self {
            Cell::L => &[(1, -1), (-1, 1)],
            Cell::R => &[(-1, -1), (1, 1)],
            Cell::X => &[(1, -1), (-1, 1), (-1, -1), (1, 1)],
            Cell::Destroyed => &[],
        }
    }
}

/// A Darkraft position: a rectangular grid of cells, some of them destroyed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    rows: usize,
    cols: usize,
    cells: Vec<Cell>,
}

/// A move: the chosen cell, 0-based (written 1-based as `row,col`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shot {
    /// Row of the chosen cell, from 0 (top).
    pub row: usize,
    /// Column of the chosen cell, from 0 (left).
    pub col: usize,
}

impl fmt::Display for Shot {
    /// `row,col`, 1-based.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.row + 1, self.col + 1)
    }
}

impl Board {
    /// A board of `rows × cols` letters drawn uniformly by splitmix64 from `seed`: the
    /// random boards of the benchmarks, the timing example and the tests.
    #[doc(hidden)]
    pub fn random(rows: usize, cols: usize, seed: u64) -> Board {
        let mut x = seed;
        let cells = (0..rows * cols)
            .map(|_| {
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                [Cell::L, Cell::R, Cell::X][((z ^ (z >> 31)) % 3) as usize]
            })
            .collect();
        Board::new(rows, cols, cells).expect("a random board has a valid size")
    }

    /// A board of `rows × cols` cells given row by row, or `None` when the sizes disagree,
    /// the board is empty or has more than [`MAX_CELLS`] cells.
    pub fn new(rows: usize, cols: usize, cells: Vec<Cell>) -> Option<Board> {
        let n = rows.checked_mul(cols)?;
        (rows > 0 && cols > 0 && n <= MAX_CELLS && cells.len() == n).then_some(Board { rows, cols, cells })
    }

    /// Reads a board in the Darkraft notation (see the module documentation). Errors name
    /// the line and column of the offending character.
    pub fn parse(text: &str) -> Result<Board, ParseError> {
        let mut cells: Vec<Cell> = Vec::new();
        let mut width: Option<usize> = None;
        let mut rows = 0usize;
        // Closes the current row: `len` cells, the separator or line end at `line:col`.
        fn finish(
            len: usize,
            line: usize,
            col: usize,
            rows: &mut usize,
            width: &mut Option<usize>,
        ) -> Result<(), ParseError> {
            if len == 0 {
                return Err(ParseError::new(line, col, "empty row"));
            }
            match *width {
                None => *width = Some(len),
                Some(w) if len < w => {
                    return Err(ParseError::new(
                        line,
                        col,
                        format!("row {} has {len} cells, but the first row has {w}", *rows + 1),
                    ))
                }
                Some(_) => {}
            }
            *rows += 1;
            Ok(())
        }
        for (li, line) in text.split('\n').enumerate() {
            let line_no = li + 1;
            if line.chars().all(char::is_whitespace) {
                continue;
            }
            let mut col = 0usize;
            let mut len = 0usize;
            for ch in line.chars() {
                col += 1;
                let cell = match ch {
                    'L' => Cell::L,
                    'R' => Cell::R,
                    'X' => Cell::X,
                    '.' => Cell::Destroyed,
                    '/' => {
                        finish(len, line_no, col, &mut rows, &mut width)?;
                        len = 0;
                        continue;
                    }
                    c if c.is_whitespace() => continue,
                    c => {
                        return Err(ParseError::new(
                            line_no,
                            col,
                            format!("unknown character '{c}' (expected L, R, X, '.' or '/')"),
                        ))
                    }
                };
                if let Some(w) = width {
                    if len == w {
                        return Err(ParseError::new(
                            line_no,
                            col,
                            format!("row {} is longer than the first row ({w} cells)", rows + 1),
                        ));
                    }
                }
                if cells.len() >= MAX_CELLS {
                    return Err(ParseError::new(
                        line_no,
                        col,
                        format!("board too large: more than {MAX_CELLS} cells"),
                    ));
                }
                cells.push(cell);
                len += 1;
            }
            finish(len, line_no, col + 1, &mut rows, &mut width)?;
        }
        match width {
            Some(cols) if rows > 0 => Ok(Board { rows, cols, cells }),
            _ => Err(ParseError::new(1, 1, "empty board")),
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The cell at `row`, `col` (0-based), or `None` outside the board.
    pub fn get(&self, row: usize, col: usize) -> Option<Cell> {
        (row < self.rows && col < self.cols).then(|| self.cells[row * self.cols + col])
    }

    /// True when no cell is destroyed.
    pub fn is_full(&self) -> bool {
        self.cells.iter().all(|c| c.is_intact())
    }

    /// Number of intact cells.
    pub fn intact(&self) -> usize {
        self.cells.iter().filter(|c| c.is_intact()).count()
    }

    /// The cell at a signed place, `None` outside the board.
    fn at(&self, row: isize, col: isize) -> Option<Cell> {
        if row < 0 || col < 0 {
            return None;
        }
        self.get(row as usize, col as usize)
    }

    /// The board after the move `shot` (simulating the lasers cell by cell), or `None` when
    /// the chosen cell is outside the board or destroyed.
    pub fn fire(&self, shot: Shot) -> Option<Board> {
        let cell = self.get(shot.row, shot.col)?;
        if !cell.is_intact() {
            return None;
        }
        let mut next = self.clone();
        let (r0, c0) = (shot.row as isize, shot.col as isize);
        next.cells[shot.row * self.cols + shot.col] = Cell::Destroyed;
        for &(dr, dc) in cell.directions() {
            let (mut r, mut c) = (r0 + dr, c0 + dc);
            while self.at(r, c).is_some_and(Cell::is_intact) {
                next.cells[r as usize * self.cols + c as usize] = Cell::Destroyed;
                r += dr;
                c += dc;
            }
        }
        Some(next)
    }

    /// Reads a move `row,col` (1-based; spaces allowed) and checks that it names an intact
    /// cell of this board.
    pub fn parse_move(&self, text: &str) -> Result<Shot, ParseError> {
        let t = tokens(text);
        if t.len() != 2 {
            let (line, col) = t.get(2).map_or((1, 1), |t| (t.span.line, t.span.column));
            return Err(ParseError::new(
                line,
                col,
                "a move is a cell written row,col (for example 2,3)",
            ));
        }
        let row = t[0].number("row", self.rows as u64)?;
        let col = t[1].number("column", self.cols as u64)?;
        if row == 0 || col == 0 {
            let at = if row == 0 { &t[0] } else { &t[1] };
            return Err(ParseError::new(
                at.span.line,
                at.span.column,
                "rows and columns count from 1",
            ));
        }
        let shot = Shot {
            row: row as usize - 1,
            col: col as usize - 1,
        };
        if !self.cells[shot.row * self.cols + shot.col].is_intact() {
            return Err(ParseError::new(
                t[0].span.line,
                t[0].span.column,
                format!("cell {shot} is already destroyed"),
            ));
        }
        Ok(shot)
    }
}

impl fmt::Display for Board {
    /// Rows separated by `/`, e.g. `RL/L.`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..self.rows {
            if r > 0 {
                f.write_str("/")?;
            }
            let row: String = self.cells[r * self.cols..(r + 1) * self.cols]
                .iter()
                .map(|c| c.as_char())
                .collect();
            f.write_str(&row)?;
        }
        Ok(())
    }
}

impl FromStr for Board {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Board, ParseError> {
        Board::parse(s)
    }
}

/// The rotated lattice of a board of `n × m` cells, one parity class at a time.
///
/// A cell `(i, j)` of parity `p = (i+j) mod 2` has compressed coordinates
/// `U = (i+j−p)/2` and `V = (i−j+m−1−q)/2` with `q = (p+m−1) mod 2`; an `L` laser runs along
/// a line `U = const`, an `R` laser along `V = const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub(crate) n: usize,
    pub(crate) m: usize,
}

impl Geometry {
    fn q(&self, p: usize) -> usize {
        (p + self.m - 1) & 1
    }

    fn span(&self) -> usize {
        self.n + self.m - 2
    }

    /// Parity class and compressed coordinates of cell `(i, j)`.
    pub(crate) fn uv(&self, i: usize, j: usize) -> (usize, usize, usize) {
        let p = (i + j) & 1;
        let w = i + self.m - 1 - j;
        (p, (i + j - p) / 2, (w - self.q(p)) / 2)
    }

    /// The cell at compressed coordinates `(u, v)` of class `p`, if on the board.
    pub(crate) fn cell(&self, p: usize, u: usize, v: usize) -> Option<(usize, usize)> {
        let uu = 2 * u + p;
        let w = 2 * v + self.q(p);
        let s = uu + w;
        if s < self.m - 1 || uu + self.m - 1 < w {
            return None;
        }
        let i = (s - (self.m - 1)) / 2;
        let j = (uu + self.m - 1 - w) / 2;
        (i < self.n && j < self.m).then_some((i, j))
    }

    /// The compressed `V` range (inclusive) of the board cells on line `U = u` of class `p`.
    pub(crate) fn v_range(&self, p: usize, u: usize) -> Option<(usize, usize)> {
        let uu = 2 * u + p;
        if uu > self.span() {
            return None;
        }
        let imin = uu.saturating_sub(self.m - 1);
        let imax = (self.n - 1).min(uu);
        let q = self.q(p);
        let lo = (2 * imin + self.m - 1 - uu - q) / 2;
        let hi = (2 * imax + self.m - 1 - uu - q) / 2;
        Some((lo, hi))
    }

    /// The compressed `U` range (inclusive) of the board cells on line `V = v` of class `p`.
    pub(crate) fn u_range(&self, p: usize, v: usize) -> Option<(usize, usize)> {
        let w = (2 * v + self.q(p)) as isize;
        let d = w - (self.m as isize - 1); // i - j
        let imin = d.max(0);
        let imax = (self.n as isize - 1).min(self.m as isize - 1 + d);
        if imin > imax {
            return None;
        }
        let lo = (2 * imin - d - p as isize) / 2;
        let hi = (2 * imax - d - p as isize) / 2;
        Some((lo as usize, hi as usize))
    }

    /// Number of compressed `U` lines of class `p`.
    pub(crate) fn nu(&self, p: usize) -> usize {
        let s = self.span();
        if s >= p {
            (s - p) / 2 + 1
        } else {
            0
        }
    }

    /// Number of compressed `V` lines of class `p`.
    pub(crate) fn nv(&self, p: usize) -> usize {
        let (s, q) = (self.span(), self.q(p));
        if s >= q {
            (s - q) / 2 + 1
        } else {
            0
        }
    }

    /// Number of board cells in a rectangle.
    fn cells_in(&self, r: &Rect) -> usize {
        let (p, v1, v2) = (r.parity as usize, r.v1 as usize, r.v2 as usize);
        (r.u1 as usize..=r.u2 as usize)
            .filter_map(|u| self.v_range(p, u))
            .map(|(lo, hi)| (hi.min(v2) + 1).saturating_sub(lo.max(v1)))
            .sum()
    }

    /// The smallest rectangle with the same board cells as `[u1,u2]×[v1,v2]` of class `p`
    /// (bounds may be empty or negative), or `None` when it holds no cell.
    fn tighten(&self, p: usize, u1: isize, u2: isize, v1: isize, v2: isize) -> Option<Rect> {
        let u1 = u1.max(0) as usize;
        let v1 = v1.max(0) as usize;
        if u2 < u1 as isize || v2 < v1 as isize {
            return None;
        }
        let u2 = (u2 as usize).min(self.nu(p).checked_sub(1)?);
        let v2 = (v2 as usize).min(self.nv(p).checked_sub(1)?);
        let hits =
            |r: Option<(usize, usize)>, a: usize, b: usize| r.is_some_and(|(lo, hi)| lo.max(a) <= hi.min(b));
        let lo_u = (u1..=u2).find(|&u| hits(self.v_range(p, u), v1, v2))?;
        let hi_u = (u1..=u2).rev().find(|&u| hits(self.v_range(p, u), v1, v2))?;
        let lo_v = (v1..=v2).find(|&v| hits(self.u_range(p, v), lo_u, hi_u))?;
        let hi_v = (v1..=v2).rev().find(|&v| hits(self.u_range(p, v), lo_u, hi_u))?;
        Some(Rect {
            parity: p as u8,
            u1: lo_u as u32,
            u2: hi_u as u32,
            v1: lo_v as u32,
            v2: hi_v as u32,
        })
    }
}

/// A region of one parity class that is exactly a rectangle of the rotated lattice
/// intersected with the board, all intact, with tight bounds (compressed coordinates, see
/// the module documentation; bounds inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rect {
    /// Parity of `row + col` of its cells.
    pub parity: u8,
    /// First `U` line.
    pub u1: u32,
    /// Last `U` line.
    pub u2: u32,
    /// First `V` line.
    pub v1: u32,
    /// Last `V` line.
    pub v2: u32,
}

/// An intact cell of an arbitrary region: its place and letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spot {
    /// Row, from 0.
    pub row: u32,
    /// Column, from 0.
    pub col: u32,
    /// Its letter (never [`Cell::Destroyed`]).
    pub cell: Cell,
}

/// A component of a Darkraft position: intact cells connected by diagonal adjacency.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    /// A rectangle of the reference board (value from the dense table).
    Rect(Rect),
    /// Any other region: its cells sorted by row and column (value by search).
    Cells(Box<[Spot]>),
}

/// Why the whole-board value could not be given directly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DarkraftError {
    /// The input could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Some component is not a rectangle (the board has destroyed cells): analyse the
    /// position with the memo engine instead.
    #[error("the position has a region that is not a rectangle; use the search engine")]
    NeedsSearch,
    /// The dense table would exceed its configured size.
    #[error("the board needs a table of {entries} entries, more than the limit of {limit}")]
    TableTooLarge {
        /// Entries needed.
        entries: u128,
        /// The configured limit.
        limit: usize,
    },
    /// Memory for the table could not be allocated.
    #[error("could not allocate {bytes} bytes for the table")]
    OutOfMemory {
        /// Bytes requested.
        bytes: usize,
    },
    /// A Grundy value did not fit in 16 bits.
    #[error("a Grundy value does not fit in 16 bits")]
    Overflow,
}

impl From<TableError> for DarkraftError {
    fn from(e: TableError) -> DarkraftError {
        match e {
            TableError::TooLarge { entries, limit } => DarkraftError::TableTooLarge { entries, limit },
            TableError::OutOfMemory { bytes } => DarkraftError::OutOfMemory { bytes },
            TableError::Overflow => DarkraftError::Overflow,
        }
    }
}

/// The rules of Darkraft over one reference board, whose letters the dense rectangle table
/// is computed from (lazily, once). Positions of other boards are still analysed correctly,
/// but only regions that match the reference board use the table.
pub struct Darkraft {
    reference: Board,
    geo: Geometry,
    table_limit: usize,
    plain: bool,
    narrow_max: u32,
    table: OnceLock<Result<Table, TableError>>,
}

impl fmt::Debug for Darkraft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Darkraft")
            .field("rows", &self.reference.rows)
            .field("cols", &self.reference.cols)
            .field("table_limit", &self.table_limit)
            .field("table_built", &self.table.get().is_some())
            .finish()
    }
}

impl Darkraft {
    /// The rules over the letters of `board` (usually the starting position).
    pub fn from_board(board: &Board) -> Darkraft {
        Darkraft {
            reference: board.clone(),
            geo: Geometry {
                n: board.rows,
                m: board.cols,
            },
            table_limit: DEFAULT_TABLE_LIMIT,
            plain: false,
            narrow_max: u8::MAX as u32,
            table: OnceLock::new(),
        }
    }

    /// Reads a board and returns the rules over it together with the position.
    pub fn parse(text: &str) -> Result<(Darkraft, Board), ParseError> {
        let board = Board::parse(text)?;
        Ok((Darkraft::from_board(&board), board))
    }

    /// Sets the largest table (entries, both parities) this ruleset may build; beyond it,
    /// rectangles are searched like any other region.
    pub fn with_table_limit(mut self, entries: usize) -> Darkraft {
        self.table_limit = entries;
        self.table = OnceLock::new();
        self
    }

    /// Builds the table without its fast paths (16-bit entries, general mex), to test them.
    #[doc(hidden)]
    pub fn with_plain_table(mut self) -> Darkraft {
        self.plain = true;
        self.table = OnceLock::new();
        self
    }

    /// Switches the table from bytes to 16-bit entries as soon as a value exceeds `max`
    /// (normally 255), to test the widening.
    #[doc(hidden)]
    pub fn with_narrow_max(mut self, max: u8) -> Darkraft {
        self.narrow_max = max as u32;
        self.table = OnceLock::new();
        self
    }

    /// The reference board.
    pub fn board(&self) -> &Board {
        &self.reference
    }

    fn table(&self) -> Result<&Table, &TableError> {
        self.table
            .get_or_init(|| {
                Table::build(
                    self.geo,
                    &self.reference,
                    self.table_limit,
                    self.plain,
                    self.narrow_max,
                )
            })
            .as_ref()
    }

    /// Builds the dense table now (it is otherwise built on first use).
    pub fn prepare(&self) -> Result<(), DarkraftError> {
        self.table().map(|_| ()).map_err(|e| e.clone().into())
    }

    /// The largest Grundy value of any rectangle of the board (from the table).
    pub fn largest_rect_grundy(&self) -> Result<Nimber, DarkraftError> {
        let t = self.table().map_err(|e| DarkraftError::from(e.clone()))?;
        Ok(Nimber(t.max_value() as u64))
    }

    /// The Grundy value of a rectangle from the table.
    pub fn rect_grundy(&self, r: &Rect) -> Result<Nimber, DarkraftError> {
        let t = self.table().map_err(|e| DarkraftError::from(e.clone()))?;
        t.get(r)
            .map(|v| Nimber(v as u64))
            .ok_or(DarkraftError::NeedsSearch)
    }

    /// The Grundy value of position `p` when all its components are rectangles (always so
    /// for a full board); the judge's decision is "first player wins" iff it is non-zero.
    pub fn grundy(&self, p: &Board) -> Result<Nimber, DarkraftError> {
        let mut g = Nimber::ZERO;
        for c in self.components(p) {
            match c {
                Region::Rect(r) => g ^= self.rect_grundy(&r)?,
                Region::Cells(_) => return Err(DarkraftError::NeedsSearch),
            }
        }
        Ok(g)
    }

    /// The Grundy value of the cells of parity `parity` in the rotated rectangle
    /// `u1 ≤ i+j ≤ u2`, `v1 ≤ i−j+m−1 ≤ v2` of the reference board (uncompressed, inclusive
    /// coordinates as in the textbook solution; for testing against [`baseline`]).
    #[doc(hidden)]
    pub fn grundy_rotated(
        &self,
        parity: usize,
        u1: isize,
        u2: isize,
        v1: isize,
        v2: isize,
    ) -> Result<Nimber, DarkraftError> {
        let p = parity & 1;
        let q = self.geo.q(p) as isize;
        let lo = |a: isize, off: isize| a.saturating_sub(off).saturating_add(1).div_euclid(2);
        let hi = |b: isize, off: isize| b.saturating_sub(off).div_euclid(2);
        match self
            .geo
            .tighten(p, lo(u1, p as isize), hi(u2, p as isize), lo(v1, q), hi(v2, q))
        {
            None => Ok(Nimber::ZERO),
            Some(r) => self.rect_grundy(&r),
        }
    }

    /// The component of a connected group of intact cells: a rectangle when it is exactly a
    /// rectangle of the reference board, otherwise the sorted cells.
    fn region_of(&self, mut cells: Vec<Spot>) -> Region {
        match self.as_rect(&cells) {
            Some(r) => Region::Rect(r),
            None => {
                cells.sort_unstable();
                Region::Cells(cells.into_boxed_slice())
            }
        }
    }

    fn as_rect(&self, cells: &[Spot]) -> Option<Rect> {
        let first = cells.first()?;
        let (n, m) = (self.reference.rows, self.reference.cols);
        let p = (first.row as usize + first.col as usize) & 1;
        let (mut u1, mut u2, mut v1, mut v2) = (usize::MAX, 0, usize::MAX, 0);
        for s in cells {
            let (i, j) = (s.row as usize, s.col as usize);
            if i >= n || j >= m || self.reference.cells[i * m + j] != s.cell {
                return None;
            }
            let (pp, u, v) = self.geo.uv(i, j);
            if pp != p {
                return None;
            }
            u1 = u1.min(u);
            u2 = u2.max(u);
            v1 = v1.min(v);
            v2 = v2.max(v);
        }
        let r = Rect {
            parity: p as u8,
            u1: u1 as u32,
            u2: u2 as u32,
            v1: v1 as u32,
            v2: v2 as u32,
        };
        (self.geo.cells_in(&r) == cells.len()).then_some(r)
    }

    /// Options of a rectangle, by cutting lines (used only when there is no table).
    fn rect_options<F: FnMut(&[Region])>(&self, r: &Rect, mut emit: F) {
        let p = r.parity as usize;
        let (u1, u2, v1, v2) = (r.u1 as isize, r.u2 as isize, r.v1 as isize, r.v2 as isize);
        let mut parts: Vec<Region> = Vec::with_capacity(4);
        for u in u1..=u2 {
            for v in v1..=v2 {
                let Some((i, j)) = self.geo.cell(p, u as usize, v as usize) else {
                    continue;
                };
                let quads: &[(isize, isize, isize, isize)] =
                    match self.reference.cells[i * self.reference.cols + j] {
                        Cell::L => &[(u1, u - 1, v1, v2), (u + 1, u2, v1, v2)],
                        Cell::R => &[(u1, u2, v1, v - 1), (u1, u2, v + 1, v2)],
                        Cell::X => &[
                            (u1, u - 1, v1, v - 1),
                            (u1, u - 1, v + 1, v2),
                            (u + 1, u2, v1, v - 1),
                            (u + 1, u2, v + 1, v2),
                        ],
                        Cell::Destroyed => &[],
                    };
                parts.clear();
                parts.extend(
                    quads
                        .iter()
                        .filter_map(|&(a, b, c, d)| self.geo.tighten(p, a, b, c, d))
                        .map(Region::Rect),
                );
                emit(&parts);
            }
        }
    }

    /// Options of an arbitrary region: fire from each cell, then split what is left.
    fn cells_options<F: FnMut(&[Region])>(&self, cells: &[Spot], mut emit: F) {
        let index = CellIndex::new(cells);
        let find = |r: i64, c: i64| index.get(r, c);
        let mut alive = vec![true; cells.len()];
        let mut seen = vec![false; cells.len()];
        let mut queue: Vec<usize> = Vec::new();
        let mut parts: Vec<Region> = Vec::new();
        for (k, s) in cells.iter().enumerate() {
            alive.iter_mut().for_each(|a| *a = true);
            alive[k] = false;
            for &(dr, dc) in s.cell.directions() {
                let (mut r, mut c) = (s.row as i64 + dr as i64, s.col as i64 + dc as i64);
                while let Some(t) = find(r, c).filter(|&t| alive[t]) {
                    alive[t] = false;
                    r += dr as i64;
                    c += dc as i64;
                }
            }
            seen.iter_mut().for_each(|x| *x = false);
            parts.clear();
            for start in 0..cells.len() {
                if !alive[start] || seen[start] {
                    continue;
                }
                seen[start] = true;
                queue.clear();
                queue.push(start);
                let mut group = Vec::new();
                while let Some(a) = queue.pop() {
                    let sa = cells[a];
                    group.push(sa);
                    for (dr, dc) in [(1i64, 1i64), (1, -1), (-1, 1), (-1, -1)] {
                        if let Some(b) = find(sa.row as i64 + dr, sa.col as i64 + dc) {
                            if alive[b] && !seen[b] {
                                seen[b] = true;
                                queue.push(b);
                            }
                        }
                    }
                }
                parts.push(self.region_of(group));
            }
            emit(&parts);
        }
    }
}

/// Where each cell of a region is in its list: a grid over the bounding box when that is
/// not much larger than the region (always so for connected regions of real boards), else a
/// hash map.
enum CellIndex {
    Dense {
        row0: i64,
        col0: i64,
        rows: i64,
        cols: i64,
        slots: Vec<u32>,
    },
    Sparse(HashMap<(u32, u32), usize, foldhash::fast::RandomState>),
}

impl CellIndex {
    const NONE: u32 = u32::MAX;

    fn new(cells: &[Spot]) -> CellIndex {
        let (mut r0, mut r1, mut c0, mut c1) = (u32::MAX, 0, u32::MAX, 0);
        for s in cells {
            (r0, r1, c0, c1) = (r0.min(s.row), r1.max(s.row), c0.min(s.col), c1.max(s.col));
        }
        let (rows, cols) = (
            (r1 as u64 + 1).saturating_sub(r0 as u64),
            (c1 as u64 + 1).saturating_sub(c0 as u64),
        );
        let area = rows.saturating_mul(cols);
        if cells.len() < u32::MAX as usize && area <= 16 * cells.len() as u64 + 4096 {
            let mut slots = vec![Self::NONE; area as usize];
            for (k, s) in cells.iter().enumerate() {
                slots[((s.row - r0) as u64 * cols + (s.col - c0) as u64) as usize] = k as u32;
            }
            CellIndex::Dense {
                row0: r0 as i64,
                col0: c0 as i64,
                rows: rows as i64,
                cols: cols as i64,
                slots,
            }
        } else {
            CellIndex::Sparse(
                cells
                    .iter()
                    .enumerate()
                    .map(|(k, s)| ((s.row, s.col), k))
                    .collect(),
            )
        }
    }

    #[inline]
    fn get(&self, r: i64, c: i64) -> Option<usize> {
        match self {
            CellIndex::Dense {
                row0,
                col0,
                rows,
                cols,
                slots,
            } => {
                let (i, j) = (r - row0, c - col0);
                if i < 0 || j < 0 || i >= *rows || j >= *cols {
                    return None;
                }
                let k = slots[(i * cols + j) as usize];
                (k != Self::NONE).then_some(k as usize)
            }
            CellIndex::Sparse(map) => {
                if r < 0 || c < 0 || r > u32::MAX as i64 || c > u32::MAX as i64 {
                    return None;
                }
                map.get(&(r as u32, c as u32)).copied()
            }
        }
    }
}

impl Ruleset for Darkraft {
    type Component = Region;

    fn options<F: FnMut(&[Region])>(&self, c: &Region, emit: F) {
        match c {
            Region::Rect(r) => self.rect_options(r, emit),
            Region::Cells(cells) => self.cells_options(cells, emit),
        }
    }

    fn known_grundy(&self, c: &Region) -> Option<Nimber> {
        match c {
            Region::Rect(r) => self.rect_grundy(r).ok(),
            Region::Cells(_) => None,
        }
    }

    fn size_hint(&self, c: &Region) -> usize {
        match c {
            Region::Rect(r) => self.geo.cells_in(r),
            Region::Cells(cells) => cells.len(),
        }
    }
}

impl Game for Darkraft {
    type Position = Board;
    type Move = Shot;

    fn parse_position(&self, text: &str) -> Result<Board, ParseError> {
        Board::parse(text)
    }

    fn components(&self, p: &Board) -> Vec<Region> {
        let (n, m) = (p.rows, p.cols);
        let mut seen = vec![false; n * m];
        let mut out = Vec::new();
        let mut queue: Vec<(usize, usize)> = Vec::new();
        for start in 0..n * m {
            if seen[start] || !p.cells[start].is_intact() {
                continue;
            }
            seen[start] = true;
            queue.clear();
            queue.push((start / m, start % m));
            let mut group = Vec::new();
            while let Some((i, j)) = queue.pop() {
                group.push(Spot {
                    row: i as u32,
                    col: j as u32,
                    cell: p.cells[i * m + j],
                });
                for (di, dj) in [(1isize, 1isize), (1, -1), (-1, 1), (-1, -1)] {
                    let (a, b) = (i as isize + di, j as isize + dj);
                    if p.at(a, b).is_some_and(Cell::is_intact) {
                        let k = a as usize * m + b as usize;
                        if !seen[k] {
                            seen[k] = true;
                            queue.push((a as usize, b as usize));
                        }
                    }
                }
            }
            out.push(self.region_of(group));
        }
        out
    }

    fn moves<F: FnMut(Shot, Board)>(&self, p: &Board, mut emit: F) {
        for row in 0..p.rows {
            for col in 0..p.cols {
                let shot = Shot { row, col };
                if let Some(next) = p.fire(shot) {
                    emit(shot, next);
                }
            }
        }
    }

    fn format_move(&self, m: &Shot) -> String {
        m.to_string()
    }

    fn format_position(&self, p: &Board) -> String {
        p.to_string()
    }
}

/// Whether the first player wins the Darkraft game on the board written in `text` (normal
/// play), using the dense table; boards with destroyed cells that are not rectangles give
/// [`DarkraftError::NeedsSearch`].
pub fn first_player_wins(text: &str) -> Result<bool, DarkraftError> {
    let (game, board) = Darkraft::parse(text)?;
    Ok(!game.grundy(&board)?.is_zero())
}

/// World of Darkraft as a family of the registry.
pub struct DarkraftFamily;

impl Family for DarkraftFamily {
    type Game = Darkraft;
    const DESCRIPTION: Description = Description {
        name: "darkraft",
        aliases: &[],
        notation: "World of Darkraft (CF 138D): rows of 'L', 'R', 'X', '.', e.g. 'RL/LR'",
        example: "XLRL/RXLR/LRXL",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: None,
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: crate::family::estimate_by_tokens,
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Darkraft, Board), RegistryError> {
        Darkraft::parse(text).map_err(|e| RegistryError::position("darkraft", e))
    }

    fn board(&self, _: &Darkraft, p: &Board) -> BoardView {
        let text = p.to_string();
        BoardView::Grid {
            rows: text.split('/').map(str::to_string).collect(),
        }
    }
}


/// A board of up to 3×3 cells of every kind (`L`, `R`, `X`, destroyed `.`).
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let (rows, cols) = (r.range(1, 3), r.range(1, 3));
    Sample::text(r.grid(rows, cols, &['L', 'R', 'X', 'L', 'R', 'X', '.']))
}

#[cfg(test)]
mod tests;
