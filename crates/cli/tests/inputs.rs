//! Inputs the program refuses (exit 2, a message naming the limit or the path), and files
//! written only where the user meant: checkpoints, pictures, the store.

mod common;

use common::{assert_usage_error, grundy};

/// A refusal by clap (several lines): exit 2, nothing on stdout, `needle` in the message.
fn assert_refused(r: &common::Run, needle: &str) {
    assert_eq!(r.code, 2, "exit code; stderr: {}", r.stderr);
    assert!(r.stdout.is_empty(), "no partial answer, got: {}", r.stdout);
    assert!(r.stderr.contains(needle), "expected '{needle}' in: {}", r.stderr);
}

#[test]
fn an_empty_position_is_an_input_error() {
    for (family, text) in [("nim", ""), ("nim", "  "), ("0.77", ""), ("grundys-game", " \t")] {
        assert_usage_error(&grundy(&["--no-db", "solve", family, text], ""), "empty position");
    }
    // Every family refuses it, each in its own words, at line 1, column 1.
    for family in [
        "darkraft", "bombs", "cutting", "crosses", "cram", "chomp", "points",
    ] {
        assert_usage_error(&grundy(&["--no-db", "solve", family, ""], ""), "line 1, column 1");
    }
    // A graph given by its board has no text, and is a position.
    let r = grundy(&["--no-db", "solve", "graph", "--board", "path:3"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    // No token at all is written 0.
    let r = grundy(&["--no-db", "solve", "nim", "0", "--json"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(r#""position":"0""#), "{}", r.stdout);
}

#[test]
fn play_ends_when_no_move_is_left_without_solving_the_end() {
    let r = grundy(&["--no-db", "play", "nim", "2"], "1:2->0\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.ends_with("position: 0\nno move left: you win\n"),
        "{}",
        r.stdout
    );
    let r = grundy(&["--no-db", "play", "nim", "2", "--first", "engine"], "");
    assert!(
        r.stdout
            .ends_with("engine plays 1:2->0\nposition: 0\nno move left: the engine wins\n"),
        "{}",
        r.stdout
    );
    let r = grundy(&["--no-db", "play", "nim", "1", "--misere"], "1:1->0\n");
    assert!(
        r.stdout.ends_with("position: 0\nno move left: the engine wins\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn checkpoints_are_written_only_where_meant() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "keep me").unwrap();
    let o = other.to_str().unwrap();
    let r = grundy(
        &["--no-db", "seq", "0.77", "-n", "50", "-q", "--checkpoint", o],
        "",
    );
    assert_usage_error(&r, "refusing to write checkpoint");
    assert!(
        r.stderr.contains(o) && r.stderr.contains("not a grundy checkpoint"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    // A folder or a device is refused even with --force.
    let d = dir.path().to_str().unwrap();
    let r = grundy(
        &[
            "--no-db",
            "seq",
            "0.77",
            "-n",
            "50",
            "-q",
            "--checkpoint",
            d,
            "--force",
        ],
        "",
    );
    assert_usage_error(&r, "it is a folder");
    let r = grundy(
        &[
            "--no-db",
            "seq",
            "0.77",
            "-n",
            "50",
            "-q",
            "--checkpoint",
            "/dev/null",
            "--force",
        ],
        "",
    );
    assert_usage_error(&r, "not a regular file");
    // --force replaces a regular file; the checkpoint then is one, and is written again and
    // resumed from as before.
    let r = grundy(
        &[
            "--no-db",
            "seq",
            "0.77",
            "-n",
            "50",
            "-q",
            "--checkpoint",
            o,
            "--force",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read(&other).unwrap().starts_with(b"GRUNDYSQ"));
    let r = grundy(
        &["--no-db", "seq", "0.77", "-n", "80", "-q", "--checkpoint", o],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = grundy(
        &["--no-db", "seq", "0.77", "-n", "100", "--values", "--resume", o],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 100);
    // --force only means something with --checkpoint.
    let r = grundy(&["--no-db", "seq", "0.77", "--force"], "");
    assert_refused(&r, "--checkpoint");
}

#[test]
fn pictures_are_written_only_where_meant() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("notes.svg");
    std::fs::write(&other, "keep me").unwrap();
    let o = other.to_str().unwrap();
    let r = grundy(&["--no-db", "plot", "0.77", "-n", "100", "-q", "-o", o], "");
    assert_usage_error(&r, "not a PNG or SVG picture");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    let r = grundy(
        &["--no-db", "plot", "0.77", "-n", "100", "-q", "-o", o, "--force"],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Now a picture: drawn over again without --force.
    let r = grundy(&["--no-db", "plot", "0.77", "-n", "100", "-q", "-o", o], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let png = dir.path().join("dir.png");
    std::fs::create_dir(&png).unwrap();
    let r = grundy(
        &[
            "--no-db",
            "plot",
            "0.77",
            "-q",
            "-o",
            png.to_str().unwrap(),
            "--force",
        ],
        "",
    );
    assert_usage_error(&r, "it is a folder");
}

#[test]
fn a_store_path_must_be_a_file() {
    let r = grundy(&["--db", "/dev/null", "db", "list"], "");
    assert_usage_error(&r, "not a regular file");
    let dir = tempfile::tempdir().unwrap();
    let r = grundy(&["--db", dir.path().to_str().unwrap(), "db", "verify"], "");
    assert_usage_error(&r, "it is a folder");
    // A command that only uses the store goes on without it.
    let r = grundy(&["--db", "/dev/null", "solve", "nim", "3"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("not using the store"), "{}", r.stderr);
}

#[test]
fn numbers_state_their_limits() {
    let cases: &[(&[&str], &str)] = &[
        (&["seq", "0.77", "--threads", "100000"], "from 1 to 1024"),
        (&["seq", "0.77", "--threads", "0"], "from 1 to 1024"),
        (
            &["seq", "0.77", "--memory-mib", "99999999999999999999"],
            "to 17592186044415",
        ),
        (&["solve", "nim", "3", "--max-positions", "0"], "from 1 to"),
        (
            &["play", "nim", "3", "--max-positions", "99999999999999999999999"],
            "18446744073709551615",
        ),
        (&["serve", "--max-concurrent", "0"], "from 1 to 512"),
        (&["serve", "--max-slow", "100000"], "from 1 to 512"),
        (&["serve", "--max-moves", "0"], "from 1 to"),
        (
            &["db", "prune", "--older-than", "99999999999999999999"],
            "to 213503982334601",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["--no-db"];
        all.extend_from_slice(args);
        assert_refused(&grundy(&all, ""), needle);
    }
    let usage: &[(&[&str], &str)] = &[
        (&["seq", "0.77", "-n", "2^41"], "at most 2^40 = 1099511627776"),
        (&["serve", "--addr", "127.0.0.1:99999"], "0 to 65535"),
        (&["serve", "--timeout", "100000"], "at most 86400"),
        (
            &["solve", "cram", "3x3", "--dense", "--memory-budget", "99999999T"],
            "at most 16777215T",
        ),
        (
            &["solve", "nim", "99999999999999999999"],
            "at most 281474976710656",
        ),
        (&["solve", "chomp", "2000x3"], "at most 1000"),
        (&["solve", "cutting", "1001x2"], "at most 1000"),
        (&["solve", "cram", "200x200"], "at most 128"),
        (
            &["solve", "points", "1", "--board", "path:0"],
            "path:N takes N from 1 to 128",
        ),
        (
            &["solve", "points", "1", "--board", "grid:100x100"],
            "at most 128 points",
        ),
        (
            &["solve", "points", "1", "--board", "star:128"],
            "1 to 127 leaves",
        ),
        (
            &["plot", "0.77", "-o", "x.png", "--size", "99999x10"],
            "each 200 to 10000",
        ),
    ];
    for (args, needle) in usage {
        let mut all = vec!["--no-db"];
        all.extend_from_slice(args);
        assert_usage_error(&grundy(&all, ""), needle);
    }
    // Vertex numbers of an edge list.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.txt");
    std::fs::write(&file, "1 99999999999999999999999\n").unwrap();
    let r = grundy(&["--no-db", "solve", "graph", file.to_str().unwrap()], "");
    assert_usage_error(&r, "at most 128");
}
