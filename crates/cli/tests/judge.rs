//! `grundy judge`: the published samples, byte for byte, and bad judge inputs.

mod common;
use common::{assert_usage_error, grundy, reference};

#[test]
fn every_published_sample_matches_byte_for_byte() {
    let dir = reference("judge");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("reference/judge exists") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("in") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let problem = name.split("-sample").next().unwrap();
        let input = std::fs::read_to_string(&path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
        let r = grundy(&["judge", problem], &input);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert_eq!(r.stdout, expected, "{name}");
        checked += 1;
    }
    assert!(checked >= 7, "expected the published samples, found {checked}");
}

#[test]
fn answers_past_the_published_bounds() {
    // Crosses: 0.007 shifted by two, losing strips of Treblecross are known (n = 6, 12, 22...).
    let r = grundy(&["judge", "crosses"], "6\n12\n22\n3000\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(&lines[..3], &["2", "2", "2"]);
    let mut board = String::from("50 50\n");
    let mut x = 12345u32;
    for _ in 0..50 {
        for _ in 0..50 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            board.push(['L', 'R', 'X'][(x >> 16) as usize % 3]);
        }
        board.push('\n');
    }
    let r = grundy(&["judge", "darkraft"], &board);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout == "WIN\n" || r.stdout == "LOSE\n");
    let r = grundy(&["judge", "cutting"], "2 2\n1 5\n300 250\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().take(2).collect::<Vec<_>>(), vec!["LOSE", "WIN"]);
}

#[test]
fn bad_inputs_name_line_and_column() {
    let cases: &[(&str, &str, &str)] = &[
        ("darkraft", "2 2\nRL\nL\n", "line 3, column 2"),
        ("darkraft", "2 2\nRL\nLQ\n", "line 3, column 2"),
        ("darkraft", "2 2\nRL\n", "input ended after 1 of 2 rows"),
        ("darkraft", "2 2\nRL\nLR\nRL\n", "line 4"),
        ("darkraft", "0 2\n", "line 1, column 1"),
        ("bomb", "2 2\n.#\n.\n0 0\n", "line 3, column 2"),
        ("bomb", "2 2\n.#\n.x\n0 0\n", "line 3, column 2"),
        ("bomb", "2 2\n.#\n..\n", "input ended"),
        ("bomb", "2 2\n.#\n", "input ended after 1 of 2 rows"),
        ("bomb", "2 -2\n", "line 1, column 3"),
        ("bomb", "2 2\n.#\n..\n0 0\nextra\n", "line 5"),
        ("maoershan", "2\n110000000000\n", "input ended after 1 of 2"),
        ("maoershan", "1\n11000000000\n", "line 2, column 12"),
        ("maoershan", "1\n110000000002\n", "line 2, column 12"),
        ("maoershan", "x\n", "line 1, column 1"),
        ("cutting", "2 2\n3\n", "line 2"),
        ("cutting", "2 two\n", "line 1, column 3"),
        ("cutting", "1 1\n", "line 1"),
        ("crosses", "-5\n", "line 1, column 1"),
        ("crosses", "abc\n", "line 1, column 1"),
        ("crosses", "", "empty input"),
        ("bomb", "   \n\n", "empty input"),
    ];
    for (problem, input, needle) in cases {
        let r = grundy(&["judge", problem], input);
        assert_usage_error(&r, needle);
    }
}

#[test]
fn huge_line_gives_a_short_error() {
    let line = "9".repeat(1_000_000);
    let r = grundy(&["judge", "crosses"], &format!("{line}\n"));
    assert_usage_error(&r, "line 1, column 1");
    let line = "#".repeat(1_000_000);
    let r = grundy(&["judge", "bomb"], &format!("2 2\n{line}\n"));
    assert_usage_error(&r, "line 2, column 3");
}

#[test]
fn invalid_utf8_is_refused() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["judge", "crosses"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"3\n\xff\xfe\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2, column 1"));
}

#[test]
fn a_darkraft_board_past_the_table_limit_is_refused_as_input() {
    let mut input = String::from("200 200\n");
    for _ in 0..200 {
        input.push_str(&"L".repeat(200));
        input.push('\n');
    }
    let r = common::grundy(&["judge", "darkraft"], &input);
    common::assert_usage_error(&r, "more than the limit");
}
