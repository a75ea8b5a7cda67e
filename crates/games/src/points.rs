//! Pieces on the points of a graph (NEFU 1356 and its generalisation): a move removes one
//! piece, or two pieces on adjacent points.
//!
//! Under normal play the occupied points split into connected groups, each a component (a
//! bitmask of points). The built-in board `maoershan` is the 12-point board of NEFU 1356;
//! any other graph comes from an edge-list file (see [`Graph::parse_edge_list`]).
//!
//! Notation: a position is a string of `0`/`1`, character k telling whether point k+1 holds a
//! piece (`110000000011`). A move is `P` (take the piece on point P) or `P-Q` (take the pieces
//! on adjacent points P and Q), points numbered from 1.

use grundy_core::{tokens, Game, ParseError, Ruleset};

/// Most points a graph may have.
pub const MAX_POINTS: usize = 128;

/// A set of points, bit k for point k+1.
pub type Points = u128;

/// An undirected simple graph on at most [`MAX_POINTS`] points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Name shown to users.
    pub name: String,
    adj: Vec<Points>,
}

impl Graph {
    /// A graph on `n` points with the given edges (0-based), checked.
    pub fn new(
        name: impl Into<String>,
        n: usize,
        edges: &[(usize, usize)],
    ) -> Result<Graph, String> {
        if n > MAX_POINTS {
            return Err(format!(
                "{n} points is more than the {MAX_POINTS} supported"
            ));
        }
        let mut adj = vec![0u128; n];
        for &(a, b) in edges {
            if a >= n || b >= n {
                return Err(format!(
                    "edge {}-{} names a point outside 1..{n}",
                    a + 1,
                    b + 1
                ));
            }
            if a == b {
                return Err(format!("self-loop at point {}", a + 1));
            }
            if adj[a] >> b & 1 == 1 {
                return Err(format!("duplicate edge {}-{}", a + 1, b + 1));
            }
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        Ok(Graph {
            name: name.into(),
            adj,
        })
    }

    /// The 12-point board of NEFU 1356: points 1..12 in rows 1 2 / 3 4 5 6 / 7 8 9 10 / 11 12,
    /// on the lines 3-4-5-6, 7-8-9-10, 1-4-8-11 and 2-5-9-12.
    pub fn maoershan() -> Graph {
        let lines: [&[usize]; 4] = [
            &[3, 4, 5, 6],
            &[7, 8, 9, 10],
            &[1, 4, 8, 11],
            &[2, 5, 9, 12],
        ];
        let mut edges = Vec::new();
        for line in lines {
            for w in line.windows(2) {
                edges.push((w[0] - 1, w[1] - 1));
            }
        }
        Graph::new("maoershan", 12, &edges).expect("the built-in board is valid")
    }

    /// A built-in board by name.
    pub fn builtin(name: &str) -> Option<Graph> {
        match name {
            "maoershan" => Some(Graph::maoershan()),
            _ => None,
        }
    }

    /// Reads an edge list: one edge `P Q` per line (points numbered from 1), blank lines and
    /// `#` comments ignored, and an optional first line `points N` for points without edges
    /// (otherwise the largest point named sets the count).
    pub fn parse_edge_list(name: &str, text: &str) -> Result<Graph, ParseError> {
        let mut declared: Option<usize> = None;
        let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new(); // (a, b, line, col)
        let mut max_point = 0;
        for (li, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("");
            let toks = tokens(line);
            let Some(first) = toks.first() else { continue };
            let place = |t: &grundy_core::Token| (li + 1, t.span.column);
            if first.text == "points" || first.text == "vertices" {
                if declared.is_some() || !edges.is_empty() {
                    return Err(ParseError::new(
                        li + 1,
                        first.span.column,
                        "'points N' must come first, once",
                    ));
                }
                let Some(n) = toks.get(1) else {
                    return Err(ParseError::new(
                        li + 1,
                        first.span.column,
                        "expected 'points N'",
                    ));
                };
                let mut n_tok = *n;
                n_tok.span.line = li + 1;
                declared = Some(
                    n_tok
                        .number("number of points", MAX_POINTS as u64)
                        .map_err(|mut e| {
                            e.span.line = li + 1;
                            e
                        })? as usize,
                );
                continue;
            }
            if toks.len() != 2 {
                let (l, c) = place(toks.get(2).unwrap_or(first));
                return Err(ParseError::new(
                    l,
                    c,
                    "expected an edge 'P Q' (two point numbers)",
                ));
            }
            let mut ends = [0usize; 2];
            for (k, t) in toks.iter().enumerate() {
                let (l, c) = place(t);
                let v = t
                    .number("point", u64::MAX)
                    .map_err(|e| ParseError::new(l, c, e.message))?;
                if v == 0 {
                    return Err(ParseError::new(l, c, "points are numbered from 1"));
                }
                if v > MAX_POINTS as u64 {
                    return Err(ParseError::new(
                        l,
                        c,
                        format!("point {v}: at most {MAX_POINTS} points are supported"),
                    ));
                }
                ends[k] = v as usize - 1;
            }
            let (a, b) = (ends[0], ends[1]);
            if a == b {
                return Err(ParseError::new(
                    li + 1,
                    toks[1].span.column,
                    format!("self-loop at point {}", a + 1),
                ));
            }
            if let Some(d) = declared {
                if a >= d || b >= d {
                    let t = if a >= d { &toks[0] } else { &toks[1] };
                    return Err(ParseError::new(
                        li + 1,
                        t.span.column,
                        format!(
                            "unknown point {}: the graph has points 1..{d}",
                            a.max(b) + 1
                        ),
                    ));
                }
            }
            if let Some(&(_, _, l0, _)) = edges
                .iter()
                .find(|e| (e.0, e.1) == (a, b) || (e.0, e.1) == (b, a))
            {
                return Err(ParseError::new(
                    li + 1,
                    first.span.column,
                    format!("duplicate edge {}-{} (first on line {l0})", a + 1, b + 1),
                ));
            }
            max_point = max_point.max(a + 1).max(b + 1);
            edges.push((a, b, li + 1, first.span.column));
        }
        let n = declared.unwrap_or(max_point);
        if n == 0 {
            return Err(ParseError::new(
                1,
                1,
                "the graph has no points: give edges 'P Q' or 'points N'",
            ));
        }
        let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.0, e.1)).collect();
        Graph::new(name, n, &pairs).map_err(|m| ParseError::new(1, 1, m))
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.adj.len()
    }

    /// True for the graph without points.
    pub fn is_empty(&self) -> bool {
        self.adj.is_empty()
    }

    /// The points adjacent to point `v` (0-based).
    pub fn neighbours(&self, v: usize) -> Points {
        self.adj[v]
    }

    /// The connected groups of `set`, each as a bitmask, in increasing order of lowest point.
    pub fn split(&self, mut set: Points) -> Vec<Points> {
        let mut out = Vec::new();
        while set != 0 {
            let mut comp: Points = set & set.wrapping_neg();
            let mut frontier = comp;
            while frontier != 0 {
                let v = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let new = self.adj[v] & set & !comp;
                comp |= new;
                frontier |= new;
            }
            set &= !comp;
            out.push(comp);
        }
        out
    }
}

/// The game of taking one piece or two adjacent pieces, on one graph.
#[derive(Clone, Debug)]
pub struct PointsGame {
    graph: Graph,
}

impl PointsGame {
    /// The game on `graph`.
    pub fn new(graph: Graph) -> PointsGame {
        PointsGame { graph }
    }

    /// The board.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    fn each_move(&self, set: Points, mut f: impl FnMut(Points)) {
        let mut s = set;
        while s != 0 {
            let v = s.trailing_zeros() as usize;
            s &= s - 1;
            f(1 << v);
            let mut higher = self.graph.adj[v] & set & !((1u128 << v) | ((1u128 << v) - 1));
            while higher != 0 {
                let w = higher.trailing_zeros() as usize;
                higher &= higher - 1;
                f((1 << v) | (1 << w));
            }
        }
    }
}

impl Ruleset for PointsGame {
    type Component = Points;

    fn options<F: FnMut(&[Points])>(&self, &c: &Points, mut emit: F) {
        self.each_move(c, |taken| {
            let parts = self.graph.split(c & !taken);
            emit(&parts);
        });
    }

    fn size_hint(&self, c: &Points) -> usize {
        c.count_ones() as usize
    }
}

impl Game for PointsGame {
    type Position = Points;
    /// The points emptied by the move.
    type Move = Points;

    fn parse_position(&self, text: &str) -> Result<Points, ParseError> {
        let n = self.graph.len();
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
                        format!("too many points: the board '{}' has {n}", self.graph.name),
                    ))
                }
                c => {
                    return Err(ParseError::new(
                        t.span.line,
                        col,
                        format!("expected '0' or '1', found '{}'", c.escape_default()),
                    ))
                }
            }
        }
        let len = t.text.chars().count();
        if len < n {
            return Err(ParseError::new(
                t.span.line,
                t.span.column + len,
                format!(
                    "too few points: {len} given, the board '{}' has {n}",
                    self.graph.name
                ),
            ));
        }
        Ok(set)
    }

    fn components(&self, &p: &Points) -> Vec<Points> {
        self.graph.split(p)
    }

    fn moves<F: FnMut(Points, Points)>(&self, &p: &Points, mut emit: F) {
        self.each_move(p, |taken| emit(taken, p & !taken));
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

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::Outcome;
    use grundy_solve::{analysis::Analyzer, brute, Convention};
    use proptest::prelude::*;

    #[test]
    fn maoershan_sample() {
        let g = PointsGame::new(Graph::maoershan());
        let mut an = Analyzer::new(&g);
        let answers: Vec<Outcome> = ["110000000000", "100000000000", "110000000011"]
            .iter()
            .map(|s| {
                an.outcome(&g.parse_position(s).unwrap(), Convention::Misere)
                    .unwrap()
            })
            .collect();
        assert_eq!(
            answers,
            vec![Outcome::First, Outcome::Second, Outcome::First]
        );
    }

    #[test]
    fn edge_list_errors() {
        let e = Graph::parse_edge_list("g", "1 2\n2 2\n").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (2, 3));
        let e = Graph::parse_edge_list("g", "1 2\n2 1\n").unwrap_err();
        assert_eq!(e.span.line, 2);
        let e = Graph::parse_edge_list("g", "points 3\n1 4\n").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (2, 3));
        let e = Graph::parse_edge_list("g", "1 x\n").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 3));
        assert!(Graph::parse_edge_list("g", "1 200\n").is_err());
        assert!(Graph::parse_edge_list("g", "").is_err());
        let g = Graph::parse_edge_list("g", "# a path\npoints 4\n1 2\n2 3 # middle\n").unwrap();
        assert_eq!(g.len(), 4);
    }

    #[test]
    fn position_errors() {
        let g = PointsGame::new(Graph::maoershan());
        assert_eq!(g.parse_position("1100").unwrap_err().span.column, 5);
        assert_eq!(
            g.parse_position("11000000000012").unwrap_err().span.column,
            13
        );
        assert_eq!(g.parse_position("11a").unwrap_err().span.column, 3);
    }

    fn graph() -> impl Strategy<Value = Graph> {
        (1usize..8).prop_flat_map(|n| {
            proptest::collection::vec(proptest::bool::weighted(0.35), n * (n - 1) / 2).prop_map(
                move |bits| {
                    let mut edges = Vec::new();
                    let mut k = 0;
                    for a in 0..n {
                        for b in a + 1..n {
                            if bits[k] {
                                edges.push((a, b));
                            }
                            k += 1;
                        }
                    }
                    Graph::new("random", n, &edges).unwrap()
                },
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_brute_force(g in graph(), bits: u8) {
            let game = PointsGame::new(g);
            let p = (bits as u128) & ((1u128 << game.graph().len()) - 1);
            for conv in [Convention::Normal, Convention::Misere] {
                let a = Analyzer::new(&game).analyze(&p, conv).unwrap();
                prop_assert_eq!(a.outcome, brute::outcome(&game, &p, conv));
                let mut w: Vec<String> = a.winning_moves.iter().map(|m| game.format_move(m)).collect();
                w.sort();
                prop_assert_eq!(w, brute::winning_moves(&game, &p, conv));
                let r = Analyzer::new(&game).remote(&p, conv).unwrap();
                prop_assert_eq!((r.outcome, r.remoteness), brute::remote(&game, &p, conv));
                if conv == Convention::Normal {
                    prop_assert_eq!(a.grundy, Some(brute::grundy(&game, &p)));
                }
            }
        }
    }
}
