//! The values a script's positions are made of, on the Rust side, and the default notation
//! of each position type.

use grundy_core::ParseError;
use std::fmt;
use std::sync::Arc;

/// A component (or a whole position) of a script game: an integer, a string, or a list of
/// values (a tuple, a set, a grid's rows, a sum of components).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A string.
    Str(Arc<str>),
    /// A list of values.
    List(Arc<[Value]>),
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::List(items) => f.debug_list().entries(items.iter()).finish(),
        }
    }
}

impl fmt::Display for Value {
    /// Lua's way of writing it: `5`, `"x"`, `{1, 2}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Str(s) => write!(f, "\"{}\"", shorten(s)),
            Value::List(items) => {
                f.write_str("{")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if i == 8 {
                        return write!(f, "... ({} items)}}", items.len());
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// At most 40 characters of `s`, with `...` when cut.
pub fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

impl Value {
    /// A list of these values.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(items.into())
    }

    /// The integer, if it is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The items, if it is a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The type of a script's components, as its global `position` declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number (a heap).
    Integer,
    /// A list of numbers (`{w, h}`).
    Tuple,
    /// A string (a strip).
    String,
    /// A list of strings, the rows of a grid.
    Grid,
    /// A sorted list of distinct numbers.
    Set,
}

impl Kind {
    /// Every kind, in the order errors list them.
    pub const ALL: [Kind; 5] = [Kind::Integer, Kind::Tuple, Kind::String, Kind::Grid, Kind::Set];

    /// The name a script declares it by.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Integer => "integer",
            Kind::Tuple => "tuple",
            Kind::String => "string",
            Kind::Grid => "grid",
            Kind::Set => "set",
        }
    }

    /// The kind a script names.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether `v` is a component of this kind; a set must be sorted without repeats.
    pub fn fits(self, v: &Value) -> bool {
        match (self, v) {
            (Kind::Integer, Value::Int(_)) | (Kind::String, Value::Str(_)) => true,
            (Kind::Tuple, Value::List(items)) => items.iter().all(|x| x.as_int().is_some()),
            (Kind::Set, Value::List(items)) => {
                items.iter().all(|x| x.as_int().is_some()) && items.windows(2).all(|w| w[0] < w[1])
            }
            (Kind::Grid, Value::List(items)) => items.iter().all(|x| x.as_str().is_some()),
            _ => false,
        }
    }

    /// What a component of this kind is, for errors.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Integer => "an integer",
            Kind::Tuple => "a tuple (a list of integers)",
            Kind::String => "a string",
            Kind::Grid => "a grid (a list of strings)",
            Kind::Set => "a set (a sorted list of distinct integers)",
        }
    }
}

/// The largest number the default notation reads (2^53, exact in Lua's floats too).
pub const MAX_NUMBER: i64 = 1 << 53;

/// Reads `text` in the default notation of `kind` as a sum of components (see
/// docs/scripts.md): integers separated by spaces; tuples and sets as numbers separated by
/// spaces or commas, several joined by `+`; strings separated by spaces; grids as rows joined
/// by `/` (or new lines), several joined by `+`; `-` alone is the empty sum.
pub fn parse_default(kind: Kind, text: &str) -> Result<Vec<Value>, ParseError> {
    if text.trim() == "-" {
        return Ok(Vec::new());
    }
    let words = words(text);
    let Some(first) = words.first() else {
        return Err(ParseError::new(1, 1, "empty position"));
    };
    let number = |(line, col, w): (usize, usize, &str)| -> Result<Value, ParseError> {
        let n: i64 = w.parse().map_err(|_| {
            ParseError::new(line, col, format!("expected a number, found '{}'", shorten(w)))
        })?;
        if !(-MAX_NUMBER..=MAX_NUMBER).contains(&n) {
            return Err(ParseError::new(line, col, format!("number too large: {}", shorten(w))));
        }
        Ok(Value::Int(n))
    };
    match kind {
        Kind::Integer => words.into_iter().map(number).collect(),
        Kind::String => Ok(words.into_iter().map(|(_, _, w)| Value::Str(w.into())).collect()),
        Kind::Tuple | Kind::Set => {
            let mut out = Vec::new();
            let mut current = Vec::new();
            let mut last = (first.0, first.1);
            for (line, col, w) in words.into_iter().chain(std::iter::once((0, 0, "+"))) {
                if w == "+" {
                    if current.is_empty() {
                        let (l, c) = if line == 0 { last } else { (line, col) };
                        return Err(ParseError::new(l, c, "expected a number before '+'"));
                    }
                    if kind == Kind::Set {
                        current.sort();
                        current.dedup();
                    }
                    out.push(Value::list(std::mem::take(&mut current)));
                } else {
                    last = (line, col);
                    current.push(number((line, col, w))?);
                }
            }
            Ok(out)
        }
        Kind::Grid => {
            let mut out = Vec::new();
            let mut rows: Vec<Value> = Vec::new();
            for (line, col, w) in words.into_iter().chain(std::iter::once((0, 0, "+"))) {
                if w == "+" {
                    if rows.is_empty() {
                        return Err(ParseError::new(line.max(1), col.max(1), "expected a row before '+'"));
                    }
                    out.push(Value::list(std::mem::take(&mut rows)));
                } else {
                    rows.extend(w.split('/').filter(|r| !r.is_empty()).map(|r| Value::Str(r.into())));
                }
            }
            Ok(out)
        }
    }
}

/// The words of `text` (split at white space and commas, with `+` a word of its own), with
/// their line and column (1-based).
fn words(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    for (li, line) in text.lines().enumerate() {
        let mut start: Option<(usize, usize)> = None;
        let mut col = 0;
        for (byte, ch) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
            col += 1;
            let sep = ch.is_whitespace() || ch == ',' || ch == '+';
            if sep {
                if let Some((b, c)) = start.take() {
                    out.push((li + 1, c, &line[b..byte]));
                }
                if ch == '+' {
                    out.push((li + 1, col, &line[byte..byte + 1]));
                }
            } else if start.is_none() {
                start = Some((byte, col));
            }
        }
    }
    out
}

/// Writes a sum of components in the default notation of `kind` (what [`parse_default`]
/// reads back).
pub fn format_default(kind: Kind, sum: &[Value]) -> String {
    if sum.is_empty() {
        return if kind == Kind::Integer { "0".into() } else { "-".into() };
    }
    let one = |v: &Value| -> String {
        match v {
            Value::Int(n) => n.to_string(),
            Value::Str(s) => s.to_string(),
            Value::List(items) => {
                let sep = if kind == Kind::Grid { "/" } else { " " };
                items.iter().map(|x| format_default(kind, std::slice::from_ref(x))).collect::<Vec<_>>().join(sep)
            }
        }
    };
    let sep = match kind {
        Kind::Integer | Kind::String => " ",
        _ => " + ",
    };
    sum.iter().map(one).collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_notation_reads_back() {
        for (kind, text, shown) in [
            (Kind::Integer, "5 9  12", "5 9 12"),
            (Kind::Integer, "0", "0"),
            (Kind::Tuple, "3 4 + 2,5", "3 4 + 2 5"),
            (Kind::Set, "4 1 3 1", "1 3 4"),
            (Kind::String, "..X.. X..", "..X.. X.."),
            (Kind::Grid, "ab/cd + e", "ab/cd + e"),
            (Kind::Grid, "ab\ncd", "ab/cd"),
            (Kind::Tuple, "-", "-"),
        ] {
            let sum = parse_default(kind, text).unwrap();
            assert_eq!(format_default(kind, &sum), shown, "{text}");
            assert_eq!(parse_default(kind, shown).unwrap(), sum);
        }
        let e = parse_default(Kind::Integer, "3 x").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 3));
        let e = parse_default(Kind::Tuple, "3 + + 4").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 5));
        assert!(parse_default(Kind::Integer, "99999999999999999999").is_err());
        assert!(parse_default(Kind::Grid, " ").is_err());
        assert!(Kind::Set.fits(&Value::list(vec![Value::Int(1), Value::Int(2)])));
        assert!(!Kind::Set.fits(&Value::list(vec![Value::Int(2), Value::Int(2)])));
    }
}
