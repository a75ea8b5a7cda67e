//! The numbers and sizes of the command line on arbitrary text: a value or a usage error,
//! never a panic.
//!
//! - `parse_count` (`seq -n`, `plot -n`: `1e6`, `2^21`, `1_000`) and `parse_size`
//!   (`solve --dense --memory-budget`: `512M`, `8G`) on the whole text and on each line;
//! - the text as a command line (split at whitespace) read by the commands' own clap
//!   arguments (`solve`, `play`, `judge`, `db`, `serve`: every `usize`/`u64`/`f64` option),
//!   then the checks each command makes on them before any work: `serve` runs up to its
//!   `--timeout` check and the start of the server (on an address already taken, so it
//!   fails there and returns), `solve --memory-budget` goes through `parse_size`, and `db`
//!   runs for real on a copy of a small store with one entry (`prune --older-than DAYS`).
#![no_main]
use clap::Parser;
use grundy_app::seq::{parse_count, SeqRequest};
use grundy_cli::db::{DbArgs, DbOptions};
use grundy_cli::dense::parse_size;
use grundy_cli::{judge::JudgeArgs, play::PlayArgs, serve, serve::ServeArgs, solve::SolveArgs};
use libfuzzer_sys::fuzz_target;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The commands of `grundy` whose arguments live in the library (`seq` and `plot` are the
/// binary's; their count is `parse_count`, fuzzed directly).
#[derive(Parser, Debug)]
#[command(name = "grundy")]
enum Cli {
    Solve(SolveArgs),
    Judge(JudgeArgs),
    Play(PlayArgs),
    Db(DbArgs),
    Serve(ServeArgs),
}

/// What the whole run shares: a port kept busy, and a store with one entry to copy.
struct Fixture {
    busy: TcpListener,
    dir: tempfile::TempDir,
    store: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let busy = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = dir.path().join("template.redb");
        let s = grundy_store::Store::open(&store, "fuzz").expect("a new store");
        let entry = grundy_store::NewEntry {
            key: "seq/0.77",
            kind: "seq",
            family: "0.77",
            summary: "fuzz",
        };
        s.put(&entry, &grundy_app::store::encode_seq(2, &[0, 0, 1, 0, 2, 0]))
            .expect("an entry");
        drop(s);
        Fixture { busy, dir, store }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for t in std::iter::once(text).chain(text.lines()) {
        let _ = parse_count(t);
        let _ = parse_size(t);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    if let ["seq", game, count, ..] = words[..] {
        let _ = SeqRequest::new(game, count).parse();
    }
    let Ok(cli) = Cli::try_parse_from(std::iter::once("grundy").chain(words)) else {
        return;
    };
    let f = fixture();
    let no_db = DbOptions {
        db: None,
        no_db: true,
    };
    match cli {
        Cli::Serve(mut args) => {
            args.addr = f.busy.local_addr().expect("its address").to_string();
            let result = serve::run(args, &no_db);
            assert!(result.is_err(), "serve started on a busy port");
        }
        Cli::Db(args) => {
            let copy = f.dir.path().join("store.redb");
            std::fs::copy(&f.store, &copy).expect("a copy of the store");
            let db = DbOptions {
                db: Some(copy),
                no_db: false,
            };
            let _ = grundy_cli::db::run(args, &db);
        }
        // The numbers of solve, judge and play are read by clap (the value parsers of
        // grundy_cli::numbers); --memory-budget, global, by parse_size above.
        Cli::Solve(_) | Cli::Judge(_) | Cli::Play(_) => {}
    }
});
