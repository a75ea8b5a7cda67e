//! The memory budget (`--memory-budget`, issue 16): every engine stops cleanly at it with a
//! message naming the limit (exit 1), positions that could not fit are refused up front,
//! inputs are read with a size limit, and the server gives each request its share.
//!
//! Each run is a child process whose address space is limited (`prlimit --as`, util-linux)
//! to a few times its budget: were the budget not kept, the allocation would fail and the
//! process would abort (a signal, not exit 1) instead of stopping with the message.

mod common;

use std::process::{Command, Stdio};

/// Address space the children may take: far above the budgets used here (a heap budget
/// of 64 MiB needs the code, the threads' stacks and the allocator's arenas beside it), far
/// below what the solves would take without their budget.
const ADDRESS_SPACE: &str = "--as=3221225472";

/// Runs `grundy --no-db ARGS` in an address space of [`ADDRESS_SPACE`] bytes.
fn limited(args: &[&str]) -> common::Run {
    limited_with_stdin(args, Stdio::null())
}

/// [`limited`], reading `stdin`.
fn limited_with_stdin(args: &[&str], stdin: Stdio) -> common::Run {
    let out = Command::new("prlimit")
        .arg(ADDRESS_SPACE)
        .arg(env!("CARGO_BIN_EXE_grundy"))
        .arg("--no-db")
        .args(args)
        .stdin(stdin)
        .output()
        .expect("prlimit (util-linux) runs grundy");
    common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The run stopped at its budget, with the message that says how to raise it.
fn stopped_at(r: &common::Run, budget: &str) {
    assert_eq!(r.code, 1, "exit code; stderr: {}", r.stderr);
    assert!(
        r.stderr.contains(&format!("memory budget of {budget}")) && r.stderr.contains("--memory-budget"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn a_misere_sum_stops_at_the_budget() {
    // Dawson's Kayles: its quotient outgrows a solve's limit and the sum is searched
    // (Kayles, the game of this test before its quotient was built by algebra, passed 6.4 GB
    // without a budget, issue 16; it now answers at once).
    let r = limited(&[
        "--memory-budget",
        "64M",
        "solve",
        "0.07",
        "1500",
        "1200",
        "900",
        "--misere",
    ]);
    stopped_at(&r, "64.0 MiB");
}

#[test]
fn remoteness_stops_at_the_budget() {
    let r = limited(&[
        "--memory-budget",
        "24M",
        "solve",
        "0.77",
        "30",
        "40",
        "50",
        "--remoteness",
    ]);
    stopped_at(&r, "24.0 MiB");
}

#[test]
fn the_memo_engine_stops_at_the_budget() {
    let r = limited(&[
        "--memory-budget",
        "24M",
        "solve",
        "cram",
        "6x6",
        "--engine",
        "memo",
    ]);
    stopped_at(&r, "24.0 MiB");
}

#[test]
fn a_quotient_stops_at_the_budget_with_the_heap_it_reached() {
    // Dawson's Kayles' quotient built heap by heap (issue 13): past the budget it stops
    // cleanly, naming the last heap it completed.
    let r = limited(&["--memory-budget", "1M", "quotient", "0.07", "--heaps", "40"]);
    stopped_at(&r, "1.0 MiB");
    assert!(r.stderr.contains("it was complete to heap"), "{}", r.stderr);
}

#[test]
fn the_budget_allows_what_fits() {
    let r = limited(&[
        "--memory-budget",
        "64M",
        "solve",
        "0.07",
        "15",
        "20",
        "--misere",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"outcome\""), "{}", r.stdout);
    // GRUNDY_MEMORY_BUDGET is the same option.
    let out = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--no-db", "solve", "0.07", "1500", "1200", "900", "--misere"])
        .env("GRUNDY_MEMORY_BUDGET", "32M")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("memory budget of 32.0 MiB"));
}

#[test]
fn positions_too_large_are_refused_up_front() {
    // 2^48 moves: refused from the estimate, before a move is generated (it used to pass
    // 5 GB in 4 s whatever --max-positions said).
    let r = limited(&["solve", "nim", "281474976710656", "--max-positions", "1000"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("position too large for the memory budget")
            && r.stderr.contains("281474976710656 moves"),
        "{}",
        r.stderr
    );
    // Three million moves: their answer alone needs more than 64 MiB.
    let r = limited(&["--memory-budget", "64M", "solve", "nim", "3000000"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("3000000 moves"), "{}", r.stderr);
    // A board whose every move copies a million cells.
    let board = vec!["LR".repeat(500); 1000].join("/");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("board.txt");
    std::fs::write(&file, board).unwrap();
    let at = format!("@{}", file.display());
    let r = limited(&["--memory-budget", "1G", "solve", "darkraft", &at]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("too large for the memory budget"),
        "{}",
        r.stderr
    );
}

#[test]
fn endless_inputs_are_refused_not_buffered() {
    let r = limited(&["solve", "nim", "@/dev/zero"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("larger than the limit of 64.0 MiB"),
        "{}",
        r.stderr
    );
    let zero = || std::fs::File::open("/dev/zero").unwrap().into();
    let r = limited_with_stdin(&["judge", "darkraft"], zero());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("larger than the limit"), "{}", r.stderr);
    let r = limited_with_stdin(&["play", "nim", "3 5 7"], zero());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("longer than the limit"), "{}", r.stderr);
}

#[test]
fn a_bad_budget_is_a_usage_error() {
    for (size, message) in [
        ("lots", "expected a size"),
        ("99999999T", "at most 16777215T"),
        ("5X", "unknown size suffix"),
    ] {
        let r = limited(&["--memory-budget", size, "solve", "nim", "3"]);
        assert_eq!(r.code, 2, "{size}: {}", r.stderr);
        assert!(
            r.stderr.contains("bad --memory-budget") && r.stderr.contains(message),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn seq_stops_at_the_budget_with_its_checkpoint_saved() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ck");
    let ck = ck.to_str().unwrap();
    let r = limited(&[
        "--memory-budget",
        "1K",
        "seq",
        "0.77",
        "--count",
        "200000",
        "--checkpoint",
        ck,
        "--quiet",
    ]);
    stopped_at(&r, "1.0 KiB");
    assert!(
        r.stderr
            .contains(&format!("the checkpoint {ck} holds the values so far")),
        "{}",
        r.stderr
    );
    // The run goes on from it with a budget that allows it.
    let r = limited(&["seq", "0.77", "--count", "200000", "--resume", ck, "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"period\""), "{}", r.stdout);
}

#[test]
fn the_server_gives_each_request_its_share() {
    use std::io::BufRead;
    let (mut server, addr, mut err) = common::serve(Command::new("prlimit").arg(ADDRESS_SPACE).args([
        env!("CARGO_BIN_EXE_grundy"),
        "--no-db",
        "--memory-budget",
        "192M",
        "serve",
        "--addr",
        "127.0.0.1:0",
    ]));
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    // 192 MiB among 4 quick and 2 slow solves: 32 MiB each, less what the server holds.
    assert!(line.contains("for each of at most 6 solves at once"), "{line}");
    let post = |body: &str| common::post(&addr, "/api/solve", body).expect("the server answers");
    let heavy = r#"{"family":"0.07","position":"1500 1200 900","misere":true}"#;
    let answer = post(heavy);
    assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
    assert!(answer.contains("memory share"), "{answer}");
    // Nim with 4990 heaps and remoteness: a 50 MB answer without the cap (each move with
    // the 10 KB position after it).
    let heaps = vec!["1"; 4990].join(" ");
    let answer = post(&format!(
        r#"{{"family":"nim","position":"{heaps}","remoteness":true}}"#
    ));
    assert!(
        answer.starts_with("HTTP/1.1 422"),
        "{}",
        &answer[..answer.len().min(400)]
    );
    assert!(
        answer.contains("the answer would be too large"),
        "{}",
        &answer[..answer.len().min(400)]
    );
    // The server is still there, and answers.
    let answer = post(r#"{"family":"nim","position":"3 5 7"}"#);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    server.kill().unwrap();
    server.wait().unwrap();
}
