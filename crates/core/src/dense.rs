//! Dense views of games: states numbered within tiers, so engines can store results in
//! packed arrays instead of hash maps ([`DenseGame`]), and the colex ranking of subsets that
//! board games use to number their positions ([`Subsets`]). The solver is
//! `grundy_solve::dense`.

/// A game whose states are numbered densely: tier `t` holds the states `0..tier_size(t)`, and
/// every move goes from a tier to a strictly lower one (for boards: fewer empty cells).
pub trait DenseGame: Sync {
    /// A state unpacked for move generation (a bitmask, a small array).
    type State: Send;

    /// Number of tiers; tiers are numbered `0..num_tiers()`.
    fn num_tiers(&self) -> u32;

    /// Number of states in tier `tier`.
    fn tier_size(&self, tier: u32) -> u64;

    /// The tiers that moves from `tier` can reach, each lower than `tier`. Only these are
    /// kept in memory while `tier` is solved; the default is every lower tier.
    fn child_tiers(&self, tier: u32) -> Vec<u32> {
        (0..tier).collect()
    }

    /// The state of index `index` in `tier`.
    fn unrank(&self, tier: u32, index: u64) -> Self::State;

    /// Turns `state`, the state of index `index - 1` of `tier`, into the state of index
    /// `index`. The default unranks again; games with a cheap successor (Gosper's hack for
    /// subsets) override it.
    fn advance(&self, tier: u32, index: u64, state: &mut Self::State) {
        *state = self.unrank(tier, index);
    }

    /// Calls `emit(child_tier, child_index)` once per move of `state` (a state of `tier`).
    /// Repeated children are allowed.
    fn successors<F: FnMut(u32, u64)>(&self, tier: u32, state: &Self::State, emit: F);
}

/// Colex ranking of the k-element subsets of `n ≤ 64` items, as bitmasks: the subsets with k
/// elements, in increasing numeric order of their masks, get the indices `0..C(n, k)`.
/// Ranking takes one table look-up per byte of the mask.
#[derive(Clone, Debug)]
pub struct Subsets {
    n: u32,
    /// `binom[a][b]` = C(a, b) for a ≤ 64, b ≤ 64.
    binom: Vec<[u64; 65]>,
    /// `bytes[(j * 65 + c) * 256 + b]`: the colex contribution of byte `b` at byte `j` when
    /// `c` elements lie below it.
    bytes: Vec<u64>,
}

impl Subsets {
    /// The ranking of subsets of `n` items; `None` when `n > 64`.
    pub fn new(n: u32) -> Option<Subsets> {
        if n > 64 {
            return None;
        }
        let mut binom = vec![[0u64; 65]; 65];
        for a in 0..=64 {
            binom[a][0] = 1;
            for b in 1..=a {
                binom[a][b] = binom[a - 1][b - 1].saturating_add(binom[a - 1][b]);
            }
        }
        let nbytes = (n as usize).div_ceil(8);
        let mut bytes = vec![0u64; nbytes * 65 * 256];
        for j in 0..nbytes {
            for c in 0..65usize {
                for b in 0..256usize {
                    let mut sum = 0u64;
                    let mut m = c;
                    for bit in 0..8 {
                        if b >> bit & 1 == 1 {
                            let e = j * 8 + bit;
                            m += 1;
                            if e <= 64 && m <= 64 {
                                sum = sum.wrapping_add(binom[e][m]);
                            }
                        }
                    }
                    bytes[(j * 65 + c) * 256 + b] = sum;
                }
            }
        }
        Some(Subsets { n, binom, bytes })
    }

    /// Number of items.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// C(a, b) (saturating at `u64::MAX`; exact for a ≤ 64 up to that).
    pub fn binomial(&self, a: u32, b: u32) -> u64 {
        if a > 64 || b > a {
            0
        } else {
            self.binom[a as usize][b as usize]
        }
    }

    /// The colex index of `mask` among the subsets with as many elements.
    #[inline]
    pub fn rank(&self, mask: u64) -> u64 {
        let mut r = 0u64;
        let mut below = 0usize;
        let mut m = mask;
        let mut j = 0usize;
        while m != 0 {
            let b = (m & 0xff) as usize;
            r = r.wrapping_add(self.bytes[(j * 65 + below) * 256 + b]);
            below += b.count_ones() as usize;
            m >>= 8;
            j += 1;
        }
        r
    }

    /// The subset with `k` elements of colex index `index`.
    pub fn unrank(&self, k: u32, mut index: u64) -> u64 {
        let mut mask = 0u64;
        let mut k = k as usize;
        for e in (0..self.n as usize).rev() {
            if k == 0 {
                break;
            }
            let c = self.binom[e][k];
            if c <= index {
                mask |= 1 << e;
                index -= c;
                k -= 1;
            }
        }
        mask
    }

    /// The next subset with as many elements in colex order (Gosper's hack).
    #[inline]
    pub fn next(mask: u64) -> u64 {
        if mask == 0 {
            return 0;
        }
        let c = mask & mask.wrapping_neg();
        let r = mask.wrapping_add(c);
        if r == 0 {
            return 0;
        }
        (((r ^ mask) >> 2) / c) | r
    }
}
