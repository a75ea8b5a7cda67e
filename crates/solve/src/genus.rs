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
//! Tameness is checked per component: a component is tame when its own genus is tame and
//! every component appearing in its options is tame (sums of tame games are tame). The genus
//! sequence is checked up to [`SUPERSCRIPT_TERMS`] terms.

use crate::misere::Multiset;
use crate::{GrundyMemo, MisereSearch, SolveError};
use foldhash::fast::RandomState;
use grundy_core::{MexSet, Outcome, Ruleset};
use hashbrown::HashMap;

/// How many superscript terms g0, g1, ... are computed.
pub const SUPERSCRIPT_TERMS: usize = 5;

/// The genus of a component: normal value and the first misère values with k heaps of 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Genus {
    /// Normal-play Grundy value.
    pub g: u64,
    /// g0, g1, ...: misère Grundy values of G + k·*2.
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
    /// Which tame kind this genus is, if any.
    pub fn tame(&self) -> Option<Tame> {
        let s = &self.sup;
        let alternates = |from: usize, a: u64, b: u64| {
            s.iter()
                .enumerate()
                .skip(from)
                .all(|(k, &v)| v == if (k - from).is_multiple_of(2) { a } else { b })
        };
        match self.g {
            0 if s[0] == 1 && alternates(1, 2, 0) => Some(Tame::Small(0)),
            1 if s[0] == 0 && alternates(1, 3, 1) => Some(Tame::Small(1)),
            a if alternates(0, a, a ^ 2) => Some(Tame::Big(a)),
            _ => None,
        }
    }

    /// The genus written as in Winning Ways, e.g. `0^120`, `3^31`, with the computed terms.
    pub fn notation(&self) -> String {
        let sup: Vec<String> = self.sup.iter().map(|v| v.to_string()).collect();
        let sep = if self.sup.iter().any(|&v| v > 9) { "," } else { "" };
        format!("{}^{}", self.g, sup.join(sep))
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

/// Key of a misère Grundy value: a sum of components plus `twos` heaps of 2 and `ones` of 1.
type State<C> = (Multiset<C>, u8, u8);

/// Genus and tameness of components of one ruleset, remembered.
pub struct GenusEngine<'r, R: Ruleset> {
    rules: &'r R,
    normal: GrundyMemo<'r, R>,
    misere_values: HashMap<State<R::Component>, u64, RandomState>,
    tame: HashMap<R::Component, Option<Tame>, RandomState>,
    limit: usize,
}

impl<'r, R: Ruleset> GenusEngine<'r, R> {
    /// An empty engine over `rules`.
    pub fn new(rules: &'r R) -> Self {
        GenusEngine {
            rules,
            normal: GrundyMemo::new(rules),
            misere_values: HashMap::default(),
            tame: HashMap::default(),
            limit: usize::MAX,
        }
    }

    /// Stop with [`SolveError::Limit`] once this many misère values are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self.normal = GrundyMemo::new(self.rules).with_limit(limit);
        self
    }

    fn children(&self, s: &State<R::Component>) -> Vec<State<R::Component>> {
        let (pos, twos, ones) = s;
        let mut out: Vec<State<R::Component>> = MisereSearch::new(self.rules)
            .children(pos)
            .into_iter()
            .map(|c| (c, *twos, *ones))
            .collect();
        if *twos > 0 {
            out.push((pos.clone(), twos - 1, ones + 1));
            out.push((pos.clone(), twos - 1, *ones));
        }
        if *ones > 0 {
            out.push((pos.clone(), *twos, ones - 1));
        }
        out
    }

    /// G⁻ of the sum of `pos` (sorted), `twos` heaps of 2 and `ones` heaps of 1.
    pub fn misere_grundy(&mut self, pos: &[R::Component], twos: u8, ones: u8) -> Result<u64, SolveError> {
        let start: State<R::Component> = (MisereSearch::new(self.rules).sorted(pos), twos, ones);
        if let Some(&v) = self.misere_values.get(&start) {
            return Ok(v);
        }
        let mut stack = vec![(start.clone(), false)];
        let mut mex = MexSet::new();
        while let Some((top, expanded)) = stack.pop() {
            if self.misere_values.contains_key(&top) {
                continue;
            }
            let kids = self.children(&top);
            if !expanded {
                let missing: Vec<State<R::Component>> = kids
                    .into_iter()
                    .filter(|k| !self.misere_values.contains_key(k))
                    .collect();
                if self.misere_values.len() >= self.limit {
                    return Err(SolveError::Limit(self.misere_values.len()));
                }
                if self.rules.halted() {
                    return Err(SolveError::Halted);
                }
                stack.push((top, true));
                stack.extend(missing.into_iter().map(|k| (k, false)));
                continue;
            }
            let value = if kids.is_empty() {
                1
            } else {
                mex.clear();
                for k in &kids {
                    match self.misere_values.get(k) {
                        Some(&v) => mex.insert(v),
                        None => return Err(SolveError::Cycle(format!("{k:?}"))),
                    }
                }
                mex.mex().0
            };
            self.misere_values.insert(top, value);
        }
        Ok(self.misere_values[&start])
    }

    /// The genus of component `c`.
    pub fn genus(&mut self, c: &R::Component) -> Result<Genus, SolveError> {
        let g = self.normal.grundy(c)?.0;
        let mut sup = Vec::with_capacity(SUPERSCRIPT_TERMS);
        for k in 0..SUPERSCRIPT_TERMS {
            sup.push(self.misere_grundy(std::slice::from_ref(c), k as u8, 0)?);
        }
        Ok(Genus { g, sup })
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
        assert_eq!(e.genus(&1).unwrap().notation(), "1^03131");
        assert_eq!(e.genus(&2).unwrap().notation(), "2^20202");
        assert_eq!(e.genus(&5).unwrap().notation(), "5^57575");
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
        assert_eq!(e.genus(&5).unwrap().notation(), "4^14646");
        assert_eq!(e.genus(&9).unwrap().notation(), "4^04646");
    }
}
