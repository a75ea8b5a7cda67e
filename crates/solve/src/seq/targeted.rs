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

use super::pipeline::pack_bytes;
use super::{Cell, Premarked, Sparse};

/// The most values the table of targets holds (values below 512).
pub(super) const TARGET_VALUES: usize = 512;

/// Whether the CPU has AVX-512 with BW, VBMI and VBMI2, and AVX2 and POPCNT.
fn cpu_supports() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Pairs looked up at once.
const LANES: usize = 32;

impl Sparse {
    /// Whether the targeted scan may run: the CPU has what it needs ([`cpu_supports`]), and
    /// tests did not turn SIMD off.
    pub(crate) fn targeted_scan(&self) -> bool {
        self.simd && cpu_supports()
    }

    /// The rest of G(n) once the options other than the scan's are marked in `seen` (its
    /// first `limit` bytes in use, every value below [`TARGET_VALUES`]) and their mex
    /// `result` is rare: the scan of the pairs of each split rule, looking for targets only.
    /// Pairs premarked by the two-thread pipeline (`batch`) are skipped. Only called when
    /// [`Sparse::targeted_scan`] is true.
    pub(super) fn scan_for_targets<T: Cell>(
        &mut self,
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
        let (mut targets, common_at) = match self.targets_by_words(seen, result, top) {
            Some(found) => found,
            None => self.targets_one_by_one(seen, result, top),
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
                let stop = witness(&mut targets, low, high, from, to);
                self.scanned_pairs += (stop - from) as u64;
                if let (Some(c), true) = (common_at, targets == [0; TARGET_VALUES / 8]) {
                    // Every target witnessed: the mex is the common value.
                    return c;
                }
            }
        }
        // The smallest target not witnessed (the mex was one, so one is left).
        targets
            .iter()
            .enumerate()
            .find(|&(_, &t)| t != 0)
            .map_or(result, |(w, t)| 8 * w + t.trailing_zeros() as usize)
    }

    /// The targets from `result` to `top` (at most) as a table, and the first unmarked
    /// common value if there is one below `top`: classifies the unmarked values in order
    /// until a common one.
    fn targets_one_by_one(
        &mut self,
        seen: &[u8; 1 << 16],
        result: usize,
        top: usize,
    ) -> ([u8; TARGET_VALUES / 8], Option<usize>) {
        let mut targets = [0u8; TARGET_VALUES / 8];
        for v in result..=top {
            if seen[v] == 0 {
                if self.classify(v) {
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
        seen: &[u8; 1 << 16],
        result: usize,
        top: usize,
    ) -> Option<([u8; TARGET_VALUES / 8], Option<usize>)> {
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
            // AVX2: the targeted scan only runs where the CPU has it (see `cpu_supports`).
            pack_bytes(
                &seen[64 * w..64 * w + 64],
                std::slice::from_mut(&mut marked),
                true,
            );
            let unmarked = !marked & range;
            let common = self.common.0.get(w).copied().unwrap_or(0);
            let classified = self.classified.0.get(w).copied().unwrap_or(0);
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
fn table_of(words: &[u64; TARGET_VALUES / 64]) -> [u8; TARGET_VALUES / 8] {
    let mut table = [0u8; TARGET_VALUES / 8];
    for (bytes, w) in table.chunks_exact_mut(8).zip(words) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    table
}

/// Crosses off the targets (bit v % 8 of byte v / 8 of `targets`) that the pairs
/// (`low[p]`, `high[half − 1 − p]`) for p in `from..to` witness, stopping early when none is
/// left. Returns where it stopped.
#[inline(always)]
fn witness(
    targets: &mut [u8; TARGET_VALUES / 8],
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    let half = low.len();
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: only called when `targeted_scan` found AVX-512F, BW, VBMI, VBMI2 and POPCNT.
    let mut i = unsafe { witness_avx512(targets, low, high, from, to) };
    #[cfg(not(target_arch = "x86_64"))]
    let mut i = from;
    // The pairs after the last whole block of LANES (all of them without AVX-512).
    while i < to {
        let v = (low[i] ^ high[half - 1 - i]) as usize;
        if let Some(t) = targets.get_mut(v >> 3) {
            *t &= !(1 << (v & 7));
        }
        i += 1;
        if targets.iter().all(|&t| t == 0) {
            break;
        }
    }
    i
}

/// Blocks of [`LANES`] pairs looked up with one table, before the targets they witnessed are
/// crossed off (the lookups do not wait for each other, and one branch serves them all).
const BLOCKS: usize = 8;

/// [`witness`] for the whole blocks of [`LANES`] pairs, [`BLOCKS`] at a time: returns where it
/// stopped (after the blocks that crossed off the last target, or where fewer than
/// [`LANES`] pairs are left).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
fn witness_avx512(
    targets: &mut [u8; TARGET_VALUES / 8],
    low: &[u16],
    high: &[u16],
    from: usize,
    to: usize,
) -> usize {
    use std::arch::x86_64::*;
    let half = low.len();
    // Lane l takes lane 31 − l: the high heaps run backwards.
    let reverse = _mm512_set_epi16(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
        28, 29, 30, 31,
    );
    let seven = _mm512_set1_epi16(7);
    let one = _mm512_set1_epi16(1);
    // Values of 512 and more (their byte index v / 8 has bits above the table's 6).
    let big = _mm512_set1_epi16(!(TARGET_VALUES as i16 - 1));
    // The values of the pairs that hit a target, BLOCKS blocks at a time.
    let mut found = [0u16; (BLOCKS + 1) * LANES];
    let whole = to - (to - from) % LANES;
    #[allow(unsafe_code)]
    // SAFETY: the table has 64 bytes.
    let mut table = unsafe { _mm512_loadu_si512(targets.as_ptr().cast()) };
    let mut i = from;
    while i < whole {
        let end = whole.min(i + BLOCKS * LANES);
        let mut count = 0;
        while i < end {
            let xs = &low[i..i + LANES];
            let ys = &high[half - i - LANES..half - i];
            #[allow(unsafe_code)]
            // SAFETY: both slices hold LANES (32) values of 16 bits: one 64-byte load each.
            let (x, y) = unsafe {
                (
                    _mm512_loadu_si512(xs.as_ptr().cast()),
                    _mm512_loadu_si512(ys.as_ptr().cast()),
                )
            };
            let v = _mm512_xor_si512(x, _mm512_permutexvar_epi16(reverse, y));
            // The byte v / 8 of the table (the permute reads the low 6 bits of each byte:
            // the low byte of a 16-bit lane holds v / 8 for v < 512), then its bit v % 8.
            let byte = _mm512_permutexvar_epi8(_mm512_srli_epi16(v, 3), table);
            let bit = _mm512_srlv_epi16(byte, _mm512_and_si512(v, seven));
            let hits = _mm512_test_epi16_mask(bit, one) & !_mm512_test_epi16_mask(v, big);
            // The values that hit, one after the other (count ≤ (BLOCKS − 1) · LANES here).
            let out = &mut found[count..count + LANES];
            #[allow(unsafe_code)]
            // SAFETY: `out` holds LANES (32) values of 16 bits: one 64-byte store.
            unsafe {
                _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_maskz_compress_epi16(hits, v))
            };
            count += hits.count_ones() as usize;
            i += LANES;
        }
        if count > 0 {
            for &v in &found[..count] {
                targets[(v >> 3) as usize & (TARGET_VALUES / 8 - 1)] &= !(1 << (v & 7));
            }
            #[allow(unsafe_code)]
            // SAFETY: the table has 64 bytes.
            {
                table = unsafe { _mm512_loadu_si512(targets.as_ptr().cast()) };
            }
            if _mm512_test_epi64_mask(table, table) == 0 {
                break;
            }
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `witness` against crossing off every pair one by one: it may stop early only when
        /// no target is left, and otherwise leaves exactly the targets no pair witnessed.
        #[test]
        fn witness_crosses_off_what_the_pairs_witness(
            cells in proptest::collection::vec(0u16..600, 2..700),
            picks in proptest::collection::vec(0usize..512, 0..80),
            cut in 0usize..1000,
            start in 0usize..1000,
        ) {
            if !cpu_supports() {
                return Ok(());
            }
            let half = cells.len() / 2;
            let (low, high) = (&cells[..half], &cells[cells.len() - half..]);
            let to = if half == 0 { 0 } else { cut % (half + 1) };
            let from = if to == 0 { 0 } else { start % (to + 1) };
            let mut targets = [0u8; TARGET_VALUES / 8];
            for &v in &picks {
                targets[v >> 3] |= 1 << (v & 7);
            }
            let mut want = targets;
            for p in from..to {
                let v = (low[p] ^ high[half - 1 - p]) as usize;
                if v < TARGET_VALUES {
                    want[v >> 3] &= !(1 << (v & 7));
                }
            }
            let stop = witness(&mut targets, low, high, from, to);
            prop_assert!(stop >= from && stop <= to);
            if stop < to {
                prop_assert_eq!(targets, [0; TARGET_VALUES / 8]);
                prop_assert_eq!(want, [0; TARGET_VALUES / 8]);
            } else {
                prop_assert_eq!(targets, want);
            }
        }
    }

    #[test]
    fn marked_bytes_read_as_bits() {
        if !cpu_supports() {
            return;
        }
        let mut bytes = [0u8; 64];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i % 3 == 0) as u8 * (i as u8 | 1);
        }
        let want = (0..64).filter(|i| i % 3 == 0).fold(0u64, |acc, i| acc | 1 << i);
        let mut got = 0;
        pack_bytes(&bytes, std::slice::from_mut(&mut got), true);
        assert_eq!(got, want);
    }
}
