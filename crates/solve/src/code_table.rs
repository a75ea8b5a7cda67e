//! A compact hash table from 64-bit codes to 64-bit words: open addressing with linear
//! probing, each slot 16 bytes (code and word side by side, four slots to a cache line), for
//! components that [`Ruleset::code`](grundy_core::Ruleset::code) packs into one word.

/// Codes to words; the code `u64::MAX` marks an empty slot and is never stored.
pub(crate) struct CodeTable {
    slots: Vec<[u64; 2]>,
    len: usize,
    /// `64 - log2(slots.len())`: the index of a code is its mixed bits shifted right by this.
    shift: u32,
}

const EMPTY: u64 = u64::MAX;
const MIN_SLOTS_LOG2: u32 = 12;

impl CodeTable {
    pub(crate) fn new() -> CodeTable {
        CodeTable {
            slots: vec![[EMPTY, 0]; 1 << MIN_SLOTS_LOG2],
            len: 0,
            shift: 64 - MIN_SLOTS_LOG2,
        }
    }

    /// Codes stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn index(&self, code: u64) -> usize {
        // Fibonacci hashing of the code with its high half folded in: a good spread of the
        // top bits whatever the codes look like.
        ((code ^ (code >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The word stored for `code`.
    #[inline]
    pub(crate) fn get(&self, code: u64) -> Option<u64> {
        debug_assert_ne!(code, EMPTY);
        let mask = self.slots.len() - 1;
        let mut i = self.index(code);
        loop {
            let [k, v] = self.slots[i];
            if k == code {
                return Some(v);
            }
            if k == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// The word stored for `code`, inserted as `init` when there is none.
    pub(crate) fn entry(&mut self, code: u64, init: u64) -> &mut u64 {
        debug_assert_ne!(code, EMPTY);
        // At most half full: probes stay short.
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(code);
        loop {
            let k = self.slots[i][0];
            if k == code {
                break;
            }
            if k == EMPTY {
                self.slots[i] = [code, init];
                self.len += 1;
                break;
            }
            i = (i + 1) & mask;
        }
        &mut self.slots[i][1]
    }

    fn grow(&mut self) {
        let bigger = vec![[EMPTY, 0]; 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, bigger);
        self.shift -= 1;
        let mask = self.slots.len() - 1;
        for [k, v] in old {
            if k != EMPTY {
                let mut i = self.index(k);
                while self.slots[i][0] != EMPTY {
                    i = (i + 1) & mask;
                }
                self.slots[i] = [k, v];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #[test]
        fn behaves_like_a_map(ops in proptest::collection::vec((0u64..3000, any::<u64>()), 0..6000)) {
            let mut t = CodeTable::new();
            let mut m = HashMap::new();
            for &(k, v) in &ops {
                // Codes with structure (masks in the low bits, a width high up), as Cram's.
                let code = k.rotate_left(58) ^ (k & 0xff);
                *t.entry(code, 0) ^= v;
                *m.entry(code).or_insert(0) ^= v;
                prop_assert_eq!(t.get(code), m.get(&code).copied());
            }
            prop_assert_eq!(t.len(), m.len());
            for (&k, &v) in &m {
                prop_assert_eq!(t.get(k), Some(v));
            }
            prop_assert_eq!(t.get(EMPTY - 1), m.get(&(EMPTY - 1)).copied());
        }
    }
}
