//! Built-in impartial game families, one module each, with the text notation of their
//! positions (documented in docs/games.md).

pub mod bombs;
pub mod chomp;
pub mod cram;
pub mod crosses;
pub mod cutting;
pub mod grid;
pub mod nim;
pub mod points;
