//! `grundy solve cram` and `grundy solve chomp`: answers, JSON fields, the dense engine and its
//! memory budget, and bad positions.

mod common;
use common::{assert_usage_error, grundy, solve_json as json};

#[test]
fn cram_rectangles() {
    // Both sides even: second player wins by symmetry.
    let v = json(&["cram", "4x4"]);
    assert_eq!(v["outcome"], "second");
    assert_eq!(v["grundy"], 0);
    assert_eq!(v["winning_moves"], serde_json::json!([]));
    // One side even: first player wins.
    let v = json(&["cram", "3x4"]);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["family"], "cram");
    assert_eq!(v["position"], "3x4");
    // A strip of 1 x 5 is octal game 0.07 at 5: value 0.
    assert_eq!(json(&["cram", "1x5"])["grundy"], 0);
    // Holes, and a board given with '/'.
    let v = json(&["cram", "..#/..."]);
    assert_eq!(v["position"], "..#/...");
    // A U pentomino: every domino leaves a domino and a lone cell (value 1), so it is lost.
    let v = json(&["cram", ".#./..."]);
    assert_eq!(v["grundy"], 0);
    assert_eq!(v["winning_moves"], serde_json::json!([]));
    // An L tromino: either domino leaves a lone cell.
    let v = json(&["cram", "../.#"]);
    assert_eq!(v["grundy"], 1);
    assert_eq!(v["winning_moves"], serde_json::json!(["1,1-1,2", "1,1-2,1"]));
}

#[test]
fn cram_misere_and_all_moves() {
    let v = json(&["cram", "2x2", "--misere"]);
    assert_eq!(v["grundy"], serde_json::Value::Null);
    assert_eq!(v["convention"], "misere");
    // Any first domino on 2x2 leaves room for exactly one more: the opponent must place it,
    // and then the first player cannot move, which wins under misère play.
    assert_eq!(v["outcome"], "first");
    let v = json(&["cram", "1x3", "--all-moves"]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
}

#[test]
fn cram_dense_agrees_with_memo() {
    for board in ["3x4", "4x4", ".#../..../...#", "3x5"] {
        let memo = json(&["cram", board]);
        let dense = json(&["cram", board, "--dense"]);
        assert_eq!(dense["engine"], "dense");
        for field in ["grundy", "outcome", "winning_moves", "position"] {
            assert_eq!(memo[field], dense[field], "{board} {field}");
        }
        let memo = json(&["cram", board, "--misere"]);
        let dense = json(&["cram", board, "--misere", "--dense"]);
        for field in ["outcome", "winning_moves"] {
            assert_eq!(memo[field], dense[field], "{board} misère {field}");
        }
        assert!(dense["remoteness"].is_u64());
    }
    let v = json(&["cram", "1x4", "--dense", "--record", "remoteness"]);
    // 1x4: the middle domino wins at once (two lone cells are left): remoteness 1.
    assert_eq!(v["remoteness"], 1);
    assert_eq!(v["grundy"], serde_json::Value::Null);
    let v = json(&["cram", "3x4", "--dense", "--record", "outcome"]);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["winning_moves"], json(&["cram", "3x4"])["winning_moves"]);
}

#[test]
fn cram_dense_reports_memory_and_refuses_over_budget() {
    // Without a store: a kept answer needs no memory and would be given whatever the budget.
    let r = grundy(&["--no-db", "solve", "cram", "4x4", "--dense"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("peak memory"), "{}", r.stderr);
    let r = grundy(
        &[
            "--no-db",
            "solve",
            "cram",
            "4x5",
            "--dense",
            "--memory-budget",
            "1K",
        ],
        "",
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("memory budget is 1.0 KiB"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // Far too large a board is refused before anything is allocated.
    let r = grundy(&["--no-db", "solve", "cram", "8x8", "--dense"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("needs"), "{}", r.stderr);
}

#[test]
fn chomp_answers() {
    let v = json(&["chomp", "4x4"]);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["winning_moves"], serde_json::json!(["2,2"]));
    let v = json(&["chomp", "2", "2", "1"]);
    assert_eq!(v["outcome"], "second");
    assert_eq!(v["position"], "2 2 1");
    let v = json(&["chomp", "1"]);
    assert_eq!(v["outcome"], "second");
    assert_eq!(v["grundy"], 0);
    let v = json(&["chomp", "4x7"]);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["position"], "4x7");
}

#[test]
fn bad_positions() {
    assert_usage_error(&grundy(&["solve", "cram", "3xq"], ""), "column 3");
    assert_usage_error(&grundy(&["solve", "cram", "../.o"], ""), "column 5");
    assert_usage_error(&grundy(&["solve", "cram", "12x12"], ""), "at most 128");
    assert_usage_error(
        &grundy(&["solve", "cram", "-"], "..\n..\n.?\n"),
        "line 3, column 2",
    );
    assert_usage_error(&grundy(&["solve", "chomp", "3", "5"], ""), "column 3");
    assert_usage_error(&grundy(&["solve", "chomp", "0x4"], ""), "at least 1");
    assert_usage_error(
        &grundy(&["solve", "nim", "3", "--dense"], ""),
        "--dense is available for cram",
    );
    assert_usage_error(
        &grundy(
            &["solve", "cram", "2x2", "--dense", "--memory-budget", "lots"],
            "",
        ),
        "bad --memory-budget",
    );
}

#[test]
fn engines_agree() {
    let cases: &[&[&str]] = &[
        &["cram", "4x5"],
        &["cram", "..#./..../#..."],
        &["chomp", "4x5"],
        &["chomp", "5", "4", "4", "2"],
        &["nim", "3", "5", "7"],
        &["points", "110111000011"],
        &["cutting", "4x3", "5x2"],
        &["crosses", "X.........."],
        &["bombs", "..#/.#./..."],
    ];
    for case in cases {
        let mut memo = case.to_vec();
        memo.extend(["--engine", "memo", "--all-moves"]);
        let mut search = case.to_vec();
        search.extend(["--engine", "search", "--all-moves"]);
        let (a, b) = (json(&memo), json(&search));
        for field in ["grundy", "outcome", "winning_moves", "moves"] {
            assert_eq!(a[field], b[field], "{case:?} {field}");
        }
    }
}

#[test]
fn dense_graph_games_agree_with_search() {
    for (board, rule) in [
        ("petersen", "node-kayles"),
        ("grid:3x4", "arc-kayles"),
        ("cycle:11", "one-or-two"),
    ] {
        for misere in [false, true] {
            let mut args = vec![
                "solve",
                "graph",
                "--board",
                board,
                "--rule",
                rule,
                "--json",
                "--remoteness",
            ];
            if misere {
                args.push("--misere");
            }
            let plain = grundy(&args, "");
            args.push("--dense");
            args.retain(|a| *a != "--remoteness");
            let dense = grundy(&args, "");
            assert_eq!(plain.code, 0, "{}", plain.stderr);
            assert_eq!(dense.code, 0, "{}", dense.stderr);
            let p: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
            let d: serde_json::Value = serde_json::from_str(&dense.stdout).unwrap();
            for field in ["outcome", "winning_moves"] {
                assert_eq!(p[field], d[field], "{board} {rule} misere={misere} {field}");
            }
            if misere {
                assert_eq!(p["remoteness"], d["remoteness"], "{board} {rule}");
            } else {
                assert_eq!(p["grundy"], d["grundy"], "{board} {rule}");
            }
        }
    }
    let r = grundy(&["solve", "nim", "3", "--dense"], "");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--dense is available for cram, points and graph"),
        "{}",
        r.stderr
    );
}
