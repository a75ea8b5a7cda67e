//! Coordinate games (`kind = "coordinates"` game files): a position is a tuple of `d`
//! non-negative numbers (`d` from 1 to 4), or a sum of such tuples; a move adds one of the
//! spec's move vectors to one tuple (a *repeated* vector any positive multiple of it), and
//! the coordinates must stay at least 0 (and at most the spec's bound, when it has one).
//! Wythoff's game is the pair of heaps with the vectors (−1, 0), (0, −1) and (−1, −1), each
//! repeated.
//!
//! ```toml
//! kind = "coordinates"
//! name = "wythoff"
//! moves = [
//!   { step = [-1, 0], repeat = true },
//!   { step = [0, -1], repeat = true },
//!   { step = [-1, -1], repeat = true },
//! ]
//! # bound = [20, 30]       # optional: coordinate i at most bound[i] (or one number for all)
//! # dimensions = 2         # optional: the length of every step (checked against them)
//! ```
//!
//! Every step must lower the sum of the coordinates (its entries add up to less than 0), so
//! every game ends. Components are single tuples, canonical under the permutations of the
//! coordinates that map the moves (and the bound) onto themselves: in Wythoff's game `5 3`
//! and `3 5` are one component.
//!
//! Notation: the tuple's numbers separated by spaces (`3 5`), tuples of a sum separated by
//! `,`, `;` or new lines (`3 5, 2 7`). A move `I:A B->C D` takes tuple number I (from 1)
//! from `A B` to `C D`.
//!
//! Values come from a dense table computed in bulk (within the memory budget) for the tuples
//! below the largest coordinate of the position, when every step is nowhere positive (or the
//! bound makes the whole game a box); beyond it the memo engine searches.

// Coordinates are indexed across several fixed-size arrays at once (a tuple, a step, a
// bound): index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

use crate::family::{
    BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Sample, Seeded, Table, TableKind,
};
use crate::gamefile::{GameFile, SpecError};
use grundy_core::{Game, Nimber, ParseError, Ruleset};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use toml::Spanned;

/// Most coordinates of a tuple.
pub const MAX_DIMENSIONS: usize = 4;
/// Largest coordinate of a position (and of a bound).
pub const MAX_COORDINATE: u64 = 1 << 40;
/// Largest entry of a step, in absolute value.
pub const MAX_STEP: i64 = 1 << 20;
/// Most moves (vectors) a spec may give.
pub const MAX_MOVES: usize = 256;
/// Most tuples in one position.
pub const MAX_TUPLES: usize = 1024;
/// Most cells of the bulk table.
pub const MAX_TABLE_CELLS: u64 = 1 << 22;

/// The spec of Wythoff's game, used when no game file is given.
pub const WYTHOFF: &str = include_str!("../../../examples/games/wythoff.toml");
/// The spec of Corner the King (king moves toward the corner), an example.
pub const KING: &str = include_str!("../../../examples/games/king.toml");

/// One move of the spec, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveSpec {
    step: Spanned<Vec<i64>>,
    #[serde(default)]
    repeat: bool,
}

/// A bound: one number for every coordinate, or one per coordinate.
#[derive(Deserialize)]
#[serde(untagged)]
enum BoundSpec {
    One(u64),
    Many(Vec<u64>),
}

/// The file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    dimensions: Option<Spanned<u64>>,
    moves: Spanned<Vec<MoveSpec>>,
    bound: Option<Spanned<BoundSpec>>,
}

/// A move of the rules: a vector, repeated (any positive multiple) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Step {
    /// The vector (entries past the game's dimension are 0).
    pub v: [i64; MAX_DIMENSIONS],
    /// Whether any positive multiple of it may be played.
    pub repeat: bool,
}

/// The rules read from a spec: the dimension, the moves, the bound and the symmetries.
#[derive(Debug)]
pub struct Spec {
    /// Coordinates per tuple.
    pub dimensions: usize,
    /// The moves, sorted, without duplicates.
    pub steps: Vec<Step>,
    /// The largest value of each coordinate (`None`: no bound).
    pub bound: Option<[u64; MAX_DIMENSIONS]>,
    /// The permutations of the coordinates that map the rules onto themselves (the identity
    /// first).
    symmetries: Vec<[usize; MAX_DIMENSIONS]>,
    /// The largest bulk table computed so far, shared by every game of the spec.
    bulk: Mutex<Option<Arc<Bulk>>>,
}

/// Reads and checks a coordinates spec; every error names its line and column.
pub fn read_spec(file: &GameFile) -> Result<Spec, SpecError> {
    let spec: FileSpec = file.spec()?;
    let moves = spec.moves.get_ref();
    if moves.is_empty() {
        return Err(file.error_at(spec.moves.span(), "give at least one move"));
    }
    if moves.len() > MAX_MOVES {
        return Err(file.error_at(
            spec.moves.span(),
            format!("at most {MAX_MOVES} moves, not {}", moves.len()),
        ));
    }
    let dimensions = match &spec.dimensions {
        Some(d) => {
            let n = *d.get_ref();
            if !(1..=MAX_DIMENSIONS as u64).contains(&n) {
                return Err(file.error_at(d.span(), format!("dimensions is 1 to {MAX_DIMENSIONS}, not {n}")));
            }
            n as usize
        }
        None => moves[0].step.get_ref().len(),
    };
    let mut steps = Vec::with_capacity(moves.len());
    for m in moves {
        let s = m.step.get_ref();
        let at = m.step.span();
        if s.len() != dimensions || !(1..=MAX_DIMENSIONS).contains(&s.len()) {
            return Err(file.error_at(
                at,
                if (1..=MAX_DIMENSIONS).contains(&dimensions) {
                    format!(
                        "a step has {dimensions} entries (one per coordinate), this one has {}",
                        s.len()
                    )
                } else {
                    format!(
                        "a step has 1 to {MAX_DIMENSIONS} entries, this one has {}",
                        s.len()
                    )
                },
            ));
        }
        if let Some(x) = s.iter().find(|x| x.abs() > MAX_STEP) {
            return Err(file.error_at(
                at,
                format!("a step's entries are at most {MAX_STEP} in size, not {x}"),
            ));
        }
        let sum: i64 = s.iter().sum();
        if sum >= 0 {
            return Err(file.error_at(
                at,
                format!(
                    "a step must lower the sum of the coordinates (its entries add up to {sum}, not less than 0), so that every game ends"
                ),
            ));
        }
        let mut v = [0i64; MAX_DIMENSIONS];
        v[..dimensions].copy_from_slice(s);
        steps.push(Step { v, repeat: m.repeat });
    }
    steps.sort();
    steps.dedup();
    let bound = match &spec.bound {
        None => None,
        Some(b) => {
            let list = match b.get_ref() {
                BoundSpec::One(n) => vec![*n; dimensions],
                BoundSpec::Many(v) => v.clone(),
            };
            if list.len() != dimensions {
                return Err(file.error_at(
                    b.span(),
                    format!(
                        "bound has one number per coordinate ({dimensions}), not {}",
                        list.len()
                    ),
                ));
            }
            if let Some(x) = list.iter().find(|&&x| x > MAX_COORDINATE) {
                return Err(file.error_at(b.span(), format!("a bound is at most {MAX_COORDINATE}, not {x}")));
            }
            let mut out = [0u64; MAX_DIMENSIONS];
            out[..dimensions].copy_from_slice(&list);
            Some(out)
        }
    };
    let symmetries = symmetries(dimensions, &steps, bound.as_ref());
    Ok(Spec {
        dimensions,
        steps,
        bound,
        symmetries,
        bulk: Mutex::new(None),
    })
}

/// The permutations of `0..d` that map the set of steps (and the bound) onto itself.
fn symmetries(
    d: usize,
    steps: &[Step],
    bound: Option<&[u64; MAX_DIMENSIONS]>,
) -> Vec<[usize; MAX_DIMENSIONS]> {
    let mut perms = Vec::new();
    let mut p = [0usize, 1, 2, 3];
    permute(&mut p, 0, d, &mut perms);
    perms.retain(|p| {
        let bound_ok = bound.is_none_or(|b| (0..d).all(|i| b[p[i]] == b[i]));
        let mut mapped: Vec<Step> = steps
            .iter()
            .map(|s| {
                let mut v = [0i64; MAX_DIMENSIONS];
                for i in 0..d {
                    v[i] = s.v[p[i]];
                }
                Step { v, repeat: s.repeat }
            })
            .collect();
        mapped.sort();
        bound_ok && mapped == steps
    });
    // The identity is first: permute() starts from it.
    perms
}

fn permute(p: &mut [usize; MAX_DIMENSIONS], k: usize, d: usize, out: &mut Vec<[usize; MAX_DIMENSIONS]>) {
    if k == d {
        out.push(*p);
        return;
    }
    for i in k..d {
        p.swap(k, i);
        permute(p, k + 1, d, out);
        p.swap(k, i);
    }
}

/// A tuple: `d` coordinates (the rest 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Point(pub [u64; MAX_DIMENSIONS]);

/// Grundy values of every tuple of a box, computed in bulk.
#[derive(Debug)]
pub struct Bulk {
    /// Extent of the box in each coordinate (tuples with `x[i] < extent[i]`).
    extent: [u64; MAX_DIMENSIONS],
    /// The values, in the box's row-major order (the last coordinate fastest).
    values: Vec<u32>,
}

impl Bulk {
    fn index(&self, d: usize, x: &Point) -> Option<usize> {
        let mut i = 0u64;
        for k in 0..d {
            if x.0[k] >= self.extent[k] {
                return None;
            }
            i = i * self.extent[k] + x.0[k];
        }
        Some(i as usize)
    }

    /// The value of `x`, when it is in the box.
    fn get(&self, d: usize, x: &Point) -> Option<u32> {
        self.index(d, x).map(|i| self.values[i])
    }

    /// The side of the box (its least extent).
    fn side(&self, d: usize) -> u64 {
        self.extent[..d].iter().copied().min().unwrap_or(0)
    }
}

impl Spec {
    /// Whether `x` lies within the bound.
    fn in_bound(&self, x: &[i64; MAX_DIMENSIONS]) -> bool {
        (0..self.dimensions).all(|i| {
            x[i] >= 0 && x[i] <= MAX_COORDINATE as i64 && self.bound.is_none_or(|b| x[i] as u64 <= b[i])
        })
    }

    /// The canonical form of `x` under the symmetries.
    pub fn canonical(&self, x: Point) -> Point {
        let mut best = x;
        for p in &self.symmetries[1..] {
            let mut y = Point::default();
            for i in 0..self.dimensions {
                y.0[i] = x.0[p[i]];
            }
            if y < best {
                best = y;
            }
        }
        best
    }

    /// Calls `f` with every tuple one move from `x` (not canonical), in the order of the steps.
    fn each_option(&self, x: &Point, mut f: impl FnMut(Point)) {
        let d = self.dimensions;
        for s in &self.steps {
            let mut k: i64 = 1;
            loop {
                let mut y = [0i64; MAX_DIMENSIONS];
                for i in 0..d {
                    y[i] = x.0[i] as i64 + k * s.v[i];
                }
                if !self.in_bound(&y) {
                    break;
                }
                let mut p = Point::default();
                for i in 0..d {
                    p.0[i] = y[i] as u64;
                }
                f(p);
                if !s.repeat {
                    break;
                }
                k += 1;
            }
        }
    }

    /// Whether every step is nowhere positive: then every option of a tuple lies in the box
    /// below it.
    fn downward(&self) -> bool {
        self.steps.iter().all(|s| s.v.iter().all(|&x| x <= 0))
    }

    /// The box a bulk table of side `side` covers, or `None` when the rules have no such box
    /// (a step going up with no bound to stop it).
    fn table_box(&self, side: u64) -> Option<[u64; MAX_DIMENSIONS]> {
        let d = self.dimensions;
        let mut extent = [1u64; MAX_DIMENSIONS];
        if self.downward() {
            for (i, e) in extent.iter_mut().enumerate().take(d) {
                *e = self.bound.map_or(side, |b| side.min(b[i] + 1));
            }
        } else {
            let b = self.bound?;
            for i in 0..d {
                extent[i] = b[i] + 1;
            }
        }
        let cells = extent[..d].iter().try_fold(1u64, |a, &e| a.checked_mul(e))?;
        (cells <= MAX_TABLE_CELLS).then_some(extent)
    }

    /// The largest side of a table within [`MAX_TABLE_CELLS`] and the memory budget.
    fn max_side(&self) -> u64 {
        let d = self.dimensions as u32;
        let room = grundy_core::memory::Share::whole().room() / 64;
        let cells = MAX_TABLE_CELLS.min(room.max(1 << 12));
        let mut side = (cells as f64).powf(1.0 / d as f64) as u64;
        while side > 1 && side.saturating_pow(d) > cells {
            side -= 1;
        }
        while (side + 1).saturating_pow(d) <= cells {
            side += 1;
        }
        side.max(1)
    }

    /// A bulk table covering at least the tuples with coordinates below `need` (as far as
    /// the limits allow), shared by every game of the spec: the one computed before when it
    /// is large enough, else a new one (at least twice the old side).
    fn bulk_for(&self, need: u64) -> Option<Arc<Bulk>> {
        let mut kept = self.bulk.lock().unwrap_or_else(|e| e.into_inner());
        let max = self.max_side();
        let want = need.min(max);
        if let Some(b) = kept.as_ref() {
            if b.side(self.dimensions) >= want || !self.downward() {
                return Some(b.clone());
            }
        }
        let old = kept.as_ref().map_or(0, |b| b.side(self.dimensions));
        let side = want.max(old.saturating_mul(2)).max(32).min(max);
        let extent = self.table_box(side)?;
        let b = Arc::new(self.compute(extent));
        *kept = Some(b.clone());
        Some(b)
    }

    /// The values of every tuple of the box `extent` (a box every option of whose tuples lies
    /// in it), in bulk: the tuples in an order where options come first (row-major when the
    /// steps go nowhere up, else by the sum of the coordinates); for a repeated step, the
    /// values met along its line so far (a bitset per line) are exactly those of the options
    /// along it, so each tuple costs one pass over a few bitsets.
    pub fn compute(&self, extent: [u64; MAX_DIMENSIONS]) -> Bulk {
        let d = self.dimensions;
        let cells: u64 = extent[..d].iter().product();
        let n = cells as usize;
        let coords = |mut i: u64| {
            let mut x = [0i64; MAX_DIMENSIONS];
            for k in (0..d).rev() {
                x[k] = (i % extent[k]) as i64;
                i /= extent[k];
            }
            x
        };
        let index = |x: &[i64; MAX_DIMENSIONS]| -> Option<usize> {
            let mut i = 0u64;
            for k in 0..d {
                if x[k] < 0 || x[k] as u64 >= extent[k] {
                    return None;
                }
                i = i * extent[k] + x[k] as u64;
            }
            Some(i as usize)
        };
        let mut order: Vec<u32> = (0..n as u32).collect();
        if !self.downward() {
            order.sort_by_key(|&i| coords(i as u64).iter().sum::<i64>());
        }
        let repeated: Vec<&Step> = self.steps.iter().filter(|s| s.repeat).collect();
        let single: Vec<&Step> = self.steps.iter().filter(|s| !s.repeat).collect();
        // Per line: its bitset of values, and how many of its first words are full (every
        // value below 64 times that is on the line): the mex of the union starts there.
        let mut lines: Vec<HashMap<usize, (Vec<u64>, usize)>> = vec![HashMap::new(); repeated.len()];
        let mut values = vec![0u32; n];
        let mut seen: Vec<u64> = Vec::new();
        let mut bases = vec![0usize; repeated.len()];
        for &i in &order {
            let x = coords(i as u64);
            let mut from = 0usize; // words below it are full in the union
            for (r, s) in repeated.iter().enumerate() {
                // The last tuple of the line of `x` along the step, inside the box.
                let mut k = i64::MAX;
                for j in 0..d {
                    if s.v[j] < 0 {
                        k = k.min(x[j] / -s.v[j]);
                    } else if s.v[j] > 0 {
                        k = k.min((extent[j] as i64 - 1 - x[j]) / s.v[j]);
                    }
                }
                let mut base = x;
                for j in 0..d {
                    base[j] += k * s.v[j];
                }
                let b = index(&base).unwrap_or(0);
                bases[r] = b;
                if let Some((_, full)) = lines[r].get(&b) {
                    from = from.max(*full);
                }
            }
            seen.clear();
            for (r, &b) in bases.iter().enumerate() {
                if let Some((bits, _)) = lines[r].get(&b) {
                    let part = bits.get(from..).unwrap_or(&[]);
                    if seen.len() < part.len() {
                        seen.resize(part.len(), 0);
                    }
                    for (w, &m) in seen.iter_mut().zip(part) {
                        *w |= m;
                    }
                }
            }
            for s in &single {
                let mut y = x;
                for j in 0..d {
                    y[j] += s.v[j];
                }
                if let Some(o) = index(&y) {
                    let g = values[o] as usize;
                    if g >= from * 64 {
                        let g = g - from * 64;
                        if seen.len() <= g / 64 {
                            seen.resize(g / 64 + 1, 0);
                        }
                        seen[g / 64] |= 1 << (g % 64);
                    }
                }
            }
            let g = from * 64
                + seen
                    .iter()
                    .position(|&w| w != u64::MAX)
                    .map_or(seen.len() * 64, |w| w * 64 + (!seen[w]).trailing_zeros() as usize);
            values[i as usize] = g as u32;
            for (r, &b) in bases.iter().enumerate() {
                let (bits, full) = lines[r].entry(b).or_default();
                if bits.len() <= g / 64 {
                    bits.resize(g / 64 + 1, 0);
                }
                bits[g / 64] |= 1 << (g % 64);
                while bits.get(*full) == Some(&u64::MAX) {
                    *full += 1;
                }
            }
        }
        Bulk { extent, values }
    }
}

/// A coordinate game: the rules of a spec, and a bulk table of its values (when there is one).
#[derive(Clone, Debug)]
pub struct Coordinates {
    spec: Arc<Spec>,
    bulk: Option<Arc<Bulk>>,
    file: Arc<GameFile>,
    builtin: bool,
}

impl Coordinates {
    /// The game of `file` (a coordinates spec), without a bulk table.
    pub fn from_file(file: Arc<GameFile>) -> Result<Coordinates, SpecError> {
        let spec = file.cached(read_spec)?;
        Ok(Coordinates {
            spec,
            bulk: None,
            file,
            builtin: false,
        })
    }

    /// The rules.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The game with a bulk table covering coordinates below `need` (within the limits).
    pub fn with_table(mut self, need: u64) -> Coordinates {
        self.bulk = self.spec.bulk_for(need);
        self
    }

    /// The game with no bulk table (every value searched).
    pub fn without_table(mut self) -> Coordinates {
        self.bulk = None;
        self
    }
}

/// A move: tuple `index` (from 0) goes from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoordinateMove {
    /// The tuple's place in the position, from 0.
    pub index: usize,
    /// The tuple before.
    pub from: Point,
    /// The tuple after.
    pub to: Point,
    /// Coordinates per tuple.
    pub dimensions: usize,
}

fn format_point(p: &Point, d: usize) -> String {
    p.0[..d]
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Ruleset for Coordinates {
    type Component = Point;

    fn options<F: FnMut(&[Point])>(&self, c: &Point, mut emit: F) {
        self.spec.each_option(c, |y| emit(&[self.spec.canonical(y)]));
    }

    fn known_grundy(&self, c: &Point) -> Option<Nimber> {
        let b = self.bulk.as_ref()?;
        b.get(self.spec.dimensions, c).map(|v| Nimber(v as u64))
    }

    fn size_hint(&self, c: &Point) -> usize {
        c.0.iter().fold(0usize, |a, &x| a.saturating_add(x as usize))
    }
}

/// Reads tuples of `d` numbers: numbers separated by spaces, tuples by `,`, `;` or new lines.
pub fn parse_tuples(
    text: &str,
    d: usize,
    bound: Option<&[u64; MAX_DIMENSIONS]>,
) -> Result<Vec<Point>, ParseError> {
    let mut out = Vec::new();
    let mut cur: Vec<(u64, usize, usize)> = Vec::new();
    let mut tuple_at = (1, 1);
    let finish = |cur: &mut Vec<(u64, usize, usize)>,
                  at: (usize, usize),
                  out: &mut Vec<Point>|
     -> Result<(), ParseError> {
        if cur.is_empty() {
            return Ok(());
        }
        if cur.len() != d {
            return Err(ParseError::new(
                at.0,
                at.1,
                format!("a tuple has {d} numbers, this one has {}", cur.len()),
            ));
        }
        let mut p = Point::default();
        for (i, &(x, line, col)) in cur.iter().enumerate() {
            if let Some(b) = bound {
                if x > b[i] {
                    return Err(ParseError::new(
                        line,
                        col,
                        format!("coordinate {} is at most {} in this game, not {x}", i + 1, b[i]),
                    ));
                }
            }
            p.0[i] = x;
        }
        if out.len() >= MAX_TUPLES {
            return Err(ParseError::new(
                at.0,
                at.1,
                format!("at most {MAX_TUPLES} tuples"),
            ));
        }
        out.push(p);
        cur.clear();
        Ok(())
    };
    for (li, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let ch = chars[k];
            let col = k + 1;
            if ch.is_ascii_digit() {
                let start = k;
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
                let word: String = chars[start..k].iter().collect();
                let x = word
                    .parse::<u64>()
                    .ok()
                    .filter(|&x| x <= MAX_COORDINATE)
                    .ok_or_else(|| {
                        ParseError::new(li + 1, col, format!("a coordinate is at most {MAX_COORDINATE}"))
                    })?;
                if cur.is_empty() {
                    tuple_at = (li + 1, col);
                }
                cur.push((x, li + 1, col));
                if cur.len() > MAX_DIMENSIONS {
                    return Err(ParseError::new(li + 1, col, format!("a tuple has {d} numbers")));
                }
                continue;
            }
            if ch == ',' || ch == ';' {
                if cur.is_empty() {
                    return Err(ParseError::new(
                        li + 1,
                        col,
                        "expected a tuple before this separator",
                    ));
                }
                finish(&mut cur, tuple_at, &mut out)?;
            } else if !ch.is_whitespace() {
                return Err(ParseError::new(
                    li + 1,
                    col,
                    format!("unexpected '{ch}': give tuples of {d} numbers, e.g. 3 5, 2 7"),
                ));
            }
            k += 1;
        }
        finish(&mut cur, tuple_at, &mut out)?;
    }
    if out.is_empty() {
        return Err(ParseError::new(
            1,
            1,
            format!("empty position: give tuples of {d} numbers"),
        ));
    }
    Ok(out)
}

impl Game for Coordinates {
    type Position = Vec<Point>;
    type Move = CoordinateMove;

    fn parse_position(&self, text: &str) -> Result<Vec<Point>, ParseError> {
        parse_tuples(text, self.spec.dimensions, self.spec.bound.as_ref())
    }

    fn components(&self, p: &Vec<Point>) -> Vec<Point> {
        p.iter().map(|&x| self.spec.canonical(x)).collect()
    }

    fn moves<F: FnMut(CoordinateMove, Vec<Point>)>(&self, p: &Vec<Point>, mut emit: F) {
        for (index, x) in p.iter().enumerate() {
            self.spec.each_option(x, |y| {
                let mut q = p.clone();
                q[index] = y;
                emit(
                    CoordinateMove {
                        index,
                        from: *x,
                        to: y,
                        dimensions: self.spec.dimensions,
                    },
                    q,
                );
            });
        }
    }

    fn format_move(&self, m: &CoordinateMove) -> String {
        format!(
            "{}:{}->{}",
            m.index + 1,
            format_point(&m.from, m.dimensions),
            format_point(&m.to, m.dimensions)
        )
    }

    fn format_position(&self, p: &Vec<Point>) -> String {
        p.iter()
            .map(|x| format_point(x, self.spec.dimensions))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Wythoff's game, the game of `coordinates` without a game file.
fn wythoff_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "wythoff.toml", WYTHOFF)
}

/// Corner the King.
fn king_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "king.toml", KING)
}

/// A few spec texts for the samples beyond the examples: one and three coordinates, a
/// bound, a step going up.
const SAMPLE_SPECS: [&str; 3] = [
    "kind = \"coordinates\"\nname = \"sub-1-3\"\nmoves = [{ step = [-1] }, { step = [-3] }]\n",
    "kind = \"coordinates\"\nname = \"three\"\nmoves = [{ step = [-1, 0, 0], repeat = true }, { step = [0, -2, 0] }, { step = [0, 0, -1], repeat = true }, { step = [-1, -1, -1] }]\n",
    "kind = \"coordinates\"\nname = \"slide\"\nbound = 4\nmoves = [{ step = [-2, 1] }, { step = [1, -2] }, { step = [-1, 0], repeat = true }]\n",
];

fn sample_file(k: usize) -> Option<Arc<GameFile>> {
    static FILES: OnceLock<Vec<Option<Arc<GameFile>>>> = OnceLock::new();
    crate::gamefile::sample_file(&FILES, "sample", &SAMPLE_SPECS, k)
}

/// Small positions of Wythoff's game, Corner the King and the sample specs.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let which = r.range(0, 4);
    let (file, d, max) = match which {
        0 => (wythoff_file(), 2, 5),
        1 => (king_file(), 2, 5),
        2 => (sample_file(0), 1, 9),
        3 => (sample_file(1), 3, 2),
        _ => (sample_file(2), 2, 4),
    };
    let tuples = if r.chance(30) { 2 } else { 1 };
    let text = (0..tuples)
        .map(|_| {
            (0..d)
                .map(|_| {
                    r.range(0, if tuples == 2 { max / 2 + 1 } else { max })
                        .to_string()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(", ");
    Sample {
        text,
        options: FamilyOptions {
            game: file,
            ..FamilyOptions::default()
        },
    }
}

/// Estimates the moves of a position: every coordinate may go down to 0 along a few
/// directions.
fn estimate(text: &str) -> u64 {
    crate::family::integers(text)
        .fold(0u64, |a, n| a.saturating_add(n))
        .saturating_mul(3)
        .saturating_add(text.len() as u64)
}

/// The grid table of a game of pairs.
const GRID: Table = Table {
    kind: TableKind::Grid,
    rows: "first coordinate",
    cols: "second coordinate",
    first: 0,
    max: 1024,
    cell: |a, b| format!("{a} {b}"),
};

/// The sequence of a game of single numbers.
const SEQUENCE: Table = Table {
    kind: TableKind::Sequence,
    rows: "",
    cols: "coordinate",
    first: 0,
    max: 1 << 16,
    cell: |n, _| n.to_string(),
};

/// Coordinate games (game files of kind `coordinates`) as a family of the registry; without
/// a game file, Wythoff's game.
pub struct CoordinatesFamily;

impl Family for CoordinatesFamily {
    type Game = Coordinates;
    const DESCRIPTION: Description = Description {
        name: "coordinates",
        aliases: &[],
        notation: "coordinate game (a game file of kind coordinates; Wythoff's game without one): tuples of numbers, e.g. '3 5' or '3 5, 2 7'",
        example: "3 5",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: Some(GRID),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: estimate,
        sample,
    };

    fn build(
        &self,
        _: &str,
        opts: &FamilyOptions,
        text: &str,
    ) -> Result<(Coordinates, Vec<Point>), RegistryError> {
        let (file, builtin) = crate::gamefile::file_or_example(opts, wythoff_file, "Wythoff")?;
        let mut game = Coordinates::from_file(file)?;
        game.builtin = builtin;
        let p = game
            .parse_position(text)
            .map_err(|e| RegistryError::position("coordinates", e))?;
        let need = p.iter().flat_map(|x| x.0).max().unwrap_or(0).saturating_add(1);
        Ok((game.with_table(need), p))
    }

    fn name(&self, game: &Coordinates) -> String {
        if game.builtin {
            Self::DESCRIPTION.name.to_string()
        } else {
            game.file.id()
        }
    }

    fn table(&self, game: &Coordinates) -> Option<Table> {
        match game.spec.dimensions {
            1 => Some(SEQUENCE),
            2 => Some(GRID),
            _ => None,
        }
    }

    fn board(&self, game: &Coordinates, p: &Vec<Point>) -> BoardView {
        if game.spec.dimensions == 1 {
            return BoardView::Heaps {
                heaps: p.iter().map(|x| x.0[0]).collect(),
            };
        }
        BoardView::Heaps {
            heaps: p
                .iter()
                .flat_map(|x| x.0[..game.spec.dimensions].to_vec())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_solve::{analyze, brute, Convention};
    use proptest::prelude::*;

    fn game(text: &str) -> Coordinates {
        let file = Arc::new(GameFile::load("t.toml", text).unwrap());
        Coordinates::from_file(file).unwrap()
    }

    fn wythoff() -> Coordinates {
        game(WYTHOFF)
    }

    /// Wythoff's P-positions: (⌊kφ⌋, ⌊kφ²⌋), by the Beatty sequences of φ (computed in
    /// exact integers: ⌊kφ⌋ = ⌊(k + √(5k²)) / 2⌋).
    fn wythoff_p(k: u64) -> (u64, u64) {
        let s = isqrt(5 * k * k);
        let a = (k + s) / 2;
        (a, a + k)
    }

    fn isqrt(n: u64) -> u64 {
        let mut x = (n as f64).sqrt() as u64;
        while x * x > n {
            x -= 1;
        }
        while (x + 1) * (x + 1) <= n {
            x += 1;
        }
        x
    }

    #[test]
    fn wythoff_p_positions_from_the_table_and_the_memo() {
        let g = wythoff().with_table(800);
        let b = g.bulk.clone().unwrap();
        let mut p_count = 0;
        let p: std::collections::HashSet<(u64, u64)> = (0..=300).map(wythoff_p).collect();
        assert_eq!(wythoff_p(1), (1, 2));
        assert_eq!(wythoff_p(2), (3, 5));
        assert_eq!(wythoff_p(3), (4, 7));
        for a in 0..785u64 {
            for c in 0..785u64 {
                let v = b.get(2, &Point([a, c, 0, 0])).unwrap();
                let is_p = p.contains(&(a.min(c), a.max(c)));
                assert_eq!(v == 0, is_p, "({a}, {c}): value {v}");
                p_count += is_p as u32;
            }
        }
        assert!(p_count > 500);
        // Through the registry's game, with the table, and through the memo without one.
        let memo = wythoff().without_table();
        for k in [1u64, 10, 50, 120] {
            let (a, c) = wythoff_p(k);
            for gm in [&g, &memo] {
                let pos = gm.parse_position(&format!("{a} {c}")).unwrap();
                let r = analyze(gm, &pos, Convention::Normal).unwrap();
                assert_eq!(r.grundy, Some(Nimber(0)), "{a} {c}");
                let pos = gm.parse_position(&format!("{a} {}", c + 1)).unwrap();
                assert_ne!(
                    analyze(gm, &pos, Convention::Normal).unwrap().grundy,
                    Some(Nimber(0))
                );
            }
        }
    }

    /// Grundy values of a 2-D game by direct recursion over the rules (independent of the
    /// module's code): moves are the given (dx, dy, repeat) steps.
    fn tiny(n: usize, steps: &[(i64, i64, bool)]) -> Vec<Vec<u64>> {
        let mut g = vec![vec![0u64; n]; n];
        for a in 0..n {
            for b in 0..n {
                let mut seen = std::collections::BTreeSet::new();
                for &(dx, dy, rep) in steps {
                    let mut k = 1;
                    loop {
                        let (x, y) = (a as i64 + k * dx, b as i64 + k * dy);
                        if x < 0 || y < 0 {
                            break;
                        }
                        seen.insert(g[x as usize][y as usize]);
                        if !rep {
                            break;
                        }
                        k += 1;
                    }
                }
                g[a][b] = (0..).find(|v| !seen.contains(v)).unwrap();
            }
        }
        g
    }

    #[test]
    fn tables_agree_with_a_tiny_computation_and_the_memo() {
        let w = tiny(40, &[(-1, 0, true), (0, -1, true), (-1, -1, true)]);
        let k = tiny(40, &[(-1, 0, false), (0, -1, false), (-1, -1, false)]);
        for (text, want) in [(WYTHOFF, &w), (KING, &k)] {
            let g = game(text).with_table(40);
            let memo = game(text).without_table();
            for a in 0..40 {
                for b in 0..40 {
                    let x = Point([a as u64, b as u64, 0, 0]);
                    assert_eq!(g.known_grundy(&x), Some(Nimber(want[a][b])), "{a} {b}");
                    if a < 12 && b < 12 {
                        let r = analyze(&memo, &vec![x], Convention::Normal).unwrap();
                        assert_eq!(r.grundy, Some(Nimber(want[a][b])));
                    }
                }
            }
        }
        // Known: Wythoff's G(1, 1) = 2, G(1, 2) = 0, G(2, 2) = 1; the king's P-positions are the even pairs.
        assert_eq!((w[1][1], w[1][2], w[2][2]), (2, 0, 1));
        for a in 0..40 {
            for b in 0..40 {
                assert_eq!(k[a][b] == 0, a % 2 == 0 && b % 2 == 0);
            }
        }
    }

    #[test]
    fn tables_with_steps_going_up_and_bounds() {
        for text in SAMPLE_SPECS {
            let g = game(text);
            let d = g.spec.dimensions;
            let side = 5u64;
            let Some(extent) = g.spec.table_box(side) else {
                continue;
            };
            let bulk = g.spec.compute(extent);
            let memo = game(text).without_table();
            let cells: u64 = extent[..d].iter().product();
            for i in 0..cells {
                let mut x = Point::default();
                let mut j = i;
                for k in (0..d).rev() {
                    x.0[k] = j % extent[k];
                    j /= extent[k];
                }
                let want = brute::grundy(&memo, &vec![x]);
                assert_eq!(
                    bulk.get(d, &x).map(|v| Nimber(v as u64)),
                    Some(want),
                    "{text} {x:?}"
                );
            }
        }
    }

    #[test]
    fn one_coordinate_tables_are_fast_and_right() {
        // Nim: a heap is its own value; the mex starts past the full words of the line.
        let nim =
            game("kind = \"coordinates\"\nmoves = [{ step = [-1], repeat = true }]\n").with_table(100_000);
        for n in [0u64, 1, 63, 64, 65, 4095, 99_999] {
            assert_eq!(nim.known_grundy(&Point([n, 0, 0, 0])), Some(Nimber(n)));
        }
        // Subtraction {1, 3}: values alternate 0, 1.
        let sub = game(SAMPLE_SPECS[0]).with_table(1000);
        for n in 0..1000u64 {
            assert_eq!(sub.known_grundy(&Point([n, 0, 0, 0])), Some(Nimber(n % 2)));
        }
    }

    #[test]
    fn the_family_names_a_file_by_its_identity() {
        let file = Arc::new(GameFile::load("w.toml", WYTHOFF).unwrap());
        let opts = FamilyOptions {
            game: Some(file.clone()),
            ..FamilyOptions::default()
        };
        let (g, p) = CoordinatesFamily.build("coordinates", &opts, "3 5").unwrap();
        assert_eq!(CoordinatesFamily.name(&g), file.id());
        assert!(file.id().starts_with("wythoff@"));
        assert_eq!(CoordinatesFamily.table(&g).map(|t| t.kind), Some(TableKind::Grid));
        assert_eq!(brute::grundy(&g, &p), Nimber(0));
        let (g, _) = CoordinatesFamily
            .build("coordinates", &FamilyOptions::default(), "3 5")
            .unwrap();
        assert_eq!(CoordinatesFamily.name(&g), "coordinates");
        let one = Arc::new(GameFile::load("s.toml", SAMPLE_SPECS[0]).unwrap());
        let opts = FamilyOptions {
            game: Some(one),
            ..FamilyOptions::default()
        };
        let (g, _) = CoordinatesFamily.build("coordinates", &opts, "7").unwrap();
        assert_eq!(
            CoordinatesFamily.table(&g).map(|t| t.kind),
            Some(TableKind::Sequence)
        );
        assert!(CoordinatesFamily.build("coordinates", &opts, "7 1").is_err());
    }

    #[test]
    fn notation_symmetry_and_moves() {
        let g = wythoff();
        let p = g.parse_position("3 5,\n2 7").unwrap();
        assert_eq!(g.format_position(&p), "3 5, 2 7");
        assert_eq!(g.components(&p), vec![Point([3, 5, 0, 0]), Point([2, 7, 0, 0])]);
        assert_eq!(
            g.components(&g.parse_position("5 3").unwrap()),
            vec![Point([3, 5, 0, 0])]
        );
        let mut names = Vec::new();
        g.moves(&g.parse_position("1 2").unwrap(), |m, _| {
            names.push(g.format_move(&m))
        });
        assert_eq!(
            names,
            vec!["1:1 2->0 1", "1:1 2->0 2", "1:1 2->1 1", "1:1 2->1 0"]
        );
        // A bound breaks the symmetry when it differs between coordinates.
        let b = game(
            "kind = \"coordinates\"\nbound = [3, 9]\nmoves = [{ step = [-1, 0] }, { step = [0, -1] }]\n",
        );
        assert_eq!(b.spec.symmetries.len(), 1);
        assert!(b.parse_position("4 1").is_err());
    }

    #[test]
    fn spec_errors_have_places() {
        let at = |text: &str| {
            let f = GameFile::load("e.toml", text).unwrap();
            let e = read_spec(&f).unwrap_err();
            (e.line, e.column, e.message)
        };
        let (l, c, m) = at("kind = \"coordinates\"\nmoves = [{ step = [1, 0] }]\n");
        assert_eq!((l, c), (2, 19), "{m}");
        assert!(m.contains("lower the sum"), "{m}");
        let (l, c, _) = at("kind = \"coordinates\"\nmoves = [{ step = [-1, 0] },\n  { step = [-1] }]\n");
        assert_eq!((l, c), (3, 12));
        let (l, c, _) = at("kind = \"coordinates\"\nmoves = []\n");
        assert_eq!((l, c), (2, 9));
        let (l, _, m) = at("kind = \"coordinates\"\nmoves = [{ step = [-1], rpeat = true }]\n");
        assert_eq!(l, 2, "{m}");
        let (l, c, _) = at("kind = \"coordinates\"\nmoves = [{ step = [-1, -1, -1, -1, -1] }]\n");
        assert_eq!((l, c), (2, 19));
        let (l, c, _) = at("kind = \"coordinates\"\ndimensions = 7\nmoves = [{ step = [-1] }]\n");
        assert_eq!((l, c), (2, 14));
        let (l, c, _) = at("kind = \"coordinates\"\nbound = [1, 2, 3]\nmoves = [{ step = [-1, 0] }]\n");
        assert_eq!((l, c), (2, 9));
    }

    #[test]
    fn parse_errors_have_places() {
        let g = wythoff();
        let at = |s: &str| {
            let e = g.parse_position(s).unwrap_err();
            (e.span.line, e.span.column)
        };
        assert_eq!(at("3"), (1, 1));
        assert_eq!(at("3 5, 4"), (1, 6));
        assert_eq!(at("3 5\n1 x"), (2, 3));
        assert_eq!(at(", 3 5"), (1, 1));
        assert_eq!(at("3 5 7"), (1, 1));
        assert_eq!(at("99999999999999999999 1"), (1, 1));
        assert_eq!(at(""), (1, 1));
    }

    proptest! {
        #[test]
        fn arbitrary_specs_and_positions_never_panic(spec in "[a-z =\\[\\]{},0-9-\n\"]{0,80}", pos in "[0-9 ,;x\n]{0,20}") {
            let text = format!("kind = \"coordinates\"\n{spec}");
            if let Ok(f) = GameFile::load("p.toml", &text) {
                if let Ok(g) = Coordinates::from_file(Arc::new(f)) {
                    if let Ok(p) = g.parse_position(&pos) {
                        let _ = g.format_position(&p);
                    }
                }
            }
            let _ = wythoff().parse_position(&spec);
        }
    }
}
