//! Published equivalences of octal games, checked against computed sequences
//! (`grundy census PATTERN --count N --equivalences`).
//!
//! The tables of octal games list one game per class of equivalent games, and a lookup table
//! maps every other game to the one it is equivalent to: the two have the same Grundy values
//! up to a shift of the heap sizes (a game that may not take a heap of one token plays like
//! one whose heaps are one token smaller) and a few small heaps. A census computes both
//! sequences; this module finds the shift under which they agree and, where no shift makes
//! them agree, the first heap where they differ.
//!
//! Nothing here prints.

use crate::census::{self, GameOptions};
use grundy_games::heap::HeapGame;
use grundy_store::Store;
use std::collections::HashMap;

/// The published lookup table built into grundy: tczajka/octal-games, GameLookup.md
/// (849 pairs; the file names its commit).
pub const PUBLISHED: &str = include_str!("../data/octal-equivalences.tsv");

/// Where [`PUBLISHED`] comes from, as the output names it.
pub const PUBLISHED_SOURCE: &str = "tczajka/octal-games GameLookup.md @57e893a";

/// The largest shift of heap sizes tried: G_game(n) = G_other(n + s) for |s| ≤ 4.
pub const MAX_SHIFT: i64 = 4;

/// Heaps at the start (after the shift) that may differ without breaking an equivalence:
/// the published equivalences hold from heap 4 at the latest, so 8 leaves room.
pub const SMALL_HEAPS: u64 = 8;

/// A published equivalence: `game` has the values of `same_as`, up to a shift.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The game (canonical name).
    pub game: String,
    /// The game it is published as equivalent to (canonical name).
    pub same_as: String,
}

/// Why a table of equivalences does not read.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: line {line}, column {column}: {message}")]
pub struct TableError {
    /// The file.
    pub source_name: String,
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based).
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

/// Reads a table of equivalences: one pair a line, two codes separated by a tab (or spaces),
/// `#` starting a comment line, blank lines skipped. Each code is read as a heap game and
/// named by its canonical name.
pub fn parse(source_name: &str, text: &str) -> Result<Vec<Pair>, TableError> {
    let mut pairs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let err = |column: usize, message: String| TableError {
            source_name: source_name.to_string(),
            line: i + 1,
            column,
            message,
        };
        let mut fields = Vec::new();
        let mut start = None;
        for (j, c) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(j),
                (true, Some(s)) => {
                    fields.push((s, &line[s..j]));
                    start = None;
                }
                _ => {}
            }
        }
        if fields.len() != 2 {
            return Err(err(
                1,
                format!(
                    "expected two codes (a game and the game it is equivalent to), found {}",
                    fields.len()
                ),
            ));
        }
        let mut names = Vec::with_capacity(2);
        for (at, code) in fields {
            let game = HeapGame::parse(code).map_err(|e| {
                err(
                    line[..at].chars().count() + e.span.column,
                    format!("'{code}': {}", e.message),
                )
            })?;
            names.push(game.name().to_string());
        }
        let same_as = names.pop().unwrap_or_default();
        let game = names.pop().unwrap_or_default();
        pairs.push(Pair { game, same_as });
    }
    Ok(pairs)
}

/// Where two sequences differ under the best shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The heap n of the game.
    pub heap: u64,
    /// G_game(n).
    pub value: u64,
    /// G_other(n + shift).
    pub other: u64,
}

/// How two sequences compare: the shift s (G_game(n) = G_other(n + s)) that makes them agree
/// from the smallest heap on, or that keeps them equal the longest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// The shift s of heap sizes.
    pub shift: i64,
    /// Agreeing: the first heap n of the game from which G_game(n) = G_other(n + s) holds up to
    /// the end of the values; `None` when they disagree.
    pub from: Option<u64>,
    /// Disagreeing: the first heap past the small ones ([`SMALL_HEAPS`]) where they differ.
    pub first_difference: Option<Difference>,
    /// The heaps n of the game compared: from max(0, −s) below `to`.
    pub to: u64,
}

impl Agreement {
    /// True when the sequences agree under the shift (past a few small heaps).
    pub fn agrees(&self) -> bool {
        self.from.is_some()
    }
}

/// Shifts in the order tried: 0, −1, 1, −2, 2, …
fn shifts() -> impl Iterator<Item = i64> {
    std::iter::once(0).chain((1..=MAX_SHIFT).flat_map(|s| [-s, s]))
}

/// Compares `game` (G_game) with `other` (G_other) under every shift s with |s| ≤
/// [`MAX_SHIFT`]: among the shifts under which they agree from at most [`SMALL_HEAPS`] heaps
/// past the start of the compared range, the one agreeing from the fewest heaps past its
/// start (ties: the first of 0, −1, 1, −2, 2, …); if none agrees, the shift whose first
/// difference past those heaps comes latest, and that difference.
pub fn compare(game: &[u64], other: &[u64]) -> Agreement {
    let mut agreeing: Option<(u64, Agreement)> = None;
    let mut best: Option<Agreement> = None;
    for s in shifts() {
        let lo = s.min(0).unsigned_abs();
        let hi = (game.len() as i64).min(other.len() as i64 - s).max(0) as u64;
        if hi <= lo {
            continue;
        }
        let at = |n: u64| (game[n as usize], other[(n as i64 + s) as usize]);
        let equal = |n: u64| {
            let (a, b) = at(n);
            a == b
        };
        // From which heap on do they agree to the end?
        let mut from = hi;
        while from > lo && equal(from - 1) {
            from -= 1;
        }
        if from <= lo + SMALL_HEAPS.min(hi - lo) {
            if agreeing.as_ref().is_none_or(|(past, _)| from - lo < *past) {
                let here = Agreement {
                    shift: s,
                    from: Some(from),
                    first_difference: None,
                    to: hi,
                };
                agreeing = Some((from - lo, here));
            }
            continue;
        }
        let start = (lo + SMALL_HEAPS).min(hi);
        let heap = (start..hi).find(|&n| !equal(n)).unwrap_or(hi);
        let (value, other_value) = at(heap.min(hi - 1));
        let here = Agreement {
            shift: s,
            from: None,
            first_difference: Some(Difference {
                heap,
                value,
                other: other_value,
            }),
            to: hi,
        };
        let later = |a: &Agreement| a.first_difference.map_or(0, |d| d.heap);
        if best.as_ref().is_none_or(|b| later(&here) > later(b)) {
            best = Some(here);
        }
    }
    agreeing.map(|(_, a)| a).or(best).unwrap_or(Agreement {
        shift: 0,
        from: None,
        first_difference: None,
        to: 0,
    })
}

/// One published pair checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The pair.
    pub pair: Pair,
    /// How their sequences compare.
    pub agreement: Agreement,
}

/// Checks every pair of `pairs` whose game is in `games`: both sequences computed to
/// `options.count` values (read from `store` when kept there, as a census keeps them; the
/// published game may be outside `games`), compared by [`compare`]. In the order of `games`.
pub fn check(
    pairs: &[Pair],
    games: &[String],
    options: &GameOptions,
    store: Option<&Store>,
) -> Result<Vec<Checked>, census::Error> {
    let by_game: HashMap<&str, &Pair> = pairs.iter().map(|p| (p.game.as_str(), p)).collect();
    let mut cache: HashMap<String, Vec<u64>> = HashMap::new();
    let mut out = Vec::new();
    for g in games {
        let Some(pair) = by_game.get(g.as_str()) else {
            continue;
        };
        for name in [&pair.game, &pair.same_as] {
            if !cache.contains_key(name.as_str()) {
                let values = census::sequence(name, options, store)?;
                cache.insert(name.clone(), values);
            }
        }
        let agreement = compare(&cache[&pair.game], &cache[&pair.same_as]);
        out.push(Checked {
            pair: (*pair).clone(),
            agreement,
        });
        // Keep memory to the sequences still needed: a representative is often shared by
        // later games, the game itself rarely.
        cache.remove(&pair.game);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_reads() {
        let pairs = parse("built-in", PUBLISHED).unwrap();
        assert_eq!(pairs.len(), 849);
        assert!(pairs.contains(&Pair {
            game: "0.07".into(),
            same_as: "0.4".into()
        }));
        assert!(pairs.iter().all(|p| p.game != p.same_as));
    }

    #[test]
    fn bad_lines_are_located() {
        let e = parse("t.tsv", "# c\n0.07\t0.4\n0.07 0.9x\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 8), "{e}");
        let e = parse("t.tsv", "0.07\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.to_string().contains("two codes"), "{e}");
    }

    #[test]
    fn shifts_and_differences() {
        let b: Vec<u64> = (0..100).map(|n| n % 7).collect();
        // The same sequence one heap later, with a different heap 0.
        let mut a: Vec<u64> = (0..100).map(|n| (n + 6) % 7).collect();
        a[0] = 5;
        let g = compare(&a, &b);
        assert_eq!((g.shift, g.from), (-1, Some(1)));
        assert!(g.agrees());
        // Equal up to heap 60, then not.
        let mut c = b.clone();
        c[60] = 9;
        let g = compare(&c, &b);
        assert!(!g.agrees());
        assert_eq!(
            g.first_difference,
            Some(Difference {
                heap: 60,
                value: 9,
                other: 4
            })
        );
        // Identical: shift 0 from heap 0.
        assert_eq!(compare(&b, &b).from, Some(0));
        // 0.01 (only heap 2 has a move) and 0.1 (only heap 1): equal from heap 3 unshifted,
        // but the published equivalence is the shift by one heap, from the start.
        let g = compare(
            &[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            &[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        );
        assert_eq!((g.shift, g.from), (-1, Some(1)));
    }
}
