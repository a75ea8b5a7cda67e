//! Proven periodicity. For a take-and-break game whose moves remove at most t tokens and
//! leave at most h heaps, if G(n + p) = G(n) for every n with n0 ≤ n < h·n0 + (h−1)·p + t,
//! then G is periodic with period p from n0 on (for h = 2 this is the Guy–Smith theorem,
//! `2·n0 + p + t`; for h = 1, subtraction games, `n0 + t`; the h = 3 bound follows from the
//! same argument with the largest of three heaps). Games with other rules (Grundy's game,
//! all-but subtraction) get no claim at all.

use grundy_core::HeapRules;

/// A period proven from the computed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The period p.
    pub period: u64,
    /// The first heap of the periodic part (the last exception is n0 − 1).
    pub n0: u64,
    /// The bound of the theorem: G(n + p) = G(n) was checked for n0 ≤ n < checked_to.
    pub checked_to: u64,
}

/// The parameters (h, t) of the periodicity theorem for `rules`, when one applies.
pub fn theorem(rules: &HeapRules) -> Option<(u64, u64)> {
    match rules {
        HeapRules::TakeBreak { unequal: true, .. } => None,
        HeapRules::AllBut(_) => None,
        r => Some((r.max_parts() as u64, r.max_removal().unwrap_or(0))),
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
pub fn find(rules: &HeapRules, len: usize, get: impl Fn(usize) -> u64) -> Option<Period> {
    let (h, t) = theorem(rules)?;
    let len = len as u64;
    let mut p = 1u64;
    // The smallest possible proof needs bound(h, t, p, 0) + p ≤ len.
    while bound(h, t, p, 0) + p <= len {
        // n0(p): the least n0 with G(n + p) = G(n) for all n0 ≤ n < len − p.
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
            });
        }
        p += 1;
    }
    None
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
        let r = HeapRules::TakeBreak {
            digits: vec![0],
            unequal: false,
        };
        let p = find(&r, 10, |_| 0).unwrap();
        assert_eq!((p.period, p.n0), (1, 0));
    }

    #[test]
    fn no_claim_without_enough_values() {
        let r = HeapRules::Subtraction(vec![1, 2]);
        let v = [0u64, 1, 2, 0, 1];
        // bound(1, 2, 3, 0) + 3 = 1 + 2 + 3 = 6 > 5 values.
        assert_eq!(find(&r, v.len(), |i| v[i]), None);
    }
}
