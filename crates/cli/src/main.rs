//! `grundy`: who wins an impartial game, with which move, and why.
//!
//! The binary is thin: it parses arguments, reads positions through the families' parsers,
//! hands them to the engines and prints what comes back. Exit codes: 0 ok, 1 failure, 2 usage
//! or input error.

mod census;
#[cfg(feature = "mpi")]
mod cluster;
#[cfg(feature = "mpi")]
mod cluster_dense;
mod export;
mod plot;
mod seq;

use clap::{Parser, Subcommand};
use grundy_cli::{db, judge, play, quotient, serve, solve, table};
use std::path::PathBuf;

/// Every allocation is counted, so engines can stop at the memory budget (`--memory-budget`)
/// and the allocator can end the process cleanly past its hard ceiling.
#[global_allocator]
static ALLOCATOR: grundy_core::memory::CountingAllocator = grundy_core::memory::CountingAllocator;

/// Solve impartial combinatorial games: Grundy values, outcomes and winning moves.
#[derive(Parser, Debug)]
#[command(name = "grundy", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// The store of results, kept between runs [default: the user's data folder, e.g.
    /// ~/.local/share/grundy/store.redb].
    #[arg(long, global = true, env = "GRUNDY_DB", value_name = "PATH")]
    db: Option<PathBuf>,
    /// Use no store: compute everything, keep nothing.
    #[arg(long, global = true)]
    no_db: bool,
    /// Memory the work may take (bytes, or with a suffix K, M, G, T): engines stop with a
    /// message (exit 1) when they reach it, and solves that would need more are refused up
    /// front [default: 80% of the available memory].
    #[arg(long, global = true, env = "GRUNDY_MEMORY_BUDGET", value_name = "SIZE")]
    memory_budget: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Who wins a position, its Grundy value, and every winning move.
    Solve(solve::SolveArgs),
    /// Answer a classic contest problem: read the judge's input on stdin, print its output.
    Judge(judge::JudgeArgs),
    /// Grundy values G(0), ..., G(N-1) of a heap game, with a proven period when there is one.
    Seq(seq::SeqArgs),
    /// The misère quotient of a heap game to heap N: order, P-portion, presentation, the
    /// element of every heap, and whether it has stabilised.
    Quotient(quotient::QuotientArgs),
    /// Every game of a family of codes (0.??, 4.???, @FILE) to N values: periods, verdicts,
    /// groups of equal sequences; resumable.
    Census(census::CensusArgs),
    /// The table of Grundy values of a family with one or two axes (a heap game, the Cutting
    /// Game, a coordinate game), as text, CSV or JSON.
    Table(table::TableArgs),
    /// A scatter plot of G(n) against n (PNG or SVG).
    Plot(plot::PlotArgs),
    /// Play a position against perfect play in the terminal.
    Play(play::PlayArgs),
    /// Check a periodicity certificate (from grundy seq --certificate) with a separate, simple
    /// checker: exit 0 valid, 1 refused (values or claim wrong), 2 not a certificate.
    Verify(VerifyArgs),
    /// The store of results: list, show, verify, repair, prune.
    Db(db::DbArgs),
    /// Serve the web explorer and its JSON API (default http://127.0.0.1:7878/).
    Serve(serve::ServeArgs),
}

/// Arguments of `grundy verify`.
#[derive(clap::Args, Debug)]
struct VerifyArgs {
    /// The certificate file.
    file: PathBuf,
}

fn main() {
    grundy_core::memory::start_counting();
    // Under mpirun (or srun), a build with the feature `mpi` runs as one rank of many
    // (docs/cluster.md); started alone, as one process.
    #[cfg(feature = "mpi")]
    if cluster::launched() {
        std::process::exit(cluster::main());
    }
    let cli = Cli::parse();
    std::process::exit(run(cli));
}

/// Runs the command of `cli` and returns the exit code.
fn run(cli: Cli) -> i32 {
    if !matches!(cli.command, Command::Serve(_)) {
        end_quietly_on_closed_pipe();
    }
    let budget = match cli.memory_budget.as_deref().map(grundy_core::memory::parse_size) {
        None => grundy_core::memory::default_budget(),
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            eprintln!("grundy: bad --memory-budget: {e}");
            return 2;
        }
    };
    grundy_core::memory::set_budget(budget);
    let store = db::DbOptions {
        db: cli.db,
        no_db: cli.no_db,
    };
    match cli.command {
        #[cfg(feature = "mpi")]
        Command::Solve(args) if args.dense && cluster::ranks() > 1 => cluster_dense::solve(args, &store),
        Command::Solve(args) => report(solve::run(args, &store)),
        Command::Judge(args) => report(judge::run(args)),
        Command::Seq(args) => report(seq::run(args, &store)),
        Command::Quotient(args) => report(quotient::run(args, &store)),
        #[cfg(feature = "mpi")]
        Command::Census(args) if cluster::ranks() > 1 => cluster::census(args, &store),
        Command::Census(args) => report(census::run(args, &store)),
        Command::Table(args) => report(table::run(args, &store)),
        Command::Plot(args) => report(plot::run(args, &store)),
        Command::Db(args) => report(db::run(args, &store)),
        Command::Verify(args) => grundy_verify::run_file(
            &args.file,
            &mut std::io::stdout(),
            &mut std::io::stderr(),
            std::time::Instant::now(),
        ),
        Command::Play(args) => report(play::run(args, &store)),
        Command::Serve(args) => report(serve::run(args, &store)),
    }
}

/// Lets the process end as other command-line tools do when the reader of its output goes
/// away (`grundy seq 0.77 --values | head`): by SIGPIPE, silently, instead of a panic in
/// `println!`. Not for `serve`, whose writes to closed sockets must stay errors.
#[allow(unsafe_code)]
fn end_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal, before any thread is started; no
    // handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Exit code of a command of the library, printing its error.
fn report(result: Result<(), grundy_cli::error::CliError>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("grundy: {e}");
            e.exit_code()
        }
    }
}
