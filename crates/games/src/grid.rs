//! Reading and writing rectangular boards of single-character cells, shared by the board
//! families. Rows are separated by newlines or by `/` (so a board fits in one argument:
//! `RL/LR`); every row must have the same length.

use grundy_core::ParseError;

/// Largest number of cells accepted in a board.
pub const MAX_CELLS: usize = 1 << 24;

/// A board read from text: `rows × cols` cells, row-major, each one of the allowed bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// The cells, row by row.
    pub cells: Vec<u8>,
}

impl Grid {
    /// The cell at row `r`, column `c` (0-based).
    pub fn get(&self, r: usize, c: usize) -> u8 {
        self.cells[r * self.cols + c]
    }

    /// Writes the board back, rows separated by `/`.
    pub fn format(&self) -> String {
        let mut s = String::with_capacity(self.cells.len() + self.rows);
        for r in 0..self.rows {
            if r > 0 {
                s.push('/');
            }
            s.extend(
                self.cells[r * self.cols..(r + 1) * self.cols]
                    .iter()
                    .map(|&b| b as char),
            );
        }
        s
    }
}

/// Reads a board whose cells are characters of `allowed` (`what` names the family in
/// errors). Leading and trailing blank lines and spaces around rows are ignored.
pub fn parse_grid(text: &str, allowed: &str, what: &str) -> Result<Grid, ParseError> {
    let mut rows: Vec<(usize, usize, &str)> = Vec::new(); // (line, column of first char, row text)
    for (li, line) in text.lines().enumerate() {
        let mut col = 1;
        for piece in line.split('/') {
            let lead = piece.chars().take_while(|c| c.is_whitespace()).count();
            let trimmed = piece.trim();
            if !trimmed.is_empty() || line.contains('/') {
                rows.push((li + 1, col + lead, trimmed));
            }
            col += piece.chars().count() + 1;
        }
    }
    while rows.last().is_some_and(|r| r.2.is_empty()) {
        rows.pop();
    }
    let Some(&(l0, c0, first)) = rows.first() else {
        return Err(ParseError::new(
            1,
            1,
            format!("empty {what} board: give rows of {}", describe(allowed)),
        ));
    };
    let cols = first.chars().count();
    if cols == 0 {
        return Err(ParseError::new(l0, c0, "empty row"));
    }
    let mut cells = Vec::new();
    for &(line, col0, row) in &rows {
        let mut n = 0;
        for (k, ch) in row.chars().enumerate() {
            if !allowed.contains(ch) || ch == '/' {
                return Err(ParseError::new(
                    line,
                    col0 + k,
                    format!(
                        "unknown cell '{}' in a {what} board (expected {})",
                        ch.escape_default(),
                        describe(allowed)
                    ),
                ));
            }
            if k >= cols {
                return Err(ParseError::new(
                    line,
                    col0 + k,
                    format!("row is longer than the first row ({cols} cells)"),
                ));
            }
            cells.push(ch as u8);
            n += 1;
        }
        if n != cols {
            return Err(ParseError::new(
                line,
                col0 + n,
                format!("row has {n} cells, the first row has {cols}"),
            ));
        }
        if cells.len() > MAX_CELLS {
            return Err(ParseError::new(
                line,
                col0,
                format!("board too large (more than {MAX_CELLS} cells)"),
            ));
        }
    }
    Ok(Grid {
        rows: rows.len(),
        cols,
        cells,
    })
}

fn describe(allowed: &str) -> String {
    allowed
        .chars()
        .map(|c| format!("'{c}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slash_and_newlines() {
        let a = parse_grid("RL/LR", "LRX", "t").unwrap();
        let b = parse_grid("RL\nLR\n", "LRX", "t").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.format(), "RL/LR");
    }

    #[test]
    fn errors_have_places() {
        let e = parse_grid("RL\nLQ", "LRX", "t").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (2, 2));
        let e = parse_grid("RL/LRL", "LRX", "t").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 6));
        let e = parse_grid("RLR\nLR", "LRX", "t").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (2, 3));
        assert!(parse_grid("  \n", "LRX", "t").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = parse_grid(&s, "LRX.", "t");
        }
    }
}
