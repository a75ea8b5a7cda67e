//! The numerical rules of heap games: take-and-break digits (octal, hexadecimal and wider
//! codes, unequal splits, repeating digit blocks; Grundy's game) and subtraction sets. Heap
//! games in `grundy-games` produce a [`HeapRules`]; the sequence engines of `grundy-solve`
//! consume it, so neither needs to know the other.

use crate::Ruleset;

/// A take-and-break digit: bit j set when a move may leave j non-empty heaps (j ≤
/// [`MAX_LEAVE`]); bit 0 is "take the whole heap".
pub type Digit = u32;

/// Bit of a take-and-break digit: removing k tokens may take the whole heap.
pub const TAKE_ALL: Digit = 1;
/// Bit of a take-and-break digit: removing k tokens may leave one non-empty heap.
pub const LEAVE_ONE: Digit = 2;
/// Bit of a take-and-break digit: removing k tokens may leave two non-empty heaps.
pub const LEAVE_TWO: Digit = 4;
/// Bit of a take-and-break digit: removing k tokens may leave three non-empty heaps.
pub const LEAVE_THREE: Digit = 8;
/// The most heaps one take-and-break move may leave (bit 31 of a [`Digit`]).
pub const MAX_LEAVE: u32 = 31;

/// What a move may do to one heap, for every heap game grundy knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapRules {
    /// A take-and-break game: digit k (bit j: may leave j heaps, see [`Digit`]) says what
    /// removing `k` tokens may leave. `digits[0]` only has bits of two heaps or more. Built
    /// by [`HeapRules::take_break`], which puts the code in its one canonical form.
    TakeBreak {
        /// Digit k, for k = 0, 1, ..., t; with `repeat > 0`, the last `repeat` of them repeat
        /// forever (digit k for k ≥ t + 1 is `digits[t + 1 − repeat + (k − t − 1) % repeat]`).
        digits: Vec<Digit>,
        /// The removal counts k (sorted) whose digit has the unequal flag (`!`): the heaps a
        /// split by that digit leaves must all differ in size. Only digits with a splitting bit
        /// (two heaps or more) carry it. Grundy's game is `digits = [4]`, `unequal = [0]`.
        unequal: Vec<usize>,
        /// Length of the final block of digits that repeats forever (0: none; never covers
        /// digit 0). With a block, a move may remove any number of tokens.
        repeat: usize,
    },
    /// Subtraction game: remove any count in the set (sorted, distinct, positive).
    Subtraction(Vec<u64>),
    /// All-but subtraction game: remove any positive count not in the set (sorted, distinct).
    AllBut(Vec<u64>),
}

/// The bits of a digit for two heaps or more.
const SPLITS: Digit = !(TAKE_ALL | LEAVE_ONE);

impl HeapRules {
    /// The take-and-break game of `digits` (digit k for k = 0, 1, ...), with the unequal flag
    /// on digit k when `unequal[k]` (missing entries: no flag), the last `repeat` digits
    /// repeating forever. In canonical form: flags only on digits that split, the repeating
    /// block as short and as early as it can be (`0.3[33]` is `0.[3]`), a block of zeros
    /// dropped, then trailing zero digits. `None` when `digits` is empty, when `digits[0]`
    /// has bit 0 or 1 (a move removing nothing must split), or when the block covers digit 0.
    pub fn take_break(digits: &[Digit], unequal: &[bool], repeat: usize) -> Option<HeapRules> {
        if digits.is_empty() || digits[0] & !SPLITS != 0 || repeat >= digits.len() {
            return None;
        }
        let mut pairs: Vec<(Digit, bool)> = digits
            .iter()
            .enumerate()
            .map(|(k, &d)| (d, d & SPLITS != 0 && unequal.get(k).copied().unwrap_or(false)))
            .collect();
        let mut r = repeat;
        if r > 0 {
            // The shortest period of the block.
            let start = pairs.len() - r;
            let block = &pairs[start..];
            let p = (1..=r)
                .find(|&p| r.is_multiple_of(p) && (p..r).all(|i| block[i] == block[i - p]))
                .unwrap_or(r);
            pairs.truncate(start + p);
            r = p;
            // Move the block earlier while the digit before it equals its last digit.
            while pairs.len() - r > 1 && pairs[pairs.len() - r - 1] == pairs[pairs.len() - 1] {
                pairs.pop();
            }
            if pairs[pairs.len() - r..].iter().all(|&(d, _)| d == 0) {
                pairs.truncate(pairs.len() - r);
                r = 0;
            }
        }
        if r == 0 {
            while pairs.len() > 1 && pairs.last().is_some_and(|&(d, _)| d == 0) {
                pairs.pop();
            }
        }
        Some(HeapRules::TakeBreak {
            digits: pairs.iter().map(|&(d, _)| d).collect(),
            unequal: (0..pairs.len()).filter(|&k| pairs[k].1).collect(),
            repeat: r,
        })
    }

    /// Grundy's game: split a heap into two heaps of different sizes (`4!.0`).
    pub fn grundys_game() -> HeapRules {
        HeapRules::TakeBreak {
            digits: vec![LEAVE_TWO],
            unequal: vec![0],
            repeat: 0,
        }
    }

    /// Digit k of a take-and-break game and its unequal flag ((0, false) past a finite code,
    /// and for other rules).
    pub fn digit(&self, k: u64) -> (Digit, bool) {
        let HeapRules::TakeBreak {
            digits,
            unequal,
            repeat,
        } = self
        else {
            return (0, false);
        };
        let len = digits.len() as u64;
        let i = if k < len {
            k as usize
        } else if *repeat > 0 {
            let start = len - *repeat as u64;
            (start + (k - start) % *repeat as u64) as usize
        } else {
            return (0, false);
        };
        (digits[i], unequal.binary_search(&i).is_ok())
    }

    /// The largest number of tokens one move can remove (`None` when unbounded).
    pub fn max_removal(&self) -> Option<u64> {
        match self {
            HeapRules::TakeBreak { repeat, .. } if *repeat > 0 => None,
            HeapRules::TakeBreak { digits, .. } => Some(digits.len().saturating_sub(1) as u64),
            HeapRules::Subtraction(s) => Some(s.last().copied().unwrap_or(0)),
            HeapRules::AllBut(_) => None,
        }
    }

    /// The most heaps one move can leave in place of one (1 to [`MAX_LEAVE`]).
    pub fn max_parts(&self) -> u32 {
        match self {
            HeapRules::TakeBreak { digits, .. } => {
                let all = digits.iter().fold(0, |a, d| a | d) | LEAVE_ONE;
                Digit::BITS - 1 - all.leading_zeros()
            }
            _ => 1,
        }
    }

    /// True for a take-and-break game with a digit flagged unequal.
    pub fn has_unequal(&self) -> bool {
        matches!(self, HeapRules::TakeBreak { unequal, .. } if !unequal.is_empty())
    }

    /// Calls `emit` with every sum of heaps (sorted, no zero heap) a heap of `n` can become.
    pub fn heap_options<F: FnMut(&[u64])>(&self, n: u64, mut emit: F) {
        match self {
            HeapRules::TakeBreak { digits, repeat, .. } => {
                let last = if *repeat > 0 {
                    n
                } else {
                    n.min(digits.len() as u64 - 1)
                };
                let mut parts = Vec::new();
                for k in 0..=last {
                    let (d, unequal) = self.digit(k);
                    let m = n - k;
                    if d & TAKE_ALL != 0 && m == 0 {
                        emit(&[]);
                    }
                    if d & LEAVE_ONE != 0 && m >= 1 && k >= 1 {
                        emit(&[m]);
                    }
                    let mut splits = d & SPLITS;
                    while splits != 0 {
                        let j = splits.trailing_zeros();
                        splits &= splits - 1;
                        for_each_partition(m, j as usize, unequal, &mut parts, &mut emit);
                    }
                }
            }
            HeapRules::Subtraction(set) => {
                for &s in set {
                    if s > n {
                        break;
                    }
                    if s == n {
                        emit(&[]);
                    } else {
                        emit(&[n - s]);
                    }
                }
            }
            HeapRules::AllBut(set) => {
                for k in 1..=n {
                    if set.binary_search(&k).is_ok() {
                        continue;
                    }
                    if k == n {
                        emit(&[]);
                    } else {
                        emit(&[n - k]);
                    }
                }
            }
        }
    }
}

/// Calls `emit` with every partition of `m` into exactly `j` positive parts (`j ≥ 1`), as a
/// non-decreasing list, in lexicographic order; with `distinct`, only those whose parts all
/// differ. `parts` is scratch space. No recursion: the next partition is found in place.
pub fn for_each_partition<F: FnMut(&[u64])>(
    m: u64,
    j: usize,
    distinct: bool,
    parts: &mut Vec<u64>,
    emit: &mut F,
) {
    if j == 0 {
        return;
    }
    let step = u64::from(distinct);
    // The least sum of `count` parts, each at least `from` and (distinct) increasing.
    let least = |from: u64, count: u64| -> u64 {
        if distinct {
            count * from + count * count.saturating_sub(1) / 2
        } else {
            count * from
        }
    };
    if (j as u64) > m || least(1, j as u64) > m {
        return;
    }
    parts.clear();
    // The first partition: the smallest parts, the rest in the last one.
    let mut sum = 0;
    for i in 0..j - 1 {
        let v = 1 + step * i as u64;
        parts.push(v);
        sum += v;
    }
    parts.push(m - sum);
    loop {
        emit(parts);
        // Find the rightmost part (not the last) that can grow by one with the parts after
        // it reset to their least values and the last taking the rest.
        let mut found = false;
        let mut prefix: u64 = parts[..j - 1].iter().sum();
        for i in (0..j - 1).rev() {
            prefix -= parts[i];
            let v = parts[i] + 1;
            // Parts i..j−1 become v, v + step, ...; the last takes what is left.
            let count = (j - i) as u64; // parts i..=j−1
            let before_last = least(v, count - 1);
            if prefix + before_last >= m {
                continue;
            }
            let last = m - prefix - before_last;
            let prev = if count >= 2 { v + step * (count - 2) } else { 0 };
            if count >= 2 && last < prev + step {
                continue;
            }
            for (t, p) in parts[i..j - 1].iter_mut().enumerate() {
                *p = v + step * t as u64;
            }
            parts[j - 1] = last;
            found = true;
            break;
        }
        if !found {
            return;
        }
    }
}

/// The removal counts k whose digit `digits[k]` has `bit` set (in increasing order).
pub fn counts_with(digits: &[Digit], bit: Digit) -> Vec<usize> {
    digits
        .iter()
        .enumerate()
        .filter(|(_, &d)| d & bit != 0)
        .map(|(k, _)| k)
        .collect()
}

impl Ruleset for HeapRules {
    type Component = u64;

    fn options<F: FnMut(&[u64])>(&self, c: &u64, emit: F) {
        self.heap_options(*c, emit)
    }

    fn size_hint(&self, c: &u64) -> usize {
        *c as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn opts(r: &HeapRules, n: u64) -> Vec<Vec<u64>> {
        let mut v = Vec::new();
        r.heap_options(n, |p| v.push(p.to_vec()));
        v
    }

    fn tb(digits: &[Digit]) -> HeapRules {
        HeapRules::take_break(digits, &[], 0).unwrap()
    }

    #[test]
    fn kayles_options() {
        let k = tb(&[0, 7, 7]);
        assert_eq!(opts(&k, 4), vec![vec![3], vec![1, 2], vec![2], vec![1, 1]]);
        assert_eq!(k.max_removal(), Some(2));
        assert_eq!(k.max_parts(), 2);
    }

    #[test]
    fn grundys_game_options() {
        let g = HeapRules::grundys_game();
        assert_eq!(HeapRules::take_break(&[4], &[true], 0), Some(g.clone()));
        assert_eq!(opts(&g, 6), vec![vec![1, 5], vec![2, 4]]);
        assert!(opts(&g, 2).is_empty());
    }

    #[test]
    fn subtraction_options() {
        let s = HeapRules::Subtraction(vec![1, 3]);
        assert_eq!(opts(&s, 3), vec![vec![2], vec![]]);
        let a = HeapRules::AllBut(vec![2]);
        assert_eq!(opts(&a, 3), vec![vec![2], vec![]]);
    }

    #[test]
    fn canonical_forms() {
        let nim = HeapRules::take_break(&[0, 3], &[], 1).unwrap();
        assert_eq!(HeapRules::take_break(&[0, 3, 3, 3], &[], 2), Some(nim.clone()));
        assert_eq!(HeapRules::take_break(&[0, 3, 3, 3], &[], 1), Some(nim.clone()));
        assert_eq!(nim.max_removal(), None);
        assert_eq!(nim.digit(1000), (3, false));
        // A block of zeros is no block; the flag only on splitting digits.
        assert_eq!(HeapRules::take_break(&[0, 7, 0, 0], &[], 2), Some(tb(&[0, 7])));
        assert_eq!(
            HeapRules::take_break(&[0, 3], &[false, true], 0),
            Some(tb(&[0, 3]))
        );
        // 4.0[37]: the block stays after the 0.
        let r = HeapRules::take_break(&[4, 0, 3, 7, 3, 7], &[], 4).unwrap();
        assert_eq!(
            r,
            HeapRules::TakeBreak {
                digits: vec![4, 0, 3, 7],
                unequal: vec![],
                repeat: 2
            }
        );
        // 0.7[37] rotates to 0.[73].
        let r = HeapRules::take_break(&[0, 7, 3, 7], &[], 2).unwrap();
        assert_eq!(r, HeapRules::take_break(&[0, 7, 3], &[], 2).unwrap());
        assert!(HeapRules::take_break(&[1, 3], &[], 0).is_none());
        assert!(HeapRules::take_break(&[0, 3], &[], 2).is_none());
        assert!(HeapRules::take_break(&[], &[], 0).is_none());
    }

    #[test]
    fn many_heaps() {
        // Remove 1 and leave exactly 4 heaps.
        let r = tb(&[0, 1 << 4]);
        assert_eq!(r.max_parts(), 4);
        assert_eq!(opts(&r, 6), vec![vec![1, 1, 1, 2]]);
        assert_eq!(opts(&r, 7), vec![vec![1, 1, 1, 3], vec![1, 1, 2, 2]]);
        let u = HeapRules::take_break(&[0, 1 << 3], &[false, true], 0).unwrap();
        assert_eq!(opts(&u, 10), vec![vec![1, 2, 6], vec![1, 3, 5], vec![2, 3, 4]]);
        let top = tb(&[1 << MAX_LEAVE]);
        assert_eq!(top.max_parts(), MAX_LEAVE);
        assert_eq!(opts(&top, 31), vec![vec![1; 31]]);
    }

    /// Every partition of m into j parts, the simplest way: all lists of j parts in 1..=m,
    /// kept when sorted and summing to m (and all different, for `distinct`).
    fn simple_partitions(m: u64, j: usize, distinct: bool) -> Vec<Vec<u64>> {
        let mut all: Vec<Vec<u64>> = vec![vec![]];
        for _ in 0..j {
            let mut next = Vec::new();
            for p in &all {
                for v in 1..=m {
                    let mut q = p.clone();
                    q.push(v);
                    if q.iter().sum::<u64>() <= m {
                        next.push(q);
                    }
                }
            }
            all = next;
        }
        all.retain(|p| {
            p.iter().sum::<u64>() == m
                && p.windows(2)
                    .all(|w| if distinct { w[0] < w[1] } else { w[0] <= w[1] })
        });
        all.sort();
        all
    }

    /// The options of heap n the simplest way: every k, every bit, every partition.
    fn simple_options(r: &HeapRules, n: u64) -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        for k in 0..=n {
            let (d, unequal) = r.digit(k);
            let m = n - k;
            for j in 0..=MAX_LEAVE as usize {
                if d & (1 << j) == 0 {
                    continue;
                }
                match j {
                    0 if m == 0 => out.push(vec![]),
                    1 if m >= 1 && k >= 1 => out.push(vec![m]),
                    0 | 1 => {}
                    _ => out.extend(simple_partitions(m, j, unequal)),
                }
            }
        }
        out.sort();
        out
    }

    fn small_rules() -> impl Strategy<Value = HeapRules> {
        (
            prop_oneof![Just(0u32), 0u32..64],
            proptest::collection::vec(0u32..64, 1..5),
            proptest::collection::vec(any::<bool>(), 0..6),
            0usize..3,
        )
            .prop_filter_map("a valid code", |(d0, rest, flags, repeat)| {
                let mut d = vec![d0 & SPLITS];
                d.extend(rest);
                let repeat = repeat.min(d.len() - 1);
                HeapRules::take_break(&d, &flags, repeat)
            })
    }

    proptest! {
        #[test]
        fn partitions_match_the_simple_enumeration(m in 0u64..11, j in 1usize..6, distinct: bool) {
            let mut got = Vec::new();
            for_each_partition(m, j, distinct, &mut Vec::new(), &mut |p: &[u64]| got.push(p.to_vec()));
            let mut sorted = got.clone();
            sorted.sort();
            prop_assert_eq!(&got, &sorted, "lexicographic order");
            prop_assert_eq!(got, simple_partitions(m, j, distinct));
        }

        #[test]
        fn options_match_the_simple_enumeration(r in small_rules(), n in 0u64..10) {
            let mut got = opts(&r, n);
            got.sort();
            prop_assert_eq!(got, simple_options(&r, n));
        }

        #[test]
        fn canonical_form_is_stable(r in small_rules()) {
            let HeapRules::TakeBreak { digits, unequal, repeat } = &r else { unreachable!() };
            let flags: Vec<bool> = (0..digits.len()).map(|k| unequal.contains(&k)).collect();
            prop_assert_eq!(HeapRules::take_break(digits, &flags, *repeat), Some(r.clone()));
            // The same game written with its block twice, or unrolled once: the same rules.
            if *repeat > 0 {
                let start = digits.len() - repeat;
                let mut d2 = digits.clone();
                d2.extend_from_slice(&digits[start..]);
                let mut f2 = flags.clone();
                f2.extend_from_slice(&flags[start..]);
                prop_assert_eq!(HeapRules::take_break(&d2, &f2, *repeat), Some(r.clone()));
                prop_assert_eq!(HeapRules::take_break(&d2, &f2, 2 * repeat), Some(r.clone()));
            }
            for k in 0..20 {
                prop_assert_eq!(r.digit(k).0 & !SPLITS & if k == 0 { !0 } else { 0 }, 0);
            }
        }
    }
}
