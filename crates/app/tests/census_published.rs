//! The census against the published tables of octal games (tests/data/octal-periods.tsv,
//! from tczajka/octal-games): every game they call solved gets their period and their
//! prefix as n0, and no game they call unsolved gets a period claim.
//!
//! The fast tests take the solved games whose proof needs at most 40 000 values (all the
//! two- and three-digit games of the trivial table and 0.45, 0.156, 0.356, 0.644, 0.165) and
//! every unsolved game at 2^13 values; `published_all` (ignored: minutes in a debug build)
//! takes every solved game, 0.354 (20 million values) included, and the unsolved ones at 2^16.

use grundy_app::census::{run_game, GameOptions, Row, Verdict};
use grundy_solve::seq::StoreOptions;

struct Published {
    code: String,
    /// (period, n0) when solved.
    solved: Option<(u64, u64)>,
}

fn table() -> Vec<Published> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/octal-periods.tsv");
    let text = std::fs::read_to_string(path).expect("tests/data/octal-periods.tsv");
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "line {}: {line}", n + 1);
        let solved = match f[3] {
            "solved" => Some((f[1].parse().unwrap(), f[2].parse().unwrap())),
            "unsolved" => None,
            other => panic!("line {}: status {other}", n + 1),
        };
        rows.push(Published {
            code: f[0].to_string(),
            solved,
        });
    }
    rows
}

/// Values that suffice to prove period p from n0 for a code of at most three digits after
/// the point (h = 2, t ≤ 3): the bound 2·max(n0, 1) + p + 3, plus p.
fn enough(p: u64, n0: u64) -> u64 {
    2 * n0.max(1) + 2 * p + 3
}

fn options(count: u64) -> GameOptions {
    GameOptions {
        count,
        storage: StoreOptions::default(),
        threads: Some(1),
    }
}

/// Games of the source's unsolved list ("work in progress" there) for which grundy proves a
/// period: (code, period, n0). Each claim is confirmed by the separate checker
/// `grundy_verify`, which recomputes the values from the rules and checks the theorem.
const PROVEN_HERE: &[(&str, u64, u64)] = &[("4.344", 51, 998), ("4.364", 62, 11687)];

/// Checks the claim of `row` with `grundy_verify` alone: its own values, its own theorem.
fn confirm_independently(row: &Row) {
    let rules = grundy_verify::parse_game(&row.game).unwrap();
    let (p, n0) = (row.period.unwrap(), row.n0.unwrap());
    let (h, t) = grundy_verify::heaps_and_removal(&rules).unwrap();
    let bound = h * n0.max(1) + (h - 1) * p + t;
    let values = grundy_verify::values(&rules, (bound + p) as usize, &mut |_| {});
    let cert = grundy_verify::Certificate {
        game: row.game.clone(),
        rules,
        claim: "periodic".into(),
        period: p,
        n0,
        saltus: 0,
        theorem: format!("take-and-break h={h} t={t}"),
        bound,
        split: None,
        declared_rare: None,
        values,
    };
    let proven = grundy_verify::check(&cert, &mut |_, _| {}).unwrap();
    assert!(proven.least_n0, "{}", row.game);
}

fn check(limit_solved: u64, unsolved_count: u64) -> (usize, usize) {
    let rows = table();
    let (mut solved, mut unsolved) = (0, 0);
    for r in &rows {
        match r.solved {
            Some((p, n0)) => {
                let count = enough(p, n0);
                if count > limit_solved {
                    continue;
                }
                let row = run_game(&r.code, &options(count), None).unwrap();
                assert_eq!(row.verdict, Verdict::Periodic, "{}: {row:?}", r.code);
                assert_eq!(
                    (row.period, row.n0),
                    (Some(p), Some(n0)),
                    "{} (published period {p}, prefix {n0})",
                    r.code
                );
                solved += 1;
            }
            None => {
                let row = run_game(&r.code, &options(unsolved_count), None).unwrap();
                if let Some(&(_, p, n0)) = PROVEN_HERE.iter().find(|e| e.0 == r.code) {
                    if row.verdict != Verdict::Unresolved {
                        assert_eq!((row.period, row.n0), (Some(p), Some(n0)), "{}", r.code);
                        confirm_independently(&row);
                        unsolved += 1;
                        continue;
                    }
                }
                assert_eq!(row.verdict, Verdict::Unresolved, "{}: {row:?}", r.code);
                assert_eq!(row.period, None, "{}", r.code);
                unsolved += 1;
            }
        }
    }
    (solved, unsolved)
}

#[test]
fn published_small() {
    let (solved, unsolved) = check(40_000, 1 << 13);
    // 82 games of the trivial table, 5 of the solved one; 83 unsolved (Grundy's game too).
    assert!(solved >= 87, "{solved} solved games checked");
    assert!(unsolved >= 80, "{unsolved} unsolved games checked");
}

#[test]
#[ignore = "minutes: every solved game to its proof (0.354: 20 million values)"]
fn published_all() {
    let (solved, _) = check(u64::MAX, 1 << 16);
    assert_eq!(solved, table().iter().filter(|r| r.solved.is_some()).count());
}
