//! The core of grundy: nimbers, mex sets and the [`Ruleset`] abstraction.
//!
//! A position of an impartial game is a sum of independent components; a move replaces one
//! component by a (possibly empty) sum of components. This crate has no I/O and no engines.

pub mod dense;
pub mod heap;
#[allow(unsafe_code)] // the global allocator: see the module's SAFETY notes
pub mod memory;
pub mod mex;
pub mod nimber;
pub mod parse;
pub mod ruleset;

pub use heap::HeapRules;
pub use mex::MexSet;
pub use nimber::Nimber;
pub use parse::{tokens, ParseError, Span, Token};
pub use ruleset::{Convention, Fault, Game, Outcome, Ruleset};

/// The decimal digits of `n` (as `n.to_string()` writes them), written into `buf` without
/// allocating and without the formatting machinery: for the allocator's last message, and
/// for answers that write millions of numbers.
pub fn decimal(n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = n;
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[at..]
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimal_writes_what_to_string_does() {
        let mut buf = [0u8; 20];
        for n in [0, 7, 10, 99, 1_000_000, u64::MAX] {
            assert_eq!(super::decimal(n, &mut buf), n.to_string().as_bytes());
        }
    }
}
