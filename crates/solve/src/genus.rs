//! Conway's genus, and the tame components it certifies, to shortcut misère search.
//!
//! The genus of a game G is g^(g0 g1 g2 ...) where g = G⁺(G) is its normal-play Grundy value
//! and g_k = G⁻(G + k·*2) is the misère Grundy value of G plus k heaps of size 2 (G⁻ of a
//! position without moves is 1, otherwise the mex of its options' G⁻). Nim heaps have the
//! genera 0^(120), 1^(031) and a^(a,a⊕2) (for sums with a heap of 2 or more); a game all of
//! whose followers have such *tame* genera plays in misère sums exactly like a sum of Nim
//! heaps (Winning Ways, ch. 13): a sum of tame components is a misère P-position iff either
//! every component is of the first two kinds and the nim-sum of their g is 1, or some
//! component is of the third kind and the nim-sum is 0.
//!
//! # How the genus is computed
//!
//! The genus of a game is a function of the genera of its options alone (this is how
//! CGSuite computes it too), by two facts:
//!
//! 1. G⁻(X + *1) = G⁻(X) ⊕ 1 for every game X. By induction on X: a position without
//!    moves has G⁻ = 1, and X + *1 then has the one option X, so G⁻ = mex{1} = 0. Otherwise
//!    let A be the set of G⁻ of the options X′ of X and v = mex A. The options of X + *1
//!    are X (value v) and the X′ + *1 (values a ⊕ 1, a ∈ A, by induction). If v is even,
//!    the values 0..v−1 lie in A in pairs {2j, 2j+1}, so A ⊕ 1 holds them too, v is there,
//!    and v + 1 is not (v ∉ A): the mex is v + 1 = v ⊕ 1. If v is odd, A ⊕ 1 holds
//!    0..v−2 and not v − 1 (v ∉ A), and v is no help below it: the mex is v − 1 = v ⊕ 1.
//! 2. For k ≥ 1 the options of G + k·*2 are G′ + k·*2, G + (k−1)·*2 + *1 and
//!    G + (k−1)·*2, so g_k = mex({g′_k over options G′} ∪ {g_(k−1), g_(k−1) ⊕ 1}), and
//!    g_0 = mex{g′_0} (1 without options), g = mex{g′}.
//!
//! # Why a finite superscript is the whole genus
//!
//! Every superscript sequence becomes periodic with period 2; [`Genus`] keeps the shortest
//! prefix `sup` after which the last two terms alternate forever, as Winning Ways writes
//! genera (0^120 is 0^(1,2,0,2,0,...)). Write F(x, S) = mex(S ∪ {x, x ⊕ 1}): it never lies in
//! the pair {x, x ⊕ 1}, and it depends on x only through that pair; it is c = mex S unless x
//! is in c's pair, and then a fixed value c′ outside that pair. If every option's sequence
//! alternates from index D on (g′_i = g′_(i−2) for i ≥ D), then for i ≥ D the sets
//! S_i = {g′_i} alternate between S_a and S_b, and g_i = F(g_(i−1), S_i). Following the two
//! steps from any g_(D−1): once a term at an S_a step is outside the pair of c_a = mex S_a,
//! the next is c_a, the one after it F(c_a, S_b), which is outside c_a's pair, so c_a
//! comes back and the sequence alternates; a term inside c_a's pair is followed by the
//! fixed c′_a, and two steps later either the same (alternating) or by c_a (alternating
//! two steps after). So g_i = g_(i−2) for all i ≥ D + 4: computing the terms up to
//! D + 6 and trimming gives the exact genus. Tests check this against a whole-tree search
//! of G + k·*2 for k up to 8.
//!
//! Tameness is checked per component: a component is tame when its own genus is tame and
//! every component appearing in its options is tame (sums of tame games are tame): this is
//! *hereditary* tameness, the kind that certifies the rule of misère Nim.

use crate::misere::Multiset;
use crate::{MisereSearch, SolveError};
use foldhash::fast::RandomState;
use grundy_core::{MexSet, Outcome, Ruleset};
use hashbrown::HashMap;
use std::hash::Hash;

/// How many superscript terms past the options' longest are computed before trimming (the
/// argument above needs 6).
const EXTRA_TERMS: usize = 7;

/// The genus of a game: its normal value and the misère values with k heaps of 2, exactly.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Genus {
    /// Normal-play Grundy value.
    pub g: u64,
    /// g0, g1, ...: misère Grundy values of G + k·*2, the shortest prefix (at least two
    /// terms) whose last two terms then alternate forever (see [`Genus::term`]).
    pub sup: Vec<u64>,
}

/// How a tame component behaves in misère sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tame {
    /// Genus 0^(120) or 1^(031): like a heap of 0 or 1 (the value is g).
    Small(u64),
    /// Genus a^(a,a⊕2): like a sum of heaps containing a heap of 2 or more (value a).
    Big(u64),
}

impl Genus {
    /// The genus of the Nim heap *v: 0^120, 1^031, v^(v, v⊕2).
    pub fn nim(v: u64) -> Genus {
        let sup = match v {
            0 => vec![1, 2, 0],
            1 => vec![0, 3, 1],
            v => vec![v, v ^ 2],
        };
        Genus { g: v, sup }
    }

    /// g_k, for any k: the misère Grundy value of the game plus k heaps of 2.
    pub fn term(&self, k: usize) -> u64 {
        let l = self.sup.len();
        if k < l {
            self.sup[k]
        } else {
            self.sup[l - 2 + (k - l) % 2]
        }
    }

    /// The genus of a game whose options have the genera `options` (none: the game without
    /// moves, genus 0^120), computed exactly (see the module's notes).
    pub fn from_options(options: &[&Genus]) -> Genus {
        let mut m = MexSet::new();
        options.iter().for_each(|o| m.insert(o.g));
        let g = m.mex().0;
        let d = options.iter().map(|o| o.sup.len()).max().unwrap_or(0).max(2);
        let n = d + EXTRA_TERMS;
        let mut sup = Vec::with_capacity(n);
        if options.is_empty() {
            sup.push(1);
        } else {
            m.clear();
            options.iter().for_each(|o| m.insert(o.term(0)));
            sup.push(m.mex().0);
        }
        for k in 1..n {
            m.clear();
            let prev = sup[k - 1];
            m.insert(prev);
            m.insert(prev ^ 1);
            options.iter().for_each(|o| m.insert(o.term(k)));
            sup.push(m.mex().0);
        }
        while sup.len() > 2 && sup[sup.len() - 1] == sup[sup.len() - 3] {
            sup.pop();
        }
        Genus { g, sup }
    }

    /// Which tame kind this genus is, if any (the whole infinite sequence is compared).
    pub fn tame(&self) -> Option<Tame> {
        let n = self.sup.len().max(3) + 2;
        let is = |t: &Genus| (0..n).all(|k| self.term(k) == t.term(k));
        match self.g {
            0 | 1 if is(&Genus::nim(self.g)) => Some(Tame::Small(self.g)),
            a if (0..n).all(|k| self.term(k) == if k % 2 == 0 { a } else { a ^ 2 }) => Some(Tame::Big(a)),
            _ => None,
        }
    }

    /// The genus written as in Winning Ways: `0^120`, `4^146`, `2^20`; with commas and
    /// parentheses when a term has two digits (`8^(10,8)`). The last two superscript terms
    /// repeat forever.
    pub fn notation(&self) -> String {
        let sup: Vec<String> = self.sup.iter().map(|v| v.to_string()).collect();
        if self.sup.iter().any(|&v| v > 9) {
            format!("{}^({})", self.g, sup.join(","))
        } else {
            format!("{}^{}", self.g, sup.concat())
        }
    }

    /// The genus as one list: `[g, g0, g1, ...]` (the last two terms repeat forever).
    pub fn to_list(&self) -> Vec<u64> {
        std::iter::once(self.g).chain(self.sup.iter().copied()).collect()
    }
}

/// The misère outcome of a sum of tame components (the rule of misère Nim).
pub fn tame_outcome(parts: &[Tame]) -> Outcome {
    let x = parts.iter().fold(0, |acc, t| {
        acc ^ match t {
            Tame::Small(v) | Tame::Big(v) => *v,
        }
    });
    let big = parts.iter().any(|t| matches!(t, Tame::Big(_)));
    let p_position = if big { x == 0 } else { x == 1 };
    if p_position {
        Outcome::Second
    } else {
        Outcome::First
    }
}

/// Distinct genera, each stored once and named by a number.
#[derive(Default)]
pub struct GenusTable {
    list: Vec<Genus>,
    index: HashMap<Genus, u32, RandomState>,
}

impl GenusTable {
    /// The number of `g`, adding it when new.
    pub fn intern(&mut self, g: Genus) -> u32 {
        if let Some(&i) = self.index.get(&g) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(g.clone());
        self.index.insert(g, i);
        i
    }

    /// The genus numbered `i`.
    pub fn get(&self, i: u32) -> &Genus {
        &self.list[i as usize]
    }

    /// The genus of `options` (by number), numbered.
    pub fn of_options(&mut self, options: &[u32]) -> u32 {
        let refs: Vec<&Genus> = options.iter().map(|&i| self.get(i)).collect();
        let g = Genus::from_options(&refs);
        self.intern(g)
    }

    /// How many distinct genera are stored.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A sum being computed: the sum, its options, and how many of them are known.
type Frame<C> = (Multiset<C>, Vec<Multiset<C>>, usize);

/// Marks a sum whose genus is being computed (cycle detection).
const IN_PROGRESS: u32 = u32::MAX;

/// Genera of sums of components (sorted multisets), remembered: the genus of a sum from the
/// genera of its options, by an explicit stack.
pub struct SumGenus<C> {
    /// The genera met, numbered.
    pub table: GenusTable,
    memo: HashMap<Multiset<C>, u32, RandomState>,
    limit: usize,
    memory_check: bool,
}

impl<C: Clone + Eq + Hash + Ord + std::fmt::Debug> Default for SumGenus<C> {
    fn default() -> Self {
        SumGenus {
            table: GenusTable::default(),
            memo: HashMap::default(),
            limit: usize::MAX,
            memory_check: false,
        }
    }
}

impl<C: Clone + Eq + Hash + Ord + std::fmt::Debug> SumGenus<C> {
    /// Stop with [`SolveError::Limit`] once this many sums are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Also stop with [`SolveError::Halted`] when the process passes its memory budget
    /// (`grundy_core::memory`), checked every few thousand sums.
    pub fn with_memory_check(mut self, on: bool) -> Self {
        self.memory_check = on;
        self
    }

    /// Number of sums stored.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// The number (in [`SumGenus::table`]) of the genus of the sum of `pos` (any order).
    pub fn genus_id<R: Ruleset<Component = C>>(&mut self, rules: &R, pos: &[C]) -> Result<u32, SolveError> {
        let search = MisereSearch::new(rules);
        let start = search.sorted(pos);
        if let Some(&i) = self.memo.get(&start) {
            if i == IN_PROGRESS {
                return Err(SolveError::Cycle(format!("{start:?}")));
            }
            return Ok(i);
        }
        // Frames: a sum, its options, and how many of them are known.
        let mut stack: Vec<Frame<C>> = Vec::new();
        let push = |s: &mut Self, stack: &mut Vec<Frame<C>>, p: Multiset<C>| {
            if s.memo.len() >= s.limit {
                return Err(SolveError::Limit(s.memo.len()));
            }
            if rules.halted() {
                return Err(SolveError::Halted);
            }
            if s.memory_check
                && s.memo.len().is_multiple_of(4096)
                && grundy_core::memory::Share::whole().over()
            {
                return Err(SolveError::Halted);
            }
            let kids = search.children(&p);
            s.memo.insert(p.clone(), IN_PROGRESS);
            stack.push((p, kids, 0));
            Ok(())
        };
        push(self, &mut stack, start.clone())?;
        let mut ids: Vec<u32> = Vec::new();
        while let Some((_, kids, next)) = stack.last_mut() {
            let mut descend = None;
            while *next < kids.len() {
                match self.memo.get(&kids[*next]) {
                    Some(&IN_PROGRESS) => return Err(SolveError::Cycle(format!("{:?}", kids[*next]))),
                    Some(_) => *next += 1,
                    None => {
                        descend = Some(kids[*next].clone());
                        break;
                    }
                }
            }
            if let Some(kid) = descend {
                push(self, &mut stack, kid)?;
                continue;
            }
            let (p, kids, _) = stack.pop().expect("a frame");
            ids.clear();
            ids.extend(kids.iter().map(|k| self.memo[k]));
            ids.sort_unstable();
            ids.dedup();
            let id = self.table.of_options(&ids);
            self.memo.insert(p, id);
        }
        Ok(self.memo[&start])
    }

    /// The genus of the sum of `pos`.
    pub fn genus<R: Ruleset<Component = C>>(&mut self, rules: &R, pos: &[C]) -> Result<Genus, SolveError> {
        let i = self.genus_id(rules, pos)?;
        Ok(self.table.get(i).clone())
    }
}

/// Genus and tameness of components of one ruleset, remembered.
pub struct GenusEngine<'r, R: Ruleset> {
    rules: &'r R,
    sums: SumGenus<R::Component>,
    tame: HashMap<R::Component, Option<Tame>, RandomState>,
}

impl<'r, R: Ruleset> GenusEngine<'r, R> {
    /// An empty engine over `rules`.
    pub fn new(rules: &'r R) -> Self {
        GenusEngine {
            rules,
            sums: SumGenus::default(),
            tame: HashMap::default(),
        }
    }

    /// Stop with [`SolveError::Limit`] once this many sums are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.sums = std::mem::take(&mut self.sums).with_limit(limit);
        self
    }

    /// G⁻ of the sum of `pos`, `twos` heaps of 2 and `ones` heaps of 1: the genus's term
    /// `twos`, its last bit flipped for each heap of 1 (G⁻(X + *1) = G⁻(X) ⊕ 1).
    pub fn misere_grundy(&mut self, pos: &[R::Component], twos: u8, ones: u8) -> Result<u64, SolveError> {
        let id = self.sums.genus_id(self.rules, pos)?;
        Ok(self.sums.table.get(id).term(twos as usize) ^ (ones as u64 & 1))
    }

    /// The genus of the sum of `pos`.
    pub fn sum_genus(&mut self, pos: &[R::Component]) -> Result<Genus, SolveError> {
        self.sums.genus(self.rules, pos)
    }

    /// The genus of component `c`.
    pub fn genus(&mut self, c: &R::Component) -> Result<Genus, SolveError> {
        self.sums.genus(self.rules, std::slice::from_ref(c))
    }

    /// `Some(kind)` when `c` and every component of its followers have tame genera.
    pub fn tame(&mut self, c: &R::Component) -> Result<Option<Tame>, SolveError> {
        if let Some(&t) = self.tame.get(c) {
            return Ok(t);
        }
        // Components of c's options first (explicit stack), then c's own genus.
        let mut stack = vec![(c.clone(), false)];
        while let Some((top, expanded)) = stack.pop() {
            if self.tame.contains_key(&top) {
                continue;
            }
            let mut parts: Vec<R::Component> = Vec::new();
            self.rules.options(&top, |opt| parts.extend_from_slice(opt));
            parts.sort_unstable();
            parts.dedup();
            if !expanded {
                stack.push((top, true));
                stack.extend(
                    parts
                        .into_iter()
                        .filter(|p| !self.tame.contains_key(p))
                        .map(|p| (p, false)),
                );
                continue;
            }
            let all_tame = parts
                .iter()
                .all(|p| self.tame.get(p).copied().flatten().is_some());
            let kind = if all_tame { self.genus(&top)?.tame() } else { None };
            self.tame.insert(top, kind);
        }
        Ok(self.tame[c])
    }

    /// The misère outcome of a sum by the tame rule, when every component is tame.
    pub fn tame_sum_outcome(&mut self, parts: &[R::Component]) -> Result<Option<Outcome>, SolveError> {
        let mut kinds = Vec::with_capacity(parts.len());
        for p in parts {
            match self.tame(p)? {
                Some(k) => kinds.push(k),
                None => return Ok(None),
            }
        }
        Ok(Some(tame_outcome(&kinds)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kayles (octal 0.77) on heaps: take 1 or 2 from a row, possibly splitting it.
    struct Kayles;
    impl Ruleset for Kayles {
        type Component = u32;
        fn options<F: FnMut(&[u32])>(&self, &n: &u32, mut emit: F) {
            for take in 1..=2u32.min(n) {
                for left in 0..=(n - take) {
                    let right = n - take - left;
                    if left > right {
                        break;
                    }
                    let parts: Vec<u32> = [left, right].into_iter().filter(|&h| h > 0).collect();
                    emit(&parts);
                }
            }
        }
    }

    use crate::test_rules::Nim;

    #[test]
    fn nim_heaps_have_the_nim_genera() {
        let mut e = GenusEngine::new(&Nim);
        assert_eq!(e.genus(&1).unwrap().notation(), "1^031");
        assert_eq!(e.genus(&2).unwrap().notation(), "2^20");
        assert_eq!(e.genus(&5).unwrap().notation(), "5^57");
        assert_eq!(e.sum_genus(&[]).unwrap().notation(), "0^120");
        for v in 0..9 {
            assert_eq!(e.genus(&v).unwrap(), Genus::nim(v as u64));
        }
        assert_eq!(e.tame(&1).unwrap(), Some(Tame::Small(1)));
        assert_eq!(e.tame(&6).unwrap(), Some(Tame::Big(6)));
        assert_eq!(e.misere_grundy(&[], 0, 0).unwrap(), 1);
    }

    #[test]
    fn tame_rule_agrees_with_search_on_kayles() {
        // Misère Kayles heaps are tame for small sizes; the shortcut must agree with plain
        // search wherever it applies, and it must apply somewhere.
        let mut e = GenusEngine::new(&Kayles);
        let mut s = MisereSearch::new(&Kayles);
        let mut applied = 0;
        for a in 1..9u32 {
            for b in 0..7u32 {
                for c in 0..4u32 {
                    let parts: Vec<u32> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                    if let Some(o) = e.tame_sum_outcome(&parts).unwrap() {
                        assert_eq!(o, s.outcome(&parts).unwrap(), "{parts:?}");
                        applied += 1;
                    }
                }
            }
        }
        assert!(applied > 50, "the tame rule applied only {applied} times");
        // Misère Kayles heaps are tame up to 4; the heap of 5 has genus 4^146, not tame, and
        // every larger heap has it among its followers.
        let tame: Vec<bool> = (1..12).map(|n| e.tame(&n).unwrap().is_some()).collect();
        assert_eq!(
            tame,
            [true, true, true, true, false, false, false, false, false, false, false]
        );
        // Genera as tabulated in Winning Ways for misère Kayles.
        assert_eq!(e.genus(&5).unwrap().notation(), "4^146");
        assert_eq!(e.genus(&9).unwrap().notation(), "4^046");
    }

    /// The reference: misère (or normal) Grundy value of a sum of game heaps and Nim heaps by
    /// plain recursion over the whole position (no genus, no lemma about *1).
    fn reference<R: Ruleset<Component = u64>>(
        rules: &R,
        heaps: Vec<u64>,
        nims: Vec<u64>,
        misere: bool,
        memo: &mut std::collections::HashMap<(Vec<u64>, Vec<u64>, bool), u64>,
    ) -> u64 {
        let key = (heaps.clone(), nims.clone(), misere);
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let mut values = Vec::new();
        for i in 0..heaps.len() {
            rules.options(&heaps[i], |parts| {
                let mut h = heaps.clone();
                h.remove(i);
                h.extend_from_slice(parts);
                h.sort_unstable();
                values.push((h, nims.clone()));
            });
        }
        for i in 0..nims.len() {
            for smaller in 0..nims[i] {
                let mut n = nims.clone();
                n[i] = smaller;
                n.retain(|&x| x > 0);
                n.sort_unstable();
                values.push((heaps.clone(), n));
            }
        }
        let v = if values.is_empty() {
            u64::from(misere)
        } else {
            let vals: Vec<u64> = values
                .into_iter()
                .map(|(h, n)| reference(rules, h, n, misere, memo))
                .collect();
            (0..).find(|x| !vals.contains(x)).unwrap()
        };
        memo.insert(key, v);
        v
    }

    fn check_against_reference(rules: &grundy_core::HeapRules, max_heap: u64, ks: usize) {
        let mut e = GenusEngine::new(rules);
        let mut memo = std::collections::HashMap::new();
        for n in 0..=max_heap {
            let pos: Vec<u64> = if n == 0 { vec![] } else { vec![n] };
            let genus = e.sum_genus(&pos).unwrap();
            assert_eq!(
                genus.g,
                reference(rules, pos.clone(), vec![], false, &mut memo),
                "{rules:?} heap {n}"
            );
            for k in 0..ks {
                let twos = vec![2; k];
                let want = reference(rules, pos.clone(), twos.clone(), true, &mut memo);
                assert_eq!(
                    genus.term(k),
                    want,
                    "{rules:?} heap {n}: g_{k} of {}",
                    genus.notation()
                );
                // And with a heap of 1 as well: G⁻(X + *1) = G⁻(X) ⊕ 1.
                let mut with_one = twos.clone();
                with_one.insert(0, 1);
                let want1 = reference(rules, pos.clone(), with_one, true, &mut memo);
                assert_eq!(
                    e.misere_grundy(&pos, k as u8, 1).unwrap(),
                    want1,
                    "{rules:?} heap {n} + *1 + {k}·*2"
                );
            }
        }
        // A sum of two heaps, too.
        if max_heap >= 3 {
            let pos = vec![2, max_heap - 1];
            let genus = e.sum_genus(&pos).unwrap();
            for k in 0..ks.min(4) {
                assert_eq!(
                    genus.term(k),
                    reference(rules, pos.clone(), vec![2; k], true, &mut memo)
                );
            }
        }
    }

    #[test]
    fn genus_of_nim_positions_is_exact() {
        let nim = grundy_core::HeapRules::take_break(&[0, 3], &[], 1).unwrap();
        check_against_reference(&nim, 5, 8);
        let kayles = grundy_core::HeapRules::take_break(&[0, 7, 7], &[], 0).unwrap();
        check_against_reference(&kayles, 7, 6);
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// The genus from the options' genera agrees with plain recursion over G + k·*2,
        /// for random octal codes (up to three digits) and subtraction sets.
        #[test]
        fn genus_matches_whole_tree_search(
            digits in proptest::collection::vec(0u32..8, 1..4),
            set in proptest::collection::btree_set(1u64..6, 1..4),
            octal in any::<bool>(),
        ) {
            let rules = if octal {
                let mut d = vec![0u32];
                d.extend(digits);
                match grundy_core::HeapRules::take_break(&d, &[], 0) {
                    Some(r) => r,
                    None => return Ok(()),
                }
            } else {
                grundy_core::HeapRules::Subtraction(set.into_iter().collect())
            };
            let max = if rules.max_parts() > 1 { 6 } else { 9 };
            check_against_reference(&rules, max, 5);
        }
    }
}
