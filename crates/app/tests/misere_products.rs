//! Misère sums answered by products in the quotient (`grundy_app::solve`'s fast path, which
//! writes every move from the rules without generating it) against the whole-position
//! search, the reference: random small sums of random octal codes whose quotients
//! stabilise (proven periodic), with heaps inside and past the heaps the quotient computed.

use grundy_app::solve::{solve_with, Limits, SolveOptions, SolveRequest, SolveResponse};
use grundy_core::{Game, Outcome};
use grundy_games::heap::HeapGame;
use grundy_solve::quotient::Quotient;
use grundy_solve::MisereSearch;
use grundy_store::Store;
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// The quotient of `code` extended heap by heap until its period is proven (at most heap
/// 30, order 32, a fraction of a second); `None` when it is not proven within that.
fn stable_quotient(code: &str) -> Option<Quotient> {
    let rules = HeapGame::parse(code).ok()?.rules().clone();
    let mut q = Quotient::new(rules).with_max_order(32).with_max_states(50_000);
    let start = Instant::now();
    let halt = || start.elapsed() > Duration::from_millis(400);
    while q.periodicity().is_none() && q.heaps() < 30 {
        let next = q.heaps() + 1;
        q.extend_until(next, &halt).ok()?;
    }
    q.periodicity().map(|_| q)
}

fn solve(code: &str, heaps: &[u64], store: &Store, list_moves: bool) -> SolveResponse {
    let req = SolveRequest {
        family: code.into(),
        position: heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" "),
        misere: true,
        ..SolveRequest::default()
    };
    let opts = SolveOptions {
        store: Some(store),
        list_moves,
        ..SolveOptions::default()
    };
    solve_with(&req, &Limits::local(1 << 22), opts).unwrap()
}

fn octal_code() -> impl Strategy<Value = String> {
    // Two or three digits after the point, the first digit of every take and break move.
    (1u32..8, 0u32..8, proptest::option::of(0u32..8)).prop_map(|(a, b, c)| match c {
        Some(c) => format!("0.{a}{b}{c}"),
        None => format!("0.{a}{b}"),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn products_match_the_whole_position_search(
        code in octal_code(),
        sums in proptest::collection::vec(proptest::collection::vec(0u64..14, 1..4), 3),
        past in proptest::collection::vec(0u64..10, 3),
    ) {
        let q = stable_quotient(&code);
        prop_assume!(q.is_some());
        let q = q.unwrap();
        let game = HeapGame::parse(&code).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb"), "test").unwrap();
        // The solve reads the quotient the store keeps: it covers every heap (its period
        // is proven), so every sum below is answered by products.
        grundy_app::quotient::save(&store, game.name(), 0, &q);
        let mut reference = MisereSearch::new(game.rules());
        for (i, mut heaps) in sums.into_iter().enumerate() {
            // One heap past the quotient's table: its element comes from the period.
            heaps.push(q.heaps() + 1 + past[i]);
            let a = solve(&code, &heaps, &store, true);
            let p = game.parse_position(&a.position).unwrap();
            prop_assert_eq!(a.outcome, reference.outcome(&game.components(&p)).unwrap(), "{} {:?}", code, heaps);
            // Every move, in the order the game generates them, with its outcome.
            let mut expected = Vec::new();
            game.moves(&p, |m, next| expected.push((game.format_move(&m), game.format_position(&next), next)));
            prop_assert_eq!(a.moves.len(), expected.len());
            let mut winning = Vec::new();
            for (m, (mv, after, next)) in a.moves.iter().zip(expected) {
                let o = reference.outcome(&game.components(&next)).unwrap();
                prop_assert_eq!(&m.mv, &mv);
                prop_assert_eq!(&m.position_after, &after);
                prop_assert_eq!(m.outcome, o, "{} {:?}: {}", code, heaps, mv);
                prop_assert_eq!(m.wins, o == Outcome::Second);
                prop_assert_eq!(m.grundy, None);
                if m.wins {
                    winning.push(mv);
                }
            }
            prop_assert_eq!(&a.winning_moves, &winning);
            // Without the list of moves: the same winning moves.
            let lean = solve(&code, &heaps, &store, false);
            prop_assert_eq!(lean.outcome, a.outcome);
            prop_assert_eq!(&lean.winning_moves, &a.winning_moves);
            prop_assert!(lean.moves.is_empty() && lean.best_move.is_none());
        }
        // Answers by products are not kept (the quotient is): had the search answered any
        // of them, its answer would be in the store, and this test would prove nothing.
        let kept = store.list_prefix("analysis/").unwrap();
        prop_assert!(kept.is_empty(), "{:?}", kept.iter().map(|e| e.key.clone()).collect::<Vec<_>>());
    }
}

#[test]
fn huge_sums_by_products_match_the_sums_of_their_heaps_mod_the_period() {
    // 0.75 (the quotient R8, period 2 from heap 8): a sum of huge heaps has the answer of
    // the sum of heaps with the same elements (same parity past 8), moves aside.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb"), "test").unwrap();
    let q = stable_quotient("0.75").expect("0.75 is periodic");
    grundy_app::quotient::save(&store, "0.75", 0, &q);
    for (huge, small) in [
        ([1_000_000u64, 999_999, 3], [10u64, 9, 3]),
        ([1_000_000, 1_000_000, 0], [12, 10, 0]),
        ([999_999, 2, 1], [11, 2, 1]),
    ] {
        let a = solve("0.75", &huge, &store, false);
        let b = solve("0.75", &small, &store, false);
        assert_eq!(a.outcome, b.outcome, "{huge:?}");
        let game = HeapGame::parse("0.75").unwrap();
        let mut reference = MisereSearch::new(game.rules());
        assert_eq!(
            b.outcome,
            reference.outcome(&game.components(&small.to_vec())).unwrap()
        );
        assert!(store.list_prefix("analysis/").unwrap().is_empty());
    }
}
