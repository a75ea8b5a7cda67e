//! `grundy solve cram BOARD --dense`: the whole board by dense retrograde analysis, with the
//! memory plan printed before the run and a clean refusal when it exceeds the budget. Answers
//! and small whole tables are kept in the store (`crate::entries`), so a position asked again,
//! or one below a kept table's, is answered without solving.

use crate::db::DbOptions;
use crate::error::{usage, CliError};
use crate::solve::{print_analysis, DenseRecord, DenseSize, SolveArgs};
use grundy_app::store::{self as entries, graph_id, DenseAnswer, DenseSpace, DENSE_KEEP_MAX_BYTES};
use grundy_app::store::{StoredAnalysis, StoredMove};
use grundy_core::dense::DenseGame;
use grundy_core::{Game, Outcome};
use grundy_games::cram::{Board, Cram, CramDense, CramFamily};
use grundy_games::family::{Family, FamilyOptions, RegistryError};
use grundy_games::graph::Points;
use grundy_games::graph_game::{GraphDense, GraphFamily, PointsFamily};
use grundy_games::registry;
use grundy_solve::dense::{default_budget, human_bytes, DenseError, DenseSolver, DenseTable, Plan, Record};
use grundy_solve::Convention;

/// Reads a memory size: bytes, or a number with a suffix K, M, G or T (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size suffix '{c}' (use K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let v: u64 = digits
        .parse()
        .map_err(|_| format!("expected a size like 512M or 8G, found '{t}'"))?;
    v.checked_shl(shift)
        .filter(|x| x >> shift == v)
        .ok_or_else(|| format!("size '{t}' is too large"))
}

fn failure(e: DenseError) -> CliError {
    CliError::Failure(anyhow::anyhow!(e))
}

/// Tables of the store tried for a position not solved before (the smallest that contain it).
const TABLES_TRIED: usize = 3;

/// Runs a dense solve of a whole position (cram boards, graph games) and prints the analysis
/// like `grundy solve`. With a store, the answer comes from it when it was kept, or from a
/// kept table of a position it lies below (same board or graph, rule, convention and
/// record); otherwise the solve's answer is kept, and its whole table when it is small enough
/// ([`DENSE_KEEP_MAX_BYTES`]).
pub fn run(args: &SolveArgs, opts: &FamilyOptions, text: &str, db: &DbOptions) -> Result<(), CliError> {
    let budget = match &args.memory_budget {
        Some(s) => parse_size(s).map_err(|e| usage(format!("bad --memory-budget: {e}")))?,
        None => default_budget(),
    };
    let d = registry::find(&args.family)?.description;
    let graph_family = if d.name == PointsFamily::DESCRIPTION.name {
        Some(PointsFamily.build(&args.family, opts, text)?)
    } else if d.name == GraphFamily::DESCRIPTION.name {
        Some(GraphFamily.build(&args.family, opts, text)?)
    } else {
        None
    };
    match graph_family {
        None if d.name == CramFamily::DESCRIPTION.name => {
            if args.game.board.is_some() || args.game.graph.is_some() || args.game.rule.is_some() {
                return Err(usage("--board, --graph and --rule apply to the graph games"));
            }
            let board = Cram
                .parse_position(text)
                .map_err(|e| RegistryError::position("cram", e))?;
            let dense = CramDense::new(&board).map_err(usage)?;
            let top = dense.top_tier();
            let (rows, cols) = (board.rows, board.cols);
            let space = Space {
                family: CramFamily::DESCRIPTION.name,
                geometry: format!("{rows}x{cols}"),
                rule: "-".into(),
                mask: board.empty,
            };
            let make = |start: u128| {
                CramDense::new(&Board {
                    rows,
                    cols,
                    empty: start,
                })
                .ok()
            };
            report(
                args,
                &space,
                (&Cram, &board),
                (&dense, top),
                make,
                |d: &CramDense, p: &Board| d.locate(p),
                budget,
                db,
            )
        }
        Some((game, p)) => {
            let family = d.name;
            let dense = GraphDense::new(&game, p).map_err(usage)?;
            let top = dense.top_tier();
            let graph = game.graph();
            let space = Space {
                family,
                geometry: graph_id(graph.len(), |v| graph.neighbours(v)),
                rule: args.game.rule.clone().unwrap_or_else(|| "one-or-two".into()),
                mask: p,
            };
            let make = |start: Points| GraphDense::new(&game, start).ok();
            report(
                args,
                &space,
                (&game, &p),
                (&dense, top),
                make,
                |d: &GraphDense, q: &Points| d.locate(*q),
                budget,
                db,
            )
        }
        None => {
            let mut dense: Vec<&str> = registry::named().filter(|d| d.dense).map(|d| d.name).collect();
            let last = dense.pop().unwrap_or_default();
            Err(usage(format!(
                "--dense is available for {} and {last}, not {}",
                dense.join(", "),
                args.family
            )))
        }
    }
}

/// What keys the store's entries of a position: see [`DenseSpace`].
struct Space {
    family: &'static str,
    geometry: String,
    rule: String,
    /// The cells (vertices) present in the position.
    mask: u128,
}

/// Answers for `position` of `game` from the store, or solves `dense` from tier `top`, and
/// prints the analysis. `make(start)` is the dense view below the position with the cells
/// `start` (to read a kept table), `locate(view, p)` the tier and index of `p` in a view.
#[allow(clippy::too_many_arguments)]
fn report<G: Game, D: DenseGame>(
    args: &SolveArgs,
    space: &Space,
    (game, board): (&G, &G::Position),
    (dense, top): (&D, u32),
    make: impl Fn(u128) -> Option<D>,
    locate: impl Fn(&D, &G::Position) -> Option<(u32, u64)>,
    budget: u64,
    db: &DbOptions,
) -> Result<(), CliError> {
    let convention = if args.misere {
        Convention::Misere
    } else {
        Convention::Normal
    };
    let record = match (args.record, args.misere) {
        (Some(DenseRecord::Outcome), _) => Record::Outcome,
        (Some(DenseRecord::Grundy), true) => {
            return Err(usage(
                "--record grundy needs normal play (Grundy values are not defined for misère)",
            ))
        }
        (Some(DenseRecord::Grundy), false) | (None, false) => Record::Grundy,
        (Some(DenseRecord::Remoteness), _) | (None, true) => Record::Remoteness,
    };
    let key_space = DenseSpace {
        family: space.family.to_string(),
        geometry: space.geometry.clone(),
        rule: space.rule.clone(),
        convention,
        record,
    };
    let solver = DenseSolver::new(dense)
        .record(record)
        .convention(convention)
        .memory_budget(budget);
    let plan = solver.plan(top).map_err(failure)?;
    let position = game.format_position(board);
    let store = db.open_cache();
    if let Some(s) = &store {
        let key = key_space.answer_key(&position);
        if let Some(a) = entries::load_answer(s, &key).filter(|a| a.analysis.position == position) {
            eprintln!("grundy: answered from the store ({key})");
            print(args, &a);
            return Ok(());
        }
        let mask = space.mask;
        for (start, key) in entries::covering_tables(s, &key_space, |st| st & mask == mask, TABLES_TRIED) {
            let Some(view) = make(start) else { continue };
            let Some((header, table)) = entries::load_table(s, &key, &key_space) else {
                continue;
            };
            let fits = header
                .tiers
                .iter()
                .all(|&(t, n)| t < view.num_tiers() && view.tier_size(t) == n);
            if !fits {
                continue;
            }
            let at = |p: &G::Position| locate(&view, p);
            if let Ok(a) = answer(space.family, game, board, &table, at, &plan, args.misere) {
                eprintln!("grundy: answered from the dense table {key} in the store");
                entries::save_answer(s, &key_space, &a);
                print(args, &a);
                return Ok(());
            }
        }
    }
    // Keep every tier for the store when the whole table is small enough.
    let keep_all = solver.keep_all(true);
    let keep = store.is_some()
        && keep_all
            .plan(top)
            .is_ok_and(|p| p.peak_bytes <= DENSE_KEEP_MAX_BYTES && p.peak_bytes <= budget);
    let solver = if keep { keep_all } else { keep_all.keep_all(false) };
    let used = solver.plan(top).map_err(failure)?;
    eprintln!(
        "grundy: {used} (budget {}){}",
        human_bytes(budget),
        if keep {
            ", every tier kept for the store"
        } else {
            ""
        }
    );
    let start = std::time::Instant::now();
    let table = solver
        .solve_with_progress(top, |done| {
            if start.elapsed().as_secs() >= 1 {
                eprintln!(
                    "grundy: tier {} solved ({} of {} states, {:.1} s)",
                    done.tier,
                    done.solved,
                    done.total,
                    start.elapsed().as_secs_f64()
                );
            }
        })
        .map_err(failure)?;
    let a = answer(
        space.family,
        game,
        board,
        &table,
        |p| locate(dense, p),
        &plan,
        args.misere,
    )?;
    if let Some(s) = &store {
        entries::save_answer(s, &key_space, &a);
        if keep {
            entries::save_table(s, &key_space, space.mask, &table, |t| dense.tier_size(t));
        }
    }
    print(args, &a);
    Ok(())
}

/// The analysis of `board` read from `table` (positions located by `locate`): its value and
/// every move's.
fn answer<G: Game>(
    family: &str,
    game: &G,
    board: &G::Position,
    table: &DenseTable,
    locate: impl Fn(&G::Position) -> Option<(u32, u64)>,
    plan: &Plan,
    misere: bool,
) -> Result<DenseAnswer, CliError> {
    let at = |p: &G::Position| {
        locate(p).ok_or_else(|| CliError::Failure(anyhow::anyhow!("position outside the table")))
    };
    let (t, i) = at(board)?;
    let value = table.value(t, i).map_err(failure)?;
    let mut moves = Vec::new();
    let mut err = None;
    game.moves(board, |m, q| {
        match at(&q).and_then(|(tq, iq)| table.value(tq, iq).map_err(failure)) {
            Ok(v) => moves.push(StoredMove {
                mv: game.format_move(&m),
                grundy: v.grundy.map(u64::from),
                outcome: v.outcome.as_str().to_string(),
                remoteness: v.remoteness.map(u32::from),
            }),
            Err(e) => err = Some(e),
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let second = Outcome::Second.as_str();
    let analysis = StoredAnalysis {
        family: family.to_string(),
        position: game.format_position(board),
        convention: if misere { "misere" } else { "normal" }.to_string(),
        grundy: value.grundy.map(u64::from),
        outcome: value.outcome.as_str().to_string(),
        remoteness: value.remoteness.map(u32::from),
        winning_moves: moves
            .iter()
            .filter(|m| m.outcome == second)
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

/// Prints a dense answer as text or JSON.
fn print(args: &SolveArgs, a: &DenseAnswer) {
    let size = DenseSize {
        states: a.states,
        memory_bytes: a.memory_bytes,
    };
    print_analysis(args, &a.analysis, Some(&size));
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert_eq!(parse_size("8g"), Ok(8 << 30));
        assert!(parse_size("8Q").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
