//! The numerical rules of heap games: take-and-break digits (octal and hexadecimal codes,
//! Grundy's game) and subtraction sets. Heap games in `grundy-games` produce a [`HeapRules`];
//! the sequence engines of `grundy-solve` consume it, so neither needs to know the other.

use crate::Ruleset;

/// Bit of a take-and-break digit: removing k tokens may take the whole heap.
pub const TAKE_ALL: u8 = 1;
/// Bit of a take-and-break digit: removing k tokens may leave one non-empty heap.
pub const LEAVE_ONE: u8 = 2;
/// Bit of a take-and-break digit: removing k tokens may leave two non-empty heaps.
pub const LEAVE_TWO: u8 = 4;
/// Bit of a take-and-break digit: removing k tokens may leave three non-empty heaps.
pub const LEAVE_THREE: u8 = 8;

/// What a move may do to one heap, for every heap game grundy knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapRules {
    /// A take-and-break game: `digits[k]` (a sum of [`TAKE_ALL`], [`LEAVE_ONE`],
    /// [`LEAVE_TWO`], [`LEAVE_THREE`]) says what removing `k` tokens may leave. `digits[0]`
    /// only has the splitting bits. With `unequal`, the heaps a split leaves must all differ
    /// in size (Grundy's game is `digits = [4]`, `unequal = true`). No trailing zero digits.
    TakeBreak {
        /// Digit k, for k = 0, 1, ..., t.
        digits: Vec<u8>,
        /// Splits must leave heaps of different sizes.
        unequal: bool,
    },
    /// Subtraction game: remove any count in the set (sorted, distinct, positive).
    Subtraction(Vec<u64>),
    /// All-but subtraction game: remove any positive count not in the set (sorted, distinct).
    AllBut(Vec<u64>),
}

impl HeapRules {
    /// The largest number of tokens one move can remove (`None` when unbounded).
    pub fn max_removal(&self) -> Option<u64> {
        match self {
            HeapRules::TakeBreak { digits, .. } => Some(digits.len().saturating_sub(1) as u64),
            HeapRules::Subtraction(s) => Some(s.last().copied().unwrap_or(0)),
            HeapRules::AllBut(_) => None,
        }
    }

    /// The most heaps one move can leave in place of one (1, 2 or 3).
    pub fn max_parts(&self) -> u32 {
        match self {
            HeapRules::TakeBreak { digits, .. } => {
                let all = digits.iter().fold(0u8, |a, d| a | d);
                if all & LEAVE_THREE != 0 {
                    3
                } else if all & LEAVE_TWO != 0 {
                    2
                } else {
                    1
                }
            }
            _ => 1,
        }
    }

    /// Calls `emit` with every sum of heaps (sorted, no zero heap) a heap of `n` can become.
    pub fn heap_options<F: FnMut(&[u64])>(&self, n: u64, mut emit: F) {
        match self {
            HeapRules::TakeBreak { digits, unequal } => {
                for (k, &d) in digits.iter().enumerate() {
                    let k = k as u64;
                    if k > n {
                        break;
                    }
                    let m = n - k;
                    if d & TAKE_ALL != 0 && m == 0 {
                        emit(&[]);
                    }
                    if d & LEAVE_ONE != 0 && m >= 1 && k >= 1 {
                        emit(&[m]);
                    }
                    if d & LEAVE_TWO != 0 && m >= 2 {
                        for a in 1..=m / 2 {
                            if *unequal && a == m - a {
                                continue;
                            }
                            emit(&[a, m - a]);
                        }
                    }
                    if d & LEAVE_THREE != 0 && m >= 3 {
                        for a in 1..=m / 3 {
                            for b in a..=(m - a) / 2 {
                                let c = m - a - b;
                                if *unequal && (a == b || b == c) {
                                    continue;
                                }
                                emit(&[a, b, c]);
                            }
                        }
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

/// The removal counts k whose digit `digits[k]` has `bit` set (in increasing order).
pub fn counts_with(digits: &[u8], bit: u8) -> Vec<usize> {
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

    fn opts(r: &HeapRules, n: u64) -> Vec<Vec<u64>> {
        let mut v = Vec::new();
        r.heap_options(n, |p| v.push(p.to_vec()));
        v
    }

    #[test]
    fn kayles_options() {
        let k = HeapRules::TakeBreak {
            digits: vec![0, 7, 7],
            unequal: false,
        };
        assert_eq!(opts(&k, 4), vec![vec![3], vec![1, 2], vec![2], vec![1, 1]]);
        assert_eq!(k.max_removal(), Some(2));
        assert_eq!(k.max_parts(), 2);
    }

    #[test]
    fn grundys_game_options() {
        let g = HeapRules::TakeBreak {
            digits: vec![4],
            unequal: true,
        };
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
}
