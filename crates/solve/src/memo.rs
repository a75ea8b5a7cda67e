//! Memoised Grundy values of components under normal play, with an explicit stack: a game a
//! million moves deep needs a million stack frames on the heap, none on the call stack.

use crate::SolveError;
use foldhash::fast::RandomState;
use grundy_core::{MexSet, Nimber, Ruleset};
use hashbrown::HashMap;

/// Marks a component whose options are being evaluated (to detect cycles).
const IN_PROGRESS: u64 = u64::MAX;

/// Grundy values of the components of one ruleset, remembered across calls.
pub struct GrundyMemo<'r, R: Ruleset> {
    rules: &'r R,
    memo: HashMap<R::Component, u64, RandomState>,
    limit: usize,
    mex: MexSet,
}

impl<'r, R: Ruleset> GrundyMemo<'r, R> {
    /// An empty memo over `rules`.
    pub fn new(rules: &'r R) -> Self {
        GrundyMemo {
            rules,
            memo: HashMap::default(),
            limit: usize::MAX,
            mex: MexSet::new(),
        }
    }

    /// Stop with [`SolveError::Limit`] once this many components are stored.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The rules this memo evaluates.
    pub fn rules(&self) -> &'r R {
        self.rules
    }

    /// Number of components stored.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// True when nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    fn lookup(&self, c: &R::Component) -> Option<u64> {
        if let Some(v) = self.rules.known_grundy(c) {
            return Some(v.0);
        }
        self.memo.get(c).copied()
    }

    /// The Grundy value of a sum of components (XOR of theirs).
    pub fn grundy_sum(&mut self, parts: &[R::Component]) -> Result<Nimber, SolveError> {
        let mut v = Nimber::ZERO;
        for c in parts {
            v ^= self.grundy(c)?;
        }
        Ok(v)
    }

    /// The Grundy value of `c`.
    pub fn grundy(&mut self, c: &R::Component) -> Result<Nimber, SolveError> {
        match self.lookup(c) {
            Some(IN_PROGRESS) => return Err(SolveError::Cycle(format!("{c:?}"))),
            Some(v) => return Ok(Nimber(v)),
            None => {}
        }
        // Each frame is a component whose value is wanted. On its first visit its options'
        // unknown parts are pushed above it; on its second, all parts are known.
        let mut stack: Vec<(R::Component, bool)> = vec![(c.clone(), false)];
        let mut pending: Vec<R::Component> = Vec::new();
        while let Some((top, expanded)) = stack.last() {
            if !*expanded {
                match self.lookup(top) {
                    Some(IN_PROGRESS) => return Err(SolveError::Cycle(cycle_path(&stack, top, None))),
                    Some(_) => {
                        stack.pop();
                        continue;
                    }
                    None => {}
                }
                if self.memo.len() >= self.limit {
                    return Err(SolveError::Limit(self.memo.len()));
                }
                if self.rules.halted() {
                    return Err(SolveError::Halted);
                }
                let top = top.clone();
                pending.clear();
                let mut cycle = None;
                self.rules.options(&top, |parts| {
                    for p in parts {
                        match self.lookup(p) {
                            None => pending.push(p.clone()),
                            Some(IN_PROGRESS) => cycle = Some(p.clone()),
                            Some(_) => {}
                        }
                    }
                });
                if let Some(c) = cycle {
                    return Err(SolveError::Cycle(cycle_path(&stack, &c, Some(&top))));
                }
                self.memo.insert(top, IN_PROGRESS);
                if let Some(last) = stack.last_mut() {
                    last.1 = true;
                }
                stack.extend(pending.drain(..).map(|p| (p, false)));
            } else {
                let (top, _) = stack.pop().expect("stack is not empty");
                let mut mex = std::mem::take(&mut self.mex);
                mex.clear();
                let mut missing = None;
                self.rules.options(&top, |parts| {
                    let mut v = 0u64;
                    for p in parts {
                        match self.lookup(p) {
                            Some(IN_PROGRESS) | None => missing = Some(format!("{p:?}")),
                            Some(g) => v ^= g,
                        }
                    }
                    mex.insert(v);
                });
                let value = mex.mex();
                self.mex = mex;
                if let Some(p) = missing {
                    return Err(SolveError::Cycle(p));
                }
                self.memo.insert(top, value.0);
            }
        }
        match self.lookup(c) {
            Some(v) if v != IN_PROGRESS => Ok(Nimber(v)),
            _ => Err(SolveError::Cycle(format!("{c:?}"))),
        }
    }
}

/// The cycle through `again`, a component met while its value is being worked out: the
/// components on the way from it to the one being expanded (the expanded frames of the
/// stack are the path from the start), then `last` (the component whose option `again` is,
/// when it is not on the stack's path yet) and `again`, written `a -> b -> a` (at most 12
/// steps shown).
fn cycle_path<C: std::fmt::Debug + PartialEq>(stack: &[(C, bool)], again: &C, last: Option<&C>) -> String {
    let path: Vec<&C> = stack.iter().filter(|f| f.1).map(|f| &f.0).collect();
    let from = path.iter().position(|c| *c == again).unwrap_or(0);
    let mut steps: Vec<&C> = path[from..].to_vec();
    steps.extend(last);
    steps.push(again);
    let shown: Vec<String> = if steps.len() > 12 {
        let mut v: Vec<String> = steps[..6].iter().map(|c| format!("{c:?}")).collect();
        v.push(format!("... {} more ...", steps.len() - 11));
        v.extend(steps[steps.len() - 5..].iter().map(|c| format!("{c:?}")));
        v
    } else {
        steps.iter().map(|c| format!("{c:?}")).collect()
    };
    shown.join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Subtraction game with set {1, 2}: G(n) = n mod 3.
    struct Sub12;
    impl Ruleset for Sub12 {
        type Component = u64;
        fn options<F: FnMut(&[u64])>(&self, c: &u64, mut emit: F) {
            for k in [1, 2] {
                if *c >= k {
                    let rest = c - k;
                    if rest == 0 {
                        emit(&[]);
                    } else {
                        emit(&[rest]);
                    }
                }
            }
        }
    }

    #[test]
    fn million_deep_chain_does_not_overflow() {
        let mut m = GrundyMemo::new(&Sub12);
        assert_eq!(m.grundy(&1_000_000).unwrap(), Nimber(1_000_000 % 3));
        assert_eq!(m.grundy(&999_999).unwrap(), Nimber(0));
    }

    /// A ruleset with a cycle: 1 -> 2 -> 1.
    struct Loop;
    impl Ruleset for Loop {
        type Component = u8;
        fn options<F: FnMut(&[u8])>(&self, c: &u8, mut emit: F) {
            emit(&[3 - *c]);
        }
    }

    #[test]
    fn cycles_are_reported() {
        let mut m = GrundyMemo::new(&Loop);
        assert!(matches!(m.grundy(&1), Err(SolveError::Cycle(_))));
        let mut m = GrundyMemo::new(&Loop);
        match m.grundy(&1) {
            Err(SolveError::Cycle(path)) => assert_eq!(path, "1 -> 2 -> 1"),
            other => panic!("{other:?}"),
        }
        // 1 -> 2 -> 3 -> 1, reached from 5 (and from 4, a sum of two: 0 + 4 -> ... ).
        struct Ring;
        impl Ruleset for Ring {
            type Component = u8;
            fn options<F: FnMut(&[u8])>(&self, c: &u8, mut emit: F) {
                match *c {
                    5 => emit(&[2]),
                    c => emit(&[c % 3 + 1]),
                }
            }
        }
        match GrundyMemo::new(&Ring).grundy(&5) {
            Err(SolveError::Cycle(path)) => assert_eq!(path, "2 -> 3 -> 1 -> 2"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn limit_stops_cleanly() {
        let mut m = GrundyMemo::new(&Sub12).with_limit(100);
        assert!(matches!(m.grundy(&1000), Err(SolveError::Limit(_))));
    }
}
