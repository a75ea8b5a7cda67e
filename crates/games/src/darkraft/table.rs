//! The dense table of Grundy values of every rotated rectangle of a Darkraft board, computed
//! bottom-up in bulk: the two parity classes in parallel, and within a class the rows of all
//! U ranges of one length in parallel (they read only shorter ones).
//!
//! Layout: a rectangle `[u1,u2)×[v1,v2)` (compressed coordinates, relative to the bounding
//! box of the class) is stored at `(BU[u1] + u2) · PV + BV[v1] + v2`. Ranges with the same
//! start are contiguous and empty ranges have indices of their own whose entries stay 0, so
//! lookups need no branches. Entries are bytes; when a value exceeds 255 the table is widened
//! to 16 bits in place and the computation goes on from where it stopped.
//!
//! Order: U ranges by length; for each U range `[a,b)`, first the *split rows* — for every
//! line `u` in it, the XOR of the rectangles above and below `u` (already known, being
//! shorter in U) for every V range — then the V ranges by start descending and end
//! ascending (all V sub-ranges come first, and consecutive steps read adjacent entries).
//!
//! Options of a tight rectangle: an `L` move depends only on its line `u`, so each line with
//! an `L` in range (prefix counts per line) costs one lookup in its split row; an `R` move
//! likewise by line `v`, two lookups in the current row; an `X` cell costs two lookups in its
//! split row. The mex is kept in registers (values below 128) with a general fallback.
//! Rectangles that are not tight (a border line holds no board cell) copy the value of their
//! tight sub-rectangle.

use super::{Board, Cell, Geometry, Rect};
use rayon::prelude::*;

/// Tables with fewer entries are computed on the calling thread only.
const PARALLEL_ENTRIES: u128 = 1 << 18;

/// Why no table could be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TableError {
    /// More entries than the configured limit.
    TooLarge { entries: u128, limit: usize },
    /// The allocation failed.
    OutOfMemory { bytes: usize },
    /// A value did not fit in 16 bits.
    Overflow,
}

/// Table entries: bytes while every value fits, else 16-bit words.
trait Val: Copy + Default + Send + Sync + std::ops::BitXor<Output = Self> {
    fn get(self) -> u32;
    fn put(x: u32) -> Option<Self>;
}

impl Val for u8 {
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    fn put(x: u32) -> Option<u8> {
        u8::try_from(x).ok()
    }
}

impl Val for u16 {
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    fn put(x: u32) -> Option<u16> {
        u16::try_from(x).ok()
    }
}

enum Data {
    U8(Vec<u8>),
    U16(Vec<u16>),
}

/// The table of one parity class.
struct ClassTable {
    /// Origin of the bounding box in compressed coordinates.
    u0: usize,
    v0: usize,
    /// Size of the bounding box.
    nu: usize,
    nv: usize,
    offu: Vec<usize>,
    offv: Vec<usize>,
    pv: usize,
    data: Data,
}

/// Grundy values of all rectangles of both parity classes of one board.
pub(crate) struct Table {
    classes: [Option<ClassTable>; 2],
}

/// Bases of ranges over a dimension of `n` lines: the range `[c, d)` (`0 ≤ c ≤ d ≤ n`) has
/// index `base[c] + d`. Ranges with the same start are contiguous (lengths `0..=n−c`), so
/// the empty range `[c, c)` has its own index, whose entries stay 0. The last element is
/// the number of indices.
fn bases(n: usize) -> Vec<usize> {
    let mut start = 0usize;
    let mut base = Vec::with_capacity(n + 2);
    for c in 0..=n {
        base.push(start - c);
        start += n - c + 1;
    }
    base.push(start);
    base
}

#[inline(always)]
fn range(base: &[usize], a: usize, b: usize) -> usize {
    base[a] + b
}

/// Bounding box (u0, u1 excl, v0, v1 excl) of the intact cells of class `p`.
fn bbox(geo: Geometry, board: &Board, p: usize) -> Option<(usize, usize, usize, usize)> {
    let (mut u0, mut u1, mut v0, mut v1) = (usize::MAX, 0, usize::MAX, 0);
    for i in 0..board.rows {
        for j in 0..board.cols {
            if (i + j) & 1 != p || !board.cells[i * board.cols + j].is_intact() {
                continue;
            }
            let (_, u, v) = geo.uv(i, j);
            u0 = u0.min(u);
            u1 = u1.max(u + 1);
            v0 = v0.min(v);
            v1 = v1.max(v + 1);
        }
    }
    (u0 < u1).then_some((u0, u1, v0, v1))
}

impl Table {
    /// Computes the table of `board` (both classes in parallel), unless it would have more
    /// than `limit` entries. With `plain`, every entry is 16 bits and every mex goes through
    /// the general [`MexSet`](grundy_core::MexSet) (to test the fast paths against).
    ///
    /// Entries are bytes until a value exceeds `narrow_max` (at most 255; lower only to test
    /// the widening), then 16 bits.
    pub(crate) fn build(
        geo: Geometry,
        board: &Board,
        limit: usize,
        plain: bool,
        narrow_max: u32,
    ) -> Result<Table, TableError> {
        let boxes = [bbox(geo, board, 0), bbox(geo, board, 1)];
        let entries: u128 = boxes
            .iter()
            .flatten()
            .map(|&(u0, u1, v0, v1)| {
                let pu = bases(u1 - u0)[u1 - u0 + 1] as u128;
                let pv = bases(v1 - v0)[v1 - v0 + 1] as u128;
                pu * pv
            })
            .sum();
        if entries > limit as u128 {
            return Err(TableError::TooLarge { entries, limit });
        }
        let parallel = entries >= PARALLEL_ENTRIES;
        let one = |p: usize| -> Result<Option<ClassTable>, TableError> {
            match boxes[p] {
                None => Ok(None),
                Some(b) => ClassTable::build(geo, board, p, b, plain, narrow_max, parallel).map(Some),
            }
        };
        // Small tables take less time than waking a second thread.
        let (a, b) = if parallel {
            rayon::join(|| one(0), || one(1))
        } else {
            (one(0), one(1))
        };
        Ok(Table { classes: [a?, b?] })
    }

    /// The largest value in the table (0 when empty).
    pub(crate) fn max_value(&self) -> u32 {
        let class = |c: &ClassTable| match &c.data {
            Data::U8(t) => t.iter().copied().max().unwrap_or(0) as u32,
            Data::U16(t) => t.iter().copied().max().unwrap_or(0) as u32,
        };
        self.classes.iter().flatten().map(class).max().unwrap_or(0)
    }

    /// The value of a rectangle (global compressed coordinates), if inside the table.
    pub(crate) fn get(&self, r: &Rect) -> Option<u32> {
        self.classes[r.parity as usize & 1].as_ref()?.get(r)
    }
}

/// The set of option values below 128 as two bit masks, plus whether any value is larger;
/// small enough to stay in registers in the hot loop.
#[derive(Clone, Copy, Debug, Default)]
struct Mask128 {
    lo: u64,
    hi: u64,
    big: u64,
}

impl Mask128 {
    /// Adds `v` when `has` (without a branch on `has`; values of 64 and more are rare, so
    /// the branch on `v` is well predicted).
    #[inline(always)]
    fn add(&mut self, v: u32, has: bool) {
        if v < 64 {
            self.lo |= (has as u64) << v;
        } else if v < 128 {
            self.hi |= (has as u64) << (v - 64);
        } else {
            self.big |= has as u64;
        }
    }

    /// The mex, unless it depends on values of 128 or more.
    #[inline(always)]
    fn mex(self) -> Option<u32> {
        if self.lo != u64::MAX {
            Some((!self.lo).trailing_zeros())
        } else if self.hi != u64::MAX {
            Some(64 + (!self.hi).trailing_zeros())
        } else {
            (self.big == 0).then_some(128)
        }
    }
}

/// Per-line letter counts of one class's bounding box, to enumerate a rectangle's options.
struct Lines<'a> {
    /// Row length of `lx` (`nv + 1`).
    w: usize,
    /// `lx[u·w + v]`: the number of `L` cells on line `u` before `v`, and the index in `xs`
    /// of the first `X` on line `u` at or after `v`.
    lx: &'a [(u32, u32)],
    /// `X` cells line by line: `(v, base of the V ranges starting at v+1)`.
    xs: &'a [(u32, u32)],
    /// Bases of the V ranges.
    bv: &'a [usize],
}

/// Calls `f(value, present)` for every option of the tight rectangle `[a,b)×[c,d)`: `L`
/// lines and `X` cells from the split rows `split` (row `u−a` for line `u`), `R` lines from
/// `row` (the table row of `[a,b)`) where `rline[v]` is the base of the V ranges starting
/// at `v+1` and whether line `v` has an `R` in `[a,b)`. Lines without their letter are
/// reported with `present = false`, so the fast caller needs no branches.
#[inline(always)]
fn options<T: Val, F: FnMut(u32, bool)>(
    l: &Lines<'_>,
    split: &[T],
    row: &[T],
    rline: &[(usize, bool)],
    (a, b, c, d): (usize, usize, usize, usize),
    mut f: F,
) {
    let pv = row.len();
    let bc = l.bv[c];
    let kv = bc + d;
    for (u, srow) in (a..b).zip(split.chunks_exact(pv)) {
        let at = u * l.w;
        let ((l0, x0), (l1, x1)) = (l.lx[at + c], l.lx[at + d]);
        f(srow[kv].get(), l0 != l1);
        for &(v, e) in &l.xs[x0 as usize..x1 as usize] {
            f((srow[bc + v as usize] ^ srow[e as usize + d]).get(), true);
        }
    }
    for (v, &(e, has)) in (c..d).zip(&rline[c..d]) {
        f((row[bc + v] ^ row[e + d]).get(), has);
    }
}

impl ClassTable {
    fn build(
        geo: Geometry,
        board: &Board,
        p: usize,
        (u0, u1, v0, v1): (usize, usize, usize, usize),
        plain: bool,
        narrow_max: u32,
        parallel: bool,
    ) -> Result<ClassTable, TableError> {
        let (nu, nv) = (u1 - u0, v1 - v0);
        let offu = bases(nu);
        let offv = bases(nv);
        let (pu, pv) = (offu[nu + 1], offv[nv + 1]);
        let dims = (u0, v0, nu, nv);
        let entries = pu * pv;
        let fail = |_: Overflow| TableError::Overflow;
        let data = if plain {
            let mut t = alloc::<u16>(entries)?;
            compute(
                geo,
                board,
                p,
                dims,
                &offu,
                &offv,
                &mut t,
                (1, 0),
                true,
                u32::MAX,
                parallel,
            )
            .map_err(fail)?;
            Data::U16(t)
        } else {
            let mut t = alloc::<u8>(entries)?;
            match compute(
                geo,
                board,
                p,
                dims,
                &offu,
                &offv,
                &mut t,
                (1, 0),
                false,
                narrow_max,
                parallel,
            ) {
                Ok(()) => Data::U8(t),
                Err(Overflow(lu, a)) => {
                    // Widen what is done so far and go on from the step that overflowed.
                    let mut wide = alloc::<u16>(entries)?;
                    for (w, &x) in wide.iter_mut().zip(&t) {
                        *w = x as u16;
                    }
                    drop(t);
                    compute(
                        geo,
                        board,
                        p,
                        dims,
                        &offu,
                        &offv,
                        &mut wide,
                        (lu, a),
                        false,
                        u32::MAX,
                        parallel,
                    )
                    .map_err(fail)?;
                    Data::U16(wide)
                }
            }
        };
        debug_assert_eq!(
            match &data {
                Data::U8(d) => d.len(),
                Data::U16(d) => d.len(),
            },
            pu * pv
        );
        Ok(ClassTable {
            u0,
            v0,
            nu,
            nv,
            offu,
            offv,
            pv,
            data,
        })
    }

    fn get(&self, r: &Rect) -> Option<u32> {
        let a = (r.u1 as usize).checked_sub(self.u0)?;
        let b = (r.u2 as usize + 1).checked_sub(self.u0)?;
        let c = (r.v1 as usize).checked_sub(self.v0)?;
        let d = (r.v2 as usize + 1).checked_sub(self.v0)?;
        if a >= b || c >= d || b > self.nu || d > self.nv {
            return None;
        }
        let k = range(&self.offu, a, b) * self.pv + range(&self.offv, c, d);
        Some(match &self.data {
            Data::U8(t) => t[k] as u32,
            Data::U16(t) => t[k] as u32,
        })
    }
}

/// A zeroed vector of `n` entries, or an error instead of an abort when memory runs out.
fn alloc<T: Val>(n: usize) -> Result<Vec<T>, TableError> {
    let mut t: Vec<T> = Vec::new();
    t.try_reserve_exact(n).map_err(|_| TableError::OutOfMemory {
        bytes: n.saturating_mul(std::mem::size_of::<T>()),
    })?;
    t.resize(n, T::default());
    Ok(t)
}

/// [`compute`] stopped: a value did not fit while computing the U ranges of length `.0`
/// from start `.1` on.
struct Overflow(usize, usize);

/// Bottom-up computation into `t` of all rectangles of one class's bounding box, from the U
/// ranges of length `start.0` and first line `start.1` on (`plain`: no fast mex path); stops
/// when a value exceeds `max` or does not fit in `T`.
#[allow(clippy::too_many_arguments)]
fn compute<T: Val>(
    geo: Geometry,
    board: &Board,
    p: usize,
    (u0, v0, nu, nv): (usize, usize, usize, usize),
    offu: &[usize],
    offv: &[usize],
    t: &mut [T],
    start: (usize, usize),
    plain: bool,
    max: u32,
    parallel: bool,
) -> Result<(), Overflow> {
    let pv = offv[nv + 1];

    // Letters of the bounding box, and board extent of each line (local, half-open).
    let w = nv + 1;
    let mut lx = vec![(0u32, 0u32); nu * w]; // see `Lines::lx`
    let mut rpre = vec![0u32; nv * (nu + 1)]; // R cells on line V with U' < U
    let mut xs: Vec<(u32, u32)> = Vec::new(); // (V, base of the ranges starting at V+1)
    let mut vext = vec![(0usize, 0usize); nu];
    let mut uext = vec![(0usize, 0usize); nv];
    let clip = |r: Option<(usize, usize)>, o: usize, n: usize| match r {
        Some((lo, hi)) if hi >= o && lo < o + n => (lo.max(o) - o, (hi + 1).min(o + n) - o),
        _ => (0, 0),
    };
    for (u, e) in vext.iter_mut().enumerate() {
        *e = clip(geo.v_range(p, u0 + u), v0, nv);
    }
    for (v, e) in uext.iter_mut().enumerate() {
        *e = clip(geo.u_range(p, v0 + v), u0, nu);
    }
    let letter = |u: usize, v: usize| -> Cell {
        geo.cell(p, u0 + u, v0 + v)
            .map_or(Cell::Destroyed, |(i, j)| board.cells[i * board.cols + j])
    };
    for u in 0..nu {
        for v in 0..nv {
            let c = letter(u, v);
            lx[u * w + v + 1].0 = lx[u * w + v].0 + (c == Cell::L) as u32;
            lx[u * w + v].1 = xs.len() as u32;
            if c == Cell::X {
                xs.push((v as u32, offv[v + 1] as u32));
            }
        }
        lx[u * w + nv].1 = xs.len() as u32;
    }
    for v in 0..nv {
        let w2 = nu + 1;
        for u in 0..nu {
            rpre[v * w2 + u + 1] = rpre[v * w2 + u] + (letter(u, v) == Cell::R) as u32;
        }
    }
    let ctx = Ctx {
        lines: Lines {
            w,
            lx: &lx,
            xs: &xs,
            bv: offv,
        },
        rpre: &rpre,
        vext: &vext,
        uext: &uext,
        bu: offu,
        nu,
        nv,
        pv,
        plain,
        max,
    };
    for lu in 1..=nu {
        let first = match lu.cmp(&start.0) {
            std::cmp::Ordering::Less => continue,
            std::cmp::Ordering::Equal => start.1,
            std::cmp::Ordering::Greater => 0,
        };
        // The U ranges of one length are independent: each reads only shorter ones.
        let done: &[T] = t;
        let one = |scratch: &mut Scratch<T>, a: usize| {
            let mut row = vec![T::default(); pv];
            fill_row(&ctx, done, a, lu, &mut row, scratch).map(|()| row)
        };
        let rows: Vec<Option<Vec<T>>> = if parallel && nu - lu > first {
            (first..=nu - lu)
                .into_par_iter()
                .map_init(Scratch::default, one)
                .collect()
        } else {
            let mut scratch = Scratch::default();
            (first..=nu - lu).map(|a| one(&mut scratch, a)).collect()
        };
        for (a, row) in (first..).zip(rows) {
            let row = row.ok_or(Overflow(lu, a))?;
            let at = (offu[a] + a + lu) * pv;
            t[at..at + pv].copy_from_slice(&row);
        }
    }
    Ok(())
}

/// What [`fill_row`] reads besides the table.
struct Ctx<'a> {
    lines: Lines<'a>,
    /// `rpre[v·(nu+1) + u]`: `R` cells on line `v` before `u`.
    rpre: &'a [u32],
    /// Board extent (half-open, local) of each U line and of each V line.
    vext: &'a [(usize, usize)],
    uext: &'a [(usize, usize)],
    /// Bases of the U ranges.
    bu: &'a [usize],
    nu: usize,
    nv: usize,
    pv: usize,
    plain: bool,
    max: u32,
}

/// Buffers of one worker, reused across rows.
struct Scratch<T> {
    /// Row `u−a`: for every V range, the XOR of the rectangles above and below line `u`.
    split: Vec<T>,
    /// Whether each V line has an `R` in the U range.
    rline: Vec<(usize, bool)>,
    slow: grundy_core::MexSet,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            split: Vec::new(),
            rline: Vec::new(),
            slow: grundy_core::MexSet::new(),
        }
    }
}

/// Computes the table row of U range `[a, a+lu)` into `out` (all V ranges), reading the
/// rows of shorter U ranges from `t`; `None` when a value exceeds `ctx.max` or `T`.
fn fill_row<T: Val>(
    ctx: &Ctx<'_>,
    t: &[T],
    a: usize,
    lu: usize,
    out: &mut [T],
    scratch: &mut Scratch<T>,
) -> Option<()> {
    let (bu, bv, pv) = (ctx.bu, ctx.lines.bv, ctx.pv);
    let (vext, uext) = (ctx.vext, ctx.uext);
    let hits = |(lo, hi): (usize, usize), a: usize, b: usize| lo.max(a) < hi.min(b);
    let b = a + lu;
    let w2 = ctx.nu + 1;
    scratch.split.resize(lu * pv, T::default());
    for u in a..b {
        let (rl, rr) = ((bu[a] + u) * pv, (bu[u + 1] + b) * pv);
        let dst = &mut scratch.split[(u - a) * pv..(u - a + 1) * pv];
        for ((x, &p), &q) in dst.iter_mut().zip(&t[rl..rl + pv]).zip(&t[rr..rr + pv]) {
            *x = p ^ q;
        }
    }
    scratch.rline.clear();
    scratch
        .rline
        .extend((0..ctx.nv).map(|v| (bv[v + 1], ctx.rpre[v * w2 + b] != ctx.rpre[v * w2 + a])));
    let split = &scratch.split[..];
    // V ranges by start descending, then end ascending: every V sub-range of [c, d) is done
    // before it, and the reads of consecutive steps are adjacent.
    for c in (0..ctx.nv).rev() {
        for d in c + 1..=ctx.nv {
            let kv = bv[c] + d;
            let tight = hits(vext[a], c, d)
                && hits(vext[b - 1], c, d)
                && hits(uext[c], a, b)
                && hits(uext[d - 1], a, b);
            if !tight {
                // Copy from the tight sub-rectangle (computed earlier: it is smaller).
                out[kv] = match (a..b).find(|&u| hits(vext[u], c, d)) {
                    None => T::default(),
                    Some(ta) => {
                        let tb = (a..b).rev().find(|&u| hits(vext[u], c, d)).unwrap_or(ta) + 1;
                        let tc = (c..d).find(|&v| hits(uext[v], ta, tb)).unwrap_or(c);
                        let td = (c..d).rev().find(|&v| hits(uext[v], ta, tb)).unwrap_or(tc) + 1;
                        if (ta, tb) == (a, b) {
                            out[bv[tc] + td]
                        } else {
                            t[(bu[ta] + tb) * pv + bv[tc] + td]
                        }
                    }
                };
                continue;
            }
            // Mex of values below 128 in registers; larger ones take the slow path.
            let mut mask = Mask128::default();
            let rect = (a, b, c, d);
            let row: &[T] = out;
            let rline = &scratch.rline;
            options(&ctx.lines, split, row, rline, rect, |v, has| mask.add(v, has));
            let value = match mask.mex().filter(|_| !ctx.plain) {
                Some(m) => m,
                None => {
                    let slow = &mut scratch.slow;
                    slow.clear();
                    options(&ctx.lines, split, row, rline, rect, |v, has| {
                        if has {
                            slow.insert(v as u64);
                        }
                    });
                    slow.mex().0.min(u32::MAX as u64) as u32
                }
            };
            out[kv] = T::put(value).filter(|_| value <= ctx.max)?;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::Mask128;
    use grundy_core::MexSet;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn mask_mex_is_the_mex(vals in proptest::collection::vec((0u32..300, any::<bool>()), 0..300)) {
            let mut mask = Mask128::default();
            let mut set = MexSet::new();
            for &(v, has) in &vals {
                mask.add(v, has);
                if has {
                    set.insert(v as u64);
                }
            }
            let m = set.mex().0 as u32;
            match mask.mex() {
                Some(x) => prop_assert_eq!(x, m),
                None => prop_assert!(m >= 128),
            }
        }

        #[test]
        fn mask_full_ranges(n in 60u32..200) {
            let mut mask = Mask128::default();
            let mut set = MexSet::new();
            for v in 0..n {
                mask.add(v, true);
                set.insert(v as u64);
            }
            let m = set.mex().0 as u32;
            prop_assert_eq!(mask.mex().unwrap_or(m), m);
            prop_assert_eq!(mask.mex().is_none(), n > 128);
        }
    }
}
