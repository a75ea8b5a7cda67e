//! `grundy table FAMILY` (or `grundy table --game FILE`): the table of Grundy values of a
//! family with one or two axes — a heap game's sequence, the sheets of the Cutting Game, the
//! pairs of a coordinate game such as Wythoff — as text, CSV or JSON.

use crate::db::DbOptions;
use crate::error::CliError;
use crate::solve::{app_error, GameArgs};
use grundy_app::solve::Limits;
use grundy_app::table::{check_table_size, table_kept_layout, table_layout, TableResponse};
use grundy_games::family::TableKind;
use std::io::Write;

/// Arguments of `grundy table`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    grundy table cutting --size 10\n  \
    grundy table 0.77 --size 30 --csv\n  \
    grundy table --game examples/games/wythoff.toml --size 12\n  \
    grundy table --game examples/games/cutting.lua --size 100 --json")]
pub struct TableArgs {
    /// The game family (none with `--game FILE`).
    #[arg(help = crate::solve::family_help(), required_unless_present = "game_file", default_value = "", hide_default_value = true)]
    pub family: String,
    /// The side of the table (rows and columns), or the length of a sequence.
    #[arg(long, short = 's', default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub size: u32,
    /// Print one JSON object: family, kind (sequence or grid), rows, cols, first, values
    /// (null where a position has no value).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV: a header of column indices, then one row per row index (`-` where a
    /// position has no value).
    #[arg(long)]
    pub csv: bool,
    /// Give up on a cell (no value) once the engine stored this many positions.
    #[arg(long, value_name = "N", default_value_t = 20_000_000, value_parser = crate::numbers::max_positions)]
    pub max_positions: usize,
    /// The game file, board, graph, rule and subtraction set, as for `grundy solve`.
    #[command(flatten)]
    pub game: GameArgs,
}

/// Runs `grundy table`.
pub fn run(args: TableArgs, db: &DbOptions) -> Result<(), CliError> {
    let family = if args.game.game_file.is_some() {
        if !args.family.is_empty() {
            return Err(CliError::Usage(format!(
                "with --game the game is the file's: leave out '{}'",
                args.family
            )));
        }
        String::new()
    } else {
        args.family.clone()
    };
    let opts = args.game.options(None)?;
    let limits = Limits::local(args.max_positions);
    let size = args.size as usize;
    check_table_size(size, &limits).map_err(app_error)?;
    let layout = table_layout(&family, &opts).map_err(app_error)?;
    let store = db.open_cache();
    let t = table_kept_layout(store.as_ref(), &layout, size, &limits).map_err(app_error)?;
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        serde_json::to_string(&t).map_err(|e| CliError::Failure(e.into()))? + "\n"
    } else if args.csv {
        csv(&t)
    } else {
        text(&t)
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn cell(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The table as CSV: a header of column indices (the first field names the axes), then rows.
pub fn csv(t: &TableResponse) -> String {
    let mut s = String::new();
    let width = t.values.first().map_or(0, Vec::len);
    let corner = match t.kind {
        TableKind::Grid => format!("{}\\{}", t.rows, t.cols),
        TableKind::Sequence => t.cols.clone(),
    };
    s.push_str(&corner.replace(',', " "));
    for c in 0..width {
        s.push_str(&format!(",{}", t.first + c));
    }
    s.push('\n');
    for (r, row) in t.values.iter().enumerate() {
        match t.kind {
            TableKind::Grid => s.push_str(&(t.first + r).to_string()),
            TableKind::Sequence => s.push('G'),
        }
        for v in row {
            s.push(',');
            s.push_str(&cell(*v));
        }
        s.push('\n');
    }
    s
}

/// The table as aligned text: a header line naming the game and the axes, then the grid
/// with row and column indices (a sequence: index and value pairs, ten a line).
pub fn text(t: &TableResponse) -> String {
    let mut s = String::new();
    match t.kind {
        TableKind::Sequence => {
            s.push_str(&format!("{}: Grundy values by {}\n", t.family, t.cols));
            let row = t.values.first().map(Vec::as_slice).unwrap_or(&[]);
            let width = row.iter().map(|v| cell(*v).len()).max().unwrap_or(1);
            for (k, chunk) in row.chunks(10).enumerate() {
                let first = t.first + k * 10;
                let vals: Vec<String> = chunk.iter().map(|v| format!("{:>width$}", cell(*v))).collect();
                s.push_str(&format!("{first:>6}: {}\n", vals.join(" ")));
            }
        }
        TableKind::Grid => {
            s.push_str(&format!(
                "{}: Grundy values, {} down, {} across\n",
                t.family, t.rows, t.cols
            ));
            let n = t.values.first().map_or(0, Vec::len);
            let last = t.first + n.max(t.values.len());
            let width = t
                .values
                .iter()
                .flatten()
                .map(|v| cell(*v).len())
                .chain([last.to_string().len()])
                .max()
                .unwrap_or(1);
            let label = (t.first + t.values.len()).to_string().len();
            s.push_str(&" ".repeat(label + 1));
            for c in 0..n {
                s.push_str(&format!(" {:>width$}", t.first + c));
            }
            s.push('\n');
            for (r, row) in t.values.iter().enumerate() {
                s.push_str(&format!("{:>label$}:", t.first + r));
                for v in row {
                    s.push_str(&format!(" {:>width$}", cell(*v)));
                }
                s.push('\n');
            }
        }
    }
    s
}
