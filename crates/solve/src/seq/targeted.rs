//! The scan of the pairs of common heaps, looking only for the values it can still change.
//!
//! When the mex of the options marked so far (the taking options, the rare pairs) is rare,
//! every pair (a, m − a) is scanned until the mex is common. A pair of common heaps has a
//! rare value (C is XOR-free), and the pairs with a rare heap are all marked already, so the
//! scan can only add rare values. The value of the heap is then known from a short list:
//! from the mex up to the first unmarked common value c, the unmarked rare values (the
//! targets). If the scan witnesses all of them, G(n) = c; otherwise G(n) is the smallest
//! one it did not witness.
//!
//! So the scan need not mark every pair's value (a store per pair): it only has to find the
//! pairs whose value is a target. With AVX-512 (VBMI), while every value is below 512, the
//! targets fit in a 512-bit table that one byte permute looks up for 32 pairs at once; the
//! values of the pairs that hit a target are collected, and crossed off every 256 pairs.
//! That kernel ([`simd::witness`]) lives in `seq/simd.rs` with the other SIMD code; the
//! engine runs this scan only with the token of its instructions ([`TargetIsa`]), and the
//! marking scan otherwise.

use super::{Cell, Premarked, Sparse};
use crate::seq::simd::{self, TargetIsa, Targets, TARGET_VALUES};

impl Sparse {
    /// The rest of G(n) once the options other than the scan's are marked in `seen` (its
    /// first `limit` bytes in use, every value below [`TARGET_VALUES`]) and their mex
    /// `result` is rare: the scan of the pairs of each split rule, looking for targets only.
    /// Pairs premarked by the two-thread pipeline (`batch`) are skipped. `isa` proves the
    /// CPU has the scan's instructions.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan_for_targets<T: Cell>(
        &mut self,
        isa: TargetIsa,
        cells: &[T],
        n: usize,
        seen: &[u8; 1 << 16],
        limit: usize,
        result: usize,
        batch: Option<Premarked<'_>>,
    ) -> usize {
        debug_assert!(limit <= TARGET_VALUES + 1 && T::MAX <= 0xFFFF);
        self.targeted_scans += 1;
        let cells: &[u16] = bytemuck::cast_slice(cells);
        // The largest mex possible is 2^bits = limit − 1 (options are XORs of values below it).
        let top = (limit - 1).min(TARGET_VALUES - 1);
        let (mut targets, common_at) = match self.targets_by_words(isa, n, seen, result, top) {
            Some(found) => found,
            None => self.targets_one_by_one(n, seen, result, top),
        };
        let unequal = self.rules.unequal;
        for ki in 0..self.rules.leave_two.len() {
            let k = self.rules.leave_two[ki];
            if k + 2 > n {
                break;
            }
            let m = n - k;
            let half = if unequal && m & 1 == 0 { m / 2 - 1 } else { m / 2 };
            let low = &cells[1..=half];
            let high = &cells[m - half..m];
            // Pair i is (i + 1, m − i − 1); the pairs premarked are skipped.
            let (s0, s1) = match &batch {
                Some(Premarked { pairs: (p0, p1), .. }) if ki == 0 && p1 > p0 => (p0 - 1, p1 - 1),
                _ => (half, half),
            };
            for (from, to) in [(0, s0), (s1, half)] {
                if from >= to {
                    continue;
                }
                let stop = simd::witness(isa, &mut targets, low, high, from, to);
                self.scanned_pairs += (stop - from) as u64;
                self.targeted_pairs += (stop - from) as u64;
                if let (Some(c), true) = (common_at, targets == [0; TARGET_VALUES / 8]) {
                    // Every target witnessed: the mex is the common value.
                    return c;
                }
            }
        }
        // The smallest target not witnessed. None is left only when the table stops short of
        // the largest mex possible (values from 256: top = 511 while options reach 511): every
        // value up to top is then an option, and the mex is top + 1.
        targets
            .iter()
            .enumerate()
            .find(|&(_, &t)| t != 0)
            .map_or(top + 1, |(w, t)| 8 * w + t.trailing_zeros() as usize)
    }

    /// The targets from `result` to `top` (at most) as a table, and the first unmarked
    /// common value at heap n if there is one below `top`: classifies the unmarked values in order
    /// until a common one.
    fn targets_one_by_one(
        &mut self,
        n: usize,
        seen: &[u8; 1 << 16],
        result: usize,
        top: usize,
    ) -> (Targets, Option<usize>) {
        let mut targets = [0u8; TARGET_VALUES / 8];
        for v in result..=top {
            if seen[v] == 0 {
                if self.classify(n, v) {
                    return (targets, Some(v));
                }
                targets[v >> 3] |= 1 << (v & 7);
            }
        }
        (targets, None)
    }

    /// [`Sparse::targets_one_by_one`] 64 values at a time, when every value it would
    /// classify is classified already (None otherwise: a value seen for the first time is
    /// classified by the other).
    fn targets_by_words(
        &self,
        isa: TargetIsa,
        n: usize,
        seen: &[u8; 1 << 16],
        result: usize,
        top: usize,
    ) -> Option<(Targets, Option<usize>)> {
        let mut words = [0u64; TARGET_VALUES / 64];
        for (w, out) in words.iter_mut().enumerate().skip(result / 64) {
            let lo = (64 * w).max(result);
            if lo > top {
                break;
            }
            // Values lo..=hi of this word.
            let hi = (64 * w + 63).min(top);
            let range = (u64::MAX >> (63 - (hi - 64 * w))) & (u64::MAX << (lo - 64 * w));
            let mut marked = 0;
            // AVX2: the scan's instructions include it.
            simd::pack_bytes_avx2(
                isa.avx2(),
                &seen[64 * w..64 * w + 64],
                std::slice::from_mut(&mut marked),
            );
            let unmarked = !marked & range;
            let (common, classified) = self.common_words(n);
            let common = common.0.get(w).copied().unwrap_or(0);
            let classified = classified.0.get(w).copied().unwrap_or(0);
            let first_common = unmarked & common;
            // The unmarked values below the first common one (all of them without one).
            let before = match first_common {
                0 => unmarked,
                c => unmarked & ((1u64 << c.trailing_zeros()) - 1),
            };
            if before & !classified != 0 {
                return None;
            }
            *out = before;
            if first_common != 0 {
                return Some((
                    table_of(&words),
                    Some(64 * w + first_common.trailing_zeros() as usize),
                ));
            }
        }
        Some((table_of(&words), None))
    }
}

/// The table of targets (bit v % 8 of byte v / 8) from 64-bit words (bit v % 64 of word v / 64).
fn table_of(words: &[u64; TARGET_VALUES / 64]) -> Targets {
    let mut table = [0u8; TARGET_VALUES / 8];
    for (bytes, w) in table.chunks_exact_mut(8).zip(words) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    table
}
