//! Parse errors that say where: every parser in grundy reports the line and column
//! (1-based, in characters) of what it could not read.

use std::fmt;

/// A place in a text input: 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Span {
    /// The place `line:column`.
    pub fn new(line: usize, column: usize) -> Span {
        Span { line, column }
    }
}

/// An input that could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// Where the problem is.
    pub span: Span,
    /// What is wrong, in a few words.
    pub message: String,
}

impl ParseError {
    /// An error at `line:column`.
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            span: Span::new(line, column),
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.span.line, self.span.column, self.message
        )
    }
}

/// A whitespace-separated word of an input and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The word.
    pub text: &'a str,
    /// Where its first character is.
    pub span: Span,
}

impl<'a> Token<'a> {
    /// The token as a non-negative integer no larger than `max`, or an error naming
    /// `what` and the token's place.
    pub fn number(&self, what: &str, max: u64) -> Result<u64, ParseError> {
        let (line, column) = (self.span.line, self.span.column);
        if self.text.starts_with('-') {
            return Err(ParseError::new(
                line,
                column,
                format!("{what} must not be negative, found '{}'", shorten(self.text)),
            ));
        }
        if self.text.is_empty() || !self.text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError::new(
                line,
                column,
                format!("{what} must be a whole number, found '{}'", shorten(self.text)),
            ));
        }
        match self.text.parse::<u64>() {
            Ok(v) if v <= max => Ok(v),
            _ => Err(ParseError::new(
                line,
                column,
                format!(
                    "{what} is too large (at most {max}), found '{}'",
                    shorten(self.text)
                ),
            )),
        }
    }
}

/// At most 20 characters of `s`, for error messages about huge inputs.
pub fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(20).collect();
    if s.chars().nth(20).is_some() {
        out.push('…');
    }
    out
}

/// The whitespace-separated words of `text` with their places (commas count as spaces, so
/// `3,5,7` and `3 5 7` read alike).
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for (li, line) in text.lines().enumerate() {
        let mut start: Option<(usize, usize)> = None; // (byte offset, column)
        let mut col = 0;
        for (bi, ch) in line.char_indices() {
            col += 1;
            let sep = ch.is_whitespace() || ch == ',';
            match (sep, start) {
                (false, None) => start = Some((bi, col)),
                (true, Some((b0, c0))) => {
                    out.push(Token {
                        text: &line[b0..bi],
                        span: Span::new(li + 1, c0),
                    });
                    start = None;
                }
                _ => {}
            }
        }
        if let Some((b0, c0)) = start {
            out.push(Token {
                text: &line[b0..],
                span: Span::new(li + 1, c0),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_places() {
        let t = tokens("3 5,7\n  12");
        let got: Vec<(&str, usize, usize)> = t.iter().map(|t| (t.text, t.span.line, t.span.column)).collect();
        assert_eq!(got, vec![("3", 1, 1), ("5", 1, 3), ("7", 1, 5), ("12", 2, 3)]);
    }

    #[test]
    fn numbers() {
        let t = tokens("12 -3 x1 99999999999999999999999");
        assert_eq!(t[0].number("heap", 100).unwrap(), 12);
        assert!(t[1].number("heap", 100).unwrap_err().message.contains("negative"));
        assert!(t[2]
            .number("heap", 100)
            .unwrap_err()
            .to_string()
            .starts_with("line 1, column 7"));
        assert!(t[3]
            .number("heap", u64::MAX)
            .unwrap_err()
            .message
            .contains("too large"));
        assert!(t[0].number("heap", 10).is_err());
    }
}
