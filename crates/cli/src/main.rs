//! The `grundy` binary. (Temporary dispatch in the `heap` branch: only `seq` and `plot`;
//! the lead's main.rs wires every command.)

mod plot;
mod seq;

use clap::{Parser, Subcommand};

/// grundy: impartial combinatorial games.
#[derive(Parser, Debug)]
#[command(name = "grundy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Grundy values G(0), ..., G(N-1) of a heap game, with a proven period when there is one.
    Seq(seq::SeqArgs),
    /// A scatter plot of G(n) against n (PNG or SVG).
    Plot(plot::PlotArgs),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let result = match cli.command {
        Command::Seq(a) => seq::run(a),
        Command::Plot(a) => plot::run(a),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}
