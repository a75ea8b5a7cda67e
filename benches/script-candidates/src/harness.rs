//! The shared harness: a game gives the options of a position (each a sum of components);
//! the harness memoises Grundy values in a `HashMap` and does the XOR and the mex in Rust.

use std::collections::HashMap;
use std::hash::Hash;

/// A source of options: native Rust or a script.
pub trait Options<P> {
    /// The options of `p`, each a list of components (a sum).
    fn options(&mut self, p: &P) -> Result<Vec<Vec<P>>, String>;
}

/// A native closure as a source of options.
pub struct Native<F>(pub F);

impl<P, F: FnMut(&P) -> Vec<Vec<P>>> Options<P> for Native<F> {
    fn options(&mut self, p: &P) -> Result<Vec<Vec<P>>, String> {
        Ok((self.0)(p))
    }
}

/// The memo and the number of calls to the source of options.
pub struct Solver<P> {
    memo: HashMap<P, u32>,
    /// Calls to `options`.
    pub calls: u64,
}

impl<P: Hash + Eq + Clone> Solver<P> {
    /// An empty memo.
    pub fn new() -> Self {
        Solver {
            memo: HashMap::new(),
            calls: 0,
        }
    }

    /// The value of `p`, whose components must all have been settled already (positions are
    /// visited bottom-up, so no recursion is needed).
    pub fn settle(&mut self, p: &P, game: &mut dyn Options<P>) -> Result<u32, String> {
        self.calls += 1;
        let options = game.options(p)?;
        let mut seen = vec![false; options.len() + 1];
        for option in &options {
            let mut x = 0u32;
            for c in option {
                x ^= *self.memo.get(c).ok_or("a component not yet settled")?;
            }
            if let Some(s) = seen.get_mut(x as usize) {
                *s = true;
            }
        }
        let g = seen.iter().position(|s| !s).unwrap_or(seen.len()) as u32;
        self.memo.insert(p.clone(), g);
        Ok(g)
    }
}

/// The native Kayles options (the same as `scripts/kayles.*`).
pub fn kayles_native(n: &i64) -> Vec<Vec<i64>> {
    let n = *n;
    let mut out = Vec::new();
    for take in 1..=2 {
        if n >= take {
            let rest = n - take;
            for i in 0..=rest / 2 {
                let j = rest - i;
                let mut opt = Vec::new();
                if i > 0 {
                    opt.push(i);
                }
                if j > 0 {
                    opt.push(j);
                }
                out.push(opt);
            }
        }
    }
    out
}

/// The native Cutting Game options (the same as `scripts/cutting.*`).
pub fn cutting_native(p: &(i64, i64)) -> Vec<Vec<(i64, i64)>> {
    let (w, h) = *p;
    let mut out = Vec::new();
    for a in 2..=w / 2 {
        out.push(vec![(a, h), (w - a, h)]);
    }
    for b in 2..=h / 2 {
        out.push(vec![(w, b), (w, h - b)]);
    }
    out
}

/// G(0..=n) of Kayles. Heap 0 is settled by the harness (no call).
pub fn kayles(n: i64, game: &mut dyn Options<i64>) -> Result<(Vec<u32>, u64), String> {
    let mut s = Solver::new();
    s.memo.insert(0, 0);
    let mut values = vec![0];
    for h in 1..=n {
        values.push(s.settle(&h, game)?);
    }
    Ok((values, s.calls))
}

/// G(w, h) of the Cutting Game for 1 ≤ w, h ≤ n, row by row.
pub fn cutting(n: i64, game: &mut dyn Options<(i64, i64)>) -> Result<(Vec<u32>, u64), String> {
    let mut s = Solver::new();
    let mut values = Vec::new();
    for w in 1..=n {
        for h in 1..=n {
            values.push(s.settle(&(w, h), game)?);
        }
    }
    Ok((values, s.calls))
}
