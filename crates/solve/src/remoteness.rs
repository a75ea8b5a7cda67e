//! Remoteness: how many moves the game lasts with best play, when the winner hurries and the
//! loser holds out (Steinhaus/Smith). A position without moves has remoteness 0; a winning
//! position has 1 + the least remoteness among its losing options; a losing position has
//! 1 + the greatest remoteness among its options. Searched over whole positions (sorted
//! multisets of components) under either convention, with an explicit stack.

use crate::misere::Multiset;
use crate::{Convention, MisereSearch, SolveError};
use foldhash::fast::RandomState;
use grundy_core::{Outcome, Ruleset};
use hashbrown::HashMap;

/// A position being searched: itself, its children, and the next child to make sure of.
type Frame<C> = (Multiset<C>, Vec<Multiset<C>>, usize);

/// Outcome and remoteness of a whole position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Remote {
    /// Who wins.
    pub outcome: Outcome,
    /// Moves until the game ends with best play (winner fastest, loser slowest).
    pub remoteness: u32,
}

/// Remoteness of whole positions of one ruleset under one convention, remembered.
pub struct RemotenessSearch<'r, R: Ruleset> {
    rules: &'r R,
    convention: Convention,
    memo: HashMap<Multiset<R::Component>, Option<Remote>, RandomState>,
    limit: usize,
}

impl<'r, R: Ruleset> RemotenessSearch<'r, R> {
    /// An empty search over `rules` under `convention`.
    pub fn new(rules: &'r R, convention: Convention) -> Self {
        RemotenessSearch {
            rules,
            convention,
            memo: HashMap::default(),
            limit: usize::MAX,
        }
    }

    /// Stop with [`SolveError::Limit`] once this many positions are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
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

    /// Outcome and remoteness of the sum of `components` (any order).
    pub fn remote(&mut self, components: &[R::Component]) -> Result<Remote, SolveError> {
        let start = MisereSearch::new(self.rules).sorted(components);
        if let Some(r) = self.memo.get(&start) {
            return r.ok_or_else(|| SolveError::Cycle(format!("{start:?}")));
        }
        let children_of = |p: &[R::Component]| MisereSearch::new(self.rules).children(p);
        // Frames: (position, its children, index of the next child to make sure of).
        let mut stack: Vec<Frame<R::Component>> = Vec::new();
        let first_children = children_of(&start);
        self.memo.insert(start.clone(), None);
        stack.push((start.clone(), first_children, 0));
        while let Some((_, children, next)) = stack.last_mut() {
            // Find the next child not yet known.
            let mut descend = None;
            while *next < children.len() {
                match self.memo.get(&children[*next]) {
                    Some(Some(_)) => *next += 1,
                    Some(None) => return Err(SolveError::Cycle(format!("{:?}", children[*next]))),
                    None => {
                        descend = Some(children[*next].clone());
                        break;
                    }
                }
            }
            if let Some(child) = descend {
                if self.memo.len() >= self.limit {
                    return Err(SolveError::Limit(self.memo.len()));
                }
                if self.rules.halted() {
                    return Err(SolveError::Halted);
                }
                let grandchildren = children_of(&child);
                self.memo.insert(child.clone(), None);
                stack.push((child, grandchildren, 0));
                continue;
            }
            let (position, children, _) = stack.pop().expect("stack is not empty");
            let value = self.combine(&children);
            self.memo.insert(position, Some(value));
        }
        Ok(self.memo[&start].expect("start was solved"))
    }

    /// The value of a position from its (all known) children.
    fn combine(&self, children: &[Multiset<R::Component>]) -> Remote {
        if children.is_empty() {
            let outcome = match self.convention {
                Convention::Normal => Outcome::Second,
                Convention::Misere => Outcome::First,
            };
            return Remote {
                outcome,
                remoteness: 0,
            };
        }
        let known = |c: &Multiset<R::Component>| self.memo[c].expect("children are solved first");
        let fastest_win = children
            .iter()
            .map(known)
            .filter(|r| r.outcome == Outcome::Second)
            .map(|r| r.remoteness)
            .min();
        match fastest_win {
            Some(r) => Remote {
                outcome: Outcome::First,
                remoteness: r + 1,
            },
            None => {
                let slowest = children.iter().map(|c| known(c).remoteness).max().unwrap_or(0);
                Remote {
                    outcome: Outcome::Second,
                    remoteness: slowest + 1,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rules::Nim;

    #[test]
    fn single_heaps() {
        let mut s = RemotenessSearch::new(&Nim, Convention::Normal);
        assert_eq!(
            s.remote(&[]).unwrap(),
            Remote {
                outcome: Outcome::Second,
                remoteness: 0
            }
        );
        assert_eq!(
            s.remote(&[5]).unwrap(),
            Remote {
                outcome: Outcome::First,
                remoteness: 1
            }
        );
        // 1+1: loser moves once, winner once.
        assert_eq!(
            s.remote(&[1, 1]).unwrap(),
            Remote {
                outcome: Outcome::Second,
                remoteness: 2
            }
        );
        // 2+2: the loser holds out longest by taking one token each time: 4 moves.
        assert_eq!(
            s.remote(&[2, 2]).unwrap(),
            Remote {
                outcome: Outcome::Second,
                remoteness: 4
            }
        );
        let mut m = RemotenessSearch::new(&Nim, Convention::Misere);
        assert_eq!(
            m.remote(&[]).unwrap(),
            Remote {
                outcome: Outcome::First,
                remoteness: 0
            }
        );
        assert_eq!(
            m.remote(&[1]).unwrap(),
            Remote {
                outcome: Outcome::Second,
                remoteness: 1
            }
        );
        assert_eq!(
            m.remote(&[3]).unwrap(),
            Remote {
                outcome: Outcome::First,
                remoteness: 2
            }
        );
    }

    #[test]
    fn agrees_with_outcome_engines() {
        let mut r = RemotenessSearch::new(&Nim, Convention::Misere);
        let mut m = MisereSearch::new(&Nim);
        for a in 0..5 {
            for b in 0..5 {
                for c in 0..4 {
                    let heaps: Vec<u32> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                    assert_eq!(r.remote(&heaps).unwrap().outcome, m.outcome(&heaps).unwrap());
                    let x = a ^ b ^ c;
                    let mut n = RemotenessSearch::new(&Nim, Convention::Normal);
                    let o = if x == 0 { Outcome::Second } else { Outcome::First };
                    assert_eq!(n.remote(&heaps).unwrap().outcome, o);
                }
            }
        }
    }
}
