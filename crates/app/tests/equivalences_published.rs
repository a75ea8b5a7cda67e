//! The published equivalences of octal games (the lookup table of tczajka/octal-games, built
//! into grundy as `equivalence::PUBLISHED`) against grundy's own sequences: every one of the
//! 849 pairs agrees under a shift of at most four heaps, and a pair that is not an
//! equivalence is reported with its first difference.

use grundy_app::census::{sequence, GameOptions};
use grundy_app::equivalence::{check, compare, parse, PUBLISHED};
use grundy_solve::seq::StoreOptions;

fn options(count: u64) -> GameOptions {
    GameOptions {
        count,
        storage: StoreOptions::default(),
        threads: Some(1),
    }
}

#[test]
fn every_published_equivalence_holds_to_2000_heaps() {
    let pairs = parse("built-in", PUBLISHED).unwrap();
    let games: Vec<String> = pairs.iter().map(|p| p.game.clone()).collect();
    let checked = check(&pairs, &games, &options(2000), None).unwrap();
    assert_eq!(checked.len(), 849);
    let disagree: Vec<String> = checked
        .iter()
        .filter(|c| !c.agreement.agrees())
        .map(|c| format!("{} = {}: {:?}", c.pair.game, c.pair.same_as, c.agreement))
        .collect();
    assert!(disagree.is_empty(), "{disagree:#?}");
    // Dawson's Kayles (0.07) is 0.4 one heap later: G_0.07(n) = G_0.4(n + 1).
    let dawson = checked.iter().find(|c| c.pair.game == "0.07").unwrap();
    assert_eq!((dawson.agreement.shift, dawson.agreement.from), (1, Some(0)));
    // Most pairs need no shift, some need one.
    let shifted = checked.iter().filter(|c| c.agreement.shift != 0).count();
    assert!((100..400).contains(&shifted), "{shifted} shifted");
}

#[test]
fn a_false_equivalence_is_reported_with_its_first_difference() {
    // Kayles (0.77) and Dawson's Kayles (0.07) are not the same game under any shift.
    let kayles = sequence("0.77", &options(500), None).unwrap();
    let dawson = sequence("0.07", &options(500), None).unwrap();
    let g = compare(&kayles, &dawson);
    assert!(!g.agrees());
    let d = g.first_difference.unwrap();
    let other = (d.heap as i64 + g.shift) as usize;
    assert_eq!((kayles[d.heap as usize], dawson[other]), (d.value, d.other));
    assert_ne!(d.value, d.other);
    // Every heap between the small ones and the difference agrees under that shift.
    let lo = g.shift.min(0).unsigned_abs() + 8;
    for n in lo..d.heap {
        assert_eq!(
            kayles[n as usize],
            dawson[(n as i64 + g.shift) as usize],
            "heap {n}"
        );
    }
}

#[test]
fn disputed_equivalences_of_older_tables_are_found() {
    // Equivalences printed in Winning Ways' locator and Flammenkamp's tables that
    // tczajka/octal-games found wrong (tests/data/octal-equivalences-disputed.tsv).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/octal-equivalences-disputed.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let pairs = parse("disputed", &text).unwrap();
    let games: Vec<String> = pairs.iter().map(|p| p.game.clone()).collect();
    let checked = check(&pairs, &games, &options(2000), None).unwrap();
    assert_eq!(checked.len(), 3);
    assert!(checked.iter().all(|c| !c.agreement.agrees()), "{checked:#?}");
    // "The first difference between these two games is at heap size 519."
    let f = checked.iter().find(|c| c.pair.game == "0.161").unwrap();
    assert_eq!(f.agreement.shift, 0);
    assert_eq!(f.agreement.first_difference.map(|d| d.heap), Some(519));
    // And where the locator should have pointed, .27 does agree with .26.
    let right = parse("fixed", "0.27\t0.26\n").unwrap();
    let c = check(&right, &["0.27".to_string()], &options(2000), None).unwrap();
    assert!(c[0].agreement.agrees(), "{c:?}");
}
