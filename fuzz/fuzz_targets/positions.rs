//! Every registered family's position parser on arbitrary text, with arbitrary options:
//! a position or an error, never a panic; and a position's canonical text reads back as
//! itself (in families whose positions stay in the family). The families come from the registry, so a new one is fuzzed without a change here.
//!
//! Input: `TEXT`, or `TEXT\0BOARD\0RULE\0SET\0GRAPH` (an empty or missing part is an option
//! not given); every family gets every input, and refuses the options it does not take.
#![no_main]
use grundy_games::family::FamilyOptions;
use grundy_games::registry::{estimate_moves, format, DESCRIPTIONS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = input.split('\0');
    let text = parts.next().unwrap_or("");
    let mut option = || parts.next().filter(|s| !s.is_empty()).map(str::to_string);
    let opts = FamilyOptions {
        board: option(),
        rule: option(),
        set: option(),
        graph: option().map(|g| ("fuzz".to_string(), g)),
        game: None,
        heap_values: None,
    };
    for d in DESCRIPTIONS {
        // A family by its name (those named by codes have none), its aliases (`subtraction`
        // takes `--set`) and its named games.
        let names = std::iter::once(d.name).filter(|_| d.code.is_none());
        let names = names.chain(d.aliases.iter().copied());
        for name in names.chain(d.presets.iter().map(|p| p.0)) {
            let _ = estimate_moves(name, &opts, text);
            // (A family continued as another, `graph` as `points`, writes its positions in
            // the other's notation: no round trip.)
            let Ok(canonical) = format(name, &opts, text) else {
                continue;
            };
            if d.continues_as.is_none() {
                let again = format(name, &opts, &canonical);
                assert_eq!(
                    again.as_ref(),
                    Ok(&canonical),
                    "{name}: the canonical text of {text:?} does not read back as itself"
                );
            }
        }
    }
    // The codes of the families named by codes, and the board reader.
    let _ = grundy_games::heap::HeapGame::parse(text);
    let _ = grundy_games::grid::parse_grid(text, "LRX.", "fuzz");
});
