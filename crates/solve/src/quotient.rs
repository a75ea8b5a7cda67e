//! Misère quotients of heap games (after Plambeck and Siegel, "Misère quotients for impartial
//! games", JCTA 2008): the finite commutative monoid that the sums of heaps 0..=N of a game
//! fall into when positions that no sum of such heaps tells apart are identified, with its
//! P-portion (the elements that are misère P-positions). A sum's outcome is then a product in
//! the monoid and a lookup.
//!
//! The quotient of heaps up to n is the syntactic monoid of the set of misère P-positions
//! among the sums of those heaps: two sums are one element when adding any sum of those
//! heaps to either gives the same outcome. Adding a heap can split old elements (two sums
//! no smaller heap tells apart may differ once a larger heap is in play). Each heap's
//! quotient is **built from the one before by algebra** (module `build`: MisereSolver's
//! construction, written from Plambeck and Siegel's description): the new heap as an old
//! element when that passes the checks, else a candidate made from the old quotient and a
//! free cyclic monoid, its P-portion marked along the least sums of its elements, checked,
//! and mended by freeing the heaps of its least failing sum until no sum fails. No game
//! position is searched: the checks read only the heaps' options.
//!
//! The older construction stays as the fallback (a step the algebra gives up on) and as the
//! reference the tests compare with ([`Quotient::learning`]): each quotient *learned* anew
//! by a table of sums in the manner of Angluin's L*: rows are representative sums (the
//! states), columns are test sums, a cell is whether the row plus the column is a
//! P-position (asked of [`MisereOracle`], a whole-position search that answers every sum of
//! the smaller heaps from their proven quotient). Rows are kept distinct; a row plus one
//! heap that matches no row is a new state. The table gives a candidate (states, a
//! transition for each heap, P-portion), which is then *proven* by the check of Plambeck
//! and Siegel's kind ([`Quotient::verify`]: for every sum, its state is in the P-portion
//! exactly when the sum has a move and no option's state is; a finite walk over (state,
//! option states) pairs, so every sum of the heaps is covered, not a sample). A failure of
//! the check gives a sum whose candidate outcome is wrong; a binary search along it (Rivest
//! and Schapire) finds a test sum that tells two merged rows apart, which becomes a new
//! column, and the table is closed again. Proven candidates have pairwise distinguishable
//! states, so they are the reduced quotient itself.
//!
//! The elements are then numbered by their least sums (comparing heap sizes from the
//! largest down), generators are the heaps whose element is not a product of smaller heaps'
//! elements, every element's canonical word is its least sum, and the relations are the
//! least words that are not canonical (each equated to the canonical word of its element):
//! a presentation that rewrites every word to its canonical one.

use crate::genus::{tame_outcome, GenusEngine, Tame};
use foldhash::fast::RandomState;
use grundy_core::memory::Share;
use grundy_core::{HeapRules, Outcome};
use hashbrown::{HashMap, HashSet};

mod build;
mod small;

/// An element of a quotient: its number (0 is the identity, the empty sum).
pub type Element = u32;

/// Why a quotient could not be extended.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuotientError {
    /// The next heap would make the quotient larger than the limit (or a candidate on the
    /// way to it larger than twice the limit, or a direct sum before reduction larger than 64
    /// times the limit).
    #[error("the quotient would pass {limit} elements at heap {heap} (raise --max-order); it was complete to heap {reached}, order {order}")]
    MaxOrder {
        /// The limit.
        limit: usize,
        /// The heap that would pass it.
        heap: u64,
        /// The largest heap the quotient covers.
        reached: u64,
        /// Its order then.
        order: usize,
    },
    /// The next heap would need more memory than the budget leaves.
    #[error("the quotient to heap {heap} needs more memory than the budget leaves; it was complete to heap {reached}, order {order}")]
    Memory {
        /// The heap that would pass it.
        heap: u64,
        /// The largest heap the quotient covers.
        reached: u64,
        /// Its order then.
        order: usize,
        /// Bytes the next step needs (0: not known, the budget was passed on the way).
        needed: u64,
    },
    /// The check of the next heap would pass its limit of states, or its search its limit
    /// of positions.
    #[error("the construction of the quotient to heap {heap} passed {states} states of its search or check; it is proven correct to heap {reached}, order {order}")]
    VerifyLimit {
        /// The heap.
        heap: u64,
        /// The largest heap the quotient covers.
        reached: u64,
        /// Its order then.
        order: usize,
        /// States searched.
        states: usize,
    },
    /// The game said to stop.
    #[error("stopped")]
    Halted,
}

/// What [`Quotient::verify`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verified {
    /// Every sum gets its true outcome.
    Correct,
    /// This sum (its heaps) gets a wrong outcome or one of the sums in it does.
    Wrong(Vec<u64>),
    /// More states than the limit.
    TooLarge(usize),
    /// Stopped (the halt callback or the memory budget).
    Halted,
}

impl QuotientError {
    /// The largest heap the quotient covers when it stopped (`None`: it was stopped).
    pub fn reached(&self) -> Option<u64> {
        match self {
            QuotientError::MaxOrder { reached, .. }
            | QuotientError::Memory { reached, .. }
            | QuotientError::VerifyLimit { reached, .. } => Some(*reached),
            QuotientError::Halted => None,
        }
    }
}

/// One relation of a presentation: `lhs = rhs`, as exponents of the generators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// Exponent of each generator on the left.
    pub lhs: Vec<u32>,
    /// Exponent of each generator on the right.
    pub rhs: Vec<u32>,
    /// The heap of the last generator in the left side.
    pub heap: u64,
}

/// The periodicity of the heaps' elements, when the misère periodicity theorem proves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periodicity {
    /// First heap of the periodic part.
    pub preperiod: u64,
    /// The period.
    pub period: u64,
    /// The most tokens one move removes (t in the theorem).
    pub max_removal: u64,
}

/// The misère quotient of the heaps 0..=N of one heap game. See the module documentation.
#[derive(Clone, Debug)]
pub struct Quotient {
    rules: HeapRules,
    /// Heaps 0..=heaps are covered.
    heaps: u64,
    order: usize,
    /// `mul[a * order + b]`.
    mul: Vec<Element>,
    p: Vec<bool>,
    /// The canonical word of each element: the exponent of every generator.
    words: Vec<Vec<u32>>,
    /// The heap of each generator.
    gens: Vec<u64>,
    heap_elem: Vec<Element>,
    relations: Vec<Relation>,
    /// The order of the quotient of heaps 0..=m, for m = 0..=heaps.
    orders: Vec<usize>,
    /// The test sums that told the states apart (kept to learn the next heap faster; not
    /// stored).
    tests: Vec<Vec<u64>>,
    /// [`Quotient::periodicity`], found once whenever the heaps covered change (every
    /// lookup of a heap past the table needs it).
    period: Option<Periodicity>,
    /// What the next heap's step starts from (not stored; see `build`).
    build: Option<Box<build::Cache>>,
    /// Learn every heap by search ([`Quotient::learning`]).
    learn_only: bool,
    max_order: usize,
    max_states: usize,
    share: Share,
}

/// Default limit on the states of the check of a quotient ([`Quotient::verify`]) and on the
/// positions the search of one step keeps.
pub const DEFAULT_MAX_STATES: usize = 4_000_000;

/// Default limit on the order of a quotient.
pub const DEFAULT_MAX_ORDER: usize = 4096;

impl Quotient {
    /// The quotient of heap 0 alone (the trivial monoid {1}, with no P-position) of `rules`.
    pub fn new(rules: HeapRules) -> Quotient {
        Quotient {
            rules,
            heaps: 0,
            order: 1,
            mul: vec![0],
            p: vec![false],
            words: vec![Vec::new()],
            gens: Vec::new(),
            heap_elem: vec![0],
            relations: Vec::new(),
            orders: vec![1],
            tests: vec![Vec::new()],
            period: None,
            build: None,
            learn_only: false,
            max_order: DEFAULT_MAX_ORDER,
            max_states: DEFAULT_MAX_STATES,
            share: Share::whole(),
        }
    }

    /// Stop with [`QuotientError::MaxOrder`] rather than pass `limit` elements.
    pub fn with_max_order(mut self, limit: usize) -> Quotient {
        self.max_order = limit.max(1);
        self
    }

    /// Stop with [`QuotientError::VerifyLimit`] rather than let the search or the check of
    /// one step pass `limit` states.
    pub fn with_max_states(mut self, limit: usize) -> Quotient {
        self.max_states = limit.max(1);
        self
    }

    /// Learn every heap's quotient by search (Angluin-style, the construction described in
    /// the module documentation) instead of building it from the quotient before it by
    /// algebra: slower, kept as a reference to compare the two.
    pub fn learning(mut self) -> Quotient {
        self.learn_only = true;
        self
    }

    /// Count memory against `share` (by default the whole budget).
    pub fn with_share(mut self, share: Share) -> Quotient {
        self.share = share;
        self
    }

    /// The quotient of heaps 0..=n of `rules` (see [`Quotient::extend_to`]).
    pub fn build(
        rules: HeapRules,
        n: u64,
        max_order: usize,
    ) -> Result<Quotient, Box<(Quotient, QuotientError)>> {
        let mut q = Quotient::new(rules).with_max_order(max_order);
        match q.extend_to(n) {
            Ok(()) => Ok(q),
            Err(e) => Err(Box::new((q, e))),
        }
    }

    /// The rules.
    pub fn rules(&self) -> &HeapRules {
        &self.rules
    }

    /// The largest heap covered.
    pub fn heaps(&self) -> u64 {
        self.heaps
    }

    /// Number of elements.
    pub fn order(&self) -> usize {
        self.order
    }

    /// The order of the quotient of heaps 0..=m, for every m up to [`Quotient::heaps`].
    pub fn orders(&self) -> &[usize] {
        &self.orders
    }

    /// The product of two elements.
    #[inline]
    pub fn mul(&self, a: Element, b: Element) -> Element {
        self.mul[a as usize * self.order + b as usize]
    }

    /// Whether an element is in the P-portion (its sums are misère P-positions: the player
    /// to move loses).
    #[inline]
    pub fn is_p(&self, a: Element) -> bool {
        self.p[a as usize]
    }

    /// The P-portion, in element order.
    pub fn p_portion(&self) -> Vec<Element> {
        (0..self.order as Element)
            .filter(|&a| self.p[a as usize])
            .collect()
    }

    /// The heap of each generator (generator 0 is written `a`, 1 `b`, ...).
    pub fn generators(&self) -> &[u64] {
        &self.gens
    }

    /// The relations: the least words that are not canonical, each equated to the canonical
    /// word of its element; ordered by their last generator, its exponent, then the rest.
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// The element of heap h, for h up to [`Quotient::heaps`].
    pub fn heap_element(&self, h: u64) -> Option<Element> {
        self.heap_elem.get(usize::try_from(h).ok()?).copied()
    }

    /// The elements of heaps 0..=N.
    pub fn heap_elements(&self) -> &[Element] {
        &self.heap_elem
    }

    /// The element of any heap: from the table, or past it by the proven period.
    pub fn element_of(&self, h: u64) -> Option<Element> {
        if let Some(e) = self.heap_element(h) {
            return Some(e);
        }
        let per = self.periodicity()?;
        let i = per.preperiod + (h - per.preperiod) % per.period;
        self.heap_element(i)
    }

    /// The element of a sum of heaps (`None` when a heap is past the quotient and no period
    /// is proven).
    pub fn element_of_sum(&self, heaps: &[u64]) -> Option<Element> {
        let mut e = 0;
        for &h in heaps {
            e = self.mul(e, self.element_of(h)?);
        }
        Some(e)
    }

    /// The misère outcome of a sum of heaps, when the quotient covers them.
    pub fn outcome(&self, heaps: &[u64]) -> Option<Outcome> {
        let e = self.element_of_sum(heaps)?;
        Some(if self.is_p(e) {
            Outcome::Second
        } else {
            Outcome::First
        })
    }

    /// The canonical word of an element, as exponents of the generators.
    pub fn word(&self, a: Element) -> &[u32] {
        &self.words[a as usize]
    }

    /// An element written as a word in the generators `a`, `b`, ... (`1` for the identity;
    /// past 26 generators, `g27`, ...): `a`, `b^2`, `ab^2c`.
    pub fn element_name(&self, a: Element) -> String {
        self.word_name(&self.words[a as usize])
    }

    /// A word written as [`Quotient::element_name`] does.
    pub fn word_name(&self, w: &[u32]) -> String {
        let mut s = String::new();
        for (g, &e) in w.iter().enumerate() {
            if e == 0 {
                continue;
            }
            s.push_str(&generator_name(g));
            if e > 1 {
                s.push('^');
                s.push_str(&e.to_string());
            }
        }
        if s.is_empty() {
            s.push('1');
        }
        s
    }

    /// The least m for which the quotient of heaps 0..=m is this one (the larger heaps add
    /// no element and split none: the quotients have the same order, and the smaller is the
    /// reduction of a submonoid of the larger, so they are the same). 0 when no heap adds
    /// anything.
    pub fn last_growth(&self) -> u64 {
        self.orders.iter().position(|&o| o == self.order).unwrap_or(0) as u64
    }

    /// The periodicity of the heaps' elements proven by the misère periodicity theorem
    /// (Plambeck and Siegel): for an octal game (finitely many digits, at most two heaps
    /// left by a move) or a finite subtraction game with t the most tokens a move removes,
    /// when the quotient of heaps up to 2·n0 + 2p + t is that of heaps up to n0 + p + t and
    /// Φ(n + p) = Φ(n) for n0 ≤ n < n0 + p + t (Φ(n) the element of heap n), then
    /// Φ(n + p) = Φ(n) for every n ≥ n0 and the quotient of the whole game is that of heaps
    /// up to n0 + p + t. Two readings of the theorem's bounds are in circulation, so this
    /// asks for both at once, which is more than either: every heap up to 2·n0 + 2p + t
    /// computed, the quotient the same from heap n0 + p + t on ([`Quotient::last_growth`]),
    /// and Φ(n + p) = Φ(n) for every n ≥ n0 computed. The least such (n0 + p, then p) within
    /// the heaps computed.
    pub fn periodicity(&self) -> Option<Periodicity> {
        self.period
    }

    /// [`Quotient::periodicity`], found anew from the heaps' elements and orders (kept in
    /// `period` by every constructor once those are set).
    fn find_periodicity(&self) -> Option<Periodicity> {
        let t = match &self.rules {
            HeapRules::TakeBreak { repeat: 0, .. }
                if self.rules.max_parts() <= 2 && !self.rules.has_unequal() =>
            {
                self.rules.max_removal()?
            }
            HeapRules::Subtraction(_) => self.rules.max_removal()?,
            _ => return None,
        };
        let n = self.heaps;
        let phi = &self.heap_elem;
        let stable = self.last_growth();
        // n0 + p + t ≤ 2·n0 + 2p + t ≤ n.
        for span in 1..=n {
            for p in 1..=span {
                let n0 = span - p;
                if 2 * n0 + 2 * p + t > n {
                    continue;
                }
                if stable > n0 + p + t {
                    continue;
                }
                let ok = (n0..=n - p).all(|h| phi[(h + p) as usize] == phi[h as usize]);
                if ok {
                    return Some(Periodicity {
                        preperiod: n0,
                        period: p,
                        max_removal: t,
                    });
                }
            }
        }
        None
    }

    /// Extends the quotient heap by heap to heaps 0..=n. On an error the quotient stays as
    /// it was after the last heap it completed.
    pub fn extend_to(&mut self, n: u64) -> Result<(), QuotientError> {
        self.extend_until(n, &|| false)
    }

    /// [`Quotient::extend_to`], asking `halt` between heaps and as each goes: when it says
    /// so, the quotient stops with [`QuotientError::Halted`] (as it was after the last heap
    /// it completed).
    /// Each heap's step goes on from the sums the steps before it searched, as long as they
    /// are fewer than the quotient's limit of states (then they are dropped).
    pub fn extend_until(&mut self, n: u64, halt: &dyn Fn() -> bool) -> Result<(), QuotientError> {
        let mut memo = OracleMemo::default();
        while self.heaps < n {
            if memo.len() > self.max_states {
                memo = OracleMemo::default();
            }
            self.extend_until_with(self.heaps + 1, halt, &mut memo)?;
        }
        Ok(())
    }

    /// [`Quotient::extend_until`], its searches knowing the outcomes of `memo` (found by a
    /// [`MisereOracle`] of the same game, over any of its quotients) and leaving theirs in it,
    /// even when stopped: each heap's step goes on from the sums the steps before it searched,
    /// and a solve's search and its quotient's growth share their work. The quotient's limit
    /// of states counts those a step adds to `memo`.
    pub fn extend_until_with(
        &mut self,
        n: u64,
        halt: &dyn Fn() -> bool,
        memo: &mut OracleMemo,
    ) -> Result<(), QuotientError> {
        while self.heaps < n {
            if halt() {
                return Err(QuotientError::Halted);
            }
            if !self.learn_only && build::step(self, halt)? {
                continue;
            }
            let mut learner = Learner::new(self, halt, std::mem::take(memo));
            let next = learner.run();
            *memo = learner.oracle.take_memo();
            *self = next?;
        }
        Ok(())
    }

    /// Checks that the quotient gives every sum of heaps 0..=N its true misère outcome: for
    /// every sum u, its element is in the P-portion exactly when u has a move and the
    /// element of every option of u is outside it (by induction on u, every outcome is then
    /// right, and the quotient, reduced, is the misère quotient). The sums are walked as
    /// states (element of u, set of the elements of u's options), which a heap h takes to
    /// (e·φ(h), W·φ(h) ∪ e·φ(options of h)): finitely many, searched breadth first, at most
    /// `max_states` of them.
    pub fn verify(&self, max_states: usize, halt: &dyn Fn() -> bool) -> Verified {
        let mut letters: Vec<u64> = Vec::new();
        let mut seen_letter: HashSet<(Element, Vec<Element>), RandomState> = HashSet::default();
        for h in 1..=self.heaps {
            let ys = self.heap_option_elements(h);
            if ys.is_empty() {
                continue;
            }
            if seen_letter.insert((self.heap_elem[h as usize], ys)) {
                letters.push(h);
            }
        }
        let dfa = Dfa {
            states: self.order,
            delta: (0..self.order)
                .flat_map(|e| {
                    letters
                        .iter()
                        .map(move |&h| self.mul(e as Element, self.heap_elem[h as usize]))
                })
                .collect(),
            letters: letters.len(),
            p: self.p.clone(),
        };
        // The options of each letter, as lists of elements multiplied in.
        let opts: Vec<Vec<Vec<usize>>> = letters
            .iter()
            .map(|&h| {
                let mut o = Vec::new();
                self.rules.heap_options(h, |parts| {
                    o.push(
                        parts
                            .iter()
                            .map(|&x| self.heap_elem[x as usize] as usize)
                            .collect(),
                    );
                });
                o
            })
            .collect();
        // Options here are lists of elements; multiply them in directly.
        match walk(&dfa, &opts, Mode::Monoid(self), max_states, &self.share, halt) {
            Walk::Correct => Verified::Correct,
            Walk::Wrong(seq) => {
                let mut word: Vec<u64> = seq.iter().map(|&l| letters[l]).collect();
                word.sort_unstable();
                Verified::Wrong(word)
            }
            Walk::TooLarge(n) => Verified::TooLarge(n),
            Walk::Halted => Verified::Halted,
        }
    }

    /// The quotient of heaps 0..=n (n at most [`Quotient::heaps`]): the submonoid of the
    /// heaps up to n, reduced (two elements are one when every product with an element of
    /// the submonoid has the same outcome), numbered anew.
    pub fn truncated(&self, n: u64) -> Quotient {
        if n >= self.heaps {
            return self.clone();
        }
        let gens: Vec<Element> = (1..=n as usize).map(|h| self.heap_elem[h]).collect();
        let (k, mul, idx) = build::submonoid(self, &gens);
        let mut list = vec![0 as Element; k];
        for (e, &i) in idx.iter().enumerate() {
            if i != u32::MAX {
                list[i as usize] = e as Element;
            }
        }
        let p: Vec<bool> = list.iter().map(|&e| self.p[e as usize]).collect();
        let heap_elem: Vec<Element> = (0..=n as usize)
            .map(|h| idx[self.heap_elem[h] as usize])
            .collect();
        let (mul, p, heap_elem) = reduce(k, &mul, &p, &heap_elem);
        let mut q = canonical(self.rules.clone(), n, &mul, &p, &heap_elem);
        q.orders = self.orders[..=n as usize].to_vec();
        q.period = q.find_periodicity();
        q.inherit(self);
        q
    }

    /// Takes the limits, the memory share and the construction of `from`.
    fn inherit(&mut self, from: &Quotient) {
        self.max_order = from.max_order;
        self.max_states = from.max_states;
        self.share = from.share;
        self.learn_only = from.learn_only;
    }

    /// Covers one more heap, whose element is `e` (the monoid unchanged).
    fn push_heap(&mut self, e: Element) {
        self.heaps += 1;
        self.heap_elem.push(e);
        self.orders.push(self.order);
        self.period = self.find_periodicity();
    }

    /// The elements of the options of heap n (sorted, distinct).
    fn heap_option_elements(&self, n: u64) -> Vec<Element> {
        let mut out = Vec::new();
        self.rules.heap_options(n, |parts| {
            let mut e = 0;
            for &h in parts {
                e = self.mul(e, self.heap_elem[h as usize]);
            }
            out.push(e);
        });
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A deterministic automaton over heap letters: `delta[s * letters + l]`.
struct Dfa {
    states: usize,
    letters: usize,
    delta: Vec<u32>,
    p: Vec<bool>,
}

impl Dfa {
    #[inline]
    fn step(&self, s: u32, l: usize) -> u32 {
        self.delta[s as usize * self.letters + l]
    }
}

/// How the options of a letter are applied to a state in [`walk`].
enum Mode<'a> {
    /// Options are lists of letters, run one after another.
    Letters,
    /// Options are lists of elements of this monoid, multiplied in.
    Monoid(&'a Quotient),
}

/// Whether `map` may take one more entry within `share`: when it is full, the next insert
/// reallocates its table at twice the size, all at once, and that must fit in the room left
/// (the entries' own heap data is counted as it is allocated, by [`Share::over`]).
fn room_to_grow<K, V, S>(map: &HashMap<K, V, S>, share: &Share) -> bool {
    if map.len() < map.capacity() {
        return true;
    }
    let buckets = (map.capacity().max(2) + 1).next_power_of_two() * 2;
    let bytes = buckets as u64 * (std::mem::size_of::<(K, V)>() as u64 + 1);
    bytes <= share.room()
}

/// Whether `v` may take one more element within `share` (see [`room_to_grow`]).
fn room_to_push<T>(v: &[T], capacity: usize, share: &Share) -> bool {
    v.len() < capacity || (capacity.max(4) as u64 * 2 * std::mem::size_of::<T>() as u64) <= share.room()
}

enum Walk {
    Correct,
    Wrong(Vec<usize>),
    TooLarge(usize),
    Halted,
}

/// The check of Plambeck and Siegel's kind over an automaton: every sequence of letters
/// reaches a state (s, W) (W: the states of the sum's options, each option the sequence with
/// one letter replaced by one of its options); the check is that s is in the P-portion
/// exactly when W is not empty and has no P-state. Breadth first over the distinct (s, W).
fn walk(
    dfa: &Dfa,
    opts: &[Vec<Vec<usize>>],
    mode: Mode<'_>,
    max_states: usize,
    share: &Share,
    halt: &dyn Fn() -> bool,
) -> Walk {
    let m = dfa.states;
    let words = m.div_ceil(64).max(1);
    let mut pbits = vec![0u64; words];
    for (a, &p) in dfa.p.iter().enumerate() {
        if p {
            pbits[a / 64] |= 1 << (a % 64);
        }
    }
    let apply = |s: u32, o: &[usize]| -> u32 {
        match &mode {
            Mode::Letters => o.iter().fold(s, |s, &l| dfa.step(s, l)),
            Mode::Monoid(q) => o.iter().fold(s, |s, &e| q.mul(s, e as Element)),
        }
    };
    type Key = (u32, Vec<u64>);
    let mut seen: HashMap<Key, (usize, usize), RandomState> = HashMap::default();
    let mut order: Vec<Key> = Vec::new();
    let start: Key = (0, vec![0u64; words]);
    seen.insert(start.clone(), (usize::MAX, 0));
    order.push(start);
    let mut at = 0;
    while at < order.len() {
        if at.is_multiple_of(64) && (halt() || share.over()) {
            return Walk::Halted;
        }
        let (e, w) = order[at].clone();
        let has_options = w.iter().any(|&x| x != 0);
        let all_n = w.iter().zip(&pbits).all(|(a, b)| a & b == 0);
        if dfa.p[e as usize] != (has_options && all_n) {
            let mut seq = Vec::new();
            let mut i = at;
            while i != 0 {
                let (parent, letter) = seen[&order[i]];
                seq.push(letter);
                i = parent;
            }
            seq.reverse();
            return Walk::Wrong(seq);
        }
        for (l, opts_l) in opts.iter().enumerate().take(dfa.letters) {
            let mut next = vec![0u64; words];
            for (wi, &bits) in w.iter().enumerate() {
                let mut b = bits;
                while b != 0 {
                    let a = wi * 64 + b.trailing_zeros() as usize;
                    b &= b - 1;
                    let x = dfa.step(a as u32, l) as usize;
                    next[x / 64] |= 1 << (x % 64);
                }
            }
            for y in opts_l {
                let x = apply(e, y) as usize;
                next[x / 64] |= 1 << (x % 64);
            }
            let key = (dfa.step(e, l), next);
            if !seen.contains_key(&key) {
                if seen.len() >= max_states {
                    return Walk::TooLarge(seen.len());
                }
                if !room_to_grow(&seen, share) || !room_to_push(&order, order.capacity(), share) {
                    return Walk::Halted;
                }
                seen.insert(key.clone(), (at, l));
                order.push(key);
            }
        }
        at += 1;
    }
    Walk::Correct
}

/// The states of a monoid that no product with an element of the monoid tells apart, merged
/// (partition refinement from the P-portion, by the products with every heap's element):
/// the reduced monoid, its P-portion and the heaps' elements.
fn reduce(
    k: usize,
    mul: &[Element],
    p: &[bool],
    heap_elem: &[Element],
) -> (Vec<Element>, Vec<bool>, Vec<Element>) {
    let mut letters: Vec<Element> = heap_elem.to_vec();
    letters.sort_unstable();
    letters.dedup();
    let delta: Vec<u32> = (0..k)
        .flat_map(|e| letters.iter().map(move |&x| mul[e * k + x as usize]))
        .collect();
    let start = p.iter().map(|&b| u32::from(b)).collect();
    let Ok((class, count)) = refine::<std::convert::Infallible>(&delta, letters.len(), start, &mut || Ok(()));
    let mut rep = vec![usize::MAX; count];
    for e in (0..k).rev() {
        rep[class[e] as usize] = e;
    }
    let mut m = vec![0 as Element; count * count];
    for a in 0..count {
        for b in 0..count {
            m[a * count + b] = class[mul[rep[a] * k + rep[b]] as usize];
        }
    }
    let p = rep.iter().map(|&e| p[e]).collect();
    let h = heap_elem.iter().map(|&e| class[e as usize]).collect();
    (m, p, h)
}

/// Partition refinement: from the classes `class` (one per state, state 0 first), states are
/// split until no two states of a class go to different classes by some letter
/// (`delta[s * width + l]`). Returns the classes, numbered in the order of their first state
/// (so the class of state 0 is 0), and their count; `check` is asked once a round, and its
/// error ends the refinement.
fn refine<E>(
    delta: &[u32],
    width: usize,
    mut class: Vec<u32>,
    check: &mut dyn FnMut() -> Result<(), E>,
) -> Result<(Vec<u32>, usize), E> {
    let mut count = 0;
    loop {
        check()?;
        let mut ids: HashMap<Vec<u32>, u32, RandomState> = HashMap::default();
        let mut next = vec![0u32; class.len()];
        for i in 0..class.len() {
            let mut sig = Vec::with_capacity(width + 1);
            sig.push(class[i]);
            sig.extend(delta[i * width..][..width].iter().map(|&j| class[j as usize]));
            let n = ids.len() as u32;
            next[i] = *ids.entry(sig).or_insert(n);
        }
        let n = ids.len();
        class = next;
        if n == count {
            return Ok((class, count));
        }
        count = n;
    }
}

/// The quotient of heaps 0..=n from a reduced monoid generated by the heaps' elements
/// (`mul` of order `p.len()`, identity 0): elements numbered by their least sums,
/// generators, canonical words and relations (see the module documentation).
fn canonical(rules: HeapRules, n: u64, mul: &[Element], p: &[bool], heap_elem: &[Element]) -> Quotient {
    let k = p.len();
    const NONE: u32 = u32::MAX;
    let mut id = vec![NONE; k];
    let mut list: Vec<Element> = vec![0];
    id[0] = 0;
    let mut words: Vec<Vec<u32>> = vec![Vec::new()];
    let mut gens: Vec<u64> = Vec::new();
    for (h, &elem) in heap_elem.iter().enumerate().take(n as usize + 1).skip(1) {
        let x = elem as usize;
        if id[x] != NONE {
            continue;
        }
        let g = gens.len();
        gens.push(h as u64);
        for w in &mut words {
            w.push(0);
        }
        // Layer j: x^j times the elements of the smaller heaps, new ones in the order of
        // the elements they come from (their least sums: j copies of h, then the rest).
        let mut layer: Vec<Element> = list.clone();
        loop {
            let mut next = Vec::new();
            for &e in &layer {
                let f = mul[e as usize * k + x];
                if id[f as usize] == NONE {
                    id[f as usize] = list.len() as u32;
                    let mut w = words[id[e as usize] as usize].clone();
                    w[g] += 1;
                    words.push(w);
                    list.push(f);
                    next.push(f);
                }
            }
            if next.is_empty() {
                break;
            }
            layer = next;
        }
    }
    let order = list.len();
    debug_assert_eq!(order, k, "every element is a product of heaps");
    let mut m = vec![0 as Element; order * order];
    for (i, &a) in list.iter().enumerate() {
        for (j, &b) in list.iter().enumerate() {
            m[i * order + j] = id[mul[a as usize * k + b as usize] as usize];
        }
    }
    let pp: Vec<bool> = list.iter().map(|&e| p[e as usize]).collect();
    let he: Vec<Element> = heap_elem.iter().map(|&e| id[e as usize]).collect();
    // Relations: the least words that are not canonical (every word one generator
    // smaller is canonical), each equal to the canonical word of its element.
    let ng = gens.len();
    let word_id: HashMap<Vec<u32>, Element, RandomState> = words
        .iter()
        .enumerate()
        .map(|(i, w)| (w.clone(), i as Element))
        .collect();
    let gen_elem: Vec<Element> = gens.iter().map(|&h| he[h as usize]).collect();
    let mut seen: HashSet<Vec<u32>, RandomState> = HashSet::default();
    let mut rels: Vec<((usize, u32, Element), Relation)> = Vec::new();
    for e in 0..order {
        for g in 0..ng {
            let mut v = words[e].clone();
            v[g] += 1;
            if word_id.contains_key(&v) {
                continue;
            }
            let minimal = (0..ng).all(|g2| {
                if g2 == g || v[g2] == 0 {
                    return true;
                }
                let mut u = v.clone();
                u[g2] -= 1;
                word_id.contains_key(&u)
            });
            if !minimal || !seen.insert(v.clone()) {
                continue;
            }
            let target = m[e * order + gen_elem[g] as usize];
            let top = (0..ng).rev().find(|&i| v[i] > 0).unwrap_or(0);
            let mut rest = v.clone();
            rest[top] = 0;
            let key = (top, v[top], word_id.get(&rest).copied().unwrap_or(Element::MAX));
            rels.push((
                key,
                Relation {
                    lhs: v,
                    rhs: words[target as usize].clone(),
                    heap: gens[top],
                },
            ));
        }
    }
    rels.sort_by_key(|a| a.0);
    Quotient {
        rules,
        heaps: n,
        order,
        mul: m,
        p: pp,
        words,
        gens,
        heap_elem: he,
        relations: rels.into_iter().map(|(_, r)| r).collect(),
        orders: Vec::new(),
        tests: vec![Vec::new()],
        period: None,
        build: None,
        learn_only: false,
        max_order: DEFAULT_MAX_ORDER,
        max_states: DEFAULT_MAX_STATES,
        share: Share::whole(),
    }
}

/// Why a [`MisereOracle`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchStop {
    /// It kept as many positions as its limit.
    Limit(usize),
    /// The memory budget (or the share) was passed.
    Memory,
    /// The halt callback said to stop.
    Halted,
}

/// Misère outcomes of sums of heaps by whole-position search (iterative, stopping at the
/// first option that is a P-position), where every sum of heaps that a proven quotient
/// covers is answered by the quotient (a product and a lookup) instead of being searched.
/// Exact: the quotient gives every sum of its heaps its true outcome. Heaps without a move
/// (the empty game) are dropped from every sum, and a sum of small heaps that are all tame
/// is decided by the rule of misère Nim (Conway's genus, as [`crate::MisereSearch`] does), so
/// the search never opens a position the whole-position search would not.
pub struct MisereOracle<'q> {
    base: &'q Quotient,
    period: Option<Periodicity>,
    memo: HashMap<Vec<u64>, bool, RandomState>,
    limit: usize,
    share: Share,
    opened: usize,
    /// Whether heap h has a move: 0 not asked yet, 1 yes, 2 no (heaps below [`MOVELESS_CACHE`]).
    moves: Vec<u8>,
    /// Tameness of heaps up to [`crate::misere::GENUS_MAX_SIZE`] (`None`: not asked yet).
    tame: Vec<Option<Option<Tame>>>,
    genus: GenusEngine<'q, HeapRules>,
    /// The heaps of small sums ([`small`]).
    small: small::SmallHeaps,
    /// The outcomes of small sums searched (true: P-position).
    small_memo: HashMap<small::Packed, bool, small::KeyState>,
}

/// Heaps below this are dropped from sums by [`MisereOracle`] when they have no move (each
/// asked once; larger heaps are kept in sums as they are: keeping an empty heap is never
/// wrong, and heaps without a move are small in the games there are).
const MOVELESS_CACHE: u64 = 64;

/// Options generated between two looks at the stop and the memory within one position
/// (a heap of a million has millions of options).
const OPTIONS_CHECK: u32 = 4096;

/// The outcomes a [`MisereOracle`] found (exact, whatever quotient it used), to go on with
/// another quotient of the same game ([`MisereOracle::detach`], [`MisereOracle::with_memo`]).
#[derive(Default)]
pub struct OracleMemo(
    HashMap<Vec<u64>, bool, RandomState>,
    HashMap<small::Packed, bool, small::KeyState>,
);

impl OracleMemo {
    /// Sums kept.
    pub fn len(&self) -> usize {
        self.0.len() + self.1.len()
    }

    /// True when no sum is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct OracleFrame {
    pos: Vec<u64>,
    children: Vec<Vec<u64>>,
    next: usize,
}

enum Opened {
    Done(bool),
    Open(OracleFrame),
}

impl<'q> MisereOracle<'q> {
    /// A search over the game of `base`, answering the sums it covers from it.
    pub fn new(base: &'q Quotient) -> MisereOracle<'q> {
        MisereOracle::with_memo(base, OracleMemo::default())
    }

    /// [`MisereOracle::new`], knowing the outcomes of `memo` (found by an oracle of the same
    /// game, over any of its quotients).
    pub fn with_memo(base: &'q Quotient, memo: OracleMemo) -> MisereOracle<'q> {
        MisereOracle {
            base,
            period: base.periodicity(),
            memo: memo.0,
            limit: usize::MAX,
            share: Share::whole(),
            opened: 0,
            moves: Vec::new(),
            tame: Vec::new(),
            genus: GenusEngine::new(&base.rules),
            small: small::SmallHeaps::default(),
            small_memo: memo.1,
        }
    }

    /// The outcomes found, to go on with another quotient ([`MisereOracle::with_memo`]).
    pub fn detach(self) -> OracleMemo {
        OracleMemo(self.memo, self.small_memo)
    }

    /// [`MisereOracle::detach`], leaving this oracle with no outcome kept.
    fn take_memo(&mut self) -> OracleMemo {
        OracleMemo(
            std::mem::take(&mut self.memo),
            std::mem::take(&mut self.small_memo),
        )
    }

    /// Stop with [`SearchStop::Limit`] once this many positions are kept.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Count memory against `share`.
    pub fn with_share(mut self, share: Share) -> Self {
        self.share = share;
        self
    }

    /// Positions kept (those the quotient does not cover).
    pub fn len(&self) -> usize {
        self.memo.len() + self.small_memo.len()
    }

    /// True when no position is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn known(&self, s: &[u64]) -> Option<bool> {
        let q = self.base;
        let covered = s.last().is_none_or(|&h| h <= q.heaps);
        if covered || self.period.is_some() {
            let mut e = 0;
            for &h in s {
                let x = match self.period {
                    Some(per) if h > q.heaps => {
                        q.heap_elem[(per.preperiod + (h - per.preperiod) % per.period) as usize]
                    }
                    _ => q.heap_elem[h as usize],
                };
                e = q.mul(e, x);
            }
            return Some(q.is_p(e));
        }
        self.memo.get(s).copied()
    }

    /// [`MisereOracle::known`], else the rule of misère Nim when every heap is small and tame.
    fn settled(&mut self, s: &[u64]) -> Result<Option<bool>, SearchStop> {
        if let Some(v) = self.known(s) {
            return Ok(Some(v));
        }
        let small = crate::misere::GENUS_MAX_SIZE as u64;
        if s.last().is_none_or(|&h| h > small) {
            return Ok(None);
        }
        let mut kinds = Vec::with_capacity(s.len());
        for &h in s {
            match self.tame_heap(h)? {
                Some(t) => kinds.push(t),
                None => return Ok(None),
            }
        }
        Ok(Some(tame_outcome(&kinds) == Outcome::Second))
    }

    fn tame_heap(&mut self, h: u64) -> Result<Option<Tame>, SearchStop> {
        let i = h as usize;
        if self.tame.len() <= i {
            self.tame.resize(i + 1, None);
        }
        if let Some(t) = self.tame[i] {
            return Ok(t);
        }
        let t = self.genus.tame(&h).map_err(|e| match e {
            crate::SolveError::Limit(n) => SearchStop::Limit(n),
            crate::SolveError::Halted => SearchStop::Halted,
            _ => SearchStop::Memory,
        })?;
        self.tame[i] = Some(t);
        Ok(t)
    }

    /// Whether heap `h` has no move (remembered below [`MOVELESS_CACHE`]; larger heaps are
    /// taken to have one).
    fn moveless(&mut self, h: u64) -> bool {
        if h >= MOVELESS_CACHE {
            return false;
        }
        let i = h as usize;
        if self.moves.len() <= i {
            self.moves.resize(i + 1, 0);
        }
        if self.moves[i] == 0 {
            let mut any = false;
            self.base.rules.heap_options(h, |_| any = true);
            self.moves[i] = if any { 1 } else { 2 };
        }
        self.moves[i] == 2
    }

    /// `s` without its heaps that have no move.
    fn strip(&mut self, s: &mut Vec<u64>) {
        if s.iter().any(|&h| self.moves.get(h as usize) != Some(&1)) {
            let mut keep = Vec::with_capacity(s.len());
            for &h in s.iter() {
                if !self.moveless(h) {
                    keep.push(h);
                }
            }
            *s = keep;
        }
    }

    fn open(&mut self, pos: Vec<u64>, halt: &dyn Fn() -> bool) -> Result<Opened, SearchStop> {
        self.opened += 1;
        // Every position opened allocates its options (thousands for large heaps) and may
        // grow the memo: the stop and the memory are asked each time (a few loads), so the
        // search never passes the budget by more than one position's options.
        if halt() {
            return Err(SearchStop::Halted);
        }
        if self.share.over() || !room_to_grow(&self.memo, &self.share) {
            return Err(SearchStop::Memory);
        }
        if self.len() >= self.limit {
            return Err(SearchStop::Limit(self.len()));
        }
        let mut children: Vec<Vec<u64>> = Vec::new();
        let rules = &self.base.rules;
        let (mut n, mut stopped) = (0u32, None);
        for i in 0..pos.len() {
            if i > 0 && pos[i] == pos[i - 1] {
                continue;
            }
            rules.heap_options(pos[i], |parts| {
                n = n.wrapping_add(1);
                if n % OPTIONS_CHECK == 0 && stopped.is_none() {
                    if halt() {
                        stopped = Some(SearchStop::Halted);
                    } else if self.share.over() {
                        stopped = Some(SearchStop::Memory);
                    }
                }
                if stopped.is_some() {
                    return;
                }
                let mut c = Vec::with_capacity(pos.len() + parts.len());
                c.extend_from_slice(&pos[..i]);
                c.extend_from_slice(&pos[i + 1..]);
                c.extend_from_slice(parts);
                c.sort_unstable();
                children.push(c);
            });
            if let Some(e) = stopped {
                return Err(e);
            }
        }
        if children.is_empty() {
            // Misère: the player to move, with no move, wins.
            return Ok(Opened::Done(false));
        }
        for c in &mut children {
            self.strip(c);
        }
        children.sort_unstable();
        children.dedup();
        let mut unknown = Vec::new();
        for c in children {
            match self.settled(&c)? {
                Some(true) => return Ok(Opened::Done(false)),
                Some(false) => {}
                None => unknown.push(c),
            }
        }
        if unknown.is_empty() {
            return Ok(Opened::Done(true));
        }
        // The smallest first: they are the cheapest to settle.
        unknown.sort_by_key(|c| c.iter().sum::<u64>());
        Ok(Opened::Open(OracleFrame {
            pos,
            children: unknown,
            next: 0,
        }))
    }

    /// Whether the sum of `heaps` (in any order) is a misère P-position.
    pub fn is_p(&mut self, heaps: &[u64], halt: &dyn Fn() -> bool) -> Result<bool, SearchStop> {
        let mut start = heaps.to_vec();
        start.retain(|&h| h > 0);
        start.sort_unstable();
        if let Some(k) = self.small_key(&start) {
            return self.small_is_p(k, halt);
        }
        self.strip(&mut start);
        if let Some(v) = self.settled(&start)? {
            return Ok(v);
        }
        let mut stack = match self.open(start.clone(), halt)? {
            Opened::Done(v) => {
                self.memo.insert(start, v);
                return Ok(v);
            }
            Opened::Open(f) => vec![f],
        };
        while let Some(top) = stack.last_mut() {
            let mut decided = None;
            let mut descend = None;
            while top.next < top.children.len() {
                match self.memo.get(&top.children[top.next]) {
                    Some(true) => {
                        decided = Some(false);
                        break;
                    }
                    Some(false) => top.next += 1,
                    None => {
                        descend = Some(top.children[top.next].clone());
                        break;
                    }
                }
            }
            if let Some(c) = descend {
                if let Some(k) = self.small_key(&c) {
                    let v = self.small_is_p(k, halt)?;
                    self.memo.insert(c, v);
                    continue;
                }
                match self.open(c.clone(), halt)? {
                    Opened::Done(v) => {
                        self.memo.insert(c, v);
                    }
                    Opened::Open(f) => stack.push(f),
                }
                continue;
            }
            if !room_to_grow(&self.memo, &self.share) {
                return Err(SearchStop::Memory);
            }
            let top = stack.pop().expect("not empty");
            self.memo.insert(top.pos, decided.unwrap_or(true));
        }
        Ok(self.memo[&start])
    }

    /// The misère outcome of the sum of `heaps`.
    pub fn outcome(&mut self, heaps: &[u64], halt: &dyn Fn() -> bool) -> Result<Outcome, SearchStop> {
        Ok(if self.is_p(heaps, halt)? {
            Outcome::Second
        } else {
            Outcome::First
        })
    }
}

/// One heap-by-heap step: the quotient of heaps 0..=m learned from that of heaps below m.
struct Learner<'a> {
    prev: &'a Quotient,
    halt: &'a dyn Fn() -> bool,
    m: u64,
    /// The heaps with a move (heaps without one are the empty game).
    letters: Vec<u64>,
    /// The options of each letter, as lists of letters.
    opts: Vec<Vec<Vec<usize>>>,
    reps: Vec<Vec<u64>>,
    tests: Vec<Vec<u64>>,
    rows: Vec<Vec<u64>>,
    /// The row of each processed state plus each letter: `ext[s * letters + l]`.
    ext: Vec<Vec<u64>>,
    index: HashMap<Vec<u64>, u32, RandomState>,
    delta: Vec<u32>,
    oracle: MisereOracle<'a>,
}

impl<'a> Learner<'a> {
    fn new(prev: &'a Quotient, halt: &'a dyn Fn() -> bool, memo: OracleMemo) -> Learner<'a> {
        let m = prev.heaps + 1;
        let kept = memo.len();
        let rules = &prev.rules;
        let mut letter_of = vec![usize::MAX; m as usize + 1];
        let mut letters = Vec::new();
        for h in 1..=m {
            let mut any = false;
            rules.heap_options(h, |_| any = true);
            if any {
                letter_of[h as usize] = letters.len();
                letters.push(h);
            }
        }
        let opts = letters
            .iter()
            .map(|&h| {
                let mut o = Vec::new();
                rules.heap_options(h, |parts| {
                    o.push(
                        parts
                            .iter()
                            .filter(|&&x| letter_of[x as usize] != usize::MAX)
                            .map(|&x| letter_of[x as usize])
                            .collect::<Vec<usize>>(),
                    );
                });
                o
            })
            .collect();
        let mut tests = prev.tests.clone();
        if tests.first().is_none_or(|t| !t.is_empty()) {
            tests.insert(0, Vec::new());
        }
        Learner {
            prev,
            halt,
            m,
            letters,
            opts,
            reps: Vec::new(),
            tests,
            rows: Vec::new(),
            ext: Vec::new(),
            index: HashMap::default(),
            delta: Vec::new(),
            // The limit counts the states this step keeps, not those it was given.
            oracle: MisereOracle::with_limit(
                MisereOracle::with_memo(prev, memo),
                prev.max_states.saturating_add(kept),
            )
            .with_share(prev.share),
        }
    }

    fn stop(&self, e: SearchStop) -> QuotientError {
        let (reached, order) = (self.prev.heaps, self.prev.order);
        match e {
            SearchStop::Limit(states) => QuotientError::VerifyLimit {
                heap: self.m,
                reached,
                order,
                states,
            },
            SearchStop::Memory => QuotientError::Memory {
                heap: self.m,
                reached,
                order,
                needed: 0,
            },
            SearchStop::Halted => QuotientError::Halted,
        }
    }

    fn cell(&mut self, sum: &[u64], test: &[u64]) -> Result<bool, QuotientError> {
        let mut s = Vec::with_capacity(sum.len() + test.len());
        s.extend_from_slice(sum);
        s.extend_from_slice(test);
        self.oracle.is_p(&s, self.halt).map_err(|e| self.stop(e))
    }

    fn row(&mut self, sum: &[u64]) -> Result<Vec<u64>, QuotientError> {
        let n = self.tests.len();
        let mut bits = vec![0u64; n.div_ceil(64)];
        for t in 0..n {
            let test = self.tests[t].clone();
            if self.cell(sum, &test)? {
                bits[t / 64] |= 1 << (t % 64);
            }
        }
        Ok(bits)
    }

    fn with_letter(&self, s: usize, l: usize) -> Vec<u64> {
        let mut v = self.reps[s].clone();
        v.push(self.letters[l]);
        v.sort_unstable();
        v
    }

    /// The state whose row is `row`, a new one (representative `rep`) when none is.
    fn resolve(&mut self, row: &[u64], rep: Vec<u64>) -> Result<u32, QuotientError> {
        if let Some(&s) = self.index.get(row) {
            return Ok(s);
        }
        if self.reps.len() >= self.prev.max_order {
            return Err(QuotientError::MaxOrder {
                limit: self.prev.max_order,
                heap: self.m,
                reached: self.prev.heaps,
                order: self.prev.order,
            });
        }
        let s = self.reps.len() as u32;
        self.reps.push(rep);
        self.rows.push(row.to_vec());
        self.index.insert(row.to_vec(), s);
        Ok(s)
    }

    /// Closes the table: every state plus every letter has a state, from state `from` on.
    fn close(&mut self, from: usize) -> Result<(), QuotientError> {
        let nl = self.letters.len();
        let mut s = from;
        while s < self.reps.len() {
            if (self.halt)() {
                return Err(QuotientError::Halted);
            }
            if self.prev.share.over() {
                return Err(self.stop(SearchStop::Memory));
            }
            for l in 0..nl {
                let sum = self.with_letter(s, l);
                let row = self.row(&sum)?;
                let t = self.resolve(&row, sum)?;
                self.ext.push(row);
                self.delta.push(t);
            }
            s += 1;
        }
        Ok(())
    }

    fn run_letters(&self, mut s: u32, seq: &[usize]) -> u32 {
        let nl = self.letters.len();
        for &l in seq {
            s = self.delta[s as usize * nl + l];
        }
        s
    }

    fn heaps_of(&self, seq: &[usize]) -> Vec<u64> {
        let mut v: Vec<u64> = seq.iter().map(|&l| self.letters[l]).collect();
        v.sort_unstable();
        v
    }

    /// A sequence of letters whose candidate outcome is wrong, from one where the check
    /// failed (it, or one of its options).
    fn counterexample(&mut self, seq: Vec<usize>) -> Result<Vec<usize>, QuotientError> {
        let mut candidates = vec![seq.clone()];
        for i in 0..seq.len() {
            for y in &self.opts[seq[i]] {
                let mut s = seq[..i].to_vec();
                s.extend_from_slice(y);
                s.extend_from_slice(&seq[i + 1..]);
                candidates.push(s);
            }
        }
        for c in candidates {
            let hyp = self.rows[self.run_letters(0, &c) as usize][0] & 1 == 1;
            let heaps = self.heaps_of(&c);
            if self.cell(&heaps, &[])? != hyp {
                return Ok(c);
            }
        }
        // The check's failure always has a wrong sum among these: never reached.
        Err(QuotientError::VerifyLimit {
            heap: self.m,
            reached: self.prev.heaps,
            order: self.prev.order,
            states: 0,
        })
    }

    /// A new test from a sequence whose candidate outcome is wrong (Rivest and Schapire:
    /// along the sequence, the outcome of the state's representative plus the rest of the
    /// sequence changes somewhere; the rest there tells two merged sums apart).
    fn learn_from(&mut self, seq: &[usize]) -> Result<(), QuotientError> {
        let k = seq.len();
        let f = |me: &mut Self, i: usize| -> Result<bool, QuotientError> {
            let s = me.run_letters(0, &seq[..i]);
            let rep = me.reps[s as usize].clone();
            let rest = me.heaps_of(&seq[i..]);
            me.cell(&rep, &rest)
        };
        let (mut lo, mut hi) = (0, k);
        let flo = f(self, 0)?;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if f(self, mid)? == flo {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let test = self.heaps_of(&seq[lo + 1..]);
        debug_assert!(!self.tests.contains(&test));
        self.tests.push(test.clone());
        let t = self.tests.len() - 1;
        let bit = |bits: &mut Vec<u64>, on: bool| {
            if bits.len() * 64 <= t {
                bits.push(0);
            }
            if on {
                bits[t / 64] |= 1 << (t % 64);
            }
        };
        for s in 0..self.reps.len() {
            let rep = self.reps[s].clone();
            let on = self.cell(&rep, &test)?;
            bit(&mut self.rows[s], on);
        }
        let nl = self.letters.len();
        let processed = self.ext.len() / nl.max(1);
        for s in 0..processed {
            for l in 0..nl {
                let sum = self.with_letter(s, l);
                let on = self.cell(&sum, &test)?;
                bit(&mut self.ext[s * nl + l], on);
            }
        }
        self.index = self
            .rows
            .iter()
            .enumerate()
            .map(|(s, r)| (r.clone(), s as u32))
            .collect();
        for s in 0..processed {
            for l in 0..nl {
                let row = self.ext[s * nl + l].clone();
                let sum = self.with_letter(s, l);
                self.delta[s * nl + l] = self.resolve(&row, sum)?;
            }
        }
        self.close(processed)
    }

    fn run(&mut self) -> Result<Quotient, QuotientError> {
        let prev = self.prev;
        if self.letters.last() != Some(&self.m) {
            // Heap m has no move: it is the empty game.
            let mut q = prev.clone();
            q.push_heap(0);
            return Ok(q);
        }
        let row = self.row(&[])?;
        self.resolve(&row, Vec::new())?;
        self.close(0)?;
        let nl = self.letters.len();
        loop {
            let dfa = Dfa {
                states: self.reps.len(),
                letters: nl,
                delta: self.delta.clone(),
                p: self.rows.iter().map(|r| r[0] & 1 == 1).collect(),
            };
            match walk(
                &dfa,
                &self.opts,
                Mode::Letters,
                prev.max_states,
                &prev.share,
                self.halt,
            ) {
                Walk::Correct => break,
                Walk::Wrong(seq) => {
                    let c = self.counterexample(seq)?;
                    self.learn_from(&c)?;
                }
                Walk::TooLarge(states) => {
                    return Err(QuotientError::VerifyLimit {
                        heap: self.m,
                        reached: prev.heaps,
                        order: prev.order,
                        states,
                    })
                }
                Walk::Halted if (self.halt)() => return Err(QuotientError::Halted),
                Walk::Halted => return Err(self.stop(SearchStop::Memory)),
            }
        }
        // The proven automaton: its states are pairwise told apart (distinct rows), so it
        // is the reduced quotient; a product is the first state run through the letters of
        // the second's representative.
        let k = self.reps.len();
        let needed = (k as u64).pow(2) * 8;
        if needed > prev.share.room() {
            return Err(QuotientError::Memory {
                heap: self.m,
                reached: prev.heaps,
                order: prev.order,
                needed,
            });
        }
        let mut letter_of = vec![usize::MAX; self.m as usize + 1];
        for (l, &h) in self.letters.iter().enumerate() {
            letter_of[h as usize] = l;
        }
        let mut mul = vec![0 as Element; k * k];
        for b in 0..k {
            let seq: Vec<usize> = self.reps[b].iter().map(|&h| letter_of[h as usize]).collect();
            for a in 0..k {
                mul[a * k + b] = self.run_letters(a as u32, &seq);
            }
        }
        let p: Vec<bool> = self.rows.iter().map(|r| r[0] & 1 == 1).collect();
        let heap_elem: Vec<Element> = (0..=self.m as usize)
            .map(|h| match letter_of[h] {
                usize::MAX => 0,
                l => self.delta[l],
            })
            .collect();
        let mut q = canonical(prev.rules.clone(), self.m, &mul, &p, &heap_elem);
        q.orders = prev.orders.clone();
        q.orders.push(q.order);
        q.period = q.find_periodicity();
        q.tests = std::mem::take(&mut self.tests);
        q.inherit(prev);
        Ok(q)
    }
}

const MAGIC: &[u8; 4] = b"GQUO";
const LAYOUT: u32 = 2;

/// FNV-1a, 64 bits: the checksum of a kept quotient.
fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.data.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn len(&mut self, most: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= most).then_some(n)
    }
}

impl Quotient {
    /// The quotient as bytes, for the store: the magic `GQUO`, a layout number, the heaps,
    /// the order, the generators, the table, the P-portion, the words of every element, the heaps'
    /// elements, the order of the quotient of every smaller heap, the relations (all little-endian), then the FNV-1a
    /// checksum of everything before it. The rules are not written: the key names the game.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.mul.len() * 4 + self.heap_elem.len() * 4);
        let u32s = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        out.extend_from_slice(MAGIC);
        u32s(&mut out, LAYOUT);
        out.extend_from_slice(&self.heaps.to_le_bytes());
        u32s(&mut out, self.order as u32);
        u32s(&mut out, self.gens.len() as u32);
        for &g in &self.gens {
            out.extend_from_slice(&g.to_le_bytes());
        }
        for &e in &self.mul {
            u32s(&mut out, e);
        }
        out.extend(self.p.iter().map(|&b| u8::from(b)));
        for w in &self.words {
            for &e in w {
                u32s(&mut out, e);
            }
        }
        for &e in &self.heap_elem {
            u32s(&mut out, e);
        }
        for &o in &self.orders {
            u32s(&mut out, o as u32);
        }
        u32s(&mut out, self.relations.len() as u32);
        for r in &self.relations {
            out.extend_from_slice(&r.heap.to_le_bytes());
            for &e in r.lhs.iter().chain(&r.rhs) {
                u32s(&mut out, e);
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads [`Quotient::to_bytes`] back for `rules`: `None` when the checksum fails or
    /// anything is out of place (a damaged entry is recomputed, never used).
    pub fn from_bytes(rules: HeapRules, bytes: &[u8]) -> Option<Quotient> {
        let (body, sum) = bytes.split_at(bytes.len().checked_sub(8)?);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let mut r = Reader { data: body, at: 0 };
        if r.take(4)? != MAGIC || r.u32()? != LAYOUT {
            return None;
        }
        let heaps = r.u64()?;
        let left = body.len();
        let order = r.len(left / 4)?;
        let ngens = r.len(left / 8)?;
        let gens: Vec<u64> = (0..ngens).map(|_| r.u64()).collect::<Option<_>>()?;
        if order == 0 || order.checked_mul(order)? > left / 4 || heaps as usize > left / 4 {
            return None;
        }
        let ok = |e: u32| (e as usize) < order;
        let mul: Vec<Element> = (0..order * order)
            .map(|_| r.u32().filter(|&e| ok(e)))
            .collect::<Option<_>>()?;
        let p: Vec<bool> = r.take(order)?.iter().map(|&b| b == 1).collect();
        let mut words = Vec::with_capacity(order);
        for _ in 0..order {
            words.push((0..ngens).map(|_| r.u32()).collect::<Option<Vec<_>>>()?);
        }
        let heap_elem: Vec<Element> = (0..=heaps)
            .map(|_| r.u32().filter(|&e| ok(e)))
            .collect::<Option<_>>()?;
        let orders: Vec<usize> = (0..=heaps)
            .map(|_| r.u32().map(|o| o as usize).filter(|&o| o >= 1 && o <= order))
            .collect::<Option<_>>()?;
        if orders.last() != Some(&order) {
            return None;
        }
        let nrel = r.len(left / 4)?;
        let mut relations = Vec::with_capacity(nrel);
        for _ in 0..nrel {
            let heap = r.u64()?;
            let lhs = (0..ngens).map(|_| r.u32()).collect::<Option<Vec<_>>>()?;
            let rhs = (0..ngens).map(|_| r.u32()).collect::<Option<Vec<_>>>()?;
            relations.push(Relation { lhs, rhs, heap });
        }
        if r.at != body.len() || mul[0..order] != (0..order as Element).collect::<Vec<_>>()[..] {
            return None;
        }
        let mut q = Quotient {
            rules,
            heaps,
            order,
            mul,
            p,
            words,
            gens,
            heap_elem,
            relations,
            orders,
            tests: vec![Vec::new()],
            period: None,
            build: None,
            learn_only: false,
            max_order: DEFAULT_MAX_ORDER,
            max_states: DEFAULT_MAX_STATES,
            share: Share::whole(),
        };
        q.period = q.find_periodicity();
        Some(q)
    }
}

/// The CPU time (user and system) the calling thread has used so far, by its own clock
/// (`CLOCK_THREAD_CPUTIME_ID`): what a search and a growth of the quotient on this thread
/// cost, whatever else the machine runs. `None` where that clock cannot be read.
#[allow(unsafe_code)]
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec for the call to write.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc == 0 && ts.tv_sec >= 0 && ts.tv_nsec >= 0 {
            return Some(std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32));
        }
    }
    None
}

/// The name of generator g: `a` to `z`, then `g27`, `g28`, ...
pub fn generator_name(g: usize) -> String {
    if g < 26 {
        ((b'a' + g as u8) as char).to_string()
    } else {
        format!("g{}", g + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rules::fixture_rows;
    use crate::MisereSearch;
    use proptest::prelude::*;

    /// An octal code `0.d1d2...` from its digits after the point.
    pub(crate) fn octal(digits: &[u32]) -> HeapRules {
        let all: Vec<u32> = std::iter::once(0).chain(digits.iter().copied()).collect();
        HeapRules::take_break(&all, &[], 0).unwrap()
    }

    /// The quotient as far as it goes (to `n` at most).
    pub(crate) fn partial(rules: &HeapRules, n: u64) -> Quotient {
        let mut q = Quotient::new(rules.clone()).with_max_states(20_000);
        let _ = q.extend_to(n);
        q
    }

    #[test]
    fn quotient_of_0_75_is_r8() {
        // Plambeck and Siegel (2008): 0.75 has the quotient R8 = <a, b, c | a^2 = 1,
        // b^3 = b, bc = ab, c^2 = b^2>, P-portion {a, b^2}.
        let q = Quotient::build(octal(&[7, 5]), 30, 4096).unwrap();
        assert_eq!(q.order(), 8);
        let names: Vec<String> = q.p_portion().iter().map(|&e| q.element_name(e)).collect();
        assert_eq!(names, ["a", "b^2"]);
        let rel: Vec<String> = q
            .relations()
            .iter()
            .map(|r| format!("{} = {}", q.word_name(&r.lhs), q.word_name(&r.rhs)))
            .collect();
        assert_eq!(rel, ["a^2 = 1", "b^3 = b", "bc = ab", "c^2 = b^2"]);
        let per = q.periodicity().expect("periodic");
        assert_eq!(per.period, 2);
        // Past the heaps computed, by the period.
        assert_eq!(
            q.element_of(1_000_001),
            q.element_of(per.preperiod + 1 + (1_000_000 - per.preperiod) % 2)
        );
    }

    #[test]
    fn the_kept_period_is_the_one_found_anew() {
        // The period is found once per quotient (every lookup past the table needs it):
        // whichever way a quotient is made, it is the one the heaps' elements give.
        for (rules, n) in [(octal(&[7, 5]), 30), (octal(&[3, 1]), 20), (octal(&[7, 7]), 10)] {
            let mut q = Quotient::new(rules.clone());
            assert_eq!(q.periodicity(), q.find_periodicity());
            for m in 1..=n {
                q.extend_to(m).unwrap();
                assert_eq!(q.periodicity(), q.find_periodicity(), "heap {m}");
                let back = Quotient::from_bytes(rules.clone(), &q.to_bytes()).unwrap();
                assert_eq!(back.periodicity(), q.periodicity(), "heap {m}");
            }
            for m in 0..=n {
                let t = q.truncated(m);
                assert_eq!(t.periodicity(), t.find_periodicity(), "truncated to {m}");
            }
        }
        assert!(Quotient::build(octal(&[7, 5]), 30, 4096)
            .unwrap()
            .periodicity()
            .is_some());
    }

    #[test]
    fn kayles_splits_old_elements_past_heap_8() {
        // Kayles: adding heap 9 splits elements of the quotient of heaps up to 8 (the old
        // heap-by-heap extension stopped there); the learned quotient is proven by the check.
        let q = Quotient::build(octal(&[7, 7]), 10, 4096).unwrap();
        assert_eq!(q.heaps(), 10);
        assert_eq!(q.verify(1 << 20, &|| false), Verified::Correct);
        let q8 = q.truncated(8);
        assert_eq!(q8.to_bytes(), partial(&octal(&[7, 7]), 8).to_bytes());
        // Some element of heaps up to 8 splits: the submonoid of those heaps is larger than
        // their own quotient.
        assert!(q.orders()[9] > q.orders()[8]);
        // A wrong P-portion is caught by the check.
        let mut bad = q.clone();
        bad.p[0] = true;
        assert!(matches!(bad.verify(1 << 20, &|| false), Verified::Wrong(_)));
    }

    #[test]
    fn max_order_stops_cleanly() {
        let (q, e) = *Quotient::build(octal(&[7, 5]), 30, 4).unwrap_err();
        assert!(matches!(e, QuotientError::MaxOrder { limit: 4, .. }), "{e}");
        assert!(q.order() <= 4);
        assert_eq!(e.reached(), Some(q.heaps()));
    }

    #[test]
    fn bytes_round_trip_and_damage_is_refused() {
        let q = partial(&octal(&[7, 5]), 12);
        let bytes = q.to_bytes();
        let back = Quotient::from_bytes(q.rules().clone(), &bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        for i in [0, 7, bytes.len() / 2, bytes.len() - 1] {
            let mut d = bytes.clone();
            d[i] ^= 0x10;
            assert!(Quotient::from_bytes(q.rules().clone(), &d).is_none(), "byte {i}");
        }
        assert!(Quotient::from_bytes(q.rules().clone(), &bytes[..bytes.len() - 3]).is_none());
        // A quotient kept in another layout (1: before quotients were learned anew for each
        // heap), its checksum whole, is not read (the caller recomputes it).
        for layout in [1u32, 3] {
            let mut old = bytes[..bytes.len() - 8].to_vec();
            old[4..8].copy_from_slice(&layout.to_le_bytes());
            let sum = fnv1a(&old);
            old.extend_from_slice(&sum.to_le_bytes());
            assert!(
                Quotient::from_bytes(q.rules().clone(), &old).is_none(),
                "layout {layout}"
            );
        }
        // A truncated quotient is the quotient of fewer heaps.
        let small = q.truncated(4);
        assert_eq!(small.to_bytes(), partial(&octal(&[7, 5]), 4).to_bytes());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// A quotient grown with the outcomes a search found (as a solve grows it between
        /// its searches), and after a step stopped midway (its outcomes kept), is the quotient
        /// grown alone, and the memo it leaves answers as the whole-position search does.
        #[test]
        fn growth_with_a_shared_memo_is_the_growth_alone(
            code in 0usize..70,
            base in 0u64..6,
            stop_after in 1usize..400,
            sums in proptest::collection::vec(proptest::collection::vec(0u64..12, 1..5), 20),
        ) {
            let codes = codes();
            let rules = octal(&codes[code % codes.len()]);
            let alone = partial(&rules, base + 3);
            let mut q = partial(&rules, base);
            let mut oracle = MisereOracle::new(&q);
            let mut search = MisereSearch::new(&rules);
            for sum in &sums {
                let nonzero: Vec<u64> = sum.iter().copied().filter(|&h| h > 0).collect();
                let want = search.outcome(&nonzero).unwrap();
                prop_assert_eq!(oracle.outcome(sum, &|| false).unwrap(), want);
            }
            let mut memo = oracle.detach();
            // A step stopped after a few looks at the stop: the quotient stays as it was.
            let asked = std::cell::Cell::new(0usize);
            let stop = || {
                asked.set(asked.get() + 1);
                asked.get() > stop_after
            };
            match q.extend_until_with(base + 3, &stop, &mut memo) {
                Ok(()) => prop_assert_eq!(q.to_bytes(), alone.to_bytes()),
                Err(QuotientError::Halted) => prop_assert!(q.heaps() < base + 3),
                Err(e) => prop_assert!(false, "{e:?}"),
            }
            q.extend_until_with(base + 3, &|| false, &mut memo).unwrap();
            prop_assert_eq!(q.to_bytes(), alone.to_bytes());
            let mut oracle = MisereOracle::with_memo(&q, memo);
            for sum in sums.iter().rev() {
                let bigger: Vec<u64> = sum.iter().map(|&h| h + 3).collect();
                let want = search.outcome(&bigger).unwrap();
                prop_assert_eq!(oracle.outcome(&bigger, &|| false).unwrap(), want, "{:?} {:?}", codes[code % codes.len()], bigger);
            }
        }
    }

    /// Codes for the tests of other modules: digits after the point.
    pub(crate) const CODES_SAMPLE: &[&[u32]] = &[
        &[7, 7],
        &[0, 7],
        &[1, 3, 7],
        &[4, 4],
        &[1, 2, 3],
        &[3, 1, 2],
        &[7, 3, 1],
        &[1, 5, 6],
        &[5, 3, 2],
        &[2, 6, 4],
        &[1, 3, 7],
        &[6],
        &[0, 5, 4],
        &[3, 4],
        &[7, 5],
    ];

    /// Every octal code with one or two digits after the point, and some with three.
    fn codes() -> Vec<Vec<u32>> {
        let mut all = Vec::new();
        for d1 in 0..8 {
            for d2 in 0..8 {
                if d1 != 0 || d2 != 0 {
                    all.push(vec![d1, d2]);
                }
            }
        }
        for c in [[1, 3, 7], [1, 2, 3], [3, 1, 2], [7, 3, 1], [1, 5, 6], [5, 3, 2]] {
            all.push(c.to_vec());
        }
        all
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The quotient's outcomes (as far as it was built and checked) against the
        /// whole-position search, on random sums of 1 to 5 heaps.
        #[test]
        fn outcomes_match_the_whole_position_search(
            code in 0usize..70,
            sums in proptest::collection::vec(proptest::collection::vec(0u64..13, 1..6), 60),
        ) {
            let codes = codes();
            let rules = octal(&codes[code % codes.len()]);
            let q = partial(&rules, 12);
            let mut search = MisereSearch::new(&rules);
            for sum in sums {
                let heaps: Vec<u64> = sum.iter().map(|&h| h % (q.heaps() + 1)).collect();
                let nonzero: Vec<u64> = heaps.iter().copied().filter(|&h| h > 0).collect();
                let want = search.outcome(&nonzero).unwrap();
                prop_assert_eq!(q.outcome(&heaps), Some(want), "{:?} {:?}", codes[code % codes.len()], heaps);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Sums past the quotient, searched with every covered sum a product, against the
        /// whole-position search.
        #[test]
        fn the_oracle_matches_the_whole_position_search(
            code in 0usize..70,
            base in 0u64..7,
            sums in proptest::collection::vec(proptest::collection::vec(0u64..13, 1..5), 40),
        ) {
            let codes = codes();
            let rules = octal(&codes[code % codes.len()]);
            let q = partial(&rules, base);
            let mut oracle = MisereOracle::new(&q);
            let mut search = MisereSearch::new(&rules);
            for sum in &sums {
                let nonzero: Vec<u64> = sum.iter().copied().filter(|&h| h > 0).collect();
                let want = search.outcome(&nonzero).unwrap();
                prop_assert_eq!(oracle.outcome(sum, &|| false).unwrap(), want, "{:?} {:?}", codes[code % codes.len()], sum);
            }
            // What it found goes on with a larger quotient of the same game (as a solve does
            // once it has grown the quotient).
            let larger = partial(&rules, base + 3);
            let mut oracle = MisereOracle::with_memo(&larger, oracle.detach());
            for sum in sums.iter().rev() {
                let nonzero: Vec<u64> = sum.iter().copied().filter(|&h| h > 0).collect();
                let want = search.outcome(&nonzero).unwrap();
                prop_assert_eq!(oracle.outcome(sum, &|| false).unwrap(), want, "{:?} {:?}", codes[code % codes.len()], sum);
            }
        }
    }

    /// A code of the data file: `0.` then octal digits, the last block in brackets repeating.
    fn read_code(code: &str) -> HeapRules {
        let body = code.strip_prefix("0.").unwrap();
        let repeat = body.find('[').map_or(0, |i| body.len() - i - 2);
        let digits: Vec<u32> = std::iter::once(0)
            .chain(body.chars().filter_map(|c| c.to_digit(8)))
            .collect();
        HeapRules::take_break(&digits, &[], repeat).unwrap()
    }

    #[test]
    fn published_quotients() {
        let mut rows = 0;
        for line in &fixture_rows("misere-quotients.tsv") {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 7, "{line}");
            let rules = read_code(f[0]);
            let heaps: u64 = f[1].parse().unwrap();
            match f[5] {
                "reproduced" => {
                    let q = Quotient::build(rules, heaps, 4096).unwrap();
                    assert_eq!(q.order().to_string(), f[2], "{line}");
                    let p: Vec<String> = q.p_portion().iter().map(|&e| q.element_name(e)).collect();
                    assert_eq!(p.join(","), f[3], "{line}");
                    let rel: Vec<String> = q
                        .relations()
                        .iter()
                        .map(|r| format!("{} = {}", q.word_name(&r.lhs), q.word_name(&r.rhs)))
                        .collect();
                    assert_eq!(rel.join(", "), f[4], "{line}");
                }
                "order" => {
                    let q = Quotient::build(rules, heaps, 4096).unwrap();
                    assert_eq!(q.order().to_string(), f[2], "{line}");
                    assert_eq!(q.p_portion().len().to_string(), f[3], "{line}");
                }
                "recorded" => {
                    // Published, not yet reached by this engine within a test's time: only
                    // the row's form is checked (the order is a number).
                    assert!(f[2].parse::<usize>().is_ok(), "{line}");
                }
                other => panic!("unknown status {other}"),
            }
            rows += 1;
        }
        assert!(rows >= 4);
    }

    /// The quotients of every octal code 0.d1d2 and 0.d1d2d3 agree with those of MisereSolver,
    /// Plambeck and Siegel's program (tests/data/quotients-miseresolver.tsv, made by
    /// tests/data/miseresolver/run.sh from CGSuite's copy of it): the order of the quotient
    /// of heaps 0..=m and the size of its P-portion at every heap m it reached (to 30 at
    /// most, its order at most 5000), 504 codes, 12 442 heaps. This engine reaches every
    /// row but the one past its default limit on the order (4096), each heap by algebra
    /// (never falling back to the search).
    #[test]
    fn quotients_agree_with_miseresolver() {
        let lines = fixture_rows("quotients-miseresolver.tsv");
        // code -> [(order, P-portion size)] by heap.
        let mut theirs: std::collections::BTreeMap<&str, Vec<(usize, usize)>> = Default::default();
        for line in &lines {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "{line}");
            let heap: usize = f[1].parse().unwrap();
            let rows = theirs.entry(f[0]).or_insert_with(|| vec![(1, 0)]);
            assert_eq!(
                rows.len(),
                heap,
                "{line}: the heaps of a code follow each other from 1"
            );
            rows.push((f[2].parse().unwrap(), f[3].parse().unwrap()));
        }
        assert!(theirs.len() >= 500, "{} codes", theirs.len());
        let mut compared = 0;
        for (code, rows) in &theirs {
            let mut q = Quotient::new(read_code(code));
            for (m, &(order, portion)) in rows.iter().enumerate().skip(1) {
                // Built by algebra at every heap: the learner is never needed here.
                match build::step(&mut q, &|| false) {
                    Ok(true) => {}
                    Ok(false) => panic!("{code} heap {m}: the construction by algebra gave up"),
                    Err(QuotientError::MaxOrder { .. }) if order > DEFAULT_MAX_ORDER => break,
                    Err(e) => panic!("{code} heap {m}: {e}"),
                }
                assert_eq!(
                    (q.order(), q.p_portion().len()),
                    (order, portion),
                    "{code}: the order and P-portion of the quotient of heaps 0..={m}"
                );
                compared += 1;
            }
        }
        assert!(compared >= 12_441, "{compared} heaps compared");
    }

    /// MisereSolver's quotients of heaps 0..=50 (tests/data/quotients-miseresolver-50.tsv: the
    /// 213 codes it brought to heap 50 in 1 s each): the same order and P-portion size.
    #[test]
    fn quotients_to_heap_50_agree_with_miseresolver() {
        let mut compared = 0;
        for line in &fixture_rows("quotients-miseresolver-50.tsv") {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "{line}");
            let heaps: u64 = f[1].parse().unwrap();
            let q = Quotient::build(read_code(f[0]), heaps, DEFAULT_MAX_ORDER)
                .unwrap_or_else(|e| panic!("{line}: {}", e.1));
            assert_eq!(
                (q.order().to_string(), q.p_portion().len().to_string()),
                (f[2].to_string(), f[3].to_string()),
                "{line}"
            );
            compared += 1;
        }
        assert!(compared >= 213, "{compared} codes compared");
    }

    /// The quotients built from the one before by algebra are those learned by search, to
    /// the presentation: every code of `codes()`, each heap the search reaches within 20 000
    /// states a step (to 14 at most).
    #[test]
    fn built_and_learned_quotients_are_one() {
        let mut compared = 0;
        for code in codes() {
            let rules = octal(&code);
            let mut learned = Quotient::new(rules.clone()).learning().with_max_states(20_000);
            let mut built = Quotient::new(rules);
            for m in 1..=14 {
                if learned.extend_to(m).is_err() {
                    break;
                }
                built.extend_to(m).unwrap();
                assert_eq!(built.to_bytes(), learned.to_bytes(), "{code:?} heap {m}");
                assert_eq!(built.orders(), learned.orders(), "{code:?} heap {m}");
                compared += 1;
            }
        }
        assert!(compared >= 800, "{compared} heaps compared");
    }

    /// Plambeck and Siegel (2008): every misère quotient of a set of games that holds a
    /// nonzero game has even order (as stated by Rubinstein-Salzedo and Zhou, arXiv
    /// 2603.18244). Quotients of heaps up to 8 of every code of `codes()`; those that stop at
    /// their state limit are checked as far as they reached.
    #[test]
    fn every_quotient_of_a_nonzero_game_has_even_order() {
        let mut checked = 0;
        for code in codes() {
            let q = partial(&octal(&code), 8);
            if q.heaps() == 0 {
                continue;
            }
            let one = q.element_of_sum(&[]).unwrap();
            if q.heap_elements().iter().all(|&e| e == one) {
                // Only heaps without a move so far: the quotient of the zero game.
                assert_eq!(q.order(), 1, "{code:?}");
                continue;
            }
            assert_eq!(q.order() % 2, 0, "{code:?}: order {}", q.order());
            checked += 1;
        }
        assert!(checked >= 60, "only {checked} quotients checked");
    }

    #[test]
    fn subtraction_games() {
        for set in [
            vec![1, 2],
            vec![1, 3],
            vec![2, 3],
            vec![1, 2, 3],
            vec![1, 4],
            vec![2, 5],
        ] {
            let rules = HeapRules::Subtraction(set.clone());
            let q = partial(&rules, 14);
            let mut search = MisereSearch::new(&rules);
            let n = q.heaps();
            for a in 1..=n {
                for b in a..=n {
                    for c in [0, 1, 2, n] {
                        let heaps: Vec<u64> = [a, b, c].into_iter().filter(|&h| h > 0).collect();
                        assert_eq!(
                            q.outcome(&heaps),
                            Some(search.outcome(&heaps).unwrap()),
                            "{set:?} {heaps:?}"
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod explore {
    use super::*;

    /// The orders of the quotients of heaps up to N, with the time of each step:
    /// `GRUNDY_Q_CODE=0.77 GRUNDY_Q_N=20 cargo test -p grundy-solve --lib explore -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn orders_report() {
        let code = std::env::var("GRUNDY_Q_CODE").unwrap_or_else(|_| "0.77".into());
        let n: u64 = std::env::var("GRUNDY_Q_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(12);
        let digits: Vec<u32> = std::iter::once(0)
            .chain(
                code.trim_start_matches("0.")
                    .chars()
                    .filter_map(|c| c.to_digit(8)),
            )
            .collect();
        let rules = HeapRules::take_break(&digits, &[], 0).unwrap();
        let mut q = Quotient::new(rules).with_max_order(1 << 16);
        let start = std::time::Instant::now();
        for h in 1..=n {
            let t = std::time::Instant::now();
            if let Err(e) = q.extend_to(h) {
                println!("{code} heap {h}: {e}");
                break;
            }
            println!(
                "{code} heap {h}: order {} P {} tests {} ({:.2?}, total {:.2?})",
                q.order(),
                q.p_portion().len(),
                q.tests.len(),
                t.elapsed(),
                start.elapsed()
            );
        }
    }
}
