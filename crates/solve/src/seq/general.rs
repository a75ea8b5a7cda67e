//! The general take-and-break engine, for the codes the fast engines do not take: moves
//! that leave four heaps or more, unequal flags on some digits only (or with three heaps or
//! more), and repeating digit blocks (any number of tokens may be removed).
//!
//! For heap n the set of option values is built as a bitset:
//! - a split into j heaps of equal-or-not sizes reads X_j(m), the set of values of j heaps
//!   summing to m, kept for every m in a table for each j ≥ 3 that is used, built by
//!   X_j(m) = ∪ₐ G(a) ⊕ X_{j−1}(m − a) (ordered parts: the same sets as sorted ones), with
//!   the bitsets X_{j−1}(m − a) ORed together per value of G(a) first, as in `triple.rs`,
//!   then each union translated by G(a) a word at a time (word i goes to word i ⊕ (g >> 6),
//!   its bits permuted by XOR with g & 63);
//!   X_2(m) is read straight from the values. A split into j ≥ 3 heaps that must all differ
//!   enumerates the partitions into distinct parts (slow: for small heaps and checks);
//! - a repeating block of p digits from removal count s on: the options of heap n by the
//!   block's digit r are the splits of every size m ≤ n − s − r with m ≡ n − s − r (mod p),
//!   so for each kind of split used (j heaps, unequal or not) and each class q mod p, the
//!   union of the split values of the sizes m ≡ q admitted so far (m ≤ n − s) is kept: one
//!   OR of that running set per digit of the block and heap.
//!
//! Each heap costs O(t·W + p·W) word operations (W = words of a value bitset) plus the
//! tables' O(n·W) per size: quadratic overall, for runs of up to some 10^5 heaps. Values are
//! checked against the definition ([`super::naive`]) by property tests.
//!
//! With several threads ([`General::compute_parallel`]) the quadratic steps of a large heap
//! are shared out on a rayon pool: the pairs of a split into two heaps by ranges of the
//! smaller heap, each range marking a bitset of its own, and a table row X_j(m) by blocks of
//! values g of G(a), each block owning the unions of its values (as in `triple.rs`). The sets
//! are ORed at the end; OR is order-free, so the values are those of one thread.

use super::store::Cell;
use grundy_core::heap::{for_each_partition, Digit, HeapRules, LEAVE_ONE, MAX_LEAVE, TAKE_ALL};
use rayon::prelude::*;
use std::sync::Arc;

/// A step of fewer word operations or pairs than this stays on one thread: handing it to
/// the pool would cost more than it saves.
const PARALLEL_WORK: usize = 1 << 13;

/// A kind of split: into `j` heaps (j ≥ 1), which must all differ when `unequal`.
type Kind = (u32, bool);

/// The general take-and-break engine (see the module documentation).
#[derive(Clone, Debug)]
pub struct General {
    rules: HeapRules,
    /// (digit, unequal) for the removal counts k < `start`.
    finite: Vec<(Digit, bool)>,
    /// The first removal count of the repeating block (`finite.len()`).
    start: usize,
    /// The block's digits with their flags (empty: no block).
    block: Vec<(Digit, bool)>,
    /// The largest j ≥ 3 for which X_j tables are kept (2 when none).
    table_j: u32,
    /// X_j(m) for j = 3..=table_j (and X_2 when table_j ≥ 3), `words` words per size m.
    tables: Vec<Vec<u64>>,
    /// Sizes whose tables are built.
    tables_len: usize,
    /// Words per value bitset: 2^bits(max value) / 64, at least 1.
    words: usize,
    max_value: usize,
    /// The kinds of split the block uses, and per kind and class q the union of the split
    /// values of the sizes m ≡ q (mod p) admitted (growable bitsets).
    kinds: Vec<Kind>,
    unions: Vec<Vec<Vec<u64>>>,
    /// Sizes admitted to the unions: 1..admitted.
    admitted: usize,
    /// Heaps whose tables and unions are up to date (all below).
    absorbed: usize,
    seen: Vec<u64>,
    groups: Vec<u64>,
    used: Vec<bool>,
    used_list: Vec<usize>,
    parts: Vec<u64>,
    /// The pool of [`General::compute_parallel`], built for its thread count on first use.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Work from which a step uses the pool ([`PARALLEL_WORK`]; 0 in tests).
    parallel_work: usize,
    /// Steps computed on the pool (so tests can tell that it ran).
    pub parallel_steps: u64,
}

/// The values G(a) ⊕ G(m − a) for a in `1..=top`, as a bitset of `words` words (every
/// value so far fits: `words` = [`words_for`] of the largest), shared out on `pool` by
/// ranges of a.
fn pairs_on_pool<T: Cell>(
    cells: &[T],
    m: usize,
    top: usize,
    words: usize,
    pool: &rayon::ThreadPool,
) -> Vec<u64> {
    let pieces = 4 * pool.current_num_threads();
    let len = top.div_ceil(pieces).max(1);
    pool.install(|| {
        (0..pieces)
            .into_par_iter()
            .map(|i| {
                let mut bits = vec![0u64; words];
                let lo = 1 + i * len;
                let hi = (lo + len).min(top + 1);
                for a in lo..hi {
                    let v = cells[a].get() ^ cells[m - a].get();
                    bits[v >> 6] |= 1 << (v & 63);
                }
                bits
            })
            .reduce(|| vec![0u64; words], union)
    })
}

fn words_for(max: usize) -> usize {
    let bits = usize::BITS - max.leading_zeros();
    ((1usize << bits) / 64).max(1)
}

#[inline]
fn mark(bits: &mut Vec<u64>, v: usize) {
    let w = v >> 6;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    bits[w] |= 1 << (v & 63);
}

fn or_into(dst: &mut Vec<u64>, src: &[u64]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= s;
    }
}

fn or_into_slice(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= s;
    }
}

/// The union of two bitsets of the same length (the reduction of the pool's pieces).
fn union(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    or_into_slice(&mut a, &b);
    a
}

/// The row ∪ G(a) ⊕ X(m − a) for a in `1..top` (X: the rows of `prev`, `w` words each),
/// shared out on `pool` by blocks of values g of G(a): each block ORs the rows of its values
/// into its part of `groups` (v_bits × w words, left zeroed), then translates them into a
/// row of its own; the rows are ORed. The values are far from even (small ones are common),
/// so the blocks are cut to hold about as many heaps a each, plus a word per value of the
/// translation, counted first.
fn row_on_pool<T: Cell>(
    cells: &[T],
    prev: &[u64],
    groups: &mut [u64],
    m: usize,
    top: usize,
    w: usize,
    pool: &rayon::ThreadPool,
) -> Vec<u64> {
    let v_bits = w * 64;
    let mut count = vec![0u32; v_bits];
    for cell in &cells[1..top.max(1)] {
        count[cell.get()] += 1;
    }
    // Work of value g: its rows ORed (w words each) and, when used, one translation (w words).
    let work = |c: u32| c as usize + usize::from(c > 0);
    let total: usize = count.iter().map(|&c| work(c)).sum();
    let pieces = 4 * pool.current_num_threads();
    let share = total.div_ceil(pieces).max(1);
    let mut blocks: Vec<(usize, &mut [u64])> = Vec::with_capacity(pieces + 1);
    let mut rest = &mut groups[..v_bits * w];
    let (mut g0, mut acc) = (0, 0);
    for (g, &c) in count.iter().enumerate() {
        acc += work(c);
        if acc >= share || g + 1 == v_bits {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut((g + 1 - g0) * w);
            blocks.push((g0, head));
            rest = tail;
            g0 = g + 1;
            acc = 0;
        }
    }
    pool.install(|| {
        blocks
            .into_par_iter()
            .map(|(g0, rows)| {
                let g1 = g0 + rows.len() / w;
                let mut used = vec![false; g1 - g0];
                for (a, cell) in cells.iter().enumerate().take(top).skip(1) {
                    let g = cell.get();
                    if g < g0 || g >= g1 {
                        continue;
                    }
                    used[g - g0] = true;
                    let row = &prev[(m - a) * w..(m - a + 1) * w];
                    for (u, r) in rows[(g - g0) * w..(g - g0 + 1) * w].iter_mut().zip(row) {
                        *u |= r;
                    }
                }
                let mut out = vec![0u64; w];
                for (i, _) in used.iter().enumerate().filter(|(_, &u)| u) {
                    let g = g0 + i;
                    for (wi, word) in rows[i * w..(i + 1) * w].iter_mut().enumerate() {
                        if *word != 0 {
                            out[wi ^ (g >> 6)] |= xor_bits(*word, g & 63);
                        }
                        *word = 0;
                    }
                }
                out
            })
            .reduce(|| vec![0u64; w], union)
    })
}

/// The word whose bit x ⊕ c is bit x of `word` (c < 64): one swap of bit blocks per bit
/// of c.
#[inline]
fn xor_bits(mut word: u64, c: usize) -> u64 {
    const MASKS: [u64; 6] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    for (b, mask) in MASKS.iter().enumerate() {
        if c & (1 << b) != 0 {
            let s = 1 << b;
            word = ((word & mask) << s) | ((word >> s) & mask);
        }
    }
    word
}

fn split_bits(d: Digit) -> impl Iterator<Item = u32> {
    (2..=MAX_LEAVE).filter(move |j| d & (1 << j) != 0)
}

impl General {
    /// The engine for the take-and-break `rules`, brought up to date with `known` values.
    /// Other rules get an engine with no moves (G = 0 everywhere).
    pub fn new<T: Cell>(rules: &HeapRules, known: &[T]) -> General {
        let (finite, block) = match rules {
            HeapRules::TakeBreak { digits, repeat, .. } => {
                let start = digits.len() - repeat;
                let pair = |k: usize| rules.digit(k as u64);
                (
                    (0..start).map(pair).collect::<Vec<_>>(),
                    (start..digits.len()).map(pair).collect::<Vec<_>>(),
                )
            }
            _ => (vec![(0, false)], Vec::new()),
        };
        let all = finite.iter().chain(&block);
        // Tables are needed for j ≥ 3 splits without the flag (which need X_{j−1}, ...).
        let table_j = all
            .clone()
            .filter(|(_, f)| !f)
            .flat_map(|&(d, _)| split_bits(d))
            .max()
            .unwrap_or(2)
            .max(2);
        let mut kinds: Vec<Kind> = Vec::new();
        for &(d, f) in &block {
            if d & LEAVE_ONE != 0 && !kinds.contains(&(1, false)) {
                kinds.push((1, false));
            }
            for j in split_bits(d) {
                if !kinds.contains(&(j, f)) {
                    kinds.push((j, f));
                }
            }
        }
        let p = block.len();
        let max_value = known.iter().map(|v| v.get()).max().unwrap_or(0);
        let words = words_for(max_value);
        let mut g = General {
            rules: rules.clone(),
            start: finite.len(),
            finite,
            block,
            table_j,
            tables: vec![Vec::new(); if table_j >= 3 { table_j as usize - 1 } else { 0 }],
            tables_len: 0,
            words,
            max_value,
            unions: vec![vec![Vec::new(); p]; kinds.len()],
            kinds,
            admitted: 1,
            absorbed: 0,
            seen: Vec::new(),
            groups: Vec::new(),
            used: Vec::new(),
            used_list: Vec::new(),
            parts: Vec::new(),
            pool: None,
            parallel_work: PARALLEL_WORK,
            parallel_steps: 0,
        };
        for n in 0..known.len() {
            g.absorb(known, n, None);
        }
        g
    }

    /// Makes every step use the pool, however small (tests of the parallel path).
    pub fn force_parallel(&mut self) {
        self.parallel_work = 0;
    }

    /// The pool when `work` is worth it.
    fn pool_for<'p>(
        &self,
        pool: Option<&'p rayon::ThreadPool>,
        work: usize,
    ) -> Option<&'p rayon::ThreadPool> {
        pool.filter(|_| work >= self.parallel_work)
    }

    /// Brings the tables to sizes ≤ n and the unions to sizes ≤ n − start (needs G below n).
    fn absorb<T: Cell>(&mut self, cells: &[T], n: usize, pool: Option<&rayon::ThreadPool>) {
        if n < self.absorbed {
            return;
        }
        while self.tables_len <= n && !self.tables.is_empty() {
            self.extend_tables(cells, pool);
        }
        if !self.block.is_empty() {
            let p = self.block.len();
            while n >= self.start && self.admitted <= n - self.start {
                let m = self.admitted;
                for i in 0..self.kinds.len() {
                    let (j, unequal) = self.kinds[i];
                    let mut set = std::mem::take(&mut self.seen);
                    set.clear();
                    self.split_values(cells, j, unequal, m, &mut set, pool);
                    or_into(&mut self.unions[i][m % p], &set);
                    self.seen = set;
                }
                self.admitted += 1;
            }
        }
        self.absorbed = n + 1;
    }

    /// Builds the tables of the next size m = `tables_len` (needs G below m).
    fn extend_tables<T: Cell>(&mut self, cells: &[T], pool: Option<&rayon::ThreadPool>) {
        let m = self.tables_len;
        let w = self.words;
        // X_2(m).
        let on_pool = self.pool_for(pool, m / 2);
        let t2 = &mut self.tables[0];
        t2.resize((m + 1) * w, 0);
        if let Some(pool) = on_pool {
            let bits = pairs_on_pool(cells, m, m / 2, w, pool);
            or_into_slice(&mut t2[m * w..(m + 1) * w], &bits);
            self.parallel_steps += 1;
        } else {
            for a in 1..=m / 2 {
                let v = cells[a].get() ^ cells[m - a].get();
                t2[m * w + (v >> 6)] |= 1 << (v & 63);
            }
        }
        // X_j(m) = ∪ G(a) ⊕ X_{j−1}(m − a): the rows X_{j−1}(m − a) ORed per value g of
        // G(a), then each union translated by g a word at a time.
        let v_bits = w * 64;
        for j in 3..=self.table_j as usize {
            let top = m.saturating_sub(j - 2);
            let on_pool = self.pool_for(pool, top * w);
            let (lower, upper) = self.tables.split_at_mut(j - 2);
            let prev = &lower[j - 3];
            let row_of = |s: usize| &prev[s * w..(s + 1) * w];
            if self.groups.len() != v_bits * w {
                self.groups.clear();
                self.groups.resize(v_bits * w, 0);
                self.used.clear();
                self.used.resize(v_bits, false);
            }
            if let Some(pool) = on_pool {
                let bits = row_on_pool(cells, prev, &mut self.groups, m, top, w, pool);
                let out = &mut upper[0];
                out.resize((m + 1) * w, 0);
                or_into_slice(&mut out[m * w..(m + 1) * w], &bits);
                self.parallel_steps += 1;
                continue;
            }
            self.used_list.clear();
            for (a, cell) in cells.iter().enumerate().take(top).skip(1) {
                let g = cell.get();
                if !self.used[g] {
                    self.used[g] = true;
                    self.used_list.push(g);
                }
                for (u, r) in self.groups[g * w..(g + 1) * w].iter_mut().zip(row_of(m - a)) {
                    *u |= r;
                }
            }
            let out = &mut upper[0];
            out.resize((m + 1) * w, 0);
            let row = &mut out[m * w..(m + 1) * w];
            for &g in &self.used_list {
                let group = &mut self.groups[g * w..(g + 1) * w];
                for (wi, word) in group.iter_mut().enumerate() {
                    if *word != 0 {
                        row[wi ^ (g >> 6)] |= xor_bits(*word, g & 63);
                    }
                    *word = 0;
                }
                self.used[g] = false;
            }
        }
        self.tables_len += 1;
    }

    /// ORs into `out` the values of the splits of m tokens into j heaps (j = 1: G(m)), all
    /// different with `unequal` (needs G up to m, tables up to m).
    fn split_values<T: Cell>(
        &mut self,
        cells: &[T],
        j: u32,
        unequal: bool,
        m: usize,
        out: &mut Vec<u64>,
        pool: Option<&rayon::ThreadPool>,
    ) {
        match (j, unequal) {
            (1, _) => mark(out, cells[m].get()),
            (2, _) => {
                let top = if unequal { (m - 1) / 2 } else { m / 2 };
                if let Some(pool) = self.pool_for(pool, top) {
                    // Every value below m is at most the largest, so its pairs fit in `words`.
                    let bits = pairs_on_pool(cells, m, top, self.words, pool);
                    or_into(out, &bits);
                    self.parallel_steps += 1;
                    return;
                }
                for a in 1..=top {
                    mark(out, cells[a].get() ^ cells[m - a].get());
                }
            }
            (j, false) => {
                let w = self.words;
                or_into(out, &self.tables[j as usize - 2][m * w..(m + 1) * w]);
            }
            (j, true) => {
                let mut parts = std::mem::take(&mut self.parts);
                for_each_partition(m as u64, j as usize, true, &mut parts, &mut |p: &[u64]| {
                    mark(out, p.iter().fold(0, |x, &a| x ^ cells[a as usize].get()));
                });
                self.parts = parts;
            }
        }
    }

    /// Computes `cells[from..to]`; stops at a heap whose value does not fit in `T`.
    pub fn compute<T: Cell>(&mut self, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
        self.compute_with(cells, from, to, None)
    }

    /// [`General::compute`] with the quadratic steps of large heaps on a rayon pool of
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

    fn compute_with<T: Cell>(
        &mut self,
        cells: &mut [T],
        from: usize,
        to: usize,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), usize> {
        for n in from..to {
            self.absorb(cells, n, pool);
            let mut seen = std::mem::take(&mut self.seen);
            seen.clear();
            seen.resize(self.words + 1, 0);
            if n > 0 && self.rules.digit(n as u64).0 & TAKE_ALL != 0 {
                mark(&mut seen, 0);
            }
            for k in 0..self.start.min(n + 1) {
                let (d, unequal) = self.finite[k];
                let m = n - k;
                if d & LEAVE_ONE != 0 && k >= 1 && m >= 1 {
                    mark(&mut seen, cells[m].get());
                }
                for j in split_bits(d) {
                    if m >= j as usize {
                        self.split_values(cells, j, unequal, m, &mut seen, pool);
                    }
                }
            }
            if !self.block.is_empty() && n >= self.start {
                let p = self.block.len();
                let base = n - self.start;
                for (r, &(d, unequal)) in self.block.iter().enumerate() {
                    let q = (base + p - r) % p;
                    if d & LEAVE_ONE != 0 {
                        if let Some(i) = self.kinds.iter().position(|&k| k == (1, false)) {
                            or_into(&mut seen, &self.unions[i][q]);
                        }
                    }
                    for j in split_bits(d) {
                        if let Some(i) = self.kinds.iter().position(|&k| k == (j, unequal)) {
                            or_into(&mut seen, &self.unions[i][q]);
                        }
                    }
                }
            }
            let g = seen
                .iter()
                .position(|&w| w != u64::MAX)
                .map(|i| i * 64 + (!seen[i]).trailing_zeros() as usize)
                .unwrap_or(seen.len() * 64);
            self.seen = seen;
            if g > T::MAX {
                return Err(n);
            }
            cells[n] = T::put(g);
            if g > self.max_value {
                self.max_value = g;
                if words_for(g) != self.words {
                    // Wider bitsets: build the tables again.
                    self.words = words_for(g);
                    for t in &mut self.tables {
                        t.clear();
                    }
                    self.tables_len = 0;
                    if !self.tables.is_empty() {
                        while self.tables_len <= n {
                            self.extend_tables(cells, pool);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::xor_bits;

    #[test]
    fn xor_bits_moves_each_bit() {
        for c in 0..64 {
            for x in 0..64 {
                assert_eq!(xor_bits(1 << x, c), 1 << (x ^ c), "{x} ^ {c}");
            }
        }
    }
}
