//! `grundy judge PROBLEM`: the classic contest problems, input on stdin, the judge's exact
//! output on stdout. The whole input is read and checked before any answer is printed, so a
//! malformed input never yields a partial answer.

use crate::error::{usage, CliError};
use grundy_core::{tokens, Game, Nimber, Outcome, Token};
use grundy_games::{
    bombs::{self, BombTable},
    crosses::{self, Crosses},
    cutting::{self, CuttingTable},
    darkraft,
    graph::Graph,
    graph_game::{GraphGame, Rule},
};
use grundy_solve::{analysis::Analyzer, Convention};
use std::fmt::Write as _;
use std::io::Write;

/// The problems `judge` answers.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Codeforces 138D World of Darkraft: `n m` + n rows of `L`/`R`/`X` → WIN / LOSE.
    Darkraft,
    /// HDU 2873 Bomb Game: cases `n m` + n rows of `.`/`#`, ended by `0 0` → John / Jack.
    Bomb,
    /// NEFU 1356 12-point board (misère): T, then T strings of 12 `0`/`1` → one line of 0/1.
    Maoershan,
    /// POJ 2311 Cutting Game: lines `W H` until end of input → WIN / LOSE.
    Cutting,
    /// POJ 3537 Crosses and Crosses: n → 1 (first player wins) or 2.
    Crosses,
}

/// Arguments of `grundy judge`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  printf '3\\n110000000000\\n100000000000\\n110000000011\\n' | grundy judge maoershan"
)]
pub struct JudgeArgs {
    /// The problem whose input arrives on stdin.
    #[arg(value_enum)]
    pub problem: Problem,
    /// Answer with the game defined in FILE (a spec or a script reading the built-in
    /// family's notation: see examples/games/) instead of the built-in family.
    #[arg(long, value_name = "FILE")]
    pub game: Option<std::path::PathBuf>,
}

/// Where a judge input went wrong: a usage error naming line and column.
fn at(line: usize, column: usize, msg: impl std::fmt::Display) -> CliError {
    usage(format!("input line {line}, column {column}: {msg}"))
}

fn token_error(e: grundy_core::ParseError) -> CliError {
    at(e.span.line, e.span.column, e.message)
}

/// Reads all of stdin as text (at most [`crate::input::MAX_INPUT`] bytes); invalid UTF-8 is
/// reported with its place.
fn read_stdin() -> Result<String, CliError> {
    crate::input::read_text(std::io::stdin(), crate::input::MAX_INPUT, "the input")
}

/// The input's lines, read one at a time, blank lines skipped.
struct Lines<'a> {
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines {
            lines: text.lines().collect(),
            next: 0,
        }
    }

    /// The next non-blank line and its 1-based number.
    fn next_line(&mut self) -> Option<(usize, &'a str)> {
        while self.next < self.lines.len() {
            let l = self.lines[self.next];
            self.next += 1;
            if !l.trim().is_empty() {
                return Some((self.next, l.trim_end()));
            }
        }
        None
    }

    /// The number of the line after the last one (for "input ended" errors).
    fn end(&self) -> usize {
        self.lines.len() + 1
    }

    /// The next non-blank line as exactly `names.len()` numbers in `range`.
    fn numbers(
        &mut self,
        names: &[&str],
        min: u64,
        max: u64,
        ended: &str,
    ) -> Result<(usize, Vec<u64>), CliError> {
        let Some((line, text)) = self.next_line() else {
            return Err(at(self.end(), 1, format!("input ended: expected {ended}")));
        };
        let toks: Vec<Token> = tokens(text)
            .into_iter()
            .map(|mut t| {
                t.span.line = line;
                t
            })
            .collect();
        if toks.len() != names.len() {
            let col = toks
                .get(names.len())
                .map(|t| t.span.column)
                .unwrap_or(text.chars().count() + 1);
            return Err(at(
                line,
                col,
                format!("expected {} number(s): {}", names.len(), names.join(" ")),
            ));
        }
        let mut out = Vec::new();
        for (t, name) in toks.iter().zip(names) {
            let v = t.number(name, max).map_err(token_error)?;
            if v < min {
                return Err(at(
                    line,
                    t.span.column,
                    format!("{name} must be at least {min}, found {v}"),
                ));
            }
            out.push(v);
        }
        Ok((line, out))
    }

    /// `n` rows of exactly `m` characters from `allowed`.
    fn rows(&mut self, n: usize, m: usize, allowed: &str) -> Result<Vec<&'a str>, CliError> {
        let mut rows = Vec::with_capacity(n);
        for k in 0..n {
            let Some((line, row)) = self.next_line() else {
                return Err(at(self.end(), 1, format!("input ended after {k} of {n} rows")));
            };
            let row = row.trim_start_matches([' ', '\t']);
            let lead = self.lines[line - 1].chars().count()
                - self.lines[line - 1]
                    .trim_start_matches([' ', '\t'])
                    .chars()
                    .count();
            let mut len = 0;
            for (i, ch) in row.chars().enumerate() {
                if !allowed.contains(ch) {
                    let shown = ch.escape_default();
                    return Err(at(
                        line,
                        lead + i + 1,
                        format!("unknown cell '{shown}' (expected one of {allowed})"),
                    ));
                }
                if i >= m {
                    return Err(at(line, lead + i + 1, format!("row is longer than {m} cells")));
                }
                len += 1;
            }
            if len != m {
                return Err(at(
                    line,
                    lead + len + 1,
                    format!("row has {len} cells, expected {m}"),
                ));
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// Fails if anything but blank lines is left.
    fn finish(&mut self, what: &str) -> Result<(), CliError> {
        match self.next_line() {
            None => Ok(()),
            Some((line, _)) => Err(at(line, 1, format!("unexpected text after {what}"))),
        }
    }
}

/// Runs `grundy judge`.
pub fn run(args: JudgeArgs) -> Result<(), CliError> {
    let text = read_stdin()?;
    if text.trim().is_empty() {
        return Err(at(1, 1, "empty input"));
    }
    let out = match &args.game {
        None => answer(args.problem, &text)?,
        Some(path) => {
            let source = path.display().to_string();
            let file_text = crate::input::read_file(path, "game file")?;
            let file = grundy_app::gamefile::load(&source, &file_text).map_err(crate::solve::app_error)?;
            answer_with(args.problem, &text, Some(file))?
        }
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// The judge's output for `text`, or the first thing wrong with it.
pub fn answer(problem: Problem, text: &str) -> Result<String, CliError> {
    answer_with(problem, text, None)
}

/// The most moves (by the family's estimate) a judge position of a game file may have: the
/// judges' inputs are small, and a file that reads them as something huge (a 12-point string
/// as a heap of 10^11 tokens) is refused before it is solved.
const MAX_GAME_MOVES: u64 = 100_000_000;

/// Who wins each position (in the built-in family's notation) of a game file, under
/// `convention`, by one engine on one game: true when the first player wins.
fn first_wins(
    file: &std::sync::Arc<grundy_games::gamefile::GameFile>,
    texts: &[String],
    convention: Convention,
) -> Result<Vec<bool>, CliError> {
    struct Outcomes<'a>(&'a [String], Convention);
    impl grundy_games::registry::WithGame for Outcomes<'_> {
        type Output = Vec<bool>;
        type Error = grundy_app::solve::AppError;
        fn run<F: grundy_games::family::Family>(
            self,
            _: &F,
            game: &F::Game,
            _: <F::Game as Game>::Position,
            info: &grundy_games::registry::FamilyInfo,
        ) -> Result<Vec<bool>, Self::Error> {
            grundy_app::solve::convention_of(info, self.1 == Convention::Misere)?;
            let limits = grundy_app::solve::Limits::local(usize::MAX);
            let stop = grundy_app::cancel::Stop::new(&limits);
            let bounded = grundy_app::cancel::Bounded { game, stop: &stop };
            let mut an = Analyzer::new(&bounded);
            let mut out = Vec::with_capacity(self.0.len());
            for (i, text) in self.0.iter().enumerate() {
                let est = (info.description.estimate_moves)(text);
                if est > MAX_GAME_MOVES {
                    return Err(grundy_app::solve::AppError::new(
                        grundy_app::solve::ErrorKind::Limit,
                        format!("case {}: position too large for the game file: about {est} moves, more than the limit of {MAX_GAME_MOVES}", i + 1),
                    ));
                }
                let p = game.parse_position(text).map_err(|e| {
                    grundy_app::solve::AppError::bad(format!(
                        "case {}: the game file does not read the position '{}': {e}",
                        i + 1,
                        grundy_core::parse::shorten(text)
                    ))
                })?;
                let o = an.outcome(&p, self.1);
                out.push(bounded.finish(o)? == Outcome::First);
            }
            Ok(out)
        }
    }
    let Some(first) = texts.first() else {
        return Ok(Vec::new());
    };
    let opts = grundy_games::family::FamilyOptions {
        game: Some(file.clone()),
        ..Default::default()
    };
    // The game is built with the first position: a file that cannot read it says so.
    if let Err(e) = grundy_games::registry::format("", &opts, first) {
        return Err(match e {
            grundy_games::family::RegistryError::BadPosition { error, .. } => usage(format!(
                "case 1: the game file does not read the position '{}': {error}",
                grundy_core::parse::shorten(first)
            )),
            e => usage(e.to_string()),
        });
    }
    grundy_games::registry::with_game("", &opts, first, Outcomes(texts, convention))
        .map_err(crate::solve::app_error)
}

/// The judge's output for `text` by the built-in family, or with `game` by a game file that
/// reads the built-in family's notation; or the first thing wrong with the input.
pub fn answer_with(
    problem: Problem,
    text: &str,
    game: Option<std::sync::Arc<grundy_games::gamefile::GameFile>>,
) -> Result<String, CliError> {
    let mut lines = Lines::new(text);
    let mut out = String::new();
    match problem {
        Problem::Darkraft => {
            let (_, nm) = lines.numbers(&["n", "m"], 1, 2048, "the board size 'n m'")?;
            let rows = lines.rows(nm[0] as usize, nm[1] as usize, "LRX")?;
            lines.finish("the board")?;
            if let Some(file) = &game {
                let wins = first_wins(file, &[rows.join("/")], Convention::Normal)?;
                out.push_str(if wins[0] { "WIN\n" } else { "LOSE\n" });
                return Ok(out);
            }
            // A board whose table is past the limit is refused up front, like bad input.
            let wins = darkraft::first_player_wins(&rows.join("/")).map_err(|e| match e {
                darkraft::DarkraftError::Parse(_) | darkraft::DarkraftError::TableTooLarge { .. } => {
                    CliError::Usage(e.to_string())
                }
                _ => CliError::Failure(e.into()),
            })?;
            out.push_str(if wins { "WIN\n" } else { "LOSE\n" });
        }
        Problem::Bomb => {
            let mut cases: Vec<Vec<(usize, usize)>> = Vec::new();
            let mut boards: Vec<Vec<&str>> = Vec::new();
            let (mut rows, mut cols) = (1, 1);
            loop {
                let (line, nm) = lines.numbers(
                    &["n", "m"],
                    0,
                    bombs::MAX_SIDE as u64,
                    "a case 'n m' or the closing '0 0'",
                )?;
                let (n, m) = (nm[0] as usize, nm[1] as usize);
                if n == 0 && m == 0 {
                    break;
                }
                if n == 0 || m == 0 {
                    return Err(at(line, 1, "a board needs at least one row and one column"));
                }
                let board = lines.rows(n, m, ".#")?;
                boards.push(board.clone());
                let mut bombs = Vec::new();
                for (i, row) in board.iter().enumerate() {
                    bombs.extend(
                        row.bytes()
                            .enumerate()
                            .filter(|(_, b)| *b == b'#')
                            .map(|(j, _)| (i, j)),
                    );
                }
                rows = rows.max(n);
                cols = cols.max(m);
                cases.push(bombs);
            }
            lines.finish("the closing '0 0'")?;
            if let Some(file) = &game {
                let texts: Vec<String> = boards.iter().map(|b| b.join("/")).collect();
                for wins in first_wins(file, &texts, Convention::Normal)? {
                    out.push_str(if wins { "John\n" } else { "Jack\n" });
                }
                return Ok(out);
            }
            let table = BombTable::new(rows, cols);
            for bombs in cases {
                let g = bombs.iter().fold(0, |acc, &(i, j)| {
                    acc ^ table.get(i, j).expect("table covers every board")
                });
                out.push_str(if g != 0 { "John\n" } else { "Jack\n" });
            }
        }
        Problem::Maoershan => {
            let (_, t) = lines.numbers(&["T"], 0, 1_000_000, "the number of boards T")?;
            let maoershan = GraphGame::new(Graph::maoershan(), Rule::OneOrTwo);
            let mut positions = Vec::new();
            let mut texts = Vec::new();
            for k in 0..t[0] {
                let Some((line, s)) = lines.next_line() else {
                    return Err(at(
                        lines.end(),
                        1,
                        format!("input ended after {k} of {} boards", t[0]),
                    ));
                };
                let p = maoershan
                    .parse_position(s)
                    .map_err(|e| at(line, e.span.column, e.message))?;
                positions.push(p);
                texts.push(s.trim());
            }
            lines.finish("the last board")?;
            if let Some(file) = &game {
                let texts: Vec<String> = texts.iter().map(|s| s.to_string()).collect();
                for wins in first_wins(file, &texts, Convention::Misere)? {
                    out.push(if wins { '0' } else { '1' });
                }
                out.push('\n');
                return Ok(out);
            }
            let mut an = Analyzer::new(&maoershan);
            for p in positions {
                let o = an.outcome(&p, Convention::Misere)?;
                out.push(if o == Outcome::First { '0' } else { '1' });
            }
            out.push('\n');
        }
        Problem::Cutting => {
            let mut sheets = Vec::new();
            while lines.next < lines.lines.len() {
                if lines.lines[lines.next..].iter().all(|l| l.trim().is_empty()) {
                    break;
                }
                let (line, wh) = lines.numbers(&["W", "H"], 1, cutting::MAX_SIDE, "a sheet 'W H'")?;
                if wh == [1, 1] {
                    return Err(at(line, 1, "a 1x1 sheet means the game is already over"));
                }
                sheets.push((wh[0] as usize, wh[1] as usize));
            }
            if let Some(file) = &game {
                let texts: Vec<String> = sheets.iter().map(|(w, h)| format!("{w}x{h}")).collect();
                for wins in first_wins(file, &texts, Convention::Normal)? {
                    out.push_str(if wins { "WIN\n" } else { "LOSE\n" });
                }
                return Ok(out);
            }
            let max = sheets.iter().map(|&(w, h)| w.max(h)).max().unwrap_or(2).max(2);
            let table = CuttingTable::new(max);
            for (w, h) in sheets {
                // A 1-wide sheet (other side ≥ 2) lets the player to move cut off a 1×1.
                let win = w == 1 || h == 1 || table.get(w, h).is_some_and(|g| g != 0);
                out.push_str(if win { "WIN\n" } else { "LOSE\n" });
            }
        }
        Problem::Crosses => {
            let mut ns = Vec::new();
            while lines.lines[lines.next..].iter().any(|l| !l.trim().is_empty()) {
                let (_, n) = lines.numbers(&["n"], 1, crosses::MAX_LEN as u64, "the strip length n")?;
                ns.push(n[0] as usize);
            }
            if let Some(file) = &game {
                let texts: Vec<String> = ns.iter().map(|&n| ".".repeat(n)).collect();
                for wins in first_wins(file, &texts, Convention::Normal)? {
                    let _ = writeln!(out, "{}", if wins { 1 } else { 2 });
                }
                return Ok(out);
            }
            let max = ns.iter().copied().max().unwrap_or(0);
            let crosses = Crosses::new(max + 1);
            let mut an = Analyzer::new(&crosses);
            for n in ns {
                let g: Option<Nimber> = an.grundy(&Crosses::empty(n))?;
                let first = g.is_none_or(|g| !g.is_zero());
                let _ = writeln!(out, "{}", if first { 1 } else { 2 });
            }
        }
    }
    Ok(out)
}
