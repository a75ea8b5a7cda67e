//! Grundy sequences of heap games: G(0), G(1), ... computed in bulk with the fastest method
//! that fits the rules (rare/common for take-and-break games, counting for subtraction
//! games), proven periods, summaries, and checkpoints to stop and resume long runs.
//!
//! [`naive::values`] is the reference every engine is tested against.

pub mod arith;
pub mod canonical;
pub mod checkpoint;
pub mod general;
pub mod genus;
pub mod naive;
pub mod period;
mod simd;
pub mod sparse;
pub mod store;
pub mod subtraction;
pub mod triple;

use grundy_core::HeapRules;
pub use period::Period;
use std::path::PathBuf;
use store::{Backing, Cell, Values};

/// The most values one run answers (heaps 0 to 2^40 − 1): the rare/common method keeps its
/// rare heaps as 40-bit numbers ([`sparse`]), the values past memory live in a scratch file
/// that grows with them ([`store`]), and a game whose period is proven is answered past the
/// proof from the period, without computing ([`SeqEngine::get`]).
pub const MAX_COUNT: u64 = 1 << 40;

/// Why a sequence could not be computed, stored or resumed.
#[derive(Debug, thiserror::Error)]
pub enum SeqError {
    /// Values could not be stored (memory or scratch file).
    #[error("storage: {0}")]
    Storage(String),
    /// More values were asked for than the engine computes.
    #[error("count {0} is too large (at most {MAX_COUNT})")]
    TooMany(u64),
    /// A value does not fit in 32 bits (24 bits for the rare/common method).
    #[error("G({0}) is too large for the engine (values fit in 32 bits, 24 for the rare/common method)")]
    Overflow(u64),
    /// A checkpoint file is unusable.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Where values are kept.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Values taking more bytes than this go to a memory-mapped scratch file.
    pub memory_limit: u64,
    /// Folder for the scratch file (the system's temporary folder when `None`).
    pub scratch_dir: Option<PathBuf>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            memory_limit: 8 << 30,
            scratch_dir: None,
        }
    }
}

enum Method {
    Sparse(Box<sparse::Sparse>),
    Finite(subtraction::Finite),
    AllBut(subtraction::AllBut),
    Triple(triple::Triple),
    General(Box<general::General>),
}

/// The method `rules` are computed with, by name (for summaries and benchmarks).
pub fn method_name(rules: &HeapRules) -> &'static str {
    match (rules, engine_of(rules)) {
        (_, TakeBreakEngine::Triple) => "two-heap value sets (three-heap moves)",
        (_, TakeBreakEngine::Sparse) => "rare/common (sparse space)",
        (HeapRules::TakeBreak { .. }, TakeBreakEngine::General) => {
            "split value sets and running unions (general take-and-break)"
        }
        (HeapRules::Subtraction(_), _) => "subtraction set",
        (HeapRules::AllBut(_), _) => "all-but counting",
    }
}

/// The engine a take-and-break game is computed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TakeBreakEngine {
    /// Rare/common: a finite code leaving at most two heaps, with the unequal flag on every
    /// splitting digit or on none.
    Sparse,
    /// Three-heap moves of a finite code with no unequal flag.
    Triple,
    /// Anything else (and every rule that is not take-and-break).
    General,
}

fn engine_of(rules: &HeapRules) -> TakeBreakEngine {
    let HeapRules::TakeBreak {
        digits,
        unequal,
        repeat: 0,
    } = rules
    else {
        return TakeBreakEngine::General;
    };
    let splitting = digits.iter().filter(|&&d| d & !3 != 0).count();
    match rules.max_parts() {
        ..=2 if unequal.is_empty() || unequal.len() == splitting => TakeBreakEngine::Sparse,
        3 if unequal.is_empty() => TakeBreakEngine::Triple,
        _ => TakeBreakEngine::General,
    }
}

/// The most heaps worth a bulk table for front ends that need values quickly (a solve
/// request): every count the fast engines take, but the general engine is quadratic, so
/// its tables stop at 2^16 heaps (2^13 with splits into three heaps or more); past that the
/// memo engine and its limits answer.
pub fn quick_table_limit(rules: &HeapRules) -> u64 {
    match (rules, engine_of(rules)) {
        (HeapRules::TakeBreak { .. }, TakeBreakEngine::General) if rules.max_parts() >= 3 => 1 << 13,
        (HeapRules::TakeBreak { .. }, TakeBreakEngine::General) => 1 << 16,
        _ => MAX_COUNT,
    }
}

/// A Grundy sequence being computed: the values so far and the method's state.
pub struct SeqEngine {
    rules: HeapRules,
    method: Method,
    values: Values,
    len: usize,
    store: StoreOptions,
    threads: usize,
    /// A period proven by the values, once one is: every later value is then the one a
    /// period earlier (plus the saltus) instead of computed.
    proven: Option<Period>,
    /// The length at which to look for a proven period next (doubling).
    next_period_check: usize,
    /// Whether a proven period is used to copy later values instead of computing them.
    period_shortcut: bool,
}

impl SeqEngine {
    /// An engine that will compute up to `capacity` values of `rules`.
    pub fn new(rules: &HeapRules, capacity: u64, store: StoreOptions) -> Result<Self, SeqError> {
        Self::resume(rules, capacity, store, std::iter::empty(), 2)
    }

    /// An engine that continues from known values (G(0), G(1), ...) given with `width`
    /// bytes per value (2 or 4).
    pub fn resume(
        rules: &HeapRules,
        capacity: u64,
        store: StoreOptions,
        known: impl Iterator<Item = u64>,
        width: usize,
    ) -> Result<Self, SeqError> {
        if capacity > MAX_COUNT {
            return Err(SeqError::TooMany(capacity));
        }
        let cap = capacity as usize;
        let mut len = 0;
        let values = if width == 2 {
            let mut b = Backing::<u16>::new(cap, store.memory_limit, &store.scratch_dir)?;
            for v in known.take(cap) {
                if len >= b.cells().len() {
                    b.ensure(len + (1 << 16))?;
                }
                b.cells_mut()[len] = v.min(u16::MAX as u64) as u16;
                len += 1;
            }
            Values::U16(b)
        } else {
            let mut b = Backing::<u32>::new(cap, store.memory_limit, &store.scratch_dir)?;
            for v in known.take(cap) {
                if len >= b.cells().len() {
                    b.ensure(len + (1 << 16))?;
                }
                b.cells_mut()[len] = v.min(u32::MAX as u64) as u32;
                len += 1;
            }
            Values::U32(b)
        };
        let method = match &values {
            Values::U16(b) => make_method(rules, &b.cells()[..len]),
            Values::U32(b) => make_method(rules, &b.cells()[..len]),
        };
        Ok(SeqEngine {
            rules: rules.clone(),
            method,
            values,
            len,
            store,
            threads: 1,
            proven: None,
            next_period_check: len.max(1 << 10),
            period_shortcut: true,
        })
    }

    /// Use up to `threads` threads (the rare/common method's pipeline uses them all when
    /// that is measured faster than fewer; the three-heap method shares the step of each
    /// large heap on a rayon pool; values are the same whatever the count).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Whether later values are copied from a proven period (the default) rather than all
    /// computed by the method; the values are the same either way.
    pub fn use_period(&mut self, yes: bool) {
        self.period_shortcut = yes;
    }

    /// Never use SIMD instructions, even where the CPU has them (for tests and benchmarks of
    /// the portable code; the values are the same).
    pub fn portable_only(&mut self) {
        if let Method::Sparse(s) = &mut self.method {
            s.portable_only();
        }
    }

    /// With several threads, always use them all (normally the engine times one, two and
    /// all now and then, and keeps the fastest). For benchmarks and tests.
    pub fn force_all_threads(&mut self, forced: bool) {
        match &mut self.method {
            Method::Sparse(s) => s.force_all_threads(forced),
            // Every three-heap step on the pool, however small.
            Method::Triple(t) if forced => t.force_parallel(),
            _ => {}
        }
    }

    /// The rules.
    pub fn rules(&self) -> &HeapRules {
        &self.rules
    }

    /// Number of values computed.
    pub fn len(&self) -> u64 {
        self.len as u64
    }

    /// True before G(0) is computed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Most values this engine can hold.
    pub fn capacity(&self) -> u64 {
        self.values.capacity() as u64
    }

    /// Bytes per stored value (2 while values fit in 16 bits, then 4).
    pub fn width(&self) -> usize {
        self.values.width()
    }

    /// True when the values live in a memory-mapped scratch file.
    pub fn file_backed(&self) -> bool {
        match &self.values {
            Values::U16(b) => b.is_file(),
            Values::U32(b) => b.is_file(),
        }
    }

    /// G(i), for i < len, or for any i once a period is proven ([`SeqEngine::proven`]):
    /// past the values held, one period earlier.
    pub fn get(&self, i: u64) -> u64 {
        match self.proven() {
            Some(p) if i >= self.len as u64 => self.values.get((p.n0 + (i - p.n0) % p.period) as usize),
            _ => self.values.get(i as usize),
        }
    }

    /// The period proven by the values computed so far (Guy–Smith, no saltus), once the
    /// engine has found one (it looks at doubling lengths, when it uses proven periods: see
    /// [`SeqEngine::use_period`]). Every value past the proof follows from it: see
    /// [`SeqEngine::get`] and [`SeqEngine::summary_of`].
    pub fn proven(&self) -> Option<Period> {
        // A period with a saltus (arithmetic) fills computed values (see
        // [`SeqEngine::compute_to`]) but answers nothing past them: only plain periods do.
        self.proven.filter(|p| p.saltus == 0)
    }

    /// Values `from..to` as little-endian bytes of [`SeqEngine::width`] each.
    pub fn bytes(&self, from: u64, to: u64) -> Vec<u8> {
        self.values.bytes(from as usize, to as usize)
    }

    /// Computes values up to (not including) heap `to` (at most the capacity). Once the
    /// values prove a period (ordinary or arithmetic), the rest follows from it: each later
    /// value is the one a period earlier (plus the saltus), with no further search.
    pub fn compute_to(&mut self, to: u64) -> Result<(), SeqError> {
        let to = (to as usize).min(self.values.capacity());
        self.values.ensure(to)?;
        while self.len < to {
            if let Some(p) = self.proven.filter(|_| self.period_shortcut) {
                return self.extend_periodic(p.period as usize, p.saltus, to);
            }
            // Look for a period at doubling lengths (each look is linear in the length), only
            // when a period found would be used.
            let step_to = if self.period_shortcut {
                to.min(self.next_period_check.max(self.len + 1))
            } else {
                to
            };
            let r = match &mut self.values {
                Values::U16(b) => match &mut self.method {
                    Method::Sparse(s) if self.threads >= 2 => {
                        s.compute_parallel(b.cells_mut(), self.len, step_to, self.threads)
                    }
                    Method::Triple(t) if self.threads >= 2 => {
                        t.compute_parallel(b.cells_mut(), self.len, step_to, self.threads)
                    }
                    Method::General(g) if self.threads >= 2 => {
                        g.compute_parallel(b.cells_mut(), self.len, step_to, self.threads)
                    }
                    m => run(m, b.cells_mut(), self.len, step_to),
                },
                Values::U32(b) => match &mut self.method {
                    Method::Triple(t) if self.threads >= 2 => {
                        t.compute_parallel(b.cells_mut(), self.len, step_to, self.threads)
                    }
                    Method::General(g) if self.threads >= 2 => {
                        g.compute_parallel(b.cells_mut(), self.len, step_to, self.threads)
                    }
                    m => run(m, b.cells_mut(), self.len, step_to),
                },
            };
            match r {
                Ok(()) => self.len = step_to,
                Err(n) => {
                    self.len = n;
                    self.widen(n)?;
                }
            }
            if self.period_shortcut && self.len >= self.next_period_check {
                self.next_period_check = self.len * 2;
                self.proven = self.period();
            }
        }
        Ok(())
    }

    /// Fills values `len..to` from a proven period `p` with saltus `s` (0 for an ordinary
    /// period): G(n) = G(n − p) + s, moving to wider cells when a value outgrows them.
    fn extend_periodic(&mut self, p: usize, s: u64, to: usize) -> Result<(), SeqError> {
        /// Fills from `from` up to `to` or the first value that does not fit (returned).
        fn fill<T: Cell>(cells: &mut [T], from: usize, to: usize, p: usize, s: u64) -> usize {
            for n in from..to {
                let v = cells[n - p].get() as u64 + s;
                if v > T::MAX as u64 {
                    return n;
                }
                cells[n] = T::put(v as usize);
            }
            to
        }
        loop {
            let done = match &mut self.values {
                Values::U16(b) => fill(b.cells_mut(), self.len, to, p, s),
                Values::U32(b) => fill(b.cells_mut(), self.len, to, p, s),
            };
            self.len = done;
            if done == to {
                return Ok(());
            }
            self.widen(done)?;
        }
    }

    /// Forgets the values from heap `n` on (keeps the first `n`).
    pub fn truncate(&mut self, n: u64) {
        let n = (n as usize).min(self.len);
        self.len = n;
        self.proven = None;
        self.next_period_check = n.max(1 << 10);
        self.method = match &self.values {
            Values::U16(b) => make_method(&self.rules, &b.cells()[..n]),
            Values::U32(b) => make_method(&self.rules, &b.cells()[..n]),
        };
    }

    /// Moves to 32-bit cells after G(n) did not fit in 16.
    fn widen(&mut self, n: usize) -> Result<(), SeqError> {
        let Values::U16(old) = &self.values else {
            return Err(SeqError::Overflow(n as u64));
        };
        let cap = old.capacity();
        let mut b = Backing::<u32>::new(cap, self.store.memory_limit, &self.store.scratch_dir)?;
        b.ensure(old.cells().len())?;
        for (dst, src) in b.cells_mut().iter_mut().zip(&old.cells()[..n]) {
            *dst = *src as u32;
        }
        self.values = Values::U32(b);
        Ok(())
    }

    /// The least period proven by the values so far.
    pub fn period(&self) -> Option<Period> {
        self.period_of(self.len)
    }

    /// The least period proven by the first `len` values (at most those computed).
    pub fn period_of(&self, len: usize) -> Option<Period> {
        let len = len.min(self.len);
        // One match on the width, then plain indexing (not a match per value).
        match &self.values {
            Values::U16(b) => {
                let c = b.cells();
                period::find(&self.rules, len, |i| u64::from(c[i]))
            }
            Values::U32(b) => {
                let c = b.cells();
                period::find(&self.rules, len, |i| u64::from(c[i]))
            }
        }
    }

    /// Largest value, where it first occurs, the rare/common split and the proven period.
    pub fn summary(&self) -> Summary {
        self.summary_of(self.len)
    }

    /// [`SeqEngine::summary`] of the first `len` values: at most those computed, or any
    /// number once a period is proven ([`SeqEngine::proven`]), the values past those
    /// computed counted from the period (in time linear in the period, not in `len`).
    pub fn summary_of(&self, len: usize) -> Summary {
        let periodic = self.proven().map(|p| (p, self.len));
        let len = if periodic.is_some() {
            len
        } else {
            len.min(self.len)
        };
        match &self.values {
            Values::U16(b) => {
                let c = b.cells();
                summarize_with(&self.rules, len, |i| u64::from(c[i]), periodic)
            }
            Values::U32(b) => {
                let c = b.cells();
                summarize_with(&self.rules, len, |i| u64::from(c[i]), periodic)
            }
        }
    }

    /// Statistics of the rare/common method: (heaps that needed a scan of the pairs, pairs
    /// scanned, pairs with a rare heap). `None` for other methods.
    pub fn sparse_stats(&self) -> Option<(u64, u64, u64)> {
        match &self.method {
            Method::Sparse(s) => Some((s.full_scans, s.scanned_pairs, s.rare_pairs)),
            _ => None,
        }
    }
}

/// The rayon pool of `threads` threads an engine keeps in `cache` (built on first use, or
/// again for another count); `None` for fewer than two threads or when no threads can be
/// had (one thread gives the same values).
fn pool_of(
    cache: &mut Option<std::sync::Arc<rayon::ThreadPool>>,
    threads: usize,
) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    if threads < 2 {
        return None;
    }
    match cache {
        Some(p) if p.current_num_threads() == threads => Some(p.clone()),
        _ => {
            let p = std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()?,
            );
            *cache = Some(p.clone());
            Some(p)
        }
    }
}

fn make_method<T: Cell>(rules: &HeapRules, known: &[T]) -> Method {
    match rules {
        HeapRules::TakeBreak { digits, unequal, .. } => match engine_of(rules) {
            TakeBreakEngine::Sparse => Method::Sparse(Box::new(sparse::Sparse::new(
                sparse::SplitRules::new(digits, !unequal.is_empty()),
                known,
            ))),
            TakeBreakEngine::Triple => Method::Triple(triple::Triple::new(digits, known)),
            TakeBreakEngine::General => Method::General(Box::new(general::General::new(rules, known))),
        },
        HeapRules::Subtraction(s) => Method::Finite(subtraction::Finite::new(s)),
        HeapRules::AllBut(e) => Method::AllBut(subtraction::AllBut::new(e, known)),
    }
}

fn run<T: Cell>(method: &mut Method, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
    match method {
        Method::Sparse(s) => s.compute(cells, from, to),
        Method::Finite(f) => f.compute(cells, from, to),
        Method::AllBut(a) => a.compute(cells, from, to),
        Method::Triple(t) => t.compute(cells, from, to),
        Method::General(g) => g.compute(cells, from, to),
    }
}

/// G(0), ..., G(count − 1) of `rules` with the fastest engine, in memory (for front ends
/// that need a table of heap values, e.g. to solve sums of large heaps: see
/// `grundy_games::heap::HeapGame::with_values`).
pub fn values(rules: &HeapRules, count: u64) -> Result<Vec<u64>, SeqError> {
    let mut e = SeqEngine::new(rules, count, StoreOptions::default())?;
    e.compute_to(count)?;
    Ok((0..e.len()).map(|i| e.get(i)).collect())
}

/// What `grundy seq` reports about G(0), ..., G(count − 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// The largest value (0 when there are none).
    pub max: u64,
    /// The first heap with the largest value.
    pub first_max_at: u64,
    /// The common values (an XOR-free set chosen from the most frequent values), when there
    /// are at most [`SPLIT_MAX_VALUES`] distinct values.
    pub common: Option<Vec<u64>>,
    /// The rare values (the other values that occur).
    pub rare: Option<Vec<u64>>,
    /// How many heaps have a rare value.
    pub rare_count: Option<u64>,
    /// When the split depends on the heap's parity (see [`sparse::Split::HeapParity`]):
    /// `(mask, alpha)`, v being common at heap n when parity(v & mask) = alpha ⊕ (n mod 2).
    /// `common` then lists the values common on even heaps, `rare` the values that occur
    /// on a heap where they are rare.
    pub split_mask: Option<(u64, u64)>,
    /// The proven period, if any.
    pub period: Option<Period>,
}

/// Most distinct values for which a summary computes the rare/common split.
pub const SPLIT_MAX_VALUES: usize = 4096;

/// The α of a split by the heap's parity for `rules` (see [`sparse::heap_parity_alpha`]),
/// for the games the rare/common method computes without the unequal rule.
fn heap_parity_alpha(rules: &HeapRules) -> Option<usize> {
    match rules {
        HeapRules::TakeBreak { digits, unequal, .. }
            if unequal.is_empty() && engine_of(rules) == TakeBreakEngine::Sparse =>
        {
            sparse::heap_parity_alpha(&sparse::SplitRules::new(digits, false).leave_two)
        }
        _ => None,
    }
}

/// The summary of `len` values read through `get`.
pub fn summarize(rules: &HeapRules, len: usize, get: impl Fn(usize) -> u64) -> Summary {
    summarize_with(rules, len, get, None)
}

/// [`summarize`]; with `periodic` = (p, known), only the first `known` values are read one
/// by one (`get` answers below `known` only), the others follow from the proven period p:
/// each residue of the period is counted with its number of heaps (by heap mod 4, as the
/// tallies need), in time linear in the period.
fn summarize_with(
    rules: &HeapRules,
    len: usize,
    get: impl Fn(usize) -> u64,
    periodic: Option<(Period, usize)>,
) -> Summary {
    let direct = periodic.map_or(len, |(_, known)| known.min(len));
    let mut max = 0;
    let mut first_max_at = 0;
    // Four tallies, heap i counted in tally i % 4: a run of equal values would otherwise
    // wait on each count's store before the next.
    let mut tallies: [Vec<u64>; 4] = [vec![0], vec![0], vec![0], vec![0]];
    let mut too_many = false;
    for i in 0..direct {
        let v = get(i);
        if v > max {
            max = v;
            first_max_at = i as u64;
            if v as usize >= 4 * SPLIT_MAX_VALUES {
                too_many = true;
            } else if !too_many {
                for t in &mut tallies {
                    t.resize(v as usize + 1, 0);
                }
            }
        }
        if !too_many {
            tallies[i & 3][v as usize] += 1;
        }
    }
    let extended = periodic.filter(|_| len > direct).map(|(p, _)| p);
    if let (Some(p), false) = (extended, too_many) {
        // Every value of the period occurs below `direct` (the proof read them), so the
        // tallies, the largest value and its first heap are those of the prefix.
        let (n0, per) = (p.n0 as usize, p.period as usize);
        for r in 0..per {
            let j = n0 + r;
            let v = get(j) as usize;
            // The heaps i ≥ direct with i ≡ j (mod per): i1, i1 + per, ... below len.
            let i1 = if j >= direct {
                j
            } else {
                j + (direct - j).div_ceil(per) * per
            };
            if i1 >= len {
                continue;
            }
            let k = (len - 1 - i1) / per + 1;
            for c in 0..k.min(4) {
                tallies[(i1 + c * per) & 3][v] += ((k - 1 - c) / 4 + 1) as u64;
            }
        }
    }
    let [t0, t1, t2, t3] = &tallies;
    let counts: Vec<u64> = (0..t0.len()).map(|v| t0[v] + t1[v] + t2[v] + t3[v]).collect();
    let distinct = counts.iter().filter(|&&c| c > 0).count();
    let (mut common, mut rare, mut rare_count) = if too_many || distinct > SPLIT_MAX_VALUES {
        (None, None, None)
    } else {
        let mut order: Vec<usize> = (0..counts.len()).filter(|&v| counts[v] > 0).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(counts[v]), v));
        let mut in_c = vec![false; counts.len().next_power_of_two() * 2];
        let mut c_list: Vec<usize> = Vec::new();
        let mut rare = Vec::new();
        for v in order {
            if v != 0 && c_list.iter().all(|&c| !in_c[v ^ c]) {
                in_c[v] = true;
                c_list.push(v);
            } else {
                rare.push(v as u64);
            }
        }
        let rare_count = rare.iter().map(|&v| counts[v as usize]).sum();
        let mut common: Vec<u64> = c_list.iter().map(|&v| v as u64).collect();
        common.sort_unstable();
        rare.sort_unstable();
        (Some(common), Some(rare), Some(rare_count))
    };
    // A split by the heap's parity, when it leaves fewer heaps rare.
    let mut split_mask = None;
    if let (Some(alpha), Some(free)) = (heap_parity_alpha(rules), rare_count) {
        let even: Vec<u64> = (0..t0.len()).map(|v| t0[v] + t2[v]).collect();
        let odd: Vec<u64> = (0..t0.len()).map(|v| t1[v] + t3[v]).collect();
        if let Some((mask, _)) = sparse::best_parity_mask(&[even.clone(), odd.clone()], alpha) {
            let common_at = |x: usize, v: usize| (v & mask).count_ones() as usize & 1 == alpha ^ x;
            // Both counts include heap 0 (G(0) = 0 is never common in a free split).
            let rare_heaps: u64 = (0..even.len())
                .map(|v| even[v] * u64::from(!common_at(0, v)) + odd[v] * u64::from(!common_at(1, v)))
                .sum();
            if rare_heaps < free {
                split_mask = Some((mask as u64, alpha as u64));
                rare_count = Some(rare_heaps);
                common = Some(
                    (0..even.len())
                        .filter(|&v| common_at(0, v))
                        .map(|v| v as u64)
                        .collect(),
                );
                rare = Some(
                    (0..even.len())
                        .filter(|&v| (even[v] > 0 && !common_at(0, v)) || (odd[v] > 0 && !common_at(1, v)))
                        .map(|v| v as u64)
                        .collect(),
                );
            }
        }
    }
    Summary {
        split_mask,
        count: len as u64,
        max,
        first_max_at,
        common,
        rare,
        rare_count,
        period: match extended {
            Some(p) => Some(p),
            None => period::find(rules, len, get),
        },
    }
}

#[cfg(test)]
mod tests;
