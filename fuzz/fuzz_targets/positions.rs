//! Every registered family's position parser on arbitrary text: a position or an error,
//! never a panic. The families come from the registry, so a new one is fuzzed without a
//! change here.
#![no_main]
use grundy_games::family::FamilyOptions;
use grundy_games::registry::{format, DESCRIPTIONS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for d in DESCRIPTIONS {
            let names = std::iter::once(d.name).filter(|_| d.code.is_none());
            for name in names.chain(d.presets.iter().map(|p| p.0)) {
                let _ = format(name, &FamilyOptions::default(), text);
            }
        }
        // The codes of the families named by codes, and the board reader.
        let _ = grundy_games::heap::HeapGame::parse(text);
        let _ = grundy_games::grid::parse_grid(text, "LRX.", "fuzz");
    }
});
