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
//! Without AVX-512 VBMI the same is done with AVX2 and windows of 192 values (256 looked
//! up, three byte shuffles for 32 pairs, the high values read forward from a [`Mirror`] of
//! the cells in reverse order); more heaps then need later windows (1.6 rescans a
//! heap for 0.114 to 2^18, 8.7 for 0.414), and where the windows scan more than
//! [`SCANS_PER_MARK`] times a heap's pairs, every pair is marked instead (one heap in
//! [`PROBE_EVERY`] still scans, to keep the measure). Without AVX2 either every pair is
//! marked (a byte store per pair), still without the rare pass.
//!
//! The path is chosen every eighth of the heaps so far ([`rule_after`]) by [`wants_dense`]:
//! from 2^13 heaps, when the heaps computed on the sparse path since it was last chosen
//! marked three eighths of all their pairs or more on average (rare pairs and pairs of the
//! marking scan; not those of its targeted scan, which is as cheap per pair). On the dense
//! path one heap in [`SAMPLE_EVERY`] is still computed on the sparse path to keep that
//! measure, and the rare list and the value counts are kept up to date, so the path may go
//! back to the sparse one. Games with a sparse space (Officers,
//! Grundy's game, 0.106) mark about a tenth of all pairs or fewer (fewer as they grow) and
//! never take it (without AVX-512, whose targeted scan the sparse path then lacks, Officers
//! and Grundy's game mark most pairs of their first 2^14 heaps and take it that while).
//!
//! On several threads (`-j`, [`Sparse::compute_parallel`]) the dense path computes heaps
//! in groups when the split rules allow it ([`Groups`]): when every split rule removes j
//! tokens or more, the split options of heap x are all heaps below x − j, so heap x may
//! start once those are settled, and up to j + 1 heaps are under way at once. Each thread
//! claims the next heap that may start and computes it whole (no hand-over inside a heap);
//! the main thread settles the heaps in order, computing the next heaps itself while the
//! heap to settle is a helper's, so that no thread waits for a slow heap of another (the
//! heaps' costs differ by the windows each needs). A helper does not see the options of
//! its heap that are heaps settled after it claimed it (a move that leaves one heap, as
//! 0.342's taking of one token): it hands back the window of targets left after its scan,
//! and the main thread, once those heaps are settled, takes the smallest target that none
//! of them equals (or computes the heap again when the window holds no other, which is
//! rare). The prefix marking and packing of targets run on every thread too.
//!
//! Where the rules do not allow groups for every thread (a split rule removing fewer than
//! threads − 1 tokens, as 0.414's split after taking one, on three threads), the targeted
//! scan of a window is shared instead: the main thread computes the heaps in order as on
//! one thread, and a scan of at least [`SHARE_FROM`] pairs (every split rule together: from
//! about 2^16 heaps) is cut into up to 64 pieces of [`MIN_PIECE`] pairs or more, which the
//! main thread and its helpers claim one at a time ([`Team`]). Each thread crosses off the
//! targets its pieces witness in a copy of the window; the targets left are those no thread
//! crossed off, so G(n) is that of one thread. On this 2-core machine groups were faster
//! than shared scans (docs/benchmarks.md): a piece of a shared scan is a microsecond or two
//! of work, not much more than handing it between the cores costs.
//!
//! On a busy machine a thread may wait a whole time slice for a core, so no thread ever
//! waits for another for long: a helper spins for a few tens of microseconds between
//! groups or scans, then sleeps until the main thread wakes it; the main thread, when a
//! helper's heap (or piece) is not done within about 1.5 times its own, computes it itself
//! (the helper's answer then comes too late and is dropped). And as for the pipeline, the
//! thread count is measured: one thread, two or all of them, tried now and then for
//! [`MIN_TRIAL`] heaps or about 20 ms, the fastest kept (a second tuner, apart from the
//! pipeline's). Without AVX-512 VBMI the windows are AVX2's ([`simd::WindowIsa`]): 256
//! values, 192 of them targets, looked up by byte shuffles; the prefix then grows to 4096
//! pairs at most ([`max_prefix`]). Without AVX2 either (every pair marked, no targeted
//! scan) the dense path runs on one thread.

use super::pipeline::{SharedCells, SPIN_FOR};
use super::{limit_of, Rare, Sparse, SplitRules};
use crate::seq::simd::{self, Window, WindowIsa, WINDOW_VALUES};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Pairs of each split rule marked before the targeted scan at first, and at least: the
/// prefix then adapts, doubling after a heap whose first window of targets was all
/// witnessed, shrinking by an eighth after [`SHRINK_AFTER`] heaps in a row whose first
/// window held G(n). The mex of the marked values must be close enough to G(n) for the
/// first window to hold it (the more distinct values, the more pairs that takes), while
/// every pair marked costs a byte store.
pub(super) const PREFIX: usize = 1024;

/// Values a window of targets holds: those of the kernel's table but its last 64 (the
/// last byte of the table must be 0, see [`simd::witness_window`]): 1984 with AVX-512, 192
/// with AVX2.
fn step(isa: WindowIsa) -> usize {
    isa.values() - 64
}

/// The largest prefix with the windows of `isa`. With AVX-512's windows of 1984 values a
/// longer prefix brings the mex close enough to G(n) for the first window to hold it. The
/// AVX2 kernel's windows of 192 values miss G(n) on most heaps whatever the prefix (0.114
/// and 0.007 to 2^18 heaps on one thread, every heap on the dense path, 2026-12-07: 1.6
/// rescans a heap with a prefix of 1024 pairs, 1.5 with 16 384), and a marked pair costs
/// about four scanned ones ([`SCANS_PER_MARK`]), so the prefix grows to 4096 pairs only
/// (5.6–5.8 s against 6.3 with 1024 and 6.1–6.6 with 16 384; grown without a bound, it
/// reached 140 000 pairs and took 13.8 s).
fn max_prefix(isa: WindowIsa) -> usize {
    match isa {
        WindowIsa::Avx512(_) => 1 << 24,
        WindowIsa::Avx2(_) => 4 * PREFIX,
    }
}

/// With AVX2's windows, the pairs a heap's windows may scan (rescans included), as a
/// multiple of its pairs, before marking every pair is cheaper: a marked pair costs about
/// four scanned ones (2026-12-07, AMD EPYC, one thread: 0.114 to 2^17 0.87 ns a marked pair
/// on the sparse path, 0.18–0.22 ns a scanned pair on the dense path). 0.414, whose values
/// pass 5000 by 2^18 heaps, scans about 5.8 times its pairs (8.7 rescans a heap); 0.114,
/// 0.135 and 0.342 2.0–2.6 times.
const SCANS_PER_MARK: f64 = 4.0;

/// While AVX2's windows lose to marking, one dense heap in `PROBE_EVERY` still scans them.
const PROBE_EVERY: u64 = 16;

/// Heaps in a row that needed one window only, after which the prefix shrinks.
pub(super) const SHRINK_AFTER: usize = 8;

/// The settled cells of the dense path and, where the AVX2 windows read them, the same in
/// reverse order: `rev[t] == cells[cells.len() − 1 − t]` ([`Mirror`]; empty otherwise).
#[derive(Clone, Copy, Debug)]
pub(super) struct Settled<'a> {
    /// The cells below the heap, settled.
    pub(super) cells: &'a [u16],
    /// The same in reverse order, or empty.
    pub(super) rev: &'a [u16],
}

impl<'a> Settled<'a> {
    /// `cells` without a mirror (the AVX-512 windows reverse the high values themselves).
    pub(super) fn plain(cells: &'a [u16]) -> Settled<'a> {
        Settled { cells, rev: &[] }
    }
}

/// The cells of the dense path kept a second time in reverse order, for AVX2's windows:
/// the high values of a split rule's pairs, G(m − 1), G(m − 2), ..., are then read forward
/// as the low ones are, and the kernel has nothing to reverse (1.3 times fewer samples in
/// the kernel than with the reversing shuffles, 0.114 to 2^17, 2026-12-07), at two more bytes
/// a heap. Cell j is at `buf[buf.len() − 1 − j]`; the cells below `synced` are there.
#[derive(Clone, Debug, Default)]
pub(super) struct Mirror {
    buf: Vec<u16>,
    synced: usize,
}

impl Mirror {
    /// Makes room for `end` cells (at least) and mirrors the settled `cells` not mirrored yet.
    pub(super) fn sync(&mut self, cells: &[u16], end: usize) {
        let cap = self.buf.len();
        if end > cap {
            // Doubling: a heap's cells are copied O(1) times on average.
            let grown = end.max(2 * cap).max(1 << 12);
            let mut buf = vec![0u16; grown];
            buf[grown - self.synced..].copy_from_slice(&self.buf[cap - self.synced..]);
            self.buf = buf;
        }
        let cap = self.buf.len();
        for (j, &v) in cells.iter().enumerate().skip(self.synced) {
            self.buf[cap - 1 - j] = v;
        }
        self.synced = self.synced.max(cells.len());
    }

    /// The settled `cells` with their mirror when `kept` (the dense path keeps one, see
    /// [`Sparse::avx2_windows`]), else without.
    pub(super) fn settled<'a>(&'a mut self, cells: &'a [u16], kept: bool) -> Settled<'a> {
        if !kept {
            return Settled::plain(cells);
        }
        self.sync(cells, cells.len());
        let cap = self.buf.len();
        Settled {
            cells,
            rev: &self.buf[cap - cells.len()..],
        }
    }

    /// The cells below `n` were written through the [`SharedCells`] this mirror was lent to.
    pub(super) fn written_to(&mut self, n: usize) {
        self.synced = self.synced.max(n);
    }

    /// The buffer and its length, for [`SharedCells::with_mirror`].
    pub(super) fn raw(&mut self) -> (*mut u16, usize) {
        (self.buf.as_mut_ptr(), self.buf.len())
    }
}

/// Heaps from which the dense path may be taken: below, scans are short and the sparse path
/// costs little whatever the split.
pub(super) const DENSE_FROM: usize = 1 << 13;

/// Heaps computed on the sparse path after a resume (from known values) before the dense
/// rule is applied.
pub(super) const RESUME_MEASURE: usize = 2048;

/// On the dense path, heap n with n % `SAMPLE_EVERY` = 0 is computed on the sparse path
/// all the same (the same value), to measure what the sparse path would cost now. A sample
/// is one heap alone on the sparse path and, with AVX2's windows (no targeted scan on the
/// sparse path), costs about 13 dense heaps (0.342 to 2^19 on two threads, 2026-12-07: one
/// sample in 64 heaps took 13.4 s, no sample 9.5 s; on several threads the other threads
/// wait for it, since it needs every heap below it): one in 256 should cost about a
/// twentieth (not measured apart).
pub(super) const SAMPLE_EVERY: usize = 256;

/// The heap count at which the dense rule is applied next, having been applied at `len`
/// heaps: an eighth of the heaps later, at least 16 samples later. A game may change its
/// character within a doubling of the heap count: 0.007 marks 63 % of every pair from 2^17
/// to 2^18 heaps (the dense path is faster) and 29 % from 2^18 to 2^19 (the sparse path is
/// 1.5 times faster on one thread); applied at the rebuilds of the split only (every
/// doubling), the rule kept 0.007 on the dense path to 2^19.
pub(super) fn rule_after(len: usize) -> usize {
    len + (len / 8).max(16 * SAMPLE_EVERY)
}

/// Whether the heaps from `len` on are computed on the dense path, `heaps` heaps since the
/// rule was last applied having been computed on the sparse path (all of them, or a sample
/// on the dense path) and having marked `pairs` pairs one by one (rare pairs and pairs of
/// the marking scan; the sparse path's own targeted scan, while values are below 512, costs
/// about what the dense path's does per pair, so its pairs do not count), when every heap
/// since then has `every_pair` pairs on average: from [`DENSE_FROM`] heaps, when the sparse
/// path marked the `share` (numerator, denominator) of every pair or more per heap
/// ([`dense_share`]). None when fewer than 16 heaps were measured (the path stays as it
/// is). On one thread the sparse path's time per heap is about 2.4
/// times the dense path's times the share of pairs it marks (2026-12-06, 2^18 to 2^19 heaps:
/// 0.007 marks 29 % and takes 0.69 of the dense path's time, 0.114 marks 61 % and takes
/// 1.51 of it), so three eighths is about where they meet; the dense path's targeted scan
/// costs well under half of a marked pair. The sparse games stay far below: Officers marks
/// 13 % of every pair at 2^15 heaps, Grundy's game 10 %, and fewer as they grow.
pub(super) fn wants_dense(
    len: usize,
    (heaps, pairs): (u64, u64),
    every_pair: u64,
    (above, below): (u64, u64),
) -> Option<bool> {
    if len < DENSE_FROM {
        return Some(false);
    }
    if heaps < 16 {
        return None;
    }
    let share = every_pair * above / below;
    Some(pairs >= share.saturating_mul(heaps))
}

/// Heaps from which the dense path with AVX2's windows stays taken down to three sixteenths
/// of every pair marked ([`dense_share`]).
pub(super) const STAY_FROM: usize = 1 << 18;

/// The share of every pair the sparse path must mark for [`wants_dense`] to take the dense
/// path (or, `dense` true, to stay on it at `len` heaps) with the windows of `isa`: three
/// eighths with AVX-512's (the measures above); with AVX2's, three eighths to take it and,
/// from [`STAY_FROM`] heaps, three sixteenths to stay on it: there the sparse path has no
/// targeted scan, and from 2^19 heaps a marked pair costs eight or more scanned ones (0.11
/// ns a scanned pair, 0.87 a marked one; four at 2^17), so the dense path stays faster well
/// below three eighths (2026-12-07, two threads, every heap dense against the rule at three
/// eighths: 0.007 to 2^19 5.8 s against 9.2 s, the rule having left the dense path at 29 %;
/// 0.114 to 2^20 22.1 s against 28.3–31.4 s, left at about 22 %), while games with a sparse
/// space (Kayles, Officers), whose young heaps mark a fifth to a half of every pair without
/// a targeted scan, must not take it (so not three sixteenths to take it) nor stay on it
/// below 2^18 heaps (Officers marks more than three sixteenths of every pair past 2^15
/// heaps); without windows all of them (the dense path then marks every pair: no better
/// than the sparse path, but no worse).
pub(super) fn dense_share(isa: Option<WindowIsa>, dense: bool, len: usize) -> (u64, u64) {
    match isa {
        Some(WindowIsa::Avx512(_)) => (3, 8),
        Some(WindowIsa::Avx2(_)) if dense && len >= STAY_FROM => (3, 16),
        Some(WindowIsa::Avx2(_)) => (3, 8),
        None => (1, 1),
    }
}

/// What one heap of the dense path needs besides the cells: the rules, the kernel, the
/// prefix and the bound of the options, copied so that a helper thread can compute a heap
/// while the main thread computes another ([`Sparse::compute_dense_groups`]).
#[derive(Clone, Copy)]
pub(super) struct HeapJob<'r> {
    rules: &'r SplitRules,
    isa: Option<WindowIsa>,
    /// Pairs of each split rule marked before the targeted scan.
    prefix: usize,
    /// Options are below `limit − 1` = 2^bits, the mex at most 2^bits (`limit_of`).
    limit: usize,
    /// Pairs from which a [`Team`] shares the targeted scan.
    share_from: usize,
}

/// What [`dense_heap`] found for a heap: its value from the options it saw, and the window
/// that held it with the targets left after its scan (the value is the first of them, the
/// others are the next values that no option it saw has).
pub(super) struct HeapAnswer {
    pub(super) value: usize,
    /// The window's first value and the targets left in it (all 0 when the value came from
    /// the marked options alone).
    base: usize,
    rest: Window,
    /// Pairs marked or scanned, and windows all witnessed (statistics).
    pairs: u64,
    rescans: u64,
    /// Pairs the heap has (of every split rule): what marking them all would cost.
    every: u64,
    /// Whether pairs past the prefix were scanned for targets (the prefix adapts to those
    /// heaps).
    windowed: bool,
    /// Scans shared among the threads of a [`Team`] (statistics).
    shared: u64,
}

impl HeapAnswer {
    /// The smallest value of this answer that is none of `late` (options it did not see):
    /// its value, or the next target left in its window; None when the window holds no
    /// other (then the heap must be computed again with every option).
    fn without(&self, late: &[usize]) -> Option<usize> {
        if !late.contains(&self.value) {
            return Some(self.value);
        }
        (0..WINDOW_VALUES - 64)
            .filter(|&i| self.rest[i / 8] >> (i % 8) & 1 == 1)
            .map(|i| self.base + i)
            .find(|v| !late.contains(v))
    }
}

/// G(n) on the dense path from `cells` (the cells below `cells.len()` ≤ n), with `seen` an
/// option set of 2^16 bytes or more to use: every option whose heaps are among `cells`
/// counts (the options on heaps at or past `cells.len()`, which only a heap that leaves one
/// heap can have, are left to the caller, [`HeapAnswer::without`]); the split options need
/// `cells.len() ≥ n − k` for every split rule k. With `team`, a targeted scan of at least
/// `job.share_from` pairs is shared among its threads ([`Team::scan`]).
pub(super) fn dense_heap(
    job: &HeapJob<'_>,
    seen: &mut [u8],
    settled: Settled<'_>,
    n: usize,
    team: Option<&Team<'_>>,
) -> HeapAnswer {
    let cells = settled.cells;
    let limit = job.limit;
    let set = match <&mut [u8; 1 << 16]>::try_from(&mut seen[..1 << 16]) {
        Ok(s) => s,
        Err(_) => unreachable!("the option set has at least 2^16 bytes (`Sparse::count`)"),
    };
    set[..limit].fill(0);
    let rules = job.rules;
    if rules.take_all.binary_search(&n).is_ok() {
        set[0] = 1;
    }
    for &k in &rules.leave_one {
        if k >= n {
            break;
        }
        if let Some(&v) = cells.get(n - k) {
            set[v as usize] = 1;
        }
    }
    let mut pairs = 0;
    let mut every = 0;
    // Per split rule: (m, half, pairs marked).
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(rules.leave_two.len());
    for &k in &rules.leave_two {
        if k + 2 > n {
            break;
        }
        let m = n - k;
        debug_assert!(m <= cells.len(), "split options of heap {n} need {m} cells");
        let half = if rules.unequal && m & 1 == 0 {
            m / 2 - 1
        } else {
            m / 2
        };
        let pre = if job.isa.is_some() {
            half.min(job.prefix)
        } else {
            half
        };
        mark_pairs(set, &cells[1..=half], &cells[m - half..m], pre);
        spans.push((m, half, pre));
        pairs += pre as u64;
        every += half as u64;
    }
    let mex = memchr::memchr(0, &set[..limit]).unwrap_or(limit);
    let mut answer = HeapAnswer {
        value: mex,
        base: 0,
        rest: [0; WINDOW_VALUES / 8],
        pairs,
        rescans: 0,
        every,
        windowed: false,
        shared: 0,
    };
    if let Some(isa) = job.isa {
        if spans.iter().any(|&(_, half, pre)| pre < half) {
            answer.windowed = true;
            witness_windows(job, isa, settled, set, mex, &spans, team, &mut answer);
        }
    }
    answer
}

/// The smallest value from `mex` on that is neither marked in `set` nor the value of a
/// pair past the prefix of a split rule (`spans`: (m, half, prefix) per rule), by windows
/// of 1984 values, into `answer`; each window's scan shared among the threads of `team`
/// when it is long enough.
#[allow(clippy::too_many_arguments)]
fn witness_windows(
    job: &HeapJob<'_>,
    isa: WindowIsa,
    cells: Settled<'_>,
    set: &[u8; 1 << 16],
    mex: usize,
    spans: &[(usize, usize, usize)],
    team: Option<&Team<'_>>,
    answer: &mut HeapAnswer,
) {
    let limit = job.limit;
    let total: usize = spans.iter().map(|&(_, half, pre)| half - pre).sum();
    let team = team.filter(|_| total >= job.share_from.max(1));
    // Windows start at a multiple of 64 (the values below the mex are marked: not
    // targets), so that the targets are the unmarked bytes packed 64 to a word.
    let mut base = mex & !63;
    loop {
        // The unmarked values of the window that can be options (below limit − 1 =
        // 2^bits; 2^bits itself is never one, so a window that reaches it keeps it).
        let mut words = [0u64; WINDOW_VALUES / 64];
        let values = isa.values();
        simd::pack_bytes_avx2(isa.avx2(), &set[base..base + values], &mut words[..values / 64]);
        let mut targets: Window = [0; WINDOW_VALUES / 8];
        // The last word's values are left to the next window: the kernel wants the last
        // byte 0.
        for (w, (bytes, &marked)) in targets
            .chunks_exact_mut(8)
            .zip(&words)
            .enumerate()
            .take(step(isa) / 64)
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
            answer.pairs += match team {
                Some(team) => {
                    answer.shared += 1;
                    team.scan(isa, cells, base as u16, &mut targets, spans, total)
                }
                None => scan_pairs(isa, cells, base as u16, &mut targets, spans, 0, total),
            };
            if let Some((w, t)) = targets.iter().enumerate().find(|&(_, &t)| t != 0) {
                answer.value = base + 8 * w + t.trailing_zeros() as usize;
                answer.base = base;
                answer.rest = targets;
                return;
            }
        }
        // Every value of the window is an option: the next one (2^bits is never an
        // option, so some window before it stops).
        answer.rescans += 1;
        base += step(isa);
        if base >= limit {
            answer.value = limit - 1;
            answer.rest = [0; WINDOW_VALUES / 8];
            return;
        }
    }
}

impl Sparse {
    /// What [`dense_heap`] needs of the engine now.
    fn heap_job(&self) -> HeapJob<'_> {
        HeapJob {
            rules: &self.rules,
            isa: self.cpu.window(),
            prefix: self.prefix_now(),
            limit: limit_of(self.max_value),
            share_from: self.dense_share_from,
        }
    }

    /// The prefix of the next heap: the adapted one, or every pair while AVX2's windows
    /// cost more than marking (one heap in [`PROBE_EVERY`] still scans its windows, to
    /// keep the measure).
    fn prefix_now(&self) -> usize {
        if self.window_cost > SCANS_PER_MARK && !self.dense_heaps.is_multiple_of(PROBE_EVERY) {
            usize::MAX
        } else {
            self.dense_prefix
        }
    }

    /// Counts a heap of the dense path (statistics, and the prefix adapted to it).
    fn count_dense(&mut self, answer: &HeapAnswer) {
        self.dense_heaps += 1;
        self.dense_pairs += answer.pairs;
        self.window_rescans += answer.rescans;
        self.shared_scans += answer.shared;
        if answer.windowed && !self.prefix_fixed {
            if self.avx2_windows() {
                // A running mean over about the last 16 heaps with windows.
                let cost = answer.pairs as f64 / answer.every.max(1) as f64;
                self.window_cost += (cost - self.window_cost) / 16.0;
            }
            self.adapt_prefix(answer.rescans > 0);
        }
    }

    /// G(n) on the dense path (values below 2^15, so that every window fits in 16 bits).
    /// With `team`, the targeted scans of at least [`Sparse::dense_share_from`] pairs are
    /// shared among its threads ([`Team::scan`]).
    pub(super) fn dense_value(&mut self, cells: Settled<'_>, n: usize, team: Option<&Team<'_>>) -> usize {
        debug_assert!(self.max_value < 1 << 15 && cells.cells.len() == n);
        let mut seen = std::mem::take(&mut self.seen);
        if seen.len() < 1 << 16 {
            seen.resize(1 << 16, 0);
        }
        let answer = dense_heap(&self.heap_job(), &mut seen, cells, n, team);
        self.seen = seen;
        self.count_dense(&answer);
        answer.value
    }

    /// Grows the prefix by a quarter after a heap that needed a second window (`rescanned`),
    /// shrinks it by a sixteenth after [`SHRINK_AFTER`] heaps in a row that did not (not
    /// below [`PREFIX`], not above [`max_prefix`]).
    fn adapt_prefix(&mut self, rescanned: bool) {
        if rescanned {
            let most = self.cpu.window().map_or(1 << 24, max_prefix);
            self.dense_prefix = (self.dense_prefix + self.dense_prefix / 4).min(most);
            self.prefix_quiet = 0;
        } else {
            self.prefix_quiet += 1;
            if self.prefix_quiet >= SHRINK_AFTER {
                self.dense_prefix = (self.dense_prefix - self.dense_prefix / 16).max(PREFIX);
                self.prefix_quiet = 0;
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

/// Crosses off the `targets` (the window from `base`) that the pairs `from..to` witness, the
/// pairs past the prefix of every split rule (`spans`: (m, half, prefix) per rule) counted
/// one after the other; stops early when none is left. Returns the pairs looked at.
fn scan_pairs(
    isa: WindowIsa,
    settled: Settled<'_>,
    base: u16,
    targets: &mut Window,
    spans: &[(usize, usize, usize)],
    from: usize,
    to: usize,
) -> u64 {
    let mut pairs = 0;
    let mut start = 0;
    for &(m, half, pre) in spans {
        if start >= to {
            break;
        }
        let len = half - pre;
        let (a, b) = (from.max(start), to.min(start + len));
        if a < b {
            let (cells, settled_to) = (settled.cells, settled.cells.len());
            let low = &cells[1..=half];
            let high = &cells[m - half..m];
            // high[half − 1 − i] = G(m − 1 − i) = rev[settled_to − m + i].
            let rev = match settled.rev {
                [] => &[][..],
                rev => &rev[settled_to - m..settled_to - m + half],
            };
            let (p0, p1) = (pre + a - start, pre + b - start);
            let stop = simd::witness_window(isa, base, targets, low, high, rev, p0, p1);
            pairs += (stop - p0) as u64;
            if *targets == [0; WINDOW_VALUES / 8] {
                break;
            }
        }
        start += len;
    }
    pairs
}

/// Pairs of a window's targeted scan (every split rule together) from which the scan is
/// shared among the threads of a [`Team`]: about 10 µs of one thread's work, some 20 times
/// what handing it over costs.
pub(super) const SHARE_FROM: usize = 1 << 15;

/// The fewest heaps of a try of another thread count on the dense path (its heaps take
/// tens of microseconds from 2^16 on: a try of the pipeline's 4096 heaps would take a good
/// part of a second, long enough to cost when the other count is much slower).
pub(super) const MIN_TRIAL: usize = 256;

/// The fewest pairs of a piece of a shared scan (threads claim pieces one at a time).
pub(super) const MIN_PIECE: usize = 1 << 12;

/// The most pieces a shared scan is cut into (the pieces done are a 64-bit mask).
const MAX_PIECES: usize = 64;

/// One window's targeted scan as the main thread hands it to the helpers of a [`Team`].
#[derive(Clone, Debug)]
struct Job {
    /// The scan's number (the low 32 bits are those of [`Team::claim`]).
    id: u32,
    isa: Option<WindowIsa>,
    /// The heap: the cells below are settled.
    n: usize,
    base: u16,
    targets: Window,
    spans: Vec<(usize, usize, usize)>,
    /// Where each piece starts in the pairs of every span together, and their total.
    cuts: Vec<usize>,
}

/// What the helpers found for a job: the targets none of them witnessed, and the pieces
/// they finished.
struct Found {
    id: u32,
    targets: Window,
    pieces: u64,
}

/// The threads that share the targeted scans of the dense path: the main thread, which
/// computes the heaps in order, and helpers that wait for scans to share.
///
/// Each scan is cut into pieces that the threads claim one at a time; each thread crosses
/// off, in a copy of the window's targets, those its pieces witness, and the main thread
/// keeps the targets that no thread crossed off (the AND of the copies). A target crossed
/// off is witnessed by some pair, and every piece is scanned by some thread, so the value
/// is that of one thread whoever scanned what. The main thread never waits long: when it
/// has no piece left to claim and a helper's piece is not done within about one piece's
/// time ([`Team::wait`]), it scans that piece itself (a helper descheduled on a busy machine
/// costs a piece, not a time slice); the helper's late answer is then dropped (its job
/// number is old).
pub(super) struct Team<'a> {
    cells: &'a SharedCells,
    /// The current job's number (high 32 bits) and its next piece to claim (low 32).
    claim: AtomicU64,
    job: Mutex<Job>,
    found: Mutex<Found>,
    /// The main thread's job counter.
    next_id: AtomicUsize,
    helpers: Helpers,
    /// How long the main thread waits for a helper's piece before it scans the piece itself
    /// (None: 1.5 times its own slowest piece of the job, and 2 µs).
    wait: Option<Duration>,
    /// The fewest pairs of a piece.
    piece: usize,
}

impl<'a> Team<'a> {
    fn new(cells: &'a SharedCells, helpers: usize, wait: Option<Duration>, piece: usize) -> Team<'a> {
        Team {
            cells,
            claim: AtomicU64::new(0),
            job: Mutex::new(Job {
                id: 0,
                isa: None,
                n: 0,
                base: 0,
                targets: [0; WINDOW_VALUES / 8],
                spans: Vec::new(),
                cuts: Vec::new(),
            }),
            found: Mutex::new(Found {
                id: 0,
                targets: [0; WINDOW_VALUES / 8],
                pieces: 0,
            }),
            next_id: AtomicUsize::new(0),
            helpers: Helpers::new(helpers),
            wait,
            piece: piece.max(1),
        }
    }

    /// Claims the next piece of job `id` (of `pieces`), if any is left.
    fn claim_piece(&self, id: u32, pieces: usize) -> Option<usize> {
        let mut cur = self.claim.load(Ordering::Acquire);
        loop {
            let next = (cur & 0xFFFF_FFFF) as usize;
            if (cur >> 32) as u32 != id || next >= pieces {
                return None;
            }
            match self
                .claim
                .compare_exchange_weak(cur, cur + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(next),
                Err(now) => cur = now,
            }
        }
    }

    /// No more pieces of job `id` are claimed (its targets are all witnessed).
    fn close(&self, id: u32) {
        let _ = self.claim.fetch_update(Ordering::AcqRel, Ordering::Acquire, |c| {
            ((c >> 32) as u32 == id).then_some((id as u64) << 32 | 0xFFFF_FFFF)
        });
    }

    fn lock_found(&self) -> std::sync::MutexGuard<'_, Found> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Crosses off the `targets` (the window from `base`) that the pairs past the prefixes
    /// (`spans`, `total` pairs, `cells` the settled cells) witness, on every thread of the
    /// team. Returns the pairs scanned (about: statistics).
    fn scan(
        &self,
        isa: WindowIsa,
        cells: Settled<'_>,
        base: u16,
        targets: &mut Window,
        spans: &[(usize, usize, usize)],
        total: usize,
    ) -> u64 {
        let id = (self.next_id.fetch_add(1, Ordering::Relaxed) as u32).wrapping_add(1);
        let pieces = (total / self.piece).clamp(1, MAX_PIECES);
        let all = if pieces == 64 {
            u64::MAX
        } else {
            (1u64 << pieces) - 1
        };
        {
            let mut f = self.lock_found();
            f.id = id;
            f.targets = *targets;
            f.pieces = 0;
        }
        let cuts: Vec<usize> = {
            let mut j = self.job.lock().unwrap_or_else(|e| e.into_inner());
            j.id = id;
            j.isa = Some(isa);
            j.n = cells.cells.len();
            j.base = base;
            j.targets = *targets;
            j.spans.clear();
            j.spans.extend_from_slice(spans);
            j.cuts.clear();
            j.cuts.extend((0..=pieces).map(|i| total * i / pieces));
            j.cuts.clone()
        };
        self.claim.store((id as u64) << 32, Ordering::SeqCst);
        for h in 0..self.helpers.len() {
            self.helpers.wake(h);
        }
        let mut local = *targets;
        let mut mine = 0u64;
        let mut pairs = 0;
        let mut slowest = Duration::ZERO;
        let zero = [0; WINDOW_VALUES / 8];
        while let Some(c) = self.claim_piece(id, pieces) {
            let started = Instant::now();
            pairs += scan_pairs(isa, cells, base, &mut local, spans, cuts[c], cuts[c + 1]);
            slowest = slowest.max(started.elapsed());
            mine |= 1 << c;
            if local == zero {
                self.close(id);
                break;
            }
        }
        if local != zero {
            let wait = self.wait.unwrap_or(slowest * 3 / 2 + Duration::from_micros(2));
            let since = Instant::now();
            let mut spins = 0u32;
            loop {
                let missing = {
                    let f = self.lock_found();
                    for (t, h) in local.iter_mut().zip(&f.targets) {
                        *t &= h;
                    }
                    all & !(f.pieces | mine)
                };
                if missing == 0 || local == zero {
                    break;
                }
                spins += 1;
                if spins.is_multiple_of(16) && (since.elapsed() >= wait || self.helpers.stopped()) {
                    // A helper is late: its pieces here (it drops its answer).
                    self.close(id);
                    for c in (0..pieces).filter(|&c| missing >> c & 1 == 1) {
                        pairs += scan_pairs(isa, cells, base, &mut local, spans, cuts[c], cuts[c + 1]);
                    }
                    self.lock_found().id = 0;
                    break;
                }
                std::hint::spin_loop();
            }
        }
        // Later answers of this job are dropped.
        self.close(id);
        *targets = local;
        // Every pair when a target is left; else those this thread scanned.
        if local != zero {
            total as u64
        } else {
            pairs
        }
    }

    /// Helper `h`: scans pieces of every job until the team stops.
    fn help(&self, h: usize) {
        let mut last = 0u32;
        let mut job = self.job.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let zero = [0; WINDOW_VALUES / 8];
        while let Some(id) = self.wait_job(last, h) {
            job.clone_from(&*self.job.lock().unwrap_or_else(|e| e.into_inner()));
            // The job read may be newer than the claims seen (the main thread opens its
            // claims just after it): then the next wait returns at once, for that job.
            last = id;
            let Some(isa) = job.isa else { continue };
            let cells = self.cells.settled_mirrored(job.n);
            let pieces = job.cuts.len() - 1;
            let mut local = job.targets;
            while let Some(c) = self.claim_piece(job.id, pieces) {
                scan_pairs(
                    isa,
                    cells,
                    job.base,
                    &mut local,
                    &job.spans,
                    job.cuts[c],
                    job.cuts[c + 1],
                );
                let mut f = self.lock_found();
                if f.id != job.id {
                    break;
                }
                for (t, l) in f.targets.iter_mut().zip(&local) {
                    *t &= l;
                }
                f.pieces |= 1 << c;
                drop(f);
                if local == zero {
                    self.close(job.id);
                    break;
                }
            }
        }
    }

    /// Waits for claims of a job other than job `last` and returns its number: spins for
    /// [`SPIN_FOR`], then sleeps until the main thread wakes helper `h`. None when the team
    /// stops.
    fn wait_job(&self, last: u32, h: usize) -> Option<u32> {
        self.helpers.wait(h, || {
            Some((self.claim.load(Ordering::SeqCst) >> 32) as u32).filter(|&id| id != last)
        })
    }
}

/// The helper threads of a [`Team`] or of [`Groups`]: whether each sleeps, the threads (to
/// wake them), and the flag that stops them all.
struct Helpers {
    /// Set when the work is done (or a thread panicked): the helpers return.
    stop: AtomicBool,
    sleeping: Vec<AtomicBool>,
    threads: Vec<OnceLock<std::thread::Thread>>,
}

impl Helpers {
    fn new(helpers: usize) -> Helpers {
        Helpers {
            stop: AtomicBool::new(false),
            sleeping: (0..helpers).map(|_| AtomicBool::new(false)).collect(),
            threads: (0..helpers).map(|_| OnceLock::new()).collect(),
        }
    }

    fn len(&self) -> usize {
        self.threads.len()
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Runs helper `h`'s work `f` on a thread of scope `s`; the helpers all stop when it
    /// returns or panics.
    fn spawn<'s, 'e: 's>(
        &'e self,
        s: &'s std::thread::Scope<'s, 'e>,
        h: usize,
        f: impl FnOnce() + Send + 's,
    ) {
        s.spawn(move || {
            let _ = self.threads[h].set(std::thread::current());
            let _stop = StopOnDrop(self);
            f();
        });
    }

    /// Wakes helper `h` if it sleeps.
    fn wake(&self, h: usize) {
        if self.sleeping[h].swap(false, Ordering::SeqCst) {
            if let Some(t) = self.threads[h].get() {
                t.unpark();
            }
        }
    }

    /// Helper `h` waits until `fresh` gives a value and returns it: spins for [`SPIN_FOR`],
    /// then sleeps until woken ([`Helpers::wake`]). None once the helpers stop.
    fn wait<T>(&self, h: usize, fresh: impl Fn() -> Option<T>) -> Option<T> {
        let sleeping = &self.sleeping[h];
        let started = Instant::now();
        let mut spins = 0u32;
        while fresh().is_none() {
            spins += 1;
            if spins.is_multiple_of(64) && (started.elapsed() > SPIN_FOR || self.stopped()) {
                break;
            }
            std::hint::spin_loop();
        }
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return None;
            }
            if let Some(v) = fresh() {
                return Some(v);
            }
            sleeping.store(true, Ordering::SeqCst);
            if self.stop.load(Ordering::SeqCst) {
                sleeping.store(false, Ordering::Relaxed);
                continue;
            }
            if let Some(v) = fresh() {
                sleeping.store(false, Ordering::Relaxed);
                return Some(v);
            }
            // The timeout only guards against a lost wake-up.
            std::thread::park_timeout(Duration::from_millis(1));
        }
    }
}

/// Stops the helpers when dropped (also when a thread panics), waking every one.
struct StopOnDrop<'h>(&'h Helpers);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
        for t in self.0.threads.iter().filter_map(|t| t.get()) {
            t.unpark();
        }
    }
}

/// Heaps whose answers [`Groups`] keeps at once (heap x in entry x % `RING`): more than can
/// be under way (the heaps from the next to settle up to [`Groups::ahead`] past it), so that
/// only a heap the main thread took back from a late helper can come back to an entry after
/// it was reused (and is then dropped).
const RING: usize = 64;

/// An answer of [`Groups`], in cache lines of its own.
#[repr(align(128))]
struct Answer {
    /// 1 + the heap whose answer `slot` holds (0: none): read without the lock.
    heap: AtomicUsize,
    /// The answer, the cells it saw (those below the second) and whether a helper computed
    /// it.
    slot: Mutex<Option<(HeapAnswer, usize, bool)>>,
}

/// The threads that compute the heaps of the dense path several at once: heap x may start
/// once the heaps below x − j are settled, j the fewest tokens a split rule removes (the
/// split options of heap x are heaps below x − j). Each thread claims the next heap that
/// may start (a shared counter) and computes it from the cells settled then; the main
/// thread settles the heaps in order from their answers, computing the next heaps itself
/// while the one to settle is a helper's. A helper sees only the heaps settled when it
/// claimed its heap: the options of that heap that leave one heap of those or more come
/// after ([`HeapAnswer::without`]). The main thread never waits long: a heap not done
/// within about four times the main thread's own heaps is computed by the main thread
/// itself (a helper's late answer is then dropped). Heaps that are samples of the sparse
/// path are the main thread's, when every heap below them is settled.
pub(super) struct Groups<'a> {
    cells: &'a SharedCells,
    rules: &'a SplitRules,
    isa: Option<WindowIsa>,
    /// Heap x may start once the heaps below x − `ahead` are settled: the fewest tokens a
    /// split rule removes, at most [`RING`] − 1.
    ahead: usize,
    /// Whether one heap in [`SAMPLE_EVERY`] is a sample of the sparse path.
    sampling: bool,
    /// Heaps below are settled (their cells written).
    settled: AtomicUsize,
    /// The next heap to claim.
    next: AtomicUsize,
    /// Heaps from here on are not claimed.
    end: AtomicUsize,
    /// The prefix and the bound of the options for the heaps claimed now.
    prefix: AtomicUsize,
    limit: AtomicUsize,
    answers: Vec<Answer>,
    helpers: Helpers,
}

impl<'a> Groups<'a> {
    fn new(
        cells: &'a SharedCells,
        rules: &'a SplitRules,
        isa: Option<WindowIsa>,
        helpers: usize,
        (least, from, to, sampling): (usize, usize, usize, bool),
    ) -> Self {
        Groups {
            cells,
            rules,
            isa,
            ahead: least.min(RING - 1),
            sampling,
            settled: AtomicUsize::new(from),
            next: AtomicUsize::new(from),
            end: AtomicUsize::new(to),
            prefix: AtomicUsize::new(PREFIX),
            limit: AtomicUsize::new(0),
            answers: (0..RING)
                .map(|_| Answer {
                    heap: AtomicUsize::new(0),
                    slot: Mutex::new(None),
                })
                .collect(),
            helpers: Helpers::new(helpers),
        }
    }

    /// Whether heap `x` is a sample of the sparse path (the main thread's).
    fn is_sample(&self, x: usize) -> bool {
        self.sampling && x.is_multiple_of(SAMPLE_EVERY)
    }

    /// Whether a heap may be claimed now.
    fn claimable(&self) -> bool {
        let x = self.next.load(Ordering::Acquire);
        x < self.end.load(Ordering::Acquire) && x <= self.settled.load(Ordering::Acquire) + self.ahead
    }

    /// Claims the next heap that may start: (the heap, the heaps settled below it then).
    fn claim(&self) -> Option<(usize, usize)> {
        loop {
            let x = self.next.load(Ordering::Acquire);
            let settled = self.settled.load(Ordering::Acquire);
            if x >= self.end.load(Ordering::Acquire) || x > settled + self.ahead {
                return None;
            }
            if self
                .next
                .compare_exchange(x, x + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some((x, settled));
            }
        }
    }

    /// Heap `x` from the cells below `first`, with the prefix and bound published now.
    fn compute(&self, seen: &mut [u8], x: usize, first: usize) -> HeapAnswer {
        let job = HeapJob {
            rules: self.rules,
            isa: self.isa,
            prefix: self.prefix.load(Ordering::Acquire),
            limit: self.limit.load(Ordering::Acquire),
            share_from: usize::MAX,
        };
        dense_heap(&job, seen, self.cells.settled_mirrored(first), x, None)
    }

    /// Keeps the answer of heap `x` from the cells below `first`, computed by a helper when
    /// `helped` (unless its entry holds a later heap's already: a late helper's answer to a
    /// heap the main thread took back).
    fn store(&self, x: usize, answer: HeapAnswer, first: usize, helped: bool) {
        let entry = &self.answers[x % RING];
        let mut slot = entry.slot.lock().unwrap_or_else(|e| e.into_inner());
        if entry.heap.load(Ordering::Acquire) <= x {
            *slot = Some((answer, first, helped));
            entry.heap.store(x + 1, Ordering::Release);
        }
    }

    /// The answer of heap `x`, when it is in.
    fn take(&self, x: usize) -> Option<(HeapAnswer, usize, bool)> {
        let entry = &self.answers[x % RING];
        if entry.heap.load(Ordering::Acquire) != x + 1 {
            return None;
        }
        let mut slot = entry.slot.lock().unwrap_or_else(|e| e.into_inner());
        if entry.heap.load(Ordering::Acquire) == x + 1 {
            slot.take()
        } else {
            None
        }
    }

    /// Helper `h`: claims and computes heaps until the groups stop.
    fn help(&self, h: usize) {
        let mut seen = vec![0u8; 1 << 16];
        while self.helpers.wait(h, || self.claimable().then_some(())).is_some() {
            while let Some((x, first)) = self.claim() {
                if !self.is_sample(x) {
                    let answer = self.compute(&mut seen, x, first);
                    self.store(x, answer, first, true);
                }
            }
        }
    }

    /// The heaps from `settled` on may be claimed (the cells below are written), with this
    /// prefix and bound; wakes the helpers that sleep.
    fn publish(&self, settled: usize, prefix: usize, limit: usize) {
        self.prefix.store(prefix, Ordering::Release);
        self.limit.store(limit, Ordering::Release);
        self.settled.store(settled, Ordering::Release);
        for h in 0..self.helpers.len() {
            self.helpers.wake(h);
        }
    }
}

impl Sparse {
    /// Computes the heaps `from..to` on the dense path with up to `threads` heaps under way
    /// at once ([`Groups`]: every split rule must remove a token or more), as
    /// [`Sparse::compute`] would on one thread. Returns as [`Sparse::compute_dense_shared`].
    ///
    /// The threads need not keep in step: each claims the next heap that may start. (Groups
    /// computed in step, heaps n and n + 1 together and then the next two, lost a fifth of
    /// two threads' time to unequal heaps, a heap whose first window holds G(n) costing far
    /// less than one that needs three: 0.114 to 2^19 heaps, from the pairs each heap
    /// scanned, 2026-12-07.)
    pub(super) fn compute_dense_groups(
        &mut self,
        cells: &mut [u16],
        from: usize,
        to: usize,
        threads: usize,
    ) -> Result<usize, usize> {
        let rules = self.rules.clone();
        let Some(&least) = rules.leave_two.iter().min() else {
            return Ok(from);
        };
        // Heaps n..=n + least are independent in their split options.
        let size = threads.min(least + 1);
        if size < 2 {
            return Ok(from);
        }
        let isa = self.cpu.window();
        let mut mirror = std::mem::take(&mut self.mirror);
        let shared = self.share(cells, from, to, &mut mirror);
        let groups = Groups::new(
            &shared,
            &rules,
            isa,
            size - 1,
            (least, from, to, self.dense_rule.is_none()),
        );
        groups.publish(from, self.prefix_now(), limit_of(self.max_value));
        // The main thread's option set for the dense path (the sampled heaps use the
        // engine's own).
        let mut seen = vec![0u8; 1 << 16];
        let reached = std::thread::scope(|s| {
            for h in 0..groups.helpers.len() {
                let groups = &groups;
                groups.helpers.spawn(s, h, move || groups.help(h));
            }
            let _stop = StopOnDrop(&groups.helpers);
            // About how long the main thread's own heaps take (how long it waits for a
            // helper's heap before it computes that heap itself).
            let own_time = std::cell::Cell::new(Duration::from_micros(20));
            let own = |seen: &mut [u8], x: usize, first: usize| {
                let started = Instant::now();
                let answer = groups.compute(seen, x, first);
                own_time.set((own_time.get() * 7 + started.elapsed()) / 8);
                answer
            };
            let mut late = Vec::with_capacity(rules.leave_one.len());
            // Tests: a wait of a minute or more leaves every heap but the samples to the
            // helpers.
            let leave_to_helpers = self.dense_wait.is_some_and(|w| w >= Duration::from_secs(60));
            let mut m = from;
            let outcome = loop {
                if m >= to || !self.dense || self.max_value >= 1 << 15 {
                    break Ok(m);
                }
                // Heap m's answer, the cells it saw (those below the second) and whether a
                // helper computed it, or None for a sample of the sparse path.
                let mut found = if !groups.is_sample(m) {
                    let mut waited: Option<(Instant, Duration)> = None;
                    loop {
                        if let Some((answer, first, helped)) = groups.take(m) {
                            break Some(((answer, first), helped));
                        }
                        // Heap m itself when no helper claimed it, else (a helper's heap)
                        // the next heaps that may start, meanwhile.
                        if let Some((x, first)) = (!leave_to_helpers).then(|| groups.claim()).flatten() {
                            if groups.is_sample(x) {
                                continue;
                            }
                            let answer = own(&mut seen, x, first);
                            if x == m {
                                break Some(((answer, first), false));
                            }
                            groups.store(x, answer, first, false);
                            continue;
                        }
                        let (since, wait) = *waited.get_or_insert_with(|| {
                            let typical = own_time.get() * 4 + Duration::from_micros(2);
                            (Instant::now(), self.dense_wait.unwrap_or(typical))
                        });
                        if (since.elapsed() >= wait && !leave_to_helpers) || groups.helpers.stopped() {
                            // Late: the main thread's (the helper's answer is dropped).
                            break Some(((own(&mut seen, m, m), m), false));
                        }
                        std::hint::spin_loop();
                    }
                } else {
                    // A sample: claimed here unless a helper claimed (and skipped) it.
                    let _ = groups
                        .next
                        .compare_exchange(m, m + 1, Ordering::AcqRel, Ordering::Acquire);
                    None
                };
                let value = match &found {
                    None => {
                        let g = self.value_of(shared.settled(m), m);
                        if g > u16::MAX as usize || g > Rare::MAX_VALUE {
                            break Err(m);
                        }
                        g
                    }
                    Some(((answer, first), helped)) => {
                        // The options the heap's thread did not see: heaps of `first` and
                        // more left by a move that leaves one heap.
                        late.clear();
                        let cells_now = shared.settled(m);
                        late.extend(
                            rules
                                .leave_one
                                .iter()
                                .filter(|&&k| k < m && m - k >= *first)
                                .map(|&k| cells_now[m - k] as usize),
                        );
                        match answer.without(&late) {
                            Some(value) => {
                                if *helped {
                                    self.grouped_heaps += 1;
                                }
                                value
                            }
                            None => {
                                let again = own(&mut seen, m, m);
                                let value = again.value;
                                found = Some(((again, m), false));
                                value
                            }
                        }
                    }
                };
                shared.write(m, value as u16);
                self.note(m, value);
                if let Some(((answer, _), _)) = &found {
                    self.count_dense(answer);
                }
                m += 1;
                self.after_settled(shared.settled(m));
                groups.publish(m, self.prefix_now(), limit_of(self.max_value));
            };
            // No heap is claimed from now on (those under way are dropped).
            groups.end.store(0, Ordering::Release);
            outcome
        });
        self.take_back(mirror, reached);
        reached
    }

    /// Computes the heaps `from..to` on the dense path with a [`Team`] of `threads` threads
    /// (the main thread and `threads − 1` helpers), as [`Sparse::compute`] would on one.
    /// Returns how far it got: `Ok(n)` when every heap below n is settled (n < `to` when a
    /// rebuild left the dense path or values reached 2^15: the rest is for
    /// [`Sparse::compute`]), `Err(n)` when G(n) does not fit in 16 bits.
    pub(super) fn compute_dense_shared(
        &mut self,
        cells: &mut [u16],
        from: usize,
        to: usize,
        threads: usize,
    ) -> Result<usize, usize> {
        let mut mirror = std::mem::take(&mut self.mirror);
        let shared = self.share(cells, from, to, &mut mirror);
        let team = Team::new(&shared, threads.max(2) - 1, self.dense_wait, self.dense_piece);
        let reached = std::thread::scope(|s| {
            for h in 0..team.helpers.len() {
                let team = &team;
                team.helpers.spawn(s, h, move || team.help(h));
            }
            let _stop = StopOnDrop(&team.helpers);
            let mut n = from;
            while n < to && self.dense && self.max_value < 1 << 15 {
                let g = if !n.is_multiple_of(SAMPLE_EVERY) || self.dense_rule.is_some() {
                    self.dense_value(shared.settled_mirrored(n), n, Some(&team))
                } else {
                    // The sample of the sparse path, as on one thread.
                    let g = self.value_of(shared.settled(n), n);
                    if g > u16::MAX as usize || g > Rare::MAX_VALUE {
                        return Err(n);
                    }
                    g
                };
                shared.write(n, g as u16);
                self.note(n, g);
                n += 1;
                self.after_settled(shared.settled(n));
            }
            Ok(n)
        });
        self.take_back(mirror, reached);
        reached
    }

    /// Whether the dense path's windows are AVX2's: then it keeps a [`Mirror`] of the
    /// cells, and measures what the windows cost against marking ([`SCANS_PER_MARK`]).
    pub(super) fn avx2_windows(&self) -> bool {
        matches!(self.cpu.window(), Some(WindowIsa::Avx2(_)))
    }

    /// The cells `..to` to share among the threads of the dense path, `..from` settled, with
    /// `mirror` (taken out of the engine, [`Sparse::take_back`] after) lent to them when
    /// the dense path keeps one.
    fn share(&self, cells: &mut [u16], from: usize, to: usize, mirror: &mut Mirror) -> SharedCells {
        if !self.avx2_windows() {
            return SharedCells::new(cells, to);
        }
        mirror.sync(&cells[..from], to.min(cells.len()));
        SharedCells::new(cells, to).with_mirror(mirror)
    }

    /// Puts back the mirror lent by [`Sparse::share`] once the threads are done, `reached` the
    /// heap they got to (the cells below are written, through the mirror too).
    fn take_back(&mut self, mut mirror: Mirror, reached: Result<usize, usize>) {
        if self.avx2_windows() {
            mirror.written_to(reached.unwrap_or_else(|n| n));
        }
        self.mirror = mirror;
    }
}

#[cfg(test)]
mod mirror_tests {
    use super::{Mirror, SharedCells};
    use proptest::prelude::*;

    proptest! {
        /// The mirror holds the cells in reverse order whatever the order of its syncs and
        /// growths (from 4096 cells on), and cells written through [`SharedCells`] lent it.
        #[test]
        fn the_mirror_is_the_cells_reversed(
            mut cells in proptest::collection::vec(any::<u16>(), 0..12_000),
            cuts in proptest::collection::vec((0usize..12_000, any::<bool>()), 1..6),
        ) {
            let mut mirror = Mirror::default();
            let mut cuts: Vec<(usize, bool)> = cuts.into_iter().map(|(k, s)| (k % (cells.len() + 1), s)).collect();
            cuts.sort_unstable();
            let mut done = 0;
            for (k, shared) in cuts {
                if shared && k > done {
                    // Cells done..k written by the threads' path, the mirror lent.
                    let written: Vec<u16> = cells[done..k].to_vec();
                    mirror.sync(&cells[..done], k);
                    {
                        let sh = SharedCells::new(&mut cells, k).with_mirror(&mut mirror);
                        for (j, &v) in written.iter().enumerate() {
                            sh.write(done + j, v);
                        }
                        let view = sh.settled_mirrored(k);
                        prop_assert!(view.rev.iter().eq(cells_rev(view.cells).iter()));
                    }
                    mirror.written_to(k);
                }
                done = done.max(k);
                let view = mirror.settled(&cells[..k], true);
                prop_assert_eq!(view.rev.len(), k);
                prop_assert!(view.rev.iter().eq(cells[..k].iter().rev()));
            }
        }
    }

    fn cells_rev(cells: &[u16]) -> Vec<u16> {
        cells.iter().rev().copied().collect()
    }
}
