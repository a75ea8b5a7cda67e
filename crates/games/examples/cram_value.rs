//! The Grundy value of one Cram board by pruned search, with the time and the number of
//! table entries: `cargo run --release -p grundy-games --example cram_value -- 5x7`.
//! `TABLE_BYTES=N` caps the search's table at N bytes. With `CRAM_STATS` set, the search's counts (nodes, cut-offs, options listed) go to stderr.

use grundy_core::Game;
use grundy_games::cram::Cram;
use grundy_solve::NimberSearch;

fn main() {
    let text = std::env::args().nth(1).unwrap_or_else(|| "5x7".to_string());
    let board = match Cram.parse_position(&text) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cram_value: {e}");
            std::process::exit(2);
        }
    };
    let start = std::time::Instant::now();
    let exact: usize = std::env::var("EXACT_UP_TO")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut s = NimberSearch::new(&Cram).exact_up_to(exact);
    if let Some(bytes) = std::env::var("TABLE_BYTES").ok().and_then(|v| v.parse().ok()) {
        s = s.with_table_bytes(bytes);
    }
    let r = s.grundy_sum(&Cram.components(&board));
    if std::env::var_os("CRAM_STATS").is_some() {
        eprintln!("{:?}, table {} KiB", s.stats(), s.table_bytes() / 1024);
    }
    match r {
        Ok(g) => println!(
            "cram {text}: grundy {} in {:.2} s, {} table entries",
            g.0,
            start.elapsed().as_secs_f64(),
            s.len()
        ),
        Err(e) => {
            eprintln!("cram_value: {e}");
            std::process::exit(1);
        }
    }
}
