//! `grundy quotient GAME --heaps N`: the misère quotient of a heap game restricted to heaps
//! 0..=N (Plambeck and Siegel): its order, P-portion, presentation, the element of every
//! heap, and whether it has stabilised. The computation is `grundy_app::quotient`.

use crate::db::DbOptions;
use crate::error::CliError;
use crate::solve::app_error;
use grundy_app::quotient::{compute, QuotientReport, QuotientRequest};
use std::path::PathBuf;

/// Arguments of `grundy quotient`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    grundy quotient 0.75 --heaps 30\n  \
    grundy quotient 0.77 --heaps 12 --json\n  \
    grundy quotient sub:1,2 --heaps 20\n  \
    grundy quotient --game spec.toml --heaps 20")]
pub struct QuotientArgs {
    // `0.[3]` is a code, not a link (the doc comment is the --help text).
    #[allow(rustdoc::broken_intra_doc_links)]
    /// The game: a take-and-break code (0.75, 4.07, 0.F, 0.{0,1,4}, 4!.0, 0.[3]),
    /// grundys-game, sub:1,3,4 or sub-all-but:2,5 (none with --game FILE).
    #[arg(
        required_unless_present = "game_file",
        default_value = "",
        hide_default_value = true
    )]
    pub game: String,
    /// A heap game defined in a file: a TOML spec of kind "take-and-break" or "subtraction"
    /// (docs/game-files.md).
    #[arg(long = "game", value_name = "FILE")]
    pub game_file: Option<PathBuf>,
    /// The largest heap: the quotient of the sums of heaps 0..=N.
    #[arg(long, value_name = "N", value_parser = heaps)]
    pub heaps: u64,
    /// Stop (exit 1, with the largest heap reached) rather than let the quotient pass this
    /// many elements (a candidate on the way, twice as many).
    #[arg(long, value_name = "M", default_value_t = grundy_solve::quotient::DEFAULT_MAX_ORDER, value_parser = max_order)]
    pub max_order: usize,
    /// Stop (exit 1, with the largest heap reached) rather than let the search or the check
    /// of one heap pass this many states; each holds a set of elements (the order / 8 bytes,
    /// and about 50 more), and the memory budget stops the work as well.
    #[arg(long, value_name = "S", default_value_t = grundy_solve::quotient::DEFAULT_MAX_STATES, value_parser = max_states)]
    pub max_states: usize,
    /// Print the quotient as one JSON object (order, generators, relations, p_portion,
    /// elements, heap_elements, stable_from, period, finite).
    #[arg(long)]
    pub json: bool,
}

fn heaps(text: &str) -> Result<u64, String> {
    crate::numbers::whole(text, 0, 1 << 32)
}

fn max_order(text: &str) -> Result<usize, String> {
    crate::numbers::whole(text, 1, 1 << 20).map(|v| v as usize)
}

fn max_states(text: &str) -> Result<usize, String> {
    crate::numbers::whole(text, 1, 1 << 40).map(|v| v as usize)
}

/// The heap code of the game (`--game FILE` read as a code).
fn game_code(game: &str, file: Option<&std::path::Path>) -> Result<String, CliError> {
    crate::input::heap_game_code(game, file, "grundy quotient")
}

/// Runs `grundy quotient`.
pub fn run(args: QuotientArgs, db: &DbOptions) -> Result<(), CliError> {
    let req = QuotientRequest {
        game: game_code(&args.game, args.game_file.as_deref())?,
        heaps: args.heaps,
        max_order: args.max_order,
        max_states: args.max_states,
    };
    // The code is checked before the store is opened.
    grundy_app::quotient::parse_game(&req.game).map_err(app_error)?;
    let store = db.open_cache();
    let report = compute(&req, store.as_ref()).map_err(app_error)?;
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| CliError::Failure(e.into()))?;
        println!("{text}");
    } else {
        print!("{}", human(&report));
    }
    Ok(())
}

/// The report as researchers print it: order, P-portion, presentation, heap → element.
pub fn human(r: &QuotientReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "misère quotient of {} to heap {}", r.game, r.heaps);
    let _ = writeln!(s, "order:        {}", r.order);
    let _ = writeln!(s, "P-portion:    {{{}}}", r.p_portion.join(", "));
    let gens: Vec<String> = r
        .generators
        .iter()
        .map(|g| format!("{} (heap {})", g.name, g.heap))
        .collect();
    let _ = writeln!(
        s,
        "presentation: <{} | {}>",
        r.generators
            .iter()
            .map(|g| g.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        r.relations.join(", ")
    );
    if !gens.is_empty() {
        let _ = writeln!(s, "generators:   {}", gens.join(", "));
    }
    let _ = writeln!(s, "elements:     {}", r.elements.join(" "));
    if r.stable_from < r.heaps {
        let _ = writeln!(
            s,
            "stable:       no new element after heap {} (heaps {}..{} add none)",
            r.stable_from,
            r.stable_from + 1,
            r.heaps
        );
    } else {
        let _ = writeln!(s, "stable:       no (heap {} added elements)", r.heaps);
    }
    match &r.period {
        Some(p) => {
            let _ = writeln!(
                s,
                "periodic:     from heap {} with period {} (proven): {}",
                p.preperiod, p.period, p.argument
            );
        }
        None => {
            let _ = writeln!(s, "periodic:     not proven within heaps 0..{}", r.heaps);
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "{:>6}  {:<12} outcome", "heap", "element");
    for h in &r.heap_elements {
        let _ = writeln!(
            s,
            "{:>6}  {:<12} {}",
            h.heap,
            h.element,
            if h.p { "P" } else { "N" }
        );
    }
    s
}
