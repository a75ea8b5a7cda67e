//! Tests of the Darkraft family: samples, notation, the engine against the brute-force
//! reference solver, and the dense table against the textbook baseline.

use super::*;
use grundy_core::Outcome;
use grundy_solve::{analysis::Analyzer, brute, Convention};
use proptest::prelude::*;

fn board(text: &str) -> Board {
    Board::parse(text).unwrap()
}

fn err_at(text: &str) -> (usize, usize) {
    let e = Board::parse(text).unwrap_err();
    (e.span.line, e.span.column)
}

#[test]
fn samples() {
    assert!(!first_player_wins("RL/LR").unwrap());
    assert!(first_player_wins("RR/RR").unwrap());
    let (g, b) = Darkraft::parse("RL\nLR\n").unwrap();
    assert_eq!(g.grundy(&b).unwrap(), Nimber(0));
    let a = grundy_solve::analyze(&g, &b, Convention::Normal).unwrap();
    assert_eq!(a.outcome, Outcome::Second);
    let (g, b) = Darkraft::parse("RR/RR").unwrap();
    let a = grundy_solve::analyze(&g, &b, Convention::Normal).unwrap();
    assert_eq!(a.outcome, Outcome::First);
    assert_eq!(a.grundy, Some(Nimber(1)));
}

#[test]
fn notation_round_trip() {
    let b = board("RL.\nX.L\n");
    assert_eq!(b.to_string(), "RL./X.L");
    assert_eq!(board(&b.to_string()), b);
    assert_eq!(board(" R L \r\n LR\n\n"), board("RL/LR"));
    assert_eq!((b.rows(), b.cols(), b.intact()), (2, 3, 4));
}

#[test]
fn parse_errors_name_line_and_column() {
    assert_eq!(err_at(""), (1, 1));
    assert_eq!(err_at(" \n\t\n"), (1, 1));
    assert_eq!(err_at("RL/LQ"), (1, 5));
    assert_eq!(err_at("RL\nLR\nLZ"), (3, 2));
    assert_eq!(err_at("RLL/RRRR"), (1, 8)); // row 2 too long: its 4th cell
    assert_eq!(err_at("RLX\nRL\n"), (2, 3)); // row 2 too short: where it ends
    assert_eq!(err_at("RL/L"), (1, 5));
    assert_eq!(err_at("RL//LR"), (1, 4)); // empty row
    assert_eq!(err_at("/RL"), (1, 1));
    let e = Board::parse("RLX\nRL").unwrap_err();
    assert!(e.message.contains("row 2"), "{e}");
}

#[test]
fn moves_parse_and_print() {
    let b = board("RL./XLR");
    let s = b.parse_move("2,3").unwrap();
    assert_eq!(s, Shot { row: 1, col: 2 });
    assert_eq!(s.to_string(), "2,3");
    assert_eq!(b.parse_move(" 1 , 2 ").unwrap(), Shot { row: 0, col: 1 });
    for bad in ["", "1", "1,2,3", "0,1", "3,1", "1,4", "a,1", "1,3", "-1,1"] {
        assert!(b.parse_move(bad).is_err(), "{bad}");
    }
}

#[test]
fn lasers_stop_at_destroyed_cells() {
    // X in the middle of a 3×3 of X: destroys both diagonals.
    let b = board("XXX/XXX/XXX");
    assert_eq!(
        b.fire(Shot { row: 1, col: 1 }).unwrap().to_string(),
        ".X./X.X/.X."
    );
    // The laser does not pass a destroyed cell.
    let b = board("R../.../..R");
    assert_eq!(
        b.fire(Shot { row: 0, col: 0 }).unwrap().to_string(),
        ".../.../..R"
    );
    let b = board("R../.R./..R").fire(Shot { row: 1, col: 1 }).unwrap();
    assert_eq!(b.to_string(), ".../.../...");
    let b = board("R../.../..R").fire(Shot { row: 2, col: 2 }).unwrap();
    assert_eq!(b.to_string(), "R../.../...");
    let b = board("L.L/.L./L.L").fire(Shot { row: 1, col: 1 }).unwrap();
    assert_eq!(b.to_string(), "L../.../..L");
}

#[test]
fn big_boards_parse_and_fail_cleanly() {
    let row = "LRX".repeat(334)[..1000].to_string();
    let text = vec![row.as_str(); 1000].join("\n");
    let (g, b) = Darkraft::parse(&text).unwrap();
    assert_eq!((b.rows(), b.cols()), (1000, 1000));
    let comps = g.components(&b);
    assert_eq!(comps.len(), 2);
    assert!(comps.iter().all(|c| matches!(c, Region::Rect(_))));
    assert!(matches!(g.grundy(&b), Err(DarkraftError::TableTooLarge { .. })));
    let huge = "L".repeat(MAX_CELLS + 1);
    let e = Board::parse(&huge).unwrap_err();
    assert!(e.message.contains("too large"), "{e}");
    assert_eq!((e.span.line, e.span.column), (1, MAX_CELLS + 1));
}

#[test]
fn one_row_and_one_column_boards() {
    for text in ["L", "X", "LRXRL", "L/R/X/X", "R.L/X.X"] {
        let (g, b) = Darkraft::parse(text).unwrap();
        let a = grundy_solve::analyze(&g, &b, Convention::Normal).unwrap();
        assert_eq!(a.grundy, Some(brute::grundy(&g, &b)), "{text}");
    }
}

pub(crate) fn random_board(rows: usize, cols: usize, seed: u64) -> Board {
    Board::random(rows, cols, seed)
}

#[test]
fn table_matches_baseline_on_some_boards() {
    for (n, m, seed) in [
        (1, 1, 1),
        (1, 7, 2),
        (7, 1, 3),
        (5, 8, 4),
        (12, 12, 5),
        (15, 9, 6),
    ] {
        let b = random_board(n, m, seed);
        let g = Darkraft::from_board(&b);
        let expect = baseline::board_grundy(&b).unwrap();
        assert_eq!(g.grundy(&b).unwrap(), expect, "{n}x{m} seed {seed}");
    }
}

fn cell_strategy() -> impl Strategy<Value = Cell> {
    prop_oneof![Just(Cell::L), Just(Cell::R), Just(Cell::X)]
}

/// A full board of up to `max`×`max` cells and a mask of destroyed cells.
fn board_strategy(max: usize) -> impl Strategy<Value = (Board, Vec<bool>)> {
    (1..=max, 1..=max).prop_flat_map(|(n, m)| {
        (
            proptest::collection::vec(cell_strategy(), n * m),
            proptest::collection::vec(proptest::bool::weighted(0.25), n * m),
        )
            .prop_map(move |(cells, mask)| (Board::new(n, m, cells).unwrap(), mask))
    })
}

fn destroy(b: &Board, mask: &[bool]) -> Board {
    let cells = b
        .cells
        .iter()
        .zip(mask)
        .map(|(&c, &d)| if d { Cell::Destroyed } else { c })
        .collect();
    Board::new(b.rows(), b.cols(), cells).unwrap()
}

fn check_against_brute(game: &Darkraft, p: &Board) -> Result<(), TestCaseError> {
    let mut an = Analyzer::new(game);
    let a = an.analyze(p, Convention::Normal).unwrap();
    prop_assert_eq!(a.grundy, Some(brute::grundy(game, p)));
    prop_assert_eq!(a.outcome, brute::outcome(game, p, Convention::Normal));
    let mut w: Vec<String> = a.winning_moves.iter().map(|m| m.to_string()).collect();
    w.sort();
    prop_assert_eq!(w, brute::winning_moves(game, p, Convention::Normal));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The engine (rectangle table + region search) agrees with the brute-force solver, with
    /// the rules built from the full board, from the position itself, and with no table
    /// (the brute-force harness, `crates/app/tests/brute_harness.rs`, builds the rules from
    /// the position only, on boards up to 3×3).
    #[test]
    fn matches_brute_force((full, mask) in board_strategy(4)) {
        let p = destroy(&full, &mask);
        check_against_brute(&Darkraft::from_board(&full), &p)?;
        check_against_brute(&Darkraft::from_board(&p), &p)?;
        check_against_brute(&Darkraft::from_board(&full).with_table_limit(0), &p)?;
        if p.is_full() {
            let g = Darkraft::from_board(&p);
            prop_assert_eq!(g.grundy(&p).unwrap(), brute::grundy(&g, &p));
        }
    }

    /// Components are canonical: a rectangle region is never left as a set of cells.
    #[test]
    fn rect_regions_are_found((full, mask) in board_strategy(6)) {
        let p = destroy(&full, &mask);
        let g = Darkraft::from_board(&full);
        for c in g.components(&p) {
            if let Region::Cells(cells) = c {
                prop_assert!(g.as_rect(&cells).is_none());
            }
        }
    }

    #[test]
    fn parser_never_panics(s in "[LRX./\n \r\tQé,0-9]{0,60}") {
        let _ = Board::parse(&s);
        if let Ok(b) = Board::parse(&s) {
            prop_assert_eq!(Board::parse(&b.to_string()).unwrap(), b.clone());
            let _ = b.parse_move(&s);
        }
    }

    #[test]
    fn parser_never_panics_on_any_text(s in any::<String>()) {
        let _ = Board::parse(&s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The dense table equals the textbook memo on random boards and rectangles.
    #[test]
    fn table_matches_baseline(
        (n, m, seed) in (1usize..=12, 1usize..=12, any::<u64>()),
        rects in proptest::collection::vec((0usize..2, 0isize..24, 0isize..24, 0isize..24, 0isize..24), 20),
    ) {
        let b = random_board(n, m, seed);
        let g = Darkraft::from_board(&b);
        let mut base = baseline::Baseline::new(&b).unwrap();
        prop_assert_eq!(g.grundy(&b).unwrap(), base.board_grundy());
        for (p, a, bb, c, d) in rects {
            let (u1, u2) = (a.min(bb), a.max(bb));
            let (v1, v2) = (c.min(d), c.max(d));
            prop_assert_eq!(
                g.grundy_rotated(p, u1, u2, v1, v2).unwrap(),
                base.rotated(p, u1, u2, v1, v2),
                "rect {:?}", (p, u1, u2, v1, v2)
            );
        }
    }
}

/// The fast paths of the table (byte entries, register mex) against the plain ones, on
/// boards large enough for values of 64 and more.
#[test]
fn fast_table_matches_plain_table() {
    let mut max_seen = 0;
    for (n, m, seed) in [(9, 14, 7), (20, 20, 1), (35, 35, 1)] {
        let b = random_board(n, m, seed);
        let fast = Darkraft::from_board(&b);
        let plain = Darkraft::from_board(&b).with_plain_table();
        let widened = Darkraft::from_board(&b).with_narrow_max(7);
        let s = (n + m - 1) as isize;
        for p in 0..2 {
            for u1 in 0..s {
                for u2 in u1..s {
                    for (v1, v2) in [(0, s - 1), (u1 / 2, s - 1 - u2 / 3), (u2 / 2, u2)] {
                        let f = fast.grundy_rotated(p, u1, u2, v1, v2).unwrap();
                        let q = plain.grundy_rotated(p, u1, u2, v1, v2).unwrap();
                        assert_eq!(f, q, "{n}x{m} {:?}", (p, u1, u2, v1, v2));
                        let w = widened.grundy_rotated(p, u1, u2, v1, v2).unwrap();
                        assert_eq!(w, q, "{n}x{m} {:?}", (p, u1, u2, v1, v2));
                        max_seen = max_seen.max(f.0);
                    }
                }
            }
        }
    }
    assert!(max_seen >= 64, "largest value seen {max_seen}");
}

#[test]
fn cell_index_dense_and_sparse() {
    let spot = |row, col| Spot {
        row,
        col,
        cell: Cell::X,
    };
    let near: Vec<Spot> = vec![spot(3, 4), spot(4, 5), spot(5, 4)];
    let far: Vec<Spot> = (0..200).map(|k| spot(k * 1000, k * 1000)).collect();
    for (cells, dense) in [(&near, true), (&far, false)] {
        let index = CellIndex::new(cells);
        assert_eq!(matches!(index, CellIndex::Dense { .. }), dense);
        for (k, s) in cells.iter().enumerate() {
            assert_eq!(index.get(s.row as i64, s.col as i64), Some(k));
            assert_eq!(index.get(s.row as i64 + 1, s.col as i64), None);
        }
        assert_eq!(index.get(-1, 0), None);
        assert_eq!(index.get(0, i64::MAX), None);
    }
}

/// A long diagonal chain of X cells (a sparse region) is searched correctly.
#[test]
fn long_diagonal_region() {
    let n = 90;
    let mut cells = vec![Cell::Destroyed; n * n];
    for i in 0..n {
        cells[i * n + i] = if i % 3 == 0 { Cell::L } else { Cell::R };
    }
    let p = Board::new(n, n, cells.clone()).unwrap();
    // A reference that differs at the corner, so regions holding it are searched as cells.
    cells[0] = Cell::X;
    let g = Darkraft::from_board(&Board::new(n, n, cells).unwrap());
    let comps = g.components(&p);
    assert!(matches!(&comps[..], [Region::Cells(c)] if c.len() == n));
    // L cells on the main diagonal destroy only themselves; R cells destroy the whole chain
    // that is still connected to them.
    let mut memo = grundy_solve::GrundyMemo::new(&g);
    let v = memo.grundy_sum(&comps).unwrap();
    let mut small = vec![Cell::Destroyed; 36];
    for i in 0..6 {
        small[i * 6 + i] = if i % 3 == 0 { Cell::L } else { Cell::R };
    }
    let q = Board::new(6, 6, small).unwrap();
    let h = Darkraft::from_board(&q);
    assert_eq!(
        grundy_solve::GrundyMemo::new(&h)
            .grundy_sum(&h.components(&q))
            .unwrap(),
        brute::grundy(&h, &q)
    );
    // Same game, valued through the table (the reference is the position itself).
    let whole = Darkraft::from_board(&p);
    assert_eq!(whole.grundy(&p).unwrap(), v);
}

/// A board whose table is computed in parallel (classes and rows), with classes of
/// different shapes, against the textbook memo.
#[test]
fn parallel_table_matches_baseline() {
    let b = random_board(31, 22, 11);
    let g = Darkraft::from_board(&b);
    let mut base = baseline::Baseline::new(&b).unwrap();
    assert_eq!(g.grundy(&b).unwrap(), base.board_grundy());
    let s = 31 + 22 - 1;
    for k in 0..40isize {
        let (u1, u2) = ((k * 7) % s, (k * 7) % s + (k * 5) % 23);
        let (v1, v2) = ((k * 11) % s, (k * 11) % s + (k * 3) % 29);
        let p = (k % 2) as usize;
        assert_eq!(
            g.grundy_rotated(p, u1, u2, v1, v2).unwrap(),
            base.rotated(p, u1, u2, v1, v2),
            "{:?}",
            (p, u1, u2, v1, v2)
        );
    }
}
