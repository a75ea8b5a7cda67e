//! The edge-list graph parser on arbitrary text: a graph or an error, never a panic.
#![no_main]
use grundy_games::graph::Graph;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Graph::parse_edge_list("fuzz", text);
    }
});
