//! The driver of `grundy solve --dense`: a whole position by dense retrograde analysis, for
//! every family with a dense form ([`DenseForm`], reached through [`registry::with_game`] and
//! [`Family::with_dense`]), with a refusal when the plan exceeds the memory budget. Answers
//! and small whole tables are kept in the store ([`crate::store`]), so a position asked
//! again, or one below a kept table's start, is answered without solving.

use crate::solve::{AppError, ErrorKind};
use crate::store::{
    self as entries, DenseAnswer, DenseSpace, StoredAnalysis, StoredMove, DENSE_KEEP_MAX_BYTES,
};
use grundy_core::dense::DenseGame;
use grundy_core::{Game, Outcome};
use grundy_games::family::{DenseForm, Family, FamilyOptions, Position, WithDense};
use grundy_games::registry::{self, FamilyInfo, WithGame};
use grundy_solve::dense::tier_file::TierDir;
use grundy_solve::dense::{
    DenseError, DenseSolver, DenseTable, Plan, Record, TierDone, TierExchange, TierKeeper,
};
use grundy_solve::Convention;
use grundy_store::Store;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Tables of the store tried for a position not solved before (the smallest that contain it).
const TABLES_TRIED: usize = 3;

/// A dense solve asked for.
#[derive(Clone, Copy, Debug)]
pub struct DenseRequest<'a> {
    /// The family's name (or alias).
    pub family: &'a str,
    /// The options shaping its game (`--board`, `--graph`, `--rule`).
    pub options: &'a FamilyOptions,
    /// The position's text.
    pub position: &'a str,
    /// Misère play rather than normal play.
    pub misere: bool,
    /// What to record per state; `None`: Grundy values under normal play, remoteness under
    /// misère play.
    pub record: Option<Record>,
    /// Refuse a solve whose plan needs more bytes than this.
    pub budget: u64,
    /// Keep each finished tier in this folder ([`TierDir`]) and start from the tiers it
    /// holds finished (`--checkpoint DIR` / `--resume DIR`); only worker 0 of a split solve
    /// passes it.
    pub tiers: Option<&'a Path>,
    /// The folder must exist already (`--resume DIR`).
    pub resume: bool,
    /// Stop cleanly between two tiers once this is set (`--timeout`): the solve fails with
    /// [`ErrorKind::Cancelled`], the finished tiers kept in `tiers`.
    pub stop: Option<&'a AtomicBool>,
}

/// What a dense solve reports while it runs, for a front end to show.
#[derive(Clone, Copy, Debug)]
pub enum DenseEvent<'a> {
    /// The answer was kept in the store under this key.
    FromStore(&'a str),
    /// The answer was read from the kept table of this key (of a position it lies below).
    FromTable(&'a str),
    /// The solve is about to run with this plan (its budget, and whether every tier is kept
    /// for the store).
    Planned {
        /// The plan of the solve.
        plan: &'a Plan,
        /// The memory budget.
        budget: u64,
        /// Whether every tier is kept, to be saved in the store.
        keep: bool,
    },
    /// The answer was written to the store under this key (durably: committed).
    Saved(&'a str),
    /// A tier was solved, `elapsed` after the solve started.
    Tier {
        /// The tier and the states solved so far.
        done: TierDone,
        /// Time since the solve started.
        elapsed: Duration,
    },
}

/// The message for a family without a dense form: the families that have one, from their
/// descriptions.
fn not_available(family: &str) -> AppError {
    let mut dense: Vec<&str> = registry::named().filter(|d| d.dense).map(|d| d.name).collect();
    let last = dense.pop().unwrap_or_default();
    AppError::bad(format!(
        "--dense is available for {} and {last}, not {family}",
        dense.join(", "),
    ))
}

fn limit(e: DenseError) -> AppError {
    match e {
        DenseError::Refused(m) => AppError::bad(m),
        e @ DenseError::Stopped { .. } => AppError::new(ErrorKind::Cancelled, e.to_string()),
        e => AppError::new(ErrorKind::Limit, e.to_string()),
    }
}

/// Solves `req` whole by dense retrograde analysis and returns the analysis of its position
/// with the solve's size. With a store, the answer comes from it when it was kept, or from
/// a kept table of a position it lies below (same family, geometry, rule, convention and
/// record); otherwise the solve's answer is kept, and its whole table when it is small
/// enough ([`DENSE_KEEP_MAX_BYTES`]). `events` hears where the answer comes from, the plan
/// before the solve and each tier solved.
///
/// Errors: the input (unknown family, a family without a dense form, a bad position or
/// option, too many cells, `grundy` records under misère play) is [`ErrorKind::BadInput`]
/// (or [`ErrorKind::UnknownFamily`]); a plan beyond the memory budget is [`ErrorKind::Limit`].
pub fn solve_dense(
    req: &DenseRequest<'_>,
    store: Option<&Store>,
    events: &mut dyn FnMut(DenseEvent<'_>),
) -> Result<DenseAnswer, AppError> {
    solve_dense_split(req, store, events, None)
}

/// As [`solve_dense`], as one worker of several (the MPI ranks of `grundy solve --dense`):
/// with an `exchange`, each tier is split over the workers
/// ([`DenseSolver::solve_split`]), and only worker 0 should pass a store: when it answers
/// from the store, [`TierExchange::agree`] tells the others, which then return
/// [`ErrorKind::Limit`] ("answered by worker 0") without solving; whether every tier is
/// kept for the store is worker 0's choice too, told the same way. The plan of
/// [`DenseEvent::Planned`] counts the workers; the answer (its `memory_bytes` included) is
/// the same as one process's.
pub fn solve_dense_split(
    req: &DenseRequest<'_>,
    store: Option<&Store>,
    events: &mut dyn FnMut(DenseEvent<'_>),
    exchange: Option<&mut dyn TierExchange>,
) -> Result<DenseAnswer, AppError> {
    let found = registry::find(req.family)?;
    if !found.description.dense {
        return Err(not_available(req.family));
    }
    registry::with_game(
        req.family,
        req.options,
        req.position,
        Build {
            req,
            store,
            events,
            exchange,
        },
    )
}

/// The folder where the solve of `req` keeps its finished tiers by default, beside the
/// `store` ([`entries::pending_root`]): `STORE.dense-tiers/NAME`, NAME from the key of the
/// table it builds ([`entries::pending_name`]). `None` when the store already holds the
/// answer (nothing to solve), or when the request is not a dense solve the families can do
/// (the solve itself then says why).
pub fn store_tiers(req: &DenseRequest<'_>, store: &Store) -> Option<PathBuf> {
    let found = registry::find(req.family).ok()?;
    if !found.description.dense {
        return None;
    }
    let (space, start, position) =
        registry::with_game(req.family, req.options, req.position, Identify { req }).ok()??;
    if entries::load_answer(store, &space.answer_key(&position))
        .is_some_and(|a| a.analysis.position == position)
    {
        return None;
    }
    Some(entries::pending_root(store.path()).join(entries::pending_name(&space.table_key(start))))
}

/// The identity of a dense solve without solving: its space, starting cells and position.
struct Identify<'r> {
    req: &'r DenseRequest<'r>,
}

type Identity = Option<(DenseSpace, u128, String)>;

impl WithGame for Identify<'_> {
    type Output = Identity;
    type Error = AppError;

    fn run<F: Family>(
        self,
        family: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<Identity, AppError> {
        crate::solve::convention_of(info, self.req.misere)?;
        Ok(family.with_dense(game, &p, self).flatten())
    }
}

impl WithDense for Identify<'_> {
    type Output = Identity;

    fn run<F: DenseForm>(self, family: &F, game: &F::Game, p: &Position<F>) -> Identity {
        let (space, _) = space_of(self.req, family, game, p).ok()?;
        Some((space, family.mask(p), game.format_position(p)))
    }
}

/// The space of the dense solve of `p` asked by `req` and its record.
fn space_of<F: DenseForm>(
    req: &DenseRequest<'_>,
    family: &F,
    game: &F::Game,
    p: &Position<F>,
) -> Result<(DenseSpace, Record), AppError> {
    let convention = if req.misere {
        Convention::Misere
    } else {
        Convention::Normal
    };
    let record = match (req.record, req.misere) {
        (Some(Record::Grundy), true) => {
            return Err(AppError::bad(
                "--record grundy needs normal play (Grundy values are not defined for misère)",
            ))
        }
        (Some(r), _) => r,
        (None, false) => Record::Grundy,
        (None, true) => Record::Remoteness,
    };
    let space = DenseSpace {
        family: F::DESCRIPTION.name.to_string(),
        geometry: family.geometry(game, p),
        rule: family.rule(game),
        convention,
        record,
    };
    Ok((space, record))
}

/// The [`WithGame`] step: the game built, on to its dense form.
struct Build<'r, 'e, 'x> {
    req: &'r DenseRequest<'r>,
    store: Option<&'r Store>,
    events: &'e mut dyn FnMut(DenseEvent<'_>),
    exchange: Option<&'x mut dyn TierExchange>,
}

impl WithGame for Build<'_, '_, '_> {
    type Output = DenseAnswer;
    type Error = AppError;

    fn run<F: Family>(
        self,
        family: &F,
        game: &F::Game,
        p: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<DenseAnswer, AppError> {
        crate::solve::convention_of(info, self.req.misere)?;
        let family_name = self.req.family;
        family
            .with_dense(game, &p, Solve(self))
            .unwrap_or_else(|| Err(not_available(family_name)))
    }
}

/// The [`WithDense`] step: the solve itself.
struct Solve<'r, 'e, 'x>(Build<'r, 'e, 'x>);

impl WithDense for Solve<'_, '_, '_> {
    type Output = Result<DenseAnswer, AppError>;

    fn run<F: DenseForm>(self, family: &F, game: &F::Game, p: &Position<F>) -> Self::Output {
        let Build {
            req,
            store,
            events,
            mut exchange,
        } = self.0;
        let dense = family.dense(game, p).map_err(AppError::bad)?;
        let top = family.top_tier(&dense);
        let name = F::DESCRIPTION.name;
        let (space, record) = space_of(req, family, game, p)?;
        let convention = space.convention;
        let solver = DenseSolver::new(&dense)
            .record(record)
            .convention(convention)
            .memory_budget(req.budget)
            .stop_when(req.stop);
        let plan = solver.plan(top).map_err(limit)?;
        let position = game.format_position(p);
        let from_store = 'found: {
            let Some(s) = store else { break 'found None };
            let key = space.answer_key(&position);
            if let Some(a) = entries::load_answer(s, &key).filter(|a| a.analysis.position == position) {
                events(DenseEvent::FromStore(&key));
                break 'found Some(a);
            }
            let mask = family.mask(p);
            for (start, key) in entries::covering_tables(s, &space, |st| st & mask == mask, TABLES_TRIED) {
                let Some(view) = family.below(game, p, start) else {
                    continue;
                };
                let Some((header, table)) = entries::load_table(s, &key, &space) else {
                    continue;
                };
                let fits = header
                    .tiers
                    .iter()
                    .all(|&(t, n)| t < view.num_tiers() && view.tier_size(t) == n);
                if !fits {
                    continue;
                }
                let at = |q: &Position<F>| family.locate(&view, q);
                if let Ok(a) = answer(name, game, p, &table, at, &plan, req.misere) {
                    events(DenseEvent::FromTable(&key));
                    if entries::save_answer(s, &space, &a) {
                        events(DenseEvent::Saved(&space.answer_key(&position)));
                    }
                    break 'found Some(a);
                }
            }
            None
        };
        // The folder of finished tiers (worker 0's), named by the table it builds.
        let mut tier_dir = None;
        let mut refused = None;
        if let (Some(dir), None) = (req.tiers, &from_store) {
            let key = space.table_key(family.mask(p));
            match TierDir::open(dir, &key, record, req.resume) {
                Ok(d) => tier_dir = Some(d),
                Err(e) => refused = Some(limit(e)),
            }
        }
        if let Some(x) = exchange.as_deref_mut() {
            if !x.agree(from_store.is_none() && refused.is_none()) {
                return match (from_store, refused) {
                    (Some(a), _) => Ok(a),
                    (None, Some(e)) => Err(e),
                    (None, None) => Err(AppError::new(
                        ErrorKind::Limit,
                        "answered by worker 0 from its store, or stopped by it",
                    )),
                };
            }
        }
        if let Some(a) = from_store {
            return Ok(a);
        }
        if let Some(e) = refused {
            return Err(e);
        }
        // Keep every tier for the store when the whole table is small enough.
        let keep_all = solver.keep_all(true);
        let keep = store.is_some()
            && keep_all
                .plan(top)
                .is_ok_and(|p| p.peak_bytes <= DENSE_KEEP_MAX_BYTES && p.peak_bytes <= req.budget);
        // Worker 0 alone has the store: the others keep what it keeps, so that a resume
        // reads back (and broadcasts) the same tiers on every worker.
        let keep = match exchange.as_deref_mut() {
            Some(x) => x.agree(keep),
            None => keep,
        };
        let solver = if keep { keep_all } else { keep_all.keep_all(false) };
        let ranks = exchange.as_ref().map_or(1, |x| x.ranks());
        let solver = match exchange.as_ref() {
            Some(x) => solver.ranks(ranks).round_states(x.max_block()),
            None => solver,
        };
        let used = solver.plan(top).map_err(limit)?;
        events(DenseEvent::Planned {
            plan: &used,
            budget: req.budget,
            keep,
        });
        let start = Instant::now();
        let progress = |done| {
            events(DenseEvent::Tier {
                done,
                elapsed: start.elapsed(),
            })
        };
        let keeper = tier_dir.as_mut().map(|d| d as &mut dyn TierKeeper);
        let table = solver
            .solve_kept(top, exchange, keeper, progress)
            .map_err(limit)?;
        let a = answer(
            name,
            game,
            p,
            &table,
            |q| family.locate(&dense, q),
            &plan,
            req.misere,
        )?;
        if let Some(s) = store {
            if entries::save_answer(s, &space, &a) {
                events(DenseEvent::Saved(&space.answer_key(&a.analysis.position)));
            }
            if keep {
                entries::save_table(s, &space, family.mask(p), &table, |t| dense.tier_size(t));
            }
        }
        Ok(a)
    }
}

/// The analysis of `p` read from `table` (positions located by `locate`): its value and
/// every move's.
fn answer<G: Game>(
    family: &str,
    game: &G,
    p: &G::Position,
    table: &DenseTable,
    locate: impl Fn(&G::Position) -> Option<(u32, u64)>,
    plan: &Plan,
    misere: bool,
) -> Result<DenseAnswer, AppError> {
    let at = |q: &G::Position| {
        locate(q).ok_or_else(|| AppError::new(ErrorKind::Limit, "position outside the table"))
    };
    let (t, i) = at(p)?;
    let value = table.value(t, i).map_err(limit)?;
    let mut moves = Vec::new();
    let mut err = None;
    game.moves(p, |m, q| {
        match at(&q).and_then(|(tq, iq)| table.value(tq, iq).map_err(limit)) {
            Ok(v) => moves.push(StoredMove {
                mv: game.format_move(&m),
                grundy: v.grundy.map(u64::from),
                outcome: v.outcome,
                remoteness: v.remoteness.map(u32::from),
            }),
            Err(e) => err = Some(e),
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let analysis = StoredAnalysis {
        family: family.to_string(),
        position: game.format_position(p),
        convention: Convention::from_misere(misere),
        grundy: value.grundy.map(u64::from),
        outcome: value.outcome,
        remoteness: value.remoteness.map(u32::from),
        winning_moves: moves
            .iter()
            .filter(|m| m.outcome == Outcome::Second)
            .map(|m| m.mv.clone())
            .collect(),
        moves,
    };
    Ok(DenseAnswer {
        analysis,
        states: plan.states,
        memory_bytes: plan.peak_bytes,
    })
}
