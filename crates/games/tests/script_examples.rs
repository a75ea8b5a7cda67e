//! Every example script of `examples/games` gives the values of its built-in family: the
//! Grundy value (or, where an immediate win decides, the outcome) of hundreds of small
//! positions, each written in the built-in family's notation, through the registry.

use grundy_core::{Game, Outcome, Ruleset};
use grundy_games::family::{Family, FamilyOptions, RegistryError, Seeded};
use grundy_games::gamefile::GameFile;
use grundy_games::registry::{self, FamilyInfo, WithGame};
use grundy_solve::analysis::Analyzer;
use grundy_solve::Convention;
use std::sync::Arc;

/// Outcome and Grundy value (`None` when an immediate win decides) of a position.
struct Solve;

impl WithGame for Solve {
    type Output = (Outcome, Option<u64>);
    type Error = RegistryError;
    fn run<F: Family>(
        self,
        _: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        _: &FamilyInfo,
    ) -> Result<(Outcome, Option<u64>), RegistryError> {
        let mut an = Analyzer::new(game);
        let fail =
            |e: grundy_solve::SolveError| RegistryError::Unsupported(format!("{e} {:?}", game.fault()));
        let g = an.grundy(&p).map_err(fail)?;
        let o = an.outcome(&p, Convention::Normal).map_err(fail)?;
        Ok((o, g.map(|g| g.0)))
    }
}

fn script(name: &str) -> FamilyOptions {
    let path = format!("{}/../../examples/games/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    FamilyOptions {
        game: Some(Arc::new(GameFile::load(name, &text).unwrap())),
        ..FamilyOptions::default()
    }
}

/// Checks the script `file` against the built-in `family` (with `opts`) on `positions`.
fn check(file: &str, family: &str, opts: &FamilyOptions, positions: &[String]) {
    let s = script(file);
    assert!(
        positions.len() >= 100,
        "{file}: only {} positions",
        positions.len()
    );
    for p in positions {
        let want =
            registry::with_game(family, opts, p, Solve).unwrap_or_else(|e| panic!("{family} {p}: {e}"));
        let got = registry::with_game("script", &s, p, Solve).unwrap_or_else(|e| panic!("{file} {p}: {e}"));
        assert_eq!(got, want, "{file} vs {family} at '{p}'");
    }
}

fn heaps(seed: u64, max: u64) -> Vec<String> {
    let mut r = Seeded::new(seed);
    let mut out: Vec<String> = (0..=max).map(|n| n.to_string()).collect();
    for _ in 0..100 {
        let n = r.range(2, 4);
        out.push(
            (0..n)
                .map(|_| r.range(0, max).to_string())
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    out
}

#[test]
fn heap_games() {
    let none = FamilyOptions::default();
    check("kayles.lua", "0.77", &none, &heaps(1, 60));
    check("dawsons-kayles.lua", "0.07", &none, &heaps(2, 60));
    check("grundys-game.lua", "grundys-game", &none, &heaps(3, 60));
}

#[test]
fn cutting() {
    let mut out = Vec::new();
    for w in 1..=12 {
        for h in 1..=12 {
            if (w, h) != (1, 1) {
                out.push(format!("{w}x{h}"));
            }
        }
    }
    let mut r = Seeded::new(4);
    for _ in 0..100 {
        let side = |r: &mut Seeded| if r.chance(10) { 1 } else { r.range(2, 14) };
        let (a, b) = (side(&mut r), r.range(2, 14));
        let (c, d) = (r.range(2, 14), side(&mut r));
        out.push(format!("{a}x{b} {c}x{d}"));
    }
    check("cutting.lua", "cutting", &FamilyOptions::default(), &out);
}

#[test]
fn crosses() {
    let mut out = Vec::new();
    for n in 1..=9u32 {
        for bits in 0..1u32 << n {
            let s: String = (0..n)
                .map(|k| if bits >> k & 1 == 1 { 'X' } else { '.' })
                .collect();
            if !s.contains("XXX") && (n <= 6 || bits.count_ones() <= 2) {
                out.push(s);
            }
        }
    }
    out.extend((10..=40).map(|n| ".".repeat(n)));
    check("crosses.lua", "crosses", &FamilyOptions::default(), &out);
}

#[test]
fn bombs() {
    let mut out = Vec::new();
    for i in 0..7 {
        for j in 0..7 {
            if (i, j) != (0, 0) {
                let rows: Vec<String> = (0..7)
                    .map(|r| (0..7).map(|c| if (r, c) == (i, j) { '#' } else { '.' }).collect())
                    .collect();
                out.push(rows.join("/"));
            }
        }
    }
    let mut r = Seeded::new(5);
    while out.len() < 200 {
        let (rows, cols) = (r.range(1, 4), r.range(1, 4));
        let g = r.grid(rows, cols, &['.', '.', '.', '#']);
        if g[1..].contains('#') {
            out.push(g);
        }
    }
    check("bombs.lua", "bombs", &FamilyOptions::default(), &out);
}

#[test]
fn darkraft() {
    let mut r = Seeded::new(6);
    let mut out = Vec::new();
    while out.len() < 200 {
        let (rows, cols) = (r.range(1, 4), r.range(1, 4));
        out.push(r.grid(rows, cols, &['L', 'R', 'X', 'L', 'R', 'X', '.']));
    }
    check("darkraft.lua", "darkraft", &FamilyOptions::default(), &out);
}

#[test]
fn maoershan() {
    let mut r = Seeded::new(7);
    let mut out = vec!["111111111111".to_string()];
    while out.len() < 300 {
        out.push((0..12).map(|_| r.pick(&['0', '1', '1'])).collect());
    }
    let board = FamilyOptions {
        board: Some("maoershan".into()),
        rule: Some("one-or-two".into()),
        ..FamilyOptions::default()
    };
    check("maoershan.lua", "points", &board, &out);
}

/// Positions that do not read give errors, never a panic.
#[test]
fn bad_positions_are_errors() {
    for (file, text) in [
        ("cutting.lua", "1x1"),
        ("cutting.lua", "3y4"),
        ("crosses.lua", "XXX."),
        ("crosses.lua", "..a"),
        ("bombs.lua", "#./..."),
        ("darkraft.lua", "LQ"),
        ("maoershan.lua", "0101"),
        ("kayles.lua", "-3 x"),
    ] {
        let e = registry::with_game("script", &script(file), text, Solve).unwrap_err();
        assert!(
            matches!(e, RegistryError::BadPosition { .. }),
            "{file} '{text}': {e:?}"
        );
    }
}

/// What the registry tells of a script game: its name, misère play, its table; a script
/// that does not load is a bad game file.
#[test]
fn registry_view_of_scripts() {
    struct Info;
    impl WithGame for Info {
        type Output = FamilyInfo;
        type Error = RegistryError;
        fn run<F: Family>(
            self,
            _: &F,
            _: &F::Game,
            _: <F::Game as Game>::Position,
            info: &FamilyInfo,
        ) -> Result<FamilyInfo, RegistryError> {
            Ok(info.clone())
        }
    }
    let kayles = registry::with_game("script", &script("kayles.lua"), "3", Info).unwrap();
    assert!(kayles.name.starts_with("kayles@") && kayles.misere, "{kayles:?}");
    assert!(kayles.table.is_some());
    let cutting = registry::with_game("script", &script("cutting.lua"), "3x3", Info).unwrap();
    assert!(
        cutting.name.starts_with("cutting@") && !cutting.misere,
        "{cutting:?}"
    );
    // Its own notation, with the shape of its table declared (layout = "boards").
    assert!(cutting.table.is_some_and(|t| (t.cell)(2, 3) == "2x3"));
    let own = registry::with_game("script", &FamilyOptions::default(), "3", Info).unwrap();
    assert_eq!(own.name, "script");
    let bad = FamilyOptions {
        game: Some(Arc::new(
            GameFile::load("bad.lua", "function options(n)\n  return {{\nend\n").unwrap(),
        )),
        ..FamilyOptions::default()
    };
    let e = registry::with_game("script", &bad, "3", Info).unwrap_err();
    assert!(
        matches!(&e, RegistryError::BadGame(s) if s.line == 3 && s.file == "bad.lua"),
        "{e:?}"
    );
}
