//! Genus sequences of heap games (misère play): the genus g^(g0 g1 ...) of every heap, with
//! the heaps marked tame or wild, and a proven period where a theorem gives one.
//!
//! Two methods:
//! - **single heaps**, for games whose moves never split a heap (subtraction games,
//!   all-but subtraction games, and take-and-break codes whose digits are 0 to 3): the
//!   options of a heap are single heaps, so the genus of heap n is a function of the genera
//!   of the heaps it can move to ([`Genus::from_options`]); each heap costs a few mex
//!   computations over its options.
//! - **sums of heaps**, for games that split heaps: the options of a heap are sums, whose
//!   genera are not functions of their parts' genera. The heaps' misère canonical forms
//!   are computed instead ([`CanonSeq`]: a sum's form from its own options, equal sums one
//!   entry), and the genus of each canonical game from its options' genera. The genus is
//!   an invariant of misère equality (Conway defines it on misère values; CGSuite computes
//!   it from canonical forms), and equal sums share one entry, which makes this far cheaper
//!   than the genus of every sum met ([`crate::genus::SumGenus`], which the tests compare
//!   it with). The forms still grow with the heap, which bounds how far this goes.
//!
//! A heap is *tame* when its genus and the genus of every heap in its options' sums are
//! tame (hereditary tameness: its followers are sums of tame heaps, and sums of tame games
//! are tame), as [`crate::genus::GenusEngine::tame`] decides it.
//!
//! # Periodicity (single heaps, bounded moves)
//!
//! For a subtraction game S(s1, ..., sk), and for a take-and-break code with digits 0 to 3
//! and t digits (a quaternary game in Allen's sense), every heap n ≥ r has the options
//! n − k for a fixed set K of removals, largest t (r = t for S, the empty heap being heap 0;
//! r = t + 1 for a code, whose "take all" moves end at t). The genus of a game depends only
//! on the set of its options' genera, and tameness of a heap only on its genus and its
//! options' tameness. So if heap n and heap n + p have the same genus and tameness for every
//! n with n0 ≤ n < max(n0 + t, r), then by induction on N ≥ max(n0 + t, r) they agree for
//! N and N + p too (both have all of K, and their options lie in [n0, N) and [n0 + p, N + p)):
//! the genus sequence is periodic with period p from n0. The state carried is the whole
//! genus, exact (its superscript is finite, see [`crate::genus`]), so the claim is about
//! the infinite superscripts, not a truncation. Allen (INTEGERS 7 (2007) #G04) cites the
//! genus sequences of finite subtraction games as eventually periodic and shows that for
//! quaternary games in general only the truncated ones must be: a window that never repeats
//! is then simply no proof. For games that split heaps no such theorem is known: no period
//! is claimed.

use super::canonical::CanonSeq;
use crate::canonical::{CanonTable, GameId};
use crate::genus::{Genus, GenusTable};
use crate::SolveError;
use grundy_core::HeapRules;

/// How a genus sequence is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenusMethod {
    /// Options are single heaps: each heap's genus from its options' genera.
    SingleHeaps,
    /// Options are sums of heaps: the canonical form of every heap and sum met.
    Sums,
}

impl GenusMethod {
    /// The method's name in summaries of canonical forms (`seq --misere --canonical`).
    pub fn forms_name(self) -> &'static str {
        match self {
            GenusMethod::SingleHeaps => "form from the options' forms (moves leave single heaps)",
            GenusMethod::Sums => "form of every sum of heaps met (moves split heaps)",
        }
    }

    /// The method's name in summaries.
    pub fn name(self) -> &'static str {
        match self {
            GenusMethod::SingleHeaps => "genus from the options' genera (moves leave single heaps)",
            GenusMethod::Sums => "genus of the canonical form of every heap (moves split heaps)",
        }
    }
}

/// A period of the genus sequence, proven by the window argument (module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenusPeriod {
    /// The period p.
    pub period: u64,
    /// The first heap of the periodic part.
    pub n0: u64,
    /// Genus and tameness of n and n + p were compared for n0 ≤ n < checked_to.
    pub checked_to: u64,
}

/// The theorem a genus period of these rules is proven by, when one applies: `(t, r)`,
/// the longest removal and the heap from which every heap has all its moves.
pub fn window(rules: &HeapRules) -> Option<(u64, u64)> {
    match rules {
        HeapRules::Subtraction(s) => {
            let t = *s.last()?;
            Some((t, t))
        }
        HeapRules::TakeBreak { repeat: 0, .. } if rules.max_parts() == 1 => {
            let t = rules.max_removal()?;
            Some((t, t + 1))
        }
        _ => None,
    }
}

/// What the window theorem is called in summaries.
pub const THEOREM: &str =
    "finite window: heaps n and n+p agree on max(S) consecutive heaps (subtraction games; quaternary codes)";

/// The genus sequence of a heap game, computed heap by heap.
pub struct GenusSeq {
    rules: HeapRules,
    method: GenusMethod,
    /// Genus of heap n, by number in `table`.
    ids: Vec<u32>,
    tame: Vec<bool>,
    table: GenusTable,
    /// For games that split heaps: the heaps' misère canonical forms, with the sums their
    /// moves leave (the genus is a function of the canonical form).
    forms: CanonSeq,
    /// The genus of each canonical game, by number in `table` (`u32::MAX`: not yet).
    form_genus: Vec<u32>,
}

impl GenusSeq {
    /// An empty sequence of `rules`' genera.
    pub fn new(rules: &HeapRules) -> GenusSeq {
        let method = if rules.max_parts() <= 1 {
            GenusMethod::SingleHeaps
        } else {
            GenusMethod::Sums
        };
        GenusSeq {
            rules: rules.clone(),
            method,
            ids: Vec::new(),
            tame: Vec::new(),
            table: GenusTable::default(),
            forms: CanonSeq::new(rules),
            form_genus: Vec::new(),
        }
    }

    /// The method this game is computed with.
    pub fn method(&self) -> GenusMethod {
        self.method
    }

    /// The rules.
    pub fn rules(&self) -> &HeapRules {
        &self.rules
    }

    /// Heaps computed: 0 .. len − 1.
    pub fn len(&self) -> u64 {
        self.ids.len() as u64
    }

    /// True before heap 0 is computed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Canonical games stored (games that split heaps; 0 for single heaps).
    pub fn forms_stored(&self) -> usize {
        match self.method {
            GenusMethod::SingleHeaps => 0,
            GenusMethod::Sums => self.forms.table().len(),
        }
    }

    /// The genus of heap `n` (computed).
    pub fn genus(&self, n: u64) -> &Genus {
        self.table.get(self.ids[n as usize])
    }

    /// Whether heap `n` (computed) is tame.
    pub fn tame(&self, n: u64) -> bool {
        self.tame[n as usize]
    }

    /// The first wild heap among those computed.
    pub fn first_wild(&self) -> Option<u64> {
        self.tame.iter().position(|&t| !t).map(|n| n as u64)
    }

    /// Computes heaps up to `to − 1`. Stops with [`SolveError::Halted`] when the process
    /// passes its memory budget (the heaps before stay computed).
    pub fn compute_to(&mut self, to: u64) -> Result<(), SolveError> {
        let mut parts: Vec<u64> = Vec::new();
        let mut option_ids: Vec<u32> = Vec::new();
        while self.len() < to {
            let n = self.len();
            parts.clear();
            option_ids.clear();
            let id = match self.method {
                GenusMethod::SingleHeaps => {
                    self.rules.heap_options(n, |p| {
                        let h = p.first().copied().unwrap_or(0);
                        parts.push(h);
                    });
                    option_ids.extend(parts.iter().map(|&h| self.ids[h as usize]));
                    option_ids.sort_unstable();
                    option_ids.dedup();
                    self.table.of_options(&option_ids)
                }
                GenusMethod::Sums => {
                    self.rules.heap_options(n, |p| parts.extend_from_slice(p));
                    self.forms.compute_to(n + 1)?;
                    let form = self.forms.form(n);
                    genus_of_form(self.forms.table(), &mut self.table, &mut self.form_genus, form)
                }
            };
            if self.ids.len() == self.ids.capacity() && grundy_core::memory::Share::whole().over() {
                return Err(SolveError::Halted);
            }
            self.ids.push(id);
            let tame =
                self.genus(n).tame().is_some() && parts.iter().all(|&h| h == 0 || self.tame[h as usize]);
            self.tame.push(tame);
        }
        Ok(())
    }

    /// The least period (with its least n0) proven by the first `len` heaps, when the
    /// window theorem applies (see the module notes).
    pub fn period_of(&self, len: u64) -> Option<GenusPeriod> {
        let same =
            |a: u64, b: u64| self.ids[a as usize] == self.ids[b as usize] && self.tame(a) == self.tame(b);
        window_period(&self.rules, len.min(self.len()), same)
    }
}

/// The genus of the canonical game `g` (numbered in `genera`), from its options' genera,
/// depth-first with an explicit stack; `known` caches each game's.
fn genus_of_form(table: &CanonTable, genera: &mut GenusTable, known: &mut Vec<u32>, g: GameId) -> u32 {
    const NONE: u32 = u32::MAX;
    if known.len() < table.len() {
        known.resize(table.len(), NONE);
    }
    if known[g as usize] != NONE {
        return known[g as usize];
    }
    let mut stack: Vec<(GameId, usize)> = vec![(g, 0)];
    let mut option_ids: Vec<u32> = Vec::new();
    while let Some(&mut (x, ref mut next)) = stack.last_mut() {
        let opts = table.options(x);
        while *next < opts.len() && known[opts[*next] as usize] != NONE {
            *next += 1;
        }
        if *next < opts.len() {
            let o = opts[*next];
            stack.push((o, 0));
            continue;
        }
        option_ids.clear();
        option_ids.extend(opts.iter().map(|&o| known[o as usize]));
        option_ids.sort_unstable();
        option_ids.dedup();
        known[x as usize] = genera.of_options(&option_ids);
        stack.pop();
    }
    known[g as usize]
}

/// A misère sequence of a heap game computed heap by heap (genera, canonical forms), as
/// `grundy seq --misere` drives it.
pub trait MisereHeapSeq {
    /// How options are found (single heaps, or sums of heaps).
    fn method(&self) -> GenusMethod;
    /// Heaps computed: 0 .. heaps_done − 1.
    fn heaps_done(&self) -> u64;
    /// Computes heaps up to `to − 1`; [`SolveError::Halted`] at the memory budget.
    fn compute_to(&mut self, to: u64) -> Result<(), SolveError>;
    /// The least period proven by the first `len` heaps, when the window theorem applies.
    fn period_of(&self, len: u64) -> Option<GenusPeriod>;
    /// What is stored besides the heaps, for messages ("1234 canonical games stored").
    fn stored(&self) -> String;
}

impl MisereHeapSeq for GenusSeq {
    fn method(&self) -> GenusMethod {
        GenusSeq::method(self)
    }
    fn heaps_done(&self) -> u64 {
        GenusSeq::len(self)
    }
    fn compute_to(&mut self, to: u64) -> Result<(), SolveError> {
        GenusSeq::compute_to(self, to)
    }
    fn period_of(&self, len: u64) -> Option<GenusPeriod> {
        GenusSeq::period_of(self, len)
    }
    fn stored(&self) -> String {
        format!("{} canonical games stored", self.forms_stored())
    }
}

/// The least period p (with its least n0) of a sequence of heap states proven by its first
/// `len` terms by the window theorem (module notes), when it applies to `rules`: `same(a, b)`
/// says whether heaps a and b have the same state (a state that, from heap r on, is a
/// function of the states of the heaps n − k for the removals k).
pub fn window_period(rules: &HeapRules, len: u64, same: impl Fn(u64, u64) -> bool) -> Option<GenusPeriod> {
    let (t, r) = window(rules)?;
    let mut p = 1;
    while p < len {
        // The least n0 with state(n + p) = state(n) for all n0 ≤ n < len − p.
        let mut n0 = len - p;
        while n0 > 0 && same(n0 - 1, n0 - 1 + p) {
            n0 -= 1;
        }
        let checked_to = (n0 + t).max(r);
        if checked_to + p <= len {
            return Some(GenusPeriod {
                period: p,
                n0,
                checked_to,
            });
        }
        p += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::genus::GenusEngine;

    fn sub(s: &[u64]) -> HeapRules {
        HeapRules::Subtraction(s.to_vec())
    }

    #[test]
    fn single_heaps_agree_with_the_sum_engine() {
        for rules in [
            sub(&[1, 2]),
            sub(&[2, 3, 7]),
            sub(&[1, 3, 4]),
            HeapRules::take_break(&[0, 3, 1, 2], &[], 0).unwrap(),
            HeapRules::AllBut(vec![2, 5]),
        ] {
            let mut seq = GenusSeq::new(&rules);
            assert_eq!(seq.method(), GenusMethod::SingleHeaps);
            seq.compute_to(40).unwrap();
            agree_with_the_sum_engine(&seq, 40);
        }
    }

    /// For games that split heaps the genus comes from each heap's canonical form: it must
    /// be the genus the sum engine computes from the heap's own tree (every sum met), for
    /// every heap, with the same tameness.
    #[test]
    fn genus_of_forms_agrees_with_the_sum_engine() {
        for rules in [
            HeapRules::take_break(&[0, 7, 7], &[], 0).unwrap(),
            HeapRules::take_break(&[0, 0, 7], &[], 0).unwrap(),
            HeapRules::take_break(&[0, 1, 3, 7], &[], 0).unwrap(),
            HeapRules::take_break(&[0, 4, 4], &[], 0).unwrap(),
            HeapRules::take_break(&[0, 6, 4], &[], 0).unwrap(),
            HeapRules::take_break(&[0, 1, 5, 2], &[], 0).unwrap(),
            HeapRules::grundys_game(),
        ] {
            let mut seq = GenusSeq::new(&rules);
            assert_eq!(seq.method(), GenusMethod::Sums);
            seq.compute_to(22).unwrap();
            agree_with_the_sum_engine(&seq, 22);
        }
    }

    /// The genus and tameness of heaps 0 .. len − 1 of `seq` are those the sum engine
    /// computes from each heap's own tree.
    fn agree_with_the_sum_engine(seq: &GenusSeq, len: u64) {
        let rules = seq.rules();
        let mut e = GenusEngine::new(rules);
        for n in 0..len {
            let pos: Vec<u64> = if n == 0 { vec![] } else { vec![n] };
            assert_eq!(seq.genus(n), &e.sum_genus(&pos).unwrap(), "{rules:?} heap {n}");
            let tame = n == 0 || e.tame(&n).unwrap().is_some();
            assert_eq!(seq.tame(n), tame, "{rules:?} heap {n}");
        }
    }

    #[test]
    fn published_non_tame_quaternaries() {
        // Plambeck's list (tests/data/quaternary-non-tame.tsv): the four-digit quaternary
        // codes with a heap of non-tame genus among their first 50 heaps. Every code
        // 0.d1d2d3d4, digits 0 to 3, is computed; the set with a wild heap below 51 (a heap
        // of non-tame genus, or one that reaches such a heap, which is then also below 51)
        // must be exactly the published one.
        let published: std::collections::BTreeSet<String> =
            crate::test_rules::fixture_rows("quaternary-non-tame.tsv")
                .into_iter()
                .collect();
        assert_eq!(published.len(), 23);
        let mut found = std::collections::BTreeSet::new();
        let mut codes = 0;
        for c in 1..256u64 {
            let digits: Vec<u32> = (0..4).rev().map(|i| (c >> (2 * i) & 3) as u32).collect();
            let rules =
                HeapRules::take_break(&[0, digits[0], digits[1], digits[2], digits[3]], &[], 0).unwrap();
            let mut seq = GenusSeq::new(&rules);
            assert_eq!(seq.method(), GenusMethod::SingleHeaps);
            seq.compute_to(51).unwrap();
            codes += 1;
            if let Some(n) = seq.first_wild() {
                // The first wild heap has a genus of its own that is not tame.
                assert!(seq.genus(n).tame().is_none(), "{digits:?} heap {n}");
                let code: String = digits.iter().map(|d| d.to_string()).collect();
                found.insert(format!("0.{code}"));
            }
        }
        assert_eq!(codes, 255);
        assert_eq!(found, published);
    }

    #[test]
    fn proven_periods_hold_further() {
        // Every proof found in a short prefix must hold over a much longer one.
        let mut proven = 0;
        for set in [
            vec![1, 2],
            vec![2, 3, 7],
            vec![1, 3, 4],
            vec![2, 5, 6],
            vec![3, 4, 9],
            vec![1, 4, 5, 11],
        ] {
            let rules = sub(&set);
            let mut seq = GenusSeq::new(&rules);
            seq.compute_to(3000).unwrap();
            for len in [60, 200, 600] {
                if let Some(p) = seq.period_of(len) {
                    proven += 1;
                    for n in p.n0..3000 - p.period {
                        assert_eq!(seq.genus(n), seq.genus(n + p.period), "{set:?} {p:?} at {n}");
                        assert_eq!(seq.tame(n), seq.tame(n + p.period));
                    }
                }
            }
        }
        assert!(proven >= 10, "only {proven} proofs");
        // No claim for games that split heaps.
        let kayles = HeapRules::take_break(&[0, 7, 7], &[], 0).unwrap();
        let mut seq = GenusSeq::new(&kayles);
        seq.compute_to(12).unwrap();
        assert_eq!(seq.period_of(12), None);
    }

    #[test]
    fn subtraction_one_two() {
        // S(1,2): G(n) = n mod 3; heaps are tame (a subtraction game of Nim-like heaps).
        let mut seq = GenusSeq::new(&sub(&[1, 2]));
        seq.compute_to(30).unwrap();
        let p = seq.period_of(30).unwrap();
        assert_eq!(p.period, 3);
        for n in 0..30 {
            assert_eq!(seq.genus(n).g, n % 3);
        }
    }
}
