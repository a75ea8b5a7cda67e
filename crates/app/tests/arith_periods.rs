//! Arithmetic periods of hexadecimal games (grundy_solve::seq::arith) against the reference
//! solver: the values the proof reads are those of a full game-tree search
//! (`grundy_solve::brute`, whole positions, no Sprague–Grundy sums) on the small heaps,
//! and each claim holds on the values computed by the definition far past its bound.

use grundy_games::heap::HeapGame;
use grundy_solve::brute;
use grundy_solve::seq::{self, naive, period};

#[test]
fn known_arithmetic_periods_match_the_reference_solver() {
    for (code, want, brute_to) in [
        ("0.FF", (1, 1, 0), 14),
        ("hex:8.0", (2, 1, 1), 16),
        ("hex:0.C", (2, 1, 1), 14),
        ("hex:0.8", (3, 1, 1), 14),
        ("0.BF", (1, 1, 4), 13),
        ("0.8F", (7, 4, 7), 13),
    ] {
        let game = HeapGame::parse(code).unwrap();
        let rules = game.rules().clone();
        let values = seq::values(&rules, 400).unwrap();
        for n in 0..brute_to {
            let g = brute::grundy(&game, &vec![n]);
            assert_eq!(g.0, values[n as usize], "{code}: G({n})");
        }
        let p = period::find(&rules, values.len(), |i| values[i]).unwrap_or_else(|| panic!("{code}"));
        assert_eq!((p.period, p.saltus, p.n0), want, "{code}");
        let far = naive::values(&rules, (4 * (p.checked_to + p.period) as usize).max(500));
        for n in p.n0 as usize..far.len() - p.period as usize {
            assert_eq!(
                far[n] + p.saltus,
                far[n + p.period as usize],
                "{code}: {p:?} at {n}"
            );
        }
    }
}
