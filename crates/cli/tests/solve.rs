//! `grundy solve`: outputs, JSON fields, position sources and bad positions.

mod common;
use common::{assert_usage_error, grundy, solve_json as json};

#[test]
fn nim_json_fields() {
    let v = json(&["nim", "3", "5", "7"]);
    assert_eq!(v["grundy"], 1);
    assert_eq!(v["outcome"], "first");
    assert_eq!(
        v["winning_moves"],
        serde_json::json!(["1:3->2", "2:5->4", "3:7->6"])
    );
    let v = json(&["nim", "1", "2", "3"]);
    assert_eq!(v["outcome"], "second");
    assert_eq!(v["winning_moves"], serde_json::json!([]));
}

#[test]
fn misere_has_null_grundy() {
    let v = json(&["nim", "1", "1", "4", "--misere"]);
    assert_eq!(v["grundy"], serde_json::Value::Null);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["winning_moves"], serde_json::json!(["3:4->1"]));
    let v = json(&["points", "100000000000", "--misere"]);
    assert_eq!(v["outcome"], "second");
}

#[test]
fn families_answer() {
    assert_eq!(json(&["crosses", "......"])["outcome"], "second");
    assert_eq!(
        json(&["crosses", "X.X..."])["winning_moves"],
        serde_json::json!(["2"])
    );
    assert_eq!(json(&["cutting", "2x2", "3x2"])["grundy"], 0);
    assert_eq!(json(&["bombs", ".#/.."])["grundy"], 1);
    assert_eq!(json(&["bombs", ".#/.#"])["outcome"], "second");
    assert_eq!(json(&["points", "110000000011"])["outcome"], "second");
    assert_eq!(json(&["points", "110000000011", "--misere"])["outcome"], "first");
}

#[test]
fn position_from_stdin_and_file() {
    let r = grundy(&["solve", "bombs", "-", "--json"], ".#\n..\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"grundy\":1"));
    let dir = std::env::temp_dir().join(format!("grundy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("board.txt");
    std::fs::write(&f, ".#\n.#\n").unwrap();
    let r = grundy(&["solve", "bombs", "--file", f.to_str().unwrap(), "--json"], "");
    assert!(r.stdout.contains("\"outcome\":\"second\""), "{}", r.stderr);
    let at = format!("@{}", f.display());
    let r = grundy(&["solve", "bombs", &at, "--json"], "");
    assert!(r.stdout.contains("\"outcome\":\"second\""), "{}", r.stderr);
    let g = dir.join("path.txt");
    std::fs::write(&g, "# a path of 4 points: Kayles on 4 pins\n1 2\n2 3\n3 4\n").unwrap();
    let r = grundy(
        &[
            "solve",
            "points",
            "1111",
            "--graph",
            g.to_str().unwrap(),
            "--json",
        ],
        "",
    );
    assert!(r.stdout.contains("\"grundy\":1"), "{} {}", r.stdout, r.stderr);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn remoteness() {
    let v = json(&["nim", "2", "2", "--remoteness"]);
    assert_eq!(v["remoteness"], 4);
    let v = json(&["crosses", "...", "--remoteness"]);
    assert_eq!(v["remoteness"], 3);
    let v = json(&["nim", "3", "--misere", "--remoteness", "--all-moves"]);
    assert_eq!(v["remoteness"], 2);
    assert_eq!(v["moves"][1]["move"], "1:3->1");
    assert_eq!(v["moves"][1]["remoteness"], 1);
    let r = grundy(&["solve", "nim", "2", "2", "--remoteness"], "");
    assert!(r.stdout.contains("remoteness:    4"), "{}", r.stdout);
}

#[test]
fn search_limit_stops_cleanly() {
    let r = grundy(&["solve", "points", "111111111111", "--max-positions", "10"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("gave up after storing"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn bad_positions_and_usage() {
    assert_usage_error(&grundy(&["solve", "nim", "3", "x"], ""), "column 3");
    assert_usage_error(&grundy(&["solve", "nim", "--", "-4"], ""), "negative");
    assert_usage_error(&grundy(&["solve", "bombs", ".#/..#"], ""), "column 6");
    assert_usage_error(&grundy(&["solve", "crosses", "..XXX"], ""), "over");
    assert_usage_error(&grundy(&["solve", "cutting", "3y2"], ""), "column 1");
    assert_usage_error(&grundy(&["solve", "chess", "e4"], ""), "unknown family");
    assert_usage_error(
        &grundy(&["solve", "cutting", "3x2", "--misere"], ""),
        "misère play is not available",
    );
    assert_usage_error(
        &grundy(&["solve", "points", "11", "--board", "nowhere"], ""),
        "unknown board",
    );
    assert_usage_error(
        &grundy(&["solve", "points", "1111", "--graph", "/nonexistent/g.txt"], ""),
        "cannot read",
    );
    assert_usage_error(
        &grundy(&["solve", "bombs", "--file", "/nonexistent/b.txt"], ""),
        "cannot read",
    );
    let huge = "X".repeat(1_000_000);
    assert_usage_error(&grundy(&["solve", "bombs", "-"], &huge), "column 1");
    let r = grundy(&["solve"], "");
    assert_eq!(r.code, 2);
}

#[test]
fn graph_family_rules() {
    let dir = std::env::temp_dir().join(format!("grundy-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("path5.txt");
    std::fs::write(&f, "1 2\n2 3\n3 4\n4 5\n").unwrap();
    let path = f.to_str().unwrap();
    // Node Kayles on P5 is Dawson's Kayles: 0.137 at 5 = 3; Kayles (one-or-two) on P5 = 4.
    let v = json(&["graph", path, "--rule", "node-kayles"]);
    assert_eq!(v["grundy"], 3);
    let v = json(&["graph", path]);
    assert_eq!(v["grundy"], 4);
    // Arc Kayles on a path is Dawson's Kayles in octal form 0.07: G(5) = 0, G(6) = 3.
    let v = json(&["graph", path, "--rule", "arc-kayles"]);
    assert_eq!(v["grundy"], 0);
    let v = json(&["graph", "--board", "path:6", "--rule", "arc-kayles"]);
    assert_eq!(v["grundy"], 3);
    let v = json(&["graph", path, "--rule", "take-vertex", "--misere"]);
    assert_eq!(v["outcome"], "second");
    let v = json(&["graph", "--board", "cycle:9", "--rule", "node-kayles"]);
    assert!(v["grundy"].is_u64());
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "1 2\n2 2\n").unwrap();
    assert_usage_error(
        &grundy(&["solve", "graph", bad.to_str().unwrap()], ""),
        "line 2, column 3",
    );
    std::fs::write(&bad, "1 2\n2 1\n").unwrap();
    assert_usage_error(
        &grundy(&["solve", "graph", bad.to_str().unwrap()], ""),
        "duplicate edge",
    );
    std::fs::write(&bad, "points 3\n1 9\n").unwrap();
    assert_usage_error(
        &grundy(&["solve", "graph", bad.to_str().unwrap()], ""),
        "unknown point",
    );
    std::fs::write(&bad, "1 300\n").unwrap();
    assert_usage_error(
        &grundy(&["solve", "graph", bad.to_str().unwrap()], ""),
        "at most 128",
    );
    assert_usage_error(
        &grundy(&["solve", "graph", path, "--rule", "chess"], ""),
        "unknown rule",
    );
    assert_usage_error(
        &grundy(&["solve", "nim", "3", "--rule", "node-kayles"], ""),
        "--rule",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn heap_games_and_subtraction() {
    // Kayles 0.77: G(5) ^ G(9) ^ G(12) = 4 ^ 4 ^ 4 = 4.
    let v = json(&["0.77", "5", "9", "12"]);
    assert_eq!(v["grundy"], 4);
    assert_eq!(
        v["winning_moves"],
        serde_json::json!(["1:5->2+2", "2:9->4+4", "3:12->5+5"])
    );
    let v = json(&["0.77", "3", "9", "--misere"]);
    assert_eq!(v["grundy"], serde_json::Value::Null);
    assert_eq!(v["outcome"], "first");
    let v = json(&["subtraction", "--set", "1,3,4", "10", "11"]);
    assert_eq!(v["family"], "sub:1,3,4");
    assert_eq!(v["grundy"], 3);
    assert_eq!(json(&["sub:1,3,4", "10", "11"])["grundy"], 3);
    // Far beyond the memo's comfort: the sequence engine gives the table.
    assert_eq!(json(&["0.6", "1000000"])["outcome"], "first");
    assert_usage_error(&grundy(&["solve", "0.8", "3"], ""), "column 3");
    assert_usage_error(&grundy(&["solve", "subtraction", "5"], ""), "--set");
    assert_usage_error(&grundy(&["solve", "nim", "5", "--set", "1,2"], ""), "--set");
}

#[test]
fn darkraft_family() {
    let v = json(&["darkraft", "RL/LR"]);
    assert_eq!(v["outcome"], "second");
    let v = json(&["darkraft", "RR/RR"]);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["winning_moves"].as_array().unwrap().len(), 4);
    let v = json(&["darkraft", "RX./L.R", "--misere", "--remoteness"]);
    assert!(v["remoteness"].is_u64());
    assert_usage_error(&grundy(&["solve", "darkraft", "RL/LQ"], ""), "column 5");
}

#[test]
fn serve_refuses_timeouts_no_clock_can_hold() {
    for t in ["1e19", "0", "-1", "nan", "inf", "86401"] {
        let arg = format!("--timeout={t}");
        let r = grundy(&["serve", "--addr", "127.0.0.1:0", &arg], "");
        assert_usage_error(&r, "--timeout must be a number of seconds");
    }
}
