//! Proven periodicity. For a take-and-break game whose moves remove at most t tokens and
//! leave at most h heaps, if G(n + p) = G(n) for every n with n0 ≤ n < h·n0 + (h−1)·p + t,
//! then G is periodic with period p from n0 on (for h = 2 this is the Guy–Smith theorem,
//! `2·n0 + p + t`; for h = 1, subtraction games, `n0 + t`; the h = 3 bound follows from the
//! same argument with the largest of h heaps, for any h). Games with unequal splits (Grundy's
//! game) or a repeating digit block get no claim at all.
//!
//! All-but subtraction games (remove any count except those of E, e = max E) have values
//! that grow; they are *arithmetic*-periodic: G(n + p) = G(n) + s. That is proven when
//! G(n + p) = G(n) + s for n0 ≤ n < n0 + e and the values of the heaps below n0 + p are,
//! as a set, {0, ..., s − 1} together with the values of the heaps below n0 shifted by s.
//! (For N ≥ n0 + e every heap below n0 + p is an option of N + p and every heap below n0 an
//! option of N, so G(N + p) = mex({0..s−1} ∪ (options of N + s)) = G(N) + s, by induction.)

use grundy_core::HeapRules;

/// A period proven from the computed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The period p.
    pub period: u64,
    /// The first heap of the periodic part (the last exception is n0 − 1).
    pub n0: u64,
    /// The bound of the theorem: G(n + p) = G(n) (+ saltus) was checked for
    /// n0 ≤ n < checked_to.
    pub checked_to: u64,
    /// For arithmetic periodicity, s in G(n + p) = G(n) + s; 0 for ordinary periodicity.
    pub saltus: u64,
}

/// The parameters (h, t) of the periodicity theorem for `rules`, when one applies: not for
/// unequal splits, all-but games (see [`find_arithmetic`]) or repeating digit blocks.
pub fn theorem(rules: &HeapRules) -> Option<(u64, u64)> {
    match rules {
        r if r.has_unequal() => None,
        HeapRules::AllBut(_) => None,
        // A repeating block removes any count: no bound t, no theorem.
        r => Some((r.max_parts() as u64, r.max_removal()?)),
    }
}

/// The bound up to which G(n + p) = G(n) must be checked.
pub fn bound(h: u64, t: u64, p: u64, n0: u64) -> u64 {
    // From n0 = 0 the argument needs non-empty heaps: prove from 1, then G(p) = G(0) extends
    // the period down to 0 (the scan below checks that equality too).
    h * n0.max(1) + (h - 1) * p + t
}

/// The least period proven by `len` values read through `get`, with its least n0, or
/// `None` ("no period proven up to len").
///
/// Linear in `len` for the sequences met in practice: n0(p) is found by comparing
/// G(n − 1 + p) with G(n − 1) from the end backwards, which stops at the first mismatch
/// after a few steps for most p. The exception is a multiple p = k·d of a period d that
/// matched over a long stretch (every multiple of a true period matches back to the
/// preperiod): there the comparison starts below n0(d) instead of at the end, since
/// G(n + p) = G(n) follows for every n ≥ n0(d) from k steps of d. Without that, a
/// periodic tail of length L made each multiple cost L, and each look quadratic (0.376,
/// period 4 from 2 268 248: hours instead of seconds).
///
/// Take-and-break games with no ordinary period proven are then tried for an arithmetic
/// period (see [`super::arith`]: finite codes with splits into three heaps or more).
pub fn find(rules: &HeapRules, len: usize, get: impl Fn(usize) -> u64) -> Option<Period> {
    if let HeapRules::AllBut(excluded) = rules {
        return find_arithmetic(excluded.last().copied().unwrap_or(0), len, get);
    }
    find_ordinary(rules, len, &get).or_else(|| super::arith::find(rules, len, &get))
}

/// [`find`] for ordinary periods (saltus 0) of take-and-break and subtraction games.
fn find_ordinary(rules: &HeapRules, len: usize, get: &impl Fn(usize) -> u64) -> Option<Period> {
    let (h, t) = theorem(rules)?;
    let len = len as u64;
    // Periods d whose backward comparison ran long, with n0(d), their multiples' start.
    let mut long_runs: Vec<(u64, u64)> = Vec::new();
    let mut p = 1u64;
    // The smallest possible proof needs bound(h, t, p, 0) + p ≤ len.
    while bound(h, t, p, 0) + p <= len {
        // n0(p): the least n0 with G(n + p) = G(n) for all n0 ≤ n < len − p.
        let start = long_runs
            .iter()
            .filter(|&&(d, _)| p.is_multiple_of(d))
            .map(|&(_, n0)| n0)
            .min();
        let mut n0 = start.unwrap_or(len - p).min(len - p);
        while n0 > 0 && get((n0 - 1) as usize) == get((n0 - 1 + p) as usize) {
            n0 -= 1;
        }
        let b = bound(h, t, p, n0);
        if b + p <= len {
            return Some(Period {
                period: p,
                n0,
                checked_to: b,
                saltus: 0,
            });
        }
        if start.is_none() && len - p - n0 >= LONG_RUN.max(p) && long_runs.len() < MAX_LONG_RUNS {
            long_runs.push((p, n0));
        }
        p += 1;
    }
    None
}

/// A backward comparison this long (and at least the period) makes the period's multiples
/// start below its n0 (see [`find`]).
const LONG_RUN: u64 = 64;
/// At most this many such periods are remembered (each is checked against every later p).
const MAX_LONG_RUNS: usize = 16;

/// [`find`] as first written, comparing every p from the end: quadratic on a long periodic
/// tail, kept as the reference the fast one is tested against.
#[cfg(test)]
pub(crate) fn find_simple(rules: &HeapRules, len: usize, get: impl Fn(usize) -> u64) -> Option<Period> {
    let (h, t) = theorem(rules)?;
    let len = len as u64;
    let mut p = 1u64;
    while bound(h, t, p, 0) + p <= len {
        let mut n0 = len - p;
        while n0 > 0 && get((n0 - 1) as usize) == get((n0 - 1 + p) as usize) {
            n0 -= 1;
        }
        let b = bound(h, t, p, n0);
        if b + p <= len {
            return Some(Period {
                period: p,
                n0,
                checked_to: b,
                saltus: 0,
            });
        }
        p += 1;
    }
    None
}

/// The least proven arithmetic period of an all-but game whose largest excluded count is
/// `e` (see the module documentation for the proof).
pub fn find_arithmetic(e: u64, len: usize, get: impl Fn(usize) -> u64) -> Option<Period> {
    let e = e as usize;
    let mut p = 1usize;
    while p + e < len {
        let last = len - p - 1;
        let (a, b) = (get(last), get(last + p));
        if b >= a {
            let s = b - a;
            // The least n0 with G(n + p) = G(n) + s for n0 ≤ n < len − p.
            let mut n0 = last;
            while n0 > 0 && get(n0 - 1 + p) == get(n0 - 1) + s {
                n0 -= 1;
            }
            // Condition on values: try a few starts from n0 on.
            let top = (len - p).saturating_sub(e);
            for start in n0..=top.min(n0 + 64) {
                if start + e + p > len {
                    break;
                }
                if shifted_sets_match(start, p, s, &get) {
                    return Some(Period {
                        period: p as u64,
                        n0: start as u64,
                        checked_to: (start + e) as u64,
                        saltus: s,
                    });
                }
            }
        }
        p += 1;
    }
    None
}

/// True when {G(m) : m < n0 + p} = {0, ..., s − 1} ∪ ({G(m) : m < n0} + s).
fn shifted_sets_match(n0: usize, p: usize, s: u64, get: &impl Fn(usize) -> u64) -> bool {
    let mut all: Vec<u64> = (0..n0 + p).map(get).collect();
    all.sort_unstable();
    all.dedup();
    let mut want: Vec<u64> = (0..s).chain((0..n0).map(|m| get(m) + s)).collect();
    want.sort_unstable();
    want.dedup();
    all == want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_is_guy_smith_for_octal() {
        assert_eq!(bound(2, 2, 12, 71), 2 * 71 + 12 + 2);
    }

    #[test]
    fn constant_sequence_has_period_one() {
        let r = HeapRules::take_break(&[0], &[], 0).unwrap();
        let p = find(&r, 10, |_| 0).unwrap();
        assert_eq!((p.period, p.n0), (1, 0));
    }

    #[test]
    fn nim_is_arithmetic_periodic() {
        let r = HeapRules::AllBut(vec![]);
        let p = find(&r, 10, |i| i as u64).unwrap();
        assert_eq!((p.period, p.n0, p.saltus), (1, 0, 1));
    }

    #[test]
    fn no_claim_without_enough_values() {
        let r = HeapRules::Subtraction(vec![1, 2]);
        let v = [0u64, 1, 2, 0, 1];
        // bound(1, 2, 3, 0) + 3 = 1 + 2 + 3 = 6 > 5 values.
        assert_eq!(find(&r, v.len(), |i| v[i]), None);
    }

    proptest::proptest! {
        /// Against the simple search: preperiods of random values, then a periodic tail
        /// (long, so multiples of the period match far back), and random sequences.
        #[test]
        fn find_agrees_with_the_simple_search(
            pre in proptest::collection::vec(0u64..4, 0..300),
            cycle in proptest::collection::vec(0u64..4, 1..6),
            tail in 0usize..1500,
            cut in 0usize..40,
            t in 1u64..5,
        ) {
            let mut v = pre.clone();
            v.extend((0..tail).map(|i| cycle[i % cycle.len()]));
            let len = v.len().saturating_sub(cut);
            let digits: Vec<u32> = std::iter::once(0).chain((1..=t).map(|i| if i == t { 7 } else { 3 })).collect();
            let r = HeapRules::take_break(&digits, &[], 0).unwrap();
            proptest::prop_assert_eq!(find(&r, len, |i| v[i]), find_simple(&r, len, |i| v[i]));
        }
    }
}
