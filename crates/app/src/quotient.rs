//! Misère quotients for every front end: `grundy quotient GAME --heaps N` ([`compute`]),
//! and the misère sums of heap games that `solve`, `play` and the web answer through the
//! quotient ([`misere_outcomes`]): a product in the quotient of the heaps up to the largest
//! heap of the sum (kept in the store, read back only when its checksum holds) when it
//! covers them, else a search in which every sum of the heaps it covers is a product; the
//! quotient is grown (up to [`SOLVE_MAX_ORDER`]) while that search has not finished.

use crate::solve::{AppError, ErrorKind};
use grundy_core::HeapRules;
use grundy_core::Outcome;
use grundy_games::heap::HeapGame;
use grundy_solve::quotient::{
    generator_name, thread_cpu_time, Element, MisereOracle, OracleMemo, Periodicity, Quotient, QuotientError,
    SearchStop,
};
use grundy_store::Store;
use serde::Serialize;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The largest quotient a misère solve builds; past it the search answers (every sum of the
/// heaps the quotient covers still a product: [`misere_outcomes`]).
pub const SOLVE_MAX_ORDER: usize = 1024;

/// The most positions the search of one heap's step may keep while a misère solve builds
/// the quotient (a step that needs more stops the building there: the solve's search is then
/// cheaper than the quotient of one more heap).
pub const SOLVE_MAX_STATES: usize = 150_000;

/// The most time a misère solve spends building the quotient beyond the store's (the
/// search answers with the quotient reached): CPU time of the solving thread, like every
/// slice of [`grow_for_solve`].
pub const SOLVE_BUILD_TIME: Duration = Duration::from_millis(2000);

/// What `grundy quotient` asks.
#[derive(Clone, Debug)]
pub struct QuotientRequest {
    /// The game's code (`0.75`, `sub:1,3,4`, ...; read by [`HeapGame::parse`]).
    pub game: String,
    /// Heaps 0..=heaps.
    pub heaps: u64,
    /// Stop rather than pass this order.
    pub max_order: usize,
    /// Stop rather than let the search or the check of one heap pass this many states
    /// (the memory budget stops it too).
    pub max_states: usize,
}

/// A generator of a presentation.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GeneratorOut {
    /// Its name (`a`, `b`, ...).
    pub name: String,
    /// The heap it stands for.
    pub heap: u64,
}

/// The element of one heap.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HeapElementOut {
    /// The heap.
    pub heap: u64,
    /// Its element, as a word in the generators (`1` for the identity).
    pub element: String,
    /// Whether the heap alone is a misère P-position.
    pub p: bool,
}

/// The periodicity the misère periodicity theorem proves.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PeriodOut {
    /// First heap of the periodic part (n0).
    pub preperiod: u64,
    /// The period (p).
    pub period: u64,
    /// The most tokens a move removes (t).
    pub max_removal: u64,
    /// The argument, in words.
    pub argument: String,
}

/// The misère quotient of a heap game, as `grundy quotient` prints it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct QuotientReport {
    /// The game's canonical code.
    pub game: String,
    /// The quotient covers heaps 0..=heaps.
    pub heaps: u64,
    /// Number of elements.
    pub order: usize,
    /// The generators, one for each heap that brought new elements.
    pub generators: Vec<GeneratorOut>,
    /// The relations, `lhs = rhs`, in the order found.
    pub relations: Vec<String>,
    /// The elements that are misère P-positions.
    pub p_portion: Vec<String>,
    /// Every element, in order (the least sums first).
    pub elements: Vec<String>,
    /// The element of every heap 0..=heaps.
    pub heap_elements: Vec<HeapElementOut>,
    /// The last heap that added elements (0: none): the quotient of heaps up to N is that of
    /// heaps up to this one.
    pub stable_from: u64,
    /// The periodicity of the heaps' elements, when proven (then the quotient of every heap
    /// is this one: `finite`).
    pub period: Option<PeriodOut>,
    /// Whether the quotient of the whole game is proven to be this one.
    pub finite: bool,
}

/// Reads a heap game's code, with the reason when it does not read.
pub fn parse_game(code: &str) -> Result<HeapGame, AppError> {
    HeapGame::parse(code).map_err(|e| {
        AppError::bad(format!(
            "invalid game '{}': column {}: {}",
            grundy_core::parse::shorten(code),
            e.span.column,
            e.message
        ))
    })
}

/// The kind of the store's entries of quotients.
pub const KIND_QUOTIENT: &str = "quotient";

/// The store's key of a game's quotient.
pub fn quotient_key(game: &str) -> String {
    format!("quotient/{game}")
}

/// A kept quotient: the game's name, then how far a solve found it may grow (0: no
/// limit met; else the heap whose step would pass [`SOLVE_MAX_ORDER`]), then the quotient's
/// own bytes with their checksum ([`Quotient::to_bytes`]).
fn encode(game: &str, capped_at: u64, q: &Quotient) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(game.len() as u32).to_le_bytes());
    out.extend_from_slice(game.as_bytes());
    out.extend_from_slice(&capped_at.to_le_bytes());
    out.extend_from_slice(&q.to_bytes());
    out
}

/// Reads [`encode`] back: `None` for another game's entry, a damaged one, or one whose
/// checksum fails.
fn decode(game: &str, rules: &HeapRules, payload: &[u8]) -> Option<(u64, Quotient)> {
    let len = u32::from_le_bytes(payload.get(..4)?.try_into().ok()?) as usize;
    let name = payload.get(4..4 + len)?;
    if name != game.as_bytes() {
        return None;
    }
    let capped = u64::from_le_bytes(payload.get(4 + len..12 + len)?.try_into().ok()?);
    let q = Quotient::from_bytes(rules.clone(), payload.get(12 + len..)?)?;
    Some((capped, q))
}

/// The quotient of `game` kept in the store, if any reads back whole.
pub fn load(store: &Store, game: &str, rules: &HeapRules) -> Option<(u64, Quotient)> {
    let (_, payload) = store.get(&quotient_key(game)).ok()??;
    decode(game, rules, &payload)
}

/// Keeps `q` as `game`'s quotient (a failure to write only loses the cache).
pub fn save(store: &Store, game: &str, capped_at: u64, q: &Quotient) {
    let entry = grundy_store::NewEntry {
        key: &quotient_key(game),
        kind: KIND_QUOTIENT,
        family: game,
        summary: &format!(
            "misère quotient of {game} to heap {}, order {}",
            q.heaps(),
            q.order()
        ),
    };
    let _ = store.put(&entry, &encode(game, capped_at, q));
}

/// Checks a kept quotient for `grundy db verify`.
pub fn check(key: &str, payload: &[u8]) -> Result<(), String> {
    let game = key.strip_prefix("quotient/").ok_or("not a quotient key")?;
    let rules = HeapGame::parse(game).map_err(|e| e.message)?.rules().clone();
    decode(game, &rules, payload)
        .map(|_| ())
        .ok_or_else(|| "the quotient does not read back (checksum or layout)".to_string())
}

/// The error of a quotient that stopped.
fn stopped(e: QuotientError) -> AppError {
    match e {
        // The budget passed, and how to raise it.
        QuotientError::Memory { .. } => {
            let report = grundy_core::memory::Share::whole().report();
            AppError::new(ErrorKind::Memory, format!("{e}: {report}"))
        }
        QuotientError::VerifyLimit { .. } => AppError::new(
            ErrorKind::Limit,
            format!("{e} (`--max-states` raises the limit, within the memory budget)"),
        ),
        QuotientError::MaxOrder { .. } => AppError::new(ErrorKind::Limit, e.to_string()),
        QuotientError::Halted => AppError::new(ErrorKind::Cancelled, e.to_string()),
    }
}

/// Computes the quotient of a request (from the store's when it covers the heaps asked),
/// and its report.
pub fn compute(req: &QuotientRequest, store: Option<&Store>) -> Result<QuotientReport, AppError> {
    let game = parse_game(&req.game)?;
    let name = game.name().to_string();
    let rules = game.rules().clone();
    let kept = store.and_then(|s| load(s, &name, &rules));
    let kept_heaps = kept.as_ref().map_or(0, |(_, q)| q.heaps());
    let mut q = match kept {
        Some((_, q)) if q.heaps() >= req.heaps => q.truncated(req.heaps),
        Some((_, q)) if q.order() <= req.max_order => q,
        _ => Quotient::new(rules.clone()),
    }
    .with_max_order(req.max_order)
    .with_max_states(req.max_states);
    let result = q.extend_to(req.heaps);
    if let Some(s) = store {
        if q.heaps() > kept_heaps {
            save(s, &name, 0, &q);
        }
    }
    result.map_err(stopped)?;
    Ok(report(&name, &q))
}

/// The report of a quotient.
pub fn report(game: &str, q: &Quotient) -> QuotientReport {
    let names: Vec<String> = (0..q.order() as u32).map(|e| q.element_name(e)).collect();
    let period = q.periodicity().map(|p| PeriodOut {
        preperiod: p.preperiod,
        period: p.period,
        max_removal: p.max_removal,
        argument: format!(
            "the element of heap n + {} is that of heap n for every n from {} to {} (the heaps computed; at least 2*{} + 2*{} + {} = {} are needed, t = {} the most tokens a move removes), and no heap after {} adds an element: by the misère periodicity theorem (Plambeck and Siegel) this holds for every n >= {}, and the quotient of the whole game is this one",
            p.period,
            p.preperiod,
            q.heaps() - p.period,
            p.preperiod,
            p.period,
            p.max_removal,
            2 * p.preperiod + 2 * p.period + p.max_removal,
            p.max_removal,
            p.preperiod + p.period + p.max_removal,
            p.preperiod
        ),
    });
    QuotientReport {
        game: game.to_string(),
        heaps: q.heaps(),
        order: q.order(),
        generators: q
            .generators()
            .iter()
            .enumerate()
            .map(|(i, &h)| GeneratorOut {
                name: generator_name(i),
                heap: h,
            })
            .collect(),
        relations: q
            .relations()
            .iter()
            .map(|r| format!("{} = {}", q.word_name(&r.lhs), q.word_name(&r.rhs)))
            .collect(),
        p_portion: q.p_portion().iter().map(|&e| names[e as usize].clone()).collect(),
        heap_elements: q
            .heap_elements()
            .iter()
            .enumerate()
            .map(|(h, &e)| HeapElementOut {
                heap: h as u64,
                element: names[e as usize].clone(),
                p: q.is_p(e),
            })
            .collect(),
        elements: names,
        stable_from: q.last_growth(),
        finite: period.is_some(),
        period,
    }
}

/// The quotient kept in the store for `game`, read back whole, and the heap a solve found
/// its growth stops at (0: none); else the quotient of heap 0.
pub fn kept_quotient(game: &str, rules: &HeapRules, store: Option<&Store>) -> (u64, Quotient) {
    store
        .and_then(|s| load(s, game, rules))
        .unwrap_or_else(|| (0, Quotient::new(rules.clone())))
}

/// Grows `q` (kept in the store as `game`'s, with `cap`: see [`kept_quotient`]) toward heap
/// `largest` for a misère solve, for at most `time` of the thread's CPU time: heap by heap
/// until it covers `largest`, its period is proven, the next heap would pass
/// [`SOLVE_MAX_ORDER`], [`SOLVE_MAX_STATES`] or the memory left (then `cap` is set there and kept: solves do not try that heap again),
/// or the time is up (a step that ran [`SOLVE_STEP_TIME`] without finishing is not tried
/// again either). `Err` only when `halt` (the solve's own stop) said to stop. The growth's
/// searches go on from the outcomes of `memo` and leave theirs there (kept even when the time
/// is up: [`Quotient::extend_until_with`]), for the solve's search and the next growth.
#[allow(clippy::too_many_arguments)]
pub fn grow_for_solve(
    game: &str,
    q: &mut Quotient,
    cap: &mut u64,
    largest: u64,
    store: Option<&Store>,
    halt: &dyn Fn() -> bool,
    time: Duration,
    memo: &mut OracleMemo,
) -> Result<(), AppError> {
    if !can_grow(q, *cap, largest) {
        return Ok(());
    }
    let mut grown = std::mem::replace(q, Quotient::new(q.rules().clone()))
        .with_max_order(SOLVE_MAX_ORDER)
        .with_max_states(SOLVE_MAX_STATES);
    let before = (grown.heaps(), *cap);
    let slice = CpuSlice::start(time);
    let stop = || halt() || slice.over();
    let mut result = Ok(());
    while can_grow(&grown, *cap, largest) {
        let step = CpuSlice::start(SOLVE_STEP_TIME);
        match grown.extend_until_with(grown.heaps() + 1, &stop, memo) {
            Ok(()) => {}
            Err(QuotientError::MaxOrder { heap, .. }) => {
                *cap = heap;
                break;
            }
            Err(QuotientError::Halted) if halt() => {
                result = Err(AppError::new(ErrorKind::Cancelled, "stopped"));
                break;
            }
            Err(QuotientError::Halted) => {
                // Out of time: a step that took longer than SOLVE_STEP_TIME without
                // finishing is not tried again by solves (`grundy quotient` still goes on).
                if step.used() > SOLVE_STEP_TIME {
                    *cap = grown.heaps() + 1;
                }
                break;
            }
            // Past the memory left, or the limit of a step's search: the search answers.
            Err(e) => {
                *cap = e.reached().map_or(0, |r| r + 1);
                break;
            }
        }
    }
    if let Some(s) = store {
        if (grown.heaps(), *cap) != before {
            save(s, game, *cap, &grown);
        }
    }
    *q = grown;
    result
}

/// A slice of the CPU time of the thread that asks (the thread that searches or grows the
/// quotient), so that the split of a solve between search and growth is the same on a
/// loaded machine as on an idle one (a slice of wall time holds less work when other
/// programs share the cores). Wall time where the thread's clock cannot be read. The user's
/// limits (the solve's `halt`: its time and memory) stay in wall time.
struct CpuSlice {
    cpu: Option<Duration>,
    wall: Instant,
    len: Duration,
    /// The wall time (from `wall`) before which the slice cannot be over: the thread's CPU
    /// time grows no faster than the wall clock, so the clock (a system call) is read only
    /// a few times a slice, not at every look.
    next_look: Cell<Duration>,
}

impl CpuSlice {
    fn start(len: Duration) -> CpuSlice {
        CpuSlice {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
            len,
            next_look: Cell::new(Duration::ZERO),
        }
    }

    /// The CPU time used since the start (wall time where the clock cannot be read).
    fn used(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        }
    }

    /// Whether the slice is used up.
    fn over(&self) -> bool {
        let wall = self.wall.elapsed();
        if wall < self.next_look.get() {
            return false;
        }
        let used = self.used();
        if used > self.len {
            return true;
        }
        self.next_look.set(wall + (self.len - used));
        false
    }
}

/// Whether a solve may grow `q` toward heap `largest` (see [`grow_for_solve`]).
fn can_grow(q: &Quotient, cap: u64, largest: u64) -> bool {
    let target = if cap > 0 { largest.min(cap - 1) } else { largest };
    q.heaps() < target && q.periodicity().is_none()
}

/// The quotient a misère solve of heaps up to `largest` uses: the store's, grown (and
/// kept) for at most [`SOLVE_BUILD_TIME`] ([`grow_for_solve`]). It may cover fewer heaps
/// than asked: the caller checks ([`Quotient::element_of`]).
pub fn solving_quotient(
    game: &str,
    rules: &HeapRules,
    largest: u64,
    store: Option<&Store>,
    halt: &dyn Fn() -> bool,
) -> Result<Quotient, AppError> {
    let (mut cap, mut q) = kept_quotient(game, rules, store);
    let mut memo = OracleMemo::default();
    grow_for_solve(
        game,
        &mut q,
        &mut cap,
        largest,
        store,
        halt,
        SOLVE_BUILD_TIME,
        &mut memo,
    )?;
    Ok(q)
}

/// How long (CPU time of the solving thread, so that a loaded machine does not change the
/// split) a misère solve searches with the quotient the store holds before it spends
/// as long growing the quotient (then it searches again, for twice as long, keeping what it
/// found, and so on: [`misere_outcomes`]). A sum the search settles within this time is
/// answered as soon as without the quotient's growth. Short: the search of small sums is
/// fast, and a quotient of a few more heaps (a product for every sum of them) shrinks it
/// most, so the two alternate in short, doubling slices.
pub const SEARCH_FIRST: Duration = Duration::from_millis(50);

/// A misère solve with a heap larger than this grows the quotient (for [`SEARCH_FIRST`])
/// before it searches ([`misere_outcomes`]).
pub const LEARN_FIRST_HEAP: u64 = 100;

/// A step of the quotient (one more heap) that a solve's growth ran this long (CPU time)
/// without finishing is not tried again by solves ([`grow_for_solve`] keeps its heap as the cap).
pub const SOLVE_STEP_TIME: Duration = Duration::from_secs(8);

/// How a misère solve of a sum of heaps is answered ([`misere_outcomes`]).
pub enum MisereAnswer {
    /// The quotient covers every heap of the sum, hence every heap of every sum a move
    /// leads to (a move leaves smaller heaps): each outcome is a product ([`ByProducts`]).
    Products(Box<Quotient>),
    /// The outcome of the sum and of each sum its moves lead to (in the order of `after`),
    /// searched with every sum of the heaps the quotient covers a product.
    Searched(Outcome, Vec<Outcome>),
}

/// The misère outcomes a solve of a sum of heaps of `game` needs: of the sum `heaps`, and
/// of each sum its moves lead to (`after`, asked only when a search needs them: a sum of
/// huge heaps has millions). When the quotient covers the heaps, [`MisereAnswer::Products`];
/// else each sum is searched ([`MisereOracle`]), every sum of the heaps the quotient covers
/// a product. The search goes first with the quotient the store holds, for
/// [`SEARCH_FIRST`]; when it has not finished, the quotient is grown for as long
/// ([`grow_for_solve`], kept in the store) and the search goes on, with the outcomes found
/// so far, for twice as long, and so on until it finishes or the quotient covers the heaps
/// (once the quotient cannot grow further, without a time limit). A heap past
/// [`LEARN_FIRST_HEAP`] grows the quotient first. The slices are of the thread's CPU time;
/// `halt` is the solve's stop (its wall time and memory, looked at throughout); `limit` the
/// most positions the search keeps.
pub fn misere_outcomes(
    game: &str,
    rules: &HeapRules,
    heaps: &[u64],
    after: &mut dyn FnMut() -> Vec<Vec<u64>>,
    store: Option<&Store>,
    halt: &dyn Fn() -> bool,
    limit: usize,
) -> Result<MisereAnswer, AppError> {
    let sums = Sums { heaps, limit };
    searching_first(game, rules, &sums, after, store, halt, SEARCH_FIRST)
}

/// The sum a solve asks of [`misere_outcomes`].
struct Sums<'a> {
    heaps: &'a [u64],
    limit: usize,
}

/// Whether `q` gives the element of every heap of `heaps` (and so of every smaller heap).
pub fn covers(q: &Quotient, heaps: &[u64]) -> bool {
    q.periodicity().is_some() || heaps.iter().all(|&h| h <= q.heaps())
}

/// [`misere_outcomes`], the first search limited to `first`.
fn searching_first(
    game: &str,
    rules: &HeapRules,
    sums: &Sums<'_>,
    after: &mut dyn FnMut() -> Vec<Vec<u64>>,
    store: Option<&Store>,
    halt: &dyn Fn() -> bool,
    first: Duration,
) -> Result<MisereAnswer, AppError> {
    let Sums { heaps, limit } = *sums;
    let largest = heaps.iter().copied().max().unwrap_or(0);
    let (mut cap, mut q) = kept_quotient(game, rules, store);
    let mut memo = OracleMemo::default();
    let mut slice = first.max(Duration::from_millis(1));
    if largest > LEARN_FIRST_HEAP {
        // A heap this large has too many options for a search to settle without the
        // quotient: grow it first.
        grow_for_solve(game, &mut q, &mut cap, largest, store, halt, slice, &mut memo)?;
    }
    let mut sums_after: Option<Vec<Vec<u64>>> = None;
    loop {
        if covers(&q, heaps) {
            return Ok(MisereAnswer::Products(Box::new(q)));
        }
        let after_sums = sums_after.get_or_insert_with(&mut *after);
        let grow = can_grow(&q, cap, largest);
        let searching = CpuSlice::start(slice);
        let stop = || halt() || (grow && searching.over());
        let mut oracle = MisereOracle::with_memo(&q, memo).with_limit(limit);
        let found = outcomes_of(&q, &mut oracle, heaps, after_sums, &stop);
        memo = oracle.detach();
        match found {
            Ok((o, rest)) => return Ok(MisereAnswer::Searched(o, rest)),
            Err(SearchStop::Halted) if grow && !halt() => {}
            Err(e) => return Err(search_error(e)),
        }
        // As long as the search went: a sum the search settles soon never waits long for
        // a quotient it does not need, and one it does not settle gets the quotient soon.
        grow_for_solve(game, &mut q, &mut cap, largest, store, halt, slice, &mut memo)?;
        slice *= 2;
    }
}

/// The outcomes of `heaps` and of every sum of `after`, by `q` or else by `oracle`.
fn outcomes_of(
    q: &Quotient,
    oracle: &mut MisereOracle<'_>,
    heaps: &[u64],
    after: &[Vec<u64>],
    halt: &dyn Fn() -> bool,
) -> Result<(Outcome, Vec<Outcome>), SearchStop> {
    let mut one = |h: &[u64]| match q.outcome(h) {
        Some(o) => Ok(o),
        None => oracle.outcome(h, halt),
    };
    let first = one(heaps)?;
    let rest = after.iter().map(|h| one(h)).collect::<Result<Vec<_>, _>>()?;
    Ok((first, rest))
}

/// A misère sum of heaps that a quotient covers ([`covers`]), answered by products: the
/// element of each heap and, for each heap, the product of the others, so the outcome of
/// the sum and of each of its moves are a product or two and a lookup, whatever the size of
/// the heaps (the element of a heap past those computed follows from the proven period).
pub struct ByProducts<'q> {
    q: &'q Quotient,
    period: Option<Periodicity>,
    /// The element of the whole sum.
    whole: Element,
    /// For each heap of the sum, the product of the elements of the others.
    others: Vec<Element>,
}

impl<'q> ByProducts<'q> {
    /// The sum `heaps` by `q`; `None` when `q` does not cover them.
    pub fn new(q: &'q Quotient, heaps: &[u64]) -> Option<ByProducts<'q>> {
        if !covers(q, heaps) {
            return None;
        }
        let mut this = ByProducts {
            q,
            period: q.periodicity(),
            whole: 0,
            others: Vec::with_capacity(heaps.len()),
        };
        let elems: Vec<Element> = heaps.iter().map(|&h| this.element(h)).collect::<Option<_>>()?;
        // Products of the heaps before and after each one.
        let mut before = 0;
        let mut suffix = vec![0; elems.len() + 1];
        for i in (0..elems.len()).rev() {
            suffix[i] = q.mul(elems[i], suffix[i + 1]);
        }
        for (i, &e) in elems.iter().enumerate() {
            this.others.push(q.mul(before, suffix[i + 1]));
            before = q.mul(before, e);
        }
        this.whole = before;
        Some(this)
    }

    /// The element of heap `h`: from the table, else by the period (`None` past the
    /// heaps covered).
    #[inline]
    fn element(&self, h: u64) -> Option<Element> {
        if let Some(e) = self.q.heap_element(h) {
            return Some(e);
        }
        let per = self.period?;
        self.q
            .heap_element(per.preperiod + (h - per.preperiod) % per.period)
    }

    /// The outcome of an element.
    fn outcome_of(&self, e: Element) -> Outcome {
        if self.q.is_p(e) {
            Outcome::Second
        } else {
            Outcome::First
        }
    }

    /// The misère outcome of the sum.
    pub fn outcome(&self) -> Outcome {
        self.outcome_of(self.whole)
    }

    /// The misère outcome, for the player then to move, after heap number `i` (from 0) of
    /// the sum becomes the heaps `to` (each smaller than it, so covered): `None` only when
    /// `i` is not a heap of the sum or a heap of `to` is not covered.
    #[inline]
    pub fn after(&self, i: usize, to: &[u64]) -> Option<Outcome> {
        let mut e = *self.others.get(i)?;
        for &h in to {
            e = self.q.mul(e, self.element(h)?);
        }
        Some(self.outcome_of(e))
    }
}

/// The error of a misère search that stopped.
fn search_error(e: SearchStop) -> AppError {
    match e {
        SearchStop::Limit(n) => AppError::new(
            ErrorKind::Limit,
            format!("the misère search passed {n} positions (raise --max-positions)"),
        ),
        SearchStop::Memory => AppError::new(
            ErrorKind::Memory,
            grundy_core::memory::Share::whole().report().to_string(),
        ),
        SearchStop::Halted => AppError::new(ErrorKind::Cancelled, "stopped"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::{solve_with, Limits, SolveOptions, SolveRequest};
    use grundy_core::Game;
    use grundy_solve::quotient::DEFAULT_MAX_STATES;
    use grundy_solve::{brute, Convention};

    fn misere(family: &str, position: &str, store: Option<&Store>) -> crate::solve::SolveResponse {
        let req = SolveRequest {
            family: family.into(),
            position: position.into(),
            misere: true,
            ..SolveRequest::default()
        };
        let opts = SolveOptions {
            store,
            ..SolveOptions::default()
        };
        solve_with(&req, &Limits::local(1 << 22), opts).unwrap()
    }

    #[test]
    fn misere_solves_by_the_quotient_match_the_reference() {
        // 0.75 has a finite quotient (every heap covered); Kayles only to heap 8 (beyond,
        // the whole-position search answers): both agree with the reference solver.
        for (code, positions) in [
            ("0.75", &["1 2 5", "3 3 7", "4 9 10", "2 2 2 6"][..]),
            ("0.77", &["1 2 5", "3 3 7", "4 8", "2 5 6"][..]),
            ("sub:1,2", &["1 2 5", "3 3 7", "4 9 10"][..]),
        ] {
            let game = HeapGame::parse(code).unwrap();
            for &text in positions {
                let p = game.parse_position(text).unwrap();
                let a = misere(code, text, None);
                assert_eq!(
                    a.outcome,
                    brute::outcome(&game, &p, Convention::Misere),
                    "{code} {text}"
                );
                let mut got = a.winning_moves.clone();
                got.sort();
                assert_eq!(
                    got,
                    brute::winning_moves(&game, &p, Convention::Misere),
                    "{code} {text}"
                );
            }
        }
    }

    #[test]
    fn a_search_that_grows_the_quotient_keeps_its_answers_right() {
        // The first search cut at once: the quotient is grown between searches, and the
        // outcomes found before go on with the larger one. Checked against the
        // whole-position search, with and without a store.
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb"), "test").unwrap();
        for (code, sizes) in [
            ("0.07", [[3u64, 9, 11], [5, 6, 12]]),
            ("0.77", [[3, 9, 11], [2, 7, 12]]),
            ("0.6", [[3, 5, 10], [2, 7, 9]]),
        ] {
            let rules = HeapGame::parse(code).unwrap().rules().clone();
            let mut reference = grundy_solve::MisereSearch::new(&rules);
            for (i, heaps) in sizes.into_iter().enumerate() {
                let after: Vec<Vec<u64>> = vec![vec![heaps[0], heaps[1]], vec![1, heaps[2], 4]];
                let sums = Sums {
                    heaps: &heaps,
                    limit: usize::MAX,
                };
                let kept = (i == 1).then_some(&store);
                let found = searching_first(
                    code,
                    &rules,
                    &sums,
                    &mut || after.clone(),
                    kept,
                    &|| false,
                    Duration::ZERO,
                )
                .unwrap();
                let (o, rest) = match found {
                    MisereAnswer::Searched(o, rest) => (o, rest),
                    MisereAnswer::Products(q) => {
                        let by = ByProducts::new(&q, &heaps).expect("covered");
                        let rest = after.iter().map(|a| q.outcome(a).expect("covered")).collect();
                        (by.outcome(), rest)
                    }
                };
                assert_eq!(o, reference.outcome(&heaps).unwrap(), "{code} {heaps:?}");
                for (a, r) in after.iter().zip(rest) {
                    assert_eq!(r, reference.outcome(a).unwrap(), "{code} {a:?}");
                }
            }
        }
    }

    #[test]
    fn huge_heaps_of_a_finite_quotient() {
        let a = misere("0.75", "100000 99999 3", None);
        // R8: 100000 is b (even heaps from 8), 99999 is ab^2 (odd), 3 is a: b·ab^2·a = b^3 = b, an N-position.
        assert_eq!(a.outcome, grundy_core::Outcome::First);
        assert!(!a.winning_moves.is_empty());
    }

    #[test]
    fn kept_quotients_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.redb"), "test").unwrap();
        // A heap past LEARN_FIRST_HEAP: the solve grows the quotient first, and keeps it.
        let _ = misere("0.75", "4 9 1000", Some(&store));
        let rules = HeapGame::parse("0.75").unwrap().rules().clone();
        let (_, kept) = load(&store, "0.75", &rules).expect("kept");
        assert!(kept.periodicity().is_some());
        // A damaged entry does not read back: it is recomputed.
        let mut bytes = encode("0.75", 0, &kept);
        let n = bytes.len();
        bytes[n / 2] ^= 1;
        assert!(decode("0.75", &rules, &bytes).is_none());
        assert!(decode("0.77", &rules, &encode("0.75", 0, &kept)).is_none());
        let entry = grundy_store::NewEntry {
            key: &quotient_key("0.75"),
            kind: KIND_QUOTIENT,
            family: "0.75",
            summary: "damaged",
        };
        store.put(&entry, &bytes).unwrap();
        assert!(load(&store, "0.75", &rules).is_none());
        assert!(check(&quotient_key("0.75"), &bytes).is_err());
        // Another position (the first one's answer is kept under its own key).
        let again = misere("0.75", "4 9 1001", Some(&store));
        assert_eq!(again.outcome, misere("0.75", "4 9 1001", None).outcome);
        assert!(load(&store, "0.75", &rules).is_some());
    }

    #[test]
    fn bad_codes_are_refused_with_the_reason() {
        let req = QuotientRequest {
            game: "0.8".into(),
            heaps: 10,
            max_order: 100,
            max_states: DEFAULT_MAX_STATES,
        };
        let e = compute(&req, None).unwrap_err();
        assert!(e.is_input(), "{e}");
        assert!(e.message.contains("column"), "{e}");
        let req = QuotientRequest {
            game: "0.75".into(),
            heaps: 10,
            max_order: 4,
            max_states: DEFAULT_MAX_STATES,
        };
        let e = compute(&req, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(e.message.contains("complete to heap"), "{e}");
        let r = compute(
            &QuotientRequest {
                game: "0.75".into(),
                heaps: 24,
                max_order: 100,
                max_states: DEFAULT_MAX_STATES,
            },
            None,
        )
        .unwrap();
        assert_eq!(r.order, 8);
        assert!(r.finite);
    }
}
