//! Every family's position parser on arbitrary text: a position or an error, never a panic.
#![no_main]
use grundy_core::Game;
use grundy_games::{
    bombs::Bombs,
    chomp::Chomp,
    cram::Cram,
    crosses::Crosses,
    cutting::Cutting,
    darkraft::Board,
    graph::Graph,
    graph_game::{GraphGame, Rule},
    heap::HeapGame,
    nim::Nim,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Nim.parse_position(text);
        let _ = Bombs::new(4, 4).parse_position(text);
        let _ = Cutting::new(4).parse_position(text);
        let _ = Crosses::new(4).parse_position(text);
        let _ = GraphGame::new(Graph::maoershan(), Rule::OneOrTwo).parse_position(text);
        let _ = Cram.parse_position(text);
        let _ = Chomp.parse_position(text);
        let _ = Board::parse(text);
        let _ = HeapGame::parse(text);
        let _ = grundy_games::grid::parse_grid(text, "LRX.", "fuzz");
    }
});
