//! The pruned search on several threads (`grundy_solve::search_parallel`) gives the answers
//! of one thread and of the reference solver (`grundy_solve::brute`, full game-tree search)
//! on Cram boards, and its checkpoints resume on any number of threads.

use grundy_core::{Game, Outcome};
use grundy_games::cram::Cram;
use grundy_solve::analysis::Analysis;
use grundy_solve::search::analyze_normal_resumable;
use grundy_solve::search_checkpoint::{read, Identity, Saver};
use grundy_solve::search_parallel::{analyze_normal_threads, grundy_sum};
use grundy_solve::{brute, Convention, SolveError};
use proptest::prelude::*;

mod common;
use common::holed;

type Board = <Cram as Game>::Position;

fn board(text: &str) -> Board {
    Cram.parse_position(text).expect("a board")
}

fn analyze(p: &Board, values: bool, threads: usize) -> Analysis<<Cram as Game>::Move> {
    analyze_normal_threads(&Cram, p, values, usize::MAX, threads, |_| {}, None, None).expect("no limit")
}

/// What an analysis says, comparable: value, outcome, and each move's value and outcome.
type Summary = (Option<u64>, Outcome, Vec<(String, Option<u64>, Outcome)>);

fn summary(a: &Analysis<<Cram as Game>::Move>) -> Summary {
    (
        a.grundy.map(|g| g.0),
        a.outcome,
        a.moves
            .iter()
            .map(|m| (Cram.format_move(&m.mv), m.grundy.map(|g| g.0), m.outcome))
            .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Small boards with holes, on 2 and 3 threads: the value, outcome and winning moves of
    /// the reference solver, and every move's value and outcome as on one thread.
    #[test]
    fn threads_agree_with_brute_force(rows in 2u32..5, cols in 2u32..5, holes: u32, threads in 2usize..4, values: bool) {
        let text = holed(rows, cols, holes & ((1 << (rows * cols)) - 1));
        let p = board(&text);
        let a = analyze(&p, values, threads);
        prop_assert_eq!(a.grundy, Some(brute::grundy(&Cram, &p)), "{}", text);
        prop_assert_eq!(a.outcome, brute::outcome(&Cram, &p, Convention::Normal));
        let mut wins: Vec<String> = a.winning_moves.iter().map(|m| Cram.format_move(m)).collect();
        let mut want = brute::winning_moves(&Cram, &p, Convention::Normal);
        wins.sort();
        want.sort();
        prop_assert_eq!(wins, want);
        prop_assert_eq!(summary(&a), summary(&analyze(&p, values, 1)));
    }
}

#[test]
fn one_and_two_threads_agree_on_whole_boards() {
    // 4x5 (2), 3x7 (1), 3x8 (1), 5x5 with a hole, with and without the values of the moves.
    for text in ["4x5", "3x7", "3x8", "...../...../..#../...../....."] {
        let p = board(text);
        for values in [false, true] {
            assert_eq!(
                summary(&analyze(&p, values, 2)),
                summary(&analyze(&p, values, 1)),
                "{text} values {values}"
            );
        }
        let parts = Cram.components(&p);
        assert_eq!(
            grundy_sum(&Cram, &parts, 2, usize::MAX).unwrap(),
            grundy_sum(&Cram, &parts, 1, usize::MAX).unwrap(),
            "{text}"
        );
    }
    // A position of several regions (a wall of holes down the middle).
    let p = board("..#..../..#..../...#.../..#....");
    assert_eq!(summary(&analyze(&p, false, 2)), summary(&analyze(&p, false, 1)));
}

#[test]
fn checkpoints_of_threads_resume_on_any_number_of_threads() {
    let dir = std::env::temp_dir().join(format!("grundy-cram-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("5x6.ckpt");
    let p = board("5x6");
    let id = Identity {
        game: "cram".into(),
        position: Cram.format_position(&p),
        values_of_moves: false,
    };
    let want = summary(&analyze(&p, false, 1));
    // Stopped by the limit of held entries, with its checkpoint written.
    let saver = Saver::new(path.clone(), id.clone(), None);
    let r = analyze_normal_threads(&Cram, &p, false, 3000, 2, |_| {}, None, Some(saver));
    assert!(matches!(r, Err(SolveError::Limit(_))), "{:?}", r.err());
    let saved = read(&path).unwrap();
    assert!(!saved.entries.is_empty());
    // Resumed on two threads, then on one: the same answer.
    let back =
        analyze_normal_threads(&Cram, &p, false, usize::MAX, 2, |_| {}, Some(saved.clone()), None).unwrap();
    assert_eq!(summary(&back), want);
    let back = analyze_normal_resumable(&Cram, &p, false, usize::MAX, |_| {}, Some(saved), None).unwrap();
    assert_eq!(summary(&back), want);
    // A run on two threads to the end saves every move settled.
    let saver = Saver::new(path.clone(), id, None);
    analyze_normal_threads(&Cram, &p, false, usize::MAX, 2, |_| {}, None, Some(saver)).unwrap();
    assert_eq!(read(&path).unwrap().settled.len(), want.2.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One thread reports its progress within a move too (every 2^16 search nodes), not only
/// between moves: a single move of a large board may take hours, and a run left in the
/// background would show nothing meanwhile. Reports come in order of the moves settled.
#[test]
fn one_thread_reports_progress_within_a_move() {
    let p = board("5x6");
    let mut reports = Vec::new();
    let a = analyze_normal_threads(
        &Cram,
        &p,
        false,
        usize::MAX,
        1,
        |pr| reports.push((pr.moves_done, pr.stats.nodes)),
        None,
        None,
    )
    .expect("no limit");
    assert_eq!(a.grundy.map(|g| g.0), Some(2));
    assert!(reports.windows(2).all(|w| w[0].0 <= w[1].0), "{reports:?}");
    // Some report came between two reports of the same moves settled, with more nodes.
    assert!(
        reports.windows(2).any(|w| w[0].0 == w[1].0 && w[1].1 > w[0].1),
        "no report within a move: {reports:?}"
    );
}
