//! Nimbers: the values of impartial games under normal play.
//!
//! Addition is XOR (the nim-sum); multiplication is Conway's nim-product, which makes the
//! 64-bit nimbers a field of order 2^64.

use std::fmt;
use std::ops::{BitXor, BitXorAssign};

/// A nimber `*n`, stored as its 64-bit index. `Nimber(0)` is a second-player win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nimber(pub u64);

impl Nimber {
    /// The zero nimber `*0` (a previous-player win).
    pub const ZERO: Nimber = Nimber(0);

    /// True when the player to move loses under normal play.
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// Nim-sum (bitwise XOR).
    pub fn nim_add(self, other: Nimber) -> Nimber {
        Nimber(self.0 ^ other.0)
    }

    /// Nim-product: Conway's multiplication of nimbers.
    pub fn nim_mul(self, other: Nimber) -> Nimber {
        Nimber(nim_mul(self.0, other.0, 64))
    }

    /// Nim-square, `self * self`.
    pub fn nim_square(self) -> Nimber {
        self.nim_mul(self)
    }
}

/// Nim-product of two nimbers below `2^bits` (`bits` a power of two, at most 64).
///
/// Splits each factor into halves `a = a1·2^h + a0` with `h = bits/2` (where `2^h` is a
/// Fermat 2-power `F` with `F² = F + F/2`), so
/// `a·b = (a1b1 + a1b0 + a0b1)·F + a0b0 + a1b1·(F/2)`.
/// The recursion depth is log2(bits) ≤ 6, independent of any game.
fn nim_mul(a: u64, b: u64, bits: u32) -> u64 {
    if a < 2 || b < 2 {
        return a * b;
    }
    if bits <= 8 {
        return small_mul(a as u8, b as u8) as u64;
    }
    let h = bits / 2;
    let mask = (1u64 << h) - 1;
    let (a1, a0) = (a >> h, a & mask);
    let (b1, b0) = (b >> h, b & mask);
    let p11 = nim_mul(a1, b1, h);
    let p00 = nim_mul(a0, b0, h);
    let cross = nim_mul(a1 ^ a0, b1 ^ b0, h); // = a1b1 + a1b0 + a0b1 + a0b0
    let high = cross ^ p00; // a1b1 + a1b0 + a0b1
    let low = p00 ^ nim_mul(p11, 1u64 << (h - 1), h);
    (high << h) | low
}

/// Nim-product of two nimbers below 256, by a table built once.
fn small_mul(a: u8, b: u8) -> u8 {
    static TABLE: std::sync::OnceLock<Box<[[u8; 256]; 256]>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = Box::new([[0u8; 256]; 256]);
        for a in 0..256u64 {
            for b in 0..256u64 {
                t[a as usize][b as usize] = slow_small_mul(a, b) as u8;
            }
        }
        t
    });
    t[a as usize][b as usize]
}

/// The same Fermat-split product as [`nim_mul`], without the table, for factors below 256.
fn slow_small_mul(a: u64, b: u64) -> u64 {
    fn go(a: u64, b: u64, bits: u32) -> u64 {
        if a < 2 || b < 2 {
            return a * b;
        }
        let h = bits / 2;
        let mask = (1u64 << h) - 1;
        let (a1, a0) = (a >> h, a & mask);
        let (b1, b0) = (b >> h, b & mask);
        let p11 = go(a1, b1, h);
        let p00 = go(a0, b0, h);
        let cross = go(a1 ^ a0, b1 ^ b0, h);
        ((cross ^ p00) << h) | (p00 ^ go(p11, 1u64 << (h - 1), h))
    }
    go(a, b, 8)
}

impl BitXor for Nimber {
    type Output = Nimber;
    fn bitxor(self, rhs: Nimber) -> Nimber {
        Nimber(self.0 ^ rhs.0)
    }
}

impl BitXorAssign for Nimber {
    fn bitxor_assign(&mut self, rhs: Nimber) {
        self.0 ^= rhs.0;
    }
}

impl std::iter::Sum for Nimber {
    fn sum<I: Iterator<Item = Nimber>>(iter: I) -> Nimber {
        iter.fold(Nimber::ZERO, |a, b| a ^ b)
    }
}

impl From<u64> for Nimber {
    fn from(n: u64) -> Nimber {
        Nimber(n)
    }
}

impl fmt::Display for Nimber {
    /// Shows `*n` (`0` for the zero nimber, `*` for `*1`), as in the literature.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => write!(f, "0"),
            1 => write!(f, "*"),
            n => write!(f, "*{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Nim-product by definition: mex of a'·b + a·b' + a'·b' over a' < a, b' < b.
    fn reference_products(limit: usize) -> Vec<Vec<u64>> {
        let mut t = vec![vec![0u64; limit]; limit];
        for a in 0..limit {
            for b in 0..limit {
                let mut seen = vec![false; 4 * limit + 2];
                for x in 0..a {
                    for y in 0..b {
                        let v = t[x][b] ^ t[a][y] ^ t[x][y];
                        seen[v as usize] = true;
                    }
                }
                t[a][b] = seen.iter().position(|s| !s).unwrap() as u64;
            }
        }
        t
    }

    #[test]
    fn product_matches_definition_below_64() {
        let t = reference_products(64);
        for a in 0..64u64 {
            for b in 0..64u64 {
                assert_eq!(
                    Nimber(a).nim_mul(Nimber(b)).0,
                    t[a as usize][b as usize],
                    "{a}*{b}"
                );
            }
        }
    }

    #[test]
    fn known_products() {
        assert_eq!(Nimber(2).nim_mul(Nimber(2)), Nimber(3));
        assert_eq!(Nimber(4).nim_mul(Nimber(4)), Nimber(6));
        assert_eq!(Nimber(16).nim_mul(Nimber(16)), Nimber(24));
        assert_eq!(Nimber(1 << 32).nim_square(), Nimber((1 << 32) | (1 << 31)));
    }

    #[test]
    fn display() {
        assert_eq!(Nimber(0).to_string(), "0");
        assert_eq!(Nimber(1).to_string(), "*");
        assert_eq!(Nimber(5).to_string(), "*5");
    }

    proptest! {
        #[test]
        fn field_laws(a: u64, b: u64, c: u64) {
            let (a, b, c) = (Nimber(a), Nimber(b), Nimber(c));
            prop_assert_eq!(a.nim_mul(b), b.nim_mul(a));
            prop_assert_eq!(a.nim_mul(b).nim_mul(c), a.nim_mul(b.nim_mul(c)));
            prop_assert_eq!(a.nim_mul(b ^ c), a.nim_mul(b) ^ a.nim_mul(c));
            prop_assert_eq!(a.nim_mul(Nimber(1)), a);
            if a.0 != 0 && b.0 != 0 {
                prop_assert!(a.nim_mul(b).0 != 0);
            }
        }
    }
}
