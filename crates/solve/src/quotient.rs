//! Misère quotients of heap games (after Plambeck and Siegel, "Misère quotients for impartial
//! games", JCTA 2008): the finite commutative monoid that the sums of heaps 0..=N of a game
//! fall into when positions that no sum of such heaps tells apart are identified, with its
//! P-portion (the elements that are misère P-positions). A sum's outcome is then a product in
//! the monoid and a lookup.
//!
//! The construction adds heaps one at a time. With the quotient Q of heaps below n known
//! (its multiplication table, P-portion, and for each element a representative sum of heaps
//! and the elements of that sum's options), heap n is a new letter x: the outcome of
//! `q·x^k` (a representative of q plus k heaps of n) is computed for every q and k = 0, 1, ...
//! from the options of the representative (`q'·x^k`) and of the heaps of n (`q·y·x^(k−1)`,
//! y an option of heap n), until a column of outcomes repeats (`x^(i+p) = x^i`). Two pairs
//! `q·x^k` and `q'·x^k'` are the same element when every product with any `r·x^j` has the same
//! outcome; the classes are the elements of the new quotient, relations are read off them.
//! The representatives are the least sums (comparing heap sizes from the largest down) of
//! their classes, so an option's representative is always an earlier element: the element
//! numbers are that order, and every computation runs through them in it.
//!
//! The quotient of the smaller heaps need not carry over to the larger ones (a heap may tell
//! apart sums that no smaller heap does): every step is therefore checked
//! ([`Quotient::verify`]: every sum of the heaps covered gets its true outcome), and a step
//! that fails the check stops the construction with [`QuotientError::Unverified`] rather than
//! give a wrong monoid. Splitting the old elements there (as Siegel's MisereSolver does) is
//! not done yet.

use foldhash::fast::RandomState;
use grundy_core::memory::Share;
use grundy_core::{HeapRules, Outcome};
use hashbrown::HashMap;

/// An element of a quotient: its number (0 is the identity, the empty sum).
pub type Element = u32;

/// Why a quotient could not be extended.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuotientError {
    /// The next heap would make the quotient larger than the limit.
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
    #[error("the quotient to heap {heap} needs more memory than is left ({needed} bytes); it was complete to heap {reached}, order {order} (raise --memory-budget)")]
    Memory {
        /// The heap that would pass it.
        heap: u64,
        /// The largest heap the quotient covers.
        reached: u64,
        /// Its order then.
        order: usize,
        /// Bytes the next step needs.
        needed: u64,
    },
    /// The heap-by-heap construction gave a monoid that fails the check of every sum
    /// ([`Quotient::verify`]): the quotient of the smaller heaps does not carry over.
    #[error("the heap-by-heap construction fails its check at heap {heap} (the sum of heaps {word:?} gets a wrong outcome: the quotient of the smaller heaps does not carry over, and this engine does not yet split its elements); it is proven correct to heap {reached}, order {order}")]
    Unverified {
        /// The heap.
        heap: u64,
        /// The largest heap the quotient covers.
        reached: u64,
        /// Its order then.
        order: usize,
        /// A sum whose outcome the candidate gets wrong.
        word: Vec<u64>,
    },
    /// The check of the next heap would pass its limit of states.
    #[error("the check of the quotient to heap {heap} passed {states} states; it is proven correct to heap {reached}, order {order}")]
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
            | QuotientError::Unverified { reached, .. }
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
    /// The heap whose generator the relation was found with.
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
    /// The elements of the options of each element's representative, sorted.
    opts: Vec<Vec<Element>>,
    /// The canonical word of each element: the exponent of every generator.
    words: Vec<Vec<u32>>,
    /// The heap of each generator.
    gens: Vec<u64>,
    heap_elem: Vec<Element>,
    relations: Vec<Relation>,
    /// The last heap that added elements (0: none yet).
    last_growth: u64,
    max_order: usize,
    max_states: usize,
    share: Share,
}

/// Default limit on the states of the check of a quotient ([`Quotient::verify`]).
pub const DEFAULT_MAX_STATES: usize = 1_000_000;

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
            opts: vec![Vec::new()],
            words: vec![Vec::new()],
            gens: Vec::new(),
            heap_elem: vec![0],
            relations: Vec::new(),
            last_growth: 0,
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

    /// The relations found, in the order found.
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

    /// The last heap that added elements (0 when none has).
    pub fn last_growth(&self) -> u64 {
        self.last_growth
    }

    /// The elements of the options of an element's representative (the least sum of heaps
    /// in its class).
    pub fn options(&self, a: Element) -> &[Element] {
        &self.opts[a as usize]
    }

    /// The periodicity of the heaps' elements proven by the misère periodicity theorem
    /// (Plambeck and Siegel): for an octal game (finitely many digits, at most two heaps
    /// left by a move) or a finite subtraction game with t the most tokens a move removes,
    /// when the quotient of heaps up to 2·n0 + 2p + t has no element that the quotient of
    /// heaps up to n0 + p + t lacks, and Φ(n + p) = Φ(n) for n0 ≤ n < n0 + p + t (Φ(n) the
    /// element of heap n), then Φ(n + p) = Φ(n) for every n ≥ n0 and the quotient is that of
    /// heaps up to n0 + p + t. Two readings of the theorem's bounds are in circulation, so
    /// this asks for both at once, which is more than either: every heap up to 2·n0 + 2p + t
    /// computed, no element added after heap n0 + p + t, and Φ(n + p) = Φ(n) for every
    /// n ≥ n0 computed. The least such (n0 + p, then p) within the heaps computed.
    pub fn periodicity(&self) -> Option<Periodicity> {
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
        // n0 + p + t ≤ 2·n0 + 2p + t ≤ n.
        for span in 1..=n {
            for p in 1..=span {
                let n0 = span - p;
                if 2 * n0 + 2 * p + t > n {
                    continue;
                }
                if self.last_growth > n0 + p + t {
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
    pub fn extend_until(&mut self, n: u64, halt: &dyn Fn() -> bool) -> Result<(), QuotientError> {
        while self.heaps < n {
            if halt() {
                return Err(QuotientError::Halted);
            }
            let mut next = self.clone();
            next.add_heap(halt)?;
            match next.verify(self.max_states, halt) {
                Verified::Correct => *self = next,
                Verified::Wrong(word) => {
                    return Err(QuotientError::Unverified {
                        heap: next.heaps,
                        reached: self.heaps,
                        order: self.order,
                        word,
                    })
                }
                Verified::TooLarge(states) => {
                    return Err(QuotientError::VerifyLimit {
                        heap: next.heaps,
                        reached: self.heaps,
                        order: self.order,
                        states,
                    })
                }
                Verified::Halted => return Err(QuotientError::Halted),
            }
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
        let m = self.order;
        let words = m.div_ceil(64);
        // One letter for each distinct (element, option elements) of heaps with a move.
        let mut letters: Vec<(Element, Vec<Element>, u64)> = Vec::new();
        for h in 1..=self.heaps {
            let ys = self.heap_option_elements(h);
            if ys.is_empty() {
                continue;
            }
            let e = self.heap_elem[h as usize];
            if !letters.iter().any(|(f, o, _)| *f == e && *o == ys) {
                letters.push((e, ys, h));
            }
        }
        let mut pbits = vec![0u64; words];
        for (a, &p) in self.p.iter().enumerate() {
            if p {
                pbits[a / 64] |= 1 << (a % 64);
            }
        }
        type Key = (Element, Vec<u64>);
        let mut seen: HashMap<Key, (usize, usize), RandomState> = HashMap::default();
        let mut order: Vec<Key> = Vec::new();
        let start: Key = (0, vec![0u64; words]);
        seen.insert(start.clone(), (usize::MAX, 0));
        order.push(start);
        let mut at = 0;
        while at < order.len() {
            if at.is_multiple_of(4096) && (halt() || self.share.over()) {
                return Verified::Halted;
            }
            let (e, w) = order[at].clone();
            let has_options = w.iter().any(|&x| x != 0);
            let all_n = w.iter().zip(&pbits).all(|(a, b)| a & b == 0);
            if self.p[e as usize] != (has_options && all_n) {
                // The sum that reached this state.
                let mut word = Vec::new();
                let mut i = at;
                while i != 0 {
                    let (parent, letter) = seen[&order[i]];
                    word.push(letters[letter].2);
                    i = parent;
                }
                word.sort_unstable();
                return Verified::Wrong(word);
            }
            for (li, (f, ys, _)) in letters.iter().enumerate() {
                let mut next = vec![0u64; words];
                for (wi, &bits) in w.iter().enumerate() {
                    let mut b = bits;
                    while b != 0 {
                        let a = wi * 64 + b.trailing_zeros() as usize;
                        b &= b - 1;
                        let x = self.mul(a as Element, *f) as usize;
                        next[x / 64] |= 1 << (x % 64);
                    }
                }
                for &y in ys {
                    let x = self.mul(e, y) as usize;
                    next[x / 64] |= 1 << (x % 64);
                }
                let key = (self.mul(e, *f), next);
                if !seen.contains_key(&key) {
                    if seen.len() >= max_states {
                        return Verified::TooLarge(seen.len());
                    }
                    seen.insert(key.clone(), (at, li));
                    order.push(key);
                }
            }
            at += 1;
        }
        Verified::Correct
    }

    /// The quotient of heaps 0..=n (n at most [`Quotient::heaps`]): the elements of a smaller
    /// quotient are the first ones of a larger (elements are numbered in the order of their
    /// least sums), so it is read off this one.
    pub fn truncated(&self, n: u64) -> Quotient {
        if n >= self.heaps {
            return self.clone();
        }
        let ngens = self.gens.iter().filter(|&&g| g <= n).count();
        let order = self
            .words
            .iter()
            .filter(|w| w[ngens..].iter().all(|&e| e == 0))
            .count();
        let mut mul = Vec::with_capacity(order * order);
        for a in 0..order {
            mul.extend_from_slice(&self.mul[a * self.order..a * self.order + order]);
        }
        Quotient {
            rules: self.rules.clone(),
            heaps: n,
            order,
            mul,
            p: self.p[..order].to_vec(),
            opts: self.opts[..order].to_vec(),
            words: self.words[..order].iter().map(|w| w[..ngens].to_vec()).collect(),
            gens: self.gens[..ngens].to_vec(),
            heap_elem: self.heap_elem[..=n as usize].to_vec(),
            relations: self
                .relations
                .iter()
                .filter(|r| r.heap <= n)
                .map(|r| Relation {
                    lhs: r.lhs[..ngens].to_vec(),
                    rhs: r.rhs[..ngens].to_vec(),
                    heap: r.heap,
                })
                .collect(),
            last_growth: self.gens[..ngens].last().copied().unwrap_or(0),
            max_order: self.max_order,
            max_states: self.max_states,
            share: self.share,
        }
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

    fn add_heap(&mut self, halt: &dyn Fn() -> bool) -> Result<(), QuotientError> {
        let n = self.heaps + 1;
        let m = self.order;
        let ys = self.heap_option_elements(n);
        if ys.is_empty() {
            // A heap with no move is the empty game.
            self.heap_elem.push(0);
            self.heaps = n;
            return Ok(());
        }
        let stop = |q: &Quotient| -> Result<(), QuotientError> {
            if halt() {
                return Err(QuotientError::Halted);
            }
            if q.share.over() {
                return Err(QuotientError::Memory {
                    heap: n,
                    reached: q.heaps,
                    order: q.order,
                    needed: 0,
                });
            }
            Ok(())
        };
        // Columns: cols[k][q] = whether q·x^k is a P-position, until one repeats.
        let mut cols: Vec<Vec<bool>> = vec![self.p.clone()];
        let mut seen: HashMap<Vec<bool>, usize, RandomState> = HashMap::default();
        seen.insert(self.p.clone(), 0);
        let (first, period) = loop {
            let prev = cols.last().expect("column 0");
            let mut col = vec![false; m];
            for q in 0..m {
                let own = self.opts[q].iter().all(|&o| !col[o as usize]);
                col[q] = own && ys.iter().all(|&y| !prev[self.mul(q as Element, y) as usize]);
            }
            let k = cols.len();
            if let Some(&i) = seen.get(&col) {
                break (i, k - i);
            }
            if k > self.max_order {
                return Err(QuotientError::MaxOrder {
                    limit: self.max_order,
                    heap: n,
                    reached: self.heaps,
                    order: self.order,
                });
            }
            seen.insert(col.clone(), k);
            cols.push(col);
            if k.is_multiple_of(64) {
                stop(self)?;
            }
        };
        drop(seen);
        let c = first + period; // columns 0..c, x^c = x^first
        let red = |k: usize| if k < c { k } else { first + (k - first) % period };
        // Memory of the next steps: behaviours of the class representatives, the new table.
        let bits = m * c;
        let words_per = bits.div_ceil(64);
        let est_new = (m * c).min(self.max_order + 1);
        let needed = (est_new as u64).pow(2) * 4 + (est_new * words_per * 8) as u64 + (m * c * 4) as u64;
        if needed > self.share.room() {
            return Err(QuotientError::Memory {
                heap: n,
                reached: self.heaps,
                order: self.order,
                needed,
            });
        }
        // Classes of pairs (q, k), k < c, by behaviour: for every r and j, whether
        // q·r·x^(k+j) is a P-position.
        let mut class_of: Vec<Element> = vec![0; m * c];
        let mut canon: Vec<(Element, usize)> = Vec::new();
        let mut by_behaviour: HashMap<Vec<u64>, Element, RandomState> = HashMap::default();
        let mut b = vec![0u64; words_per];
        for k in 0..c {
            for q in 0..m {
                b.iter_mut().for_each(|w| *w = 0);
                for j in 0..c {
                    let col = &cols[red(k + j)];
                    let row = &self.mul[q * m..q * m + m];
                    for (r, &qr) in row.iter().enumerate() {
                        if col[qr as usize] {
                            let bit = j * m + r;
                            b[bit / 64] |= 1 << (bit % 64);
                        }
                    }
                }
                let next = canon.len() as Element;
                let id = *by_behaviour.entry(b.clone()).or_insert(next);
                if id == next {
                    if canon.len() >= self.max_order {
                        return Err(QuotientError::MaxOrder {
                            limit: self.max_order,
                            heap: n,
                            reached: self.heaps,
                            order: self.order,
                        });
                    }
                    canon.push((q as Element, k));
                }
                class_of[q * c + k] = id;
            }
            if k.is_multiple_of(8) {
                stop(self)?;
            }
        }
        drop(by_behaviour);
        // Pairs with k = 0 are the old elements, each its own class (the old quotient is
        // reduced), numbered as before.
        debug_assert!((0..m).all(|q| class_of[q * c] == q as Element));
        let new_order = canon.len();
        let cls = |q: Element, k: usize| class_of[q as usize * c + red(k)];
        self.heaps = n;
        if new_order == m {
            self.heap_elem.push(cls(0, 1));
            return Ok(());
        }
        // A new generator x.
        let g = self.gens.len();
        self.gens.push(n);
        for w in &mut self.words {
            w.push(0);
        }
        for r in &mut self.relations {
            r.lhs.push(0);
            r.rhs.push(0);
        }
        let mut mul = vec![0 as Element; new_order * new_order];
        for a in 0..new_order {
            let (qa, ka) = canon[a];
            for bb in 0..new_order {
                let (qb, kb) = canon[bb];
                mul[a * new_order + bb] = cls(self.mul(qa, qb), ka + kb);
            }
        }
        let mut p = self.p.clone();
        let mut opts = std::mem::take(&mut self.opts);
        let mut words = std::mem::take(&mut self.words);
        for &(q, k) in &canon[m..] {
            p.push(cols[k][q as usize]);
            let mut o: Vec<Element> = opts[q as usize].iter().map(|&o| cls(o, k)).collect();
            o.extend(ys.iter().map(|&y| cls(self.mul(q, y), k - 1)));
            o.sort_unstable();
            o.dedup();
            opts.push(o);
            let mut w = words[q as usize].clone();
            w[g] += k as u32;
            words.push(w);
        }
        // Relations: pairs (q, k), 1 ≤ k ≤ c, in order, each not yet implied by those before
        // (the congruence they generate, followed within k ≤ c) equated to its class's first.
        let t = c + 1;
        let idx = |q: Element, k: usize| q as usize * t + k;
        let mut uf = UnionFind::new(m * t);
        let mut relations = Vec::new();
        for k in 1..=c {
            for q in 0..m as Element {
                let target = cls(q, k);
                let (cq, ck) = canon[target as usize];
                if uf.find(idx(q, k)) == uf.find(idx(cq, ck)) {
                    continue;
                }
                let mut lhs = words[q as usize].clone();
                lhs[g] += k as u32;
                relations.push(Relation {
                    lhs,
                    rhs: words[target as usize].clone(),
                    heap: n,
                });
                for j in 0..=c - k.max(ck) {
                    for r in 0..m as Element {
                        let a = idx(self.mul(q, r), k + j);
                        let bb = idx(self.mul(cq, r), ck + j);
                        uf.union(a, bb);
                    }
                }
            }
        }
        self.relations.extend(relations);
        self.mul = mul;
        self.order = new_order;
        self.p = p;
        self.opts = opts;
        self.words = words;
        self.heap_elem.push(cls(0, 1));
        self.last_growth = n;
        Ok(())
    }
}

const MAGIC: &[u8; 4] = b"GQUO";
const LAYOUT: u32 = 1;

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
    /// the order, the generators, the table, the P-portion, the options and words of every
    /// element, the heaps' elements, the relations (all little-endian), then the FNV-1a
    /// checksum of everything before it. The rules are not written: the key names the game.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.mul.len() * 4 + self.heap_elem.len() * 4);
        let u32s = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        out.extend_from_slice(MAGIC);
        u32s(&mut out, LAYOUT);
        out.extend_from_slice(&self.heaps.to_le_bytes());
        out.extend_from_slice(&self.last_growth.to_le_bytes());
        u32s(&mut out, self.order as u32);
        u32s(&mut out, self.gens.len() as u32);
        for &g in &self.gens {
            out.extend_from_slice(&g.to_le_bytes());
        }
        for &e in &self.mul {
            u32s(&mut out, e);
        }
        out.extend(self.p.iter().map(|&b| u8::from(b)));
        for o in &self.opts {
            u32s(&mut out, o.len() as u32);
            for &e in o {
                u32s(&mut out, e);
            }
        }
        for w in &self.words {
            for &e in w {
                u32s(&mut out, e);
            }
        }
        for &e in &self.heap_elem {
            u32s(&mut out, e);
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
        let last_growth = r.u64()?;
        let left = body.len();
        let order = r.len(left / 4)?;
        let ngens = r.len(left / 8)?;
        let gens: Vec<u64> = (0..ngens).map(|_| r.u64()).collect::<Option<_>>()?;
        if order == 0
            || order.checked_mul(order)? > left / 4
            || heaps as usize > left / 4
            || last_growth > heaps
        {
            return None;
        }
        let ok = |e: u32| (e as usize) < order;
        let mul: Vec<Element> = (0..order * order)
            .map(|_| r.u32().filter(|&e| ok(e)))
            .collect::<Option<_>>()?;
        let p: Vec<bool> = r.take(order)?.iter().map(|&b| b == 1).collect();
        let mut opts = Vec::with_capacity(order);
        for _ in 0..order {
            let n = r.len(left / 4)?;
            opts.push(
                (0..n)
                    .map(|_| r.u32().filter(|&e| ok(e)))
                    .collect::<Option<Vec<_>>>()?,
            );
        }
        let mut words = Vec::with_capacity(order);
        for _ in 0..order {
            words.push((0..ngens).map(|_| r.u32()).collect::<Option<Vec<_>>>()?);
        }
        let heap_elem: Vec<Element> = (0..=heaps)
            .map(|_| r.u32().filter(|&e| ok(e)))
            .collect::<Option<_>>()?;
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
        Some(Quotient {
            rules,
            heaps,
            order,
            mul,
            p,
            opts,
            words,
            gens,
            heap_elem,
            relations,
            last_growth,
            max_order: DEFAULT_MAX_ORDER,
            max_states: DEFAULT_MAX_STATES,
            share: Share::whole(),
        })
    }
}

/// The name of generator g: `a` to `z`, then `g27`, `g28`, ...
pub fn generator_name(g: usize) -> String {
    if g < 26 {
        ((b'a' + g as u8) as char).to_string()
    } else {
        format!("g{}", g + 1)
    }
}

struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }

    fn find(&mut self, mut a: usize) -> usize {
        while self.parent[a] as usize != a {
            let up = self.parent[self.parent[a] as usize];
            self.parent[a] = up;
            a = up as usize;
        }
        a
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            self.parent[hi] = lo as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MisereSearch;
    use proptest::prelude::*;

    /// An octal code `0.d1d2...` from its digits after the point.
    fn octal(digits: &[u32]) -> HeapRules {
        let all: Vec<u32> = std::iter::once(0).chain(digits.iter().copied()).collect();
        HeapRules::take_break(&all, &[], 0).unwrap()
    }

    /// The quotient as far as it goes (to `n` at most).
    fn partial(rules: &HeapRules, n: u64) -> Quotient {
        Quotient::build(rules.clone(), n, 4096).unwrap_or_else(|b| b.0)
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
    fn a_failed_step_stops_and_keeps_the_last_checked_quotient() {
        // Kayles: the quotient of heaps up to 8 does not carry over to heap 9.
        let (q, e) = *Quotient::build(octal(&[7, 7]), 20, 4096).unwrap_err();
        assert!(matches!(e, QuotientError::Unverified { heap: 9, .. }), "{e}");
        assert_eq!(q.heaps(), 8);
        assert_eq!(q.verify(1 << 20, &|| false), Verified::Correct);
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
        // A truncated quotient is the quotient of fewer heaps.
        let small = q.truncated(4);
        assert_eq!(small.to_bytes(), partial(&octal(&[7, 5]), 4).to_bytes());
    }

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
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/misere-quotients.tsv"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut rows = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
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
                "refused" => {
                    let (q, e) = *Quotient::build(rules, heaps, 4096).unwrap_err();
                    assert!(q.heaps() < heaps, "{line}: {e}");
                }
                other => panic!("unknown status {other}"),
            }
            rows += 1;
        }
        assert!(rows >= 4);
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
