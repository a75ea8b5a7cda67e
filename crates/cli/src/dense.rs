//! `grundy solve cram BOARD --dense`: the whole board by dense retrograde analysis, with the
//! memory plan printed before the run and a clean refusal when it exceeds the budget.

use crate::error::{usage, CliError};
use crate::solve::{DenseRecord, SolveArgs};
use grundy_core::dense::DenseGame;
use grundy_core::{Game, Outcome};
use grundy_games::cram::{Cram, CramDense};
use grundy_games::graph_game::GraphDense;
use grundy_games::registry::{canonical_name, graph_game, position_error, FamilyOptions};
use grundy_solve::dense::{default_budget, human_bytes, DenseError, DenseSolver, Record};
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

/// Runs a dense solve of a whole position (cram boards, graph games) and prints the analysis
/// like `grundy solve`.
pub fn run(args: &SolveArgs, opts: &FamilyOptions, text: &str) -> Result<(), CliError> {
    let budget = match &args.memory_budget {
        Some(s) => parse_size(s).map_err(|e| usage(format!("bad --memory-budget: {e}")))?,
        None => default_budget(),
    };
    match canonical_name(&args.family) {
        Some("cram") => {
            if args.board.is_some() || args.graph.is_some() || args.rule.is_some() {
                return Err(usage("--board, --graph and --rule apply to the graph games"));
            }
            let board = Cram.parse_position(text).map_err(|e| position_error("cram", e))?;
            let dense = CramDense::new(&board).map_err(usage)?;
            let top = dense.top_tier();
            report(
                args,
                "cram",
                &Cram,
                &board,
                &dense,
                top,
                |p| dense.locate(p),
                budget,
            )
        }
        Some(family @ ("points" | "graph")) => {
            let (game, p) = graph_game(family, opts, text)?;
            let dense = GraphDense::new(&game, p).map_err(usage)?;
            let top = dense.top_tier();
            report(args, family, &game, &p, &dense, top, |q| dense.locate(*q), budget)
        }
        _ => Err(usage(format!(
            "--dense is available for cram, points and graph, not {}",
            args.family
        ))),
    }
}

/// Solves `dense` from tier `top` and prints the analysis of `board` (located in the table by
/// `locate`), its moves looked up the same way.
#[allow(clippy::too_many_arguments)]
fn report<G: Game, D: DenseGame>(
    args: &SolveArgs,
    family: &str,
    game: &G,
    board: &G::Position,
    dense: &D,
    top: u32,
    locate: impl Fn(&G::Position) -> Option<(u32, u64)>,
    budget: u64,
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
    let solver = DenseSolver::new(dense)
        .record(record)
        .convention(convention)
        .memory_budget(budget);
    let plan = solver.plan(top).map_err(failure)?;
    eprintln!("grundy: {plan} (budget {})", human_bytes(budget));
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
    let at = |p: &G::Position| {
        locate(p).ok_or_else(|| CliError::Failure(anyhow::anyhow!("position outside the table")))
    };
    let (t, i) = at(board)?;
    let value = table.value(t, i).map_err(failure)?;
    let mut moves = Vec::new();
    let mut err = None;
    game.moves(board, |m, q| {
        match at(&q).and_then(|(tq, iq)| table.value(tq, iq).map_err(failure)) {
            Ok(v) => moves.push((game.format_move(&m), v)),
            Err(e) => err = Some(e),
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let winning: Vec<&str> = moves
        .iter()
        .filter(|(_, v)| v.outcome == Outcome::Second)
        .map(|(m, _)| m.as_str())
        .collect();
    let position = game.format_position(board);
    if args.json {
        let mut obj = serde_json::json!({
            "family": family,
            "position": position,
            "convention": if args.misere { "misere" } else { "normal" },
            "grundy": value.grundy,
            "outcome": value.outcome.as_str(),
            "winning_moves": winning,
            "engine": "dense",
            "states": plan.states,
            "memory_bytes": plan.peak_bytes,
        });
        if let Some(r) = value.remoteness {
            obj["remoteness"] = r.into();
        }
        if args.all_moves {
            obj["moves"] = moves
                .iter()
                .map(|(m, v)| {
                    serde_json::json!({
                        "move": m,
                        "grundy": v.grundy,
                        "remoteness": v.remoteness,
                        "outcome": v.outcome.as_str(),
                        "wins": v.outcome == Outcome::Second,
                    })
                })
                .collect();
        }
        println!("{obj}");
        return Ok(());
    }
    let who = match value.outcome {
        Outcome::First => "first player (the player to move) wins",
        Outcome::Second => "second player wins (the player to move loses)",
    };
    println!(
        "{family} {position}{} (dense: {} states)",
        if args.misere { " (misère)" } else { "" },
        plan.states
    );
    println!("outcome:       {who}");
    match value.grundy {
        Some(g) => println!("grundy value:  {g}"),
        None if args.misere => println!("grundy value:  none (misère play)"),
        None => println!("grundy value:  not stored (--record)"),
    }
    if let Some(r) = value.remoteness {
        println!("remoteness:    {r}");
    }
    if winning.is_empty() {
        println!("winning moves: none");
    } else {
        println!("winning moves: {}", winning.join(" "));
    }
    if args.all_moves {
        println!("all moves:");
        for (m, v) in &moves {
            let verdict = if v.outcome == Outcome::Second {
                "wins"
            } else {
                "loses"
            };
            let value = match (v.grundy, v.remoteness) {
                (Some(g), _) => format!("grundy {g}"),
                (_, Some(r)) => format!("remoteness {r}"),
                _ => String::new(),
            };
            println!("  {m:<16} {verdict:<6} {value}");
        }
    }
    Ok(())
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
