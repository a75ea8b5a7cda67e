//! `grundy solve FAMILY POSITION --value-only`: the Grundy value and outcome alone by the
//! pruned search. Its values are those of the full solve and the published ones
//! (tests/data/cram-published.tsv), on one thread and on several; its JSON keeps the
//! analysis's fields with `winning_moves` null; what needs the moves or another engine is
//! refused (exit 2); its checkpoints resume with the same value and only a value-only solve;
//! the store never gives it back as an analysis.

mod common;
use common::{assert_usage_error, fresh_store, grundy, no_db, stderr_of, stdout_of, with_db};

/// (rows, cols, nimber) of every row of the published table.
fn published() -> Vec<(u32, u32, u64)> {
    let text = std::fs::read_to_string(common::reference("cram-published.tsv")).expect("the fixture");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<u64> = l
                .split('\t')
                .map(|x| x.trim().parse().expect("a number"))
                .collect();
            (f[0] as u32, f[1] as u32, f[2])
        })
        .collect()
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = no_db(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr_of(&o));
    serde_json::from_str(&stdout_of(&o)).expect("valid JSON")
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

#[test]
fn values_are_the_full_solves_and_the_published_ones() {
    let table = published();
    let mut checked = 0;
    // Small enough for a debug build; both orientations of the odd ones.
    for board in ["4x5", "5x4", "4x7", "5x5", "4x6", "5x6"] {
        let (r, c) = board.split_once('x').unwrap();
        let (r, c): (u32, u32) = (r.parse().unwrap(), c.parse().unwrap());
        let want = table
            .iter()
            .find(|&&(tr, tc, _)| (tr, tc) == (r.min(c), r.max(c)))
            .map(|t| t.2)
            .expect("a published board");
        let full = json(&["solve", "cram", board, "--json"]);
        for threads in ["1", "2", "3"] {
            let v = json(&["solve", "cram", board, "--json", "--value-only", "-j", threads]);
            assert_eq!(v["grundy"], want, "cram {board} -j{threads}");
            assert_eq!(v["grundy"], full["grundy"], "cram {board}");
            assert_eq!(v["outcome"], full["outcome"], "cram {board}");
            // The same fields as the analysis, the winning moves null.
            let keys = |x: &serde_json::Value| {
                let mut k: Vec<String> = x.as_object().unwrap().keys().cloned().collect();
                k.sort();
                k
            };
            assert_eq!(keys(&v), keys(&full));
            assert!(v["winning_moves"].is_null(), "{v}");
            assert!(full["winning_moves"].is_array(), "{full}");
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
    // Another family through the search engine: the memo engine's value.
    for pos in ["4 7 9", "1 2 3"] {
        let mut args = vec!["solve", "0.77"];
        args.extend(pos.split(' '));
        args.push("--json");
        let memo = json(&args);
        args.extend(["--engine", "search", "--value-only"]);
        let v = json(&args);
        assert_eq!(v["grundy"], memo["grundy"], "0.77 {pos}");
        assert_eq!(v["outcome"], memo["outcome"], "0.77 {pos}");
    }
}

#[test]
fn text_gives_the_value_and_outcome_without_moves() {
    let o = no_db(&["solve", "cram", "4x5", "--value-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let out = stdout_of(&o);
    assert!(out.contains("grundy value:  2"), "{out}");
    assert!(out.contains("outcome:       first player"), "{out}");
    assert!(!out.contains("winning moves"), "{out}");
    let full = stdout_of(&no_db(&["solve", "cram", "4x5"]));
    // The full solve's lines but the moves.
    let without: Vec<&str> = full.lines().filter(|l| !l.starts_with("winning moves")).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), without);
}

#[test]
fn what_needs_the_moves_or_another_engine_is_refused() {
    for (args, needle) in [
        (
            &["solve", "cram", "4x5", "--value-only", "--all-moves"][..],
            "--all-moves",
        ),
        (
            &["solve", "cram", "4x5", "--value-only", "--dense"][..],
            "--dense",
        ),
        (
            &["solve", "0.77", "3", "4", "--misere", "--genus", "--value-only"][..],
            "--genus",
        ),
        (
            &["solve", "cram", "4x5", "--value-only", "--misere"][..],
            "--value-only",
        ),
        (
            &["solve", "cram", "4x5", "--value-only", "--engine", "memo"][..],
            "--value-only",
        ),
        (
            &["solve", "cram", "4x5", "--value-only", "--remoteness"][..],
            "--value-only",
        ),
        (&["solve", "nim", "3", "5", "--value-only"][..], "--value-only"),
    ] {
        let r = grundy(args, "");
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    let r = grundy(&["solve", "nim", "3", "5", "--value-only"], "");
    assert_usage_error(&r, "pruned search");
}

#[test]
fn checkpoints_resume_with_the_same_value() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("cram.ckpt");
    let ck = path_str(&ck);
    let board = "3x9";
    let full = json(&["solve", "cram", board, "--json"]);
    for threads in ["1", "2"] {
        let _ = std::fs::remove_file(ck);
        let stopped = no_db(&[
            "solve",
            "cram",
            board,
            "--value-only",
            "-j",
            threads,
            "--checkpoint",
            ck,
            "--max-positions",
            "300",
        ]);
        assert_eq!(stopped.status.code(), Some(1), "{}", stderr_of(&stopped));
        assert!(
            stderr_of(&stopped).contains("--resume"),
            "{}",
            stderr_of(&stopped)
        );
        // A full analysis does not take a value-only checkpoint.
        let o = no_db(&["solve", "cram", board, "--resume", ck]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
        assert!(stderr_of(&o).contains("--value-only"), "{}", stderr_of(&o));
        // Resumed on either number of threads: the full solve's value.
        for again in ["1", "2"] {
            let v = json(&[
                "solve",
                "cram",
                board,
                "--json",
                "--value-only",
                "-j",
                again,
                "--resume",
                ck,
            ]);
            assert_eq!(v["grundy"], full["grundy"], "-j{threads} then -j{again}");
            assert_eq!(v["outcome"], full["outcome"]);
        }
    }
    // A full analysis's checkpoint is not resumed as a value-only solve either.
    let o = no_db(&["solve", "cram", "3x5", "--checkpoint", ck]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let o = no_db(&["solve", "cram", "3x5", "--value-only", "--resume", ck]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    // --timeout stops it (exit 1).
    let timed = no_db(&["solve", "cram", "5x9", "--value-only", "--timeout", "0.3"]);
    assert_eq!(timed.status.code(), Some(1), "{}", stderr_of(&timed));
}

#[test]
fn the_store_keeps_values_apart_from_analyses() {
    let db = fresh_store("value-only", "kinds");
    let v = with_db(&db, &["solve", "cram", "4x5", "--json", "--value-only"]);
    assert_eq!(v.code, 0, "{}", v.stderr);
    // Read back as a value (the same answer), never as an analysis.
    let again = with_db(&db, &["solve", "cram", "4x5", "--json", "--value-only"]);
    assert_eq!(again.stdout, v.stdout);
    let full = with_db(&db, &["solve", "cram", "4x5", "--json"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    let full: serde_json::Value = serde_json::from_str(&full.stdout).unwrap();
    let moves = full["winning_moves"].as_array().expect("an analysis");
    assert!(!moves.is_empty(), "{full}");
    // A full analysis in the store answers a value-only solve of another board.
    let f = with_db(&db, &["solve", "cram", "3x5", "--json"]);
    let f: serde_json::Value = serde_json::from_str(&f.stdout).unwrap();
    let v = with_db(&db, &["solve", "cram", "3x5", "--json", "--value-only"]);
    let v: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
    assert_eq!(v["grundy"], f["grundy"]);
    assert!(v["winning_moves"].is_null());
}
