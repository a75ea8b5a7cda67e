//! Times the Darkraft engine on a seeded random board, for benchmarks and peak-memory
//! measurements: `darkraft_time ROWS COLS [SEED] [fast|baseline|max|hole|analyze] [REPEAT]` (with REPEAT, the
//! last of REPEAT runs is timed, so thread start-up is not counted)..

use grundy_core::Game;
use grundy_games::darkraft::{baseline, Board, Cell, Darkraft};
use std::time::Instant;

/// The board of the criterion bench: splitmix64 letters from `seed`.
fn random_board(rows: usize, cols: usize, seed: u64) -> Board {
    let mut x = seed;
    let cells = (0..rows * cols)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            [Cell::L, Cell::R, Cell::X][((z ^ (z >> 31)) % 3) as usize]
        })
        .collect();
    Board::new(rows, cols, cells).expect("valid size")
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
