//! Built-in impartial game families, one module each, with the text notation of their
//! positions (documented in docs/games.md).

pub mod bombs;
pub mod canon;
pub mod chomp;
pub mod cram;
pub mod crosses;
pub mod cutting;
pub mod darkraft;
pub mod graph;
pub mod graph_game;
pub mod grid;
pub mod heap;
pub mod nim;
pub mod registry;
