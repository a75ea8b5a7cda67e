//! Every judge input parser on arbitrary bytes: an answer or an error, never a panic.
#![no_main]
use grundy_cli::judge::{answer, Problem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for p in [Problem::Bomb, Problem::Maoershan, Problem::Cutting, Problem::Crosses] {
            let _ = answer(p, text);
        }
    }
});
