//! Coin-turning games (`kind = "coins"` game files; Winning Ways, chapter 14): a row of
//! coins numbered 1, 2, 3, ... from the left, each showing heads or tails. A move turns over
//! a set of coins the rule allows, the rightmost of which goes from heads to tails (the
//! others may go either way); the player who cannot move loses.
//!
//! ```toml
//! kind = "coins"
//! name = "mock-turtles"
//! rule = "mock-turtles"   # ruler | turning-turtles | mock-turtles | moebius | mogul
//! ```
//! or, instead of a named rule, its parameters:
//! ```toml
//! kind = "coins"
//! count = [1, 3]          # turn 1 to 3 coins (one number: exactly that many; no count:
//!                         # any number)
//! consecutive = false     # true: the coins turned are consecutive
//! span = 10               # optional: the leftmost coin turned is at most 10 left of the
//!                         # rightmost
//! ```
//! The named rules: `ruler` (any number of consecutive coins), `turning-turtles` (one or
//! two coins), `mock-turtles` (one to three), `moebius` (one to five), `mogul` (one to seven).
//!
//! A position's value is the XOR over its heads of the value of a single head (turning a
//! coin twice is not turning it), so components are single heads: the value of a head at n
//! is the mex over its moves of the XOR of the values of the other coins turned. Ruler: a
//! head at n is worth the largest power of 2 dividing n; Turning Turtles: n; Mock Turtles:
//! the n-th odious number (1, 2, 4, 7, 8, 11, ...: 2(n−1) or 2(n−1)+1, whichever has an odd
//! number of ones in binary).
//!
//! Notation: a string of `H` (heads) and `T` (tails), coin 1 first (`THHTH`: heads at 2, 3
//! and 5), or the numbers of the coins showing heads (`2 3 5`). Positions are written back
//! as strings while they have at most 64 coins, else as numbers. A move is the coins it
//! turns, in increasing order (`1,4,5`: coin 5 goes from heads to tails).

use crate::family::{
    BoardView, Description, Engine, Family, FamilyOptions, RegistryError, Sample, Seeded, Table, TableKind,
};
use crate::gamefile::{GameFile, SpecError};
use grundy_core::{Game, Nimber, ParseError, Ruleset};
use serde::Deserialize;
use std::sync::{Arc, Mutex, OnceLock};
use toml::Spanned;

/// Largest coin number.
pub const MAX_COIN: u32 = 1 << 16;
/// Largest number of coins a rule may fix as its count.
pub const MAX_COUNT: u64 = 64;
/// Most ways to turn the other coins of a move, for a rule of coins anywhere within a span:
/// larger rules are refused (their moves could not be listed).
pub const MAX_SETS_IN_SPAN: u64 = 1 << 16;
/// Most heads of a position written as a string of `H` and `T`.
pub const MAX_STRING: u32 = 64;
/// Longest bulk table of single-head values.
pub const MAX_TABLE: u32 = 1 << 14;
/// Largest value the bulk table holds (values past it are left to search).
const MAX_TABLE_VALUE: u32 = 1 << 22;

/// The spec of Mock Turtles, used when no game file is given.
pub const MOCK_TURTLES: &str = include_str!("../../../examples/games/mock-turtles.toml");
/// The spec of the Ruler game, an example.
pub const RULER: &str = include_str!("../../../examples/games/ruler.toml");

/// A count: one number, or `[min, max]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum CountSpec {
    One(u64),
    Range(Vec<u64>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    rule: Option<Spanned<String>>,
    count: Option<Spanned<CountSpec>>,
    consecutive: Option<Spanned<bool>>,
    span: Option<Spanned<u64>>,
}

/// The named rules: (name, least count, most count, consecutive).
pub const RULES: [(&str, u32, Option<u32>, bool); 5] = [
    ("ruler", 1, None, true),
    ("turning-turtles", 1, Some(2), false),
    ("mock-turtles", 1, Some(3), false),
    ("moebius", 1, Some(5), false),
    ("mogul", 1, Some(7), false),
];

/// A rule of coin turning.
#[derive(Debug)]
pub struct Rule {
    /// Least number of coins turned (the rightmost included), at least 1.
    pub min: u32,
    /// Most coins turned (`None`: any number).
    pub max: Option<u32>,
    /// Whether the coins turned are consecutive.
    pub consecutive: bool,
    /// Largest distance from the rightmost coin turned to the leftmost (`None`: any).
    pub span: Option<u32>,
    /// Single-head values computed so far (`values[n]` for the head at n, `values[0]` = 0),
    /// shared by every game of the spec.
    bulk: Mutex<Option<(u32, Arc<Vec<u32>>)>>,
}

fn binomial_sum(n: u64, lo: u64, hi: u64) -> u64 {
    // Σ_{j=lo}^{hi} C(n, j), saturating.
    let mut total = 0u64;
    let mut c = 1u64; // C(n, 0)
    for j in 0..=hi.min(n) {
        if j >= lo {
            total = total.saturating_add(c);
        }
        c = c.saturating_mul(n - j) / (j + 1);
        if c == 0 {
            break;
        }
    }
    total
}

/// Reads and checks a coins spec; every error names its line and column.
pub fn read_spec(file: &GameFile) -> Result<Rule, SpecError> {
    let spec: FileSpec = file.spec()?;
    let (min, max, consecutive) = match &spec.rule {
        Some(r) => {
            if let Some(c) = &spec.count {
                return Err(file.error_at(c.span(), "give either a rule or count and consecutive, not both"));
            }
            if let Some(c) = &spec.consecutive {
                return Err(file.error_at(c.span(), "give either a rule or count and consecutive, not both"));
            }
            let Some(&(_, min, max, consecutive)) = RULES.iter().find(|x| x.0 == r.get_ref()) else {
                let names: Vec<&str> = RULES.iter().map(|x| x.0).collect();
                return Err(file.error_at(
                    r.span(),
                    format!("unknown rule '{}' (known: {})", r.get_ref(), names.join(", ")),
                ));
            };
            (min, max, consecutive)
        }
        None => {
            let (min, max) = match &spec.count {
                None => (1, None),
                Some(c) => {
                    let (lo, hi) = match c.get_ref() {
                        CountSpec::One(n) => (*n, *n),
                        CountSpec::Range(v) if v.len() == 2 => (v[0], v[1]),
                        CountSpec::Range(_) => {
                            return Err(file.error_at(c.span(), "count is a number or [least, most]"));
                        }
                    };
                    if lo == 0 || lo > hi || hi > MAX_COUNT {
                        return Err(file.error_at(
                            c.span(),
                            format!("count is from 1 to {MAX_COUNT}, the least first (a move turns at least the coin going to tails)"),
                        ));
                    }
                    (lo as u32, Some(hi as u32))
                }
            };
            (min, max, spec.consecutive.as_ref().is_some_and(|c| *c.get_ref()))
        }
    };
    let span = match &spec.span {
        None => None,
        Some(s) => {
            let v = *s.get_ref();
            if v >= MAX_COIN as u64 {
                return Err(file.error_at(s.span(), format!("span is less than {MAX_COIN}")));
            }
            if (v as u32) + 1 < min {
                return Err(file.error_at(
                    s.span(),
                    format!("a span of {v} leaves no room for {min} coins: no move would be possible"),
                ));
            }
            if !consecutive {
                let hi = max.map_or(v, |m| (m as u64 - 1).min(v));
                if binomial_sum(v, min as u64 - 1, hi) > MAX_SETS_IN_SPAN {
                    return Err(file.error_at(
                        s.span(),
                        format!("a move could turn more than {MAX_SETS_IN_SPAN} sets of coins within this span: give a smaller span or count"),
                    ));
                }
            }
            Some(v as u32)
        }
    };
    Ok(Rule {
        min,
        max,
        consecutive,
        span,
        bulk: Mutex::new(None),
    })
}

impl Rule {
    /// Calls `f` with each set of other coins a move with its rightmost coin at `n` turns
    /// (increasing, without `n`), iteratively.
    pub fn each_set(&self, n: u32, mut f: impl FnMut(&[u32])) {
        if n == 0 {
            return;
        }
        let lo = self.span.map_or(1, |s| n.saturating_sub(s).max(1));
        let avail = n - lo; // coins lo..n-1
        let jmin = self.min - 1;
        let jmax = self.max.map_or(avail, |m| (m - 1).min(avail));
        if jmin > jmax {
            return;
        }
        let mut set: Vec<u32> = Vec::with_capacity(jmax as usize);
        if self.consecutive {
            for j in jmin..=jmax {
                set.clear();
                set.extend(n - j..n);
                f(&set);
            }
            return;
        }
        for j in jmin..=jmax {
            // The j-subsets of lo..n-1 in lexicographic order.
            set.clear();
            set.extend(lo..lo + j);
            loop {
                f(&set);
                let mut i = j as usize;
                let mut moved = false;
                while i > 0 {
                    i -= 1;
                    let limit = n - (j - i as u32);
                    if set[i] < limit {
                        set[i] += 1;
                        for k in i + 1..j as usize {
                            set[k] = set[k - 1] + 1;
                        }
                        moved = true;
                        break;
                    }
                }
                if !moved {
                    break;
                }
            }
        }
    }

    /// Single-head values `g[0..=len]` (`g[0]` = 0), in bulk, or fewer when they grow past
    /// `MAX_TABLE_VALUE` (2^22).
    pub fn compute(&self, len: u32) -> Vec<u32> {
        let mut g: Vec<u32> = vec![0];
        if self.consecutive {
            // The coins n−j..n−1 are worth prefix[n−1] ^ prefix[n−j−1].
            let mut prefix: Vec<u32> = vec![0];
            let mut seen: Vec<u64> = Vec::new();
            for n in 1..=len {
                seen.clear();
                let mut ok = true;
                self.each_run(n, |j| {
                    let v = (prefix[n as usize - 1] ^ prefix[(n - j - 1) as usize]) as usize;
                    if seen.len() <= v / 64 {
                        seen.resize(v / 64 + 1, 0);
                    }
                    seen[v / 64] |= 1 << (v % 64);
                });
                let m = mex(&seen);
                if m > MAX_TABLE_VALUE {
                    ok = false;
                }
                if !ok {
                    break;
                }
                g.push(m);
                prefix.push(prefix[n as usize - 1] ^ m);
            }
            return g;
        }
        if self.span.is_some() {
            let mut seen: Vec<u64> = Vec::new();
            for n in 1..=len {
                seen.clear();
                self.each_set(n, |s| {
                    let v = s.iter().fold(0u32, |a, &c| a ^ g[c as usize]) as usize;
                    if seen.len() <= v / 64 {
                        seen.resize(v / 64 + 1, 0);
                    }
                    seen[v / 64] |= 1 << (v % 64);
                });
                let m = mex(&seen);
                if m > MAX_TABLE_VALUE {
                    break;
                }
                g.push(m);
            }
            return g;
        }
        // Coins anywhere to the left: `sets[j]` holds the XORs of the j-subsets of the
        // values so far (j < jmin), `sets[jmin..]` those of sizes jmin and up to jmax, one
        // set per size when jmax is bounded, else one set for "jmin or more".
        let jmin = (self.min - 1) as usize;
        let sizes = match self.max {
            Some(m) => m as usize, // sizes 0..m-1
            None => jmin + 1,      // sizes 0..jmin-1, and "jmin or more"
        };
        let mut words = 1usize; // values below 64 * words
        let mut sets: Vec<Vec<u64>> = vec![vec![0; words]; sizes];
        sets[0][0] = 1; // the empty set
        for _n in 1..=len {
            let mut seen = vec![0u64; words];
            for s in &sets[jmin..] {
                for (w, &x) in seen.iter_mut().zip(s) {
                    *w |= x;
                }
            }
            let m = mex(&seen);
            if m > MAX_TABLE_VALUE {
                break;
            }
            g.push(m);
            // Room for XORs with m: values below the power of two above m.
            let need = ((m as usize + 1).next_power_of_two()).div_ceil(64).max(1);
            if need > words {
                words = need;
                for s in &mut sets {
                    s.resize(words, 0);
                }
            }
            // Add the new value to every subset: size j+1 from size j, from the top down.
            let shifted = |s: &Vec<u64>| xor_shift(s, m);
            if self.max.is_none() {
                let top = sizes - 1;
                let extra = xor_shift(&sets[top], m);
                let below = if top > 0 {
                    Some(shifted(&sets[top - 1]))
                } else {
                    None
                };
                for (w, x) in sets[top].iter_mut().zip(&extra) {
                    *w |= x;
                }
                if let Some(b) = below {
                    for (w, x) in sets[top].iter_mut().zip(&b) {
                        *w |= x;
                    }
                }
                for j in (1..top).rev() {
                    let b = shifted(&sets[j - 1]);
                    for (w, x) in sets[j].iter_mut().zip(&b) {
                        *w |= x;
                    }
                }
            } else {
                for j in (1..sizes).rev() {
                    let b = shifted(&sets[j - 1]);
                    for (w, x) in sets[j].iter_mut().zip(&b) {
                        *w |= x;
                    }
                }
            }
        }
        g
    }

    /// Calls `f(j)` for each number j of other coins of a run ending at `n`.
    fn each_run(&self, n: u32, mut f: impl FnMut(u32)) {
        let lo = self.span.map_or(1, |s| n.saturating_sub(s).max(1));
        let avail = n - lo;
        let jmin = self.min - 1;
        let jmax = self.max.map_or(avail, |m| (m - 1).min(avail));
        for j in jmin..=jmax {
            f(j);
        }
    }

    /// Values of single heads up to at least `need` (within [`MAX_TABLE`]), shared by every
    /// game of the rule.
    fn bulk_for(&self, need: u32) -> Arc<Vec<u32>> {
        let mut kept = self.bulk.lock().unwrap_or_else(|e| e.into_inner());
        // Rules of coins anywhere within a span list every set: at most 10^8 sets in all.
        let cap = match (self.consecutive, self.span) {
            (false, Some(s)) => {
                let hi = self.max.map_or(s as u64, |m| (m as u64 - 1).min(s as u64));
                let per_head = binomial_sum(s as u64, self.min as u64 - 1, hi).max(1);
                (100_000_000 / per_head).clamp(16, MAX_TABLE as u64) as u32
            }
            _ => MAX_TABLE,
        };
        let want = need.min(cap);
        if let Some((asked, b)) = kept.as_ref() {
            // Large enough, or cut short by values too large to go on with.
            if *asked >= want || (b.len() as u32) <= *asked {
                return b.clone();
            }
        }
        let old = kept.as_ref().map_or(0, |b| b.0);
        let len = want.max(old.saturating_mul(2)).max(64).min(cap);
        let b = Arc::new(self.compute(len));
        *kept = Some((len, b.clone()));
        b
    }
}

/// The set `s` (a bitset of values, a power of two of them, above `m`) with every value
/// XORed by `m`: words trade places by the high bits of `m`, bits within a word by its low
/// six bits (a swap of blocks of 2^k bits for each bit k set).
fn xor_shift(s: &[u64], m: u32) -> Vec<u64> {
    const MASKS: [u64; 6] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    let (hi, lo) = ((m / 64) as usize, m % 64);
    let mut out = vec![0u64; s.len()];
    for (w, &x) in s.iter().enumerate() {
        let mut x = x;
        for (k, mask) in MASKS.iter().enumerate() {
            if lo >> k & 1 == 1 {
                let sh = 1u32 << k;
                x = ((x & mask) << sh) | ((x >> sh) & mask);
            }
        }
        if let Some(o) = out.get_mut(w ^ hi) {
            *o |= x;
        }
    }
    out
}

/// The least value not in the bitset.
fn mex(bits: &[u64]) -> u32 {
    bits.iter()
        .position(|&w| w != u64::MAX)
        .map_or(bits.len() * 64, |w| w * 64 + (!bits[w]).trailing_zeros() as usize) as u32
}

/// A coin-turning game: its rule and a bulk table of single-head values.
#[derive(Clone, Debug)]
pub struct Coins {
    rule: Arc<Rule>,
    bulk: Option<Arc<Vec<u32>>>,
    file: Arc<GameFile>,
    builtin: bool,
}

impl Coins {
    /// The game of `file` (a coins spec), without a bulk table.
    pub fn from_file(file: Arc<GameFile>) -> Result<Coins, SpecError> {
        let rule = file.cached(read_spec)?;
        Ok(Coins {
            rule,
            bulk: None,
            file,
            builtin: false,
        })
    }

    /// The rule.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The game with a bulk table of single heads up to at least `need` (within the limits).
    pub fn with_table(mut self, need: u32) -> Coins {
        self.bulk = Some(self.rule.bulk_for(need));
        self
    }

    /// The game with no bulk table.
    pub fn without_table(mut self) -> Coins {
        self.bulk = None;
        self
    }
}

/// A position: the coins showing heads, and how many coins the row shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The coins showing heads, increasing, from 1.
    pub heads: Vec<u32>,
    /// The number of coins written (at least the last head).
    pub len: u32,
}

/// A move: the coins turned, increasing (the last goes from heads to tails).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn(pub Vec<u32>);

impl Ruleset for Coins {
    type Component = u32;

    /// Turning a coin twice is not turning it: a head appearing twice in a sum is no head.
    /// Sums are therefore not independent collections of components (two equal components
    /// cancel), and the engines must not apply the theory of independent sums under misère
    /// play (Conway's genus).
    const INDEPENDENT: bool = false;

    fn options<F: FnMut(&[u32])>(&self, &n: &u32, mut emit: F) {
        self.rule.each_set(n, &mut emit);
    }

    fn known_grundy(&self, &n: &u32) -> Option<Nimber> {
        self.bulk
            .as_ref()
            .and_then(|b| b.get(n as usize))
            .map(|&v| Nimber(v as u64))
    }

    /// Equal heads cancel in pairs: a move turning a coin that already shows heads as a
    /// component of the sum turns it to tails.
    fn normalize_sum(&self, sorted: &mut Vec<u32>) {
        let mut out: Vec<u32> = Vec::with_capacity(sorted.len());
        for &c in sorted.iter() {
            if out.last() == Some(&c) {
                out.pop();
            } else {
                out.push(c);
            }
        }
        *sorted = out;
    }

    fn size_hint(&self, &n: &u32) -> usize {
        n as usize
    }
}

/// Reads a row of coins: `H`/`T` letters (coin 1 first) or the numbers of the heads.
pub fn parse_row(text: &str) -> Result<Row, ParseError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ParseError::new(
            1,
            1,
            "empty position: give a row of H and T (THHTH) or the coins showing heads (2 3 5)",
        ));
    }
    let letters = trimmed.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let mut heads = Vec::new();
    let mut len = 0u32;
    let mut count = 0u32;
    let mut places: Vec<(u32, usize, usize)> = Vec::new();
    for (li, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let ch = chars[k];
            let (l, c) = (li + 1, k + 1);
            if letters {
                match ch.to_ascii_uppercase() {
                    'H' | 'T' => {
                        count += 1;
                        if count > MAX_COIN {
                            return Err(ParseError::new(l, c, format!("at most {MAX_COIN} coins")));
                        }
                        if ch.eq_ignore_ascii_case(&'h') {
                            heads.push(count);
                        }
                        len = count;
                    }
                    _ if ch.is_whitespace() => {}
                    _ => {
                        return Err(ParseError::new(
                            l,
                            c,
                            format!("unexpected '{ch}': a coin is H (heads) or T (tails)"),
                        ))
                    }
                }
                k += 1;
                continue;
            }
            if ch.is_ascii_digit() {
                let start = k;
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
                let word: String = chars[start..k].iter().collect();
                let n = word
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_COIN).contains(n))
                    .ok_or_else(|| {
                        ParseError::new(l, c, format!("coins are numbered from 1 to {MAX_COIN}"))
                    })?;
                if count >= MAX_COIN {
                    return Err(ParseError::new(l, c, format!("at most {MAX_COIN} coins")));
                }
                count += 1;
                places.push((n, l, c));
                heads.push(n);
                continue;
            }
            if !(ch.is_whitespace() || ch == ',') {
                return Err(ParseError::new(
                    l,
                    c,
                    format!("unexpected '{ch}': give the numbers of the coins showing heads"),
                ));
            }
            k += 1;
        }
    }
    heads.sort_unstable();
    if !letters {
        places.sort_unstable();
        if let Some(w) = places.windows(2).find(|w| w[0].0 == w[1].0) {
            let (n, l, c) = w[1];
            let (l, c) = if (w[0].1, w[0].2) > (l, c) {
                (w[0].1, w[0].2)
            } else {
                (l, c)
            };
            return Err(ParseError::new(l, c, format!("coin {n} is listed twice")));
        }
        len = heads.last().copied().unwrap_or(0);
    }
    Ok(Row { heads, len })
}

/// The row as `H`/`T` letters when it has at most [`MAX_STRING`] coins, else the numbers
/// of the heads.
pub fn format_row(r: &Row) -> String {
    let len = r.len.max(r.heads.last().copied().unwrap_or(0));
    if r.heads.is_empty() {
        return "T".repeat(len.clamp(1, MAX_STRING) as usize);
    }
    if len <= MAX_STRING {
        let mut s = vec!['T'; len as usize];
        for &h in &r.heads {
            s[h as usize - 1] = 'H';
        }
        return s.into_iter().collect();
    }
    r.heads
        .iter()
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Game for Coins {
    type Position = Row;
    type Move = Turn;

    fn parse_position(&self, text: &str) -> Result<Row, ParseError> {
        parse_row(text)
    }

    fn components(&self, p: &Row) -> Vec<u32> {
        p.heads.clone()
    }

    fn moves<F: FnMut(Turn, Row)>(&self, p: &Row, mut emit: F) {
        for &n in &p.heads {
            self.rule.each_set(n, |s| {
                let mut heads = p.heads.clone();
                for &c in s.iter().chain(std::iter::once(&n)) {
                    match heads.binary_search(&c) {
                        Ok(i) => {
                            heads.remove(i);
                        }
                        Err(i) => heads.insert(i, c),
                    }
                }
                let mut turned = s.to_vec();
                turned.push(n);
                emit(Turn(turned), Row { heads, len: p.len });
            });
        }
    }

    fn format_move(&self, m: &Turn) -> String {
        m.0.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
    }

    fn format_position(&self, p: &Row) -> String {
        format_row(p)
    }
}

fn mock_turtles_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "mock-turtles.toml", MOCK_TURTLES)
}

fn ruler_file() -> Option<Arc<GameFile>> {
    static FILE: OnceLock<Option<Arc<GameFile>>> = OnceLock::new();
    crate::gamefile::example_file(&FILE, "ruler.toml", RULER)
}

/// Specs for the samples beyond the examples.
const SAMPLE_SPECS: [&str; 3] = [
    "kind = \"coins\"\nrule = \"turning-turtles\"\n",
    "kind = \"coins\"\ncount = [2, 3]\nspan = 3\n",
    "kind = \"coins\"\ncount = [1, 3]\nconsecutive = true\n",
];

fn sample_file(k: usize) -> Option<Arc<GameFile>> {
    static FILES: OnceLock<Vec<Option<Arc<GameFile>>>> = OnceLock::new();
    crate::gamefile::sample_file(&FILES, "coins", &SAMPLE_SPECS, k)
}

/// Rows of up to 7 coins of Mock Turtles, Ruler and the sample rules.
fn sample(seed: u64) -> Sample {
    let mut r = Seeded::new(seed);
    let file = match r.range(0, 4) {
        0 => mock_turtles_file(),
        1 => ruler_file(),
        k => sample_file(k as usize - 2),
    };
    let len = r.range(1, 7);
    let text: String = (0..len).map(|_| if r.chance(45) { 'H' } else { 'T' }).collect();
    Sample {
        text,
        options: FamilyOptions {
            game: file,
            ..FamilyOptions::default()
        },
    }
}

/// Up to (heads) × (coins)² moves (Mock Turtles turns up to three coins).
fn estimate(text: &str) -> u64 {
    let letters = text
        .trim_start()
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic());
    let (heads, len) = if letters {
        let heads = text.chars().filter(|c| c.eq_ignore_ascii_case(&'h')).count() as u64;
        (heads, text.len() as u64)
    } else {
        let nums: Vec<u64> = crate::family::integers(text).collect();
        (nums.len() as u64, nums.iter().copied().max().unwrap_or(0))
    };
    heads
        .saturating_mul((len.saturating_mul(len) / 2).saturating_add(len))
        .saturating_add(text.len() as u64)
}

/// The sequence of single heads: the value of a head at coin n.
const SEQUENCE: Table = Table {
    kind: TableKind::Sequence,
    rows: "",
    cols: "head at coin",
    first: 1,
    max: MAX_TABLE as usize,
    cell: |n, _| n.to_string(),
};

/// Coin-turning games (game files of kind `coins`) as a family of the registry; without a
/// game file, Mock Turtles.
pub struct CoinsFamily;

impl Family for CoinsFamily {
    type Game = Coins;
    const DESCRIPTION: Description = Description {
        name: "coins",
        aliases: &[],
        notation: "coin turning (a game file of kind coins; Mock Turtles without one): a row of H and T, coin 1 first, e.g. 'THHTH', or the coins showing heads, e.g. '2 3 5'",
        example: "THHTH",
        misere: true,
        engine: Engine::Memo,
        options: &[],
        table: Some(SEQUENCE),
        dense: false,
        code: None,
        continues_as: None,
        presets: &[],
        estimate_moves: estimate,
        sample,
    };

    fn build(&self, _: &str, opts: &FamilyOptions, text: &str) -> Result<(Coins, Row), RegistryError> {
        let (file, builtin) = crate::gamefile::file_or_example(opts, mock_turtles_file, "Mock Turtles")?;
        let mut game = Coins::from_file(file)?;
        game.builtin = builtin;
        let p = game
            .parse_position(text)
            .map_err(|e| RegistryError::position("coins", e))?;
        let need = p.heads.last().copied().unwrap_or(0);
        Ok((game.with_table(need), p))
    }

    fn name(&self, game: &Coins) -> String {
        if game.builtin {
            Self::DESCRIPTION.name.to_string()
        } else {
            game.file.id()
        }
    }

    fn board(&self, _: &Coins, p: &Row) -> BoardView {
        let len = p.len.max(p.heads.last().copied().unwrap_or(0)).max(1);
        let mut cells = vec!['T'; len as usize];
        for &h in &p.heads {
            cells[h as usize - 1] = 'H';
        }
        BoardView::Strip {
            cells: cells.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {

    /// Found by fuzzing: a huge coin number overflowed the estimate of moves.
    #[test]
    fn the_estimate_saturates() {
        assert_eq!(super::estimate("1100000000000046 0046"), u64::MAX);
        assert!(super::estimate("THHTH") >= 2);
    }
    use super::*;
    use grundy_solve::{analyze, brute, Convention};
    use proptest::prelude::*;

    fn game(text: &str) -> Coins {
        Coins::from_file(Arc::new(GameFile::load("t.toml", text).unwrap())).unwrap()
    }

    fn odious(m: u32) -> u32 {
        if (2 * m).count_ones() % 2 == 1 {
            2 * m
        } else {
            2 * m + 1
        }
    }

    /// Single-head values by the definition alone: every set of other coins the rule allows,
    /// worked out from scratch (no prefix sums, no incremental sets).
    fn by_definition(len: u32, min: u32, max: u32, consecutive: bool, span: u32) -> Vec<u32> {
        let mut g = vec![0u32];
        for n in 1..=len {
            let mut seen = std::collections::BTreeSet::new();
            let lo = n.saturating_sub(span).max(1);
            let others: Vec<u32> = (lo..n).collect();
            for mask in 0u64..(1 << others.len()) {
                let set: Vec<u32> = (0..others.len())
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| others[i])
                    .collect();
                let k = set.len() as u32 + 1;
                if k < min || k > max {
                    continue;
                }
                if consecutive
                    && set
                        .iter()
                        .enumerate()
                        .any(|(i, &c)| c != n - (set.len() - i) as u32)
                {
                    continue;
                }
                seen.insert(set.iter().fold(0, |a, &c| a ^ g[c as usize]));
            }
            g.push((0..).find(|v| !seen.contains(v)).unwrap());
        }
        g
    }

    #[test]
    fn ruler_values_are_powers_of_two() {
        let g = game(RULER).with_table(600);
        for n in 1..=600u32 {
            assert_eq!(g.known_grundy(&n), Some(Nimber(1 << n.trailing_zeros())), "{n}");
        }
        let memo = game(RULER).without_table();
        for n in 1..=40u32 {
            let a = analyze(
                &memo,
                &Row {
                    heads: vec![n],
                    len: n,
                },
                Convention::Normal,
            )
            .unwrap();
            assert_eq!(a.grundy, Some(Nimber(1 << n.trailing_zeros())));
        }
    }

    #[test]
    fn mock_turtles_values_are_odious() {
        let g = game(MOCK_TURTLES).with_table(600);
        for n in 1..=600u32 {
            assert_eq!(g.known_grundy(&n), Some(Nimber(odious(n - 1) as u64)), "{n}");
        }
        assert_eq!(
            (1..=8).map(odious).collect::<Vec<_>>(),
            [2, 4, 7, 8, 11, 13, 14, 16]
        );
        let memo = game(MOCK_TURTLES).without_table();
        for n in 1..=30u32 {
            let a = analyze(
                &memo,
                &Row {
                    heads: vec![n],
                    len: n,
                },
                Convention::Normal,
            )
            .unwrap();
            assert_eq!(a.grundy, Some(Nimber(odious(n - 1) as u64)));
        }
        let tt = game(SAMPLE_SPECS[0]).with_table(300);
        for n in 1..=300u32 {
            assert_eq!(tt.known_grundy(&n), Some(Nimber(n as u64)));
        }
    }

    #[test]
    fn bulk_tables_agree_with_the_definition() {
        let specs = [
            ("kind = \"coins\"\ncount = [2, 3]\nspan = 3\n", 2, 3, false, 3),
            (
                "kind = \"coins\"\ncount = [1, 3]\nconsecutive = true\n",
                1,
                3,
                true,
                99,
            ),
            (
                "kind = \"coins\"\ncount = [2, 4]\nconsecutive = true\nspan = 5\n",
                2,
                4,
                true,
                5,
            ),
            ("kind = \"coins\"\ncount = [3, 4]\n", 3, 4, false, 99),
            ("kind = \"coins\"\ncount = 2\n", 2, 2, false, 99),
            ("kind = \"coins\"\n", 1, 99, false, 99),
            ("kind = \"coins\"\nrule = \"moebius\"\n", 1, 5, false, 99),
            ("kind = \"coins\"\ncount = [1, 4]\nspan = 6\n", 1, 4, false, 6),
        ];
        for (text, min, max, consecutive, span) in specs {
            let want = by_definition(16, min, max, consecutive, span);
            let got = game(text).rule().compute(16);
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn whole_positions_against_the_reference() {
        for text in [MOCK_TURTLES, RULER] {
            let g = game(text).with_table(20);
            for row in ["THHTH", "HHHH", "TTHTHHT", "HTTTTTH", "TTT", "7 9"] {
                let p = g.parse_position(row).unwrap();
                let want = brute::grundy(&g, &p);
                let xor = p.heads.iter().fold(0, |a, h| a ^ g.known_grundy(h).unwrap().0);
                assert_eq!(want.0, xor, "{row}");
                for conv in [Convention::Normal, Convention::Misere] {
                    let a = analyze(&g, &p, conv).unwrap();
                    assert_eq!(a.outcome, brute::outcome(&g, &p, conv), "{row} {conv:?}");
                }
            }
        }
    }

    #[test]
    fn notation_and_moves() {
        let g = game(MOCK_TURTLES);
        let p = g.parse_position("THHTH").unwrap();
        assert_eq!(p.heads, vec![2, 3, 5]);
        assert_eq!(g.format_position(&p), "THHTH");
        assert_eq!(g.parse_position("2 3, 5").unwrap().heads, vec![2, 3, 5]);
        assert_eq!(g.format_position(&g.parse_position("2 3 5").unwrap()), "THHTH");
        assert_eq!(g.format_position(&g.parse_position("3 100").unwrap()), "3 100");
        let mut moves = Vec::new();
        g.moves(&g.parse_position("HTH").unwrap(), |m, q| {
            moves.push((g.format_move(&m), g.format_position(&q)))
        });
        let want = [
            ("1", "TTH"),
            ("3", "HTT"),
            ("1,3", "TTT"),
            ("2,3", "HHT"),
            ("1,2,3", "THT"),
        ];
        assert_eq!(moves, want.map(|(a, b)| (a.to_string(), b.to_string())));
        let at = |s: &str| {
            let e = g.parse_position(s).unwrap_err();
            (e.span.line, e.span.column)
        };
        assert_eq!(at("THX"), (1, 3));
        assert_eq!(at("1 2 0"), (1, 5));
        assert_eq!(at("1 1"), (1, 3));
        assert_eq!(at("1\n2 H"), (2, 3));
        assert_eq!(at(" "), (1, 1));
    }

    #[test]
    fn spec_errors_have_places() {
        let at = |text: &str| {
            let f = GameFile::load("e.toml", text).unwrap();
            let e = read_spec(&f).unwrap_err();
            (e.line, e.column, e.message)
        };
        let (l, c, m) = at("kind = \"coins\"\nrule = \"rular\"\n");
        assert_eq!((l, c), (2, 8));
        assert!(m.contains("ruler"), "{m}");
        assert_eq!(at("kind = \"coins\"\ncount = [3, 1]\n").0, 2);
        assert_eq!(at("kind = \"coins\"\ncount = [0, 1]\n").1, 9);
        assert_eq!(at("kind = \"coins\"\nrule = \"ruler\"\ncount = 2\n").0, 3);
        assert_eq!(at("kind = \"coins\"\ncount = 3\nspan = 1\n").0, 3);
        assert_eq!(at("kind = \"coins\"\nspan = 200\n").0, 2);
        assert_eq!(at("kind = \"coins\"\nconsecutive = 1\n").0, 2);
        assert_eq!(at("kind = \"coins\"\nturn = 1\n").0, 2);
    }

    proptest! {
        #[test]
        fn arbitrary_specs_and_positions_never_panic(spec in "[a-z =\\[\\],0-9\n\"-]{0,60}", pos in "[HT0-9 ,x\n]{0,20}") {
            let text = format!("kind = \"coins\"\n{spec}");
            if let Ok(f) = GameFile::load("p.toml", &text) {
                if let Ok(g) = Coins::from_file(Arc::new(f)) {
                    if let Ok(p) = g.parse_position(&pos) {
                        let again = g.format_position(&p);
                        prop_assert_eq!(g.parse_position(&again).map(|q| q.heads), Ok(p.heads.clone()));
                    }
                }
            }
        }
    }
}
