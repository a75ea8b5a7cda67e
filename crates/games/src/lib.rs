//! Built-in impartial game families, one module each, with the text notation of their
//! positions (documented in docs/games.md).

pub mod darkraft;
pub mod nim;
