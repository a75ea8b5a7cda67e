//! Subtraction games: a finite set (each value is the mex of at most |S| earlier ones) and
//! all-but sets (every earlier heap is an option except |E| of them, so the value is the
//! least value whose every occurrence so far is among those few).

use super::store::Cell;

/// G(n) = mex { G(n - s) : s in S, s ≤ n }.
#[derive(Clone, Debug)]
pub struct Finite {
    set: Vec<usize>,
    mex: Vec<u64>,
}

impl Finite {
    /// The engine for the sorted set `set`.
    pub fn new(set: &[u64]) -> Finite {
        Finite {
            set: set.iter().map(|&s| s as usize).collect(),
            mex: vec![0; set.len() / 64 + 1],
        }
    }

    /// Computes `cells[from..to]` (values never exceed |S|, so they always fit).
    pub fn compute<T: Cell>(&mut self, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
        let limit = self.set.len();
        for n in from..to {
            self.mex.iter_mut().for_each(|w| *w = 0);
            for &s in &self.set {
                if s > n {
                    break;
                }
                let v = cells[n - s].get();
                if v <= limit {
                    self.mex[v >> 6] |= 1 << (v & 63);
                }
            }
            let g = mex_of(&self.mex);
            if g > T::MAX {
                return Err(n);
            }
            cells[n] = T::put(g);
        }
        Ok(())
    }
}

fn mex_of(words: &[u64]) -> usize {
    for (i, &w) in words.iter().enumerate() {
        if w != u64::MAX {
            return i * 64 + (!w).trailing_zeros() as usize;
        }
    }
    words.len() * 64
}

/// G(n) = mex { G(m) : m < n, n - m not in E }.
#[derive(Clone, Debug)]
pub struct AllBut {
    excluded: Vec<usize>,
    /// How often each value occurs among the heaps computed so far (4 bytes per value, and
    /// values grow about half as fast as heaps: 2 bytes per heap).
    counts: Vec<u32>,
    /// The least value that does not occur at all so far.
    global_mex: usize,
    scratch: Vec<usize>,
}

impl AllBut {
    /// The engine for the sorted set `excluded`, brought up to date with `values`.
    pub fn new<T: Cell>(excluded: &[u64], values: &[T]) -> AllBut {
        let mut s = AllBut {
            excluded: excluded.iter().map(|&e| e as usize).collect(),
            counts: Vec::new(),
            global_mex: 0,
            scratch: Vec::new(),
        };
        for v in values {
            s.add(v.get());
        }
        s
    }

    fn add(&mut self, v: usize) {
        if v >= self.counts.len() {
            self.counts.resize((v + 1).max(self.counts.len() * 2), 0);
        }
        self.counts[v] += 1;
        while self.global_mex < self.counts.len() && self.counts[self.global_mex] > 0 {
            self.global_mex += 1;
        }
    }

    /// Computes `cells[from..to]`; stops at a heap whose value does not fit in `T`.
    pub fn compute<T: Cell>(&mut self, cells: &mut [T], from: usize, to: usize) -> Result<(), usize> {
        for n in from..to {
            // Heaps n - e (e in E) are not options: take them out of the counts.
            self.scratch.clear();
            for &e in &self.excluded {
                if e > n {
                    break;
                }
                let v = cells[n - e].get();
                self.counts[v] -= 1;
                self.scratch.push(v);
            }
            let mut g = self.global_mex;
            for &v in &self.scratch {
                if self.counts[v] == 0 && v < g {
                    g = v;
                }
            }
            for i in 0..self.scratch.len() {
                let v = self.scratch[i];
                self.counts[v] += 1;
            }
            if g > T::MAX {
                return Err(n);
            }
            cells[n] = T::put(g);
            self.add(g);
        }
        Ok(())
    }
}
