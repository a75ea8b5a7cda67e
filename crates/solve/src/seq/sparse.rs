//! The rare/common ("sparse space") method for take-and-break games that leave at most two
//! heaps. Values are split into a common set C, chosen so that no XOR of two members of C is
//! in C, and the rare rest R; positions whose value is rare are listed.
//!
//! For heap n, the options that involve a rare heap are few and are all computed; their mex
//! (with the taking options) is a candidate. If the candidate is common, no pair of common
//! heaps can produce it (C is XOR-free), so it is G(n). Otherwise every pair is scanned,
//! stopping as soon as the mex becomes common. The split is rebuilt from the value counts
//! (most frequent first) as the sequence grows, so it adapts to the game.

use super::store::Cell;
use grundy_core::heap::{LEAVE_ONE, LEAVE_TWO, TAKE_ALL};

/// The rules of a take-and-break game that leaves at most two heaps, by removal count.
#[derive(Clone, Debug)]
pub struct SplitRules {
    /// Counts k for which removing k tokens may take the whole heap.
    pub take_all: Vec<usize>,
    /// Counts k ≥ 1 for which removing k tokens may leave one heap.
    pub leave_one: Vec<usize>,
    /// Counts k for which removing k tokens may leave two heaps.
    pub leave_two: Vec<usize>,
    /// The two heaps left must differ in size (Grundy's game).
    pub unequal: bool,
}

impl SplitRules {
    /// The rules of `digits` (bits 1, 2, 4 only).
    pub fn new(digits: &[u8], unequal: bool) -> SplitRules {
        let with = |bit: u8| -> Vec<usize> {
            digits
                .iter()
                .enumerate()
                .filter(|(_, &d)| d & bit != 0)
                .map(|(k, _)| k)
                .collect()
        };
        SplitRules {
            take_all: with(TAKE_ALL),
            leave_one: with(LEAVE_ONE).into_iter().filter(|&k| k >= 1).collect(),
            leave_two: with(LEAVE_TWO),
            unequal,
        }
    }
}

/// A growable bitset over values.
#[derive(Clone, Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    #[inline(always)]
    fn has(&self, v: usize) -> bool {
        self.0.get(v >> 6).is_some_and(|w| w & (1 << (v & 63)) != 0)
    }
    #[inline(always)]
    fn set(&mut self, v: usize) {
        let w = v >> 6;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (v & 63);
    }
}

/// The state of the rare/common method, rebuilt from the values alone (so a resumed run
/// continues exactly where it stopped).
#[derive(Clone, Debug)]
pub struct Sparse {
    rules: SplitRules,
    common: Bits,
    classified: Bits,
    common_list: Vec<usize>,
    counts: Vec<u64>,
    rare_pos: Vec<u32>,
    mex: Vec<u64>,
    max_value: usize,
    next_rebuild: usize,
    rare_at_rebuild: usize,
    /// Heaps whose value needed a scan of every pair (statistics).
    pub full_scans: u64,
}

impl Sparse {
    /// A fresh state for `rules`, then brought up to date with the known `values`.
    pub fn new<T: Cell>(rules: SplitRules, values: &[T]) -> Sparse {
        let mut s = Sparse {
            rules,
            common: Bits::default(),
            classified: Bits::default(),
            common_list: Vec::new(),
            counts: Vec::new(),
            rare_pos: Vec::new(),
            mex: vec![0; 2],
            max_value: 0,
            next_rebuild: 64,
            rare_at_rebuild: 0,
            full_scans: 0,
        };
        for v in values {
            s.count(v.get());
        }
        s.rebuild(values);
        s
    }

    fn count(&mut self, v: usize) {
        if v >= self.counts.len() {
            self.counts.resize(v + 1, 0);
        }
        self.counts[v] += 1;
        if v > self.max_value {
            self.max_value = v;
        }
        let bits = usize::BITS - self.max_value.leading_zeros();
        let words = (1usize << bits) / 64 + 1;
        if self.mex.len() < words {
            self.mex.resize(words, 0);
        }
    }

    /// True when `v` could join C without breaking its XOR-freeness.
    fn fits_common(&self, v: usize) -> bool {
        v != 0 && self.common_list.iter().all(|&c| !self.common.has(v ^ c))
    }

    /// Classifies a value seen for the first time; true when it is common.
    fn classify(&mut self, v: usize) -> bool {
        if self.classified.has(v) {
            return self.common.has(v);
        }
        self.classified.set(v);
        if self.fits_common(v) {
            self.common.set(v);
            self.common_list.push(v);
            true
        } else {
            false
        }
    }

    /// Chooses C again from the counts (most frequent values first) and lists the rare
    /// positions of `values`.
    fn rebuild<T: Cell>(&mut self, values: &[T]) {
        let mut order: Vec<usize> = (0..self.counts.len())
            .filter(|&v| self.counts[v] > 0)
            .collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(self.counts[v]), v));
        self.common = Bits::default();
        self.classified = Bits::default();
        self.common_list.clear();
        for v in order {
            self.classify(v);
        }
        self.rare_pos.clear();
        for (i, v) in values.iter().enumerate().skip(1) {
            if !self.common.has(v.get()) {
                self.rare_pos.push(i as u32);
            }
        }
        self.rare_at_rebuild = self.rare_pos.len();
        self.next_rebuild = (values.len() * 2).max(64);
    }

    /// The rare/common split now: (common values, rare values, heaps with a rare value).
    pub fn split(&self) -> (Vec<usize>, usize) {
        let mut c = self.common_list.clone();
        c.sort_unstable();
        (c, self.rare_pos.len())
    }

    #[inline(always)]
    fn mex_value(&self) -> usize {
        for (i, &w) in self.mex.iter().enumerate() {
            if w != u64::MAX {
                return i * 64 + (!w).trailing_zeros() as usize;
            }
        }
        self.mex.len() * 64
    }

    /// Computes `cells[from..to]` from `cells[..from]`. Stops early and returns the index
    /// of a heap whose value does not fit in `T` (that cell is not written).
    pub fn compute<T: Cell>(
        &mut self,
        cells: &mut [T],
        from: usize,
        to: usize,
    ) -> Result<(), usize> {
        for n in from..to {
            let g = self.value_of(cells, n);
            if g > T::MAX {
                return Err(n);
            }
            cells[n] = T::put(g);
            self.count(g);
            if !self.classify(g) && n > 0 {
                self.rare_pos.push(n as u32);
            }
            let len = n + 1;
            if len >= self.next_rebuild
                || (self.rare_pos.len() > 2 * self.rare_at_rebuild + 256
                    && len >= self.next_rebuild / 2 + self.next_rebuild / 4)
            {
                self.rebuild(&cells[..len]);
            }
        }
        Ok(())
    }

    fn value_of<T: Cell>(&mut self, cells: &[T], n: usize) -> usize {
        let Sparse {
            rules,
            mex,
            rare_pos,
            ..
        } = self;
        mex.iter_mut().for_each(|w| *w = 0);
        let mark = |mex: &mut Vec<u64>, v: usize| {
            // Option values are below 2^bits(max), inside the bitset by construction.
            if let Some(w) = mex.get_mut(v >> 6) {
                *w |= 1 << (v & 63);
            }
        };
        if rules.take_all.binary_search(&n).is_ok() {
            mark(mex, 0);
        }
        for &k in &rules.leave_one {
            if k >= n {
                break;
            }
            mark(mex, cells[n - k].get());
        }
        let unequal = rules.unequal;
        for &k in &rules.leave_two {
            if k + 2 > n {
                break;
            }
            let m = n - k;
            for &a in rare_pos.iter() {
                let a = a as usize;
                if a >= m {
                    break;
                }
                if unequal && 2 * a == m {
                    continue;
                }
                mark(mex, cells[a].get() ^ cells[m - a].get());
            }
        }
        let mut result = self.mex_value();
        if self.classify(result) {
            return result;
        }
        self.full_scans += 1;
        for ki in 0..self.rules.leave_two.len() {
            let k = self.rules.leave_two[ki];
            if k + 2 > n {
                break;
            }
            let m = n - k;
            let half = m / 2;
            // Pairs (a, m - a) for a = 1..=half: the heaps 1..=half against m-1 down to m-half.
            let low = &cells[1..=half];
            let high = &cells[m - half..m];
            for (i, (x, y)) in low.iter().zip(high.iter().rev()).enumerate() {
                if unequal && 2 * (i + 1) == m {
                    continue;
                }
                let v = x.get() ^ y.get();
                if let Some(w) = self.mex.get_mut(v >> 6) {
                    *w |= 1 << (v & 63);
                }
                if v == result {
                    result = self.mex_value();
                    if self.classify(result) {
                        return result;
                    }
                }
            }
        }
        result
    }
}
