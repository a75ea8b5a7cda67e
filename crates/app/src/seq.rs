//! The driver of long sequence runs (`grundy seq`, `grundy plot`): a [`SeqRequest`] (game
//! code, count, checkpoints, memory, threads) is turned into the values G(0), ..., G(N−1) of
//! a heap game with their summary, by [`compute`]. The values kept in the store seed the
//! run, checkpoints let a long run stop and resume, and a progress callback tells the front
//! end how far the run is; nothing here prints.

use crate::store::{load_seq, save_seq, SEQ_KEEP_MAX};
use grundy_games::heap::HeapGame;
use grundy_solve::genus::{tame_outcome, Genus, Tame};
use grundy_solve::seq::canonical::CanonSeq;
use grundy_solve::seq::checkpoint::{self, CheckpointWriter};
use grundy_solve::seq::genus::{GenusMethod, GenusPeriod, GenusSeq, MisereHeapSeq};
use grundy_solve::seq::{Period, SeqEngine, SeqError, StoreOptions, Summary, MAX_COUNT};
use grundy_store::Store;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to compute, and how: every option of `grundy seq`.
#[derive(Clone, Debug)]
pub struct SeqRequest {
    /// The game, as the user wrote it: an octal or hexadecimal code (`0.77`, `4.07`, `0.F`),
    /// `grundys-game`, `sub:1,3,4` or `sub-all-but:2,5` (read by [`HeapGame::parse`]).
    pub game: String,
    /// How many values, as the user wrote it (read by [`parse_count`]): G(0) to G(N−1);
    /// with `until_period`, the most to compute.
    pub count: String,
    /// Stop as soon as a period is proven (checked at fixed lengths, see [`check_points`]).
    pub until_period: bool,
    /// Save the values to this file at least once a second, to resume after a stop. An
    /// existing file there must be a grundy checkpoint (it is replaced), or a regular file
    /// with `force`; a folder or a device is refused (see [`SeqRequest::parse`]).
    pub checkpoint: Option<PathBuf>,
    /// Continue from this checkpoint file (and keep saving to it, unless `checkpoint`
    /// names another file). The store is not read when resuming.
    pub resume: Option<PathBuf>,
    /// Where values are kept: memory up to a limit, then a memory-mapped scratch file.
    pub storage: StoreOptions,
    /// Threads to use; `None` for [`default_threads`].
    pub threads: Option<usize>,
    /// Compute every value by the engine's method, even once the values prove a period (by
    /// default the rest is then copied from one period earlier; the values are the same).
    pub every_heap: bool,
    /// Let `checkpoint` replace an existing regular file that is not a grundy checkpoint
    /// (a folder or a device is refused even so).
    pub force: bool,
}

impl SeqRequest {
    /// A request for `count` values of `game`, with every other option at its default: no
    /// period stop, no checkpoint, default storage and threads.
    pub fn new(game: impl Into<String>, count: impl Into<String>) -> SeqRequest {
        SeqRequest {
            game: game.into(),
            count: count.into(),
            until_period: false,
            checkpoint: None,
            resume: None,
            storage: StoreOptions::default(),
            threads: None,
            every_heap: false,
            force: false,
        }
    }

    /// Reads the game and the count and checks the scratch folder and the checkpoint's path,
    /// without computing anything: a front end checks its input with this before opening the
    /// store. [`compute`] does the same first.
    ///
    /// The checkpoint is written only where the user meant: a path that holds nothing, or a
    /// grundy checkpoint (of any game: it is replaced, or continued when it is also the file
    /// resumed from), or, with `force`, another regular file. A folder, a device, a pipe or a
    /// socket is refused whatever `force` says ([`Error::CheckpointTarget`]).
    pub fn parse(&self) -> Result<(HeapGame, u64), Error> {
        let game = HeapGame::parse(&self.game).map_err(|e| Error::Game {
            shown: grundy_core::parse::shorten(&self.game),
            column: e.span.column,
            message: e.message,
        })?;
        let count = parse_count(&self.count)?;
        if let Some(dir) = &self.storage.scratch_dir {
            if !dir.is_dir() {
                return Err(Error::ScratchDir(dir.display().to_string()));
            }
        }
        if let Some(path) = &self.checkpoint {
            // The file resumed from is read (and checked) as a checkpoint before it is written.
            if self.resume.as_ref() != Some(path) {
                if let Some(why) = checkpoint::target(path).refusal(self.force) {
                    return Err(Error::CheckpointTarget {
                        path: path.display().to_string(),
                        reason: why.to_string(),
                    });
                }
            }
        }
        Ok((game, count))
    }
}

/// Why a request could not be answered. [`Error::is_input`] tells the user's input (bad game
/// code, count or checkpoint file) from failures (storage, I/O during the run, limits).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The game code does not read as a heap game.
    #[error("invalid game '{shown}': column {column}: {message}")]
    Game {
        /// The code as written, shortened for the message.
        shown: String,
        /// Column of the problem (1-based).
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// The count does not read, or is too large.
    #[error(transparent)]
    Count(#[from] CountError),
    /// The checkpoint to resume from cannot be used: missing or unreadable, truncated,
    /// corrupt, of another format, or a checkpoint of another game (the message says which).
    #[error("{0}")]
    Resume(SeqError),
    /// The checkpoint file cannot be written where the user asked (no such folder, no
    /// permission, ...).
    #[error("cannot write checkpoint {path}: {source}")]
    CheckpointPath {
        /// The file as given.
        path: String,
        /// What failed.
        source: SeqError,
    },
    /// The checkpoint would be written over something the user did not mean: a folder, a
    /// device, or (without `force`) a file that is not a grundy checkpoint.
    #[error("refusing to write checkpoint {path}: {reason}")]
    CheckpointTarget {
        /// The file as given.
        path: String,
        /// What is there, and what to do about it.
        reason: String,
    },
    /// The folder for the scratch file is not a folder.
    #[error("no folder {0} for the scratch file")]
    ScratchDir(String),
    /// Saving the checkpoint failed during the run (disk full, file removed, ...).
    #[error("{0}")]
    Checkpointing(SeqError),
    /// The engine failed: values that cannot be stored (memory, scratch file), a count or a
    /// value beyond the engine's limits.
    #[error(transparent)]
    Engine(SeqError),
    /// The run stopped at the memory budget (`--memory-budget`), its checkpoint (if any)
    /// saved first.
    #[error("{0}")]
    Memory(String),
    /// An option that misère (genus) runs do not have: checkpoints, resuming.
    #[error("{0}")]
    NotForGenus(String),
}

impl Error {
    /// True when the request itself is wrong (a usage error: exit code 2 on the command
    /// line, 400 on the web), false for a failure to carry it out (exit code 1, 500).
    pub fn is_input(&self) -> bool {
        match self {
            Error::Game { .. }
            | Error::Count(_)
            | Error::Resume(_)
            | Error::CheckpointPath { .. }
            | Error::CheckpointTarget { .. }
            | Error::ScratchDir(_)
            | Error::NotForGenus(_) => true,
            Error::Checkpointing(_) | Error::Engine(_) | Error::Memory(_) => false,
        }
    }
}

/// A count that does not read ([`parse_count`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// Not a number in any accepted form.
    #[error("invalid count '{0}' (expected a number like 1000, 1e6 or 2^21)")]
    Invalid(String),
    /// More than [`MAX_COUNT`].
    #[error("count '{0}' is too large (at most 2^40 = {MAX_COUNT})")]
    TooLarge(String),
}

/// Reads a count: digits (underscores allowed), `1e6`, `10^6` or `2^21`; at most
/// [`MAX_COUNT`].
pub fn parse_count(text: &str) -> Result<u64, CountError> {
    let t = text.trim().replace('_', "");
    let bad = || CountError::Invalid(text.to_string());
    let value: Option<u128> = if let Some((b, e)) = t.split_once('^') {
        let b: u128 = b.parse().map_err(|_| bad())?;
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 64 {
            None
        } else {
            b.checked_pow(e)
        }
    } else if let Some((m, e)) = t.split_once(['e', 'E']) {
        let m: u128 = m.parse().map_err(|_| bad())?;
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 30 {
            None
        } else {
            m.checked_mul(10u128.pow(e))
        }
    } else {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse::<u128>().ok()
    };
    match value {
        Some(v) if v <= MAX_COUNT as u128 => Ok(v as u64),
        _ => Err(CountError::TooLarge(text.to_string())),
    }
}

/// The default thread count: every core of the machine (the rare/common method measures
/// now and then whether one, two or all of them are fastest, and keeps the fastest).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Lengths at which an `until_period` run looks for a proof: fixed, so a resumed run stops
/// exactly where an uninterrupted one does. The last one is `limit`.
pub fn check_points(limit: u64) -> impl Iterator<Item = u64> {
    let mut next = 256u64;
    std::iter::from_fn(move || {
        if next >= limit {
            if next == u64::MAX {
                return None;
            }
            next = u64::MAX;
            return Some(limit);
        }
        let here = next;
        next = (next + next / 4).max(next + 1);
        Some(here)
    })
}

/// Takes off `checks` the check points a run of `len` values has reached, and gives the
/// first at which `period_of` proves a period, with that point.
fn due_period<P, I: Iterator<Item = u64>>(
    checks: &mut std::iter::Peekable<I>,
    len: u64,
    mut period_of: impl FnMut(u64) -> Option<P>,
) -> Option<(P, u64)> {
    while let Some(at) = checks.next_if(|&at| at <= len) {
        if let Some(p) = period_of(at) {
            return Some((p, at));
        }
    }
    None
}

/// Where a run stands, given to the progress callback of [`compute`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress<'a> {
    /// The game's canonical name (`0.770` is `0.77`).
    pub game: &'a str,
    /// Values known so far: G(0) .. G(done − 1) (never more than `total`).
    pub done: u64,
    /// Values asked for (with `until_period`, the most the run computes).
    pub total: u64,
    /// What the run is doing.
    pub phase: Phase,
}

/// The phase of a run, in the order a run goes through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `done` values were kept in the store by an earlier run and seed this one (a count no
    /// larger is answered without computing). Sent once, first, and never when resuming.
    FromStore,
    /// `done` values were read from the checkpoint being resumed. Sent once, first.
    FromCheckpoint,
    /// Computing: `done` of `total`. Sent when the computation starts and after each piece
    /// of work (a few times a second).
    Computing,
    /// The run is over: `done` values are the answer (fewer than `total` when a period was
    /// proven first). Sent once, last, before the values are kept in the store.
    Finished,
}

/// The answer to a [`SeqRequest`]: the engine holding the values and how many count.
pub struct Computed {
    /// The game.
    pub game: HeapGame,
    /// The engine holding the values: it may hold more than `count`, or fewer when it has
    /// proven a period, which then answers the rest ([`SeqEngine::get`]).
    pub engine: SeqEngine,
    /// Number of values answered: G(0) .. G(count − 1).
    pub count: u64,
    /// The proven period, when an `until_period` run found one (it then stopped at `count`).
    pub period: Option<Period>,
    /// The summary of the `count` values: largest value, rare/common split, proven period.
    pub summary: Summary,
    /// How many values came from the store (0 when none did).
    pub from_store: u64,
}

impl fmt::Debug for Computed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Computed")
            .field("game", &self.game.name())
            .field("count", &self.count)
            .field("period", &self.period)
            .field("summary", &self.summary)
            .field("from_store", &self.from_store)
            .finish_non_exhaustive()
    }
}

impl Computed {
    /// G(i), for `i` below [`Computed::count`].
    pub fn get(&self, i: u64) -> u64 {
        self.engine.get(i)
    }

    /// The values G(0) .. G(count − 1) in order.
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.count).map(|i| self.engine.get(i))
    }
}

/// Computes what `grundy seq` (and `grundy plot`) show, telling `progress` how far it is.
///
/// With a store, values kept by an earlier run of the same game seed the engine, as a
/// checkpoint would (not when resuming, where the checkpoint is the seed): a count no larger
/// than the kept one is answered without computing, a larger one continues from the kept
/// values. Afterwards the values are kept (the first [`SEQ_KEEP_MAX`]) when they are more
/// than the store had. A store that fails to read or write is passed over (the store module
/// notes it), never fatal.
pub fn compute(
    request: &SeqRequest,
    store: Option<&Store>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Computed, Error> {
    let (game, count) = request.parse()?;
    let name = game.name().to_string();
    let report = |progress: &mut dyn FnMut(Progress<'_>), done: u64, phase: Phase| {
        progress(Progress {
            game: &name,
            done: done.min(count),
            total: count,
            phase,
        })
    };
    let rules = game.rules().clone();
    let mut storage = request.storage.clone();
    // Values past half the memory budget go to the scratch file, not the heap.
    storage.memory_limit = storage.memory_limit.min(grundy_core::memory::budget() / 2);
    let resume_path = request.resume.as_ref();
    // Read even when resuming: the store is then not a seed, but its length says whether
    // this run's values are more than it has.
    let kept = store.and_then(|s| load_seq(s, &name));
    let kept_len = kept.as_ref().map_or(0, |k| k.len());
    let mut from_store = 0;
    let (mut engine, saved) = match resume_path {
        Some(path) => {
            let (e, saved) =
                checkpoint::resume_saved(path, &name, &rules, count, storage).map_err(|e| match e {
                    e @ SeqError::Checkpoint { .. } => Error::Resume(e),
                    e => Error::Engine(e),
                })?;
            report(progress, e.len(), Phase::FromCheckpoint);
            (e, Some(saved))
        }
        None => match &kept {
            Some(k) if count > 0 && !k.is_empty() => {
                let n = k.len().min(count);
                let e = SeqEngine::resume(&rules, count, storage, k.values().take(n as usize), k.width())
                    .map_err(Error::Engine)?;
                from_store = n;
                report(progress, n, Phase::FromStore);
                (e, None)
            }
            _ => (
                SeqEngine::new(&rules, count, storage).map_err(Error::Engine)?,
                None,
            ),
        },
    };
    drop(kept);
    engine.set_threads(request.threads.unwrap_or_else(default_threads));
    engine.use_period(!request.every_heap);

    let save_to = request.checkpoint.as_ref().or(resume_path);
    let mut writer = match save_to {
        // Continue the file resumed from, appending.
        Some(p) if resume_path == Some(p) => match &saved {
            Some(saved) => Some(CheckpointWriter::reopen(p, saved).map_err(|e| unusable(p, e))?),
            None => Some(CheckpointWriter::create(p, &name, &engine).map_err(|e| unusable(p, e))?),
        },
        Some(p) => Some(CheckpointWriter::create(p, &name, &engine).map_err(|e| unusable(p, e))?),
        None => None,
    };
    let save = |writer: &mut Option<CheckpointWriter>, engine: &SeqEngine| -> Result<(), Error> {
        if let (Some(w), Some(p)) = (writer, save_to) {
            if !w.save(engine).map_err(Error::Checkpointing)? {
                *w = CheckpointWriter::create(p, &name, engine).map_err(Error::Checkpointing)?;
            }
        }
        Ok(())
    };

    report(progress, engine.len(), Phase::Computing);
    let mut checks = check_points(count).peekable();
    let mut period = None;
    let mut chunk: u64 = 1024;
    let mut last_save = Instant::now();
    let target = Duration::from_millis(150);
    loop {
        // Period checks at fixed lengths already reached.
        if request.until_period {
            period = due_period(&mut checks, engine.len(), |at| engine.period_of(at as usize));
            if period.is_some() {
                break;
            }
        }
        if engine.len() >= count {
            break;
        }
        // Once the engine has proven a period, every later value follows from it: the count
        // is answered without computing further (any count, past 2^32 too).
        if !request.until_period && engine.proven().is_some() {
            break;
        }
        let mut stop = count;
        if request.until_period {
            if let Some(&at) = checks.peek() {
                stop = stop.min(at);
            }
        }
        let to = (engine.len() + chunk).min(stop);
        let started = Instant::now();
        engine.compute_to(to).map_err(Error::Engine)?;
        let took = started.elapsed();
        chunk = if took < target / 2 {
            chunk.saturating_mul(2)
        } else if took > target * 2 {
            (chunk / 2).max(1)
        } else {
            chunk
        };
        report(progress, engine.len(), Phase::Computing);
        if let Err(over) = grundy_core::memory::Share::whole().check() {
            save(&mut writer, &engine)?;
            let saved = match save_to {
                Some(p) => format!(" (the checkpoint {} holds the values so far)", p.display()),
                None => String::new(),
            };
            return Err(Error::Memory(format!(
                "{over}, after G(0)..G({}){saved}",
                engine.len().saturating_sub(1)
            )));
        }
        if last_save.elapsed() >= Duration::from_millis(500) || engine.len() >= count {
            save(&mut writer, &engine)?;
            last_save = Instant::now();
        }
    }
    save(&mut writer, &engine)?;
    let (count, period) = match period {
        Some((p, at)) => (at, Some(p)),
        None if engine.proven().is_some() => (count, None),
        None => (count.min(engine.len()), None),
    };
    report(progress, count, Phase::Finished);
    if let Some(s) = store {
        let n = engine.len().min(SEQ_KEEP_MAX);
        if n > kept_len {
            save_seq(s, &name, engine.width(), &engine.bytes(0, n));
        }
    }
    let summary = engine.summary_of(count as usize);
    Ok(Computed {
        game,
        engine,
        count,
        period,
        summary,
        from_store,
    })
}

/// The default count of a genus run (`grundy seq --misere` without `--count`): genera
/// of games whose moves leave single heaps cost a few mex each, those of games that split
/// heaps grow with the sums of heaps below (about the partitions of n).
pub fn default_genus_count(rules: &grundy_core::HeapRules) -> u64 {
    match GenusSeq::new(rules).method() {
        GenusMethod::SingleHeaps => 1000,
        GenusMethod::Sums => 40,
    }
}

/// The answer to a misère sequence run (`grundy seq --misere`, with or without
/// `--canonical`): the genera or canonical forms of heaps 0 .. count − 1.
pub struct MisereComputed<S> {
    /// The game.
    pub game: HeapGame,
    /// The engine holding the values (it may hold more than `count`).
    pub seq: S,
    /// Heaps answered: 0 .. count − 1.
    pub count: u64,
    /// The period of the sequence proven by the `count` heaps (see
    /// [`grundy_solve::seq::genus`]), when the window theorem applies and one is.
    pub period: Option<GenusPeriod>,
}

/// The answer to a genus run.
pub type GenusComputed = MisereComputed<GenusSeq>;

/// The answer to `grundy seq --misere --canonical`.
pub type CanonComputed = MisereComputed<CanonSeq>;

/// Computes what `grundy seq --misere` shows: the genus of heaps 0 .. count − 1, telling
/// `progress` how far it is (after each heap of a game that splits heaps, a few times a
/// second otherwise). With `until_period`, stops at the first length (of
/// [`check_points`]) that proves a period. Stops cleanly at the memory budget
/// ([`Error::Memory`]). Checkpoints and resuming are refused ([`Error::NotForGenus`]).
pub fn compute_genus(
    request: &SeqRequest,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<GenusComputed, Error> {
    compute_misere(request, progress, GenusSeq::new, "genus")
}

/// Computes what `grundy seq --misere --canonical` shows: the misère canonical form of
/// heaps 0 .. count − 1, as [`compute_genus`] does the genus (same progress, periods,
/// memory budget and refusals).
pub fn compute_canonical(
    request: &SeqRequest,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<CanonComputed, Error> {
    compute_misere(request, progress, CanonSeq::new, "canonical form")
}

/// The driver of both misère sequences: `new` makes the engine for the game's rules,
/// `what` names the values in messages.
fn compute_misere<S: MisereHeapSeq>(
    request: &SeqRequest,
    progress: &mut dyn FnMut(Progress<'_>),
    new: fn(&grundy_core::HeapRules) -> S,
    what: &str,
) -> Result<MisereComputed<S>, Error> {
    let (game, count) = request.parse()?;
    let mut seq = new(game.rules());
    if request.checkpoint.is_some() || request.resume.is_some() {
        return Err(Error::NotForGenus(
            "--checkpoint and --resume are not available with --misere (genus runs start afresh)".into(),
        ));
    }
    let name = game.name().to_string();
    let report = |progress: &mut dyn FnMut(Progress<'_>), done: u64, phase: Phase| {
        progress(Progress {
            game: &name,
            done: done.min(count),
            total: count,
            phase,
        })
    };
    let chunk_of = match seq.method() {
        GenusMethod::SingleHeaps => 4096,
        GenusMethod::Sums => 1,
    };
    report(progress, 0, Phase::Computing);
    let mut checks = check_points(count).peekable();
    let mut period = None;
    let over = |seq: &S, why: String| {
        Error::Memory(format!(
            "{why}, after the {what} of heaps 0..{} ({})",
            seq.heaps_done().saturating_sub(1),
            seq.stored()
        ))
    };
    loop {
        if request.until_period {
            period = due_period(&mut checks, seq.heaps_done(), |at| seq.period_of(at));
            if period.is_some() {
                break;
            }
        }
        if seq.heaps_done() >= count {
            break;
        }
        let mut stop = (seq.heaps_done() + chunk_of).min(count);
        if request.until_period {
            if let Some(&at) = checks.peek() {
                stop = stop.min(at);
            }
        }
        match seq.compute_to(stop) {
            Ok(()) => {}
            Err(grundy_solve::SolveError::Halted) => {
                let why = grundy_core::memory::Share::whole().report().to_string();
                return Err(over(&seq, why));
            }
            Err(e) => return Err(Error::Engine(SeqError::Storage(e.to_string()))),
        }
        report(progress, seq.heaps_done(), Phase::Computing);
        if let Err(e) = grundy_core::memory::Share::whole().check() {
            return Err(over(&seq, e.to_string()));
        }
    }
    let (count, period) = match period {
        Some((p, at)) => (at, Some(p)),
        None => (count.min(seq.heaps_done()), seq.period_of(count)),
    };
    report(progress, count, Phase::Finished);
    Ok(MisereComputed {
        game,
        seq,
        count,
        period,
    })
}

/// The genus of each heap of a position of a heap game (`grundy solve ... --misere
/// --genus`), and whether the sum is tame.
#[derive(Clone, Debug)]
pub struct PositionGenus {
    /// Each non-empty heap of the position, in order: its size, its genus, and whether it
    /// is tame (it and everything it can reach have the genera of Nim heaps).
    pub heaps: Vec<(u64, Genus, bool)>,
    /// The misère outcome by the rule of misère Nim, when every heap is tame (a sum of tame
    /// games is tame); `None` when some heap is wild.
    pub tame_outcome: Option<grundy_core::Outcome>,
}

/// The genus of every heap of `heaps` in `game` (all heaps up to the largest are computed,
/// as `grundy seq --misere` does). Stops cleanly at the memory budget ([`Error::Memory`]).
pub fn position_genus(game: &HeapGame, heaps: &[u64]) -> Result<PositionGenus, Error> {
    let mut seq = GenusSeq::new(game.rules());
    let max = heaps.iter().copied().max().unwrap_or(0);
    // Where a period of the genus sequence can be proven, heaps past it need not be
    // computed: look for one at the fixed lengths of `check_points` on the way.
    let mut period = None;
    let mut done = Ok(());
    if grundy_solve::seq::genus::window(game.rules()).is_some() {
        for at in check_points(max.saturating_add(1)) {
            done = seq.compute_to(at);
            if done.is_err() {
                break;
            }
            period = seq.period_of(at);
            if period.is_some() {
                break;
            }
        }
    } else {
        done = seq.compute_to(max.saturating_add(1));
    }
    match done {
        Ok(()) => {}
        Err(grundy_solve::SolveError::Halted) => {
            return Err(Error::Memory(format!(
                "{}, after the genus of heaps 0..{} ({} canonical games stored)",
                grundy_core::memory::Share::whole().report(),
                seq.len().saturating_sub(1),
                seq.forms_stored()
            )))
        }
        Err(e) => return Err(Error::Engine(SeqError::Storage(e.to_string()))),
    }
    let heaps: Vec<(u64, Genus, bool)> = heaps
        .iter()
        .filter(|&&h| h > 0)
        .map(|&h| {
            // Past the computed heaps, one period earlier (proven above).
            let at = match period {
                Some(p) if h >= seq.len() => p.n0 + (h - p.n0) % p.period,
                _ => h,
            };
            (h, seq.genus(at).clone(), seq.tame(at))
        })
        .collect();
    let kinds: Option<Vec<Tame>> = heaps
        .iter()
        .map(|(_, g, t)| if *t { g.tame() } else { None })
        .collect();
    Ok(PositionGenus {
        tame_outcome: kinds.map(|k| tame_outcome(&k)),
        heaps,
    })
}

/// The checkpoint file `path` cannot be written or continued.
fn unusable(path: &Path, source: SeqError) -> Error {
    Error::CheckpointPath {
        path: path.display().to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("10^6"), Ok(1_000_000));
        assert_eq!(parse_count("2^21"), Ok(1 << 21));
        assert_eq!(parse_count("2^32"), Ok(1 << 32));
        assert_eq!(parse_count("2^33"), Ok(1 << 33));
        assert_eq!(parse_count("2^40"), Ok(1 << 40));
        assert_eq!(parse_count("2^41"), Err(CountError::TooLarge("2^41".into())));
        assert_eq!(parse_count("-5"), Err(CountError::Invalid("-5".into())));
        assert!(parse_count("").is_err());
        assert!(parse_count("99999999999999999999999999999").is_err());
        assert!(parse_count("1e99").is_err());
    }

    #[test]
    fn check_points_are_fixed() {
        let v: Vec<u64> = check_points(1000).collect();
        assert_eq!(v, vec![256, 320, 400, 500, 625, 781, 976, 1000]);
    }
}
