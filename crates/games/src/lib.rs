//! Built-in impartial game families, one module each, with the text notation of their
//! positions (documented in docs/games.md).

pub mod heap;
pub mod nim;
