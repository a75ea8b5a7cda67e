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

/// Writes the certificate of `code`'s period (an `--until-period` run to `count` values) and
/// checks it with `grundy_verify`: `Some(saltus)` when a period was proven.
fn certify(code: &str, count: &str, dir: &std::path::Path) -> Option<u64> {
    let mut request = grundy_app::seq::SeqRequest::new(code, count);
    request.until_period = true;
    request.threads = Some(1);
    let c = grundy_app::seq::compute(&request, None, &mut |_| {}).unwrap();
    let p = c.period.or(c.summary.period)?;
    let path = dir.join("c.cert");
    let len = grundy_app::certificate::write(&path, &c).unwrap_or_else(|e| panic!("{code}: {e}"));
    let text = std::fs::read(&path).unwrap();
    let cert = grundy_verify::read(&text[..]).unwrap();
    // The checker's own values are the engine's.
    let own = grundy_verify::values(&cert.rules, len as usize, &mut |_| {});
    for (i, &v) in own.iter().enumerate() {
        assert_eq!(u64::from(v), c.get(i as u64), "{code}: G({i})");
    }
    let proven = grundy_verify::check(&cert, &mut |_, _| {}).unwrap_or_else(|e| panic!("{code}: {e}"));
    assert_eq!(
        (proven.period, proven.saltus, proven.n0, proven.bound),
        (p.period, p.saltus, p.n0, p.checked_to),
        "{code}"
    );
    if p.saltus > 0 {
        assert!(
            proven.theorem.starts_with("level h=3 "),
            "{code}: {}",
            proven.theorem
        );
    }
    Some(p.saltus)
}

/// The games of the table in docs/games.md: each certificate is written and valid.
#[test]
fn certificates_of_the_known_arithmetic_periods_verify() {
    let dir = tempfile::tempdir().unwrap();
    for code in [
        "0.FF", "hex:8.0", "hex:0.C", "hex:0.8", "0.BF", "0.8F", "hex:4.9", "8.D",
    ] {
        assert!(certify(code, "2000", dir.path()).unwrap_or(0) > 0, "{code}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
    /// Random hexadecimal codes of one to three digits after the point: whenever `seq` proves
    /// a period (arithmetic ones by the level argument), its certificate is written, the
    /// separate checker accepts it with the same claim and bound, and the checker's values
    /// are the engine's.
    #[test]
    fn every_certificate_of_a_random_hexadecimal_code_verifies(
        d0 in proptest::sample::select(vec!['0', '4', '8', 'C']),
        rest in proptest::collection::vec(proptest::sample::select("0123456789ABCDEF".chars().collect::<Vec<_>>()), 1..4),
    ) {
        let code: String = std::iter::once(d0).chain(std::iter::once('.')).chain(rest).collect();
        let code = format!("hex:{code}");
        let dir = tempfile::tempdir().unwrap();
        certify(&code, "600", dir.path());
    }
}

/// A sweep of every code d0.d1d2 with a three-heap split (d0 in 0, 4, 8, C): every proven
/// arithmetic period gets a certificate the checker accepts. Long: run with
/// `cargo test -p grundy-app --test arith_periods every_two_digit -- --ignored --nocapture`.
#[test]
#[ignore]
fn every_two_digit_hexadecimal_certificate_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (mut arithmetic, mut codes) = (0, 0);
    for d0 in ['0', '4', '8', 'C'] {
        for d1 in "0123456789ABCDEF".chars() {
            for d2 in "0123456789ABCDEF".chars() {
                let code = format!("hex:{d0}.{d1}{d2}");
                codes += 1;
                if certify(&code, "1000", dir.path()).is_some_and(|s| s > 0) {
                    arithmetic += 1;
                    eprintln!("{code}: arithmetic period certified");
                }
            }
        }
    }
    eprintln!("{arithmetic} arithmetic-periodic codes certified among {codes}");
}
