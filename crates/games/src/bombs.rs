//! Bomb Game (HDU 2873): bombs on an n×m grid, rows and columns numbered from 0.
//!
//! A bomb in row 0 or column 0 moves to any cell strictly nearer the corner along that line;
//! any other bomb at (i, j) is replaced by two bombs, at (i, j') and (i', j), for any
//! i' < i, j' < j. Two bombs on one cell, and a bomb on the corner (0, 0), explode at once.
//! Under normal play each bomb is an independent component (two bombs on one cell have equal
//! values, which cancel), and the values form a table computed in bulk by [`BombTable`].

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Table, TableKind};
use crate::grid::{parse_grid, Grid};
use grundy_core::{Game, Nimber, ParseError, Ruleset};

/// Most rows (and columns) of a board: the values of one bomb cost O(i·j) each, so a
/// 256×256 table takes about a second.
pub const MAX_SIDE: usize = 256;

/// Grundy values of single bombs, G(i, j) for i < rows, j < cols.
#[derive(Clone, Debug)]
pub struct BombTable {
    rows: usize,
    cols: usize,
    values: Vec<u32>,
}

impl BombTable {
    /// Computes the table bottom-up. Each value is the mex of G(i, j') ⊕ G(i', j) over the
    /// distinct values of the row prefix and the column prefix, collected in bitsets.
    pub fn new(rows: usize, cols: usize) -> BombTable {
        let mut values = vec![0u32; rows * cols];
        for i in 0..rows {
            for j in 0..cols {
                values[i * cols + j] = if i == 0 {
                    j as u32
                } else if j == 0 {
                    i as u32
                } else {
                    0
                };
            }
        }
        // col_sets[j]: distinct values G(0..i, j) seen so far in column j.
        let mut col_sets: Vec<Vec<u32>> = (0..cols)
            .map(|j| if rows > 0 { vec![j as u32] } else { vec![] })
            .collect();
        let mut col_seen: Vec<Vec<u64>> = vec![Vec::new(); cols];
        for (j, s) in col_seen.iter_mut().enumerate() {
            set_bit(s, j as u32);
        }
        let mut row_set: Vec<u32> = Vec::new();
        let mut row_seen: Vec<u64> = Vec::new();
        let mut options: Vec<u64> = Vec::new();
        for i in 1..rows {
            row_set.clear();
            row_seen.clear();
            row_set.push(i as u32);
            set_bit(&mut row_seen, i as u32);
            for j in 1..cols {
                // Options: a ⊕ b for a in row prefix G(i, 0..j), b in column prefix G(0..i, j).
                let (a_max, b_max) = (max_of(&row_set), max_of(&col_sets[j]));
                let bound = (a_max.max(b_max) as u64 + 1).next_power_of_two() as usize;
                options.clear();
                options.resize(bound.div_ceil(64), 0);
                for &a in &row_set {
                    for &b in &col_sets[j] {
                        let v = (a ^ b) as usize;
                        options[v / 64] |= 1 << (v % 64);
                    }
                }
                let g = mex_bits(&options);
                values[i * cols + j] = g;
                if !test_bit(&row_seen, g) {
                    set_bit(&mut row_seen, g);
                    row_set.push(g);
                }
                if !test_bit(&col_seen[j], g) {
                    set_bit(&mut col_seen[j], g);
                    col_sets[j].push(g);
                }
            }
        }
        BombTable { rows, cols, values }
    }

    /// G(i, j), or `None` outside the table.
    pub fn get(&self, i: usize, j: usize) -> Option<u32> {
        (i < self.rows && j < self.cols).then(|| self.values[i * self.cols + j])
    }

    /// Number of rows and columns covered.
    pub fn size(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

fn max_of(v: &[u32]) -> u32 {
    v.iter().copied().max().unwrap_or(0)
}

fn set_bit(bits: &mut Vec<u64>, v: u32) {
    let w = v as usize / 64;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    bits[w] |= 1 << (v % 64);
}

fn test_bit(bits: &[u64], v: u32) -> bool {
    bits.get(v as usize / 64)
        .is_some_and(|w| w & (1 << (v % 64)) != 0)
}

fn mex_bits(bits: &[u64]) -> u32 {
    for (k, &w) in bits.iter().enumerate() {
        if w != u64::MAX {
            return k as u32 * 64 + (!w).trailing_zeros();
        }
    }
    bits.len() as u32 * 64
}

/// The textbook solution, kept as the benchmark baseline: a memoised recursion over cells,
/// each value the mex over every pair (i', j') with a fresh "visited" array.
#[doc(hidden)]
pub fn baseline_table(rows: usize, cols: usize) -> Vec<u32> {
    fn sg(i: usize, j: usize, cols: usize, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(v) = memo[i * cols + j] {
            return v;
        }
        let v = if i == 0 {
            j as u32
        } else if j == 0 {
            i as u32
        } else {
            let mut vis = vec![false; 4 * (i + j) * (i + j) + 64];
            for a in 0..i {
                for b in 0..j {
                    let x = (sg(i, b, cols, memo) ^ sg(a, j, cols, memo)) as usize;
                    if x < vis.len() {
                        vis[x] = true;
                    }
                }
            }
            vis.iter().position(|&s| !s).unwrap_or(vis.len()) as u32
        };
        memo[i * cols + j] = Some(v);
        v
    }
    let mut memo = vec![None; rows * cols];
    let mut out = vec![0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            out[i * cols + j] = sg(i, j, cols, &mut memo);
        }
    }
    out
}

/// The Bomb Game. A component is one bomb `(row, column)`.
#[derive(Clone, Debug)]
pub struct Bombs {
    table: BombTable,
}

impl Default for Bombs {
    fn default() -> Self {
        Bombs::new(64, 64)
    }
}

impl Bombs {
    /// Rules with values precomputed for boards up to `rows × cols`; larger boards are still
    /// solved, by search.
    pub fn new(rows: usize, cols: usize) -> Bombs {
        Bombs {
            table: BombTable::new(rows, cols),
        }
    }

    /// The precomputed table.
    pub fn table(&self) -> &BombTable {
        &self.table
    }
}

/// A move: the bomb at `from` becomes the bombs `to` (one cell for a bomb on the edge lines,
/// none when it reaches the corner, two cells otherwise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BombMove {
    /// The bomb that moves, (row, column).
    pub from: (usize, usize),
    /// Where its bombs land, (row, column).
    pub to: Vec<(usize, usize)>,
}

impl Ruleset for Bombs {
    type Component = (u32, u32);

    /// Equal bombs explode together, so misère sums are not independent.
    const INDEPENDENT: bool = false;

    fn options<F: FnMut(&[(u32, u32)])>(&self, &(i, j): &(u32, u32), mut emit: F) {
        if i == 0 || j == 0 {
            // Along the edge line towards the corner; reaching the corner removes the bomb.
            let (len, along_row) = if i == 0 { (j, true) } else { (i, false) };
            for k in 0..len {
                if k == 0 {
                    emit(&[]);
                } else if along_row {
                    emit(&[(0, k)]);
                } else {
                    emit(&[(k, 0)]);
                }
            }
            return;
        }
        for a in 0..i {
            for b in 0..j {
                emit(&[(i, b), (a, j)]);
            }
        }
    }

    fn known_grundy(&self, &(i, j): &(u32, u32)) -> Option<Nimber> {
        self.table.get(i as usize, j as usize).map(|v| Nimber(v as u64))
    }

    fn normalize_sum(&self, sorted: &mut Vec<(u32, u32)>) {
        // Two bombs on one cell explode: equal components cancel in pairs.
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(sorted.len());
        for &c in sorted.iter() {
            if out.last() == Some(&c) {
                out.pop();
            } else {
                out.push(c);
            }
        }
        *sorted = out;
    }

    fn size_hint(&self, &(i, j): &(u32, u32)) -> usize {
        (i as usize + 1) * (j as usize + 1)
    }
}

/// Toggles a bomb on `cell` of `g`: a bomb landing on a bomb (or on the corner) explodes.
fn land(g: &mut Grid, (r, c): (usize, usize)) {
    let k = r * g.cols + c;
    g.cells[k] = if (r, c) == (0, 0) || g.cells[k] == b'#' {
        b'.'
    } else {
        b'#'
    };
}

impl Game for Bombs {
    type Position = Grid;
    type Move = BombMove;

    /// Rows of `.` (empty) and `#` (a bomb); a bomb on the corner explodes at once.
    fn parse_position(&self, text: &str) -> Result<Grid, ParseError> {
        let mut g = parse_grid(text, ".#", "bomb")?;
        if g.rows > MAX_SIDE || g.cols > MAX_SIDE {
            return Err(ParseError::new(
                1,
                1,
                format!(
                    "board {}x{} is larger than the {MAX_SIDE}x{MAX_SIDE} this engine solves",
                    g.rows, g.cols
                ),
            ));
        }
        g.cells[0] = b'.';
        Ok(g)
    }

    fn components(&self, p: &Grid) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for r in 0..p.rows {
            for c in 0..p.cols {
                if p.get(r, c) == b'#' && (r, c) != (0, 0) {
                    out.push((r as u32, c as u32));
                }
            }
        }
        out
    }

    fn moves<F: FnMut(BombMove, Grid)>(&self, p: &Grid, mut emit: F) {
        for r in 0..p.rows {
            for c in 0..p.cols {
                if p.get(r, c) != b'#' {
                    continue;
                }
                let mut targets: Vec<Vec<(usize, usize)>> = Vec::new();
                if r == 0 {
                    targets.extend((0..c).map(|k| vec![(0, k)]));
                } else if c == 0 {
                    targets.extend((0..r).map(|k| vec![(k, 0)]));
                } else {
                    for a in 0..r {
                        for b in 0..c {
                            targets.push(vec![(r, b), (a, c)]);
                        }
                    }
                }
                for to in targets {
                    let mut next = p.clone();
                    next.cells[r * p.cols + c] = b'.';
                    for &t in &to {
                        land(&mut next, t);
                    }
                    emit(BombMove { from: (r, c), to }, next);
                }
            }
        }
    }

    fn format_move(&self, m: &BombMove) -> String {
        let to: Vec<String> = m.to.iter().map(|(r, c)| format!("{r},{c}")).collect();
        format!("{},{}->{}", m.from.0, m.from.1, to.join("+"))
    }

    fn format_position(&self, p: &Grid) -> String {
        p.format()
    }
}

/// The Bomb Game as a family of the registry.
pub struct BombsFamily;

/// The board of the table's cell `(r, c)`: one bomb at row `r`, column `c`.
fn one_bomb(r: usize, c: usize) -> String {
    let mut rows = Vec::new();
    for row in 0..=r {
        let mut line = ".".repeat(c + 1);
        if row == r {
            line.replace_range(c.., "#");
        }
        rows.push(line);
    }
    rows.join("/")
}

impl Family for BombsFamily {
    type Game = Bombs;
    const DESCRIPTION: Description = Description {
        name: "bombs",
        aliases: &["bomb"],
        notation: "Bomb Game (HDU 2873): rows of '.' and '#', e.g. '.#/..'",
        example: ".#./..#/#..",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: Some(Table {
            kind: TableKind::Grid,
            rows: "row of the bomb",
            cols: "column of the bomb",
            first: 0,
            max: usize::MAX,
            cell: one_bomb,
        }),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        // A bomb at (r, c) has r·c moves, or r + c on the first row or column.
        estimate_moves: |text| {
            let mut total = 0u64;
            for (r, line) in text.split(['/', '\n']).enumerate() {
                for (c, ch) in line.trim().chars().enumerate() {
                    if ch == '#' {
                        let (r, c) = (r as u64, c as u64);
                        total = total.saturating_add(if r == 0 || c == 0 { r + c } else { r * c });
                    }
                }
            }
            total
        },
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Bombs, Grid), RegistryError> {
        let bad = |e| RegistryError::position("bombs", e);
        let grid = parse_grid(text, ".#", "bomb").map_err(bad)?;
        let game = Bombs::new(grid.rows.min(MAX_SIDE), grid.cols.min(MAX_SIDE));
        let p = game.parse_position(text).map_err(bad)?;
        Ok((game, p))
    }

    fn board(&self, _: &Bombs, p: &Grid) -> BoardView {
        BoardView::Grid {
            rows: p.format().split('/').map(str::to_string).collect(),
        }
    }

}

/// A board of up to 3×3 squares, a third of them bombs.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let (rows, cols) = (r.range(1, 3), r.range(1, 3));
    Sample::text(r.grid(rows, cols, &['.', '.', '#']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_solve::analysis::Analyzer;

    #[test]
    fn table_matches_baseline() {
        let t = BombTable::new(20, 23);
        assert_eq!(t.values, baseline_table(20, 23));
    }

    #[test]
    fn samples() {
        let b = Bombs::default();
        let p = b.parse_position(".#/..").unwrap();
        assert_eq!(Analyzer::new(&b).grundy(&p).unwrap(), Some(Nimber(1)));
        let p = b.parse_position(".#/.#").unwrap();
        assert_eq!(Analyzer::new(&b).grundy(&p).unwrap(), Some(Nimber(0)));
    }

    #[test]
    fn search_beyond_the_table_agrees() {
        let small = Bombs::new(2, 2);
        let big = Bombs::new(8, 8);
        let p = big.parse_position("...../..#../...../...#./#....").unwrap();
        let a = Analyzer::new(&small).grundy(&p).unwrap();
        let b = Analyzer::new(&big).grundy(&p).unwrap();
        assert_eq!(a, b);
    }


}
