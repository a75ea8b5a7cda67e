//! Canonical labelling of small graphs, so isomorphic components share one memo entry.
//!
//! Individualisation–refinement: the vertices are ordered by an equitable partition
//! (refined by neighbour counts), ties are broken by trying each vertex of the first
//! smallest non-singleton cell, and the least adjacency matrix over the leaves is the
//! canonical form. The search is capped; past the cap the graph keeps the labelling it came
//! with — still a correct key (equal keys are equal graphs), it only shares less.

/// Most vertices in one component.
pub const MAX_VERTICES: usize = 128;

/// Leaves of the search tree tried before giving up on canonicity.
const MAX_LEAVES: usize = 2048;

/// A graph on vertices 0..n as adjacency rows (bit j of row i: edge i–j), canonically
/// labelled when [`CanonGraph::new`] could afford it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CanonGraph {
    rows: Box<[u128]>,
}

impl CanonGraph {
    /// The canonical form of the graph with adjacency rows `adj` (symmetric, no loops).
    pub fn new(adj: &[u128]) -> CanonGraph {
        let n = adj.len();
        debug_assert!(n <= MAX_VERTICES);
        if n <= 1 {
            return CanonGraph { rows: adj.into() };
        }
        let all: u128 = if n == 128 { u128::MAX } else { (1u128 << n) - 1 };
        // Initial partition: by degree, ascending.
        let mut by_degree: Vec<(u32, usize)> = (0..n).map(|v| (adj[v].count_ones(), v)).collect();
        by_degree.sort_unstable();
        let mut cells: Vec<u128> = Vec::new();
        let mut last = None;
        for (d, v) in by_degree {
            if last == Some(d) {
                *cells.last_mut().expect("a cell was started") |= 1 << v;
            } else {
                cells.push(1 << v);
                last = Some(d);
            }
        }
        debug_assert_eq!(cells.iter().fold(0, |a, c| a | c), all);
        refine(adj, &mut cells);
        let mut best: Option<Vec<u128>> = None;
        let mut leaves = 0;
        let mut stack = vec![cells];
        while let Some(p) = stack.pop() {
            let target = p
                .iter()
                .enumerate()
                .filter(|(_, c)| c.count_ones() > 1)
                .min_by_key(|(i, c)| (c.count_ones(), *i))
                .map(|(i, _)| i);
            let Some(t) = target else {
                leaves += 1;
                let order: Vec<usize> = p.iter().map(|c| c.trailing_zeros() as usize).collect();
                let cert = relabel(adj, &order);
                if best.as_ref().is_none_or(|b| cert < *b) {
                    best = Some(cert);
                }
                if leaves >= MAX_LEAVES {
                    return CanonGraph { rows: adj.into() };
                }
                continue;
            };
            let mut rest = p[t];
            while rest != 0 {
                let v = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut q = Vec::with_capacity(p.len() + 1);
                q.extend_from_slice(&p[..t]);
                q.push(1 << v);
                q.push(p[t] & !(1u128 << v));
                q.extend_from_slice(&p[t + 1..]);
                refine(adj, &mut q);
                stack.push(q);
            }
        }
        CanonGraph {
            rows: best.expect("the search reaches a leaf").into_boxed_slice(),
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True for the graph without vertices.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adjacency rows.
    pub fn rows(&self) -> &[u128] {
        &self.rows
    }
}

/// The adjacency rows of `adj` with vertex `order[i]` renamed `i`.
fn relabel(adj: &[u128], order: &[usize]) -> Vec<u128> {
    let mut pos = [0usize; MAX_VERTICES];
    for (i, &v) in order.iter().enumerate() {
        pos[v] = i;
    }
    order
        .iter()
        .map(|&v| {
            let mut row = 0u128;
            let mut nb = adj[v];
            while nb != 0 {
                let w = nb.trailing_zeros() as usize;
                nb &= nb - 1;
                row |= 1 << pos[w];
            }
            row
        })
        .collect()
}

/// Refines the ordered partition `cells` until it is equitable: every vertex of a cell has
/// the same number of neighbours in every cell. Split pieces are ordered by that number.
fn refine(adj: &[u128], cells: &mut Vec<u128>) {
    let mut changed = true;
    while changed {
        changed = false;
        let mut s = 0;
        while s < cells.len() {
            let splitter = cells[s];
            let mut i = 0;
            while i < cells.len() {
                let cell = cells[i];
                if cell.count_ones() > 1 {
                    let mut groups: Vec<(u32, u128)> = Vec::new();
                    let mut m = cell;
                    while m != 0 {
                        let v = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let k = (adj[v] & splitter).count_ones();
                        match groups.iter_mut().find(|g| g.0 == k) {
                            Some(g) => g.1 |= 1 << v,
                            None => groups.push((k, 1 << v)),
                        }
                    }
                    if groups.len() > 1 {
                        groups.sort_unstable_by_key(|g| g.0);
                        let pieces: Vec<u128> = groups.iter().map(|g| g.1).collect();
                        let n = pieces.len();
                        cells.splice(i..=i, pieces);
                        i += n;
                        changed = true;
                        continue;
                    }
                }
                i += 1;
            }
            s += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn from_edges(n: usize, edges: &[(usize, usize)]) -> Vec<u128> {
        let mut adj = vec![0u128; n];
        for &(a, b) in edges {
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        adj
    }

    #[test]
    fn paths_labelled_differently_agree() {
        let a = from_edges(4, &[(0, 1), (1, 2), (2, 3)]);
        let b = from_edges(4, &[(2, 0), (0, 3), (3, 1)]);
        assert_eq!(CanonGraph::new(&a), CanonGraph::new(&b));
        let star = from_edges(4, &[(0, 1), (0, 2), (0, 3)]);
        assert_ne!(CanonGraph::new(&a), CanonGraph::new(&star));
    }

    fn graph() -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
        (1usize..9).prop_flat_map(|n| {
            let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
            let m = pairs.len();
            (
                Just(n),
                proptest::collection::vec(any::<bool>(), m).prop_map(move |keep| {
                    pairs
                        .iter()
                        .zip(keep)
                        .filter(|(_, k)| *k)
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                }),
            )
        })
    }

    proptest! {
        #[test]
        fn invariant_under_relabelling((n, edges) in graph(), seed: u64) {
            // A pseudo-random permutation of the vertices.
            let mut perm: Vec<usize> = (0..n).collect();
            let mut x = seed | 1;
            for i in (1..n).rev() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                perm.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let a = from_edges(n, &edges);
            let b = from_edges(n, &edges.iter().map(|&(u, v)| (perm[u], perm[v])).collect::<Vec<_>>());
            let (ca, cb) = (CanonGraph::new(&a), CanonGraph::new(&b));
            prop_assert_eq!(&ca, &cb);
            // The canonical form is the same graph: same degree sequence.
            let mut da: Vec<u32> = a.iter().map(|r| r.count_ones()).collect();
            let mut dc: Vec<u32> = ca.rows().iter().map(|r| r.count_ones()).collect();
            da.sort_unstable();
            dc.sort_unstable();
            prop_assert_eq!(da, dc);
        }
    }
}
