//! `grundy solve FAMILY POSITION --dense`: the arguments (`--record`; the budget is the global
//! `--memory-budget`) and
//! the printing of a dense solve; the driver (the family's dense form, the plan, the store's
//! tables and answers) is `grundy_app::dense`. The finished tiers go to `--checkpoint DIR`,
//! or by default to the store's folder of unfinished solves (`STORE.dense-tiers/NAME`,
//! removed once the answer is in the store), so that the same command resumes after a stop.

use crate::db::DbOptions;
use crate::error::CliError;
use crate::solve::{app_error, print_analysis, DenseRecord, DenseSize, SolveArgs};
use grundy_app::dense::{solve_dense_split, DenseEvent, DenseRequest};
use grundy_app::solve::ErrorKind;
use grundy_app::store::DenseAnswer;
use grundy_games::family::FamilyOptions;
use grundy_solve::dense::tier_file::{lock_token, TierLock};
use grundy_solve::dense::{human_bytes, DenseError, Record, TierExchange, TierSource};
use std::path::{Path, PathBuf};

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
    mut exchange: Option<&mut dyn TierExchange>,
) -> Result<(), CliError> {
    let lead = exchange.as_ref().is_none_or(|x| x.rank() == 0);
    // The folder of finished tiers: --checkpoint DIR, or --resume DIR (which must exist).
    let explicit = match (&args.checkpoint, &args.resume) {
        (Some(c), Some(r)) if c != r => {
            return Err(CliError::Usage(format!(
                "with --dense, --checkpoint and --resume name the same folder of tiers (found {} and {}); give one",
                c.display(),
                r.display()
            )))
        }
        (c, r) => r.as_ref().or(c.as_ref()),
    };
    let stop = match args.timeout {
        Some(secs) => Some(crate::solve::timeout_flag(secs)?),
        None => None,
    };
    let budget = grundy_core::memory::budget_or_default();
    let mut req = DenseRequest {
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
        tiers: None,
        resume: args.resume.is_some(),
        stop: stop.as_deref(),
    };
    let store = if lead { db.open_cache() } else { None };
    // Lines about the folder, printed after the plan (which comes first).
    let mut notes = Vec::new();
    // Without a folder given, the tiers go beside the store (worker 0's), unless the store
    // already answers; worker 0 locks the folder and tells the others where it is (or that
    // none is kept: no store, or another run solving the same already).
    let mut lock = None;
    let tiers: Option<PathBuf> = match explicit {
        Some(dir) => Some(dir.clone()),
        None => {
            let mine = store
                .as_ref()
                .and_then(|s| grundy_app::dense::store_tiers(&req, s))
                .and_then(|dir| match TierLock::acquire(&dir, false) {
                    Ok(l) => {
                        lock = Some(l);
                        Some(dir)
                    }
                    Err(e) => {
                        notes.push(format!("grundy: note: the finished tiers are not kept: {e}"));
                        None
                    }
                });
            match exchange.as_deref_mut() {
                Some(x) => {
                    let bytes = mine.as_deref().map(path_bytes).unwrap_or_default();
                    let shared = x.share_bytes(&bytes);
                    (!shared.is_empty()).then(|| path_from(shared))
                }
                None => mine,
            }
        }
    };
    let in_store = explicit.is_none() && tiers.is_some();
    let tiers = tiers.as_deref();
    let shown = tiers.map(|d| d.display().to_string()).unwrap_or_default();
    // Two runs must not share the folder: worker 0 locks it for the whole run (the others
    // learn whether it could, and stop with it when it could not).
    let mut refused = None;
    if let Some(dir) = explicit.filter(|_| lead) {
        match TierLock::acquire(dir, args.resume.is_some()) {
            Ok(l) => lock = Some(l),
            Err(e) => refused = Some(e.to_string()),
        }
    }
    if tiers.is_some() {
        if let Some(x) = exchange.as_deref_mut() {
            if !x.agree(refused.is_none()) && !lead {
                return Err(CliError::Usage(format!(
                    "rank 0 could not lock the folder {shown}"
                )));
            }
        }
    }
    if let Some(m) = refused {
        return Err(CliError::Usage(m));
    }
    if let Some(owner) = lock.as_ref().and_then(|l| l.taken_over()) {
        notes.push(format!(
            "grundy: took over the lock of {shown} left by {owner}, which no longer runs"
        ));
    }
    // Each rank writes its own share of every finished tier when all of them see rank 0's
    // folder (a shared file system): each reads the lock rank 0 just wrote there.
    if let (Some(dir), Some(x)) = (tiers, exchange.as_deref_mut()) {
        if x.ranks() > 1 {
            let token = x.share_value(lock.as_ref().map_or(0, |l| l.token()));
            let seen = if lead || lock_token(dir) == Some(token) {
                Ok(())
            } else {
                Err(DenseError::Refused(format!(
                    "does not see rank 0's folder {shown} (not a shared file system)"
                )))
            };
            match x.status(seen) {
                Ok(()) => {
                    x.use_tier_folder(dir);
                    notes.push(format!(
                        "grundy: each rank writes its share of the finished tiers to {shown}"
                    ));
                }
                Err(e) => notes.push(format!(
                    "grundy: rank 0 writes the finished tiers to {shown}: {e}"
                )),
            }
        }
    }
    req.tiers = tiers.filter(|_| lead);
    let mut saved = false;
    let mut events = |e: DenseEvent<'_>| match e {
        _ if !lead => {}
        DenseEvent::FromStore(key) => {
            saved = true;
            eprintln!("grundy: answered from the store ({key})")
        }
        DenseEvent::Saved(_) => saved = true,
        DenseEvent::FromTable(key) => eprintln!("grundy: answered from the dense table {key} in the store"),
        DenseEvent::Planned { plan, budget, keep } => {
            eprintln!(
                "grundy: {plan} (budget {}){}",
                human_bytes(budget),
                if keep {
                    ", every tier kept for the store"
                } else {
                    ""
                }
            );
            notes.drain(..).for_each(|n| eprintln!("{n}"));
        }
        DenseEvent::Tier { done, .. } if done.source == TierSource::Skipped => {}
        DenseEvent::Tier { done, .. } if done.source == TierSource::Loaded => eprintln!(
            "grundy: tier {} read back from {shown} ({} states, finished before)",
            done.tier, done.states
        ),
        DenseEvent::Tier { done, elapsed } => {
            if done.source == TierSource::Resolved {
                eprintln!(
                    "grundy: tier {} solved again: its file in {shown} was damaged",
                    done.tier
                );
            }
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
    let a = solve_dense_split(&req, store.as_ref(), &mut events, exchange);
    if lead {
        // (Not printed when no plan was: a takeover is still worth a line.)
        notes.iter().for_each(|n| eprintln!("{n}"));
    }
    // The store's folder goes once the answer is in the store (or when it holds no tier:
    // a solve refused or answered without one); a --checkpoint folder is the user's.
    if let (Some(lock), Some(dir), true) = (lock, tiers, in_store) {
        if saved || !holds_tiers(dir) {
            if let Err(e) = lock.remove_folder() {
                eprintln!("grundy: note: could not remove the finished tiers: {e}");
            }
        }
    }
    let a = a.map_err(|e| match (e.kind, tiers) {
        (ErrorKind::Cancelled, Some(dir)) => CliError::Failure(anyhow::anyhow!(
            "{} by --timeout; the finished tiers are kept in {}: the same command resumes from them",
            e.message,
            dir.display()
        )),
        (ErrorKind::Cancelled, None) => CliError::Failure(anyhow::anyhow!(
            "{} by --timeout; nothing is kept without a store (--no-db) or --checkpoint DIR",
            e.message
        )),
        _ => app_error(e),
    })?;
    if lead {
        print(args, &a)?;
    }
    Ok(())
}

/// Whether the folder `dir` holds a finished tier file.
fn holds_tiers(dir: &Path) -> bool {
    grundy_solve::dense::tier_file::summary(dir).is_none_or(|s| s.tiers > 0)
}

/// A path as bytes, to send to the other ranks.
fn path_bytes(p: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        p.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        p.to_string_lossy().into_owned().into_bytes()
    }
}

/// A path from [`path_bytes`].
fn path_from(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Prints a dense answer as text or JSON.
fn print(args: &SolveArgs, a: &DenseAnswer) -> Result<(), CliError> {
    let size = DenseSize {
        states: a.states,
        memory_bytes: a.memory_bytes,
    };
    print_analysis(args, &a.analysis, Some(&size))
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
