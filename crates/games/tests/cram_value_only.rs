//! The value-only pruned search (`grundy_solve::search::value_normal_resumable` and
//! `grundy_solve::search_parallel::value_normal_threads`, behind `grundy solve --value-only`)
//! gives the value and outcome of the reference solver (`grundy_solve::brute`, full game-tree
//! search) on small Cram boards with holes, on one thread and on several, looks at no move
//! on its own, and its checkpoints (which settle no move) resume with the same value.

use grundy_core::{Game, Nimber, Outcome};
use grundy_games::cram::Cram;
use grundy_solve::analysis::Analysis;
use grundy_solve::search::value_normal_resumable;
use grundy_solve::search_checkpoint::{read, Identity, Saver};
use grundy_solve::search_parallel::value_normal_threads;
use grundy_solve::{brute, Convention, SolveError};
use proptest::prelude::*;

mod common;
use common::holed;

type Board = <Cram as Game>::Position;

fn board(text: &str) -> Board {
    Cram.parse_position(text).expect("a board")
}

fn value(p: &Board, threads: usize) -> Analysis<<Cram as Game>::Move> {
    value_normal_threads(&Cram, p, usize::MAX, threads, |_| {}, None, None).expect("no limit")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Small boards with holes, on 1 to 3 threads: the reference solver's value and outcome,
    /// and no move reported.
    #[test]
    fn value_only_agrees_with_brute_force(rows in 1u32..5, cols in 1u32..6, holes: u32, threads in 1usize..4) {
        let text = holed(rows, cols, holes & ((1 << (rows * cols)) - 1));
        let p = board(&text);
        let a = value(&p, threads);
        prop_assert_eq!(a.grundy, Some(brute::grundy(&Cram, &p)), "{}", text);
        prop_assert_eq!(a.outcome, brute::outcome(&Cram, &p, Convention::Normal));
        prop_assert!(a.moves.is_empty() && a.winning_moves.is_empty());
    }
}

#[test]
fn whole_boards_have_their_published_values() {
    // Beling's table (tests/data/cram-published.tsv): 4x5 is 2, 3x7 is 1 (Glop), 5x5 is 0.
    for (text, want) in [("4x5", 2), ("3x7", 1), ("5x5", 0), ("4x4", 0)] {
        let p = board(text);
        for threads in [1, 2] {
            let a = value(&p, threads);
            assert_eq!(a.grundy, Some(Nimber(want)), "{text} on {threads}");
            let o = if want == 0 {
                Outcome::Second
            } else {
                Outcome::First
            };
            assert_eq!(a.outcome, o);
        }
    }
}

#[test]
fn value_only_checkpoints_resume_on_any_number_of_threads() {
    let dir = std::env::temp_dir().join(format!("grundy-cram-value-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("5x6.ckpt");
    let p = board("5x6");
    let id = Identity {
        game: "cram --value-only".into(),
        position: Cram.format_position(&p),
        values_of_moves: false,
    };
    let want = value(&p, 1).grundy;
    for threads in [1, 2] {
        let saver = Saver::new(path.clone(), id.clone(), None);
        let r = value_normal_threads(&Cram, &p, 500, threads, |_| {}, None, Some(saver));
        assert!(matches!(r, Err(SolveError::Limit(_))), "{:?}", r.err());
        let saved = read(&path).unwrap();
        assert!(!saved.entries.is_empty());
        assert!(saved.settled.is_empty());
        let back = value_normal_threads(&Cram, &p, usize::MAX, 2, |_| {}, Some(saved.clone()), None).unwrap();
        assert_eq!(back.grundy, want);
        let back = value_normal_resumable(&Cram, &p, usize::MAX, |_| {}, Some(saved), None).unwrap();
        assert_eq!(back.grundy, want);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
