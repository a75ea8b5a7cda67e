//! Bulk tables of the two 2-D families against the textbook memoised recursion:
//! the full Cutting Game table to 200×200 and the Bomb Game table to 50×50.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use grundy_games::{bombs, cutting};

fn cutting_table(c: &mut Criterion) {
    let mut g = c.benchmark_group("cutting table 200x200");
    g.sample_size(10);
    g.bench_function("grundy", |b| {
        b.iter(|| black_box(cutting::CuttingTable::new(200)))
    });
    g.bench_function("baseline (textbook memo)", |b| {
        b.iter(|| black_box(cutting::baseline_table(200)))
    });
    g.finish();
}

fn bomb_table(c: &mut Criterion) {
    let mut g = c.benchmark_group("bomb table 50x50");
    g.sample_size(10);
    g.bench_function("grundy", |b| b.iter(|| black_box(bombs::BombTable::new(50, 50))));
    g.bench_function("baseline (textbook memo)", |b| {
        b.iter(|| black_box(bombs::baseline_table(50, 50)))
    });
    g.finish();
}

mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, cutting_table, bomb_table);
}
criterion_main!(group::benches);
