//! Scratch: the analysis of one Cram board, with time and the search's counts.
use grundy_core::Game;
use grundy_games::cram::Cram;
use grundy_solve::search_parallel::analyze_normal_threads;

fn main() {
    let text = std::env::args().nth(1).unwrap_or_else(|| "5x7".to_string());
    let threads: usize = std::env::args().nth(2).and_then(|t| t.parse().ok()).unwrap_or(1);
    let board = Cram.parse_position(&text).unwrap();
    let start = std::time::Instant::now();
    let mut last = None;
    let a = analyze_normal_threads(
        &Cram,
        &board,
        false,
        usize::MAX,
        threads,
        |p| {
            if std::env::var_os("VERBOSE").is_some() {
                eprintln!(
                    "{:.2}s {}/{} {:?}",
                    start.elapsed().as_secs_f64(),
                    p.moves_done,
                    p.moves,
                    p.stats
                );
            }
            last = Some(p);
        },
        None,
        None,
    )
    .unwrap();
    let wins = a.winning_moves.len();
    let mut h = 0u64;
    for m in &a.moves {
        h = h
            .wrapping_mul(31)
            .wrapping_add((m.outcome == grundy_core::Outcome::Second) as u64);
    }
    println!(
        "cram {text} j{threads}: grundy {:?}, {} winning of {} moves (hash {h}), {:.2} s, nodes {:?}",
        a.grundy,
        wins,
        a.moves.len(),
        start.elapsed().as_secs_f64(),
        last.map(|p| p.stats.nodes)
    );
}
