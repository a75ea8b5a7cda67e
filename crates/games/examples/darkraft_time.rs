//! Times the Darkraft engine on a seeded random board, for benchmarks and peak-memory
//! measurements: `darkraft_time ROWS COLS [SEED] [fast|baseline|max|hole|analyze] [REPEAT]` (with REPEAT, the
//! last of REPEAT runs is timed, so thread start-up is not counted)..

use grundy_core::Game;
use grundy_games::darkraft::{baseline, Board, Darkraft};
use std::time::Instant;

fn random_board(rows: usize, cols: usize, seed: u64) -> Board {
    Board::random(rows, cols, seed)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (rows, cols, seed) = (num(0, 50) as usize, num(1, 50) as usize, num(2, 1));
    let mode = args.get(3).map_or("fast", String::as_str);
    let board = random_board(rows, cols, seed);
    let repeat = num(4, 1).max(1);
    for _ in 1..repeat {
        let _ = Darkraft::from_board(&board).grundy(&board);
    }
    let t = Instant::now();
    let game = Darkraft::from_board(&board);
    let g = match mode {
        "baseline" => baseline::board_grundy(&board).map(|g| g.0.to_string()),
        "hole" => {
            // The board with its centre cell destroyed, by the memo engine over regions.
            let text = board.to_string();
            let centre = (rows / 2) * (cols + 1) + cols / 2;
            let holed = format!("{}.{}", &text[..centre], &text[centre + 1..]);
            let p = Board::parse(&holed).expect("valid board");
            let mut memo = grundy_solve::GrundyMemo::new(&game);
            let g = memo.grundy_sum(&game.components(&p));
            println!("regions searched: {}", memo.len());
            g.map(|g| g.0.to_string()).ok()
        }
        "analyze" => {
            // Everything a front end prints: value, outcome, every move with its result.
            let a = grundy_solve::analyze(&game, &board, grundy_solve::Convention::Normal);
            a.ok().map(|a| {
                format!(
                    "{} ({} moves, {} winning)",
                    a.grundy.map_or(0, |g| g.0),
                    a.moves.len(),
                    a.winning_moves.len()
                )
            })
        }
        _ => game.grundy(&board).map(|g| g.0.to_string()).ok(),
    };
    if mode == "max" {
        println!("largest rectangle value {:?}", game.largest_rect_grundy());
    }
    println!(
        "{rows}x{cols} seed {seed} {mode}: grundy {} in {:.3} s",
        g.unwrap_or_else(|| "-".into()),
        t.elapsed().as_secs_f64()
    );
}
