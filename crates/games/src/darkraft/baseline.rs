//! The textbook solution of Codeforces 138D, kept as the comparison point for benchmarks
//! and tests: a memoised recursion over rotated rectangles `(u1, u2, v1, v2)` of each
//! parity, where each state loops over all board cells to find those inside it.
//!
//! Memory is `2·(n+m−1)^4` 16-bit entries; the recursion depth is at most `2·(n+m)` (each
//! call shrinks the rectangle), so this is only for boards with `n + m ≤` [`MAX_SIDES`].

use super::{Board, Cell};
use grundy_core::{MexSet, Nimber};

/// Largest `rows + cols` the baseline accepts.
pub const MAX_SIDES: usize = 90;

const UNKNOWN: u16 = u16::MAX;

/// The textbook memo over one full board.
#[derive(Debug)]
pub struct Baseline<'b> {
    board: &'b Board,
    /// Size of each rotated coordinate range (`n + m − 1`).
    s: usize,
    memo: Vec<u16>,
}

impl<'b> Baseline<'b> {
    /// A fresh memo for `board`, or `None` when it has destroyed cells or
    /// `rows + cols > MAX_SIDES`.
    pub fn new(board: &'b Board) -> Option<Baseline<'b>> {
        if !board.is_full() || board.rows() + board.cols() > MAX_SIDES {
            return None;
        }
        let s = board.rows() + board.cols() - 1;
        Some(Baseline {
            board,
            s,
            memo: vec![UNKNOWN; 2 * s * s * s * s],
        })
    }

    /// Grundy value of the whole board: the XOR of both parity classes.
    pub fn board_grundy(&mut self) -> Nimber {
        let top = self.s as isize - 1;
        self.rotated(0, 0, top, 0, top) ^ self.rotated(1, 0, top, 0, top)
    }

    /// Grundy value of the cells of parity `p` with `u1 ≤ i+j ≤ u2` and
    /// `v1 ≤ i−j+m−1 ≤ v2` (inclusive; empty ranges give 0).
    pub fn rotated(&mut self, p: usize, u1: isize, u2: isize, v1: isize, v2: isize) -> Nimber {
        let top = self.s as isize - 1;
        Nimber(self.solve(p & 1, u1.max(0), u2.min(top), v1.max(0), v2.min(top)) as u64)
    }

    fn solve(&mut self, p: usize, x1: isize, x2: isize, y1: isize, y2: isize) -> u16 {
        if x1 > x2 || y1 > y2 {
            return 0;
        }
        let s = self.s;
        let key = (((p * s + x1 as usize) * s + x2 as usize) * s + y1 as usize) * s + y2 as usize;
        if self.memo[key] != UNKNOWN {
            return self.memo[key];
        }
        let (n, m) = (self.board.rows(), self.board.cols());
        let mut seen = MexSet::new();
        for i in 0..n {
            for j in 0..m {
                if (i + j) % 2 != p {
                    continue;
                }
                let x = (i + j) as isize;
                let y = i as isize - j as isize + m as isize - 1;
                if x < x1 || x > x2 || y < y1 || y > y2 {
                    continue;
                }
                let g = match self.board.get(i, j) {
                    Some(Cell::L) => self.solve(p, x1, x - 1, y1, y2) ^ self.solve(p, x + 1, x2, y1, y2),
                    Some(Cell::R) => self.solve(p, x1, x2, y1, y - 1) ^ self.solve(p, x1, x2, y + 1, y2),
                    Some(Cell::X) => {
                        self.solve(p, x1, x - 1, y1, y - 1)
                            ^ self.solve(p, x1, x - 1, y + 1, y2)
                            ^ self.solve(p, x + 1, x2, y1, y - 1)
                            ^ self.solve(p, x + 1, x2, y + 1, y2)
                    }
                    _ => continue,
                };
                seen.insert(g as u64);
            }
        }
        let g = seen.mex().0.min(UNKNOWN as u64 - 1) as u16;
        self.memo[key] = g;
        g
    }
}

/// Grundy value of a full board by the textbook method, or `None` when the board has
/// destroyed cells or is too large for it.
pub fn board_grundy(board: &Board) -> Option<Nimber> {
    Baseline::new(board).map(|mut b| b.board_grundy())
}
