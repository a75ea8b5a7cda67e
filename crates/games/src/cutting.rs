//! Cutting Game (POJ 2311 / AcWing 219): sheets of squared paper; a move cuts one sheet along
//! a grid line into two; the player who first produces a 1×1 sheet wins.
//!
//! A sheet with a side of 1 and another of at least 2 lets the player to move cut off a 1×1
//! sheet and win, so nobody makes such a sheet unless forced. Without those moves the game is
//! normal play on sheets with both sides at least 2 (a player left only with 2×2, 2×3 and
//! 3×2 sheets must make a 1-wide sheet and loses): components are such sheets, and their
//! Grundy values form a table computed in bulk by [`CuttingTable`].
//!
//! Notation: sheets `WxH` separated by spaces (`4x2 3x3`). A move `K:WxH->AxH+BxH` cuts sheet
//! number K (from 1).

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Table, TableKind};
use grundy_core::{tokens, Game, Nimber, ParseError, Ruleset};

/// Largest side accepted: the table to 1000×1000 takes about half a second.
pub const MAX_SIDE: u64 = 1000;

/// Grundy values G(w, h) of single sheets with both sides at least 2, for w, h ≤ `max`.
#[derive(Clone, Debug)]
pub struct CuttingTable {
    max: usize,
    values: Vec<u16>,
}

impl CuttingTable {
    /// Computes G(w, h) for all 2 ≤ w ≤ h ≤ `max`, by rows of increasing w, with a bitset mex.
    pub fn new(max: usize) -> CuttingTable {
        let n = max + 1;
        let mut values = vec![0u16; n * n];
        let mut seen: Vec<u64> = Vec::new();
        for w in 2..n {
            for h in w..n {
                seen.clear();
                seen.resize(2 * n / 64 + 2, 0);
                let mut put = |v: u16| {
                    let v = v as usize;
                    if v / 64 >= seen.len() {
                        seen.resize(v / 64 + 1, 0);
                    }
                    seen[v / 64] |= 1 << (v % 64);
                };
                let g = |a: usize, b: usize| {
                    if a <= b {
                        values[a * n + b]
                    } else {
                        values[b * n + a]
                    }
                };
                for a in 2..=w / 2 {
                    if w - a >= 2 {
                        put(g(a, h) ^ g(w - a, h));
                    }
                }
                for b in 2..=h / 2 {
                    if h - b >= 2 {
                        put(g(w, b) ^ g(w, h - b));
                    }
                }
                let mex = seen
                    .iter()
                    .enumerate()
                    .find(|(_, &x)| x != u64::MAX)
                    .map(|(k, x)| k * 64 + (!x).trailing_zeros() as usize);
                let v = mex.unwrap_or(seen.len() * 64) as u16;
                values[w * n + h] = v;
                values[h * n + w] = v;
            }
        }
        CuttingTable { max, values }
    }

    /// G(w, h) for 2 ≤ w, h ≤ max, else `None`.
    pub fn get(&self, w: usize, h: usize) -> Option<u16> {
        (w >= 2 && h >= 2 && w <= self.max && h <= self.max).then(|| self.values[w * (self.max + 1) + h])
    }

    /// The largest side covered.
    pub fn max(&self) -> usize {
        self.max
    }
}

/// The textbook solution, kept as the benchmark baseline: memoised recursion over (w, h),
/// each value the mex over all cuts with a fresh "visited" array.
#[doc(hidden)]
pub fn baseline_table(max: usize) -> Vec<u16> {
    fn sg(w: usize, h: usize, n: usize, memo: &mut Vec<i32>) -> u16 {
        if memo[w * n + h] >= 0 {
            return memo[w * n + h] as u16;
        }
        let mut vis = vec![false; 2 * n + 2];
        let last = vis.len() - 1;
        for a in 2..=w.saturating_sub(2) {
            let x = (sg(a, h, n, memo) ^ sg(w - a, h, n, memo)) as usize;
            vis[x.min(last)] = true;
        }
        for b in 2..=h.saturating_sub(2) {
            let x = (sg(w, b, n, memo) ^ sg(w, h - b, n, memo)) as usize;
            vis[x.min(last)] = true;
        }
        let v = vis.iter().position(|&s| !s).unwrap_or(vis.len()) as u16;
        memo[w * n + h] = v as i32;
        v
    }
    let n = max + 1;
    let mut memo = vec![-1i32; n * n];
    let mut out = vec![0u16; n * n];
    for w in 2..n {
        for h in 2..n {
            out[w * n + h] = sg(w, h, n, &mut memo);
        }
    }
    out
}

/// The Cutting Game. A component is a sheet `(w, h)` with 2 ≤ w ≤ h (sheets are symmetric).
#[derive(Clone, Debug)]
pub struct Cutting {
    table: CuttingTable,
}

impl Default for Cutting {
    fn default() -> Self {
        Cutting::new(200)
    }
}

impl Cutting {
    /// Rules with values precomputed for sheets up to `max × max`; larger sheets are still
    /// solved, by search.
    pub fn new(max: usize) -> Cutting {
        Cutting {
            table: CuttingTable::new(max),
        }
    }

    /// The precomputed table.
    pub fn table(&self) -> &CuttingTable {
        &self.table
    }
}

/// A sheet, `w` columns by `h` rows.
pub type Sheet = (u64, u64);

/// A move: sheet number `sheet` (from 0), of size `from`, is cut into the sheets `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Index of the sheet in the position.
    pub sheet: usize,
    /// Its size.
    pub from: Sheet,
    /// The two pieces.
    pub to: [Sheet; 2],
}

fn canonical((w, h): Sheet) -> Sheet {
    if w <= h {
        (w, h)
    } else {
        (h, w)
    }
}

impl Ruleset for Cutting {
    type Component = Sheet;

    fn options<F: FnMut(&[Sheet])>(&self, &(w, h): &Sheet, mut emit: F) {
        for a in 2..=w / 2 {
            if w - a >= 2 {
                emit(&[canonical((a, h)), canonical((w - a, h))]);
            }
        }
        for b in 2..=h / 2 {
            if h - b >= 2 {
                emit(&[canonical((w, b)), canonical((w, h - b))]);
            }
        }
    }

    fn known_grundy(&self, &(w, h): &Sheet) -> Option<Nimber> {
        self.table.get(w as usize, h as usize).map(|v| Nimber(v as u64))
    }

    fn size_hint(&self, &(w, h): &Sheet) -> usize {
        (w * h) as usize
    }
}

impl Game for Cutting {
    type Position = Vec<Sheet>;
    type Move = Cut;

    fn parse_position(&self, text: &str) -> Result<Vec<Sheet>, ParseError> {
        let toks = tokens(text);
        if toks.is_empty() {
            return Err(ParseError::new(
                1,
                1,
                "no sheet given: write sheets as WxH, e.g. 3x2",
            ));
        }
        let mut out = Vec::new();
        for t in toks {
            let Some((a, b)) = t.text.split_once(['x', 'X', '×']) else {
                return Err(ParseError::new(
                    t.span.line,
                    t.span.column,
                    format!(
                        "expected a sheet WxH, found '{}'",
                        grundy_core::parse::shorten(t.text)
                    ),
                ));
            };
            let wt = grundy_core::Token {
                text: a,
                span: t.span,
            };
            let ht = grundy_core::Token {
                text: b,
                span: grundy_core::Span::new(t.span.line, t.span.column + a.chars().count() + 1),
            };
            let w = wt.number("sheet width", MAX_SIDE)?;
            let h = ht.number("sheet height", MAX_SIDE)?;
            if w == 0 || h == 0 {
                return Err(ParseError::new(
                    t.span.line,
                    t.span.column,
                    "a sheet needs sides of at least 1",
                ));
            }
            if w == 1 && h == 1 {
                return Err(ParseError::new(
                    t.span.line,
                    t.span.column,
                    "a 1x1 sheet means the game is already over",
                ));
            }
            out.push((w, h));
        }
        Ok(out)
    }

    fn components(&self, p: &Vec<Sheet>) -> Vec<Sheet> {
        p.iter().map(|&s| canonical(s)).collect()
    }

    fn moves<F: FnMut(Cut, Vec<Sheet>)>(&self, p: &Vec<Sheet>, mut emit: F) {
        for (k, &(w, h)) in p.iter().enumerate() {
            let mut cut = |to: [Sheet; 2]| {
                let mut next = p.clone();
                next.splice(k..=k, to);
                emit(
                    Cut {
                        sheet: k,
                        from: (w, h),
                        to,
                    },
                    next,
                );
            };
            for a in 1..w {
                cut([(a, h), (w - a, h)]);
            }
            for b in 1..h {
                cut([(w, b), (w, h - b)]);
            }
        }
    }

    fn immediate_wins(&self, p: &Vec<Sheet>) -> Option<Vec<Cut>> {
        // Every cut of a 1-wide sheet that leaves a 1×1 piece (either end).
        let mut wins = Vec::new();
        self.moves(p, |m, _| {
            if m.to.contains(&(1, 1)) {
                wins.push(m);
            }
        });
        (!wins.is_empty()).then_some(wins)
    }

    fn end_moves(&self, _p: &Vec<Sheet>) -> u32 {
        // Stuck with 2x2, 2x3 and 3x2 sheets, the player to move makes a 1-wide sheet and the
        // opponent cuts off a 1x1.
        2
    }

    fn format_move(&self, m: &Cut) -> String {
        format!(
            "{}:{}x{}->{}x{}+{}x{}",
            m.sheet + 1,
            m.from.0,
            m.from.1,
            m.to[0].0,
            m.to[0].1,
            m.to[1].0,
            m.to[1].1
        )
    }

    fn format_position(&self, p: &Vec<Sheet>) -> String {
        p.iter()
            .map(|(w, h)| format!("{w}x{h}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The Cutting Game as a family of the registry.
pub struct CuttingFamily;

impl Family for CuttingFamily {
    type Game = Cutting;
    const DESCRIPTION: Description = Description {
        name: "cutting",
        aliases: &[],
        notation: "Cutting Game (POJ 2311): sheets 'WxH', e.g. '4x2 3x3'",
        example: "4x3 2x5",
        misere: false,
        engine: Engine::Memo,
        options: &[],
        table: Some(Table {
            kind: TableKind::Grid,
            rows: "width",
            cols: "height",
            first: 1,
            max: usize::MAX,
            cell: |w, h| format!("{w}x{h}"),
        }),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        // A move per unit of each side; the table of sheets grows with the cube of the
        // longest side.
        estimate_moves: |text| {
            let moves = crate::family::integers(text).fold(0u64, |a, n| a.saturating_add(n));
            let side = crate::family::integers(text).max().unwrap_or(0);
            moves.max(side.saturating_mul(side).saturating_mul(side) / 25_000)
        },
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Cutting, Vec<Sheet>), RegistryError> {
        let p = Cutting::new(0)
            .parse_position(text)
            .map_err(|e| RegistryError::position("cutting", e))?;
        let side = p.iter().map(|&(w, h)| w.max(h)).max().unwrap_or(0);
        Ok((Cutting::new(side as usize), p))
    }

    fn board(&self, _: &Cutting, p: &Vec<Sheet>) -> BoardView {
        BoardView::Sheets {
            sheets: p.iter().map(|&(w, h)| [w, h]).collect(),
        }
    }
}


/// One or two sheets of up to 4×4 (no 1×1).
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let n = r.range(1, 2);
    let mut sheets = Vec::new();
    while sheets.len() < n as usize {
        let (w, h) = (r.range(1, 4), r.range(1, 4));
        if (w, h) != (1, 1) {
            sheets.push(format!("{w}x{h}"));
        }
    }
    Sample::text(sheets.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::Outcome;
    use grundy_solve::{analysis::Analyzer, brute, Convention};
    use proptest::prelude::*;

    #[test]
    fn table_matches_baseline() {
        let t = CuttingTable::new(40);
        let b = baseline_table(40);
        for w in 2..=40 {
            for h in 2..=40 {
                assert_eq!(t.get(w, h), Some(b[w * 41 + h]), "{w}x{h}");
            }
        }
    }

    #[test]
    fn samples() {
        let c = Cutting::new(10);
        let mut an = Analyzer::new(&c);
        for (s, o) in [
            ("2x2", Outcome::Second),
            ("3x2", Outcome::Second),
            ("4x2", Outcome::First),
        ] {
            let p = c.parse_position(s).unwrap();
            assert_eq!(an.outcome(&p, Convention::Normal).unwrap(), o, "{s}");
        }
    }

    #[test]
    fn parse_errors() {
        let c = Cutting::new(4);
        let e = c.parse_position("3x2 4y2").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 5));
        let e = c.parse_position("3x2 4x-2").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 7));
        assert!(c.parse_position("1x1").is_err());
        assert!(c.parse_position("").is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// With a table of side 3, so sheets beyond it go through the search path (the
        /// registry's game has a large table: `crates/app/tests/brute_harness.rs` never leaves it).
        #[test]
        fn matches_brute_force(sheets in proptest::collection::vec((1u64..6, 1u64..6), 1..3)) {
            prop_assume!(!sheets.contains(&(1, 1)));
            // Small table, so larger sheets go through the search path too.
            let c = Cutting::new(3);
            let a = Analyzer::new(&c).analyze(&sheets, Convention::Normal).unwrap();
            prop_assert_eq!(a.outcome, brute::outcome(&c, &sheets, Convention::Normal));
            let mut w: Vec<String> = a.winning_moves.iter().map(|m| c.format_move(m)).collect();
            w.sort();
            prop_assert_eq!(w, brute::winning_moves(&c, &sheets, Convention::Normal));
            let r = Analyzer::new(&c).remote(&sheets, Convention::Normal).unwrap();
            prop_assert_eq!((r.outcome, r.remoteness), brute::remote(&c, &sheets, Convention::Normal));
        }
    }
}
