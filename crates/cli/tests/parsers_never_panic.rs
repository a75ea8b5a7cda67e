//! Property-based fuzzing of every parser reachable from the command line: arbitrary text,
//! and text built from each input's own alphabet (near-valid inputs find more edge cases),
//! must give an answer or an error, never a panic. The coverage-guided targets in fuzz/
//! run the same entry points under cargo-fuzz.

use grundy_cli::judge::{answer, Problem};
use grundy_games::family::FamilyOptions;
use grundy_games::registry::{format, DESCRIPTIONS};
use proptest::prelude::*;

const PROBLEMS: [Problem; 5] = [
    Problem::Darkraft,
    Problem::Bomb,
    Problem::Maoershan,
    Problem::Cutting,
    Problem::Crosses,
];
/// Every registered family by a name it answers to (a family named by codes: each of its
/// named games), with whether a printed position reads back in it.
fn families() -> Vec<(&'static str, bool)> {
    let mut out = Vec::new();
    for d in DESCRIPTIONS {
        let back = d.continues_as.is_none();
        if d.code.is_none() {
            out.push((d.name, back));
        }
        out.extend(d.presets.iter().map(|p| (p.0, back)));
    }
    out
}

fn near_valid() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(vec![
            "0", "1", "2", "3", "12", " ", "\n", ".", "#", "X", "L", "R", "x", "-", "0 0", "2 2", "/",
            "\r\n", "1x1", "3x2",
        ]),
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn judge_inputs(text in prop_oneof!["\\PC{0,60}", near_valid()]) {
        for p in PROBLEMS {
            let _ = answer(p, &text);
        }
    }

    #[test]
    fn positions(text in prop_oneof!["\\PC{0,40}", near_valid()]) {
        for (f, reads_back) in families() {
            let shown = format(f, &FamilyOptions::default(), &text);
            // A family whose positions continue in another (a whole graph, printed as its
            // points) does not read its printed positions back.
            if let (Ok(shown), true) = (shown, reads_back) {
                // What is printed parses back to the same position.
                let again = format(f, &FamilyOptions::default(), &shown);
                prop_assert_eq!(again.ok(), Some(shown));
            }
        }
    }
}
