//! The misère search of small sums (every heap at most [`SMALL_HEAP`], at most
//! [`SMALL_TOKENS`] tokens in all), the sums a solve of a few heaps asks for: each sum is
//! one word ([`Packed`]: no allocation per position, options made by moving bits, a memo
//! entry of 16 bytes), and two exact simplifications shrink the positions searched:
//!
//! - a heap without a move is the empty game, and is dropped;
//! - a heap whose every option is a sum of heaps without a move is the game `*` (`{0}`), and
//!   in misère play `* + *` is equivalent to `0`: for every X, X + * + * has the outcome of X
//!   (by induction on X: when X has no move, * + * is an N-position like X; when X has an
//!   option X' that is a P-position, so is X' + * + *; when X is a P-position with a move,
//!   every X' + * + * is an N-position and X + * is one, by the move * → 0 to X). So every
//!   such heap is written as the least of them, and two of them cancel.
//!
//! Options are tried in the order the rule of misère Nim suggests (the sums it calls
//! P-positions from the heaps' normal-play values first; a guess only, to find a winning
//! move early: the outcome is always searched or a product in the quotient), then the
//! smallest first.

use super::{room_to_grow, MisereOracle, SearchStop};
use crate::genus::{tame_outcome, Tame};

/// The largest heap a small sum may hold.
pub(super) const SMALL_HEAP: u64 = 255;

/// The most tokens a small sum may hold: with at most one heap of the kind `*` and every
/// other heap of at least 2 tokens (a heap of 1 has no move or is `*`), a sum of this many
/// tokens has at most [`KEY_LEN`] heaps, and so has every sum it leads to (a move never adds
/// tokens).
pub(super) const SMALL_TOKENS: u64 = 63;

/// Heaps a key holds.
const KEY_LEN: usize = 32;

/// A small sum: its heaps from the largest down, then zeros.
pub(super) type Key = [u8; KEY_LEN];

/// A small sum as the memo keeps it: the outline of its heaps drawn as a Young diagram,
/// one bit a step from the smallest heap up (a 1 for each heap, after as many 0s as it is
/// larger than the one before it), so heap j from the smallest (from 0) is the position of
/// the (j+1)-th 1 less j. A sum of t tokens in n heaps takes its largest heap plus n bits,
/// at most t + 1 (every heap holds a token) and so at most 64 ([`SMALL_TOKENS`]): one word
/// for the 32 bytes of a [`Key`], and a memo entry of 16 bytes instead of 33.
pub(super) type Packed = u64;

/// The [`Packed`] form of a key.
pub(super) fn pack(k: &Key) -> Packed {
    let (mut bits, mut pos, mut prev) = (0u64, 0u32, 0u32);
    for &h in k[..heaps_of(k)].iter().rev() {
        pos += h as u32 - prev;
        prev = h as u32;
        debug_assert!(pos < 64, "a small sum of at most {SMALL_TOKENS} tokens");
        bits |= 1 << pos;
        pos += 1;
    }
    bits
}

/// Hashes packed keys: the finaliser of splitmix64 (every bit of the hash depends on every
/// bit of the key). Not keyed: the sums searched come from the game, not from users.
#[derive(Default, Clone, Copy)]
pub(super) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        // The finaliser of splitmix64.
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
}

/// The hasher of the maps of small keys.
pub(super) type KeyState = std::hash::BuildHasherDefault<KeyHasher>;

/// What a heap is in sums.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// No move: the empty game.
    Moveless,
    /// Every option is a sum of heaps without a move: the game `*`.
    Star,
    /// Any other heap.
    Other,
}

/// The small search's table of heaps 0..=len-1: kind, normal-play value, options reduced
/// (heaps without a move dropped, each `*` heap written as the least one, pairs of them
/// cancelled), and the tameness of the smallest.
#[derive(Default)]
pub(super) struct SmallHeaps {
    kind: Vec<Kind>,
    grundy: Vec<u32>,
    /// The least heap of the kind `*` (0: none yet).
    star: u8,
    /// Options of heap h: `parts[ends[h][i - 1]..ends[h][i]]` (from 0), each sorted from
    /// the largest heap down.
    parts: Vec<Vec<u8>>,
    ends: Vec<Vec<u32>>,
}

impl SmallHeaps {
    fn len(&self) -> u64 {
        self.kind.len() as u64
    }

    /// The heap as it is written in keys (0: dropped).
    fn canonical(&self, h: u64) -> u8 {
        match self.kind[h as usize] {
            Kind::Moveless => 0,
            Kind::Star => self.star,
            Kind::Other => h as u8,
        }
    }

    /// Extends the table to heap `n` (at most [`SMALL_HEAP`]).
    fn extend_to(&mut self, rules: &grundy_core::HeapRules, n: u64) {
        let mut raw: Vec<Vec<u64>> = Vec::new();
        while self.len() <= n {
            let h = self.len();
            raw.clear();
            rules.heap_options(h, |p| raw.push(p.to_vec()));
            // Every part is smaller than h (a move removes a token or splits the heap).
            let mut seen = Vec::new();
            let mut any_other = false;
            for opt in &raw {
                let mut x = 0u32;
                for &p in opt {
                    x ^= self.grundy[p as usize];
                    if self.kind[p as usize] != Kind::Moveless {
                        any_other = true;
                    }
                }
                seen.push(x);
            }
            seen.sort_unstable();
            seen.dedup();
            let mut g = 0;
            while seen.binary_search(&g).is_ok() {
                g += 1;
            }
            let kind = if raw.is_empty() {
                Kind::Moveless
            } else if !any_other {
                Kind::Star
            } else {
                Kind::Other
            };
            if kind == Kind::Star && self.star == 0 {
                self.star = h as u8;
            }
            self.kind.push(kind);
            self.grundy.push(g);
            // The reduced options, distinct.
            let mut opts: Vec<Vec<u8>> = Vec::with_capacity(raw.len());
            for opt in &raw {
                let mut v: Vec<u8> = opt
                    .iter()
                    .map(|&p| self.canonical(p))
                    .filter(|&p| p != 0)
                    .collect();
                v.sort_unstable_by(|a, b| b.cmp(a));
                cancel_stars(&mut v, self.star);
                opts.push(v);
            }
            opts.sort_unstable();
            opts.dedup();
            let mut parts = Vec::new();
            let mut ends = Vec::with_capacity(opts.len());
            for o in opts {
                parts.extend_from_slice(&o);
                ends.push(parts.len() as u32);
            }
            self.parts.push(parts);
            self.ends.push(ends);
        }
    }

    /// Appends the options of the small sum `bits` to `out`, packed (some may be equal),
    /// and says whether it has any.
    ///
    /// Each option is made packed: the key without the heap moved in (one bit taken out),
    /// and the option's parts put in (one bit each, at the part plus the number of heaps
    /// left not larger than it, read from a table of the key's heaps).
    fn options(&self, bits: Packed, out: &mut Vec<Packed>) -> bool {
        let (key, n) = unpack_key(bits);
        // at_most[v]: heaps of the key of at most v tokens (a heap holds at most 63).
        let mut at_most = [0u8; 64];
        {
            let mut c = 0u8;
            let mut a = n;
            for (v, slot) in at_most.iter_mut().enumerate() {
                while a > 0 && key[a - 1] as usize <= v {
                    a -= 1;
                    c += 1;
                }
                *slot = c;
            }
        }
        let star = self.star;
        let mut any = false;
        // Whether the key holds a `*` heap (at most one: pairs cancel). It is the key's
        // smallest heap: the smallest heap with a move is a `*` (its options' heaps have no
        // move), so every heap with a move is at least `star`, and the others are not `*`
        // heaps. Its bit is the lowest 1, at `star`.
        let key_star = star != 0 && n > 0 && key[n - 1] == star;
        debug_assert!(!key[..n].contains(&star) || key_star);
        for i in 0..n {
            if i > 0 && key[i] == key[i - 1] {
                continue;
            }
            let h = key[i];
            // Heap i is the (n - 1 - i)-th 1 from the lowest.
            let rest = remove_bit(bits, h as u32 + (n - 1 - i) as u32);
            // The rest without the key's `*` too, for an option holding a `*` (they cancel;
            // the `*`'s bit, below heap i's, has not moved).
            let rest_unstarred = (key_star && i != n - 1).then(|| remove_bit(rest, star as u32));
            let h_le = |v: u8| (h <= v) as u8;
            let (parts, ends) = (&self.parts[h as usize], &self.ends[h as usize]);
            let mut from = 0usize;
            for &end in ends {
                any = true;
                let opt = &parts[from..end as usize];
                from = end as usize;
                let (mut c, cancel) = match rest_unstarred {
                    Some(r) if opt.contains(&star) => (r, true),
                    _ => (rest, false),
                };
                let mut skip = cancel;
                let mut put = 0u8;
                // The parts from the smallest up: each goes after every heap left not
                // larger than it, the parts put in before it among them.
                for &v in opt.iter().rev() {
                    if skip && v == star {
                        skip = false;
                        continue;
                    }
                    let mut below = at_most[v as usize] - h_le(v) + put;
                    if cancel && star <= v {
                        below -= 1;
                    }
                    c = insert_bit(c, v as u32 + below as u32);
                    put += 1;
                }
                out.push(c);
            }
        }
        any
    }
}

/// Removes pairs of `star` from `v` (sorted, so they are adjacent).
fn cancel_stars(v: &mut Vec<u8>, star: u8) {
    if star == 0 {
        return;
    }
    let n = v.iter().filter(|&&h| h == star).count();
    if n >= 2 {
        v.retain(|&h| h != star);
        if n % 2 == 1 {
            v.push(star);
            v.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
}

/// One position being searched: its options are `arena[start..end]`, tried from `next`.
struct Frame {
    key: Packed,
    start: usize,
    end: usize,
    next: usize,
}

/// The number of heaps of a key.
fn heaps_of(k: &Key) -> usize {
    k.iter().position(|&h| h == 0).unwrap_or(KEY_LEN)
}

/// The key of a packed sum (the inverse of [`pack`]) and its number of heaps.
fn unpack_key(mut bits: Packed) -> (Key, usize) {
    let n = bits.count_ones() as usize;
    let mut k = [0u8; KEY_LEN];
    // The j-th 1 from the lowest is heap n - 1 - j of the key (from the largest down).
    for j in 0..n {
        k[n - 1 - j] = (bits.trailing_zeros() - j as u32) as u8;
        bits &= bits - 1;
    }
    (k, n)
}

/// `bits` without its 1 at `pos` (the bits above it moved down one place).
fn remove_bit(bits: Packed, pos: u32) -> Packed {
    let low = bits & ((1u64 << pos) - 1);
    low | ((bits >> pos >> 1) << pos)
}

/// `bits` with a 1 put in at `pos` (the bits from it moved up one place).
fn insert_bit(bits: Packed, pos: u32) -> Packed {
    let low = bits & ((1u64 << pos) - 1);
    low | (1u64 << pos) | ((bits >> pos << pos) << 1)
}

impl MisereOracle<'_> {
    /// The key of a small sum (`heaps` in any order), or `None` when it is not small.
    pub(super) fn small_key(&mut self, heaps: &[u64]) -> Option<Key> {
        let largest = heaps.iter().copied().max().unwrap_or(0);
        if largest > SMALL_HEAP || heaps.iter().sum::<u64>() > SMALL_TOKENS {
            return None;
        }
        self.small.extend_to(&self.base.rules, largest);
        let mut v: Vec<u8> = heaps
            .iter()
            .map(|&h| self.small.canonical(h))
            .filter(|&h| h != 0)
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        cancel_stars(&mut v, self.small.star);
        let mut k = [0u8; KEY_LEN];
        k[..v.len()].copy_from_slice(&v);
        Some(k)
    }

    /// The outcome of a small sum without search, when the quotient covers it, it was
    /// searched before, or its heaps are small and tame (the rule of misère Nim).
    fn small_settled(&mut self, bits: Packed) -> Result<Option<bool>, SearchStop> {
        let q = self.base;
        let n = bits.count_ones();
        let largest = if n == 0 {
            0
        } else {
            63 - bits.leading_zeros() - (n - 1)
        };
        if n == 0 || largest as u64 <= q.heaps || self.period.is_some() {
            let (mut e, mut rest) = (0, bits);
            for j in 0..n {
                let h = (rest.trailing_zeros() - j) as u64;
                rest &= rest - 1;
                let x = match self.period {
                    Some(per) if h > q.heaps => {
                        q.heap_elem[(per.preperiod + (h - per.preperiod) % per.period) as usize]
                    }
                    _ => q.heap_elem[h as usize],
                };
                e = q.mul(e, x);
            }
            return Ok(Some(q.is_p(e)));
        }
        if let Some(&v) = self.small_memo.get(&bits) {
            return Ok(Some(v));
        }
        if largest as usize > crate::misere::GENUS_MAX_SIZE {
            return Ok(None);
        }
        let (k, n) = unpack_key(bits);
        let mut kinds: [Tame; KEY_LEN] = [Tame::Small(0); KEY_LEN];
        for (i, &h) in k[..n].iter().enumerate() {
            match self.tame_heap(h as u64)? {
                Some(t) => kinds[i] = t,
                None => return Ok(None),
            }
        }
        Ok(Some(tame_outcome(&kinds[..n]) == grundy_core::Outcome::Second))
    }

    /// Writes the options of `bits` not settled yet into the arena (the likely P-positions
    /// first, then the smallest), or says the sum is settled by them.
    fn small_open(
        &mut self,
        bits: Packed,
        arena: &mut Vec<Packed>,
        halt: &dyn Fn() -> bool,
    ) -> Result<Option<bool>, SearchStop> {
        self.opened += 1;
        if halt() {
            return Err(SearchStop::Halted);
        }
        if self.share.over() || !room_to_grow(&self.small_memo, &self.share) {
            return Err(SearchStop::Memory);
        }
        if self.memo.len() + self.small_memo.len() >= self.limit {
            return Err(SearchStop::Limit(self.memo.len() + self.small_memo.len()));
        }
        let start = arena.len();
        if !self.small.options(bits, arena) {
            // Misère: the player to move, with no move, wins.
            return Ok(Some(false));
        }
        // Two moves may lead to the same sum: the copy is left in the list (the search
        // answers it from the memo once the first is searched). Sorting the options to
        // drop copies cost a third of the time of the slowest sums (0.74 50 7 3: 1.55 s
        // with it, 1.00 s without, the same answers).
        // Settle what needs no search (all of them, before any is searched: a winning
        // option the memo or the quotient knows saves a search of the likely ones; settling
        // them lazily, as the search reaches them, was measured slower); keep the others.
        let mut w = start;
        for r in start..arena.len() {
            let c = arena[r];
            match self.small_settled(c)? {
                Some(true) => {
                    arena.truncate(start);
                    return Ok(Some(false));
                }
                Some(false) => {}
                None => {
                    arena[w] = c;
                    w += 1;
                }
            }
        }
        arena.truncate(w);
        if w == start {
            return Ok(Some(true));
        }
        let g = &self.small.grundy;
        arena[start..].sort_by_cached_key(|&c| {
            let (mut x, mut big, mut tokens) = (0u32, false, 0u32);
            let mut rest = c;
            for j in 0..c.count_ones() {
                let h = rest.trailing_zeros() - j;
                rest &= rest - 1;
                let v = g[h as usize];
                x ^= v;
                big |= v >= 2;
                tokens += h;
            }
            let likely_p = if big { x == 0 } else { x == 1 };
            (!likely_p, tokens)
        });
        Ok(None)
    }

    /// Whether the small sum `start` is a misère P-position (see the module's notes).
    pub(super) fn small_is_p(&mut self, start: Key, halt: &dyn Fn() -> bool) -> Result<bool, SearchStop> {
        let start = pack(&start);
        if let Some(v) = self.small_settled(start)? {
            return Ok(v);
        }
        let mut arena: Vec<Packed> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        match self.small_open(start, &mut arena, halt)? {
            Some(v) => {
                self.small_memo.insert(start, v);
                return Ok(v);
            }
            None => stack.push(Frame {
                key: start,
                start: 0,
                end: arena.len(),
                next: 0,
            }),
        }
        while let Some(top) = stack.last_mut() {
            let mut decided = None;
            let mut descend = None;
            while top.next < top.end {
                match self.small_memo.get(&arena[top.next]) {
                    Some(true) => {
                        decided = Some(false);
                        break;
                    }
                    Some(false) => top.next += 1,
                    None => {
                        descend = Some(arena[top.next]);
                        break;
                    }
                }
            }
            if let Some(c) = descend {
                let from = arena.len();
                match self.small_open(c, &mut arena, halt)? {
                    Some(v) => {
                        self.small_memo.insert(c, v);
                    }
                    None => stack.push(Frame {
                        key: c,
                        start: from,
                        end: arena.len(),
                        next: from,
                    }),
                }
                continue;
            }
            if !room_to_grow(&self.small_memo, &self.share) {
                return Err(SearchStop::Memory);
            }
            let top = stack.pop().expect("not empty");
            arena.truncate(top.start);
            self.small_memo.insert(top.key, decided.unwrap_or(true));
        }
        Ok(self.small_memo[&start])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quotient::tests::{octal, partial};
    use crate::quotient::Quotient;
    use crate::MisereSearch;
    use grundy_core::Outcome;
    use proptest::prelude::*;

    #[test]
    fn heaps_of_the_kind_star() {
        // Dawson's Kayles: heap 1 has no move, heaps 2 and 3 are `*` (written as 2).
        let rules = octal(&[0, 7]);
        let q = Quotient::new(rules.clone());
        let mut o = MisereOracle::new(&q);
        let k = o.small_key(&[3, 1, 2, 2, 7]).unwrap();
        assert_eq!(&k[..3], &[7, 2, 0]);
        let k = o.small_key(&[3, 3, 1, 8]).unwrap();
        assert_eq!(&k[..2], &[8, 0]);
        // Kayles: heap 1 is `*`.
        let rules = octal(&[7, 7]);
        let q = Quotient::new(rules.clone());
        let mut o = MisereOracle::new(&q);
        let k = o.small_key(&[1, 1, 1, 5]).unwrap();
        assert_eq!(&k[..3], &[5, 1, 0]);
        // Not small: too many tokens, or a heap too large.
        assert!(o.small_key(&[40, 24]).is_none());
        assert!(o.small_key(&[256]).is_none());
        assert!(o.small_key(&[31, 32]).is_some());
    }

    /// X + * + * has the misère outcome of X, for every X (the cancellation the keys use),
    /// by the plain whole-position search.
    #[test]
    fn star_plus_star_cancels() {
        for digits in [[7u32, 7], [0, 7], [3, 7], [1, 5], [6, 0]] {
            let rules = octal(&digits);
            // The heaps of the kind `*` of this game, by their options.
            let star: Vec<u64> = (1..8)
                .filter(|&h| {
                    let mut any = false;
                    let mut all_empty = true;
                    rules.heap_options(h, |p| {
                        any = true;
                        all_empty &= p.iter().all(|&x| {
                            let mut m = false;
                            rules.heap_options(x, |_| m = true);
                            !m
                        });
                    });
                    any && all_empty
                })
                .collect();
            assert!(!star.is_empty(), "{digits:?}");
            let mut search = MisereSearch::new(&rules);
            for a in 0..7u64 {
                for b in 0..7u64 {
                    for c in 0..5u64 {
                        let x: Vec<u64> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                        let want = search.outcome(&x).unwrap();
                        for &s in &star {
                            for &t in &star {
                                let mut y = x.clone();
                                y.extend([s, t]);
                                assert_eq!(search.outcome(&y).unwrap(), want, "{digits:?} {x:?} + {s} + {t}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The heaps of a packed key, from the largest down (the reference the packing is
    /// checked against: heap j from the smallest is the position of the (j+1)-th 1 less j).
    fn unpack(mut bits: Packed) -> Vec<u8> {
        let mut heaps = Vec::new();
        while bits != 0 {
            let pos = bits.trailing_zeros();
            heaps.push((pos - heaps.len() as u32) as u8);
            bits &= bits - 1;
        }
        heaps.reverse();
        heaps
    }

    /// Heaps of 1 to 63 tokens, at most [`SMALL_TOKENS`] in all, from the largest down.
    fn small_sum() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(1u8..=63, 0..=KEY_LEN).prop_map(|v| {
            let mut left = SMALL_TOKENS as u8;
            let mut k: Vec<u8> = v
                .into_iter()
                .map_while(|h| {
                    let h = h.min(left);
                    left -= h;
                    (h > 0).then_some(h)
                })
                .collect();
            k.sort_unstable_by(|a, b| b.cmp(a));
            k
        })
    }

    fn key_of(heaps: &[u8]) -> Key {
        let mut k = [0u8; KEY_LEN];
        k[..heaps.len()].copy_from_slice(heaps);
        k
    }

    #[test]
    fn packed_keys_at_the_bounds() {
        assert_eq!(pack(&[0; KEY_LEN]), 0);
        for heaps in [
            vec![63u8],
            vec![62, 1],
            vec![1; 32],
            vec![32, 31],
            vec![2, 2, 1],
            vec![1],
        ] {
            assert_eq!(unpack(pack(&key_of(&heaps))), heaps);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The options made packed (bit by bit, with the `*` heaps cancelled) are those of
        /// the reference: every move of the rules applied to the sum's heaps, each result
        /// written as a key by [`MisereOracle::small_key`] and packed.
        #[test]
        fn packed_options_are_the_moves_of_the_rules(
            code in 0usize..8,
            tiny in proptest::collection::vec(1u64..4, 0..5),
            other in proptest::collection::vec(1u64..40, 1..5),
        ) {
            let codes: [&[u32]; 8] = [&[7, 7], &[0, 7], &[6], &[7, 1], &[1, 3, 7], &[3, 5], &[1, 5, 6], &[4, 7]];
            let rules = octal(codes[code]);
            let q = Quotient::new(rules.clone());
            let mut o = MisereOracle::new(&q);
            let sum: Vec<u64> = tiny.into_iter().chain(other).collect();
            let Some(k) = o.small_key(&sum) else { return Ok(()) };
            let mut made = Vec::new();
            let any = o.small.options(pack(&k), &mut made);
            made.sort_unstable();
            made.dedup();
            let heaps: Vec<u64> = k[..heaps_of(&k)].iter().map(|&h| h as u64).collect();
            let mut moves: Vec<Vec<u64>> = Vec::new();
            for (i, &h) in heaps.iter().enumerate() {
                rules.heap_options(h, |parts| {
                    let mut v: Vec<u64> = heaps.clone();
                    v.remove(i);
                    v.extend_from_slice(parts);
                    moves.push(v);
                });
            }
            let mut want: Vec<Packed> = moves
                .iter()
                .map(|v| pack(&o.small_key(v).expect("a move keeps a sum small")))
                .collect();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(any, !moves.is_empty());
            prop_assert_eq!(made, want, "{:?} {:?}", codes[code], heaps);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Packing keeps every heap: unpacked, a key is itself, so two keys pack alike only
        /// when they are the same sum.
        #[test]
        fn packing_keeps_every_heap(a in small_sum(), b in small_sum()) {
            prop_assert_eq!(unpack(pack(&key_of(&a))), a.clone());
            prop_assert_eq!(pack(&key_of(&a)) == pack(&key_of(&b)), a == b);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        /// Small sums, many of their heaps tiny (`*` heaps, heaps without a move), searched
        /// with a quotient of 0 to 6 heaps and then with a larger one, against the plain
        /// whole-position search.
        #[test]
        fn small_sums_match_the_whole_position_search(
            code in 0usize..8,
            base in 0u64..7,
            sums in proptest::collection::vec(
                (proptest::collection::vec(1u64..4, 0..6), proptest::collection::vec(1u64..14, 1..4)),
                25,
            ),
        ) {
            let codes: [&[u32]; 8] = [&[7, 7], &[0, 7], &[6], &[7, 1], &[1, 3, 7], &[3, 5], &[1, 5, 6], &[4, 7]];
            let rules = octal(codes[code]);
            let q = partial(&rules, base);
            let mut oracle = MisereOracle::new(&q);
            let mut search = MisereSearch::new(&rules);
            let sums: Vec<Vec<u64>> = sums
                .into_iter()
                .map(|(tiny, other)| tiny.into_iter().chain(other).collect())
                .collect();
            for sum in &sums {
                let want = search.outcome(sum).unwrap();
                prop_assert_eq!(oracle.outcome(sum, &|| false).unwrap(), want, "{:?} {:?}", codes[code], sum);
            }
            let larger = partial(&rules, base + 4);
            let mut oracle = MisereOracle::with_memo(&larger, oracle.detach());
            for sum in sums.iter().rev() {
                let want = search.outcome(sum).unwrap();
                prop_assert_eq!(oracle.outcome(sum, &|| false).unwrap(), want, "{:?} {:?}", codes[code], sum);
            }
        }
    }

    /// Sums past the small bound (more tokens, or a larger heap) are searched as before,
    /// their small followers by the small search: both agree with the plain search.
    #[test]
    fn sums_past_the_small_bound() {
        // 0.33: remove one or two tokens, leaving one heap (no splits): quick to search.
        let rules = octal(&[3, 3]);
        let q = Quotient::new(rules.clone());
        let mut oracle = MisereOracle::new(&q);
        let mut search = MisereSearch::new(&rules);
        for sum in [vec![40u64, 20, 10], vec![300, 1], vec![30, 30, 4, 1], vec![64]] {
            let want = search.outcome(&sum).unwrap();
            assert_eq!(oracle.outcome(&sum, &|| false).unwrap(), want, "{sum:?}");
        }
        assert_eq!(oracle.outcome(&[1], &|| false).unwrap(), Outcome::Second);
    }
}
