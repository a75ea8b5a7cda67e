//! Arithmetic periodicity of take-and-break games: G(n + p) = G(n) + s for every n ≥ n0,
//! with a saltus s = 2^m, proven from finitely many values by the *level argument* below
//! (written out with its proof in docs/games.md, "Arithmetic periodicity of take-and-break
//! games"). It applies to finite codes without the unequal flag whose moves may leave three
//! heaps or more (hexadecimal games and wider codes); finite octal games are never
//! arithmetic-periodic (Horrocks and Nowakowski, INTEGERS 3 (2003) G1), and the check
//! below can never succeed for them (far levels need a three-heap split).
//!
//! The published theorem for hexadecimal games (Howse and Nowakowski, Theoretical Computer
//! Science 313 (2004) 463–472) could not be read here; this is a sufficient condition of
//! our own, proven in the docs, and its claims are tested against direct computation.
//!
//! In short: write every heap a ≥ n1 = max(n0, 1) as a = r + p·q with r in [n1, n1 + p)
//! (the *base* heaps) and every value as v = low + s·level (low < s). If the formula
//! G(a) = G(r) + s·q holds for the parts of a move, the option's low part depends only on
//! the move's *type* (the removal k, the sizes of the parts below n1 and the bases of the
//! others), and its level is `ks ⊕ (y_1 ⊕ … ⊕ y_j)` where ks is the XOR of the levels of the
//! small parts and the y_i ≥ level(G(r_i)) are any numbers with a fixed sum T. For a heap
//! M = ρ + p·Q that sum is T = Q* − e, Q* = level(G(ρ)) + Q being the level the formula
//! gives M and e a constant of the type. Which levels a type reaches is then known well
//! enough near the top (levels Q* − e for small e: a function of Q* mod 2^B only, 2^B above
//! every ks), at the bottom (small levels) and in between (every level of one parity, from
//! a split into three heaps or more: y = (x, c, c)). The check asks, for every base ρ and
//! every class of Q* mod 2^B, that the options reach every (level, low) pair below the one
//! the formula gives M and never that pair; then G(M) follows the formula for every M past
//! a bound M0, by induction, and the values below M0 are checked directly.

use super::period::Period;
use grundy_core::heap::Digit;
use grundy_core::HeapRules;
use std::collections::HashSet;

/// Largest period tried.
const MAX_PERIOD: usize = 256;
/// Largest n1 + p: heap sizes below it are enumerated as the parts of a move's type.
const MAX_BASE: usize = 320;
/// Most multisets of parts enumerated for one (p, n1) before the check gives up.
const MAX_MULTISETS: u64 = 2_000_000;
/// Most bits of 2^B (every XOR of the levels of heaps below n1 is below 2^B).
const MAX_CLASS_BITS: u32 = 8;
/// Largest saltus tried.
const MAX_SALTUS: u64 = 1 << 12;
/// A stretch of G(n + p) = G(n) + s at least this long (and at least p) before the level
/// check is tried.
const MIN_RUN: usize = 24;
/// The representative of large levels: a multiple of every 2^B used.
const BIG: u64 = 1 << 40;

/// The least period p (with its least n0) of an arithmetic periodicity that the level
/// argument proves from `len` values read through `get`, or `None`. `checked_to` in the
/// answer is the bound: G(n + p) = G(n) + s was checked for n0 ≤ n < checked_to, and
/// `checked_to + p ≤ len`.
pub fn find(rules: &HeapRules, len: usize, get: &impl Fn(usize) -> u64) -> Option<Period> {
    let HeapRules::TakeBreak {
        digits,
        unequal,
        repeat: 0,
    } = rules
    else {
        return None;
    };
    if !unequal.is_empty() || rules.max_parts() < 3 {
        return None;
    }
    let mut p = 1usize;
    while p <= MAX_PERIOD && p + MIN_RUN < len {
        let last = len - 1;
        let (a, b) = (get(last - p), get(last));
        if b > a && (b - a).is_power_of_two() && b - a <= MAX_SALTUS {
            let s = b - a;
            // The least n0 with G(n + p) = G(n) + s for n0 ≤ n < len − p.
            let mut n0 = last - p;
            while n0 > 0 && get(n0 - 1 + p) == get(n0 - 1) + s {
                n0 -= 1;
            }
            if len - p - n0 >= MIN_RUN.max(p) {
                if let Some(m0) = level_check(digits, p, s, n0.max(1), len, get) {
                    let checked_to = m0.saturating_sub(p).max(n0);
                    if checked_to + p <= len {
                        return Some(Period {
                            period: p as u64,
                            n0: n0 as u64,
                            checked_to: checked_to as u64,
                            saltus: s,
                        });
                    }
                }
            }
        }
        p += 1;
    }
    None
}

/// One kind of move for heaps M ≡ ρ (mod p), as the level argument sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Kind {
    /// The XOR of the low parts of the values of its parts.
    low: u64,
    /// The XOR of the levels of its small parts (heaps below n1).
    ks: u64,
    /// T = Q* − e: the sum of the large parts' levels (see the module documentation).
    e: i64,
    /// Number of large parts (at least 1).
    large: usize,
    /// x = T is reached (one large part, or at most one with a positive least level).
    top: bool,
    /// Every x ≡ T (mod 2) with lo ≤ x ≤ T − 2·pairs is reached: `(lo, pairs)`.
    spread: Option<(u64, u64)>,
    /// x = 0 is reached when T is even and T/2 ≥ this (an even number of large parts).
    zero: Option<u64>,
}

/// The heap M0 from which the level argument proves G(M) = G(ρ) + s·Q (M = ρ + p·Q,
/// ρ in [n1, n1 + p)) for every M, given that formula for every heap in [n1, M); `None`
/// when it does not apply. Reads G(a) for a < n1 + p (which must be below `len`).
fn level_check(
    digits: &[Digit],
    p: usize,
    s: u64,
    n1: usize,
    len: usize,
    get: &impl Fn(usize) -> u64,
) -> Option<usize> {
    let base = n1 + p;
    if base > MAX_BASE || base > len {
        return None;
    }
    let m = s.trailing_zeros();
    let low = |v: u64| v & (s - 1);
    let level = |v: u64| v >> m;
    let g: Vec<u64> = (0..base).map(get).collect();
    let t = digits.len() - 1;
    let max_small_level = (1..n1).map(|a| level(g[a])).max().unwrap_or(0);
    let bits = (64 - max_small_level.leading_zeros()).max(1);
    if bits > MAX_CLASS_BITS {
        return None;
    }
    let w = 1u64 << bits;

    // Every type of move, with its parts' sizes below `base` (a part a ≥ n1 stands for
    // every heap a + p·q): (c = k + sum of the sizes, low, ks, sorted least levels).
    let mut types: HashSet<(usize, u64, u64, Vec<u64>)> = HashSet::new();
    // The largest c of a type whose parts are all small (it is a move of heap c only).
    let mut small_only_c = 0usize;
    let mut enumerated = 0u64;
    let mut parts: Vec<usize> = Vec::new();
    for (k, &d) in digits.iter().enumerate() {
        for j in 1..Digit::BITS as usize {
            if d >> j & 1 == 0 {
                continue;
            }
            // Nondecreasing part sizes in [1, base), in lexicographic order.
            parts.clear();
            parts.resize(j, 1);
            loop {
                enumerated += 1;
                if enumerated > MAX_MULTISETS {
                    return None;
                }
                let c = k + parts.iter().sum::<usize>();
                let mut lows = 0;
                let mut ks = 0;
                let mut lbs: Vec<u64> = Vec::new();
                for &a in &parts {
                    lows ^= low(g[a]);
                    if a < n1 {
                        ks ^= level(g[a]);
                    } else {
                        lbs.push(level(g[a]));
                    }
                }
                if lbs.is_empty() {
                    small_only_c = small_only_c.max(c);
                } else {
                    lbs.sort_unstable();
                    types.insert((c, lows, ks, lbs));
                }
                // The next multiset: the last part that can grow grows, the later ones
                // take its new size.
                let Some(i) = (0..j).rev().find(|&i| parts[i] + 1 < base) else {
                    break;
                };
                let v = parts[i] + 1;
                for x in &mut parts[i..] {
                    *x = v;
                }
            }
        }
    }

    let mut m0 = (t + 1).max(small_only_c + 1).max(base);
    for (rho, &g_rho) in g.iter().enumerate().skip(n1) {
        let (low_rho, level_rho) = (low(g_rho), level(g_rho));
        let mut kinds: HashSet<Kind> = HashSet::new();
        // Q from which every type of this class is a move of M = ρ + p·Q.
        let mut q_active = 0u64;
        let mut least_level_max = 0u64;
        for (c, lows, ks, lbs) in &types {
            if *c < rho || (*c - rho) % p != 0 {
                continue;
            }
            let shift = ((*c - rho) / p) as u64;
            q_active = q_active.max(shift);
            least_level_max = least_level_max.max(*lbs.last().unwrap_or(&0));
            let e = level_rho as i64 + shift as i64 - lbs.iter().sum::<u64>() as i64;
            let n = lbs.len();
            let positive = lbs.iter().filter(|&&b| b > 0).count();
            // Pairs (y, y) absorb T − x; each pair's y is at least its larger least level.
            let pair_sum = |from: usize| -> u64 { lbs[from..].iter().skip(1).step_by(2).sum() };
            let spread = if n >= 3 && n % 2 == 1 {
                // x on the smallest, pairs (b1, b2), (b3, b4), ...
                Some((lbs[0], pair_sum(1)))
            } else if n >= 4 && lbs[0] == 0 {
                // 0 on the smallest, x on the next, pairs after them.
                Some((lbs[1], pair_sum(2)))
            } else {
                None
            };
            let zero = (n % 2 == 0).then(|| pair_sum(0));
            kinds.insert(Kind {
                low: *lows,
                ks: *ks,
                e,
                large: n,
                top: n == 1 || positive <= 1,
                spread,
                zero,
            });
        }
        let kinds: Vec<Kind> = kinds.into_iter().collect();
        let e_max = kinds.iter().map(|k| k.e).max().unwrap_or(0).max(0) as u64;
        let pairs_max = kinds
            .iter()
            .map(|k| k.spread.map_or(0, |(_, p)| p).max(k.zero.unwrap_or(0)))
            .max()
            .unwrap_or(0);
        let top_depth = e_max + 2 * pairs_max + 2 * w + 2;
        let bottom = least_level_max + 2 * w;
        for z in 0..w {
            let qs = BIG + z;
            let t_of = |k: &Kind| (qs as i64 - k.e) as u64;
            // No option has the value the formula gives M: (level Q*, low part of G(ρ)).
            for k in kinds.iter().filter(|k| k.low == low_rho) {
                let t = t_of(k);
                if k.large == 1 {
                    if t ^ k.ks == qs {
                        return None;
                    }
                } else {
                    let x = qs ^ k.ks;
                    if x <= t && (x & 1) == (t & 1) {
                        return None;
                    }
                }
            }
            // The top levels Q* − d, d ≤ top_depth.
            let mut covered = vec![false; (top_depth as usize + 1) * s as usize];
            for k in &kinds {
                let t = t_of(k);
                let mut mark = |x: u64| {
                    let lv = x ^ k.ks;
                    if lv <= qs && qs - lv <= top_depth {
                        covered[(qs - lv) as usize * s as usize + k.low as usize] = true;
                    }
                };
                if k.top {
                    mark(t);
                }
                if let Some((lo, pairs)) = k.spread {
                    let hi = (t - 2 * pairs).min(qs + w);
                    let mut x = lo.max(qs - top_depth - w);
                    if (x & 1) != (t & 1) {
                        x += 1;
                    }
                    while x <= hi {
                        mark(x);
                        x += 2;
                    }
                }
            }
            for d in 0..=top_depth as usize {
                let need = if d == 0 { low_rho } else { s };
                if (0..need as usize).any(|l| !covered[d * s as usize + l]) {
                    return None;
                }
            }
            // The bottom levels 0 ≤ v < bottom.
            for v in 0..bottom {
                for l in 0..s {
                    let ok = kinds.iter().any(|k| {
                        let t = t_of(k);
                        k.low == l
                            && (k.spread.is_some_and(|(lo, _)| {
                                let x = v ^ k.ks;
                                x >= lo && (x & 1) == (t & 1)
                            }) || (k.zero.is_some() && v == k.ks && t % 2 == 0))
                    });
                    if !ok {
                        return None;
                    }
                }
            }
            // Every level in between, of either parity.
            for l in 0..s {
                for parity in 0..2u64 {
                    let ok = kinds
                        .iter()
                        .any(|k| k.low == l && k.spread.is_some() && (parity ^ (k.ks & 1)) == (t_of(k) & 1));
                    if !ok {
                        return None;
                    }
                }
            }
        }
        // The least Q* for which the representative's answers hold (see the docs).
        let q_star = (top_depth + w + least_level_max)
            .max(bottom + w + e_max + 2 * pairs_max)
            .max(top_depth + bottom)
            + 1;
        let q = q_star.saturating_sub(level_rho).max(q_active);
        m0 = m0.max(rho + p * q as usize);
    }
    Some(m0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::naive;

    fn tb(digits: &[Digit]) -> HeapRules {
        HeapRules::take_break(digits, &[], 0).unwrap()
    }

    /// Every claim holds on values computed directly far past its bound.
    fn claim_holds(r: &HeapRules, p: &Period, far: &[u64]) {
        for n in p.n0 as usize..far.len() - p.period as usize {
            assert_eq!(
                far[n] + p.saltus,
                far[n + p.period as usize],
                "{r:?} {p:?} at {n}"
            );
        }
    }

    /// The games a first search found arithmetic-periodic: each is proven, with the period,
    /// saltus and n0 it has, and the claim holds far past the bound.
    #[test]
    fn known_games_are_proven() {
        for (d, want) in [
            (&[0u32, 15, 15][..], (1, 1, 0)), // 0.FF: G(n) = n
            (&[8][..], (2, 1, 1)),            // 8.0: split into three heaps
            (&[0, 12][..], (2, 1, 1)),        // 0.C
            (&[0, 8][..], (3, 1, 1)),         // 0.8
            (&[0, 11, 15][..], (1, 1, 4)),    // 0.BF
            (&[0, 8, 15][..], (7, 4, 7)),     // 0.8F
        ] {
            let r = tb(d);
            let v = naive::values(&r, 300);
            let p = find(&r, v.len(), &|i| v[i]).unwrap_or_else(|| panic!("{d:?}: no claim"));
            assert_eq!((p.period, p.saltus, p.n0), want, "{d:?}");
            let far = naive::values(&r, (4 * (p.checked_to + p.period) as usize).max(400));
            claim_holds(&r, &p, &far);
            // Too few values: no claim.
            let short = (p.checked_to + p.period - 1) as usize;
            if let Some(q) = find(&r, short, &|i| v[i]) {
                assert!(
                    q.checked_to + q.period <= short as u64,
                    "{d:?}: {q:?} from {short} values"
                );
            }
        }
    }

    /// Once proven, an arithmetic period fills the later values (G(n) = G(n − p) + s),
    /// moving to 32-bit cells past 65535: the same values as computing every heap.
    #[test]
    fn proven_arithmetic_period_fills_later_values() {
        let r = tb(&[0, 15, 15]);
        let mut e = crate::seq::SeqEngine::new(&r, 70_000, crate::seq::StoreOptions::default()).unwrap();
        e.compute_to(70_000).unwrap();
        assert_eq!(e.width(), 4);
        assert!((0..70_000).all(|n| e.get(n) == n));
        let r = tb(&[0, 8, 15]);
        let mut fast = crate::seq::SeqEngine::new(&r, 5000, crate::seq::StoreOptions::default()).unwrap();
        let mut slow = crate::seq::SeqEngine::new(&r, 5000, crate::seq::StoreOptions::default()).unwrap();
        slow.use_period(false);
        fast.compute_to(5000).unwrap();
        slow.compute_to(5000).unwrap();
        assert!((0..5000).all(|n| fast.get(n) == slow.get(n)));
    }

    /// Octal games (two heaps at most) never get an arithmetic claim, and neither do
    /// periodic or unequal games.
    #[test]
    fn no_claim_without_three_heap_splits() {
        for d in [&[0u32, 7, 7][..], &[4][..], &[0, 4, 7]] {
            let r = tb(d);
            let v = naive::values(&r, 300);
            assert_eq!(find(&r, v.len(), &|i| v[i]), None);
        }
        let g = HeapRules::take_break(&[8], &[true], 0).unwrap();
        let v = naive::values(&g, 200);
        assert_eq!(find(&g, v.len(), &|i| v[i]), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Random hexadecimal codes of one to three digits: every claim holds on the values
        /// computed by the definition to four times its bound (and at least 480 heaps).
        #[test]
        fn every_claim_holds_far_past_its_bound(
            d0 in proptest::sample::select(vec![0u32, 4, 8, 12]),
            rest in proptest::collection::vec(0u32..16, 1..3),
        ) {
            let mut d = vec![d0];
            d.extend(rest);
            let r = tb(&d);
            let v = naive::values(&r, 240);
            if let Some(p) = find(&r, v.len(), &|i| v[i]) {
                proptest::prop_assert!(p.saltus.is_power_of_two());
                proptest::prop_assert!(p.checked_to + p.period <= v.len() as u64);
                let far = naive::values(&r, (4 * (p.checked_to + p.period) as usize).max(480));
                for n in p.n0 as usize..far.len() - p.period as usize {
                    proptest::prop_assert_eq!(far[n] + p.saltus, far[n + p.period as usize], "{:?} {:?} at {}", d, p, n);
                }
            }
        }
    }
    /// Every code d0.d1d2 (d0 in 0, 4, 8, C; d1, d2 hexadecimal) with 600 values: prints
    /// the claims and checks each on values computed to four times its bound. Long: run with
    /// `cargo test -p grundy-solve --lib every_two_digit_code -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn every_two_digit_code() {
        let (mut claims, mut codes) = (0, 0);
        let started = std::time::Instant::now();
        for d0 in [0u32, 4, 8, 12] {
            for d1 in 0..16 {
                for d2 in 0..16 {
                    let r = tb(&[d0, d1, d2]);
                    if r.max_parts() < 3 {
                        continue;
                    }
                    codes += 1;
                    let v = naive::values(&r, 600);
                    if let Some(p) = find(&r, v.len(), &|i| v[i]) {
                        claims += 1;
                        eprintln!(
                            "{d0:X}.{d1:X}{d2:X}: period {} saltus {} n0 {} checked_to {}",
                            p.period, p.saltus, p.n0, p.checked_to
                        );
                        let far = naive::values(&r, (4 * (p.checked_to + p.period) as usize).max(800));
                        claim_holds(&r, &p, &far);
                    }
                }
            }
        }
        eprintln!(
            "{claims} claims among {codes} codes with three-heap splits, {:?}",
            started.elapsed()
        );
    }
}
