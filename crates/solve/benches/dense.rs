//! The dense retrograde solver against its reference, the recursive memo of
//! `grundy_solve::dense::baseline`, on the same states: every position of Cram (dominoes on
//! an empty board) on 4×4 and 4×5 boards, and a random game. Throughput is in states solved.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use grundy_solve::dense::{baseline::Baseline, testing::RandomGame, DenseGame, DenseSolver, Record};
use grundy_solve::Convention;

/// Cram on an empty `rows × cols` board: tier k holds the sets of k empty cells.
struct Dominoes {
    n: u32,
    /// For each cell, its right and lower neighbours.
    forward: Vec<u64>,
    subsets: grundy_solve::dense::Subsets,
}

impl Dominoes {
    fn new(rows: u32, cols: u32) -> Dominoes {
        let n = rows * cols;
        let mut forward = vec![0u64; n as usize];
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                if c + 1 < cols {
                    forward[i as usize] |= 1 << (i + 1);
                }
                if r + 1 < rows {
                    forward[i as usize] |= 1 << (i + cols);
                }
            }
        }
        Dominoes {
            n,
            forward,
            subsets: grundy_solve::dense::Subsets::new(n).expect("at most 64 cells"),
        }
    }
}

impl DenseGame for Dominoes {
    type State = u64;
    fn num_tiers(&self) -> u32 {
        self.n + 1
    }
    fn tier_size(&self, tier: u32) -> u64 {
        self.subsets.binomial(self.n, tier)
    }
    fn child_tiers(&self, tier: u32) -> Vec<u32> {
        if tier >= 2 {
            vec![tier - 2]
        } else {
            vec![]
        }
    }
    fn unrank(&self, tier: u32, index: u64) -> u64 {
        self.subsets.unrank(tier, index)
    }
    fn advance(&self, _tier: u32, _index: u64, state: &mut u64) {
        *state = grundy_solve::dense::Subsets::next(*state);
    }
    fn successors<F: FnMut(u32, u64)>(&self, tier: u32, &s: &u64, mut emit: F) {
        let mut m = s;
        while m != 0 {
            let a = m.trailing_zeros();
            m &= m - 1;
            let mut f = self.forward[a as usize] & s;
            while f != 0 {
                let b = f.trailing_zeros();
                f &= f - 1;
                emit(tier - 2, self.subsets.rank(s & !(1 << a) & !(1 << b)));
            }
        }
    }
}

fn every_state<G: DenseGame>(game: &G, top: u32, conv: Convention) -> usize {
    let plan = DenseSolver::new(game).plan(top).unwrap();
    let mut base = Baseline::new(game, conv);
    for t in plan.tiers {
        for i in 0..game.tier_size(t) {
            black_box(base.solve(t, i));
        }
    }
    base.len()
}

fn bench_game<G: DenseGame>(c: &mut Criterion, name: &str, game: &G, top: u32) {
    let states = DenseSolver::new(game).plan(top).unwrap().states;
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.throughput(Throughput::Elements(states));
    for record in [Record::Outcome, Record::Remoteness, Record::Grundy] {
        g.bench_function(format!("dense {}", record.as_str()), |b| {
            b.iter(|| {
                black_box(
                    DenseSolver::new(game)
                        .record(record)
                        .keep_all(true)
                        .solve(top)
                        .unwrap(),
                )
            })
        });
    }
    g.bench_function("baseline (recursive memo)", |b| {
        b.iter(|| every_state(game, top, Convention::Normal))
    });
    g.finish();
}

fn cram(c: &mut Criterion) {
    let g = Dominoes::new(4, 4);
    bench_game(c, "cram 4x4 all states", &g, 16);
    let g = Dominoes::new(4, 5);
    bench_game(c, "cram 4x5 all states", &g, 20);
}

fn random(c: &mut Criterion) {
    let g = RandomGame {
        sizes: vec![20_000; 20],
        max_moves: 8,
        seed: 42,
    };
    bench_game(c, "random 20 tiers x 20000", &g, 19);
}

mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, cram, random);
}
criterion_main!(group::benches);
