//! Every judge problem's input reader (darkraft, bomb, maoershan, cutting, crosses, and any
//! added later: the list is the command line's own) on arbitrary text: an answer or an
//! input error, never a panic.
#![no_main]
use clap::ValueEnum;
use grundy_cli::judge::{answer, Problem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for &p in Problem::value_variants() {
            let _ = answer(p, text);
        }
    }
});
