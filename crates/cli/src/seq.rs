//! `grundy seq GAME --count N`: the Grundy sequence G(0), ..., G(N−1) of a heap game, with
//! its summary (largest value, rare/common split, proven period), a progress bar, and
//! checkpoints to stop and resume long runs.
//!
//! The driver (store, checkpoints, period checks, threads) is `grundy_app::seq`; this module
//! holds the arguments, the progress bar and the printing.

use grundy_app::seq::{self as app, Computed, Phase, Progress, SeqRequest};
use grundy_cli::db::DbOptions;
use grundy_cli::error::CliError;
use grundy_solve::seq::{self, StoreOptions};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Arguments of `grundy seq`.
#[derive(clap::Args, Debug, Clone)]
pub struct SeqArgs {
    // `0.[3]` is a code, not a link (the doc comment is the --help text).
    #[allow(rustdoc::broken_intra_doc_links)]
    /// The game: a take-and-break code (0.77, 4.07, 0.F, 0.{0,1,4}, 4!.0, 0.[3]),
    /// grundys-game, sub:1,3,4 or sub-all-but:2,5 (none with --game FILE).
    #[arg(
        required_unless_present = "game_file",
        default_value = "",
        hide_default_value = true
    )]
    pub game: String,
    /// A heap game defined in a file: a TOML spec of kind "take-and-break" or "subtraction"
    /// (docs/game-files.md); the sequence is that of the code it reads as.
    #[arg(long = "game", value_name = "FILE")]
    pub game_file: Option<PathBuf>,
    /// How many values: G(0) to G(N-1); with --until-period, the most to compute. Accepts
    /// 1000000, 1e6, 10^6, 2^21. Default 1000; with --misere, 1000 for games whose moves
    /// leave single heaps and 40 for games that split heaps (their genera cost far more).
    #[arg(long, short = 'n')]
    pub count: Option<String>,
    /// Misère play: print the genus sequence (Conway's g^(g0 g1 ...) of every heap, tame and
    /// wild heaps marked, and a proven period of the genus sequence for subtraction games).
    #[arg(long, conflicts_with_all = ["checkpoint", "resume", "every_heap", "format", "certificate"])]
    pub misere: bool,
    /// With --misere: print each heap's misère canonical form instead of its genus (k for
    /// the Nim heap *k, g0, g1, ... for the other games, defined by their options), the
    /// first heap that is not a Nim heap, and a proven period of the forms.
    #[arg(long, requires = "misere")]
    pub canonical: bool,
    /// Print the values, one per line, instead of the summary.
    #[arg(long)]
    pub values: bool,
    /// Print the summary as one JSON object (with --values, the values are in it too).
    #[arg(long)]
    pub json: bool,
    /// Keep computing until a period is proven (or --count values are computed).
    #[arg(long)]
    pub until_period: bool,
    /// Save the values to FILE at least once a second, to resume after a stop. An existing
    /// FILE must be a grundy checkpoint (it is replaced); another file is refused unless
    /// --force is given, a folder or a device always.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint FILE (and keep saving to it, unless --checkpoint names
    /// another file).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Keep values in memory up to this many MiB (0 to 2^44 − 1); beyond, in a memory-mapped
    /// scratch file.
    #[arg(long, value_name = "MIB", default_value_t = 8192, value_parser = grundy_cli::numbers::memory_mib)]
    pub memory_mib: u64,
    /// Folder for the scratch file of values that do not fit in memory.
    #[arg(long, value_name = "DIR")]
    pub scratch_dir: Option<PathBuf>,
    /// Threads to use, 1 to 1024 (default: every core; the rare/common method measures now
    /// and then whether one, two or all of them are fastest, and keeps the fastest).
    #[arg(long, short = 'j', value_parser = grundy_cli::numbers::threads)]
    pub threads: Option<usize>,
    /// No progress bar, and no note when the values come from the store.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Compute every value by the rare/common method, even once the values prove a period
    /// (by default the rest is then copied from one period earlier). Values and output
    /// are the same; for checking a proof, and for timing the method itself.
    #[arg(long)]
    pub every_heap: bool,
    /// Let --checkpoint replace an existing regular file that is not a grundy checkpoint
    /// (a folder, a device, a pipe or a socket is refused even so).
    #[arg(long, requires = "checkpoint")]
    pub force: bool,
    /// Write the values instead of the summary: bfile (an OEIS b-file, lines `n G(n)`) or
    /// csv (header `n,g`).
    #[arg(long, value_enum, conflicts_with_all = ["json", "values"])]
    pub format: Option<crate::export::Format>,
    /// Write a certificate of the proven period to FILE (docs/certificates.md), for
    /// `grundy verify FILE`; no period proven is a failure (exit 1).
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<PathBuf>,
}

/// A failure of the sequence driver as the command line reports it: the user's input is a
/// usage error (exit 2), anything else a failure (exit 1).
pub fn seq_error(e: app::Error) -> CliError {
    if e.is_input() {
        CliError::Usage(e.to_string())
    } else {
        CliError::Failure(e.into())
    }
}

/// Runs `request` with a progress bar on stderr (unless `quiet`, or stderr is not a
/// terminal) and, unless `quiet`, a note when values come from the store. The store is
/// opened only once the game and count read.
pub fn compute(request: &SeqRequest, quiet: bool, db: &DbOptions) -> Result<Computed, CliError> {
    request.parse().map_err(seq_error)?;
    let store = db.open_cache();
    let show_bar = !quiet && std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: Progress<'_>| match p.phase {
        Phase::FromStore => {
            if !quiet {
                eprintln!("grundy: G(0) .. G({}) of {} from the store", p.done - 1, p.game);
            }
        }
        Phase::FromCheckpoint => {}
        Phase::Computing => {
            if show_bar {
                bar.get_or_insert_with(|| progress_bar(p.game, p.total))
                    .set_position(p.done);
            }
        }
        Phase::Finished => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
    };
    let result = app::compute(request, store.as_ref(), &mut progress);
    // A run that failed leaves no bar over its error message.
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    result.map_err(seq_error)
}

/// The progress bar of a run of `total` values of `game`, drawn on stderr 4 times a second.
fn progress_bar(game: &str, total: u64) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} heaps/s", state.per_sec());
            },
        )
        .progress_chars("=> "),
    );
    b.set_message(game.to_string());
    b
}

/// The heap code of the game (`--game FILE` read as a code).
fn game_code(game: &str, file: Option<&std::path::Path>) -> Result<String, CliError> {
    grundy_cli::input::heap_game_code(game, file, "grundy seq")
}

/// Runs `grundy seq`: prints the summary, the values, or both as JSON.
pub fn run(args: SeqArgs, db: &DbOptions) -> Result<(), CliError> {
    if args.misere {
        return run_genus(args);
    }
    let request = SeqRequest {
        game: game_code(&args.game, args.game_file.as_deref())?,
        count: args.count.unwrap_or_else(|| "1000".into()),
        until_period: args.until_period,
        checkpoint: args.checkpoint,
        resume: args.resume,
        storage: StoreOptions {
            memory_limit: args.memory_mib.saturating_mul(1 << 20),
            scratch_dir: args.scratch_dir,
        },
        threads: args.threads,
        every_heap: args.every_heap,
        force: args.force,
    };
    let c = compute(&request, args.quiet, db)?;
    if let Some(path) = &args.certificate {
        crate::export::certificate(path, &c, args.quiet)?;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if let Some(format) = args.format {
        crate::export::write_values(&mut out, &c, format)?;
    } else if args.json {
        let mut obj = summary_json(&c);
        if args.values {
            obj["values"] = c.values().collect();
        }
        writeln!(out, "{obj}")?;
    } else if args.values {
        for v in c.values() {
            writeln!(out, "{v}")?;
        }
    } else {
        write_summary(&mut out, &c)?;
    }
    out.flush()?;
    Ok(())
}

fn list(v: &[u64]) -> String {
    let shown: Vec<String> = v.iter().take(40).map(|x| x.to_string()).collect();
    let more = if v.len() > 40 {
        format!(", … ({} in all)", v.len())
    } else {
        String::new()
    };
    format!("{{{}{more}}}", shown.join(", "))
}

fn write_summary(out: &mut impl Write, c: &Computed) -> std::io::Result<()> {
    let s = &c.summary;
    if s.count == 0 {
        return writeln!(out, "{}: no values (count 0)", c.game.name());
    }
    writeln!(
        out,
        "{}: G(0) .. G({}) ({} values, {})",
        c.game.name(),
        s.count - 1,
        s.count,
        seq::method_name(c.engine.rules())
    )?;
    writeln!(out, "largest value {}, first at heap {}", s.max, s.first_max_at)?;
    match (&s.common, &s.rare, s.rare_count) {
        (Some(common), Some(rare), Some(rc)) if s.split_mask.is_some() => {
            let (mask, alpha) = s.split_mask.unwrap_or_default();
            writeln!(
                out,
                "split by the heap's parity: v is common at heap n when parity(v & {mask}) = {alpha} xor (n mod 2); common values on even heaps {} ; rare values {} on {} of {} heaps",
                list(common),
                list(rare),
                rc,
                s.count
            )?
        }
        (Some(common), Some(rare), Some(rc)) => writeln!(
            out,
            "common values {} ; rare values {} on {} of {} heaps",
            list(common),
            list(rare),
            rc,
            s.count
        )?,
        _ => writeln!(
            out,
            "rare/common split not computed (more than {} distinct values)",
            seq::SPLIT_MAX_VALUES
        )?,
    }
    match &s.period {
        Some(p) if p.saltus > 0 && matches!(c.engine.rules(), grundy_core::HeapRules::AllBut(_)) => writeln!(
            out,
            "arithmetic period {} with saltus {} from n0 = {}, proven: G(n+{}) = G(n) + {} for {} <= n < {} and the values below n0 + p are 0..{} and those below n0 shifted by {}",
            p.period, p.saltus, p.n0, p.period, p.saltus, p.n0, p.checked_to, p.saltus - 1, p.saltus
        ),
        Some(p) if p.saltus > 0 => writeln!(
            out,
            "arithmetic period {} with saltus {} from n0 = {}, proven by the level argument (docs/games.md): G(n+{}) = G(n) + {} checked for {} <= n < {}, every larger heap follows",
            p.period, p.saltus, p.n0, p.period, p.saltus, p.n0, p.checked_to
        ),
        Some(p) => writeln!(
            out,
            "period {} from n0 = {} ({}), proven: G(n+{}) = G(n) for {} <= n < {}",
            p.period,
            p.n0,
            match p.n0 {
                0 => "purely periodic".to_string(),
                n => format!("last exception at heap {}", n - 1),
            },
            p.period,
            p.n0,
            p.checked_to
        ),
        None => match seq::period::theorem(c.engine.rules()) {
            Some(_) => writeln!(out, "no period proven up to {}", s.count),
            None if matches!(c.engine.rules(), grundy_core::HeapRules::AllBut(_)) => {
                writeln!(out, "no period proven up to {}", s.count)
            }
            None => writeln!(
                out,
                "no period proven up to {} (no periodicity theorem applies to this game)",
                s.count
            ),
        },
    }
}

fn summary_json(c: &Computed) -> serde_json::Value {
    let s = &c.summary;
    serde_json::json!({
        "game": c.game.name(),
        "count": s.count,
        "max": s.max,
        "first_max_at": if s.count == 0 { None } else { Some(s.first_max_at) },
        "period": s.period.map(|p| p.period),
        "n0": s.period.map(|p| p.n0),
        "checked_to": s.period.map(|p| p.checked_to),
        "saltus": s.period.map(|p| p.saltus),
        "common": s.common,
        "rare": s.rare,
        "rare_count": s.rare_count,
        "split_mask": s.split_mask.map(|(mask, _)| mask),
        "split_alpha": s.split_mask.map(|(_, alpha)| alpha),
        "method": seq::method_name(c.engine.rules()),
    })
}

/// Runs `grundy seq --misere`: the genus sequence, as a summary with the genera, one genus a
/// line (`--values`), or JSON.
fn run_genus(args: SeqArgs) -> Result<(), CliError> {
    let code = game_code(&args.game, args.game_file.as_deref())?;
    let mut request = SeqRequest::new(code, args.count.clone().unwrap_or_default());
    request.until_period = args.until_period;
    if args.count.is_none() {
        // The default depends on the game: read it first (a bad code is reported as such).
        request.count = "0".into();
        let (game, _) = request.parse().map_err(seq_error)?;
        request.count = app::default_genus_count(game.rules()).to_string();
    }
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: Progress<'_>| match p.phase {
        Phase::Computing => {
            if show_bar {
                bar.get_or_insert_with(|| progress_bar(p.game, p.total))
                    .set_position(p.done);
            }
        }
        Phase::Finished => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
        Phase::FromStore | Phase::FromCheckpoint => {}
    };
    if args.canonical {
        let result = app::compute_canonical(&request, &mut progress);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        return print_canonical(&args, &result.map_err(seq_error)?);
    }
    let result = app::compute_genus(&request, &mut progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let c = result.map_err(seq_error)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.json {
        writeln!(out, "{}", genus_json(&c))?;
    } else if args.values {
        for n in 0..c.count {
            let t = if c.seq.tame(n) { "tame" } else { "wild" };
            writeln!(out, "{}\t{t}", c.seq.genus(n).notation())?;
        }
    } else {
        write_genus_summary(&mut out, &c)?;
    }
    out.flush()?;
    Ok(())
}

/// Prints `grundy seq --misere --canonical`: the summary, one form a line (`--values`:
/// the notation, and for a game that is not a Nim heap its options after a tab), or JSON.
fn print_canonical(args: &SeqArgs, c: &app::CanonComputed) -> Result<(), CliError> {
    let table = c.seq.table();
    let names = c.seq.names(c.count);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let options = |g| format!("{{{}}}", names.options_of(table, g).join(","));
    if args.json {
        let values: Vec<String> = (0..c.count).map(|n| names.of(table, c.seq.form(n))).collect();
        let nim: Vec<Option<u32>> = (0..c.count).map(|n| table.nim_value(c.seq.form(n))).collect();
        let theorem = grundy_solve::seq::genus::window(c.seq.rules()).map(|_| CANON_THEOREM);
        let v = serde_json::json!({
            "game": c.game.name(),
            "convention": "misere",
            "count": c.count,
            "values": values,
            "nim": nim,
            "first_non_nim": c.seq.first_non_nim().filter(|&n| n < c.count),
            "period": c.period.map(|p| p.period),
            "n0": c.period.map(|p| p.n0),
            "checked_to": c.period.map(|p| p.checked_to),
            "theorem": theorem,
            "method": c.seq.method().forms_name(),
            "games_stored": table.len(),
        });
        // The games last, written one by one (there may be millions): `"games":{"g0":[...]}`.
        let head = v.to_string();
        write!(out, "{},\"games\":{{", &head[..head.len() - 1])?;
        for (i, &g) in names.named.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let opts = serde_json::to_string(&names.options_of(table, g)).map_err(std::io::Error::other)?;
            write!(out, "{sep}\"{}\":{opts}", names.of(table, g))?;
        }
        writeln!(out, "}}}}")?;
    } else if args.values {
        for n in 0..c.count {
            let g = c.seq.form(n);
            match table.nim_value(g) {
                Some(k) => writeln!(out, "{k}")?,
                None => writeln!(out, "{}\t{}", names.of(table, g), options(g))?,
            }
        }
    } else {
        write_canonical_summary(&mut out, c, &names)?;
    }
    out.flush()?;
    Ok(())
}

/// What proves a period of the canonical forms, in summaries and JSON.
const CANON_THEOREM: &str =
    "finite window: heaps n and n+p have the same form on max(S) consecutive heaps (subtraction games; quaternary codes)";

fn write_canonical_summary(
    out: &mut impl Write,
    c: &app::CanonComputed,
    names: &grundy_solve::seq::canonical::Names,
) -> std::io::Result<()> {
    let name = c.game.name();
    if c.count == 0 {
        return writeln!(out, "{name} (misère): no heaps (count 0)");
    }
    let table = c.seq.table();
    writeln!(
        out,
        "{name} (misère): canonical forms of heaps 0 .. {} ({} heaps; {})",
        c.count - 1,
        c.count,
        c.seq.method().forms_name()
    )?;
    writeln!(
        out,
        "k is the Nim heap *k (in every misère sum the heap plays like a heap of k in misère Nim); g0, g1, ... are other games, defined below by their options"
    )?;
    let shown = write_heap_grid(out, c.count, |n| names.of(table, c.seq.form(n)))?;
    let nims = (0..c.count)
        .filter(|&n| table.nim_value(c.seq.form(n)).is_some())
        .count();
    match c.seq.first_non_nim().filter(|&n| n < c.count) {
        Some(n) => writeln!(
            out,
            "first heap that is not a Nim heap: {n}; {nims} of {} heaps are Nim heaps",
            c.count
        )?,
        None => writeln!(out, "every heap up to {} is a Nim heap", c.count - 1)?,
    }
    // The games named, as far as the heaps shown reach them.
    let used: std::collections::HashSet<_> = c.seq.reached(shown).into_iter().collect();
    if !used.is_empty() {
        writeln!(out, "games (options latest born first):")?;
        const DEFINED: usize = 100;
        for (listed, &g) in names.named.iter().filter(|g| used.contains(*g)).enumerate() {
            if listed == DEFINED {
                writeln!(out, "  ... ({} more: use --json)", used.len() - DEFINED)?;
                break;
            }
            writeln!(
                out,
                "  {} = {{{}}}",
                names.of(table, g),
                names.options_of(table, g).join(",")
            )?;
        }
    }
    match (&c.period, grundy_solve::seq::genus::window(c.seq.rules())) {
        (Some(p), _) => writeln!(
            out,
            "period {} of the forms from n0 = {}, proven ({CANON_THEOREM}): heaps n and n+{} have the same form for {} <= n < {}",
            p.period, p.n0, p.period, p.n0, p.checked_to
        ),
        (None, Some(_)) => writeln!(out, "no period of the forms proven up to {}", c.count),
        (None, None) => writeln!(
            out,
            "no period of the forms proven up to {} (no periodicity theorem applies to this game)",
            c.count
        ),
    }
}

/// The first heaps' cells (at most [`GENUS_SHOWN`]), ten a row, each padded to the widest;
/// a line saying how many more there are. Returns how many were shown.
fn write_heap_grid(out: &mut impl Write, count: u64, cell: impl Fn(u64) -> String) -> std::io::Result<u64> {
    let shown = count.min(GENUS_SHOWN);
    let width = (0..shown).map(|n| cell(n).len() + 1).max().unwrap_or(1);
    for row in (0..shown).step_by(10) {
        let cells: Vec<String> = (row..(row + 10).min(shown))
            .map(|n| format!("{:<width$}", cell(n)))
            .collect();
        writeln!(out, "{row:>6}: {}", cells.join(" ").trim_end())?;
    }
    if shown < count {
        writeln!(
            out,
            "        ... ({} more heaps: use --values or --json)",
            count - shown
        )?;
    }
    Ok(shown)
}

/// Genera shown in the human summary (the rest with --values or --json).
const GENUS_SHOWN: u64 = 200;

fn write_genus_summary(out: &mut impl Write, c: &app::GenusComputed) -> std::io::Result<()> {
    let name = c.game.name();
    if c.count == 0 {
        return writeln!(out, "{name} (misère): no heaps (count 0)");
    }
    writeln!(
        out,
        "{name} (misère): genus of heaps 0 .. {} ({} heaps; {})",
        c.count - 1,
        c.count,
        c.seq.method().name()
    )?;
    writeln!(
        out,
        "genus g^(g0 g1 ...): g the normal value, gk the misère value with k heaps of 2 added; the last two superscript terms repeat forever; * marks a wild heap"
    )?;
    write_heap_grid(out, c.count, |n| {
        let mark = if c.seq.tame(n) { "" } else { "*" };
        format!("{}{mark}", c.seq.genus(n).notation())
    })?;
    let tame = (0..c.count).filter(|&n| c.seq.tame(n)).count();
    match c.seq.first_wild() {
        Some(w) if w < c.count => writeln!(
            out,
            "first wild heap {w}; {tame} of {} heaps tame (a tame heap and everything it can reach have the genera of Nim heaps, so it plays like Nim in misère sums)",
            c.count
        )?,
        _ => writeln!(
            out,
            "every heap tame up to {} (in misère sums they play like Nim heaps of their values)",
            c.count - 1
        )?,
    }
    match (&c.period, grundy_solve::seq::genus::window(c.seq.rules())) {
        (Some(p), _) => writeln!(
            out,
            "genus period {} from n0 = {}, proven ({}): genus and tameness of n and n+{} agree for {} <= n < {}",
            p.period,
            p.n0,
            grundy_solve::seq::genus::THEOREM,
            p.period,
            p.n0,
            p.checked_to
        ),
        (None, Some(_)) => writeln!(out, "no genus period proven up to {}", c.count),
        (None, None) => writeln!(
            out,
            "no genus period proven up to {} (no periodicity theorem for genus sequences applies to this game)",
            c.count
        ),
    }
}

fn genus_json(c: &app::GenusComputed) -> serde_json::Value {
    let genus: Vec<Vec<u64>> = (0..c.count).map(|n| c.seq.genus(n).to_list()).collect();
    let notation: Vec<String> = (0..c.count).map(|n| c.seq.genus(n).notation()).collect();
    let tame: Vec<bool> = (0..c.count).map(|n| c.seq.tame(n)).collect();
    let first_wild = c.seq.first_wild().filter(|&w| w < c.count);
    let theorem = grundy_solve::seq::genus::window(c.seq.rules()).map(|_| grundy_solve::seq::genus::THEOREM);
    serde_json::json!({
        "game": c.game.name(),
        "convention": "misere",
        "count": c.count,
        "genus": genus,
        "notation": notation,
        "tame": tame,
        "first_wild": first_wild,
        "period": c.period.map(|p| p.period),
        "n0": c.period.map(|p| p.n0),
        "checked_to": c.period.map(|p| p.checked_to),
        "theorem": theorem,
        "method": c.seq.method().name(),
    })
}
