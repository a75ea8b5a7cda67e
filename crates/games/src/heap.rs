//! Heap games named by a code: take-and-break codes, octal and hexadecimal (`0.77`, `4.07`,
//! `0.F`) and wider (`0.{0,1,4}`: a digit written as the numbers of heaps it may leave), with
//! unequal splits (`4!.0`, Grundy's game, also `grundys-game`) and a repeating final block
//! (`0.[3]`, Nim), and subtraction games (`sub:1,3,4`, `sub-all-but:2,5`). See docs/games.md.
//!
//! A position is a list of heap sizes (`5 9 12`), as in Nim; a move `I:N->A+B` turns heap
//! number I (from 1) of N tokens into the heaps A and B (`I:N->0` when it disappears).

use crate::family::{Sample, Seeded};
use crate::family::{
    BoardView, Description, Engine, Family, FamilyOptions, HeapNotation, Opt, RegistryError, Table,
};
use crate::nim::{
    format_heap_move, format_heaps, parse_heaps, replace_heap, write_heap_move, write_heaps, HeapMove,
    MAX_HEAP,
};
use grundy_core::heap::{Digit, MAX_LEAVE};
use grundy_core::parse::shorten;
use grundy_core::{Game, HeapRules, Nimber, ParseError, Ruleset};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Most digits accepted after the point of a take-and-break code.
pub const MAX_CODE_DIGITS: usize = 4096;
/// Largest count accepted in a subtraction set.
pub const MAX_SUBTRACTION: u64 = 1 << 32;
/// Most counts accepted in a subtraction set.
pub const MAX_SET_LEN: usize = 4096;

/// A heap game: its rules and the name it was given in (canonical form), and optionally a
/// table of known Grundy values G(0), G(1), ... (see [`HeapGame::with_values`]).
#[derive(Clone, Debug)]
pub struct HeapGame {
    rules: HeapRules,
    name: String,
    values: Option<Arc<[u64]>>,
}

impl PartialEq for HeapGame {
    /// Games are equal when their rules are (the table of values is only a cache).
    fn eq(&self, other: &HeapGame) -> bool {
        self.rules == other.rules
    }
}

impl Eq for HeapGame {}

impl std::hash::Hash for HeapGame {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.rules.hash(state)
    }
}

impl HeapGame {
    /// Reads a game code: `0.77`, `4.07`, `0.F`, `grundys-game`, `sub:1,3,4` (also
    /// `subtraction:1,3,4`) or `sub-all-but:2,5`. Errors name the column (line 1).
    ///
    /// A take-and-break code is hexadecimal when it has a letter digit A–F (`0.F`, `0.A8`);
    /// otherwise it is octal and the digits 8 and 9 are refused, so `0.8` is an error. A
    /// hexadecimal code with no letter digit is written with the prefix `hex:` (`hex:0.8`).
    /// Any digit may be written as the set of heap counts it allows, `{0,1,4}` (0 to 31
    /// heaps; the only way to write digits above 15); `!` after a digit asks the heaps its
    /// splits leave to differ (`4!.0`); a final block in brackets repeats forever (`0.[3]`).
    pub fn parse(text: &str) -> Result<HeapGame, ParseError> {
        let t = text.trim_end();
        let lead = t.len() - t.trim_start().len();
        let t = t.trim_start();
        let col0 = text[..lead].chars().count() + 1;
        if t.is_empty() {
            return Err(ParseError::new(1, col0, "empty game code (try 0.77 or sub:1,2)"));
        }
        if t.eq_ignore_ascii_case("grundys-game") || t.eq_ignore_ascii_case("grundy") {
            return Ok(HeapGame::grundys_game());
        }
        for (prefix, all_but) in [
            ("sub-all-but:", true),
            ("subtraction-all-but:", true),
            ("sub:", false),
            ("subtraction:", false),
        ] {
            if t.get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
            {
                let rest = &t[prefix.len()..];
                let set = if all_but && rest.trim().is_empty() {
                    Vec::new() // all-but nothing: Nim
                } else {
                    parse_set(rest, col0 + prefix.chars().count())?
                };
                return Ok(if all_but {
                    HeapGame::all_but(set)
                } else {
                    HeapGame::subtraction(set)
                });
            }
        }
        if t.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("hex:")) {
            return parse_code(&t[4..], col0 + 4, true);
        }
        parse_code(t, col0, false)
    }

    /// Grundy's game: split a heap into two heaps of different sizes (`4!.0`).
    pub fn grundys_game() -> HeapGame {
        HeapGame::from_rules(HeapRules::grundys_game())
    }

    /// The subtraction game with the counts of `set` (any order; duplicates ignored).
    pub fn subtraction(mut set: Vec<u64>) -> HeapGame {
        set.sort_unstable();
        set.dedup();
        HeapGame::from_rules(HeapRules::Subtraction(set))
    }

    /// The game where a move removes any positive count except those of `set`.
    pub fn all_but(mut set: Vec<u64>) -> HeapGame {
        set.sort_unstable();
        set.dedup();
        HeapGame::from_rules(HeapRules::AllBut(set))
    }

    /// The take-and-break game of `digits` (digit k for k = 0, 1, ...; see
    /// [`grundy_core::heap::Digit`]), with no unequal flag and no repeating block. `None`
    /// when `digits[0]` has bit 0 or 1 (which would let a move remove nothing and leave the
    /// heap as it was).
    pub fn take_break(digits: Vec<Digit>) -> Option<HeapGame> {
        HeapRules::take_break(&digits, &[], 0).map(HeapGame::from_rules)
    }

    /// The game of `rules`, with its canonical name (see [`code_name`]).
    pub fn from_rules(rules: HeapRules) -> HeapGame {
        let name = code_name(&rules);
        HeapGame {
            rules,
            name,
            values: None,
        }
    }

    /// The same game, with G(i) = `values[i]` known for every heap below `values.len()`
    /// (computed in bulk by `grundy_solve::seq`), so engines look values up instead of
    /// searching: this is how `grundy solve 0.77 5 9 12` stays fast for large heaps.
    pub fn with_values(mut self, values: Arc<[u64]>) -> HeapGame {
        self.values = Some(values);
        self
    }

    /// The table given to [`HeapGame::with_values`], if any.
    pub fn values(&self) -> Option<&[u64]> {
        self.values.as_deref()
    }

    /// The rules, for engines.
    pub fn rules(&self) -> &HeapRules {
        &self.rules
    }

    /// The canonical name (`0.77`, `grundys-game`, `sub:1,3,4`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn join(set: &[u64]) -> String {
    set.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

/// Reads `1,3,4` starting at column `col`.
fn parse_set(text: &str, col: usize) -> Result<Vec<u64>, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::new(
            1,
            col,
            "empty subtraction set (write counts like 1,3,4)",
        ));
    }
    let mut out = Vec::new();
    let mut c = col;
    for part in text.split(',') {
        let n = part.chars().count();
        let p = part.trim();
        let pc = c + (part.len() - part.trim_start().len());
        if p.is_empty() {
            return Err(ParseError::new(1, pc, "missing count in the subtraction set"));
        }
        if !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError::new(
                1,
                pc,
                format!("subtraction count must be a whole number, found '{}'", shorten(p)),
            ));
        }
        match p.parse::<u64>() {
            Ok(0) => {
                return Err(ParseError::new(
                    1,
                    pc,
                    "subtraction count must be positive, found '0'",
                ))
            }
            Ok(v) if v <= MAX_SUBTRACTION => out.push(v),
            _ => {
                return Err(ParseError::new(
                    1,
                    pc,
                    format!(
                        "subtraction count is too large (at most {MAX_SUBTRACTION}), found '{}'",
                        shorten(p)
                    ),
                ))
            }
        }
        if out.len() > MAX_SET_LEN {
            return Err(ParseError::new(
                1,
                pc,
                format!("too many subtraction counts (at most {MAX_SET_LEN})"),
            ));
        }
        c += n + 1;
    }
    Ok(out)
}

/// The canonical name of `rules`: `grundys-game`, `sub:1,3,4`, `sub-all-but:2,5`, or the
/// take-and-break code: digits up to 15 as hexadecimal characters (with the prefix `hex:`
/// when one is 8 or 9 and none is a letter), wider digits as the set of heap counts they
/// allow in braces (`{0,1,5}`), `!` after a digit with the unequal flag, the repeating block
/// in brackets (`0.[3]`). A code with no digit after the point gets a `0` (`4.0`).
pub fn code_name(rules: &HeapRules) -> String {
    match rules {
        HeapRules::Subtraction(set) => format!("sub:{}", join(set)),
        HeapRules::AllBut(set) => format!("sub-all-but:{}", join(set)),
        r if *r == HeapRules::grundys_game() => "grundys-game".into(),
        HeapRules::TakeBreak {
            digits,
            unequal,
            repeat,
        } => {
            let plain = |d: &Digit| *d <= 15;
            let needs_prefix = digits.iter().any(|d| plain(d) && *d >= 8)
                && !digits.iter().any(|d| plain(d) && *d >= 10);
            let mut name = String::from(if needs_prefix { "hex:" } else { "" });
            let block = digits.len() - repeat;
            for (k, &d) in digits.iter().enumerate() {
                if *repeat > 0 && k == block {
                    name.push('[');
                }
                match char::from_digit(d, 16) {
                    Some(c) => name.push(c.to_ascii_uppercase()),
                    None => {
                        let heaps: Vec<String> = (0..=MAX_LEAVE)
                            .filter(|j| d & (1 << j) != 0)
                            .map(|j| j.to_string())
                            .collect();
                        name.push('{');
                        name.push_str(&heaps.join(","));
                        name.push('}');
                    }
                }
                if unequal.binary_search(&k).is_ok() {
                    name.push('!');
                }
                if k == 0 {
                    name.push('.');
                }
            }
            if *repeat > 0 {
                name.push(']');
            }
            if digits.len() == 1 {
                name.push('0');
            }
            name
        }
    }
}

/// Reads a take-and-break code `d0.d1d2...` starting at column `col0`: digits (octal, or
/// hexadecimal with `hex` or a letter digit), `{j,...}` digits, `!` flags, a final `[...]`
/// repeating block.
fn parse_code(t: &str, col0: usize, hex: bool) -> Result<HeapGame, ParseError> {
    let hex = hex || t.chars().any(|c| matches!(c.to_ascii_uppercase(), 'A'..='F'));
    let base = if hex { 16 } else { 8 };
    let chars: Vec<char> = t.chars().collect();
    let err = |i: usize, msg: String| ParseError::new(1, col0 + i, msg);
    let mut digits: Vec<Digit> = Vec::new();
    let mut flags: Vec<bool> = Vec::new();
    let mut seen_point = false;
    let mut point_at = 0;
    // Index in `digits` where the repeating block starts, and whether it was closed.
    let mut block: Option<usize> = None;
    let mut closed = false;
    // Whether the last thing read was a digit (which a '!' may follow).
    let mut after_digit = false;
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        let was_digit = std::mem::replace(&mut after_digit, false);
        if closed {
            return Err(err(i, format!("unexpected '{ch}' after the repeating block's ']'")));
        }
        match ch {
            '.' => {
                if seen_point {
                    return Err(err(i, "a game code has only one '.'".into()));
                }
                if digits.is_empty() {
                    digits.push(0); // `.77` is `0.77`
                    flags.push(false);
                }
                seen_point = true;
                point_at = i;
                i += 1;
                continue;
            }
            '!' => {
                if !was_digit {
                    return Err(err(i, "'!' goes right after a digit (like 4!.0)".into()));
                }
                if let Some(f) = flags.last_mut() {
                    *f = true;
                }
                let d = digits.last().copied().unwrap_or(0);
                if d < 4 {
                    return Err(err(
                        i,
                        "'!' (unequal heaps) goes after a digit that splits a heap (4 or more)".into(),
                    ));
                }
                i += 1;
                continue;
            }
            '[' => {
                if !seen_point {
                    return Err(err(i, "the repeating block '[...]' comes after the '.'".into()));
                }
                if block.is_some() {
                    return Err(err(i, "a game code has one repeating block".into()));
                }
                block = Some(digits.len());
                i += 1;
                continue;
            }
            ']' => {
                match block {
                    None => return Err(err(i, "']' without '['".into())),
                    Some(b) if b == digits.len() => {
                        return Err(err(i, "empty repeating block (like 0.[3])".into()))
                    }
                    Some(_) => {}
                }
                closed = true;
                i += 1;
                continue;
            }
            _ => {}
        }
        if !seen_point && !digits.is_empty() {
            return Err(err(
                i,
                "a game code has one digit before the '.' (like 0.77 or 4.07)".into(),
            ));
        }
        let at = i;
        let d: Digit = if ch == '{' {
            let Some(len) = chars[i..].iter().position(|&c| c == '}') else {
                return Err(err(i, "'{' without '}' (a digit like {0,1,5})".into()));
            };
            let mut d: Digit = 0;
            let mut col = i + 1;
            let inner: String = chars[i + 1..i + len].iter().collect();
            if !inner.trim().is_empty() {
                for part in inner.split(',') {
                    let p = part.trim();
                    let pc = col + part.chars().take_while(|c| c.is_whitespace()).count();
                    match p.parse::<u32>() {
                        Ok(j) if j <= MAX_LEAVE && p.bytes().all(|b| b.is_ascii_digit()) => {
                            d |= 1 << j
                        }
                        Ok(_) => {
                            return Err(err(
                                pc,
                                format!("a digit allows at most {MAX_LEAVE} heaps, found '{}'", shorten(p)),
                            ))
                        }
                        Err(_) => {
                            return Err(err(
                                pc,
                                format!(
                                    "expected a number of heaps (0 to {MAX_LEAVE}) in '{{...}}', found '{}'",
                                    shorten(p)
                                ),
                            ))
                        }
                    }
                    col += part.chars().count() + 1;
                }
            }
            i += len + 1;
            d
        } else {
            let Some(d) = ch.to_digit(base) else {
                let msg = if ch.is_ascii_digit() {
                    format!("'{ch}' is not an octal digit (hexadecimal codes are written with a letter A-F or hex:)")
                } else {
                    format!(
                        "unexpected '{ch}' in a game code (expected a code like 0.77, 4!.0, 0.[3], grundys-game or sub:1,2)"
                    )
                };
                return Err(err(i, msg));
            };
            i += 1;
            d
        };
        if !seen_point && d & 3 != 0 {
            return Err(err(
                at,
                "the digit before the '.' must not take or leave one heap (0, 4, 8, C, ...)".into(),
            ));
        }
        digits.push(d);
        flags.push(false);
        after_digit = true;
        if digits.len() > MAX_CODE_DIGITS + 1 {
            return Err(err(
                at,
                format!("game code too long (at most {MAX_CODE_DIGITS} digits after the '.')"),
            ));
        }
    }
    if !seen_point {
        return Err(err(
            chars.len(),
            "a game code needs a '.' and digits after it (like 0.77)".into(),
        ));
    }
    if block.is_some() && !closed {
        return Err(err(chars.len(), "the repeating block needs its ']'".into()));
    }
    if digits.len() < 2 {
        return Err(err(point_at + 1, "missing digits after the '.' (like 0.77)".into()));
    }
    let repeat = block.map_or(0, |b| digits.len() - b);
    HeapRules::take_break(&digits, &flags, repeat)
        .map(HeapGame::from_rules)
        .ok_or_else(|| err(0, "invalid take-and-break code".into()))
}

impl FromStr for HeapGame {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<HeapGame, ParseError> {
        HeapGame::parse(s)
    }
}

impl fmt::Display for HeapGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Ruleset for HeapGame {
    type Component = u64;

    fn options<F: FnMut(&[u64])>(&self, c: &u64, emit: F) {
        self.rules.heap_options(*c, emit)
    }

    fn known_grundy(&self, c: &u64) -> Option<Nimber> {
        let table = self.values.as_deref()?;
        table.get(usize::try_from(*c).ok()?).map(|&v| Nimber(v))
    }

    fn size_hint(&self, c: &u64) -> usize {
        *c as usize
    }
}

impl Game for HeapGame {
    type Position = Vec<u64>;
    type Move = HeapMove;

    fn parse_position(&self, text: &str) -> Result<Vec<u64>, ParseError> {
        parse_heaps(text, MAX_HEAP)
    }

    fn components(&self, p: &Vec<u64>) -> Vec<u64> {
        p.iter().copied().filter(|&h| h > 0).collect()
    }

    fn moves<F: FnMut(HeapMove, Vec<u64>)>(&self, p: &Vec<u64>, mut emit: F) {
        for (i, &h) in p.iter().enumerate() {
            if h == 0 {
                continue;
            }
            self.rules.heap_options(h, |to| {
                let next = replace_heap(p, i, to);
                emit(
                    HeapMove {
                        heap: i,
                        from: h,
                        to: to.to_vec(),
                    },
                    next,
                );
            });
        }
    }

    fn format_move(&self, m: &HeapMove) -> String {
        format_heap_move(m)
    }

    fn format_position(&self, p: &Vec<u64>) -> String {
        format_heaps(p)
    }
}

/// Heaps up to this size get a bulk table from [`FamilyOptions::heap_values`].
pub const HEAP_TABLE_MAX: u64 = 1 << 24;

/// Whether a name is meant as a heap game's code (it may still be a bad one).
fn looks_like_code(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_digit())
        || ["sub", "hex:", "grundy"].iter().any(|p| name.starts_with(p))
}

/// The heap games named by codes (`0.77`, `grundys-game`, `sub:1,3,4`), and the
/// `subtraction --set 1,3,4` family, as a family of the registry.
pub struct HeapFamily;

impl Family for HeapFamily {
    type Game = HeapGame;
    const DESCRIPTION: Description = Description {
        name: "heap game",
        aliases: &["subtraction", "sub"],
        notation: "a heap game by its code (0.77, 4.07, 0.F, 0.{0,1,4}, 4!.0, 0.[3], grundys-game, sub:1,3,4, sub-all-but:2,5): heaps '5 9 12'",
        example: "5 9 12",
        misere: true,
        engine: Engine::Memo,
        options: &[Opt::Set],
        table: Some(Table::HEAPS),
        dense: false,
        code: Some(looks_like_code),
        continues_as: None,
        presets: &[
            ("0.77", "Kayles (octal 0.77): heaps of pins, e.g. '5 9 12'"),
            ("0.07", "Dawson's Kayles (octal 0.07): heaps, e.g. '7 10'"),
            ("0.137", "Dawson's chess (octal 0.137): heaps, e.g. '8 13'"),
            ("0.6", "Officers (octal 0.6): heaps, e.g. '20 31'"),
            (
                "grundys-game",
                "Grundy's game: split a heap into two unequal heaps, e.g. '12 9'",
            ),
            ("sub:1,3,4", "subtraction game S(1,3,4): heaps, e.g. '10 11'"),
            (
                "0.{0,1,4}",
                "remove one token, leaving no heap, one heap or four heaps: e.g. '9 12'",
            ),
            (
                "0.[37]",
                "remove any number: an odd one leaves 0 or 1 heap, an even one up to 2: e.g. '9 12'",
            ),
        ],
        estimate_moves: crate::family::estimate_by_tokens,
        sample,
    };

    fn build(
        &self,
        name: &str,
        opts: &FamilyOptions,
        text: &str,
    ) -> Result<(HeapGame, Vec<u64>), RegistryError> {
        let code = match &opts.set {
            _ if !Self::DESCRIPTION.aliases.contains(&name) && opts.set.is_some() => {
                return Err(RegistryError::option(
                    Opt::Set,
                    "--set applies to the subtraction family (subtraction --set 1,3,4)",
                ))
            }
            Some(set) => format!("sub:{set}"),
            None if Self::DESCRIPTION.aliases.contains(&name) => {
                return Err(RegistryError::option(
                    Opt::Set,
                    "the subtraction family needs its set: --set 1,3,4 (or write sub:1,3,4)",
                ))
            }
            None => name.to_string(),
        };
        let game = HeapGame::parse(&code).map_err(|error| RegistryError::BadCode {
            code: code.clone(),
            error,
        })?;
        let heaps = game
            .parse_position(text)
            .map_err(|e| RegistryError::position(game.name(), e))?;
        let largest = heaps.iter().copied().max().unwrap_or(0);
        let game = match opts.heap_values {
            Some(bulk) if largest < HEAP_TABLE_MAX => match bulk(game.rules(), largest + 1) {
                Some(values) => game.with_values(values.into()),
                None => game,
            },
            _ => game,
        };
        Ok((game, heaps))
    }

    fn name(&self, game: &HeapGame) -> String {
        game.name().to_string()
    }

    fn board(&self, _: &HeapGame, p: &Vec<u64>) -> BoardView {
        BoardView::Heaps { heaps: p.clone() }
    }

    fn heaps(&self, game: &HeapGame, p: &Vec<u64>) -> Option<(HeapRules, Vec<u64>)> {
        Some((game.rules().clone(), p.clone()))
    }

    fn heap_notation(&self, _game: &HeapGame) -> Option<HeapNotation> {
        Some(HeapNotation {
            write_move: write_heap_move,
            write_position: write_heaps,
        })
    }
}


/// A few small heaps: one to three heaps below 12, at most 14 tokens in all.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let n = r.range(1, 3);
    let mut left = 14u64;
    let mut heaps = Vec::new();
    for _ in 0..n {
        let h = r.range(0, 11).min(left);
        left -= h;
        heaps.push(h.to_string());
    }
    Sample::text(heaps.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_solve::{analysis::Analyzer, brute, Convention};
    use proptest::prelude::*;

    fn err_col(s: &str) -> usize {
        HeapGame::parse(s).unwrap_err().span.column
    }

    #[test]
    fn names() {
        for (code, name) in [
            ("0.77", "0.77"),
            ("4.07", "4.07"),
            ("0.f", "0.F"),
            ("0.770", "0.77"),
            (".6", "0.6"),
            ("grundys-game", "grundys-game"),
            ("sub:4,1,3,3", "sub:1,3,4"),
            ("subtraction:1,3,4", "sub:1,3,4"),
            ("sub-all-but:5,2", "sub-all-but:2,5"),
            ("0.0", "0.0"),
            ("hex:0.8", "hex:0.8"),
            ("0.a8", "0.A8"),
            ("4!.0", "grundys-game"),
            ("grundy", "grundys-game"),
            ("0.[3]", "0.[3]"),
            ("0.3[33]", "0.[3]"),
            ("4.0[37]", "4.0[37]"),
            ("4.03[73]", "4.0[37]"),
            ("0.0[7]", "0.0[7]"),
            ("0.7[0]", "0.7"),
            ("0.{0,1,2}", "0.7"),
            ("0.{0,1,2,3}", "0.F"),
            ("0.{0,1,4}", "0.{0,1,4}"),
            ("0.{ 4 , 0 }7", "0.{0,4}7"),
            ("hex:0.{4}8", "hex:0.{4}8"),
            ("0.7!", "0.7!"),
            ("0.37!", "0.37!"),
            ("hex:8!.0", "hex:8!.0"),
            ("0.{}7", "0.07"),
            ("0.[{0,1,5}!]", "0.[{0,1,5}!]"),
        ] {
            assert_eq!(HeapGame::parse(code).unwrap().name(), name, "{code}");
        }
    }

    #[test]
    fn digits_of_codes() {
        let g = HeapGame::parse("4.07").unwrap();
        assert_eq!(
            g.rules(),
            &HeapRules::TakeBreak {
                digits: vec![4, 0, 7],
                unequal: vec![],
                repeat: 0,
            }
        );
        let g = HeapGame::parse("4!.0{0,1,5}!").unwrap();
        assert_eq!(
            g.rules(),
            &HeapRules::TakeBreak {
                digits: vec![4, 0, 35],
                unequal: vec![0, 2],
                repeat: 0,
            }
        );
        assert_eq!(g.rules().max_parts(), 5);
        let g = HeapGame::parse("0.[3]").unwrap();
        assert_eq!(g.rules().max_removal(), None);
        let g = HeapGame::parse("0.F").unwrap();
        assert_eq!(g.rules().max_parts(), 3);
    }

    #[test]
    fn bad_codes_name_columns() {
        assert_eq!(err_col("0.8"), 3);
        assert_eq!(err_col("0."), 3);
        assert_eq!(err_col("1.2.3"), 1);
        assert_eq!(err_col("0.2.3"), 4);
        assert_eq!(err_col(""), 1);
        assert_eq!(err_col("07"), 2);
        assert_eq!(err_col("sub:1,x"), 7);
        assert_eq!(err_col("sub:"), 5);
        assert_eq!(err_col("sub:1,0"), 7);
        assert_eq!(err_col("sub-all-but:1,,2"), 15);
        assert_eq!(err_col("kayles"), 1);
        assert!(HeapGame::parse("sub:99999999999999999999").is_err());
        // Multi-byte characters where a prefix would end: an error, not a panic.
        for text in ["a€€€€", "s€", "0.7€", "€", "sub:1,€", "hex€", "  ü.77"] {
            assert!(HeapGame::parse(text).is_err(), "{text}");
        }
        assert!(HeapGame::parse(&format!("0.{}", "7".repeat(5000))).is_err());
        // The notations of wider codes.
        assert_eq!(err_col("0.[3"), 5);
        assert_eq!(err_col("0.[]"), 4);
        assert_eq!(err_col("0.[3]7"), 6);
        assert_eq!(err_col("0.[3][7]"), 6);
        assert_eq!(err_col("0.3]"), 4);
        assert_eq!(err_col("[3].0"), 1);
        assert_eq!(err_col("0.!7"), 3);
        assert_eq!(err_col("0.3!"), 4);
        assert_eq!(err_col("0.7!!"), 5);
        assert_eq!(err_col("0.{0,32}"), 6);
        assert_eq!(err_col("0.{0,x}"), 6);
        assert_eq!(err_col("0.{0,1"), 3);
        assert_eq!(err_col("{0,1}.7"), 1);
        assert_eq!(err_col("{1}.7"), 1);
        assert_eq!(HeapGame::parse("{2}.7").unwrap().name(), "4.7");
        for text in ["0.{€}", "0.[€]", "0.{1,€,2}", "0.{99999999999999999999}", "0.{-1}"] {
            assert!(HeapGame::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn wider_codes_play() {
        // 4!.0 is Grundy's game; 0.[3] is Nim.
        assert_eq!(HeapGame::parse("4!.0").unwrap(), HeapGame::grundys_game());
        let nim = HeapGame::parse("0.[3]").unwrap();
        let mut an = Analyzer::new(&nim);
        let got: Vec<u64> = (0..20).map(|n| an.grundy(&vec![n]).unwrap().unwrap().0).collect();
        assert_eq!(got, (0..20).collect::<Vec<u64>>());
        let mut moves = Vec::new();
        let g = HeapGame::parse("0.{4}").unwrap();
        g.moves(&vec![6], |m, _| moves.push(g.format_move(&m)));
        assert_eq!(moves, vec!["1:6->1+1+1+2"]);
    }

    #[test]
    fn kayles_values() {
        let g = HeapGame::parse("0.77").unwrap();
        let mut an = Analyzer::new(&g);
        let got: Vec<u64> = (0..12).map(|n| an.grundy(&vec![n]).unwrap().unwrap().0).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
        let a = grundy_solve::analyze(&g, &vec![5, 9, 12], Convention::Normal).unwrap();
        assert_eq!(a.grundy, Some(Nimber(4))); // G(5) ^ G(9) ^ G(12) = 4 ^ 4 ^ 4
    }

    #[test]
    fn values_table_is_used_and_agrees() {
        let g = HeapGame::parse("0.77").unwrap();
        let table: Vec<u64> = grundy_solve::seq::naive::values(g.rules(), 200);
        let fast = g.clone().with_values(table.into());
        let mut a = Analyzer::new(&g);
        let mut b = Analyzer::new(&fast);
        for heaps in [vec![5, 9, 12], vec![70, 71], vec![199, 3, 3]] {
            assert_eq!(a.grundy(&heaps).unwrap(), b.grundy(&heaps).unwrap());
        }
        assert_eq!(fast, g);
    }

    #[test]
    fn split_move_notation() {
        let g = HeapGame::grundys_game();
        let mut moves = Vec::new();
        g.moves(&vec![2, 6], |m, _| moves.push(g.format_move(&m)));
        assert_eq!(moves, vec!["2:6->1+5", "2:6->2+4"]);
    }

    fn small_game() -> impl Strategy<Value = HeapGame> {
        prop_oneof![
            (
                prop_oneof![Just(0u32), Just(4u32)],
                proptest::collection::vec(0u32..8, 1..4)
            )
                .prop_map(|(d0, rest)| {
                    let mut d = vec![d0];
                    d.extend(rest);
                    HeapGame::take_break(d).unwrap()
                }),
            proptest::collection::vec(0u32..16, 1..3).prop_map(|rest| {
                let mut d = vec![0];
                d.extend(rest);
                HeapGame::take_break(d).unwrap()
            }),
            // Wider digits, unequal flags, repeating blocks.
            (
                0u32..64,
                proptest::collection::vec(0u32..64, 1..4),
                proptest::collection::vec(any::<bool>(), 0..5),
                0usize..3,
            )
                .prop_filter_map("a valid code", |(d0, rest, flags, repeat)| {
                    let mut d = vec![d0 & !3];
                    d.extend(rest);
                    let repeat = repeat.min(d.len() - 1);
                    HeapRules::take_break(&d, &flags, repeat).map(HeapGame::from_rules)
                }),
            Just(HeapGame::grundys_game()),
            proptest::collection::vec(1u64..6, 1..4).prop_map(HeapGame::subtraction),
            proptest::collection::vec(1u64..6, 0..3).prop_map(HeapGame::all_but),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// On random codes (take-and-break digits, subtraction sets): the brute-force harness
        /// (`crates/app/tests/brute_harness.rs`) runs the named presets only.
        #[test]
        fn matches_brute_force(
            game in small_game(),
            heaps in proptest::collection::vec(0u64..7, 0..3),
        ) {
            for conv in [Convention::Normal, Convention::Misere] {
                let mut an = Analyzer::new(&game);
                let a = an.analyze(&heaps, conv).unwrap();
                prop_assert_eq!(a.outcome, brute::outcome(&game, &heaps, conv));
                let mut w: Vec<String> = a.winning_moves.iter().map(format_heap_move).collect();
                w.sort();
                prop_assert_eq!(w, brute::winning_moves(&game, &heaps, conv));
                if conv == Convention::Normal {
                    prop_assert_eq!(a.grundy, Some(brute::grundy(&game, &heaps)));
                }
            }
        }

        #[test]
        fn any_text_parses_or_errs(text in "\\PC{0,24}") {
            let _ = HeapGame::parse(&text);
        }

        #[test]
        fn code_like_text_parses_or_errs(text in "(hex:)?[0-9A-Fa-f]?!?\\.[0-9A-F!{},\\[\\] ]{0,16}") {
            if let Ok(g) = HeapGame::parse(&text) {
                prop_assert_eq!(HeapGame::parse(g.name()).unwrap(), g);
            }
        }

        #[test]
        fn names_parse_back(game in small_game()) {
            let again = HeapGame::parse(game.name()).unwrap();
            prop_assert_eq!(again, game);
        }
    }
}
