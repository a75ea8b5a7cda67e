//! The pruned search ([`NimberSearch`]) on several threads, with the same answers as on one.
//!
//! The work is split at the top of the tree, into queries that do not depend on each other:
//! - **the moves of the position**: each distinct sum the moves lead to ("is it lost?", or
//!   its exact value with `values_of_moves`) is one job;
//! - **the value of the position**: its components but the largest are valued exactly (one
//!   job), then the largest, `L`, by rounds `m = 0, 1, ...`: `L + *m` is lost exactly when no
//!   option `O` of `L` has `O + *m` lost, so each option is a job of the round; the first
//!   option found lost ends the round (the others are given up) and the next begins. The
//!   first round with no option lost gives the value: `m`. (A round already settled by the
//!   moves is skipped: the position's own round is lost exactly when some move wins.)
//!
//! Each thread runs its own [`NimberSearch`] (its private, forgetful table stays in its
//! core's cache), and all of them share one [`SharedTable`]: before a thread searches a
//! component it asks the shared table, and every answer that took some work goes there, so
//! a region one thread has worked out is not worked out again by another. Answers are facts
//! about components, so whichever thread finds them, and in whatever order, the answers of
//! the analysis are those of one thread.
//!
//! The calling thread coordinates: it reports progress and writes the checkpoint (the moves
//! settled in order so far, and the shared table), so checkpoints from a run on several
//! threads resume on any number of threads.

use crate::analysis::{Analysis, MoveReport};
use crate::code_table::{CodeTable, Word, ELSEWHERE, NOTHING, UNKNOWN, WEIGHT};
use crate::search::{sort_and_cancel, NimberSearch, Progress, SearchStats, ANALYSIS_FREE_BYTES};
use crate::search_checkpoint::{Saved, Saver, Settled, TableSource};
use crate::SolveError;
use foldhash::fast::RandomState;
use grundy_core::{Game, Nimber, Outcome, Ruleset};
use hashbrown::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Shards of the shared table, each behind its own lock.
const SHARDS: usize = 16;

/// Each shard of the shared table grows freely to this many bytes (then as
/// [`CodeTable`] decides: after many evictions).
const SHARD_FREE_BYTES: usize = 256 << 10;

/// The threads to use by default: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `old` with what `new` adds: a value when `new` has one, every "won" bit of both, the
/// larger work weight. (Both are facts about one component, so they never disagree.)
pub(crate) fn merge(old: Word, new: Word) -> Word {
    let value = match new & UNKNOWN {
        UNKNOWN | ELSEWHERE => old & UNKNOWN,
        v => v,
    };
    let weight = (old & WEIGHT).max(new & WEIGHT);
    ((old | new) & !0xFFFF_FFFF) | weight | value
}

fn worth(w: Word) -> u64 {
    let valued = (w & UNKNOWN != UNKNOWN) as u64;
    valued << 8 | (w & WEIGHT) >> 24
}

/// The table of the searches of several threads: `SHARDS` forgetful `CodeTable`s, a
/// code going to the shard its hash picks, each behind a lock (a lookup or an update takes
/// one lock, held for one bucket's work).
pub struct SharedTable {
    shards: Vec<Mutex<CodeTable>>,
    len: AtomicUsize,
}

impl Default for SharedTable {
    fn default() -> Self {
        SharedTable::new()
    }
}

impl SharedTable {
    /// An empty table.
    pub fn new() -> SharedTable {
        let shards = (0..SHARDS)
            .map(|_| {
                let mut t = CodeTable::new();
                t.grow_freely_to(SHARD_FREE_BYTES);
                Mutex::new(t)
            })
            .collect();
        SharedTable {
            shards,
            len: AtomicUsize::new(0),
        }
    }

    #[inline]
    fn shard(&self, code: u64) -> std::sync::MutexGuard<'_, CodeTable> {
        let i = (code ^ code >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60;
        // A thread that panicked while holding a shard leaves only whole words behind.
        self.shards[i as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// What the table knows of `code`.
    pub(crate) fn get(&self, code: u64) -> Option<Word> {
        self.shard(code).get(code)
    }

    /// Adds what `w` knows of `code` (a value kept elsewhere is left out).
    pub(crate) fn merge(&self, code: u64, w: Word) {
        let w = if w & UNKNOWN == ELSEWHERE { w | UNKNOWN } else { w };
        let mut t = self.shard(code);
        let before = t.len();
        t.update(code, worth, |word| *word = merge(*word, w));
        let after = t.len();
        drop(t);
        if after > before {
            self.len.fetch_add(after - before, Ordering::Relaxed);
        }
    }

    /// Codes held.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the shards' slots.
    pub fn bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).bytes())
            .sum()
    }

    /// Every (code, word) pair, shard by shard (each shard as it is when its turn comes).
    pub fn entries(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::with_capacity(self.len());
        for s in &self.shards {
            let t = s.lock().unwrap_or_else(|e| e.into_inner());
            t.for_each(|code, w| out.push((code, if w & UNKNOWN == ELSEWHERE { w | UNKNOWN } else { w })));
        }
        out
    }

    /// Loads the (code, word) pairs of a checkpoint ([`NimberSearch::saved_entries`] or
    /// [`SharedTable::entries`] of a search over the same rules), first giving the shards
    /// room for `bytes` of slots in all (the table's size when it was saved): a shard past
    /// its free growth doubles only after many evictions, so without the room a table
    /// saved at hundreds of MiB would come back at a fraction of its answers, and each
    /// resume would lose most of the work of the runs before it.
    pub fn load(&self, entries: &[(u64, u64)], bytes: usize) {
        let max_code = entries
            .iter()
            .map(|e| e.0)
            .filter(|&c| c != u64::MAX)
            .max()
            .unwrap_or(0);
        for s in &self.shards {
            s.lock()
                .unwrap_or_else(|e| e.into_inner())
                .reserve(max_code, bytes / SHARDS);
        }
        for &(code, w) in entries {
            if code != u64::MAX && w != NOTHING {
                self.merge(code, w);
            }
        }
    }
}

/// A copy of the shared table and the work so far, for a checkpoint.
struct Snapshot {
    entries: Vec<(u64, u64)>,
    bytes: usize,
    nodes: u64,
}

impl TableSource for Snapshot {
    fn nodes(&self) -> u64 {
        self.nodes
    }
    fn table_bytes(&self) -> usize {
        self.bytes
    }
    fn saved_len(&self) -> usize {
        self.entries.len()
    }
    fn saved_entries(&self, f: &mut dyn FnMut(u64, u64)) {
        for &(c, w) in &self.entries {
            f(c, w)
        }
    }
}

/// One move's answer: its exact value when asked, and whether it is lost for the player
/// then to move.
type Answer = (Option<u64>, bool);

/// A piece of work for one thread.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// Settle the distinct sum of moves number `.0`.
    Move(usize),
    /// Value the components of the position but the largest.
    Rest,
    /// Whether option `.0` of the largest component plus `*.1` is lost.
    Option(usize, u64),
}

/// Where the work is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Moves,
    Rest,
    Round(u64),
    Done(u64),
    Failed,
}

/// The coordination of the threads (behind one lock).
struct Sched {
    stage: Stage,
    /// Jobs of the current stage not yet handed out, next first.
    queue: Vec<Job>,
    /// Jobs handed out and not yet reported.
    pending: usize,
    /// The counter every search watches: a change gives up the queries in progress.
    epoch: u64,
    /// For a round: an option was found lost.
    lost: bool,
    /// The answers of the distinct sums of moves.
    answers: Vec<Option<Answer>>,
    /// The exact value of the position's components but the largest.
    rest: u64,
    error: Option<SolveError>,
    /// Something the coordinator should look at (an answer, the end).
    news: bool,
}

/// What the work is about: the sums to settle and the position's components.
struct Plan<'a, C> {
    sums: &'a [Vec<C>],
    values_of_moves: bool,
    /// The position's components, sorted and cancelled (largest last).
    parts: &'a [C],
    /// The options of the largest component, each sorted and cancelled, distinct.
    options: &'a [Vec<C>],
    /// Whether the sums are those of every move of the position (so the position's value
    /// is 0 exactly when one of them is lost, and the mex of their values).
    every_move: bool,
}

impl Sched {
    /// Moves on to the next stage once the current one is over.
    fn advance<C>(&mut self, plan: &Plan<'_, C>) {
        loop {
            if !self.queue.is_empty() || self.pending > 0 {
                return;
            }
            match self.stage {
                Stage::Moves => {
                    self.stage = Stage::Rest;
                    if plan.parts.len() > 1 {
                        self.queue.push(Job::Rest);
                    }
                }
                Stage::Rest => {
                    if plan.parts.is_empty() {
                        self.finish(0);
                        return;
                    }
                    // With every move valued, the value is their mex.
                    if plan.every_move && plan.values_of_moves {
                        let values: Option<Vec<u64>> =
                            self.answers.iter().map(|a| a.and_then(|a| a.0)).collect();
                        if let Some(values) = values {
                            let mut mex = grundy_core::MexSet::new();
                            for v in values {
                                mex.insert(v);
                            }
                            self.finish(mex.mex().0);
                            return;
                        }
                    }
                    self.start_round(0, plan);
                }
                Stage::Round(m) => {
                    if self.lost {
                        self.start_round(m + 1, plan);
                    } else {
                        self.finish(self.rest ^ m);
                        return;
                    }
                }
                Stage::Done(_) | Stage::Failed => return,
            }
        }
    }

    fn start_round<C>(&mut self, m: u64, plan: &Plan<'_, C>) {
        self.stage = Stage::Round(m);
        self.epoch += 1;
        self.lost = false;
        if m > plan.options.len() as u64 {
            // A value is the mex of at most that many values: never reached.
            self.fail(SolveError::Cycle("no value below the number of options".into()));
            return;
        }
        // The position's own round: lost exactly when some move wins.
        if plan.every_move && self.rest ^ m == 0 {
            self.lost = self.answers.iter().any(|a| a.is_some_and(|a| a.1));
            return;
        }
        self.queue = (0..plan.options.len()).rev().map(|j| Job::Option(j, m)).collect();
    }

    fn finish(&mut self, value: u64) {
        self.stage = Stage::Done(value);
        self.epoch += 1;
        self.news = true;
    }

    fn fail(&mut self, e: SolveError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.stage = Stage::Failed;
        self.queue.clear();
        self.epoch += 1;
        self.news = true;
    }

    fn over(&self) -> bool {
        matches!(self.stage, Stage::Done(_) | Stage::Failed)
    }
}

/// The shared state of one parallel run.
struct Run<'a, C> {
    plan: Plan<'a, C>,
    sched: Mutex<Sched>,
    wake: Condvar,
    epoch: AtomicU64,
    nodes: AtomicU64,
    table: &'a SharedTable,
}

impl<C> Run<'_, C> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Sched> {
        self.sched.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One thread's work: jobs until the run is over.
fn worker<R: Ruleset>(rules: &R, run: &Run<'_, R::Component>, limit: usize) {
    let mut search = NimberSearch::new(rules)
        .with_limit(limit)
        .grow_freely_to(ANALYSIS_FREE_BYTES)
        .share(run.table);
    // Nodes already added to the run's count (by the tick, or after a job).
    let counted = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let count = |n: u64, counted: &std::cell::Cell<u64>| {
        run.nodes.fetch_add(n - counted.get(), Ordering::Relaxed);
        counted.set(n);
    };
    let in_tick = std::rc::Rc::clone(&counted);
    search = search.on_tick(Box::new(move |s| {
        count(s.stats().nodes, &in_tick);
        Ok(())
    }));
    loop {
        let (job, epoch) = {
            let mut g = run.lock();
            loop {
                if g.over() {
                    return;
                }
                if let Some(job) = g.queue.pop() {
                    g.pending += 1;
                    break (job, g.epoch);
                }
                g = run.wake.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        };
        search.abandon_unless(&run.epoch, epoch);
        let plan = &run.plan;
        let result: Result<Option<Answer>, SolveError> = match job {
            Job::Move(i) => {
                let parts = &plan.sums[i];
                if plan.values_of_moves {
                    search.grundy_sum(parts).map(|g| Some((Some(g.0), g.is_zero())))
                } else {
                    search.is_lost(parts, Nimber::ZERO).map(|l| Some((None, l)))
                }
            }
            Job::Rest => {
                let rest = &plan.parts[..plan.parts.len() - 1];
                search.grundy_sum(rest).map(|g| Some((Some(g.0), false)))
            }
            Job::Option(j, m) => search
                .is_lost(&plan.options[j], Nimber(m))
                .map(|l| Some((None, l))),
        };
        count(search.stats().nodes, &counted);
        let mut g = run.lock();
        g.pending -= 1;
        g.news = true;
        match result {
            Ok(Some(answer)) => match job {
                Job::Move(i) => g.answers[i] = Some(answer),
                Job::Rest => g.rest = answer.0.expect("a value"),
                Job::Option(_, m) => {
                    if answer.1 && g.stage == Stage::Round(m) && !g.lost {
                        // This round is over: give up the rest of it.
                        g.lost = true;
                        g.queue.clear();
                        g.epoch += 1;
                        run.epoch.store(g.epoch, Ordering::Relaxed);
                    }
                }
            },
            Ok(None) => {}
            Err(SolveError::Halted) if g.epoch != epoch && !rules.halted() && g.error.is_none() => {
                // Given up: another thread ended the round.
            }
            Err(e) => {
                g.fail(e);
                run.epoch.store(g.epoch, Ordering::Relaxed);
            }
        }
        g.advance(plan);
        run.epoch.store(g.epoch, Ordering::Relaxed);
        drop(g);
        run.wake.notify_all();
    }
}

/// Runs the plan on `threads` threads; `watch` is called on the calling thread at least
/// once a second and after every answer, with the answers so far and the search nodes, and
/// stops the run with its error. Returns the answers (as far as they got, also when the run
/// failed) and the value of the position's parts.
fn run_plan<R: Ruleset>(
    rules: &R,
    plan: Plan<'_, R::Component>,
    answers: Vec<Option<Answer>>,
    threads: usize,
    limit: usize,
    table: &SharedTable,
    mut watch: impl FnMut(&[Option<Answer>], u64, bool) -> Result<(), SolveError>,
) -> (Vec<Option<Answer>>, Result<u64, SolveError>) {
    let queue: Vec<Job> = (0..plan.sums.len())
        .rev()
        .filter(|&i| answers[i].is_none())
        .map(Job::Move)
        .collect();
    let mut sched = Sched {
        stage: Stage::Moves,
        queue,
        pending: 0,
        epoch: 0,
        lost: false,
        answers,
        rest: 0,
        error: None,
        news: false,
    };
    sched.advance(&plan);
    let run = Run {
        epoch: AtomicU64::new(sched.epoch),
        sched: Mutex::new(sched),
        wake: Condvar::new(),
        nodes: AtomicU64::new(0),
        plan,
        table,
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| worker(rules, &run, limit));
        }
        let mut g = run.lock();
        loop {
            let over = g.over();
            g.news = false;
            let answers = g.answers.clone();
            drop(g);
            if let Err(e) = watch(&answers, run.nodes.load(Ordering::Relaxed), over) {
                let mut g = run.lock();
                g.fail(e);
                run.epoch.store(g.epoch, Ordering::Relaxed);
                drop(g);
                run.wake.notify_all();
                break;
            }
            g = run.lock();
            if over {
                break;
            }
            if !g.news {
                g = run
                    .wake
                    .wait_timeout(g, Duration::from_secs(1))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
    });
    let sched = run.sched.into_inner().unwrap_or_else(|e| e.into_inner());
    let value = match (sched.error, sched.stage) {
        (Some(e), _) => Err(e),
        (None, Stage::Done(v)) => Ok(v),
        (None, _) => Err(SolveError::Halted),
    };
    (sched.answers, value)
}

/// The options of `c`, each sorted and cancelled, distinct, smallest largest part first
/// (the order the search tries them in).
fn options_of<R: Ruleset>(rules: &R, c: &R::Component) -> Vec<Vec<R::Component>> {
    let mut out: Vec<Vec<R::Component>> = Vec::new();
    let mut seen: HashMap<Vec<R::Component>, (), RandomState> = HashMap::default();
    rules.options(c, |p| {
        let mut parts = p.to_vec();
        let kept = sort_and_cancel(rules, &mut parts);
        parts.truncate(kept);
        if seen.insert(parts.clone(), ()).is_none() {
            out.push(parts);
        }
    });
    out.sort_by_key(|p| p.last().map_or(0, |c| rules.size_hint(c)));
    out
}

/// The Grundy value of a sum of components by the pruned search on `threads` threads (the
/// same value as [`NimberSearch::grundy_sum`]); `limit` bounds the entries each thread's
/// tables and the shared table hold.
pub fn grundy_sum<R: Ruleset>(
    rules: &R,
    parts: &[R::Component],
    threads: usize,
    limit: usize,
) -> Result<Nimber, SolveError> {
    let mut parts = parts.to_vec();
    let kept = sort_and_cancel(rules, &mut parts);
    parts.truncate(kept);
    if threads <= 1 {
        return NimberSearch::new(rules).with_limit(limit).grundy_sum(&parts);
    }
    let options = parts.last().map(|c| options_of(rules, c)).unwrap_or_default();
    let table = SharedTable::new();
    let plan = Plan {
        sums: &[],
        values_of_moves: false,
        parts: &parts,
        options: &options,
        every_move: false,
    };
    let (_, v) = run_plan(rules, plan, Vec::new(), threads, limit, &table, |_, _, _| Ok(()));
    Ok(Nimber(v?))
}

/// [`crate::search::analyze_normal_resumable`] on `threads` threads (one thread: that
/// function itself): the same analysis, the moves and then the position's value split
/// between the threads. Checkpoints (through `saver`) hold the moves settled in order so
/// far and the table the threads share, saved when due (at least a second apart, and ten
/// times the last save's time) and when the run ends or stops; they resume on any number of
/// threads.
#[allow(clippy::too_many_arguments)]
pub fn analyze_normal_threads<G: Game>(
    game: &G,
    p: &G::Position,
    values_of_moves: bool,
    limit: usize,
    threads: usize,
    progress: impl FnMut(Progress),
    resumed: Option<Saved>,
    saver: Option<Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    normal_threads(
        game,
        p,
        Some(values_of_moves),
        limit,
        threads,
        progress,
        resumed,
        saver,
    )
}

/// [`crate::search::value_normal_resumable`] on `threads` threads (one thread: that
/// function itself): the Grundy value and outcome of `p` alone, no move looked at on its
/// own, the position's value split between the threads as in [`analyze_normal_threads`],
/// with the same checkpoints (which settle no move).
pub fn value_normal_threads<G: Game>(
    game: &G,
    p: &G::Position,
    limit: usize,
    threads: usize,
    progress: impl FnMut(Progress),
    resumed: Option<Saved>,
    saver: Option<Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    normal_threads(game, p, None, limit, threads, progress, resumed, saver)
}

/// [`analyze_normal_threads`] (`values_of_moves` given) or [`value_normal_threads`]
/// (`None`).
#[allow(clippy::too_many_arguments)]
fn normal_threads<G: Game>(
    game: &G,
    p: &G::Position,
    values_of_moves: Option<bool>,
    limit: usize,
    threads: usize,
    mut progress: impl FnMut(Progress),
    resumed: Option<Saved>,
    saver: Option<Saver>,
) -> Result<Analysis<G::Move>, SolveError> {
    if threads <= 1 || game.immediate_wins(p).is_some() {
        return crate::search::normal_resumable(game, p, values_of_moves, limit, progress, resumed, saver);
    }
    let value_only = values_of_moves.is_none();
    let values_of_moves = values_of_moves.unwrap_or(false);
    let mut successors = Vec::new();
    if !value_only {
        game.moves(p, |m, q| successors.push((m, q)));
    }
    let table = SharedTable::new();
    let mut done: Vec<Settled> = Vec::new();
    if let Some(saved) = resumed {
        saved.check_moves(successors.len())?;
        done = saved.settled;
        table.load(&saved.entries, saved.table_bytes as usize);
    }
    // The distinct sums the moves lead to (a move deciding the game at once has none).
    let mut sums: Vec<Vec<G::Component>> = Vec::new();
    let mut sum_of: Vec<Option<usize>> = Vec::with_capacity(successors.len());
    let mut index: HashMap<Vec<G::Component>, usize, RandomState> = HashMap::default();
    let mut answers: Vec<Option<Answer>> = Vec::new();
    for (i, (_, q)) in successors.iter().enumerate() {
        if game.immediate_wins(q).is_some() {
            sum_of.push(None);
            continue;
        }
        let mut parts = game.components(q);
        let kept = sort_and_cancel(game, &mut parts);
        parts.truncate(kept);
        let k = *index.entry(parts).or_insert_with_key(|parts| {
            sums.push(parts.clone());
            answers.push(None);
            sums.len() - 1
        });
        if let Some(d) = done.get(i) {
            answers[k] = Some((d.grundy, d.lost));
        }
        sum_of.push(Some(k));
    }
    let mut parts = game.components(p);
    let kept = sort_and_cancel(game, &mut parts);
    parts.truncate(kept);
    let options = parts.last().map(|c| options_of(game, c)).unwrap_or_default();
    let plan = Plan {
        sums: &sums,
        values_of_moves,
        parts: &parts,
        options: &options,
        // A move that decides the game at once has no value: then the position's value is
        // worked out from its options alone.
        every_move: !value_only && sum_of.iter().all(Option::is_some),
    };
    let total = successors.len();
    let settled_of = |answers: &[Option<Answer>]| -> Vec<Settled> {
        let mut out = Vec::new();
        for s in &sum_of {
            match s {
                None => out.push(Settled {
                    grundy: None,
                    lost: false,
                }),
                Some(k) => match answers[*k] {
                    Some((grundy, lost)) => out.push(Settled { grundy, lost }),
                    None => break,
                },
            }
        }
        out
    };
    let mut saver = saver;
    let save = |saver: &mut Saver, settled: &[Settled], nodes: u64| -> Result<(), SolveError> {
        let snap = Snapshot {
            entries: table.entries(),
            bytes: table.bytes(),
            nodes,
        };
        saver.save(settled, &snap)
    };
    let (answers, grundy) = run_plan(
        game,
        plan,
        answers,
        threads,
        limit,
        &table,
        |answers, nodes, over| {
            let moves_done = sum_of
                .iter()
                .filter(|s| s.is_none_or(|k| answers[k].is_some()))
                .count();
            progress(Progress {
                moves_done,
                moves: total,
                stats: SearchStats {
                    nodes,
                    ..SearchStats::default()
                },
                table_bytes: table.bytes(),
            });
            if let Some(sv) = saver.as_mut() {
                // At the end (or a stop: a limit, the memory budget, a failure), and when due.
                if over || sv.due() {
                    save(sv, &settled_of(answers), nodes)?;
                }
            }
            Ok(())
        },
    );
    let grundy = grundy?;
    let mut moves = Vec::with_capacity(total);
    for ((mv, _), s) in successors.into_iter().zip(&sum_of) {
        let (grundy, lost) = match s {
            None => (None, false),
            Some(k) => answers[*k].expect("every move is settled"),
        };
        moves.push(MoveReport {
            mv,
            grundy: grundy.map(Nimber),
            outcome: if lost { Outcome::Second } else { Outcome::First },
            remoteness: None,
        });
    }
    Ok(crate::search::analysis_of(Nimber(grundy), moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table saved large comes back whole: each shard is given its share of the saved
    /// size before the pairs are merged (without it, shards past their free growth grow
    /// only after many evictions, and a million pairs came back as half of them).
    #[test]
    fn a_loaded_table_keeps_what_was_saved() {
        let n: u64 = 1 << 20;
        let saved: Vec<(u64, u64)> = (0..n)
            .map(|i| {
                (
                    i.wrapping_mul(0x9E37_79B9) % (1 << 40),
                    ((i % 7) << 24) | (i % 200),
                )
            })
            .collect();
        // The size of the table that held them: two slots of 16 bytes per pair.
        let bytes = saved.len() * 32;
        let back = SharedTable::new();
        back.load(&saved, bytes);
        let kept = back.entries();
        assert!(
            kept.len() * 100 >= saved.len() * 99,
            "{} of {}",
            kept.len(),
            saved.len()
        );
        assert_eq!(back.len(), kept.len());
        // Every pair kept is one that was saved, with its word.
        let saved: HashMap<u64, u64> = saved.into_iter().collect();
        for (code, w) in kept {
            assert_eq!(saved.get(&code), Some(&w), "code {code}");
        }
    }
}
