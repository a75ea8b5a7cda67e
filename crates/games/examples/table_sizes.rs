//! Times the bulk tables at a given size: `cargo run --release --example table_sizes -- bomb 256`.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let t = Instant::now();
    match args.get(1).map(String::as_str) {
        Some("bomb") => {
            let table = grundy_games::bombs::BombTable::new(n, n);
            println!(
                "bomb {n}x{n}: {:?}, last = {:?}",
                t.elapsed(),
                table.get(n - 1, n - 1)
            );
        }
        Some("cutting") => {
            let table = grundy_games::cutting::CuttingTable::new(n);
            println!("cutting {n}x{n}: {:?}, G = {:?}", t.elapsed(), table.get(n, n));
        }
        Some("crosses") => {
            let v = grundy_games::crosses::run_values(n);
            println!("crosses {n}: {:?}, last = {:?}", t.elapsed(), v.last());
        }
        _ => eprintln!("usage: table_sizes bomb|cutting|crosses N"),
    }
}
