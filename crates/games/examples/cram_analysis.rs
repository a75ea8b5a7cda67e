//! The full analysis of one Cram board (its value and every move's outcome, what `grundy
//! solve cram RxC` computes) by pruned search, with its time and search nodes:
//! `cargo run --release -p grundy-games --example cram_analysis -- 5x8 1` (board, threads;
//! default 5x7 on one thread). With `VERBOSE` set, each settled move goes to stderr with the
//! search's counts so far.

use grundy_core::{Game, Outcome};
use grundy_games::cram::Cram;
use grundy_solve::search_parallel::analyze_normal_threads;

fn main() {
    let text = std::env::args().nth(1).unwrap_or_else(|| "5x7".to_string());
    let threads = match std::env::args().nth(2).map(|t| t.parse::<usize>()) {
        None => 1,
        Some(Ok(t)) if t > 0 => t,
        Some(_) => {
            eprintln!("cram_analysis: the threads (second argument) must be a number from 1");
            std::process::exit(2);
        }
    };
    let board = match Cram.parse_position(&text) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cram_analysis: {e}");
            std::process::exit(2);
        }
    };
    let verbose = std::env::var_os("VERBOSE").is_some();
    let start = std::time::Instant::now();
    let mut nodes = 0;
    let progress = |p: grundy_solve::search::Progress| {
        if verbose {
            eprintln!(
                "{:.2} s: {}/{} moves, {:?}",
                start.elapsed().as_secs_f64(),
                p.moves_done,
                p.moves,
                p.stats
            );
        }
        nodes = p.stats.nodes;
    };
    match analyze_normal_threads(&Cram, &board, false, usize::MAX, threads, progress, None, None) {
        Ok(a) => {
            let wins = a.moves.iter().filter(|m| m.outcome == Outcome::Second).count();
            println!(
                "cram {text} on {threads} thread(s): grundy {}, {wins} of {} moves win, {:.2} s, {nodes} search nodes",
                a.grundy.map_or("-".to_string(), |g| g.0.to_string()),
                a.moves.len(),
                start.elapsed().as_secs_f64(),
            );
        }
        Err(e) => {
            eprintln!("cram_analysis: {e}");
            std::process::exit(1);
        }
    }
}
