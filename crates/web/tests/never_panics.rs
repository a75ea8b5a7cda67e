//! Whatever a client sends, the API answers with a value or a 4xx error, never a panic.

use grundy_web::api::{self, Limits, SolveRequest, TableRequest};
use proptest::prelude::*;

fn limits() -> Limits {
    Limits {
        max_positions: 20_000,
        max_moves: 500,
        max_table: 6,
        ..Limits::default()
    }
}

fn family() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nim".to_string()),
        Just("bombs".to_string()),
        Just("cutting".to_string()),
        Just("crosses".to_string()),
        Just("points".to_string()),
        Just("graph".to_string()),
        "[a-z:0-9.]{0,8}",
    ]
}

fn position() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9 ,]{0,12}",
        "[.#/\n]{0,20}",
        "[.xX]{0,14}",
        "([0-9]{1,2}x[0-9]{1,2} ){0,3}",
        "[01]{0,14}",
        "([0-9] [0-9]\n){0,4}",
        ".{0,20}",
    ]
}

fn option() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some("maoershan".to_string())),
        Just(Some("path:5".to_string())),
        Just(Some("node-kayles".to_string())),
        ".{0,10}".prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn solve_answers_or_says_why(
        family in family(), position in position(), misere: bool, remoteness: bool,
        board in option(), rule in option(), graph in option(),
    ) {
        let req = SolveRequest { family, position, misere, remoteness, board, rule, graph };
        match api::solve(&req, &limits()) {
            Ok(r) => {
                prop_assert!(r.outcome == "first" || r.outcome == "second");
                prop_assert_eq!(r.best_move.is_some(), !r.moves.is_empty());
                if !r.winning_moves.is_empty() {
                    prop_assert_eq!(r.outcome.as_str(), "first");
                }
            }
            Err(e) => {
                prop_assert!((400..500).contains(&e.status), "{:?}", e);
                prop_assert!(!e.message.is_empty());
            }
        }
    }

    #[test]
    fn tables_answer_or_say_why(family in family(), size in 0usize..9) {
        match api::table(&TableRequest { family, size }, &limits()) {
            Ok(t) => prop_assert!(!t.values.is_empty()),
            Err(e) => prop_assert!((400..500).contains(&e.status), "{:?}", e),
        }
    }

}
