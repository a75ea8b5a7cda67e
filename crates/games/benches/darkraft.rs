//! Darkraft: the dense rectangle table against the textbook memo, on seeded random full
//! boards (figures in docs/benchmarks.md).

use criterion::{criterion_main, BenchmarkId, Criterion};
use grundy_games::darkraft::{baseline, Board, Darkraft};
use std::hint::black_box;
use std::time::Duration;

fn random_board(rows: usize, cols: usize, seed: u64) -> Board {
    Board::random(rows, cols, seed)
}

fn fast(board: &Board) -> u64 {
    Darkraft::from_board(board).grundy(board).expect("table fits").0
}

fn darkraft(c: &mut Criterion) {
    let mut g = c.benchmark_group("darkraft");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [20usize, 35] {
        let board = random_board(n, n, 1);
        assert_eq!(Some(fast(&board)), baseline::board_grundy(&board).map(|g| g.0));
        g.bench_with_input(BenchmarkId::new("fast", n), &board, |b, board| {
            b.iter(|| fast(black_box(board)))
        });
        g.bench_with_input(BenchmarkId::new("baseline", n), &board, |b, board| {
            b.iter(|| baseline::board_grundy(black_box(board)))
        });
    }
    let board = random_board(50, 50, 1);
    g.bench_with_input(BenchmarkId::new("fast", 50), &board, |b, board| {
        b.iter(|| fast(black_box(board)))
    });
    g.finish();
}

/// The criterion entry points (private, so the generated functions need no docs).
mod entry {
    use criterion::criterion_group;
    criterion_group!(benches, super::darkraft);
}

criterion_main!(entry::benches);
