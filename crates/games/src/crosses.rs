//! Crosses and Crosses (POJ 3537), also known as Treblecross: a 1×n strip; a move puts an X
//! on an empty square; whoever first completes three X in a row wins.
//!
//! An X within distance 2 of another lets the opponent complete three at once, so on a strip
//! of 3 or more squares nobody plays there unless forced. The squares at distance ≥ 3 from
//! every X ("safe" squares) form runs; an X in a run of length L at offset j makes the squares
//! j−2..j+2 unsafe, leaving runs of max(0, j−2) and max(0, L−j−3). A run is a component, and
//! its Grundy value is that of octal game 0.007 at heap L + 2. A player with no safe square
//! must give the opponent a win. Strips of 1 or 2 squares can never hold three X: there the
//! player who cannot move loses, as everywhere in grundy.
//!
//! Notation: the strip as `.` (empty) and `X` (also `x`), e.g. `..X....`; a move is the
//! square's number from 1.

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Table, TableKind};
use grundy_core::{Game, Nimber, ParseError, Ruleset};

/// Longest strip accepted: the O(n²) table to 65536 squares takes about two seconds.
pub const MAX_LEN: usize = 1 << 16;

/// Grundy values of safe runs, G(L) for L < len, by the O(n²) mex recursion with a bitset.
pub fn run_values(len: usize) -> Vec<u16> {
    let mut g = vec![0u16; len];
    let mut seen: Vec<u64> = Vec::new();
    for l in 1..len {
        seen.clear();
        seen.resize(4, 0);
        for j in 0..l.div_ceil(2) {
            let v = (g[j.saturating_sub(2)] ^ g[l.saturating_sub(j + 3)]) as usize;
            if v / 64 >= seen.len() {
                seen.resize(v / 64 + 1, 0);
            }
            seen[v / 64] |= 1 << (v % 64);
        }
        let k = seen.iter().position(|&w| w != u64::MAX).unwrap_or(seen.len());
        let w = seen.get(k).copied().unwrap_or(0);
        g[l] = (k * 64 + (!w).trailing_zeros() as usize) as u16;
    }
    g
}

/// The strip game. A component is a run of safe squares, by its length (≥ 1).
#[derive(Clone, Debug)]
pub struct Crosses {
    table: Vec<u16>,
}

impl Default for Crosses {
    fn default() -> Self {
        Crosses::new(2048)
    }
}

impl Crosses {
    /// Rules with run values precomputed below `len`; longer runs are solved by search.
    pub fn new(len: usize) -> Crosses {
        Crosses {
            table: run_values(len),
        }
    }

    /// An empty strip of `n` squares.
    pub fn empty(n: usize) -> Strip {
        Strip(vec![false; n])
    }
}

/// A strip: `true` where an X stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Strip(pub Vec<bool>);

impl Strip {
    /// Squares where a new X completes three in a row.
    fn completing(&self) -> Vec<usize> {
        let s = &self.0;
        let x = |i: isize| i >= 0 && (i as usize) < s.len() && s[i as usize];
        (0..s.len())
            .filter(|&i| !s[i])
            .filter(|&i| {
                let i = i as isize;
                (x(i - 2) && x(i - 1)) || (x(i - 1) && x(i + 1)) || (x(i + 1) && x(i + 2))
            })
            .collect()
    }

    /// The first square (0-based) of a completed three in a row, if any.
    fn three(&self) -> Option<usize> {
        self.0.windows(3).position(|w| w.iter().all(|&b| b))
    }
}

impl Ruleset for Crosses {
    type Component = u64;

    fn options<F: FnMut(&[u64])>(&self, &l: &u64, mut emit: F) {
        for j in 0..l.div_ceil(2) {
            let (a, b) = (j.saturating_sub(2), l.saturating_sub(j + 3));
            match (a, b) {
                (0, 0) => emit(&[]),
                (0, b) => emit(&[b]),
                (a, 0) => emit(&[a]),
                (a, b) => emit(&[a.min(b), a.max(b)]),
            }
        }
    }

    fn known_grundy(&self, &l: &u64) -> Option<Nimber> {
        self.table.get(l as usize).map(|&v| Nimber(v as u64))
    }

    fn size_hint(&self, &l: &u64) -> usize {
        l as usize
    }
}

impl Game for Crosses {
    type Position = Strip;
    type Move = usize;

    fn parse_position(&self, text: &str) -> Result<Strip, ParseError> {
        let mut cells = Vec::new();
        let mut start = None;
        for (li, line) in text.lines().enumerate() {
            for (ci, ch) in line.chars().enumerate() {
                match ch {
                    '.' | 'X' | 'x' => {
                        if let Some((l0, _)) = start {
                            if l0 != li + 1 {
                                return Err(ParseError::new(li + 1, ci + 1, "a strip is one line"));
                            }
                        }
                        start.get_or_insert((li + 1, ci + 1));
                        if cells.len() >= MAX_LEN {
                            return Err(ParseError::new(
                                li + 1,
                                ci + 1,
                                format!("strip too long (at most {MAX_LEN} squares)"),
                            ));
                        }
                        cells.push(ch != '.');
                    }
                    c if c.is_whitespace() && start.is_none() => {}
                    c if c.is_whitespace() && start.is_some_and(|(l, _)| l == li + 1) => {
                        if line.chars().skip(ci).any(|c| !c.is_whitespace()) {
                            return Err(ParseError::new(li + 1, ci + 1, "a strip has no spaces inside"));
                        }
                    }
                    c if c.is_whitespace() => {}
                    c => {
                        return Err(ParseError::new(
                            li + 1,
                            ci + 1,
                            format!("unknown square '{}' (expected '.' or 'X')", c.escape_default()),
                        ));
                    }
                }
            }
        }
        let Some((line, col)) = start else {
            return Err(ParseError::new(
                1,
                1,
                "empty strip: write squares as '.' and 'X', e.g. ..X..",
            ));
        };
        let strip = Strip(cells);
        if let Some(k) = strip.three() {
            return Err(ParseError::new(
                line,
                col + k,
                "three X in a row already: the game is over",
            ));
        }
        Ok(strip)
    }

    fn components(&self, p: &Strip) -> Vec<u64> {
        let s = &p.0;
        if s.len() <= 2 {
            // No three in a row is possible: each empty square is a move of its own (a run of
            // one safe square), nothing else matters.
            return vec![1; s.iter().filter(|&&b| !b).count()];
        }
        let mut unsafe_ = vec![false; s.len()];
        for (i, _) in s.iter().enumerate().filter(|(_, &b)| b) {
            unsafe_[i.saturating_sub(2)..=(i + 2).min(s.len() - 1)].fill(true);
        }
        let mut runs = Vec::new();
        let mut len = 0u64;
        for &u in unsafe_.iter().chain(std::iter::once(&true)) {
            if u {
                if len > 0 {
                    runs.push(len);
                }
                len = 0;
            } else {
                len += 1;
            }
        }
        runs
    }

    fn moves<F: FnMut(usize, Strip)>(&self, p: &Strip, mut emit: F) {
        for i in 0..p.0.len() {
            if !p.0[i] {
                let mut next = p.clone();
                next.0[i] = true;
                emit(i, next);
            }
        }
    }

    fn immediate_wins(&self, p: &Strip) -> Option<Vec<usize>> {
        let w = p.completing();
        (!w.is_empty()).then_some(w)
    }

    fn end_moves(&self, p: &Strip) -> u32 {
        // With no safe square left, the player to move must give the opponent three in a row.
        if p.0.len() >= 3 {
            2
        } else {
            0
        }
    }

    fn format_move(&self, m: &usize) -> String {
        (m + 1).to_string()
    }

    fn format_position(&self, p: &Strip) -> String {
        p.0.iter().map(|&b| if b { 'X' } else { '.' }).collect()
    }
}

/// Crosses and Crosses (Treblecross) as a family of the registry.
pub struct CrossesFamily;

impl Family for CrossesFamily {
    type Game = Crosses;
    const DESCRIPTION: Description = Description {
        name: "crosses",
        aliases: &["treblecross"],
        notation: "Crosses and Crosses / Treblecross (POJ 3537): a strip of '.' and 'X'",
        example: "..........",
        misere: false,
        engine: Engine::Memo,
        options: &[],
        table: Some(Table {
            kind: TableKind::Sequence,
            rows: "",
            cols: "empty squares",
            first: 0,
            max: usize::MAX,
            cell: |n, _| ".".repeat(n),
        }),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        // A move per empty square.
        estimate_moves: |text| text.chars().filter(|&c| c == '.').count() as u64,
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Crosses, Strip), RegistryError> {
        let p = Crosses::new(0)
            .parse_position(text)
            .map_err(|e| RegistryError::position("crosses", e))?;
        Ok((Crosses::new(p.0.len() + 1), p))
    }

    fn board(&self, game: &Crosses, p: &Strip) -> BoardView {
        BoardView::Strip {
            cells: game.format_position(p),
        }
    }
}


/// A strip of up to 9 squares, a quarter of them crosses, never three in a row.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    loop {
        let n = r.range(1, 9);
        let s: String = (0..n).map(|_| r.pick(&['.', '.', '.', 'X'])).collect();
        if !s.contains("XXX") {
            return Sample::text(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::Outcome;
    use grundy_solve::{analysis::Analyzer, brute, Convention};
    use proptest::prelude::*;

    #[test]
    fn samples() {
        let c = Crosses::default();
        let mut an = Analyzer::new(&c);
        assert_eq!(
            an.outcome(&Crosses::empty(3), Convention::Normal).unwrap(),
            Outcome::First
        );
        assert_eq!(
            an.outcome(&Crosses::empty(6), Convention::Normal).unwrap(),
            Outcome::Second
        );
    }

    #[test]
    fn runs_are_octal_0_007_shifted_by_two() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/heap/0.007.txt");
        let text = std::fs::read_to_string(path).expect("reference table 0.007");
        let reference: Vec<u16> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
        let ours = run_values(reference.len() - 2);
        for (l, &v) in ours.iter().enumerate() {
            assert_eq!(v, reference[l + 2], "run of {l}");
        }
    }

    #[test]
    fn parse_errors() {
        let c = Crosses::default();
        let e = c.parse_position("..X.o").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 5));
        let e = c.parse_position("..XXX..").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 3));
        assert!(c.parse_position("").is_err());
        assert!(c.parse_position(".. ..").is_err());
    }

    fn strip() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(vec!['.', '.', '.', 'X']), 1..11)
            .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// With a table of runs up to 4, so longer runs go through the search path (the
        /// registry's game has a large table: `crates/app/tests/brute_harness.rs` never leaves it).
        #[test]
        fn matches_brute_force(text in strip()) {
            let c = Crosses::new(4); // small table: longer runs go through the search path
            let Ok(p) = c.parse_position(&text) else { return Ok(()) };
            let a = Analyzer::new(&c).analyze(&p, Convention::Normal).unwrap();
            prop_assert_eq!(a.outcome, brute::outcome(&c, &p, Convention::Normal));
            let mut w: Vec<String> = a.winning_moves.iter().map(|m| c.format_move(m)).collect();
            w.sort();
            prop_assert_eq!(w, brute::winning_moves(&c, &p, Convention::Normal));
            let r = Analyzer::new(&c).remote(&p, Convention::Normal).unwrap();
            prop_assert_eq!((r.outcome, r.remoteness), brute::remote(&c, &p, Convention::Normal));
        }

        #[test]
        fn parser_never_panics(s in "\\PC{0,30}") {
            let _ = Crosses::new(4).parse_position(&s);
        }
    }
}
