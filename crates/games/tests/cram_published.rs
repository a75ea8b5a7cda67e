//! The pruned search against the published nimbers of empty Cram boards
//! (tests/data/cram-published.tsv: Beling's table, source in the file). The small boards
//! run always; every board the table gives runs with `--ignored` (release build: minutes
//! to hours for the largest).

use grundy_core::Game;
use grundy_games::cram::Cram;
use grundy_solve::NimberSearch;

/// (rows, cols, nimber) of every row of the fixture.
fn published() -> Vec<(u32, u32, u64)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/cram-published.tsv");
    let text = std::fs::read_to_string(&path).expect("the fixture is there");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<u64> = l
                .split('\t')
                .map(|x| x.trim().parse().expect("a number"))
                .collect();
            (f[0] as u32, f[1] as u32, f[2])
        })
        .collect()
}

fn value(rows: u32, cols: u32) -> u64 {
    let board = Cram.parse_position(&format!("{rows}x{cols}")).expect("a board");
    NimberSearch::new(&Cram)
        .grundy_sum(&Cram.components(&board))
        .expect("no limit")
        .0
}

#[test]
fn small_published_boards() {
    let rows = published();
    assert_eq!(rows.len(), 30);
    let mut checked = 0;
    for (r, c, v) in rows {
        // Even x even boards are instant (symmetry); odd ones up to 24 cells in debug.
        if (r % 2 == 0 && c % 2 == 0) || r * c <= 24 {
            assert_eq!(value(r, c), v, "cram {r}x{c}");
            // Both orientations.
            assert_eq!(value(c, r), v, "cram {c}x{r}");
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
}

#[test]
#[ignore = "minutes to hours in a release build: every published board"]
fn every_published_board() {
    let limit: u32 = std::env::var("CRAM_MAX_CELLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(u32::MAX);
    for (r, c, v) in published() {
        if r * c <= limit {
            assert_eq!(value(r, c), v, "cram {r}x{c}");
        }
    }
}
