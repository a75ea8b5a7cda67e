//! Nim: heaps of tokens; a move takes any positive number of tokens from one heap.
//!
//! Notation: heap sizes separated by spaces or commas (`3 5 7`); the position with no token
//! left is written `0` (an empty text is refused: it is more likely a mistake than a
//! position). A move `I:N->M` takes heap number I (from 1) from N tokens down to M.

use crate::family::{Sample, Seeded};
use crate::family::{BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Table};
use grundy_core::{tokens, Game, Nimber, ParseError, Ruleset};

/// Largest heap accepted in a position.
pub const MAX_HEAP: u64 = 1 << 48;

/// The rules of Nim. A component is a non-empty heap.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nim;

/// A move of a heap game: heap `heap` (0-based) goes from `from` tokens to the heaps `to`
/// (empty when the heap disappears).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapMove {
    /// Index of the heap in the position, from 0.
    pub heap: usize,
    /// Its size before the move.
    pub from: u64,
    /// The heaps it becomes (no zero heaps).
    pub to: Vec<u64>,
}

/// `I:N->M` (or `I:N->A+B` for a split, `I:N->0` when the heap disappears).
pub fn format_heap_move(m: &HeapMove) -> String {
    let mut out = String::new();
    write_heap_move(&mut out, m.heap, m.from, &m.to);
    out
}

/// Appends [`format_heap_move`] of the move that turns heap `heap` (from 0) of `from` tokens
/// into the heaps `to`, without building the move (for the texts of millions of moves).
pub fn write_heap_move(out: &mut String, heap: usize, from: u64, to: &[u64]) {
    out.reserve(24 + 8 * to.len());
    write_number(out, heap as u64 + 1);
    out.push(':');
    write_number(out, from);
    out.push_str("->");
    write_joined(out, to, '+');
}

/// Appends the numbers of `v` separated by `sep`, or `0` when there is none.
fn write_joined(out: &mut String, v: &[u64], sep: char) {
    if v.is_empty() {
        out.push('0');
        return;
    }
    for (i, &h) in v.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        write_number(out, h);
    }
}

/// Appends `n` in decimal (as `n.to_string()` writes it, without the formatting machinery:
/// millions of moves are written at a time).
fn write_number(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    // ASCII digits: always UTF-8.
    out.push_str(std::str::from_utf8(grundy_core::decimal(n, &mut digits)).unwrap_or("?"));
}

/// Reads heap sizes separated by whitespace or commas; at least one (the position with no
/// token is `0`: an empty text is refused).
pub fn parse_heaps(text: &str, max: u64) -> Result<Vec<u64>, ParseError> {
    let words = tokens(text);
    if words.is_empty() {
        return Err(ParseError::new(
            1,
            1,
            "empty position: give heap sizes, e.g. 3 5 7 (the position with no token left is 0)",
        ));
    }
    words.iter().map(|t| t.number("heap size", max)).collect()
}

/// Heaps written back as `3 5 7`; no heap at all (every token taken) as `0`, never as an
/// empty text.
pub fn format_heaps(heaps: &[u64]) -> String {
    let mut out = String::new();
    write_heaps(&mut out, heaps);
    out
}

/// Appends [`format_heaps`] of `heaps`.
pub fn write_heaps(out: &mut String, heaps: &[u64]) {
    out.reserve(8 * heaps.len().max(1));
    write_joined(out, heaps, ' ');
}

/// The position after heap `i` of `heaps` becomes the heaps `to`.
pub fn replace_heap(heaps: &[u64], i: usize, to: &[u64]) -> Vec<u64> {
    let mut next = heaps.to_vec();
    next.splice(i..=i, to.iter().copied());
    next
}

impl Ruleset for Nim {
    type Component = u64;

    fn options<F: FnMut(&[u64])>(&self, c: &u64, mut emit: F) {
        emit(&[]);
        for k in 1..*c {
            emit(&[k]);
        }
    }

    fn known_grundy(&self, c: &u64) -> Option<Nimber> {
        Some(Nimber(*c))
    }

    fn size_hint(&self, c: &u64) -> usize {
        *c as usize
    }
}

impl Game for Nim {
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
            for k in (0..h).rev() {
                let to = if k == 0 { vec![] } else { vec![k] };
                let next = replace_heap(p, i, &to);
                emit(HeapMove { heap: i, from: h, to }, next);
            }
        }
    }

    fn format_move(&self, m: &HeapMove) -> String {
        format_heap_move(m)
    }

    fn format_position(&self, p: &Vec<u64>) -> String {
        format_heaps(p)
    }
}

/// Nim as a family of the registry.
pub struct NimFamily;

impl Family for NimFamily {
    type Game = Nim;
    const DESCRIPTION: Description = Description {
        name: "nim",
        aliases: &[],
        notation: "heaps of tokens: '3 5 7'",
        example: "3 5 7",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: Some(Table::HEAPS),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        // A move per token.
        estimate_moves: |text| crate::family::integers(text).fold(0u64, |a, n| a.saturating_add(n)),
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Nim, Vec<u64>), RegistryError> {
        let p = Nim
            .parse_position(text)
            .map_err(|e| RegistryError::position("nim", e))?;
        Ok((Nim, p))
    }

    fn board(&self, _: &Nim, p: &Vec<u64>) -> BoardView {
        BoardView::Heaps { heaps: p.clone() }
    }
}

/// A small Nim position: up to three heaps below 5 (none: the empty position).
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let n = r.range(0, 3);
    // No heap at all is the position `0`.
    Sample::text(format_heaps(&(0..n).map(|_| r.range(0, 4)).collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_solve::Convention;

    #[test]
    fn winning_moves_of_3_5_7() {
        let a = grundy_solve::analyze(&Nim, &vec![3, 5, 7], Convention::Normal).unwrap();
        assert_eq!(a.grundy, Some(Nimber(1)));
        let moves: Vec<String> = a.winning_moves.iter().map(format_heap_move).collect();
        assert_eq!(moves, vec!["1:3->2", "2:5->4", "3:7->6"]);
    }

    #[test]
    fn parse_errors_name_column() {
        let e = Nim.parse_position("3 x 5").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 3));
    }

    #[test]
    fn texts_are_written_as_to_string_writes_numbers() {
        for n in [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, MAX_HEAP, u64::MAX] {
            let mut s = String::new();
            write_number(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        let m = HeapMove {
            heap: 9,
            from: 1_000_000,
            to: vec![3, 999_995],
        };
        assert_eq!(format_heap_move(&m), "10:1000000->3+999995");
        let gone = HeapMove {
            heap: 0,
            from: 1,
            to: vec![],
        };
        assert_eq!(format_heap_move(&gone), "1:1->0");
        assert_eq!(format_heaps(&[]), "0");
        assert_eq!(format_heaps(&[10, 0, 7]), "10 0 7");
    }
}
