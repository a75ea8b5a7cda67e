//! The reference: G(n) as the mex of every option of heap n, straight from
//! [`HeapRules::heap_options`]. Quadratic (cubic with three-heap moves) and easy to read;
//! property tests compare the fast engines with it.

use grundy_core::{HeapRules, MexSet};

/// G(0), ..., G(count - 1) by the definition.
pub fn values(rules: &HeapRules, count: usize) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::with_capacity(count);
    let mut set = MexSet::new();
    for n in 0..count as u64 {
        set.clear();
        rules.heap_options(n, |parts| {
            set.insert(parts.iter().fold(0, |x, &p| x ^ g[p as usize]));
        });
        g.push(set.mex().0);
    }
    g
}

/// The value of heap `n` given the values of all smaller heaps (for games whose fast engine
/// is this one: three-heap moves).
pub fn next_value(rules: &HeapRules, g: impl Fn(usize) -> u64, n: usize, set: &mut MexSet) -> u64 {
    set.clear();
    rules.heap_options(n as u64, |parts| {
        set.insert(parts.iter().fold(0, |x, &p| x ^ g(p as usize)));
    });
    set.mex().0
}
