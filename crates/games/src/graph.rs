//! Graphs for the graph games: the host graph a position lives on, read from an edge-list
//! file or taken from the built-in boards, and the split of a set of vertices into its
//! connected groups.

use grundy_core::{tokens, ParseError};

/// Most points (vertices) a graph may have.
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
    pub fn new(name: impl Into<String>, n: usize, edges: &[(usize, usize)]) -> Result<Graph, String> {
        if n > MAX_POINTS {
            return Err(format!("{n} points is more than the {MAX_POINTS} supported"));
        }
        let mut adj = vec![0u128; n];
        for &(a, b) in edges {
            if a >= n || b >= n {
                return Err(format!("edge {}-{} names a point outside 1..{n}", a + 1, b + 1));
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
        let lines: [&[usize]; 4] = [&[3, 4, 5, 6], &[7, 8, 9, 10], &[1, 4, 8, 11], &[2, 5, 9, 12]];
        let mut edges = Vec::new();
        for line in lines {
            for w in line.windows(2) {
                edges.push((w[0] - 1, w[1] - 1));
            }
        }
        Graph::new("maoershan", 12, &edges).expect("the built-in board is valid")
    }

    /// A built-in board by name: `maoershan`, `path:N`, `cycle:N`, `complete:N`, `star:N`
    /// (a centre and N leaves), `grid:RxC`, `petersen`.
    pub fn builtin(name: &str) -> Option<Graph> {
        let (kind, arg) = name.split_once(':').unwrap_or((name, ""));
        let num = |s: &str| s.parse::<usize>().ok().filter(|&n| (1..=MAX_POINTS).contains(&n));
        let mut edges = Vec::new();
        let n = match kind {
            "maoershan" if arg.is_empty() => return Some(Graph::maoershan()),
            "petersen" if arg.is_empty() => {
                for i in 0..5 {
                    edges.extend([(i, (i + 1) % 5), (i, i + 5), (i + 5, (i + 2) % 5 + 5)]);
                }
                10
            }
            "path" => {
                let n = num(arg)?;
                edges.extend((1..n).map(|i| (i - 1, i)));
                n
            }
            "cycle" => {
                let n = num(arg).filter(|&n| n >= 3)?;
                edges.extend((0..n).map(|i| (i, (i + 1) % n)));
                n
            }
            "complete" => {
                let n = num(arg)?;
                edges.extend((0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))));
                n
            }
            "star" => {
                let n = num(arg)? + 1;
                edges.extend((1..n).map(|i| (0, i)));
                n
            }
            "grid" => {
                let (r, c) = arg.split_once(['x', 'X'])?;
                let (r, c) = (num(r)?, num(c)?);
                if r * c > MAX_POINTS {
                    return None;
                }
                for i in 0..r {
                    for j in 0..c {
                        if j + 1 < c {
                            edges.push((i * c + j, i * c + j + 1));
                        }
                        if i + 1 < r {
                            edges.push((i * c + j, (i + 1) * c + j));
                        }
                    }
                }
                r * c
            }
            _ => return None,
        };
        Graph::new(name, n, &edges).ok()
    }

    /// The subgraph induced by `set`, relabelled 0..k in increasing order of point:
    /// its adjacency rows.
    pub fn induced(&self, set: Points) -> Vec<u128> {
        let mut index = [0u8; MAX_POINTS];
        let mut k = 0;
        let mut m = set;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            index[v] = k;
            k += 1;
        }
        let mut rows = Vec::with_capacity(k as usize);
        let mut m = set;
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut row = 0u128;
            let mut nb = self.adj[v] & set;
            while nb != 0 {
                let w = nb.trailing_zeros() as usize;
                nb &= nb - 1;
                row |= 1 << index[w];
            }
            rows.push(row);
        }
        rows
    }

    /// The graph with adjacency rows `rows` (symmetric, loop-free), as a host graph.
    pub fn from_rows(name: impl Into<String>, rows: &[u128]) -> Graph {
        Graph {
            name: name.into(),
            adj: rows.to_vec(),
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
                    return Err(ParseError::new(li + 1, first.span.column, "expected 'points N'"));
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
                    .number("point", MAX_POINTS as u64)
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
                        format!("unknown point {}: the graph has points 1..{d}", a.max(b) + 1),
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

    /// A checksum of the graph's structure (points and edges), so a position on it is
    /// found again in the store whatever file or board name it came from.
    pub fn id(&self) -> String {
        // FNV-1a over the number of points and the adjacency rows: stable across versions
        // and platforms, unlike std's hasher.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(&(self.adj.len() as u64).to_le_bytes());
        for row in &self.adj {
            eat(&row.to_le_bytes());
        }
        format!("{h:016x}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_the_structure_not_the_source() {
        let path = Graph::builtin("path:3").unwrap();
        let file = Graph::parse_edge_list("edges.txt", "1 2\n2 3").unwrap();
        assert_eq!(path.id(), file.id());
        assert_ne!(path.id(), Graph::builtin("cycle:3").unwrap().id());
        assert_ne!(path.id(), Graph::builtin("path:4").unwrap().id());
        assert_ne!(
            Graph::from_rows("a", &[0, 0]).id(),
            Graph::from_rows("a", &[0, 0, 0]).id()
        );
    }

    #[test]
    fn builtin_boards() {
        assert_eq!(Graph::builtin("path:5").unwrap().len(), 5);
        assert_eq!(Graph::builtin("grid:3x4").unwrap().len(), 12);
        assert_eq!(Graph::builtin("petersen").unwrap().neighbours(0).count_ones(), 3);
        assert!(Graph::builtin("cycle:2").is_none());
        assert!(Graph::builtin("path:0").is_none());
        assert!(Graph::builtin("grid:20x20").is_none());
        assert!(Graph::builtin("nothing").is_none());
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
}
