//! Cram: players take turns placing dominoes on the empty cells of a board (two cells next to
//! each other in a row or a column); the player who cannot place one loses.
//!
//! Components are the connected regions of empty cells, cropped to their bounding box and
//! normalised under the symmetries of the square (rotations and reflections), so regions of
//! equal shape anywhere on the board share one memo entry. A whole board of up to 64 empty
//! cells can also be ranked for the dense retrograde solver ([`CramDense`]).
//!
//! Notation: `5x7` (rows × columns, all empty), or rows of `.` (empty) and `#` (filled or a
//! hole) separated by newlines or `/`. A move `r1,c1-r2,c2` names the two cells it covers,
//! rows and columns from 1, the first cell above or left of the second.

use crate::family::{Sample, Seeded};
use crate::family::{
    BoardView, DenseForm, Description, Engine, Family, FamilyOptions, RegistryError, Table, WithDense,
};
use crate::grid::parse_grid;
use grundy_core::dense::{DenseGame, Subsets};
use grundy_core::{Game, Nimber, ParseError, Ruleset};
use std::ops::{BitAnd, BitOr, ControlFlow, Not};

/// Most cells a board may have (empty or not): the board is a 128-bit mask.
pub const MAX_CELLS: usize = 128;

/// Largest box (in cells) of a region that [`Cram`] codes in one word for the search's
/// compact table ([`Ruleset::code`]); larger ones are kept whole.
pub const CODE_CELLS: u32 = 58;

/// Largest number of empty cells [`CramDense`] ranks.
pub const MAX_DENSE_CELLS: usize = 64;

/// A Cram position: a `rows × cols` board, bit `r * cols + c` set when that cell is empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// Number of rows.
    pub rows: u32,
    /// Number of columns.
    pub cols: u32,
    /// The empty cells, row-major.
    pub empty: u128,
}

impl Board {
    /// An empty `rows × cols` board; `None` when it has no cell or more than [`MAX_CELLS`].
    pub fn empty(rows: u32, cols: u32) -> Option<Board> {
        let n = rows as usize * cols as usize;
        (1..=MAX_CELLS).contains(&n).then(|| Board {
            rows,
            cols,
            empty: full_mask(n as u32),
        })
    }

    /// True when cell (`r`, `c`) (0-based) is empty.
    pub fn is_empty_cell(&self, r: u32, c: u32) -> bool {
        r < self.rows && c < self.cols && self.empty >> (r * self.cols + c) & 1 == 1
    }

    /// Number of empty cells.
    pub fn empty_cells(&self) -> u32 {
        self.empty.count_ones()
    }
}

/// A domino: the cells (`r1`, `c1`) and (`r2`, `c2`), 0-based, the first above or left of the
/// second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Domino {
    /// Row of the first cell.
    pub r1: u32,
    /// Column of the first cell.
    pub c1: u32,
    /// Row of the second cell.
    pub r2: u32,
    /// Column of the second cell.
    pub c2: u32,
}

/// One component: a connected region of at least two empty cells, as a bitmask of its
/// `h × w` bounding box (row-major), in canonical orientation (`h ≤ w`, least mask among the
/// symmetric images).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Region {
    /// Rows of the bounding box.
    pub h: u8,
    /// Columns of the bounding box.
    pub w: u8,
    /// The cells, as two 64-bit halves (low, high) of the 128-bit mask; kept as `u64`s so a
    /// memo entry is 8-byte aligned and small.
    bits: [u64; 2],
}

impl std::hash::Hash for Region {
    /// Two words (the derived hash writes five): the search hashes regions all the time.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.bits[0]);
        state.write_u64(self.bits[1].rotate_left(16) ^ ((self.h as u64) << 8 | self.w as u64));
    }
}

impl Region {
    /// The region's cells as a 128-bit mask of its bounding box.
    pub fn mask(&self) -> u128 {
        self.bits[0] as u128 | (self.bits[1] as u128) << 64
    }

    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.mask().count_ones()
    }

    /// The region in the canonical form of `cells` inside an `h × w` box: cropped, then the
    /// least image under the symmetries of the box with rows ≤ columns.
    pub fn canonical(h: u32, w: u32, cells: u128) -> Region {
        if h * w <= 64 {
            canonical(Shape::<u64>::new(h, w), cells as u64)
        } else {
            canonical(Shape::<u128>::new(h, w), cells)
        }
    }
}

fn full_mask(n: u32) -> u128 {
    low_bits::<u128>(n)
}

/// The bit operations the board geometry needs, for 64- and 128-bit masks: boxes of up to 64
/// cells (5×7, 4×11, 8×8) run on `u64`, which is markedly faster; larger ones on `u128`.
trait Bits: Copy + Eq + Ord + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    const BITS: u32;
    /// Shift left; 0 when `k` is the width or more.
    fn shl(self, k: u32) -> Self;
    /// Shift right; 0 when `k` is the width or more.
    fn shr(self, k: u32) -> Self;
    fn reverse(self) -> Self;
    fn tz(self) -> u32;
    fn lz(self) -> u32;
    /// The lowest set bit alone.
    fn lowest(self) -> Self;
    /// Without its lowest set bit.
    fn without_lowest(self) -> Self;
    fn to_u128(self) -> u128;
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const ZERO: $t = 0;
            const ONE: $t = 1;
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn shl(self, k: u32) -> $t {
                self.checked_shl(k).unwrap_or(0)
            }
            #[inline]
            fn shr(self, k: u32) -> $t {
                self.checked_shr(k).unwrap_or(0)
            }
            #[inline]
            fn reverse(self) -> $t {
                self.reverse_bits()
            }
            #[inline]
            fn tz(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline]
            fn lz(self) -> u32 {
                self.leading_zeros()
            }
            #[inline]
            fn lowest(self) -> $t {
                self & self.wrapping_neg()
            }
            #[inline]
            fn without_lowest(self) -> $t {
                self & self.wrapping_sub(1)
            }
            #[inline]
            fn to_u128(self) -> u128 {
                self as u128
            }
        }
    };
}
impl_bits!(u64);
impl_bits!(u128);

/// The mask of the `n` lowest bits.
fn low_bits<B: Bits>(n: u32) -> B {
    !(!B::ZERO).shl(n)
}

/// The geometry of an `h × w` box of bits: masks of its cells and of its edge columns.
#[derive(Clone, Copy, Debug)]
struct Shape<B> {
    h: u32,
    w: u32,
    full: B,
    left: B,
    right: B,
}

impl<B: Bits> Shape<B> {
    fn new(h: u32, w: u32) -> Shape<B> {
        let mut left = B::ZERO;
        for r in 0..h {
            left = left | B::ONE.shl(r * w);
        }
        Shape {
            h,
            w,
            full: low_bits(h * w),
            left,
            right: left.shl(w - 1),
        }
    }

    /// Cells next to a cell of `m` (in a row or a column).
    #[inline]
    fn neighbours(&self, m: B) -> B {
        let horiz = (m & !self.right).shl(1) | (m & !self.left).shr(1);
        let vert = m.shl(self.w) | m.shr(self.w);
        (horiz | vert) & self.full
    }

    /// The connected part of `set` that holds the lowest cell of `seed`.
    #[inline]
    fn flood(&self, set: B, seed: B) -> B {
        let mut comp = seed.lowest();
        loop {
            let next = (comp | self.neighbours(comp)) & set;
            if next == comp {
                return comp;
            }
            comp = next;
        }
    }

    /// Calls `f` with each connected part of `set`.
    fn split(&self, mut set: B, mut f: impl FnMut(B)) {
        while set != B::ZERO {
            let comp = self.flood(set, set);
            set = set & !comp;
            f(comp);
        }
    }

    /// Calls `f(a, b)` for every domino on `set` (`b` right of or below `a`).
    #[inline]
    fn dominoes(&self, set: B, mut f: impl FnMut(B, B)) {
        let mut right = set & !self.right & set.shr(1);
        while right != B::ZERO {
            let a = right.lowest();
            right = right.without_lowest();
            f(a, a.shl(1));
        }
        let mut down = set & set.shr(self.w);
        while down != B::ZERO {
            let a = down.lowest();
            down = down.without_lowest();
            f(a, a.shl(self.w));
        }
    }
}

/// The canonical [`Region`] of the non-empty `cells` of the box `shape`.
fn canonical<B: Bits>(shape: Shape<B>, cells: B) -> Region {
    if B::BITS == 64 {
        return canonical64(shape.h, shape.w, cells.to_u128() as u64);
    }
    let (h, w) = (shape.h, shape.w);
    let row_mask: B = low_bits(w);
    // Crop to the bounding box.
    let mut rmin = u32::MAX;
    let mut rmax = 0;
    let mut cols = B::ZERO;
    for r in 0..h {
        let row = cells.shr(r * w) & row_mask;
        if row != B::ZERO {
            rmin = rmin.min(r);
            rmax = r;
            cols = cols | row;
        }
    }
    if cols == B::ZERO {
        return Region {
            h: 0,
            w: 0,
            bits: [0, 0],
        };
    }
    let cmin = cols.tz();
    let cmax = B::BITS - 1 - cols.lz();
    let (bh, bw) = (rmax - rmin + 1, cmax - cmin + 1);
    let bmask: B = low_bits(bw);
    // The shorter side has at most 11 cells (h * w <= 128), and only orientations with rows
    // <= columns are candidates, so at most 11 rows are ever held.
    const ROWS: usize = 12;
    // Every candidate has rows <= columns, so this start is beaten by the first one.
    let mut best: (u32, u32, B) = (u32::MAX, 0, B::ZERO);
    let mut consider = |rows: &[B], rh: u32, rw: u32| {
        // The four images of the box under the reflections (and the half turn).
        let flip = |x: B| x.reverse().shr(B::BITS - rw);
        let mut imgs = [B::ZERO; 4];
        for (r, &x) in rows.iter().enumerate() {
            let r = r as u32;
            let rr = rh - 1 - r;
            let f = flip(x);
            imgs[0] = imgs[0] | x.shl(r * rw);
            imgs[1] = imgs[1] | f.shl(r * rw);
            imgs[2] = imgs[2] | x.shl(rr * rw);
            imgs[3] = imgs[3] | f.shl(rr * rw);
        }
        for m in imgs {
            let cand = (rh, rw, m);
            if cand < best {
                best = cand;
            }
        }
    };
    if bh <= bw {
        let mut rows = [B::ZERO; ROWS];
        for (r, row) in rows.iter_mut().enumerate().take(bh as usize) {
            *row = cells.shr((r as u32 + rmin) * w + cmin) & bmask;
        }
        consider(&rows[..bh as usize], bh, bw);
    }
    if bw <= bh {
        let mut t = [B::ZERO; ROWS];
        for r in 0..bh {
            let mut row = cells.shr((r + rmin) * w + cmin) & bmask;
            while row != B::ZERO {
                let c = row.tz() as usize;
                row = row.without_lowest();
                t[c] = t[c] | B::ONE.shl(r);
            }
        }
        consider(&t[..bw as usize], bw, bh);
    }
    let (rh, rw, m) = best;
    let m = m.to_u128();
    Region {
        h: rh as u8,
        w: rw as u8,
        bits: [m as u64, (m >> 64) as u64],
    }
}

/// [`canonical`] for boxes of up to 64 cells, on whole words: the half turn of a box is the
/// reversal of its bits, so only the reflection that reverses the rows (and, for boxes that
/// are not wider than tall, the transposition) is built row by row.
fn canonical64(h: u32, w: u32, cells: u64) -> Region {
    if cells == 0 {
        return Region {
            h: 0,
            w: 0,
            bits: [0, 0],
        };
    }
    debug_assert!(h * w <= 64);
    let rmin = div_small(cells.trailing_zeros(), w);
    let rmax = div_small(63 - cells.leading_zeros(), w);
    let bh = rmax - rmin + 1;
    let x = cells >> (rmin * w);
    let row_mask = low_bits::<u64>(w);
    let mut cols = 0;
    for r in 0..bh {
        cols |= (x >> (r * w)) & row_mask;
    }
    let cmin = cols.trailing_zeros();
    let bw = 64 - cols.leading_zeros() - cmin;
    let bmask = low_bits::<u64>(bw);
    let n = bh * bw;
    // The box (rows of bw bits) and its rows in reverse order.
    let (mut y, mut v) = (0u64, 0u64);
    for r in 0..bh {
        let row = (x >> (r * w + cmin)) & bmask;
        y |= row << (r * bw);
        v |= row << ((bh - 1 - r) * bw);
    }
    let half_turn = |m: u64| m.reverse_bits() >> (64 - n);
    let least = |a: u64, b: u64| a.min(b).min(half_turn(a)).min(half_turn(b));
    let mut best = (u32::MAX, 0, 0u64);
    if bh <= bw {
        best = (bh, bw, least(y, v));
    }
    if bw <= bh {
        // The transpose (bw rows of bh bits) and its rows in reverse order.
        let (t, tv) = if bh <= 8 {
            // As an 8×8 bit matrix, a row to a byte: three swaps transpose it.
            let bytes = transpose8(spread_rows(y, bh, bw));
            (
                gather_rows(bytes, bw, bh),
                gather_rows(bytes.swap_bytes() >> (8 * (8 - bw)), bw, bh),
            )
        } else {
            let (mut t, mut tv) = (0u64, 0u64);
            for r in 0..bh {
                let mut row = (y >> (r * bw)) & bmask;
                while row != 0 {
                    let c = row.trailing_zeros();
                    row &= row - 1;
                    t |= 1 << (c * bh + r);
                    tv |= 1 << ((bw - 1 - c) * bh + r);
                }
            }
            (t, tv)
        };
        best = best.min((bw, bh, least(t, tv)));
    }
    let (rh, rw, m) = best;
    Region {
        h: rh as u8,
        w: rw as u8,
        bits: [m, 0],
    }
}

/// `x / d` for `x < 64` and `1 <= d <= 64`, by a multiply: `x * ⌈2^16 / d⌉ / 2^16` is off
/// `x / d` by less than `64 / 2^16`, and the fraction of `x / d` is at most `1 - 1 / 64`.
#[inline]
fn div_small(x: u32, d: u32) -> u32 {
    const RECIPROCALS: [u32; 65] = {
        let mut t = [0; 65];
        let mut d = 1;
        while d < 65 {
            t[d] = 65536u32.div_ceil(d as u32);
            d += 1;
        }
        t
    };
    debug_assert!(x < 64 && (1..=64).contains(&d));
    (x * RECIPROCALS[d as usize]) >> 16
}

/// The `rows` rows of `width` bits (at most 8 each) of `m`, one to a byte.
#[inline]
fn spread_rows(m: u64, rows: u32, width: u32) -> u64 {
    let mask = low_bits::<u64>(width);
    (0..rows).fold(0, |out, r| out | (m >> (r * width) & mask) << (8 * r))
}

/// The inverse of [`spread_rows`]: the low `width` bits of the first `rows` bytes of `x`,
/// one row after another.
#[inline]
fn gather_rows(x: u64, rows: u32, width: u32) -> u64 {
    let mask = low_bits::<u64>(width);
    (0..rows).fold(0, |out, r| out | (x >> (8 * r) & mask) << (r * width))
}

/// The transpose of the 8×8 bit matrix whose row `r` is byte `r` of `x` (bit `c` of it
/// column `c`): bit `8r + c` goes to `8c + r`, by swaps of 1×1, 2×2 and 4×4 blocks.
#[inline]
fn transpose8(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// The rules of Cram. Components are [`Region`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cram;

/// The components of the cells `set` of an `h × w` box: connected regions of at least two
/// cells (a lone cell takes no domino and never matters), canonical, pushed to `out`.
fn regions_into<B: Bits>(shape: Shape<B>, set: B, out: &mut Vec<Region>) {
    shape.split(set, |comp| {
        if comp.without_lowest() != B::ZERO {
            out.push(canonical(shape, comp));
        }
    });
}

/// The dominoes of an `h × w` box as pairs of cell indices, nearest the centre of the box
/// first (vertical before horizontal at equal distance), computed once per box shape.
fn domino_order(h: u32, w: u32) -> std::borrow::Cow<'static, [(u8, u8)]> {
    const MAX_H: u32 = 11;
    let compute = || {
        let (hi, wi) = (h as i32, w as i32);
        let mut dominoes: Vec<(i32, u8, u8)> = Vec::with_capacity(2 * (h * w) as usize);
        Shape::<u128>::new(h, w).dominoes(full_mask(h * w), |a, b| {
            let (ia, ib) = (a.tz() as i32, b.tz() as i32);
            let (ra, ca, rb, cb) = (ia / wi, ia % wi, ib / wi, ib % wi);
            let dist = (ra + rb - (hi - 1)).abs() + (ca + cb - (wi - 1)).abs();
            let horizontal = (ra == rb) as i32;
            dominoes.push((2 * dist + horizontal, ia as u8, ib as u8));
        });
        // Stable: at equal keys, the order of enumeration (rightward pairs, then downward).
        dominoes.sort_by_key(|d| d.0);
        dominoes.into_iter().map(|(_, a, b)| (a, b)).collect::<Vec<_>>()
    };
    if h > MAX_H || w as usize > MAX_CELLS {
        return std::borrow::Cow::Owned(compute());
    }
    type Table = Vec<std::sync::OnceLock<Box<[(u8, u8)]>>>;
    static ORDERS: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = ORDERS.get_or_init(|| {
        (0..(MAX_H as usize + 1) * (MAX_CELLS + 1))
            .map(|_| std::sync::OnceLock::new())
            .collect()
    });
    let slot = &table[h as usize * (MAX_CELLS + 1) + w as usize];
    std::borrow::Cow::Borrowed(slot.get_or_init(|| compute().into_boxed_slice()))
}

/// The options of the connected region `set` of an `h × w` box, dominoes nearest the centre
/// of the box first (vertical before horizontal at equal distance): searches that stop at
/// the first winning move find it sooner there.
///
/// Most dominoes leave the region connected; that is found without filling the whole rest:
/// every cell of the rest is joined to a neighbour of the domino (the region was connected),
/// so once a fill from one neighbour reaches all the others, the rest is one region.
fn options_of<B: Bits>(
    h: u32,
    w: u32,
    set: B,
    mut emit: impl FnMut(&[Region]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let shape = Shape::<B>::new(h, w);
    let mut parts = Vec::with_capacity(4);
    for &(ia, ib) in domino_order(h, w).iter() {
        let d = B::ONE.shl(ia as u32) | B::ONE.shl(ib as u32);
        if set & d != d {
            continue;
        }
        parts.clear();
        let rest = set & !d;
        let around = shape.neighbours(d) & rest;
        if around != B::ZERO && joined(&shape, rest, around) {
            if rest.without_lowest() != B::ZERO {
                parts.push(canonical(shape, rest));
            }
        } else {
            regions_into(shape, rest, &mut parts);
        }
        emit(&parts)?;
    }
    ControlFlow::Continue(())
}

/// Whether the cells `targets` (not empty) are all in one connected part of `set`: a fill
/// from one of them that stops as soon as it has reached them all.
#[inline]
fn joined<B: Bits>(shape: &Shape<B>, set: B, targets: B) -> bool {
    let mut comp = targets.lowest();
    loop {
        if comp & targets == targets {
            return true;
        }
        let next = (comp | shape.neighbours(comp)) & set;
        if next == comp {
            return false;
        }
        comp = next;
    }
}

/// The components of the cells `set` of an `h × w` box (any size up to 128 cells).
fn components_of(h: u32, w: u32, set: u128) -> Vec<Region> {
    let mut out = Vec::new();
    if h * w <= 64 {
        regions_into(Shape::<u64>::new(h, w), set as u64, &mut out);
    } else {
        regions_into(Shape::<u128>::new(h, w), set, &mut out);
    }
    out
}

impl Ruleset for Cram {
    type Component = Region;

    fn options<F: FnMut(&[Region])>(&self, c: &Region, mut emit: F) {
        let _ = self.options_until(c, |p| {
            emit(p);
            ControlFlow::Continue(())
        });
    }

    fn options_until<F: FnMut(&[Region]) -> ControlFlow<()>>(&self, c: &Region, emit: F) -> ControlFlow<()> {
        let (h, w) = (c.h as u32, c.w as u32);
        if h * w <= 64 {
            options_of::<u64>(h, w, c.mask() as u64, emit)
        } else {
            options_of::<u128>(h, w, c.mask(), emit)
        }
    }

    /// Zero for a region symmetric under the half turn with no domino on its centre: the
    /// second player answers every domino with its image under the half turn, which is
    /// always still free (Tweedledum and Tweedledee), so the player to move loses.
    ///
    /// A straight strip of n cells is octal game 0.07 (a domino takes two adjacent cells of
    /// a row of n, leaving rows of a and n − 2 − a): its value comes from a table.
    fn known_grundy(&self, c: &Region) -> Option<Nimber> {
        if c.h == 1 && c.mask() == full_mask(c.w as u32) {
            return Some(Nimber(strip_values()[c.w as usize] as u64));
        }
        symmetric_loss(c.h as u32, c.w as u32, c.mask()).then_some(Nimber(0))
    }

    fn size_hint(&self, c: &Region) -> usize {
        c.cells() as usize
    }

    /// Regions whose box has at most [`CODE_CELLS`] cells: the width in the low 6 bits and
    /// the mask above (the box is cropped, so the height is where the last cell is). Codes
    /// of regions of `n` cells have at most `n + 6` bits, so that the search's table keeps
    /// them in its narrow slots.
    fn code(&self, c: &Region) -> Option<u64> {
        let n = c.h as u32 * c.w as u32;
        (n <= CODE_CELLS && c.w < 64).then(|| c.bits[0] << 6 | c.w as u64)
    }
}

/// Values of Cram on a 1×n strip for n ≤ 128 (octal game 0.07), computed once by mex.
pub fn strip_values() -> &'static [u8; 129] {
    static TABLE: std::sync::OnceLock<[u8; 129]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut g = [0u8; 129];
        for n in 2..=128 {
            let mut seen = [false; 130];
            for a in 0..=(n - 2) / 2 {
                seen[(g[a] ^ g[n - 2 - a]) as usize] = true;
            }
            g[n] = seen.iter().position(|&x| !x).unwrap_or(0) as u8;
        }
        g
    })
}

/// True when the cells `m` of an `h × w` box are symmetric under the half turn and no domino
/// meets its own image (none lies across the centre, none covers the centre cell).
pub fn symmetric_loss(h: u32, w: u32, m: u128) -> bool {
    let n = h * w;
    if n == 0 || m.reverse_bits() >> (128 - n) != m {
        return false;
    }
    // Cell i turns into n - 1 - i. A domino meets its own image when it is its own image
    // ({i, j} with i + j = n - 1) or when it covers the fixed centre cell (n odd).
    let has = |i: u32| m >> i & 1 == 1;
    if n & 1 == 1 {
        let c = (n - 1) / 2;
        let (r, col) = (c / w, c % w);
        let next_to = (col > 0 && has(c - 1))
            || (col + 1 < w && has(c + 1))
            || (r > 0 && has(c - w))
            || (r + 1 < h && has(c + w));
        if has(c) && next_to {
            return false;
        }
    }
    if n & 1 == 0 {
        let i = (n - 2) / 2;
        if i % w != w - 1 && has(i) && has(i + 1) {
            return false;
        }
    }
    if (n - 1) >= w && (n - 1 - w) & 1 == 0 {
        let i = (n - 1 - w) / 2;
        if has(i) && has(i + w) {
            return false;
        }
    }
    true
}

/// Reads `RxC` (both from 1), or `None` when `text` is not of that form.
fn parse_dimensions(text: &str) -> Option<Result<Board, ParseError>> {
    let lead = text.len() - text.trim_start().len();
    let t = text.trim();
    let (line, col0) = {
        let before = &text[..lead];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map(|s| s.chars().count()).unwrap_or(0) + 1;
        (line, col)
    };
    let x = t.find(['x', 'X'])?;
    let (a, b) = (&t[..x], &t[x + 1..]);
    if a.is_empty() || !a.bytes().all(|c| c.is_ascii_digit()) {
        // Something like `.x.` is a grid with an unknown cell: let the grid parser say so.
        return None;
    }
    let number = |s: &str, col: usize, what: &str| -> Result<u32, ParseError> {
        if let Some(k) = s.chars().position(|c| !c.is_ascii_digit()) {
            return Err(ParseError::new(
                line,
                col + k,
                format!("expected the number of {what}"),
            ));
        }
        match s.parse::<u32>() {
            Ok(v) if v >= 1 && v as usize <= MAX_CELLS => Ok(v),
            Ok(0) => Err(ParseError::new(
                line,
                col,
                format!("the number of {what} must be at least 1"),
            )),
            _ => Err(ParseError::new(
                line,
                col,
                format!("too many {what} (a board has at most {MAX_CELLS} cells)"),
            )),
        }
    };
    Some((|| {
        let rows = number(a, col0, "rows")?;
        let bcol = col0 + a.chars().count() + 1;
        if b.is_empty() {
            return Err(ParseError::new(line, bcol, "expected the number of columns"));
        }
        let cols = number(b, bcol, "columns")?;
        Board::empty(rows, cols).ok_or_else(|| {
            ParseError::new(
                line,
                col0,
                format!(
                    "a {rows}x{cols} board has {} cells, at most {MAX_CELLS} are supported",
                    rows as u64 * cols as u64
                ),
            )
        })
    })())
}

/// The place of the `k`-th cell character (0-based) of a grid text, for errors.
fn place_of_cell(text: &str, k: usize) -> (usize, usize) {
    let mut seen = 0;
    for (li, line) in text.lines().enumerate() {
        for (ci, ch) in line.chars().enumerate() {
            if ch == '.' || ch == '#' {
                if seen == k {
                    return (li + 1, ci + 1);
                }
                seen += 1;
            }
        }
    }
    (1, 1)
}

/// Reads a Cram board: `RxC`, or rows of `.` and `#` separated by newlines or `/`.
pub fn parse_board(text: &str) -> Result<Board, ParseError> {
    if let Some(r) = parse_dimensions(text) {
        return r;
    }
    let g = parse_grid(text, ".#", "cram")?;
    if g.cells.len() > MAX_CELLS {
        let (l, c) = place_of_cell(text, MAX_CELLS);
        return Err(ParseError::new(
            l,
            c,
            format!(
                "board too large: {} cells, at most {MAX_CELLS} are supported",
                g.cells.len()
            ),
        ));
    }
    let mut empty = 0u128;
    for (i, &b) in g.cells.iter().enumerate() {
        if b == b'.' {
            empty |= 1 << i;
        }
    }
    Ok(Board {
        rows: g.rows as u32,
        cols: g.cols as u32,
        empty,
    })
}

/// The board as rows of `.` and `#` joined by `/`, or `RxC` when every cell is empty.
pub fn format_board(b: &Board) -> String {
    if b.empty == full_mask(b.rows * b.cols) {
        return format!("{}x{}", b.rows, b.cols);
    }
    let mut s = String::new();
    for r in 0..b.rows {
        if r > 0 {
            s.push('/');
        }
        for c in 0..b.cols {
            s.push(if b.is_empty_cell(r, c) { '.' } else { '#' });
        }
    }
    s
}

impl Game for Cram {
    type Position = Board;
    type Move = Domino;

    fn parse_position(&self, text: &str) -> Result<Board, ParseError> {
        parse_board(text)
    }

    fn components(&self, p: &Board) -> Vec<Region> {
        components_of(p.rows, p.cols, p.empty)
    }

    fn moves<F: FnMut(Domino, Board)>(&self, p: &Board, mut emit: F) {
        let cols = p.cols;
        for i in 0..p.rows * cols {
            let (r, c) = (i / cols, i % cols);
            if !p.is_empty_cell(r, c) {
                continue;
            }
            for (r2, c2) in [(r, c + 1), (r + 1, c)] {
                if p.is_empty_cell(r2, c2) {
                    let mut q = p.clone();
                    q.empty &= !(1u128 << i) & !(1u128 << (r2 * cols + c2));
                    emit(Domino { r1: r, c1: c, r2, c2 }, q);
                }
            }
        }
    }

    fn format_move(&self, m: &Domino) -> String {
        format!("{},{}-{},{}", m.r1 + 1, m.c1 + 1, m.r2 + 1, m.c2 + 1)
    }

    fn format_position(&self, p: &Board) -> String {
        format_board(p)
    }
}

/// A whole Cram board ranked for `grundy_solve::dense` (a dev-dependency here): the states
/// are the subsets of the board's initially empty cells (at most [`MAX_DENSE_CELLS`]), tier
/// k holding those with k empty cells, in colex order. A domino goes from tier k to k − 2.
#[derive(Clone, Debug)]
pub struct CramDense {
    board: Board,
    /// Board cell index of each dense cell, in increasing order.
    cells: Vec<u32>,
    /// For each dense cell, its right and lower neighbours among the dense cells.
    forward: Vec<u64>,
    subsets: Subsets,
}

impl CramDense {
    /// The ranking of the positions reachable from `board`, or an error when it has more than
    /// [`MAX_DENSE_CELLS`] empty cells.
    pub fn new(board: &Board) -> Result<CramDense, String> {
        let n = board.empty_cells() as usize;
        if n > MAX_DENSE_CELLS {
            return Err(format!(
                "the dense solver ranks at most {MAX_DENSE_CELLS} empty cells, the board has {n}"
            ));
        }
        let cells: Vec<u32> = (0..board.rows * board.cols)
            .filter(|&i| board.empty >> i & 1 == 1)
            .collect();
        let dense_of = |i: u32| cells.iter().position(|&x| x == i);
        let mut forward = vec![0u64; n];
        for (k, &i) in cells.iter().enumerate() {
            let (r, c) = (i / board.cols, i % board.cols);
            for (r2, c2) in [(r, c + 1), (r + 1, c)] {
                if board.is_empty_cell(r2, c2) {
                    if let Some(j) = dense_of(r2 * board.cols + c2) {
                        forward[k] |= 1 << j;
                    }
                }
            }
        }
        Ok(CramDense {
            board: board.clone(),
            cells,
            forward,
            subsets: Subsets::new(n as u32).expect("at most 64 cells"),
        })
    }

    /// The tier of the starting board (its number of empty cells).
    pub fn top_tier(&self) -> u32 {
        self.cells.len() as u32
    }

    /// Tier and index of `p`, a position reached from the starting board (its empty cells a
    /// subset of the board's); `None` otherwise.
    pub fn locate(&self, p: &Board) -> Option<(u32, u64)> {
        if (p.rows, p.cols) != (self.board.rows, self.board.cols) || p.empty & !self.board.empty != 0 {
            return None;
        }
        let mut m = 0u64;
        for (k, &i) in self.cells.iter().enumerate() {
            if p.empty >> i & 1 == 1 {
                m |= 1 << k;
            }
        }
        Some((m.count_ones(), self.subsets.rank(m)))
    }

    /// The position of state `index` of `tier`.
    pub fn board_of(&self, tier: u32, index: u64) -> Board {
        let m = self.subsets.unrank(tier, index);
        let mut empty = 0u128;
        for (k, &i) in self.cells.iter().enumerate() {
            if m >> k & 1 == 1 {
                empty |= 1 << i;
            }
        }
        Board {
            empty,
            ..self.board.clone()
        }
    }
}

impl DenseGame for CramDense {
    type State = u64;

    fn num_tiers(&self) -> u32 {
        self.cells.len() as u32 + 1
    }

    fn tier_size(&self, tier: u32) -> u64 {
        self.subsets.binomial(self.cells.len() as u32, tier)
    }

    fn child_tiers(&self, tier: u32) -> Vec<u32> {
        if tier >= 2 {
            vec![tier - 2]
        } else {
            vec![]
        }
    }

    fn unrank(&self, tier: u32, index: u64) -> u64 {
        self.subsets.unrank(tier, index)
    }

    fn advance(&self, _tier: u32, _index: u64, state: &mut u64) {
        *state = Subsets::next(*state);
    }

    #[inline]
    fn successors<F: FnMut(u32, u64)>(&self, tier: u32, &s: &u64, mut emit: F) {
        let mut m = s;
        while m != 0 {
            let a = m.trailing_zeros();
            m &= m - 1;
            let mut f = self.forward[a as usize] & s;
            while f != 0 {
                let b = f.trailing_zeros();
                f &= f - 1;
                emit(tier - 2, self.subsets.rank(s & !(1u64 << a) & !(1u64 << b)));
            }
        }
    }
}

/// Cram as a family of the registry.
pub struct CramFamily;

/// What the analysis of a board whose largest region (not answered by symmetry) has `cells`
/// empty cells needs, from the measured growth of `grundy solve cram` (docs/benchmarks.md):
/// table entries from 4×9 (36 cells, about 131 000) and 5×8 (40 cells, about 524 000), about
/// ×1.4 per cell; time from the full analyses with the default flags, user seconds, 5×9
/// (45 cells) 151 s, 7×7 (49) 1474 s, 5×10 (50) 5138 s, 4×13 (52) 5601 s, fitted by
/// least squares to 10.9 s × 1.74 per cell past 40 (each within a factor of 2 of the fit);
/// the value alone takes about a third of that (`--value-only -j1` against the default
/// analysis, user time, on 5×8 and 4×11: 0.35–0.37).
/// Boards of high value fall far outside the fit: 6×7 (42 cells, value 5) took about 6400
/// user seconds (2026-12-06), some 200 times the 33 s the fit gives.
/// Estimates start at 36 cells (below, runs take seconds and a limit stops them cleanly
/// anyway).
pub fn search_need(cells: u32) -> Option<crate::family::SearchNeed> {
    if cells < 36 {
        return None;
    }
    let more = cells as f64 - 40.0;
    let entries = 524_000.0 * 1.4f64.powf(more);
    let core_seconds = 10.9 * 1.74f64.powf(more);
    Some(crate::family::SearchNeed {
        entries: entries as u64,
        // Eight bytes a slot, the table about three quarters full.
        bytes: (entries * 8.0 / 0.75) as u64,
        core_seconds,
        value_core_seconds: core_seconds / 3.0,
        basis: "the measured growth from 5x9 to 4x13; boards of high value take far longer: 6x7, value 5, took about 200 times its estimate",
    })
}

impl Family for CramFamily {
    type Game = Cram;
    const DESCRIPTION: Description = Description {
        name: "cram",
        aliases: &[],
        notation: "Cram: dominoes on a board: 'RxC' or rows of '.' and '#' (a hole), e.g. '3x4'",
        example: "3x4",
        misere: true,
        engine: Engine::Search,
        options: &[],
        // Boards beyond 6x6 take long: the table stops there.
        table: Some(Table::boards(6)),
        dense: true,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: crate::family::estimate_by_tokens,
        sample,
    };

    fn build(&self, _: &str, _: &FamilyOptions, text: &str) -> Result<(Cram, Board), RegistryError> {
        let p = Cram
            .parse_position(text)
            .map_err(|e| RegistryError::position("cram", e))?;
        Ok((Cram, p))
    }

    fn board(&self, _: &Cram, p: &Board) -> BoardView {
        let rows = (0..p.rows)
            .map(|r| {
                (0..p.cols)
                    .map(|c| if p.is_empty_cell(r, c) { '.' } else { '#' })
                    .collect()
            })
            .collect();
        BoardView::Grid { rows }
    }

    fn search_need(&self, _: &Cram, p: &Board) -> Option<crate::family::SearchNeed> {
        let largest = Cram
            .components(p)
            .into_iter()
            .filter(|c| Cram.known_grundy(c).is_none())
            .map(|c| c.cells())
            .max()?;
        search_need(largest)
    }

    fn with_dense<A: WithDense>(&self, game: &Cram, p: &Board, action: A) -> Option<A::Output> {
        Some(action.run(self, game, p))
    }
}

impl DenseForm for CramFamily {
    type Dense = CramDense;

    fn dense(&self, _: &Cram, p: &Board) -> Result<CramDense, String> {
        CramDense::new(p)
    }

    fn below(&self, _: &Cram, p: &Board, start: u128) -> Option<CramDense> {
        CramDense::new(&Board {
            rows: p.rows,
            cols: p.cols,
            empty: start,
        })
        .ok()
    }

    fn locate(&self, dense: &CramDense, p: &Board) -> Option<(u32, u64)> {
        dense.locate(p)
    }

    fn top_tier(&self, dense: &CramDense) -> u32 {
        dense.top_tier()
    }

    fn geometry(&self, _: &Cram, p: &Board) -> String {
        format!("{}x{}", p.rows, p.cols)
    }

    fn rule(&self, _: &Cram) -> String {
        "-".into()
    }

    fn mask(&self, p: &Board) -> u128 {
        p.empty
    }
}

/// A board of up to 3×4 cells, a fifth of them holes.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let (rows, cols) = (r.range(1, 3), r.range(1, 4));
    Sample::text(r.grid(rows, cols, &['.', '.', '.', '.', '#']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_core::Outcome;
    use grundy_solve::{brute, Convention};
    use proptest::prelude::*;

    fn board(s: &str) -> Board {
        Cram.parse_position(s).unwrap()
    }

    #[test]
    fn notation_round_trips() {
        let b = board("3x4");
        assert_eq!((b.rows, b.cols, b.empty_cells()), (3, 4, 12));
        assert_eq!(Cram.format_position(&b), "3x4");
        let b = board(".#./...");
        assert_eq!(Cram.format_position(&b), ".#./...");
        assert_eq!(board(".#.\n...\n"), b);
        let mut moves = Vec::new();
        Cram.moves(&b, |m, _| moves.push(Cram.format_move(&m)));
        assert_eq!(moves, vec!["1,1-2,1", "1,3-2,3", "2,1-2,2", "2,2-2,3"]);
    }

    #[test]
    fn parse_errors_have_places() {
        let at = |s: &str| {
            let e = Cram.parse_position(s).unwrap_err();
            (e.span.line, e.span.column)
        };
        assert_eq!(at("3x"), (1, 3));
        assert_eq!(at("3xa"), (1, 3));
        assert_eq!(at("0x4"), (1, 1));
        assert_eq!(at("  12x20"), (1, 3));
        assert_eq!(at("3x1000"), (1, 3));
        assert_eq!(at("../.x"), (1, 5));
        assert_eq!(at("..\n.o"), (2, 2));
        assert_eq!(at("../..."), (1, 6));
        assert_eq!(at(""), (1, 1));
        let big = format!("{}/{}", ".".repeat(100), ".".repeat(100));
        assert_eq!(at(&big), (1, 130));
    }

    #[test]
    fn canonical_forms_share_shapes() {
        // An L tromino in its eight orientations is one region.
        let ls = ["../.#", "../#.", ".#/..", "#./..", "..#/.##", "#../##."];
        let first = Cram.components(&board(ls[0]));
        for s in ls {
            assert_eq!(Cram.components(&board(s)), first, "{s}");
        }
        let straight = Cram.components(&board("...#"));
        assert_eq!(straight, Cram.components(&board("#/././.")));
        assert_eq!(straight[0].h, 1);
        assert_eq!(straight[0].w, 3);
        // Lone cells are not components.
        assert!(Cram.components(&board(".#./#.#")).is_empty());
    }

    #[test]
    fn known_values() {
        // Both sides even: the second player wins by symmetry.
        for s in ["2x2", "2x4", "4x4"] {
            let a = grundy_solve::analyze(&Cram, &board(s), Convention::Normal).unwrap();
            assert_eq!(a.outcome, Outcome::Second, "{s}");
        }
        // One side even, one odd: the first player wins (centre domino, then symmetry).
        for s in ["2x3", "3x4", "2x5"] {
            let a = grundy_solve::analyze(&Cram, &board(s), Convention::Normal).unwrap();
            assert_eq!(a.outcome, Outcome::First, "{s}");
        }
        // A 1×n strip: octal game 0.07 (G(2) = 1, G(3) = 1, G(4) = 2, G(5) = 0 ...).
        let want = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3];
        for (n, &g) in want.iter().enumerate() {
            assert_eq!(strip_values()[n] as u64, g, "table at {n}");
            // Brute force, which knows nothing of tables, agrees.
            let b = Board::empty(1, n.max(1) as u32).unwrap();
            assert_eq!(brute::grundy(&Cram, &b), Nimber(g));
        }
        // Dawson's Kayles (0.07) is periodic with period 34 from n = 53 on (Guy and Smith).
        for n in 53..=(128 - 34) {
            assert_eq!(strip_values()[n], strip_values()[n + 34], "period at {n}");
        }
        for (n, &g) in want.iter().enumerate().skip(1) {
            let b = Board::empty(1, n as u32).unwrap();
            let a = grundy_solve::analyze(&Cram, &b, Convention::Normal).unwrap();
            assert_eq!(a.grundy, Some(Nimber(g)), "1x{n}");
        }
    }

    fn small_board() -> impl Strategy<Value = Board> {
        (1u32..5, 1u32..5).prop_flat_map(|(r, c)| {
            proptest::collection::vec(proptest::bool::weighted(0.8), (r * c) as usize).prop_map(
                move |cells| {
                    let mut empty = 0u128;
                    for (i, &e) in cells.iter().enumerate() {
                        if e {
                            empty |= 1 << i;
                        }
                    }
                    Board {
                        rows: r,
                        cols: c,
                        empty,
                    }
                },
            )
        })
    }

    proptest! {
        /// The word-sized canonical form (an 8×8 bit transpose for small boxes) agrees with
        /// the general one, row by row on 128-bit masks.
        #[test]
        fn canonical64_agrees_with_the_general_form(h in 1u32..=16, w in 1u32..=16, cells in any::<u64>(), sparse in any::<u64>()) {
            prop_assume!(h * w <= 64);
            let cells = cells & sparse & low_bits::<u64>(h * w);
            prop_assume!(cells != 0);
            prop_assert_eq!(canonical64(h, w, cells), canonical(Shape::<u128>::new(h, w), cells as u128));
        }

        #[test]
        fn div_small_divides(x in 0u32..64, d in 1u32..=64) {
            prop_assert_eq!(div_small(x, d), x / d);
        }

        #[test]
        fn transpose8_moves_each_bit(i in 0u32..64) {
            let (r, c) = (i / 8, i % 8);
            prop_assert_eq!(transpose8(1 << i), 1 << (8 * c + r));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn canonical_is_invariant(b in small_board()) {
            // Turning the board a quarter and mirroring it changes no component.
            let (r, c) = (b.rows, b.cols);
            let mut turned = Board { rows: c, cols: r, empty: 0 };
            let mut mirrored = Board { rows: r, cols: c, empty: 0 };
            for i in 0..r {
                for j in 0..c {
                    if b.is_empty_cell(i, j) {
                        turned.empty |= 1 << (j * r + (r - 1 - i));
                        mirrored.empty |= 1 << (i * c + (c - 1 - j));
                    }
                }
            }
            let mut want = Cram.components(&b);
            want.sort();
            for other in [turned, mirrored] {
                let mut got = Cram.components(&other);
                got.sort();
                prop_assert_eq!(&got, &want);
            }
        }

        #[test]
        fn parser_never_panics(s in "[.#x0-9/\n ]{0,30}") {
            let _ = Cram.parse_position(&s);
        }
    }

    fn any_board(max_side: u32) -> impl Strategy<Value = Board> {
        (1..=max_side, 1..=max_side)
            .prop_filter("at most 128 cells", |(r, c)| r * c <= 128)
            .prop_flat_map(|(r, c)| {
                (Just((r, c)), any::<u128>()).prop_map(|((r, c), bits)| Board {
                    rows: r,
                    cols: c,
                    empty: bits & full_mask(r * c),
                })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn u64_and_u128_geometry_agree(b in any_board(16)) {
            let (h, w) = (b.rows, b.cols);
            let mut wide = Vec::new();
            regions_into(Shape::<u128>::new(h, w), b.empty, &mut wide);
            prop_assert_eq!(&wide, &components_of(h, w, b.empty));
            if h * w <= 64 {
                let mut narrow = Vec::new();
                regions_into(Shape::<u64>::new(h, w), b.empty as u64, &mut narrow);
                prop_assert_eq!(&narrow, &wide);
            }
            // Options of each connected part: both widths agree, and with a full split of
            // what each domino leaves (in the order of `domino_order`).
            let shape = Shape::<u128>::new(h, w);
            let mut parts_seen = Vec::new();
            shape.split(b.empty, |comp| parts_seen.push(comp));
            for comp in parts_seen {
                let mut want = Vec::new();
                for &(ia, ib) in domino_order(h, w).iter() {
                    let d = (1u128 << ia) | (1u128 << ib);
                    if comp & d == d {
                        let mut p = Vec::new();
                        regions_into(shape, comp & !d, &mut p);
                        want.push(p);
                    }
                }
                let mut o128 = Vec::new();
                let _ = options_of::<u128>(h, w, comp, |p| {
                    o128.push(p.to_vec());
                    ControlFlow::Continue(())
                });
                prop_assert_eq!(&o128, &want);
                if h * w <= 64 {
                    let mut o64 = Vec::new();
                    let _ = options_of::<u64>(h, w, comp as u64, |p| {
                        o64.push(p.to_vec());
                        ControlFlow::Continue(())
                    });
                    prop_assert_eq!(&o64, &want);
                }
            }
            // Every component is connected, canonical and holds at least two cells.
            let cells: u32 = wide.iter().map(|r| r.cells()).sum();
            prop_assert!(cells <= b.empty.count_ones());
            for r in &wide {
                prop_assert!(r.cells() >= 2 && r.h <= r.w);
                prop_assert_eq!(Region::canonical(r.h as u32, r.w as u32, r.mask()), *r);
            }
        }

        #[test]
        fn half_turn_symmetry_without_centre_domino_loses(b in small_board()) {
            // Make the board symmetric under the half turn, then compare with brute force.
            let n = b.rows * b.cols;
            let mut sym = b.clone();
            for i in 0..n {
                if b.empty >> i & 1 == 0 {
                    sym.empty &= !(1u128 << (n - 1 - i));
                }
            }
            let brute_zero = brute::grundy(&Cram, &sym) == Nimber(0);
            if symmetric_loss(sym.rows, sym.cols, sym.empty) {
                prop_assert!(brute_zero, "{}", Cram.format_position(&sym));
            }
        }
    }
}
