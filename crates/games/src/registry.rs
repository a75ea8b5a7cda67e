//! The registry of families by name: building the game a position belongs to, for every
//! front end (command line, web).
//!
//! Some families need more than a name: the graph games need a board or an edge list and a
//! rule, and the table-driven families size their tables to the position, so the game is
//! built from the name, the options and the position's text, then handed to a [`WithGame`]
//! action generic over the game type.

use crate::{
    bombs::{self, Bombs},
    chomp::Chomp,
    cram::Cram,
    crosses::Crosses,
    cutting::Cutting,
    darkraft::Darkraft,
    graph::{Graph, Points},
    graph_game::{GraphGame, Rule},
    grid::parse_grid,
    heap::HeapGame,
    nim::Nim,
};
use grundy_core::HeapRules;
use grundy_core::{Game, ParseError};

/// A family name, option or position that cannot be used; the message says why and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RegistryError(pub String);

fn usage(msg: impl Into<String>) -> RegistryError {
    RegistryError(msg.into())
}

/// The families `solve` knows, with a line on each (shown by `--help` and in errors).
pub const FAMILIES: &[(&str, &str)] = &[
    ("nim", "heaps of tokens: '3 5 7'"),
    (
        "darkraft",
        "World of Darkraft (CF 138D): rows of 'L', 'R', 'X', '.', e.g. 'RL/LR'",
    ),
    ("bombs", "Bomb Game (HDU 2873): rows of '.' and '#', e.g. '.#/..'"),
    ("cutting", "Cutting Game (POJ 2311): sheets 'WxH', e.g. '4x2 3x3'"),
    (
        "crosses",
        "Crosses and Crosses / Treblecross (POJ 3537): a strip of '.' and 'X'",
    ),
    (
        "cram",
        "Cram: dominoes on a board: 'RxC' or rows of '.' and '#' (a hole), e.g. '3x4'",
    ),
    (
        "chomp",
        "Chomp: a bar 'RxC' or column heights, e.g. '4x7' or '7 7 5 3'",
    ),
    (
        "points",
        "pieces on a graph's points as a 0/1 string (--board, --graph, --rule)",
    ),
    (
        "graph",
        "a whole graph from an edge-list FILE or --board (--rule node-kayles, ...)",
    ),
];

/// Options that shape a family's game.
#[derive(Debug, Default, Clone)]
pub struct FamilyOptions {
    /// Built-in board for `points`.
    pub board: Option<String>,
    /// Edge list for `points`: (where it came from, its text).
    pub graph: Option<(String, String)>,
    /// Rule of the graph games (`points`, `graph`).
    pub rule: Option<String>,
    /// Bulk Grundy values G(0), ..., G(count − 1) of a heap game, from a sequence engine the
    /// front end provides (games know no solvers); `None` leaves heaps to the memo engine.
    pub heap_values: Option<HeapValues>,
}

/// A bulk computation of heap values: `(rules, count) → G(0..count)`, or `None` to decline.
pub type HeapValues = fn(&HeapRules, u64) -> Option<Vec<u64>>;

/// Heaps up to this size get a bulk table from [`FamilyOptions::heap_values`].
pub const HEAP_TABLE_MAX: u64 = 1 << 24;

/// Something to do with a game and a position of it, whatever the family.
pub trait WithGame {
    /// What the action returns.
    type Output;
    /// Its error, which registry errors convert into.
    type Error: From<RegistryError>;
    /// Runs the action on `game` and the parsed `position`.
    fn run<G: Game>(
        self,
        game: &G,
        position: G::Position,
        info: &FamilyInfo,
    ) -> Result<Self::Output, Self::Error>;
}

/// What the front end needs to know about a family besides its rules.
#[derive(Debug, Clone)]
pub struct FamilyInfo {
    /// The canonical family name.
    pub name: String,
    /// Whether misère analysis by whole-position search is exact for this family.
    pub misere: bool,
    /// Whether normal play is best answered by pruned search (`grundy_solve::NimberSearch`)
    /// rather than by valuing every option (`--engine auto`).
    pub prefer_search: bool,
}

/// Names accepted for each family (aliases included).
pub fn canonical_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "nim" => "nim",
        "darkraft" => "darkraft",
        "bombs" | "bomb" => "bombs",
        "cutting" => "cutting",
        "crosses" | "treblecross" => "crosses",
        "points" | "maoershan" => "points",
        "graph" => "graph",
        "cram" => "cram",
        "chomp" => "chomp",
        _ => return None,
    })
}

/// A heap game named by its code (`0.77`, `grundys-game`, `sub:1,3,4`, ...).
fn with_heap_game<A: WithGame>(
    name: &str,
    opts: &FamilyOptions,
    text: &str,
    action: A,
) -> Result<A::Output, A::Error> {
    let looks_like_code = name.starts_with(|c: char| c.is_ascii_digit())
        || ["sub", "hex:", "grundy"].iter().any(|p| name.starts_with(p));
    let game = match HeapGame::parse(name) {
        Ok(g) => g,
        Err(e) if looks_like_code => {
            let msg = format!("bad game code '{name}', column {}: {}", e.span.column, e.message);
            return Err(usage(msg).into());
        }
        Err(_) => {
            let known: Vec<&str> = FAMILIES.iter().map(|f| f.0).collect();
            return Err(usage(format!(
                "unknown family '{name}' (known: {}, or a heap game code such as 0.77, grundys-game, sub:1,3,4)",
                known.join(", ")
            ))
            .into());
        }
    };
    if opts.board.is_some() || opts.graph.is_some() || opts.rule.is_some() {
        return Err(usage("--board, --graph and --rule apply to the graph games (points, graph)").into());
    }
    let family = game.name().to_string();
    let heaps = parse(&game, &family, text)?;
    let largest = heaps.iter().copied().max().unwrap_or(0);
    let game = match opts.heap_values {
        Some(bulk) if largest < HEAP_TABLE_MAX => match bulk(game.rules(), largest + 1) {
            Some(values) => game.with_values(values.into()),
            None => game,
        },
        _ => game,
    };
    let info = FamilyInfo {
        name: family,
        misere: true,
        prefer_search: false,
    };
    action.run(&game, heaps, &info)
}

/// The game and position of the graph families: `points` (a 0/1 position on `--board` or
/// `--graph`) and `graph` (the position is a whole graph, from its edge list or `--board`).
pub fn graph_game(
    family: &str,
    opts: &FamilyOptions,
    text: &str,
) -> Result<(GraphGame, Points), RegistryError> {
    let rule = match &opts.rule {
        None => Rule::OneOrTwo,
        Some(name) => Rule::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Rule::ALL.iter().map(|r| r.0).collect();
            usage(format!("unknown rule '{name}' (known: {})", known.join(", ")))
        })?,
    };
    if family == "points" {
        let graph = match (&opts.board, &opts.graph) {
            (Some(_), Some(_)) => return Err(usage("give either --board or --graph, not both")),
            (_, Some((name, text))) => Graph::parse_edge_list(name, text)
                .map_err(|e| usage(format!("bad graph file {name}: {e}")))?,
            (board, None) => builtin(board.as_deref().unwrap_or("maoershan"))?,
        };
        let game = GraphGame::new(graph, rule);
        let p = parse(&game, family, text)?;
        return Ok((game, p));
    }
    if opts.graph.is_some() {
        return Err(usage(
            "for the graph family the edge-list file is the position: grundy solve graph FILE",
        ));
    }
    let graph = match &opts.board {
        Some(name) if text.trim().is_empty() => builtin(name)?,
        Some(_) => return Err(usage("give either a graph file or --board, not both")),
        None => Graph::parse_edge_list("graph", text).map_err(|e| position_error(family, e))?,
    };
    let game = GraphGame::new(graph, rule);
    let p = game.full();
    Ok((game, p))
}

/// A built-in board by name, or a usage error listing them.
fn builtin(name: &str) -> Result<Graph, RegistryError> {
    Graph::builtin(name).ok_or_else(|| {
        usage(format!(
            "unknown board '{name}' (built-in: maoershan, petersen, path:N, cycle:N, complete:N, star:N, grid:RxC; at most 128 points)"
        ))
    })
}

/// A parse error of the position, as a usage error that says where.
pub fn position_error(family: &str, e: ParseError) -> RegistryError {
    usage(format!("bad {family} position: {e}"))
}

fn parse<G: Game>(game: &G, family: &str, text: &str) -> Result<G::Position, RegistryError> {
    game.parse_position(text).map_err(|e| position_error(family, e))
}

/// Builds the game named `name`, parses `text` as one of its positions and runs `action`.
pub fn with_game<A: WithGame>(
    name: &str,
    opts: &FamilyOptions,
    text: &str,
    action: A,
) -> Result<A::Output, A::Error> {
    let Some(family) = canonical_name(name) else {
        return with_heap_game(name, opts, text, action);
    };
    let graph_family = family == "points" || family == "graph";
    if !graph_family && (opts.board.is_some() || opts.graph.is_some() || opts.rule.is_some()) {
        return Err(usage(format!(
            "--board, --graph and --rule apply to the graph games (points, graph), not {family}"
        ))
        .into());
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
        "darkraft" => {
            let (game, board) = Darkraft::parse(text).map_err(|e| position_error(family, e))?;
            action.run(&game, board, &info(true))
        }
        "bombs" => {
            let grid = parse_grid(text, ".#", "bomb").map_err(|e| position_error(family, e))?;
            let game = Bombs::new(grid.rows.min(bombs::MAX_SIDE), grid.cols.min(bombs::MAX_SIDE));
            let p = parse(&game, family, text)?;
            action.run(&game, p, &info(true))
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
        "points" | "graph" => {
            let (game, p) = graph_game(family, opts, text)?;
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
