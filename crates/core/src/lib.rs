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
