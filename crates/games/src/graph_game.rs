//! Games of taking vertices from a graph: a position is the set of vertices still present
//! (pieces on points); a move takes vertices by one of these rules:
//!
//! - `take-vertex`: take one vertex;
//! - `one-or-two`: take one vertex, or two adjacent vertices (NEFU 1356, the 12-point board);
//! - `node-kayles`: take a vertex and all its neighbours;
//! - `arc-kayles`: take an edge with both its ends.
//!
//! Under normal play the present vertices split into connected groups, each a component,
//! stored as a canonically labelled graph so isomorphic groups share one memo entry. Misère
//! play and remoteness search whole positions (sorted multisets of such groups).
//!
//! Notation: a position is a string of `0`/`1`, character k telling whether point k+1 is
//! present (`110000000011`). A move is `P` (the vertex chosen) or `P-Q` (the edge chosen),
//! points numbered from 1.

use crate::canon::CanonGraph;
use crate::family::{
    BoardView, DenseForm, Description, Engine, Family, FamilyOptions, Opt, RegistryError, Sample, Seeded,
    WithDense,
};
use crate::graph::{Graph, Points, MAX_POINTS};
use grundy_core::dense::{DenseGame, Subsets};
use grundy_core::{tokens, Game, ParseError, Ruleset};

/// Which vertices a move takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Take one vertex.
    TakeVertex,
    /// Take one vertex, or two adjacent vertices.
    OneOrTwo,
    /// Take a vertex and its neighbours.
    NodeKayles,
    /// Take an edge with both ends.
    ArcKayles,
}

impl Rule {
    /// Every rule with its command-line name.
    pub const ALL: [(&'static str, Rule); 4] = [
        ("take-vertex", Rule::TakeVertex),
        ("one-or-two", Rule::OneOrTwo),
        ("node-kayles", Rule::NodeKayles),
        ("arc-kayles", Rule::ArcKayles),
    ];

    /// The rule named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// Calls `f(chosen, taken)` for every move on the vertices `set` of a graph with
    /// adjacency `adj`: `chosen` names the move (a vertex or an edge), `taken` is removed.
    fn each_move(self, adj: &[u128], set: u128, mut f: impl FnMut(u128, u128)) {
        let mut s = set;
        while s != 0 {
            let v = s.trailing_zeros() as usize;
            s &= s - 1;
            let bit = 1u128 << v;
            match self {
                Rule::TakeVertex => f(bit, bit),
                Rule::NodeKayles => f(bit, bit | (adj[v] & set)),
                Rule::OneOrTwo | Rule::ArcKayles => {
                    if self == Rule::OneOrTwo {
                        f(bit, bit);
                    }
                    let mut higher = adj[v] & set & !(bit | (bit - 1));
                    while higher != 0 {
                        let w = higher.trailing_zeros() as usize;
                        higher &= higher - 1;
                        f(bit | 1 << w, bit | 1 << w);
                    }
                }
            }
        }
    }
}

/// The rules over components (canonical graphs): what the engines see.
#[derive(Clone, Copy, Debug)]
pub struct GraphRules {
    /// The rule of the game.
    pub rule: Rule,
}

/// The connected groups of `set` in `g`, each canonically labelled.
fn canonical_parts(g: &Graph, set: Points) -> Vec<CanonGraph> {
    let mut parts: Vec<CanonGraph> = g
        .split(set)
        .into_iter()
        .map(|c| CanonGraph::new(&g.induced(c)))
        .collect();
    parts.sort_unstable();
    parts
}

impl Ruleset for GraphRules {
    type Component = CanonGraph;

    fn options<F: FnMut(&[CanonGraph])>(&self, c: &CanonGraph, mut emit: F) {
        let n = c.len();
        let all: u128 = if n == 128 { u128::MAX } else { (1u128 << n) - 1 };
        let local = Graph::from_rows("component", c.rows());
        let mut seen: Vec<u128> = Vec::new();
        self.rule.each_move(c.rows(), all, |_, taken| {
            let rest = all & !taken;
            if seen.contains(&rest) {
                return;
            }
            seen.push(rest);
            emit(&canonical_parts(&local, rest));
        });
    }

    fn size_hint(&self, c: &CanonGraph) -> usize {
        c.len()
    }
}

/// A graph game on one host graph.
#[derive(Clone, Debug)]
pub struct GraphGame {
    graph: Graph,
    rules: GraphRules,
}

impl GraphGame {
    /// The game with `rule` on `graph`.
    pub fn new(graph: Graph, rule: Rule) -> GraphGame {
        GraphGame {
            graph,
            rules: GraphRules { rule },
        }
    }

    /// The name of the game's rule (`one-or-two`, ...), as `--rule` takes it.
    pub fn rule_name(&self) -> &'static str {
        let rule = self.rules.rule;
        Rule::ALL.iter().find(|(_, r)| *r == rule).map_or("", |(n, _)| n)
    }

    /// The host graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The position with every vertex present.
    pub fn full(&self) -> Points {
        let n = self.graph.len();
        if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        }
    }

    fn host_adjacency(&self) -> Vec<u128> {
        (0..self.graph.len()).map(|v| self.graph.neighbours(v)).collect()
    }
}

impl Ruleset for GraphGame {
    type Component = CanonGraph;

    fn options<F: FnMut(&[CanonGraph])>(&self, c: &CanonGraph, emit: F) {
        self.rules.options(c, emit)
    }

    fn size_hint(&self, c: &CanonGraph) -> usize {
        c.len()
    }
}

impl Game for GraphGame {
    type Position = Points;
    /// The vertex or edge chosen (one or two bits).
    type Move = Points;

    fn parse_position(&self, text: &str) -> Result<Points, ParseError> {
        let n = self.graph.len();
        let name = &self.graph.name;
        let toks = tokens(text);
        let Some(t) = toks.first() else {
            return Err(ParseError::new(
                1,
                1,
                format!("empty position: give {n} characters 0/1"),
            ));
        };
        if let Some(extra) = toks.get(1) {
            return Err(ParseError::new(
                extra.span.line,
                extra.span.column,
                "a position is one word of 0/1",
            ));
        }
        let mut set = 0;
        for (k, ch) in t.text.chars().enumerate() {
            let col = t.span.column + k;
            match ch {
                '0' | '1' if k < n => set |= ((ch == '1') as u128) << k,
                '0' | '1' => {
                    return Err(ParseError::new(
                        t.span.line,
                        col,
                        format!("too many points: the board '{name}' has {n}"),
                    ))
                }
                c => {
                    let shown = c.escape_default();
                    return Err(ParseError::new(
                        t.span.line,
                        col,
                        format!("expected '0' or '1', found '{shown}'"),
                    ));
                }
            }
        }
        let len = t.text.chars().count();
        if len < n {
            let msg = format!("too few points: {len} given, the board '{name}' has {n}");
            return Err(ParseError::new(t.span.line, t.span.column + len, msg));
        }
        Ok(set)
    }

    fn components(&self, &p: &Points) -> Vec<CanonGraph> {
        canonical_parts(&self.graph, p)
    }

    fn moves<F: FnMut(Points, Points)>(&self, &p: &Points, mut emit: F) {
        let adj = self.host_adjacency();
        self.rules
            .rule
            .each_move(&adj, p, |chosen, taken| emit(chosen, p & !taken));
    }

    fn format_move(&self, &m: &Points) -> String {
        let a = m.trailing_zeros() + 1;
        let rest = m & (m - 1);
        if rest == 0 {
            a.to_string()
        } else {
            format!("{a}-{}", rest.trailing_zeros() + 1)
        }
    }

    fn format_position(&self, &p: &Points) -> String {
        (0..self.graph.len())
            .map(|k| if p >> k & 1 == 1 { '1' } else { '0' })
            .collect()
    }
}

/// Most present vertices a dense solve handles (states are 64-bit masks).
pub const DENSE_MAX_VERTICES: usize = 64;

/// Every position below one position of a graph game, ranked densely: the present vertices
/// renamed 0..k, tier t holding the subsets of t vertices (colex order), for
/// `grundy_solve::dense::DenseSolver`.
#[derive(Clone, Debug)]
pub struct GraphDense {
    /// Host vertex of each local vertex.
    host: Vec<usize>,
    /// Local adjacency rows.
    adj: Vec<u128>,
    rule: Rule,
    subsets: Subsets,
}

impl GraphDense {
    /// The dense view of every position reachable from (below) `p` in `game`.
    pub fn new(game: &GraphGame, p: Points) -> Result<GraphDense, String> {
        let k = p.count_ones() as usize;
        if k > DENSE_MAX_VERTICES {
            return Err(format!(
                "{k} vertices present: the dense solver handles at most {DENSE_MAX_VERTICES}"
            ));
        }
        let host: Vec<usize> = (0..game.graph.len()).filter(|&v| p >> v & 1 == 1).collect();
        let adj = game.graph.induced(p);
        let subsets = Subsets::new(k as u32).ok_or("too many vertices for the ranking")?;
        Ok(GraphDense {
            host,
            adj,
            rule: game.rules.rule,
            subsets,
        })
    }

    /// The tier of the starting position (all its vertices present).
    pub fn top_tier(&self) -> u32 {
        self.host.len() as u32
    }

    /// Tier and index of `q`, a position below the starting one; `None` if it has a vertex
    /// the starting position lacks.
    pub fn locate(&self, q: Points) -> Option<(u32, u64)> {
        let mut local = 0u64;
        let mut rest = q;
        for (i, &v) in self.host.iter().enumerate() {
            if q >> v & 1 == 1 {
                local |= 1 << i;
                rest &= !(1u128 << v);
            }
        }
        (rest == 0).then(|| (local.count_ones(), self.subsets.rank(local)))
    }
}

impl DenseGame for GraphDense {
    type State = u64;

    fn num_tiers(&self) -> u32 {
        self.host.len() as u32 + 1
    }

    fn tier_size(&self, tier: u32) -> u64 {
        self.subsets.binomial(self.host.len() as u32, tier)
    }

    fn child_tiers(&self, tier: u32) -> Vec<u32> {
        match self.rule {
            Rule::TakeVertex => tier.checked_sub(1).into_iter().collect(),
            Rule::OneOrTwo => (tier.saturating_sub(2)..tier).collect(),
            Rule::ArcKayles => tier.checked_sub(2).into_iter().collect(),
            Rule::NodeKayles => (0..tier).collect(),
        }
    }

    fn unrank(&self, tier: u32, index: u64) -> u64 {
        self.subsets.unrank(tier, index)
    }

    fn advance(&self, _tier: u32, _index: u64, state: &mut u64) {
        *state = Subsets::next(*state);
    }

    fn successors<F: FnMut(u32, u64)>(&self, tier: u32, &s: &u64, mut emit: F) {
        self.rule.each_move(&self.adj, s as u128, |_, taken| {
            let rest = s & !(taken as u64);
            emit(tier - taken.count_ones(), self.subsets.rank(rest));
        });
    }
}

/// The rule named in the options (`one-or-two` when none is).
fn rule_of(opts: &FamilyOptions) -> Result<Rule, RegistryError> {
    match &opts.rule {
        None => Ok(Rule::OneOrTwo),
        Some(name) => Rule::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Rule::ALL.iter().map(|r| r.0).collect();
            RegistryError::option(
                Opt::Rule,
                format!("unknown rule '{name}' (known: {})", known.join(", ")),
            )
        }),
    }
}

/// A built-in board by name, or an error listing them.
fn builtin(name: &str) -> Result<Graph, RegistryError> {
    Graph::builtin(name).ok_or_else(|| {
        let kind = name.split_once(':').map_or(name, |(k, _)| k);
        // A known kind of board with a size out of range: say the range.
        let range = match kind {
            "path" | "complete" => Some(format!("{kind}:N takes N from 1 to {MAX_POINTS}")),
            "cycle" => Some(format!("cycle:N takes N from 3 to {MAX_POINTS}")),
            "star" => Some(format!("star:N takes N from 1 to {} leaves", MAX_POINTS - 1)),
            "grid" => Some(format!(
                "grid:RxC takes R and C from 1 with R×C at most {MAX_POINTS} points"
            )),
            _ => None,
        };
        let message = match range {
            Some(range) => format!("bad board '{name}': {range}"),
            None => format!(
                "unknown board '{name}' (built-in: maoershan, petersen, path:N, cycle:N, complete:N, star:N, grid:RxC; at most {MAX_POINTS} points)"
            ),
        };
        RegistryError::option(Opt::Board, message)
    })
}

/// The host graph and the pieces on it, as the page draws them.
fn graph_view(game: &GraphGame, present: Points) -> BoardView {
    let g = game.graph();
    let n = g.len();
    let mut edges = Vec::new();
    for a in 0..n {
        let nb = g.neighbours(a);
        for b in a + 1..n {
            if nb >> b & 1 == 1 {
                edges.push([a + 1, b + 1]);
            }
        }
    }
    BoardView::Graph {
        name: g.name.clone(),
        points: n,
        edges,
        present: (0..n).map(|k| present >> k & 1 == 1).collect(),
    }
}

/// The dense form of the graph games (both families): the present vertices below a
/// position, keyed by the graph's id and the rule's name.
macro_rules! graph_dense_form {
    ($family:ident) => {
        impl DenseForm for $family {
            type Dense = GraphDense;

            fn dense(&self, game: &GraphGame, &p: &Points) -> Result<GraphDense, String> {
                GraphDense::new(game, p)
            }

            fn below(&self, game: &GraphGame, _: &Points, start: u128) -> Option<GraphDense> {
                GraphDense::new(game, start).ok()
            }

            fn locate(&self, dense: &GraphDense, &p: &Points) -> Option<(u32, u64)> {
                dense.locate(p)
            }

            fn top_tier(&self, dense: &GraphDense) -> u32 {
                dense.top_tier()
            }

            fn geometry(&self, game: &GraphGame, _: &Points) -> String {
                game.graph().id()
            }

            fn rule(&self, game: &GraphGame) -> String {
                game.rule_name().to_string()
            }

            fn mask(&self, &p: &Points) -> u128 {
                p
            }
        }
    };
}

graph_dense_form!(PointsFamily);
graph_dense_form!(GraphFamily);

/// Pieces on the points of a graph (`--board`, `--graph`), as a family of the registry.
pub struct PointsFamily;

impl Family for PointsFamily {
    type Game = GraphGame;
    const DESCRIPTION: Description = Description {
        name: "points",
        aliases: &["maoershan"],
        notation: "pieces on a graph's points as a 0/1 string (--board, --graph, --rule)",
        example: "110000000011",
        misere: true,
        engine: Engine::Memo,
        options: &[Opt::Board, Opt::Graph, Opt::Rule],
        table: None,
        dense: true,
        code: None,
        continues_as: None,
        presets: &[],
        // At most 128 points: never many moves.
        estimate_moves: |_| 0,
        sample: points_sample,
    };

    fn build(&self, _: &str, opts: &FamilyOptions, text: &str) -> Result<(GraphGame, Points), RegistryError> {
        let rule = rule_of(opts)?;
        let graph = match (&opts.board, &opts.graph) {
            (Some(_), Some(_)) => {
                return Err(RegistryError::option(
                    Opt::Graph,
                    "give either --board or --graph, not both",
                ))
            }
            (_, Some((name, text))) => Graph::parse_edge_list(name, text)
                .map_err(|e| RegistryError::option(Opt::Graph, format!("bad graph file {name}: {e}")))?,
            (board, None) => builtin(board.as_deref().unwrap_or("maoershan"))?,
        };
        let game = GraphGame::new(graph, rule);
        let p = game
            .parse_position(text)
            .map_err(|e| RegistryError::position("points", e))?;
        Ok((game, p))
    }

    fn board(&self, game: &GraphGame, &p: &Points) -> BoardView {
        graph_view(game, p)
    }

    fn position_id(&self, game: &GraphGame, _: &Points) -> String {
        game.graph().id()
    }

    fn with_dense<A: WithDense>(&self, game: &GraphGame, p: &Points, action: A) -> Option<A::Output> {
        Some(action.run(self, game, p))
    }
}

/// A whole graph (its edge list is the position, or `--board`), as a family of the registry.
pub struct GraphFamily;

impl Family for GraphFamily {
    type Game = GraphGame;
    const DESCRIPTION: Description = Description {
        name: "graph",
        aliases: &[],
        notation: "a whole graph from an edge-list FILE or --board (--rule node-kayles, ...)",
        example: "1 2\n2 3\n3 1\n3 4",
        misere: true,
        engine: Engine::Memo,
        options: &[Opt::Board, Opt::Graph, Opt::Rule],
        table: None,
        dense: true,
        code: None,
        continues_as: Some("points"),
        presets: &[],
        estimate_moves: |_| 0,
        sample: graph_sample,
    };

    /// With `--board` the board is the whole position, and the text is empty.
    fn position_from_options(&self, opts: &FamilyOptions) -> bool {
        opts.board.is_some()
    }

    fn build(&self, _: &str, opts: &FamilyOptions, text: &str) -> Result<(GraphGame, Points), RegistryError> {
        let rule = rule_of(opts)?;
        if opts.graph.is_some() {
            return Err(RegistryError::option(
                Opt::Graph,
                "for the graph family the edge-list file is the position: grundy solve graph FILE",
            ));
        }
        let graph = match &opts.board {
            Some(name) if text.trim().is_empty() => builtin(name)?,
            Some(_) => {
                return Err(RegistryError::option(
                    Opt::Board,
                    "give either a graph file or --board, not both",
                ))
            }
            None => Graph::parse_edge_list("graph", text).map_err(|e| RegistryError::position("graph", e))?,
        };
        let game = GraphGame::new(graph, rule);
        let p = game.full();
        Ok((game, p))
    }

    fn board(&self, game: &GraphGame, &p: &Points) -> BoardView {
        graph_view(game, p)
    }

    fn position_id(&self, game: &GraphGame, _: &Points) -> String {
        game.graph().id()
    }

    fn with_dense<A: WithDense>(&self, game: &GraphGame, p: &Points, action: A) -> Option<A::Output> {
        Some(action.run(self, game, p))
    }
}

/// A random edge list on 2 to 7 points (the first line declares them, so some may be
/// isolated).
fn sample_edges(r: &mut Seeded) -> String {
    let n = r.range(2, 7);
    let mut lines = vec![format!("points {n}")];
    for a in 1..=n {
        for b in a + 1..=n {
            if r.chance(35) {
                lines.push(format!("{a} {b}"));
            }
        }
    }
    lines.join("\n")
}

/// A random rule.
fn sample_rule(r: &mut Seeded) -> Option<String> {
    Some(r.pick(&Rule::ALL).0.to_string())
}

/// Pieces on a small graph: a built-in board of at most 7 points or a random edge list
/// (`--graph`), about three points in four present, under a random rule.
fn points_sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let mut options = FamilyOptions {
        rule: sample_rule(&mut r),
        ..FamilyOptions::default()
    };
    let n = if r.chance(50) {
        let text = sample_edges(&mut r);
        let n = Graph::parse_edge_list("sample", &text).map_or(1, |g| g.len());
        options.graph = Some(("sample".into(), text));
        n
    } else {
        let name = r.pick(&["path:5", "cycle:6", "star:4", "grid:2x3", "complete:4", "path:7"]);
        let n = Graph::builtin(name).map_or(1, |g| g.len());
        options.board = Some(name.into());
        n
    };
    let text = (0..n).map(|_| if r.chance(75) { '1' } else { '0' }).collect();
    Sample { text, options }
}

/// A whole random graph on 2 to 7 points under a random rule.
fn graph_sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let options = FamilyOptions {
        rule: sample_rule(&mut r),
        ..FamilyOptions::default()
    };
    Sample {
        text: sample_edges(&mut r),
        options,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::{Nimber, Outcome};
    use grundy_solve::{analysis::Analyzer, Convention};

    #[test]
    fn maoershan_sample() {
        let g = GraphGame::new(Graph::maoershan(), Rule::OneOrTwo);
        let mut an = Analyzer::new(&g);
        let answers: Vec<Outcome> = ["110000000000", "100000000000", "110000000011"]
            .iter()
            .map(|s| {
                an.outcome(&g.parse_position(s).unwrap(), Convention::Misere)
                    .unwrap()
            })
            .collect();
        assert_eq!(answers, vec![Outcome::First, Outcome::Second, Outcome::First]);
    }

    #[test]
    fn kayles_on_paths_is_octal_0_77() {
        // Node Kayles on a path of n vertices is Dawson's Kayles (0.137 at n); one-or-two on a
        // path is Kayles (0.77).
        let kayles = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2];
        let dawson = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
        for n in 1..20 {
            let path = Graph::builtin(&format!("path:{n}")).unwrap();
            let k = GraphGame::new(path.clone(), Rule::OneOrTwo);
            let d = GraphGame::new(path, Rule::NodeKayles);
            assert_eq!(
                Analyzer::new(&k).grundy(&k.full()).unwrap(),
                Some(Nimber(kayles[n])),
                "kayles {n}"
            );
            assert_eq!(
                Analyzer::new(&d).grundy(&d.full()).unwrap(),
                Some(Nimber(dawson[n])),
                "dawson {n}"
            );
        }
    }

    #[test]
    fn dense_agrees_with_the_engines() {
        use grundy_solve::dense::{DenseSolver, Record};
        for (board, rule) in [
            ("petersen", Rule::NodeKayles),
            ("grid:3x3", Rule::ArcKayles),
            ("cycle:9", Rule::OneOrTwo),
        ] {
            let game = GraphGame::new(Graph::builtin(board).unwrap(), rule);
            let p = game.full() & !2; // one vertex missing, so locate() relabels
            let dense = GraphDense::new(&game, p).unwrap();
            for conv in [Convention::Normal, Convention::Misere] {
                let table = DenseSolver::new(&dense)
                    .record(Record::Remoteness)
                    .convention(conv)
                    .keep_all(true)
                    .solve(dense.top_tier())
                    .unwrap();
                let mut an = Analyzer::new(&game);
                let mut q = p;
                // The start and a few positions below it.
                for _ in 0..4 {
                    let (t, i) = dense.locate(q).unwrap();
                    let v = table.value(t, i).unwrap();
                    let r = an.remote(&q, conv).unwrap();
                    assert_eq!(
                        (v.outcome, v.remoteness),
                        (r.outcome, Some(r.remoteness as u16)),
                        "{board} {q:b}"
                    );
                    let mut next = None;
                    game.moves(&q, |_, r| {
                        next.get_or_insert(r);
                    });
                    match next {
                        Some(r) => q = r,
                        None => break,
                    }
                }
            }
        }
    }

    #[test]
    fn position_errors() {
        let g = GraphGame::new(Graph::maoershan(), Rule::OneOrTwo);
        assert_eq!(g.parse_position("1100").unwrap_err().span.column, 5);
        assert_eq!(g.parse_position("11000000000012").unwrap_err().span.column, 13);
        assert_eq!(g.parse_position("11a").unwrap_err().span.column, 3);
    }


}

/// A graph spec (`kind = "graph"`): a built-in rule on a built-in board or on the edges the
/// file lists.
///
/// ```toml
/// kind = "graph"
/// rule = "node-kayles"       # take-vertex, one-or-two, node-kayles, arc-kayles
/// board = "petersen"         # or: edges = [[1, 2], [2, 3]] (points from 1), points = 4
/// ```
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphSpec {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    rule: toml::Spanned<String>,
    board: Option<toml::Spanned<String>>,
    edges: Option<toml::Spanned<Vec<[u64; 2]>>>,
    points: Option<toml::Spanned<u64>>,
}

/// The family and options a graph spec stands for: `points` (positions are 0/1 strings of
/// the points holding a piece) on the spec's board or edges, with its rule.
pub fn spec_options(
    file: &crate::gamefile::GameFile,
    opts: &FamilyOptions,
) -> Result<(String, FamilyOptions), crate::gamefile::SpecError> {
    let spec: GraphSpec = file.spec()?;
    if Rule::from_name(spec.rule.get_ref()).is_none() {
        let known: Vec<&str> = Rule::ALL.iter().map(|r| r.0).collect();
        return Err(file.error_at(
            spec.rule.span(),
            format!("unknown rule '{}' (known: {})", spec.rule.get_ref(), known.join(", ")),
        ));
    }
    let mut out = FamilyOptions {
        game: None,
        rule: Some(spec.rule.get_ref().clone()),
        ..opts.clone()
    };
    match (&spec.board, &spec.edges) {
        (Some(board), None) => {
            if let Err(e) = builtin(board.get_ref()) {
                return Err(file.error_at(board.span(), e.to_string()));
            }
            if let Some(p) = &spec.points {
                return Err(file.error_at(p.span(), "points goes with edges, not with a board"));
            }
            out.board = Some(board.get_ref().clone());
        }
        (None, Some(edges)) => {
            let mut text = String::new();
            if let Some(p) = &spec.points {
                text.push_str(&format!("points {}\n", p.get_ref()));
            }
            for [a, b] in edges.get_ref() {
                text.push_str(&format!("{a} {b}\n"));
            }
            if let Err(e) = Graph::parse_edge_list(file.source(), &text) {
                return Err(file.error_at(edges.span(), e.message));
            }
            out.graph = Some((file.source().to_string(), text));
        }
        (Some(b), Some(_)) => return Err(file.error_at(b.span(), "give either board or edges, not both")),
        (None, None) => return Err(file.error(1, 1, "a graph spec needs a board (board = \"petersen\") or edges")),
    }
    Ok(("points".into(), out))
}
