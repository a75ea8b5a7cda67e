//! Tiny rulesets shared by the engines' unit tests.

use grundy_core::Ruleset;

/// The rows of the tab-separated fixture tests/data/`name`: its lines but the comments
/// (`#`) and the header.
pub fn fixture_rows(name: &str) -> Vec<String> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rows = text.lines().filter(|l| !l.starts_with('#')).skip(1);
    rows.map(str::to_string).collect()
}

/// Nim on heaps of `u32` tokens: take any positive number from one heap.
pub struct Nim;

impl Ruleset for Nim {
    type Component = u32;
    fn options<F: FnMut(&[u32])>(&self, c: &u32, mut emit: F) {
        for k in 0..*c {
            if k == 0 {
                emit(&[]);
            } else {
                emit(&[k]);
            }
        }
    }
}

/// Take-and-break on heaps: a move removes `k` tokens (1 ≤ k ≤ 3) and may split the rest
/// into two heaps (octal game 0.777 flavour), so options are sums.
pub struct Splits;

impl Ruleset for Splits {
    type Component = u32;
    fn options<F: FnMut(&[u32])>(&self, &c: &u32, mut emit: F) {
        for k in 1..=3.min(c) {
            let rest = c - k;
            for a in 0..=rest / 2 {
                let parts: Vec<u32> = [a, rest - a].into_iter().filter(|&x| x > 0).collect();
                emit(&parts);
            }
        }
    }
    fn size_hint(&self, c: &u32) -> usize {
        *c as usize
    }
}

/// [`Splits`] with each heap coded by its size, so the engines' coded tables are used.
pub struct CodedSplits;

impl Ruleset for CodedSplits {
    type Component = u32;
    fn options<F: FnMut(&[u32])>(&self, c: &u32, emit: F) {
        Splits.options(c, emit)
    }
    fn size_hint(&self, c: &u32) -> usize {
        *c as usize
    }
    fn code(&self, c: &u32) -> Option<u64> {
        Some(*c as u64)
    }
}
