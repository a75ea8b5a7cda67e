//! Tiny rulesets shared by the engines' unit tests.

use grundy_core::Ruleset;

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
