//! The rare/common method on several cores, as a pipeline over batches of 8 heaps.
//!
//! Most of the work for heap n needs only heaps settled long before: its pairs with a rare
//! heap (one pass over the rare list marks them for 8 consecutive heaps), and the first
//! pairs of common heaps of its scan. Helper threads mark exactly those, a few batches
//! ahead, with whatever heaps are settled when they start the batch: with h helpers, helper
//! i takes the batches t ≡ i (mod h), so each does 1/h of the rare passes. The main thread
//! settles the heaps strictly in order, marking what a helper could not (pairs with heaps
//! settled after it started, the rest of the scan) and finishing each heap as on one
//! thread. Marking is idempotent and the stopping rule of the scan only needs every rare
//! pair marked, so the values are exactly those of one thread, whatever the number of
//! helpers and however they are scheduled.
//!
//! The share adapts: when the main thread had to wait for a helper, the helpers mark fewer
//! pairs of the scans, then leave the last rare heaps of their pass to the main thread; when
//! a helper had to wait, the other way round (see [`Sparse::balance`]). Each helper marks
//! in option sets of its own and hands each batch over as bits ([`Packed`]).
//!
//! The main thread never sleeps waiting for a helper: when a batch is not ready within
//! [`TAKE_AFTER`] it takes it over (marks it itself, as one thread would), and the helper,
//! finding the batch taken, drops what it marked and goes on with its next one. On a busy
//! machine a helper may wait a whole time slice of the scheduler for a core; the main
//! thread then goes on alone instead of waiting with it, and the helpers' work counts
//! whenever they run.
//!
//! What serialises: the main thread's share (unpacking each batch, the pairs the helpers
//! left, the mex and the scans of the heaps whose candidate is rare). Once the helpers
//! together mark faster than the main thread settles, more helpers only wait (see
//! docs/benchmarks.md for the measured split and the scaling it implies).
//!
//! During a chunk the common set may gain values first seen in the chunk (as on one
//! thread); the rare list only grows at its end, and a heap's rare entry is published
//! before the heap itself.

use super::dense::{Mirror, Settled};
use super::{limit_of, mark_rare, Marks, Rare, Seen, Small, Sparse, BATCH};
use crate::seq::simd::{self, Cpu};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Batches each helper may have ready ahead of the main thread (fewer were slower on
/// Officers with one helper, more no faster).
const AHEAD: usize = 6;
/// How long a thread waiting for another spins before it sleeps.
pub(super) const SPIN_FOR: std::time::Duration = std::time::Duration::from_micros(50);
/// The most pairs of each heap's scan a helper marks.
const MAX_AHEAD_PAIRS: isize = 1 << 14;
/// The most rare heaps of its pass a helper leaves to the main thread.
const MAX_LEFT: isize = 1 << 14;

/// Slots of the ring of batches between the main thread and `helpers` helpers.
fn slots_for(helpers: usize) -> usize {
    AHEAD * helpers + 1
}

/// How much the share of the work moves when one thread had to wait for another.
fn step(balance: isize) -> isize {
    (balance.unsigned_abs() / 8 + 8) as isize
}

/// A slot's turn for batch t (from the chunk's start): free for its helper to fill.
fn free_for(t: usize) -> usize {
    3 * t
}

/// A slot's turn once batch t is ready for the main thread.
fn ready(t: usize) -> usize {
    3 * t + 1
}

/// A slot's turn once the main thread took batch t over (its helper was late): the main
/// thread marks the batch itself, and its helper, which may still be marking it, drops its
/// marks.
fn taken(t: usize) -> usize {
    3 * t + 2
}

/// How long the main thread waits for a helper's batch before it marks the batch itself
/// (about the time one thread takes for a batch of Officers: a helper that is descheduled on
/// a busy machine would otherwise hold the main thread up for a time slice).
pub(super) const TAKE_AFTER: std::time::Duration = std::time::Duration::from_micros(8);

/// The 16-bit cells, shared by the threads. Only the main thread writes, each cell once,
/// before publishing it; the helpers read only cells published before they look. With a
/// [`Mirror`] lent to it, every cell written goes to the mirror too.
pub(super) struct SharedCells {
    ptr: *mut u16,
    len: usize,
    /// The mirror's buffer (cell j at `rev + rev_len − 1 − j`), or null.
    rev: *mut u16,
    rev_len: usize,
}

// SAFETY: the pointers (the cells', the mirror's) are only used as the type's methods
// document: reads of published cells (never written again) and writes of unpublished ones
// by one thread, a cell and its mirror's copy together. Sending it to another thread keeps
// that so.
#[allow(unsafe_code)]
unsafe impl Send for SharedCells {}
// SAFETY: as for `Send`: shared between the threads, the cells are only read once published
// and only written, by the main thread alone, before.
#[allow(unsafe_code)]
unsafe impl Sync for SharedCells {}

impl SharedCells {
    /// The first `end` cells of `cells` (all of them when fewer), to share.
    pub(super) fn new(cells: &mut [u16], end: usize) -> SharedCells {
        SharedCells {
            ptr: cells.as_mut_ptr(),
            len: cells.len().min(end),
            rev: std::ptr::null_mut(),
            rev_len: 0,
        }
    }

    /// The same with `mirror`, which must already hold the cells settled now and have room
    /// for every cell of these ([`Mirror::sync`]), and must not be touched while these live
    /// (then [`Mirror::written_to`] with the cells written).
    pub(super) fn with_mirror(self, mirror: &mut Mirror) -> SharedCells {
        let (rev, rev_len) = mirror.raw();
        assert!(rev_len >= self.len);
        SharedCells { rev, rev_len, ..self }
    }

    /// [`SharedCells::settled`] with the mirror's cells below `n` (empty without a mirror).
    #[allow(unsafe_code)]
    pub(super) fn settled_mirrored(&self, n: usize) -> Settled<'_> {
        let cells = self.settled(n);
        if self.rev.is_null() {
            return Settled::plain(cells);
        }
        // SAFETY: the mirror has room for every cell (`with_mirror`), and those below `n`
        // are settled there too: written with their cell, before it was published.
        let rev = unsafe { std::slice::from_raw_parts(self.rev.add(self.rev_len - n), n) };
        Settled { cells, rev }
    }

    /// The cells below `n`, all of them settled: no cell below `n` may be written while the
    /// slice lives.
    #[allow(unsafe_code)]
    pub(super) fn settled(&self, n: usize) -> &[u16] {
        assert!(n <= self.len);
        // SAFETY: in bounds (checked), and the cells below `n` are settled: the main thread
        // writes only cells at or above the published count, and `n` never exceeds it.
        unsafe { std::slice::from_raw_parts(self.ptr, n) }
    }

    /// Writes cell `n`, which no slice from [`SharedCells::settled`] covers yet.
    #[allow(unsafe_code)]
    pub(super) fn write(&self, n: usize, v: u16) {
        assert!(n < self.len);
        // SAFETY: in bounds (checked); cell n is not published, so no thread reads it.
        unsafe { self.ptr.add(n).write(v) }
        if !self.rev.is_null() {
            // SAFETY: n < len <= rev_len (`with_mirror`); the mirror's cell n is not
            // published either.
            unsafe { self.rev.add(self.rev_len - 1 - n).write(v) }
        }
    }
}

/// What the main thread publishes at every heap and the helpers read at every batch, in
/// cache lines of its own (no other data moves between the cores with it).
#[repr(align(128))]
struct Progress {
    /// Heaps below this are settled and visible.
    published: AtomicUsize,
    /// Rare entries of [`Shared::rare`] that are valid.
    rare_len: AtomicUsize,
    /// The largest value settled so far.
    max_value: AtomicUsize,
}

/// A slot of the ring of batches, in cache lines of its own: its turn, its lock and the
/// batch's header move between the cores together. Batch t uses slot t % slots; the turn
/// says which batch may use the slot now and whether it is filled ([`free_for`],
/// [`ready`]), so a helper never fills a slot before the main thread has read the batch
/// that used it last.
#[repr(align(128))]
struct Slot {
    turn: AtomicUsize,
    batch: Mutex<Packed>,
}

/// What the threads share besides the cells.
struct Shared {
    cells: SharedCells,
    progress: Progress,
    /// Rare entries ([`Rare::bits`]); the first `progress.rare_len` are valid.
    rare: Vec<AtomicU64>,
    /// How the work is shared ([`Sparse::balance`]).
    balance: AtomicIsize,
    /// The ring of batches.
    slots: Vec<Slot>,
    /// Helper threads (helper i is thread i + 1; the main thread is thread 0).
    helpers: usize,
    /// Set when any thread stops early: the others stop waiting.
    stop: AtomicBool,
    /// [`TAKE_AFTER`], or what a test asks for.
    take_after: std::time::Duration,
    /// Whether each thread sleeps in [`Shared::wait`], and the threads themselves (to wake
    /// them).
    sleeping: Vec<AtomicBool>,
    threads: Vec<std::sync::OnceLock<std::thread::Thread>>,
}

impl Shared {
    /// Slot `i` for helper thread `me` once its turn is at least `turn`; false when another
    /// thread stopped. When the slot is not free at once, `adjust` changes the helpers'
    /// share of the work first (the helper is ahead: it takes more).
    fn claim(&self, i: usize, turn: usize, me: usize, adjust: impl Fn(isize) -> isize) -> bool {
        if self.slots[i].turn.load(Ordering::Acquire) >= turn {
            return true;
        }
        self.adjust(adjust);
        self.wait(i, turn, me)
    }

    fn adjust(&self, adjust: impl Fn(isize) -> isize) {
        let _ = self
            .balance
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |x| Some(adjust(x)));
    }

    /// Batch t in slot `i` for the main thread: `Some(true)` when its helper filled it,
    /// `Some(false)` when the main thread is to mark it itself (the helper was not done
    /// within [`TAKE_AFTER`], or gave it up), None when another thread stopped. The main
    /// thread never sleeps: a helper that is late costs it one batch of marking, not a time
    /// slice of the scheduler.
    fn take_or_wait(&self, i: usize, t: usize) -> Option<bool> {
        let turn = &self.slots[i].turn;
        // The main thread gave the slot to batch t: its turn is free_for(t), ready(t) or
        // taken(t), and only the main thread moves it on.
        let mut x = turn.load(Ordering::Acquire);
        if x != ready(t) && x != taken(t) {
            // The helpers are behind: give them less of the work.
            self.adjust(|b| (b - step(b)).max(-MAX_LEFT));
            let started = std::time::Instant::now();
            let mut spins = 0u32;
            while x == free_for(t) {
                spins += 1;
                if spins.is_multiple_of(16) {
                    if self.stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    if started.elapsed() >= self.take_after {
                        x = match turn.compare_exchange(
                            free_for(t),
                            taken(t),
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        ) {
                            Ok(_) => taken(t),
                            Err(now) => now,
                        };
                        break;
                    }
                }
                std::hint::spin_loop();
                x = turn.load(Ordering::Acquire);
            }
        }
        debug_assert!(x == ready(t) || x == taken(t));
        Some(x == ready(t))
    }

    /// Waits until slot `i`'s turn is at least `turn`; false when another thread stopped.
    /// `me` is i + 1 for helper i. Spins first (a batch takes microseconds), then sleeps
    /// until the main thread, which sets the turn, wakes it (on a busy machine a spinning
    /// thread would take the core another one needs).
    fn wait(&self, i: usize, turn: usize, me: usize) -> bool {
        let started = std::time::Instant::now();
        let mut spins = 0u32;
        while self.slots[i].turn.load(Ordering::Acquire) < turn {
            spins += 1;
            if spins.is_multiple_of(64) && (started.elapsed() > SPIN_FOR || self.stop.load(Ordering::Relaxed))
            {
                break;
            }
            std::hint::spin_loop();
        }
        if self.slots[i].turn.load(Ordering::Acquire) >= turn {
            return true;
        }
        loop {
            self.sleeping[me].store(true, Ordering::SeqCst);
            if self.slots[i].turn.load(Ordering::SeqCst) >= turn {
                self.sleeping[me].store(false, Ordering::Relaxed);
                return true;
            }
            if self.stop.load(Ordering::SeqCst) {
                return false;
            }
            // The timeout only guards against a lost wake-up; `set` wakes the sleeper.
            std::thread::park_timeout(std::time::Duration::from_millis(1));
        }
    }

    /// Gives slot `i` the turn `turn` and wakes thread `who` (the one waiting for that
    /// turn) if it sleeps.
    fn set(&self, i: usize, turn: usize, who: usize) {
        self.slots[i].turn.store(turn, Ordering::SeqCst);
        self.wake(who);
    }

    fn wake(&self, who: usize) {
        if self.sleeping[who].swap(false, Ordering::SeqCst) {
            if let Some(t) = self.threads[who].get() {
                t.unpark();
            }
        }
    }

    /// The helper thread that fills batch t.
    fn helper_of(&self, t: usize) -> usize {
        1 + t % self.helpers
    }

    /// The slot's batch (locked only by the thread whose turn it is).
    fn slot(&self, i: usize) -> std::sync::MutexGuard<'_, Packed> {
        self.slots[i].batch.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sets the stop flag when dropped (also when a thread panics), so no other thread waits
/// forever.
struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
        for who in 0..self.0.sleeping.len() {
            self.0.wake(who);
        }
    }
}

impl Sparse {
    /// Computes the heaps `from..to` (whole batches only, from ≥ the batch threshold) on
    /// `threads` threads (at least 2: the main thread and `threads − 1` helpers). Returns how
    /// far it got: `Ok(n)` when every heap below n is settled (n is `to` rounded down to
    /// whole batches), `Err(n)` when G(n) does not fit in 16 bits.
    pub(super) fn compute_pipelined(
        &mut self,
        cells: &mut [u16],
        from: usize,
        to: usize,
        threads: usize,
    ) -> Result<usize, usize> {
        let end = from + (to - from) / BATCH * BATCH;
        if end == from {
            return Ok(from);
        }
        let helpers = threads.max(2) - 1;
        let slots = slots_for(helpers);
        let sh = Shared {
            cells: SharedCells::new(cells, end),
            progress: Progress {
                published: AtomicUsize::new(from),
                rare_len: AtomicUsize::new(self.rare.len()),
                max_value: AtomicUsize::new(self.max_value),
            },
            rare: self
                .rare
                .iter()
                .map(|&r| AtomicU64::new(r.bits()))
                .chain((from..end).map(|_| AtomicU64::new(0)))
                .collect(),
            balance: AtomicIsize::new(self.balance),
            slots: (0..slots)
                .map(|i| Slot {
                    turn: AtomicUsize::new(free_for(i)),
                    batch: Mutex::new(self.pool.pop().unwrap_or_else(Packed::new)),
                })
                .collect(),
            helpers,
            stop: AtomicBool::new(false),
            take_after: self.take_after,
            sleeping: (0..=helpers).map(|_| AtomicBool::new(false)).collect(),
            threads: (0..=helpers).map(|_| std::sync::OnceLock::new()).collect(),
        };
        let _ = sh.threads[0].set(std::thread::current());
        let rules = self.rules.clone();
        let mut result = Ok(end);
        let mut helper_marks = std::mem::take(&mut self.helper_marks);
        while helper_marks.len() < helpers {
            helper_marks.push(Marks::new());
        }
        let mut own = self.batch.take().unwrap_or_else(Marks::new);
        let cpu = self.cpu;
        let helper_pairs = std::thread::scope(|s| {
            let workers: Vec<_> = helper_marks
                .iter_mut()
                .take(helpers)
                .enumerate()
                .map(|(h, marks)| {
                    let (sh, rules) = (&sh, &rules);
                    s.spawn(move || {
                        let _ = sh.threads[h + 1].set(std::thread::current());
                        let _stop = StopOnDrop(sh);
                        helper(sh, rules, h, from, end, marks, cpu)
                    })
                })
                .collect();
            let _stop = StopOnDrop(&sh);
            let mut n0 = from;
            let mut t = 0;
            while n0 < end {
                let i = t % slots;
                match sh.take_or_wait(i, t) {
                    None => break,
                    Some(true) => {
                        let packed = sh.slot(i);
                        debug_assert_eq!(packed.n0, n0);
                        packed.unpack(&mut own, cpu);
                    }
                    Some(false) => {
                        // Its helper was late: the whole batch here, as on one thread.
                        own.reset(n0, limit_of(self.max_value));
                        self.rare_pairs +=
                            mark_rare(&self.rules, &self.rare, sh.cells.settled(n0), &mut own, 0);
                        self.taken_batches += 1;
                    }
                }
                let next = t + slots;
                sh.set(i, free_for(next), sh.helper_of(next));
                let r = self.finish_shared(&sh, &mut own);
                if let Err(n) = r {
                    result = Err(n);
                    break;
                }
                n0 += BATCH;
                t += 1;
            }
            let settled = sh.progress.published.load(Ordering::Relaxed);
            if result.is_ok() && settled < end {
                result = Ok(settled);
            }
            drop(_stop);
            let mut pairs = (0, 0);
            for w in workers {
                // A panic of a helper is a bug: pass it on.
                let (r, s) = w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                pairs.0 += r;
                pairs.1 += s;
            }
            pairs
        });
        self.helper_marks = helper_marks;
        self.batch = Some(own);
        self.rare_pairs += helper_pairs.0;
        self.scanned_pairs += helper_pairs.1;
        self.balance = sh.balance.load(Ordering::Relaxed);
        self.pool = sh
            .slots
            .into_iter()
            .map(|s| s.batch.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        result
    }

    /// Settles the 8 heaps of `marks`' batch in order, publishing each.
    fn finish_shared(&mut self, sh: &Shared, marks: &mut Marks) -> Result<(), usize> {
        let n0 = marks.n0;
        self.index_bounds(n0, &marks.rare, &mut marks.bounds);
        for j in 0..BATCH {
            let n = n0 + j;
            let g = self.finish(sh.cells.settled(n), n, marks, j);
            if g > u16::MAX as usize {
                return Err(n);
            }
            sh.cells.write(n, g as u16);
            let rare_before = self.rare.len();
            let max_before = self.max_value;
            self.note(n, g);
            if self.rare.len() > rare_before {
                let i = sh.progress.rare_len.load(Ordering::Relaxed);
                sh.rare[i].store(Rare::new(n, g).bits(), Ordering::Relaxed);
                sh.progress.rare_len.store(i + 1, Ordering::Release);
            }
            if g > max_before {
                sh.progress.max_value.store(self.max_value, Ordering::Relaxed);
            }
            sh.progress.published.store(n + 1, Ordering::Release);
        }
        Ok(())
    }
}

/// Helper thread `h`: for each of its batches (t ≡ h modulo the helpers), marks what the
/// settled heaps allow in its own option sets and hands them over packed. Returns the pairs
/// it marked (rare pairs, pairs of the scans).
fn helper(
    sh: &Shared,
    rules: &super::SplitRules,
    h: usize,
    from: usize,
    end: usize,
    marks: &mut Marks,
    cpu: Cpu,
) -> (u64, u64) {
    let mut rare: Vec<Rare> = Vec::new();
    let (mut rare_pairs, mut scan_pairs) = (0, 0);
    let slots = sh.slots.len();
    let mut t = h;
    let mut nb = from + h * BATCH;
    while nb < end {
        let i = t % slots;
        // When ahead of the main thread, take more of the work.
        if !sh.claim(i, free_for(t), h + 1, |b| (b + step(b)).min(MAX_AHEAD_PAIRS)) {
            break;
        }
        let turn = &sh.slots[i].turn;
        let settled_to = sh.progress.published.load(Ordering::Acquire);
        // Skip the batch when the main thread took it over, or is at it already (it would
        // take it over before this helper is done).
        let late = settled_to >= nb
            && turn
                .compare_exchange(free_for(t), taken(t), Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        if !late && turn.load(Ordering::Acquire) == free_for(t) {
            let len = sh.progress.rare_len.load(Ordering::Acquire);
            for e in &sh.rare[rare.len()..len] {
                rare.push(Rare::from_bits(e.load(Ordering::Relaxed)));
            }
            let settled = sh.cells.settled(settled_to);
            marks.reset(nb, limit_of(sh.progress.max_value.load(Ordering::Relaxed)));
            let balance = sh.balance.load(Ordering::Relaxed);
            let r = mark_rare(rules, &rare, settled, marks, (-balance).max(0) as usize);
            let p = mark_scan(rules, settled, balance.max(0) as usize, marks);
            // Hand the batch over unless the main thread took it over meanwhile (under the
            // lock: the main thread may have passed the slot on to a later batch, whose
            // helper packs it under the lock too, after this one).
            let mut slot = sh.slot(i);
            if turn.load(Ordering::Acquire) == free_for(t) {
                slot.pack(marks, cpu);
                if turn
                    .compare_exchange(free_for(t), ready(t), Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    drop(slot);
                    sh.wake(0);
                    rare_pairs += r;
                    scan_pairs += p;
                }
            }
        }
        nb += sh.helpers * BATCH;
        t += sh.helpers;
    }
    (rare_pairs, scan_pairs)
}

/// Marks, for each heap of the batch, up to `count` pairs (a, m − a) of its scan for the
/// first split rule whose heaps are all in `settled`; records them in `marks.pairs`.
fn mark_scan(rules: &super::SplitRules, settled: &[u16], count: usize, marks: &mut Marks) -> u64 {
    let Some(&k) = rules.leave_two.first() else {
        return 0;
    };
    let s = settled.len();
    let mut total = 0;
    for j in 0..BATCH {
        let n = marks.n0 + j;
        if k + 2 > n {
            continue;
        }
        let m = n - k;
        let half = if rules.unequal && m.is_multiple_of(2) {
            m / 2 - 1
        } else {
            m / 2
        };
        // m − a < s, and a ≤ half.
        let p0 = (m + 1).saturating_sub(s).max(1);
        let p1 = (p0 + count).min(half + 1);
        if p0 >= p1 {
            continue;
        }
        let mut seen = Small(marks.seen(j), 1 << 16);
        // Pairs (a, m − a) for a in [p0, p1), in blocks as the main thread marks them.
        let mut a = p0;
        while a < p1 {
            let b = (a + 256).min(p1);
            seen.mark_pairs(&settled[a..b], &settled[m + 1 - b..m + 1 - a]);
            a = b;
        }
        marks.pairs[j] = (p0, p1);
        total += (p1 - p0) as u64;
    }
    total
}

/// 64-bit words of a packed option set (2^16 values).
const WORDS: usize = 1 << 10;

/// A batch's marks as the helper hands them to the main thread: the 8 option sets as bits
/// (a byte per value would make each batch's sets, 4 KiB and more, move between the cores'
/// caches twice: to the main thread, and back when the helper clears them), with the ranges
/// they cover.
#[derive(Clone, Debug)]
pub(super) struct Packed {
    n0: usize,
    /// 64-bit words of each set in use (of [`WORDS`]).
    words: usize,
    /// Set j in `bits[j * words..]` (one after the other: fewer cache lines to move): value
    /// v marked when bit v % 64 of word v / 64 is set.
    bits: Vec<u64>,
    rare: Vec<(usize, usize)>,
    pairs: [(usize, usize); BATCH],
}

impl Packed {
    fn new() -> Packed {
        Packed {
            n0: 0,
            words: 0,
            bits: vec![0; BATCH * WORDS],
            rare: Vec::new(),
            pairs: [(0, 0); BATCH],
        }
    }

    /// Packs `marks` (every set clean up to `marks.cleared` bytes, none marked beyond), with
    /// the SIMD instructions of `cpu`.
    fn pack(&mut self, marks: &mut Marks, cpu: Cpu) {
        self.n0 = marks.n0;
        self.words = marks.cleared.div_ceil(64).min(WORDS);
        self.rare.clear();
        self.rare.extend_from_slice(&marks.rare);
        self.pairs = marks.pairs;
        let words = self.words;
        for (j, seen) in marks.seens().into_iter().enumerate() {
            let out = &mut self.bits[j * words..(j + 1) * words];
            simd::pack_bytes(cpu, &seen[..words * 64], out);
        }
    }

    /// Unpacks into `marks` (which then holds the batch as the helper marked it), with the
    /// SIMD instructions of `cpu`.
    fn unpack(&self, marks: &mut Marks, cpu: Cpu) {
        marks.n0 = self.n0;
        marks.rare.clear();
        marks.rare.extend_from_slice(&self.rare);
        marks.pairs = self.pairs;
        let words = self.words;
        for (j, seen) in marks.seens().into_iter().enumerate() {
            simd::unpack_bits(
                cpu,
                &self.bits[j * words..(j + 1) * words],
                &mut seen[..words * 64],
            );
        }
        marks.cleared = words * 64;
    }
}
