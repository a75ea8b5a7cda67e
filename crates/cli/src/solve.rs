//! `grundy solve FAMILY POSITION`: who wins, the Grundy value, every winning move.

use crate::db::{analysis_key, load_analysis, save_analysis, DbOptions, StoredAnalysis, StoredMove};
use crate::error::{usage, CliError};
use grundy_core::{Game, Outcome};
use grundy_games::registry::{with_game, FamilyInfo, FamilyOptions, WithGame};
use grundy_solve::{analysis::Analyzer, Convention};
use std::io::Read;
use std::path::PathBuf;

/// Arguments of `grundy solve`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Families and notation: see docs/games.md. Examples:\n  \
    grundy solve nim 3 5 7\n  \
    grundy solve nim 1 1 4 --misere\n  \
    grundy solve crosses ....X......\n  \
    grundy solve cutting 4x2 3x3 --json\n  \
    grundy solve bombs '.#/..'\n  \
    grundy solve points 110000000011 --misere\n  \
    grundy solve graph edges.txt --rule node-kayles\n  \
    grundy solve graph --board grid:3x4 --rule arc-kayles --remoteness\n  \
    grundy solve bombs --file board.txt")]
pub struct SolveArgs {
    /// Game family: nim, bombs, cutting, crosses, points, graph.
    pub family: String,
    /// The position in the family's notation; `-` reads it from stdin, `@FILE` from a file.
    pub position: Vec<String>,
    /// Read the position from this file.
    #[arg(short, long, value_name = "FILE", conflicts_with = "position")]
    pub file: Option<PathBuf>,
    /// Misère play: the player who cannot move wins.
    #[arg(long)]
    pub misere: bool,
    /// Print a JSON object (fields: family, position, convention, grundy, outcome, winning_moves).
    #[arg(long)]
    pub json: bool,
    /// Also give the remoteness: moves until the end with best play (winner fastest, loser
    /// slowest), for the position and for every move (a search over whole positions).
    #[arg(long)]
    pub remoteness: bool,
    /// Also list every move with the value of the position it leads to.
    #[arg(long)]
    pub all_moves: bool,
    /// Give up (exit 1) once the search has stored this many positions.
    #[arg(long, value_name = "N", default_value_t = 20_000_000)]
    pub max_positions: usize,
    /// Built-in board for `points` (maoershan).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// Edge-list file for `points`: one edge `P Q` per line, points numbered from 1.
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
    /// Rule of the graph games: one-or-two (default), take-vertex, node-kayles, arc-kayles.
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
}

/// Reads the position text from the arguments, a file, or stdin.
pub fn position_text(words: &[String], file: Option<&PathBuf>) -> Result<String, CliError> {
    let read_file = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .map_err(|e| usage(format!("cannot read position file {}: {e}", p.display())))
    };
    if let Some(f) = file {
        return read_file(f);
    }
    match words {
        [w] if w == "-" => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| usage(format!("cannot read the position from stdin: {e}")))?;
            Ok(s)
        }
        [w] if w.starts_with('@') && w.len() > 1 => read_file(std::path::Path::new(&w[1..])),
        _ => Ok(words.join(" ")),
    }
}

/// Runs `grundy solve`; with a store, answers from it when it holds the position, and
/// keeps what it computes.
pub fn run(args: SolveArgs, db: &DbOptions) -> Result<(), CliError> {
    let text = match (args.family.as_str(), args.position.as_slice()) {
        // For the graph family the position is a whole graph: its edge-list file.
        ("graph", [path]) if path != "-" && !path.starts_with('@') => {
            position_text(&[], Some(&PathBuf::from(path)))?
        }
        _ => position_text(&args.position, args.file.as_ref())?,
    };
    let opts = FamilyOptions {
        board: args.board.clone(),
        graph: match &args.graph {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| usage(format!("cannot read graph file {}: {e}", path.display())))?;
                Some((path.display().to_string(), text))
            }
        },
        rule: args.rule.clone(),
    };
    let family = args.family.clone();
    let graph_id = opts
        .graph
        .as_ref()
        .map(|(_, t)| format!("{:016x}", grundy_store::checksum(t.as_bytes())));
    let report = Report {
        args: &args,
        db,
        graph_id,
        text_id: format!("{:016x}", grundy_store::checksum(text.as_bytes())),
    };
    let a = with_game(&family, &opts, &text, report)?;
    print(&args, &a);
    Ok(())
}

struct Report<'a> {
    args: &'a SolveArgs,
    db: &'a DbOptions,
    /// Checksum of the edge-list file, part of the store's key.
    graph_id: Option<String>,
    /// Checksum of the position's text (for the graph family, the graph).
    text_id: String,
}

impl WithGame for Report<'_> {
    type Output = StoredAnalysis;
    type Error = CliError;

    fn run<G: Game>(self, game: &G, p: G::Position, info: &FamilyInfo) -> Result<StoredAnalysis, CliError> {
        let args = self.args;
        let convention = if args.misere {
            if !info.misere {
                return Err(usage(format!(
                    "--misere is not available for {}: its rules end the game by a winning move, not by a lack of moves",
                    info.name
                )));
            }
            Convention::Misere
        } else {
            Convention::Normal
        };
        let position = game.format_position(&p);
        // The graph family's position is the whole graph: key it by the graph.
        let position_key = match info.name.as_str() {
            "graph" => format!("{position}@{}", self.text_id),
            _ => position.clone(),
        };
        let conv = if args.misere { "misere" } else { "normal" };
        let key = analysis_key(
            &info.name,
            &[
                conv,
                if args.remoteness { "remoteness" } else { "-" },
                args.board.as_deref().unwrap_or("-"),
                args.rule.as_deref().unwrap_or("-"),
                self.graph_id.as_deref().unwrap_or("-"),
            ],
            &position_key,
        );
        let store = self.db.open_cache();
        if let Some(found) = store.as_ref().and_then(|s| load_analysis(s, &key)) {
            return Ok(found);
        }
        let mut an = Analyzer::with_limit(game, args.max_positions).with_remoteness(args.remoteness);
        let a = an.analyze(&p, convention)?;
        let stored = StoredAnalysis {
            family: info.name.clone(),
            position,
            convention: conv.to_string(),
            grundy: a.grundy.map(|g| g.0),
            outcome: a.outcome.as_str().to_string(),
            remoteness: a.remoteness,
            winning_moves: a.winning_moves.iter().map(|m| game.format_move(m)).collect(),
            moves: a
                .moves
                .iter()
                .map(|r| StoredMove {
                    mv: game.format_move(&r.mv),
                    grundy: r.grundy.map(|g| g.0),
                    outcome: r.outcome.as_str().to_string(),
                    remoteness: r.remoteness,
                })
                .collect(),
        };
        if let Some(s) = &store {
            save_analysis(s, &key, &stored);
        }
        Ok(stored)
    }
}

/// Prints an analysis as text or JSON.
fn print(args: &SolveArgs, a: &StoredAnalysis) {
    let second = |o: &str| o == Outcome::Second.as_str();
    if args.json {
        let mut obj = serde_json::json!({
            "family": a.family,
            "position": a.position,
            "convention": a.convention,
            "grundy": a.grundy,
            "outcome": a.outcome,
            "winning_moves": a.winning_moves,
        });
        if args.remoteness {
            obj["remoteness"] = serde_json::json!(a.remoteness);
        }
        if args.all_moves {
            let moves: Vec<serde_json::Value> = a
                .moves
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "move": r.mv,
                        "grundy": r.grundy,
                        "outcome": r.outcome,
                        "wins": second(&r.outcome),
                        "remoteness": r.remoteness,
                    })
                })
                .collect();
            obj["moves"] = serde_json::Value::Array(moves);
        }
        println!("{obj}");
        return;
    }
    let who = if second(&a.outcome) {
        "second player wins (the player to move loses)"
    } else {
        "first player (the player to move) wins"
    };
    println!(
        "{} {}{}",
        a.family,
        a.position,
        if args.misere { " (misère)" } else { "" }
    );
    println!("outcome:       {who}");
    match a.grundy {
        Some(g) => println!("grundy value:  {g}"),
        None if args.misere => println!("grundy value:  none (misère play)"),
        None => println!("grundy value:  none (the player to move wins at once)"),
    }
    if let Some(r) = a.remoteness {
        let what = if second(&a.outcome) {
            "moves the player to move can hold out before losing"
        } else {
            "moves for the player to move to win against best defence"
        };
        println!("remoteness:    {r} ({what})");
    }
    if a.winning_moves.is_empty() {
        println!("winning moves: none");
    } else {
        println!("winning moves: {}", a.winning_moves.join(" "));
    }
    if args.all_moves {
        println!("all moves:");
        for r in &a.moves {
            let value = r.grundy.map(|g| format!("grundy {g}")).unwrap_or_default();
            let verdict = if second(&r.outcome) { "wins" } else { "loses" };
            println!("  {:<16} {verdict:<6} {value}", r.mv);
        }
    }
}
