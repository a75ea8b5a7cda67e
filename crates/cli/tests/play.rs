//! `grundy play`: games against perfect play driven through stdin.

mod common;
use common::grundy;

#[test]
fn win_at_nim_against_perfect_play() {
    let r = grundy(&["play", "nim", "1", "2"], "2:2->1\n1:1->0\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[1..],
        [
            "position: 1 2",
            "your move (you can win, remoteness 3):",
            "position: 1 1",
            "engine plays 1:1->0",
            "position: 1",
            "your move (you can win, remoteness 1):",
            "position: 0",
            "no move left: you win",
        ]
    );
}

#[test]
fn engine_first_wins_from_a_won_position() {
    let r = grundy(&["play", "nim", "3", "--first", "engine"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("engine plays 1:3->0"), "{}", r.stdout);
    assert!(
        r.stdout.ends_with("no move left: the engine wins\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn engine_holds_out_longest_when_lost() {
    // A strip of 6 is lost for the player to move: the engine plays the move after which
    // the game lasts longest, as `solve --remoteness` counts it.
    let r = grundy(
        &[
            "solve",
            "crosses",
            "......",
            "--remoteness",
            "--all-moves",
            "--json",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["outcome"], "second");
    let longest = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["remoteness"].as_u64().unwrap())
        .max();
    let r = grundy(&["play", "crosses", "......", "--first", "engine"], "");
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("engine plays"), "{}", r.stdout);
    let want = format!("your move (you can win, remoteness {})", longest.unwrap());
    assert!(r.stdout.contains(&want), "{} lacks {want}", r.stdout);
    assert!(r.stdout.ends_with("input ended: game abandoned\n"));
}

#[test]
fn undo_takes_back_both_moves() {
    let r = grundy(&["play", "nim", "1", "2", "3"], "3:3->2\nundo\nquit\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("engine plays"), "{}", r.stdout);
    assert!(r.stdout.contains("undone\nposition: 1 2 3\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("game abandoned\n"));
    let r = grundy(&["play", "nim", "1", "2", "3"], "undo\nquit\n");
    assert!(r.stdout.contains("nothing to undo"));
}

#[test]
fn illegal_moves_are_refused_and_hints_given() {
    let r = grundy(
        &["play", "nim", "3", "5", "7"],
        "9:9->1\n 3:7 -> 8\nhint\nmoves\nquit\n",
    );
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("'9:9->1' is not a legal move here"));
    assert!(r.stdout.contains("'3:7 -> 8' is not a legal move here"));
    assert!(r.stdout.contains("hint: "));
    assert!(r.stdout.contains("moves: 1:3->2(wins) 1:3->1"));
}

#[test]
fn immediate_wins_and_misere() {
    let r = grundy(&["play", "crosses", "XX..."], "3\n");
    assert_eq!(r.code, 0);
    assert!(r.stdout.ends_with("position: XXX..\nyou win\n"), "{}", r.stdout);
    // Misère: whoever cannot move wins; leaving one token to the engine wins.
    let r = grundy(&["play", "nim", "1", "1", "--misere"], "1:1->0\n");
    assert!(r.stdout.ends_with("no move left: you win\n"), "{}", r.stdout);
    let r = grundy(&["play", "crosses", "...", "--misere"], "");
    assert_eq!(r.code, 2);
}

#[test]
fn bad_family_or_position_is_a_usage_error() {
    let r = grundy(&["play", "chess", "e4"], "");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown family"));
    let r = grundy(&["play", "nim", "3", "x"], "");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bad nim position"));
}

#[test]
fn serve_refuses_a_bad_address() {
    let r = grundy(&["serve", "--addr", "localhost"], "");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bad --addr 'localhost'"), "{}", r.stderr);
    let r = grundy(&["serve", "--timeout", "0"], "");
    assert_eq!(r.code, 2);
}

#[test]
fn subtraction_games_take_their_set_as_in_solve() {
    // sub:1,2 from 4: taking one leaves 3, a multiple of 3, lost for the player to move.
    let r = grundy(
        &["play", "subtraction", "--set", "1,2", "4", "--first", "engine"],
        "",
    );
    assert!(
        r.stdout.contains("engine plays 1:4->3"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    let r = grundy(&["play", "subtraction", "4"], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--set 1,3,4"), "{}", r.stderr);
}

#[test]
fn moves_that_are_not_text_are_input_errors() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--no-db", "play", "nim", "1", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"\xff\xfe\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("UTF-8"), "{err}");
}

#[test]
fn misere_sums_out_of_the_searchs_reach_are_played_by_their_outcomes() {
    // The remoteness search of this misère sum does not answer in its 3 seconds; play goes
    // on with the outcomes of the misère quotient, says so once, and the engine plays a
    // winning move.
    let heaps = ["0.75", "1000", "999", "3"];
    let solve = grundy(
        &[
            "--no-db", "solve", heaps[0], heaps[1], heaps[2], heaps[3], "--misere", "--json",
        ],
        "",
    );
    assert_eq!(solve.code, 0, "{}", solve.stderr);
    let v: serde_json::Value = serde_json::from_str(&solve.stdout).unwrap();
    assert_eq!(v["outcome"], "first", "{}", solve.stdout);
    let winning: Vec<String> = v["winning_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    let r = grundy(
        &[
            "--no-db", "play", heaps[0], heaps[1], heaps[2], heaps[3], "--misere", "--first", "engine",
        ],
        "quit\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("note: remoteness is out of reach").count(),
        1,
        "{}",
        r.stdout
    );
    let played = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("engine plays "))
        .unwrap_or_else(|| panic!("no engine move: {}", r.stdout));
    assert!(
        winning.iter().any(|m| m == played),
        "{played} not among {winning:?}"
    );
    // After the engine's winning move the player's position is lost, without remoteness.
    assert!(
        r.stdout.contains("your move (you lose against perfect play):"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with("game abandoned\n"), "{}", r.stdout);
}

#[test]
fn small_misere_sums_keep_their_remoteness() {
    let r = grundy(&["--no-db", "play", "0.75", "3", "4", "--misere"], "quit\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("note:"), "{}", r.stdout);
    assert!(r.stdout.contains(", remoteness "), "{}", r.stdout);
}
