//! Outcome search over whole positions (sorted multisets of components), for misère play:
//! the player who cannot move wins, and Grundy values of components no longer add up.
//!
//! The search is iterative (an explicit stack of frames, each walking its options one at a
//! time) and stops at the first option that is a loss for the opponent.

use crate::genus::GenusEngine;
use crate::SolveError;
use foldhash::fast::RandomState;
use grundy_core::{Outcome, Ruleset};
use hashbrown::HashMap;

/// A whole position: components sorted, so equal sums share one entry.
pub type Multiset<C> = Vec<C>;

/// Misère outcomes of whole positions of one ruleset, remembered across calls.
pub struct MisereSearch<'r, R: Ruleset> {
    rules: &'r R,
    /// `Some(outcome)` once known, `None` while being searched (cycle detection).
    memo: HashMap<Multiset<R::Component>, Option<Outcome>, RandomState>,
    limit: usize,
    genus: Option<GenusEngine<'r, R>>,
}

/// Components larger than this (by [`Ruleset::size_hint`]) are not checked for tameness:
/// the genus of a large component can cost more than the search it would save.
pub const GENUS_MAX_SIZE: usize = 24;

struct Frame<C> {
    position: Multiset<C>,
    children: Vec<Multiset<C>>,
    next: usize,
}

impl<'r, R: Ruleset> MisereSearch<'r, R> {
    /// An empty search over `rules`.
    pub fn new(rules: &'r R) -> Self {
        MisereSearch {
            rules,
            memo: HashMap::default(),
            limit: usize::MAX,
            genus: None,
        }
    }

    /// Decide sums of tame components by the rule of misère Nim, without search (Conway's
    /// genus theory, see [`crate::genus`]).
    pub fn with_genus(mut self, on: bool) -> Self {
        self.genus = (on && R::INDEPENDENT).then(|| GenusEngine::new(self.rules).with_limit(self.limit));
        self
    }

    /// The outcome by the tame rule, when enabled and every component is small and tame.
    fn shortcut(&mut self, position: &[R::Component]) -> Result<Option<Outcome>, SolveError> {
        let Some(g) = self.genus.as_mut() else {
            return Ok(None);
        };
        if position.is_empty() || position.iter().any(|c| self.rules.size_hint(c) > GENUS_MAX_SIZE) {
            return Ok(None);
        }
        g.tame_sum_outcome(position)
    }

    /// Stop with [`SolveError::Limit`] once this many positions are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        if let Some(g) = self.genus.take() {
            self.genus = Some(g.with_limit(limit));
        }
        self
    }

    /// Number of whole positions stored.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// True when nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// The positions one move away from `position` (sorted, duplicates removed).
    pub fn children(&self, position: &[R::Component]) -> Vec<Multiset<R::Component>> {
        let mut out = Vec::new();
        for i in 0..position.len() {
            if i > 0 && position[i] == position[i - 1] {
                continue; // the same move again
            }
            self.rules.options(&position[i], |parts| {
                let mut child: Vec<R::Component> = Vec::with_capacity(position.len() + parts.len());
                child.extend_from_slice(&position[..i]);
                child.extend_from_slice(&position[i + 1..]);
                child.extend_from_slice(parts);
                child.sort_unstable();
                self.rules.normalize_sum(&mut child);
                out.push(child);
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// `components` sorted and normalised: the memo key of their sum.
    pub fn sorted(&self, components: &[R::Component]) -> Multiset<R::Component> {
        let mut v = components.to_vec();
        v.sort_unstable();
        self.rules.normalize_sum(&mut v);
        v
    }

    /// The misère outcome of the sum of `components` (in any order).
    pub fn outcome(&mut self, components: &[R::Component]) -> Result<Outcome, SolveError> {
        let start = self.sorted(components);
        if let Some(o) = self.memo.get(&start) {
            return o.ok_or_else(|| SolveError::Cycle(format!("{start:?}")));
        }
        if let Some(o) = self.shortcut(&start)? {
            self.memo.insert(start, Some(o));
            return Ok(o);
        }
        let mut stack = vec![self.frame(start.clone())?];
        while let Some(top) = stack.last_mut() {
            let mut result = None;
            let mut descend = None;
            while top.next < top.children.len() {
                match self.memo.get(&top.children[top.next]) {
                    Some(Some(Outcome::Second)) => {
                        result = Some(Outcome::First);
                        break;
                    }
                    Some(Some(Outcome::First)) => top.next += 1,
                    Some(None) => return Err(SolveError::Cycle(format!("{:?}", top.children[top.next]))),
                    None => {
                        descend = Some(top.children[top.next].clone());
                        break;
                    }
                }
            }
            if let Some(child) = descend {
                if let Some(o) = self.shortcut(&child)? {
                    self.memo.insert(child, Some(o));
                } else {
                    let f = self.frame(child)?;
                    stack.push(f);
                }
                continue;
            }
            let top = stack.pop().expect("stack is not empty");
            let outcome = match result {
                Some(o) => o,
                // Misère: a position without moves is a win for the player to move.
                None if top.children.is_empty() => Outcome::First,
                None => Outcome::Second,
            };
            self.memo.insert(top.position, Some(outcome));
        }
        Ok(self.memo[&start].expect("start was solved"))
    }

    fn frame(&mut self, position: Multiset<R::Component>) -> Result<Frame<R::Component>, SolveError> {
        if self.memo.len() >= self.limit {
            return Err(SolveError::Limit(self.memo.len()));
        }
        if self.rules.halted() {
            return Err(SolveError::Halted);
        }
        let children = self.children(&position);
        self.memo.insert(position.clone(), None);
        Ok(Frame {
            position,
            children,
            next: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rules::Nim;

    /// Misère Nim (Bouton): the player to move wins iff (some heap > 1 and xor != 0) or
    /// (all heaps ≤ 1 and xor == 0).
    fn misere_nim(heaps: &[u32]) -> Outcome {
        let x = heaps.iter().fold(0, |a, b| a ^ b);
        let big = heaps.iter().any(|&h| h > 1);
        if (big && x != 0) || (!big && x == 0) {
            Outcome::First
        } else {
            Outcome::Second
        }
    }

    #[test]
    fn agrees_with_misere_nim_rule() {
        for genus in [false, true] {
            agrees_with_misere_nim_rule_with(genus);
        }
    }

    fn agrees_with_misere_nim_rule_with(genus: bool) {
        let mut s = MisereSearch::new(&Nim).with_genus(genus);
        for a in 0..6 {
            for b in 0..6 {
                for c in 0..5 {
                    let heaps: Vec<u32> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                    assert_eq!(s.outcome(&heaps).unwrap(), misere_nim(&heaps), "{heaps:?}");
                }
            }
        }
    }
}
