//! `grundy solve FAMILY POSITION`: who wins, the Grundy value, every winning move.

use crate::db::DbOptions;
use crate::error::CliError;
use grundy_app::solve::{AppError, EngineChoice, ErrorKind, Limits, SolveOptions, SolveRequest};
use grundy_app::store::StoredAnalysis;
use grundy_core::Outcome;
use grundy_games::family::FamilyOptions;
use grundy_games::registry;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `grundy solve`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Families and notation: see docs/games.md. Examples:\n  \
    grundy solve nim 3 5 7\n  \
    grundy solve nim 1 1 4 --misere\n  \
    grundy solve 0.77 5 9 12\n  \
    grundy solve 0.77 3 9 --misere --remoteness\n  \
    grundy solve subtraction --set 1,3,4 10 11\n  \
    grundy solve darkraft RL/LR\n  \
    grundy solve crosses ....X......\n  \
    grundy solve cutting 4x2 3x3 --json\n  \
    grundy solve bombs '.#/..'\n  \
    grundy solve points 110000000011 --misere\n  \
    grundy solve graph edges.txt --rule node-kayles\n  \
    grundy solve graph --board grid:3x4 --rule arc-kayles --remoteness\n  \
    grundy solve cram 5x7 --json\n  \
    grundy solve cram 4x6 --dense --memory-budget 2G\n  \
    grundy solve chomp 7 7 5 3\n  \
    grundy solve bombs --file board.txt")]
pub struct SolveArgs {
    /// The game family (the list comes from the registry: `family_help`). With `--game FILE`
    /// there is none: the words are the position.
    #[arg(help = family_help(), long_help = family_long_help(), required_unless_present = "game_file", default_value = "", hide_default_value = true)]
    pub family: String,
    /// The position in the family's notation; `-` reads it from stdin, `@FILE` from a file.
    pub position: Vec<String>,
    /// Read the position from this file.
    #[arg(short, long, value_name = "FILE", conflicts_with = "position")]
    pub file: Option<PathBuf>,
    /// Misère play: the player who cannot move wins.
    #[arg(long)]
    pub misere: bool,
    /// With --misere, for heap games: also show each heap's genus g^(g0 g1 ...) (Conway),
    /// whether it is tame, and the outcome by the rule of misère Nim when every heap is.
    #[arg(long, requires = "misere")]
    pub genus: bool,
    /// Print a JSON object (fields: family, position, convention, grundy, outcome, winning_moves;
    /// winning_moves is null with --value-only).
    #[arg(long)]
    pub json: bool,
    /// Also give the remoteness: moves until the end with best play (winner fastest, loser
    /// slowest), for the position and for every move (a search over whole positions).
    #[arg(long)]
    pub remoteness: bool,
    /// Also list every move with the value of the position it leads to.
    #[arg(long)]
    pub all_moves: bool,
    /// The Grundy value and the outcome alone, by the pruned search (cram, or
    /// `--engine search`; normal play): no winning move is worked out, which saves about
    /// half the time. With --json, `winning_moves` is null. Runs on every core (-j), within
    /// --max-positions, --memory-budget and --timeout, with --checkpoint/--resume (a
    /// value-only checkpoint resumes only a value-only solve). Kept in the store apart from
    /// the analyses (a full analysis in the store answers it too).
    #[arg(long, conflicts_with_all = ["all_moves", "dense", "genus", "record"])]
    pub value_only: bool,
    /// Give up (exit 1) once the engine holds this many positions. Default: 20000000 for the
    /// memo engine; no limit for the pruned search (`--engine search`, cram), whose table
    /// forgets its least valuable answers once it has grown to a share of the memory budget
    /// and so runs on within --memory-budget (given, it bounds the entries the tables hold).
    #[arg(long, value_name = "N", value_parser = crate::numbers::max_positions)]
    pub max_positions: Option<usize>,
    /// Board, graph, rule and subtraction set.
    #[command(flatten)]
    pub game: GameArgs,
    /// Normal-play engine: `memo` values every option of every component met; `search`
    /// decides "is this lost?" with pruning and values only what it must (after Lemoine and
    /// Viennot); `auto` picks search for cram, memo otherwise.
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    pub engine: Engine,
    /// Solve every position of the whole board by dense retrograde analysis (cram only; up to
    /// 64 empty cells, in practice about 32). The memory it needs is printed on stderr first.
    #[arg(long)]
    pub dense: bool,
    /// With --dense: what to store per position: `outcome` (2 bits), `grundy` (16 bits,
    /// normal play; the default there) or `remoteness` (16 bits: moves to the end with best
    /// play; the default under --misere).
    #[arg(long, value_enum, requires = "dense")]
    pub record: Option<DenseRecord>,
    /// Save the pruned search's progress (the moves settled and its table) to FILE after
    /// each settled move, every so often in between and when a limit stops it, to resume
    /// after a stop. An existing FILE must be a grundy search checkpoint (it is replaced);
    /// another file is refused unless --force is given, a folder or a device always. The
    /// search's progress (moves settled, search nodes, table) goes to stderr every second
    /// on a terminal, every minute into a file or pipe.
    /// With --dense: the folder DIR (created if missing) where each finished tier is kept,
    /// one file per tier; the same command run again resumes from the finished tiers
    /// (docs/cluster.md). A folder holding another solve's tiers is refused. Without it, a
    /// dense solve with a store keeps its finished tiers beside the store
    /// (STORE.dense-tiers/, `grundy db list` shows them as `pending`) until its answer is
    /// in the store: the same command resumes from them too.
    #[arg(long, value_name = "FILE|DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint FILE (and keep saving to it, unless --checkpoint names
    /// another file); a checkpoint of another game or position is refused. With --dense:
    /// continue from the finished tiers in the folder DIR, which must exist (and keep
    /// the tiers solved now in it).
    #[arg(long, value_name = "FILE|DIR")]
    pub resume: Option<PathBuf>,
    /// Let --checkpoint replace an existing regular file that is not a grundy checkpoint
    /// (a folder, a device, a pipe or a socket is refused even so).
    #[arg(long, requires = "checkpoint")]
    pub force: bool,
    /// Stop (exit 1) after this many seconds, with the checkpoint written if one is asked.
    /// With --dense: stop between two tiers once the time is up, the finished tiers kept
    /// (in the store's folder, or --checkpoint DIR), so that the same command resumes.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Threads of the pruned search, 1 to 1024 (default: every core). The answers are the
    /// same on any number.
    #[arg(long, short = 'j', value_parser = crate::numbers::threads)]
    pub threads: Option<usize>,
}

/// One line naming every family, for `--help`.
pub fn family_help() -> String {
    let names: Vec<&str> = registry::named().map(|d| d.name).collect();
    format!(
        "Game family: {}, or a heap game code (0.77, 4.07, 0.F, grundys-game, sub:1,3,4, sub-all-but:2,5; subtraction with --set)",
        names.join(", ")
    )
}

/// Every family with its notation, for `--help` (the long form).
pub fn family_long_help() -> String {
    let mut out = String::from("Game family, one of:\n");
    for d in registry::DESCRIPTIONS {
        let name = match d.code {
            None => d.name.to_string(),
            Some(_) => format!("{} ({})", d.name, d.aliases.join(", ")),
        };
        out.push_str(&format!("  {name}: {}\n", d.notation));
    }
    out
}

/// The options that pick the game within a family, shared by `solve` and `play`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct GameArgs {
    /// Built-in board of the graph games: maoershan (the 12-point board), petersen,
    /// path:N, cycle:N, complete:N, star:N, grid:RxC.
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// Edge-list file of the graph for `points`: one edge `P Q` per line, points numbered
    /// from 1.
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
    /// Subtraction set for the `subtraction` family (`--set 1,3,4` is the game `sub:1,3,4`).
    #[arg(long, value_name = "LIST")]
    pub set: Option<String>,
    /// Rule of the graph games: one-or-two (default), take-vertex, node-kayles, arc-kayles.
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
    /// A game defined in a file: a TOML spec (`kind = ...`) or a Lua script (`.lua`); see
    /// docs/game-files.md. The family is then the file's, and every word is the position.
    #[arg(long = "game", value_name = "FILE")]
    pub game_file: Option<PathBuf>,
}

impl GameArgs {
    /// The text of the `--graph` file, if one is given.
    pub fn graph_text(&self) -> Result<Option<(String, String)>, CliError> {
        match &self.graph {
            None => Ok(None),
            Some(path) => {
                let text = crate::input::read_file(path, "graph file")?;
                Ok(Some((path.display().to_string(), text)))
            }
        }
    }

    /// The `--game` file: its path (as given, for errors) and its text.
    pub fn game_text(&self) -> Result<Option<(String, String)>, CliError> {
        match &self.game_file {
            None => Ok(None),
            Some(path) => {
                let text = crate::input::read_file(path, "game file")?;
                Ok(Some((path.display().to_string(), text)))
            }
        }
    }

    /// The options of the family, as the registry reads them (`heap_values`: the bulk
    /// engine for heap games, if any).
    pub fn options(
        &self,
        heap_values: Option<grundy_games::family::HeapValues>,
    ) -> Result<FamilyOptions, CliError> {
        let game = match self.game_text()? {
            None => None,
            Some((source, text)) => Some(grundy_app::gamefile::load(&source, &text).map_err(app_error)?),
        };
        Ok(FamilyOptions {
            board: self.board.clone(),
            graph: self.graph_text()?,
            rule: self.rule.clone(),
            set: self.set.clone(),
            game,
            heap_values,
        })
    }
}

/// With `--game FILE` the family word is the position's first word: the family and the
/// position's words as they are meant.
pub fn family_and_words(family: &str, words: &[String], game: &GameArgs) -> (String, Vec<String>) {
    if game.game_file.is_none() {
        return (family.to_string(), words.to_vec());
    }
    let words = std::iter::once(family.to_string())
        .filter(|w| !w.is_empty())
        .chain(words.iter().cloned())
        .collect();
    (String::new(), words)
}

/// What a dense solve stores per position.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenseRecord {
    /// Win or loss, 2 bits.
    Outcome,
    /// Grundy value, 16 bits (normal play).
    Grundy,
    /// Smith's remoteness, 16 bits.
    Remoteness,
}

/// Which engine answers normal play.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The family's preferred engine.
    Auto,
    /// Memoised Grundy values of every component met.
    Memo,
    /// Pruned search.
    Search,
}

/// Reads the position text from the arguments, a file, or stdin.
pub fn position_text(words: &[String], file: Option<&PathBuf>) -> Result<String, CliError> {
    let read_file = |p: &std::path::Path| crate::input::read_file(p, "position file");
    if let Some(f) = file {
        return read_file(f);
    }
    match words {
        [w] if w == "-" => {
            crate::input::read_text(std::io::stdin(), crate::input::MAX_INPUT, "the position on stdin")
        }
        [w] if w.starts_with('@') && w.len() > 1 => read_file(std::path::Path::new(&w[1..])),
        _ => Ok(words.join(" ")),
    }
}

/// Runs `grundy solve`; with a store, answers from it when it holds the position, and
/// keeps what it computes (the application layer's [`grundy_app::solve::solve_with`], as the server does).
pub fn run(mut args: SolveArgs, db: &DbOptions) -> Result<(), CliError> {
    (args.family, args.position) = family_and_words(&args.family, &args.position, &args.game);
    let text = read_position(&args.family, &args.position, args.file.as_ref())?;
    if args.dense {
        let opts = args.game.options(Some(grundy_app::solve::heap_values))?;
        return crate::dense::run(&args, &opts, &text, db);
    }
    let graph = args.game.graph_text()?;
    let game = args.game.game_text()?;
    let from_file = game.is_some();
    let req = SolveRequest {
        family: args.family.clone(),
        game: game.as_ref().map(|(_, t)| t.clone()),
        position: text,
        misere: args.misere,
        remoteness: args.remoteness,
        board: args.game.board.clone(),
        graph: graph.as_ref().map(|(_, t)| t.clone()),
        rule: args.game.rule.clone(),
        set: args.game.set.clone(),
        timeout: None,
    };
    let store = db.open_cache();
    // On a terminal, every progress report (about one a second); into a file or a pipe (a
    // run left with nohup), one a minute, so that its log shows how far it got.
    let mut pace = Pace::new(if std::io::stderr().is_terminal() {
        Duration::ZERO
    } else {
        LOGGED_PROGRESS_EVERY
    });
    let start = Instant::now();
    let mut progress = |pr: &grundy_solve::search::Progress| {
        let now = start.elapsed();
        if pace.due(now) {
            let heap = grundy_core::memory::counting().then(grundy_core::memory::in_use);
            eprintln!("{}", progress_line(pr, heap, now.as_secs_f64()));
        }
    };
    let checkpointed = args.checkpoint.is_some() || args.resume.is_some();
    let mut notice = |text: &str| {
        let keep = if checkpointed {
            ""
        } else {
            "; --checkpoint FILE keeps its progress across a stop"
        };
        eprintln!("grundy: {text}{keep}");
    };
    let opts = SolveOptions {
        engine: match args.engine {
            Engine::Auto => EngineChoice::Auto,
            Engine::Memo => EngineChoice::Memo,
            Engine::Search => EngineChoice::Search,
        },
        all_moves: args.all_moves,
        // Only --all-moves prints every move (a misère sum of huge heaps has millions).
        list_moves: args.all_moves,
        value_only: args.value_only,
        store: store.as_ref(),
        keep_after: Duration::ZERO,
        graph_source: graph.map(|(source, _)| source),
        game_source: game.map(|(source, _)| source),
        progress: Some(&mut progress),
        notice: Some(&mut notice),
    };
    // The genus first: a game that is not a heap game is refused before any search.
    let genus = if args.genus {
        Some(position_genus(&args, from_file, &req.position)?)
    } else {
        None
    };
    let ckpt = grundy_app::solve::Checkpointing {
        checkpoint: args.checkpoint.clone(),
        resume: args.resume.clone(),
    };
    if let Some(path) = &args.checkpoint {
        if let Some(why) = grundy_solve::search_checkpoint::target(path).refusal(args.force) {
            return Err(CliError::Usage(format!("--checkpoint {}: {why}", path.display())));
        }
    }
    let mut limits = Limits::local(args.max_positions.unwrap_or(DEFAULT_MAX_POSITIONS));
    limits.search_positions = Some(args.max_positions.unwrap_or(usize::MAX));
    limits.threads = args
        .threads
        .unwrap_or_else(grundy_solve::search_parallel::default_threads);
    if let Some(secs) = args.timeout {
        limits.cancel = Some(timeout_flag(secs)?);
    }
    let a = match grundy_app::solve::solve_checkpointed(&req, &limits, opts, &ckpt) {
        Ok(a) => a,
        Err(e) => {
            let stopped = matches!(
                e.kind,
                ErrorKind::PositionLimit | ErrorKind::Memory | ErrorKind::Cancelled
            );
            if let (true, Some(path)) = (stopped, ckpt.path()) {
                if grundy_solve::search_checkpoint::target(path)
                    == grundy_solve::seq::checkpoint::Target::Checkpoint
                {
                    eprintln!(
                        "grundy: progress saved in {}; continue with --resume {}",
                        path.display(),
                        path.display()
                    );
                }
            }
            return Err(app_error(e));
        }
    };
    match genus {
        None => print(&args, &StoredAnalysis::from(a))?,
        Some(g) => print_with_genus(&args, &StoredAnalysis::from(a), &g)?,
    }
    Ok(())
}

/// The genus of every heap of `position` (`--genus`): heap games given by a code or as
/// `subtraction --set`; anything else is a usage error.
fn position_genus(
    args: &SolveArgs,
    from_file: bool,
    position: &str,
) -> Result<grundy_app::seq::PositionGenus, CliError> {
    use grundy_core::Game;
    use grundy_games::heap::HeapGame;
    let code = match (&args.game.set, args.family.as_str()) {
        (Some(set), "subtraction" | "sub") => format!("sub:{set}"),
        _ => args.family.clone(),
    };
    let game = match HeapGame::parse(&code) {
        Ok(g) if !from_file => g,
        _ => {
            return Err(CliError::Usage(format!(
                "--genus is for heap games given by a code (0.77, sub:1,3,4, grundys-game, ...), not '{}'",
                grundy_core::parse::shorten(if from_file { "a game file" } else { &args.family })
            )))
        }
    };
    let heaps = game
        .parse_position(position)
        .map_err(|e| CliError::Usage(format!("position: column {}: {}", e.span.column, e.message)))?;
    grundy_app::seq::position_genus(&game, &heaps).map_err(|e| {
        if e.is_input() {
            CliError::Usage(e.to_string())
        } else {
            CliError::Failure(e.into())
        }
    })
}

/// Prints an analysis with the genus of its heaps (`--genus`).
fn print_with_genus(
    args: &SolveArgs,
    a: &StoredAnalysis,
    g: &grundy_app::seq::PositionGenus,
) -> Result<(), CliError> {
    if args.json {
        let mut obj = analysis_json(args, a, None);
        let heaps: Vec<serde_json::Value> = g
            .heaps
            .iter()
            .map(|(h, genus, tame)| {
                serde_json::json!({
                    "heap": h,
                    "genus": genus.to_list(),
                    "notation": genus.notation(),
                    "tame": tame,
                })
            })
            .collect();
        obj["genus"] = serde_json::json!({
            "heaps": heaps,
            "tame": g.tame_outcome.is_some(),
            "tame_outcome": g.tame_outcome,
        });
        println!("{obj}");
        return Ok(());
    }
    print_analysis(args, a, None)?;
    println!("genus of each heap (g^(g0 g1 ...); the last two superscript terms repeat forever):");
    for (h, genus, tame) in &g.heaps {
        println!(
            "  {h:<10} {:<16} {}",
            genus.notation(),
            if *tame { "tame" } else { "wild" }
        );
    }
    match g.tame_outcome {
        Some(o) => println!(
            "sum:           tame: by the rule of misère Nim, {}",
            if o == Outcome::Second {
                "the second player wins"
            } else {
                "the first player wins"
            }
        ),
        None => println!("sum:           not tame (a wild heap): the outcome above is from the search"),
    }
    Ok(())
}

/// `--max-positions` of the memo engine when none is given.
pub const DEFAULT_MAX_POSITIONS: usize = 20_000_000;

/// An application error as the command line reports it: the user's input exits 2, a limit
/// or a failure 1.
pub fn app_error(e: AppError) -> CliError {
    match e.kind {
        ErrorKind::PositionLimit => CliError::Failure(anyhow::anyhow!(
            "{} (raise the limit with --max-positions)",
            e.message
        )),
        _ if e.is_input() => CliError::Usage(e.message),
        _ => CliError::Failure(anyhow::anyhow!(e.message)),
    }
}

/// A flag set after `secs` seconds (`--timeout SECS`), by a thread of its own; `secs` must
/// be above 0 and at most 10^9 (else a usage error).
pub fn timeout_flag(secs: f64) -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, CliError> {
    if !(secs.is_finite() && secs > 0.0 && secs <= 1e9) {
        return Err(CliError::Usage(format!(
            "--timeout must be a number of seconds above 0 and at most 10^9, found {secs}"
        )));
    }
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let set = flag.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(secs));
        set.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    Ok(flag)
}

/// The position's text from the words, a file or stdin. A family whose position is a whole
/// file (the graph family: an edge list) takes a single word as that file's path.
pub fn read_position(family: &str, words: &[String], file: Option<&PathBuf>) -> Result<String, CliError> {
    let whole_file =
        !family.is_empty() && registry::find(family).is_ok_and(|f| f.description.continues_as.is_some());
    match words {
        [path] if whole_file && file.is_none() && path != "-" && !path.starts_with('@') => {
            position_text(&[], Some(&PathBuf::from(path)))
        }
        _ => position_text(words, file),
    }
}

/// Prints an analysis as text or JSON.
fn print(args: &SolveArgs, a: &StoredAnalysis) -> Result<(), CliError> {
    print_analysis(args, a, None)
}

/// The size of a dense solve: states solved and peak memory in bytes.
pub(crate) struct DenseSize {
    /// States of the solve of this position.
    pub states: u64,
    /// Peak memory of the solve.
    pub memory_bytes: u64,
}

/// Prints an analysis as text or JSON; `dense` for a dense solve (its size is printed too,
/// and a missing Grundy value means the records did not keep it).
pub(crate) fn print_analysis(
    args: &SolveArgs,
    a: &StoredAnalysis,
    dense: Option<&DenseSize>,
) -> Result<(), CliError> {
    // Buffered: an answer may list millions of moves, a line each.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.json {
        writeln!(out, "{}", analysis_json(args, a, dense))?;
    } else {
        print_text(&mut out, args, a, dense)?;
    }
    out.flush()?;
    Ok(())
}

/// The JSON object of an analysis.
fn analysis_json(args: &SolveArgs, a: &StoredAnalysis, dense: Option<&DenseSize>) -> serde_json::Value {
    let second = |o: &Outcome| *o == Outcome::Second;
    {
        let mut obj = serde_json::json!({
            "family": a.family,
            "position": a.position,
            "convention": a.convention,
            "grundy": a.grundy,
            "outcome": a.outcome,
            "winning_moves": a.winning_moves,
        });
        if args.value_only {
            obj["winning_moves"] = serde_json::Value::Null;
        }
        match dense {
            Some(d) => {
                obj["engine"] = "dense".into();
                obj["states"] = d.states.into();
                obj["memory_bytes"] = d.memory_bytes.into();
                if let Some(r) = a.remoteness {
                    obj["remoteness"] = r.into();
                }
            }
            None if args.remoteness => obj["remoteness"] = serde_json::json!(a.remoteness),
            None => {}
        }
        if args.all_moves {
            let moves: Vec<serde_json::Value> = a
                .moves
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "move": r.mv,
                        "grundy": r.grundy,
                        "outcome": r.outcome,
                        "wins": second(&r.outcome),
                        "remoteness": r.remoteness,
                    })
                })
                .collect();
            obj["moves"] = serde_json::Value::Array(moves);
        }
        obj
    }
}

/// Prints an analysis as text.
fn print_text(
    out: &mut impl Write,
    args: &SolveArgs,
    a: &StoredAnalysis,
    dense: Option<&DenseSize>,
) -> std::io::Result<()> {
    let second = |o: &Outcome| *o == Outcome::Second;
    let who = if second(&a.outcome) {
        "second player wins (the player to move loses)"
    } else {
        "first player (the player to move) wins"
    };
    writeln!(
        out,
        "{} {}{}{}",
        a.family,
        a.position,
        if args.misere { " (misère)" } else { "" },
        dense
            .map(|d| format!(" (dense: {} states)", d.states))
            .unwrap_or_default()
    )?;
    writeln!(out, "outcome:       {who}")?;
    match a.grundy {
        Some(g) => writeln!(out, "grundy value:  {g}")?,
        None if args.misere => writeln!(out, "grundy value:  none (misère play)")?,
        None if dense.is_some() => writeln!(out, "grundy value:  not stored (--record)")?,
        None => writeln!(out, "grundy value:  none (the player to move wins at once)")?,
    }
    if let Some(r) = a.remoteness {
        let what = if second(&a.outcome) {
            "moves the player to move can hold out before losing"
        } else {
            "moves for the player to move to win against best defence"
        };
        writeln!(out, "remoteness:    {r} ({what})")?;
    }
    if args.value_only {
        // Not worked out (--value-only).
    } else if a.winning_moves.is_empty() {
        writeln!(out, "winning moves: none")?;
    } else {
        out.write_all(b"winning moves:")?;
        for m in &a.winning_moves {
            out.write_all(b" ")?;
            out.write_all(m.as_bytes())?;
        }
        out.write_all(b"\n")?;
    }
    if args.all_moves {
        writeln!(out, "all moves:")?;
        for r in &a.moves {
            let verdict = if second(&r.outcome) { "wins" } else { "loses" };
            let value = match (r.grundy, r.remoteness) {
                (Some(g), _) => format!("grundy {g}"),
                (_, Some(r)) => format!("remoteness {r}"),
                _ => String::new(),
            };
            writeln!(out, "  {:<16} {verdict:<6} {value}", r.mv)?;
        }
    }
    Ok(())
}

/// How often a long search's progress is written when stderr is not a terminal.
const LOGGED_PROGRESS_EVERY: Duration = Duration::from_secs(60);

/// Which progress reports are written: the first one `every` after the start, then one
/// `every` after the last written (every one when `every` is zero).
struct Pace {
    every: Duration,
    shown: Duration,
}

impl Pace {
    fn new(every: Duration) -> Pace {
        Pace {
            every,
            shown: Duration::ZERO,
        }
    }

    /// Whether the report at `now` (since the start) is written.
    fn due(&mut self, now: Duration) -> bool {
        let due = now >= self.shown + self.every;
        if due {
            self.shown = now;
        }
        due
    }
}

/// One progress line of the pruned search, `secs` seconds into it: the shared table's
/// size, and the whole heap in use (`heap`, when it is counted: the threads' own tables
/// grow too, within half the memory budget together).
fn progress_line(pr: &grundy_solve::search::Progress, heap: Option<usize>, secs: f64) -> String {
    let what = if pr.moves == 0 {
        "valuing the position".to_string()
    } else if pr.moves_done < pr.moves {
        format!("{} of {} moves settled", pr.moves_done, pr.moves)
    } else {
        format!("all {} moves settled, valuing the position", pr.moves)
    };
    let heap = heap
        .map(|b| format!(", heap {}", grundy_solve::dense::human_bytes(b as u64)))
        .unwrap_or_default();
    format!(
        "grundy: {what} ({:.1} M search nodes, table {}{heap}, {secs:.1} s)",
        pr.stats.nodes as f64 / 1e6,
        grundy_solve::dense::human_bytes(pr.table_bytes as u64),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use grundy_solve::search::Progress;
    use grundy_solve::SearchStats;

    #[test]
    fn progress_into_a_log_once_a_minute() {
        let secs = Duration::from_secs_f64;
        let mut log = Pace::new(LOGGED_PROGRESS_EVERY);
        let written: Vec<f64> = (1..=200)
            .map(|s| s as f64)
            .filter(|&s| log.due(secs(s)))
            .collect();
        assert_eq!(written, [60.0, 120.0, 180.0]);
        let mut terminal = Pace::new(Duration::ZERO);
        assert!((1..=5).all(|s| terminal.due(secs(s as f64))));
    }

    #[test]
    fn progress_lines() {
        let mut pr = Progress {
            moves_done: 6,
            moves: 67,
            stats: SearchStats {
                nodes: 5_300_000,
                ..SearchStats::default()
            },
            table_bytes: 8 << 20,
        };
        assert_eq!(
            progress_line(&pr, None, 8.1),
            "grundy: 6 of 67 moves settled (5.3 M search nodes, table 8.0 MiB, 8.1 s)"
        );
        assert_eq!(
            progress_line(&pr, Some(3 << 29), 8.1),
            "grundy: 6 of 67 moves settled (5.3 M search nodes, table 8.0 MiB, heap 1.5 GiB, 8.1 s)"
        );
        pr.moves_done = 67;
        assert!(
            progress_line(&pr, None, 9.0).starts_with("grundy: all 67 moves settled, valuing the position")
        );
    }
}
