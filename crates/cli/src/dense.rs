//! `grundy solve FAMILY POSITION --dense`: the arguments (`--record`; the budget is the global
//! `--memory-budget`) and
//! the printing of a dense solve; the driver (the family's dense form, the plan, the store's
//! tables and answers) is `grundy_app::dense`.

use crate::db::DbOptions;
use crate::error::CliError;
use crate::solve::{app_error, print_analysis, DenseRecord, DenseSize, SolveArgs};
use grundy_app::dense::{solve_dense_split, DenseEvent, DenseRequest};
use grundy_app::store::DenseAnswer;
use grundy_games::family::FamilyOptions;
use grundy_solve::dense::{human_bytes, Record, TierExchange};

pub use grundy_core::memory::parse_size;

/// Runs a dense solve of a whole position (the families with a dense form: see
/// [`grundy_app::dense`]) and prints the analysis like `grundy solve`, with the memory plan
/// on stderr before the run. With a store, answers kept there (or read from a kept table of a
/// position it lies below) are served, and what is solved is kept.
pub fn run(args: &SolveArgs, opts: &FamilyOptions, text: &str, db: &DbOptions) -> Result<(), CliError> {
    run_split(args, opts, text, db, None)
}

/// As [`run`], as one worker of several (the MPI ranks of a build with the feature `mpi`):
/// each tier is split over the workers through `exchange`. Worker 0 opens the store and
/// prints (the plan, the progress, the answer, as one process); the others print nothing
/// and use no store. Without an exchange, [`run`] itself.
pub fn run_split(
    args: &SolveArgs,
    opts: &FamilyOptions,
    text: &str,
    db: &DbOptions,
    exchange: Option<&mut dyn TierExchange>,
) -> Result<(), CliError> {
    let lead = exchange.as_ref().is_none_or(|x| x.rank() == 0);
    let budget = grundy_core::memory::budget_or_default();
    let req = DenseRequest {
        family: &args.family,
        options: opts,
        position: text,
        misere: args.misere,
        record: args.record.map(|r| match r {
            DenseRecord::Outcome => Record::Outcome,
            DenseRecord::Grundy => Record::Grundy,
            DenseRecord::Remoteness => Record::Remoteness,
        }),
        budget,
    };
    let store = if lead { db.open_cache() } else { None };
    let mut events = |e: DenseEvent<'_>| match e {
        _ if !lead => {}
        DenseEvent::FromStore(key) => eprintln!("grundy: answered from the store ({key})"),
        DenseEvent::FromTable(key) => eprintln!("grundy: answered from the dense table {key} in the store"),
        DenseEvent::Planned { plan, budget, keep } => eprintln!(
            "grundy: {plan} (budget {}){}",
            human_bytes(budget),
            if keep {
                ", every tier kept for the store"
            } else {
                ""
            }
        ),
        DenseEvent::Tier { done, elapsed } => {
            if elapsed.as_secs() >= 1 {
                eprintln!(
                    "grundy: tier {} solved ({} of {} states, {:.1} s)",
                    done.tier,
                    done.solved,
                    done.total,
                    elapsed.as_secs_f64()
                );
            }
        }
    };
    let a = solve_dense_split(&req, store.as_ref(), &mut events, exchange).map_err(app_error)?;
    if lead {
        print(args, &a);
    }
    Ok(())
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
