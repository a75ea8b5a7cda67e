//! `grundy census PATTERN --count N`: every game of a family of codes, each computed to N
//! values (kept in the store), its proven period, its verdict, and the groups of games whose
//! sequences agree up to N; resumable through a journal. The logic is
//! `grundy_app::census`; this module holds the arguments, the progress lines and the output.

use grundy_app::census::{self as app, GameOptions, Games, Journal, Plan, Row};
use grundy_app::equivalence;
use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_solve::seq::StoreOptions;
use grundy_store::Store;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Check published equivalences: for every game a table maps to another game, whether
    /// their sequences agree up to N under a shift of heap sizes, or the first heap where
    /// they differ (a section of the table; fields `published_same_as`, `shift`,
    /// `agrees_from`, `first_difference` in --json and --csv). Without FILE, the table built
    /// in (tczajka/octal-games GameLookup.md, 849 pairs); FILE: one pair a line, GAME SAME_AS.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    pub equivalences: Option<String>,
}

/// The exit code a census error deserves: 2 for the user's input, 1 for a failure.
pub fn census_error(e: app::Error) -> CliError {
    if e.is_input() {
        CliError::Usage(e.to_string())
    } else {
        CliError::Failure(anyhow::anyhow!(e.to_string()))
    }
}

/// The table of equivalences to check: `None` without --equivalences; the built-in table for
/// --equivalences alone; else the file's. With the name the output gives it.
fn equivalence_table(arg: Option<&str>) -> Result<Option<(Vec<equivalence::Pair>, String)>, CliError> {
    let Some(file) = arg else {
        return Ok(None);
    };
    let path = Path::new(file);
    let (text, source) = if file.is_empty() {
        (
            equivalence::PUBLISHED.to_string(),
            equivalence::PUBLISHED_SOURCE.to_string(),
        )
    } else {
        (
            grundy_cli::input::read_file(path, "table of equivalences")?,
            path.display().to_string(),
        )
    };
    let pairs = equivalence::parse(&source, &text).map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(Some((pairs, source)))
}

/// The section of the table on published equivalences: a count, then every pair that
/// disagrees with its first difference.
fn write_equivalences(
    out: &mut impl Write,
    checked: &[equivalence::Checked],
    source: &str,
    count: u64,
) -> std::io::Result<()> {
    let agree = checked.iter().filter(|c| c.agreement.agrees()).count();
    let shifted = checked
        .iter()
        .filter(|c| c.agreement.agrees() && c.agreement.shift != 0)
        .count();
    writeln!(
        out,
        "published equivalences ({source}): {} among these games; {agree} agree up to {count} ({shifted} with heap sizes shifted), {} disagree",
        checked.len(),
        checked.len() - agree
    )?;
    for c in checked.iter().filter(|c| !c.agreement.agrees()) {
        let a = &c.agreement;
        match a.first_difference {
            Some(d) => writeln!(
                out,
                "  {} = {} (shift {:+}): first difference at heap {}: G = {} against {}",
                c.pair.game, c.pair.same_as, a.shift, d.heap, d.value, d.other
            )?,
            None => writeln!(
                out,
                "  {} = {}: too few values to compare",
                c.pair.game, c.pair.same_as
            )?,
        }
    }
    Ok(())
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
    /// The table of equivalences to check at the end (--equivalences), with its name.
    pub published: Option<(Vec<equivalence::Pair>, String)>,
}

/// Reads the arguments and the journal: everything a census needs before its first game.
pub fn setup(args: &CensusArgs, db: &DbOptions) -> Result<Census, CliError> {
    let count = grundy_app::seq::parse_count(&args.count).map_err(|e| CliError::Usage(e.to_string()))?;
    app::check_count(count).map_err(census_error)?;
    let (games, key) = games_of(&args.pattern)?;
    let published = equivalence_table(args.equivalences.as_deref())?;
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
        published,
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
    write_rows(&args, &c, store.as_ref())
}

/// Prints the rows of a finished census on stdout, in the order of its games whatever order
/// they were recorded in: the table, `--csv` or `--json`; with --equivalences, the published
/// equivalences among them checked (their sequences read from `store` when kept there).
pub fn write_rows(args: &CensusArgs, c: &Census, store: Option<&Store>) -> Result<(), CliError> {
    let count = c.count;
    let games = &c.games;
    let mut rows: Vec<Row> = c.journal.rows().to_vec();
    let position = |g: &str| games.names.iter().position(|n| n == g).unwrap_or(usize::MAX);
    rows.sort_by_key(|r| position(&r.game));
    let same = app::same_as(&rows);
    let checked = match &c.published {
        Some((pairs, _)) => {
            if !args.quiet {
                eprintln!("grundy: checking the published equivalences among these games");
            }
            let names: Vec<String> = rows.iter().map(|r| r.game.clone()).collect();
            Some(equivalence::check(pairs, &names, &c.options, store).map_err(census_error)?)
        }
        None => None,
    };
    let by_game: HashMap<&str, &equivalence::Checked> = checked
        .iter()
        .flatten()
        .map(|c| (c.pair.game.as_str(), c))
        .collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        for (r, s) in rows.iter().zip(&same) {
            let mut obj = serde_json::to_value(r).map_err(|e| CliError::Failure(e.into()))?;
            obj["same_as"] = serde_json::json!(s);
            if let Some(c) = by_game.get(r.game.as_str()) {
                let a = &c.agreement;
                obj["published_same_as"] = serde_json::json!(c.pair.same_as);
                obj["shift"] = serde_json::json!(a.shift);
                obj["agrees_from"] = serde_json::json!(a.from);
                obj["first_difference"] = serde_json::json!(a
                    .first_difference
                    .map(|d| serde_json::json!({"heap": d.heap, "value": d.value, "other": d.other})));
            }
            writeln!(out, "{obj}")?;
        }
    } else if args.csv {
        let extra = if checked.is_some() {
            ",published_same_as,shift,agrees_from,first_difference"
        } else {
            ""
        };
        writeln!(
            out,
            "game,verdict,period,n0,saltus,max,rare,rare_count,count,computed,checked_to,same_as{extra}"
        )?;
        for (r, s) in rows.iter().zip(&same) {
            write!(
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
            if checked.is_some() {
                match by_game.get(r.game.as_str()) {
                    Some(c) => write!(
                        out,
                        ",{},{},{},{}",
                        c.pair.same_as,
                        c.agreement.shift,
                        opt(c.agreement.from),
                        opt(c.agreement.first_difference.map(|d| d.heap))
                    )?,
                    None => write!(out, ",,,,")?,
                }
            }
            writeln!(out)?;
        }
    } else {
        write_table(&mut out, &rows, &same, count)?;
        if let (Some(checked), Some((_, source))) = (&checked, &c.published) {
            write_equivalences(&mut out, checked, source, count)?;
        }
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
