//! The rare/common method on two cores. Heap n needs the values of heaps below n − 1 for
//! almost all of its work: only the options that involve heap n − 1 itself (leaving it by
//! removing one token, or the split into 1 and n − 1) must wait for G(n − 1). So two threads
//! take heaps in turn (even, odd): each computes its heap's rare pairs and scans pairs while
//! the other finishes the previous heap, then waits for G(n − 1), adds the few options it
//! brings, and settles G(n).
//!
//! During a chunk the common set C is fixed; a value first seen in the chunk counts as rare.
//! Heaps are settled strictly in order, so the rare list only grows at its end, and a heap
//! is published (with its rare entry) before the next heap may settle.

use super::sparse::{Bits, SplitRules};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering};

/// Shared state of one chunk.
struct Shared<'a> {
    values: &'a [AtomicU16],
    rare: &'a [AtomicU64],
    rare_len: AtomicUsize,
    /// Heaps below this are settled and visible.
    published: AtomicUsize,
    max_value: AtomicUsize,
    /// Set when a value does not fit in 16 bits: both threads stop.
    failed: AtomicBool,
    failed_at: AtomicUsize,
}

/// Stops the other worker (instead of leaving it waiting forever) if this one panics.
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Release);
        }
    }
}

/// Views 16-bit cells as atomics, so two threads may read settled heaps while one writes a
/// new one.
#[allow(unsafe_code)]
fn as_atomic(cells: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the same size, alignment (2) and bit validity as u16, and the
    // exclusive borrow of `cells` for the returned lifetime rules out any non-atomic access
    // meanwhile (this is what the unstable `AtomicU16::from_mut_slice` does). Why not plain
    // atomics storage: the one-thread engine reads the same cells as u16 slices, which
    // vectorise. Benchmark: `cargo test --release -p grundy-solve time_two_threads --
    // --ignored --nocapture` (see docs/benchmarks.md; not yet measured on a quiet
    // machine).
    unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) }
}

fn pack(pos: u32, val: u32) -> u64 {
    ((pos as u64) << 32) | val as u64
}

fn unpack(x: u64) -> (usize, usize) {
    ((x >> 32) as usize, (x & 0xFFFF_FFFF) as usize)
}

fn limit_for(max: usize) -> usize {
    let bits = usize::BITS - max.leading_zeros();
    ((1usize << bits) + 1).min(1 << 16)
}

/// Waits until heaps below `n` are settled; false when the chunk failed.
fn wait_for(sh: &Shared, n: usize) -> bool {
    let mut spins = 0u32;
    loop {
        if sh.published.load(Ordering::Acquire) >= n {
            return true;
        }
        if sh.failed.load(Ordering::Relaxed) {
            return false;
        }
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

fn mex(seen: &[u8; 1 << 16], limit: usize) -> usize {
    seen[..limit].iter().position(|&b| b == 0).unwrap_or(limit)
}

/// Where a scan of pairs stands: split rule index and next `a`.
struct ScanAt {
    ki: usize,
    a: usize,
}

/// Statistics of one worker.
#[derive(Default)]
pub(super) struct WorkerStats {
    pub full_scans: u64,
    pub scanned_pairs: u64,
    pub rare_pairs: u64,
}

/// Scans pairs from `at` on, marking them, until the mex is common; returns the mex.
#[allow(clippy::too_many_arguments)]
fn scan(
    sh: &Shared,
    rules: &SplitRules,
    common: &Bits,
    seen: &mut [u8; 1 << 16],
    limit: usize,
    n: usize,
    at: &mut ScanAt,
    mut result: usize,
    stats: &mut WorkerStats,
) -> usize {
    const BLOCK: usize = 128;
    let get = |i: usize| sh.values[i].load(Ordering::Relaxed) as usize;
    while at.ki < rules.leave_two.len() {
        let k = rules.leave_two[at.ki];
        if k + 2 > n {
            break;
        }
        let m = n - k;
        let half = if rules.unequal && m & 1 == 0 {
            m / 2 - 1
        } else {
            m / 2
        };
        // With k = 0 the pair (1, n − 1) waits for G(n − 1); it is marked separately.
        if k == 0 && at.a < 2 {
            at.a = 2;
        }
        while at.a <= half {
            let end = (at.a + BLOCK).min(half + 1);
            stats.scanned_pairs += (end - at.a) as u64;
            for a in at.a..end {
                seen[(get(a) ^ get(m - a)) & 0xFFFF] = 1;
            }
            at.a = end;
            if seen.get(result).is_some_and(|&b| b != 0) {
                result = mex(seen, limit);
                if common.has(result) {
                    return result;
                }
            }
        }
        at.ki += 1;
        at.a = 1;
    }
    result
}

/// One worker: heaps `first`, `first + 2`, ... below `to`.
fn worker(sh: &Shared, rules: &SplitRules, common: &Bits, first: usize, to: usize) -> WorkerStats {
    let mut stats = WorkerStats::default();
    let mut seen: Box<[u8; 1 << 16]> = vec![0u8; 1 << 16]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| Box::new([0u8; 1 << 16]));
    let get = |i: usize| sh.values[i].load(Ordering::Relaxed) as usize;
    let mut n = first;
    while n < to {
        // n ≥ 2 here (chunks start far from 0).
        if !wait_for(sh, n - 1) {
            return stats;
        }
        let mut limit = limit_for(sh.max_value.load(Ordering::Relaxed));
        seen[..limit].fill(0);
        if rules.take_all.binary_search(&n).is_ok() {
            seen[0] = 1;
        }
        for &k in &rules.leave_one {
            if k >= n {
                break;
            }
            if k >= 2 {
                seen[get(n - k) & 0xFFFF] = 1;
            }
        }
        let rare_len = sh.rare_len.load(Ordering::Acquire);
        for &k in &rules.leave_two {
            if k + 2 > n {
                break;
            }
            let m = n - k;
            // Rare heaps a with a < m and a ≤ n − 2 (a = n − 1 pairs with heap 1 when k = 0,
            // and a = 1 with heap n − 1: both wait for G(n − 1)).
            let entries = &sh.rare[..rare_len];
            let pos = |e: &AtomicU64| unpack(e.load(Ordering::Relaxed)).0;
            let hi = entries.partition_point(|e| pos(e) < m.min(n - 1));
            let lo = usize::from(k == 0 && entries.first().is_some_and(|e| pos(e) == 1));
            stats.rare_pairs += hi.saturating_sub(lo) as u64;
            for entry in entries.get(lo..hi).unwrap_or(&[]) {
                let (a, ga) = unpack(entry.load(Ordering::Relaxed));
                let b = m - a;
                if rules.unequal && a == b {
                    continue;
                }
                seen[(ga ^ get(b)) & 0xFFFF] = 1;
            }
        }
        let mut at = ScanAt { ki: 0, a: 1 };
        let partial = mex(&seen, limit);
        if !common.has(partial) {
            stats.full_scans += 1;
            scan(
                sh, rules, common, &mut seen, limit, n, &mut at, partial, &mut stats,
            );
        }
        // Now the options that involve heap n − 1.
        if !wait_for(sh, n) {
            return stats;
        }
        let g1 = get(n - 1);
        let new_limit = limit_for(sh.max_value.load(Ordering::Relaxed));
        if new_limit > limit {
            seen[limit..new_limit].fill(0);
            limit = new_limit;
        }
        if rules.leave_one.first() == Some(&1) && n >= 2 {
            seen[g1 & 0xFFFF] = 1;
        }
        if rules.leave_two.first() == Some(&0) && n >= 2 && !(rules.unequal && n == 2) {
            seen[(get(1) ^ g1) & 0xFFFF] = 1;
        }
        let mut result = mex(&seen, limit);
        if !common.has(result) {
            result = scan(
                sh, rules, common, &mut seen, limit, n, &mut at, result, &mut stats,
            );
        }
        if result > u16::MAX as usize {
            sh.failed_at.store(n, Ordering::Relaxed);
            sh.failed.store(true, Ordering::Release);
            return stats;
        }
        sh.values[n].store(result as u16, Ordering::Relaxed);
        sh.max_value.fetch_max(result, Ordering::Relaxed);
        if !common.has(result) {
            let i = sh.rare_len.load(Ordering::Relaxed);
            sh.rare[i].store(pack(n as u32, result as u32), Ordering::Relaxed);
            sh.rare_len.store(i + 1, Ordering::Release);
        }
        sh.published.store(n + 1, Ordering::Release);
        n += 2;
    }
    stats
}

/// Computes heaps `from..to` (from ≥ 2) on two threads with the fixed common set `common`
/// and the rare list `rare`, which grows by the chunk's rare heaps. Returns the largest
/// value seen, or the first heap whose value does not fit in 16 bits.
pub(super) fn chunk(
    rules: &SplitRules,
    common: &Bits,
    rare: &mut Vec<(u32, u32)>,
    max_value: usize,
    cells: &mut [u16],
    from: usize,
    to: usize,
) -> (Result<usize, usize>, WorkerStats) {
    let shared_rare: Vec<AtomicU64> = rare
        .iter()
        .map(|&(a, g)| AtomicU64::new(pack(a, g)))
        .chain((from..to).map(|_| AtomicU64::new(0)))
        .collect();
    let sh = Shared {
        values: as_atomic(cells),
        rare: &shared_rare,
        rare_len: AtomicUsize::new(rare.len()),
        published: AtomicUsize::new(from),
        max_value: AtomicUsize::new(max_value),
        failed: AtomicBool::new(false),
        failed_at: AtomicUsize::new(usize::MAX),
    };
    let (s0, s1) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let _guard = StopOnPanic(&sh.failed);
            worker(&sh, rules, common, from + 1, to)
        });
        let s0 = {
            let _guard = StopOnPanic(&sh.failed);
            worker(&sh, rules, common, from, to)
        };
        // A panic is a bug: pass it on rather than return unsettled heaps.
        let s1 = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        (s0, s1)
    });
    let len = sh.rare_len.load(Ordering::Acquire);
    rare.clear();
    rare.extend(shared_rare[..len].iter().map(|e| {
        let (a, g) = unpack(e.load(Ordering::Relaxed));
        (a as u32, g as u32)
    }));
    let stats = WorkerStats {
        full_scans: s0.full_scans + s1.full_scans,
        scanned_pairs: s0.scanned_pairs + s1.scanned_pairs,
        rare_pairs: s0.rare_pairs + s1.rare_pairs,
    };
    if sh.failed.load(Ordering::Acquire) {
        (Err(sh.failed_at.load(Ordering::Relaxed)), stats)
    } else {
        (Ok(sh.max_value.load(Ordering::Relaxed)), stats)
    }
}
