//! A compact hash table from 64-bit codes to 64-bit words, each slot 16 bytes (code and
//! word side by side, four slots to a cache-line bucket), for components that
//! [`Ruleset::code`](grundy_core::Ruleset::code) packs into one word.

/// Codes to words; the code `u64::MAX` marks an empty slot and is never stored.
///
/// Slots come in buckets of four (one cache line); a code lives in the bucket its hash
/// picks. When that bucket is full, the new word takes the place of the one there least
/// worth keeping (by a measure the caller gives): a lost word only costs the search its work
/// again. Past [`FREE_SLOTS`], the table doubles once it has pushed out [`GROW_AFTER`] words
/// per slot since it last grew, so it settles where most of what the search asks again is still there: on
/// Cram 4×11, 16 MiB instead of the 256 MiB a table keeping everything takes, and faster,
/// its words staying in cache.
pub(crate) struct CodeTable {
    buckets: Vec<Bucket>,
    len: usize,
    /// `64 - log2(buckets)`: the bucket of a code is its mixed bits shifted right by this.
    shift: u32,
    /// The table never grows past this many buckets.
    max_buckets: usize,
    /// Words pushed out since the table last grew.
    evicted: usize,
}

/// Four slots of (code, word), aligned to a cache line so that a lookup touches one line
/// (unaligned, three buckets in four would straddle two).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket([[u64; 2]; BUCKET]);

const EMPTY: u64 = u64::MAX;
const BUCKET: usize = 4;
const EMPTY_BUCKET: Bucket = Bucket([[EMPTY, 0]; BUCKET]);
const START_SLOTS: usize = 1 << 12;
/// The table doubles once it has pushed out this many words per slot since it last grew
/// (measured on Cram: 2 gives 5×7 0.64 s / 2 MiB and 4×11 14.1 s / 32 MiB; 4 gives 0.73 s /
/// 1 MiB and 15.4 s / 16 MiB; 8 gives 0.81 s / 1 MiB and 17.5 s / 8 MiB).
const GROW_AFTER: usize = 4;
/// Below this many slots (512 KiB) the table doubles at the first full bucket instead: what
/// small tables push out costs more to work out again than the memory saved (Cram 5×7 0.70 s
/// → 0.63 s, in the same 1 MiB at the end; 4×11 the same 16 MiB, 16.1 s → 15.0 s).
const FREE_SLOTS: usize = 1 << 15;

impl CodeTable {
    /// A table that grows as it needs, without a bound.
    pub(crate) fn new() -> CodeTable {
        CodeTable::with_max_bytes(usize::MAX)
    }

    /// A table that never takes more than `max` bytes (at least two buckets: 128 bytes).
    pub(crate) fn with_max_bytes(max: usize) -> CodeTable {
        let fit = (max / std::mem::size_of::<Bucket>()).max(2);
        let max_buckets = if fit.is_power_of_two() {
            fit
        } else {
            fit.next_power_of_two() / 2
        };
        let buckets = (START_SLOTS / BUCKET).min(max_buckets);
        CodeTable {
            buckets: vec![EMPTY_BUCKET; buckets],
            len: 0,
            shift: 64 - buckets.trailing_zeros(),
            max_buckets,
            evicted: 0,
        }
    }

    /// Codes stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes the slots take.
    pub(crate) fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// The bucket of `code`.
    #[inline]
    fn bucket(&self, code: u64) -> usize {
        // Two rounds of multiply and fold: a good spread of the top bits whatever the codes
        // look like (one round left structured codes crowding some buckets).
        let mut h = (code ^ (code >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h = (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (h >> self.shift) as usize
    }

    /// The word stored for `code`.
    #[inline]
    pub(crate) fn get(&self, code: u64) -> Option<u64> {
        debug_assert_ne!(code, EMPTY);
        let b = self.bucket(code);
        for &[k, v] in &self.buckets[b].0 {
            if k == code {
                return Some(v);
            }
        }
        None
    }

    /// The word stored for `code`, inserted as `init` when there is none (pushing out
    /// another word when its bucket is full and the table may not grow).
    pub(crate) fn entry(&mut self, code: u64, init: u64, worth: impl Fn(u64) -> u64) -> &mut u64 {
        debug_assert_ne!(code, EMPTY);
        let mut b = self.bucket(code);
        let mut free = None;
        for i in 0..BUCKET {
            let k = self.buckets[b].0[i][0];
            if k == code {
                return &mut self.buckets[b].0[i][1];
            }
            if k == EMPTY && free.is_none() {
                free = Some(i);
            }
        }
        let slots = self.buckets.len() * BUCKET;
        if free.is_none()
            && (slots < FREE_SLOTS || self.evicted >= slots * GROW_AFTER)
            && self.buckets.len() < self.max_buckets
        {
            self.grow();
            b = self.bucket(code);
            free = (0..BUCKET).find(|&i| self.buckets[b].0[i][0] == EMPTY);
        }
        let i = match free {
            Some(i) => {
                self.len += 1;
                i
            }
            None => {
                self.evicted += 1;
                // The word least worth keeping; of equals, the one the code's own bits pick.
                let turn = code as usize >> 7;
                let slots = &self.buckets[b].0;
                (0..BUCKET)
                    .map(|j| (j + turn) % BUCKET)
                    .min_by_key(|&i| worth(slots[i][1]))
                    .expect("buckets are not empty")
            }
        };
        self.buckets[b].0[i] = [code, init];
        &mut self.buckets[b].0[i][1]
    }

    /// Doubles the table in place: the words of bucket `b` go to buckets `2b` and `2b + 1`
    /// (the next bit of their hash), so walking the buckets from the top down never
    /// overwrites one not yet moved, and no second table is needed.
    fn grow(&mut self) {
        let old = self.buckets.len();
        self.buckets.resize(2 * old, EMPTY_BUCKET);
        self.shift -= 1;
        self.evicted = 0;
        for from in (0..old).rev() {
            let words = std::mem::replace(&mut self.buckets[from], EMPTY_BUCKET);
            let mut filled = [0; 2];
            for [k, v] in words.0 {
                if k != EMPTY {
                    let b = self.bucket(k);
                    let half = b - 2 * from;
                    debug_assert!(half < 2);
                    self.buckets[b].0[filled[half]] = [k, v];
                    filled[half] += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Codes with structure (masks in the low bits, a width high up), as Cram's.
    fn code(k: u64) -> u64 {
        k.rotate_left(58) ^ (k & 0xff)
    }

    proptest! {
        /// Whatever it forgets, the table never answers a wrong word, and the word just
        /// written is always there.
        #[test]
        fn never_answers_wrong(ops in proptest::collection::vec((0u64..3000, any::<u64>()), 0..6000), small in any::<bool>()) {
            let mut t = if small { CodeTable::with_max_bytes(1024) } else { CodeTable::new() };
            let mut m = HashMap::new();
            for &(k, v) in &ops {
                let code = code(k);
                if t.get(code).is_none() {
                    // Never stored, or pushed out: the table starts it again from 0.
                    m.insert(code, 0);
                }
                *t.entry(code, 0, |w| w & 0xff) ^= v;
                *m.get_mut(&code).unwrap() ^= v;
                prop_assert_eq!(t.get(code), m.get(&code).copied());
            }
            prop_assert!(t.len() <= m.len());
            for (&k, &v) in &m {
                let got = t.get(k);
                prop_assert!(got.is_none() || got == Some(v));
            }
            prop_assert_eq!(t.get(EMPTY - 1), m.get(&(EMPTY - 1)).copied().filter(|_| t.get(EMPTY - 1).is_some()));
            let cap = if small { 1024 } else { 1 << 20 };
            prop_assert!(t.bytes() <= cap);
        }
    }

    #[test]
    fn growing_keeps_every_word() {
        let mut t = CodeTable::new();
        for k in 0..1500 {
            *t.entry(code(k), 0, |_| 0) = k;
        }
        let kept: Vec<u64> = (0..1500).filter(|&k| t.get(code(k)) == Some(k)).collect();
        assert!(
            kept.len() > 1400,
            "a small table grows rather than forget: {}",
            kept.len()
        );
        let (len, bytes) = (t.len(), t.bytes());
        t.grow();
        assert_eq!(t.bytes(), 2 * bytes);
        assert_eq!(t.len(), len);
        for &k in &kept {
            assert_eq!(t.get(code(k)), Some(k));
        }
    }

    #[test]
    fn pushes_out_the_word_least_worth_keeping() {
        let mut t = CodeTable::with_max_bytes(128);
        // Five codes of one bucket: the fifth pushes out the one of least worth.
        let b = t.bucket(code(0));
        let same: Vec<u64> = (0..).map(code).filter(|&c| t.bucket(c) == b).take(5).collect();
        for (i, &c) in same[..4].iter().enumerate() {
            *t.entry(c, 0, |w| w) = [7, 3, 9, 8][i];
        }
        *t.entry(same[4], 0, |w| w) = 5;
        assert_eq!(t.get(same[1]), None);
        for i in [0, 2, 3, 4] {
            assert!(t.get(same[i]).is_some());
        }
        assert_eq!(t.bytes(), 128);
    }
}
