//! A small filter of the exact values a search's compact table holds, asked before the table
//! while a frame's options are listed, so that most options cost no look-up in the table.
//!
//! While a "is `C + *n` lost?" frame lists the options of `C`, each option's largest part `P`
//! is checked for `P + *m` being known lost, that is for the table holding the value `m` for
//! `P` (an enhanced transposition cut-off). Most options are not: the answer is "not known"
//! and the look-up, in a table of megabytes, is a cache miss. [`ValueFilter`] answers most
//! of these at once from a few hundred KiB: a Bloom filter (two bits in one word) of the
//! pairs (code, value) the table was given. It never says "no" for a pair the table holds
//! (every value stored goes through [`ValueFilter::insert`], and a rebuild takes every value
//! the table holds); a "maybe" goes to the table. Values the table has let go of may stay
//! in the filter: they only cost a look-up.

use crate::code_table::{CodeTable, NARROW_VALUES, UNKNOWN};

/// Words of a new filter (32 KiB).
const START_WORDS: usize = 1 << 12;
/// Words past which the filter no longer grows (1 MiB): fuller, it answers "maybe" more
/// often, which costs look-ups, never answers.
const MAX_WORDS: usize = 1 << 17;

/// (code, value) pairs with a value below [`NARROW_VALUES`] (always kept in the table's own
/// word), as two bits of one word each.
pub(crate) struct ValueFilter {
    words: Vec<u64>,
    /// Pairs inserted since the last rebuild.
    inserted: usize,
}

impl ValueFilter {
    /// An empty filter.
    pub(crate) fn new() -> ValueFilter {
        ValueFilter {
            words: vec![0; START_WORDS],
            inserted: 0,
        }
    }

    /// The word and the two bits of `(code, value)`.
    #[inline]
    fn slot(&self, code: u64, value: u64) -> (usize, u64) {
        let mut h = (code ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 29;
        h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
        let i = (h >> 32) as usize & (self.words.len() - 1);
        (i, 1 << (h & 63) | 1 << ((h >> 6) & 63))
    }

    /// Whether the table may hold the value `value` for `code`: `false` only when it does not.
    #[inline]
    pub(crate) fn may_hold(&self, code: u64, value: u64) -> bool {
        if value >= NARROW_VALUES {
            return true;
        }
        let (i, bits) = self.slot(code, value);
        self.words[i] & bits == bits
    }

    /// Notes that `table` now holds the value `value` for `code` (after it was stored there):
    /// grows the filter (and takes every value of `table` again) when it fills up.
    pub(crate) fn insert(&mut self, code: u64, value: u64, table: &CodeTable) {
        if value >= NARROW_VALUES {
            return;
        }
        let (i, bits) = self.slot(code, value);
        self.words[i] |= bits;
        self.inserted += 1;
        // Past about one pair to ten bits, a third of the bits are set and every tenth "no"
        // turns into a "maybe". It grows with the table, to an eighth of the table's bytes
        // at most, so that the table's own bound (half the memory budget) bounds it too.
        if self.inserted * 10 > self.words.len() * 64
            && self.words.len() < MAX_WORDS
            && self.words.len() * 2 * 8 <= table.bytes() / 8
            && crate::code_table::doubling_fits(self.words.len() * 8)
        {
            self.rebuild(table, self.words.len() * 2);
        }
    }

    /// Makes the filter `words` long, holding the values `table` holds.
    fn rebuild(&mut self, table: &CodeTable, words: usize) {
        self.words = vec![0; words];
        self.inserted = 0;
        table.for_each(|code, w| {
            let v = w & UNKNOWN;
            if v < NARROW_VALUES {
                let (i, bits) = self.slot(code, v);
                self.words[i] |= bits;
                self.inserted += 1;
            }
        });
    }

    /// Bytes taken.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_says_no_to_a_value_held() {
        let mut table = CodeTable::new();
        let mut f = ValueFilter::new();
        for code in 0..1_000_000u64 {
            let v = code % 7;
            table.update(code, |_| 0, |w| *w = v);
            f.insert(code, v, &table);
        }
        assert!(
            f.bytes() > START_WORDS * 8,
            "it grew: {} bytes, table {}",
            f.bytes(),
            table.bytes()
        );
        // The table forgets some (it keeps its size); what it holds, the filter has.
        let mut held = 0;
        let mut maybes = 0;
        table.for_each(|code, w| {
            assert!(f.may_hold(code, w & UNKNOWN), "{code}");
            held += 1;
            maybes += f.may_hold(code, w & UNKNOWN ^ 8) as usize;
        });
        assert!(held > 10_000, "{held}");
        assert!(maybes * 5 < held, "{maybes} false positives of {held}");
        assert!(f.may_hold(5, NARROW_VALUES), "large values are left to the table");
    }

    #[test]
    fn a_small_table_gets_a_small_filter() {
        let mut table = CodeTable::with_max_bytes(256 << 10);
        let mut f = ValueFilter::new();
        assert_eq!(f.bytes(), 32 << 10);
        for code in 0..100_000u64 {
            table.update(code, |_| 0, |w| *w = code % 7);
            f.insert(code, code % 7, &table);
        }
        assert_eq!(f.bytes(), 32 << 10, "an eighth of the table's bytes at most");
        table.for_each(|code, w| assert!(f.may_hold(code, w & UNKNOWN), "{code}"));
    }
}
