//! The example specs of `examples/games/`: each reads as the heap code it says, and its
//! Grundy values, built through the registry from the file, are the built-in code's and,
//! where published, the published ones (`tests/data/heap/*.txt`, sources in its README:
//! OEIS A002186 for Kayles, A002187 for Dawson's Kayles, A002188 for Grundy's game, A046695
//! for Officers).

use grundy_core::{Game, Nimber};
use grundy_games::family::{Family, FamilyOptions, RegistryError};
use grundy_games::gamefile::GameFile;
use grundy_games::registry::{self, FamilyInfo, WithGame};
use grundy_solve::analysis::Analyzer;
use std::path::PathBuf;
use std::sync::Arc;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The game's canonical name and the Grundy value of the position.
struct GrundyOf;

impl WithGame for GrundyOf {
    type Output = (String, Nimber);
    type Error = RegistryError;

    fn run<F: Family>(
        self,
        _: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<(String, Nimber), RegistryError> {
        let g = Analyzer::new(game)
            .grundy(&p)
            .ok()
            .flatten()
            .unwrap_or(Nimber(u64::MAX));
        Ok((info.name.clone(), g))
    }
}

/// G(0), ..., G(count − 1) of a game named `name` (a code), or of `file` when given: one
/// position per heap, through the registry (with the bulk heap values of `grundy solve`).
fn values(name: &str, file: Option<Arc<GameFile>>, count: u64) -> (String, Vec<u64>) {
    let opts = FamilyOptions {
        game: file,
        heap_values: Some(grundy_app::solve::heap_values),
        ..FamilyOptions::default()
    };
    let mut code = String::new();
    let mut out = Vec::new();
    for n in 0..count {
        let (c, g) = registry::with_game(name, &opts, &n.to_string(), GrundyOf).unwrap();
        code = c;
        out.push(g.0);
    }
    (code, out)
}

fn spec(name: &str) -> Arc<GameFile> {
    let path = root().join("examples/games").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Arc::new(GameFile::load(&path.display().to_string(), &text).unwrap())
}

fn published(code: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(root().join("tests/data/heap").join(format!("{code}.txt"))).unwrap();
    text.lines().map(|l| l.trim().parse().unwrap()).collect()
}

#[test]
fn every_example_equals_its_code() {
    for (file, code, table) in [
        ("kayles.toml", "0.77", Some("0.77")),
        ("dawsons-kayles.toml", "0.07", Some("0.07")),
        ("grundys-game.toml", "grundys-game", Some("grundys-game")),
        ("officers.toml", "0.6", Some("0.6")),
        ("four-way-split.toml", "0.{0,1,2,3,4}", None),
        ("kayles-any-but.toml", "0.70[7]", None),
    ] {
        let count = 400;
        let (name, from_spec) = values("", Some(spec(file)), count);
        assert_eq!(name, code, "{file}");
        let (_, from_code) = values(code, None, count);
        assert_eq!(from_spec, from_code, "{file}");
        if let Some(t) = table {
            assert_eq!(
                from_spec,
                published(t)[..count as usize],
                "{file}: published values"
            );
        }
    }
}

/// The examples beyond the fast engines, against the memo engine (no bulk table).
#[test]
fn wider_examples_match_the_memo_engine() {
    for file in ["four-way-split.toml", "kayles-any-but.toml"] {
        let code = spec(file).resolve(&FamilyOptions::default()).unwrap().0;
        let game = grundy_games::heap::HeapGame::parse(&code).unwrap();
        let bulk = grundy_solve::seq::values(game.rules(), 120).unwrap();
        let mut an = Analyzer::new(&game);
        let memo: Vec<u64> = (0..120)
            .map(|n| an.grundy(&vec![n]).unwrap().unwrap().0)
            .collect();
        assert_eq!(bulk, memo, "{file}");
    }
}

/// Kayles: period 12 from heap 71 (OEIS A002186), proven from the spec's values.
#[test]
fn kayles_spec_period() {
    let code = spec("kayles.toml").resolve(&FamilyOptions::default()).unwrap().0;
    let game = grundy_games::heap::HeapGame::parse(&code).unwrap();
    let mut e = grundy_solve::seq::SeqEngine::new(game.rules(), 1000, Default::default()).unwrap();
    e.compute_to(1000).unwrap();
    let p = e.period().unwrap();
    assert_eq!((p.period, p.n0), (12, 71));
    // No claim for the repeating block.
    let code = spec("kayles-any-but.toml")
        .resolve(&FamilyOptions::default())
        .unwrap()
        .0;
    let game = grundy_games::heap::HeapGame::parse(&code).unwrap();
    let mut e = grundy_solve::seq::SeqEngine::new(game.rules(), 1000, Default::default()).unwrap();
    e.compute_to(1000).unwrap();
    assert_eq!(e.period(), None);
}
