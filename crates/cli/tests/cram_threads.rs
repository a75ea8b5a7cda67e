//! `grundy solve cram` on several threads (`-j`) gives the answer of one thread, and a board
//! far beyond the search's limits is refused before any search, with what it would need.

mod common;
use common::{no_db, stderr_of, stdout_of};

#[test]
fn threads_give_the_answer_of_one_thread() {
    for board in ["4x7", "5x5", "3x8"] {
        let one = no_db(&["solve", "cram", board, "-j", "1", "--json"]);
        let two = no_db(&["solve", "cram", board, "-j", "2", "--json"]);
        assert_eq!(one.status.code(), Some(0), "{}", stderr_of(&one));
        assert_eq!(stdout_of(&one), stdout_of(&two), "{board}");
    }
    let bad = no_db(&["solve", "cram", "3x3", "-j", "0"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr_of(&bad));
}

#[test]
fn boards_beyond_reach_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("5x13.ckpt");
    let start = std::time::Instant::now();
    // A limit on the entries held, given.
    let out = no_db(&[
        "solve",
        "cram",
        "5x13",
        "--max-positions",
        "20000000",
        "--checkpoint",
        ck.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("refused before starting") && err.contains("--max-positions"),
        "{err}"
    );
    assert!(
        err.contains("table entries") && err.contains("of one core"),
        "{err}"
    );
    assert!(!ck.exists(), "nothing was searched, nothing saved");
    // The memory budget.
    let out = no_db(&[
        "--memory-budget",
        "64M",
        "solve",
        "cram",
        "5x11",
        "--max-positions",
        "1000000000000",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("refused before starting") && err.contains("--memory-budget"),
        "{err}"
    );
    // No flag: the default memory budget (most of the machine) is far too small for 9x9.
    let out = no_db(&["solve", "cram", "9x9"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("refused before starting") && err.contains("--memory-budget"),
        "{err}"
    );
    assert!(start.elapsed().as_secs() < 20, "refused at once");
    // Within reach: not refused (the search runs, and stops at the limit given).
    let out = no_db(&["solve", "cram", "5x9", "--timeout", "0.2"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("refused"), "{}", stderr_of(&out));
}

#[test]
fn a_tight_budget_slows_the_search_but_does_not_stop_it() {
    // The table stops growing at half the budget and forgets its least valuable answers:
    // 4x9 needs a few MiB of table, and still answers (its value is 1, Beling's table)
    // within 512 KiB, where a table that grew freely stopped at the budget.
    let out = no_db(&[
        "--memory-budget",
        "512K",
        "solve",
        "cram",
        "4x9",
        "-j",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(v["grundy"], 1);
    // A long search is announced with its estimate, and keeps no limit on entries held.
    let out = no_db(&["solve", "cram", "7x7", "-j", "2", "--timeout", "0.5"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("a long search") && err.contains("of one core for the value and every move"),
        "{err}"
    );
    assert!(!err.contains("gave up after storing"), "{err}");
    // On two threads the notice gives what the three tables may take together.
    assert!(
        err.contains("with 2 threads, each with its own table beside the shared one, up to about"),
        "{err}"
    );
    let out = no_db(&["solve", "cram", "7x7", "-j", "1", "--timeout", "0.3"]);
    let err = stderr_of(&out);
    assert!(
        err.contains("a long search") && !err.contains("threads, each"),
        "{err}"
    );
    // The value alone is estimated apart (about a third of the analysis): 7x7 is not a long
    // search then, 5x10 is.
    let out = no_db(&["solve", "cram", "7x7", "--value-only", "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("a long search"), "{}", stderr_of(&out));
    let out = no_db(&["solve", "cram", "5x10", "--value-only", "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("a long search") && err.contains("of one core for the value ("),
        "{err}"
    );
}
