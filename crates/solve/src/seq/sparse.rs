//! The rare/common ("sparse space") method for take-and-break games that leave at most two
//! heaps. Values are split into a common set C, chosen so that no XOR of two members of C is
//! in C, and the rare rest R; positions whose value is rare are listed.
//!
//! For heap n, the options that involve a rare heap are few and are all computed; their mex
//! (with the taking options) is a candidate. If the candidate is common, no pair of common
//! heaps can produce it (C is XOR-free), so it is G(n). Otherwise every pair is scanned,
//! stopping as soon as the mex becomes common. The split is rebuilt from the value counts
//! (most frequent first) as the sequence grows, so it adapts to the game.
//!
//! The split may also depend on the heap (see [`Split`]): in some games (0.106, 0.104,
//! 0.324, 0.142) a value is common on even heaps and rare on odd ones, or the other way
//! round, so that any fixed split leaves about half the heaps rare. There the common values
//! at heap n are those v with parity(v & mask) = α ⊕ (n mod 2), for a mask found from the
//! value counts (a Walsh–Hadamard transform), α = 1 − (k mod 2) for the counts k of the
//! splitting moves, which must all have the same parity. Then a pair of heaps (a, b) common
//! at a and b, with a + b = n − k, has parity(G(a) ^ G(b) & mask) = (a + b) mod 2 = (n − k)
//! mod 2 ≠ α ⊕ (n mod 2): its value is never common at n, which is all the method needs.

use super::simd::{self, Avx2, Cpu};
use super::store::Cell;

#[path = "dense.rs"]
mod dense;
#[path = "pipeline.rs"]
mod pipeline;
#[path = "targeted.rs"]
mod targeted;
use grundy_core::heap::{counts_with, Digit, LEAVE_ONE, LEAVE_TWO, TAKE_ALL};

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
    pub fn new(digits: &[Digit], unequal: bool) -> SplitRules {
        let with = |bit: Digit| counts_with(digits, bit);
        SplitRules {
            take_all: with(TAKE_ALL),
            leave_one: with(LEAVE_ONE).into_iter().filter(|&k| k >= 1).collect(),
            leave_two: with(LEAVE_TWO),
            unequal,
        }
    }
}

/// A heap with a rare value and its value, packed in 64 bits: the heap in the high
/// [`Rare::HEAP_BITS`] bits, the value in the low [`Rare::VALUE_BITS`] (one load per entry
/// in the rare passes, as the 32-bit pairs were, with heaps past 2^32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rare(u64);

impl Rare {
    /// Bits of the value.
    pub(crate) const VALUE_BITS: u32 = 24;
    /// Bits of the heap: heaps below 2^40 (see [`crate::seq::MAX_COUNT`]).
    pub(crate) const HEAP_BITS: u32 = 64 - Rare::VALUE_BITS;
    /// The largest value the rare/common method stores (its option sets would take
    /// 2^24 bytes per heap well before).
    pub(crate) const MAX_VALUE: usize = (1 << Rare::VALUE_BITS) - 1;

    /// Heap `heap` with value `value` (below 2^40 and 2^24).
    #[inline(always)]
    pub(crate) fn new(heap: usize, value: usize) -> Rare {
        debug_assert!((heap as u64) >> Rare::HEAP_BITS == 0 && value <= Rare::MAX_VALUE);
        Rare(((heap as u64) << Rare::VALUE_BITS) | value as u64)
    }

    /// The heap.
    #[inline(always)]
    pub(crate) fn heap(self) -> usize {
        (self.0 >> Rare::VALUE_BITS) as usize
    }

    /// Its value.
    #[inline(always)]
    pub(crate) fn value(self) -> usize {
        (self.0 & Rare::MAX_VALUE as u64) as usize
    }

    /// The entry as 64 bits (to share between threads).
    #[inline(always)]
    pub(crate) fn bits(self) -> u64 {
        self.0
    }

    /// The entry of [`Rare::bits`].
    #[inline(always)]
    pub(crate) fn from_bits(bits: u64) -> Rare {
        Rare(bits)
    }
}

/// A growable bitset over values.
#[derive(Clone, Debug, Default)]
pub(super) struct Bits(pub(super) Vec<u64>);

impl Bits {
    #[inline(always)]
    pub(super) fn has(&self, v: usize) -> bool {
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

/// How values are split into common and rare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The same split on every heap: a set C of common values with no XOR of two members
    /// in C, chosen greedily from the most frequent values.
    Free,
    /// Depending on the heap's parity: v is common at heap n when parity(v & `mask`) =
    /// `alpha` ⊕ (n mod 2) (see the module documentation).
    HeapParity {
        /// The bits of the value whose parity decides.
        mask: usize,
        /// The parity of common values on even heaps.
        alpha: usize,
    },
}

/// The state of the rare/common method, rebuilt from the values alone (so a resumed run
/// continues exactly where it stopped).
#[derive(Clone, Debug)]
pub struct Sparse {
    rules: SplitRules,
    /// The split in use.
    split: Split,
    /// Common values at heaps of each side ([`Sparse::side`]: always 0 with a free split,
    /// the heap's parity with a heap-parity split).
    common: [Bits; 2],
    classified: [Bits; 2],
    common_list: Vec<usize>,
    /// Value counts on even and on odd heaps.
    counts: [Vec<u64>; 2],
    /// Heaps with a rare value, in order, with their value.
    rare: Vec<Rare>,
    /// The option values of the heap being computed: `seen[v] != 0` when v is an option.
    /// Bytes rather than bits: marking is a plain store, with no read to wait for.
    seen: Vec<u8>,
    /// The cells again in reverse order, for the dense path's AVX2 windows (empty without
    /// them).
    mirror: dense::Mirror,
    max_value: usize,
    next_rebuild: usize,
    rare_at_rebuild: usize,
    /// Heaps whose value needed a scan of the pairs (statistics).
    pub full_scans: u64,
    /// Pairs looked at by those scans (statistics).
    pub scanned_pairs: u64,
    /// Pairs with a rare heap looked at (statistics).
    pub rare_pairs: u64,
    /// Heaps whose scan looked for its targets only (statistics, see `seq/targeted.rs`).
    pub targeted_scans: u64,
    /// Pairs those scans looked at (part of `scanned_pairs`, but some 5 times cheaper each
    /// than a marked pair: left out of the dense rule's measure).
    pub targeted_pairs: u64,
    /// Heaps computed on the dense path (statistics, see `seq/dense.rs`).
    pub dense_heaps: u64,
    /// Pairs the dense path marked or scanned (statistics).
    pub dense_pairs: u64,
    /// Targeted scans of the dense path shared among several threads (statistics, see
    /// `seq/dense.rs`).
    pub shared_scans: u64,
    /// Heaps of the dense path computed by a helper thread while the main thread computed
    /// another (statistics, see `seq/dense.rs`).
    pub grouped_heaps: u64,
    /// Pairs of a targeted scan from which the dense path shares it among its threads
    /// ([`dense::SHARE_FROM`]; tests make it small).
    dense_share_from: usize,
    /// The fewest pairs of a piece of a shared scan ([`dense::MIN_PIECE`]; tests make it
    /// small).
    dense_piece: usize,
    /// Whether the dense path on several threads computes heaps in groups where the rules
    /// allow (see `seq/dense.rs`; tests turn it off to test the shared scans).
    dense_groups: bool,
    /// How long the dense path's main thread waits for a helper's piece (or heap of a
    /// group) before doing it itself (None: about 1.5 times its own piece, 4 times its own
    /// heaps; tests set 0 and hours).
    dense_wait: Option<std::time::Duration>,
    /// The thread counts of the dense path, measured apart from the pipeline's.
    dense_tuner: Tuner,
    /// Windows of targets of the dense path that were all witnessed, so that the pairs were
    /// scanned again for the next window (statistics, see `seq/dense.rs`).
    pub window_rescans: u64,
    /// Whether heaps are computed on the dense path (chosen by the dense rule every eighth
    /// of the heaps so far, see `seq/dense.rs`).
    dense: bool,
    /// Heaps when the dense rule was last applied.
    len_at_rule: usize,
    /// Heaps computed on the sparse path, and the pairs they looked at (rare pairs and
    /// scanned pairs), when the dense rule was last applied: its measure.
    sparse_at_rule: (u64, u64),
    /// Heaps at which the dense rule is applied next ([`dense::rule_after`]).
    next_rule: usize,
    /// Heaps computed on the sparse path (on the dense path, one heap in
    /// [`dense::SAMPLE_EVERY`], to measure what the sparse path would cost).
    sparse_heaps: u64,
    /// Whether the prefix of the dense path is fixed (tests) rather than adapted.
    prefix_fixed: bool,
    /// Heaps of the dense path in a row that needed no second window (see
    /// `seq/dense.rs`: the prefix shrinks after [`dense::SHRINK_AFTER`] of them).
    prefix_quiet: usize,
    /// The dense path always (`Some(true)`), never (`Some(false)`) or by the rule (`None`,
    /// the default; tests force it).
    dense_rule: Option<bool>,
    /// Pairs of each split rule the dense path marks before its targeted scan
    /// ([`dense::PREFIX`]; tests make it small).
    pub(crate) dense_prefix: usize,
    /// With AVX2's windows: the pairs the dense path's heaps with windows scanned over the
    /// pairs they have (a running mean; past what marking every pair costs, the dense path
    /// marks every pair, see `seq/dense.rs`).
    window_cost: f64,
    /// Batches of the pipeline that the main thread marked itself, their helper being late
    /// (statistics, see `seq/pipeline.rs`).
    pub taken_batches: u64,
    /// How long the pipeline's main thread waits for a helper's batch before it marks the
    /// batch itself ([`pipeline::TAKE_AFTER`]; tests set it to 0 and to hours).
    pub(crate) take_after: std::time::Duration,
    tuner: Tuner,
    /// Option sets of the 8 heaps of a batch (allocated on first use).
    batch: Option<Marks>,
    /// How the pipeline shares the work (adapted to keep every thread busy): b ≥ 0, the
    /// helpers mark the whole rare pass and b pairs of common heaps of each heap's scan;
    /// b < 0, they leave the last −b rare heaps of their pass to the main thread.
    pub(crate) balance: isize,
    /// The batches handed between the threads of the pipeline, kept between chunks.
    pool: Vec<pipeline::Packed>,
    /// The helper threads' option sets, kept between chunks.
    helper_marks: Vec<Marks>,
    /// The SIMD instructions the kernels may use: what the CPU has ([`Cpu::detect`]), or
    /// none ([`Sparse::portable_only`]).
    cpu: Cpu,
}

/// The option sets of a batch of 8 heaps and what is marked in them before each heap is
/// finished.
#[derive(Clone, Debug)]
struct Marks {
    /// The batch's first heap.
    n0: usize,
    /// The 8 option sets of 2^16 bytes, [`STRIDE`] bytes apart: see [`Marks::seens`].
    buf: Vec<u8>,
    /// Bytes of each option set that are clean (zero or marked for this batch).
    cleared: usize,
    /// Per split rule: rare heaps a with `lo ≤ a < hi` (outside the unequal window) are
    /// marked, `(lo, hi)`.
    rare: Vec<(usize, usize)>,
    /// The rare pass as `(m0, from, to)` (see [`rare_pass`]).
    pass: Vec<(usize, usize, usize)>,
    /// `rare` as places in the rare list (see [`Sparse::index_bounds`]), set by the rare
    /// pass (and again by the main thread of the two-thread pipeline).
    bounds: Vec<[usize; 4]>,
    /// Per heap of the batch, for the first split rule: the pairs (a, m − a) with
    /// `p0 ≤ a < p1` are marked, `(p0, p1)`.
    pairs: [(usize, usize); BATCH],
}

/// Bytes between the starts of a batch's option sets: 2^16 and 9 cache lines more, so the
/// sets' first bytes (where small values are marked) fall in different sets of the L1
/// cache instead of all in the same ones (2^16 apart, the 8 sets would compete for the
/// same cache lines).
const STRIDE: usize = (1 << 16) + 9 * 64;

impl Marks {
    /// The option sets of the 8 heaps.
    #[inline(always)]
    fn seens(&mut self) -> [&mut [u8; 1 << 16]; BATCH] {
        let mut chunks = self.buf.chunks_exact_mut(STRIDE);
        std::array::from_fn(|_| {
            match chunks
                .next()
                .map(|c| <&mut [u8; 1 << 16]>::try_from(&mut c[..1 << 16]))
            {
                Some(Ok(s)) => s,
                _ => unreachable!("the buffer holds {BATCH} strides"),
            }
        })
    }

    /// The option set of heap j.
    #[inline(always)]
    fn seen(&mut self, j: usize) -> &mut [u8; 1 << 16] {
        match <&mut [u8; 1 << 16]>::try_from(&mut self.buf[j * STRIDE..j * STRIDE + (1 << 16)]) {
            Ok(s) => s,
            Err(_) => unreachable!("a slice of 2^16 bytes"),
        }
    }

    fn new() -> Marks {
        Marks {
            n0: 0,
            buf: vec![0; BATCH * STRIDE],
            cleared: 0,
            rare: Vec::new(),
            pass: Vec::new(),
            bounds: Vec::new(),
            pairs: [(0, 0); BATCH],
        }
    }

    /// Clears the option sets up to `limit` bytes for the batch from `n0`.
    fn reset(&mut self, n0: usize, limit: usize) {
        self.n0 = n0;
        for s in self.seens() {
            s[..limit].fill(0);
        }
        self.cleared = limit;
        self.rare.clear();
        self.pairs = [(0, 0); BATCH];
    }

    /// Clears what a larger limit adds (values grew since the batch was started).
    fn grow(&mut self, limit: usize) {
        if limit > self.cleared {
            let cleared = self.cleared;
            for s in self.seens() {
                s[cleared..limit].fill(0);
            }
            self.cleared = limit;
        }
    }
}

/// Marks, for each of the 8 heaps n0 + j, the pairs (a, n0 + j − k − a) of the rare heaps
/// a in `rare` whose other heaps are all in `settled` (see [`rare_pass`]), but the last
/// `leave` of each split rule (games without the unequal rule). Records the range of a per
/// split rule in `marks.rare`; returns the pairs marked.
#[inline(always)]
fn mark_rare<T: Cell>(
    rules: &SplitRules,
    rare: &[Rare],
    settled: &[T],
    marks: &mut Marks,
    leave: usize,
) -> u64 {
    let mut ranges = std::mem::take(&mut marks.rare);
    let n0 = marks.n0;
    let mut pass = std::mem::take(&mut marks.pass);
    let mut bounds = std::mem::take(&mut marks.bounds);
    rare_pass(
        rules,
        rare,
        settled.len(),
        n0,
        leave,
        &mut ranges,
        &mut bounds,
        &mut pass,
    );
    let mut seens = marks.seens();
    let mut pairs = 0;
    for &(m0, from, to) in &pass {
        pairs += (BATCH * (to - from)) as u64;
        for &r in &rare[from..to] {
            let base = m0 - r.heap();
            if let Some(w) = settled.get(base..base + BATCH) {
                let ga = r.value();
                for (seen, x) in seens.iter_mut().zip(w) {
                    seen[(ga ^ x.get()) & 0xFFFF] = 1;
                }
            }
        }
    }
    marks.rare = ranges;
    marks.bounds = bounds;
    marks.pass = pass;
    pairs
}

/// The rare pass of the batch from `n0`, `s` heaps being settled: for each split rule k
/// (m0 = n0 − k), the rare heaps a at places `from..to` of the rare list whose pairs
/// (a, m0 + j − a) of all 8 heaps j can be marked at once: a ≥ 8, a ≥ m0 + 8 − s (the other
/// heaps settled), a < m0 and a < s, outside the window where unequal splits would pair a
/// with itself; without that window, all but the last `leave` such heaps. Pushes the range
/// of a per rule to `ranges_out`, its places in `rare` to `bounds_out` (as
/// [`Sparse::index_bounds`] finds them), and `(m0, from, to)` to `out`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn rare_pass(
    rules: &SplitRules,
    rare: &[Rare],
    s: usize,
    n0: usize,
    leave: usize,
    ranges_out: &mut Vec<(usize, usize)>,
    bounds_out: &mut Vec<[usize; 4]>,
    out: &mut Vec<(usize, usize, usize)>,
) {
    out.clear();
    bounds_out.clear();
    for &k in &rules.leave_two {
        let m0 = n0 - k;
        let lo = BATCH.max((m0 + BATCH).saturating_sub(s));
        let hi = m0.min(s).max(lo);
        let idx = |x: usize| rare_below(rare, x);
        let (ilo, ihi) = (idx(lo), idx(hi));
        if rules.unequal {
            ranges_out.push((lo, hi));
            let (w0, w1) = (idx(m0.div_ceil(2)), idx((m0 + BATCH - 1) / 2 + 1));
            out.push((m0, ilo, w0.clamp(ilo, ihi)));
            out.push((m0, w1.clamp(ilo, ihi), ihi));
            bounds_out.push([ilo, ihi, w0, w1]);
        } else {
            // The heaps from the first one left on are outside the range.
            let kept = ihi.saturating_sub(leave).max(ilo);
            let hi = if kept < ihi { rare[kept].heap() } else { hi };
            ranges_out.push((lo, hi));
            out.push((m0, ilo, kept));
            bounds_out.push([ilo, kept, 0, 0]);
        }
    }
}

/// How many rare heaps are below `x`. Mostly all of them (the scans ask for heaps near the
/// one computed, the rare heaps are mostly small): that is checked first, before a binary
/// search whose steps each wait for a load.
#[inline(always)]
fn rare_below(rare: &[Rare], x: usize) -> usize {
    match rare.last() {
        Some(&r) if r.heap() < x => rare.len(),
        // Small x (the rare pass of a batch asks for the heaps below 8, at most 7 of them):
        // the first few, side by side.
        _ => match rare.iter().take(8).position(|&r| r.heap() >= x) {
            Some(i) => i,
            None => {
                let k = rare.len().min(8);
                k + rare[k..].partition_point(|&r| r.heap() < x)
            }
        },
    }
}

/// How long the pipeline's main thread waits for a late helper by default (see
/// `seq/pipeline.rs`).
#[cfg(test)]
pub(crate) const TAKE_AFTER_DEFAULT: std::time::Duration = pipeline::TAKE_AFTER;

/// Heaps computed together by one pass over the rare list.
const BATCH: usize = 8;

/// Bytes of an option set in use when the largest value is `max` (2^bits(max) + 1, at
/// most 2^16).
fn limit_of(max: usize) -> usize {
    let bits = usize::BITS - max.leading_zeros();
    ((1usize << bits) + 1).min(1 << 16)
}

/// The fewest heaps of a try of the pipeline's [`Tuner`]. A chunk of fewer than half as many
/// is not timed: the pipeline's start and end weigh on a short chunk (cut short by a rebuild
/// or by the caller), and a single slow one used to turn the pipeline off for many chunks.
const MIN_TRY: usize = 4096;

/// Chooses how many threads to use by measured speed (heaps per second): one, two, or all
/// that were asked for.
#[derive(Clone, Debug)]
struct Tuner {
    /// The thread counts to choose among, fewest first (1, then 2, then the most asked for),
    /// and the last measured speed of each.
    choices: Vec<usize>,
    rate: Vec<Option<f64>>,
    /// When a slower way is tried again, and the current wait between tries (doubling
    /// while the slower ways stay slower, up to [`MAX_TRY_EVERY`]: on a busy machine,
    /// threads that wait for each other can be slower, so tries must be rare; but the load
    /// changes, and a long run must notice when the cores are free again). Wall time, not
    /// chunks: chunks grow with the heaps.
    next_try: Option<std::time::Instant>,
    wait: std::time::Duration,
    /// The slower way tried last (the tries go round them).
    tried: usize,
    /// Always the most threads (for benchmarks and tests).
    forced: bool,
    /// The fewest heaps of a try; chunks of fewer than half as many are not timed
    /// ([`MIN_TRY`] for the pipeline; the dense path's heaps are slow enough for shorter
    /// tries).
    min_heaps: usize,
}

impl Default for Tuner {
    fn default() -> Tuner {
        Tuner::with_tries_of(MIN_TRY)
    }
}

/// The first wait between two tries of a slower way ([`Tuner`]).
const MIN_TRY_EVERY: std::time::Duration = std::time::Duration::from_millis(100);
/// The longest wait between two tries of a slower way ([`Tuner`]).
const MAX_TRY_EVERY: std::time::Duration = std::time::Duration::from_secs(2);
/// How long a try of a slower way runs, about (a few of the scheduler's time slices: shorter
/// tries measure the machine's load more than the way).
const TRY_FOR: std::time::Duration = std::time::Duration::from_millis(20);

impl Tuner {
    /// A tuner whose tries run `min_heaps` heaps or more.
    fn with_tries_of(min_heaps: usize) -> Tuner {
        Tuner {
            choices: Vec::new(),
            rate: Vec::new(),
            next_try: None,
            wait: std::time::Duration::ZERO,
            tried: 0,
            forced: false,
            min_heaps,
        }
    }

    /// Makes the choices those for up to `threads` threads (a new count forgets the speeds).
    fn up_to(&mut self, threads: usize) {
        let mut choices = vec![1, 2.min(threads), threads];
        choices.dedup();
        if choices != self.choices {
            self.rate = vec![None; choices.len()];
            self.choices = choices;
        }
    }

    /// The fastest way measured (an index of `choices`), when every way is measured.
    fn best(&self) -> Option<usize> {
        let rates: Vec<f64> = self.rate.iter().copied().collect::<Option<_>>()?;
        // Ties go to more threads.
        let mut best = 0;
        for (i, &r) in rates.iter().enumerate() {
            if r >= rates[best] {
                best = i;
            }
        }
        Some(best)
    }

    /// The thread count for the next chunk.
    fn next_threads(&mut self) -> usize {
        let most = *self.choices.last().unwrap_or(&1);
        if self.forced {
            return most;
        }
        match self.rate.first().copied().flatten() {
            None => return 1,
            // Handing over a batch of 8 heaps costs a few tenths of a microsecond with the
            // waits: not worth it when one thread settles a heap in less than half a
            // microsecond.
            Some(one) if one > 2e6 => return 1,
            Some(_) => {}
        }
        if let Some(i) = self.rate.iter().position(|r| r.is_none()) {
            return self.choices[i];
        }
        let best = self.best().unwrap_or(0);
        let now = std::time::Instant::now();
        match self.next_try {
            Some(at) if now < at => self.choices[best],
            _ => {
                // Try a slower way once: the machine's load changes.
                self.wait = (self.wait * 2).clamp(MIN_TRY_EVERY, MAX_TRY_EVERY);
                self.next_try = Some(now + self.wait);
                self.tried = (self.tried + 1) % self.choices.len();
                if self.tried == best {
                    self.tried = (self.tried + 1) % self.choices.len();
                }
                self.choices[self.tried]
            }
        }
    }

    /// Heaps a try of a slower way runs: about [`TRY_FOR`] at the speed of one thread, and
    /// at least `min_heaps`.
    fn trial_heaps(&self) -> usize {
        let one = self.rate.first().copied().flatten().unwrap_or(0.0);
        ((one * TRY_FOR.as_secs_f64()) as usize).max(self.min_heaps)
    }

    /// True when `threads` is not the way known to be fastest (a trial: keep it short).
    fn trial(&self, threads: usize) -> bool {
        match self.best() {
            Some(b) => self.choices[b] != threads,
            None => !self.forced,
        }
    }

    fn record(&mut self, threads: usize, heaps: usize, took: std::time::Duration) {
        if heaps < self.min_heaps / 2 {
            return;
        }
        let Some(i) = self.choices.iter().position(|&c| c == threads) else {
            return;
        };
        let rate = heaps as f64 / took.as_secs_f64().max(1e-9);
        let before = self.best();
        self.rate[i] = Some(rate);
        // When another way turned out fastest, switch and try back soon.
        if let (Some(a), Some(b)) = (before, self.best()) {
            if a != b {
                self.wait = MIN_TRY_EVERY;
                self.next_try = Some(std::time::Instant::now() + MIN_TRY_EVERY);
            }
        }
    }
}

impl Sparse {
    /// A fresh state for `rules`, then brought up to date with the known `values`.
    pub fn new<T: Cell>(rules: SplitRules, values: &[T]) -> Sparse {
        let mut s = Sparse {
            rules,
            split: Split::Free,
            common: Default::default(),
            classified: Default::default(),
            common_list: Vec::new(),
            counts: Default::default(),
            rare: Vec::new(),
            seen: vec![0; 2],
            mirror: dense::Mirror::default(),
            max_value: 0,
            next_rebuild: 64,
            rare_at_rebuild: 0,
            full_scans: 0,
            scanned_pairs: 0,
            rare_pairs: 0,
            targeted_scans: 0,
            targeted_pairs: 0,
            dense_heaps: 0,
            dense_pairs: 0,
            window_rescans: 0,
            shared_scans: 0,
            grouped_heaps: 0,
            dense_groups: true,
            dense_share_from: dense::SHARE_FROM,
            dense_piece: dense::MIN_PIECE,
            dense_wait: None,
            dense_tuner: Tuner::with_tries_of(dense::MIN_TRIAL),
            dense: false,
            len_at_rule: 0,
            sparse_at_rule: (0, 0),
            next_rule: 0,
            sparse_heaps: 0,
            prefix_fixed: false,
            prefix_quiet: 0,
            dense_rule: None,
            dense_prefix: dense::PREFIX,
            window_cost: 0.0,
            taken_batches: 0,
            take_after: pipeline::TAKE_AFTER,
            tuner: Tuner::default(),
            batch: None,
            balance: 0,
            pool: Vec::new(),
            helper_marks: Vec::new(),
            cpu: Cpu::detect(),
        };
        for (n, v) in values.iter().enumerate() {
            s.count(n, v.get());
        }
        s.rebuild(values);
        // The dense rule is first applied a little way on (see `seq/dense.rs`): a resumed
        // run has no measure yet, and its heaps are computed on the sparse path until then.
        s.len_at_rule = values.len();
        s.next_rule = values.len() + dense::RESUME_MEASURE;
        s
    }

    fn count(&mut self, n: usize, v: usize) {
        let c = &mut self.counts[n & 1];
        if v >= c.len() {
            c.resize(v + 1, 0);
        }
        c[v] += 1;
        if v > self.max_value {
            self.max_value = v;
        }
        // Options are XORs of values, so below 2^bits(max); the mex is at most 2^bits.
        let bits = usize::BITS - self.max_value.leading_zeros();
        let size = ((1usize << bits) + 1).max(1 << 16);
        if self.seen.len() < size {
            self.seen.resize(size, 0);
        }
    }

    /// True when `v` could join C without breaking its XOR-freeness (free split).
    fn fits_common(&self, v: usize) -> bool {
        v != 0 && self.common_list.iter().all(|&c| !self.common[0].has(v ^ c))
    }

    /// Which set of common values heap n uses: 0 with a free split, n mod 2 with a
    /// heap-parity split.
    #[inline(always)]
    pub(super) fn side(&self, n: usize) -> usize {
        match self.split {
            Split::Free => 0,
            Split::HeapParity { .. } => n & 1,
        }
    }

    /// The common values of heap n's side as bit words (see [`Sparse::side`]), and which
    /// values are classified there.
    #[inline(always)]
    pub(super) fn common_words(&self, n: usize) -> (&Bits, &Bits) {
        let x = self.side(n);
        (&self.common[x], &self.classified[x])
    }

    /// Whether `v` is common at heap n, classifying it first when it is seen there for the
    /// first time.
    #[inline(always)]
    fn classify(&mut self, n: usize, v: usize) -> bool {
        let x = self.side(n);
        if self.classified[x].has(v) {
            return self.common[x].has(v);
        }
        self.classify_new(x, v)
    }

    /// Classifies a value seen for the first time on side x; true when it is common.
    #[cold]
    fn classify_new(&mut self, x: usize, v: usize) -> bool {
        self.classified[x].set(v);
        let common = match self.split {
            Split::Free => self.fits_common(v),
            Split::HeapParity { mask, alpha } => (v & mask).count_ones() as usize & 1 == alpha ^ x,
        };
        if common {
            self.common[x].set(v);
            if self.split == Split::Free {
                self.common_list.push(v);
            }
        }
        common
    }

    /// Chooses the split again from the counts (a free split, most frequent values first,
    /// or a heap-parity split when it leaves fewer heaps rare) and lists the rare positions
    /// of `values`.
    fn rebuild<T: Cell>(&mut self, values: &[T]) {
        let total: Vec<u64> = (0..self.counts[0].len().max(self.counts[1].len()))
            .map(|v| self.counts[0].get(v).unwrap_or(&0) + self.counts[1].get(v).unwrap_or(&0))
            .collect();
        let mut order: Vec<usize> = (0..total.len()).filter(|&v| total[v] > 0).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(total[v]), v));
        self.split = Split::Free;
        self.common = Default::default();
        self.classified = Default::default();
        self.common_list.clear();
        for v in order {
            self.classify(0, v);
        }
        let free_rare: u64 = (0..total.len())
            .filter(|&v| !self.common[0].has(v))
            .map(|v| total[v])
            .sum();
        if let Some((split, rare)) = self.best_heap_parity() {
            // Heap 0 is never listed, whichever split.
            if rare < free_rare {
                self.split = split;
                self.common = Default::default();
                self.classified = Default::default();
                self.common_list.clear();
            }
        }
        self.rare.clear();
        for (i, v) in values.iter().enumerate().skip(1) {
            if !self.classify(i, v.get()) {
                self.rare.push(Rare::new(i, v.get()));
            }
        }
        self.rare_at_rebuild = self.rare.len();
        self.next_rebuild = (values.len() * 2).max(64);
    }

    /// Chooses the path of the heaps from `len` on, from what the sparse path cost per heap
    /// since the rule was last applied (see `seq/dense.rs`): the pairs marked one by one.
    /// Without enough heaps measured, the path stays and the measure goes on.
    fn apply_dense_rule(&mut self, len: usize) {
        let pairs = self.rare_pairs + self.scanned_pairs - self.targeted_pairs;
        let (heaps0, pairs0) = self.sparse_at_rule;
        let every_pair = self.rules.leave_two.len() as u64 * (self.len_at_rule + len) as u64 / 4;
        let wants = dense::wants_dense(
            len,
            (self.sparse_heaps - heaps0, pairs - pairs0),
            every_pair,
            dense::dense_share(self.cpu.window(), self.dense, len),
        );
        self.next_rule = dense::rule_after(len);
        if let Some(dense) = wants {
            self.dense = self.dense_rule.unwrap_or(dense);
            self.sparse_at_rule = (self.sparse_heaps, pairs);
            self.len_at_rule = len;
        }
    }

    /// Rebuilds the split and applies the dense rule when they are due, `values` being the
    /// heaps settled so far (one heap at a time).
    fn after_settled<T: Cell>(&mut self, values: &[T]) {
        let len = values.len();
        if len >= self.next_rebuild
            || (self.rare.len() > 2 * self.rare_at_rebuild + 256
                && len >= self.next_rebuild / 2 + self.next_rebuild / 4)
        {
            self.rebuild(values);
        }
        if len >= self.next_rule {
            self.apply_dense_rule(len);
        }
    }

    /// The heap-parity split that leaves the fewest heaps rare with the counts so far, and
    /// how many (heap 0 included), when the rules allow one: splitting moves whose counts
    /// all have the same parity, values below 2^16.
    fn best_heap_parity(&self) -> Option<(Split, u64)> {
        if self.rules.unequal {
            return None;
        }
        let alpha = heap_parity_alpha(&self.rules.leave_two)?;
        let (mask, rare) = best_parity_mask(&self.counts, alpha)?;
        Some((Split::HeapParity { mask, alpha }, rare))
    }

    /// The rare/common split now: (common values, heaps with a rare value). With a
    /// heap-parity split, the values common on even heaps.
    pub fn split(&self) -> (Vec<usize>, usize) {
        let mut c: Vec<usize> = match self.split {
            Split::Free => self.common_list.clone(),
            Split::HeapParity { mask, alpha } => (0..=self.max_value)
                .filter(|&v| (v & mask).count_ones() as usize & 1 == alpha)
                .collect(),
        };
        c.sort_unstable();
        (c, self.rare.len())
    }

    /// The kind of split in use.
    pub fn split_kind(&self) -> Split {
        self.split
    }

    /// Never use SIMD instructions, even where the CPU has them (for tests and benchmarks of
    /// the portable code; the values are the same).
    pub fn portable_only(&mut self) {
        self.cpu = Cpu::PORTABLE;
    }

    /// Never use the AVX-512 kernels, even where the CPU has them (tests of the AVX2
    /// windowed scan of the dense path on a CPU that has both; the values are the same).
    #[cfg(test)]
    pub(crate) fn without_avx512(&mut self) {
        self.cpu = self.cpu.without_avx512();
    }

    /// Takes AVX2's windows to lose to marking from now on, as if measured (tests of the
    /// dense path marking every pair but one heap in 16).
    #[cfg(test)]
    pub(crate) fn make_windows_lose(&mut self) {
        self.window_cost = f64::INFINITY;
    }

    /// The SIMD instructions the kernels may use.
    #[cfg(test)]
    pub(crate) fn cpu(&self) -> Cpu {
        self.cpu
    }

    /// Takes the dense path always (`Some(true)`), never (`Some(false)`), or by the rule
    /// (`None`), marking `prefix` pairs of each split rule before its targeted scan (tests).
    #[cfg(test)]
    pub(crate) fn force_dense(&mut self, rule: Option<bool>, prefix: usize) {
        self.dense_rule = rule;
        self.dense = rule.unwrap_or(self.dense);
        self.dense_prefix = prefix;
        self.prefix_fixed = true;
    }

    /// Whether the heaps to come are computed on the dense path (see `seq/dense.rs`).
    pub fn is_dense(&self) -> bool {
        self.dense
    }

    /// Always use every thread given to [`Sparse::compute_parallel`], however fast one is
    /// (for benchmarks and tests of the pipeline).
    pub fn force_all_threads(&mut self, forced: bool) {
        self.tuner.forced = forced;
        self.dense_tuner.forced = forced;
    }

    /// Heaps when the dense rule was last applied (tests).
    #[cfg(test)]
    pub(crate) fn len_at_rule(&self) -> usize {
        self.len_at_rule
    }

    /// The rules of the game, by removal count (tests).
    #[cfg(test)]
    pub(crate) fn split_rules(&self) -> &SplitRules {
        &self.rules
    }

    /// Computes the dense path on several threads in groups of heaps, the main thread
    /// waiting `wait` for a helper's heap before computing it itself (tests; a minute or
    /// more: the main thread computes no heap but the samples, the helpers all the others).
    #[cfg(test)]
    pub(crate) fn group_dense(&mut self, wait: Option<std::time::Duration>) {
        self.dense_groups = true;
        self.dense_wait = wait;
    }

    /// Shares the dense path's targeted scans of `from` pairs or more, in pieces of `piece`
    /// pairs or more, the main thread waiting `wait` for a helper's piece, and no heaps
    /// computed in groups (tests).
    #[cfg(test)]
    pub(crate) fn share_dense(&mut self, from: usize, piece: usize, wait: Option<std::time::Duration>) {
        self.dense_share_from = from;
        self.dense_piece = piece;
        self.dense_wait = wait;
        self.dense_groups = false;
    }

    /// Like [`Sparse::compute`], on up to `threads` threads (a pipeline, see
    /// `seq/pipeline.rs`) once heaps are past the first few thousand: one, two or all of
    /// them, whichever was measured fastest lately (see `Tuner`).
    pub fn compute_parallel(
        &mut self,
        cells: &mut [u16],
        from: usize,
        to: usize,
        threads: usize,
    ) -> Result<(), usize> {
        self.tuner.up_to(threads.max(1));
        const SERIAL_BELOW: usize = 1 << 12;
        let mut n = from;
        while n < to {
            if self.dense
                && self.max_value < 1 << 15
                && self.cpu.window().is_some()
                && threads >= 2
                && !self.rules.leave_two.is_empty()
            {
                // The dense path shares its long scans among the threads (see
                // `seq/dense.rs`), when that was measured faster (as for the pipeline).
                let end = self.chunk_end(n, to);
                let started = std::time::Instant::now();
                self.dense_tuner.up_to(threads);
                let use_threads = self.dense_tuner.next_threads();
                let end = if self.dense_tuner.trial(use_threads) {
                    end.min(n + self.dense_tuner.trial_heaps())
                } else {
                    end
                };
                // Groups of heaps where every thread gets a heap of each group (the split
                // rules remove use_threads − 1 tokens or more), else shared scans.
                let groups = self.dense_groups && self.rules.leave_two.iter().all(|&k| k + 1 >= use_threads);
                let done = if use_threads == 1 {
                    n
                } else if groups {
                    self.compute_dense_groups(cells, n, end, use_threads)?
                } else {
                    self.compute_dense_shared(cells, n, end, use_threads)?
                };
                // On one thread, or what is left when a rebuild left the dense path.
                self.compute(cells, done, end)?;
                self.dense_tuner.record(use_threads, end - n, started.elapsed());
                n = end;
                continue;
            }
            let serial_below = SERIAL_BELOW.max(self.batch_from());
            if n < serial_below || self.rules.leave_two.is_empty() {
                let end = if self.rules.leave_two.is_empty() {
                    to
                } else {
                    to.min(serial_below)
                };
                self.compute(cells, n, end)?;
                n = end;
                continue;
            }
            let end = self.chunk_end(n, to);
            if self.dense || (self.max_value < 32 && !self.tuner.forced) {
                // The dense path without the targeted scan runs on one thread (see
                // `seq/dense.rs`). Values below 32 take one-word option sets on one thread, faster than the
                // pipeline's byte sets (a batch of 8 heaps takes less time than handing it
                // between cores costs).
                self.compute(cells, n, end)?;
                n = end;
                continue;
            }
            // The threads wait for each other every batch, which only pays when they all
            // really run: on a busy machine fewer threads are faster. Time each way now and
            // then, keep the fastest.
            let started = std::time::Instant::now();
            let use_threads = self.tuner.next_threads();
            let end = if self.tuner.trial(use_threads) {
                end.min(n + self.tuner.trial_heaps())
            } else {
                end
            };
            if use_threads == 1 {
                self.compute(cells, n, end)?;
                self.tuner.record(1, end - n, started.elapsed());
                n = end;
                continue;
            }
            let done = self.compute_pipelined(cells, n, end, use_threads)?;
            self.sparse_heaps += (done - n) as u64;
            // What is left of the chunk is less than a batch.
            self.compute(cells, done, end)?;
            self.tuner.record(use_threads, end - n, started.elapsed());
            n = end;
            if n >= self.next_rebuild || self.rare.len() > 2 * self.rare_at_rebuild + 256 {
                self.rebuild(&cells[..n]);
            }
            if n >= self.next_rule {
                self.apply_dense_rule(n);
            }
        }
        Ok(())
    }

    /// The end of the next chunk of [`Sparse::compute_parallel`] from heap `n` (below `to`):
    /// a sixteenth of the heaps so far, at least 4096, and no further than the next rebuild
    /// of the split or application of the dense rule, so that both come as on one thread.
    fn chunk_end(&self, n: usize, to: usize) -> usize {
        to.min((n + (n / 16).max(4096)).min(self.next_rebuild.min(self.next_rule).max(n + 1)))
    }

    /// Computes `cells[from..to]` from `cells[..from]`. Stops early and returns the index
    /// of a heap whose value does not fit in `T` (that cell is not written).
    pub fn compute<T: Cell>(&mut self, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
        let batch_from = self.batch_from();
        let mut n = from;
        while n < to {
            let dense = self.dense && T::MAX <= 0xFFFF && self.max_value < 1 << 15;
            if dense && (!n.is_multiple_of(dense::SAMPLE_EVERY) || self.dense_rule.is_some()) {
                // Only 16-bit cells come here.
                let settled: &[u16] = bytemuck::cast_slice(&cells[..n]);
                let mut mirror = std::mem::take(&mut self.mirror);
                let g = self.dense_value(mirror.settled(settled, self.avx2_windows()), n, None);
                self.mirror = mirror;
                self.settle(cells, n, g);
                n += 1;
            } else if !dense
                && T::MAX <= 0xFFFF
                && n >= batch_from
                && n + BATCH <= to
                && !self.rules.leave_two.is_empty()
            {
                if self.max_value < 32 {
                    n += self.compute_batch_small_values(cells, n);
                } else {
                    self.compute_batch(cells, n)?;
                    n += BATCH;
                }
            } else {
                let g = self.value_of(cells, n);
                // Rare entries keep 24-bit values ([`Rare`]).
                if g > T::MAX || g > Rare::MAX_VALUE {
                    return Err(n);
                }
                self.settle(cells, n, g);
                n += 1;
            }
            self.after_settled(&cells[..n]);
        }
        Ok(())
    }

    /// The first heap computed in batches.
    fn batch_from(&self) -> usize {
        256 + self.rules.leave_two.last().copied().unwrap_or(0)
    }

    /// Records G(n) = g.
    fn settle<T: Cell>(&mut self, cells: &mut [T], n: usize, g: usize) {
        cells[n] = T::put(g);
        self.note(n, g);
    }

    /// Counts G(n) = g and lists heap n when g is rare.
    fn note(&mut self, n: usize, g: usize) {
        self.count(n, g);
        if !self.classify(n, g) && n > 0 {
            self.rare.push(Rare::new(n, g));
        }
    }

    /// Computes the 8 heaps from n0 on (16-bit values): one pass over the rare list marks
    /// the rare pairs of all 8 (their other heaps are 8 consecutive cells), then each heap
    /// is finished on its own.
    fn compute_batch<T: Cell>(&mut self, cells: &mut [T], n0: usize) -> Result<(), usize> {
        self.sparse_heaps += BATCH as u64;
        let mut marks = self.batch.take().unwrap_or_else(Marks::new);
        marks.reset(n0, limit_of(self.max_value));
        self.rare_pairs += mark_rare(&self.rules, &self.rare, &cells[..n0], &mut marks, 0);
        let mut result = Ok(());
        for j in 0..BATCH {
            let n = n0 + j;
            let g = self.finish(cells, n, &mut marks, j);
            if g > T::MAX {
                result = Err(n);
                break;
            }
            self.settle(cells, n, g);
        }
        self.batch = Some(marks);
        result
    }

    /// Computes the heaps of a batch from n0 on while every value is below 32 ([`Mask`]):
    /// the rare pairs of all 8 heaps in one pass into 8 words, then each heap on its own.
    /// Returns the heaps computed: all 8, or fewer when one reaches 32 (the rest of the batch
    /// is then left to the byte option sets).
    /// Compiled for AVX2 where the CPU has it (8-lane variable shifts, see [`SmallValues`]).
    fn compute_batch_small_values<T: Cell>(&mut self, cells: &mut [T], n0: usize) -> usize {
        simd::with_avx2(
            self.cpu,
            SmallValues {
                sparse: self,
                cells,
                n0,
            },
        )
    }

    /// [`Sparse::compute_batch_small_values`], with AVX2 when `avx2` is its token.
    #[inline(always)]
    fn small_values<T: Cell>(&mut self, cells: &mut [T], n0: usize, avx2: Option<Avx2>) -> usize {
        let mut words = [0u32; BATCH];
        let mut marks = self.batch.take().unwrap_or_else(Marks::new);
        marks.rare.clear();
        {
            // Only 16-bit cells come here (see `compute`).
            let settled: &[u16] = bytemuck::cast_slice(&cells[..n0]);
            rare_pass(
                &self.rules,
                &self.rare,
                n0,
                n0,
                0,
                &mut marks.rare,
                &mut marks.bounds,
                &mut marks.pass,
            );
            for &(m0, from, to) in &marks.pass {
                self.rare_pairs += (BATCH * (to - from)) as u64;
                simd::or_rare(avx2, &mut words, &self.rare[from..to], m0, settled);
            }
        }
        let mut done = BATCH;
        for (j, &word) in words.iter().enumerate() {
            let n = n0 + j;
            let pre = Premarked {
                rare: &marks.bounds,
                pairs: (0, 0),
            };
            let g = self.value_with(cells, n, &mut Mask(word), Some(pre));
            self.settle(cells, n, g);
            if g >= 32 {
                done = j + 1;
                break;
            }
        }
        self.batch = Some(marks);
        self.sparse_heaps += done as u64;
        done
    }

    /// G(n0 + j) for the heap j of a batch, with what `marks` holds for it.
    #[inline(always)]
    fn finish<T: Cell>(&mut self, cells: &[T], n: usize, marks: &mut Marks, j: usize) -> usize {
        let limit = limit_of(self.max_value);
        marks.grow(limit);
        let bounds = std::mem::take(&mut marks.bounds);
        let pre = Premarked {
            rare: &bounds,
            pairs: marks.pairs[j],
        };
        let g = self.value_with(cells, n, &mut Small(marks.seen(j), limit), Some(pre));
        marks.bounds = bounds;
        g
    }

    /// The heap ranges of a batch's rare pass (`ranges`, one per split rule) as places in
    /// the rare list: `[lo, hi, w0, w1]`, the pass having marked the rare heaps at places
    /// `lo..hi` outside `w0..w1` (the unequal window; `w0 = w1` without it). Places below
    /// the batch's first heap do not move while it is computed (the list only grows).
    /// [`rare_pass`] finds them too; in the pipeline a helper's list may be shorter, so the
    /// main thread finds them again in its own.
    pub(super) fn index_bounds(&self, n0: usize, ranges: &[(usize, usize)], out: &mut Vec<[usize; 4]>) {
        out.clear();
        let idx = |x: usize| rare_below(&self.rare, x);
        for (&k, &(lo, hi)) in self.rules.leave_two.iter().zip(ranges) {
            let m0 = n0 - k;
            let (w0, w1) = if self.rules.unequal {
                (idx(m0.div_ceil(2)), idx((m0 + BATCH - 1) / 2 + 1))
            } else {
                (0, 0)
            };
            out.push([idx(lo), idx(hi), w0, w1]);
        }
    }

    fn value_of<T: Cell>(&mut self, cells: &[T], n: usize) -> usize {
        let bits = usize::BITS - self.max_value.leading_zeros();
        // Options are XORs of values, so below 2^bits; the mex is at most 2^bits.
        let limit = (1usize << bits) + 1;
        self.sparse_heaps += 1;
        let mut seen = std::mem::take(&mut self.seen);
        let g = if T::MAX <= 0xFFFF && seen.len() >= 1 << 16 {
            match <&mut [u8; 1 << 16]>::try_from(&mut seen[..1 << 16]) {
                Ok(array) => self.value_with(cells, n, &mut Small(array, limit.min(1 << 16)), None),
                Err(_) => unreachable!("the slice has 2^16 bytes"),
            }
        } else {
            self.value_with(cells, n, &mut Wide(&mut seen[..limit], limit - 2), None)
        };
        self.seen = seen;
        g
    }

    /// G(n). With `batch`, `seen` already holds the pairs that [`mark_rare`] (and, on two
    /// threads, the helper) marked for heap n; only the others are added.
    #[inline(always)]
    fn value_with<T: Cell, S: Seen>(
        &mut self,
        cells: &[T],
        n: usize,
        seen: &mut S,
        batch: Option<Premarked<'_>>,
    ) -> usize {
        if batch.is_none() {
            seen.clear();
        }
        let rules = &self.rules;
        if rules.take_all.binary_search(&n).is_ok() {
            seen.mark(0);
        }
        for &k in &rules.leave_one {
            if k >= n {
                break;
            }
            seen.mark(cells[n - k].get());
        }
        let unequal = rules.unequal;
        for (ki, &k) in rules.leave_two.iter().enumerate() {
            if k + 2 > n {
                break;
            }
            let m = n - k;
            let idx = |x: usize| rare_below(&self.rare, x);
            let end = idx(m);
            let below = &cells[..m];
            let mut mark_range = |from: usize, to: usize| {
                for &r in &self.rare[from..to.max(from)] {
                    let (a, ga) = (r.heap(), r.value());
                    if unequal && 2 * a == m {
                        continue;
                    }
                    seen.mark(ga ^ below[m - a].get());
                }
            };
            match batch {
                None => {
                    self.rare_pairs += end as u64;
                    mark_range(0, end);
                }
                Some(Premarked { rare, .. }) => {
                    // What was not marked before: a < lo, a ≥ hi, and the unequal window.
                    let [lo, hi, w0, w1] = rare[ki];
                    mark_range(0, lo.min(end));
                    mark_range(hi.min(end), end);
                    mark_range(w0.min(end), w1.min(end));
                }
            }
        }
        let mut result = seen.mex();
        if self.classify(n, result) {
            return result;
        }
        self.full_scans += 1;
        if T::MAX <= 0xFFFF {
            if let (Some(isa), Some((bytes, limit))) = (self.cpu.targeted(), seen.bytes()) {
                if limit <= simd::TARGET_VALUES + 1 {
                    return self.scan_for_targets(isa, cells, n, bytes, limit, result, batch);
                }
            }
        }
        // Blocks grow from 32 to 256 pairs: short scans stop early, long ones run in bulk.
        let mut block = S::FIRST_BLOCK;
        for ki in 0..self.rules.leave_two.len() {
            let k = self.rules.leave_two[ki];
            if k + 2 > n {
                break;
            }
            let m = n - k;
            // Pairs (a, m - a) for a = 1..=half (without a = m/2 when splits are unequal).
            let half = if unequal && m & 1 == 0 { m / 2 - 1 } else { m / 2 };
            let low = &cells[1..=half];
            let high = &cells[m - half..m];
            // Pair a = i + 1; the pairs marked before (a in [p0, p1)) are skipped.
            let (s0, s1) = match &batch {
                Some(Premarked { pairs: (p0, p1), .. }) if ki == 0 && p1 > p0 => (p0 - 1, p1 - 1),
                _ => (half, half),
            };
            let mut i = 0;
            while i < half {
                if i == s0 {
                    i = s1;
                    continue;
                }
                let len = block.min(half - i).min(if i < s0 { s0 - i } else { usize::MAX });
                block = (block * 2).min(S::LAST_BLOCK);
                self.scanned_pairs += len as u64;
                let xs = &low[i..i + len];
                let ys = &high[half - i - len..half - i];
                seen.mark_pairs(xs, ys);
                if seen.has(result) {
                    // Every value below the old mex stays marked.
                    result = seen.next_unmarked(result + 1);
                    if self.classify(n, result) {
                        return result;
                    }
                }
                i += len;
            }
        }
        result
    }
}

/// [`Sparse::small_values`] as code that [`simd::with_avx2`] compiles for AVX2 too: every
/// value below 32, the one-word option sets mark 8 pairs by one variable shift of 8 lanes.
struct SmallValues<'a, T> {
    sparse: &'a mut Sparse,
    cells: &'a mut [T],
    n0: usize,
}

impl<T: Cell> simd::Avx2Code for SmallValues<'_, T> {
    type Output = usize;
    #[inline(always)]
    fn run(self, avx2: Option<Avx2>) -> usize {
        self.sparse.small_values(self.cells, self.n0, avx2)
    }
}

/// What is marked for a heap of a batch before it is finished (see [`Marks`]).
#[derive(Clone, Copy)]
struct Premarked<'a> {
    /// Per split rule, the places in the rare list marked before ([`Sparse::index_bounds`]).
    rare: &'a [[usize; 4]],
    pairs: (usize, usize),
}

/// The option values of one heap: `mark` is a plain byte store (no read to wait for).
trait Seen {
    /// Pairs marked before the scan first looks at the mex, doubling after each look up to
    /// [`Seen::LAST_BLOCK`]: looks that cost little can come often.
    const FIRST_BLOCK: usize = 32;
    /// The most pairs marked between two looks at the mex (at most 256).
    const LAST_BLOCK: usize = 256;
    fn clear(&mut self);
    fn mark(&mut self, v: usize);
    /// Marks `xs[i] ^ ys[len − 1 − i]` for every i (at most 256 pairs).
    fn mark_pairs<T: Cell>(&mut self, xs: &[T], ys: &[T]) {
        let mut buf = [0u32; 256];
        for ((b, x), y) in buf.iter_mut().zip(xs).zip(ys.iter().rev()) {
            *b = (x.get() ^ y.get()) as u32;
        }
        for &v in &buf[..xs.len().min(256)] {
            self.mark(v as usize);
        }
    }
    fn has(&self, v: usize) -> bool;
    /// The set as 2^16 bytes with the number in use, when it is one.
    fn bytes(&self) -> Option<(&[u8; 1 << 16], usize)> {
        None
    }
    /// The first value from `from` on that is not marked.
    fn next_unmarked(&self, from: usize) -> usize;
    fn mex(&self) -> usize {
        self.next_unmarked(0)
    }
}

/// Values below 2^16: a fixed array, indexed without bounds checks; `.1` bytes are in use.
struct Small<'a>(&'a mut [u8; 1 << 16], usize);

impl Seen for Small<'_> {
    #[inline(always)]
    fn bytes(&self) -> Option<(&[u8; 1 << 16], usize)> {
        Some((&*self.0, self.1))
    }

    #[inline(always)]
    fn mark_pairs<T: Cell>(&mut self, xs: &[T], ys: &[T]) {
        // 16-bit values: XOR in 16-bit lanes, then one byte store per pair, no bounds check.
        let mut buf = [0u16; 256];
        for ((b, x), y) in buf.iter_mut().zip(xs).zip(ys.iter().rev()) {
            *b = (x.get() ^ y.get()) as u16;
        }
        for &v in &buf[..xs.len().min(256)] {
            self.0[v as usize] = 1;
        }
    }

    #[inline(always)]
    fn clear(&mut self) {
        let n = self.1;
        self.0[..n].fill(0);
    }
    #[inline(always)]
    fn mark(&mut self, v: usize) {
        self.0[v & 0xFFFF] = 1;
    }
    #[inline(always)]
    fn has(&self, v: usize) -> bool {
        v < 1 << 16 && self.0[v & 0xFFFF] != 0
    }
    #[inline(always)]
    fn next_unmarked(&self, from: usize) -> usize {
        let n = self.1;
        match self.0.get(from..n) {
            Some(rest) => from + memchr::memchr(0, rest).unwrap_or(rest.len()),
            None => from,
        }
    }
}

/// Wider values: a slice of 2^bits + 1 bytes, and the mask 2^bits − 1.
struct Wide<'a>(&'a mut [u8], usize);

impl Seen for Wide<'_> {
    fn clear(&mut self) {
        self.0.fill(0);
    }
    #[inline(always)]
    fn mark(&mut self, v: usize) {
        if let Some(b) = self.0.get_mut(v & self.1) {
            *b = 1;
        }
    }
    #[inline(always)]
    fn has(&self, v: usize) -> bool {
        self.0.get(v).is_some_and(|&b| b != 0)
    }
    fn next_unmarked(&self, from: usize) -> usize {
        match self.0.get(from..) {
            Some(rest) => from + memchr::memchr(0, rest).unwrap_or(rest.len()),
            None => from,
        }
    }
}

/// Values below 32 (every value so far, so every XOR of two): the option set is one 32-bit
/// word, marking is an OR of `1 << v`, the mex a count of trailing ones. With AVX2, 8 pairs
/// are marked by one variable shift of 8 lanes.
struct Mask(u32);

impl Seen for Mask {
    // 32 pairs, then 48 between looks: a look at a one-word mex costs next to nothing, so
    // frequent looks pay; smaller first blocks and larger last ones were slower on the games
    // whose values stay below 32 (0.16, 0.77, 0.07, 0.137).
    const FIRST_BLOCK: usize = 32;
    const LAST_BLOCK: usize = 48;
    #[inline(always)]
    fn clear(&mut self) {
        self.0 = 0;
    }
    #[inline(always)]
    fn mark(&mut self, v: usize) {
        debug_assert!(v < 32);
        self.0 |= 1u32 << (v & 31);
    }
    #[inline(always)]
    fn mark_pairs<T: Cell>(&mut self, xs: &[T], ys: &[T]) {
        let n = xs.len().min(ys.len());
        let mut lanes = [0u32; 8];
        let mut i = 0;
        while i + 8 <= n {
            let x = &xs[i..i + 8];
            let y = &ys[n - i - 8..n - i];
            for l in 0..8 {
                lanes[l] |= 1u32 << ((x[l].get() ^ y[7 - l].get()) & 31);
            }
            i += 8;
        }
        let mut m = lanes.iter().fold(0, |a, &b| a | b);
        while i < n {
            m |= 1u32 << ((xs[i].get() ^ ys[n - 1 - i].get()) & 31);
            i += 1;
        }
        self.0 |= m;
    }
    #[inline(always)]
    fn has(&self, v: usize) -> bool {
        v < 32 && self.0 >> v & 1 != 0
    }
    #[inline(always)]
    fn next_unmarked(&self, from: usize) -> usize {
        if from >= 32 {
            from
        } else {
            from + (self.0 >> from).trailing_ones() as usize
        }
    }
}

/// The α of a split by the heap's parity for splitting moves that remove the counts `leave_two`
/// (see the module documentation): 1 − (k mod 2) when every k has the same parity, `None`
/// otherwise (or without splitting moves).
pub fn heap_parity_alpha(leave_two: &[usize]) -> Option<usize> {
    let kappa = leave_two.first()? & 1;
    leave_two.iter().all(|&k| k & 1 == kappa).then_some(1 - kappa)
}

/// The mask (not 0) whose split by the heap's parity with `alpha` leaves the fewest heaps
/// rare, given the value counts on even heaps and on odd heaps, and that number (heap 0
/// included). `None` when values reach 2^16 (the transform would be too large) or there
/// are none.
pub fn best_parity_mask(counts: &[Vec<u64>; 2], alpha: usize) -> Option<(usize, u64)> {
    let values = counts[0].len().max(counts[1].len());
    let bits = usize::BITS - values.saturating_sub(1).leading_zeros();
    if bits > 16 {
        return None;
    }
    // d[v] = (count of v on heaps where parity 0 is common) − (on the others): the
    // transform's entry m is then (common heaps − rare heaps) with mask m.
    let mut d = vec![0i64; 1usize << bits.max(1)];
    for (x, c) in counts.iter().enumerate() {
        let sign = if alpha ^ x == 0 { 1 } else { -1 };
        for (v, &k) in c.iter().enumerate() {
            d[v] += sign * k as i64;
        }
    }
    let heaps: i64 = counts.iter().flatten().map(|&k| k as i64).sum();
    walsh_hadamard(&mut d);
    // Mask 0 makes every value common on one side only: not a split worth having.
    let (mask, best) = d
        .iter()
        .enumerate()
        .skip(1)
        .max_by_key(|&(m, &w)| (w, std::cmp::Reverse(m)))?;
    Some((mask, ((heaps - best) / 2).max(0) as u64))
}

/// The Walsh–Hadamard transform in place: entry m becomes Σ_v d[v]·(−1)^popcount(v & m).
fn walsh_hadamard(d: &mut [i64]) {
    let mut h = 1;
    while h < d.len() {
        for block in d.chunks_exact_mut(2 * h) {
            let (lo, hi) = block.split_at_mut(h);
            for (a, b) in lo.iter_mut().zip(hi) {
                let (x, y) = (*a, *b);
                *a = x + y;
                *b = x - y;
            }
        }
        h *= 2;
    }
}

#[cfg(test)]
mod rare_below_tests {
    use super::{rare_below, Rare};
    use proptest::prelude::*;

    proptest! {
        /// Against counting: every length (empty, under 8, more), every x.
        #[test]
        fn rare_below_counts_the_heaps_below(mut heaps in proptest::collection::vec(1u32..200, 0..20), x in 0usize..210) {
            heaps.sort_unstable();
            heaps.dedup();
            let rare: Vec<Rare> = heaps.iter().map(|&a| Rare::new(a as usize, 0)).collect();
            prop_assert_eq!(rare_below(&rare, x), heaps.iter().filter(|&&a| (a as usize) < x).count());
        }

        /// Heaps past 2^32 (and up to 2^40 − 1) keep their number and value in an entry.
        #[test]
        fn rare_entries_hold_heaps_past_2_32(mut heaps in proptest::collection::vec(0usize..1000, 0..20), x in 0usize..1010, v in 0usize..=Rare::MAX_VALUE) {
            let base = 1usize << 32;
            heaps.sort_unstable();
            heaps.dedup();
            let rare: Vec<Rare> = heaps.iter().map(|&a| Rare::new(base + a, v)).collect();
            for (r, &a) in rare.iter().zip(&heaps) {
                prop_assert_eq!((r.heap(), r.value()), (base + a, v));
                prop_assert_eq!(Rare::from_bits(r.bits()), *r);
            }
            prop_assert_eq!(rare_below(&rare, base + x), heaps.iter().filter(|&&a| a < x).count());
            let top = (1usize << Rare::HEAP_BITS) - 1;
            prop_assert_eq!((Rare::new(top, v).heap(), Rare::new(top, v).value()), (top, v));
        }
    }
}

#[cfg(test)]
mod dense_rule_tests {
    use super::dense::{rule_after, wants_dense, SAMPLE_EVERY};

    /// The rule is applied an eighth of the heaps later, at least 16 samples later; it keeps
    /// the path while it has measured fewer than 16 heaps, takes the dense path at three
    /// eighths of every pair marked, never below 2^13 heaps.
    #[test]
    fn the_dense_rule_decides_from_its_measure() {
        assert_eq!(rule_after(1 << 18), (1 << 18) + (1 << 15));
        assert_eq!(rule_after(1 << 13), (1 << 13) + 16 * SAMPLE_EVERY);
        assert_eq!(wants_dense(1 << 16, (15, u64::MAX), 1, (3, 8)), None);
        assert_eq!(wants_dense(1 << 16, (16, 6 * 16), 16, (3, 8)), Some(true));
        assert_eq!(wants_dense(1 << 16, (16, 5 * 16), 16, (3, 8)), Some(false));
        assert_eq!(wants_dense(1 << 16, (16, 3 * 16), 16, (3, 16)), Some(true));
        assert_eq!(wants_dense(1 << 16, (16, 2 * 16), 16, (3, 16)), Some(false));
        assert_eq!(wants_dense(1 << 16, (16, 15 * 16), 16, (1, 1)), Some(false));
        assert_eq!(wants_dense(1 << 16, (16, 16 * 16), 16, (1, 1)), Some(true));
        assert_eq!(wants_dense(1 << 12, (16, u64::MAX), 1, (3, 8)), Some(false));
    }

    /// With AVX2's windows the dense path is taken at three eighths of every pair marked and,
    /// from `STAY_FROM` heaps, left only below three sixteenths; without windows at all.
    #[test]
    fn the_dense_share_keeps_avx2_windows_longer() {
        use super::dense::{dense_share, STAY_FROM};
        use crate::seq::simd::{Cpu, WindowIsa};
        assert_eq!(dense_share(None, true, STAY_FROM), (1, 1));
        if let Some(isa @ WindowIsa::Avx2(_)) = Cpu::detect().without_avx512().window() {
            assert_eq!(dense_share(Some(isa), false, STAY_FROM), (3, 8));
            assert_eq!(dense_share(Some(isa), true, STAY_FROM - 1), (3, 8));
            assert_eq!(dense_share(Some(isa), true, STAY_FROM), (3, 16));
        }
        if let Some(isa @ WindowIsa::Avx512(_)) = Cpu::detect().window() {
            assert_eq!(dense_share(Some(isa), true, STAY_FROM), (3, 8));
        }
    }
}
