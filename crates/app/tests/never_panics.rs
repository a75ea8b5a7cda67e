//! Whatever a front end asks, the application layer answers with a value or an error that
//! says why, never a panic (every error kind is a 4xx for the server: `grundy_web::status_of`).

use grundy_app::solve::{self as api, Limits, SolveRequest};
use grundy_app::table::{table, TableRequest};
use grundy_core::Outcome;
use grundy_games::registry::DESCRIPTIONS;
use proptest::prelude::*;

fn limits() -> Limits {
    Limits {
        max_positions: 20_000,
        max_moves: 500,
        max_table: 6,
        ..Limits::default()
    }
}

/// Every registered family by each name it answers to, or any short name.
fn family() -> impl Strategy<Value = String> {
    let mut names: Vec<String> = Vec::new();
    for d in DESCRIPTIONS {
        names.push(d.name.to_string());
        names.extend(
            d.aliases
                .iter()
                .chain(d.presets.iter().map(|p| &p.0))
                .map(|n| n.to_string()),
        );
    }
    prop_oneof![proptest::sample::select(names), "[a-z:0-9.]{0,8}"]
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
        board in option(), rule in option(), graph in option(), set in option(),
    ) {
        let req = SolveRequest { family, position, misere, remoteness, board, rule, graph, set, game: None, timeout: None };
        match api::solve(&req, &limits()) {
            Ok(r) => {
                prop_assert!(matches!(r.outcome, Outcome::First | Outcome::Second));
                prop_assert_eq!(r.best_move.is_some(), !r.moves.is_empty());
                if !r.winning_moves.is_empty() {
                    prop_assert_eq!(r.outcome, Outcome::First);
                }
            }
            Err(e) => {
                prop_assert!(!e.message.is_empty(), "{:?}", e);
            }
        }
    }

    #[test]
    fn tables_answer_or_say_why(family in family(), size in 0usize..9) {
        match table(&TableRequest { family, size, game: None }, &limits()) {
            Ok(t) => prop_assert!(!t.values.is_empty()),
            Err(e) => prop_assert!(!e.message.is_empty(), "{:?}", e),
        }
    }

}
