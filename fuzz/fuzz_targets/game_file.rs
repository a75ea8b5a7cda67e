//! Game files: any text read as a TOML spec and as a Lua script, and any position read by
//! the game a file defines, must give an answer or an error naming file, line and column,
//! never a panic; a position that reads must print back as itself.
#![no_main]
use grundy_games::family::FamilyOptions;
use grundy_games::gamefile::GameFile;
use grundy_games::registry::format;
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (file, position) = input.split_once('\0').unwrap_or((input, "1"));
    for source in ["fuzz.toml", "fuzz.lua"] {
        let Ok(game) = GameFile::load(source, file) else {
            continue;
        };
        let opts = FamilyOptions {
            game: Some(Arc::new(game)),
            ..FamilyOptions::default()
        };
        let Ok(canonical) = format("", &opts, position) else {
            continue;
        };
        // A graph spec continues as points: its positions are written as they are read.
        let again = format("", &opts, &canonical);
        assert_eq!(
            again.as_ref(),
            Ok(&canonical),
            "{source}: the canonical text of {position:?} does not read back as itself"
        );
    }
});
