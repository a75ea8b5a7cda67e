//! Minimum excludant: the least nimber not among a set of option values.
//!
//! [`MexSet`] is a reusable bitset: insert option values, read the mex, clear and reuse it
//! without allocating again.

use crate::Nimber;

/// A growable bitset of small nimbers with a fast `mex`.
#[derive(Clone, Debug, Default)]
pub struct MexSet {
    words: Vec<u64>,
}

impl MexSet {
    /// An empty set.
    pub fn new() -> MexSet {
        MexSet { words: Vec::new() }
    }

    /// Adds `v` to the set. Values far above the count of options cannot change the mex,
    /// but are kept exactly all the same (the set grows as needed).
    #[inline]
    pub fn insert(&mut self, v: u64) {
        let w = (v / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1u64 << (v % 64);
    }

    /// Adds the nimber `v`.
    #[inline]
    pub fn insert_nimber(&mut self, v: Nimber) {
        self.insert(v.0)
    }

    /// True when `v` is in the set.
    pub fn contains(&self, v: u64) -> bool {
        let w = (v / 64) as usize;
        w < self.words.len() && self.words[w] & (1u64 << (v % 64)) != 0
    }

    /// The least value not in the set.
    #[inline]
    pub fn mex(&self) -> Nimber {
        for (i, &w) in self.words.iter().enumerate() {
            if w != u64::MAX {
                return Nimber(i as u64 * 64 + (!w).trailing_zeros() as u64);
            }
        }
        Nimber(self.words.len() as u64 * 64)
    }

    /// Empties the set, keeping its storage.
    #[inline]
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
}

/// The mex of the values yielded by `values`.
pub fn mex<I: IntoIterator<Item = Nimber>>(values: I) -> Nimber {
    let mut s = MexSet::new();
    for v in values {
        s.insert_nimber(v);
    }
    s.mex()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn basics() {
        assert_eq!(mex([]), Nimber(0));
        assert_eq!(mex([Nimber(1), Nimber(2)]), Nimber(0));
        assert_eq!(mex((0..64).map(Nimber)), Nimber(64));
        assert_eq!(mex((0..200).filter(|&v| v != 130).map(Nimber)), Nimber(130));
    }

    proptest! {
        #[test]
        fn mex_is_least_missing(vals in proptest::collection::vec(0u64..300, 0..400)) {
            let m = mex(vals.iter().copied().map(Nimber)).0;
            prop_assert!(!vals.contains(&m));
            for v in 0..m {
                prop_assert!(vals.contains(&v));
            }
        }
    }
}
