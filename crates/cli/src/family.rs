//! Family names on the command line, and building the game a position belongs to.
//!
//! Some families need more than a name: `points` needs a board (`--board`, `--graph`),
//! `subtraction` its set (`--set`), and the table-driven families size their tables to the
//! position, so the game is built from the name, the options and the position's text.

use crate::error::{usage, CliError};
use grundy_core::{Game, ParseError};
use grundy_games::{
    bombs::{self, Bombs},
    chomp::Chomp,
    cram::Cram,
    crosses::Crosses,
    cutting::Cutting,
    grid::parse_grid,
    nim::Nim,
    points::{Graph, PointsGame},
};

/// The families `solve` knows, with a line on each (shown by `--help` and in errors).
pub const FAMILIES: &[(&str, &str)] = &[
    ("nim", "heaps of tokens: '3 5 7'"),
    (
        "bombs",
        "Bomb Game (HDU 2873): rows of '.' and '#', e.g. '.#/..'",
    ),
    (
        "cutting",
        "Cutting Game (POJ 2311): sheets 'WxH', e.g. '4x2 3x3'",
    ),
    (
        "crosses",
        "Crosses and Crosses / Treblecross (POJ 3537): a strip of '.' and 'X'",
    ),
    (
        "points",
        "take one or two adjacent pieces on a graph: a 0/1 string (--board, --graph)",
    ),
    (
        "cram",
        "dominoes on a board: 'RxC' (e.g. 5x7) or rows of '.' and '#', e.g. '..#/...'",
    ),
    (
        "chomp",
        "a chocolate bar with a poisoned corner: 'RxC' (e.g. 4x7) or column heights '7 7 5 3'",
    ),
];

/// Options that shape a family's game.
#[derive(Debug, Default, Clone)]
pub struct FamilyOptions {
    /// Built-in board for `points`.
    pub board: Option<String>,
    /// Edge-list file for `points`.
    pub graph: Option<std::path::PathBuf>,
}

/// Something to do with a game and a position of it, whatever the family.
pub trait WithGame {
    /// What the action returns.
    type Output;
    /// Runs the action on `game` and the parsed `position`.
    fn run<G: Game>(
        self,
        game: &G,
        position: G::Position,
        info: &FamilyInfo,
    ) -> Result<Self::Output, CliError>;
}

/// What the front end needs to know about a family besides its rules.
#[derive(Debug, Clone)]
pub struct FamilyInfo {
    /// The canonical family name.
    pub name: String,
    /// Whether misère analysis by whole-position search is exact for this family.
    pub misere: bool,
    /// Whether normal play is best answered by pruned search ([`grundy_solve::NimberSearch`])
    /// rather than by valuing every option (`--engine auto`).
    pub prefer_search: bool,
}

/// Names accepted for each family (aliases included).
pub fn canonical_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "nim" => "nim",
        "bombs" | "bomb" => "bombs",
        "cutting" => "cutting",
        "crosses" | "treblecross" => "crosses",
        "points" | "maoershan" => "points",
        "cram" => "cram",
        "chomp" => "chomp",
        _ => return None,
    })
}

/// A parse error of the position, as a usage error that says where.
pub fn position_error(family: &str, e: ParseError) -> CliError {
    usage(format!("bad {family} position: {e}"))
}

fn parse<G: Game>(game: &G, family: &str, text: &str) -> Result<G::Position, CliError> {
    game.parse_position(text)
        .map_err(|e| position_error(family, e))
}

/// Builds the game named `name`, parses `text` as one of its positions and runs `action`.
pub fn with_game<A: WithGame>(
    name: &str,
    opts: &FamilyOptions,
    text: &str,
    action: A,
) -> Result<A::Output, CliError> {
    let Some(family) = canonical_name(name) else {
        let known: Vec<&str> = FAMILIES.iter().map(|f| f.0).collect();
        return Err(usage(format!(
            "unknown family '{name}' (known: {})",
            known.join(", ")
        )));
    };
    if family != "points" && (opts.board.is_some() || opts.graph.is_some()) {
        return Err(usage(format!(
            "--board and --graph apply to the points family, not {family}"
        )));
    }
    let info = |misere: bool| FamilyInfo {
        name: family.to_string(),
        misere,
        prefer_search: family == "cram",
    };
    match family {
        "nim" => {
            let p = parse(&Nim, family, text)?;
            action.run(&Nim, p, &info(true))
        }
        "bombs" => {
            let grid = parse_grid(text, ".#", "bomb").map_err(|e| position_error(family, e))?;
            let game = Bombs::new(
                grid.rows.min(bombs::MAX_SIDE),
                grid.cols.min(bombs::MAX_SIDE),
            );
            let p = parse(&game, family, text)?;
            action.run(&game, p, &info(false))
        }
        "cutting" => {
            let probe = Cutting::new(0);
            let p = parse(&probe, family, text)?;
            let side = p.iter().map(|&(w, h)| w.max(h)).max().unwrap_or(0);
            let game = Cutting::new(side as usize);
            action.run(&game, p, &info(false))
        }
        "crosses" => {
            let probe = Crosses::new(0);
            let p = parse(&probe, family, text)?;
            let game = Crosses::new(p.0.len() + 1);
            action.run(&game, p, &info(false))
        }
        "points" => {
            let graph = match (&opts.board, &opts.graph) {
                (Some(_), Some(_)) => {
                    return Err(usage("give either --board or --graph, not both"))
                }
                (_, Some(path)) => {
                    let text = std::fs::read_to_string(path).map_err(|e| {
                        usage(format!("cannot read graph file {}: {e}", path.display()))
                    })?;
                    Graph::parse_edge_list(&path.display().to_string(), &text)
                        .map_err(|e| usage(format!("bad graph file {}: {e}", path.display())))?
                }
                (board, None) => {
                    let name = board.as_deref().unwrap_or("maoershan");
                    Graph::builtin(name).ok_or_else(|| {
                        usage(format!("unknown board '{name}' (built-in: maoershan)"))
                    })?
                }
            };
            let game = PointsGame::new(graph);
            let p = parse(&game, family, text)?;
            action.run(&game, p, &info(true))
        }
        "cram" => {
            let p = parse(&Cram, family, text)?;
            action.run(&Cram, p, &info(true))
        }
        "chomp" => {
            let p = parse(&Chomp, family, text)?;
            action.run(&Chomp, p, &info(true))
        }
        _ => unreachable!("every canonical name is handled"),
    }
}
