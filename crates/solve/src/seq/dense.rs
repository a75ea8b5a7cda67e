//! The dense path of the rare/common method, for games where the split gives nothing: most
//! heaps need a scan of every pair anyway (0.007, 0.114, 0.135, 0.342, 0.414), so the rare
//! pass and the looks at the mex between blocks of pairs are wasted work.
//!
//! G(n) is found from every option at once, in two steps:
//! - the taking options and a prefix of the pairs of each split rule (the first pairs
//!   (a, m − a), a = 1, 2, ..., as many as the adapted prefix says, see [`PREFIX`]) are
//!   marked in the option set (a byte per value); their mex r is at most G(n), and most
//!   values between r and G(n) are marked;
//! - the unmarked values of a window of 1984 values from r (rounded down to a multiple of
//!   64) are the targets: the other pairs of every split rule are scanned for them only, with the AVX-512 byte-permute lookup of 32 pairs
//!   at a time ([`simd::witness_window`]), the forward values G(a) against the backward
//!   G(m − a) of the same block. G(n) is the smallest target no pair witnessed. When every
//!   target is witnessed, every value of the window is an option: the next window is
//!   scanned the same way (counted in [`Sparse::window_rescans`]).
//!
//! Without AVX-512 VBMI every pair is marked (a byte store per pair), still without the rare
//! pass.
//!
//! The path is chosen at each rebuild of the split (the heap count doubles between two) by
//! [`wants_dense`]: from 2^13 heaps, when the heaps computed on the sparse path since the
//! last rebuild marked three quarters of all their pairs or more on average (rare pairs and pairs of
//! the marking scan; not those of its targeted scan, which is as cheap per pair). On the dense path one heap in [`SAMPLE_EVERY`] is still computed on the
//! sparse path to keep that measure, and the rare list and the value counts are kept up to
//! date, so a later rebuild may go back to the sparse path. Games with a sparse space
//! (Officers, Grundy's game, 0.106) look at far fewer pairs and never take it.

use super::{limit_of, Sparse};
use crate::seq::simd::{self, TargetIsa, Window, WINDOW_VALUES};

/// Pairs of each split rule marked before the targeted scan at first, and at least: the
/// prefix then adapts, doubling after a heap whose first window of targets was all
/// witnessed, shrinking by an eighth after [`SHRINK_AFTER`] heaps in a row whose first
/// window held G(n). The mex of the marked values must be close enough to G(n) for the
/// first window to hold it (the more distinct values, the more pairs that takes), while
/// every pair marked costs a byte store.
pub(super) const PREFIX: usize = 1024;

/// Values a window of targets holds: those of the kernel's table but its last 64 (the
/// last byte of the table must be 0, see [`simd::witness_window`]).
const STEP: usize = WINDOW_VALUES - 64;

/// Heaps in a row that needed one window only, after which the prefix shrinks.
pub(super) const SHRINK_AFTER: usize = 8;

/// Heaps from which the dense path may be taken: below, scans are short and the sparse path
/// costs little whatever the split.
pub(super) const DENSE_FROM: usize = 1 << 13;

/// Heaps computed on the sparse path after a resume (from known values) before the dense
/// rule is applied: the next rebuild comes that soon.
pub(super) const RESUME_MEASURE: usize = 2048;

/// On the dense path, heap n with n % `SAMPLE_EVERY` = 0 is computed on the sparse path
/// all the same (the same value), to measure what the sparse path would cost now.
pub(super) const SAMPLE_EVERY: usize = 64;

/// Whether the heaps from `len` on are computed on the dense path, `heaps` heaps since the
/// last rebuild having been computed on the sparse path (all of them, or a sample on the
/// dense path) and having marked `pairs` pairs one by one (rare pairs and pairs of the
/// marking scan; the sparse path's own targeted scan, while values are below 512, costs
/// about what the dense path's does per pair, so its pairs do not count), when every heap
/// since the last rebuild has `every_pair` pairs on average: from [`DENSE_FROM`] heaps,
/// when the sparse path marked three quarters of every pair or more per heap with the
/// targeted scan (`targeted`), all of them or more without (the dense path then marks every
/// pair: no better than the sparse path, but no worse). Measured (2026-12-05, a loaded
/// machine), the dense scan costs about what marking does per pair, a bit less: what it
/// saves is the pairs the sparse path looks at twice (a rare pass, then a scan of every
/// pair) and its looks at the mex. 0.007 to 2^17 marks 97 % of every pair on the sparse
/// path, 0.342 144 %.
pub(super) fn wants_dense(len: usize, heaps: u64, pairs: u64, every_pair: u64, targeted: bool) -> bool {
    let share = if targeted {
        every_pair - every_pair / 4
    } else {
        every_pair
    };
    len >= DENSE_FROM && heaps >= 16 && pairs >= share.saturating_mul(heaps)
}

impl Sparse {
    /// G(n) on the dense path (values below 2^15, so that every window fits in 16 bits).
    pub(super) fn dense_value(&mut self, cells: &[u16], n: usize) -> usize {
        debug_assert!(self.max_value < 1 << 15);
        self.dense_heaps += 1;
        // Options are XORs of values below 2^bits: the mex is at most 2^bits = limit − 1.
        let limit = limit_of(self.max_value);
        let isa = self.cpu.targeted();
        let mut seen = std::mem::take(&mut self.seen);
        if seen.len() < 1 << 16 {
            seen.resize(1 << 16, 0);
        }
        let set = match <&mut [u8; 1 << 16]>::try_from(&mut seen[..1 << 16]) {
            Ok(s) => s,
            Err(_) => unreachable!("the option set has at least 2^16 bytes (`Sparse::count`)"),
        };
        set[..limit].fill(0);
        let rules = &self.rules;
        let prefix = self.dense_prefix;
        if rules.take_all.binary_search(&n).is_ok() {
            set[0] = 1;
        }
        for &k in &rules.leave_one {
            if k >= n {
                break;
            }
            set[cells[n - k] as usize] = 1;
        }
        // Per split rule: (m, half, pairs marked).
        let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(rules.leave_two.len());
        for &k in &rules.leave_two {
            if k + 2 > n {
                break;
            }
            let m = n - k;
            let half = if rules.unequal && m & 1 == 0 {
                m / 2 - 1
            } else {
                m / 2
            };
            let pre = if isa.is_some() { half.min(prefix) } else { half };
            mark_pairs(set, &cells[1..=half], &cells[m - half..m], pre);
            spans.push((m, half, pre));
            self.dense_pairs += pre as u64;
        }
        let mex = memchr::memchr(0, &set[..limit]).unwrap_or(limit);
        let g = match isa {
            Some(isa) if spans.iter().any(|&(_, half, pre)| pre < half) => {
                let rescans = self.window_rescans;
                let g = self.witness_windows(isa, cells, set, limit, mex, &spans);
                if !self.prefix_fixed {
                    self.adapt_prefix(self.window_rescans > rescans);
                }
                g
            }
            _ => mex,
        };
        self.seen = seen;
        g
    }

    /// Doubles the prefix after a heap that needed a second window (`rescanned`), shrinks it
    /// by an eighth after [`SHRINK_AFTER`] heaps in a row that did not (not below
    /// [`PREFIX`]).
    fn adapt_prefix(&mut self, rescanned: bool) {
        if rescanned {
            self.dense_prefix = (self.dense_prefix + self.dense_prefix / 4).min(1 << 24);
            self.prefix_quiet = 0;
        } else {
            self.prefix_quiet += 1;
            if self.prefix_quiet >= SHRINK_AFTER {
                self.dense_prefix = (self.dense_prefix - self.dense_prefix / 16).max(PREFIX);
                self.prefix_quiet = 0;
            }
        }
    }

    /// The smallest value from `mex` on that is neither marked in `set` nor the value of a
    /// pair past the prefix of a split rule (`spans`: (m, half, prefix) per rule), by
    /// windows of 1984 values.
    fn witness_windows(
        &mut self,
        isa: TargetIsa,
        cells: &[u16],
        set: &[u8; 1 << 16],
        limit: usize,
        mex: usize,
        spans: &[(usize, usize, usize)],
    ) -> usize {
        // Windows start at a multiple of 64 (the values below the mex are marked: not
        // targets), so that the targets are the unmarked bytes packed 64 to a word.
        let mut base = mex & !63;
        loop {
            // The unmarked values of the window that can be options (below limit − 1 =
            // 2^bits; 2^bits itself is never one, so a window that reaches it keeps it).
            let mut words = [0u64; WINDOW_VALUES / 64];
            simd::pack_bytes_avx2(isa.avx2(), &set[base..base + WINDOW_VALUES], &mut words);
            let mut targets: Window = [0; WINDOW_VALUES / 8];
            // The last word's values are left to the next window: the kernel wants the last
            // byte 0.
            for (w, (bytes, &marked)) in targets
                .chunks_exact_mut(8)
                .zip(&words)
                .enumerate()
                .take(STEP / 64)
            {
                // Values base + 64w + i below the limit.
                let start = base + 64 * w;
                let usable = match limit.saturating_sub(start) {
                    0 => 0,
                    k if k >= 64 => u64::MAX,
                    k => (1u64 << k) - 1,
                };
                bytes.copy_from_slice(&(!marked & usable).to_le_bytes());
            }
            if targets != [0; WINDOW_VALUES / 8] {
                for &(m, half, pre) in spans {
                    let low = &cells[1..=half];
                    let high = &cells[m - half..m];
                    let stop = simd::witness_window(isa, base as u16, &mut targets, low, high, pre, half);
                    self.dense_pairs += (stop - pre) as u64;
                    if targets == [0; WINDOW_VALUES / 8] {
                        break;
                    }
                }
                if let Some((w, t)) = targets.iter().enumerate().find(|&(_, &t)| t != 0) {
                    return base + 8 * w + t.trailing_zeros() as usize;
                }
            }
            // Every value of the window is an option: the next one (2^bits is never an
            // option, so some window before it stops).
            self.window_rescans += 1;
            base += STEP;
            if base >= limit {
                return limit - 1;
            }
        }
    }
}

/// Marks in `set` the values `low[i] ^ high[half − 1 − i]` of the pairs i < `count`
/// (`half = low.len() = high.len()`), the XORs of a block first (they vectorise), then a
/// byte store each.
#[inline(always)]
fn mark_pairs(set: &mut [u8; 1 << 16], low: &[u16], high: &[u16], count: usize) {
    let half = low.len();
    let mut buf = [0u16; 256];
    let mut i = 0;
    while i < count {
        let len = (count - i).min(256);
        let xs = &low[i..i + len];
        let ys = &high[half - i - len..half - i];
        for ((b, x), y) in buf.iter_mut().zip(xs).zip(ys.iter().rev()) {
            *b = x ^ y;
        }
        for &v in &buf[..len] {
            set[v as usize] = 1;
        }
        i += len;
    }
}
