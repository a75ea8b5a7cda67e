//! Grundy values by pruned search (after Lemoine and Viennot): the value of a component `C`
//! is the least `m` for which `C + *m` is a second-player win, and whether a sum is a
//! second-player win is decided by a search that stops at the first winning move — so most
//! options are never valued exactly, unlike in [`GrundyMemo`](crate::GrundyMemo), which
//! values every option of every component it meets.
//!
//! A query is "is `C + *n` lost for the player to move?" for one canonical component `C`.
//! An option of `C` is a sum of parts; all parts but the largest are folded into the nimber
//! (their exact values are computed, and they are small), and equal parts cancel in pairs;
//! the largest part is queried again. A "yes" is the exact value of `C`, which answers every
//! later query on `C`; a "no" is remembered for `(C, n)`. Both go to one word per component
//! (its value, and the "no" answers for `n` below 32 as bits), kept in a compact table for
//! components with a one-word code ([`Ruleset::code`]) and in a hash map for the others.
//! Every option is checked against the tables as the options are listed (enhanced
//! transposition cut-off): one known lost answers the query at once and the rest are never
//! worked out ([`Ruleset::options_until`]); those known won are left out of the search.
//! For options with a code, a small filter of the values the compact table holds
//! (`value_filter.rs`) is asked first, so that most options cost no look-up in the table while
//! they are listed (those the filter rules out are looked up later, if the frame is still
//! searched).
//! The search is iterative: an explicit stack of frames, none on the call stack.

use crate::analysis::{Analysis, MoveReport};
use crate::code_table::{CodeTable, Word, ELSEWHERE, NOTHING, UNKNOWN, WEIGHT, WON_BITS};
use crate::search_parallel::SharedTable;
use crate::value_filter::ValueFilter;
use crate::SolveError;
use foldhash::fast::RandomState;
use grundy_core::{Game, MexSet, Nimber, Outcome, Ruleset};
use hashbrown::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// Answers that took at least this many search nodes go to the table shared between threads
/// (cheaper ones are worked out again by the thread that needs them).
pub(crate) const PUBLISH_WORK: u64 = 2;

/// Most frames on the search stack. The search needs acyclic rules (all built-in families
/// are); a cycle, or a game deeper than this, stops with [`SolveError::Cycle`].
pub const MAX_DEPTH: usize = 1 << 20;

/// How far the table of an [`analyze_normal`] grows at the first full bucket: the analysis
/// searches every move, and spends the memory.
pub(crate) const ANALYSIS_FREE_BYTES: usize = 1 << 20;

/// What the tables know of one component, in one word: the low 24 bits hold its Grundy
/// value (or [`UNKNOWN`], or [`ELSEWHERE`] for a value too large for the table, kept in
/// [`NimberSearch::big_values`]); the next 8 the [`WEIGHT`] of the work its answers took;
/// bit `32 + n` of the high half is set when `C + *n` is known to be won for the player to
/// move (for `n` below what the table keeps, [`CodeTable::won_bits`]; the others are in
/// [`NimberSearch::won_high`]).
type Known = Word;

/// How much a word is worth keeping when its slot is wanted: an exact value first, then the
/// work its answers took. (Measured on Cram 5×7 with the table held at 512 KiB: 0.73 s;
/// by the exact value alone 0.76 s, by the work alone 0.95 s, by component size 1.8 s.)
fn worth(w: Known) -> u64 {
    let valued = (w & UNKNOWN != UNKNOWN) as u64;
    valued << 8 | (w & WEIGHT) >> 24
}

/// What a frame is working out.
enum Goal {
    /// Whether `component + *n` is lost for the player to move.
    Lost,
    /// The exact Grundy value of `component`, as the least `m` with `component + *m` lost.
    Value,
    /// The exact Grundy value of `component`, as the mex of the values of all its options
    /// (cheaper than [`Goal::Value`] for small components, whose options are cheap).
    Mex,
}

struct Frame<C> {
    goal: Goal,
    component: C,
    /// For [`Goal::Lost`]: the nimber added; for [`Goal::Value`]: the candidate value.
    n: u64,
    /// The parts of every option of `component`, one after another.
    parts: Vec<C>,
    /// The options, options with the smallest largest part first. For [`Goal::Lost`], only
    /// those the tables could not settle (none of them is known lost, or the frame would not
    /// exist; those known won can not answer the query and are left out).
    options: Vec<Opt>,
    /// How many options `component` has in all.
    total: usize,
    /// Next option to look at; past the options, the lower nimbers `*k` for `k < n`.
    next: usize,
    /// Lower nimber being tried once the options are exhausted.
    lower: u64,
    /// For [`Goal::Mex`]: the values of the options seen so far.
    seen: Vec<u64>,
    /// [`SearchStats::nodes`] when the frame was made: the nodes since are its work.
    first_node: u64,
}

/// One option of a frame's component.
#[derive(Clone, Copy)]
struct Opt {
    /// Where its parts are in [`Frame::parts`], sorted by size (largest last).
    start: u32,
    /// How many parts it has.
    len: u32,
    /// How many of its parts are folded into `m` so far (in order). Each value is folded in
    /// as soon as it is known, so nothing depends on the tables keeping it afterwards.
    folded: u32,
    /// Size of the largest part (the order of search).
    key: u32,
    /// For [`Goal::Lost`]: the frame's nimber with the values of the first `folded` parts
    /// folded in (all parts but the largest, once `folded == len - 1`); for [`Goal::Mex`]:
    /// the values of the first `folded` parts.
    m: u64,
}

/// Grundy values of components by pruned search, remembered across calls.
pub struct NimberSearch<'r, R: Ruleset> {
    rules: &'r R,
    /// What is known of each component met that has a code ([`Ruleset::code`]).
    codes: CodeTable,
    /// The (code, value) pairs `codes` holds, as a filter asked before it while options are
    /// listed.
    filter: ValueFilter,
    /// What is known of each component met that has none.
    table: HashMap<R::Component, Known, RandomState>,
    /// Values too large for the words (marked [`ELSEWHERE`] in the [`Known`]).
    big_values: HashMap<R::Component, u64, RandomState>,
    /// Queries `(C, n)` answered "no" whose `n` is past the "won" bits of `C`'s word.
    won_high: HashSet<(R::Component, u64), RandomState>,
    /// Exact values stored.
    values: usize,
    /// "No" answers stored.
    won: usize,
    limit: usize,
    lower_first: bool,
    exact_up_to: usize,
    stats: SearchStats,
    /// Buffers of finished frames, for the next ones.
    spare: Vec<(Vec<R::Component>, Vec<Opt>)>,
    /// Called every [`TICK_NODES`] search nodes ([`NimberSearch::on_tick`]).
    tick: Option<Tick<'r, R>>,
    /// [`SearchStats::nodes`] at which the tick is next called.
    next_tick: u64,
    /// The table shared with the searches of other threads ([`crate::search_parallel`]):
    /// asked before a frame is made, and given every answer that took some work.
    shared: Option<&'r SharedTable>,
    /// Give up the query in progress (with [`SolveError::Halted`]) once this counter is no
    /// longer this value: another thread made it pointless.
    abandon: Option<(&'r AtomicU64, u64)>,
    /// Whether the options listed are also checked against the shared table.
    shared_cutoffs: bool,
}

/// What a long search calls now and then with itself ([`NimberSearch::on_tick`]): to save
/// its table, or to stop it (with the error it returns).
pub type Tick<'r, R> = Box<dyn FnMut(&NimberSearch<'r, R>) -> Result<(), SolveError> + 'r>;

/// Search nodes between two calls of a [`Tick`].
pub const TICK_NODES: u64 = 1 << 16;

/// Counts of the work a [`NimberSearch`] did, for tuning and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Queries whose options were listed (search nodes).
    pub nodes: u64,
    /// Of those, "is `C + *n` lost?" queries answered "no" while their options were being
    /// listed, by an option already known to be lost (enhanced transposition cut-offs).
    pub cutoffs: u64,
    /// Options listed, in all (a cut-off stops the listing).
    pub options: u64,
    /// Exact values stored.
    pub values: u64,
    /// "No" answers stored.
    pub won: u64,
}

impl<'r, R: Ruleset> NimberSearch<'r, R> {
    /// An empty search over `rules`.
    pub fn new(rules: &'r R) -> Self {
        NimberSearch {
            rules,
            codes: CodeTable::new(),
            filter: ValueFilter::new(),
            table: HashMap::default(),
            big_values: HashMap::default(),
            won_high: HashSet::default(),
            values: 0,
            won: 0,
            limit: usize::MAX,
            lower_first: false,
            exact_up_to: 0,
            stats: SearchStats::default(),
            spare: Vec::new(),
            tick: None,
            next_tick: TICK_NODES,
            shared: None,
            abandon: None,
            shared_cutoffs: false,
        }
    }

    /// Shares answers with the searches of other threads through `table`: a frame is made
    /// only when neither this search's table nor `table` has the answer, and every answer
    /// that took at least [`PUBLISH_WORK`] nodes goes to `table` too. Answers are facts,
    /// so sharing changes no answer, only the work.
    pub(crate) fn share(mut self, table: &'r SharedTable) -> Self {
        self.shared = Some(table);
        self.shared_cutoffs = std::env::var_os("GRUNDY_SHARED_CUTOFFS").is_some();
        self
    }

    /// Gives up the next queries (with [`SolveError::Halted`]) as soon as `counter` is no
    /// longer `value`.
    pub(crate) fn abandon_unless(&mut self, counter: &'r AtomicU64, value: u64) {
        self.abandon = Some((counter, value));
    }

    /// Calls `tick` with the search every [`TICK_NODES`] nodes, between two steps (the
    /// tables then hold only settled answers, which [`NimberSearch::saved_entries`] can
    /// save); an error it returns stops the search with that error.
    pub fn on_tick(mut self, tick: Tick<'r, R>) -> Self {
        self.tick = Some(tick);
        self
    }

    /// Entries the tables hold now (a component counts once, with its value and "won"
    /// answers; what the compact table let go of is not counted): what
    /// [`NimberSearch::with_limit`] bounds.
    pub fn held(&self) -> usize {
        self.codes.len()
            + self.table.len()
            + self.big_values.len()
            + self.won_high.len()
            + self.shared.map_or(0, |t| t.len())
    }

    /// Calls `f` with what the compact table knows, as (code, word) pairs in the table's
    /// own format (a value too large for the word is left out): for a checkpoint, to be
    /// loaded back with [`NimberSearch::load_entries`] by a search over the same rules.
    /// Answers are facts about components, so a table loaded back (whole or in part) never
    /// changes an answer, only the work left.
    pub fn saved_entries(&self, mut f: impl FnMut(u64, u64)) {
        self.codes.for_each(|code, w| {
            if w & UNKNOWN == ELSEWHERE {
                f(code, w | UNKNOWN)
            } else {
                f(code, w)
            }
        })
    }

    /// How many (code, word) pairs [`NimberSearch::saved_entries`] gives.
    pub fn saved_len(&self) -> usize {
        self.codes.len()
    }

    /// Loads what [`NimberSearch::saved_entries`] gave (of a search over the same rules),
    /// first making the compact table `bytes` large. Words from another source would make
    /// the search answer wrongly: callers check where the entries come from (a checksum).
    pub fn load_entries(&mut self, entries: &[(u64, u64)], bytes: usize) {
        let max_code = entries.iter().map(|e| e.0).max().unwrap_or(0);
        self.codes.reserve(max_code, bytes);
        for &(code, w) in entries {
            if code == u64::MAX {
                continue;
            }
            let new = self.codes.update(code, worth, |word| {
                let fresh = *word == NOTHING;
                *word = w;
                fresh
            });
            if w & UNKNOWN != UNKNOWN {
                self.filter.insert(code, w & UNKNOWN, &self.codes);
            }
            if new {
                self.values += (w & UNKNOWN != UNKNOWN) as usize;
                self.won += (w >> 32).count_ones() as usize;
            }
        }
    }

    /// Work out exact values of components of at most this size (by [`Ruleset::size_hint`])
    /// as the mex of all their options' values rather than by search; 0 (the default)
    /// searches always.
    pub fn exact_up_to(mut self, size: usize) -> Self {
        self.exact_up_to = size;
        self
    }

    /// Whether a query `C + *n` first tries the moves on the nimber (`*n -> *k`, that is:
    /// is the value of `C` below `n`?) before the options of `C`.
    pub fn lower_first(mut self, yes: bool) -> Self {
        self.lower_first = yes;
        self
    }

    /// Keep the compact table of coded components within `bytes` (it grows as the search
    /// needs otherwise); answers it cannot keep are worked out again when asked again.
    pub fn with_table_bytes(mut self, bytes: usize) -> Self {
        self.codes = CodeTable::with_max_bytes(bytes);
        self.filter = ValueFilter::new();
        self
    }

    /// Let the compact table double whenever a bucket is full until it takes `bytes` (by
    /// default 256 KiB; past that it doubles only once it has let go of many words).
    /// Searches that will ask a lot, such as a whole analysis, are faster with more.
    pub fn grow_freely_to(mut self, bytes: usize) -> Self {
        self.codes.grow_freely_to(bytes);
        self
    }

    /// Stop with [`SolveError::Limit`] once the tables hold this many entries
    /// ([`NimberSearch::held`]: what the compact table let go of no longer counts, so a
    /// long search whose table stays within its size runs on).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Entries stored: exact values plus answered queries.
    pub fn len(&self) -> usize {
        self.values + self.won
    }

    /// The work done so far.
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            values: self.values as u64,
            won: self.won as u64,
            ..self.stats
        }
    }

    /// Bytes taken by the compact table of coded components (the largest part of the memory
    /// a search uses, for rules whose components have codes).
    pub fn table_bytes(&self) -> usize {
        self.codes.bytes()
    }

    /// True when nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the tables know of `c`.
    #[inline]
    fn word(&self, c: &R::Component) -> Known {
        self.word_coded(c, self.rules.code(c))
    }

    /// [`Self::word`] when `c`'s code is known already.
    #[inline]
    fn word_coded(&self, c: &R::Component, code: Option<u64>) -> Known {
        match code {
            Some(code) => self.codes.get(code),
            None => self.table.get(c).copied(),
        }
        .unwrap_or(NOTHING)
    }

    /// Changes what the tables know of `c` by `f`, after raising its work weight to
    /// `work`'s.
    fn modify<T>(&mut self, c: &R::Component, work: u64, f: impl FnOnce(&mut Known) -> T) -> T {
        let weight = (64 - work.leading_zeros() as u64) << 24;
        let f = |word: &mut Known| {
            if weight > *word & WEIGHT {
                *word = (*word & !WEIGHT) | weight;
            }
            f(word)
        };
        match self.rules.code(c) {
            Some(code) => match self.shared {
                Some(shared) if work >= PUBLISH_WORK => {
                    let mut after = NOTHING;
                    let out = self.codes.update(code, worth, |word| {
                        let out = f(word);
                        after = *word;
                        out
                    });
                    shared.merge(code, after);
                    out
                }
                _ => self.codes.update(code, worth, f),
            },
            None => f(self.table.entry(c.clone()).or_insert(NOTHING)),
        }
    }

    /// Takes what the shared table knows of `c` (with code `code`) into this search's
    /// tables; whether it knew anything.
    fn take_shared(&mut self, c: &R::Component, code: u64) -> bool {
        let Some(w) = self.shared.and_then(|t| t.get(code)) else {
            return false;
        };
        let value = match w & UNKNOWN {
            UNKNOWN | ELSEWHERE => None,
            v => Some(v),
        };
        let won = w >> 32;
        let room = self.codes.won_bits();
        for n in room..WON_BITS {
            if won >> n & 1 == 1 && self.won_high.insert((c.clone(), n as u64)) {
                self.won += 1;
            }
        }
        let low = match value {
            Some(v) if v >= self.codes.value_limit() => {
                self.big_values.insert(c.clone(), v);
                ELSEWHERE
            }
            Some(v) => v,
            None => UNKNOWN,
        };
        let (values, wons) = self.codes.update(code, worth, |word| {
            let before = *word;
            let mut after = crate::search_parallel::merge(before, w & !UNKNOWN | UNKNOWN);
            if low != UNKNOWN {
                after = (after & !UNKNOWN) | low;
            }
            *word = after;
            let new_value = (before & UNKNOWN == UNKNOWN && low != UNKNOWN) as usize;
            let new_won = ((after >> 32) & !(before >> 32)).count_ones() as usize;
            (new_value, new_won)
        });
        self.values += values;
        self.won += wons;
        if low != UNKNOWN && low != ELSEWHERE {
            self.filter.insert(code, low, &self.codes);
        }
        true
    }

    /// Whether `c + *n` is lost, if the shared table knows (when [`Self::shared_cutoffs`]:
    /// for the cut-offs while options are listed, where this search's own table did not
    /// know).
    fn shared_lost(&self, c: &R::Component, n: u64) -> Option<bool> {
        if !self.shared_cutoffs {
            return None;
        }
        let w = self.shared?.get(self.rules.code(c)?)?;
        match w & UNKNOWN {
            UNKNOWN | ELSEWHERE if n < WON_BITS as u64 && w >> (32 + n) & 1 == 1 => Some(false),
            UNKNOWN | ELSEWHERE => None,
            v => Some(v == n),
        }
    }

    /// Whether the shared table answers what `goal` asks of `c` (with `n`), after taking
    /// what it knows into this search's tables.
    fn answered_by_shared(&mut self, goal: &Goal, c: &R::Component, n: u64) -> bool {
        if self.shared.is_none() {
            return false;
        }
        let Some(code) = self.rules.code(c) else {
            return false;
        };
        if !self.take_shared(c, code) {
            return false;
        }
        match goal {
            Goal::Lost => self.known_lost(c, n).is_some(),
            Goal::Value | Goal::Mex => self.known(c).is_some(),
        }
    }

    /// Values below this are kept in the word of a component with this code (or none);
    /// larger ones in [`Self::big_values`].
    fn value_limit(&self, code: Option<u64>) -> u64 {
        if code.is_some() {
            self.codes.value_limit()
        } else {
            ELSEWHERE
        }
    }

    /// Queries `c + *n` have their "won" answer in the word of a component with this code
    /// (or none) for `n` below this.
    fn won_bits(&self, code: Option<u64>) -> u64 {
        if code.is_some() {
            self.codes.won_bits() as u64
        } else {
            WON_BITS as u64
        }
    }

    /// The value recorded in `word` for `c`.
    #[inline]
    fn value_in(&self, word: Known, c: &R::Component) -> Option<u64> {
        match word & UNKNOWN {
            UNKNOWN => None,
            ELSEWHERE => self.big_values.get(c).copied(),
            v => Some(v),
        }
    }

    fn known(&self, c: &R::Component) -> Option<u64> {
        if let Some(v) = self.rules.known_grundy(c) {
            return Some(v.0);
        }
        self.value_in(self.word(c), c)
    }

    /// Whether `c + *n` is lost for the player to move, if already known.
    fn known_lost(&self, c: &R::Component, n: u64) -> Option<bool> {
        if let Some(v) = self.rules.known_grundy(c) {
            return Some(v.0 == n);
        }
        self.known_lost_coded(c, n, self.rules.code(c))
    }

    /// [`Self::known_lost`] from the tables alone, `c`'s code known.
    #[inline]
    fn known_lost_coded(&self, c: &R::Component, n: u64, code: Option<u64>) -> Option<bool> {
        let word = self.word_coded(c, code);
        if let Some(v) = self.value_in(word, c) {
            return Some(v == n);
        }
        let won = if n < self.won_bits(code) {
            word >> (32 + n) & 1 == 1
        } else {
            self.won_high.contains(&(c.clone(), n))
        };
        won.then_some(false)
    }

    /// [`Self::known_lost`] for an option being listed: `None` at once, without a look-up in
    /// the compact table, when the filter says the table does not hold the value `n` for `c`
    /// (whether `c + *n` is known won is then looked up only if the frame is searched).
    #[inline]
    fn known_lost_listing(&self, c: &R::Component, n: u64) -> Option<bool> {
        if let Some(v) = self.rules.known_grundy(c) {
            return Some(v.0 == n);
        }
        match self.rules.code(c) {
            Some(code) if !self.filter.may_hold(code, n) => None,
            code => self.known_lost_coded(c, n, code),
        }
    }

    fn store_value(&mut self, c: R::Component, v: u64, work: u64) {
        let code = self.rules.code(&c);
        let low = if v < self.value_limit(code) {
            v
        } else {
            self.big_values.insert(c.clone(), v);
            ELSEWHERE
        };
        let new = self.modify(&c, work, |word| {
            let new = *word & UNKNOWN == UNKNOWN;
            *word = (*word & !UNKNOWN) | low;
            new
        });
        self.values += new as usize;
        if let (Some(code), true) = (code, low != ELSEWHERE) {
            self.filter.insert(code, low, &self.codes);
        }
    }

    fn store_won(&mut self, c: R::Component, n: u64, work: u64) {
        let new = if n < self.won_bits(self.rules.code(&c)) {
            self.modify(&c, work, |word| {
                let new = *word >> (32 + n) & 1 == 0;
                *word |= 1 << (32 + n);
                new
            })
        } else {
            self.won_high.insert((c, n))
        };
        self.won += new as usize;
    }

    /// The Grundy value of a sum of components.
    pub fn grundy_sum(&mut self, parts: &[R::Component]) -> Result<Nimber, SolveError> {
        let mut v = Nimber::ZERO;
        for c in parts {
            v ^= self.grundy(c)?;
        }
        Ok(v)
    }

    /// The Grundy value of `c`.
    pub fn grundy(&mut self, c: &R::Component) -> Result<Nimber, SolveError> {
        if let Some(v) = self.known(c) {
            return Ok(Nimber(v));
        }
        self.run(self.value_goal(c), c.clone(), 0)?;
        Ok(Nimber(self.known(c).expect("the search stored the value")))
    }

    /// Whether the sum of `parts` plus `*n` is lost for the player to move (its Grundy value
    /// is `n`). Only the largest part is searched; the others are valued exactly.
    pub fn is_lost(&mut self, parts: &[R::Component], n: Nimber) -> Result<bool, SolveError> {
        let mut sorted: Vec<R::Component> = parts.to_vec();
        let kept = self.sort_and_cancel(&mut sorted);
        sorted.truncate(kept);
        let Some(largest) = sorted.pop() else {
            return Ok(n.is_zero());
        };
        let mut m = n.0;
        for c in &sorted {
            m ^= self.grundy(c)?.0;
        }
        if let Some(b) = self.known_lost(&largest, m) {
            return Ok(b);
        }
        self.run(Goal::Lost, largest.clone(), m)?;
        Ok(self
            .known_lost(&largest, m)
            .expect("the search stored the answer"))
    }

    /// A new frame, its options listed; `None` for a [`Goal::Lost`] frame whose answer
    /// ("no": an option of the component is lost with `n`) turned up while listing them
    /// (enhanced transposition cut-off, done as the options come, so the rest of them are
    /// never worked out).
    fn frame(&mut self, goal: Goal, component: R::Component, n: u64) -> Option<Frame<R::Component>> {
        let (mut parts, mut options) = self.spare.pop().unwrap_or_default();
        let mut total = 0;
        let lost = matches!(goal, Goal::Lost);
        if lost || matches!(goal, Goal::Mex) {
            let this = &*self;
            let flow = this.rules.options_until(&component, |p| {
                total += 1;
                let start = parts.len();
                parts.extend_from_slice(p);
                let len = this.sort_and_cancel(&mut parts[start..]);
                parts.truncate(start + len);
                let slice = &mut parts[start..];
                let key = slice.last().map_or(0, |c| this.rules.size_hint(c)) as u32;
                let mut m = 0;
                let mut folded = 0;
                if lost {
                    let Some((largest, rest)) = slice.split_last() else {
                        // The move empties the component and leaves *n.
                        if n == 0 {
                            return ControlFlow::Break(());
                        }
                        parts.truncate(start);
                        return ControlFlow::Continue(());
                    };
                    (m, folded) = this.fold(rest, n);
                    if folded == rest.len() {
                        match this
                            .known_lost_listing(largest, m)
                            .or_else(|| this.shared_lost(largest, m))
                        {
                            Some(true) => return ControlFlow::Break(()),
                            Some(false) => {
                                parts.truncate(start);
                                return ControlFlow::Continue(());
                            }
                            None => {}
                        }
                    }
                }
                options.push(Opt {
                    start: start as u32,
                    len: len as u32,
                    folded: folded as u32,
                    key,
                    m,
                });
                ControlFlow::Continue(())
            });
            self.stats.options += total as u64;
            if flow.is_break() {
                self.recycle(parts, options);
                return None;
            }
            // Options that leave less to search first: their answers come cheaper.
            options.sort_by_key(|o| o.key);
        }
        Some(Frame {
            goal,
            component,
            n,
            parts,
            options,
            total,
            next: 0,
            lower: 0,
            seen: Vec::new(),
            first_node: self.stats.nodes,
        })
    }

    /// Sorts the parts of a sum by size (largest last) and, for independent components,
    /// drops equal parts in pairs (`G + G = 0`: the second player copies every move);
    /// returns how many parts are left at the front of `parts`.
    fn sort_and_cancel(&self, parts: &mut [R::Component]) -> usize {
        sort_and_cancel(self.rules, parts)
    }

    /// Keeps a finished frame's buffers for the next frames.
    fn recycle(&mut self, mut parts: Vec<R::Component>, mut options: Vec<Opt>) {
        parts.clear();
        options.clear();
        self.spare.push((parts, options));
    }

    /// `n` with the values of the first parts of `parts` folded in, as far as they are
    /// known, and how many were.
    fn fold(&self, parts: &[R::Component], n: u64) -> (u64, usize) {
        let mut m = n;
        for (i, c) in parts.iter().enumerate() {
            match self.known(c) {
                Some(v) => m ^= v,
                None => return (m, i),
            }
        }
        (m, parts.len())
    }

    /// How the exact value of `c` is worked out: by mex for components of size at most
    /// [`exact_up_to`](NimberSearch::exact_up_to), by search above.
    fn value_goal(&self, c: &R::Component) -> Goal {
        if self.rules.size_hint(c) <= self.exact_up_to {
            Goal::Mex
        } else {
            Goal::Value
        }
    }

    /// Works out what `goal` asks of `c` (with `n`), leaving the answer in the tables.
    fn run(&mut self, goal: Goal, c: R::Component, n: u64) -> Result<(), SolveError> {
        if self.answered_by_shared(&goal, &c, n) {
            return Ok(());
        }
        self.stats.nodes += 1;
        let Some(first) = self.frame(goal, c.clone(), n) else {
            self.stats.cutoffs += 1;
            self.store_won(c, n, 1);
            return Ok(());
        };
        let mut stack = vec![first];
        while let Some(top) = stack.last_mut() {
            if self.held() >= self.limit {
                return Err(SolveError::Limit(self.held()));
            }
            if self.rules.halted() {
                return Err(SolveError::Halted);
            }
            if let Some((counter, value)) = self.abandon {
                if counter.load(Ordering::Relaxed) != value {
                    return Err(SolveError::Halted);
                }
            }
            if self.stats.nodes >= self.next_tick {
                self.next_tick = self.stats.nodes + TICK_NODES;
                if let Some(mut tick) = self.tick.take() {
                    let r = tick(self);
                    self.tick = Some(tick);
                    r?;
                }
            }
            let push = match top.goal {
                Goal::Value => {
                    // The value is the least m with c + *m lost.
                    match self.known_lost(&top.component, top.n) {
                        Some(true) => {
                            let f = stack.pop().expect("stack is not empty");
                            self.store_value(f.component, f.n, self.stats.nodes - f.first_node);
                            self.recycle(f.parts, f.options);
                            continue;
                        }
                        Some(false) => {
                            top.n += 1;
                            continue;
                        }
                        None => (Goal::Lost, top.component.clone(), top.n),
                    }
                }
                Goal::Mex => match step_mex(self, top) {
                    Some(need) => (self.value_goal(&need), need, 0),
                    None => {
                        let f = stack.pop().expect("stack is not empty");
                        let mut mex = MexSet::new();
                        for &v in &f.seen {
                            mex.insert(v);
                        }
                        self.store_value(f.component, mex.mex().0, self.stats.nodes - f.first_node);
                        self.recycle(f.parts, f.options);
                        continue;
                    }
                },
                Goal::Lost => match step_lost(self, top) {
                    Step::Done(answer) => {
                        let f = stack.pop().expect("stack is not empty");
                        if answer {
                            // C + *n is lost exactly when n is the value of C.
                            self.store_value(f.component, f.n, self.stats.nodes - f.first_node);
                        } else {
                            self.store_won(f.component, f.n, self.stats.nodes - f.first_node);
                        }
                        self.recycle(f.parts, f.options);
                        continue;
                    }
                    Step::Need(Goal::Value, c, n) => (self.value_goal(&c), c, n),
                    Step::Need(goal, c, n) => (goal, c, n),
                },
            };
            let (goal, c, n) = push;
            if self.answered_by_shared(&goal, &c, n) {
                continue;
            }
            self.stats.nodes += 1;
            let Some(f) = self.frame(goal, c.clone(), n) else {
                self.stats.cutoffs += 1;
                self.store_won(c, n, 1);
                continue;
            };
            stack.push(f);
            if stack.len() > MAX_DEPTH {
                // Rules with a cycle send the search round it for ever; acyclic rules this
                // deep would not finish anyway.
                return Err(SolveError::Cycle(format!(
                    "{:?} (or a search deeper than {MAX_DEPTH} frames)",
                    stack[0].component
                )));
            }
        }
        Ok(())
    }
}

/// The analysis of `p` under normal play by pruned search: its Grundy value, the winning
/// moves (each checked by one "is it lost?" query, not by valuing it), and every move with
/// its outcome — and its exact value too when `values_of_moves` is set.
pub fn analyze_normal<G: Game>(
    game: &G,
    p: &G::Position,
    values_of_moves: bool,
    limit: usize,
) -> Result<Analysis<G::Move>, SolveError> {
    analyze_normal_with_progress(game, p, values_of_moves, limit, |_| {})
}

/// How far an [`analyze_normal_with_progress`] has got.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Moves of the position settled so far (the position's own value comes last).
    pub moves_done: usize,
    /// Moves in all.
    pub moves: usize,
    /// The search's work so far.
    pub stats: SearchStats,
    /// Bytes of the search's compact table.
    pub table_bytes: usize,
}

impl Progress {
    /// `search`'s progress with `moves_done` of `moves` settled.
    fn of<R: Game>(search: &NimberSearch<'_, R>, moves_done: usize, moves: usize) -> Progress {
        Progress {
            moves_done,
            moves,
            stats: search.stats(),
            table_bytes: search.table_bytes(),
        }
    }
}

/// [`analyze_normal`], calling `progress` before each move is worked out, once more
/// before the position's own value (not at all for a position that [`Game::immediate_wins`]
/// settles), and every [`TICK_NODES`] search nodes in between (the moves settled so far,
/// the search's work and table then).
pub fn analyze_normal_with_progress<'r, G: Game>(
    game: &'r G,
    p: &G::Position,
    values_of_moves: bool,
    limit: usize,
    progress: impl FnMut(Progress) + 'r,
) -> Result<Analysis<G::Move>, SolveError> {
    analyze_normal_resumable(game, p, values_of_moves, limit, progress, None, None)
}

/// [`analyze_normal_with_progress`] that saves its progress to a checkpoint through `saver`
/// (after each settled move, every so often within a move, and when it stops at a limit),
/// and continues from `resumed`: the moves it settled are taken as they are and its table
/// is loaded back. Callers check that `resumed` belongs to this game and position.
pub fn analyze_normal_resumable<'r, G: Game>(
    game: &'r G,
    p: &G::Position,
    values_of_moves: bool,
    limit: usize,
    progress: impl FnMut(Progress) + 'r,
    resumed: Option<crate::search_checkpoint::Saved>,
    saver: Option<crate::search_checkpoint::Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    normal_resumable(game, p, Some(values_of_moves), limit, progress, resumed, saver)
}

/// The Grundy value and outcome of `p` under normal play by pruned search, and nothing
/// else: no move is looked at on its own (the answer's `moves` and `winning_moves` are
/// empty, and for a position [`Game::immediate_wins`] settles, its value is `None` and
/// its outcome a first-player win). The same search as [`analyze_normal_resumable`]
/// without its first part (a query per move), with the same checkpoints (which settle no
/// move) and progress (`moves` is 0).
pub fn value_normal_resumable<'r, G: Game>(
    game: &'r G,
    p: &G::Position,
    limit: usize,
    progress: impl FnMut(Progress) + 'r,
    resumed: Option<crate::search_checkpoint::Saved>,
    saver: Option<crate::search_checkpoint::Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    normal_resumable(game, p, None, limit, progress, resumed, saver)
}

/// [`analyze_normal_resumable`] (`values_of_moves` given) or [`value_normal_resumable`]
/// (`None`: the position's value alone).
pub(crate) fn normal_resumable<'r, G: Game>(
    game: &'r G,
    p: &G::Position,
    values_of_moves: Option<bool>,
    limit: usize,
    progress: impl FnMut(Progress) + 'r,
    resumed: Option<crate::search_checkpoint::Saved>,
    saver: Option<crate::search_checkpoint::Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    use crate::search_checkpoint::Settled;
    use std::cell::RefCell;
    use std::rc::Rc;
    let value_only = values_of_moves.is_none();
    let values_of_moves = values_of_moves.unwrap_or(false);
    let mut successors = Vec::new();
    if !value_only {
        game.moves(p, |m, q| successors.push((m, q)));
    }
    let mut settled: Vec<Settled> = Vec::new();
    let mut entries = Vec::new();
    let mut table_bytes = 0;
    if let Some(saved) = resumed {
        saved.check_moves(successors.len())?;
        settled = saved.settled;
        entries = saved.entries;
        table_bytes = saved.table_bytes as usize;
    }
    let settled = Rc::new(RefCell::new(settled));
    let saver = saver.map(|s| Rc::new(RefCell::new(s)));
    let mut s = NimberSearch::new(game)
        .with_limit(limit)
        .grow_freely_to(ANALYSIS_FREE_BYTES);
    if !entries.is_empty() {
        s.load_entries(&entries, table_bytes);
        drop(entries);
    }
    let total = successors.len();
    let progress = Rc::new(RefCell::new(progress));
    // Every so often within a move too: the checkpoint when due, and how far the search got
    // (a single move of a large board may take hours).
    {
        let (saver, settled, progress) = (saver.clone(), Rc::clone(&settled), Rc::clone(&progress));
        s = s.on_tick(Box::new(move |search| {
            if let Some(saver) = &saver {
                let mut sv = saver.borrow_mut();
                if sv.due() {
                    sv.save(&settled.borrow(), search)?;
                }
            }
            (progress.borrow_mut())(Progress::of(search, settled.borrow().len().min(total), total));
            Ok(())
        }));
    }
    let progress = |pr: Progress| (progress.borrow_mut())(pr);
    // A search stopped at a limit leaves only settled answers in its table: save them.
    let save_now = |s: &NimberSearch<G>| -> Result<(), SolveError> {
        match &saver {
            Some(sv) => sv.borrow_mut().save(&settled.borrow(), s),
            None => Ok(()),
        }
    };
    let stopped = |s: &NimberSearch<G>, e: SolveError| -> SolveError {
        match e {
            SolveError::Limit(_) | SolveError::Halted => match save_now(s) {
                Ok(()) => e,
                Err(w) => w,
            },
            e => e,
        }
    };
    if let Some(wins) = game.immediate_wins(p) {
        let wins = if value_only { Vec::new() } else { wins };
        let mut moves = Vec::with_capacity(successors.len());
        for (mv, q) in successors {
            let outcome = if game.immediate_wins(&q).is_some() {
                Outcome::First
            } else if s
                .is_lost(&game.components(&q), Nimber::ZERO)
                .map_err(|e| stopped(&s, e))?
            {
                Outcome::Second
            } else {
                Outcome::First
            };
            moves.push(MoveReport {
                mv,
                grundy: None,
                outcome,
                remoteness: None,
            });
        }
        return Ok(Analysis {
            grundy: None,
            outcome: Outcome::First,
            winning_moves: wins,
            moves,
            remoteness: None,
        });
    }
    let mut moves = Vec::with_capacity(successors.len());
    let report = |s: &NimberSearch<G>, moves_done: usize| Progress::of(s, moves_done, total);
    let mut same: HashMap<Vec<G::Component>, (Option<u64>, bool), RandomState> = HashMap::default();
    for (i, (mv, q)) in successors.into_iter().enumerate() {
        let done = settled.borrow().get(i).copied();
        let (grundy, lost) = match done {
            Some(d) => (d.grundy, d.lost),
            None => {
                progress(report(&s, moves.len()));
                let decided = game.immediate_wins(&q).is_some();
                let mut parts = game.components(&q);
                let kept = s.sort_and_cancel(&mut parts);
                parts.truncate(kept);
                let (grundy, lost) = if decided {
                    (None, false)
                } else if let Some(&(g, l)) = same.get(&parts) {
                    // A move leading to the same sum of components as an earlier one (its
                    // image under a symmetry of the board, for Cram): the same answer.
                    (g, l)
                } else if values_of_moves {
                    let g = s.grundy_sum(&parts).map_err(|e| stopped(&s, e))?;
                    (Some(g.0), g.is_zero())
                } else {
                    (None, s.is_lost(&parts, Nimber::ZERO).map_err(|e| stopped(&s, e))?)
                };
                if !decided {
                    same.insert(parts, (grundy, lost));
                }
                settled.borrow_mut().push(Settled { grundy, lost });
                save_now(&s)?;
                (grundy, lost)
            }
        };
        moves.push(MoveReport {
            mv,
            grundy: grundy.map(Nimber),
            outcome: if lost { Outcome::Second } else { Outcome::First },
            remoteness: None,
        });
    }
    progress(report(&s, moves.len()));
    let grundy = s.grundy_sum(&game.components(p)).map_err(|e| stopped(&s, e))?;
    save_now(&s)?;
    Ok(analysis_of(grundy, moves))
}

/// The analysis of a position of value `grundy` whose moves have been reported: its winning
/// moves are those to a lost position.
pub(crate) fn analysis_of<M: Clone>(grundy: Nimber, moves: Vec<MoveReport<M>>) -> Analysis<M> {
    let winning_moves = moves
        .iter()
        .filter(|r| r.outcome == Outcome::Second)
        .map(|r| r.mv.clone())
        .collect();
    Analysis {
        grundy: Some(grundy),
        outcome: if grundy.is_zero() {
            Outcome::Second
        } else {
            Outcome::First
        },
        winning_moves,
        moves,
        remoteness: None,
    }
}

/// Sorts the parts of a sum by size (largest last) and, for independent components, drops
/// equal parts in pairs (`G + G = 0`: the second player copies every move); returns how many
/// parts are left at the front of `parts`.
pub(crate) fn sort_and_cancel<R: Ruleset>(rules: &R, parts: &mut [R::Component]) -> usize {
    if parts.len() < 2 {
        return parts.len();
    }
    if !R::INDEPENDENT {
        parts.sort_by_key(|c| rules.size_hint(c));
        return parts.len();
    }
    let size = |c: &R::Component| rules.size_hint(c);
    parts.sort_by(|a, b| size(a).cmp(&size(b)).then_with(|| a.cmp(b)));
    let mut kept = 0;
    let mut i = 0;
    while i < parts.len() {
        if i + 1 < parts.len() && parts[i] == parts[i + 1] {
            i += 2;
            continue;
        }
        parts.swap(kept, i);
        kept += 1;
        i += 1;
    }
    kept
}

enum Step<C> {
    /// The frame's answer.
    Done(bool),
    /// A value or answer it needs first.
    Need(Goal, C, u64),
}

/// Advances a [`Goal::Lost`] frame as far as the tables allow.
fn step_lost<R: Ruleset>(s: &NimberSearch<'_, R>, f: &mut Frame<R::Component>) -> Step<R::Component> {
    if f.n > f.total as u64 {
        // The value is a mex of at most that many values, so it is below n: the move
        // *n -> *value wins.
        return Step::Done(false);
    }
    if s.lower_first {
        if let Some(step) = step_lower(s, f) {
            return step;
        }
    }
    while f.next < f.options.len() {
        let o = &mut f.options[f.next];
        let parts = &f.parts[o.start as usize..(o.start + o.len) as usize];
        let (largest, rest) = parts.split_last().expect("empty options are settled in the scan");
        while (o.folded as usize) < rest.len() {
            let c = &rest[o.folded as usize];
            match s.known(c) {
                Some(v) => {
                    o.m ^= v;
                    o.folded += 1;
                }
                None => return Step::Need(Goal::Value, c.clone(), 0),
            }
        }
        match s.known_lost(largest, o.m) {
            Some(true) => return Step::Done(false),
            Some(false) => f.next += 1,
            None => return Step::Need(Goal::Lost, largest.clone(), o.m),
        }
    }
    if !s.lower_first {
        if let Some(step) = step_lower(s, f) {
            return step;
        }
    }
    Step::Done(true)
}

/// Advances a [`Goal::Mex`] frame: `Some(part)` when the value of `part` is needed first,
/// `None` once every option is valued (in `f.seen`).
fn step_mex<R: Ruleset>(s: &NimberSearch<'_, R>, f: &mut Frame<R::Component>) -> Option<R::Component> {
    while f.next < f.options.len() {
        let o = &mut f.options[f.next];
        while o.folded < o.len {
            let c = &f.parts[(o.start + o.folded) as usize];
            match s.known(c) {
                Some(x) => {
                    o.m ^= x;
                    o.folded += 1;
                }
                None => return Some(c.clone()),
            }
        }
        f.seen.push(o.m);
        f.next += 1;
    }
    None
}

/// The moves on the nimber, `*n -> *k` for `k < n`: `None` when none of them wins.
fn step_lower<R: Ruleset>(
    s: &NimberSearch<'_, R>,
    f: &mut Frame<R::Component>,
) -> Option<Step<R::Component>> {
    while f.lower < f.n {
        match s.known_lost(&f.component, f.lower) {
            Some(true) => return Some(Step::Done(false)),
            Some(false) => f.lower += 1,
            None => return Some(Step::Need(Goal::Lost, f.component.clone(), f.lower)),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rules::Splits;
    use crate::GrundyMemo;
    use proptest::prelude::*;

    /// Random acyclic rules: component i has options made of 0..3 components below i.
    struct RandomRules {
        seed: u64,
    }
    fn mix(mut x: u64) -> u64 {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    impl Ruleset for RandomRules {
        type Component = u32;
        fn options<F: FnMut(&[u32])>(&self, &c: &u32, mut emit: F) {
            if c == 0 {
                return;
            }
            let h = mix(self.seed ^ c as u64);
            for j in 0..(h % 6) {
                let g = mix(h ^ j);
                let parts: Vec<u32> = (0..(g % 3)).map(|p| (mix(g ^ p) % c as u64) as u32).collect();
                emit(&parts);
            }
        }
        fn size_hint(&self, c: &u32) -> usize {
            *c as usize
        }
    }

    /// Rules whose components are their own codes: they go to the compact table.
    struct Coded<R>(R);
    impl<R: Ruleset<Component = u32>> Ruleset for Coded<R> {
        type Component = u32;
        fn options<F: FnMut(&[u32])>(&self, c: &u32, emit: F) {
            self.0.options(c, emit)
        }
        fn size_hint(&self, c: &u32) -> usize {
            *c as usize
        }
        fn code(&self, c: &u32) -> Option<u64> {
            Some(*c as u64)
        }
    }

    #[test]
    fn forgetful_table_agrees_on_splits() {
        let mut memo = GrundyMemo::new(&Splits);
        for bytes in [128, 512, 4096] {
            let mut search = NimberSearch::new(&Coded(Splits)).with_table_bytes(bytes);
            for c in (0..24).rev() {
                assert_eq!(search.grundy(&c).unwrap(), memo.grundy(&c).unwrap(), "{c}");
            }
        }
    }

    #[test]
    fn agrees_with_memo_on_splits() {
        let mut memo = GrundyMemo::new(&Splits);
        let mut search = NimberSearch::new(&Splits);
        for c in 0..60 {
            assert_eq!(search.grundy(&c).unwrap(), memo.grundy(&c).unwrap(), "{c}");
        }
    }

    #[test]
    fn compact_table_agrees() {
        let mut memo = GrundyMemo::new(&Splits);
        let mut search = NimberSearch::new(&Coded(Splits));
        for c in (0..60).rev() {
            assert_eq!(search.grundy(&c).unwrap(), memo.grundy(&c).unwrap(), "{c}");
        }
        assert!(search.table.is_empty());
        // Values and "won" answers too large for the packed word go beside it.
        for s in [&mut search, &mut NimberSearch::new(&Coded(Splits))] {
            s.store_won(1000, 40, 1);
            s.store_won(1000, 3, 1);
            s.store_value(1000, 1 << 40, 1);
            assert_eq!(s.known(&1000), Some(1 << 40));
            assert_eq!(s.known_lost(&1000, 1 << 40), Some(true));
            assert_eq!(s.known_lost(&1000, 3), Some(false));
            s.store_won(1001, 40, 1);
            assert_eq!(s.known_lost(&1001, 40), Some(false));
            assert_eq!(s.known_lost(&1001, 41), None);
            assert_eq!(s.known(&1001), None);
        }
    }

    #[test]
    fn deep_chains_do_not_overflow() {
        /// One move: n -> n - 1.
        struct Chain;
        impl Ruleset for Chain {
            type Component = u32;
            fn options<F: FnMut(&[u32])>(&self, &c: &u32, mut emit: F) {
                if c > 1 {
                    emit(&[c - 1]);
                } else if c == 1 {
                    emit(&[]);
                }
            }
        }
        let mut s = NimberSearch::new(&Chain);
        assert_eq!(s.grundy(&200_000).unwrap(), Nimber(0));
        assert_eq!(s.grundy(&200_001).unwrap(), Nimber(1));
    }

    #[test]
    fn cycles_stop_cleanly() {
        /// 1 -> 2 -> 1.
        struct Loop;
        impl Ruleset for Loop {
            type Component = u8;
            fn options<F: FnMut(&[u8])>(&self, c: &u8, mut emit: F) {
                emit(&[3 - *c]);
            }
        }
        let mut s = NimberSearch::new(&Loop);
        assert!(matches!(s.grundy(&1), Err(SolveError::Cycle(_))));
    }

    /// Every value the compact table holds is in the filter asked while options are listed
    /// (stored by the search, loaded from a checkpoint, or taken from a shared table): a
    /// value missing there would cost the search its cut-off.
    #[test]
    fn filter_holds_every_value_of_the_table() {
        fn check<R: Ruleset>(s: &NimberSearch<'_, R>) -> usize {
            let mut n = 0;
            s.codes.for_each(|code, w| {
                let v = w & UNKNOWN;
                if v < crate::code_table::NARROW_VALUES {
                    assert!(s.filter.may_hold(code, v), "code {code} value {v}");
                    n += 1;
                }
            });
            n
        }
        let rules = Coded(RandomRules { seed: 7 });
        for bytes in [128, 4096, usize::MAX] {
            let mut s = NimberSearch::new(&rules).with_table_bytes(bytes);
            for c in (0..2000).rev().step_by(7) {
                s.grundy(&c).unwrap();
            }
            assert!(check(&s) > 0);
            let mut saved = Vec::new();
            s.saved_entries(|c, w| saved.push((c, w)));
            let mut back = NimberSearch::new(&rules);
            back.load_entries(&saved, s.table_bytes());
            assert!(check(&back) > 0);
        }
        let shared = SharedTable::new();
        let mut a = NimberSearch::new(&rules).share(&shared);
        for c in (0..3000).step_by(11) {
            a.grundy(&c).unwrap();
        }
        let mut b = NimberSearch::new(&rules).share(&shared);
        for c in (0..3000).step_by(13) {
            b.grundy(&c).unwrap();
        }
        assert!(check(&b) > 0);
    }

    #[test]
    fn limit_stops_cleanly() {
        let mut s = NimberSearch::new(&Splits).with_limit(10);
        assert!(matches!(s.grundy(&50), Err(SolveError::Limit(_))));
    }

    /// Nim heaps (a heap of n has the options 0..n, so its value is n) with codes `n << shift`:
    /// wide codes leave the compact table few "won" bits, and values past 252 do not fit
    /// its narrow slots.
    struct ShiftedNim(u32);
    impl Ruleset for ShiftedNim {
        type Component = u32;
        fn options<F: FnMut(&[u32])>(&self, &c: &u32, mut emit: F) {
            for k in (0..c).rev() {
                emit(if k == 0 { &[] } else { std::slice::from_ref(&k) });
            }
        }
        fn size_hint(&self, c: &u32) -> usize {
            *c as usize
        }
        fn code(&self, c: &u32) -> Option<u64> {
            Some((*c as u64) << self.0)
        }
    }

    proptest! {
        /// Every width of code: values large and small, and "won" answers past what the
        /// table's words hold, come out right (in tables that keep most of what they learn:
        /// nim heaps of 300 take the search exponential time in a table that keeps nothing).
        #[test]
        fn compact_table_holds_or_hands_over(shift in 0u32..56, heaps in proptest::collection::vec(0u32..300, 1..6), bytes in prop_oneof![Just(64usize << 10), Just(usize::MAX)]) {
            let rules = ShiftedNim(shift);
            let mut s = NimberSearch::new(&rules).with_table_bytes(bytes);
            let mut sum = 0;
            for &h in &heaps {
                prop_assert_eq!(s.grundy(&h).unwrap(), Nimber(h as u64));
                sum ^= h as u64;
            }
            prop_assert!(s.is_lost(&heaps, Nimber(sum)).unwrap());
            prop_assert!(!s.is_lost(&heaps, Nimber(sum ^ 1)).unwrap());
        }

        #[test]
        fn agrees_with_memo_on_random_rules(seed: u64, sums in proptest::collection::vec(0u32..40, 0..4), n in 0u64..6) {
            let rules = RandomRules { seed };
            let mut memo = GrundyMemo::new(&rules);
            let mut search = NimberSearch::new(&rules);
            // Ask questions in an order that leaves partial tables behind.
            let want = memo.grundy_sum(&sums).unwrap();
            prop_assert_eq!(search.is_lost(&sums, Nimber(n)).unwrap(), want == Nimber(n));
            prop_assert_eq!(search.grundy_sum(&sums).unwrap(), want);
            for c in 0..40 {
                prop_assert_eq!(search.grundy(&c).unwrap(), memo.grundy(&c).unwrap());
            }
            // A compact table far too small to keep what the search learns: it forgets
            // and works answers out again, and they come out the same.
            let coded = Coded(RandomRules { seed });
            let mut tight = NimberSearch::new(&coded).with_table_bytes(128);
            prop_assert_eq!(tight.is_lost(&sums, Nimber(n)).unwrap(), want == Nimber(n));
            for c in (0..40).rev() {
                prop_assert_eq!(tight.grundy(&c).unwrap(), memo.grundy(&c).unwrap());
            }
            prop_assert_eq!(tight.table_bytes(), 128);
            // Valuing small components by mex gives the same answers.
            let mut mixed = NimberSearch::new(&rules).exact_up_to(20);
            prop_assert_eq!(mixed.is_lost(&sums, Nimber(n)).unwrap(), want == Nimber(n));
            for c in (0..40).rev() {
                prop_assert_eq!(mixed.grundy(&c).unwrap(), memo.grundy(&c).unwrap());
            }
        }
    }
}
