//! `grundy census PATTERN --count N`: every game of a family of codes, each computed to N
//! values (kept in the store), its proven period, its verdict, and the groups of games whose
//! sequences agree up to N; resumable through a journal. The logic is
//! `grundy_app::census`; this module holds the arguments, the progress lines and the output.

use grundy_app::census::{self as app, GameOptions, Games, Journal, Plan, Row};
use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_solve::seq::StoreOptions;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `grundy census`.
#[derive(clap::Args, Debug, Clone)]
pub struct CensusArgs {
    /// The games: a code with `?` for each octal digit 0-7 to run through (0.??, 0.???,
    /// 4.???), a single code, or @FILE: a file of codes (or patterns), one per line, `#`
    /// starting a comment line. Codes that are the same game (0.10 is 0.1) are run once.
    pub pattern: String,
    /// Values per game: G(0) to G(N-1). Accepts 65536, 1e5, 2^16.
    #[arg(long, short = 'n', default_value = "2^16")]
    pub count: String,
    /// One CSV row per game (header first) instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// One JSON object per game and line instead of the table.
    #[arg(long)]
    pub json: bool,
    /// The journal of finished games, to resume after a stop [default: census-HASH.jsonl
    /// beside the store; none with --no-db].
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Keep each game's values in memory up to this many MiB; beyond, in a scratch file.
    #[arg(long, value_name = "MIB", default_value_t = 8192, value_parser = grundy_cli::numbers::memory_mib)]
    pub memory_mib: u64,
    /// Threads per game (default: as grundy seq).
    #[arg(long, short = 'j', value_parser = grundy_cli::numbers::threads)]
    pub threads: Option<usize>,
    /// No progress lines on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The exit code a census error deserves: 2 for the user's input, 1 for a failure.
pub fn census_error(e: app::Error) -> CliError {
    if e.is_input() {
        CliError::Usage(e.to_string())
    } else {
        CliError::Failure(anyhow::anyhow!(e.to_string()))
    }
}

/// Reads the pattern: `@FILE` is a list, anything else a pattern.
fn games_of(pattern: &str) -> Result<(Games, String), CliError> {
    if let Some(file) = pattern.strip_prefix('@') {
        let path = std::path::Path::new(file);
        let text = grundy_cli::input::read_file(path, "list of games")?;
        let games = app::from_list(file, &text).map_err(census_error)?;
        // The journal's key: the list's contents, so an edited list is another census.
        Ok((games, format!("@{text}")))
    } else {
        Ok((
            app::expand(pattern).map_err(census_error)?,
            pattern.trim().to_string(),
        ))
    }
}

/// A census ready to run: its games, its journal (with what an earlier run finished), what
/// is left, and how each game is computed. Built by [`setup`]; the loop over the pending
/// games is [`run`]'s (one process) or the cluster's (`mpirun`, feature `mpi`).
pub struct Census {
    /// Values per game.
    pub count: u64,
    /// The games, in order.
    pub games: Games,
    /// The journal (the games finished so far).
    pub journal: Journal,
    /// Where the journal is kept (`None`: nowhere).
    pub journal_path: Option<PathBuf>,
    /// The games left to run, in order.
    pub pending: Vec<String>,
    /// How each game is computed.
    pub options: GameOptions,
}

/// Reads the arguments and the journal: everything a census needs before its first game.
pub fn setup(args: &CensusArgs, db: &DbOptions) -> Result<Census, CliError> {
    let count = grundy_app::seq::parse_count(&args.count).map_err(|e| CliError::Usage(e.to_string()))?;
    app::check_count(count).map_err(census_error)?;
    let (games, key) = games_of(&args.pattern)?;
    let journal_path = match (&args.journal, db.path()) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(store)) => Some(app::default_journal(&store, &key, count)),
        (None, None) => None,
    };
    let journal =
        Journal::open(journal_path.as_deref(), args.pattern.trim(), count, &games).map_err(census_error)?;
    let pending = Plan::new(&games, &journal).pending();
    Ok(Census {
        count,
        games,
        journal,
        journal_path,
        pending,
        options: game_options(args, count),
    })
}

/// How each game of a census at `count` values is computed, from the arguments.
pub fn game_options(args: &CensusArgs, count: u64) -> GameOptions {
    GameOptions {
        count,
        storage: StoreOptions {
            memory_limit: args.memory_mib.saturating_mul(1 << 20),
            scratch_dir: None,
        },
        threads: args.threads,
    }
}

/// The first progress line: how many games, how many done before, where the journal is;
/// `extra` is added before the journal (e.g. the ranks of a cluster run).
pub fn start_line(c: &Census, extra: &str) -> String {
    format!(
        "grundy: census of {} games ({} codes the same as an earlier one, {} no game) at {} values; {} done before, {} to run{extra}{}",
        c.games.names.len(),
        c.games.duplicates.len(),
        c.games.invalid.len(),
        c.count,
        c.journal.rows().len(),
        c.pending.len(),
        match &c.journal_path {
            Some(p) => format!("; journal {}", p.display()),
            None => "; no journal (--no-db): a stop loses the work".into(),
        }
    )
}

/// The progress line of a finished game, the `done`-th of `total`.
pub fn game_line(row: &Row, done: usize, total: usize) -> String {
    format!(
        "grundy: [{done}/{total}] {}: {}{} ({:.2} s)",
        row.game,
        row.verdict.as_str(),
        match (row.period, row.n0, row.saltus) {
            (Some(p), Some(n0), Some(s)) if s > 0 => format!(" {p} from {n0}, saltus {s}"),
            (Some(p), Some(n0), _) => format!(" {p} from {n0}"),
            _ => String::new(),
        },
        row.seconds
    )
}

/// Runs `grundy census`.
pub fn run(args: CensusArgs, db: &DbOptions) -> Result<(), CliError> {
    let mut c = setup(&args, db)?;
    if !args.quiet {
        eprintln!("{}", start_line(&c, ""));
    }
    let store = db.open_cache();
    let total = c.games.names.len();
    for game in std::mem::take(&mut c.pending) {
        let row = app::run_game(&game, &c.options, store.as_ref()).map_err(census_error)?;
        if !args.quiet {
            eprintln!("{}", game_line(&row, c.journal.rows().len() + 1, total));
        }
        c.journal.record(row).map_err(census_error)?;
    }
    write_rows(&args, &c)
}

/// Prints the rows of a finished census on stdout, in the order of its games whatever order
/// they were recorded in: the table, `--csv` or `--json`.
pub fn write_rows(args: &CensusArgs, c: &Census) -> Result<(), CliError> {
    let count = c.count;
    let games = &c.games;
    let mut rows: Vec<Row> = c.journal.rows().to_vec();
    let position = |g: &str| games.names.iter().position(|n| n == g).unwrap_or(usize::MAX);
    rows.sort_by_key(|r| position(&r.game));
    let same = app::same_as(&rows);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        for (r, s) in rows.iter().zip(&same) {
            let mut obj = serde_json::to_value(r).map_err(|e| CliError::Failure(e.into()))?;
            obj["same_as"] = serde_json::json!(s);
            writeln!(out, "{obj}")?;
        }
    } else if args.csv {
        writeln!(
            out,
            "game,verdict,period,n0,saltus,max,rare,rare_count,count,computed,checked_to,same_as"
        )?;
        for (r, s) in rows.iter().zip(&same) {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                r.game,
                r.verdict.as_str(),
                opt(r.period),
                opt(r.n0),
                opt(r.saltus),
                r.max,
                rare(r),
                opt(r.rare_count),
                r.count,
                r.computed,
                opt(r.checked_to),
                s.as_deref().unwrap_or("")
            )?;
        }
    } else {
        write_table(&mut out, &rows, &same, count)?;
    }
    out.flush()?;
    Ok(())
}

fn opt(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The rare values, separated by spaces (no comma, so a CSV field needs no quotes).
fn rare(r: &Row) -> String {
    r.rare
        .as_ref()
        .map(|v| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn write_table(
    out: &mut impl Write,
    rows: &[Row],
    same: &[Option<String>],
    count: u64,
) -> std::io::Result<()> {
    let w = rows.iter().map(|r| r.game.len()).max().unwrap_or(4).max(4);
    writeln!(
        out,
        "{:<w$}  {:<19}  {:>10}  {:>10}  {:>6}  {:>6}  {:>10}  {:>10}  same as",
        "game", "verdict", "period", "n0", "saltus", "max", "rare heaps", "checked to"
    )?;
    for (r, s) in rows.iter().zip(same) {
        writeln!(
            out,
            "{:<w$}  {:<19}  {:>10}  {:>10}  {:>6}  {:>6}  {:>10}  {:>10}  {}",
            r.game,
            r.verdict.as_str(),
            opt(r.period),
            opt(r.n0),
            opt(r.saltus),
            r.max,
            opt(r.rare_count),
            opt(r.checked_to),
            s.as_deref().unwrap_or("")
        )?;
    }
    let tally = |v: app::Verdict| rows.iter().filter(|r| r.verdict == v).count();
    writeln!(
        out,
        "{} games at {count} values: {} periodic, {} arithmetic-periodic, {} unresolved",
        rows.len(),
        tally(app::Verdict::Periodic),
        tally(app::Verdict::ArithmeticPeriodic),
        tally(app::Verdict::Unresolved)
    )?;
    let groups = app::groups(rows);
    if groups.is_empty() {
        writeln!(out, "no two games have equal sequences up to {count}")?;
    } else {
        writeln!(
            out,
            "games with equal sequences up to {count} ({} groups):",
            groups.len()
        )?;
        for g in groups {
            writeln!(out, "  {}", g.join(" = "))?;
        }
    }
    Ok(())
}
