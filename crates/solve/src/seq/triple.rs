//! Hexadecimal games whose moves may leave three heaps. For every size s the set X2(s) of
//! values of two heaps b + c = s is kept as a bitset; the three-heap options of a heap m are
//! then the union over a of G(a) XOR X2(m − a): the bitsets X2(m − a) are first ORed
//! together per value of G(a), then each union is XOR-translated once. That is
//! O(m · V/64) word operations per heap (V = 2^bits of the largest value) instead of the
//! O(m²) triples of the definition.
//!
//! With several threads ([`Triple::compute_parallel`]) the three-heap step of a large heap is
//! shared out on a rayon pool by blocks of values g: each block owns the unions of its
//! values (so blocks share nothing), ORs in the rows X2(m − a) of the heaps a with G(a) in
//! the block, and marks its XOR-translates in a set of its own; the sets are ORed at the
//! end. OR is order-free, so the values are those of one thread.

use super::store::Cell;
use grundy_core::heap::{counts_with, Digit, LEAVE_ONE, LEAVE_THREE, LEAVE_TWO, TAKE_ALL};
use rayon::prelude::*;
use std::sync::Arc;

/// A three-heap step of fewer word operations than this (heap size × words per bitset)
/// stays on one thread: handing it to the pool would cost more than it saves.
const PARALLEL_WORK: usize = 1 << 16;

/// The engine for take-and-break games with three-heap moves.
#[derive(Clone, Debug)]
pub struct Triple {
    take_all: Vec<usize>,
    leave_one: Vec<usize>,
    leave_two: Vec<usize>,
    leave_three: Vec<usize>,
    /// Words per bitset: V / 64 with V = 2^bits(max value), at least 1.
    words: usize,
    /// X2(s) for s = 0, 1, ...: `words` words each.
    x2: Vec<u64>,
    /// X2 is known for sizes below this.
    x2_len: usize,
    max_value: usize,
    /// Per value g of G(a): the union of X2(m − a).
    unions: Vec<u64>,
    used: Vec<bool>,
    seen: Vec<u64>,
    /// The pool of [`Triple::compute_parallel`], built for its thread count on first use.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Work from which a three-heap step uses the pool ([`PARALLEL_WORK`]; 0 in tests).
    parallel_work: usize,
    /// Three-heap steps computed on the pool (so tests can tell that it ran).
    pub parallel_steps: u64,
}

fn words_for(max: usize) -> usize {
    let bits = usize::BITS - max.leading_zeros();
    ((1usize << bits) / 64).max(1)
}

impl Triple {
    /// The engine for `digits`, brought up to date with `known` values.
    pub fn new<T: Cell>(digits: &[Digit], known: &[T]) -> Triple {
        let with = |bit: Digit| counts_with(digits, bit);
        let max_value = known.iter().map(|v| v.get()).max().unwrap_or(0);
        let mut t = Triple {
            take_all: with(TAKE_ALL),
            leave_one: with(LEAVE_ONE).into_iter().filter(|&k| k >= 1).collect(),
            leave_two: with(LEAVE_TWO),
            leave_three: with(LEAVE_THREE),
            words: words_for(max_value),
            x2: Vec::new(),
            x2_len: 0,
            max_value,
            unions: Vec::new(),
            used: Vec::new(),
            seen: Vec::new(),
            pool: None,
            parallel_work: PARALLEL_WORK,
            parallel_steps: 0,
        };
        t.extend_x2(known, known.len());
        t
    }

    /// Computes X2(s) for every s < `upto` not known yet (needs G below s).
    fn extend_x2<T: Cell>(&mut self, cells: &[T], upto: usize) {
        let w = self.words;
        while self.x2_len < upto {
            let s = self.x2_len;
            let start = self.x2.len();
            self.x2.resize(start + w, 0);
            let row = &mut self.x2[start..];
            for b in 1..=s / 2 {
                let v = cells[b].get() ^ cells[s - b].get();
                row[v >> 6] |= 1 << (v & 63);
            }
            self.x2_len += 1;
        }
    }

    /// Starts X2 again with wider bitsets after a value outgrew them.
    fn widen<T: Cell>(&mut self, cells: &[T], len: usize) {
        self.words = words_for(self.max_value);
        self.x2.clear();
        self.x2_len = 0;
        self.extend_x2(cells, len);
    }

    /// Computes `cells[from..to]`; stops at a heap whose value does not fit in `T`.
    pub fn compute<T: Cell>(&mut self, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
        self.compute_with(cells, from, to, None)
    }

    /// [`Triple::compute`] with the three-heap step of large heaps on a rayon pool of
    /// `threads` threads (built on first use): the same values.
    pub fn compute_parallel<T: Cell>(
        &mut self,
        cells: &mut [T],
        from: usize,
        to: usize,
        threads: usize,
    ) -> Result<(), usize> {
        let pool = super::pool_of(&mut self.pool, threads);
        self.compute_with(cells, from, to, pool.as_deref())
    }

    /// Makes every three-heap step use the pool, however small (tests of the parallel path).
    pub fn force_parallel(&mut self) {
        self.parallel_work = 0;
    }

    /// The three-heap options of a heap whose three-heap move leaves m tokens, on the pool:
    /// ORed into `self.seen`.
    fn three_on_pool<T: Cell>(&mut self, cells: &[T], m: usize, pool: &rayon::ThreadPool) {
        let w = self.words;
        let v_bits = w * 64;
        // Blocks of values g: a few per thread, so uneven blocks even out.
        let block = v_bits.div_ceil(4 * pool.current_num_threads()).max(1);
        self.unions.resize(v_bits * w, 0);
        let x2 = &self.x2;
        let unions = &mut self.unions[..v_bits * w];
        let seen = pool.install(|| {
            unions
                .par_chunks_mut(block * w)
                .enumerate()
                .map(|(bi, rows)| {
                    rows.fill(0);
                    let (g0, g1) = (bi * block, bi * block + rows.len() / w);
                    let mut used = vec![false; g1 - g0];
                    for (a, cell) in cells.iter().enumerate().take(m - 1).skip(1) {
                        let g = cell.get();
                        if g < g0 || g >= g1 {
                            continue;
                        }
                        let row = &x2[(m - a) * w..(m - a + 1) * w];
                        used[g - g0] = true;
                        for (u, r) in rows[(g - g0) * w..(g - g0 + 1) * w].iter_mut().zip(row) {
                            *u |= r;
                        }
                    }
                    let mut seen = vec![0u64; w + 1];
                    for (i, _) in used.iter().enumerate().filter(|(_, &u)| u) {
                        let g = g0 + i;
                        for (wi, &word) in rows[i * w..(i + 1) * w].iter().enumerate() {
                            let mut bits = word;
                            while bits != 0 {
                                let x = wi * 64 + bits.trailing_zeros() as usize;
                                bits &= bits - 1;
                                let v = g ^ x;
                                if let Some(word) = seen.get_mut(v >> 6) {
                                    *word |= 1 << (v & 63);
                                }
                            }
                        }
                    }
                    seen
                })
                .reduce(
                    || vec![0u64; w + 1],
                    |mut a, b| {
                        for (x, y) in a.iter_mut().zip(b) {
                            *x |= y;
                        }
                        a
                    },
                )
        });
        for (s, x) in self.seen.iter_mut().zip(seen) {
            *s |= x;
        }
        self.parallel_steps += 1;
    }

    fn compute_with<T: Cell>(
        &mut self,
        cells: &mut [T],
        from: usize,
        to: usize,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), usize> {
        for n in from..to {
            self.extend_x2(cells, n + 1);
            let w = self.words;
            let v_bits = w * 64;
            self.seen.clear();
            self.seen.resize(w + 1, 0);
            let mark = |seen: &mut Vec<u64>, v: usize| {
                if let Some(word) = seen.get_mut(v >> 6) {
                    *word |= 1 << (v & 63);
                }
            };
            if self.take_all.binary_search(&n).is_ok() {
                mark(&mut self.seen, 0);
            }
            for &k in &self.leave_one {
                if k >= n {
                    break;
                }
                mark(&mut self.seen, cells[n - k].get());
            }
            for &k in &self.leave_two {
                if k + 2 > n {
                    break;
                }
                let row = &self.x2[(n - k) * w..(n - k + 1) * w];
                for (s, r) in self.seen.iter_mut().zip(row) {
                    *s |= r;
                }
            }
            for ki in 0..self.leave_three.len() {
                let k = self.leave_three[ki];
                if k + 3 > n {
                    break;
                }
                let m = n - k;
                if let Some(pool) = pool.filter(|_| m * w >= self.parallel_work) {
                    self.three_on_pool(cells, m, pool);
                    continue;
                }
                self.unions.clear();
                self.unions.resize(v_bits * w, 0);
                self.used.clear();
                self.used.resize(v_bits, false);
                for (a, cell) in cells.iter().enumerate().take(m - 1).skip(1) {
                    let g = cell.get();
                    let row = &self.x2[(m - a) * w..(m - a + 1) * w];
                    self.used[g] = true;
                    for (u, r) in self.unions[g * w..(g + 1) * w].iter_mut().zip(row) {
                        *u |= r;
                    }
                }
                for g in 0..v_bits {
                    if !self.used[g] {
                        continue;
                    }
                    for (wi, &word) in self.unions[g * w..(g + 1) * w].iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let x = wi * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            mark(&mut self.seen, g ^ x);
                        }
                    }
                }
            }
            let g = self
                .seen
                .iter()
                .enumerate()
                .find(|(_, &word)| word != u64::MAX)
                .map(|(i, &word)| i * 64 + (!word).trailing_zeros() as usize)
                .unwrap_or(self.seen.len() * 64);
            if g > T::MAX {
                return Err(n);
            }
            cells[n] = T::put(g);
            if g > self.max_value {
                self.max_value = g;
                if words_for(g) != self.words {
                    self.widen(cells, n + 1);
                }
            }
        }
        Ok(())
    }
}
