//! Reading the user's inputs (position files, `@FILE`, stdin, graph files, judge input,
//! moves typed in `play`) with a size limit: an endless or huge input (`@/dev/zero`) is
//! refused once it passes the limit, never buffered whole.

use crate::error::{usage, CliError};
use std::io::{BufRead, Read};
use std::path::Path;

/// Most bytes an input may have: 64 MiB (a position, a graph or a judge's input).
pub const MAX_INPUT: u64 = 64 << 20;

/// Most bytes of one line typed in `play`.
pub const MAX_LINE: u64 = 64 << 10;

/// Reads all of `r` as UTF-8 text of at most `limit` bytes; `what` names the input in
/// errors (exit 2: too large, not UTF-8 with the line and column, unreadable).
pub fn read_text(r: impl Read, limit: u64, what: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    r.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| usage(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(usage(format!(
            "{what} is larger than the limit of {} an input may have",
            grundy_core::memory::human_bytes(limit)
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = String::from_utf8_lossy(good.rsplit(|&b| b == b'\n').next().unwrap_or(&[]))
            .chars()
            .count()
            + 1;
        usage(format!("{what}, line {line}, column {col}: not valid UTF-8 text"))
    })
}

/// Reads the file at `path` as text of at most [`MAX_INPUT`] bytes (`what`: e.g. "position
/// file"). A folder is refused by name.
pub fn read_file(path: &Path, what: &str) -> Result<String, CliError> {
    let name = format!("{what} {}", path.display());
    if path.is_dir() {
        return Err(usage(format!("cannot read {name}: it is a folder")));
    }
    let f = std::fs::File::open(path).map_err(|e| usage(format!("cannot read {name}: {e}")))?;
    read_text(f, MAX_INPUT, &name)
}

/// Reads one line of at most [`MAX_LINE`] bytes into `line` (cleared first); 0 at the end of
/// the input. A longer line, or one that is not UTF-8, is refused (exit 2).
pub fn read_line(input: &mut (impl BufRead + ?Sized), line: &mut String) -> Result<usize, CliError> {
    line.clear();
    let mut bytes = Vec::new();
    let n = Read::take(&mut *input, MAX_LINE + 1).read_until(b'\n', &mut bytes)?;
    if n as u64 > MAX_LINE {
        return Err(usage(format!(
            "a line of input is longer than the limit of {}",
            grundy_core::memory::human_bytes(MAX_LINE)
        )));
    }
    *line = String::from_utf8(bytes).map_err(|_| usage("a move must be UTF-8 text"))?;
    Ok(n)
}

/// The heap code a heap command (`grundy seq`, `grundy quotient`, named `command`) runs: its
/// game argument, or the code a `--game` spec reads as (a file of another kind, or both a
/// code and a file, is a usage error).
pub fn heap_game_code(game: &str, file: Option<&Path>, command: &str) -> Result<String, CliError> {
    let Some(path) = file else {
        return Ok(game.to_string());
    };
    if !game.is_empty() {
        return Err(CliError::Usage(format!(
            "give the game either as a code ('{}') or with --game FILE, not both",
            grundy_core::parse::shorten(game)
        )));
    }
    let text = read_file(path, "game file")?;
    let source = path.display().to_string();
    let spec = grundy_app::gamefile::load(&source, &text).map_err(|e| CliError::Usage(e.message))?;
    use grundy_games::gamefile::FileKind;
    if !matches!(spec.kind(), FileKind::TakeAndBreak | FileKind::Subtraction) {
        return Err(CliError::Usage(format!(
            "{source}: a game of kind '{}' is not a heap game; {command} computes heap games (kind = \"take-and-break\" or \"subtraction\")",
            spec.kind().as_str()
        )));
    }
    let (code, _) = spec
        .resolve(&grundy_games::family::FamilyOptions::default())
        .map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_errors() {
        assert_eq!(read_text(&b"3 5 7"[..], 10, "x").unwrap(), "3 5 7");
        let e = read_text(std::io::repeat(0), 1000, "the input").unwrap_err();
        assert!(e.to_string().contains("larger than the limit of 1000 B"), "{e}");
        let e = read_text(&b"ok\nab\xff"[..], 100, "the input").unwrap_err();
        assert!(e.to_string().contains("line 2, column 3"), "{e}");
        let mut line = String::new();
        let mut input = &b"1:3\nq\n"[..];
        assert_eq!(read_line(&mut input, &mut line).unwrap(), 4);
        assert_eq!(line, "1:3\n");
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x'));
        assert!(read_line(&mut endless, &mut line).is_err());
        let e = read_file(Path::new("/"), "position file").unwrap_err();
        assert!(e.to_string().contains("it is a folder"), "{e}");
    }
}
