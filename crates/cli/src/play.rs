//! `grundy play FAMILY POSITION`: play against perfect play in the terminal. Moves are read
//! from stdin in the family's notation, one a line; the engine answers with the move perfect
//! play chooses (win fastest, lose slowest, by remoteness). `undo`, `moves`, `hint`, `quit`.
//!
//! Remoteness needs a whole-position search. In misère play that search can be out of reach
//! where the outcomes are not (sums of large heaps, answered by the game's misère quotient):
//! when the search has not answered within [`REMOTENESS_SECONDS`] or stops at a limit, play
//! goes on with the outcomes alone (the answer `grundy solve --misere` gives), says so once,
//! and plays a winning move whenever there is one (not always the fastest).

use crate::db::DbOptions;
use crate::error::CliError;
use crate::solve::app_error;
use crate::solve::{read_position, timeout_flag, GameArgs};
use grundy_app::solve::ErrorKind;
use grundy_app::solve::{solve_with, Limits, SolveOptions, SolveRequest, SolveResponse};
use grundy_core::Outcome;
use grundy_store::Store;
use std::io::{BufRead, Write};
use std::time::Duration;

/// How long a misère position's remoteness is searched for before play goes on with the
/// outcomes alone.
pub const REMOTENESS_SECONDS: u64 = 3;

/// Who moves first.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    /// You move first.
    Me,
    /// The engine moves first.
    Engine,
}

/// Arguments of `grundy play`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Type a move in the family's notation (as `grundy solve --all-moves` writes \
    them), or: undo (take back your last move), moves (list the legal moves), hint (the best move), \
    quit. Examples:\n  \
    grundy play nim 3 5 7\n  \
    grundy play crosses ......... --first engine\n  \
    printf '1:3->0\\n' | grundy play nim 3 4"
)]
pub struct PlayArgs {
    /// The game family, as for `grundy solve` (none with `--game FILE`).
    #[arg(help = crate::solve::family_help(), long_help = crate::solve::family_long_help(), required_unless_present = "game_file", default_value = "", hide_default_value = true)]
    pub family: String,
    /// The starting position in the family's notation; `@FILE` reads it from a file.
    pub position: Vec<String>,
    /// Who moves first.
    #[arg(long, value_enum, default_value_t = First::Me)]
    pub first: First,
    /// Misère play: the player who cannot move wins. Remoteness (win fastest, lose slowest)
    /// is searched for 3 seconds a position; where it is out of reach (sums of large heaps),
    /// play goes on with the outcomes alone, as `grundy solve --misere` finds them, and says so.
    #[arg(long)]
    pub misere: bool,
    /// Give up (exit 1) once a search has stored this many positions.
    #[arg(long, value_name = "N", default_value_t = 20_000_000, value_parser = crate::numbers::max_positions)]
    pub max_positions: usize,
    /// Board, graph, rule and subtraction set, as for `grundy solve`.
    #[command(flatten)]
    pub game: GameArgs,
}

/// The game being played: the request for the current position.
struct Session {
    req: SolveRequest,
    /// The `--game` file's path, for errors.
    game_source: Option<String>,
    limits: Limits,
    /// Every position analysed is kept here, and answered from here next time.
    store: Option<Store>,
}

impl Session {
    fn options(&self) -> SolveOptions<'_> {
        SolveOptions {
            store: self.store.as_ref(),
            game_source: self.game_source.clone(),
            keep_after: Duration::ZERO,
            ..SolveOptions::default()
        }
    }

    /// The position's answer. In misère play with remoteness asked, the search is given
    /// [`REMOTENESS_SECONDS`]; when it cannot answer in time or within its limits, the
    /// outcomes alone are asked (and remoteness is not asked again this game): `true` is
    /// returned with the answer then.
    fn analyse(&mut self) -> Result<(SolveResponse, bool), CliError> {
        if !(self.req.misere && self.req.remoteness) {
            return solve_with(&self.req, &self.limits, self.options())
                .map(|a| (a, false))
                .map_err(app_error);
        }
        let limits = Limits {
            cancel: Some(timeout_flag(REMOTENESS_SECONDS as f64)?),
            ..self.limits.clone()
        };
        match solve_with(&self.req, &limits, self.options()) {
            Ok(a) => Ok((a, false)),
            Err(e)
                if matches!(
                    e.kind,
                    ErrorKind::Cancelled | ErrorKind::PositionLimit | ErrorKind::Memory | ErrorKind::Limit
                ) =>
            {
                self.req.remoteness = false;
                solve_with(&self.req, &self.limits, self.options())
                    .map(|a| (a, true))
                    .map_err(app_error)
            }
            Err(e) => Err(app_error(e)),
        }
    }

    /// Moves to the position after a move (for the graph family, the game goes on as a
    /// `points` position on the same graph).
    fn advance(&mut self, after: &str) {
        let next = if self.req.game.is_some() {
            None
        } else {
            grundy_games::registry::find(&self.req.family)
                .ok()
                .and_then(|f| f.description.continues_as)
        };
        if let Some(next) = next {
            self.req.family = next.into();
            if self.req.board.is_none() {
                self.req.graph = Some(std::mem::take(&mut self.req.position));
            }
        }
        self.req.position = after.to_string();
    }
}

fn normalise(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The end of a game whose last move left `position` with no move (known from the move's
/// remoteness, so the position is not solved again): who wins.
fn no_move_left(out: &mut dyn Write, position: &str, you_win: bool) -> Result<(), CliError> {
    writeln!(out, "position: {position}")?;
    writeln!(
        out,
        "no move left: {}",
        if you_win { "you win" } else { "the engine wins" }
    )?;
    Ok(())
}

/// Runs `grundy play`, reading stdin and writing stdout.
pub fn run(args: PlayArgs, db: &DbOptions) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    play(args, db, &mut stdin.lock(), &mut stdout.lock())
}

/// The game loop over any input and output (tests drive it with strings).
pub fn play(
    mut args: PlayArgs,
    db: &DbOptions,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    (args.family, args.position) = crate::solve::family_and_words(&args.family, &args.position, &args.game);
    let text = read_position(&args.family, &args.position, None)?;
    let graph = args.game.graph_text()?.map(|(_, text)| text);
    let game = args.game.game_text()?;
    let mut session = Session {
        game_source: game.as_ref().map(|(s, _)| s.clone()),
        req: SolveRequest {
            family: args.family.clone(),
            game: game.map(|(_, t)| t),
            position: text,
            misere: args.misere,
            remoteness: true,
            board: args.game.board.clone(),
            graph,
            rule: args.game.rule.clone(),
            set: args.game.set.clone(),
            timeout: None,
        },
        limits: Limits {
            max_moves: 1_000_000,
            ..Limits::local(args.max_positions)
        },
        store: db.open_cache(),
    };
    // Positions where it was your turn, to undo to.
    let mut history: Vec<SolveRequest> = Vec::new();
    let mut engine_to_move = args.first == First::Engine;
    let mut pending = Some(session.analyse()?);
    let mut told_outcomes_only = false;
    let convention = if args.misere {
        " (misère: whoever cannot move wins)"
    } else {
        ""
    };
    writeln!(
        out,
        "grundy play {}{convention}: you against perfect play. Type a move, or: undo, moves, hint, quit.",
        args.family
    )?;
    loop {
        let (a, outcomes_only) = match pending.take() {
            Some(a) => a,
            None => session.analyse()?,
        };
        if outcomes_only && !told_outcomes_only {
            writeln!(
                out,
                "note: remoteness is out of reach here (the search did not answer within {REMOTENESS_SECONDS} s or its limits); \
                 play goes on with the outcomes alone, as `grundy solve --misere` finds them: the engine wins when it can, not always fastest"
            )?;
            told_outcomes_only = true;
        }
        writeln!(out, "position: {}", a.position)?;
        if a.moves.is_empty() {
            // Nobody can move: under normal play the player to move loses.
            let mover_wins = args.misere;
            let you_win = mover_wins != engine_to_move;
            writeln!(
                out,
                "no move left: {}",
                if you_win { "you win" } else { "the engine wins" }
            )?;
            return Ok(());
        }
        if engine_to_move {
            let best = a
                .best_move
                .as_ref()
                .and_then(|b| a.moves.iter().find(|m| &m.mv == b));
            let Some(m) = best else {
                return Err(CliError::Failure(anyhow::anyhow!(
                    "the engine found no move to play"
                )));
            };
            writeln!(out, "engine plays {}", m.mv)?;
            if m.ends_game {
                writeln!(out, "position: {}", m.position_after)?;
                writeln!(out, "the engine wins")?;
                return Ok(());
            }
            if m.leaves_no_move() {
                return no_move_left(out, &m.position_after, args.misere);
            }
            session.advance(&m.position_after.clone());
            engine_to_move = false;
            continue;
        }
        let verdict = match a.outcome {
            Outcome::First => "you can win",
            Outcome::Second => "you lose against perfect play",
        };
        let r = a
            .remoteness
            .map(|r| format!(", remoteness {r}"))
            .unwrap_or_default();
        writeln!(out, "your move ({verdict}{r}):")?;
        out.flush()?;
        let chosen = loop {
            let mut line = String::new();
            let read = crate::input::read_line(input, &mut line)?;
            if read == 0 {
                writeln!(out, "input ended: game abandoned")?;
                return Ok(());
            }
            let word = normalise(&line);
            match word.as_str() {
                "" => continue,
                "quit" | "q" => {
                    writeln!(out, "game abandoned")?;
                    return Ok(());
                }
                "moves" => {
                    let list: Vec<String> = a
                        .moves
                        .iter()
                        .map(|m| format!("{}{}", m.mv, if m.wins { "(wins)" } else { "" }))
                        .collect();
                    writeln!(out, "moves: {}", list.join(" "))?;
                }
                "hint" => writeln!(out, "hint: {}", a.best_move.as_deref().unwrap_or("none"))?,
                "undo" => match history.pop() {
                    Some(prev) => {
                        // Remoteness stays off once it was out of reach.
                        let remoteness = session.req.remoteness;
                        session.req = prev;
                        session.req.remoteness &= remoteness;
                        break None;
                    }
                    None => writeln!(out, "nothing to undo")?,
                },
                w => match a.moves.iter().find(|m| normalise(&m.mv) == w) {
                    Some(m) => break Some(m.clone()),
                    None => writeln!(
                        out,
                        "'{}' is not a legal move here (type 'moves' to list them)",
                        line.trim()
                    )?,
                },
            }
            out.flush()?;
        };
        let Some(m) = chosen else {
            writeln!(out, "undone")?;
            continue;
        };
        history.push(session.req.clone());
        if m.ends_game {
            writeln!(out, "position: {}", m.position_after)?;
            writeln!(out, "you win")?;
            return Ok(());
        }
        if m.leaves_no_move() {
            return no_move_left(out, &m.position_after, !args.misere);
        }
        session.advance(&m.position_after);
        engine_to_move = true;
    }
}
